//! The demo behind `cargo xtask demo`: the bundled mail app, nspd with a browser on it,
//! and a transcript of what an agent sees and does. `--keep` leaves it all running.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Parser;
use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::{ProbeStatus, SubstrateState};
use nsp_tests::{Nspd, NspdOptions};
use serde_json::json;

#[derive(Debug, Parser)]
#[command(name = "nsp-demo")]
struct Args {
    /// Show the browser window (default: headless unless a display is present).
    #[arg(long)]
    headed: bool,
    /// Leave the demo app, nspd and the browser running until Ctrl-C.
    #[arg(long)]
    keep: bool,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let headless = !(args.headed || display);

    let demo = DemoServer::start(DemoOptions::default())
        .await
        .context("starting the demo app")?;
    let url = demo.url("/");
    println!("demo app   {url}   (its backend records every send, archive and delete)");
    let nspd = Nspd::launch(&NspdOptions {
        url: url.clone(),
        headless,
    })?;
    println!("nspd       {}/substrate/v1", nspd.base);
    println!(
        "browser    Chromium{} with the NSP extension",
        if headless { " (headless)" } else { "" }
    );

    let started = Instant::now();
    let app = nspd
        .wait_for_app(Duration::from_secs(60), |a| {
            a.probe_status == ProbeStatus::Active
                && a.current_url
                    .as_deref()
                    .is_some_and(|u| u.starts_with(&url))
        })
        .await?;
    let (status, body) = nspd
        .get(&format!("/substrate/v1/state/{}", app.pid))
        .await?;
    if status != 200 {
        bail!("GET /state answered {status}: {body}");
    }
    let state: SubstrateState = serde_json::from_value(body)?;
    println!();
    println!(
        "tab        pid {} · app_id {} · {:?} · probe {} ({}) · confidence {:.2} · ready in {} ms",
        state.pid,
        state.app_id,
        state.app_name,
        app.probe_status.as_str(),
        state
            .probe_metadata
            .probe_tier
            .map(|t| serde_json::to_value(t)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default())
            .unwrap_or_default(),
        state.confidence,
        started.elapsed().as_millis()
    );
    println!("url        {}", state.context.url.as_deref().unwrap_or("?"));
    println!();
    println!("actions ({})", state.actions.len());
    for (name, action) in &state.actions {
        let sig = action
            .signature
            .strip_prefix("fn")
            .unwrap_or(&action.signature);
        println!(
            "  {:<19} {:.2}  {name}{sig}",
            action.reversibility.as_str(),
            action.confidence
        );
    }
    println!();
    println!("objects ({})", state.objects.len());
    for (key, value) in state.objects.iter().take(12) {
        println!("  {key} = {value}");
    }

    let selector = "#app-title";
    println!();
    println!("agent      read_text(selector: {selector:?})");
    let (status, resp) = nspd
        .post(
            "/substrate/v1/action",
            &json!({"pid": state.pid, "action": "read_text", "parameters": {"selector": selector}}),
        )
        .await?;
    if status != 200 {
        bail!("read_text answered {status}: {resp}");
    }
    println!(
        "nspd       200 in {} ms → {}",
        resp["total_latency_ms"], resp["raw_return"]
    );

    // An irreversible action: refused without proof, then run with it and verified.
    let params = json!({"to": "bob@example.com", "subject": "Hello from an agent", "body": "Sent through NSP, verified."});
    if state.actions.contains_key("send_email") {
        println!();
        println!("agent      send_email(to: \"bob@example.com\", …) without a verify_expression");
        let (status, refused) = nspd
            .post(
                "/substrate/v1/action",
                &json!({"pid": state.pid, "action": "send_email", "parameters": params}),
            )
            .await?;
        println!(
            "nspd       {status} {}: {}",
            refused["code"].as_str().unwrap_or("?"),
            refused["message"].as_str().unwrap_or("")
        );
        let expression = refused["suggested_expression"]
            .as_str()
            .unwrap_or("prev.outbox.sent_count != outbox.sent_count")
            .to_owned();
        println!();
        println!("agent      send_email(…) with verify_expression {expression:?}");
        let (status, sent) = nspd
            .post(
                "/substrate/v1/action",
                &json!({"pid": state.pid, "action": "send_email", "parameters": params, "verify_expression": expression}),
            )
            .await?;
        if status != 200 {
            bail!("send_email answered {status}: {sent}");
        }
        println!(
            "nspd       200 in {} ms · verified after {} capture(s): {}",
            sent["total_latency_ms"],
            sent["verification"]["poll_cycles"],
            sent["verification"]["explanation"].as_str().unwrap_or("")
        );
    }
    let backend = demo.backend();
    println!();
    println!(
        "backend    {} email(s) sent, {} write(s) recorded in all (ground truth from the app, not the probe)",
        backend.sent().len(),
        backend.events().len()
    );

    if args.keep {
        println!();
        println!("Everything stays up until Ctrl-C.");
        println!("  API base: {}/substrate/v1", nspd.base);
        println!(
            "  key file: {} (send it as X-Substrate-Key)",
            nspd.data_dir.path().join("agent.key").display()
        );
        println!("  demo app: {url}");
        tokio::signal::ctrl_c().await?;
    }
    drop(nspd);
    demo.shutdown().await;
    Ok(())
}
