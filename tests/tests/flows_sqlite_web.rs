//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on sqlite-web 0.8
//! from PyPI, a Flask browser and editor for a SQLite file: its row editor keeps every
//! column's field disabled until the box before it ("Allow updating this column.") is
//! ticked, and a row's delete is a confirmation page. The agent uses only nspd's state;
//! the database file is the ground truth: exactly the one column renamed, exactly the
//! one row gone.

use nsp_tests::flows::{FlowAgent, Step, Tier};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_web_edit_a_row_and_delete_another() {
    let app = RealApp::start(AppKind::SqliteWeb, RealAppOptions::default()).expect("sqlite-web");
    let mut agent = FlowAgent::start("sqlite-web", &app.url("/customers/content/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    agent
        .run(
            Step::new("open Ann Lee's row", &["edit"], Tier::Read)
                .record(&["id"], "1")
                .verify(nsp_tests::flows::Verify::None),
        )
        .await
        .unwrap_or_else(log);
    // The name's field is disabled: the dispatcher ticks its box, then fills it; the
    // other columns stay as they were (their boxes unticked, nothing sent for them).
    agent
        .run(
            Step::new("rename her", &["update"], Tier::ReversibleWrite)
                .param(&["name"], "Ann Bell"),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new("open Cy Diaz's delete page", &["delete"], Tier::Read)
                .record(&["id"], "3")
                .verify(nsp_tests::flows::Verify::None),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(Step::new(
            "confirm the delete",
            &["delete"],
            Tier::IrreversibleWrite,
        ))
        .await
        .unwrap_or_else(log);

    let truth: Vec<Vec<Value>> = app
        .query("select id, name, email, city from customers order by id")
        .expect("the database");
    agent.finish(
        truth,
        vec![
            vec![
                json!(1),
                json!("Ann Bell"),
                json!("ann@example.com"),
                json!("Oslo"),
            ],
            vec![
                json!(2),
                json!("Bo Chen"),
                json!("bo@example.com"),
                json!("Lyon"),
            ],
        ],
    );
}
