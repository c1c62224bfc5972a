//! `nspd inspect [--explain]`: a person's (and a test's) way to see what the probe
//! decided about a page and why.

use std::process::Command;

use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_tests::{extension_dir, nspd_bin};
use serde_json::Value;

fn inspect(url: &str, explain: bool) -> Value {
    let mut cmd = Command::new(nspd_bin().expect("nspd"));
    cmd.args(["inspect", "--headless", "--timeout", "60", "--extension"])
        .arg(extension_dir().expect("extension"));
    if explain {
        cmd.arg("--explain");
    }
    let out = cmd.arg(url).output().expect("run nspd inspect");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_prints_the_settled_state_and_explains_each_action() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/");
    let (plain, explained) =
        tokio::task::spawn_blocking(move || (inspect(&url, false), inspect(&url, true)))
            .await
            .expect("join");

    assert_eq!(plain["app_name"], "Demo Mail");
    assert_eq!(plain["probe_metadata"]["settled"], true);
    assert_eq!(
        plain["actions"]["send_email"]["reversibility"],
        "irreversible_write"
    );
    assert!(plain.get("explain").is_none());

    let state = &explained["state"];
    let explain = &explained["explain"];
    assert_eq!(
        state["actions"]["send_email"]["reversibility"],
        "irreversible_write"
    );
    for name in state["actions"].as_object().expect("actions").keys() {
        if state["actions"][name]["internal_target"]
            .as_str()
            .is_some_and(|t| t.starts_with("builtin:"))
        {
            continue;
        }
        let e = &explain[name];
        assert!(
            e["tier_reason"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: {e}"
        );
        assert!(
            e["confidence_reason"]
                .as_str()
                .is_some_and(|s| !s.is_empty()),
            "{name}: {e}"
        );
        let elements = e["elements"].as_array().expect("elements");
        assert!(!elements.is_empty(), "{name} is bound to no element");
        for el in elements {
            assert!(
                el["tag"].is_string() && el["selector"].as_str().is_some_and(|s| !s.is_empty()),
                "{el}"
            );
        }
    }
    assert!(
        demo.backend().events().is_empty(),
        "inspecting changes nothing"
    );
}

/// A page that never loads (nothing listens on its port) never gets a capture: inspect
/// says the settle stage timed out, on stderr, with a failure status and nothing on
/// stdout, instead of exiting in silence.
#[test]
fn inspect_says_which_stage_timed_out() {
    let port = nsp_tests::free_port().expect("a free port");
    let out = Command::new(nspd_bin().expect("nspd"))
        .args(["inspect", "--headless", "--timeout", "3", "--extension"])
        .arg(extension_dir().expect("extension"))
        .arg(format!("http://127.0.0.1:{port}/"))
        .output()
        .expect("run nspd inspect");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(err.contains("settle: no capture of"), "{err}");
}
