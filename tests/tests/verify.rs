//! Post-action verification end to end: the demo app answers sends 400 ms late, so the
//! page's sent counter changes only after the first verification capture; nspd must
//! keep polling until the expression holds, and must explain a failure with values.

use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_tests::open_tab;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verification_waits_for_a_late_page_and_explains_failures() {
    let demo = DemoServer::start(DemoOptions {
        send_delay_ms: 400,
        ..DemoOptions::default()
    })
    .await
    .expect("demo app");
    let (nspd, app) = open_tab(&demo.url("/"), 0.95).await.expect("demo tab");
    let backend = demo.backend();

    let (status, body) = nspd
        .act(&json!({
                "pid": app.pid,
                "action": "send_email",
                "parameters": {"to": "carol@example.com", "subject": "Late", "body": "This one is answered late."},
                "verify_expression": "prev.outbox.sent_count != outbox.sent_count",
                "verify_timeout_ms": 10000
            }),
        )
        .await
        .expect("action");
    assert_eq!(status, 200, "{body}");
    let v = &body["verification"];
    assert_eq!(v["passed"], true, "{v}");
    assert!(
        v["poll_cycles"].as_u64().unwrap_or(0) > 1,
        "the first capture came before the page updated: {v}"
    );
    assert!(
        v["changed_fields"]
            .as_array()
            .is_some_and(|c| c.iter().any(|f| f["path"] == "outbox.sent_count")),
        "{v}"
    );
    assert_eq!(backend.count(EventKind::Send), 1);

    let (status, body) = nspd
        .act(&json!({
                "pid": app.pid,
                "action": "send_email",
                "parameters": {"to": "dave@example.com", "subject": "Never", "body": "The check below never holds."},
                "verify_expression": "outbox.sent_count == 999",
                "verify_timeout_ms": 1500
            }),
        )
        .await
        .expect("action");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "verification_failed");
    let explanation = body["verification"]["explanation"].as_str().unwrap_or("");
    assert!(
        explanation.contains("outbox.sent_count") && explanation.contains('2'),
        "{explanation}"
    );
    assert_eq!(body["executed"], true);
    assert_eq!(
        backend.count(EventKind::Send),
        2,
        "the action ran exactly once; only its check failed"
    );
}
