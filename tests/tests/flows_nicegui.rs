//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on a NiceGUI 3 app
//! from PyPI (`fixtures/real/nicegui_app.py`): a task form drawn with Quasar's
//! components, whose select is a read-only combobox with its list drawn only once it
//! is clicked open, and whose radio group is ARIA radios (`role=radio`). The agent uses
//! only nspd's state; the app's sqlite table of tasks is the ground truth: exactly the
//! task added after "Delete all tasks", as it was given.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nicegui_add_a_task_delete_all_and_add_another() {
    let app = RealApp::start(AppKind::NiceGui, RealAppOptions::default()).expect("nicegui");
    let mut agent = FlowAgent::start("nicegui", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let tasks = || -> Vec<Vec<Value>> {
        app.query("select title, priority, due, urgent, kind from tasks")
            .expect("the database")
    };
    // The one row of the table of tasks (empty before each add) says the write happened.
    let listed = || Verify::Expr("len(rows) == 1".into());

    agent
        .run(
            Step::new("add a task", &["add", "task"], Tier::ReversibleWrite)
                .param(&["title"], "Call Ann")
                .param(&["priority"], "High")
                .param(&["urgent"], true)
                .param(&["home"], false)
                .param(&["work"], true)
                .verify(listed()),
        )
        .await
        .unwrap_or_else(log);
    assert_eq!(
        tasks(),
        vec![vec![
            Value::from("Call Ann"),
            "High".into(),
            "".into(),
            1.into(),
            "Work".into(),
        ]],
        "the first task, exactly as given, once"
    );
    agent
        .run(
            Step::new(
                "delete all tasks",
                &["delete", "all"],
                Tier::IrreversibleWrite,
            )
            .verify(Verify::Expr("!exists(rows[0])".into())),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new("add another", &["add", "task"], Tier::ReversibleWrite)
                .param(&["title"], "Water the plants")
                .param(&["priority"], "Low")
                .param(&["due", "date"], "2026-12-24")
                .param(&["urgent"], false)
                .param(&["home"], true)
                .verify(listed()),
        )
        .await
        .unwrap_or_else(log);

    agent.finish(
        tasks(),
        vec![vec![
            "Water the plants".into(),
            "Low".into(),
            "2026-12-24".into(),
            0.into(),
            "Home".into(),
        ]],
    );
}
