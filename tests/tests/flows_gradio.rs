//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on a Gradio 6 app
//! from PyPI (`fixtures/real/gradio_app.py`): an order form as Gradio draws one, with
//! no `<form>`, a radio group whose radios each have a name of their own, a slider with
//! its own reset button, a checkbox group, and a dropdown whose options open on focus
//! and hold a hidden check mark. The agent uses only nspd's state; the app's sqlite
//! table of orders is the ground truth: exactly the second order, as it was given.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gradio_place_an_order_delete_all_and_place_another() {
    let app = RealApp::start(AppKind::Gradio, RealAppOptions::default()).expect("gradio");
    let mut agent = FlowAgent::start("gradio", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    // The app says what it did in its "Result" box.
    let said = || Verify::Expr("changed(pizza_orders.result)".into());

    // Every choice at once: the dropdown's option, the slider's number (its reset is no
    // form of its own), two toppings, the radio the group offers by its caption, the
    // box Gradio names `test` (the model view follows the name with its label, "Gift
    // wrap").
    agent
        .run(
            Step::new(
                "place an order",
                &["place", "order"],
                Tier::IrreversibleWrite,
            )
            .param(&["customer", "name"], "Ada")
            .param(&["size"], "Large")
            .param(&["quantity"], 3)
            .param(&["olives"], true)
            .param(&["peppers"], true)
            .record(&["delivery"], "Delivery")
            .param(&["test"], true)
            .param(&["notes"], "Ring twice")
            .verify(said()),
        )
        .await
        .unwrap_or_else(log);
    let orders = || -> Vec<Vec<Value>> {
        app.query("select name, size, qty, toppings, delivery, gift, notes from orders")
            .expect("the database")
    };
    assert_eq!(
        orders(),
        vec![vec![
            Value::from("Ada"),
            "Large".into(),
            3.into(),
            r#"["Olives", "Peppers"]"#.into(),
            "Delivery".into(),
            1.into(),
            "Ring twice".into(),
        ]],
        "the first order, exactly as given, once"
    );
    agent
        .run(
            Step::new(
                "delete all orders",
                &["delete", "all"],
                Tier::IrreversibleWrite,
            )
            .verify(said()),
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
            .param(&["customer", "name"], "Bo")
            .param(&["size"], "Small")
            .param(&["quantity"], 2)
            .param(&["olives"], false)
            .param(&["cheese"], true)
            .record(&["delivery"], "Pickup")
            .param(&["test"], false)
            .param(&["notes"], "")
            .verify(said()),
        )
        .await
        .unwrap_or_else(log);

    agent.finish(
        orders(),
        vec![vec![
            "Bo".into(),
            "Small".into(),
            2.into(),
            r#"["Cheese", "Peppers"]"#.into(),
            "Pickup".into(),
            0.into(),
            "".into(),
        ]],
    );
}
