//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on Fava, Beancount's
//! web interface from PyPI: a Svelte app whose add-transaction dialog opens with its
//! payee field focused and its suggestions covering the postings, whose autocompletes
//! commit their value when they lose the focus, and whose postings grow a row once the
//! last one is filled; and whose editor (CodeMirror 6) holds the whole ledger. The
//! agent uses only nspd's state; the ledger file is the ground truth: exactly one new
//! transaction, with what the agent gave, then the ledger as the agent read it in the
//! editor plus one more, byte for byte.

use std::time::Duration;

use nsp_tests::flows::{settle, FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};

/// The ledger's transactions, each on one line with its whitespace collapsed.
fn transactions(app: &RealApp) -> Vec<String> {
    let ledger = std::fs::read_to_string(&app.db).expect("the ledger");
    ledger
        .split("\n\n")
        .map(|block| block.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| t.as_bytes().get(10) == Some(&b' ') && t[11..].starts_with("* "))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fava_add_a_transaction_through_its_dialog() {
    let app = RealApp::start(AppKind::Fava, RealAppOptions::default()).expect("fava");
    let seed = transactions(&app);
    assert_eq!(seed.len(), 4, "{seed:?}");
    let mut agent = FlowAgent::start("fava", &app.url("/household/journal/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    agent
        .run(
            // "+" titled "Add Journal Entry": it opens the dialog in the page.
            Step::new(
                "open the add-transaction dialog",
                &["add", "entry"],
                Tier::Read,
            )
            .verify(Verify::None),
        )
        .await
        .unwrap_or_else(log);
    // The payee's open suggestions cover the account and amount fields: they are still
    // the form's, and the dispatcher moves the focus off the payee first. Fields are
    // filled top to bottom with the page rendering between them, and the button is
    // pressed as a person presses it, so the payee (committed on blur) is sent.
    agent
        .run(
            Step::new("add a transaction", &["save"], Tier::ReversibleWrite)
                .param(&["date"], "2026-12-04")
                .param(&["flag"], "*")
                .param(&["payee"], "Bakery")
                .param(&["narration"], "Bread")
                .param(&["account"], "Expenses:Groceries")
                .param(&["amount"], "3.20 EUR"),
        )
        .await
        .unwrap_or_else(log);

    let mut expected = seed;
    expected.push("2026-12-04 * \"Bakery\" \"Bread\" Expenses:Groceries 3.20 EUR".to_owned());
    let added = settle(
        || transactions(&app),
        |t| *t == expected,
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(added, expected, "the dialog's transaction");

    // The editor (CodeMirror 6: a line an element, the postings' indentation a text
    // node) holds the whole ledger. The agent reads it from the state, adds a
    // transaction at its end and saves it: the file must be what it read plus that,
    // byte for byte, with nothing lost.
    agent
        .run(
            Step::new("open the editor", &["open"], Tier::Read)
                .on("Editor")
                .verify(Verify::None),
        )
        .await
        .unwrap_or_else(log);
    let ledger = std::fs::read_to_string(&app.db).expect("the ledger");
    let read = agent
        .read_text(
            |_, t| t.contains("option \"title\""),
            |t| t == ledger,
            Duration::from_secs(15),
        )
        .await
        .unwrap_or_else(|e| panic!("the ledger file holds {ledger:?}: {e:#}"));
    let written = format!(
        "{read}\n2026-12-05 * \"Bakery\" \"Rolls\"\n  Expenses:Groceries  2.10 EUR\n  Assets:Cash\n"
    );
    agent
        .run(
            Step::new(
                "save the ledger with one transaction more",
                &["save"],
                Tier::ReversibleWrite,
            )
            .param(&["text"], written.clone()),
        )
        .await
        .unwrap_or_else(log);
    let file = || std::fs::read_to_string(&app.db).expect("the ledger");
    let saved = settle(file, |f| *f == written, Duration::from_secs(10)).await;
    agent.finish(saved, written);
}
