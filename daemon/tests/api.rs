//! The agent API against a scripted extension: one test per error code of the
//! contract, the gate's order, and the routes' success shapes. The scripted extension
//! speaks our extension protocol over a real WebSocket; ground truth is what it saw
//! dispatched.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::StreamExt;
use hyper::Method;
use serde_json::json;
use support::*;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

async fn setup() -> (Daemon, FakeExtension, u64) {
    daemon_with_tab(fast_config(), 0.99).await
}

#[tokio::test]
async fn health_needs_no_key_and_apps_list_the_tab() {
    let (d, _ext, pid) = setup().await;
    let r = d
        .call(Method::GET, "/health", None, &[("x-substrate-key", "")])
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "ok");
    assert_eq!(r.body["tracked_processes"], 1);
    assert_eq!(r.body["auth_enabled"], true);
    assert!(r.headers.contains_key("x-request-id"));
    let r = d.get("/substrate/v1/apps").await;
    assert_eq!(r.body["total"], 1);
    let app = &r.body["apps"][0];
    assert_eq!(app["pid"], pid);
    assert_eq!(app["app_id"], format!("127-0-0-1-{pid}"));
    assert_eq!(app["app_name"], "Test Mail");
    assert_eq!(app["runtime"], "v8");
    assert_eq!(app["runtime_name"], "Chromium 156");
    assert_eq!(app["probe_status"], "active");
    assert_eq!(app["action_count"], 4);
}

#[tokio::test]
async fn state_schema_and_diff() {
    let (d, ext, pid) = setup().await;
    let r = d.get(&format!("/substrate/v1/state/{pid}")).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["objects"]["outbox.sent_count"], 14);
    assert_eq!(r.body["schema_version"], "1.0.0");
    assert_eq!(r.body["context"]["window_id"], "1");
    let first_capture = r.body["capture_id"].clone();
    let r = d.get(&format!("/substrate/v1/schema/{pid}")).await;
    assert_eq!(
        r.body["actions"]["send_email"]["reversibility"],
        "irreversible_write"
    );
    d.get(&format!("/substrate/v1/diff/{pid}"))
        .await
        .assert_error(404, "no_diff_yet");
    ext.set(|p| {
        p.capture
            .objects
            .insert("inbox.unread_count".into(), json!(2));
    });
    let r = d
        .get(&format!("/substrate/v1/state/{pid}?fresh=true"))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["objects"]["inbox.unread_count"], 2);
    assert_ne!(r.body["capture_id"], first_capture);
    let r = d.get(&format!("/substrate/v1/diff/{pid}")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["diff"],
        json!([{"path": "inbox.unread_count", "before": 3, "after": 2}])
    );
    assert_eq!(r.body["previous_capture_id"], first_capture);
}

#[tokio::test]
async fn state_reads_a_part_of_a_large_page_by_prefix_and_limit() {
    let (d, ext, pid) = setup().await;
    ext.set(|p| {
        for n in 0..600 {
            p.capture
                .objects
                .insert(format!("orders[{n}].id"), json!(format!("o{n}")));
        }
    });
    ext.push_capture();
    let base = format!("/substrate/v1/state/{pid}");
    let r = d.get(&format!("{base}?fresh=true")).await;
    assert_eq!(r.status, 200);
    let total = r.body["objects"].as_object().expect("objects").len();
    assert_eq!(total, 604);
    assert!(r.body["probe_metadata"].get("objects_truncated").is_none());

    // Row 600 of the table, by prefix (percent-encoded like any client does).
    let r = d.get(&format!("{base}?prefix=orders%5B599%5D.")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["objects"], json!({"orders[599].id": "o599"}));
    assert_eq!(r.body["probe_metadata"]["filtered_object_count"], 1);
    assert!(r.body["probe_metadata"].get("objects_truncated").is_none());
    // Everything else of the state is still there.
    assert_eq!(
        r.body["actions"]["send_email"]["reversibility"],
        "irreversible_write"
    );

    // A limit returns the first keys in key order and says that more exist; `after`
    // reads on from the last key returned.
    let r = d.get(&format!("{base}?prefix=orders[&limit=2")).await;
    let keys: Vec<String> = r.body["objects"]
        .as_object()
        .expect("objects")
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["orders[0].id", "orders[100].id"]);
    assert_eq!(r.body["probe_metadata"]["objects_truncated"], true);
    assert_eq!(r.body["probe_metadata"]["filtered_object_count"], 2);
    let r = d
        .get(&format!(
            "{base}?prefix=orders[&limit=2&after=orders%5B100%5D.id"
        ))
        .await;
    let keys: Vec<String> = r.body["objects"]
        .as_object()
        .expect("objects")
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["orders[101].id", "orders[102].id"]);
    // A limit that covers everything left is not a truncation.
    let r = d.get(&format!("{base}?prefix=outbox.&limit=10")).await;
    assert_eq!(r.body["objects"], json!({"outbox.sent_count": 14}));
    assert!(r.body["probe_metadata"].get("objects_truncated").is_none());
    // No match is an empty object map, not an error.
    let r = d.get(&format!("{base}?prefix=nothing.here")).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["objects"], json!({}));

    for bad in [
        "limit=0",
        "limit=abc",
        "limit=100001",
        "prefix=%GG",
        "limit=1&limit=2",
    ] {
        let r = d.get(&format!("{base}?{bad}")).await;
        r.assert_error(400, "invalid_request");
        let message = r.body["message"].as_str().unwrap_or("");
        assert!(message.contains('?'), "{bad}: {message}");
    }
    let r = d.get(&format!("{base}?limit=0")).await;
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("from 1 to 100000"),
        "{}",
        r.body
    );
    assert_eq!(r.body["field"], "limit");
}

#[tokio::test]
async fn the_welcome_carries_the_probe_settings() {
    let mut config = fast_config();
    config.probe.max_objects = 20_000;
    config.probe.max_list_records = 1_000;
    let (_d, ext, _pid) = daemon_with_tab(config, 0.99).await;
    match &ext.welcome {
        nsp_protocol::channel::DaemonMessage::Welcome { probe, .. } => assert_eq!(
            *probe,
            Some(nsp_protocol::channel::ProbeSettings {
                max_objects: 20_000,
                max_list_records: 1_000
            })
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn invalid_request_names_the_field_and_changes_nothing() {
    let (d, ext, pid) = setup().await;
    let raw = |body: &'static str| {
        let d = &d;
        async move {
            let req = hyper::Request::builder()
                .method(Method::POST)
                .uri(d.url("/substrate/v1/action"))
                .header("x-substrate-key", &d.key)
                .body(http_body_util::Full::new(bytes::Bytes::from_static(
                    body.as_bytes(),
                )))
                .expect("request");
            d.send(req).await
        }
    };
    let r = raw("{not json").await;
    r.assert_error(400, "invalid_request");
    let r = raw("").await;
    r.assert_error(400, "invalid_request");
    let cases = [
        (json!({"pid": "one", "action": "search"}), "pid"),
        (
            json!({"pid": pid, "action": "search", "parameters": []}),
            "parameters",
        ),
        (json!({"pid": 0, "action": "search"}), "pid"),
        (json!({"action": "search"}), "pid"),
        (
            json!({"app_id": "no-such-tab", "action": "search"}),
            "app_id",
        ),
        (
            json!({"pid": pid, "action": "search", "verify_timeout_ms": 99}),
            "verify_timeout_ms",
        ),
        (
            json!({"pid": pid, "action": "search", "verify_timeout_ms": 30001}),
            "verify_timeout_ms",
        ),
        (json!({"pid": pid, "action": ""}), "action"),
        (json!({"pid": pid}), "action"),
    ];
    for (body, field) in cases {
        let r = d.act(body.clone()).await;
        r.assert_error(400, "invalid_request");
        assert_eq!(r.body["field"], field, "{body} → {}", r.body);
    }
    // A 10 000-deep array is refused, not followed.
    let deep = format!(
        "{{\"pid\": {pid}, \"action\": \"search\", \"parameters\": {{\"q\": {}{}}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let req = hyper::Request::builder()
        .method(Method::POST)
        .uri(d.url("/substrate/v1/action"))
        .header("x-substrate-key", &d.key)
        .body(http_body_util::Full::new(bytes::Bytes::from(deep)))
        .expect("request");
    d.send(req).await.assert_error(400, "invalid_request");
    assert!(ext.dispatched().is_empty(), "nothing may be dispatched");
}

#[tokio::test]
async fn missing_verify_expression_suggests_real_keys() {
    let (d, ext, pid) = setup().await;
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "bob@example.com"}}))
        .await;
    r.assert_error(400, "missing_verify_expression");
    assert_eq!(
        r.body["suggested_expression"],
        "prev.outbox.sent_count != outbox.sent_count"
    );
    assert!(r.body["message"]
        .as_str()
        .unwrap_or("")
        .contains("prev.outbox.sent_count != outbox.sent_count"));
    assert!(ext.dispatched().is_empty());
    let audit = d.audit_lines();
    assert!(
        audit
            .iter()
            .any(|l| l["decision"] == "refused:missing_verify_expression"),
        "{audit:?}"
    );
}

#[tokio::test]
async fn gate_order_expression_before_confidence() {
    // A low-confidence page: an irreversible request without an expression is refused
    // for the missing expression, not for confidence.
    let (d, ext, pid) = daemon_with_tab(fast_config(), 0.5).await;
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}}))
        .await;
    r.assert_error(400, "missing_verify_expression");
    // With an expression, confidence is next.
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"}))
        .await;
    r.assert_error(422, "confidence_too_low");
    assert_eq!(r.body["actual_confidence"], 0.5);
    assert_eq!(r.body["required_confidence"], 0.95);
    // Parameters come after confidence: bad parameters on a low-confidence write still
    // get confidence_too_low.
    let r = d
        .act(json!({"pid": pid, "action": "archive", "parameters": {"email_id": 5}}))
        .await;
    r.assert_error(422, "confidence_too_low");
    assert!(ext.dispatched().is_empty());
}

/// Fail closed: when the audit log is on a full device (`/dev/full`, where every write
/// fails with ENOSPC, for root too) an irreversible action is refused with 503 and the
/// page is sent nothing; a read still runs (its record is not a precondition).
#[tokio::test]
async fn an_unwritable_audit_log_refuses_irreversible_actions() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("data")).expect("mkdir");
    std::os::unix::fs::symlink("/dev/full", dir.path().join("data/audit.jsonl")).expect("symlink");
    let d = Daemon::start_in(fast_config(), dir).await;
    let ext = FakeExtension::connect(&d, Some(mail_capture(0.99))).await;
    let pid = wait_for_tab(&d, |a| a["has_state"] == true).await;
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"}))
        .await;
    r.assert_error(503, "audit_unavailable");
    assert_eq!(r.body["executed"], false);
    let message = r.body["message"].as_str().unwrap_or_default();
    assert!(message.contains("Free disk space"), "{message}");
    assert!(ext.dispatched().is_empty(), "{:?}", ext.dispatched());
    // Nothing ran, so a retry with the same Idempotency-Key runs again (here: is refused
    // again) instead of replaying the refusal.
    let send = json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"});
    let first = d.act_with_key(send.clone(), "k-audit").await;
    first.assert_error(503, "audit_unavailable");
    let again = d.act_with_key(send, "k-audit").await;
    again.assert_error(503, "audit_unavailable");
    assert!(again.headers.get("idempotent-replayed").is_none());
    assert_ne!(again.body["action_id"], first.body["action_id"]);
    assert!(ext.dispatched().is_empty());
    let r = d
        .act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 1);
}

/// The disk fills while an irreversible action is in flight: its start is on disk, its
/// completion cannot be. The action ran, so the answer is still 200, and it says that
/// the log holds only the start. The fault is real: the daemon's own descriptor of
/// `audit.jsonl` (found in /proc/self/fd by its path; this test's daemon is in-process)
/// is pointed at `/dev/full` with dup2 while the page is answering.
#[tokio::test]
async fn a_completion_the_log_cannot_hold_is_said_in_the_answer() {
    let (d, ext, pid) = setup().await;
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Slow {
            delay: Duration::from_millis(500),
            changes: [("outbox.sent_count".to_owned(), json!(15))].into(),
        }
    });
    let log = d.data_dir.path().join("data/audit.jsonl");
    let acting = {
        let body = json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"});
        let d = std::sync::Arc::new(d);
        let d2 = d.clone();
        (tokio::spawn(async move { d2.act(body).await }), d)
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while ext.dispatched().is_empty() {
        assert!(std::time::Instant::now() < deadline, "never dispatched");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let fd = std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(Result::ok)
        .find(|e| std::fs::read_link(e.path()).is_ok_and(|t| t == log))
        .and_then(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .expect("the daemon's audit descriptor");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    // SAFETY: dup2 onto a descriptor this process owns (the daemon's open audit file);
    // it stays open, now writing to /dev/full.
    assert_eq!(
        unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&full), fd) },
        fd
    );
    let r = acting.0.await.expect("join");
    assert_eq!(r.status, 200, "{}", r.body);
    let message = r.body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("could not record its completion"),
        "{message}"
    );
    let lines = acting.1.audit_lines();
    assert!(lines
        .iter()
        .any(|l| l["decision"] == "dispatched" && l["action"] == "send_email"));
    assert!(!lines.iter().any(|l| l["decision"] == "completed"));
    assert_eq!(ext.dispatched().len(), 1);
}

#[tokio::test]
async fn irreversible_not_confirmed_when_verify_is_false() {
    let (d, ext, pid) = setup().await;
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "verify": false, "verify_expression": "outbox.sent_count == 15", "parameters": {"to": "a@b.co"}}))
        .await;
    r.assert_error(422, "irreversible_not_confirmed");
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn expression_errors() {
    let (d, ext, pid) = setup().await;
    let big = format!("outbox.sent_count == {}", "1".repeat(2100));
    let r = d.act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}, "verify_expression": big})).await;
    r.assert_error(400, "verify_expression_too_large");
    for bad in [
        "outbox.sent_count ==",
        "fetch('x') == 1",
        "window['fe'+'tch']",
        &"(".repeat(2000),
        &"!".repeat(2000),
    ] {
        let r = d.act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}, "verify_expression": bad})).await;
        r.assert_error(400, "invalid_verify_expression");
        assert!(r.body["position"].is_u64(), "{}", r.body);
    }
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn dangerous_unresolved_actions_and_unknown_ones() {
    let (d, ext, pid) = setup().await;
    let r = d
        .act(json!({"pid": pid, "action": "delete_all_mail"}))
        .await;
    r.assert_error(400, "dangerous_action_unverified");
    let r = d.act(json!({"pid": pid, "action": "fly_to_moon"})).await;
    r.assert_error(404, "action_not_available");
    assert!(r.body["message"]
        .as_str()
        .unwrap_or("")
        .contains("send_email"));
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn invalid_parameters() {
    let (d, ext, pid) = setup().await;
    for (params, field) in [
        (json!({}), "parameters.email_id"),
        (json!({"email_id": 1}), "parameters.email_id"),
        (json!({"email_id": "e9"}), "parameters.email_id"),
        (
            json!({"email_id": "e1", "folder": "x"}),
            "parameters.folder",
        ),
    ] {
        let r = d
            .act(json!({"pid": pid, "action": "archive", "parameters": params}))
            .await;
        r.assert_error(400, "invalid_parameters");
        assert_eq!(r.body["field"], field);
    }
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn keys() {
    let (d, _ext, _pid) = setup().await;
    let anon = d
        .call(
            Method::GET,
            "/substrate/v1/apps",
            None,
            &[("x-substrate-key", "")],
        )
        .await;
    anon.assert_error(401, "missing_key");
    let wrong = d
        .call(
            Method::GET,
            "/substrate/v1/apps",
            None,
            &[("x-substrate-key", "0000")],
        )
        .await;
    wrong.assert_error(401, "invalid_key");
    let prefix = &d.key[..32];
    d.call(
        Method::GET,
        "/substrate/v1/apps",
        None,
        &[("x-substrate-key", prefix)],
    )
    .await
    .assert_error(401, "invalid_key");
    // Bearer works too (header names are case-insensitive; the SDK sends lower case).
    let req = hyper::Request::builder()
        .uri(d.url("/substrate/v1/apps"))
        .header("authorization", format!("Bearer {}", d.key))
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .expect("request");
    assert_eq!(d.send(req).await.status, 200);
}

#[tokio::test]
async fn pid_not_found() {
    let (d, _ext, _pid) = setup().await;
    d.get("/substrate/v1/state/999")
        .await
        .assert_error(404, "pid_not_found");
    d.act(json!({"pid": 999, "action": "search"}))
        .await
        .assert_error(404, "pid_not_found");
    d.get("/substrate/v1/state/abc")
        .await
        .assert_error(400, "invalid_request");
}

#[tokio::test]
async fn a_reversible_action_runs_and_reports_its_delta() {
    let (d, ext, pid) = setup().await;
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Succeed {
            value: json!(true),
            changes: BTreeMap::from([("inbox.unread_count".into(), json!(2))]),
            after_captures: 0,
        }
    });
    let r = d.act(json!({"app_id": format!("127-0-0-1-{pid}"), "action": "archive", "parameters": {"email_id": "e1"}})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["success"], true);
    assert_eq!(r.body["executed"], true);
    assert!(r.body["total_latency_ms"].is_u64());
    assert_eq!(
        r.body["state_delta"]["inbox.unread_count"],
        json!({"before": 3, "after": 2})
    );
    assert_eq!(r.body["updated_state"]["objects"]["inbox.unread_count"], 2);
    let sent = ext.dispatched();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1, "archive");
    assert_eq!(sent[0].2, json!({"email_id": "e1"}));
    let audit = d.audit_lines();
    assert!(audit.iter().any(|l| l["decision"] == "dispatched"
        && l["action"] == "archive"
        && l["tier"] == "reversible_write"));
    assert!(audit
        .iter()
        .any(|l| l["decision"] == "completed" && l["result"] == "done"));
}

#[tokio::test]
async fn verification_polls_until_the_page_catches_up() {
    let (d, ext, pid) = setup().await;
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Succeed {
            value: json!(true),
            changes: BTreeMap::from([("outbox.sent_count".into(), json!(15))]),
            after_captures: 4,
        }
    });
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "bob@example.com"}, "verify_expression": "prev.outbox.sent_count != outbox.sent_count", "verify_timeout_ms": 5000}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let v = &r.body["verification"];
    assert_eq!(v["passed"], true);
    assert!(v["poll_cycles"].as_u64().unwrap_or(0) > 1, "{v}");
    assert_eq!(
        v["changed_fields"],
        json!([{"path": "outbox.sent_count", "before": 14, "after": 15}])
    );
    assert!(
        v["explanation"].as_str().unwrap_or("").contains("14"),
        "{v}"
    );
    assert_eq!(ext.dispatched().len(), 1);
}

#[tokio::test]
async fn verification_failed_explains_the_values() {
    let (d, ext, pid) = setup().await;
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "bob@example.com"}, "verify_expression": "outbox.sent_count == 15", "verify_timeout_ms": 300}))
        .await;
    r.assert_error(422, "verification_failed");
    assert_eq!(r.body["executed"], true);
    assert_eq!(r.body["verification"]["passed"], false);
    let explanation = r.body["verification"]["explanation"].as_str().unwrap_or("");
    assert!(explanation.contains("14"), "{explanation}");
    assert_eq!(ext.dispatched().len(), 1, "dispatched once, never retried");
}

#[tokio::test]
async fn action_failed_says_why() {
    let (d, ext, pid) = setup().await;
    let cases = [
        ("target_not_found", "No row has email id e2.", "e2", "e2"),
        (
            "dialog_declined",
            "The page asked \"Really delete?\" (confirm) and NSP answered no.",
            "e1",
            "answered no",
        ),
    ];
    for (code, message, email_id, said) in cases {
        ext.set(|p| {
            p.on_dispatch = OnDispatch::Fail {
                code: code.into(),
                message: message.into(),
            }
        });
        let r = d
            .act(json!({"pid": pid, "action": "archive", "parameters": {"email_id": email_id}}))
            .await;
        r.assert_error(422, "action_failed");
        assert_eq!(r.body["failure"], code);
        assert!(
            r.body["message"].as_str().unwrap_or("").contains(said),
            "{}",
            r.body
        );
    }
}

#[tokio::test]
async fn probe_timeout_and_outcome_unknown_are_never_retried() {
    let mut config = fast_config();
    config.dispatcher.action_timeout_ms = 200;
    let (d, ext, pid) = daemon_with_tab(config, 0.99).await;
    ext.set(|p| p.on_dispatch = OnDispatch::Hang);
    let r = d
        .act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}}))
        .await;
    r.assert_error(504, "probe_timeout");
    assert!(r.body["message"]
        .as_str()
        .unwrap_or("")
        .contains("may or may not"));
    assert_eq!(ext.dispatched().len(), 1);
    ext.set(|p| p.on_dispatch = OnDispatch::Drop);
    let r = d
        .act(json!({"pid": pid, "action": "search", "parameters": {"q": "y"}}))
        .await;
    r.assert_error(503, "outcome_unknown");
    assert_eq!(ext.dispatched().len(), 2, "never retried");
    // The tab is now detached.
    d.get(&format!("/substrate/v1/state/{pid}"))
        .await
        .assert_error(503, "probe_detached");
    d.act(json!({"pid": pid, "action": "search", "parameters": {"q": "z"}}))
        .await
        .assert_error(503, "probe_detached");
}

#[tokio::test]
async fn probe_not_ready_before_a_capture() {
    let d = Daemon::start().await;
    let _ext = FakeExtension::connect(&d, None).await;
    let pid = wait_for_tab(&d, |a| a["probe_status"] == "attaching").await;
    d.get(&format!("/substrate/v1/state/{pid}"))
        .await
        .assert_error(503, "probe_not_ready");
    d.act(json!({"pid": pid, "action": "search"}))
        .await
        .assert_error(503, "probe_not_ready");
}

#[tokio::test]
async fn idempotency_replays_conflicts_and_refuses_reuse() {
    let (d, ext, pid) = setup().await;
    let body = json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}});
    let first = d.act_with_key(body.clone(), "k-1").await;
    assert_eq!(first.status, 200, "{}", first.body);
    let again = d.act_with_key(body.clone(), "k-1").await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body["action_id"], first.body["action_id"]);
    assert_eq!(
        again
            .headers
            .get("idempotent-replayed")
            .map(|v| v.to_str().unwrap_or("")),
        Some("true")
    );
    assert_eq!(ext.dispatched().len(), 1, "replayed, not run twice");
    let other = json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e2"}});
    d.act_with_key(other, "k-1")
        .await
        .assert_error(422, "idempotency_key_reused");

    // While the first is still running, the same key conflicts.
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Slow {
            delay: Duration::from_millis(500),
            changes: [("outbox.sent_count".to_owned(), json!(15))].into(),
        }
    });
    let slow = json!({"pid": pid, "action": "search", "parameters": {"q": "slow"}});
    let d2 = &d;
    let running = async { d2.act_with_key(slow.clone(), "k-2").await };
    let second = async {
        // Wait until the first has been dispatched before sending the second.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while ext.dispatched().len() < 2 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        d2.act_with_key(slow.clone(), "k-2").await
    };
    let (a, b) = tokio::join!(running, second);
    assert_eq!(a.status, 200, "{}", a.body);
    b.assert_error(409, "idempotency_conflict");
    assert_eq!(ext.dispatched().len(), 2);
}

#[tokio::test]
async fn stale_state_refuses_an_old_capture() {
    let (d, ext, pid) = setup().await;
    let state = d.get(&format!("/substrate/v1/state/{pid}")).await.body;
    let capture_id = state["capture_id"].as_str().expect("capture id").to_owned();
    // Same target: allowed.
    let r = d.act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}, "expected_capture_id": capture_id})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    // The page re-renders and the action's target changes.
    ext.set(|p| {
        if let Some(a) = p.capture.actions.get_mut("search") {
            a.internal_target = "dom:#other-search".into();
        }
    });
    ext.push_capture();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while d.get(&format!("/substrate/v1/state/{pid}")).await.body["actions"]["search"]
        ["internal_target"]
        != "dom:#other-search"
    {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let r = d.act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}, "expected_capture_id": capture_id})).await;
    r.assert_error(409, "stale_state");
    d.act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}, "expected_capture_id": "nope"}))
        .await
        .assert_error(409, "stale_state");
    assert_eq!(ext.dispatched().len(), 1);
}

#[tokio::test]
async fn rate_limited_with_retry_after() {
    let mut config = fast_config();
    config.rate_limit.state_reads_per_sec = 3;
    let (d, _ext, _pid) = daemon_with_tab(config, 0.99).await;
    let mut limited = None;
    for _ in 0..10 {
        let r = d.get("/substrate/v1/apps").await;
        if r.status == 429 {
            limited = Some(r);
            break;
        }
    }
    let r = limited.expect("the 4th read within a second is limited");
    r.assert_error(429, "rate_limited");
    assert!(r.body["retry_after_ms"].as_u64().unwrap_or(0) > 0);
    let retry_after: u64 = r.headers["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!(retry_after >= 1);
}

#[tokio::test]
async fn verify_route_polls_the_live_state() {
    let (d, ext, pid) = setup().await;
    let r = d
        .post(
            "/substrate/v1/verify",
            json!({"pid": pid, "expression": "inbox.unread_count == 3", "timeout_ms": 500}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["passed"], true);
    let r = d
        .post(
            "/substrate/v1/verify",
            json!({"pid": pid, "expression": "inbox.unread_count == 0", "timeout_ms": 200}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["passed"], false);
    assert!(
        r.body["explanation"].as_str().unwrap_or("").contains('3'),
        "{}",
        r.body
    );
    d.post(
        "/substrate/v1/verify",
        json!({"pid": pid, "expression": "inbox.unread_count ==", "timeout_ms": 200}),
    )
    .await
    .assert_error(400, "invalid_verify_expression");
    d.post(
        "/substrate/v1/verify",
        json!({"pid": pid, "expression": "x == 1", "timeout_ms": 50}),
    )
    .await
    .assert_error(400, "invalid_request");
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn watch_streams_changes_and_closes_when_the_tab_goes() {
    let (d, ext, pid) = setup().await;
    let url = format!("ws://{}/substrate/v1/watch/{pid}", d.addr);
    let mut request = url.into_client_request().expect("request");
    request
        .headers_mut()
        .insert("x-substrate-key", d.key.parse().expect("header"));
    let (mut ws, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("watch");
    ext.set(|p| {
        p.capture
            .objects
            .insert("inbox.unread_count".into(), json!(1));
    });
    ext.push_capture();
    let event = loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("event in time")
        {
            Some(Ok(Message::Text(t))) => {
                break serde_json::from_str::<serde_json::Value>(&t).expect("json")
            }
            Some(Ok(_)) => continue,
            other => panic!("stream ended: {other:?}"),
        }
    };
    assert_eq!(event["pid"], pid);
    assert_eq!(event["sequence"], 1);
    assert_eq!(event["changed_keys"], json!(["inbox.unread_count"]));
    assert!(event["captured_at"].is_string());
    ext.close_tab();
    let close = loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("close in time")
        {
            Some(Ok(Message::Close(frame))) => break frame,
            Some(Ok(_)) => continue,
            other => panic!("no close frame: {other:?}"),
        }
    };
    assert_eq!(close.map(|f| u16::from(f.code)), Some(1000));
    // The watch route also takes ?key= and refuses without a key.
    let (status, _) = ws_status(&format!("ws://{}/substrate/v1/watch/{pid}", d.addr)).await;
    assert_eq!(status, 401);
}

async fn ws_status(url: &str) -> (u16, String) {
    match tokio_tungstenite::connect_async(url).await {
        Ok(_) => (101, String::new()),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            (resp.status().as_u16(), String::new())
        }
        Err(e) => (0, e.to_string()),
    }
}

#[tokio::test]
async fn body_limit_and_unknown_routes() {
    let mut config = fast_config();
    config.server.max_body_bytes = 4096;
    let (d, _ext, pid) = daemon_with_tab(config, 0.99).await;
    let big = json!({"pid": pid, "action": "search", "parameters": {"q": "x".repeat(5000)}});
    d.act(big).await.assert_error(413, "payload_too_large");
    d.get("/substrate/v1/nothing")
        .await
        .assert_error(404, "not_found");
    d.call(Method::DELETE, "/substrate/v1/apps", None, &[])
        .await
        .assert_error(405, "method_not_allowed");
    let r = d.get("/substrate/v1/openapi.json").await;
    assert_eq!(r.body["openapi"], "3.1.0");
}
