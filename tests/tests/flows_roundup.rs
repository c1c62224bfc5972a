//! The flow suite (`nsp_tests::flows`, see `tests/tests/flows.rs`) on Roundup, a
//! server-rendered issue tracker from PyPI that mails its nosy list: the agent logs in
//! through the sidebar's form, opens the new-issue form (laid out as a table of
//! labelled fields) and files an issue for bob. Filing mails bob, which cannot be taken
//! back: nspd asks the person, who approves in the popup. Ground truth: the tracker's
//! sqlite database (exactly one issue) and the mail it sent (exactly one message, to
//! bob, about that issue).

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roundup_log_in_and_file_an_issue_that_mails_its_nosy_list() {
    let app = RealApp::start(AppKind::Roundup, RealAppOptions::default()).expect("roundup");
    let mut agent = FlowAgent::start("roundup", &app.url("/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    agent
        .run(
            Step::new("log in", &["login"], Tier::ReversibleWrite)
                .param(&["login", "name"], "admin")
                .param(&["password"], "adminpw")
                .verify(Verify::Auto),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            // The sidebar's first "Create New" is the issues'; the keywords' is named
            // after the sidebar too.
            Step::new("open the new-issue form", &["create", "new"], Tier::Read)
                .avoid(&["main"])
                .verify(Verify::None),
        )
        .await
        .unwrap_or_else(log);
    agent
        .run(
            Step::new(
                "file an issue for bob",
                &["submit"],
                Tier::IrreversibleWrite,
            )
            .param(&["title"], "Printer jams on duplex")
            .record(&["priority"], "bug")
            .param(&["nosy"], "bob")
            .param(&["note"], "It jams on every duplex job.")
            .verify(Verify::Auto),
        )
        .await
        .unwrap_or_else(log);

    let mut truth: Vec<String> = app
        .query("select _title, _priority from _issue order by id")
        .expect("the tracker's database")
        .into_iter()
        .map(|r| format!("issue {} (priority {})", r[0], r[1]))
        .collect();
    truth.extend(
        app.mails()
            .expect("the tracker's mail")
            .into_iter()
            .map(|(to, subject)| format!("mail to {to}: {subject}")),
    );
    agent.finish(
        truth,
        vec![
            "issue \"Printer jams on duplex\" (priority 3)".to_owned(),
            "mail to bob@example.test: [issue1] Printer jams on duplex".to_owned(),
        ],
    );
}
