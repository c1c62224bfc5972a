//! The nspd command line as a user runs it: `verify-expr` against saved states,
//! `token`, and a bad configuration refused with the key named.

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
    assert_eq!(out.status.code(), Some(2));
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
