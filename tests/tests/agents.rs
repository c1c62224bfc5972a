//! Several agents on one browser, end to end: headless Chromium with the built extension,
//! a real nspd, agents made with the real `nspd agents` command while nspd runs, two
//! small note-taking apps on two origins served by this test (their own lists of notes
//! are the ground truth), raw HTTP and the official MCP client.
//!
//! What must hold:
//! - an agent added to a running nspd works within a second, and a revoked one is
//!   refused within a second;
//! - a read-only agent scoped to one origin does not see a tab of another origin (absent
//!   from `/apps`, 404 on `/state`) and cannot run a reversible write on its own origin
//!   (403 `scope_denied`), and nothing reaches the app;
//! - two agents with `--tabs own` each see only the tab they opened, over HTTP and MCP;
//!   an agent cannot open a tab outside its origins;
//! - a lease makes another agent's write 409 `tab_leased` (reads stay open), the
//!   holder's flow lands exactly once in the app, and after the release the other agent
//!   may write;
//! - the audit log names the agent on every line of an action, and `nspd audit --agent`
//!   keeps that agent's lines only.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, Response, StatusCode};
use nsp_tests::{fresh_data_dir, mcp_python, nspd_bin, workspace_root, Nspd, NspdOptions};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);

/// A note-taking app: `GET /` lists the notes and has a form to add one
/// (`POST /notes`, then back to `/`).
struct NoteApp {
    port: u16,
    notes: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for NoteApp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl NoteApp {
    async fn start(title: &'static str) -> Result<NoteApp> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let shared = notes.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let notes = shared.clone();
                tokio::spawn(async move {
                    let service =
                        hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                            let notes = notes.clone();
                            async move { Ok::<_, Infallible>(answer(title, &notes, req).await) }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(NoteApp { port, notes, task })
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn url(&self) -> String {
        format!("{}/", self.origin())
    }

    fn notes(&self) -> Vec<String> {
        self.notes.lock().expect("notes").clone()
    }
}

async fn answer(
    title: &str,
    notes: &Mutex<Vec<String>>,
    req: Request<hyper::body::Incoming>,
) -> Response<Full<Bytes>> {
    if req.method() == Method::POST && req.uri().path() == "/notes" {
        let body = req.into_body().collect().await.map(|b| b.to_bytes());
        let text = String::from_utf8_lossy(&body.unwrap_or_default()).into_owned();
        let note = text
            .split('&')
            .find_map(|kv| kv.strip_prefix("note="))
            .map(|v| v.replace('+', " "))
            .unwrap_or_default();
        notes.lock().expect("notes").push(note);
        let mut r = Response::new(Full::new(Bytes::new()));
        *r.status_mut() = StatusCode::SEE_OTHER;
        r.headers_mut()
            .insert("location", "/".parse().expect("header"));
        return r;
    }
    let items: String = notes
        .lock()
        .expect("notes")
        .iter()
        .map(|n| format!("<li>{n}</li>"))
        .collect();
    let html = format!(
        r#"<!doctype html><title>{title}</title><h1>{title}</h1>
<p>Notes: <span id="count">{}</span></p><ul id="notes">{items}</ul>
<form action="/notes" method="post"><label>Note <input name="note" required></label>
<button type="submit">Add note</button></form>"#,
        notes.lock().expect("notes").len()
    );
    let mut r = Response::new(Full::new(Bytes::from(html)));
    r.headers_mut().insert(
        "content-type",
        "text/html; charset=utf-8".parse().expect("header"),
    );
    r
}

/// `nspd agents add NAME ARGS…` on nspd's data dir; returns the agent's key (read from
/// the file whose path the command printed).
fn add_agent(nspd: &Nspd, name: &str, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new(nspd_bin()?)
        .args(["agents", "add", name])
        .args(args)
        .arg("--data-dir")
        .arg(nspd.data_dir.path())
        .output()
        .context("nspd agents add")?;
    if !out.status.success() {
        bail!(
            "nspd agents add {name} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let key = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains(key.trim()),
        "the command prints the key file's path, never the key"
    );
    Ok(key.trim().to_owned())
}

fn nspd_cli(nspd: &Nspd, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new(nspd_bin()?)
        .args(args)
        .arg("--data-dir")
        .arg(nspd.data_dir.path())
        .output()?;
    if !out.status.success() {
        bail!(
            "nspd {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Polls `GET /apps` with `key` until it answers `want`; returns how long that took.
async fn until_apps_status(nspd: &Nspd, key: &str, want: StatusCode) -> Result<Duration> {
    let start = Instant::now();
    loop {
        let (status, _) = nspd
            .request_as(key, Method::GET, "/substrate/v1/apps", None)
            .await?;
        if status == want {
            return Ok(start.elapsed());
        }
        if start.elapsed() > Duration::from_secs(10) {
            bail!("GET /apps still answers {status}, not {want}, after 10 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn pids(nspd: &Nspd, key: &str) -> Result<Vec<u64>> {
    let (status, body) = nspd
        .request_as(key, Method::GET, "/substrate/v1/apps", None)
        .await?;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut pids: Vec<u64> = body["apps"]
        .as_array()
        .context("apps")?
        .iter()
        .filter_map(|a| a["pid"].as_u64())
        .collect();
    pids.sort_unstable();
    Ok(pids)
}

/// Opens `url` as the agent of `key` (`POST /substrate/v1/tabs`); returns its pid.
async fn open_as(nspd: &Nspd, key: &str, url: &str) -> Result<u64> {
    let (status, body) = nspd
        .request_as(
            key,
            Method::POST,
            "/substrate/v1/tabs",
            Some(&json!({ "url": url })),
        )
        .await?;
    if status != StatusCode::OK {
        bail!("POST /tabs {url}: {status} {body}");
    }
    body["tab"]["pid"].as_u64().context("the new tab's pid")
}

/// The state of `pid` as the agent of `key`, once it shows an action that adds a note.
async fn add_note_action(nspd: &Nspd, key: &str, pid: u64) -> Result<String> {
    let deadline = Instant::now() + TAB_TIMEOUT;
    loop {
        let (status, state) = nspd
            .request_as(
                key,
                Method::GET,
                &format!("/substrate/v1/state/{pid}"),
                None,
            )
            .await?;
        if status == StatusCode::OK {
            if let Some((name, _)) = state["actions"].as_object().and_then(|a| {
                a.iter().find(|(_, v)| {
                    v["reversibility"] == "reversible_write"
                        && v["parameters"]
                            .as_array()
                            .is_some_and(|p| p.iter().any(|p| p["name"] == "note"))
                })
            }) {
                return Ok(name.clone());
            }
        }
        if Instant::now() > deadline {
            bail!("tab {pid} offers no action that adds a note: {status} {state}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn add_note(
    nspd: &Nspd,
    key: &str,
    pid: u64,
    action: &str,
    note: &str,
) -> Result<(StatusCode, Value)> {
    nspd.request_as(
        key,
        Method::POST,
        "/substrate/v1/action",
        Some(&json!({"pid": pid, "action": action, "parameters": {"note": note}})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_see_and_do_only_what_their_scopes_allow() {
    let a = NoteApp::start("Team notes").await.expect("app A");
    let b = NoteApp::start("Home notes").await.expect("app B");
    let nspd = Nspd::launch_in(
        &NspdOptions {
            url: a.url(),
            headless: true,
        },
        &[],
        fresh_data_dir().expect("data dir"),
    )
    .expect("nspd and its browser");
    let person_tab = nspd
        .wait_for_app(TAB_TIMEOUT, |t| {
            t.probe_status == nsp_protocol::ProbeStatus::Active
                && t.current_url.as_deref() == Some(a.url().as_str())
        })
        .await
        .expect("the person's tab on A")
        .pid;

    // Agents made while nspd runs.
    let reader = add_agent(
        &nspd,
        "reader",
        &["--origins", &a.origin(), "--max-tier", "read"],
    )
    .expect("reader");
    let writer = add_agent(
        &nspd,
        "writer",
        &["--origins", &a.origin(), &b.origin(), "--tabs", "own"],
    )
    .expect("writer");
    let rival = add_agent(&nspd, "rival", &["--tabs", "own"]).expect("rival");
    let peer = add_agent(&nspd, "peer", &[]).expect("peer");
    let took = until_apps_status(&nspd, &peer, StatusCode::OK)
        .await
        .expect("the new key works");
    assert!(
        took <= Duration::from_secs(1),
        "an added agent took {took:?}"
    );

    // The default agent (the person's key) opens a tab on B.
    let b_tab = open_as(&nspd, &nspd.key, &b.url()).await.expect("tab on B");

    // The read-only agent of A.
    assert_eq!(pids(&nspd, &reader).await.expect("apps"), vec![person_tab]);
    let (status, body) = nspd
        .request_as(
            &reader,
            Method::GET,
            &format!("/substrate/v1/state/{b_tab}"),
            None,
        )
        .await
        .expect("state");
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["code"], "pid_not_found", "{body}");
    let action = add_note_action(&nspd, &reader, person_tab)
        .await
        .expect("the reader reads A");
    let (status, body) = add_note(&nspd, &reader, person_tab, &action, "from the reader")
        .await
        .expect("action");
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"]["code"], "scope_denied", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("max-tier")),
        "{body}"
    );
    assert!(
        a.notes().is_empty(),
        "nothing reached app A: {:?}",
        a.notes()
    );

    // Two agents with their own tabs.
    let writer_tab = open_as(&nspd, &writer, &b.url())
        .await
        .expect("writer's tab");
    let rival_tab = open_as(&nspd, &rival, &a.url()).await.expect("rival's tab");
    assert_eq!(pids(&nspd, &writer).await.expect("apps"), vec![writer_tab]);
    assert_eq!(pids(&nspd, &rival).await.expect("apps"), vec![rival_tab]);
    let (status, body) = nspd
        .request_as(
            &writer,
            Method::GET,
            &format!("/substrate/v1/state/{rival_tab}"),
            None,
        )
        .await
        .expect("state");
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = nspd
        .request_as(
            &writer,
            Method::POST,
            "/substrate/v1/tabs",
            Some(&json!({"url": "http://127.0.0.1:9/elsewhere"})),
        )
        .await
        .expect("open");
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"]["code"], "scope_denied", "{body}");

    // The same two over MCP, each with its own key.
    let out = tokio::process::Command::new(mcp_python().expect("the MCP SDK venv"))
        .arg(workspace_root().join("tests/mcp/agents.py"))
        .args([&nspd.mcp_url, &writer, &rival])
        .kill_on_drop(true)
        .output()
        .await
        .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mcp: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("JSON");
    assert_eq!(mcp["a"]["tabs"], json!([writer_tab]), "{mcp}");
    assert_eq!(mcp["b"]["tabs"], json!([rival_tab]), "{mcp}");
    assert_eq!(
        mcp["a"]["resources"],
        json!([format!("nsp://tab/{writer_tab}/state")]),
        "{mcp}"
    );
    assert_eq!(mcp["lease"]["holder"], "writer", "{mcp}");
    assert_eq!(mcp["release"]["released"], true, "{mcp}");
    for side in ["a", "b"] {
        let foreign = mcp[side]["foreign"].as_array().expect("foreign");
        assert!(!foreign.is_empty(), "{mcp}");
        for f in foreign {
            assert!(
                f["is_error"] == true || f["resource"] == "refused",
                "another agent's tab must not be readable: {mcp}"
            );
        }
    }

    // A lease: the writer holds its tab; the peer (every tab) may read it, not write.
    let action = add_note_action(&nspd, &writer, writer_tab)
        .await
        .expect("the writer's tab has its form");
    let (status, lease) = nspd
        .request_as(
            &writer,
            Method::POST,
            "/substrate/v1/lease",
            Some(&json!({"pid": writer_tab, "ttl_ms": 60000})),
        )
        .await
        .expect("lease");
    assert_eq!(status, StatusCode::OK, "{lease}");
    assert_eq!(lease["holder"], "writer", "{lease}");
    let (status, body) = add_note(&nspd, &peer, writer_tab, &action, "from the peer")
        .await
        .expect("action");
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "tab_leased", "{body}");
    assert_eq!(body["holder"], "writer", "{body}");
    let (status, _) = nspd
        .request_as(
            &peer,
            Method::GET,
            &format!("/substrate/v1/state/{writer_tab}"),
            None,
        )
        .await
        .expect("state");
    assert_eq!(status, StatusCode::OK, "reads stay open under a lease");
    let (status, body) = add_note(&nspd, &writer, writer_tab, &action, "milk")
        .await
        .expect("action");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        b.notes(),
        vec!["milk".to_owned()],
        "exactly once, the holder's"
    );
    let (status, body) = nspd
        .request_as(
            &writer,
            Method::POST,
            "/substrate/v1/lease",
            Some(&json!({"pid": writer_tab, "ttl_ms": 0})),
        )
        .await
        .expect("release");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["held"], false, "{body}");
    let action = add_note_action(&nspd, &peer, writer_tab)
        .await
        .expect("the form again");
    let (status, body) = add_note(&nspd, &peer, writer_tab, &action, "eggs")
        .await
        .expect("action");
    assert_eq!(status, StatusCode::OK, "after the release: {body}");
    assert_eq!(b.notes(), vec!["milk".to_owned(), "eggs".to_owned()]);

    // Who did what.
    let audit = nspd.audit();
    let dispatched: Vec<&Value> = audit
        .iter()
        .filter(|r| r["decision"] == "dispatched")
        .collect();
    assert!(dispatched.len() >= 2, "{audit:?}");
    assert!(
        dispatched.iter().all(|r| r["agent"].is_string()),
        "every action line names its agent: {dispatched:?}"
    );
    assert!(
        audit.iter().any(|r| r["agent"] == "reader"
            && r["decision"]
                .as_str()
                .is_some_and(|d| d.contains("scope_denied"))),
        "the reader's refusal is audited: {audit:?}"
    );
    let writer_lines = nspd_cli(&nspd, &["audit", "--agent", "writer"]).expect("audit");
    assert!(!writer_lines.trim().is_empty());
    assert!(
        writer_lines
            .lines()
            .all(|l| !l.contains("peer") && !l.contains("reader")),
        "{writer_lines}"
    );

    // Revoked from a shell: the next request is refused within a second.
    nspd_cli(&nspd, &["agents", "revoke", "peer"]).expect("revoke");
    let took = until_apps_status(&nspd, &peer, StatusCode::UNAUTHORIZED)
        .await
        .expect("the key stops working");
    assert!(took <= Duration::from_secs(1), "revocation took {took:?}");
    // The others are untouched.
    assert_eq!(pids(&nspd, &writer).await.expect("apps"), vec![writer_tab]);
}
