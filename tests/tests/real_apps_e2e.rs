//! End to end on a real app: Django's admin (Django from PyPI, sqlite), driven by an
//! agent through the real nspd, headless Chromium and the extension, over raw HTTP and
//! with the published Python SDK. The app's own database is the ground truth: the agent
//! logs in through the discovered login form, creates a note through the discovered add
//! form, is refused when it deletes without a verify expression (and nothing is
//! deleted), then deletes through Django's own confirmation page with one (and exactly
//! that note is gone). The password must appear in no state, diff, log or audit record.

use std::path::Path;
use std::time::{Duration, Instant};

use nsp_protocol::ProbeStatus;
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions, DJANGO_PASSWORD, DJANGO_USER};
use nsp_tests::{Nspd, NspdOptions};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const SETTLE_TIMEOUT: Duration = Duration::from_secs(20);
const NOTE_TITLE: &str = "Renew the passport";

/// Every body nspd answered with, to search for the password at the end.
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    fn keep(&mut self, v: &Value) -> Value {
        self.0.push(v.to_string());
        v.clone()
    }
}

async fn state(nspd: &Nspd, pid: u64, seen: &mut Seen) -> Value {
    let (status, body) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    assert_eq!(status, 200, "{body}");
    seen.keep(&body)
}

/// Polls the state until `pred` holds (the page's own captures make it hold).
async fn wait_state(
    nspd: &Nspd,
    pid: u64,
    seen: &mut Seen,
    what: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + SETTLE_TIMEOUT;
    loop {
        let s = state(nspd, pid, seen).await;
        if pred(&s) {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "the state never showed {what}; last: {s:#}"
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

fn has_action(state: &Value, name: &str) -> bool {
    state["actions"].get(name).is_some()
}

fn url_of(state: &Value) -> String {
    state["context"]["url"].as_str().unwrap_or("").to_owned()
}

/// The name of `action`'s parameter whose name contains `part`.
fn param(state: &Value, action: &str, part: &str) -> String {
    state["actions"][action]["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str())
        .find(|n| n.to_ascii_lowercase().contains(part))
        .unwrap_or_else(|| {
            panic!(
                "{action} has no parameter like {part:?}: {:#}",
                state["actions"][action]
            )
        })
        .to_owned()
}

fn note_ids(django: &RealApp) -> Vec<i64> {
    django
        .query("select id from notes_note order by id")
        .expect("the notes table")
        .iter()
        .filter_map(|r| r.first().and_then(Value::as_i64))
        .collect()
}

fn note_id_titled(django: &RealApp, title: &str) -> Option<i64> {
    let title = title.replace('\'', "''");
    django
        .query(&format!(
            "select id from notes_note where title = '{title}'"
        ))
        .expect("the notes table")
        .first()
        .and_then(|r| r.first().and_then(Value::as_i64))
}

/// Navigates the tab to `url` through the `navigate` builtin (verified by the URL ending
/// in `ends`) and waits for the state of that page offering `action`.
async fn navigate(
    nspd: &Nspd,
    pid: u64,
    seen: &mut Seen,
    (url, ends): (&str, &str),
    what: &str,
    action: &str,
) -> Value {
    let (status, resp) = nspd
        .act(&json!({
            "pid": pid,
            "action": "navigate",
            "parameters": {"url": url},
            "verify_expression": format!("context.url.endsWith('{ends}')"),
        }))
        .await
        .expect("navigate");
    seen.keep(&resp);
    assert_eq!(status, 200, "navigating to {url}: {resp}");
    // Settled too, as an agent told "the page is still loading" waits: a write's fresh
    // capture on a page still loading (a slow machine) holds it under its floor.
    wait_state(nspd, pid, seen, what, |s| {
        url_of(s) == url
            && has_action(s, action)
            && s["probe_metadata"]["settled"].as_bool() != Some(false)
    })
    .await
}

/// nspd and a browser on Django's login page, with nspd's log in `log`.
async fn open_login(django: &RealApp, log: &Path) -> (Nspd, u64) {
    let url = django.url("/admin/login/?next=/admin/");
    let nspd = Nspd::launch_logged(
        &NspdOptions {
            url: url.clone(),
            headless: true,
        },
        log,
    )
    .expect("nspd");
    let tab = nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.probe_status == ProbeStatus::Active && a.current_url.as_deref() == Some(&url)
        })
        .await
        .expect("the login tab is active");
    (nspd, tab.pid)
}

/// Django, nspd and a browser on Django's login page (nspd's log in `log`, under
/// `_logs`), once the probe offers the login action; with the names of its user and
/// password parameters.
struct AtLogin {
    django: RealApp,
    _logs: tempfile::TempDir,
    log: std::path::PathBuf,
    nspd: Nspd,
    pid: u64,
    seen: Seen,
    user: String,
    pass: String,
}

async fn at_login() -> AtLogin {
    let django = RealApp::start(AppKind::Django, RealAppOptions::default()).expect("django");
    let logs = tempfile::tempdir().expect("tempdir");
    let log = logs.path().join("nspd.log");
    let (nspd, pid) = open_login(&django, &log).await;
    let mut seen = Seen::default();
    let login = wait_state(&nspd, pid, &mut seen, "the login action", |s| {
        has_action(s, "log_in")
    })
    .await;
    let user = param(&login, "log_in", "user");
    let pass = param(&login, "log_in", "pass");
    AtLogin {
        django,
        _logs: logs,
        log,
        nspd,
        pid,
        seen,
        user,
        pass,
    }
}

/// Asserts that the password is in none of the texts, naming where it was found.
fn assert_no_password(nspd: &Nspd, log: &Path, seen: &Seen) {
    for (i, body) in seen.0.iter().enumerate() {
        assert!(
            !body.contains(DJANGO_PASSWORD),
            "the password is in answer #{i} from nspd: {body}"
        );
    }
    let log_text = std::fs::read_to_string(log).expect("nspd's log");
    assert!(!log_text.is_empty(), "nspd logged nothing at debug level");
    assert!(
        !log_text.contains(DJANGO_PASSWORD),
        "the password is in nspd's log"
    );
    let audit =
        std::fs::read_to_string(nspd.data_dir.path().join("audit.jsonl")).expect("the audit log");
    assert!(!audit.is_empty(), "the audit log is empty");
    assert!(
        !audit.contains(DJANGO_PASSWORD),
        "the password is in the audit log"
    );
    // Anything else nspd keeps in its data dir.
    for entry in std::fs::read_dir(nspd.data_dir.path())
        .expect("data dir")
        .flatten()
    {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            assert!(
                !text.contains(DJANGO_PASSWORD),
                "the password is in {}",
                entry.path().display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_logs_in_creates_and_deletes_in_django_admin_over_http() {
    let AtLogin {
        django,
        _logs,
        log,
        nspd,
        pid,
        mut seen,
        user,
        pass,
    } = at_login().await;

    // Log in through the discovered login form.
    let (status, resp) = nspd
        .act(&json!({
            "pid": pid,
            "action": "log_in",
            "parameters": {user: DJANGO_USER, pass: DJANGO_PASSWORD},
            "verify_expression": "!context.url.includes('/login/')",
        }))
        .await
        .expect("log_in");
    seen.keep(&resp);
    assert_eq!(status, 200, "logging in through the form: {resp}");
    assert_eq!(resp["verification"]["passed"], true, "{resp}");
    let index = wait_state(&nspd, pid, &mut seen, "the admin index", |s| {
        url_of(s) == django.url("/admin/") && has_action(s, "log_out")
    })
    .await;
    assert!(
        index["context"]["window_title"]
            .as_str()
            .is_some_and(|t| t.contains("Site administration")),
        "{:#}",
        index["context"]
    );

    // Create a note through the discovered add form.
    let before = note_ids(&django);
    assert_eq!(before.len(), 3, "the seeded notes");
    let add = django.url("/admin/notes/note/add/");
    let form = navigate(
        &nspd,
        pid,
        &mut seen,
        (&add, "/admin/notes/note/add/"),
        "the add form",
        "save_note_form",
    )
    .await;
    let title = param(&form, "save_note_form", "title");
    let body = param(&form, "save_note_form", "body");
    let (status, resp) = nspd
        .act(&json!({
            "pid": pid,
            "action": "save_note_form",
            "parameters": {title: NOTE_TITLE, body: "Before the trip in May"},
            "verify_expression": "!context.url.endsWith('/add/')",
        }))
        .await
        .expect("save");
    seen.keep(&resp);
    assert_eq!(status, 200, "{resp}");
    let id = note_id_titled(&django, NOTE_TITLE).expect("the note is in the database");
    assert_eq!(note_ids(&django).len(), before.len() + 1);

    // Its delete confirmation page: refused without a verify expression.
    let confirm = django.url(&format!("/admin/notes/note/{id}/delete/"));
    let page = navigate(
        &nspd,
        pid,
        &mut seen,
        (&confirm, "/delete/"),
        "the confirmation page",
        "yes_i_m_sure",
    )
    .await;
    assert_eq!(
        page["actions"]["yes_i_m_sure"]["reversibility"], "irreversible_write",
        "{:#}",
        page["actions"]["yes_i_m_sure"]
    );
    let audit_before = nspd.audit().len();
    let (status, resp) = nspd
        .act(&json!({"pid": pid, "action": "yes_i_m_sure", "parameters": {}}))
        .await
        .expect("unverified delete");
    seen.keep(&resp);
    assert_eq!(status, 400, "{resp}");
    assert_eq!(resp["code"], "missing_verify_expression", "{resp}");
    assert_eq!(
        note_id_titled(&django, NOTE_TITLE),
        Some(id),
        "nothing is deleted"
    );
    assert_eq!(note_ids(&django).len(), before.len() + 1);

    // With a verify expression, through the confirmation page: exactly that note goes.
    let (status, resp) = nspd
        .act(&json!({
            "pid": pid,
            "action": "yes_i_m_sure",
            "parameters": {},
            "verify_expression": "!context.url.includes('/delete/')",
        }))
        .await
        .expect("verified delete");
    seen.keep(&resp);
    assert_eq!(
        status, 200,
        "deleting through the confirmation page: {resp}"
    );
    assert_eq!(resp["verification"]["passed"], true, "{resp}");
    assert_eq!(
        note_id_titled(&django, NOTE_TITLE),
        None,
        "the note is gone"
    );
    assert_eq!(note_ids(&django), before, "and only that note");
    assert!(
        nspd.audit().len() > audit_before,
        "the irreversible action is audited"
    );

    let (status, diff) = nspd
        .get(&format!("/substrate/v1/diff/{pid}"))
        .await
        .expect("diff");
    assert_eq!(status, 200, "{diff}");
    seen.keep(&diff);
    state(&nspd, pid, &mut seen).await;
    assert_no_password(&nspd, &log, &seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_logs_in_creates_and_is_refused_a_delete_in_django_admin() {
    let AtLogin {
        django,
        _logs,
        log,
        nspd,
        pid,
        mut seen,
        user,
        pass,
    } = at_login().await;

    let sdk = |req: Value| {
        let nspd = &nspd;
        async move {
            nspd.sdk("act", Some(&req.to_string()))
                .await
                .expect("SDK scenario")
        }
    };
    let out = sdk(json!({
        "action": "log_in",
        "parameters": {user: DJANGO_USER, pass: DJANGO_PASSWORD},
        "verify": true,
        "verify_expression": "!context.url.includes('/login/')",
    }))
    .await;
    seen.keep(&out);
    assert_eq!(out["success"], true, "logging in with the SDK: {out}");
    assert_eq!(out["passed"], true, "{out}");
    wait_state(&nspd, pid, &mut seen, "the admin index", |s| {
        url_of(s) == django.url("/admin/") && has_action(s, "log_out")
    })
    .await;

    let before = note_ids(&django);
    let add = django.url("/admin/notes/note/add/");
    let out = sdk(
        json!({"action": "navigate", "parameters": {"url": add}, "verify": true,
                         "verify_expression": "context.url.endsWith('/admin/notes/note/add/')"}),
    )
    .await;
    assert_eq!(out["success"], true, "{out}");
    let form = wait_state(&nspd, pid, &mut seen, "the add form", |s| {
        url_of(s) == add && has_action(s, "save_note_form")
    })
    .await;
    let title = param(&form, "save_note_form", "title");
    let out = sdk(json!({
        "action": "save_note_form",
        "parameters": {title: NOTE_TITLE},
        "verify": true,
        "verify_expression": "!context.url.endsWith('/add/')",
    }))
    .await;
    assert_eq!(out["success"], true, "creating with the SDK: {out}");
    let id = note_id_titled(&django, NOTE_TITLE).expect("the note is in the database");

    let confirm = django.url(&format!("/admin/notes/note/{id}/delete/"));
    let out = sdk(
        json!({"action": "navigate", "parameters": {"url": confirm}, "verify": true,
                         "verify_expression": "context.url.endsWith('/delete/')"}),
    )
    .await;
    assert_eq!(out["success"], true, "{out}");
    wait_state(&nspd, pid, &mut seen, "the confirmation page", |s| {
        url_of(s) == confirm && has_action(s, "yes_i_m_sure")
    })
    .await;
    // verify=False: the SDK itself refuses an irreversible action.
    let out = sdk(json!({"action": "yes_i_m_sure", "verify": false})).await;
    assert_eq!(out["raised"], "NSPIrreversibleNotConfirmedError", "{out}");
    // verify=True without an expression: nspd refuses it.
    let out = sdk(json!({"action": "yes_i_m_sure", "verify": true})).await;
    assert!(out["raised"].is_string(), "{out}");
    assert_eq!(out["code"], "missing_verify_expression", "{out}");
    assert_eq!(
        note_id_titled(&django, NOTE_TITLE),
        Some(id),
        "nothing is deleted"
    );
    assert_eq!(note_ids(&django).len(), before.len() + 1);

    state(&nspd, pid, &mut seen).await;
    assert_no_password(&nspd, &log, &seen);
}
