//! nspd's MCP server, end to end: the official MCP Python SDK (`mcp`, pinned) drives a
//! real headless Chromium with the extension and the demo app through nspd, over
//! Streamable HTTP and over `nspd mcp --stdio`. Ground truth is the demo backend. And the
//! MCP door refuses what the API refuses: no key, a wrong key, a web Origin, a foreign
//! Host.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_tests::{fresh_data_dir, mcp_python, nspd_bin, open_tab, workspace_root, Nspd};
use serde_json::Value;

/// Runs tests/mcp/client.py with `args`; returns the JSON line it printed.
async fn client(args: &[String]) -> Value {
    let mut cmd = tokio::process::Command::new(mcp_python().expect("the MCP SDK venv"));
    cmd.arg(workspace_root().join("tests/mcp/client.py"))
        .args(args)
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(180), cmd.output())
        .await
        .expect("the MCP client finishes within 180 s")
        .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the MCP client failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout.lines().last().unwrap_or("");
    eprintln!("MCP client {} {}: {line}", args[0], args[5]);
    serde_json::from_str(line).unwrap_or_else(|e| panic!("no JSON from the client ({e}): {stdout}"))
}

/// What both transports must show.
fn check_scenario(out: &Value, email_id: &str) {
    let tools: Vec<&str> = out["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        tools,
        [
            "close_tab",
            "execute",
            "get_state",
            "lease_tab",
            "list_tabs",
            "open_tab",
            "verify"
        ],
        "{out}"
    );
    for read in ["list_tabs", "get_state", "verify"] {
        assert_eq!(out["hints"][read]["read_only"], true, "{read}: {out}");
        assert_eq!(out["hints"][read]["destructive"], false, "{read}: {out}");
    }
    assert_eq!(out["hints"]["execute"]["read_only"], false, "{out}");
    assert_eq!(out["hints"]["execute"]["destructive"], true, "{out}");
    assert_eq!(out["opened_settled"], true, "{out}");

    // The slice: at most 3 keys, all under the prefix, the rest cut off; only the
    // irreversible actions.
    let keys = out["slice_keys"].as_array().expect("slice keys");
    assert!(!keys.is_empty() && keys.len() <= 3, "{out}");
    assert!(
        keys.iter()
            .all(|k| k.as_str().is_some_and(|k| k.starts_with("inbox.emails["))),
        "{out}"
    );
    assert_eq!(out["slice_truncated"], true, "{out}");
    assert_eq!(
        out["slice_action_tiers"],
        serde_json::json!(["irreversible_write"]),
        "{out}"
    );
    assert_eq!(out["resource_pid"], out["pid"], "{out}");

    // The compact form (get_state's default): the same slice, no selectors, and the
    // archive and send below decided from it alone.
    assert_eq!(out["model_slice_keys"], out["slice_keys"], "{out}");
    assert_eq!(out["model_slice_truncated"], true, "{out}");
    assert_eq!(
        out["model_slice_action_tiers"],
        serde_json::json!(["irreversible"]),
        "{out}"
    );
    // The header: where the tab is and which capture the actions below belong to.
    for key in ["capture", "title", "url"] {
        assert!(
            out["model_header"]
                .as_array()
                .is_some_and(|h| h.contains(&key.into())),
            "{out}"
        );
    }
    assert_eq!(out["model_has_no_selectors"], true, "{out}");
    assert_eq!(out["archive_choices_include"], true, "{out}");
    assert_eq!(out["archive_tier"], "write", "{out}");
    assert_eq!(out["send_action"], "send_email", "{out}");

    assert_eq!(out["archived"], true, "archive {email_id}: {out}");
    assert_eq!(
        out["update_uri"],
        format!("nsp://tab/{}/state", out["pid"]),
        "{out}"
    );

    // The refusal: a tool error that says what to do next, and nothing sent.
    assert_eq!(out["refused_is_error"], true, "{out}");
    assert_eq!(out["refused_code"], "missing_verify_expression", "{out}");
    let text = out["refused_text"].as_str().unwrap_or("");
    assert!(
        text.contains("Next:")
            && text.contains("verify_expression: ")
            && text.contains("outbox.sent_count"),
        "the refusal names the expression to send: {text}"
    );
    assert_eq!(out["sent_after_refusal"], 0, "{out}");
    assert_eq!(out["sent_verified"], true, "{out}");
    assert_eq!(out["sent_after_verified"], 1, "{out}");
    assert_eq!(out["verify_passed"], true, "{out}");
    assert_eq!(out["slow_is_error"], true, "{out}");
    assert!(
        out["slow_text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Ran, but failed (verification_failed)")),
        "{out}"
    );
    assert!(
        out["progress_updates"].as_u64().unwrap_or(0) >= 1,
        "a call that waits sends progress: {out}"
    );
    assert_eq!(out["closed"], out["pid"], "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_clients_drive_the_demo_through_the_gate_over_http_and_stdio() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let backend = demo.backend();
    // A first tab on another page, so the extension is connected before the client
    // asks it to open the demo.
    let (nspd, _) = open_tab(&demo.url("/pages/div-soup.html"), 0.0)
        .await
        .expect("the browser and its extension are up");
    assert!(nspd.mcp_url.ends_with("/mcp"), "{}", nspd.mcp_url);
    let demo_url = demo.url("/");

    // Both transports, each with the protocol the client picks (2026-07-28) and with
    // the initialize handshake: four clients, four archives, four sends.
    let bin = nspd_bin().expect("nspd").display().to_string();
    let data = nspd.data_dir.path().display().to_string();
    let runs = [
        ("http", nspd.mcp_url.clone(), nspd.key.clone(), "e1", "auto"),
        (
            "http",
            nspd.mcp_url.clone(),
            nspd.key.clone(),
            "e2",
            "legacy",
        ),
        ("stdio", bin.clone(), data.clone(), "e3", "auto"),
        ("stdio", bin, data, "e4", "legacy"),
    ];
    for (n, (transport, a, b, email, mode)) in runs.into_iter().enumerate() {
        let out = client(&[
            transport.into(),
            a,
            b,
            demo_url.clone(),
            email.into(),
            mode.into(),
        ])
        .await;
        check_scenario(&out, email);
        let expected = if mode == "auto" {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        assert_eq!(out["protocol"], expected, "{transport} {mode}: {out}");
        assert_eq!(
            backend.count(EventKind::Archive),
            n + 1,
            "{transport} {mode}: {:?}",
            backend.events()
        );
        assert_eq!(backend.count(EventKind::Send), n + 1, "one send per client");
        let apps = nspd.apps().await.expect("apps");
        assert!(
            apps.iter()
                .all(|a| a.pid != out["pid"].as_u64().unwrap_or(0)),
            "close_tab closed the tab"
        );
    }

    // The audit trail has every refusal, and nothing of them reached the page.
    let refusals = nspd
        .audit()
        .iter()
        .filter(|r| r["decision"] == "refused:missing_verify_expression")
        .count();
    assert_eq!(refusals, 4);
}

/// POSTs an MCP initialize to `url` with `headers`; returns the status.
async fn initialize(url: &str, headers: &[(&str, &str)]) -> u16 {
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
    let mut req = Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = tokio::time::timeout(
        Duration::from_secs(10),
        client.request(req.body(Full::new(Bytes::from(body))).expect("request")),
    )
    .await
    .expect("an answer within 10 s")
    .expect("nspd answers");
    let status = resp.status().as_u16();
    // Drain what arrives at once (an SSE answer stays open; the first event is enough).
    let _ = tokio::time::timeout(Duration::from_millis(200), resp.into_body().collect()).await;
    status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_door_wants_the_key_and_refuses_web_origins() {
    let nspd = Nspd::serve(0, fresh_data_dir().expect("tempdir")).expect("nspd");
    let url = nspd.mcp_url.clone();
    let bearer = format!("Bearer {}", nspd.key);
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .to_owned();

    assert_eq!(initialize(&url, &[]).await, 401, "no key");
    let wrong = format!("Bearer {}", "0".repeat(64));
    assert_eq!(
        initialize(&url, &[("authorization", &wrong)]).await,
        401,
        "wrong key"
    );
    assert_eq!(
        initialize(
            &url,
            &[
                ("authorization", &bearer),
                ("origin", "http://evil.example")
            ]
        )
        .await,
        403,
        "a web page's request"
    );
    let foreign_host = format!("evil.example:{port}");
    assert_eq!(
        initialize(&url, &[("authorization", &bearer), ("host", &foreign_host)]).await,
        403,
        "DNS rebinding"
    );
    assert_eq!(
        initialize(&url, &[("authorization", &bearer)]).await,
        200,
        "with the key"
    );
    assert_eq!(
        initialize(&url, &[("x-substrate-key", &nspd.key)]).await,
        200,
        "the API's own key header works too"
    );
    // The API's port does not serve MCP, and the MCP port serves nothing else.
    let api_mcp = format!("{}/mcp", nspd.base);
    assert_eq!(
        initialize(&api_mcp, &[("authorization", &bearer)]).await,
        404
    );
    let other = url.replace("/mcp", "/substrate/v1/apps");
    assert_eq!(initialize(&other, &[("authorization", &bearer)]).await, 404);
}
