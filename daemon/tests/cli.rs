//! The nspd command line as a user runs it: `verify-expr` against saved states (and
//! its exit codes), `token`, `audit` (--tail, --follow), and a bad configuration
//! refused with the key named.

use std::process::Command;

use serde_json::{json, Value};

fn nspd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nspd"))
}

fn state(sent: u64) -> Value {
    json!({
        "pid": 1, "app_id": "mail-1", "app_name": "Mail", "runtime": "v8", "confidence": 0.97,
        "capture_id": "c", "schema_version": "1.0.0", "captured_at": "2026-01-01T00:00:00Z",
        "context": {"url": "https://mail.example/sent", "location": null, "view": null, "window_title": null, "window_id": null},
        "objects": {"outbox.sent_count": sent},
        "actions": {},
        "probe_metadata": {"capture_latency_ms": 0.0, "labeling_latency_ms": 0.0, "total_latency_ms": 0.0, "raw_object_count": 1, "filtered_object_count": 1, "cache_hit": false, "probe_tier": null}
    })
}

#[test]
fn verify_expr_exit_codes_and_outcome() {
    let dir = tempfile::tempdir().expect("tempdir");
    let after = dir.path().join("after.json");
    let before = dir.path().join("before.json");
    std::fs::write(&after, state(15).to_string()).expect("write");
    std::fs::write(&before, state(14).to_string()).expect("write");

    let out = nspd()
        .args(["verify-expr", "--state"])
        .arg(&after)
        .arg("--prev")
        .arg(&before)
        .arg("prev.outbox.sent_count != outbox.sent_count")
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(outcome["passed"], true);
    assert_eq!(
        outcome["changed_fields"],
        json!([{"path": "outbox.sent_count", "before": 14, "after": 15}])
    );

    let out = nspd()
        .args(["verify-expr", "--state"])
        .arg(&after)
        .arg("outbox.sent_count > 20")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(outcome["passed"], false);
    assert!(
        outcome["explanation"].as_str().unwrap_or("").contains("15"),
        "{outcome}"
    );

    let out = nspd()
        .args(["verify-expr", "--state"])
        .arg(&after)
        .arg("outbox.sent_count >")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid_verify_expression") && err.contains("byte"),
        "{err}"
    );

    let out = nspd()
        .args(["verify-expr", "--state"])
        .arg(dir.path().join("missing.json"))
        .arg("a == 1")
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(3),
        "an unreadable state is not an invalid expression"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read"), "{err}");

    let out = nspd()
        .arg("verify-expr")
        .arg("--help")
        .output()
        .expect("run");
    let help = String::from_utf8_lossy(&out.stdout);
    for code in ["0  ", "1  ", "2  ", "3  "] {
        assert!(help.contains(code), "exit code {code} undocumented: {help}");
    }
}

/// What the SDK's `SubstrateState` model accepts, `verify-expr` accepts: no
/// `probe_metadata`, `{}` or null for it, no context, no actions. A file that is not a
/// state at all gets exit 3, whatever the expression.
#[test]
fn verify_expr_takes_what_the_sdk_takes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = state(15);
    let mut variants = Vec::new();
    for meta in [Some(json!({})), Some(Value::Null), None] {
        let mut s = base.clone();
        match meta {
            Some(m) => s["probe_metadata"] = m,
            None => {
                s.as_object_mut().expect("object").remove("probe_metadata");
            }
        }
        variants.push(s);
    }
    let mut minimal = base.clone();
    for key in [
        "context",
        "actions",
        "capture_id",
        "schema_version",
        "probe_metadata",
    ] {
        minimal.as_object_mut().expect("object").remove(key);
    }
    variants.push(minimal);
    for (i, v) in variants.iter().enumerate() {
        let path = dir.path().join(format!("s{i}.json"));
        std::fs::write(&path, v.to_string()).expect("write");
        let out = nspd()
            .args(["verify-expr", "--state"])
            .arg(&path)
            .arg("outbox.sent_count == 15")
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{v}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (name, text) in [
        ("bad.json", "{not json"),
        ("other.json", "{\"objects\": {}}"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let out = nspd()
            .args(["verify-expr", "--state"])
            .arg(&path)
            .arg("a == 1")
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(3), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not a SubstrateState"), "{err}");
    }
}

fn audit_record(action: &str, n: u64) -> String {
    format!(
        "{}\n",
        json!({"time": format!("2026-01-01T00:00:0{n}.000Z"), "decision": "dispatched", "action": action,
            "pid": 1, "tier": "read", "request_id": format!("r{n}"), "action_id": format!("a{n}")})
    )
}

#[test]
fn audit_tail_prints_the_last_records_one_line_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log: String = (1..=5)
        .map(|n| audit_record(&format!("act{n}"), n))
        .collect();
    std::fs::write(dir.path().join("audit.jsonl"), log).expect("write");
    let out = nspd()
        .args(["audit", "--tail", "2", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("dispatched")
            && lines[0].contains("act4")
            && lines[0].contains("tier=read"),
        "{text}"
    );
    assert!(
        lines[1].contains("act5") && lines[1].contains("request_id=r5"),
        "{text}"
    );
    let all = nspd()
        .args(["audit", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&all.stdout).lines().count(), 5);
    // No log at all is an error, not silence.
    let empty = tempfile::tempdir().expect("tempdir");
    let out = nspd()
        .args(["audit", "--data-dir"])
        .arg(empty.path())
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("audit.jsonl"));
}

/// Ends the child however the test ends.
struct Reap(std::process::Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn audit_follow_prints_records_as_they_are_appended() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    std::fs::write(&path, audit_record("first", 1)).expect("write");
    let mut child = Reap(
        nspd()
            .args(["audit", "--follow", "--data-dir"])
            .arg(dir.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn"),
    );
    let stdout = child.0.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait = std::time::Duration::from_secs(10);
    let first = rx.recv_timeout(wait).expect("the existing record");
    assert!(first.contains("first"), "{first}");
    // A record written in two pieces is printed once, whole.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    let second = audit_record("second", 2);
    let (a, b) = second.split_at(20);
    f.write_all(a.as_bytes()).expect("write");
    f.flush().expect("flush");
    // Let the follower poll (every 200 ms) while only half the line is there; there is
    // nothing to wait on, as it must print nothing for it.
    std::thread::sleep(std::time::Duration::from_millis(300));
    f.write_all(b.as_bytes()).expect("write");
    let next = rx.recv_timeout(wait).expect("the appended record");
    assert!(
        next.contains("second") && next.contains("request_id=r2"),
        "{next}"
    );
    drop(child);
}

#[test]
fn token_prints_the_key_from_the_data_dir() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = nspd()
        .arg("token")
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .expect("run");
    assert!(out.status.success());
    let key = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert_eq!(key.len(), 64);
    let file = std::fs::read_to_string(dir.path().join("agent.key")).expect("key file");
    assert_eq!(file.trim(), key);
    let again = nspd()
        .arg("token")
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&again.stdout).trim(), key);
}

#[test]
fn a_bad_config_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("nspd.toml"),
        "[dispatcher]\npost_action_wait = 5\n",
    )
    .expect("write");
    let out = nspd()
        .args(["run", "--port", "0", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("post_action_wait") && err.contains("line 2"),
        "{err}"
    );
    let out = nspd()
        .args(["run", "--port", "0", "--data-dir"])
        .arg(dir.path().join("other"))
        .env("NSP_SERVER__MAX_BODY_BYTES", "lots")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("NSP_SERVER__MAX_BODY_BYTES"), "{err}");
}

/// A script standing in for the browser, and a folder standing in for the extension:
/// enough for `inspect` to reach the stage under test without a real Chromium.
fn fake_browser(dir: &std::path::Path, body: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("browser.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let ext = dir.join("ext");
    std::fs::create_dir(&ext).expect("mkdir");
    std::fs::write(ext.join("manifest.json"), "{}").expect("write");
    (script, ext)
}

fn inspect_failure(browser: &std::path::Path, ext: &std::path::Path) -> String {
    let out = nspd()
        .args([
            "inspect",
            "--connect-timeout",
            "1",
            "--timeout",
            "1",
            "--browser",
        ])
        .arg(browser)
        .arg("--extension")
        .arg(ext)
        .arg("http://127.0.0.1:9/")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `inspect` never ends in silence: each stage that fails says so on stderr.
#[test]
fn inspect_names_the_stage_that_failed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, ext) = fake_browser(dir.path(), "exit 0");
    let err = inspect_failure(&dir.path().join("no-such-browser"), &ext);
    assert!(
        err.contains("browser start") && err.contains("cannot start"),
        "{err}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let (script, ext) = fake_browser(dir.path(), "exit 3");
    let err = inspect_failure(&script, &ext);
    assert!(
        err.contains("browser start") && err.contains("exited before the extension connected"),
        "{err}"
    );

    // A browser that runs but whose extension never connects.
    let dir = tempfile::tempdir().expect("tempdir");
    let (script, ext) = fake_browser(dir.path(), "exec sleep 30");
    let started = std::time::Instant::now();
    let err = inspect_failure(&script, &ext);
    assert!(
        err.contains("extension connect") && err.contains("did not connect"),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the fake browser was not closed"
    );
}

#[test]
fn mcp_config_names_the_key_file_never_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let token = nspd()
        .args(["token", "--data-dir"])
        .arg(&data)
        .output()
        .expect("token");
    let key = String::from_utf8_lossy(&token.stdout).trim().to_owned();
    assert_eq!(key.len(), 64);
    let key_file = data.join("agent.key").display().to_string();
    for client in ["claude-code", "claude-desktop", "cursor"] {
        let out = nspd()
            .args(["mcp-config", client, "--data-dir"])
            .arg(&data)
            .output()
            .expect("mcp-config");
        assert!(out.status.success(), "{client}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&key_file),
            "{client} names the key file: {text}"
        );
        assert!(
            !text.contains(&key),
            "{client} must not print the key: {text}"
        );
        assert!(
            text.contains("mcp --stdio") || text.contains("\"--stdio\""),
            "{client}: {text}"
        );
        if client != "claude-code" {
            // The JSON after the comment lines is what gets pasted.
            let json: String = text.lines().filter(|l| !l.starts_with("//")).collect();
            let v: Value = serde_json::from_str(&json).expect("the snippet is JSON");
            assert_eq!(v["mcpServers"]["nsp"]["args"][0], "mcp", "{v}");
            assert_eq!(
                v["mcpServers"]["nsp"]["args"][3],
                data.display().to_string()
            );
        }
    }
}

#[test]
fn the_stdio_bridge_says_when_no_nspd_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = nspd()
        .args(["mcp", "--stdio", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("mcp --stdio");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mcp.url") && err.contains("nspd run"), "{err}");
}

#[test]
fn agents_are_added_listed_shown_and_revoked_without_printing_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let run = |args: &[&str]| {
        nspd()
            .args(args)
            .arg("--data-dir")
            .arg(&data)
            .output()
            .expect("nspd")
    };
    let out = run(&[
        "agents",
        "add",
        "research",
        "--origins",
        "https://*.example.com",
        "http://127.0.0.1:8080",
        "--max-tier",
        "read",
        "--tabs",
        "own",
        "--ask",
        "never",
        "--actions-per-minute",
        "30",
    ]);
    assert!(out.status.success(), "{out:?}");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert_eq!(
        std::path::Path::new(&path),
        data.join("agents").join("research.key")
    );
    let key = std::fs::read_to_string(&path).expect("key file");
    assert_eq!(key.trim().len(), 64);
    let list = run(&["agents", "list"]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(
        text.contains("research")
            && text.contains("origins=https://*.example.com,http://127.0.0.1:8080")
            && text.contains("max-tier=read tabs=own ask=never actions-per-minute=30"),
        "{text}"
    );
    let show = run(&["agents", "show", "research"]);
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains(&path), "{shown}");
    let stored = std::fs::read_to_string(data.join("agents.json")).expect("agents.json");
    for text in [&text.to_string(), &shown.to_string(), &stored] {
        assert!(
            !text.contains(key.trim()),
            "a key must never be printed or stored: {text}"
        );
    }
    // mcp-config for the agent names its key file.
    let snippet = run(&["mcp-config", "cursor", "--agent", "research"]);
    let snippet = String::from_utf8_lossy(&snippet.stdout);
    assert!(
        snippet.contains(&path) && snippet.contains("--key-file"),
        "{snippet}"
    );
    assert!(!snippet.contains(key.trim()));
    let unknown = run(&["mcp-config", "cursor", "--agent", "nobody"]);
    assert!(!unknown.status.success());
    // Bad input says what to do.
    let bad = run(&["agents", "add", "x", "--origins", "example.com"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("scheme://host"),
        "{bad:?}"
    );
    let again = run(&["agents", "add", "research"]);
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("revoke"),
        "{again:?}"
    );
    assert!(run(&["agents", "revoke", "research"]).status.success());
    assert!(!std::path::Path::new(&path).exists());
    assert!(!run(&["agents", "revoke", "research"]).status.success());
    assert!(!run(&["agents", "revoke", "default"]).status.success());
}
