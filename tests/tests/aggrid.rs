//! AG Grid Community from npm, unmodified, in two of its shapes (`fixtures/real/aggrid`):
//! version 36 holds each row's cells in the wrappers of its pinned and scrolling parts;
//! version 31 draws each row twice, once among the pinned columns and once among the
//! rest, the two sharing an `aria-rowindex`. Either way the state must give one record
//! per run with every column named by its header, and a row's "Star" must land on the
//! run its parameter names: the app's database, which counts every press, is the
//! ground truth.

use std::time::{Duration, Instant};

use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
use serde_json::{json, Value};

async fn state(nspd: &nsp_tests::Nspd, pid: u64) -> Value {
    nspd.fresh_state(pid).await.expect("state")
}

async fn star_the_second_run(kind: AppKind) {
    let app = RealApp::start(kind, RealAppOptions::default()).expect("the grid's app");
    let (nspd, tab) = nsp_tests::open_tab(&app.url("/"), 0.5)
        .await
        .expect("the tab's probe settles");
    // The grid fills once its rows arrive from the app's API.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut s = state(&nspd, tab.pid).await;
    while s["objects"]["items[2].run"].is_null() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        s = state(&nspd, tab.pid).await;
    }
    let o = &s["objects"];
    let runs = [
        ("churn-a", "finished", "41s", "ana"),
        ("churn-b", "failed", "3m 02s", "bo"),
        ("churn-c", "running", "12s", "cy"),
    ];
    for (n, (run, status, duration, owner)) in runs.into_iter().enumerate() {
        for (field, value) in [
            ("run", run),
            ("status", status),
            ("duration", duration),
            ("owner", owner),
        ] {
            assert_eq!(o[format!("items[{n}].{field}")], value, "{o:#}");
        }
    }
    let keys: Vec<&String> = o.as_object().expect("objects").keys().collect();
    assert!(
        !keys.iter().any(|k| k.starts_with("items[3]")),
        "one record per run, no header row among them: {keys:?}"
    );

    // The one "Star" action, its parameter as the state gives it: the run's name, or
    // its record's index when the button sits in another part of the row than the name.
    let star = &s["actions"]["star"];
    let params = star["parameters"].as_array().expect("star is offered");
    assert_eq!(params.len(), 1, "{star:#}");
    let param = params[0]["name"].as_str().expect("name");
    let value = if param == "index" {
        let n = (0..3)
            .find(|n| o[format!("items[{n}].run")] == "churn-b")
            .expect("churn-b's record");
        json!(n)
    } else {
        json!("churn-b")
    };
    let (status, resp) = nspd
        .act(&json!({"pid": tab.pid, "action": "star",
                    "parameters": {param: value},
                    "verify_expression": "starred == 1"}))
        .await
        .expect("star");
    assert_eq!(status, 200, "{resp:#}");
    assert_eq!(resp["verification"]["passed"], true, "{resp:#}");
    let stars = app
        .query("select name, stars from runs order by id")
        .expect("the app's database");
    assert_eq!(
        stars,
        vec![
            vec![json!("churn-a"), json!(0)],
            vec![json!("churn-b"), json!(1)],
            vec![json!("churn-c"), json!(0)],
        ],
        "exactly one press, on churn-b\nthe app's log:\n{}",
        app.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ag_grid_36_rows_are_records_and_a_star_lands_on_its_run() {
    star_the_second_run(AppKind::AgGrid).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ag_grid_31_rows_drawn_twice_are_one_record_and_a_star_lands_on_its_run() {
    star_the_second_run(AppKind::AgGrid31).await;
}
