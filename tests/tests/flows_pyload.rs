//! The flow suite (`nsp_tests::flows`) on pyLoad 0.5 from PyPI (pyload-ng), a download
//! manager's web interface: a login form; a hidden sticky bar that repeats the menu as
//! icons titled "Queue", "Packages", … before the menu a person sees; an "Add Package"
//! dialog whose destination is two radio buttons valued "1" and "0" and labelled
//! "Queue" and "Packages"; icon buttons on each package. The agent logs in, adds two
//! packages to the packages (not the download queue: nothing is fetched), opens the
//! packages and deletes the second, using only nspd's state; pyLoad's database is the
//! ground truth: exactly the first package, kept out of the queue, with its link.

use nsp_tests::flows::{FlowAgent, Step, Tier, Verify};
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyload_adds_two_packages_and_deletes_one() {
    let app = RealApp::start(AppKind::PyLoad, RealAppOptions::default()).expect("pyload");
    let mut agent = FlowAgent::start("pyload", &app.url("/login"))
        .await
        .expect("agent");
    let log = |e: anyhow::Error| panic!("{e:#}\nthe app's log:\n{}", app.log());
    let add = |name: &str, link: &str| {
        [
            // The dialog is new objects; nothing the page showed before changes.
            Step::new("open the add dialog", &["add", "package"], Tier::Read).verify(Verify::None),
            Step::new("add a package", &["add", "package"], Tier::ReversibleWrite)
                .param(&["name"], name)
                .param(&["links"], link)
                // Not the download queue: the radio valued "0".
                .param(&["dest"], "Packages"),
        ]
    };
    let mut steps = vec![Step::new("sign in", &["sign", "in"], Tier::ReversibleWrite)
        .param(&["username"], "pyload")
        .param(&["password"], "pyload")];
    steps.extend(add("Otters", "http://127.0.0.1:9/otters.bin"));
    steps.extend(add("Beavers", "http://127.0.0.1:9/beavers.bin"));
    steps.push(
        Step::new("open the packages", &["open", "nav"], Tier::Read).param(&["title"], "Packages"),
    );
    // The trash icon only asks, in a dialog of the page's own ("Are you sure you want
    // to delete this package?"); its "Yes" deletes the package and its links at once.
    steps.push(
        // The check that the package went stays false, and nspd says what the page
        // offers now.
        Step::new("delete the second", &["delete", "package"], Tier::Read)
            .on("Beavers")
            .verify(Verify::Fails(
                "len(package_list) < len(prev.package_list)".to_owned(),
            )),
    );
    // The dialog's "Ok" (`irreversible_write` 0.48: no verb of its own) goes to a person.
    steps.push(Step::new("confirm", &["ok"], Tier::IrreversibleWrite));
    for step in steps {
        agent.run(step).await.unwrap_or_else(log);
    }
    let rows = app
        .query(
            "select p.name, p.queue, l.url from packages p join links l on l.package = p.id \
             order by p.id",
        )
        .expect("the packages");
    agent.finish(
        rows,
        vec![vec![
            json!("Otters"),
            json!(0),
            json!("http://127.0.0.1:9/otters.bin"),
        ]],
    );
}
