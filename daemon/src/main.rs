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
        Command::Token { data_dir } => token(data_dir),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nspd: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn token(data_dir: Option<PathBuf>) -> anyhow::Result<()> {
    let dir = data_dir.unwrap_or_else(default_data_dir);
    let key = AgentKey::load_or_create(&dir)?;
    println!("{}", key.reveal());
    Ok(())
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
