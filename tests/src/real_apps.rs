//! Real open-source web apps for the real-app corpus and the end-to-end tests: Django's
//! admin, Flask-Admin (Flask-SQLAlchemy on sqlite), Datasette, Radicale's web UI, a
//! React TodoMVC and a React support form (framework-controlled inputs), both bundled
//! here with esbuild, Jupyter Notebook 7 (file browser and editor on a temp root dir) and
//! TiddlyWiki 5 (its Node.js server on a fresh wiki folder), MailDev 3 (a mail catcher
//! from npm, seeded over SMTP), Trac (tracker and wiki) and I Hate Money (shared
//! budgets), each launched by its `fixtures/real/<app>/serve.py`.
//! Each runs from the
//! registries' packages
//! (`cargo xtask test` installs them under `target/real-apps/`) with its own backend on
//! a free 127.0.0.1 port and a fresh temporary database; the database is the ground
//! truth. Dropping a [`RealApp`] kills its process group.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::{free_port, workspace_root};

/// The superuser the Django site is seeded with.
pub const DJANGO_USER: &str = "admin";
/// Distinctive, so a test can search every log and state for it and find nothing.
pub const DJANGO_PASSWORD: &str = "Zebra-Quartz-4417-secret";

/// How long an app may take to answer its first request.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// The Python with the apps installed: `$NSP_REAL_PYTHON`, else `target/real-apps/venv`.
pub fn real_python() -> Result<PathBuf> {
    venv_python(
        "NSP_REAL_PYTHON",
        "real-apps/venv",
        "the real apps",
        "Django, Flask-Admin, Datasette and Radicale",
    )
}

/// The Python of a venv `cargo xtask test` makes under `target/`: `$var`, else
/// `target/<venv>/bin/python`; an error that says how to make it when it is missing.
fn venv_python(var: &str, venv: &str, what: &str, with: &str) -> Result<PathBuf> {
    let python = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        workspace_root()
            .join("target")
            .join(venv)
            .join("bin/python")
    });
    if !python.is_file() {
        bail!(
            "no Python with {what} at {}: run `cargo xtask test` (it creates target/{venv} \
             with {with})",
            python.display()
        );
    }
    Ok(python)
}

/// The Python of an app that has a venv of its own (`cargo xtask test` makes them:
/// xtask's `OWN_VENV_APPS`): `$var`, else `target/<venv>/bin/python`. `None` for the
/// apps of the shared venv.
fn own_venv_python(kind: AppKind) -> Option<Result<PathBuf>> {
    let (var, venv, what) = match kind {
        AppKind::CalibreWeb => ("NSP_CALIBRE_PYTHON", "calibre-venv", "Calibre-Web"),
        AppKind::Otterwiki => ("NSP_OTTERWIKI_PYTHON", "otterwiki-venv", "An Otter Wiki"),
        AppKind::Lektor => ("NSP_LEKTOR_PYTHON", "lektor-venv", "Lektor"),
        AppKind::Isso => ("NSP_ISSO_PYTHON", "isso-venv", "Isso"),
        AppKind::PyLoad => ("NSP_PYLOAD_PYTHON", "pyload-venv", "pyLoad"),
        AppKind::Archivy => ("NSP_ARCHIVY_PYTHON", "archivy-venv", "Archivy"),
        AppKind::Shiny => ("NSP_SHINY_PYTHON", "shiny-venv", "Shiny"),
        AppKind::Panel => ("NSP_PANEL_PYTHON", "panel-venv", "Panel"),
        AppKind::DjangoWiki => ("NSP_DJANGOWIKI_PYTHON", "djangowiki-venv", "django-wiki"),
        AppKind::Mitmweb => ("NSP_MITMWEB_PYTHON", "mitmweb-venv", "mitmproxy"),
        _ => return None,
    };
    Some(venv_python(var, venv, what, &format!("{what} from PyPI")))
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

/// Whether an app's start failed because its port was in use (the words the servers we
/// start print: Python's socketserver and werkzeug, Django, Node, Tornado).
fn port_was_taken(failure: &str) -> bool {
    ["Address already in use", "already in use", "EADDRINUSE"]
        .iter()
        .any(|w| failure.contains(w))
}

/// `fixtures/real/`.
pub fn real_dir() -> PathBuf {
    workspace_root().join("fixtures/real")
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
    /// `fixtures/real/react_selects`: a ticket form whose selects are Radix's Select
    /// and Headless UI's Listbox from npm (selects drawn as buttons, their options in
    /// portals). Its sqlite table of tickets is the ground truth.
    ReactSelects,
    /// Jupyter Notebook 7's file browser and text editor on a temp root dir (its files
    /// are the ground truth; no kernels).
    Notebook,
    /// TiddlyWiki 5's Node.js server on a fresh wiki folder (its `.tid` files are the
    /// ground truth): icon buttons with only a title or aria-label.
    TiddlyWiki,
    /// Trac 1.6, a server-rendered issue tracker and wiki (`fixtures/real/trac`): folded
    /// sections, a formatting toolbar, GET forms that open pages, a delete confirmation
    /// page. Its sqlite database (`env/db/trac.db`) is the ground truth.
    Trac,
    /// I Hate Money 7, a shared-budget app (`fixtures/real/ihatemoney`): participants,
    /// bills, an in-place "Are you sure?" delete. Its sqlite database is the ground truth.
    IHateMoney,
    /// Fava 1.30, Beancount's web interface (`fixtures/real/fava`): a Svelte dialog whose
    /// autocompletes commit on blur and whose postings grow a row as the last one is
    /// filled. Its ledger file is the ground truth.
    Fava,
    /// Roundup 2.6, a server-rendered issue tracker (`fixtures/real/roundup`): a login
    /// form in its sidebar, a new-issue form laid out as a table, mail to the nosy list.
    /// Its sqlite database and the mail it sends (to a file) are the ground truth.
    Roundup,
    /// AG Grid Community 36 from npm, unmodified (`fixtures/real/aggrid`): a grid whose
    /// rows hold their cells in the wrappers of its pinned and scrolling parts. Its
    /// sqlite database counts every press of a row's "Star".
    AgGrid,
    /// The same page on AG Grid Community 31, which draws each row twice: once among
    /// the pinned columns, once among the rest.
    AgGrid31,
    /// sqlite-web 0.8, a Flask browser and editor for a SQLite file: a row's fields are
    /// disabled until the box before each is ticked, a row's delete and a table's drop
    /// are confirmation pages. The database file is the ground truth.
    SqliteWeb,
    /// Calibre-Web 0.6, a library of e-books (Flask, Bootstrap 3), in a venv of its own
    /// (`target/calibre-venv`; its pins are not the other apps'), on a library
    /// `fixtures/real/calibre/library.py` writes: books drawn as a grid of cards, a top
    /// bar whose links include "Logout". Its settings database (`app.db`: users, what
    /// each has read) is the ground truth.
    CalibreWeb,
    /// An Otter Wiki 2.26, a wiki on a git repository (Flask, Halfmoon), in a venv of
    /// its own (`target/otterwiki-venv`): a CodeMirror 6 editor, a "Save" that opens a
    /// dialog asking for a commit message, a page's Rename, History and Delete behind a
    /// button drawn as an ellipsis alone. Its git repository is the ground truth.
    Otterwiki,
    /// Lektor 3.3, a static site generator whose admin (a React app) edits the site's
    /// content files, in a venv of its own (`target/lektor-venv`), on the site in
    /// `fixtures/real/lektor`: a form laid out as a description list (`<dt>Title</dt>
    /// <dd><input></dd>`, no labels), text areas sized by a hidden copy of their value,
    /// a delete confirmation ("Yes, delete", "No, cancel"). Its content files are the
    /// ground truth.
    Lektor,
    /// Isso 0.14, a comment server (Flask's Werkzeug, sqlite) whose widget a page
    /// embeds, in a venv of its own (`target/isso-venv`), on its own demo page with
    /// three comments `fixtures/real/isso/serve.py` posts: no `<form>`, each comment's
    /// "Reply", "Edit" and "Delete" links going nowhere, "Edit" turning into "Save",
    /// "Delete" into "Confirm" (and back when the pointer leaves it). Its database is
    /// the ground truth.
    Isso,
    /// pyLoad 0.5 (pyload-ng, a pre-release), a download manager's web interface
    /// (Flask, Bootstrap 3), in a venv of its own (`target/pyload-venv`), set up by
    /// `fixtures/real/pyload/serve.py`: a login form, a hidden sticky bar that repeats
    /// the menu as icons before the menu a person sees, an "Add Package" dialog whose
    /// destination is radio buttons valued "1" and "0", icon buttons on each package.
    /// Its database is the ground truth.
    PyLoad,
    /// Archivy 1.7, a knowledge base keeping each note as a Markdown file (Flask), in a
    /// venv of its own (`target/archivy-venv`), set up by `fixtures/real/archivy/serve.py`:
    /// a note's editor is EasyMDE, CodeMirror 5 over a text area it hides, shown by an
    /// "Edit" button, saved by a toolbar button titled "Save note contents"; "Delete"
    /// asks `confirm()`. Its note files are the ground truth.
    Archivy,
    /// Shiny for Python 1.8 (`fixtures/real/shiny_app.py`), in a venv of its own
    /// (`target/shiny-venv`): a select drawn by Selectize (no roles; the page's select
    /// hidden), a date input drawn by bootstrap-datepicker (read from the picker, which
    /// parses on keyup), a text input sent on change. Its sqlite table of orders is the
    /// ground truth.
    Shiny,
    /// Panel 1.9 (HoloViz, on Bokeh 3; `fixtures/real/panel_app.py`), in a venv of its
    /// own (`target/panel-venv`): every widget drawn in a shadow root of its own, labels
    /// and boxes there, a number box between two arrows with no name, a checkbox named
    /// by the words after it, a date input drawn by flatpickr (the value in a hidden
    /// input, a read-only box shown in its place, a calendar of days named "December 24,
    /// 2026"). Its sqlite table of expenses is the ground truth.
    Panel,
    /// django-wiki 0.13 (Django 5, Bootstrap 4), in a venv of its own
    /// (`target/djangowiki-venv`), set up by `fixtures/real/django-wiki/serve.py`: its own
    /// sign-in page, an article's form whose text area carries a markItUp toolbar of
    /// links going nowhere, a "Delete article" link styled as danger that opens a page
    /// asking for a ticked "Yes, I am sure". Its sqlite database is the ground truth.
    DjangoWiki,
    /// Gradio 6, the Python framework most machine-learning demos are drawn with
    /// (`fixtures/real/gradio_app.py`): no `<form>`, radios each with a name of their
    /// own, a slider with its own reset button, a dropdown whose options open on focus.
    /// Its sqlite table of orders is the ground truth.
    Gradio,
    /// NiceGUI 3, a Python UI framework on Vue and Quasar
    /// (`fixtures/real/nicegui_app.py`): a read-only select whose list is drawn once
    /// clicked open, ARIA radios, a switch. Its sqlite table of tasks is the ground
    /// truth.
    NiceGui,
    /// Streamlit 1.67, the Python framework of data apps
    /// (`fixtures/real/streamlit_app.py`): a form of React Aria widgets in `st.form`
    /// (no `<form>`), a slider whose range input hides in its thumb, rows of columns
    /// drawn with `<div>`s, each with its own "Delete". Its sqlite table of expenses is
    /// the ground truth.
    Streamlit,
    /// Dash 4, Plotly's Python framework of data apps (`fixtures/real/dash_app.py`): a
    /// checklist drawn as a listbox of labelled boxes, radio items, a slider with its
    /// number box, rows of `html.Div`s each with its own "Remove". Its sqlite table of
    /// contacts is the ground truth.
    Dash,
    /// dash-mantine-components 2.8 (Mantine 8, React) in Dash
    /// (`fixtures/real/mantine_app.py`): a select drawn as a read-only input that opens a
    /// listbox, a segmented control whose radios' group name is drawn at random on each
    /// load, a slider whose thumb has no input. Its sqlite table of orders is the ground
    /// truth.
    Mantine,
    /// MailDev 3 from npm, a mail catcher's web client (React, Tailwind, Fastify): a
    /// list of messages each drawn whole as one `<button>`, a view switcher of buttons
    /// told apart only by their colours, "Relay email" opening a menu whose "Relay to
    /// original recipients" asks `confirm()`. It relays to its own SMTP port, so a
    /// relayed message arrives in it again; its mail folder (a `.eml` file a message)
    /// is the ground truth.
    MailDev,
    /// mitmweb, mitmproxy 11's web interface, in a venv of its own
    /// (`target/mitmweb-venv`), set up by `fixtures/real/mitmweb/serve.py` with an
    /// upstream server of its own and two requests sent through it: a flow list whose
    /// rows are selected by a click the page handles at its root (drawn with a pointer
    /// cursor), and a selected flow's "Replay", which sends its request again. The
    /// upstream's log of every request it received is the ground truth.
    Mitmweb,
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
            AppKind::ReactSelects => "react-selects",
            AppKind::Notebook => "notebook",
            AppKind::TiddlyWiki => "tiddlywiki",
            AppKind::Trac => "trac",
            AppKind::IHateMoney => "ihatemoney",
            AppKind::Fava => "fava",
            AppKind::Roundup => "roundup",
            AppKind::AgGrid => "aggrid",
            AppKind::AgGrid31 => "aggrid31",
            AppKind::SqliteWeb => "sqlite-web",
            AppKind::Gradio => "gradio",
            AppKind::NiceGui => "nicegui",
            AppKind::Streamlit => "streamlit",
            AppKind::Dash => "dash",
            AppKind::Mantine => "mantine",
            AppKind::CalibreWeb => "calibre-web",
            AppKind::Otterwiki => "otterwiki",
            AppKind::Lektor => "lektor",
            AppKind::Isso => "isso",
            AppKind::PyLoad => "pyload",
            AppKind::Archivy => "archivy",
            AppKind::Shiny => "shiny",
            AppKind::Panel => "panel",
            AppKind::DjangoWiki => "django-wiki",
            AppKind::MailDev => "maildev",
            AppKind::Mitmweb => "mitmweb",
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
            "react-selects" => AppKind::ReactSelects,
            "notebook" => AppKind::Notebook,
            "tiddlywiki" => AppKind::TiddlyWiki,
            "trac" => AppKind::Trac,
            "ihatemoney" => AppKind::IHateMoney,
            "fava" => AppKind::Fava,
            "roundup" => AppKind::Roundup,
            "aggrid" => AppKind::AgGrid,
            "aggrid31" => AppKind::AgGrid31,
            "sqlite-web" => AppKind::SqliteWeb,
            "gradio" => AppKind::Gradio,
            "nicegui" => AppKind::NiceGui,
            "streamlit" => AppKind::Streamlit,
            "dash" => AppKind::Dash,
            "mantine" => AppKind::Mantine,
            "calibre-web" => AppKind::CalibreWeb,
            "otterwiki" => AppKind::Otterwiki,
            "lektor" => AppKind::Lektor,
            "isso" => AppKind::Isso,
            "pyload" => AppKind::PyLoad,
            "archivy" => AppKind::Archivy,
            "shiny" => AppKind::Shiny,
            "panel" => AppKind::Panel,
            "django-wiki" => AppKind::DjangoWiki,
            "maildev" => AppKind::MailDev,
            "mitmweb" => AppKind::Mitmweb,
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
    /// Django only: the site with its `tasks` app too (a task's category and labels are
    /// autocomplete fields, drawn by the Select2 widget Django ships, over 25 seeded
    /// categories and 3 labels), which the corpus's recorded pages leave out.
    pub tasks: bool,
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
    /// Starts `kind` on a free port with fresh data and waits until it answers. An app
    /// that finds its port taken (by a process outside this one, between our asking and
    /// its binding) is started again on another port, up to three times.
    pub fn start(kind: AppKind, opts: RealAppOptions) -> Result<RealApp> {
        let mut tries = 0;
        loop {
            match RealApp::start_once(kind, opts) {
                Err(e) if tries < 2 && port_was_taken(&format!("{e:#}")) => tries += 1,
                started => return started,
            }
        }
    }

    fn start_once(kind: AppKind, opts: RealAppOptions) -> Result<RealApp> {
        let python = own_venv_python(kind).unwrap_or_else(real_python)?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("nsp-real-{}-", kind.name()))
            .tempdir()?;
        let port = free_port()?;
        let real = real_dir();
        let db = match kind {
            AppKind::Radicale => dir.path().join("collections"),
            // Datasette names the database after the file: /library.
            AppKind::Datasette => dir.path().join("library.db"),
            // The notebook server's root dir; the wiki's tiddlers folder.
            AppKind::Notebook => dir.path().join("root"),
            AppKind::TiddlyWiki => dir.path().join("wiki/tiddlers"),
            // The environment `serve.py` creates: `env/db/trac.db`.
            AppKind::Trac => dir.path().join("env/db/trac.db"),
            AppKind::Fava => dir.path().join("ledger.beancount"),
            AppKind::CalibreWeb => dir.path().join("app.db"),
            // The wiki's git repository.
            AppKind::Otterwiki => dir.path().join("wiki"),
            // The site's content folder.
            AppKind::Lektor => dir.path().join("site/content"),
            AppKind::Roundup => dir.path().join("tracker/db/db"),
            AppKind::Isso => dir.path().join("comments.db"),
            AppKind::PyLoad => dir.path().join("user/data/pyload.db"),
            // The notes, a Markdown file each.
            AppKind::Archivy => dir.path().join("archivy/data"),
            AppKind::DjangoWiki => dir.path().join("wiki.sqlite3"),
            // A message a file.
            AppKind::MailDev => dir.path().join("mail"),
            // Every request the upstream server received.
            AppKind::Mitmweb => dir.path().join("requests.log"),
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
                        .env("NSP_DJANGO_TASKS", if opts.tasks { "1" } else { "0" })
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
                if opts.tasks {
                    // More than the 20 options the autocomplete shows at first: the last
                    // is found by typing it.
                    manage(&[
                        "shell",
                        "-v",
                        "0",
                        "-c",
                        "from tasks.models import Category, Label\n\
                         for n in range(1, 25): Category.objects.create(name=f'Area {n:02}')\n\
                         Category.objects.create(name='Travel')\n\
                         for n in ['errand', 'home', 'paperwork']: Label.objects.create(name=n)",
                    ])?;
                }
                cmd = Command::new(&python);
                cmd.current_dir(&site)
                    .args(["manage.py", "runserver", "--noreload"])
                    .arg(format!("127.0.0.1:{port}"))
                    .env("NSP_REAL_DB", &db)
                    .env("NSP_DJANGO_TASKS", if opts.tasks { "1" } else { "0" })
                    .env("NSP_AUTOLOGIN", if opts.autologin { "1" } else { "0" });
                ready_path = "/admin/login/";
            }
            AppKind::SqliteWeb => {
                let seed = "import sqlite3, sys\n\
                     c = sqlite3.connect(sys.argv[1])\n\
                     c.execute('create table customers(id integer primary key, name text not null, email text, city text)')\n\
                     c.executemany('insert into customers(name, email, city) values (?, ?, ?)', [\n\
                     ('Ann Lee', 'ann@example.com', 'Oslo'), ('Bo Chen', 'bo@example.com', 'Lyon'),\n\
                     ('Cy Diaz', 'cy@example.com', 'Quito')])\n\
                     c.execute('create table orders(id integer primary key, customer_id integer, total real)')\n\
                     c.execute('insert into orders(customer_id, total) values (1, 19.99)')\n\
                     c.commit()";
                let out = Command::new(&python).args(["-c", seed]).arg(&db).output()?;
                if !out.status.success() {
                    bail!(
                        "seeding sqlite-web's db: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                cmd = Command::new(&python);
                // (Its `python -m sqlite_web` is broken in 0.8.2: the console script's
                // entry point, called as the script calls it.)
                cmd.args([
                    "-c",
                    "import sys\nfrom sqlite_web.sqlite_web import main\nsys.exit(main())",
                    "-x",
                    "-q",
                    "-H",
                    "127.0.0.1",
                    "-p",
                ])
                .arg(port.to_string())
                .arg(&db);
                ready_path = "/";
            }
            AppKind::NiceGui => {
                cmd = Command::new(&python);
                // NiceGUI keeps its storage in the working directory: the app's own.
                cmd.arg(real.join("nicegui_app.py"))
                    .arg(port.to_string())
                    .arg(&db)
                    .current_dir(dir.path());
                ready_path = "/";
            }
            // A script of ours, `script PORT DB`, serving at its root.
            AppKind::Dash | AppKind::Mantine | AppKind::Shiny | AppKind::Panel => {
                let script = match kind {
                    AppKind::Dash => "dash_app.py",
                    AppKind::Mantine => "mantine_app.py",
                    AppKind::Shiny => "shiny_app.py",
                    _ => "panel_app.py",
                };
                cmd = Command::new(&python);
                cmd.arg(real.join(script)).arg(port.to_string()).arg(&db);
                ready_path = "/";
            }
            AppKind::Streamlit => {
                cmd = Command::new(&python);
                cmd.args(["-m", "streamlit", "run"])
                    .arg(real.join("streamlit_app.py"))
                    .args(["--server.address", "127.0.0.1", "--server.port"])
                    .arg(port.to_string())
                    .args([
                        "--server.headless",
                        "true",
                        "--browser.gatherUsageStats",
                        "false",
                        "--server.fileWatcherType",
                        "none",
                        "--",
                    ])
                    .arg(&db)
                    .current_dir(dir.path());
                ready_path = "/";
            }
            AppKind::Gradio => {
                cmd = Command::new(&python);
                cmd.arg(real.join("gradio_app.py"))
                    .arg(port.to_string())
                    .arg(&db)
                    .env("GRADIO_ANALYTICS_ENABLED", "False");
                ready_path = "/";
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
            AppKind::ReactForm | AppKind::ReactSelects => {
                let app = if kind == AppKind::ReactForm {
                    "react_form"
                } else {
                    "react_selects"
                };
                let bundle = esbuild(&real.join(app).join("app.jsx"), dir.path())?;
                cmd = Command::new(&python);
                cmd.arg(real.join(app).join("server.py"))
                    .arg(port.to_string())
                    .arg(&db)
                    .arg(&bundle);
                ready_path = "/api/tickets";
            }
            AppKind::AgGrid | AppKind::AgGrid31 => {
                let package = if kind == AppKind::AgGrid {
                    "ag-grid-community"
                } else {
                    "ag-grid-31"
                };
                let bundle = real_node_modules()?
                    .join(package)
                    .join("dist/ag-grid-community.min.js");
                cmd = Command::new(&python);
                cmd.arg(real.join("aggrid/server.py"))
                    .arg(port.to_string())
                    .arg(&db)
                    .arg(&bundle);
                ready_path = "/api/runs";
            }
            AppKind::Notebook => {
                seed_notebook_root(&db)?;
                // Jupyter's config, data, runtime and checkpoint dirs in the temp dir:
                // nothing read from or written to the home directory, and saving a file
                // leaves no `.ipynb_checkpoints` in the root.
                let jupyter = dir.path().join("jupyter");
                for sub in ["config", "data", "runtime", "checkpoints"] {
                    std::fs::create_dir_all(jupyter.join(sub))?;
                }
                cmd = Command::new(&python);
                cmd.args(["-m", "notebook"])
                    .arg(format!(
                        "--config={}",
                        real.join("notebook/jupyter_server_config.py").display()
                    ))
                    .arg(format!("--ServerApp.port={port}"))
                    .arg("--ServerApp.port_retries=0")
                    .arg(format!("--ServerApp.root_dir={}", db.display()))
                    .arg(format!(
                        "--FileCheckpoints.root_dir={}",
                        jupyter.join("checkpoints").display()
                    ))
                    .env("JUPYTER_CONFIG_DIR", jupyter.join("config"))
                    .env("JUPYTER_DATA_DIR", jupyter.join("data"))
                    .env("JUPYTER_RUNTIME_DIR", jupyter.join("runtime"))
                    .env("JUPYTER_PLATFORM_DIRS", "1")
                    .env("IPYTHONDIR", jupyter.join("ipython"))
                    .env_remove("JUPYTER_CONFIG_PATH")
                    .env_remove("JUPYTER_PATH");
                ready_path = "/tree";
            }
            AppKind::TiddlyWiki => {
                let tiddlywiki = real_node_modules()?.join("tiddlywiki/tiddlywiki.js");
                let wiki = dir.path().join("wiki");
                let out = Command::new("node")
                    .arg(&tiddlywiki)
                    .arg(&wiki)
                    .args(["--init", "server"])
                    .output()
                    .context("running node (TiddlyWiki's --init)")?;
                if !out.status.success() {
                    bail!(
                        "tiddlywiki --init failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                std::fs::create_dir_all(&db)?;
                let seeds = real.join("tiddlywiki/tiddlers");
                for entry in std::fs::read_dir(&seeds)
                    .with_context(|| format!("reading {}", seeds.display()))?
                {
                    let path = entry?.path();
                    if path.extension().is_some_and(|e| e == "tid") {
                        std::fs::copy(&path, db.join(path.file_name().unwrap_or_default()))?;
                    }
                }
                cmd = Command::new("node");
                cmd.arg(&tiddlywiki)
                    .arg(&wiki)
                    .arg("--listen")
                    .arg("host=127.0.0.1")
                    .arg(format!("port={port}"));
                ready_path = "/status";
            }
            AppKind::MailDev => {
                let smtp = loop {
                    let p = free_port()?;
                    if p != port {
                        break p;
                    }
                };
                std::fs::create_dir_all(&db)?;
                let maildev = real_node_modules()?.join("maildev/dist/bin/maildev.js");
                let mut cmd = Command::new("node");
                cmd.arg(&maildev)
                    .args(["--ip", "127.0.0.1", "--web-ip", "127.0.0.1"])
                    .arg("--smtp")
                    .arg(smtp.to_string())
                    .arg("--web")
                    .arg(port.to_string())
                    // Relayed mail comes back to it: the relay is seen in its folder.
                    .args(["--outgoing-host", "127.0.0.1", "--outgoing-port"])
                    .arg(smtp.to_string())
                    .arg("--mail-directory")
                    .arg(&db);
                let app = RealApp::spawn(kind, cmd, port, db, python, dir, "/api/email")?;
                for (to, subject, text) in MAILDEV_SEED {
                    smtp_send(smtp, "ops@example.com", to, subject, text)
                        .with_context(|| format!("mailing {subject:?} to MailDev"))?;
                }
                // Each message is in its folder (and its list) before the flow reads it.
                let deadline = Instant::now() + READY_TIMEOUT;
                while app.maildev_messages()?.len() < MAILDEV_SEED.len() {
                    if Instant::now() >= deadline {
                        bail!("MailDev did not store its seeded mail:\n{}", app.log());
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                return Ok(app);
            }
            AppKind::Trac => {
                // serve.py creates and seeds the environment, then runs tracd.
                cmd = Command::new(&python);
                cmd.arg(real.join("trac/serve.py"))
                    .arg(port.to_string())
                    .arg(dir.path().join("env"));
                ready_path = "/ticket/1";
            }
            AppKind::IHateMoney => {
                // serve.py migrates and seeds the database, then serves the app.
                cmd = Command::new(&python);
                cmd.arg(real.join("ihatemoney/serve.py"))
                    .arg(port.to_string())
                    .arg(&db);
                ready_path = "/healthcheck";
            }
            AppKind::Fava => {
                std::fs::copy(real.join("fava/ledger.beancount"), &db)?;
                cmd = Command::new(&python);
                cmd.args([
                    "-c",
                    "import sys\nfrom fava.cli import main\nsys.exit(main())",
                    "--host",
                    "127.0.0.1",
                    "--port",
                ])
                .arg(port.to_string())
                .arg(&db);
                ready_path = "/household/journal/";
            }
            AppKind::CalibreWeb => {
                // A library with a few books; Calibre-Web is pointed at it through its
                // own "Database Configuration" page (the flow does that).
                let library = dir.path().join("library");
                std::fs::create_dir_all(&library)?;
                let out = Command::new(&python)
                    .arg(real.join("calibre/library.py"))
                    .arg(&library)
                    .output()?;
                if !out.status.success() {
                    bail!(
                        "writing Calibre-Web's library: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                let cache = dir.path().join("cache");
                std::fs::create_dir_all(&cache)?;
                cmd = Command::new(&python);
                cmd.args(["-m", "calibreweb", "-i", "127.0.0.1", "-p"])
                    .arg(&db)
                    .arg("-g")
                    .arg(dir.path().join("gdrive.db"))
                    .arg("-o")
                    .arg(dir.path().join("calibre-web.log"))
                    // Its port when its settings are new; its settings and cache here.
                    .env("CALIBRE_PORT", port.to_string())
                    .env("CALIBRE_DBPATH", dir.path())
                    .env("CACHE_DIRECTORY", &cache);
                ready_path = "/login";
            }
            AppKind::Otterwiki => {
                // An empty repository: the wiki commits its Home page on start. Anyone may
                // read and write (its default), so the flow needs no account.
                std::fs::create_dir_all(&db)?;
                let out = Command::new("git")
                    .args(["init", "--quiet"])
                    .arg(&db)
                    .output()
                    .context("running git (Debian: `apt-get install git`)")?;
                if !out.status.success() {
                    bail!("git init: {}", String::from_utf8_lossy(&out.stderr));
                }
                cmd = Command::new(&python);
                cmd.args(["-m", "flask", "--app", "otterwiki.server", "run"])
                    .args(["--host", "127.0.0.1", "--port"])
                    .arg(port.to_string())
                    .env("REPOSITORY", &db)
                    .env("SECRET_KEY", "nsp-test-otterwiki-secret-key")
                    .env(
                        "SQLALCHEMY_DATABASE_URI",
                        format!("sqlite:///{}", dir.path().join("otterwiki.db").display()),
                    );
                ready_path = "/";
            }
            AppKind::Lektor => {
                // A copy of the fixture's site; its build goes to a folder of its own.
                let site = dir.path().join("site");
                crate::webdriver::copy_dir(&real.join("lektor"), &site)?;
                cmd = Command::new(&python);
                cmd.args(["-m", "lektor", "--project"])
                    .arg(&site)
                    .args(["server", "--host", "127.0.0.1", "--port"])
                    .arg(port.to_string())
                    .arg("--output-path")
                    .arg(dir.path().join("build"));
                ready_path = "/admin/";
            }
            AppKind::Isso
            | AppKind::Roundup
            | AppKind::PyLoad
            | AppKind::Archivy
            | AppKind::DjangoWiki
            | AppKind::Mitmweb => {
                // `serve.py PORT DIR` sets the app up in DIR, then serves it: Roundup's
                // tracker and its users; Isso's configuration and three comments;
                // pyLoad's settings, database and first user; Archivy's settings and
                // administrator; django-wiki's database, superuser and root article;
                // mitmweb's upstream server and the two requests sent through it.
                cmd = Command::new(&python);
                cmd.arg(real.join(kind.name()).join("serve.py"))
                    .arg(port.to_string())
                    .arg(dir.path());
                ready_path = match kind {
                    AppKind::Isso => "/demo/",
                    AppKind::PyLoad | AppKind::Archivy => "/login",
                    _ => "/",
                };
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
        // What the app or its libraries put in a temporary folder goes in the app's own.
        nsp_daemon::launch::scratch_in(&mut cmd, dir.path())?;
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

    /// Polls until the app answers `path` (a page it has) without an error status, or
    /// fails with its log. A 404 or 500 is not taken for ready: it may be another server
    /// on the port, or the app before its routes are up.
    fn wait_ready(&mut self, port: u16, path: &str) -> Result<()> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = http_status(port, path) {
                if status < 400 {
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

    /// Roundup: the mail the tracker sent (to a file instead of an SMTP server), each
    /// message as its recipients and its subject.
    pub fn mails(&self) -> Result<Vec<(String, String)>> {
        let path = self.dir.path().join("mail.txt");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let mut out = Vec::new();
        let (mut to, mut subject) = (None::<String>, None::<String>);
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("TO: ") {
                if let (Some(t), Some(s)) = (to.take(), subject.take()) {
                    out.push((t, s));
                }
                to = Some(rest.trim().to_owned());
            } else if let Some(rest) = line.strip_prefix("Subject: ") {
                subject.get_or_insert_with(|| rest.trim().to_owned());
            }
        }
        if let (Some(t), Some(s)) = (to, subject) {
            out.push((t, s));
        }
        Ok(out)
    }

    /// Notebook: every file and folder under the server's root dir, by its path
    /// relative to the root (`/`-separated), with a file's text (`None` for a folder).
    pub fn files(&self) -> Result<std::collections::BTreeMap<String, Option<String>>> {
        fn walk(
            root: &Path,
            dir: &Path,
            out: &mut std::collections::BTreeMap<String, Option<String>>,
        ) -> Result<()> {
            for entry in std::fs::read_dir(dir)? {
                let path = entry?.path();
                let rel = path
                    .strip_prefix(root)?
                    .to_string_lossy()
                    .replace('\\', "/");
                if path.is_dir() {
                    out.insert(rel, None);
                    walk(root, &path, out)?;
                } else {
                    let bytes = std::fs::read(&path)?;
                    out.insert(rel, Some(String::from_utf8_lossy(&bytes).into_owned()));
                }
            }
            Ok(())
        }
        let mut out = std::collections::BTreeMap::new();
        walk(&self.db, &self.db, &mut out)?;
        Ok(out)
    }

    /// TiddlyWiki: the wiki's own tiddlers as its server wrote them to `.tid` files,
    /// by title, without system tiddlers (`$:/…`) and drafts (`draft.of`).
    pub fn tiddlers(&self) -> Result<std::collections::BTreeMap<String, Tiddler>> {
        let mut out = std::collections::BTreeMap::new();
        for entry in std::fs::read_dir(&self.db)? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "tid") {
                continue;
            }
            let tiddler = Tiddler::parse(&std::fs::read_to_string(&path)?);
            if tiddler.title.starts_with("$:/") || tiddler.fields.contains_key("draft.of") {
                continue;
            }
            out.insert(tiddler.title.clone(), tiddler);
        }
        Ok(out)
    }
}

/// One tiddler read from a `.tid` file: header fields, then a blank line, then the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tiddler {
    pub title: String,
    /// Every header field but `title` (tags, type, created, modified, …).
    pub fields: std::collections::BTreeMap<String, String>,
    pub text: String,
}

impl Tiddler {
    pub fn parse(file: &str) -> Tiddler {
        let (head, text) = file.split_once("\n\n").unwrap_or((file, ""));
        let mut fields = std::collections::BTreeMap::new();
        for line in head.lines() {
            if let Some((k, v)) = line.split_once(": ") {
                fields.insert(k.trim().to_owned(), v.to_owned());
            }
        }
        Tiddler {
            title: fields.remove("title").unwrap_or_default(),
            fields,
            text: text.trim_end_matches('\n').to_owned(),
        }
    }

    /// The `tags` field (`[[two words]]` kept whole).
    pub fn tags(&self) -> Vec<String> {
        let mut tags = Vec::new();
        let mut rest = self.fields.get("tags").map(String::as_str).unwrap_or("");
        while let Some(c) = rest.trim_start().chars().next() {
            rest = rest.trim_start();
            if c == '[' && rest.starts_with("[[") {
                let end = rest.find("]]").unwrap_or(rest.len());
                tags.push(rest[2..end].to_owned());
                rest = rest.get(end + 2..).unwrap_or("");
            } else {
                let end = rest.find(' ').unwrap_or(rest.len());
                tags.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
        tags
    }
}

/// The Notebook's root dir at the start: two text files and a folder with one more.
fn seed_notebook_root(root: &Path) -> Result<()> {
    std::fs::create_dir_all(root.join("docs"))?;
    std::fs::write(root.join("groceries.txt"), "Milk, eggs, bread\n")?;
    std::fs::write(root.join("dentist.md"), "# Dentist\n\nTuesday at 9:30\n")?;
    std::fs::write(root.join("docs/book-club.txt"), "Read chapter 4\n")?;
    Ok(())
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

/// The messages MailDev is started with: recipient, subject, text (from
/// `ops@example.com`).
pub const MAILDEV_SEED: [(&str, &str, &str); 3] = [
    (
        "carol@example.com",
        "Invoice #4471",
        "Please find the invoice attached. Payment due in 30 days.",
    ),
    (
        "alice@example.com",
        "Quarterly report",
        "Here are the numbers for Q3. Revenue is up 12 percent.",
    ),
    (
        "bob@example.com",
        "Lunch on Friday?",
        "Are you free for lunch on Friday at noon?",
    ),
];

/// Sends one plain-text message to the SMTP server on 127.0.0.1:`port`, as a mail
/// client does (EHLO, MAIL, RCPT, DATA), checking each reply's code.
fn smtp_send(port: u16, from: &str, to: &str, subject: &str, text: &str) -> Result<()> {
    use std::io::BufRead;
    let stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = std::io::BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    // One reply, its continuation lines (`250-…`) included: its code.
    let mut reply = |want: &str| -> Result<()> {
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 {
                bail!("the SMTP server closed the connection, waiting for {want}");
            }
            if !line.starts_with(want) {
                bail!("the SMTP server answered {line:?}, not {want}");
            }
            if line.as_bytes().get(3) != Some(&b'-') {
                return Ok(());
            }
        }
    };
    reply("220")?;
    for (command, want) in [
        ("EHLO nsp-tests".to_owned(), "250"),
        (format!("MAIL FROM:<{from}>"), "250"),
        (format!("RCPT TO:<{to}>"), "250"),
        ("DATA".to_owned(), "354"),
    ] {
        write!(writer, "{command}\r\n")?;
        reply(want)?;
    }
    write!(
        writer,
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nContent-Type: text/plain; \
         charset=utf-8\r\n\r\n{text}\r\n.\r\n"
    )?;
    reply("250")?;
    write!(writer, "QUIT\r\n")?;
    Ok(())
}

impl RealApp {
    /// mitmweb: the requests its upstream server received, as `METHOD PATH BODY`, in
    /// order.
    pub fn upstream_requests(&self) -> Result<Vec<String>> {
        match std::fs::read_to_string(&self.db) {
            Ok(t) => Ok(t.lines().map(str::to_owned).collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e).with_context(|| format!("reading {}", self.db.display())),
        }
    }

    /// MailDev: the messages in its mail folder, each as its recipient and subject, in
    /// no particular order.
    pub fn maildev_messages(&self) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.db)? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "eml") {
                continue;
            }
            let text = std::fs::read_to_string(&path)?;
            let head = text.split("\r\n\r\n").next().unwrap_or_default();
            let field = |name: &str| {
                head.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(|v| v.trim().to_owned())
                    .unwrap_or_default()
            };
            out.push((field("To:"), field("Subject:")));
        }
        Ok(out)
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

impl RealApp {
    /// Radicale only: the collections in its storage folder (the ground truth of its web
    /// UI), as `(user, displayname, description)` sorted, read from each collection's
    /// `.Radicale.props` (JSON; the description is the address book's or calendar's).
    pub fn radicale_collections(&self) -> Result<Vec<(String, String, String)>> {
        let root = self.db.join("collection-root");
        let mut out = Vec::new();
        let Ok(users) = std::fs::read_dir(&root) else {
            return Ok(out);
        };
        for user in users.flatten().filter(|e| e.path().is_dir()) {
            for coll in std::fs::read_dir(user.path())?.flatten().filter(|e| {
                // Radicale keeps its caches in hidden folders beside the collections.
                e.path().is_dir() && !e.file_name().to_string_lossy().starts_with('.')
            }) {
                let props: Value = std::fs::read_to_string(coll.path().join(".Radicale.props"))
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or(Value::Null);
                let text = |k: &str| props[k].as_str().unwrap_or_default().to_owned();
                let description = [
                    "CR:addressbook-description",
                    "C:calendar-description",
                    "D:description",
                ]
                .iter()
                .map(|k| text(k))
                .find(|d| !d.is_empty())
                .unwrap_or_default();
                out.push((
                    user.file_name().to_string_lossy().into_owned(),
                    text("D:displayname"),
                    description,
                ));
            }
        }
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_port_is_told_from_other_failures() {
        // ihatemoney (werkzeug), Django's runserver, Node.
        assert!(port_was_taken(
            "ihatemoney exited (exit status: 1) before answering:\nAddress already in use\nPort 34435 is in use by another program."
        ));
        assert!(port_was_taken("Error: That port is already in use."));
        assert!(port_was_taken(
            "Error: listen EADDRINUSE: address already in use 127.0.0.1:4000"
        ));
        assert!(!port_was_taken("trac did not answer /ticket/1 within 60s"));
    }
}
