//! The flow suite (`nsp_tests::flows`) on Lektor 3.3 from PyPI, a static site generator
//! whose admin (a React app) edits the site's content files: its forms are laid out as
//! description lists (`<dt>Title</dt><dd><input></dd>`) with no label, no `name` and no
//! `id` on any field, its text areas are sized by a hidden copy of their value just
//! before them, and a page is deleted through a confirmation ("Yes, delete", "No,
//! cancel"). The agent edits the home page, deletes "About us" and adds a page, using
//! only nspd's state; the site's content files are the ground truth: exactly those
//! pages, with exactly what the agent wrote.

use std::collections::BTreeMap;
use std::path::Path;

use nsp_tests::flows::{FlowAgent, Step, Tier};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lektor_edit_a_page_delete_one_and_add_one() {
    let app = RealApp::start(AppKind::Lektor, RealAppOptions::default()).expect("lektor");
    let mut agent = FlowAgent::start("lektor", &app.url("/admin/edit?path=%2F"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    // The fields are named by the terms of their description list.
    let steps = [
        Step::new(
            "write the home page",
            &["save", "changes"],
            Tier::ReversibleWrite,
        )
        .param(&["summary"], "A site about otters")
        .param(&["body"], "Hello, otters."),
        Step::new("open About us", &["open", "about"], Tier::Read),
        Step::new("go to its deletion", &["page", "actions"], Tier::Read).record(&[], "Delete"),
        Step::new("delete it", &["yes", "delete"], Tier::IrreversibleWrite),
        Step::new("go to add a page", &["page", "actions"], Tier::Read).record(&[], "Add Page"),
        Step::new("add a page", &["add", "child"], Tier::ReversibleWrite)
            .param(&["title"], "Otter facts")
            .param(&["id"], "otter-facts"),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }

    agent.finish(
        content_files(&app.db),
        BTreeMap::from([
            (
                "contents.lr".to_owned(),
                "title: Welcome\n---\nbody: Hello, otters.\n---\nsummary: A site about otters\n"
                    .to_owned(),
            ),
            (
                "otter-facts/contents.lr".to_owned(),
                "_model: page\n---\ntitle: Otter facts\n".to_owned(),
            ),
        ]),
    );
}

/// Every file under the content folder, by its path there, with its text.
fn content_files(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("the content folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("under the root");
                let text = std::fs::read_to_string(&path).expect("a content file");
                out.insert(rel.to_string_lossy().into_owned(), text);
            }
        }
    }
    out
}
