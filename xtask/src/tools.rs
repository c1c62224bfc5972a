//! Finding and installing what the tasks need: the wasm target, wasm-bindgen-cli and
//! wasm-pack at pinned versions, Chromium and chromedriver (apt, when root on Debian),
//! wasm-opt, the Python SDK venv, the real apps (a PyPI venv and an npm folder), and the
//! benchmark's load generators (wrk from apt, oha from crates.io).
//! Each install prints what it does; anything that cannot be installed is a clear error
//! naming it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// wasm-pack version we install and test with.
pub const WASM_PACK_VERSION: &str = "0.15.1";

/// Paths of the tools a task found or installed.
#[derive(Debug, Clone)]
pub struct Tools {
    pub wasm_bindgen: PathBuf,
    pub wasm_opt: Option<PathBuf>,
}

/// The wasm-bindgen version pinned in the root Cargo.toml (`wasm-bindgen = "=X"`).
pub fn pinned_wasm_bindgen(root: &Path) -> Result<String> {
    let manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).context("reading Cargo.toml")?;
    for line in manifest.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("wasm-bindgen = \"=") {
            if let Some(v) = rest.split('"').next() {
                return Ok(v.to_owned());
            }
        }
    }
    bail!("Cargo.toml does not pin wasm-bindgen with `wasm-bindgen = \"=X.Y.Z\"`")
}

pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// `$CARGO_HOME/bin`, where `cargo install` puts binaries.
pub fn cargo_bin_dir() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
        .join("bin")
}

/// PATH with `$CARGO_HOME/bin` first, for child processes (wasm-pack looks for
/// wasm-bindgen on PATH and must find ours instead of downloading one).
pub fn path_with_cargo_bin() -> std::ffi::OsString {
    let mut paths = vec![cargo_bin_dir()];
    if let Some(p) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(paths).unwrap_or_default()
}

pub fn which(name: &str) -> Option<PathBuf> {
    let path = path_with_cargo_bin();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn version_of(program: &Path) -> Option<String> {
    let out = Command::new(program)
        .arg("--version")
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().nth(1).map(str::to_owned)
}

/// Runs a command, streaming its output; fails with the command line when it fails.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .env("PATH", path_with_cargo_bin())
        .status()
        .with_context(|| format!("cannot start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn have_apt() -> bool {
    Path::new("/usr/bin/apt-get").exists()
}

fn ensure_wasm_target() -> Result<()> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
        .unwrap_or(false);
    if installed {
        println!("  wasm32-unknown-unknown target: present");
        return Ok(());
    }
    println!("  installing the wasm32-unknown-unknown target (rustup)…");
    run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
        .context("the wasm32-unknown-unknown target is missing and rustup could not add it")
}

fn ensure_cargo_tool(bin: &str, krate: &str, version: &str) -> Result<PathBuf> {
    if let Some(path) = which(bin) {
        if version_of(&path).as_deref() == Some(version) {
            println!("  {bin} {version}: present");
            return Ok(path);
        }
    }
    println!("  installing {krate} {version} with cargo install (a few minutes on 2 cores)…");
    // Not --locked: one of wasm-bindgen-cli's locked dependency versions is missing
    // from the registry (see shared/ENVIRONMENT.md).
    run(Command::new(cargo()).args(["install", krate, "--version", version, "--force"]))
        .with_context(|| format!("{krate} {version} is missing and `cargo install` failed"))?;
    which(bin).with_context(|| {
        format!(
            "{bin} was installed but is not in {}",
            cargo_bin_dir().display()
        )
    })
}

/// Installs Debian packages when root; otherwise says what to run.
fn ensure_apt(packages: &[&str], what: &str) -> Result<()> {
    if !have_apt() {
        bail!("{what} is missing and this is not a Debian-like system with apt-get; install {} yourself", packages.join(" "));
    }
    if !is_root() {
        bail!(
            "{what} is missing; install it with `sudo apt-get install {}`",
            packages.join(" ")
        );
    }
    println!("  installing {} with apt-get…", packages.join(" "));
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-qq"])
        .args(packages)
        .env("DEBIAN_FRONTEND", "noninteractive"))
    .with_context(|| format!("apt-get could not install {}", packages.join(" ")))
}

/// wrk, the HTTP load generator of the loop benchmark (Debian's package).
pub fn ensure_wrk() -> Result<PathBuf> {
    if let Some(path) = which("wrk") {
        println!("  wrk: {}", path.display());
        return Ok(path);
    }
    ensure_apt(&["wrk"], "wrk (the HTTP load generator)")?;
    which("wrk").context("wrk is still not on PATH after installing it")
}

/// oha's version for the paced (open-loop) phase of the loop benchmark.
pub const OHA_VERSION: &str = "1.16.0";

/// oha, the HTTP load generator that paces requests at a fixed rate with
/// coordinated-omission correction (wrk cannot), installed from crates.io under
/// `target/bench-tools` on first use (bench only). With native-tls (the system's
/// OpenSSL) instead of the default rustls, whose aws-lc-rs is a long C build; oha does
/// not compile without one of them, though the benchmark speaks plain HTTP.
pub fn ensure_oha(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/bench-tools");
    let bin = dir.join("bin/oha");
    if version_of(&bin).as_deref() == Some(OHA_VERSION) {
        println!("  oha {OHA_VERSION}: {}", bin.display());
        return Ok(bin);
    }
    let have_openssl = Command::new("pkg-config")
        .args(["--exists", "openssl"])
        .status()
        .is_ok_and(|s| s.success());
    if !have_openssl {
        ensure_apt(
            &["pkg-config", "libssl-dev"],
            "OpenSSL's headers (for building oha)",
        )?;
    }
    println!(
        "  installing oha {OHA_VERSION} with cargo install under {} (bench only, a few minutes on 2 cores)…",
        dir.display()
    );
    run(Command::new(cargo())
        .arg("install")
        .arg("oha")
        .args([
            "--locked",
            "--version",
            OHA_VERSION,
            "--no-default-features",
            "--features",
            "native-tls",
            "--force",
            "--root",
        ])
        .arg(&dir))
    .with_context(|| format!("oha {OHA_VERSION} is missing and `cargo install` failed"))?;
    if version_of(&bin).as_deref() != Some(OHA_VERSION) {
        bail!(
            "oha was installed but {} does not report {OHA_VERSION}",
            bin.display()
        );
    }
    Ok(bin)
}

/// Chromium and chromedriver.
pub fn ensure_browser() -> Result<(PathBuf, PathBuf)> {
    let browser = std::env::var_os("CHROME")
        .map(PathBuf::from)
        .or_else(|| which("chromium"));
    let driver = which("chromedriver");
    if let (Some(b), Some(d)) = (&browser, &driver) {
        println!("  chromium: {}  chromedriver: {}", b.display(), d.display());
        return Ok((b.clone(), d.clone()));
    }
    ensure_apt(
        &["chromium", "chromium-driver"],
        "Chromium (with chromedriver)",
    )?;
    let browser = which("chromium").context("chromium is still not on PATH after installing it")?;
    let driver =
        which("chromedriver").context("chromedriver is still not on PATH after installing it")?;
    Ok((browser, driver))
}

/// Oldest binaryen whose `wasm-opt` keeps wasm-bindgen's externref table intact.
/// Debian 12's version 108 rewrites it into a module that fails at instantiation
/// ("WebAssembly.Table.set(): Argument 1 is invalid"), so older ones are skipped.
const MIN_WASM_OPT: u32 = 116;

fn find_wasm_opt() -> Option<PathBuf> {
    let path = which("wasm-opt")?;
    let out = Command::new(&path).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version: u32 = text
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or(0);
    if version >= MIN_WASM_OPT {
        Some(path)
    } else {
        println!(
            "  wasm-opt {version} at {} is too old (need {MIN_WASM_OPT}+); skipping it",
            path.display()
        );
        None
    }
}

/// What `dist` needs.
pub fn ensure_for_dist(root: &Path) -> Result<Tools> {
    crate::stage("checking build tools");
    ensure_wasm_target()?;
    let version = pinned_wasm_bindgen(root)?;
    let wasm_bindgen = ensure_cargo_tool("wasm-bindgen", "wasm-bindgen-cli", &version)?;
    // Optional, and off on Debian 12 (its binaryen 108 breaks wasm-bindgen's output).
    // BENCHMARKS.md has the measurements: with every crate at opt-level z, binaryen 132
    // made the gzipped probe larger, not smaller.
    let wasm_opt = find_wasm_opt();
    match &wasm_opt {
        Some(p) => println!("  wasm-opt: {}", p.display()),
        None => println!("  wasm-opt: not used (optional; only binaryen {MIN_WASM_OPT}+ would be)"),
    }
    Ok(Tools {
        wasm_bindgen,
        wasm_opt,
    })
}

/// What `test` needs beyond `dist`.
pub fn ensure_wasm_pack() -> Result<PathBuf> {
    ensure_cargo_tool("wasm-pack", "wasm-pack", WASM_PACK_VERSION)
}

/// Version of the published NSP Python SDK the end-to-end tests drive.
pub const SDK_VERSION: &str = "0.1.3";

/// A venv under `target/` with the published SDK; returns its python.
pub fn ensure_sdk_venv(root: &Path) -> Result<PathBuf> {
    ensure_pinned_venv(root, "sdk-venv", "nelieo-nsp", SDK_VERSION, &[])
}

/// The official MCP Python SDK, pinned: the client of the MCP end-to-end tests
/// (tests/mcp/client.py).
pub const MCP_SDK_VERSION: &str = "2.3.0";

/// A venv in `target/mcp-venv` with `mcp==MCP_SDK_VERSION`; returns its python.
pub fn ensure_mcp_venv(root: &Path) -> Result<PathBuf> {
    ensure_pinned_venv(root, "mcp-venv", "mcp", MCP_SDK_VERSION, &[])
}

/// A venv in `target/<dir>` with exactly `package==version` from PyPI (made again when
/// the version differs); returns its python.
fn ensure_pinned_venv(
    root: &Path,
    dir: &str,
    package: &str,
    version: &str,
    also: &[&str],
) -> Result<PathBuf> {
    let venv = root.join("target").join(dir);
    let python = venv.join("bin/python");
    let installed = python.is_file()
        && Command::new(&python)
            .args([
                "-c",
                &format!("import importlib.metadata as m; print(m.version('{package}'))"),
            ])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == version)
            .unwrap_or(false);
    if installed {
        println!("  {package} {version}: present in {}", venv.display());
        return Ok(python);
    }
    let system_python = which("python3").context(
        "python3 is missing; install it (Debian: `apt-get install python3 python3-venv`)",
    )?;
    println!(
        "  creating a venv with {package}=={version} in {}…",
        venv.display()
    );
    run(Command::new(&system_python)
        .arg("-m")
        .arg("venv")
        .arg("--clear")
        .arg(&venv))
    .context("python3 cannot create a venv (Debian: `apt-get install python3-venv`)")?;
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(format!("{package}=={version}"))
        .args(also))
    .with_context(|| {
        format!(
            "pip could not install {package}=={version} {}",
            also.join(" ")
        )
    })?;
    Ok(python)
}

/// A real app from PyPI whose pins the other real apps' exclude, in a venv of its own.
pub struct OwnVenvApp {
    /// The venv, under `target/`.
    pub venv: &'static str,
    pub package: &'static str,
    pub version: &'static str,
    /// The variable `test` passes the venv's python to the native tests in.
    pub var: &'static str,
    /// Requirements pip installs with it (a bound its own leave open).
    pub also: &'static [&'static str],
}

/// The real apps with venvs of their own, pinned.
pub const OWN_VENV_APPS: &[OwnVenvApp] = &[
    // Calibre-Web pins Flask's and SQLAlchemy's extensions the other apps pin otherwise.
    OwnVenvApp {
        venv: "calibre-venv",
        package: "calibreweb",
        version: "0.6.27",
        var: "NSP_CALIBRE_PYTHON",
        also: &[],
    },
    // An Otter Wiki pins SQLAlchemy exactly, at a version the other apps exclude.
    OwnVenvApp {
        venv: "otterwiki-venv",
        package: "otterwiki",
        version: "2.26.1",
        var: "NSP_OTTERWIKI_PYTHON",
        also: &[],
    },
    // Lektor pins Flask 2 and mistune 0.8.
    OwnVenvApp {
        venv: "lektor-venv",
        package: "lektor",
        version: "3.3.14",
        var: "NSP_LEKTOR_PYTHON",
        also: &[],
    },
    // Isso pins mistune 3 and builds misaka (a C extension): in a venv of its own, the
    // shared venv's resolution stays what it was.
    OwnVenvApp {
        venv: "isso-venv",
        package: "isso",
        version: "0.14.0",
        var: "NSP_ISSO_PYTHON",
        also: &[],
    },
    // pyLoad pins its own Flask stack (and is a pre-release on PyPI).
    OwnVenvApp {
        venv: "pyload-venv",
        package: "pyload-ng",
        version: "0.5.0b3.dev101",
        var: "NSP_PYLOAD_PYTHON",
        also: &[],
    },
    // Archivy pins Flask 2.3 and leaves Flask-Compress open, whose releases since 1.17
    // need a newer Flask: held below that.
    OwnVenvApp {
        venv: "archivy-venv",
        package: "archivy",
        version: "1.7.7",
        var: "NSP_ARCHIVY_PYTHON",
        also: &["flask-compress<1.17"],
    },
    // Shiny brings its own Starlette and Uvicorn, which the shared venv's apps pin
    // otherwise.
    OwnVenvApp {
        venv: "shiny-venv",
        package: "shiny",
        version: "1.8.0",
        var: "NSP_SHINY_PYTHON",
        also: &[],
    },
    // Panel brings Bokeh, NumPy and pandas (its 1.10 needs Python 3.12; 1.9 is the last
    // for this machine's 3.11).
    OwnVenvApp {
        venv: "panel-venv",
        package: "panel",
        version: "1.9.4",
        var: "NSP_PANEL_PYTHON",
        also: &[],
    },
    // django-wiki pins Markdown, bleach and django-mptt: in a venv of its own, the shared
    // venv's resolution stays what it was.
    OwnVenvApp {
        venv: "djangowiki-venv",
        package: "wiki",
        version: "0.13.0",
        var: "NSP_DJANGOWIKI_PYTHON",
        also: &[],
    },
    // mitmproxy's web interface, mitmweb, pins its own cryptography and web stack (its
    // 12 needs Python 3.12; 11.0 is the last for this machine's 3.11).
    OwnVenvApp {
        venv: "mitmweb-venv",
        package: "mitmproxy",
        version: "11.0.2",
        var: "NSP_MITMWEB_PYTHON",
        also: &[],
    },
];

/// Makes (or finds) the venv of each of [`OWN_VENV_APPS`]; returns each app's variable
/// with its python, which `test` passes to the native tests.
pub fn ensure_own_venv_apps(root: &Path) -> Result<Vec<(&'static str, PathBuf)>> {
    OWN_VENV_APPS
        .iter()
        .map(|a| {
            Ok((
                a.var,
                ensure_pinned_venv(root, a.venv, a.package, a.version, a.also)?,
            ))
        })
        .collect()
}

/// The OpenAPI validator the daemon's contract test runs, from PyPI, pinned.
pub const OPENAPI_VALIDATOR: &str = "openapi-spec-validator==0.9.0";

/// A venv under `target/` with [`OPENAPI_VALIDATOR`]; returns its python, which
/// `test` passes to the native tests as `NSP_OPENAPI_PYTHON`.
pub fn ensure_openapi_venv(root: &Path) -> Result<PathBuf> {
    let (name, version) = OPENAPI_VALIDATOR
        .split_once("==")
        .context("the validator's pin")?;
    ensure_pinned_venv(root, "openapi-venv", name, version, &[])
}

/// The real apps of the real-app corpus and its end-to-end tests, from PyPI, pinned.
/// Django 5.2 is the newest line that runs on Python 3.10+ (6.x needs 3.12).
pub const REAL_APPS_PYPI: &[&str] = &[
    "django==5.2.19",
    "flask-admin==2.2.1",
    "flask-sqlalchemy==3.1.1",
    "datasette==0.65.5",
    "radicale==3.9.0",
    // Jupyter Notebook 7: its file browser and text editor (no kernels needed).
    "notebook==7.6.5",
    // Trac: a server-rendered issue tracker and wiki (sqlite); fixtures/real/trac.
    "trac==1.6",
    // I Hate Money: a shared-budget app (Flask, sqlite); fixtures/real/ihatemoney.
    // (An Otter Wiki pins SQLAlchemy 2.0.36, which I Hate Money's ~=2.0.45 excludes: it
    // has a venv of its own, `OWN_VENV_APPS`.)
    "ihatemoney==7.2.1",
    // Fava: Beancount's web interface (Flask, a Svelte front end; the ledger file is
    // its database); fixtures/real/fava.
    "fava==1.30.16",
    // Roundup: a server-rendered issue tracker that mails its nosy lists (sqlite; the
    // mail goes to a file); fixtures/real/roundup.
    "roundup==2.6.0",
    // sqlite-web: a Flask browser and editor for a SQLite file (fields enabled by a box,
    // confirmation pages for deletes and drops).
    "sqlite-web==0.8.2",
    // Gradio: the framework of most machine-learning demos (Svelte widgets, no <form>);
    // fixtures/real/gradio_app.py.
    "gradio==6.31.0",
    // NiceGUI: a Python UI framework on Vue and Quasar; fixtures/real/nicegui_app.py.
    "nicegui==3.18.0",
    // Streamlit: the framework of data apps (React Aria widgets, no <form>);
    // fixtures/real/streamlit_app.py.
    "streamlit==1.67.0",
    // Dash: Plotly's framework of data apps (React components); fixtures/real/dash_app.py.
    "dash==4.4.1",
    // Mantine's React components for Dash; fixtures/real/mantine_app.py.
    "dash-mantine-components==2.8.1",
];

/// The npm apps and the React TodoMVC's packages, pinned (esbuild's native binary
/// comes as an npm package of its own).
pub const REAL_APPS_NPM: &[&str] = &[
    "react@19.3.1",
    "react-dom@19.3.1",
    "esbuild@0.28.2",
    // TiddlyWiki 5's Node.js server.
    "tiddlywiki@5.4.0",
    // AG Grid Community, the data grid, as it is today (one row element per row) and as
    // version 31 draws pinned columns (every row twice); fixtures/real/aggrid.
    "ag-grid-community@36.2.0",
    "ag-grid-31@npm:ag-grid-community@31.3.4",
    // The kits most React apps draw their selects with; fixtures/real/react_selects.
    "@radix-ui/react-select@2.4.1",
    "@headlessui/react@2.2.10",
    // MailDev 3, a mail catcher's web client (React, Fastify) for the mail flow.
    "maildev@3.0.0",
];

/// Where the real apps are installed.
#[derive(Debug, Clone)]
pub struct RealApps {
    /// A venv's python with the PyPI apps.
    pub python: PathBuf,
    /// `node_modules` with react, react-dom and esbuild.
    pub node_modules: PathBuf,
}

/// Installs the real apps under `target/real-apps/` (a venv and an npm folder) unless
/// the pinned versions are there already; a marker file records what was installed.
pub fn ensure_real_apps(root: &Path) -> Result<RealApps> {
    let dir = root.join("target/real-apps");
    let venv = dir.join("venv");
    let npm_dir = dir.join("npm");
    let apps = RealApps {
        python: venv.join("bin/python"),
        node_modules: npm_dir.join("node_modules"),
    };
    let marker = dir.join("installed.txt");
    let wanted = format!(
        "{}\n{}\n",
        REAL_APPS_PYPI.join(" "),
        REAL_APPS_NPM.join(" ")
    );
    if apps.python.is_file()
        && apps.node_modules.join(".bin/esbuild").is_file()
        && std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str())
    {
        println!("  real apps: present in {}", dir.display());
        return Ok(apps);
    }
    std::fs::create_dir_all(&npm_dir).with_context(|| format!("creating {}", npm_dir.display()))?;

    let system_python = which("python3").context(
        "python3 is missing; install it (Debian: `apt-get install python3 python3-venv`)",
    )?;
    println!(
        "  creating a venv with {} in {}…",
        REAL_APPS_PYPI.join(", "),
        venv.display()
    );
    run(Command::new(&system_python)
        .args(["-m", "venv", "--clear"])
        .arg(&venv))
    .context("python3 cannot create a venv (Debian: `apt-get install python3-venv`)")?;
    run(Command::new(&apps.python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(REAL_APPS_PYPI))
    .with_context(|| format!("pip could not install {}", REAL_APPS_PYPI.join(" ")))?;

    npm_install(
        &npm_dir,
        REAL_APPS_NPM,
        "the React TodoMVC of the real-app corpus",
    )?;
    std::fs::write(&marker, wanted)?;
    Ok(apps)
}

/// Installs pinned npm packages into `dir` (its own `package.json`, exact versions),
/// installing npm through apt first when it is missing.
fn npm_install(dir: &Path, packages: &[&str], what_for: &str) -> Result<()> {
    if which("npm").is_none() {
        ensure_apt(&["nodejs", "npm"], &format!("npm (for {what_for})"))?;
    }
    let npm = which("npm").context("npm is still not on PATH after installing it")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    println!(
        "  installing {} with npm in {}…",
        packages.join(", "),
        dir.display()
    );
    std::fs::write(
        dir.join("package.json"),
        "{\"name\": \"nsp-tools\", \"private\": true}\n",
    )?;
    run(Command::new(&npm)
        .current_dir(dir)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--loglevel=error",
        ])
        .args(packages))
    .with_context(|| format!("npm could not install {}", packages.join(" ")))
}

/// The type checker for the extension's JavaScript, pinned: TypeScript's `--checkJs`
/// with Chrome's API types.
pub const JS_CHECK_NPM: &[&str] = &["typescript@5.9.3", "@types/chrome@0.3.7"];

/// Installs [`JS_CHECK_NPM`] under `target/js-check/` unless those versions are there,
/// and returns the `tsc` to run.
pub fn ensure_js_check(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/js-check");
    let tsc = dir.join("node_modules/.bin/tsc");
    let marker = dir.join("installed.txt");
    let wanted = format!("{}\n", JS_CHECK_NPM.join(" "));
    if tsc.is_file() && std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(tsc);
    }
    npm_install(
        &dir,
        JS_CHECK_NPM,
        "type-checking the extension's JavaScript",
    )?;
    std::fs::write(&marker, wanted)?;
    Ok(tsc)
}
