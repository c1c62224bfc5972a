//! Asking the person, against the scripted extension: a request refused only by its
//! confidence floor is held and put to the person; approve releases one dispatch, deny
//! and silence release none, every other gate step still refuses first, the tab's lock
//! is held while the person decides, and a reconnecting session gets the question again
//! and may answer it once.

mod support;

use std::time::{Duration, Instant};

use nsp_daemon::core::config::{AskPerson, FileConfig};
use nsp_protocol::approval::{ApprovalClosedReason, ApprovalDecision};
use serde_json::{json, Value};
use support::*;

fn asking(timeout_ms: u64) -> FileConfig {
    let mut c = fast_config();
    c.gate.ask_person = Some(AskPerson::BelowFloor);
    c.gate.approval_timeout_ms = timeout_ms;
    c
}

const ARCHIVE: &str = "archive";

#[tokio::test]
async fn an_approved_action_runs_once_after_the_person_says_yes() {
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.5).await;
    let req = json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}});
    let (r, question) = tokio::join!(d.act(req), async {
        let q = ext.wait_questions(1).await.remove(0);
        // Nothing reaches the page before the answer.
        assert!(ext.dispatched().is_empty());
        ext.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
        q
    });
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 1);
    // The card says what will happen and who asks.
    assert_eq!(question.action, ARCHIVE);
    assert_eq!(question.pid, pid);
    assert_eq!(question.tab_id, ext.tab_id);
    assert_eq!(question.tier.as_str(), "reversible_write");
    assert_eq!(question.confidence, 0.5);
    assert_eq!(question.floor, 0.8);
    assert_eq!(question.parameters["email_id"], "e1");
    assert_eq!(question.origin.as_deref(), Some("http://127.0.0.1:9"));
    assert_eq!(question.target.as_deref(), Some("#email-list"));
    assert!(
        question.reason.contains("needs confidence 0.80"),
        "{}",
        question.reason
    );
    assert_eq!(question.key_id.len(), 12);
    assert!(!question.key_id.is_empty() && !d.key.contains(&question.key_id));
    assert_eq!(
        ext.wait_closed(&question.approval_id).await,
        ApprovalClosedReason::Answered
    );
    // The audit log holds the question, the answer and who gave it.
    let audit = d.audit_lines();
    let asked = audit
        .iter()
        .find(|l| l["decision"] == "approval_asked")
        .expect("question in the audit log");
    assert_eq!(
        asked["question"]["approval_id"],
        question.approval_id.as_str()
    );
    let answered = audit
        .iter()
        .find(|l| l["decision"] == "approval_answered")
        .expect("answer in the audit log");
    assert_eq!(answered["answer"], "approve_once");
    assert_eq!(answered["by"], "person");
    assert!(answered["answered_at"].is_string() && answered["asked_at"].is_string());
    assert!(audit.iter().any(|l| l["decision"] == "dispatched"));
}

#[tokio::test]
async fn a_denied_action_is_403_and_never_sent() {
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.5).await;
    ext.set(|p| p.person = Some(ApprovalDecision::Deny));
    let r = d
        .act(json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}}))
        .await;
    r.assert_error(403, "approval_denied");
    assert_eq!(r.body["executed"], false);
    assert!(ext.dispatched().is_empty());
    let audit = d.audit_lines();
    assert!(audit
        .iter()
        .any(|l| l["decision"] == "approval_answered" && l["answer"] == "deny"));
    assert!(audit
        .iter()
        .any(|l| l["decision"] == "refused:approval_denied"));
    assert!(!audit.iter().any(|l| l["decision"] == "dispatched"));
}

#[tokio::test]
async fn no_answer_is_408_after_the_timeout_and_nothing_is_sent() {
    let (d, ext, pid) = daemon_with_tab(asking(400), 0.5).await;
    let started = Instant::now();
    let r = d
        .act(json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}}))
        .await;
    r.assert_error(408, "approval_timeout");
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert!(ext.dispatched().is_empty());
    let q = ext.wait_questions(1).await.remove(0);
    assert_eq!(
        ext.wait_closed(&q.approval_id).await,
        ApprovalClosedReason::TimedOut
    );
    // A late answer releases nothing.
    ext.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(ext.dispatched().is_empty());
    assert!(d
        .audit_lines()
        .iter()
        .any(|l| l["decision"] == "approval_timed_out"));
}

#[tokio::test]
async fn never_refuses_and_the_request_can_ask_for_itself() {
    // ask_person = never: refused as before, nobody asked.
    let (d, ext, pid) = daemon_with_tab(fast_config(), 0.5).await;
    ext.set(|p| p.person = Some(ApprovalDecision::ApproveOnce));
    let body = json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}});
    d.act(body.clone())
        .await
        .assert_error(422, "confidence_too_low");
    assert!(ext.page.lock().expect("page").questions.is_empty());
    // "approval": "ask" asks whatever the config says.
    let mut ask = body.clone();
    ask["approval"] = json!("ask");
    let r = d.act(ask).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 1);
    // And "approval": "never" refuses whatever the config says.
    let (d2, ext2, pid2) = daemon_with_tab(asking(10_000), 0.5).await;
    ext2.set(|p| p.person = Some(ApprovalDecision::ApproveOnce));
    d2.act(json!({"pid": pid2, "action": ARCHIVE, "parameters": {"email_id": "e1"}, "approval": "never"}))
        .await
        .assert_error(422, "confidence_too_low");
    assert!(ext2.dispatched().is_empty());
}

#[tokio::test]
async fn every_other_gate_step_refuses_before_anyone_is_asked() {
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.5).await;
    ext.set(|p| p.person = Some(ApprovalDecision::ApproveOnce));
    // An irreversible write without an expression: approval never stands in for one.
    d.act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}}))
        .await
        .assert_error(400, "missing_verify_expression");
    // Bad parameters on a held action: refused for them, not put to the person.
    d.act(json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": 5}}))
        .await
        .assert_error(400, "invalid_parameters");
    // A malformed expression likewise.
    d.act(json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}, "verify_expression": "inbox.unread_count =="}))
        .await
        .assert_error(400, "invalid_verify_expression");
    assert!(ext.page.lock().expect("page").questions.is_empty());
    assert!(ext.dispatched().is_empty());
    // An expression that already holds cannot verify anything: refused before anyone
    // is asked (approval does not stand in for a check either).
    d.act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 14"}))
        .await
        .assert_error(400, "verify_expression_vacuous");
    assert!(ext.page.lock().expect("page").questions.is_empty());
    // With everything in order, the person is asked; the expression is on the card.
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Succeed {
            value: json!(true),
            changes: [("outbox.sent_count".to_owned(), json!(15))].into(),
            after_captures: 0,
        }
    });
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let q = ext.wait_questions(1).await.remove(0);
    assert_eq!(
        q.verify_expression.as_deref(),
        Some("outbox.sent_count == 15")
    );
    assert_eq!(q.floor, 0.95);
    assert_eq!(ext.dispatched().len(), 1);
}

#[tokio::test]
async fn the_tab_stays_locked_while_the_person_decides() {
    let mut config = asking(10_000);
    config.dispatcher.action_lock_timeout_ms = 200;
    let (d, ext, pid) = daemon_with_tab(config, 0.5).await;
    let held = json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}});
    let (first, second) = tokio::join!(d.act(held), async {
        let q = ext.wait_questions(1).await.remove(0);
        // A read needs no approval but waits for the tab: it times out on the lock.
        let r = d
            .act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}}))
            .await;
        ext.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
        r
    });
    second.assert_error(504, "probe_timeout");
    assert_eq!(first.status, 200, "{}", first.body);
    let dispatched = ext.dispatched();
    assert_eq!(dispatched.len(), 1, "{dispatched:?}");
    assert_eq!(dispatched[0].1, ARCHIVE);
}

#[tokio::test]
async fn a_reconnected_session_gets_the_question_again_and_one_answer_counts() {
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.5).await;
    let req = json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}});
    let (r, again) = tokio::join!(d.act(req), async {
        let q = ext.wait_questions(1).await.remove(0);
        // The service worker goes away and comes back (same browser session).
        ext.disconnect().await;
        let again = FakeExtension::connect_as(&d, Some(mail_capture(0.5)), "browser-1", 7).await;
        let re_sent = again.wait_questions(1).await.remove(0);
        assert_eq!(re_sent.approval_id, q.approval_id);
        // Another browser cannot answer it.
        let stranger = FakeExtension::connect_as(&d, None, "browser-2", 99).await;
        stranger.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(again.dispatched().is_empty());
        // Two answers (the popup and a notification, say): one counts.
        again.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
        again.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
        again
    });
    assert_eq!(r.status, 200, "{}", r.body);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(again.dispatched().len(), 1);
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn an_agent_that_hangs_up_withdraws_its_question() {
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.5).await;
    let req = json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}});
    // The request is dropped (the agent's connection closes) while the person decides.
    let _ = tokio::time::timeout(Duration::from_millis(300), d.act(req)).await;
    let q = ext.wait_questions(1).await.remove(0);
    assert_eq!(
        ext.wait_closed(&q.approval_id).await,
        ApprovalClosedReason::Withdrawn
    );
    ext.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn always_approves_and_records_the_wish_for_this_site() {
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.5).await;
    ext.set(|p| p.person = Some(ApprovalDecision::Always));
    let r = d
        .act(json!({"pid": pid, "action": ARCHIVE, "parameters": {"email_id": "e1"}}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 1);
    let audit = d.audit_lines();
    let always = audit
        .iter()
        .find(|l| l["decision"] == "approval_always")
        .expect("the wish in the audit log");
    assert_eq!(always["origin"], "http://127.0.0.1:9");
    assert_eq!(always["action"], ARCHIVE);
    assert_eq!(always["by"], "person");
    // And kept: a trusted correction from the person, in the data dir, which the
    // extension receives (and the probe applies at declared level).
    let file = d.data_dir.path().join("data/corrections.json");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("corrections.json"))
            .expect("json");
    let list = stored
        .as_array()
        .or_else(|| stored["corrections"].as_array())
        .expect("a list of corrections")
        .clone();
    let trusted = list
        .iter()
        .find(|c| c["action"] == ARCHIVE)
        .expect("a correction for the action");
    assert_eq!(trusted["origin"], "http://127.0.0.1:9");
    assert_eq!(trusted["trusted"], true);
    assert_eq!(trusted["by"], "person");
    assert_eq!(always["correction_id"], trusted["id"]);
}

#[tokio::test]
async fn a_builtin_on_an_unclassified_element_is_asked_and_always_is_not_remembered_for_it() {
    // A click on an element no discovered action covers has an unknown confidence, under
    // every floor: even on a page the probe understands at 0.99 it is put to the person
    // (never let through as "irreversible at 1.0"). "Always" approves it, but nspd keeps
    // no wish to "always click anything" on the site.
    let (d, ext, pid) = daemon_with_tab(asking(10_000), 0.99).await;
    ext.set(|p| {
        p.resolutions
            .insert("#no-action-here".into(), resolves_to("div", "Mystery", &[]));
        p.on_dispatch = OnDispatch::Succeed {
            value: json!(true),
            changes: [("outbox.sent_count".to_owned(), json!(15))].into(),
            after_captures: 0,
        };
    });
    let req = json!({"pid": pid, "action": "click", "parameters": {"selector": "#no-action-here"}, "verify_expression": "outbox.sent_count == 15"});
    let (r, question) = tokio::join!(d.act(req), async {
        let q = ext.wait_questions(1).await.remove(0);
        assert!(ext.dispatched().is_empty());
        ext.answer(&q.approval_id, ApprovalDecision::Always);
        q
    });
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(question.action, "click");
    assert_eq!(question.tier.as_str(), "irreversible_write");
    assert_eq!(question.floor, 0.95);
    assert_eq!(question.confidence, 0.0);
    assert_eq!(question.target.as_deref(), Some("#no-action-here"));
    let sent = ext.dispatched();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1, "click");
    let always = d
        .audit_lines()
        .into_iter()
        .find(|l| l["decision"] == "approval_always")
        .expect("the answer in the audit log");
    assert_eq!(always["correction_id"], Value::Null, "{always}");
    assert!(
        !d.data_dir.path().join("data/corrections.json").exists()
            || !std::fs::read_to_string(d.data_dir.path().join("data/corrections.json"))
                .unwrap_or_default()
                .contains("click")
    );
}
