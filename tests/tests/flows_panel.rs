//! The flow suite (`nsp_tests::flows`) on Panel 1.9 (HoloViz, on Bokeh 3) from PyPI
//! (`fixtures/real/panel_app.py`): an expenses tracker whose every widget Bokeh draws in
//! a shadow root of its own. Its number box sits between two arrows with no name, its
//! checkbox is named only by the words after it, its date is a flatpickr calendar (the
//! value in a hidden input, a read-only box in its place), and "Delete last expense"
//! sits in the column beside the form's. The agent adds two expenses (the second's
//! date a month away from the first's) and deletes the newest, using only nspd's
//! state; the app's sqlite table is the ground truth: exactly the first expense, with
//! every value the agent gave.

use nsp_tests::flows::{FlowAgent, Step, Tier};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panel_adds_two_expenses_through_shadow_roots_and_a_flatpickr_calendar_then_deletes_one() {
    let app = RealApp::start(AppKind::Panel, RealAppOptions::default()).expect("panel");
    let mut agent = FlowAgent::start("panel", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    // The amount box is a text box (Bokeh's number input), so the state types it as a
    // string.
    let expense = |who: &str, category: &str, amount: &str, date: &str, shared: bool| {
        // An expense can be deleted again: `reversible_write`.
        Step::new("add an expense", &["add", "expense"], Tier::ReversibleWrite)
            .param(&["who"], who)
            .param(&["category"], category)
            .param(&["amount"], amount)
            .param(&["spent"], date)
            .param(&["shared"], shared)
    };
    let steps = [
        expense("Ada", "Travel", "42", "2026-12-24", true),
        expense("Bo", "Books", "7", "2027-01-05", false),
        Step::new(
            "delete the newest expense",
            &["delete"],
            Tier::IrreversibleWrite,
        ),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    let rows = app
        .query("select who, category, amount, spent_on, shared from expenses")
        .expect("the expenses");
    agent.finish(
        rows,
        vec![vec![
            json!("Ada"),
            json!("Travel"),
            json!(42),
            json!("2026-12-24"),
            json!(1),
        ]],
    );
}
