//! The gate against a page that lies (issue 19), through the whole pipeline with the
//! scripted extension: checks that cannot verify anything are refused, a builtin's
//! selector is gated by the element the page resolves it to (never by its text), an
//! element no action explains goes under every floor, the dispatch carries what the gate
//! saw, a page that swaps the control between the gate and dispatch gets 409 and nothing,
//! and secrets are redacted in the audit log by their mark. Each test checks what the
//! page was sent, not only what the agent was told.

mod support;

use nsp_protocol::channel::{DispatchExpect, Resolution};
use nsp_protocol::{ActionExplain, ExplainElement, PageCapture, Reversibility};
use serde_json::{json, Value};
use support::*;

fn explained(labels: &[&str], rows: &[&[&str]]) -> ActionExplain {
    ActionExplain {
        elements: labels
            .iter()
            .enumerate()
            .map(|(i, l)| ExplainElement {
                tag: "button".into(),
                selector: format!("#el{i}"),
                text: l.to_string(),
                ..Default::default()
            })
            .collect(),
        rows: rows
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect(),
        ..Default::default()
    }
}

/// The mail page with a read link, a delete button, a declared "Archive report"
/// control, and `archive` as a row action over two rows, each explained.
fn page() -> PageCapture {
    let mut c = mail_capture(0.99);
    let extra: Value = json!({
        "open_help": {"signature": "fn() -> bool", "reversibility": "read", "description": "Help", "confidence": 0.95,
            "internal_target": "dom:#help", "parameters": []},
        "delete_account": {"signature": "fn() -> bool", "reversibility": "irreversible_write", "description": "Delete account", "confidence": 0.99,
            "internal_target": "dom:#delete", "parameters": []},
        "archive_report": {"signature": "fn() -> bool", "reversibility": "reversible_write", "description": "Archive report", "confidence": 0.99,
            "internal_target": "dom:#report-action", "parameters": []},
        "log_in": {"signature": "fn(x: string) -> bool", "reversibility": "reversible_write", "description": "Log in", "confidence": 0.99,
            "internal_target": "dom:#login", "parameters": [
                {"name": "x", "type_name": "string", "required": true, "description": "Password", "secret": true}]}
    });
    for (name, schema) in extra.as_object().expect("object") {
        c.actions.insert(
            name.clone(),
            serde_json::from_value(schema.clone()).expect("schema"),
        );
    }
    let archive = c.actions.get_mut("archive").expect("archive");
    archive.internal_target = "row:#list > li button | #list > li | @data-id".into();
    c.explain
        .insert("open_help".into(), explained(&["Help"], &[]));
    c.explain
        .insert("delete_account".into(), explained(&["Delete account"], &[]));
    c.explain
        .insert("archive_report".into(), explained(&["Archive report"], &[]));
    c.explain.insert(
        "archive".into(),
        explained(&["Archive"], &[&["Ann", "Lunch"], &["Bob", "Invoice"]]),
    );
    c
}

async fn setup() -> (Daemon, FakeExtension, u64) {
    let d = Daemon::start_with(fast_config()).await;
    let ext = FakeExtension::connect(&d, Some(page())).await;
    let pid = wait_for_tab(&d, |a| a["has_state"] == true).await;
    (d, ext, pid)
}

fn succeed(changes: &[(&str, Value)]) -> OnDispatch {
    OnDispatch::Succeed {
        value: json!(true),
        changes: changes
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        after_captures: 0,
    }
}

#[tokio::test]
async fn a_check_that_cannot_tell_is_refused_and_nothing_is_sent() {
    let (d, ext, pid) = setup().await;
    for expression in [
        // Already true: an earlier send set it.
        "outbox.sent_count > 0",
        "outbox.sent_count == 14",
        // Reads nothing at all.
        "true",
        "1 == 1",
        // Reads only the state before the action.
        "prev.outbox.sent_count == 14",
    ] {
        let r = d
            .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": expression}))
            .await;
        r.assert_error(400, "verify_expression_vacuous");
        assert_eq!(
            r.body["suggested_expression"], "prev.outbox.sent_count != outbox.sent_count",
            "{expression}: {}",
            r.body
        );
        assert_eq!(
            r.body["suggested_exact_expression"],
            "outbox.sent_count == 15"
        );
        assert_eq!(r.body["field"], "verify_expression");
    }
    // The vacuous `true` on a builtin's click runs nothing either, even at an element
    // the page says is a plain read link.
    ext.set(|p| {
        p.resolutions
            .insert("#help".into(), resolves_to("a", "Help", &["open_help"]));
    });
    d.act(json!({"pid": pid, "action": "click", "parameters": {"selector": "#help"}, "verify_expression": "true"}))
        .await
        .assert_error(400, "verify_expression_vacuous");
    assert!(ext.dispatched().is_empty(), "{:?}", ext.dispatched());
    let refused = d
        .audit_lines()
        .into_iter()
        .filter(|l| l["decision"] == "refused:verify_expression_vacuous")
        .count();
    assert_eq!(refused, 6);

    // A check the action makes true runs.
    ext.set(|p| p.on_dispatch = succeed(&[("outbox.sent_count", json!(15))]));
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 1);
}

#[tokio::test]
async fn a_selector_is_gated_by_the_element_the_page_finds() {
    let (d, ext, pid) = setup().await;
    ext.set(|p| {
        p.on_dispatch = succeed(&[("outbox.sent_count", json!(15))]);
        p.resolutions
            .insert("#help".into(), resolves_to("a", "Help", &["open_help"]));
        // A selector that starts with the read link's target but finds the delete
        // button next to it.
        p.resolutions.insert(
            "#help ~ button".into(),
            resolves_to("button", "Delete account", &["delete_account"]),
        );
    });
    let click = |sel: &str| json!({"pid": pid, "action": "click", "parameters": {"selector": sel}, "verify_expression": "changed(outbox.sent_count)"});
    let r = d.act(click("#help")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("gated as open_help"),
        "{}",
        r.body
    );
    ext.set(|p| p.on_dispatch = succeed(&[("outbox.sent_count", json!(16))]));
    let r = d.act(click("#help ~ button")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("gated as delete_account"),
        "{}",
        r.body
    );
    assert_eq!(
        ext.page.lock().expect("page").resolved,
        ["#help", "#help ~ button"]
    );
    let expects = ext.page.lock().expect("page").expects.clone();
    let tiers: Vec<_> = expects
        .iter()
        .map(|e| e.as_ref().and_then(|e| e.tier))
        .collect();
    assert_eq!(
        tiers,
        [
            Some(Reversibility::Read),
            Some(Reversibility::IrreversibleWrite)
        ]
    );
    // The element the gate rated goes with the dispatch, for the dispatcher to find
    // again.
    let element = expects[1]
        .as_ref()
        .and_then(|e| e.element.clone())
        .expect("the resolved element");
    assert_eq!(element.label, "Delete account");
    assert_eq!(element.actions, ["delete_account"]);
    // The delete without a check is refused for that, whatever the selector says.
    d.act(json!({"pid": pid, "action": "click", "parameters": {"selector": "#help ~ button"}}))
        .await
        .assert_error(400, "missing_verify_expression");
    assert_eq!(ext.dispatched().len(), 2);
}

#[tokio::test]
async fn a_selector_that_finds_no_one_element_or_a_hidden_one_sends_nothing() {
    let (d, ext, pid) = setup().await;
    let mut hidden = resolves_to("button", "Delete account", &["delete_account"]);
    if let Some(e) = hidden.element.as_mut() {
        e.perceivable = false;
    }
    ext.set(|p| {
        p.resolutions.insert(
            "button".into(),
            Resolution {
                count: 2,
                element: None,
                error: None,
            },
        );
        p.resolutions.insert("#ghost-delete".into(), hidden);
        p.resolutions.insert(
            "#(".into(),
            Resolution {
                count: 0,
                element: None,
                error: Some("'#(' is not a valid selector".into()),
            },
        );
    });
    let click = |sel: &str| json!({"pid": pid, "action": "click", "parameters": {"selector": sel}, "verify_expression": "changed(outbox.sent_count)"});
    let r = d.act(click("#nothing")).await;
    r.assert_error(400, "invalid_parameters");
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("matches no element"),
        "{}",
        r.body
    );
    assert_eq!(r.body["field"], "parameters.selector");
    let r = d.act(click("button")).await;
    r.assert_error(400, "invalid_parameters");
    assert_eq!(r.body["matches"], 2);
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("2 elements"),
        "{}",
        r.body
    );
    d.act(click("#("))
        .await
        .assert_error(400, "invalid_parameters");
    let r = d.act(click("#ghost-delete")).await;
    r.assert_error(422, "action_failed");
    assert_eq!(r.body["failure"], "target_hidden");
    assert_eq!(r.body["executed"], false);
    // An extension that does not answer `resolve` (older than nspd): refused, not
    // guessed.
    ext.set(|p| p.answers_resolve = false);
    let r = d.act(click("#help")).await;
    r.assert_error(422, "action_failed");
    assert_eq!(r.body["failure"], "unsupported");
    assert_eq!(r.body["executed"], false);
    assert!(ext.dispatched().is_empty(), "{:?}", ext.dispatched());
}

#[tokio::test]
async fn an_element_no_action_explains_is_not_let_through() {
    // The page is understood at 0.99; the element is not. Never "irreversible at 1.0".
    let (d, ext, pid) = setup().await;
    ext.set(|p| {
        p.resolutions
            .insert("#mystery".into(), resolves_to("div", "Continue", &[]));
    });
    let r = d
        .act(json!({"pid": pid, "action": "click", "parameters": {"selector": "#mystery"}, "verify_expression": "changed(outbox.sent_count)"}))
        .await;
    r.assert_error(422, "confidence_too_low");
    assert_eq!(r.body["actual_confidence"], 0.0);
    assert_eq!(r.body["reversibility"], "irreversible_write");
    assert!(
        r.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("belongs to no action"),
        "{}",
        r.body
    );
    // A point on the page, likewise.
    d.act(json!({"pid": pid, "action": "click", "parameters": {"x": 10, "y": 10}, "verify_expression": "changed(outbox.sent_count)"}))
        .await
        .assert_error(422, "confidence_too_low");
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn the_dispatch_carries_the_labels_and_the_named_rows_cells() {
    let (d, ext, pid) = setup().await;
    ext.set(|p| p.on_dispatch = succeed(&[("inbox.unread_count", json!(2))]));
    let r = d
        .act(json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e2"}, "verify_expression": "inbox.unread_count == 2"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let expects = ext.page.lock().expect("page").expects.clone();
    assert_eq!(
        expects,
        [Some(DispatchExpect {
            tier: Some(Reversibility::ReversibleWrite),
            labels: vec!["Archive".into()],
            row: Some(vec!["Bob".into(), "Invoice".into()]),
            element: None,
        })]
    );
}

/// The page swaps what the gate saw right when nspd takes its capture before dispatch:
/// a relabelled control, a declared tier turned stricter, a new row in front of the
/// named one. Each is 409 `stale_state` and nothing reaches the page.
#[tokio::test]
async fn a_page_that_swaps_between_gate_and_dispatch_gets_nothing() {
    let (d, ext, pid) = setup().await;
    let mut relabelled = page();
    relabelled.explain.insert(
        "archive_report".into(),
        explained(&["Delete report forever"], &[]),
    );
    let mut stricter = page();
    stricter
        .actions
        .get_mut("archive_report")
        .expect("archive_report")
        .reversibility = Reversibility::IrreversibleWrite;
    let mut shifted = page();
    shifted.explain.insert(
        "archive".into(),
        explained(
            &["Archive"],
            &[&["Eve", "Wire transfer"], &["Ann", "Lunch"]],
        ),
    );
    let report = json!({"pid": pid, "action": "archive_report", "verify_expression": "inbox.unread_count == 2"});
    let row = json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}, "verify_expression": "inbox.unread_count == 2"});
    for (swap, body, says) in [
        (relabelled, &report, "Delete report forever"),
        (stricter, &report, "irreversible_write"),
        (shifted, &row, "Wire transfer"),
    ] {
        ext.set(|p| {
            p.capture = page();
            p.swap_before_capture = Some(swap);
        });
        ext.push_capture();
        let r = d.act(body.clone()).await;
        r.assert_error(409, "stale_state");
        let message = r.body["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{message}");
        assert!(message.contains("nothing was sent"), "{message}");
        assert!(ext.dispatched().is_empty(), "{:?}", ext.dispatched());
    }
}

/// The stale-target guard's fingerprint holds the labels: a request made against a
/// capture where the control said "Archive report" does not run once it says "Delete".
#[tokio::test]
async fn expected_capture_id_is_stale_when_a_label_changed() {
    let (d, ext, pid) = setup().await;
    let seen = d.get(&format!("/substrate/v1/state/{pid}")).await;
    let capture_id = seen.body["capture_id"].as_str().expect("id").to_owned();
    ext.set(|p| {
        p.capture
            .explain
            .insert("archive_report".into(), explained(&["Delete report"], &[]));
    });
    ext.push_capture();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while d.get(&format!("/substrate/v1/state/{pid}")).await.body["capture_id"] == capture_id {
        assert!(std::time::Instant::now() < deadline, "no new capture");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let r = d
        .act(json!({"pid": pid, "action": "archive_report", "verify_expression": "inbox.unread_count == 2", "expected_capture_id": capture_id}))
        .await;
    r.assert_error(409, "stale_state");
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn secrets_are_redacted_by_their_mark_in_the_audit_log_and_messages() {
    let (d, ext, pid) = setup().await;
    let mut password = resolves_to("input", "Password", &["log_in"]);
    if let Some(e) = password.element.as_mut() {
        e.secret = true;
    }
    ext.set(|p| {
        p.on_dispatch = succeed(&[("inbox.unread_count", json!(2))]);
        p.resolutions.insert("#pw".into(), password);
    });
    // A discovered action whose parameter the probe marked secret, named "x".
    let r = d
        .act(json!({"pid": pid, "action": "log_in", "parameters": {"x": "hunter2-form"}, "verify_expression": "inbox.unread_count == 2"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // `type` into a field the page resolved as a secret one.
    ext.set(|p| p.on_dispatch = succeed(&[("inbox.unread_count", json!(1))]));
    let r = d
        .act(json!({"pid": pid, "action": "type", "parameters": {"selector": "#pw", "text": "hunter2-typed"}, "verify_expression": "inbox.unread_count == 1"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Refused ones too.
    let r = d
        .act(json!({"pid": pid, "action": "type", "parameters": {"selector": "#pw", "text": "hunter2-vacuous"}, "verify_expression": "true"}))
        .await;
    r.assert_error(400, "verify_expression_vacuous");
    assert!(!r.body.to_string().contains("hunter2"), "{}", r.body);
    let r = d
        .act(json!({"pid": pid, "action": "log_in", "parameters": {"x": 42}, "verify_expression": "changed(inbox.unread_count)"}))
        .await;
    r.assert_error(400, "invalid_parameters");

    let audit =
        std::fs::read_to_string(d.data_dir.path().join("data/audit.jsonl")).expect("audit log");
    assert!(!audit.contains("hunter2"), "{audit}");
    let lines = d.audit_lines();
    let dispatched: Vec<&Value> = lines
        .iter()
        .filter(|l| l["decision"] == "dispatched")
        .collect();
    assert_eq!(dispatched.len(), 2);
    assert_eq!(dispatched[0]["parameters"]["x"], "[redacted]");
    assert_eq!(dispatched[1]["parameters"]["text"], "[redacted]");
    assert_eq!(dispatched[1]["parameters"]["selector"], "#pw");
    // The page itself gets the value: only the records are redacted.
    assert_eq!(ext.dispatched()[1].2["text"], "hunter2-typed");
}
