//! The published Python SDK (nelieo-nsp 0.1.3, unpatched) against the real nspd, a real
//! headless Chromium with our extension, and the demo app. Ground truth is the demo
//! app's backend: what was archived, sent, marked read.

use std::time::Duration;

use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_protocol::ProbeStatus;
use nsp_tests::{fetch_json, open_tab, Nspd, NspdOptions};
use serde_json::json;

const TAB_TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_drives_demo_mail_through_the_gate() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let origin = demo.url("/");
    let backend = demo.backend();
    let (nspd, app) = open_tab(&origin, 0.95)
        .await
        .expect("the demo tab settles with a confident state");

    // List, attach by name, read.
    let read = nspd.sdk("read", None).await.expect("read");
    let truth = fetch_json(&demo.url("/api/emails")).await.expect("backend");
    assert_eq!(read["pid"], app.pid);
    assert_eq!(
        read["unread"], truth["unread"],
        "the SDK reads what the backend holds"
    );
    assert_eq!(read["sent"], truth["sent_count"]);
    assert_eq!(read["fresh_capture"], true);
    assert!(
        read["email_ids"]
            .as_array()
            .is_some_and(|ids| ids.iter().any(|id| id == "e1")),
        "{read}"
    );

    // A reversible action, recorded once by the backend.
    let archived = nspd.sdk("archive", Some("e1")).await.expect("archive");
    assert!(archived["action_id"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    let events = backend.wait_for_events(1, Duration::from_secs(10)).await;
    assert_eq!(backend.count(EventKind::Archive), 1, "{events:?}");
    assert_eq!(events[0].email_id.as_deref(), Some("e1"));

    // verify=False on an irreversible action: the SDK refuses before any request.
    let audit_before = nspd.audit().len();
    let refused = nspd
        .sdk("send_unconfirmed", None)
        .await
        .expect("send_unconfirmed");
    assert_eq!(refused["raised"], "NSPIrreversibleNotConfirmedError");
    assert_eq!(nspd.audit().len(), audit_before, "no request reached nspd");
    assert_eq!(backend.count(EventKind::Send), 0);

    // The same over raw HTTP without an expression: refused by the gate, nothing sent.
    let (status, body) = nspd
        .act(&json!({"pid": app.pid, "action": "send_email", "parameters": {"to": "bob@example.com", "subject": "s", "body": "b"}}),
        )
        .await
        .expect("raw action");
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "missing_verify_expression");
    assert!(
        body["suggested_expression"]
            .as_str()
            .is_some_and(|s| s.contains("outbox.sent_count")),
        "{body}"
    );
    assert_eq!(backend.count(EventKind::Send), 0);

    // With verification: sent exactly once, and verified.
    let sent = nspd
        .sdk("send_verified", None)
        .await
        .expect("send_verified");
    assert_eq!(sent["passed"], true, "{sent}");
    assert_eq!(backend.count(EventKind::Send), 1);
    assert_eq!(backend.sent()[0].to, "bob@example.com");
    assert_eq!(sent["sent"], 1);

    // The watch stream reports a change made in the page.
    let watched = nspd.sdk("watch", Some("e2")).await.expect("watch");
    assert_eq!(watched["pid"], app.pid);
    assert!(watched["sequence"].as_u64().unwrap_or(0) >= 1);
    assert!(
        !watched["changed_keys"]
            .as_array()
            .map(Vec::is_empty)
            .unwrap_or(true),
        "{watched}"
    );
    assert_eq!(backend.count(EventKind::MarkRead), 1);
    assert_eq!(
        backend.count(EventKind::Send),
        1,
        "still exactly one email sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_under_the_floor_raises_confidence_too_low() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let nspd = Nspd::launch(&NspdOptions {
        url: demo.url("/pages/div-soup.html"),
        headless: true,
    })
    .expect("nspd");
    let app = nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.probe_status == ProbeStatus::Active && a.action_count > 1
        })
        .await
        .expect("the div-soup tab is active");
    assert!(
        app.confidence < 0.80,
        "a div-soup page must stay under the reversible floor: {}",
        app.confidence
    );
    let refused = nspd
        .sdk("low_confidence", None)
        .await
        .expect("low_confidence");
    assert_eq!(refused["raised"], "NSPConfidenceTooLowError", "{refused}");
    assert!(
        refused["actual"].as_f64().unwrap_or(1.0) < refused["required"].as_f64().unwrap_or(0.0)
    );
    assert!(demo.backend().events().is_empty());
}
