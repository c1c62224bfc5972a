//! A `confirm()` raised while an action runs, end to end: the real nspd, headless
//! Chromium with the built extension, and the fixture page whose "Delete forever" and
//! "Archive" handlers ask before they write to the recording backend.
//!
//! - An irreversible write sent with a verify expression gets its own confirmation
//!   accepted: exactly one write, and the response quotes the dialog.
//! - Any other tier is declined (`dialog_declined`, no write), and from then on the
//!   probe rates that control `irreversible_write` and says why.

use std::time::Duration;

use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_tests::open_tab;
use serde_json::{json, Value};

const DELETE_ASKS: &str = "Delete \"Q3 report\"? This cannot be undone.";
const ARCHIVE_ASKS: &str = "Archive \"Q4 report\"? Everyone loses access to it.";

/// Long enough for a write the page started to reach the backend.
const QUIET: Duration = Duration::from_millis(500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_irreversible_action_accepts_its_confirm_and_any_other_raises_the_tier() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let backend = demo.backend();
    let (nspd, app) = open_tab(&demo.url("/confirm"), 0.95)
        .await
        .expect("the confirm page settles");
    let pid = app.pid;
    let state = |body: &Value, action: &str| body["actions"][action].clone();

    let (status, before) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    assert_eq!(status, 200, "{before}");
    assert_eq!(
        state(&before, "archive")["reversibility"],
        "reversible_write",
        "the probe must rate Archive reversible for this test: {before}"
    );
    assert_eq!(
        state(&before, "delete_forever")["reversibility"],
        "irreversible_write",
        "{before}"
    );

    // (b) A reversible write that asks: declined, nothing written.
    let (status, body) = nspd
        .act(&json!({"pid": pid, "action": "archive", "parameters": {}}))
        .await
        .expect("archive");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "action_failed", "{body}");
    assert_eq!(body["failure"], "dialog_declined", "{body}");
    // The dialog's text, quoted as a JSON string.
    let quoted = serde_json::to_string(ARCHIVE_ASKS).expect("json");
    assert!(
        body["message"].as_str().unwrap_or("").contains(&quoted),
        "{body}"
    );
    let events = backend.wait_for_events(1, QUIET).await;
    assert!(events.is_empty(), "a declined confirm wrote: {events:?}");

    // From now on the control is irreversible, and the state says why.
    let (_, after) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    let archive = state(&after, "archive");
    assert_eq!(archive["reversibility"], "irreversible_write", "{after}");
    assert!(
        archive["confidence"].as_f64().unwrap_or(1.0) < 0.95,
        "inferred, so under the irreversible floor: {archive}"
    );
    assert!(
        archive["description"]
            .as_str()
            .unwrap_or("")
            .contains(ARCHIVE_ASKS),
        "{archive}"
    );
    // The gate now treats it as irreversible: an expression is required, and the
    // refusal gives the probe's reason.
    let (status, body) = nspd
        .act(&json!({"pid": pid, "action": "archive", "parameters": {}}))
        .await
        .expect("archive again");
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "missing_verify_expression", "{body}");
    let (status, body) = nspd
        .act(&json!({"pid": pid, "action": "archive", "parameters": {},
                     "verify_expression": "prev.reports.archived_count != reports.archived_count"}))
        .await
        .expect("archive with an expression");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "confidence_too_low", "{body}");
    let message = body["message"].as_str().unwrap_or("");
    assert!(
        message.contains("confirm(") && message.contains("Q4 report"),
        "{message}"
    );
    assert!(!message.contains("a irreversible"), "{message}");
    assert!(backend.events().is_empty());

    // (a) The irreversible action with its check: its own confirm() is accepted.
    let (status, body) = nspd
        .act(
            &json!({"pid": pid, "action": "delete_forever", "parameters": {},
                     "verify_expression": "prev.reports.deleted_count != reports.deleted_count"}),
        )
        .await
        .expect("delete forever");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verification"]["passed"], true, "{body}");
    assert_eq!(
        body["dialogs"],
        json!([{"kind": "confirm", "message": DELETE_ASKS, "accepted": true}]),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap_or("").contains(DELETE_ASKS),
        "{body}"
    );
    let events = backend.wait_for_events(2, QUIET).await;
    assert_eq!(events.len(), 1, "exactly one write: {events:?}");
    assert_eq!(events[0].kind, EventKind::Delete);
    assert_eq!(events[0].email_id.as_deref(), Some("e1"));
    assert_eq!(backend.count(EventKind::Archive), 0);

    // The page changed since (its counter): the raised tier survives later captures.
    let (_, later) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    assert_eq!(later["objects"]["reports.deleted_count"], 1, "{later}");
    assert_eq!(
        state(&later, "archive")["reversibility"],
        "irreversible_write",
        "{later}"
    );

    // The audit log has what NSP agreed to.
    let audit = nspd.audit();
    let done = audit
        .iter()
        .find(|r| r["action"] == "delete_forever" && r["decision"] == "completed")
        .expect("completion record");
    assert_eq!(done["dialogs"][0]["message"], DELETE_ASKS, "{done}");
}
