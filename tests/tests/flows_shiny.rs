//! The flow suite (`nsp_tests::flows`) on Shiny for Python 1.8 from PyPI
//! (`fixtures/real/shiny_app.py`): a bakery's order form whose product is a select
//! Selectize draws (the page's select hidden, a box, a search input and a dropdown of
//! options with no roles in its place), whose delivery date is a text input
//! bootstrap-datepicker draws (Shiny reads the date from the picker, which parses what
//! is typed on keyup), and whose customer is sent on change. The agent places two
//! orders, each product one of options that exist only once the dropdown opens ("Rye
//! rolls" beside "Rye"), then cancels the newest, using only nspd's state; the app's
//! sqlite table is the ground truth: exactly the first order, with every value the
//! agent gave. Twice: in bslib's sidebar layout (the fields in an `<aside>`), and as two
//! cards of a fluid page (`/?layout=cards`), where nothing but `div`s of classes holds
//! the fields and "Place order", and "Cancel last order" sits in the other card.

use nsp_tests::flows::{FlowAgent, Step, Tier};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shiny_places_two_orders_through_selectize_and_a_datepicker_then_cancels_one() {
    orders_then_cancel("shiny", "/").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shiny_in_cards_of_divs_sends_the_fields_of_the_card_holding_its_button() {
    orders_then_cancel("shiny-cards", "/?layout=cards").await;
}

/// Two orders and the cancel of the newest, on the app's page at `path`; the table
/// holds exactly the first order.
async fn orders_then_cancel(name: &str, path: &str) {
    let app = RealApp::start(AppKind::Shiny, RealAppOptions::default()).expect("shiny");
    let mut agent = FlowAgent::start(name, &app.url(path)).await.expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let order = |customer: &str, product: &str, quantity: i64, date: &str| {
        // Placing an order is a purchase: `irreversible_write`, with the check that the
        // orders' table grew.
        Step::new(
            "place an order",
            &["place", "order"],
            Tier::IrreversibleWrite,
        )
        .param(&["customer"], customer)
        .param(&["product"], product)
        .param(&["quantity"], quantity)
        .param(&["shipping"], "Courier")
        .param(&["gift"], true)
        .param(&["deliver"], date)
    };
    let steps = [
        order("Ada", "Rye rolls", 3, "2026-12-24"),
        order("Grace", "Baguette", 1, "2026-12-31"),
        // Deletes the newest order at once, no question asked.
        Step::new(
            "cancel the newest order",
            &["cancel"],
            Tier::IrreversibleWrite,
        ),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    let rows = app
        .query("select customer, product, quantity, shipping, gift, deliver_on from orders")
        .expect("the orders");
    agent.finish(
        rows,
        vec![vec![
            json!("Ada"),
            json!("Rye rolls"),
            json!(3),
            json!("Courier"),
            json!(1),
            json!("2026-12-24"),
        ]],
    );
}
