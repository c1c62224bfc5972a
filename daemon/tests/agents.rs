//! Agents' scopes at the gate, against the scripted extension: an agent's own `--ask`
//! (never looser than the daemon's), its max tier before any person, and a revocation
//! that lands while its request waits for the person.

mod support;

use std::time::Duration;

use hyper::Method;
use nsp_daemon::core::agents::{AgentAsk, Agents, Scope, TabsScope};
use nsp_daemon::core::auth::AgentKey;
use nsp_daemon::core::config::{AskPerson, FileConfig};
use nsp_protocol::approval::ApprovalDecision;
use nsp_protocol::Reversibility;
use serde_json::json;
use support::*;

fn asking() -> FileConfig {
    let mut c = fast_config();
    c.gate.ask_person = Some(AskPerson::BelowFloor);
    c.gate.approval_timeout_ms = 10_000;
    c
}

/// Adds agent `name` as `nspd agents add` would (the running daemon picks it up by
/// polling), waits until its key works, and returns the key.
async fn agent(d: &Daemon, name: &str, scope: Scope) -> String {
    let dir = d.data_dir.path().join("data");
    let default_key = AgentKey::load_or_create(&dir).expect("key");
    let path = Agents::open(&dir, &default_key)
        .expect("agents")
        .add(name, scope)
        .expect("add");
    let key = std::fs::read_to_string(path)
        .expect("key file")
        .trim()
        .to_owned();
    for _ in 0..200 {
        let r = d
            .call(
                Method::GET,
                "/substrate/v1/apps",
                None,
                &[("x-substrate-key", &key)],
            )
            .await;
        if r.status == 200 {
            return key;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the agent's key did not start working within 2 s");
}

fn scope(max_tier: Reversibility, ask: AgentAsk) -> Scope {
    Scope {
        origins: Vec::new(),
        max_tier,
        tabs: TabsScope::All,
        ask,
        actions_per_minute: None,
    }
}

/// The mail tab's `archive` of `email`, as the agent of `key`.
async fn archive_as(d: &Daemon, key: &str, pid: u64, email: &str) -> Response {
    act_as(
        d,
        key,
        json!({"pid": pid, "action": "archive", "parameters": {"email_id": email}}),
    )
    .await
}

async fn act_as(d: &Daemon, key: &str, body: serde_json::Value) -> Response {
    d.call(
        Method::POST,
        "/substrate/v1/action",
        Some(body),
        &[
            ("x-substrate-key", key),
            ("content-type", "application/json"),
        ],
    )
    .await
}

#[tokio::test]
async fn an_agent_that_asks_always_puts_a_cleared_write_to_the_person() {
    // Confidence 0.95: the gate clears the archive; the agent's scope still asks.
    let (d, ext, pid) = daemon_with_tab(asking(), 0.95).await;
    let key = agent(
        &d,
        "careful",
        scope(Reversibility::IrreversibleWrite, AgentAsk::Always),
    )
    .await;
    let req = json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}});
    let (r, question) = tokio::join!(act_as(&d, &key, req), async {
        let q = ext.wait_questions(1).await.remove(0);
        assert!(ext.dispatched().is_empty(), "nothing before the answer");
        ext.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
        q
    });
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 1);
    assert_eq!(
        question.agent.as_deref(),
        Some("careful"),
        "the card names the agent"
    );
    // The default agent's same action runs without asking.
    let r = d
        .act(json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e2"}}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ext.dispatched().len(), 2);
    assert_eq!(ext.wait_questions(1).await.len(), 1, "no second question");
}

#[tokio::test]
async fn an_agent_that_never_asks_is_refused_under_the_floor() {
    let (d, ext, pid) = daemon_with_tab(asking(), 0.5).await;
    let key = agent(
        &d,
        "quiet",
        scope(Reversibility::IrreversibleWrite, AgentAsk::Never),
    )
    .await;
    let r = archive_as(&d, &key, pid, "e1").await;
    r.assert_error(422, "confidence_too_low");
    assert!(ext.dispatched().is_empty());
}

#[tokio::test]
async fn no_approval_lifts_a_max_tier() {
    let (d, ext, pid) = daemon_with_tab(asking(), 0.5).await;
    let key = agent(
        &d,
        "reader",
        scope(Reversibility::Read, AgentAsk::BelowFloor),
    )
    .await;
    // Under its floor AND above the agent's tier: refused before anyone is asked.
    let r = archive_as(&d, &key, pid, "e1").await;
    r.assert_error(403, "scope_denied");
    assert!(ext.dispatched().is_empty());
    // The refusal came before any question could go out.
    assert!(ext.questions().is_empty(), "nobody was asked");
    let audit = d.audit_lines();
    assert!(
        audit
            .iter()
            .any(|l| l["agent"] == "reader" && l["decision"] == "refused:scope_denied"),
        "{audit:?}"
    );
}

#[tokio::test]
async fn an_agent_revoked_while_the_person_decides_sends_nothing() {
    let (d, ext, pid) = daemon_with_tab(asking(), 0.5).await;
    let key = agent(
        &d,
        "doomed",
        scope(Reversibility::IrreversibleWrite, AgentAsk::BelowFloor),
    )
    .await;
    let req = json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}});
    let (r, ()) = tokio::join!(act_as(&d, &key, req), async {
        let q = ext.wait_questions(1).await.remove(0);
        let dir = d.data_dir.path().join("data");
        let default_key = AgentKey::load_or_create(&dir).expect("key");
        assert!(Agents::open(&dir, &default_key)
            .expect("agents")
            .revoke("doomed")
            .expect("revoke"));
        // The running daemon refuses the key once it has read the change.
        for _ in 0..200 {
            let r = d
                .call(
                    Method::GET,
                    "/substrate/v1/apps",
                    None,
                    &[("x-substrate-key", &key)],
                )
                .await;
            if r.status == 401 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        ext.answer(&q.approval_id, ApprovalDecision::ApproveOnce);
    });
    r.assert_error(401, "invalid_key");
    assert!(
        ext.dispatched().is_empty(),
        "a revoked agent's action never reaches the page"
    );
}

#[tokio::test]
async fn an_agent_cannot_send_a_tab_outside_its_origins() {
    let (d, ext, pid) = daemon_with_tab(fast_config(), 0.95).await;
    let mut s = scope(Reversibility::IrreversibleWrite, AgentAsk::BelowFloor);
    s.origins = vec!["http://127.0.0.1:9".parse().expect("origin")];
    let key = agent(&d, "local", s).await;
    let go = |url: &str| {
        json!({"pid": pid, "action": "navigate", "parameters": {"url": url},
               "verify_expression": "changed(context.url)"})
    };
    let r = act_as(&d, &key, go("http://127.0.0.1:10/elsewhere")).await;
    r.assert_error(403, "scope_denied");
    assert_eq!(r.body["scope"], "origins", "{}", r.body);
    assert!(ext.dispatched().is_empty(), "nothing was sent");
    // The tab is in its origins, and so is a page of the same origin: the gate decides.
    let r = act_as(&d, &key, go("http://127.0.0.1:9/other")).await;
    assert_ne!(r.code(), "scope_denied", "{}", r.body);
    // An agent outside the tab's origin does not see the tab at all.
    let mut s = scope(Reversibility::IrreversibleWrite, AgentAsk::BelowFloor);
    s.origins = vec!["https://*.example.com".parse().expect("origin")];
    let key = agent(&d, "elsewhere", s).await;
    let r = act_as(&d, &key, go("https://a.example.com/")).await;
    r.assert_error(404, "pid_not_found");
    let r = d
        .call(
            Method::GET,
            &format!("/substrate/v1/state/{pid}"),
            None,
            &[("x-substrate-key", &key)],
        )
        .await;
    r.assert_error(404, "pid_not_found");
}
