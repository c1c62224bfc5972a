//! The `nspd` command line: `run`, `token`.

use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use nsp_daemon::auth::AgentKey;
use nsp_daemon::config::{default_data_dir, Settings};
use nsp_daemon::launch::{Browser, LaunchOptions};
use nsp_daemon::server::Server;

#[derive(Debug, Parser)]
#[command(
    name = "nspd",
    version,
    about = "The NSP daemon: lets local AI agents act safely on browser tabs."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the agent API and the extension channel.
    Run(RunArgs),
    /// Print the agent key (creating it on first use).
    Token {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Open URL in a Chromium with the extension, wait for the settled state, print it
    /// as JSON (with --explain: why each action got its tier and confidence).
    Inspect(InspectArgs),
    /// Evaluate a verify expression offline against a saved state (what GET /state
    /// returns). Prints the VerificationOutcome as JSON; exit 0 passed, 1 false, 2 invalid.
    VerifyExpr {
        /// The state after the action.
        #[arg(long, value_name = "STATE.json")]
        state: PathBuf,
        /// The state before the action, for prev.* and changed().
        #[arg(long, value_name = "PREV.json")]
        prev: Option<PathBuf>,
        /// The expression, e.g. 'prev.outbox.sent_count != outbox.sent_count'.
        expression: String,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Address to listen on; loopback only [default: 127.0.0.1, or [server] host].
    #[arg(long)]
    host: Option<IpAddr>,
    /// Port to listen on; 0 picks a free one and the bound port is printed [default: 7842, or [server] port].
    #[arg(long)]
    port: Option<u16>,
    /// Configuration file [default: <data dir>/nspd.toml]; NSP_<SECTION>__<KEY> variables override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Where the agent key (and later the audit log) live.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The unpacked extension to load with --launch (default: the one `cargo xtask dist` built).
    #[arg(long, value_name = "DIR")]
    extension: Option<PathBuf>,
    /// Start Chromium with a fresh temporary profile and the extension.
    #[arg(long)]
    launch: bool,
    /// With --launch: run the browser headless.
    #[arg(long)]
    headless: bool,
    /// With --launch: the browser to start (else $CHROME, else chromium/chromium-browser/google-chrome on PATH).
    #[arg(long, value_name = "PATH")]
    browser: Option<PathBuf>,
    /// With --launch: the page to open.
    url: Option<String>,
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// Print {"state": ..., "explain": {action: {elements, signals, tier_reason, confidence_reason}}}.
    #[arg(long)]
    explain: bool,
    /// Run the browser headless.
    #[arg(long)]
    headless: bool,
    /// The unpacked extension (default: the one `cargo xtask dist` built).
    #[arg(long, value_name = "DIR")]
    extension: Option<PathBuf>,
    /// The browser (else $CHROME, else chromium/chromium-browser/google-chrome on PATH).
    #[arg(long, value_name = "PATH")]
    browser: Option<PathBuf>,
    /// How long to wait for the page to settle, in seconds.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// The page to inspect.
    url: String,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("NSP_LOG")
                .unwrap_or_else(|_| "nsp_daemon=info,nspd=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args),
        Command::Inspect(args) => inspect(args),
        Command::Token { data_dir } => token(data_dir),
        Command::VerifyExpr {
            state,
            prev,
            expression,
        } => return verify_expr(&state, prev.as_deref(), &expression),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nspd: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn read_state(path: &Path) -> anyhow::Result<nsp_protocol::SubstrateState> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a SubstrateState (save the body of GET /substrate/v1/state/{{pid}})",
            path.display()
        )
    })
}

fn verify_expr(state: &Path, prev: Option<&Path>, expression: &str) -> ExitCode {
    let loaded = read_state(state).and_then(|s| Ok((s, prev.map(read_state).transpose()?)));
    let (current, prev) = match loaded {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("nspd: {e:#}");
            return ExitCode::from(2);
        }
    };
    let started = std::time::Instant::now();
    let expr = match nsp_verify::parse(expression) {
        Ok(expr) => expr,
        Err(e) => {
            eprintln!("nspd: {}: {e}", e.code());
            return ExitCode::from(2);
        }
    };
    let evaluation = nsp_verify::evaluate(&expr, &current, prev.as_ref());
    let outcome = nsp_protocol::api::VerificationOutcome {
        passed: evaluation.passed,
        expression: expression.to_owned(),
        computed_value: evaluation.value,
        explanation: evaluation.explanation,
        latency_ms: started.elapsed().as_millis() as u64,
        poll_cycles: 1,
        changed_fields: prev
            .as_ref()
            .map(|p| nsp_verify::changed_fields(p, &current))
            .unwrap_or_default(),
    };
    match serde_json::to_string_pretty(&outcome) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("nspd: {e}");
            return ExitCode::from(2);
        }
    }
    if outcome.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn token(data_dir: Option<PathBuf>) -> anyhow::Result<()> {
    let dir = data_dir.unwrap_or_else(default_data_dir);
    let key = AgentKey::load_or_create(&dir)?;
    println!("{}", key.reveal());
    Ok(())
}

fn inspect(args: InspectArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(inspect_page(args))
}

async fn inspect_page(args: InspectArgs) -> anyhow::Result<()> {
    let scratch = tempfile::Builder::new().prefix("nspd-inspect-").tempdir()?;
    let mut settings = Settings::new(scratch.path().join("data"));
    settings.port = 0;
    let server = Server::bind(settings).await?;
    let addr = server.local_addr();
    let hub = server.hub();
    let extension_dir = match args.extension {
        Some(dir) => dir,
        None => default_extension_dir()?,
    };
    let mut browser = Browser::launch(&LaunchOptions {
        browser: args.browser,
        extension_dir,
        headless: args.headless,
        daemon_ws_url: format!(
            "ws://127.0.0.1:{}{}",
            addr.port(),
            nsp_protocol::EXTENSION_CHANNEL_PATH
        ),
        url: Some(args.url.clone()),
    })?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    let result = wait_settled(
        &hub,
        &args.url,
        std::time::Duration::from_secs(args.timeout),
    )
    .await;
    let _ = stop.send(());
    let _ = serving.await;
    browser.close();
    let (pid, state) = result?;
    let output = if args.explain {
        serde_json::json!({"state": state, "explain": hub.explain(pid).unwrap_or_default()})
    } else {
        serde_json::to_value(&state)?
    };
    println!("{}", serde_json::to_string_pretty(&output)?);
    Ok(())
}

/// Waits for the tab showing `url` to report a settled capture; after the timeout,
/// takes the newest capture there is (with a warning) or fails with the tab's status.
async fn wait_settled(
    hub: &nsp_daemon::tabs::Hub,
    url: &str,
    timeout: std::time::Duration,
) -> anyhow::Result<(u64, nsp_protocol::SubstrateState)> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut events = hub.subscribe();
    loop {
        let apps = hub.list();
        let mut newest = None;
        for app in &apps {
            if let Ok(state) = hub.state(app.pid) {
                if state.probe_metadata.settled {
                    return Ok((app.pid, state));
                }
                newest = Some((app.pid, state));
            }
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            if let Some(found) = newest {
                eprintln!(
                    "nspd: the page did not settle within {timeout:?}; printing its newest capture"
                );
                return Ok(found);
            }
            let why = apps
                .iter()
                .map(|a| {
                    format!(
                        "{} ({}{})",
                        a.current_url.as_deref().unwrap_or("?"),
                        a.probe_status.as_str(),
                        a.probe_message
                            .as_deref()
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            anyhow::bail!(
                "no capture of {url} within {timeout:?}; tabs: {}",
                if why.is_empty() {
                    "none (did the extension connect?)".into()
                } else {
                    why
                }
            );
        }
        let _ = tokio::time::timeout(left, events.recv()).await;
    }
}

fn run(args: RunArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: RunArgs) -> anyhow::Result<()> {
    if !args.launch && (args.headless || args.browser.is_some() || args.url.is_some()) {
        anyhow::bail!("--headless, --browser and URL only make sense with --launch");
    }
    let data_dir = args.data_dir.unwrap_or_else(default_data_dir);
    let (config_path, explicit) = match args.config {
        Some(path) => (path, true),
        None => (data_dir.join("nspd.toml"), false),
    };
    let env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    let file = nsp_daemon::config::load(&config_path, explicit, env)?;
    let mut settings = Settings::from_config(file, data_dir);
    if let Some(host) = args.host {
        settings.host = host;
    }
    if let Some(port) = args.port {
        settings.port = port;
    }
    let extension_dir = match args.extension {
        Some(dir) => Some(dir),
        None if args.launch => Some(default_extension_dir()?),
        None => None,
    };

    let server = Server::bind(settings).await?;
    let addr = server.local_addr();
    let host = match addr.ip() {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let base = format!("http://{host}:{}", addr.port());
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "nspd listening on {base}")?;
        writeln!(
            out,
            "agent API: {base}/substrate/v1 (key in {})",
            server.key().path().display()
        )?;
        out.flush()?;
    }

    let mut browser = match extension_dir {
        Some(extension_dir) if args.launch => {
            let opts = LaunchOptions {
                browser: args.browser,
                extension_dir,
                headless: args.headless,
                daemon_ws_url: format!(
                    "ws://{host}:{}{}",
                    addr.port(),
                    nsp_protocol::EXTENSION_CHANNEL_PATH
                ),
                url: args.url,
            };
            let browser = Browser::launch(&opts)?;
            println!(
                "browser: {} (pid {})",
                browser.path.display(),
                browser.pid()
            );
            Some(browser)
        }
        _ => None,
    };

    server.run(shutdown_signal()).await;
    if let Some(browser) = browser.as_mut() {
        browser.close();
    }
    tracing::info!("nspd stopped");
    Ok(())
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops nspd");
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    tracing::info!("shutting down");
}

/// `target/dist/extension` next to the binary's target dir, else under the current dir.
fn default_extension_dir() -> anyhow::Result<PathBuf> {
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        // target/<profile>/nspd → target/dist/extension
        if let Some(target) = exe.parent().and_then(Path::parent) {
            candidates.push(target.join("dist/extension"));
        }
    }
    candidates.push(PathBuf::from("target/dist/extension"));
    candidates
        .iter()
        .find(|c| c.join("manifest.json").is_file())
        .cloned()
        .with_context(|| {
            format!(
                "no built extension found (looked in {}); run `cargo xtask dist` or pass --extension DIR",
                candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
            )
        })
}
