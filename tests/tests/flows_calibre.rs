//! The flow suite (`nsp_tests::flows`) on Calibre-Web 0.6 from PyPI, a library of
//! e-books (Flask, Bootstrap 3): its books are a grid of cards (a cover and a title
//! linking to the book, and its author) that nothing marks as rows, its top bar lists
//! "Logout" among links of one shape, and a book opens in a dialog holding switches.
//! The agent logs in, points it at a library, opens a book by its title and marks it
//! read, using only nspd's state; the app's settings database is the ground truth:
//! exactly that book read, by that user.

use nsp_tests::flows::{FlowAgent, Step, Tier};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calibre_web_open_a_book_from_its_grid_and_mark_it_read() {
    let app = RealApp::start(AppKind::CalibreWeb, RealAppOptions::default()).expect("calibre-web");
    let mut agent = FlowAgent::start("calibre-web", &app.url("/login"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    agent
        .run(
            Step::new("log in", &["login"], Tier::ReversibleWrite)
                .param(&["username"], "admin")
                .param(&["password"], "admin123"),
        )
        .await
        .unwrap_or_else(log);
    let library = app.data_dir().join("library");
    agent
        .run(
            Step::new("point it at the library", &["save"], Tier::ReversibleWrite)
                .param(&["calibre", "dir"], library.to_string_lossy().as_ref()),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(Step::new(
            "go to the books",
            &["calibre", "web"],
            Tier::Read,
        ))
        .await
        .unwrap_or_else(log);

    // The grid is a list of books, and "Logout" is no choice of the top bar's links.
    let state = agent.state().await.unwrap_or_else(log);
    let objects = &state["objects"];
    assert_eq!(objects["books[0].title"], "Persuasion", "{objects:#}");
    assert_eq!(
        objects["books[0].author_name"], "Jane Austen",
        "{objects:#}"
    );
    let actions = state["actions"].as_object().expect("actions");
    for (name, action) in actions {
        let choices = action["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|p| p["allowed_values"].as_array().into_iter().flatten());
        for choice in choices {
            assert_ne!(
                choice,
                &json!("Logout"),
                "{name} offers logging out as a choice"
            );
        }
    }
    let logout: Vec<(&String, &Value)> = actions
        .iter()
        .filter(|(n, _)| n.contains("logout"))
        .collect();
    assert_eq!(logout.len(), 1, "{:#?}", actions.keys());
    assert_eq!(logout[0].1["reversibility"], "reversible_write");

    agent
        .run(Step::new("open Emma", &["open", "books"], Tier::Read).record(&["title"], "Emma"))
        .await
        .unwrap_or_else(log);
    agent
        .run(Step::new("mark it read", &["read"], Tier::ReversibleWrite).param(&["checked"], true))
        .await
        .unwrap_or_else(log);

    let truth: Vec<Vec<Value>> = app
        .query(
            "select b.book_id, u.name from book_read_link b join user u on u.id = b.user_id \
             where b.read_status = 1",
        )
        .expect("the settings database");
    agent.finish(truth, vec![vec![json!(2), json!("admin")]]);
}
