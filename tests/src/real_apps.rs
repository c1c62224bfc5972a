//! Real open-source web apps for the real-app corpus and the end-to-end tests: Django's
//! admin, Flask-Admin (Flask-SQLAlchemy on sqlite), Datasette, Radicale's web UI, a
//! React TodoMVC and a React support form (framework-controlled inputs), both bundled
//! here with esbuild. Each runs from the registries' packages
//! (`cargo xtask test` installs them under `target/real-apps/`) with its own backend on
//! a free 127.0.0.1 port and a fresh temporary database; the database is the ground
//! truth. Dropping a [`RealApp`] kills its process group.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::workspace_root;

/// The superuser the Django site is seeded with.
pub const DJANGO_USER: &str = "admin";
/// Distinctive, so a test can search every log and state for it and find nothing.
pub const DJANGO_PASSWORD: &str = "Zebra-Quartz-4417-secret";

/// How long an app may take to answer its first request.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// The Python with the apps installed: `$NSP_REAL_PYTHON`, else `target/real-apps/venv`.
pub fn real_python() -> Result<PathBuf> {
    let python = std::env::var_os("NSP_REAL_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/real-apps/venv/bin/python"));
    if !python.is_file() {
        bail!(
            "no Python with the real apps at {}: run `cargo xtask test` (it creates \
             target/real-apps/venv with Django, Flask-Admin, Datasette and Radicale)",
            python.display()
        );
    }
    Ok(python)
}

/// npm's `node_modules` with react, react-dom and esbuild: `$NSP_REAL_NODE_MODULES`,
/// else `target/real-apps/npm/node_modules`.
pub fn real_node_modules() -> Result<PathBuf> {
    let dir = std::env::var_os("NSP_REAL_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/real-apps/npm/node_modules"));
    if !dir.join(".bin/esbuild").is_file() || !dir.join("react-dom").is_dir() {
        bail!(
            "no react, react-dom and esbuild in {}: run `cargo xtask test` (it installs \
             them from npm into target/real-apps/npm)",
            dir.display()
        );
    }
    Ok(dir)
}

/// Bundles a React entry point (with react and react-dom from npm) into
/// `dir/bundle.js` with esbuild, minified as production React.
fn esbuild(entry: &Path, dir: &Path) -> Result<PathBuf> {
    let modules = real_node_modules()?;
    let bundle = dir.join("bundle.js");
    let out = Command::new(modules.join(".bin/esbuild"))
        .arg(entry)
        .args([
            "--bundle",
            "--minify",
            "--jsx=automatic",
            "--define:process.env.NODE_ENV=\"production\"",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", bundle.display()))
        // esbuild finds react in NODE_PATH, as node would.
        .env("NODE_PATH", &modules)
        .output()
        .context("running esbuild")?;
    if !out.status.success() {
        bail!("esbuild failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(bundle)
}

/// `fixtures/real/`.
pub fn real_dir() -> PathBuf {
    workspace_root().join("fixtures/real")
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Which app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppKind {
    Django,
    FlaskAdmin,
    Datasette,
    Radicale,
    TodoMvc,
    /// `fixtures/real/react_form`: a controlled input, a contenteditable and a listbox.
    ReactForm,
}

impl AppKind {
    pub fn name(self) -> &'static str {
        match self {
            AppKind::Django => "django",
            AppKind::FlaskAdmin => "flask-admin",
            AppKind::Datasette => "datasette",
            AppKind::Radicale => "radicale",
            AppKind::TodoMvc => "todomvc",
            AppKind::ReactForm => "react-form",
        }
    }

    pub fn parse(name: &str) -> Result<AppKind> {
        Ok(match name {
            "django" => AppKind::Django,
            "flask-admin" => AppKind::FlaskAdmin,
            "datasette" => AppKind::Datasette,
            "radicale" => AppKind::Radicale,
            "todomvc" => AppKind::TodoMvc,
            "react-form" => AppKind::ReactForm,
            other => bail!("unknown real app {other:?}"),
        })
    }
}

/// How to start an app.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealAppOptions {
    /// Django only: sign every request except the login page's in as the superuser, so a
    /// fresh browser can open the admin's inner pages (the corpus); off for the login
    /// flow itself.
    pub autologin: bool,
}

/// One running app with its own temporary data.
#[derive(Debug)]
pub struct RealApp {
    pub kind: AppKind,
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The app's sqlite database (Radicale: its storage folder).
    pub db: PathBuf,
    python: PathBuf,
    dir: tempfile::TempDir,
}

impl RealApp {
    pub fn start(kind: AppKind, opts: RealAppOptions) -> Result<RealApp> {
        let python = real_python()?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("nsp-real-{}-", kind.name()))
            .tempdir()?;
        let port = free_port()?;
        let real = real_dir();
        let db = match kind {
            AppKind::Radicale => dir.path().join("collections"),
            // Datasette names the database after the file: /library.
            AppKind::Datasette => dir.path().join("library.db"),
            _ => dir.path().join("app.sqlite3"),
        };
        let mut cmd;
        let ready_path;
        match kind {
            AppKind::Django => {
                let site = real.join("django_site");
                let manage = |args: &[&str]| -> Result<()> {
                    let out = Command::new(&python)
                        .current_dir(&site)
                        .arg("manage.py")
                        .args(args)
                        .env("NSP_REAL_DB", &db)
                        .env("DJANGO_SUPERUSER_USERNAME", DJANGO_USER)
                        .env("DJANGO_SUPERUSER_PASSWORD", DJANGO_PASSWORD)
                        .env("DJANGO_SUPERUSER_EMAIL", "admin@example.com")
                        .output()
                        .context("running manage.py")?;
                    if !out.status.success() {
                        bail!(
                            "manage.py {args:?} failed: {}",
                            String::from_utf8_lossy(&out.stderr)
                        );
                    }
                    Ok(())
                };
                manage(&["migrate", "--run-syncdb", "-v", "0"])?;
                manage(&["createsuperuser", "--noinput"])?;
                manage(&[
                    "shell",
                    "-v",
                    "0",
                    "-c",
                    "from notes.models import Note\n\
                     Note.objects.create(title='Groceries', body='Milk, eggs, bread')\n\
                     Note.objects.create(title='Dentist', body='Tuesday 9:30', pinned=True)\n\
                     Note.objects.create(title='Book club', body='Read chapter 4')",
                ])?;
                cmd = Command::new(&python);
                cmd.current_dir(&site)
                    .args(["manage.py", "runserver", "--noreload"])
                    .arg(format!("127.0.0.1:{port}"))
                    .env("NSP_REAL_DB", &db)
                    .env("NSP_AUTOLOGIN", if opts.autologin { "1" } else { "0" });
                ready_path = "/admin/login/";
            }
            AppKind::FlaskAdmin => {
                cmd = Command::new(&python);
                cmd.arg(real.join("flask_admin_app.py"))
                    .arg(port.to_string())
                    .arg(&db);
                ready_path = "/admin/";
            }
            AppKind::Datasette => {
                let seed = "import sqlite3, sys\n\
                     c = sqlite3.connect(sys.argv[1])\n\
                     c.execute('create table books(id integer primary key, title text not null, author text, year integer)')\n\
                     c.executemany('insert into books(title, author, year) values (?, ?, ?)', [\n\
                     ('Dune', 'Frank Herbert', 1965), ('Neuromancer', 'William Gibson', 1984),\n\
                     ('Kindred', 'Octavia E. Butler', 1979), ('The Dispossessed', 'Ursula K. Le Guin', 1974)])\n\
                     c.commit()";
                let out = Command::new(&python).args(["-c", seed]).arg(&db).output()?;
                if !out.status.success() {
                    bail!(
                        "seeding datasette's db: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                cmd = Command::new(&python);
                cmd.args(["-m", "datasette", "serve"]).arg(&db).args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &port.to_string(),
                ]);
                ready_path = "/library";
            }
            AppKind::Radicale => {
                cmd = Command::new(&python);
                cmd.args(["-m", "radicale"])
                    .arg(format!("--storage-filesystem-folder={}", db.display()))
                    .arg(format!("--server-hosts=127.0.0.1:{port}"))
                    // Any user name with any password: the web UI's login is still the
                    // page an agent sees; the corpus does not log in.
                    .arg("--auth-type=none");
                ready_path = "/.web/";
            }
            AppKind::TodoMvc => {
                let bundle = esbuild(&real.join("todomvc/app.jsx"), dir.path())?;
                cmd = Command::new(&python);
                cmd.arg(real.join("todomvc/server.py"))
                    .arg(port.to_string())
                    .arg(&db)
                    .arg(&bundle);
                ready_path = "/api/todos";
            }
            AppKind::ReactForm => {
                let bundle = esbuild(&real.join("react_form/app.jsx"), dir.path())?;
                cmd = Command::new(&python);
                cmd.arg(real.join("react_form/server.py"))
                    .arg(port.to_string())
                    .arg(&db)
                    .arg(&bundle);
                ready_path = "/api/tickets";
            }
        }
        RealApp::spawn(kind, cmd, port, db, python, dir, ready_path)
    }

    fn spawn(
        kind: AppKind,
        mut cmd: Command,
        port: u16,
        db: PathBuf,
        python: PathBuf,
        dir: tempfile::TempDir,
        ready_path: &str,
    ) -> Result<RealApp> {
        let log = std::fs::File::create(dir.path().join("app.log"))?;
        nsp_daemon::launch::owned_child(&mut cmd);
        cmd.stdout(log.try_clone()?).stderr(log);
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {}", kind.name()))?;
        let mut app = RealApp {
            kind,
            child: Some(child),
            base: format!("http://127.0.0.1:{port}"),
            db,
            python,
            dir,
        };
        app.wait_ready(port, ready_path)?;
        Ok(app)
    }

    /// Polls until the app answers `path` with a status line, or fails with its log.
    fn wait_ready(&mut self, port: u16, path: &str) -> Result<()> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = http_status(port, path) {
                if status < 500 {
                    return Ok(());
                }
            }
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    bail!(
                        "{} exited ({status}) before answering:\n{}",
                        self.kind.name(),
                        self.log()
                    );
                }
            }
            if Instant::now() >= deadline {
                bail!(
                    "{} did not answer {path} within {READY_TIMEOUT:?}:\n{}",
                    self.kind.name(),
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What the app printed so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("app.log")).unwrap_or_default()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Rows of a query against the app's own database, read with Python's sqlite3 (the
    /// ground truth, outside the app and the browser).
    pub fn query(&self, sql: &str) -> Result<Vec<Vec<Value>>> {
        let out = Command::new(&self.python)
            .args([
                "-c",
                "import json, sqlite3, sys\n\
                 c = sqlite3.connect(sys.argv[1])\n\
                 print(json.dumps([list(r) for r in c.execute(sys.argv[2])]))",
            ])
            .arg(&self.db)
            .arg(sql)
            .stdin(Stdio::null())
            .output()
            .context("querying the app's database")?;
        if !out.status.success() {
            bail!("query failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    }

    /// The data dir (database, log).
    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for RealApp {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: kill(2) on the process group owned_child gave the app.
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The status of `GET path` on 127.0.0.1:port, if it answers within a second.
fn http_status(port: u16, path: &str) -> Option<u16> {
    let mut stream = TcpStream::connect_timeout(
        &std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(1),
    )
    .ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}
