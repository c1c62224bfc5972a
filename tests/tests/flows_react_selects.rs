//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on a ticket form whose
//! selects are drawn by the two kits most React apps use, installed from npm
//! (`fixtures/real/react_selects`): Radix's Select (a `<button role=combobox>` with a
//! placeholder, its options in a portal) and Headless UI's Listbox (a button labelled by
//! its field's label and itself, showing the person chosen). Each is a parameter of
//! "Save ticket", set by opening its list and choosing the option. The agent uses only
//! nspd's state; the server's sqlite table of tickets is the ground truth.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react_selects_file_two_tickets() {
    let app =
        RealApp::start(AppKind::ReactSelects, RealAppOptions::default()).expect("react-selects");
    let mut agent = FlowAgent::start("react-selects", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let said = |what: &str| Verify::Expr(format!("status == \"{what}\""));
    // Radix's trigger was a field the dispatcher threw on; Headless UI's a read that
    // only opened its list.
    for (subject, category, assignee) in [
        ("Login broken", "Bug", "Tom Cook"),
        ("Refund", "Billing", "Devon Webb"),
    ] {
        agent
            .run(
                Step::new("file a ticket", &["save", "ticket"], Tier::ReversibleWrite)
                    .param(&["subject"], subject)
                    .param(&["category"], category)
                    .param(&["assignee"], assignee)
                    .verify(said(&format!("Saved {subject}"))),
            )
            .await
            .unwrap_or_else(log);
    }
    let tickets: Vec<Vec<Value>> = app
        .query("select subject, category, assignee from tickets order by id")
        .expect("the database");
    agent.finish(
        tickets,
        vec![
            vec!["Login broken".into(), "bug".into(), "Tom Cook".into()],
            vec!["Refund".into(), "billing".into(), "Devon Webb".into()],
        ],
    );
}
