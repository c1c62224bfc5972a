//! Row actions end to end on rows that are not `li` or `tr`: the corpus's
//! `helpdesk.html` lists tickets as `div role=listitem` rows keyed by their subject, with
//! each row's buttons in a nested `div`. A row action must land on exactly the row its
//! key names; the page's own archive log and each row's `aria-expanded` are the ground
//! truth.

use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_tests::open_tab;
use serde_json::{json, Value};

async fn state(nspd: &nsp_tests::Nspd, pid: u64) -> Value {
    nspd.fresh_state(pid).await.expect("state")
}

/// The name of the one parameter of `action`, as the state gives it: an agent uses what
/// the state says, never a name written by hand.
fn key_param(state: &Value, action: &str) -> String {
    let params = state["actions"][action]["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{action} is offered: {:#}", state["actions"]));
    assert_eq!(params.len(), 1, "{action}: {params:#?}");
    let name = params[0]["name"].as_str().expect("name").to_owned();
    // A class a tool generated (`css-q7e1mz2`) carries digits; a name an agent can
    // read does not.
    assert!(
        !name.bytes().any(|b| b.is_ascii_digit()),
        "{action}'s parameter is named from a generated class: {name}"
    );
    name
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_action_on_div_rows_lands_on_the_named_row() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let (nspd, app) = open_tab(&demo.url("/pages/helpdesk.html"), 0.8)
        .await
        .expect("the tab's probe settles");
    let before = state(&nspd, app.pid).await;
    let names: Vec<&String> = before["actions"]
        .as_object()
        .expect("actions")
        .keys()
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("ago") && !n.contains("css")),
        "names from live text or generated classes: {names:?}"
    );
    let key = key_param(&before, "more");
    let objects = &before["objects"];
    let field = |n: usize| format!("queue.tickets[{n}].{key}");
    assert_eq!(objects[field(1)], "VPN drops every hour", "{objects:#}");

    // "More" on the middle row opens that row's menu and no other.
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "more",
                    "parameters": {key.as_str(): "VPN drops every hour"},
                    "verify_expression": "queue.tickets[1].more_expanded == true"}))
        .await
        .expect("more");
    assert_eq!(status, 200, "{resp:#}");
    assert_eq!(resp["verification"]["passed"], true, "{resp:#}");
    let after = state(&nspd, app.pid).await;
    let o = &after["objects"];
    assert_eq!(o["queue.tickets[0].more_expanded"], false, "{o:#}");
    assert_eq!(o["queue.tickets[2].more_expanded"], false, "{o:#}");

    // "Archive" on the last row removes exactly that row.
    let key = key_param(&after, "archive");
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "archive",
                    "parameters": {key.as_str(): "New laptop for Ana"},
                    "verify_expression": "queue.archived_log == \"New laptop for Ana\""}))
        .await
        .expect("archive");
    assert_eq!(status, 200, "{resp:#}");
    assert_eq!(resp["verification"]["passed"], true, "{resp:#}");
    let last = state(&nspd, app.pid).await;
    let o = &last["objects"];
    assert_eq!(
        o[format!("queue.tickets[0].{key}")],
        "Printer jams on tray 2",
        "{o:#}"
    );
    assert_eq!(
        o[format!("queue.tickets[1].{key}")],
        "VPN drops every hour",
        "{o:#}"
    );
    assert!(o.get(format!("queue.tickets[2].{key}")).is_none(), "{o:#}");
}

/// The corpus's `workbench.html` shows three open records side by side, each in a pane
/// (outside list markup) with its heading and its own "Close": one row action chosen
/// by the record's title, which closes exactly that pane.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_control_repeated_in_each_frame_closes_the_named_frame() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let (nspd, app) = open_tab(&demo.url("/pages/workbench.html"), 0.8)
        .await
        .expect("the tab's probe settles");
    let before = state(&nspd, app.pid).await;
    let closes: Vec<&String> = before["actions"]
        .as_object()
        .expect("actions")
        .keys()
        .filter(|n| n.starts_with("close"))
        .collect();
    assert_eq!(closes, ["close"], "one action for the three panes");
    let key = key_param(&before, "close");
    let o = &before["objects"];
    assert_eq!(o["editors[1].text"], "Rename the staging bucket.", "{o:#}");
    // The notes' text is readable; the page's style rules are not.
    assert_eq!(
        o["editors[0].text"], "Ship the importer on Friday.",
        "{o:#}"
    );
    assert!(
        o.as_object()
            .expect("objects")
            .values()
            .all(|v| !v.to_string().contains("display: flex")),
        "{o:#}"
    );

    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "close",
                    "parameters": {key.as_str(): "todo.md"},
                    "verify_expression": "editors[1].text == \"Run make to build everything.\""}))
        .await
        .expect("close");
    assert_eq!(status, 200, "{resp:#}");
    assert_eq!(resp["verification"]["passed"], true, "{resp:#}");
    let after = state(&nspd, app.pid).await;
    let o = &after["objects"];
    assert_eq!(
        o["editors[0].text"], "Ship the importer on Friday.",
        "{o:#}"
    );
    assert!(o.get("editors[2].text").is_none(), "{o:#}");
}

/// The corpus's `crm.html` links each contact's owner (`you` on two rows, `Priya` and
/// `Sam` on one each), beside the contact's other controls: one `open_owner(name)`
/// follows the owner link of exactly the row its key names, found by its place in the
/// row, whatever the owner is called. The tab's location afterwards is the ground truth.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_column_of_links_whose_labels_are_data_is_one_action_by_row() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let (nspd, app) = open_tab(&demo.url("/pages/crm.html"), 0.8)
        .await
        .expect("the tab's probe settles");
    let before = state(&nspd, app.pid).await;
    let actions = before["actions"].as_object().expect("actions");
    assert!(
        !actions.contains_key("you") && !actions.contains_key("open_you"),
        "an action named after an owner: {:?}",
        actions.keys()
    );
    let key = key_param(&before, "open_owner");
    for (contact, owner) in [("Chen Wei", "you"), ("Jonas Berg", "priya")] {
        let (status, resp) = nspd
            .act(&json!({"pid": app.pid, "action": "open_owner",
                        "parameters": {key.as_str(): contact},
                        "verify_expression": format!("context.url.includes('owner={owner}')")}))
            .await
            .expect("open_owner");
        assert_eq!(status, 200, "{resp:#}");
        let want = format!("crm.html?owner={owner}");
        nspd.wait_state(
            app.pid,
            &format!("{contact}'s owner page ({want})"),
            std::time::Duration::from_secs(20),
            |s| {
                s["context"]["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(&want))
            },
        )
        .await;
        // Back to the list for the next row.
        let (status, resp) = nspd
            .act(&json!({"pid": app.pid, "action": "navigate",
                        "parameters": {"url": demo.url("/pages/crm.html")},
                        "verify_expression": "!context.url.includes('owner=')"}))
            .await
            .expect("navigate");
        assert_eq!(status, 200, "{resp:#}");
        let list = demo.url("/pages/crm.html");
        nspd.wait_state(
            app.pid,
            "the list again",
            std::time::Duration::from_secs(20),
            |s| s["context"]["url"] == list.as_str() && s["actions"].get("open_owner").is_some(),
        )
        .await;
    }
}
