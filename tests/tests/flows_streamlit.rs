//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on a Streamlit 1.67
//! app from PyPI (`fixtures/real/streamlit_app.py`): an expense form of React Aria
//! widgets in `st.form` (no `<form>`), a slider whose range input hides in its thumb,
//! and rows of columns drawn with `<div>`s, each with its own "Delete", which the
//! extraction finds as rows by those twin buttons. The agent uses only nspd's state;
//! the app's sqlite table of expenses is the ground truth: exactly the first expense,
//! as it was given, after the second was deleted.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamlit_add_two_expenses_and_delete_one() {
    let app = RealApp::start(AppKind::Streamlit, RealAppOptions::default()).expect("streamlit");
    let mut agent = FlowAgent::start("streamlit", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    // The app says what it stored in a success box under the form.
    let said = |what: &str| Verify::Expr(format!("st_main.status == \"Added {what}\""));

    // Every kind of field: the slider's thumb stands for its hidden range input, the
    // select box's option is picked from its list, the multiselect takes a list and
    // makes a tag of each.
    agent
        .run(
            Step::new("add an expense", &["add", "expense"], Tier::ReversibleWrite)
                .param(&["description"], "Taxi")
                .param(&["amount"], 12.5)
                .param(&["category"], "Travel")
                .param(&["paid", "by"], "Ben")
                .param(&["tags"], serde_json::json!(["client", "urgent"]))
                .param(&["reimbursable"], true)
                .param(&["priority"], 5)
                .param(&["note"], "airport")
                .verify(said("Taxi")),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new("add another", &["add", "expense"], Tier::ReversibleWrite)
                .param(&["description"], "Lunch")
                .param(&["amount"], 9)
                .param(&["category"], "Food")
                .param(&["paid", "by"], "Ana")
                .param(&["priority"], 2)
                .verify(said("Lunch")),
        )
        .await
        .unwrap_or_else(log);
    let expenses = || -> Vec<Vec<Value>> {
        app.query("select what, amount, category, paid_by, tags, reimbursable, priority, note from expenses order by id")
            .expect("the database")
    };
    assert_eq!(expenses().len(), 2, "{:?}", expenses());
    // Each expense is a row of columns drawn with `<div>`s and its own "Delete": the
    // rows are found by those twin buttons, so the delete takes the row by its text.
    agent
        .run(
            Step::new("delete the lunch", &["delete"], Tier::IrreversibleWrite)
                .on("Lunch")
                .verify(Verify::Expr("!exists(st_main.items[1])".into())),
        )
        .await
        .unwrap_or_else(log);

    agent.finish(
        expenses(),
        vec![vec![
            "Taxi".into(),
            12.5.into(),
            "Travel".into(),
            "Ben".into(),
            "client,urgent".into(),
            1.into(),
            5.into(),
            "airport".into(),
        ]],
    );
}
