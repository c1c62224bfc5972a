//! The flow suite (`nsp_tests::flows`) on django-wiki 0.13 from PyPI (Django 5,
//! Bootstrap 4), set up by `fixtures/real/django-wiki/serve.py`: a sign-in page of its
//! own; beside an article's title two buttons with the same title ("Sub-articles for
//! Team wiki") told apart only by their icons, one opening a menu to browse the level,
//! the other to add below it; an
//! article's text area under a markItUp toolbar of links going nowhere; "Delete
//! article" a link styled as danger that opens a page asking for a ticked "Yes, I am
//! sure" and, for a deletion with no undo, "Purge". The agent signs in, opens the form
//! that adds an article from the menu drawn as a file, writes an article, edits it,
//! then purges it, using only nspd's state; the wiki's sqlite database is the ground truth:
//! the article's two revisions as written (and each read back from the state as the
//! page shows it), then no article but the root.

use nsp_tests::flows::{FlowAgent, Step, Tier};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::{json, Value};

const FIRST: &str = "Pancakes: flour, eggs, milk.\n\nWhisk, rest, fry.";
const SECOND: &str = "Pancakes: flour, eggs, milk, a pinch of salt.\n\nWhisk, rest, fry.";

/// Every article's revisions (title, text, message), oldest first, and the slugs. A
/// form sends a text area's line breaks as CRLF (HTML's rule, for a person's typing as
/// for the agent's): the text is compared with them as `\n`.
fn wiki(app: &RealApp) -> (Vec<Value>, Vec<Value>) {
    let revisions = app
        .query(
            "select title, replace(content, char(13, 10), char(10)), user_message \
             from wiki_articlerevision order by article_id, revision_number",
        )
        .expect("revisions");
    let slugs = app
        .query("select coalesce(slug, '') from wiki_urlpath order by id")
        .expect("slugs");
    (
        revisions.into_iter().map(Value::from).collect(),
        slugs.into_iter().map(Value::from).collect(),
    )
}

/// Waits for the state to say `revision`'s text as the page shows it: its paragraphs
/// (Markdown's, apart by a blank line) joined, under `text` or a region's `.text`.
async fn read_article(agent: &FlowAgent, revision: &Value) {
    let stored = revision[1].as_str().expect("the revision's text");
    let shown = stored.split("\n\n").collect::<Vec<_>>().join(" ");
    agent
        .read_text(
            |k, _| k == "text" || k.ends_with(".text"),
            |t| t == shown,
            std::time::Duration::from_secs(10),
        )
        .await
        .unwrap_or_else(|e| panic!("the article's text {shown:?} is not in the state: {e:#}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn django_wiki_writes_an_article_edits_it_then_purges_it() {
    let app = RealApp::start(AppKind::DjangoWiki, RealAppOptions::default()).expect("wiki");
    let mut agent = FlowAgent::start("django-wiki", &app.url("/_accounts/login/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let root = json!(["Team wiki", "Welcome. The team's notes live here.", ""]);

    let steps = [
        Step::new("sign in", &["log", "in"], Tier::ReversibleWrite)
            .param(&["username"], "wiki")
            .param(&["password"], "wiki-pass"),
        // Two buttons are titled "Sub-articles for Team wiki", one drawn as a sitemap
        // (its menu browses the level), one as a file (its menu adds an article): the
        // state names them by their icons too.
        Step::new(
            "open the menu that adds an article",
            &["sub", "articles", "file"],
            Tier::Read,
        ),
        Step::new(
            "open the form that adds one",
            &["new", "article"],
            Tier::Read,
        ),
        Step::new(
            "write the article",
            &["create", "article"],
            Tier::ReversibleWrite,
        )
        .param(&["title"], "Recipes")
        .param(&["slug"], "recipes")
        .param(&["content"], FIRST)
        .param(&["summary"], "Start the recipes"),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    let written = wiki(&app);
    assert_eq!(
        written,
        (
            vec![root.clone(), json!(["Recipes", FIRST, "Start the recipes"])],
            vec![json!([""]), json!(["recipes"])],
        ),
        "the article as written"
    );
    // The wiki shows the article it stored: the agent reads it in the state, the
    // page's running text (its paragraphs, as the database holds them).
    read_article(&agent, &written.0[1]).await;

    let steps = [
        Step::new("open the editor", &["article", "menu"], Tier::Read).record(&["title"], "Edit"),
        // The form asks for every field again; the title as the state shows it.
        Step::new("save the edit", &["save", "changes"], Tier::ReversibleWrite)
            .param(&["title"], "Recipes")
            .param(&["content"], SECOND)
            .param(&["summary"], "Salt"),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    assert_eq!(
        wiki(&app).0,
        vec![
            root.clone(),
            json!(["Recipes", FIRST, "Start the recipes"]),
            json!(["Recipes", SECOND, "Salt"]),
        ],
        "the article's two revisions"
    );
    read_article(&agent, &wiki(&app).0[2]).await;

    let steps = [
        Step::new("open the editor again", &["article", "menu"], Tier::Read)
            .record(&["title"], "Edit"),
        // A link to the page that asks; deletes nothing by itself.
        Step::new("open the deletion page", &["open", "delete"], Tier::Read),
        Step::new(
            "purge the article",
            &["delete", "article"],
            Tier::IrreversibleWrite,
        )
        .param(&["confirm"], true)
        .param(&["purge"], true),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    agent.finish(wiki(&app), (vec![root], vec![json!([""])]));
}
