//! The probe's corpus, recorded from the real extraction: every page in
//! `fixtures/pages/` is served by the demo app, loaded in headless Chromium with the
//! extension's main-world script installed before the page's own (as the manifest does),
//! and snapshotted by the extension's own `extract.js` + `bridge.js`. The snapshots in
//! `fixtures/pages/snapshots/` feed the probe's native golden tests
//! (`probe-wasm/tests/corpus.rs`); this test proves they are what the real extraction
//! produces today. `UPDATE_EXPECT=1` re-records them.

mod probe_support;

use std::time::Duration;

use nsp_fixtures::{corpus_dir, corpus_pages, DemoOptions, DemoServer};
use nsp_protocol::snapshot::PageSnapshot;
use probe_support::{inject_probe_scripts, read_script, snapshot, start_driver};
use serde_json::Value;

/// The recorded snapshots use this origin, so they do not depend on the port.
const ORIGIN: &str = "http://corpus.test";

fn normalize(value: &mut Value, origin: &str) {
    if let Some(url) = value.get_mut("url") {
        if let Some(s) = url.as_str() {
            *url = Value::String(s.replacen(origin, ORIGIN, 1));
        }
    }
    value["extract_ms"] = Value::from(0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_corpus_snapshots_are_what_the_extraction_produces() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let origin = demo.url("");
    let driver = start_driver().await.expect("chromedriver");
    driver
        .add_init_script(&read_script("page-world.js"))
        .await
        .expect("main-world script");
    // Its private channel's other end (the extension runs it in the isolated world):
    // tools and listeners reach the snapshot through it.
    driver
        .add_init_script(&read_script("page-channel.js"))
        .await
        .expect("channel script");
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let dir = corpus_dir().join("snapshots");
    std::fs::create_dir_all(&dir).expect("snapshot dir");

    let pages = corpus_pages();
    assert!(
        pages.len() >= 15,
        "the corpus needs at least 15 pages: {pages:?}"
    );
    let mut stale = Vec::new();
    for name in &pages {
        driver
            .goto(&demo.url(&format!("/pages/{name}.html")))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Deferred scripts and custom elements have run by the load event; give
        // microtasks and a frame a moment, as the extension's quiet wait does.
        tokio::time::sleep(Duration::from_millis(150)).await;
        inject_probe_scripts(&driver).await.expect("scripts");
        let text = snapshot(&driver)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Recorded as the probe reads them, in the readable object form of the records
        // (the wire's positional arrays would be one number per line).
        let snap: PageSnapshot = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{name}: the probe cannot read the snapshot: {e}"));
        let mut value = serde_json::to_value(&snap).expect("snapshot value");
        normalize(&mut value, &origin);
        let pretty = serde_json::to_string_pretty(&value).expect("json") + "\n";
        let path = dir.join(format!("{name}.json"));
        if update {
            std::fs::write(&path, &pretty).expect("write snapshot");
            continue;
        }
        let recorded = std::fs::read_to_string(&path).unwrap_or_default();
        if recorded != pretty {
            let first_diff = recorded
                .lines()
                .zip(pretty.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(n, (a, b))| format!("line {}: recorded {a:?}, now {b:?}", n + 1))
                .unwrap_or_else(|| "lengths differ".into());
            stale.push(format!("{name}: {first_diff}"));
        }
    }
    assert!(
        stale.is_empty(),
        "recorded snapshots differ from the real extraction (re-record with \
         UPDATE_EXPECT=1 cargo test -p nsp-tests --test probe_corpus, then refresh the \
         goldens with UPDATE_EXPECT=1 cargo test -p nsp-probe --test corpus):\n{}",
        stale.join("\n")
    );
}
