//! The model view (`core::model_view`, issue 23) of every page the real extraction
//! recorded: the real-app corpus (`fixtures/real/snapshots/`) and the fixture corpus
//! (`fixtures/pages/snapshots/`), analysed by the probe natively as the page's own probe
//! would, then rendered. The texts are goldens (`fixtures/real/model_view/`,
//! `fixtures/pages/model_view/`; `UPDATE_EXPECT=1` rewrites them), so a change of the
//! renderer or of the probe shows, page by page, what a model reads and how many bytes
//! it costs. `cargo xtask bench` (size) measures the live pages against
//! `ariaSnapshot()`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nsp_daemon::core::model_view;
use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::{ProbeTier, SubstrateState};

fn corpus(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(dir)
}

/// The state nspd would build from the page's capture, with a fixed identity and time.
fn state_of(snapshot: &PageSnapshot) -> SubstrateState {
    let capture = nsp_probe::analyze_snapshot(snapshot, ProbeTier::WasmInPage);
    SubstrateState {
        pid: 7,
        app_id: capture.context.location.clone().unwrap_or_default(),
        app_name: capture.app_name.clone(),
        runtime: "v8".into(),
        confidence: nsp_protocol::round_confidence(capture.confidence),
        capture_id: "0190b0b0-0000-7000-8000-00000000c0de".into(),
        schema_version: "1".into(),
        captured_at: "2026-12-02T00:00:00Z".into(),
        context: capture.context,
        objects: capture.objects,
        actions: capture
            .actions
            .into_iter()
            .map(|(name, mut a)| {
                a.confidence = nsp_protocol::round_confidence(a.confidence);
                (name, a)
            })
            .collect(),
        probe_metadata: capture.probe_metadata,
    }
}

fn check(dir: &str) -> BTreeMap<String, (usize, usize)> {
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let root = corpus(dir);
    let out_dir = root.join("model_view");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join("snapshots"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "no snapshots under {}", root.display());
    let mut sizes = BTreeMap::new();
    let mut stale = Vec::new();
    for path in entries {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let snapshot: PageSnapshot =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let state = state_of(&snapshot);
        let json = serde_json::to_string(&state).unwrap();
        let view = model_view::render(&state);
        sizes.insert(name.clone(), (view.len(), json.len()));
        let golden = out_dir.join(format!("{name}.txt"));
        if update {
            std::fs::write(&golden, &view).unwrap();
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(view.as_str()) {
            stale.push(name);
        }
    }
    for (name, (view, json)) in &sizes {
        println!("{dir}/{name}: model view {view} B, JSON {json} B");
    }
    assert!(
        stale.is_empty(),
        "the model view of {stale:?} changed: read the diff with UPDATE_EXPECT=1 cargo test -p nsp-daemon --test model_view_corpus, then git diff fixtures/"
    );
    sizes
}

#[test]
fn real_app_pages() {
    let sizes = check("real");
    // Every state is smaller as text than as JSON, by at least 3×.
    for (name, (view, json)) in sizes {
        assert!(
            view * 3 <= json,
            "{name}: model view {view} B, JSON {json} B"
        );
    }
}

#[test]
fn fixture_pages() {
    check("pages");
}
