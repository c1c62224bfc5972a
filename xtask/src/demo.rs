//! `cargo xtask demo`: builds the extension and the binaries, then runs the demo
//! (`nsp-demo` in the tests crate, which shares the end-to-end harness).

use std::path::Path;
use std::process::Command;

use anyhow::Result;
use clap::Args;

use crate::tools;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Show the browser window (default: headless unless a display is present).
    #[arg(long)]
    pub headed: bool,
    /// Leave the demo app, nspd and the browser running; prints the API base URL and
    /// where the key is, for your own agent.
    #[arg(long)]
    pub keep: bool,
}

pub fn run(root: &Path, args: &DemoArgs) -> Result<()> {
    let tools = tools::ensure_for_dist(root)?;
    let (browser, _) = tools::ensure_browser()?;
    let extension = crate::dist::run(root, &tools)?;
    crate::stage("building nspd and the demo");
    let cargo = tools::cargo();
    tools::run(Command::new(&cargo).current_dir(root).args([
        "build",
        "--package",
        "nsp-daemon",
        "--bin",
        "nspd",
        "--package",
        "nsp-tests",
        "--bin",
        "nsp-demo",
    ]))?;
    crate::stage("demo");
    let mut cmd = Command::new(root.join("target/debug/nsp-demo"));
    cmd.env("NSP_EXTENSION_DIR", &extension)
        .env("NSPD_BIN", root.join("target/debug/nspd"))
        .env("CHROME", &browser);
    if args.headed {
        cmd.arg("--headed");
    }
    if args.keep {
        cmd.arg("--keep");
    }
    tools::run(&mut cmd)
}
