//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on a Dash 4 app from
//! PyPI (`fixtures/real/dash_app.py`): a contact form of `dcc` components (a checklist
//! drawn as a listbox of labelled boxes, radio items, a slider with its number box, a
//! dropdown drawn as a button that opens its options in a popover) and
//! rows of `html.Div`s with `html.Span`s, each with its own "Remove", which the
//! extraction finds as rows by those twin buttons. The agent uses only nspd's state; the
//! app's sqlite table of contacts is the ground truth: exactly the first contact, as it
//! was given, after the second was removed.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dash_save_two_contacts_and_remove_one() {
    let app = RealApp::start(AppKind::Dash, RealAppOptions::default()).expect("dash");
    let mut agent = FlowAgent::start("dash", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let said = |what: &str| Verify::Expr(format!("status == \"{what}\""));

    // The checklist's boxes are one list parameter (they were one string, and the
    // options a list of records).
    agent
        .run(
            Step::new(
                "save a contact",
                &["save", "contact"],
                Tier::ReversibleWrite,
            )
            .param(&["name"], "Ada")
            .param(&["email"], "ada@example.org")
            .param(&["news"], json!(["Weekly", "Monthly"]))
            .param(&["kind"], "Company")
            .param(&["level"], 4)
            // A dropdown is a parameter (it was a read opener, `choose_country()`).
            .param(&["country"], "Japan")
            .verify(said("Saved Ada")),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new("save another", &["save", "contact"], Tier::ReversibleWrite)
                .param(&["name"], "Bo")
                .param(&["email"], "bo@example.org")
                .param(&["news"], json!([]))
                .param(&["kind"], "Person")
                .param(&["level"], 2)
                .verify(said("Saved Bo")),
        )
        .await
        .unwrap_or_else(log);
    let contacts = || -> Vec<Vec<Value>> {
        app.query("select name, email, news, kind, level, country from contacts order by id")
            .expect("the database")
    };
    assert_eq!(contacts().len(), 2, "{:?}", contacts());
    // Each row's "Remove" (a `button` among `span`s) is one action by the row's text.
    agent
        .run(
            Step::new("remove Bo", &["remove"], Tier::IrreversibleWrite)
                .on("Bo")
                .verify(said("Removed")),
        )
        .await
        .unwrap_or_else(log);

    agent.finish(
        contacts(),
        vec![vec![
            "Ada".into(),
            "ada@example.org".into(),
            "Weekly,Monthly".into(),
            "Company".into(),
            4.into(),
            "Japan".into(),
        ]],
    );
}
