//! `cargo xtask`: everything beyond `cargo build`. `dist` builds the loadable extension,
//! `test` installs what is missing and runs every check, `demo` shows the product on the
//! bundled demo app.

mod bench;
mod bench_loop;
mod bench_probe;
mod bench_size;
mod bench_verify;
mod demo;
mod dist;
mod fuzz;
mod test;
mod tools;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "Project tasks for NSP for the browser")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Build the probe for wasm32 and assemble the extension in target/dist/extension (+ zip).
    Dist,
    /// Install what is missing, then fmt, clippy, native tests, browser tests, end-to-end tests.
    Test(test::TestArgs),
    /// Build, start the demo app and nspd with a browser on it, and show what an agent sees.
    Demo(demo::DemoArgs),
    /// Run the benchmarks against their anchors; writes target/bench/report.md.
    /// NSP_BENCH_ONLY=verify,probe,loop runs a subset.
    Bench,
    /// Type-check the extension's JavaScript (`tsc --checkJs`; builds the extension first).
    CheckJs,
    /// Install the real apps of the real-app corpus under target/real-apps (test does too).
    RealApps,
    /// Fuzz (cargo-fuzz, libFuzzer): the verify-expression parser and evaluator, the
    /// extension-channel decoder, the /action request decoder and the probe on pages a
    /// page could write, one after another.
    Fuzz {
        /// How long to run each target.
        #[arg(long, default_value_t = 600)]
        seconds: u64,
        /// Only this target (parse_eval, extension_message, action_request,
        /// probe_snapshot).
        target: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = project_root();
    let result = match cli.task {
        Task::Dist => tools::ensure_for_dist(&root).and_then(|t| dist::run(&root, &t).map(|_| ())),
        Task::Test(args) => test::run(&root, &args),
        Task::Demo(args) => demo::run(&root, &args),
        Task::Bench => bench::run(&root),
        Task::CheckJs => tools::ensure_for_dist(&root)
            .and_then(|t| dist::run(&root, &t))
            .and_then(|_| test::check_js(&root)),
        Task::RealApps => tools::ensure_real_apps(&root)
            .and_then(|_| tools::ensure_own_venv_apps(&root))
            .map(|_| ()),
        Task::Fuzz { seconds, target } => fuzz::run(&root, seconds, target.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nxtask failed: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask lives one level below it).
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Prints a stage header, so long runs show where they are.
fn stage(name: &str) {
    println!("\n==> {name}");
}
