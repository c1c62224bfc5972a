//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on the two apps
//! APPS-A added for issue 20: Trac (a server-rendered tracker with folded sections and a
//! delete confirmation page) and I Hate Money (a shared-budget app with a dialog and an
//! in-place "Are you sure?"). The agent uses only the names, parameters and objects of
//! nspd's state; each app's own sqlite is the ground truth; each test asserts 0 unsafe
//! steps and the ground truth exactly and prints its row of the flow table.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::Value;

/// Waits (at most 20 s) until the tab's state shows a value of `objects` containing
/// `text`: after a write that reloads the page on the same URL (or one the person did),
/// the next step must be planned on the new page's state, not the old one's.
async fn until_shown(agent: &FlowAgent, text: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let state = agent.state().await.expect("state");
        let shown = state["objects"]
            .as_object()
            .is_some_and(|o| o.values().any(|v| v.to_string().contains(text)));
        if shown {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the page never showed {text:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    }
}

/// Waits (at most 20 s) until the tab's state is of a page whose URL contains `part`.
async fn until_url(agent: &FlowAgent, part: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let state = agent.state().await.expect("state");
        if state["context"]["url"]
            .as_str()
            .is_some_and(|u| u.contains(part))
        {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the page never went to {part:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    }
}

/// Rows of `sql` as plain JSON, for comparing with what the flow meant to leave.
fn rows(app: &RealApp, sql: &str) -> Vec<Vec<Value>> {
    app.query(sql).expect("the app's database")
}

/// Trac (anyone may do anything; the ticket deleter is on): file a ticket, comment on
/// it, unfold "Modify Ticket" and resolve it as fixed, then go to the previous (seeded)
/// ticket and delete it through the deleter's confirmation page. Ground truth: the
/// environment's sqlite (`ticket`, `ticket_change`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trac_file_comment_resolve_and_delete() {
    let app = RealApp::start(AppKind::Trac, RealAppOptions::default()).expect("trac");
    let mut agent = FlowAgent::start("trac", &app.url("/newticket"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    agent
        .run(
            Step::new(
                "file a ticket",
                &["create", "ticket"],
                Tier::ReversibleWrite,
            )
            .param(&["summary"], "Shears rust after one wash")
            .param(
                &["description"],
                "Both blades, after a rinse with tap water.",
            ),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new(
                "comment on it",
                &["submit", "changes"],
                Tier::ReversibleWrite,
            )
            .param(&["comment"], "Seen on two more units."),
        )
        .await
        .unwrap_or_else(log);
    // Trac answers a comment with the ticket at its new comment's anchor: the steps
    // after it are planned on that page.
    until_url(&agent, "#comment:1").await;
    agent
        .run(
            // It only unfolds a section: nothing to verify.
            Step::new(
                "unfold the ticket editor",
                &["modify", "ticket"],
                Tier::Read,
            )
            .verify(Verify::None),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new(
                "resolve it as fixed",
                &["submit", "changes"],
                Tier::ReversibleWrite,
            )
            // The resolution's select is disabled until "resolve" is chosen (so it
            // is no parameter); Trac enables it with its first option, "fixed".
            .record(&["action"], "resolve"),
        )
        .await
        .unwrap_or_else(log);
    until_url(&agent, "#comment:2").await;
    agent
        .run(Step::new(
            "open the previous ticket",
            &["previous", "ticket"],
            Tier::Read,
        ))
        .await
        .unwrap_or_else(log);
    agent
        .run(Step::new("open its delete page", &["delete"], Tier::Read))
        .await
        .unwrap_or_else(log);
    agent
        .run(Step::new(
            "confirm the delete",
            &["delete", "ticket"],
            Tier::IrreversibleWrite,
        ))
        .await
        .unwrap_or_else(log);

    let mut truth = rows(
        &app,
        "select id, summary, status, coalesce(resolution, '') from ticket order by id",
    );
    truth.extend(rows(
        &app,
        "select ticket, field, newvalue from ticket_change \
         where field in ('comment', 'status', 'resolution') order by ticket, time, field",
    ));
    let row = |a: Value, b: &str, c: &str, d: Option<&str>| {
        let mut r = vec![a, b.into(), c.into()];
        if let Some(d) = d {
            r.push(d.into());
        }
        r
    };
    agent.finish(
        truth,
        vec![
            row(
                1.into(),
                "Rake handle cracks in cold weather",
                "new",
                Some(""),
            ),
            row(2.into(), "Add a left-handed pruner", "new", Some("")),
            row(
                4.into(),
                "Shears rust after one wash",
                "closed",
                Some("fixed"),
            ),
            row(4.into(), "comment", "Seen on two more units.", None),
            row(4.into(), "comment", "", None),
            row(4.into(), "resolution", "fixed", None),
            row(4.into(), "status", "closed", None),
        ],
    );
}

/// I Hate Money (the seeded "demo" project, which the app opens without its code): add
/// a participant, add a bill in the add-bill dialog, correct another bill's amount on
/// its edit page, and delete a third through the app's in-place "Are you sure?" (the
/// first click arms the button, the second posts). Ground truth: its sqlite (`person`,
/// `bill`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ihatemoney_participant_bill_edit_and_delete() {
    let app = RealApp::start(AppKind::IHateMoney, RealAppOptions::default()).expect("ihatemoney");
    let mut agent = FlowAgent::start("ihatemoney", &app.url("/demo/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    // The page reloads on the same URL, and filling the name already changes the form's
    // object: only one more participant row says the write happened.
    agent
        .run(
            Step::new("add a participant", &["add"], Tier::ReversibleWrite)
                .avoid(&["bill"])
                .param(&["name"], "Bruno")
                .verify(Verify::Expr(
                    "len(sidebar.rows) > len(prev.sidebar.rows)".into(),
                )),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            // It only opens a dialog in the page: nothing to verify.
            Step::new(
                "open the add-bill dialog",
                &["add", "new", "bill"],
                Tier::Read,
            )
            .verify(Verify::None),
        )
        .await
        .unwrap_or_else(log);
    // The payer select's options are ids ("1", "2"); the state offers the names a
    // person reads, and the dispatcher picks the option by its text. So for the "For
    // whom?" boxes (all ticked, each valued by a person's id): the state offers the
    // names their labels say, and the boxes not listed are cleared.
    agent
        .run_or_person(
            Step::new("add a bill", &["submit"], Tier::ReversibleWrite)
                .avoid(&["one"])
                .param(&["date"], "2026-03-10")
                .param(&["what"], "Plants")
                .record(&["payer"], "Georg")
                .param(&["amount"], "36")
                .param(&["payed", "for"], serde_json::json!(["Amina", "Bruno"]))
                .verify(Verify::Expr(
                    "len(bill_table) > len(prev.bill_table)".into(),
                )),
            "const form = document.querySelector('#bill-form form');\
             form.querySelector('#date').value = '2026-03-10';\
             form.querySelector('#what').value = 'Plants';\
             const payer = form.querySelector('#payer');\
             payer.value = Array.from(payer.options).find((o) => o.textContent.trim() === 'Georg').value;\
             form.querySelector('#amount').value = '36';\
             for (const box of form.querySelectorAll('input[name=payed_for]')) box.checked = ['Amina', 'Bruno'].includes(box.labels[0].textContent.trim());\
             form.querySelector('#submit').click();",
        )
        .await
        .unwrap_or_else(log);
    until_shown(&agent, "Plants").await;
    agent
        .run(
            Step::new("open a bill", &["edit", "bill"], Tier::Read).record(&["when"], "2026-03-05"),
        )
        .await
        .unwrap_or_else(log);
    // Every required field goes with the request: the ones not changed keep the values
    // the state shows as their defaults.
    let state = agent.state().await.expect("state");
    let mut step = Step::new("correct its amount", &["submit"], Tier::ReversibleWrite);
    for p in state["actions"]["submit"]["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let (Some(name), Some(value)) = (p["name"].as_str(), p.get("default_value")) else {
            continue;
        };
        if p["required"] == Value::Bool(true) && name != "amount" {
            step = step.param(&[name], value.clone());
        }
    }
    agent
        .run(step.param(&["amount"], "48.5"))
        .await
        .unwrap_or_else(log);
    until_shown(&agent, "48.50").await;
    // The bill rows' delete buttons are one row action keyed by the bill's date, but
    // its first click only arms the button ("Are you sure?"): no object shows that, so
    // no verify expression can prove it and nspd refuses a vacuous one. The person arms
    // it; the agent confirms below, where the bill's disappearance is the proof.
    agent
        .person_does(
            "delete the cleaning bill (arm its button)",
            Tier::IrreversibleWrite,
            "const row = Array.from(document.querySelectorAll('#bill_table tbody tr'))\
                 .find((tr) => tr.cells[0] && tr.cells[0].textContent.trim() === '2026-03-08');\
             const button = row.querySelector('form.delete-bill button');\
             button.click();\
             for (let i = 0; i < 100 && !button.classList.contains('confirm'); i++) await new Promise((r) => setTimeout(r, 50));\
             if (!button.classList.contains('confirm')) throw new Error('the button did not ask');",
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new("confirm the delete", &["sure"], Tier::IrreversibleWrite).verify(
                Verify::Expr("len(bill_table) < len(prev.bill_table)".into()),
            ),
        )
        .await
        .unwrap_or_else(log);

    let mut truth = rows(&app, "select id, name, activated from person order by id");
    truth.extend(rows(
        &app,
        "select what, amount, payer_id, date from bill order by id",
    ));
    truth.extend(rows(
        &app,
        "select p.name from billowers o join person p on p.id = o.person_id \
         join bill b on b.id = o.bill_id where b.what = 'Plants' order by p.id",
    ));
    agent.finish(
        truth,
        vec![
            vec![1.into(), "Amina".into(), 1.into()],
            vec![2.into(), "Georg".into(), 1.into()],
            vec![3.into(), "Alice".into(), 1.into()],
            vec![4.into(), "Bruno".into(), 1.into()],
            vec![
                "Groceries".into(),
                120.0.into(),
                2.into(),
                "2026-03-03".into(),
            ],
            vec![
                "Internet bill".into(),
                48.5.into(),
                3.into(),
                "2026-03-05".into(),
            ],
            vec!["Plants".into(), 36.0.into(), 2.into(), "2026-03-10".into()],
            vec!["Amina".into()],
            vec!["Bruno".into()],
        ],
    );
}
