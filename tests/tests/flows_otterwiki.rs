//! The flow suite (`nsp_tests::flows`) on An Otter Wiki 2.26 from PyPI, a wiki that
//! keeps its pages in a git repository (Flask, the Halfmoon kit): its editor is
//! CodeMirror 6 (a contenteditable, not a field), its "Save" opens a dialog that asks
//! for a commit message, and a page's Rename, History and Delete sit in a menu opened by
//! a button drawn as an ellipsis alone, with no word, title or label. The agent creates
//! a page, writes it, saves it, then deletes it through that menu, using only nspd's
//! state; the wiki's git repository is the ground truth: exactly those two commits, with
//! the page's text as the agent wrote it.

use std::process::Command;

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};

const TEXT: &str = "# Otter Notes\n\nOtters hold hands while they sleep.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otterwiki_write_a_page_then_delete_it_from_its_icon_menu() {
    let app = RealApp::start(AppKind::Otterwiki, RealAppOptions::default()).expect("otterwiki");
    let mut agent = FlowAgent::start("otterwiki", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    let steps = [
        Step::new("open the page creator", &["create", "page"], Tier::Read),
        // Naming the page opens the editor; nothing is stored until it is saved.
        Step::new("name the page", &["create", "editor"], Tier::Read)
            .param(&["pagename"], "Otter Notes"),
        Step::new("write the page", &["fill", "text"], Tier::ReversibleWrite)
            .param(&["text"], TEXT),
        // "Save" only opens the dialog that asks for the commit message: nothing the
        // state showed before changes (the dialog's field is new), and the next step
        // needs it.
        Step::new("open the save dialog", &["save"], Tier::Read)
            .avoid(&["commit"])
            .verify(Verify::None),
        Step::new(
            "save with a message",
            &["save", "commit"],
            Tier::ReversibleWrite,
        )
        .param(&["commit"], "Add otter notes"),
        // The page's menu is a button showing an ellipsis alone: named by its glyph.
        // Opening it changes no object (its links are actions).
        Step::new("open the page's menu", &["more"], Tier::Read).verify(Verify::None),
        Step::new("go to its deletion", &["open", "delete"], Tier::Read),
        Step::new("delete the page", &["delete"], Tier::IrreversibleWrite)
            .param(&["message"], "Otters moved out"),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }

    // The repository: the wiki's own first commit, then exactly the agent's two; the
    // page as written, then gone.
    let git = |args: &[&str]| -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(&app.db)
            .args(args)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let written = git(&["show", "HEAD~1:otter notes.md"]);
    let history = git(&["log", "--format=%s", "--name-status"]);
    let history: Vec<String> = history
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    agent.finish(
        (history, written),
        (
            vec![
                "Otters moved out".to_owned(),
                "D\totter notes.md".to_owned(),
                "Add otter notes".to_owned(),
                "A\totter notes.md".to_owned(),
                "Initial commit".to_owned(),
                "A\thome.md".to_owned(),
            ],
            TEXT.to_owned(),
        ),
    );
}
