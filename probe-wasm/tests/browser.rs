//! Browser tests of the probe's in-page pieces, run in headless Chromium by
//! `wasm-pack test --headless --chrome` (one binary, a module per area): the wasm
//! boundary, the real extraction script on live DOM (shadow roots, iframes, hidden and
//! disabled controls, secrets), incremental patches, and dispatch.
//!
//! The extension's scripts are loaded from their sources with a classic <script> element,
//! exactly as the manifest's content scripts run; only the world differs.

#![cfg(target_arch = "wasm32")]

use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const EXTRACT_JS: &str = include_str!("../../extension/extract.js");
const BRIDGE_JS: &str = include_str!("../../extension/bridge.js");
const DISPATCH_JS: &str = include_str!("../../extension/dispatch.js");
const PAGE_WORLD_JS: &str = include_str!("../../extension/page-world.js");
const PAGE_CHANNEL_JS: &str = include_str!("../../extension/page-channel.js");

fn eval(src: &str) -> JsValue {
    js_sys::eval(src).unwrap_or_else(|e| panic!("eval failed: {e:?}\n{src}"))
}

fn eval_string(src: &str) -> String {
    eval(src)
        .as_string()
        .unwrap_or_else(|| panic!("not a string: {src}"))
}

/// Loads the extension's page scripts once.
fn load_scripts() {
    if eval("typeof NspExtract").as_string().as_deref() == Some("object") {
        return;
    }
    for src in [
        PAGE_WORLD_JS,
        PAGE_CHANNEL_JS,
        EXTRACT_JS,
        BRIDGE_JS,
        DISPATCH_JS,
    ] {
        let doc = web_document();
        let script = js_sys::Reflect::apply(
            &js_sys::Function::from(js_sys::Reflect::get(&doc, &"createElement".into()).unwrap()),
            &doc,
            &js_sys::Array::of1(&"script".into()),
        )
        .unwrap();
        js_sys::Reflect::set(&script, &"textContent".into(), &src.into()).unwrap();
        let head = js_sys::Reflect::get(&doc, &"head".into()).unwrap();
        let append =
            js_sys::Function::from(js_sys::Reflect::get(&head, &"appendChild".into()).unwrap());
        append.call1(&head, &script).unwrap();
    }
}

fn web_document() -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &"document".into()).unwrap()
}

/// Replaces the test fixture's DOM (a #fixture container in the body).
fn mount(html: &str) {
    load_scripts();
    let html = serde_json::to_string(html).unwrap();
    eval(&format!(
        "(() => {{ let f = document.getElementById('fixture'); if (!f) {{ f = document.createElement('div'); f.id = 'fixture'; document.body.append(f); }} f.removeAttribute('style'); f.innerHTML = {html}; }})()"
    ));
}

/// The snapshot of the current document, as the extension takes it.
fn snapshot_json() -> String {
    eval_string(
        "(() => { globalThis.__ex = new NspExtract.Extractor(document); \
         const b = globalThis.__b || (globalThis.__b = NspBridge.create({})); \
         return JSON.stringify(b.snapshot(globalThis.__ex)); })()",
    )
}

fn analyze(probe: &mut nsp_probe::Probe, snapshot: &str) -> Value {
    let text = probe.analyze(snapshot).expect("capture");
    serde_json::from_str(&text).expect("capture JSON")
}

fn probe() -> nsp_probe::Probe {
    nsp_probe::Probe::new(r#"{"tier": "wasm_in_page"}"#).expect("probe")
}

pub mod boundary {
    use super::*;

    const SNAPSHOT: &str = r##"{
        "url": "http://127.0.0.1:9/#inbox",
        "title": "Inbox — Demo Mail",
        "site_name": "Demo Mail",
        "elements": [
            {"tag": "section", "selector": "#inbox", "attrs": {"id": "inbox"}, "visible": true},
            {"tag": "span", "parent": 0, "selector": "#unread-count", "text": "3", "attrs": {"id": "unread-count"}, "visible": true},
            {"tag": "button", "parent": 0, "selector": "#inbox > button", "text": "Archive", "attrs": {"type": "button"}, "visible": true}
        ],
        "extract_ms": 0.5
    }"##;

    #[wasm_bindgen_test]
    fn analyze_returns_a_json_capture_and_update_a_delta() {
        let mut p = probe();
        let capture = analyze(&mut p, SNAPSHOT);
        assert_eq!(capture["app_name"], "Demo Mail");
        assert_eq!(capture["objects"]["inbox.unread_count"], 3);
        assert_eq!(
            capture["actions"]["archive"]["reversibility"],
            "reversible_write"
        );
        assert_eq!(capture["probe_metadata"]["probe_tier"], "wasm_in_page");
        assert_eq!(capture["context"]["view"], "/#inbox");

        let patch = r##"{"url": "http://127.0.0.1:9/#inbox", "title": "Inbox — Demo Mail", "splices": [
            {"start": 1, "delete": 1, "insert": [{"tag": "span", "parent": 0, "selector": "#unread-count", "text": "2", "attrs": {"id": "unread-count"}, "visible": true}]}
        ]}"##;
        let delta: Value = serde_json::from_str(&p.update(patch).expect("delta")).unwrap();
        assert_eq!(
            delta["changed"],
            serde_json::json!({"inbox.unread_count": 2})
        );
        assert!(
            delta.get("actions").is_none(),
            "actions did not change: {delta}"
        );
        // Nothing changed: no delta at all.
        let same = r##"{"url": "http://127.0.0.1:9/#inbox", "title": "Inbox — Demo Mail", "splices": []}"##;
        assert_eq!(p.update(same).expect("no delta"), "");
    }

    #[wasm_bindgen_test]
    fn bad_input_is_an_error_not_a_panic() {
        let cfg = |t: &str| format!(r#"{{"tier": "{t}"}}"#);
        assert!(nsp_probe::Probe::new(&cfg("somewhere_else")).is_err());
        assert!(nsp_probe::Probe::new("not json").is_err());
        let mut p = nsp_probe::Probe::new(&cfg("wasm_extension")).expect("probe");
        assert!(p.analyze("not a snapshot").is_err());
        assert!(p.update("{}").is_err(), "no snapshot to patch yet");
        let _ = analyze(&mut p, SNAPSHOT);
        let outside =
            r#"{"url": "u", "title": "t", "splices": [{"start": 9, "delete": 1, "insert": []}]}"#;
        assert!(p.update(outside).is_err());
    }
}

pub mod extraction {
    use super::*;

    const PAGE: &str = r##"
        <section id="acct" aria-label="Account">
          <p>Balance <span id="balance">1,250</span></p>
          <form id="login" method="post" action="/session">
            <label>Email <input name="email" type="email" value="sam@example.com"></label>
            <label>Password <input name="password" type="password" id="pw"></label>
            <label>Card <input name="plain" id="plain"></label>
            <button type="submit">Sign in</button>
          </form>
          <button type="button" hidden>Delete everything</button>
          <button type="button" disabled>Publish</button>
          <button type="button" style="display:none">Wipe</button>
          <div id="host"></div>
          <iframe id="frame" srcdoc="<form id='inner' method='post'><input name='note'><button>Post note</button></form>"></iframe>
        </section>"##;

    fn settle_frame() -> js_sys::Promise {
        eval("new Promise((resolve) => { const f = document.getElementById('frame'); \
              if (f.contentDocument && f.contentDocument.readyState === 'complete' && f.contentDocument.getElementById('inner')) resolve(); \
              else f.addEventListener('load', () => resolve(), { once: true }); })")
        .into()
    }

    #[wasm_bindgen_test]
    async fn live_dom_gives_actions_from_shadow_roots_and_frames_and_no_secrets() {
        mount(PAGE);
        eval(
            "(() => { const root = document.getElementById('host').attachShadow({mode: 'open'}); \
             root.innerHTML = '<button type=\"button\" id=\"star\">Star</button>'; \
             document.getElementById('pw').value = 'hunter2-secret'; \
             document.getElementById('plain').value = '4111 1111 1111 1111'; })()",
        );
        wasm_bindgen_futures::JsFuture::from(settle_frame())
            .await
            .unwrap();
        let snap = snapshot_json();
        assert!(!snap.contains("hunter2"), "the password left the page");
        assert!(!snap.contains("4111"), "the card number left the page");
        let capture = analyze(&mut probe(), &snap);
        let actions = &capture["actions"];
        // Logging in is a write that logging out undoes.
        assert_eq!(
            actions["sign_in"]["reversibility"], "reversible_write",
            "{actions:#}"
        );
        assert_eq!(actions["sign_in"]["parameters"][0]["name"], "email");
        assert_eq!(
            actions["star"]["internal_target"], "dom:#host >>> #star",
            "{actions:#}"
        );
        assert_eq!(
            actions["post_note"]["reversibility"], "irreversible_write",
            "{actions:#}"
        );
        assert!(actions["post_note"]["internal_target"]
            .as_str()
            .unwrap()
            .starts_with("dom:#frame >>> "));
        for hidden in ["delete_everything", "publish", "wipe"] {
            assert!(
                actions[hidden].is_null(),
                "{hidden} is hidden or disabled: {actions:#}"
            );
        }
        let objects = &capture["objects"];
        assert_eq!(objects["acct.balance"], 1250, "{objects:#}");
        assert_eq!(objects["login.email"], "sam@example.com");
        assert_eq!(objects["login.password_filled"], true);
        assert_eq!(objects["login.plain_filled"], true);
        assert!(
            objects
                .as_object()
                .unwrap()
                .keys()
                .all(|k| !k.ends_with("_length")),
            "{objects:#}"
        );
        assert!(!capture.to_string().contains("hunter2"));
    }

    #[wasm_bindgen_test]
    fn hostile_text_is_bounded() {
        mount("<main><button id=\"b\">Send</button><p id=\"p\">x</p></main>");
        eval(
            "document.getElementById('b').textContent = 'Send \\u0007' + 'y'.repeat(100000); \
              document.getElementById('p').textContent = '\\u0000\\u001b[2J' + 'z'.repeat(100000);",
        );
        let snap = snapshot_json();
        assert!(snap.len() < 20_000, "snapshot of {} bytes", snap.len());
        let capture = analyze(&mut probe(), &snap);
        let text = capture.to_string();
        assert!(!text.contains('\u{7}') && !text.contains('\u{1b}') && !text.contains('\u{0}'));
        for (name, a) in capture["actions"].as_object().unwrap() {
            assert!(name.len() <= 48, "{name}");
            assert!(a["description"].as_str().unwrap().chars().count() <= 200);
        }
    }

    /// Text a page hides from screen readers and from the eye (NiceGUI's reconnection
    /// notice: `aria-hidden="true"` with `visibility: hidden` and `opacity: 0`) is not
    /// the page's state; text hidden from screen readers only (a visual duplicate of a
    /// count) still is, and so is a notice once the page shows it.
    #[wasm_bindgen_test]
    fn text_hidden_from_everyone_is_not_state() {
        mount(
            r#"<main><h2>Inbox</h2><p id="unread" aria-hidden="true">3 unread</p>
            <div id="popup" aria-hidden="true" style="visibility: hidden; opacity: 0">Connection lost. Trying to reconnect...</div>
            <div id="toast" aria-hidden="true" style="opacity: 0"><span>Payment failed</span></div></main>"#,
        );
        let capture = analyze(&mut probe(), &snapshot_json());
        let objects = capture["objects"].to_string();
        assert!(objects.contains("3 unread"), "{objects}");
        assert!(!objects.contains("Connection lost"), "{objects}");
        assert!(!objects.contains("Payment failed"), "{objects}");
        // The page shows its notice: it is state again.
        eval(
            "const p = document.getElementById('popup'); p.setAttribute('aria-hidden', 'false'); \
             p.style.cssText = ''",
        );
        let capture = analyze(&mut probe(), &snapshot_json());
        let objects = capture["objects"].to_string();
        assert!(objects.contains("Connection lost"), "{objects}");
    }

    /// Words a page keeps in the DOM but does not render (the other half of a
    /// responsive pair, a spinner's idle label, a badge shown only when it counts) are
    /// no part of the texts around them: a column is not "Changed Changed", a cell not
    /// "Checking now 3 minutes ago". When the page swaps what it shows, a patch reads
    /// the new words.
    #[wasm_bindgen_test]
    fn words_a_page_does_not_render_are_not_in_the_texts_around_them() {
        mount(
            r#"<style>.hide-on-desktop { display: none } .badge.empty { display: none }</style>
            <nav><ul><li id="n1">Watches <span class="badge empty">0</span></li><li id="n2">Groups</li><li id="n3">Import</li></ul></nav>
            <table id="watches"><thead><tr><th>Page</th>
              <th><span class="hide-on-mobile">Checked</span><span class="hide-on-desktop">Checked</span></th>
              <th><span class="hide-on-mobile">Changed</span><span class="hide-on-desktop">Last change</span></th></tr></thead>
            <tbody><tr data-id="a"><td>alpha.example</td>
              <td><span id="spin" style="display: none">Checking now</span><span id="when">3 minutes ago</span></td><td>Not yet</td></tr>
            <tr data-id="b"><td>beta.example</td>
              <td><span style="display: none">Checking now</span><span>5 minutes ago</span></td><td>Yesterday</td></tr></tbody></table>"#,
        );
        let mut p = probe();
        let capture = analyze(&mut p, &snapshot_json());
        let objects = capture["objects"].to_string();
        for unseen in [
            "Checked Checked",
            "CheckedChecked",
            "Last change",
            "Checking now",
            "Watches 0",
        ] {
            assert!(!objects.contains(unseen), "{unseen}: {objects}");
        }
        assert!(objects.contains("3 minutes ago"), "{objects}");
        let rows = capture["objects"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| k.ends_with("[1].checked"))
            .map(|(k, v)| (k.clone(), v.clone()));
        assert_eq!(
            rows.as_ref().map(|(_, v)| v.as_str()),
            Some(Some("5 minutes ago")),
            "a column named by what it shows: {objects}"
        );
        let key = rows.unwrap().0.replace("[1].checked", "[0].checked");
        // The page swaps what the first row shows: the patch reads what is shown now.
        let patch = eval_string(
            "(() => { const s = document.getElementById('spin'), w = document.getElementById('when'); \
             s.style.display = 'inline'; w.style.display = 'none'; \
             return JSON.stringify(globalThis.__ex.patch([s, w])); })()",
        );
        let delta: Value = serde_json::from_str(&p.update(&patch).unwrap()).unwrap();
        assert_eq!(delta["changed"][&key], "Checking now", "{delta:#}");
    }

    #[wasm_bindgen_test]
    fn a_value_in_a_paragraph_changes_alone() {
        // A counter inside a sentence ("3 open orders"): the paragraph around a value
        // keyed on its own is no running text, and is not recorded, so the count's
        // change is a patch of the count alone, applied without a full analysis. A
        // paragraph of words beside it is the page's text.
        mount(
            "<main><h2>Orders</h2><p><span id=\"open-count\">3</span> open orders</p>\
             <p>Orders ship the day after they are paid.</p></main>",
        );
        let mut p = probe();
        let first = analyze(&mut p, &snapshot_json());
        assert_eq!(
            first["objects"]["text"], "Orders ship the day after they are paid.",
            "{:#}",
            first["objects"]
        );
        let patch = eval_string(
            "(() => { const el = document.getElementById('open-count'); el.textContent = '4'; \
             return JSON.stringify(globalThis.__ex.patch([el.firstChild])); })()",
        );
        let parsed: Value = serde_json::from_str(&patch).unwrap();
        let inserted: Vec<&Value> = parsed["splices"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["insert"].as_array().unwrap())
            .collect();
        assert_eq!(inserted.len(), 1, "only the counter: {parsed}");
        let delta: Value = serde_json::from_str(&p.update(&patch).unwrap()).unwrap();
        assert_eq!(delta["changed"], serde_json::json!({"open_count": 4}));
    }

    #[wasm_bindgen_test]
    fn a_dom_change_becomes_a_small_patch_and_a_delta() {
        mount("<section id=\"inbox\" aria-label=\"Inbox\"><span id=\"unread\">3</span><ul id=\"list\"><li data-id=\"a\"><span class=\"subject\">Hi</span><button>Archive</button></li></ul></section>");
        let mut p = probe();
        let _ = analyze(&mut p, &snapshot_json());
        let patch = eval_string(
            "(() => { const el = document.getElementById('unread'); el.textContent = '2'; \
             return JSON.stringify(globalThis.__ex.patch([el.firstChild])); })()",
        );
        let parsed: Value = serde_json::from_str(&patch).unwrap();
        assert_eq!(parsed["splices"].as_array().unwrap().len(), 1);
        assert_eq!(
            parsed["splices"][0]["insert"].as_array().unwrap().len(),
            1,
            "only the counter: {parsed}"
        );
        let delta: Value = serde_json::from_str(&p.update(&patch).unwrap()).unwrap();
        assert_eq!(delta["changed"], serde_json::json!({"inbox.unread": 2}));

        // A new row: the list's subtree is re-extracted, the row action gains a value.
        let patch = eval_string(
            "(() => { const ul = document.getElementById('list'); const li = ul.firstElementChild.cloneNode(true); \
             li.dataset.id = 'b'; ul.append(li); return JSON.stringify(globalThis.__ex.patch([ul])); })()",
        );
        let delta: Value = serde_json::from_str(&p.update(&patch).unwrap()).unwrap();
        assert_eq!(delta["changed"]["inbox.list[1].id"], "b", "{delta:#}");
        let allowed = &delta["actions"]["archive"]["parameters"][0]["allowed_values"];
        assert_eq!(allowed, &serde_json::json!(["a", "b"]), "{delta:#}");
        // The JS table and the probe's agree: a full capture now says the same.
        let full = analyze(&mut probe(), &snapshot_json());
        assert_eq!(full["actions"]["archive"], delta["actions"]["archive"]);
    }
}

/// A patched table must be the table a full extraction makes of the same DOM, wherever
/// the change is: inside a table cell, inside a shadow root, in an inert subtree.
pub mod patch_equals_full {
    use super::*;

    /// The fixture's records after `change` (a JS function returning the changed
    /// nodes): patched into the last table, and from a full extraction. (The test
    /// runner's own output above the fixture changes as tests run.)
    fn table_after(change: &str) -> (String, String) {
        table_after_for(change)
    }

    pub(super) fn table_after_for(change: &str) -> (String, String) {
        let _ = snapshot_json();
        let fixture =
            "(recs) => JSON.stringify(recs.slice(recs.findIndex((r) => r[2] === '#fixture')))";
        let patched = eval_string(&format!(
            "(() => {{ const changed = ({change})(); const p = globalThis.__ex.patch(changed); \
             if (!p) throw new Error('no patch'); return ({fixture})(globalThis.__ex.recs); }})()"
        ));
        let full = eval_string(&format!(
            "({fixture})(new NspExtract.Extractor(document).full().elements)"
        ));
        (patched, full)
    }

    #[wasm_bindgen_test]
    fn inside_a_table_cell() {
        mount(
            // Cells of more than three elements have no text of their own, so a change
            // below re-extracts from the control inside the cell, not from the cell. (The
            // spacers keep the test's own container from reading all the text.)
            "<i></i><i></i><i></i><table><tbody><tr data-id=\"r1\"><td><button id=\"cell-b\"><span class=\"lbl\">Refund</span></button><i></i><i></i><i></i></td>\
             <td><a href=\"/x\" id=\"cell-a\"><b class=\"n\">7</b> items</a><i></i><i></i><i></i></td></tr></tbody></table>",
        );
        let (patched, full) = table_after(
            "() => { const s = document.querySelector('#cell-b .lbl'); s.textContent = 'Refunded'; return [s.firstChild]; }",
        );
        assert_eq!(patched, full);
        let (patched, full) = table_after(
            "() => { const b = document.querySelector('#cell-a .n'); b.textContent = '8'; return [b.firstChild]; }",
        );
        assert_eq!(patched, full);
    }

    #[wasm_bindgen_test]
    fn text_read_from_a_whole_subtree_follows_a_change_deep_inside() {
        // The row reads its text from its subtree; the change is three records down,
        // below a container of more than three elements that has no text of its own.
        mount(
            "<i></i><i></i><i></i><ul><li data-id=\"r\"><div class=\"cols\"><i></i><i></i><i></i>\
             <button><span class=\"lbl\">Star</span></button></div></li></ul>",
        );
        let (patched, full) = table_after(
            "() => { const s = document.querySelector('.lbl'); s.textContent = 'Unstar'; return [s.firstChild]; }",
        );
        assert!(full.contains("Unstar"), "{full}");
        assert_eq!(patched, full);
    }

    #[wasm_bindgen_test]
    fn wrappers_and_rows_leave_out_the_text_of_lists_and_landmarks_inside() {
        mount(
            "<div id=\"wrap\"><main><p id=\"count\">1</p></main></div>\
             <ul><li data-id=\"a\">Folder <ul><li data-id=\"b\"><span class=\"n\">x</span></li></ul></li></ul>",
        );
        let full =
            eval_string("JSON.stringify(new NspExtract.Extractor(document).full().elements)");
        let records: Vec<Value> = serde_json::from_str(&full).unwrap();
        let text_of = |want: &str| {
            records
                .iter()
                .find(|r| r[2] == want)
                .map(|r| r[4].clone())
                .unwrap_or_else(|| panic!("no record {want}: {full}"))
        };
        // The wrapper reads none of <main>'s text; the outer row only its own words.
        assert_eq!(text_of("#wrap"), "");
        let outer = records
            .iter()
            .find(|r| r[0] == "li" && r[5]["data-id"] == "a")
            .expect("outer row");
        assert_eq!(outer[4], "Folder", "{full}");
        // And a change inside a landmark or a nested list patches exactly.
        let (patched, full) = table_after(
            "() => { const c = document.getElementById('count'); c.textContent = '2'; return [c.firstChild]; }",
        );
        assert_eq!(patched, full);
        let (patched, full) = table_after(
            "() => { const n = document.querySelector('.n'); n.textContent = 'y'; return [n.firstChild]; }",
        );
        assert_eq!(patched, full);
    }

    #[wasm_bindgen_test]
    fn inside_a_shadow_root_in_a_row() {
        mount(
            "<i></i><i></i><i></i><ul><li data-id=\"x\" inert><span id=\"host\"></span></li></ul>",
        );
        eval(
            "(() => { const r = document.getElementById('host').attachShadow({mode: 'open'}); \
             r.innerHTML = '<div role=\"group\" aria-label=\"g\"><em class=\"v\">1</em><button>Go</button></div>'; })()",
        );
        let (patched, full) = table_after(
            "() => { const root = document.getElementById('host').shadowRoot; const b = root.querySelector('button'); \
             b.textContent = 'Went'; return [b.firstChild]; }",
        );
        assert_eq!(patched, full);
    }
}

/// The same for what hides a control from a person (see extract.js, "what a person
/// perceives"): a change below a closed <details>, an aria-hidden wrapper or a hover row.
pub mod patch_equals_full_perceived {
    use super::*;

    fn table_after(change: &str) -> (String, String) {
        super::patch_equals_full::table_after_for(change)
    }

    #[wasm_bindgen_test]
    fn below_closed_details_aria_hidden_and_hover_rows() {
        mount(
            "<style>#hv li .act { opacity: 0 } #hv li:hover .act { opacity: 1 }</style>\
             <details id=\"d\"><summary><button id=\"in-summary\">Open</button></summary><div><button id=\"in-body\">Go</button></div></details>\
             <div aria-hidden=\"true\"><div><button id=\"under\"><span class=\"l\">Delete</span></button></div></div>\
             <ul id=\"hv\"><li data-id=\"a\"><span class=\"n\">A</span><button class=\"act\"><span class=\"l\">Archive</span></button></li></ul>",
        );
        let (patched, full) = table_after(
            "() => { const b = document.getElementById('in-body'); b.textContent = 'Went'; return [b.firstChild]; }",
        );
        assert_eq!(patched, full);
        let (patched, full) = table_after(
            "() => { const b = document.getElementById('in-summary'); b.textContent = 'Opened'; return [b.firstChild]; }",
        );
        assert_eq!(patched, full);
        let (patched, full) = table_after(
            "() => { const s = document.querySelector('#under .l'); s.textContent = 'Erase'; return [s.firstChild]; }",
        );
        assert_eq!(patched, full);
        let (patched, full) = table_after(
            "() => { const s = document.querySelector('#hv .act .l'); s.textContent = 'Unarchive'; return [s.firstChild]; }",
        );
        assert_eq!(patched, full);
        // The flags themselves: hidden in a closed details' body and under aria-hidden,
        // shown in its summary and in the hover row.
        let full: Vec<Value> = serde_json::from_str(&eval_string(
            "JSON.stringify(new NspExtract.Extractor(document).full().elements)",
        ))
        .unwrap();
        let hidden = |id: &str| {
            let r = full
                .iter()
                .find(|r| r[2] == format!("#{id}"))
                .unwrap_or_else(|| panic!("no record #{id}"));
            r[3].as_u64().unwrap() & 2 != 0
        };
        assert!(hidden("in-body"));
        assert!(!hidden("in-summary"));
        assert!(hidden("under"));
        let act = full
            .iter()
            .find(|r| r[0] == "button" && r[4] == "Unarchive")
            .expect("the hover row's control");
        assert_eq!(act[3].as_u64().unwrap() & 2, 0, "{act:?}");
    }
}

pub mod dispatch {
    use super::*;
    use wasm_bindgen_futures::JsFuture;

    async fn run(action: &str, params: &str, capture: &Value) -> Value {
        run_with(action, params, capture, false).await
    }

    /// `accept_confirm` as nspd sends it; a declined confirm() is recorded in
    /// `globalThis.__declined` as `[target, text, element id]`.
    async fn run_with(action: &str, params: &str, capture: &Value, accept: bool) -> Value {
        let capture = serde_json::to_string(capture).unwrap();
        let promise: js_sys::Promise = eval(&format!(
            "NspDispatch.run({{action: {action:?}, parameters: {params}, accept_confirm: {accept}}}, {capture}, globalThis.__b, \
             (s) => {{ globalThis.__declined = [s.target, s.text, s.element ? s.element.id : null]; }})"
        ))
        .into();
        let out = JsFuture::from(promise).await.expect("dispatch");
        serde_json::from_str(&js_sys::JSON::stringify(&out).unwrap().as_string().unwrap()).unwrap()
    }

    /// A framework-like field: like React, it remembers the last value it set and only
    /// reports a change when an input event sees a different DOM value.
    const PAGE: &str = r##"
        <form id="compose" method="post" action="/send" aria-label="Compose">
          <label>To <input name="to" type="email" required></label>
          <label>Subject <input name="subject" id="subject"></label>
          <button type="submit">Send</button>
        </form>
        <p id="seen"></p>
        <ul id="rows">
          <li data-item-id="r1"><span class="name">One</span> <button class="remove">Archive</button></li>
          <li data-item-id="r2"><span class="name">Two</span> <button class="remove">Archive</button></li>
        </ul>
        <p id="log"></p>
        <button type="button" id="danger">Delete all</button>"##;

    fn wire_page() {
        eval(
            "(() => { const subject = document.getElementById('subject'); let tracked = ''; \
             subject.addEventListener('input', () => { if (subject.value !== tracked) { tracked = subject.value; document.getElementById('seen').textContent = 'changed:' + tracked; } }); \
             document.getElementById('compose').addEventListener('submit', (e) => { e.preventDefault(); document.getElementById('log').textContent = 'sent ' + new FormData(e.target).get('to'); }); \
             for (const b of document.querySelectorAll('#rows button')) b.addEventListener('click', () => { document.getElementById('log').textContent = 'archived ' + b.closest('li').dataset.itemId; }); \
             document.getElementById('danger').addEventListener('click', () => { if (confirm('Really delete all?')) document.getElementById('log').textContent = 'deleted all'; }); })()",
        );
    }

    #[wasm_bindgen_test]
    async fn forms_rows_and_confirms_dispatch_like_a_person() {
        mount(PAGE);
        wire_page();
        let capture = analyze(&mut probe(), &snapshot_json());
        let out = run(
            "send",
            r#"{"to": "bob@example.com", "subject": "Hello"}"#,
            &capture,
        )
        .await;
        assert_eq!(out, serde_json::json!({"status": "done", "value": true}));
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            "sent bob@example.com"
        );
        assert_eq!(
            eval_string("document.getElementById('seen').textContent"),
            "changed:Hello"
        );

        // The page's own validation refuses a bad address; nothing is sent.
        eval("document.getElementById('log').textContent = ''");
        let out = run("send", r#"{"to": "not an address"}"#, &capture).await;
        assert_eq!(out["code"], "bad_parameters", "{out}");
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            ""
        );

        let out = run("archive", r#"{"item_id": "r2"}"#, &capture).await;
        assert_eq!(out["status"], "done", "{out}");
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            "archived r2"
        );
        let out = run("archive", r#"{"item_id": "r9"}"#, &capture).await;
        assert_eq!(out["code"], "target_not_found", "{out}");

        // confirm() raised by the action is answered no, and reported.
        eval("document.getElementById('log').textContent = ''");
        let out = run("delete_all", "{}", &capture).await;
        assert_eq!(out["status"], "failed", "{out}");
        assert_eq!(out["code"], "dialog_declined", "{out}");
        assert!(
            out["message"]
                .as_str()
                .unwrap()
                .contains("Really delete all?"),
            "{out}"
        );
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            ""
        );
        // The control that asked is reported, so the page's question counts as evidence.
        let declined: Value =
            serde_json::from_str(&eval_string("JSON.stringify(globalThis.__declined)")).unwrap();
        assert_eq!(
            declined[0],
            capture["actions"]["delete_all"]["internal_target"]
        );
        assert_eq!(declined[1], "Really delete all?");
        assert_eq!(declined[2], "danger");

        // When nspd allows it (an irreversible write with a verify expression), the
        // action's own confirm() is answered yes, and reported.
        let out = run_with("delete_all", "{}", &capture, true).await;
        assert_eq!(out["status"], "done", "{out}");
        assert_eq!(
            out["dialogs"],
            serde_json::json!([{"kind": "confirm", "message": "Really delete all?", "accepted": true}])
        );
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            "deleted all"
        );

        // Only the first confirm(), and only one raised inside the click itself: a second
        // question is declined.
        eval("document.getElementById('log').textContent = ''");
        eval(
            "document.getElementById('danger').addEventListener('click', () => { if (confirm('And the backups?')) document.getElementById('log').textContent += ' and backups'; })",
        );
        let out = run_with("delete_all", "{}", &capture, true).await;
        assert_eq!(out["code"], "dialog_declined", "{out}");
        assert!(
            out["message"]
                .as_str()
                .unwrap()
                .contains("And the backups?"),
            "{out}"
        );
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            "deleted all"
        );
    }

    /// Every element an explanation lists is, in the live page, labelled as it lists
    /// it: `NspExtract.explainLabel` (what dispatch.js checks) reads the DOM by the
    /// probe's rule. Returns the action bound to each element id.
    fn listed_labels_agree(capture: &Value) -> std::collections::BTreeMap<String, String> {
        let mut bound = std::collections::BTreeMap::new();
        for (action, explain) in capture["explain"].as_object().expect("explain") {
            for element in explain["elements"].as_array().into_iter().flatten() {
                let text = element["text"].as_str().unwrap_or_default();
                let selector = serde_json::to_string(&element["selector"]).unwrap();
                if !text.is_empty() {
                    let live = eval_string(&format!(
                        "NspExtract.explainLabel(NspDispatch.resolve({selector}))"
                    ));
                    assert_eq!(live, text, "{action}: {selector}");
                }
                if let Some(id) = element["id"].as_str() {
                    bound.insert(id.to_owned(), action.clone());
                }
            }
        }
        bound
    }

    /// dispatch.js knows a control by the label the probe saw: one named by
    /// aria-labelledby, or by the first of the hidden labels it repeats per state, runs;
    /// one relabelled anywhere in the first 80 characters is refused.
    /// A form the page sends from a script, with no submit button (`<button
    /// type="button">Save</button>`, as many app forms are written): one action on that
    /// button with the form's fields, which fills them and presses it; the browser never
    /// submits the form itself (which would put the fields in a URL). A button that opens
    /// a dialog ("Add tags") sends nothing, whatever its words.
    #[wasm_bindgen_test]
    async fn a_form_sent_by_a_script_is_one_action_on_its_button() {
        mount(
            r##"<form id="profile" aria-label="Profile">
              <label>Display name <input name="display_name"></label>
              <label>Bio <textarea name="bio"></textarea></label>
              <button type="button" id="help">Help</button>
              <button type="button" id="tags" data-toggle="modal" data-target="#tag-dialog">Add tags</button>
              <button type="button" id="save">Save</button>
            </form>
            <p id="log"></p>"##,
        );
        eval(
            "(() => { const f = document.getElementById('profile'); \
             f.addEventListener('submit', (e) => { e.preventDefault(); document.getElementById('log').textContent = 'native submit'; }); \
             document.getElementById('save').addEventListener('click', () => { document.getElementById('log').textContent = 'saved ' + new FormData(f).get('display_name'); }); })()",
        );
        let capture = analyze(&mut probe(), &snapshot_json());
        let (name, save) = capture["actions"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, a)| a["internal_target"] == "dom:#save")
            .unwrap_or_else(|| panic!("Save is an action: {}", capture["actions"]));
        let params: Vec<&str> = save["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(params, ["display_name", "bio"], "{save}");
        let out = run(name, r#"{"display_name": "Ada"}"#, &capture).await;
        assert_eq!(out["status"], "done", "{out}");
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            "saved Ada"
        );
    }

    #[wasm_bindgen_test]
    async fn dispatch_checks_the_label_the_probe_saw() {
        mount(
            r##"<span id="lbl">Remove the draft</span>
            <button type="button" id="rm" aria-labelledby="lbl"><b>x</b></button>
            <button type="button" id="theme"><span>Toggle theme (auto)</span> <span>Toggle theme (light)</span> <span>Toggle theme (dark)</span></button>
            <button type="button" id="export">Export every message of this mailbox to a file in the old format, then archive them</button>
            <p id="log"></p>"##,
        );
        eval(
            "for (const b of document.querySelectorAll('button')) b.addEventListener('click', () => { document.getElementById('log').textContent = b.id; })",
        );
        let capture = analyze(&mut probe(), &snapshot_json());
        let bound = listed_labels_agree(&capture);
        for id in ["rm", "theme"] {
            let action = bound
                .get(id)
                .unwrap_or_else(|| panic!("an action on #{id}: {capture}"));
            let out = run(action, "{}", &capture).await;
            assert_eq!(out["status"], "done", "#{id}: {out}");
            assert_eq!(
                eval_string("document.getElementById('log').textContent"),
                id
            );
        }
        // Past the 60 characters a looser comparison looked at, within the 80 listed.
        eval("document.getElementById('log').textContent = ''; document.getElementById('export').textContent = 'Export every message of this mailbox to a file in the old format, then delete them'");
        let out = run(&bound["export"], "{}", &capture).await;
        assert_eq!(out["code"], "target_changed", "{out}");
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            ""
        );

        mount(PAGE);
        listed_labels_agree(&analyze(&mut probe(), &snapshot_json()));
    }

    #[wasm_bindgen_test]
    async fn a_changed_target_is_refused_and_builtins_answer() {
        mount(PAGE);
        wire_page();
        let capture = analyze(&mut probe(), &snapshot_json());
        // The page relabels the submit button: the schema no longer describes it.
        eval("document.querySelector('#compose button').textContent = 'Delete account'");
        let out = run("send", r#"{"to": "bob@example.com"}"#, &capture).await;
        assert_eq!(out["code"], "target_changed", "{out}");
        assert_eq!(
            eval_string("document.getElementById('log').textContent"),
            ""
        );

        let out = run(
            "read_text",
            r##"{"selector": "#rows li:nth-of-type(2) .name"}"##,
            &capture,
        )
        .await;
        assert_eq!(out, serde_json::json!({"status": "done", "value": "Two"}));
        let out = run(
            "type",
            r##"{"selector": "#subject", "text": "abc"}"##,
            &capture,
        )
        .await;
        assert_eq!(out["status"], "done");
        assert_eq!(
            eval_string("document.getElementById('subject').value"),
            "abc"
        );
        let out = run("read_text", r###"{"selector": "##"}"###, &capture).await;
        assert_eq!(out["code"], "bad_parameters", "{out}");
    }
}

/// Perceivability, hover reveals, and the gate's `expect`.
#[path = "browser/perceive.rs"]
pub mod perceive;

/// App shells, menus, dialogs and unnamed fields (issue 20).
#[path = "browser/shell.rs"]
pub mod shell;
