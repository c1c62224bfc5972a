//! Faults end to end (real Chromium, the extension, the nspd binary, the demo app's
//! backend as ground truth): an audit log that cannot reach the disk refuses
//! irreversible actions, and nspd killed with SIGKILL mid-action leaves an audit log
//! that parses, holds the started action, and is continued by the next nspd.

use std::time::{Duration, Instant};

use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_tests::{fresh_data_dir, open_tab_in};
use serde_json::{json, Value};

fn send(pid: u64, to: &str) -> Value {
    json!({
        "pid": pid,
        "action": "send_email",
        "parameters": {"to": to, "subject": "Faults", "body": "Sent by the fault tests."},
        "verify_expression": "prev.outbox.sent_count != outbox.sent_count",
        "verify_timeout_ms": 10000
    })
}

/// Every line of the audit log, each parsed (a line that does not parse fails).
fn audit_lines(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("audit log");
    assert!(text.ends_with('\n'), "the last record is cut short: {text}");
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("line {} does not parse ({e}): {l}", i + 1))
        })
        .collect()
}

/// Fail closed. The data dir's `audit.jsonl` is a symlink to `/dev/full`, a real device
/// on which every write fails with ENOSPC: a full disk, and one that root (these tests
/// run as root, which ignores file permissions) cannot write either. nspd opens the
/// log at startup (it holds the descriptor), so the link is made before it starts;
/// nothing in nspd knows it is under test. The irreversible send is refused with 503
/// `audit_unavailable`, the backend records no send, and the page is unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_log_on_a_full_device_refuses_the_send() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let data_dir = fresh_data_dir().expect("tempdir");
    std::os::unix::fs::symlink("/dev/full", data_dir.path().join("audit.jsonl")).expect("symlink");
    let (nspd, app) = open_tab_in(&demo.url("/"), 0.95, &[], data_dir)
        .await
        .expect("demo tab");
    let (_, before) = nspd
        .get(&format!("/substrate/v1/state/{}", app.pid))
        .await
        .expect("state");

    let (status, body) = nspd
        .act(&send(app.pid, "bob@example.com"))
        .await
        .expect("action");
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "audit_unavailable", "{body}");
    assert_eq!(body["executed"], false, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("was not sent") && message.contains("Free disk space"),
        "{message}"
    );

    // Ground truth: the backend saw no send, and a fresh capture shows the same count.
    assert_eq!(demo.backend().count(EventKind::Send), 0);
    let (status, after) = nspd
        .get(&format!("/substrate/v1/state/{}?fresh=true", app.pid))
        .await
        .expect("state");
    assert_eq!(status, 200, "{after}");
    assert_eq!(
        after["objects"]["outbox.sent_count"], before["objects"]["outbox.sent_count"],
        "the page did not send"
    );
}

/// SIGKILL mid-action. The demo backend answers sends 5 s late, so the send is in
/// flight when nspd is killed: the moment its `dispatched` record is on disk. The log
/// still parses line by line and holds that started send (with no completion); a new
/// nspd on the same data dir appends to the same file, whose old lines are unchanged,
/// and its own send completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nspd_killed_mid_action_leaves_a_log_the_next_nspd_continues() {
    let demo = DemoServer::start(DemoOptions {
        send_delay_ms: 5000,
        ..DemoOptions::default()
    })
    .await
    .expect("demo app");
    let (nspd, app) = open_tab_in(
        &demo.url("/"),
        0.95,
        &[],
        fresh_data_dir().expect("tempdir"),
    )
    .await
    .expect("demo tab");
    let log = nspd.data_dir.path().join("audit.jsonl");
    let nspd = std::sync::Arc::new(nspd);
    let acting = {
        let nspd = nspd.clone();
        let body = send(app.pid, "carol@example.com");
        tokio::spawn(async move { nspd.act(&body).await })
    };
    // Wait (bounded) for the started send to be on disk.
    let deadline = Instant::now() + Duration::from_secs(30);
    let started = loop {
        let found = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|r| r["decision"] == "dispatched" && r["action"] == "send_email");
        if let Some(r) = found {
            break r;
        }
        assert!(
            Instant::now() < deadline,
            "no dispatched record within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(
        demo.backend().count(EventKind::Send),
        0,
        "the send is still in flight"
    );
    // SIGKILL while the agent's request is still open, then reap and take the data dir.
    let nspd_pid = nspd.pid().expect("nspd runs") as i32;
    // SAFETY: kill(2) on the nspd child this test started (still unreaped, so the pid
    // cannot have been reused).
    unsafe {
        libc::kill(nspd_pid, libc::SIGKILL);
    }
    let answer = tokio::time::timeout(Duration::from_secs(30), acting)
        .await
        .expect("the request ends with nspd")
        .expect("join");
    assert!(
        answer.is_err(),
        "a killed nspd cannot have answered: {answer:?}"
    );
    let nspd = std::sync::Arc::try_unwrap(nspd).expect("the only owner");
    let data_dir = nspd.kill_keep_data();
    // The killed nspd could not remove its browser's profile.
    let profiles = data_dir.path().join("browsers");
    let left = profiles_in(&profiles);
    assert_eq!(left.len(), 1, "the killed nspd's profile is left: {left:?}");

    let after_kill = std::fs::read(&log).expect("log");
    let records = audit_lines(&log);
    let action_id = started["action_id"].as_str().expect("action id").to_owned();
    let of_action: Vec<&Value> = records
        .iter()
        .filter(|r| r["action_id"] == action_id.as_str())
        .collect();
    assert_eq!(of_action.len(), 1, "only the start is there: {of_action:?}");
    assert_eq!(of_action[0]["tier"], "irreversible_write");
    assert_eq!(of_action[0]["parameters"]["to"], "carol@example.com");

    // A new nspd on the same data dir, and a send that completes.
    let (nspd, app) = open_tab_in(&demo.url("/"), 0.95, &[], data_dir)
        .await
        .expect("demo tab after the restart");
    // The next nspd on the data dir removed the dead one's profile and runs in its own.
    let now = profiles_in(&profiles);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now, left, "the dead nspd's profile was removed");
    let (status, body) = nspd
        .act(&send(app.pid, "dave@example.com"))
        .await
        .expect("action");
    assert_eq!(status, 200, "{body}");
    // By recipient: the killed send may still land at the backend (it was in flight),
    // so a count of all sends would race with it.
    let to_dave = demo
        .backend()
        .events()
        .iter()
        .filter(|e| e.kind == EventKind::Send && e.detail["to"] == "dave@example.com")
        .count();
    assert_eq!(to_dave, 1);

    let grown = std::fs::read(&log).expect("log");
    assert!(grown.len() > after_kill.len());
    assert_eq!(
        &grown[..after_kill.len()],
        &after_kill[..],
        "the old records are untouched"
    );
    let records = audit_lines(&log);
    let new_id = body["action_id"].as_str().expect("action id");
    let results: Vec<&Value> = records
        .iter()
        .filter(|r| r["action_id"] == new_id)
        .map(|r| &r["decision"])
        .collect();
    assert_eq!(results, vec!["dispatched", "completed"]);

    // Stopped, nspd closes its browser and removes the profile itself.
    let data_dir = nspd.stop_keep_data();
    let left = profiles_in(&data_dir.path().join("browsers"));
    assert!(
        left.is_empty(),
        "a stopped nspd leaves no profile: {left:?}"
    );
}

/// The browser profiles in `dir` (nspd's `<data dir>/browsers`), by name.
fn profiles_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}
