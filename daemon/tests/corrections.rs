//! Corrections in the daemon: `POST /substrate/v1/learn` only ever makes an action
//! stricter (and is audited), a person's correction arrives over the channel, every
//! change is pushed to the extension, and `nspd corrections list|remove` edits the same
//! store, which a running nspd notices.

mod support;

use std::process::Command;
use std::time::Duration;

use nsp_protocol::approval::{Correction, CorrectionSource};
use nsp_protocol::channel::ExtensionMessage;
use nsp_protocol::Reversibility;
use serde_json::{json, Value};
use support::{mail_capture, wait_for_tab, Daemon, FakeExtension};

/// Waits (bounded) until the fake extension has received a corrections push that
/// satisfies `pred`, and returns it.
async fn pushed(ext: &FakeExtension, pred: impl Fn(&[Correction]) -> bool) -> Vec<Correction> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(last) = ext.page.lock().expect("page").corrections.last() {
            if pred(last) {
                return last.clone();
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no such corrections push: {:?}",
            ext.page.lock().expect("page").corrections
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn audit_lines(d: &Daemon) -> Vec<Value> {
    std::fs::read_to_string(d.data_dir.path().join("data/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

const ORIGIN: &str = "http://127.0.0.1:9";

/// The audit lines of `event`, once there are `n` of them (or after 5 s: the change's
/// push to the extension may overtake its audit line by a moment).
async fn audit_events(d: &Daemon, event: &str, n: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let lines: Vec<Value> = audit_lines(d)
            .into_iter()
            .filter(|l| l["event"] == event)
            .collect();
        if lines.len() >= n || tokio::time::Instant::now() > deadline {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_agent_may_only_make_an_action_stricter() {
    let d = Daemon::start().await;
    let ext = FakeExtension::connect(&d, Some(mail_capture(0.97))).await;
    let pid = wait_for_tab(&d, |_| true).await;
    // The first push follows the welcome: nothing stored yet.
    assert!(pushed(&ext, |c| c.is_empty()).await.is_empty());

    // Looser: archive (reversible_write, 0.99) down to read, or up in confidence.
    for body in [
        json!({"pid": pid, "action": "archive", "reversibility": "read"}),
        json!({"pid": pid, "action": "archive", "reversibility": "reversible_write"}),
        json!({"pid": pid, "action": "search", "confidence": 0.95}),
        json!({"pid": pid, "action": "archive", "reversibility": "irreversible_write", "confidence": 1.0}),
    ] {
        let r = d.post("/substrate/v1/learn", body.clone()).await;
        assert_eq!(r.status, 403, "{body} → {}", r.body);
        assert_eq!(r.body["code"], "forbidden", "{}", r.body);
        let msg = r.body["message"].as_str().unwrap_or_default();
        assert!(msg.contains("only make an action stricter"), "{msg}");
    }
    assert!(!d.data_dir.path().join("data/corrections.json").exists());

    // Unknown tab, unknown action, nothing asked.
    let r = d
        .post(
            "/substrate/v1/learn",
            json!({"pid": 999, "action": "archive", "reversibility": "irreversible_write"}),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["code"].as_str()),
        (404, Some("pid_not_found"))
    );
    let r = d
        .post(
            "/substrate/v1/learn",
            json!({"pid": pid, "action": "nope", "reversibility": "irreversible_write"}),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["code"].as_str()),
        (404, Some("action_not_available"))
    );
    let r = d
        .post(
            "/substrate/v1/learn",
            json!({"pid": pid, "action": "archive"}),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["code"].as_str()),
        (400, Some("invalid_request"))
    );

    // Stricter: archive to irreversible; stored, pushed, audited.
    let r = d
        .post(
            "/substrate/v1/learn",
            json!({"pid": pid, "action": "archive", "reversibility": "irreversible_write"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["success"], true);
    let c: Correction = serde_json::from_value(r.body["correction"].clone()).expect("correction");
    assert_eq!(c.origin, ORIGIN);
    assert_eq!(c.tier, Some(Reversibility::IrreversibleWrite));
    assert_eq!(c.by, CorrectionSource::Agent);
    assert!(c.key_id.is_some());
    // nspd holds it at the gate itself, whatever the extension's probe sends (this fake
    // one applies no corrections): archive now needs a verify expression, and nothing
    // reaches the page.
    let r = d
        .act(json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}}))
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["code"].as_str()),
        (400, Some("missing_verify_expression")),
        "{}",
        r.body
    );
    assert!(ext.dispatched().is_empty());
    // A later, lower confidence merges with the earlier tier rather than replacing it.
    let r = d
        .post(
            "/substrate/v1/learn",
            json!({"pid": pid, "action": "archive", "confidence": 0.5}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let list = pushed(&ext, |c| c.iter().any(|x| x.max_confidence == Some(0.5))).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0].tier, Some(Reversibility::IrreversibleWrite));
    assert_eq!(list[0].max_confidence, Some(0.5));
    // And the ceiling too: with an expression, archive is now under the irreversible
    // floor (never asked: the request says so).
    let r = d
        .act(json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}, "verify_expression": "inbox.unread_count == 2", "approval": "never"}))
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["code"].as_str()),
        (422, Some("confidence_too_low")),
        "{}",
        r.body
    );
    assert!(ext.dispatched().is_empty());

    let audit = audit_lines(&d);
    let learns: Vec<&Value> = audit.iter().filter(|l| l["event"] == "learn").collect();
    assert_eq!(learns.len(), 7, "{learns:?}");
    assert_eq!(
        learns
            .iter()
            .filter(|l| l["decision"] == "refused:forbidden")
            .count(),
        4
    );
    assert_eq!(
        learns
            .iter()
            .filter(|l| l["decision"] == "corrected")
            .count(),
        2
    );
    assert!(learns.iter().all(|l| l["key_id"].is_string()));
}

#[tokio::test]
async fn a_person_corrects_over_the_channel_and_the_cli_removes_it_from_a_running_nspd() {
    let d = Daemon::start().await;
    let ext = FakeExtension::connect(&d, Some(mail_capture(0.97))).await;
    wait_for_tab(&d, |_| true).await;
    pushed(&ext, |c| c.is_empty()).await;

    // The person loosens send_email and tightens search: both allowed to a person.
    ext.send_raw(&ExtensionMessage::Correct {
        origin: ORIGIN.into(),
        action: "send_email".into(),
        tier: None,
        trusted: true,
    });
    ext.send_raw(&ExtensionMessage::Correct {
        origin: ORIGIN.into(),
        action: "search".into(),
        tier: Some(Reversibility::ReversibleWrite),
        trusted: false,
    });
    // Not an origin: refused by the store, nothing pushed for it.
    ext.send_raw(&ExtensionMessage::Correct {
        origin: "http://127.0.0.1:9/path".into(),
        action: "search".into(),
        tier: Some(Reversibility::Read),
        trusted: false,
    });
    let list = pushed(&ext, |c| c.len() == 2).await;
    assert!(list.iter().all(|c| c.by == CorrectionSource::Person));
    let trusted = list
        .iter()
        .find(|c| c.action == "send_email")
        .expect("send");
    assert!(trusted.trusted);
    // The audit log has both, by the person, and not the refused one.
    let audited = audit_events(&d, "correction", 2).await;
    assert_eq!(audited.len(), 2, "{audited:?}");
    assert!(audited.iter().all(|l| l["by"] == "person"));
    assert!(audited
        .iter()
        .any(|l| l["correction"]["action"] == "send_email" && l["correction"]["trusted"] == true));

    // The CLI lists them from the file.
    let data = d.data_dir.path().join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_nspd"))
        .args(["corrections", "list", "--data-dir"])
        .arg(&data)
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&trusted.id) && text.contains("trusted"),
        "{text}"
    );
    assert!(
        text.contains("search") && text.contains("tier=reversible_write"),
        "{text}"
    );

    // The CLI removes one; the running nspd notices and pushes the rest.
    let out = Command::new(env!("CARGO_BIN_EXE_nspd"))
        .args(["corrections", "remove", &trusted.id, "--data-dir"])
        .arg(&data)
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let list = pushed(&ext, |c| c.len() == 1).await;
    assert_eq!(list[0].action, "search");

    // An unknown id is an error, and the person removes the last one over the channel.
    let out = Command::new(env!("CARGO_BIN_EXE_nspd"))
        .args(["corrections", "remove", "no-such-id", "--data-dir"])
        .arg(&data)
        .output()
        .expect("run");
    assert!(!out.status.success());
    ext.send_raw(&ExtensionMessage::RemoveCorrection {
        id: list[0].id.clone(),
    });
    pushed(&ext, |c| c.is_empty()).await;
    // Both removals are in the audit log: the command line's and the popup's.
    let removed = audit_events(&d, "correction_removed", 2).await;
    assert_eq!(removed.len(), 2, "{removed:?}");
    assert_eq!(removed[0]["id"], trusted.id.as_str());
    assert_eq!(removed[1]["id"], list[0].id.as_str());
    let out = Command::new(env!("CARGO_BIN_EXE_nspd"))
        .args(["corrections", "list", "--json", "--data-dir"])
        .arg(&data)
        .output()
        .expect("run");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json, json!([]));
}

#[tokio::test]
async fn corrections_survive_a_restart_and_reach_a_new_connection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).expect("dir");
    // Written by another process (the CLI's code), before nspd starts.
    let store = nsp_daemon::core::corrections::Corrections::open(&data).expect("open");
    let c = store
        .add_trusted(ORIGIN, "send_email", CorrectionSource::Person)
        .expect("add");
    let d = Daemon::start_in(support::fast_config(), dir).await;
    let ext = FakeExtension::connect(&d, Some(mail_capture(0.97))).await;
    let list = pushed(&ext, |l| !l.is_empty()).await;
    assert_eq!(list, vec![c]);
}
