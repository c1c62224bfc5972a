//! Opening and closing browser tabs on an agent's behalf (the MCP tools `open_tab` and
//! `close_tab`): nspd asks the extension, which does it through `chrome.tabs` and
//! answers with the tab's id.

use std::time::Duration;

use nsp_protocol::api::AppSummary;
use nsp_protocol::channel::{DaemonMessage, TabGroup};
use nsp_protocol::SubstrateState;
use tokio::sync::broadcast;

use crate::core::agents::Agent;
use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::hub::{Hub, TabEventKind};

/// How long the browser gets to open or close a tab.
const TAB_OP_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `msg` to the browser and waits for its answer to `request_id`.
async fn ask(
    hub: &Hub,
    tx: &tokio::sync::mpsc::Sender<DaemonMessage>,
    request_id: String,
    msg: DaemonMessage,
) -> Result<Option<i64>, CoreError> {
    let rx = hub.tab_requests.wait_for(&request_id);
    let forget = || hub.tab_requests.forget(&request_id);
    if tx.send(msg).await.is_err() {
        forget();
        return Err(no_browser());
    }
    match tokio::time::timeout(TAB_OP_TIMEOUT, rx).await {
        Ok(Ok(Ok(tab_id))) => Ok(tab_id),
        Ok(Ok(Err(message))) => Err(CoreError::new(
            codes::ACTION_FAILED,
            format!("The browser refused: {message}"),
        )),
        Ok(Err(_)) => Err(no_browser()),
        Err(_) => {
            forget();
            Err(CoreError::new(codes::PROBE_TIMEOUT,
                    format!(
                        "The browser did not answer within {} s (an extension older than nspd does not know this request).",
                        TAB_OP_TIMEOUT.as_secs()
                    ),
                ))
        }
    }
}

fn no_browser() -> CoreError {
    CoreError::new(codes::PROBE_DETACHED,
        "No browser with the NSP extension is connected to nspd. Start one (`nspd run --launch`) or open the browser that has the extension.",
    )
}

/// Only web pages: a `javascript:`, `file:`, `data:` or `chrome:` URL is refused, since
/// the probe runs only on http(s) pages and the others could do anything.
pub fn check_url(url: &str) -> Result<(), CoreError> {
    let lower = url.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') && url.len() <= 8192 => Ok(()),
        _ => Err(CoreError::invalid_request(format!(
            "{url:?} is not an http(s) URL; open_tab opens web pages only (http://… or https://…)."
        ))
        .with("field", "url")),
    }
}

/// Opens `url` in a new tab of the first connected browser and waits (up to `settle`)
/// for the tab's first settled capture; returns the tab and that state. A page that
/// does not settle in time returns its newest capture, or an error naming its status.
pub async fn open(
    hub: &Hub,
    url: &str,
    settle: Duration,
) -> Result<(AppSummary, SubstrateState), CoreError> {
    open_claimed(hub, url, settle, None, |_, _| {}).await
}

/// [`open`] for `who`: the URL must be in its origins, and a tab it opens is its own
/// (claimed before its first capture can arrive) and goes into its tab group.
pub async fn open_for(
    state: &AppState,
    who: &Agent,
    url: &str,
    settle: Duration,
) -> Result<(AppSummary, SubstrateState), CoreError> {
    check_url(url)?;
    crate::core::access::may_go(who, url)?;
    let group = (!who.is_default()).then(|| crate::core::agents::group_of(&who.name));
    open_claimed(&state.hub, url, settle, group, |instance_id, tab_id| {
        if !who.is_default() {
            state.owners.claim(instance_id, tab_id, &who.name);
        }
    })
    .await
}

/// Closes tab `pid` for `who`: a write on the tab (its max-tier and other agents'
/// leases apply); the tab's lease and claims end with it.
pub async fn close_for(state: &AppState, who: &Agent, pid: u64) -> Result<(), CoreError> {
    crate::core::access::may_run(
        state,
        who,
        pid,
        "close_tab",
        nsp_protocol::Reversibility::ReversibleWrite,
    )?;
    let identity = state.hub.identity(pid);
    close(&state.hub, pid).await?;
    state.leases.tab_closed(pid);
    if let Some((instance_id, tab_id, _)) = identity {
        state.owners.release(&instance_id, tab_id, false);
    }
    Ok(())
}

async fn open_claimed(
    hub: &Hub,
    url: &str,
    settle: Duration,
    group: Option<TabGroup>,
    claim: impl FnOnce(&str, i64),
) -> Result<(AppSummary, SubstrateState), CoreError> {
    check_url(url)?;
    let (conn, tx) = hub.a_browser().ok_or_else(no_browser)?;
    // Subscribed before asking, so no capture of the new tab can slip by unseen.
    let mut events = hub.subscribe();
    let request_id = uuid::Uuid::now_v7().to_string();
    let msg = DaemonMessage::OpenTab {
        request_id: request_id.clone(),
        url: url.to_owned(),
        group,
    };
    let tab_id = ask(hub, &tx, request_id, msg)
        .await?
        .ok_or_else(|| CoreError::new(codes::ACTION_FAILED, "The browser opened no tab."))?;
    if let Some(instance_id) = hub.conn_instance(conn) {
        claim(&instance_id, tab_id);
    }
    let deadline = tokio::time::Instant::now() + settle;
    loop {
        if let Some(pid) = hub.pid_of(conn, tab_id) {
            if let Ok(state) = hub.state(pid) {
                if state.probe_metadata.settled {
                    let summary = hub
                        .summary(pid)
                        .ok_or_else(|| CoreError::pid_not_found(&format!("pid {pid}")))?;
                    return Ok((summary, state));
                }
            }
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return unsettled(hub, conn, tab_id, settle);
        }
        match tokio::time::timeout(left, events.recv()).await {
            Ok(Ok(event)) if event.kind == TabEventKind::Closed => {
                if hub.pid_of(conn, tab_id).is_none() {
                    continue;
                }
            }
            Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => {
                return unsettled(hub, conn, tab_id, settle)
            }
        }
    }
}

fn unsettled(
    hub: &Hub,
    conn: crate::core::hub::ConnId,
    tab_id: i64,
    settle: Duration,
) -> Result<(AppSummary, SubstrateState), CoreError> {
    let pid = hub.pid_of(conn, tab_id).ok_or_else(|| {
        CoreError::new(codes::PROBE_NOT_READY,
            format!(
                "The tab opened (browser tab {tab_id}) but its probe did not report within {} s. Call list_tabs to find it later.",
                settle.as_secs()
            ),
        )
    })?;
    let summary = hub
        .summary(pid)
        .ok_or_else(|| CoreError::pid_not_found(&format!("pid {pid}")))?;
    // The newest capture, settled or not; without one, the error says why.
    let state = hub.state(pid)?;
    Ok((summary, state))
}

/// Closes tab `pid` in its browser.
pub async fn close(hub: &Hub, pid: u64) -> Result<(), CoreError> {
    if hub.summary(pid).is_none() {
        return Err(CoreError::pid_not_found(&format!("pid {pid}")));
    }
    let (tab_id, tx) = hub.location(pid).ok_or_else(no_browser)?;
    let request_id = uuid::Uuid::now_v7().to_string();
    let msg = DaemonMessage::CloseTab {
        request_id: request_id.clone(),
        tab_id,
    };
    ask(hub, &tx, request_id, msg).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_urls_open() {
        for ok in [
            "http://127.0.0.1:8080/",
            "https://example.com",
            "HTTP://x/y",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
            "chrome://settings",
            "http://",
            "https:///x",
            "",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_its_waiter_and_a_stray_one_is_ignored() {
        let hub = Hub::new();
        let pending = &hub.tab_requests;
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let asking = ask(
            &hub,
            &tx,
            "r1".into(),
            DaemonMessage::CloseTab {
                request_id: "r1".into(),
                tab_id: 3,
            },
        );
        let answering = async {
            let sent = rx.recv().await.expect("sent");
            assert!(matches!(sent, DaemonMessage::CloseTab { tab_id: 3, .. }));
            pending.answer("other", Some(1), None);
            pending.answer("r1", Some(3), None);
        };
        let (answer, ()) = tokio::join!(asking, answering);
        assert_eq!(answer.expect("answered"), Some(3));
        assert!(pending.is_empty());
    }
}
