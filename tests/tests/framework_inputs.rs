//! End to end on framework inputs: a real React app (react and react-dom from npm,
//! bundled with esbuild at test time; `fixtures/real/react_form`) whose form has a
//! controlled `<input>`, a contenteditable message body and a custom select
//! (`role=listbox`), and radio buttons React controls without a `name`, one group by
//! their `role=radiogroup`. An agent fills the discovered form action through the real nspd,
//! headless Chromium and the extension; the app's backend records what React posted,
//! which is the ground truth: exactly the values the agent sent, exactly once. A value
//! that is not one of the listbox's options is refused and nothing is posted. The
//! toolbar's radio groups outside the form (one without names, one named) are each one
//! action, and choosing saves exactly the option chosen, once.
//!
//! Only the listbox needed work in dispatch.js (clicking the option); the native value
//! setter and the contenteditable path were there, and this test is what shows that
//! React's state, not only the DOM, received them.

use std::time::{Duration, Instant};

use nsp_protocol::ProbeStatus;
use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use nsp_tests::{Nspd, NspdOptions};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const SETTLE_TIMEOUT: Duration = Duration::from_secs(20);

const SUBJECT: &str = "Printer on the 2nd floor jams";
// Characters a naive fill would mangle: quotes, an ampersand, a non-ASCII dash and
// accented letters.
const MESSAGE: &str = "It jams on every \"duplex\" job — café & kitchen side, since Monday.";
const PRIORITY: &str = "High";

async fn state(nspd: &Nspd, pid: u64) -> Value {
    let (status, body) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    assert_eq!(status, 200, "{body}");
    body
}

/// The form action: the one whose parameters are the three fields.
fn form_action(state: &Value) -> Option<(String, Value)> {
    state["actions"].as_object()?.iter().find_map(|(name, a)| {
        let params: Vec<&str> = a["parameters"]
            .as_array()?
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        (params.contains(&"subject") && params.contains(&"message") && params.contains(&"priority"))
            .then(|| (name.clone(), a.clone()))
    })
}

/// Rows the backend recorded: (subject, message, priority).
fn recorded(app: &RealApp) -> Vec<(String, String, String)> {
    app.query("select subject, message, priority from tickets order by id")
        .expect("the tickets table")
        .into_iter()
        .map(|r| {
            let s = |i: usize| r[i].as_str().unwrap_or("<null>").to_owned();
            (s(0), s(1), s(2))
        })
        .collect()
}

/// The React app, and nspd with a headless browser on its page: the page's tab.
async fn launch() -> (RealApp, Nspd, u64) {
    let app = RealApp::start(AppKind::ReactForm, RealAppOptions::default()).expect("the app");
    let url = app.url("/");
    let nspd = Nspd::launch(&NspdOptions {
        url: url.clone(),
        headless: true,
    })
    .expect("nspd");
    let pid = nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.probe_status == ProbeStatus::Active && a.current_url.as_deref() == Some(&url)
        })
        .await
        .expect("the form's tab is active")
        .pid;
    (app, nspd, pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react_controlled_input_contenteditable_and_listbox_submit_exactly_what_was_typed() {
    let (app, nspd, pid) = launch().await;

    // The probe offers one form action with the three fields as parameters, the
    // listbox's options as the allowed values of its parameter.
    let deadline = Instant::now() + SETTLE_TIMEOUT;
    let (name, action, first) = loop {
        let s = state(&nspd, pid).await;
        if let Some((name, action)) = form_action(&s) {
            break (name, action, s);
        }
        assert!(
            Instant::now() < deadline,
            "no action takes subject, message and priority: {:#}",
            s["actions"]
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
    };
    let priority = action["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "priority"))
        .expect("priority")
        .clone();
    assert_eq!(
        priority["allowed_values"],
        json!(["Low", "Normal", "High", "Urgent"]),
        "{priority:#}"
    );
    assert_eq!(priority["default_value"], "Normal", "{priority:#}");
    // The radio buttons without a name are one parameter, named by their group.
    let kind = action["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "kind"))
        .unwrap_or_else(|| panic!("one parameter for the radio group: {action:#}"))
        .clone();
    assert_eq!(
        kind["allowed_values"],
        json!(["Hardware", "Software"]),
        "{kind:#}"
    );
    assert_eq!(kind["default_value"], "Hardware", "{kind:#}");
    let count_key = first["objects"]
        .as_object()
        .and_then(|o| o.keys().find(|k| k.ends_with("saved_count")).cloned())
        .unwrap_or_else(|| panic!("the page's saved counter: {:#}", first["objects"]));
    assert_eq!(
        first["objects"][&count_key],
        json!(0),
        "{:#}",
        first["objects"]
    );
    let verify = format!("{count_key} == 1");

    // A value that is none of the options: nspd refuses it against the options the
    // probe read from the listbox, before anything reaches the page.
    let (status, resp) = nspd
        .act(&json!({
            "pid": pid,
            "action": name,
            "parameters": {"subject": SUBJECT, "message": MESSAGE, "priority": "Whenever"},
            "verify_expression": verify,
        }))
        .await
        .expect("act");
    assert_eq!(status, 400, "an option that does not exist: {resp}");
    assert_eq!(resp["code"], "invalid_parameters", "{resp}");
    assert_eq!(resp["field"], "parameters.priority", "{resp}");
    assert!(recorded(&app).is_empty(), "nothing was posted");

    // The real values: React's state, and so the backend, has exactly them, once.
    let (status, resp) = nspd
        .act(&json!({
            "pid": pid,
            "action": name,
            "parameters": {"subject": SUBJECT, "message": MESSAGE, "priority": PRIORITY,
                           "kind": "Software"},
            "verify_expression": verify,
        }))
        .await
        .expect("act");
    assert_eq!(status, 200, "filling and saving the form: {resp}");
    assert_eq!(resp["verification"]["passed"], true, "{resp}");
    assert_eq!(
        recorded(&app),
        [(SUBJECT.to_owned(), MESSAGE.to_owned(), PRIORITY.to_owned())],
        "the backend got exactly the typed values, once"
    );
    let raw = app
        .query("select raw from tickets")
        .expect("the tickets table");
    let posted: Value = serde_json::from_str(raw[0][0].as_str().expect("raw")).expect("json");
    assert_eq!(
        posted["kind"], "Software",
        "React's state has the radio chosen: {posted}"
    );
    // The listbox shows the choice the agent made.
    let after = state(&nspd, pid).await;
    let (_, action) = form_action(&after).expect("the form is still offered");
    let priority = action["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "priority"))
        .expect("priority");
    assert_eq!(priority["default_value"], PRIORITY, "{priority:#}");
}

/// The view settings the backend recorded, in order: (name, value).
fn prefs(app: &RealApp) -> Vec<(String, String)> {
    app.query("select name, value from prefs order by id")
        .expect("the prefs table")
        .into_iter()
        .map(|r| {
            let s = |i: usize| r[i].as_str().unwrap_or("<null>").to_owned();
            (s(0), s(1))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react_view_settings_outside_the_form_are_chosen_once_each() {
    // The toolbar's two radio groups, outside the form: React's segmented control
    // without names, its options icons in `<label aria-label>`s, and a native group
    // named `theme`. Each is one action offering its options, confident enough to run
    // without a person, and choosing saves exactly the option chosen, once: the
    // dispatcher clicks that option and nothing after it (clicking the action's own
    // element, the group's first option, would choose it back and save again).
    let (app, nspd, pid) = launch().await;
    let deadline = Instant::now() + SETTLE_TIMEOUT;
    let first = loop {
        let s = state(&nspd, pid).await;
        if s["actions"]["set_density"].is_object() && s["actions"]["set_theme"].is_object() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "no set_density and set_theme: {:#}",
            s["actions"]
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
    };
    for (action, values) in [
        ("set_density", json!(["comfortable", "compact"])),
        ("set_theme", json!(["light", "dark"])),
    ] {
        let a = &first["actions"][action];
        assert_eq!(a["parameters"][0]["allowed_values"], values, "{a:#}");
        assert_eq!(a["reversibility"], "reversible_write", "{a:#}");
        assert!(a["confidence"].as_f64() >= Some(0.8), "{a:#}");
    }
    assert_eq!(
        first["objects"]["density"], "comfortable",
        "{:#}",
        first["objects"]
    );
    assert!(prefs(&app).is_empty());

    for (action, name, value) in [
        ("set_density", "density", "compact"),
        ("set_theme", "theme", "dark"),
    ] {
        let (status, resp) = nspd
            .act(&json!({
                "pid": pid,
                "action": action,
                "parameters": {"value": value},
            }))
            .await
            .expect("act");
        assert_eq!(status, 200, "{action}({value}): {resp}");
        // React's state shows the option chosen (a click after it, on the group's
        // first option, would have chosen that one back before the action answered),
        // and the backend has it.
        let want = (name.to_owned(), value.to_owned());
        let deadline = Instant::now() + SETTLE_TIMEOUT;
        loop {
            let s = state(&nspd, pid).await;
            if s["objects"][name] == value && prefs(&app).contains(&want) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{action}({value}): the page shows {:#}, the backend has {:?}",
                s["objects"],
                prefs(&app)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let saved: Vec<_> = prefs(&app).into_iter().filter(|(n, _)| n == name).collect();
        assert_eq!(saved, [want], "{action}: the backend's {name} changes");
    }
}
