//! The flow suite (`nsp_tests::flows`) on Isso 0.14 from PyPI, a comment server whose
//! widget a page embeds (its own demo page here, three readers' comments on it): no
//! `<form>` anywhere; each comment is a `div` of one class holding its permalink, its
//! text and links going nowhere that the widget listens on ("Reply" under the readers'
//! comments, "Edit" and "Delete" under the agent's own, which so holds more links than
//! the others); "Edit" turns the text into a field and itself into "Save", and
//! "Delete" turns into "Confirm" (back when the pointer leaves it), so deleting takes
//! two presses of what was one link. "Reply" under a comment opens a box like the
//! thread's own inside that comment. The agent posts two comments, edits the first,
//! deletes the second and replies to Bob's, using only nspd's state; Isso's database is
//! the ground truth: exactly the readers' comments, the agent's first, as edited, and
//! its reply under Bob's (with the deleted comment's id: SQLite reuses the last rowid).

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn isso_post_edit_and_delete_comments() {
    let app = RealApp::start(AppKind::Isso, RealAppOptions::default()).expect("isso");
    let mut agent = FlowAgent::start("isso", &app.url("/demo/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());

    let steps = [
        // Posting is publishing: others read it and may be told of it.
        Step::new("post a comment", &["submit"], Tier::IrreversibleWrite)
            .param(&["comment"], "Sea otters use stones as tools.")
            .param(&["author"], "Ada"),
        Step::new("post one more", &["submit"], Tier::IrreversibleWrite)
            .param(&["comment"], "Posted twice by mistake.")
            .param(&["author"], "Ada"),
        // "Edit" turns the comment's text into a field: a new object, nothing changed.
        Step::new("edit the first", &["edit"], Tier::Read)
            .on("Sea otters use stones as tools.")
            .verify(Verify::None),
        Step::new("save the edit", &["save"], Tier::ReversibleWrite)
            .param(&["text"], "Sea otters use stones as tools, and keep them."),
        // "Delete" only turns into "Confirm": the check that the comment went stays
        // false, and nspd says what the page offers now.
        Step::new("delete the second", &["delete"], Tier::Read)
            .on("Posted twice by mistake.")
            .verify(Verify::Fails(
                "len(isso_root) < len(prev.isso_root)".to_owned(),
            )),
        Step::new("confirm", &["confirm"], Tier::IrreversibleWrite).on("Posted twice by mistake."),
        // "Reply" opens a box like the thread's own inside Bob's comment; its "Submit"
        // says which comment it is in.
        Step::new("open a reply to Bob", &["reply"], Tier::Read)
            .on("Otters hold hands while they sleep.")
            .verify(Verify::None),
        Step::new("reply to Bob", &["submit"], Tier::IrreversibleWrite)
            .on("Otters hold hands while they sleep.")
            .param(&["comment"], "They do, so as not to drift apart.")
            .param(&["author"], "Ada"),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }

    let rows = app
        .query("select id, parent, author, text from comments order by id")
        .expect("the comments");
    let comment = |id: i64, parent: Value, author: &str, text: &str| {
        vec![json!(id), parent, json!(author), json!(text)]
    };
    agent.finish(
        rows,
        vec![
            comment(1, Value::Null, "Bob", "Otters hold hands while they sleep."),
            comment(2, Value::Null, "Cy", "Beavers build dams with their teeth."),
            comment(3, Value::Null, "Di", "Minks are good swimmers too."),
            comment(
                4,
                Value::Null,
                "Ada",
                "Sea otters use stones as tools, and keep them.",
            ),
            comment(5, json!(1), "Ada", "They do, so as not to drift apart."),
        ],
    );
}

/// Isso's administration (a server-rendered page): a form of one password box and no
/// button, posted to `/login/`, then each comment with "Edit", "Delete" and "Validate"
/// links that have no `href`, only an `onclick`. The agent logs in, lists the published
/// comments and deletes Cy's; the database keeps the other two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn isso_admin_logs_in_and_deletes_a_readers_comment() {
    let app = RealApp::start(AppKind::Isso, RealAppOptions::default()).expect("isso");
    let mut agent = FlowAgent::start("isso-admin", &app.url("/admin/"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let steps = [
        Step::new("log in", &["password"], Tier::ReversibleWrite)
            .param(&["password"], "otters-admin"),
        // It opens on the comments waiting for moderation; these are published.
        Step::new(
            "list the published comments",
            &["open", "valid"],
            Tier::Read,
        ),
        Step::new("delete Cy's comment", &["delete"], Tier::IrreversibleWrite)
            .on("Beavers build dams with their teeth."),
    ];
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    let rows = app
        .query("select id, author from comments order by id")
        .expect("the comments");
    agent.finish(
        rows,
        vec![vec![json!(1), json!("Bob")], vec![json!(3), json!("Di")]],
    );
}
