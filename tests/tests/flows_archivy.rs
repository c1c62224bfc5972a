//! The flow suite (`nsp_tests::flows`) on Archivy 1.7 from PyPI, a knowledge base that
//! keeps each note as a Markdown file: a note's editor is EasyMDE, that is CodeMirror 5
//! over a text area it hides, typing through a text area of its own clipped to nothing;
//! an "Edit" button shows it, a toolbar button titled "Save note contents" saves it
//! (a `fetch`, no form), and "Delete" asks `confirm()`. The agent signs in, creates a
//! note, writes it in the editor and saves it, comes back, reads the note from the
//! editor, adds a line and saves it again, then deletes it, using only nspd's state; the
//! note files are the ground truth: the text as the agent wrote it, then the text it
//! read plus its line, byte for byte, then no file.

use std::time::Duration;

use nsp_tests::flows::{settle, FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};

const TEXT: &str = "# Otters\n\nOtters hold hands while they sleep.\n\n\t- rivers\n\t- seas";

/// The note files in the data folder, each as (name, the text after its front matter).
fn notes(app: &RealApp) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(&app.db)
        .expect("the data folder")
        .map(|e| {
            let e = e.expect("an entry");
            let file = std::fs::read_to_string(e.path()).expect("a note");
            // `---\n<front matter>\n---\n\n<text>`
            let after = file.splitn(3, "---\n").nth(2).unwrap_or_default();
            let text = after.strip_prefix('\n').unwrap_or(after).to_owned();
            (e.file_name().to_string_lossy().into_owned(), text)
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archivy_writes_a_note_in_its_codemirror_editor_then_deletes_it() {
    let app = RealApp::start(AppKind::Archivy, RealAppOptions::default()).expect("archivy");
    let mut agent = FlowAgent::start("archivy", &app.url("/login"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let edit = || {
        // Shows the editor: new actions, and a field with the note's text.
        Step::new("open the editor", &["edit"], Tier::Read).verify(Verify::None)
    };
    let steps = [
        Step::new("sign in", &["login"], Tier::ReversibleWrite)
            .param(&["username"], "archivy")
            .param(&["password"], "archivy-pass"),
        Step::new("open the note form", &["new", "note"], Tier::Read),
        Step::new("create the note", &["save"], Tier::ReversibleWrite).param(&["title"], "Otters"),
        edit(),
        Step::new("write the note", &["save", "note"], Tier::ReversibleWrite)
            .param(&["text", "editor"], TEXT),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    let written = settle(
        || notes(&app),
        |n| n.len() == 1 && n[0].1 == TEXT,
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(
        written,
        vec![("1-Otters.md".to_owned(), TEXT.to_owned())],
        "the note as first written"
    );

    // Back to the note from the list: the editor shows the note as stored; the agent
    // reads it there and adds a line.
    for step in [
        Step::new("open the notes", &["open", "root"], Tier::Read),
        Step::new("open the note", &["open", "otters"], Tier::Read),
        edit(),
    ] {
        agent.run(step).await.unwrap_or_else(log);
    }
    let read = agent
        .read_text(
            // The editor's text, not the page's (`text`: the note as the page shows it).
            |k, t| k != "text" && t.contains("hold hands"),
            |_| true,
            Duration::from_secs(15),
        )
        .await
        .unwrap_or_else(|e| panic!("no editor with the note: {e:#}"));
    // The editor's lines as stored: tabs, blank lines and all.
    assert_eq!(read, TEXT, "the note as the editor shows it");
    let more = format!("{read}\n\nThey keep a favourite stone.");
    agent
        .run(
            Step::new("add a line", &["save", "note"], Tier::ReversibleWrite)
                .param(&["text", "editor"], more.clone()),
        )
        .await
        .unwrap_or_else(log);
    let saved = settle(
        || notes(&app),
        |n| n.len() == 1 && n[0].1 == more,
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(
        saved,
        vec![("1-Otters.md".to_owned(), more.clone())],
        "the note as read, plus a line"
    );

    // "Delete" asks confirm(): an irreversible write, with the check that the note went.
    agent
        .run(Step::new(
            "delete the note",
            &["delete"],
            Tier::IrreversibleWrite,
        ))
        .await
        .unwrap_or_else(log);
    let left = settle(|| notes(&app), |n| n.is_empty(), Duration::from_secs(10)).await;
    agent.finish(left, Vec::<(String, String)>::new());
}
