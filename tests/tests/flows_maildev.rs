//! The flow suite (`nsp_tests::flows`) on MailDev 3 from npm, a mail catcher's web
//! client (React, Tailwind): its list draws each message whole as one `<button>`
//! (sender, time, subject and the start of the text), its view switcher is four buttons
//! told apart only by their colours, and "Relay email" opens a menu whose "Relay to
//! original recipients" asks `confirm()` before it sends. The app relays to its own
//! SMTP port, so a relayed message arrives in it again. The agent opens a message,
//! shows its plain text, relays it once, then opens another and deletes it, using only
//! nspd's state; MailDev's mail folder (a `.eml` file a message) is the ground truth:
//! exactly one copy relayed, exactly the other message gone.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions, MAILDEV_SEED};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maildev_open_a_message_relay_it_once_and_delete_another() {
    let app = RealApp::start(AppKind::MailDev, RealAppOptions::default()).expect("maildev");
    let mut agent = FlowAgent::start("maildev", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    let steps = [
        // The list's one action, chosen by the record showing the subject. Opening a
        // message marks it read, the bookkeeping of what the person saw: a read.
        Step::new("open the quarterly report", &["open"], Tier::Read).on("Quarterly report"),
        Step::new("show its plain text", &["plain", "text"], Tier::Read).verify(Verify::None),
        // "Relay email" says a verb that sends and opens a menu without saying so
        // (no `aria-haspopup`): judged by its verb, it needs an expression, which the
        // menu opening leaves false (no message arrives), as it should.
        Step::new("open the relay menu", &["relay", "email"], Tier::Read)
            .avoid(&["original", "custom"])
            .verify(Verify::Fails("exists(aside.items[3].email_id)".into())),
        // The page asks `confirm()`; the gate let an irreversible write with an
        // expression through, so the dispatcher answers yes to that one question.
        Step::new(
            "relay it to its recipients",
            &["relay", "original"],
            Tier::IrreversibleWrite,
        )
        .verify(Verify::Expr("exists(aside.items[3].email_id)".into())),
        Step::new("open the lunch question", &["open"], Tier::Read).on("Lunch on Friday?"),
        Step::new("delete it", &["delete", "email"], Tier::IrreversibleWrite).avoid(&["all"]),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }

    // The mail folder: the report twice (the one relay came back), the invoice, and
    // no lunch question.
    let mut messages = app.maildev_messages().expect("the mail folder");
    messages.sort();
    let own = |to: &str, subject: &str| (to.to_owned(), subject.to_owned());
    let (invoice, report) = (MAILDEV_SEED[0], MAILDEV_SEED[1]);
    agent.finish(
        messages,
        vec![
            own(report.0, report.1),
            own(report.0, report.1),
            own(invoice.0, invoice.1),
        ],
    );
}
