//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on an order form of
//! dash-mantine-components from PyPI (`fixtures/real/mantine_app.py`, Mantine 8): a
//! select drawn as a read-only input that opens a listbox, a number box drawn as a text
//! input, a switch, a segmented control whose radios' group name Mantine draws at random
//! on each load (so nothing names it: the agent picks it by its options), and a slider
//! whose thumb has no input (moved by keys). The agent uses only nspd's state; the
//! app's sqlite table of orders is the ground truth: both orders, exactly as given.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mantine_place_two_orders() {
    let app = RealApp::start(AppKind::Mantine, RealAppOptions::default()).expect("mantine");
    let mut agent = FlowAgent::start("mantine", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let said = |what: &str| Verify::Expr(format!("status == \"{what}\""));

    // Each value is one Mantine draws its own way: the select was typed into and left
    // unchanged, the slider refused (a thumb with no input), the segmented control's
    // parameter named by its random group name.
    agent
        .run(
            Step::new(
                "place an order",
                &["place", "order"],
                Tier::IrreversibleWrite,
            )
            .param(&["customer"], "Ada")
            .param(&["shipping"], "Express")
            .param(&["quantity"], "3")
            .param(&["rush"], true)
            .record(&[], "L")
            .param(&["number"], 15)
            .verify(said("Placed Ada")),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new(
                "place another",
                &["place", "order"],
                Tier::IrreversibleWrite,
            )
            .param(&["customer"], "Bo")
            .param(&["shipping"], "Overnight")
            .param(&["quantity"], "2")
            .param(&["rush"], false)
            .record(&[], "S")
            .param(&["number"], 0)
            .verify(said("Placed Bo")),
        )
        .await
        .unwrap_or_else(log);

    let orders: Vec<Vec<Value>> = app
        .query("select customer, shipping, quantity, rush, size, tip from orders order by id")
        .expect("the database");
    agent.finish(
        orders,
        vec![
            vec![
                "Ada".into(),
                "Express".into(),
                3.into(),
                1.into(),
                "L".into(),
                15.into(),
            ],
            vec![
                "Bo".into(),
                "Overnight".into(),
                2.into(),
                0.into(),
                "S".into(),
                0.into(),
            ],
        ],
    );
}
