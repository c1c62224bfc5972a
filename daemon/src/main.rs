//! The `nspd` command line: `run`, `token`, `agents`, `inspect`, `verify-expr`, `audit`,
//! `corrections`, `mcp`, `mcp-config`.

mod agents_cli;

use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use nsp_daemon::core::auth::AgentKey;
use nsp_daemon::core::config::{default_data_dir, Settings};
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
    /// Add, list, show or revoke agents: each has its own key and a scope (origins, max
    /// tier, tabs, when to ask the person, a rate). agent.key stays the default agent.
    Agents(agents_cli::AgentsArgs),
    /// Open URL in a Chromium with the extension, wait for the settled state, print it
    /// as JSON (with --explain: why each action got its tier and confidence). On failure
    /// it prints nothing on stdout, names the stage that failed (browser start,
    /// extension connect, settle) on stderr and exits 1.
    Inspect(InspectArgs),
    /// Evaluate a verify expression offline against a saved state (what GET /state
    /// returns). Prints the VerificationOutcome as JSON.
    #[command(after_help = VERIFY_EXPR_EXIT_CODES)]
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
    /// Print the audit log (<data dir>/audit.jsonl), one line per record: time, decision,
    /// action, tab, then what the record holds (tier, result, verification, parameters).
    Audit(AuditArgs),
    /// List or remove the corrections in <data dir>/corrections.json. A running nspd
    /// notices a removal within a second and tells the extension, whose probes drop it.
    Corrections(CorrectionsArgs),
    /// Bridge MCP over stdio to a running nspd (for MCP clients that launch commands):
    /// JSON-RPC lines on stdin go to its MCP port with the agent key, answers and
    /// notifications come back on stdout.
    Mcp(McpArgs),
    /// Print the snippet that connects an MCP client to nspd. It names where the agent
    /// key is (the bridge reads it there); it never prints the key.
    McpConfig {
        /// The client.
        #[arg(value_enum)]
        client: McpClient,
        /// The data dir nspd runs with [default: $NSP_DATA_DIR, else $XDG_DATA_HOME/nspd, else ~/.local/share/nspd].
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Connect as this agent (`nspd agents add`): the snippet uses its key file.
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
    },
}

#[derive(Debug, Args)]
struct CorrectionsArgs {
    /// The data dir the corrections are in [default: $NSP_DATA_DIR, else $XDG_DATA_HOME/nspd, else ~/.local/share/nspd].
    #[arg(long, value_name = "DIR", global = true)]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: CorrectionsCommand,
}

#[derive(Debug, Subcommand)]
enum CorrectionsCommand {
    /// One line per correction: id, origin, action, what it sets, who and when (--json:
    /// the list as JSON).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove the correction with this id (from `list`).
    Remove { id: String },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum McpClient {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
}

#[derive(Debug, Args)]
struct McpArgs {
    /// Speak MCP on stdin/stdout (the only mode).
    #[arg(long)]
    stdio: bool,
    /// The data dir of the running nspd: its agent.key and mcp.url are read there [default: $NSP_DATA_DIR, else $XDG_DATA_HOME/nspd, else ~/.local/share/nspd].
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// nspd's MCP endpoint, instead of the one the running nspd wrote to <data dir>/mcp.url.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Connect with this agent's key file (`nspd agents add` printed it) instead of agent.key.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
}

const VERIFY_EXPR_EXIT_CODES: &str = "Exit codes:\n  0  the expression holds\n  1  the expression is false\n  2  the expression is invalid (the message gives the byte position)\n  3  a state file cannot be read or is not a state (the SDK's SubstrateState: pid, app_id, app_name, runtime, confidence and captured_at are required; everything else, probe_metadata included, may be missing)";

#[derive(Debug, Args)]
struct AuditArgs {
    /// The data dir the log is in [default: $NSP_DATA_DIR, else $XDG_DATA_HOME/nspd, else ~/.local/share/nspd].
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Only the last N records.
    #[arg(long, value_name = "N")]
    tail: Option<usize>,
    /// Keep printing records as they are appended, until Ctrl-C.
    #[arg(long, short = 'f')]
    follow: bool,
    /// Only the records of this agent (`default` for agent.key's).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Address to listen on; loopback only [default: 127.0.0.1, or [server] host].
    #[arg(long)]
    host: Option<IpAddr>,
    /// Port to listen on; 0 picks a free one and the bound port is printed [default: 7842, or [server] port].
    #[arg(long)]
    port: Option<u16>,
    /// Port of the MCP endpoint (/mcp); 0 picks a free one [default: [mcp] port, else the port above + 1, else a free one when that is 0].
    #[arg(long, value_name = "PORT")]
    mcp_port: Option<u16>,
    /// Configuration file [default: <data dir>/nspd.toml]; NSP_<SECTION>__<KEY> variables override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Where the agent key and the audit log (audit.jsonl) live [default: $NSP_DATA_DIR, else $XDG_DATA_HOME/nspd, else ~/.local/share/nspd].
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
    /// How long to wait for the page to settle once the extension is connected, in seconds.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// How long to wait for the extension to connect to nspd after the browser starts, in seconds.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    connect_timeout: u64,
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
        Command::Audit(args) => audit(args),
        Command::Agents(args) => agents_cli::run(args),
        Command::Corrections(args) => corrections(args),
        Command::Mcp(args) => mcp_stdio(args),
        Command::McpConfig {
            client,
            data_dir,
            agent,
        } => mcp_config(client, data_dir, agent),
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

/// A saved state as the SDK's `SubstrateState` model reads it: only the identity,
/// `confidence` and `captured_at` are required; `context`, `objects`, `actions` and
/// `probe_metadata` may be missing (or `{}`). Expressions read `objects`, `context`
/// and `confidence` only, so actions and metadata are not interpreted.
#[derive(Debug, serde::Deserialize)]
struct SavedState {
    pid: u64,
    app_id: String,
    app_name: String,
    runtime: String,
    confidence: f64,
    #[serde(default)]
    capture_id: String,
    #[serde(default)]
    schema_version: String,
    captured_at: String,
    #[serde(default)]
    context: nsp_protocol::Context,
    #[serde(default)]
    objects: std::collections::BTreeMap<String, serde_json::Value>,
}

fn read_state(path: &Path) -> anyhow::Result<nsp_protocol::SubstrateState> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let saved: SavedState = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a SubstrateState (save the body of GET /substrate/v1/state/{{pid}})",
            path.display()
        )
    })?;
    Ok(nsp_protocol::SubstrateState {
        pid: saved.pid,
        app_id: saved.app_id,
        app_name: saved.app_name,
        runtime: saved.runtime,
        confidence: saved.confidence,
        capture_id: saved.capture_id,
        schema_version: saved.schema_version,
        captured_at: saved.captured_at,
        context: saved.context,
        objects: saved.objects,
        actions: Default::default(),
        probe_metadata: Default::default(),
    })
}

/// `verify-expr` exit codes (see [`VERIFY_EXPR_EXIT_CODES`]).
const EXIT_FALSE: u8 = 1;
const EXIT_INVALID_EXPRESSION: u8 = 2;
const EXIT_BAD_STATE: u8 = 3;

fn verify_expr(state: &Path, prev: Option<&Path>, expression: &str) -> ExitCode {
    let loaded = read_state(state).and_then(|s| Ok((s, prev.map(read_state).transpose()?)));
    let (current, prev) = match loaded {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("nspd: {e:#}");
            return ExitCode::from(EXIT_BAD_STATE);
        }
    };
    let started = std::time::Instant::now();
    let expr = match nsp_verify::parse(expression) {
        Ok(expr) => expr,
        Err(e) => {
            eprintln!("nspd: {}: {e}", e.code());
            return ExitCode::from(EXIT_INVALID_EXPRESSION);
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
            return ExitCode::FAILURE;
        }
    }
    if outcome.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FALSE)
    }
}

/// How often `audit --follow` looks for new records.
const FOLLOW_POLL: std::time::Duration = std::time::Duration::from_millis(200);

fn audit(args: AuditArgs) -> anyhow::Result<()> {
    use std::io::{BufRead, Seek};
    let dir = args.data_dir.unwrap_or_else(default_data_dir);
    let path = dir.join(nsp_daemon::core::audit::AUDIT_FILE);
    let mut out = std::io::stdout().lock();
    // Without --follow a missing log is an error; with it, the log may appear later.
    let mut offset = 0u64;
    match std::fs::File::open(&path) {
        Ok(file) => {
            let mut reader = std::io::BufReader::new(file);
            let mut last: std::collections::VecDeque<String> = Default::default();
            let mut line = String::new();
            loop {
                line.clear();
                let n = reader
                    .read_line(&mut line)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                // A last line without its newline may still be being written: --follow
                // picks it up whole later.
                if n == 0 || !line.ends_with('\n') {
                    break;
                }
                offset += n as u64;
                if !of_agent(line.trim_end(), args.agent.as_deref()) {
                    continue;
                }
                last.push_back(nsp_daemon::core::audit::format_line(line.trim_end()));
                if args.tail.is_some_and(|t| last.len() > t) {
                    last.pop_front();
                }
            }
            for l in &last {
                writeln!(out, "{l}")?;
            }
            out.flush()?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && args.follow => {}
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read the audit log {}", path.display()))
        }
    }
    if !args.follow {
        return Ok(());
    }
    // Poll for growth until Ctrl-C (the default SIGINT action ends the process).
    let mut pending = String::new();
    loop {
        std::thread::sleep(FOLLOW_POLL);
        let Ok(mut file) = std::fs::File::open(&path) else {
            continue;
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len < offset {
            // Truncated or replaced: start over.
            offset = 0;
            pending.clear();
        }
        if len == offset {
            continue;
        }
        file.seek(std::io::SeekFrom::Start(offset))?;
        let mut chunk = String::new();
        let n = std::io::Read::read_to_string(&mut file, &mut chunk)
            .with_context(|| format!("cannot read {}", path.display()))?;
        offset += n as u64;
        pending.push_str(&chunk);
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            if !of_agent(line.trim_end(), args.agent.as_deref()) {
                continue;
            }
            writeln!(
                out,
                "{}",
                nsp_daemon::core::audit::format_line(line.trim_end())
            )?;
        }
        out.flush()?;
    }
}

/// Whether an audit line is `agent`'s (every line, without `--agent`).
fn of_agent(line: &str, agent: Option<&str>) -> bool {
    let Some(agent) = agent else { return true };
    serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("agent").and_then(|a| a.as_str()).map(|a| a == agent))
        .unwrap_or(false)
}

fn corrections(args: CorrectionsArgs) -> anyhow::Result<()> {
    use nsp_daemon::core::corrections::Corrections;
    let dir = args.data_dir.unwrap_or_else(default_data_dir);
    let store = Corrections::open(&dir)?;
    match args.command {
        CorrectionsCommand::List { json } => {
            let list = store.list();
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
                return Ok(());
            }
            if list.is_empty() {
                eprintln!("no corrections in {}", store.path().display());
            }
            for c in &list {
                let mut what = Vec::new();
                if let Some(t) = c.tier {
                    what.push(format!("tier={}", t.as_str()));
                }
                if c.trusted {
                    what.push("trusted".to_owned());
                }
                if let Some(m) = c.max_confidence {
                    what.push(format!("max_confidence={m}"));
                }
                let by = match (&c.by, &c.key_id) {
                    (nsp_protocol::approval::CorrectionSource::Person, _) => "person".to_owned(),
                    (_, Some(k)) => format!("agent:{k}"),
                    (_, None) => "agent".to_owned(),
                };
                writeln!(
                    out,
                    "{}  {}  {}  {}  by {by} at {}",
                    c.id,
                    c.origin,
                    c.action,
                    what.join(" "),
                    c.created_at
                )?;
            }
            Ok(())
        }
        CorrectionsCommand::Remove { id } => {
            if store.remove(&id)? {
                // Recorded like a removal in the popup: appended whole (O_APPEND, one
                // write), so it cannot tear a running nspd's lines.
                let mut rec = serde_json::Map::new();
                rec.insert("event".into(), "correction_removed".into());
                rec.insert("by".into(), "person (nspd corrections remove)".into());
                rec.insert("id".into(), id.clone().into());
                if let Err(e) =
                    nsp_daemon::core::audit::AuditLog::open(&dir).and_then(|a| a.record(rec, true))
                {
                    eprintln!("removed {id}, but the audit log could not record it: {e}");
                }
                println!("removed {id}");
                Ok(())
            } else {
                anyhow::bail!(
                    "no correction with id {id} in {}; `nspd corrections list` shows them",
                    store.path().display()
                )
            }
        }
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
        profiles_in: Some(scratch.path().to_owned()),
    })
    .context("browser start")?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    let connected = wait_connected(
        &hub,
        &mut browser,
        std::time::Duration::from_secs(args.connect_timeout),
    )
    .await;
    let result = match connected {
        Ok(()) => {
            wait_settled(
                &hub,
                &mut browser,
                &args.url,
                std::time::Duration::from_secs(args.timeout),
            )
            .await
        }
        Err(e) => Err(e),
    };
    let _ = stop.send(());
    let _ = serving.await;
    browser.close();
    let (pid, state) = result?;
    let output = if args.explain {
        serde_json::json!({"state": state, "explain": hub.explain(pid).unwrap_or_default()})
    } else {
        serde_json::to_value(&state)?
    };
    // Written and flushed here, with errors reported: a closed or full stdout must not
    // end in silence with a success status.
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string_pretty(&output)?)
        .and_then(|()| out.flush())
        .context("cannot write the state to stdout")?;
    Ok(())
}

/// How often `inspect` looks at the browser process while it waits.
const INSPECT_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Stage "browser start" / "extension connect": waits for the extension in the browser
/// to connect to this nspd; fails early if the browser exits first.
async fn wait_connected(
    hub: &nsp_daemon::core::hub::Hub,
    browser: &mut Browser,
    timeout: std::time::Duration,
) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if hub.connection_count() > 0 || hub.tab_count() > 0 {
            return Ok(());
        }
        if browser.has_exited() {
            anyhow::bail!(
                "browser start: {} exited before the extension connected (is it a Chromium that can run here?)",
                browser.path.display()
            );
        }
        if tokio::time::Instant::now() >= deadline {
            anyhow::bail!(
                "extension connect: the extension did not connect to nspd within {timeout:?} of the browser starting (is --extension a built NSP extension? `cargo xtask dist` builds one; a slow machine may need a larger --connect-timeout)"
            );
        }
        tokio::time::sleep(INSPECT_POLL).await;
    }
}

/// Stage "settle": waits for the tab showing `url` to report a settled capture; after
/// the timeout, takes the newest capture there is (with a warning) or fails with the
/// tab's status.
async fn wait_settled(
    hub: &nsp_daemon::core::hub::Hub,
    browser: &mut Browser,
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
        if left.is_zero() || browser.has_exited() {
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
            let waited = if left.is_zero() {
                format!("within {timeout:?}")
            } else {
                "before the browser exited".into()
            };
            anyhow::bail!(
                "settle: no capture of {url} {waited}; tabs: {} (an unreachable page or one the extension may not run on never gets a capture)",
                if why.is_empty() {
                    "none".into()
                } else {
                    why
                }
            );
        }
        let _ = tokio::time::timeout(left.min(INSPECT_POLL * 5), events.recv()).await;
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
    let file = nsp_daemon::core::config::load(&config_path, explicit, env)?;
    // Nobody sits in front of a headless browser: unless nspd.toml says otherwise, a
    // request under a confidence floor is refused rather than held for a person.
    let ask_unset = file.gate.ask_person.is_none();
    // The profiles of the browsers `--launch` starts: removed when nspd stops, and the
    // ones an nspd killed before it could left are removed at the next launch.
    let browser_profiles = data_dir.join("browsers");
    let mut settings = Settings::from_config(file, data_dir);
    if ask_unset && args.headless {
        settings.ask_person = nsp_daemon::core::config::AskPerson::Never;
    }
    if let Some(host) = args.host {
        settings.host = host;
    }
    if let Some(port) = args.port {
        settings.port = port;
    }
    if let Some(port) = args.mcp_port {
        settings.mcp_enabled = true;
        settings.mcp_port = Some(port);
    }
    let url_file = settings.data_dir.join(nsp_daemon::door::mcp::URL_FILE);
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
    let mcp_url = server.mcp_addr().map(|a| {
        format!(
            "http://{host}:{}{}",
            a.port(),
            nsp_daemon::door::mcp::MCP_PATH
        )
    });
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "nspd listening on {base}")?;
        writeln!(
            out,
            "agent API: {base}/substrate/v1 (key in {})",
            server.key().path().display()
        )?;
        if let Some(url) = &mcp_url {
            writeln!(out, "MCP: {url} (Streamable HTTP, same key)")?;
            // For `nspd mcp --stdio`, which finds a running nspd through its data dir.
            std::fs::write(&url_file, format!("{url}\n"))
                .with_context(|| format!("cannot write {}", url_file.display()))?;
        }
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
                profiles_in: Some(browser_profiles),
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
    // Only our own line: another nspd on the same data dir may have replaced it.
    if mcp_url
        .as_deref()
        .is_some_and(|url| std::fs::read_to_string(&url_file).is_ok_and(|text| text.trim() == url))
    {
        let _ = std::fs::remove_file(&url_file);
    }
    tracing::info!("nspd stopped");
    Ok(())
}

fn mcp_stdio(args: McpArgs) -> anyhow::Result<()> {
    if !args.stdio {
        anyhow::bail!("`nspd mcp` speaks MCP on stdin/stdout only: run `nspd mcp --stdio`");
    }
    let dir = args.data_dir.unwrap_or_else(default_data_dir);
    let url = match args.url {
        Some(url) => url,
        None => {
            let file = dir.join(nsp_daemon::door::mcp::URL_FILE);
            std::fs::read_to_string(&file)
                .with_context(|| {
                    format!(
                        "no running nspd found: {} is missing (`nspd run` writes it when it starts, with the same --data-dir); or pass --url",
                        file.display()
                    )
                })?
                .trim()
                .to_owned()
        }
    };
    let key_file = args
        .key_file
        .clone()
        .unwrap_or_else(|| dir.join(nsp_daemon::core::auth::KEY_FILE));
    if !key_file.is_file() {
        anyhow::bail!(
            "no agent key at {}: start nspd with this data dir first (or `nspd agents add` for an agent's key)",
            key_file.display()
        );
    }
    let key = AgentKey::load_or_create_at(key_file)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let target = nsp_daemon::door::mcp::stdio::Target {
        url,
        key: key.reveal().to_owned(),
    };
    runtime.block_on(nsp_daemon::door::mcp::stdio::run(
        target,
        tokio::io::stdin(),
        tokio::io::stdout(),
    ))
}

fn mcp_config(
    client: McpClient,
    data_dir: Option<PathBuf>,
    agent: Option<String>,
) -> anyhow::Result<()> {
    let dir = data_dir.unwrap_or_else(default_data_dir);
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let exe = std::env::current_exe().context("cannot find nspd's own path")?;
    let agent_key = match agent.as_deref() {
        None | Some("default") => None,
        Some(name) => {
            let path = dir
                .join(nsp_daemon::core::agents::KEYS_DIR)
                .join(format!("{name}.key"));
            if !path.is_file() {
                anyhow::bail!(
                    "there is no agent {name:?} in {} (no {}); `nspd agents add {name}` makes it",
                    dir.display(),
                    path.display()
                );
            }
            Some((name, path))
        }
    };
    print!("{}", mcp_snippet(client, &exe, &dir, agent_key));
    Ok(())
}

/// The snippet for `client`: it runs the stdio bridge, which reads the key from the
/// data dir (or the agent's key file), so the key itself is in no client's
/// configuration.
fn mcp_snippet(
    client: McpClient,
    exe: &Path,
    dir: &Path,
    agent: Option<(&str, PathBuf)>,
) -> String {
    let mut args = ["mcp", "--stdio", "--data-dir", &dir.display().to_string()]
        .map(String::from)
        .to_vec();
    let (server_name, key_file) = match agent {
        Some((name, path)) => {
            args.extend(["--key-file".to_owned(), path.display().to_string()]);
            (format!("nsp-{name}"), path)
        }
        None => ("nsp".to_owned(), dir.join(nsp_daemon::core::auth::KEY_FILE)),
    };
    let server = serde_json::json!({"command": exe.display().to_string(), "args": args});
    let json =
        serde_json::to_string_pretty(&serde_json::json!({"mcpServers": {&server_name: server}}))
            .unwrap_or_default();
    let note = format!(
        "nspd must be running (`nspd run`). The bridge reads the agent key from {} (never copy the key into a config).",
        key_file.display()
    );
    match client {
        McpClient::ClaudeCode => format!(
            "# Run in a shell. {note}\nclaude mcp add {server_name} -- {} {}\n",
            shell_quote(&exe.display().to_string()),
            args.iter()
                .map(|a| shell_quote(a))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        McpClient::ClaudeDesktop => format!(
            "// Merge into claude_desktop_config.json (Settings > Developer > Edit Config), then restart Claude Desktop.\n// {note}\n{json}\n"
        ),
        McpClient::Cursor => format!(
            "// Merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project).\n// {note}\n{json}\n"
        ),
    }
}

/// `s` as one POSIX shell word.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
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
