//! The extension's side of the channel survives nspd restarts: after nspd goes away and
//! comes back on the same port, the service worker reconnects (capped backoff with
//! jitter) and re-announces its tabs with their states, without a page reload.

use std::time::Duration;

use nsp_daemon::launch::{Browser, LaunchOptions};
use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::ProbeStatus;
use nsp_tests::{extension_dir, fresh_data_dir, Nspd};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extension_reconnects_and_reannounces_after_nspd_restarts() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let data_dir = fresh_data_dir().expect("tempdir");
    let first = Nspd::serve(0, data_dir).expect("first nspd");
    let port = first.port();
    let mut browser = Browser::launch(&LaunchOptions {
        browser: std::env::var_os("CHROME").map(Into::into),
        extension_dir: extension_dir().expect("extension"),
        headless: true,
        daemon_ws_url: format!("ws://127.0.0.1:{port}/substrate/v1/extension"),
        url: Some(demo.url("/")),
        profiles_in: None,
    })
    .expect("browser");

    let before = first
        .wait_for_app(Duration::from_secs(60), |a| {
            a.probe_status == ProbeStatus::Active
        })
        .await
        .expect("tab on the first nspd");
    let data_dir = first.stop_keep_data();

    // Same port, same data dir (same key): a restarted daemon.
    let second = Nspd::serve(port, data_dir).expect("second nspd");
    let after = second
        .wait_for_app(Duration::from_secs(60), |a| {
            a.probe_status == ProbeStatus::Active && a.has_state
        })
        .await
        .expect("the tab comes back without a reload");
    assert_eq!(after.current_url, before.current_url);
    assert_eq!(after.app_name, before.app_name);
    assert!(after.action_count > 0);
    // The state is served again from the re-announced capture.
    let (status, state) = second
        .get(&format!("/substrate/v1/state/{}", after.pid))
        .await
        .expect("state");
    assert_eq!(status, 200, "{state}");
    browser.close();
}
