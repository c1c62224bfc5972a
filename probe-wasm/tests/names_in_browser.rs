//! NAMES' rules on live DOM, in headless Chromium (`wasm-pack test --headless --chrome`):
//! the real extraction script, the probe and the dispatcher on small pages of our own.
//! An image-only link is named by its image; style text is no page text; a listing's
//! names open their records (a click selects, a double-click opens); a form's submit
//! button is pressed with its own click listeners; a menu item the page removes on
//! mouseup has acted; a form around a whole list sends each row's buttons as row
//! actions, keyed by the row's uuid, and a button's own `formmethod` is its method.

#![cfg(target_arch = "wasm32")]

use serde_json::{json, Value};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
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

/// Loads the extension's page scripts once, as classic scripts, as the manifest does.
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
        let src = serde_json::to_string(src).unwrap();
        eval(&format!(
            "(() => {{ const s = document.createElement('script'); s.textContent = {src}; document.head.appendChild(s); }})()"
        ));
    }
}

/// Replaces the fixture's DOM (a #fixture container in the body).
fn mount(html: &str) {
    load_scripts();
    let html = serde_json::to_string(html).unwrap();
    eval(&format!(
        "(() => {{ let f = document.getElementById('fixture'); if (!f) {{ f = document.createElement('div'); f.id = 'fixture'; document.body.append(f); }} f.innerHTML = {html}; }})()"
    ));
}

/// The snapshot of the current document, as the extension takes it.
fn snapshot() -> String {
    eval_string(
        "(() => { globalThis.__ex = new NspExtract.Extractor(document); \
         const b = globalThis.__b || (globalThis.__b = NspBridge.create({})); \
         return JSON.stringify(b.snapshot(globalThis.__ex)); })()",
    )
}

/// The record of the element with id `id` in a parsed snapshot.
fn record_of(snap: &Value, id: &str) -> Value {
    snap["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|r| r[5]["id"] == id)
        .unwrap_or_else(|| panic!("no record of {id}: {snap:#}"))
        .clone()
}

/// The action bound to the element with id `id` in a capture, with its name.
fn action_on(c: &Value, id: &str) -> Option<(String, Value)> {
    c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .find(|(_, a)| a["internal_target"] == format!("dom:#{id}"))
        .map(|(n, a)| (n.clone(), a.clone()))
}

/// The names of an action's parameters, in order.
fn param_names(action: &Value) -> Vec<&str> {
    action["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect()
}

/// The capture of the current document, as the probe reads the snapshot.
fn capture() -> Value {
    let snapshot = snapshot();
    let mut probe = nsp_probe::Probe::new(r#"{"tier": "wasm_in_page"}"#).expect("probe");
    serde_json::from_str(&probe.analyze(&snapshot).expect("capture")).expect("JSON")
}

async fn run(action: &str, params: &str, capture: &Value) -> Value {
    let capture = serde_json::to_string(capture).unwrap();
    let promise: js_sys::Promise = eval(&format!(
        "NspDispatch.run({{action: {action:?}, parameters: {params}, accept_confirm: false}}, {capture}, globalThis.__b, () => {{}})"
    ))
    .into();
    match JsFuture::from(promise).await {
        Ok(out) => {
            serde_json::from_str(&js_sys::JSON::stringify(&out).unwrap().as_string().unwrap())
                .unwrap()
        }
        Err(e) => {
            let text = js_sys::JSON::stringify(&e)
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_default();
            json!({"error": text, "message": format!("{e:?}")})
        }
    }
}

fn text_of(id: &str) -> String {
    eval_string(&format!("document.getElementById({id:?}).textContent"))
}

#[wasm_bindgen_test]
fn an_image_only_link_is_named_by_its_image_and_style_text_is_no_text() {
    mount(
        r#"<div id="styleArea"><style>.pane { display: flex; }</style></div>
           <footer><a id="powered" href="https://example.org/"><img alt="Example Powered" width="40" height="20" src="data:,"></a>
           <a id="docs" href="https://example.org/docs"><img title="Documentation" width="20" height="20" src="data:,"></a></footer>"#,
    );
    // The record of the style's wrapper carries no CSS as its text.
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let wrapper = snap["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|r| r[5]["id"] == "styleArea")
        .unwrap_or_else(|| panic!("{snap:#}"));
    assert_eq!(wrapper[4], "", "{wrapper}");
    let c = capture();
    let open = &c["actions"]["open_example_powered"];
    assert_eq!(open["reversibility"], "read", "{:#}", c["actions"]);
    assert_eq!(c["actions"]["open_documentation"]["reversibility"], "read");
    // The dispatcher checks the label the probe bound: the same on both sides.
    let bound = c["explain"]["open_example_powered"]["elements"][0]["text"].clone();
    assert_eq!(
        bound,
        json!(eval_string(
            "NspExtract.explainLabel(document.getElementById('powered'))"
        ))
    );
    let objects = c["objects"].as_object().expect("objects");
    assert!(
        objects
            .values()
            .all(|v| !v.to_string().contains("display: flex")),
        "{objects:#?}"
    );
}

#[wasm_bindgen_test]
async fn a_listings_name_opens_its_record_with_a_double_click() {
    mount(
        r#"<div id="listing"><ul>
             <li class="entry"><span class="entry-name" role="button" tabindex="0">docs</span><span class="entry-size">-</span></li>
             <li class="entry"><span class="entry-name">a.md</span><span class="entry-size">27 B</span></li>
             <li class="entry"><span class="entry-name">b.txt</span><span class="entry-size">18 B</span></li>
           </ul><p id="opened"></p><p id="selected"></p></div>"#,
    );
    // A file browser: one listener for the whole listing; a click selects, a
    // double-click opens.
    eval(
        "(() => { const l = document.getElementById('listing'); \
         const name = (e) => { const li = e.target.closest('li'); return li ? li.querySelector('.entry-name').textContent : null; }; \
         l.addEventListener('click', (e) => { const n = name(e); if (n) document.getElementById('selected').textContent = n; }); \
         l.addEventListener('dblclick', (e) => { const n = name(e); if (n) document.getElementById('opened').textContent = n; }); })()",
    );
    let c = capture();
    let open = &c["actions"]["open"];
    assert_eq!(open["reversibility"], "read", "{:#}", c["actions"]);
    assert_eq!(open["parameters"][0]["name"], "name", "{open:#}");
    assert!(c["actions"].get("docs").is_none(), "{:#}", c["actions"]);
    let out = run("open", r#"{"name": "b.txt"}"#, &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}));
    assert_eq!(text_of("selected"), "b.txt");
    assert_eq!(text_of("opened"), "b.txt");
}

/// The actions of a capture that press a row as a whole (`| self`), with their names.
fn pressing_rows(c: &Value) -> Vec<(String, Value)> {
    c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .filter(|(_, a)| {
            a["internal_target"]
                .as_str()
                .unwrap_or("")
                .ends_with("| self")
        })
        .map(|(n, a)| (n.clone(), a.clone()))
        .collect()
}

/// The record buttons of a mail client's list: each a `<button>` showing the whole
/// message (MailDev 3's list, drawn so).
fn message_list(rows: &[(&str, &str, &str, &str)]) -> String {
    let mut html = String::from(r#"<div id="mail"><div class="list">"#);
    for (id, from, subject, text) in rows {
        html.push_str(&format!(
            r#"<button class="item" data-msg-id="{id}"><div class="flex"><div class="avatar">{}</div><div><div><span>{from}</span><span>2m ago</span></div><div><span>{subject}</span></div><p>{text}</p></div></div></button>"#,
            &from[..2].to_uppercase()
        ));
    }
    html.push_str(r#"</div><p id="opened"></p></div>"#);
    html
}

#[wasm_bindgen_test]
async fn a_list_of_buttons_each_a_whole_record_opens_the_named_one() {
    mount(&message_list(&[
        (
            "m-101",
            "carol@example.com",
            "Invoice #4471",
            "Please find the invoice attached.",
        ),
        (
            "m-102",
            "alice@example.com",
            "Quarterly report",
            "Here are the numbers for Q3.",
        ),
        (
            "m-103",
            "bob@example.com",
            "Delete old backups?",
            "The disk is nearly full.",
        ),
    ]));
    eval(
        "(() => { for (const b of document.querySelectorAll('#mail button')) \
         b.addEventListener('click', () => { document.getElementById('opened').textContent = b.dataset.msgId; }); })()",
    );
    let c = capture();
    let actions = c["actions"].as_object().expect("actions");
    // One action for the list, judged as opening a record, not by the words of the
    // messages ("report", "Delete" in a subject are data), nor named after them.
    let opens = pressing_rows(&c);
    let [(name, open)] = opens.as_slice() else {
        panic!("not one action pressing a row itself: {actions:#?}");
    };
    assert!(name.starts_with("open_"), "{name}");
    assert_eq!(open["reversibility"], "read", "{open:#}");
    assert!(open["confidence"].as_f64().unwrap() >= 0.8, "{open:#}");
    assert_eq!(
        open["parameters"][0]["allowed_values"],
        json!(["m-101", "m-102", "m-103"]),
        "{open:#}"
    );
    assert!(
        actions
            .keys()
            .all(|n| !n.contains("example") && !n.contains("ago")),
        "actions named after a message: {:?}",
        actions.keys().collect::<Vec<_>>()
    );
    // Each message's parts are its record's values: the subject is one of them, as the
    // page shows it, not run together with the sender and the time.
    let values: Vec<&Value> = c["objects"]
        .as_object()
        .expect("objects")
        .values()
        .collect();
    for part in [
        "Quarterly report",
        "bob@example.com",
        "Here are the numbers for Q3.",
    ] {
        assert!(values.contains(&&json!(part)), "{part}: {:#}", c["objects"]);
    }
    let param = open["parameters"][0]["name"].as_str().unwrap().to_owned();
    let out = run(name, &format!(r#"{{"{param}": "m-102"}}"#), &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}));
    assert_eq!(text_of("opened"), "m-102");

    // A new message arrives beside those found before: the next capture takes it in.
    eval(
        "(() => { const l = document.querySelector('#mail .list'); const b = l.firstElementChild.cloneNode(true); \
         b.dataset.msgId = 'm-104'; b.querySelector('p').textContent = 'A new one.'; l.append(b); })()",
    );
    let c = capture();
    let opens = pressing_rows(&c);
    assert_eq!(opens.len(), 1, "{:#}", c["actions"]);
    assert_eq!(
        opens[0].1["parameters"][0]["allowed_values"],
        json!(["m-101", "m-102", "m-103", "m-104"]),
        "{:#}",
        c["actions"]
    );

    // Rows that say what they do are no records to open: a settings page's cards whose
    // text opens with a verb that writes keep their own actions, judged by it.
    mount(
        r#"<div id="danger"><div class="list">
        <button class="card" data-op="transfer"><div><strong>Transfer ownership</strong><p>Give this project to another user.</p></div></button>
        <button class="card" data-op="delete"><div><strong>Delete this project</strong><p>Once you delete it, there is no going back.</p></div></button>
      </div></div>"#,
    );
    let c = capture();
    let actions = c["actions"].as_object().expect("actions");
    assert!(pressing_rows(&c).is_empty(), "{actions:#?}");
    assert!(
        actions
            .values()
            .any(|a| a["reversibility"] == "irreversible_write"),
        "{actions:#?}"
    );

    // Nor are buttons of two parts (a folder and its count, a command and its
    // shortcut): a list of folders is a list of places, each its own action.
    mount(
        r#"<div id="folders"><div class="list">
        <button class="folder"><span>Inbox</span><span class="count">3</span></button>
        <button class="folder"><span>Drafts</span><span class="count">1</span></button>
        <button class="folder"><span>Spam</span><span class="count">9</span></button>
      </div></div>"#,
    );
    let c = capture();
    let actions = c["actions"].as_object().expect("actions");
    assert!(pressing_rows(&c).is_empty(), "{actions:#?}");
}

#[wasm_bindgen_test]
async fn a_tables_rows_drawn_with_a_pointer_open_the_named_one() {
    // mitmweb's flow list: its stylesheet points the rows, one listener on the table
    // selects the row clicked, each row's last cell holds an icon link of its own.
    let table = |style: &str| {
        format!(
            r##"<style>{style}</style><table id="flows"><thead><tr><th>Path</th><th>Method</th><th>Status</th><th></th></tr></thead><tbody>
            <tr data-flow-id="f-1"><td>/api/payments</td><td>POST</td><td>200</td><td><a href="#"><i class="fa fa-ellipsis"></i></a></td></tr>
            <tr data-flow-id="f-2"><td>/api/orders</td><td>GET</td><td>200</td><td><a href="#"><i class="fa fa-ellipsis"></i></a></td></tr>
            <tr data-flow-id="f-3"><td>/api/refunds</td><td>POST</td><td>500</td><td><a href="#"><i class="fa fa-ellipsis"></i></a></td></tr>
            </tbody></table><p id="selected"></p>"##
        )
    };
    mount(&table("#flows tr { cursor: pointer; }"));
    eval(
        "(() => { document.getElementById('flows').addEventListener('click', (e) => { \
         const tr = e.target.closest('tbody tr'); if (tr) document.getElementById('selected').textContent = tr.dataset.flowId; }); })()",
    );
    let c = capture();
    let opens = pressing_rows(&c);
    let [(name, open)] = opens.as_slice() else {
        panic!("not one action pressing a row itself: {:#}", c["actions"]);
    };
    assert_eq!(open["reversibility"], "read", "{open:#}");
    assert_eq!(
        open["parameters"][0]["allowed_values"],
        json!(["f-1", "f-2", "f-3"]),
        "{open:#}"
    );
    let param = open["parameters"][0]["name"].as_str().unwrap().to_owned();
    let out = run(name, &format!(r#"{{"{param}": "f-3"}}"#), &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}));
    assert_eq!(text_of("selected"), "f-3");

    // A page that points everywhere (its table, rows and all) says nothing of its rows.
    mount(&table("#flows { cursor: pointer; }"));
    let c = capture();
    assert!(pressing_rows(&c).is_empty(), "{:#}", c["actions"]);
}

#[wasm_bindgen_test]
async fn a_submit_buttons_click_listener_runs_and_a_menu_item_gone_on_mouseup_acted() {
    mount(
        r#"<form id="make" aria-label="New collection"><label>Title <input name="title"></label>
             <button type="submit" id="create">Create</button></form>
           <ul role="menu" id="menu" aria-label="New"><li role="menuitem" tabindex="-1" id="folder">New Folder</li></ul>
           <p id="log"></p>"#,
    );
    // The app does its work in the button's click handler and cancels the native
    // submit; the menu runs its item on mouseup and closes.
    eval(
        "(() => { document.getElementById('create').addEventListener('click', (e) => { e.preventDefault(); \
           document.getElementById('log').textContent = 'created ' + document.querySelector('[name=title]').value; }); \
         document.getElementById('make').addEventListener('submit', (e) => { e.preventDefault(); document.getElementById('log').textContent = 'native submit'; }); \
         const item = document.getElementById('folder'); \
         item.addEventListener('mouseup', () => { document.getElementById('log').textContent = 'folder'; document.getElementById('menu').remove(); }); })()",
    );
    let c = capture();
    let create = c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .find(|(_, a)| {
            a["parameters"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p["name"] == "title"))
        })
        .map(|(n, _)| n.clone())
        .unwrap_or_else(|| panic!("{:#}", c["actions"]));
    let out = run(&create, r#"{"title": "Work"}"#, &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}), "{create}");
    assert_eq!(text_of("log"), "created Work");

    let out = run("new_folder", "{}", &c).await;
    assert_eq!(
        out,
        json!({"status": "done", "value": true}),
        "{:#}",
        c["actions"]
    );
    assert_eq!(text_of("log"), "folder");
}

/// One watch-list row: its uuid, the page it watches, and where its "Pause" posts.
fn watch_row(uuid: &str, url: &str, pause_op: &str) -> String {
    format!(
        r#"<tr data-watch-uuid="{uuid}"><td><input type="checkbox" name="uuids" value="{uuid}"></td><td>{url}</td>
             <td><button type="submit" formmethod="post" formaction="/toggle?op={pause_op}&amp;uuid={uuid}">Pause</button>
             <button type="submit" name="op" value="delete-{uuid}">Delete</button></td></tr>"#
    )
}

#[wasm_bindgen_test]
async fn a_form_around_a_list_sends_each_rows_buttons_as_row_actions() {
    let uuids = [
        "4f365339-9fd8-4157-8135-014dfd9b450d",
        "7d6c72a8-5505-41b8-a737-3ea1d36be8e1",
        "c135624b-af29-4b7f-8b65-3a22038ea6a6",
    ];
    // The third row's "Pause" posts `op=delete`: the same label, another control.
    let rows: String = [
        watch_row(uuids[0], "https://a.example/", "pause"),
        watch_row(uuids[1], "https://b.example/", "pause"),
        watch_row(uuids[2], "https://c.example/", "delete"),
    ]
    .concat();
    mount(&format!(
        r#"<form id="watches" method="post" action="/bulk" aria-label="Watch list">
             <table><thead><tr><th></th><th>Web page</th><th></th></tr></thead><tbody>{rows}</tbody></table>
             <button type="submit">Apply</button></form><p id="log"></p>"#
    ));
    // The page sends the form itself and writes down where the browser would have sent it.
    eval(
        "document.getElementById('watches').addEventListener('submit', (e) => { e.preventDefault(); \
           const b = e.submitter; document.getElementById('log').textContent = \
           (b.getAttribute('formaction') || 'bulk') + (b.name ? ' ' + b.name + '=' + b.value : ''); })",
    );
    let c = capture();
    let actions = &c["actions"];
    let names: Vec<&String> = actions.as_object().expect("actions").keys().collect();
    // One action per button of the rows, the row's uuid its parameter; not one form
    // action per row told apart by a number.
    let by_row = |verb: &str| -> String {
        let found: Vec<&String> = actions
            .as_object()
            .expect("actions")
            .iter()
            .filter(|(n, a)| n.starts_with(verb) && a["parameters"][0]["name"] == "watch_uuid")
            .map(|(n, _)| n)
            .collect();
        let [one] = found[..] else {
            panic!("{verb}: {found:?} of {names:?}")
        };
        assert_eq!(
            actions[one]["parameters"].as_array().map(Vec::len),
            Some(1),
            "{:#}",
            actions[one]
        );
        assert!(
            actions[one]["internal_target"]
                .as_str()
                .unwrap_or("")
                .starts_with("row:"),
            "{:#}",
            actions[one]
        );
        one.clone()
    };
    let pause = by_row("pause");
    let delete = by_row("delete");
    assert_eq!(
        actions[&delete]["reversibility"], "irreversible_write",
        "{:#}",
        actions[&delete]
    );
    // The lying row's "Pause" is an action of its own, bound to that button alone.
    let lone: Vec<&String> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with("pause") && **n != pause)
        .collect();
    let [lone] = lone[..] else {
        panic!("{names:?}")
    };
    assert!(
        actions[lone]["internal_target"]
            .as_str()
            .unwrap_or("")
            .contains("tr:nth-of-type(3)"),
        "{:#}",
        actions[lone]
    );
    assert_eq!(
        names.iter().filter(|n| n.starts_with("delete")).count(),
        1,
        "{names:?}"
    );
    // The bulk button stays the form's, with its fields.
    let apply = actions
        .as_object()
        .expect("actions")
        .values()
        .find(|a| {
            a["parameters"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p["name"] == "uuids"))
        })
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(
        !apply["internal_target"]
            .as_str()
            .unwrap_or("")
            .starts_with("row:"),
        "{apply:#}"
    );

    let out = run(&pause, &format!(r#"{{"watch_uuid": "{}"}}"#, uuids[1]), &c).await;
    assert_eq!(
        out,
        json!({"status": "done", "value": true}),
        "{:#}",
        actions[&pause]
    );
    assert_eq!(
        text_of("log"),
        format!("/toggle?op=pause&uuid={}", uuids[1])
    );
    let out = run(&delete, &format!(r#"{{"watch_uuid": "{}"}}"#, uuids[0]), &c).await;
    assert_eq!(
        out,
        json!({"status": "done", "value": true}),
        "{:#}",
        actions[&delete]
    );
    assert_eq!(text_of("log"), format!("bulk op=delete-{}", uuids[0]));
    // The row whose "Pause" posts elsewhere is no row of `pause`: asked for, nothing is
    // pressed.
    eval("document.getElementById('log').textContent = ''");
    let out = run(&pause, &format!(r#"{{"watch_uuid": "{}"}}"#, uuids[2]), &c).await;
    assert_ne!(out["status"], "done", "{out:#}");
    assert_eq!(text_of("log"), "");
    // Nor a row whose button the page pointed elsewhere after the capture.
    eval(&format!(
        "document.querySelector('tr[data-watch-uuid=\"{}\"] button').setAttribute('formaction', '/toggle?op=delete&uuid={}')",
        uuids[1], uuids[1]
    ));
    let out = run(&pause, &format!(r#"{{"watch_uuid": "{}"}}"#, uuids[1]), &c).await;
    assert_ne!(out["status"], "done", "{out:#}");
    assert_eq!(text_of("log"), "");
    // Nor one the page points elsewhere as the pointer goes down on it.
    eval(&format!(
        "(() => {{ const b = document.querySelector('tr[data-watch-uuid=\"{0}\"] button'); \
           b.addEventListener('mousedown', () => b.setAttribute('formaction', '/toggle?op=delete&uuid={0}')); }})()",
        uuids[0]
    ));
    let out = run(&pause, &format!(r#"{{"watch_uuid": "{}"}}"#, uuids[0]), &c).await;
    assert_eq!(out["code"], "target_changed", "{out:#}");
    assert_eq!(text_of("log"), "");
}

#[wasm_bindgen_test]
fn a_submit_buttons_own_method_is_the_method_it_sends_with() {
    mount(
        r#"<form method="get" action="/items" aria-label="Find items"><input name="q" aria-label="Query">
             <button type="submit">Find</button></form>
           <form method="get" action="/items" aria-label="Purge items"><input name="older_than" aria-label="Older than">
             <button type="submit" formmethod="post" formaction="/items/purge">Find</button></form>"#,
    );
    let c = capture();
    let tiers: Vec<(String, Value)> = c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .filter(|(_, a)| {
            a["parameters"].as_array().is_some_and(|p| {
                p.iter()
                    .any(|p| p["name"] == "q" || p["name"] == "older_than")
            })
        })
        .map(|(_, a)| {
            (
                a["parameters"][0]["name"].as_str().unwrap_or("").to_owned(),
                a["reversibility"].clone(),
            )
        })
        .collect();
    assert_eq!(tiers.len(), 2, "{:#}", c["actions"]);
    for (field, tier) in tiers {
        if field == "q" {
            assert_eq!(tier, "read", "{:#}", c["actions"]);
        } else {
            assert_ne!(
                tier, "read",
                "a POST sent as a GET form's: {:#}",
                c["actions"]
            );
        }
    }
}

#[wasm_bindgen_test]
fn an_inline_edit_grids_save_on_every_row_stays_the_forms() {
    // Each row's "Save" sends the whole form, the fields a person filled included.
    mount(
        r#"<form method="post" action="/prices" aria-label="Prices"><table><tbody>
             <tr data-item-id="a1"><td>Apples</td><td><input name="price_a1" aria-label="Apples price" value="3"></td><td><button type="submit" name="save" value="a1">Save</button></td></tr>
             <tr data-item-id="b2"><td>Pears</td><td><input name="price_b2" aria-label="Pears price" value="4"></td><td><button type="submit" name="save" value="b2">Save</button></td></tr>
           </tbody></table></form>"#,
    );
    let c = capture();
    let saves: Vec<&Value> = c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .filter(|(n, _)| n.starts_with("save"))
        .map(|(_, a)| a)
        .collect();
    assert!(!saves.is_empty(), "{:#}", c["actions"]);
    for a in saves {
        let params = param_names(a);
        assert!(
            params.contains(&"price_a1") && params.contains(&"price_b2"),
            "{a:#}"
        );
    }
}

/// Words in blocks of their own are read apart, as a person reads them: an account
/// link of a name above a balance (Actual Budget's sidebar) was "Checking1,200.00",
/// the action `open_checking1`, a name that changed with the balance.
#[wasm_bindgen_test]
async fn words_in_blocks_of_their_own_are_read_apart() {
    mount(
        r##"<nav aria-label="Accounts">
           <a id="acc" href="#checking"><div><div class="dot"></div></div><div><div>Checking</div><div><span id="bal">1,200.00</span></div></div></a>
           <button id="save" type="button"><div>Save</div><div>draft</div></button>
           <button id="wire" type="button"><b>W</b>ire money</button></nav>"##,
    );
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let text = |id: &str| record_of(&snap, id)[4].clone();
    assert_eq!(text("acc"), "Checking 1,200.00");
    assert_eq!(text("save"), "Save draft");
    // Inline parts of one word stay one word.
    assert_eq!(text("wire"), "Wire money");
    let name_of = |c: &Value, id: &str| {
        action_on(c, id)
            .unwrap_or_else(|| panic!("no action on #{id}: {c:#}"))
            .0
    };
    let c = capture();
    let link = name_of(&c, "acc");
    assert_eq!(link, "open_checking");
    assert_eq!(name_of(&c, "save"), "save_draft");
    // The balance changes; the action keeps its name, and the dispatcher reads the
    // label the probe bound.
    eval("document.getElementById('bal').textContent = '980.00'");
    let c = capture();
    assert_eq!(name_of(&c, "acc"), link);
    assert_eq!(
        c["explain"][link.as_str()]["elements"][0]["text"],
        json!(eval_string(
            "NspExtract.explainLabel(document.getElementById('acc'))"
        ))
    );
    let out = run(&link, "{}", &c).await;
    assert_eq!(out["status"], "done", "{out}");
}

/// Icon fonts draw a word as a glyph (Material Icons' "delete" is a bin): under
/// `aria-hidden="true"` nobody perceives the word, and it is no part of the control's
/// name or tier ("deleteArchive" was `irreversible`). The glyph's box here is what a
/// loaded icon font draws, one em wide (no font file in a hermetic test). A font the
/// page names but does not load draws the word as text a person reads: it stays.
#[wasm_bindgen_test]
async fn an_icon_fonts_word_is_no_part_of_a_name() {
    mount(
        r#"<style>.material-icons { font-family: 'Material Icons'; font-size: 24px; display: inline-block; width: 24px; overflow: hidden; white-space: nowrap; }</style>
           <section aria-label="Mail">
           <button id="arch" type="button"><i class="material-icons" aria-hidden="true">delete</i>Archive</button>
           <a id="back" href="/inbox"><span class="material-icons" aria-hidden="true">arrow_back</span>Back to inbox</a>
           <button id="fake" type="button"><span aria-hidden="true" style="font-family: 'No Such Icons'; font-size: 16px">delete</span> View</button>
           <p id="log"></p></section>"#,
    );
    eval(
        "document.getElementById('arch').addEventListener('click', () => { document.getElementById('log').textContent = 'archived'; })",
    );
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let text = |id: &str| record_of(&snap, id)[4].clone();
    assert_eq!(text("arch"), "Archive");
    assert_eq!(text("back"), "Back to inbox");
    assert_eq!(text("fake"), "delete View", "a word drawn as text is read");
    let c = capture();
    let by_element =
        |id: &str| action_on(&c, id).unwrap_or_else(|| panic!("no action on #{id}: {c:#}"));
    let (archive, a) = by_element("arch");
    assert_eq!(archive, "archive", "{a:#}");
    assert_eq!(a["reversibility"], "reversible_write", "{a:#}");
    assert_ne!(by_element("fake").1["reversibility"], "read");
    // The dispatcher reads the label the probe bound.
    assert_eq!(
        c["explain"][archive.as_str()]["elements"][0]["text"],
        json!(eval_string(
            "NspExtract.explainLabel(document.getElementById('arch'))"
        ))
    );
    let out = run(&archive, "{}", &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}), "{archive}");
    assert_eq!(text_of("log"), "archived");
}

/// An element with `display: contents` has no box of its own, and `checkVisibility`
/// says no for it, though what it holds is drawn: React Aria's grid cells, a custom
/// element's host, layout wrappers. Everything in one was taken as not rendered: the
/// controls in it were not offered (Actual Budget lists its files in such
/// cells), and words in it were no words the eye sees. What it holds
/// is seen now, and its controls are offered and run. A wrapper that also hides what
/// it holds (`visibility: hidden`) or sits in a hidden element still hides it.
#[wasm_bindgen_test]
async fn what_a_box_less_wrapper_holds_is_seen() {
    mount(
        r#"<section aria-label="Files">
           <button id="lie" type="button" aria-label="View"><span style="display: contents">Delete all files</span></button>
           <div role="grid" aria-label="Budget files"><div role="row" data-key="f1">
             <div role="gridcell" style="display: contents"><span class="name">My Finances</span>
               <button id="menu" type="button" aria-label="Open menu">...</button></div></div></div>
           <nsp-card style="display: contents"><button id="archive" type="button">Archive</button></nsp-card>
           <div style="display: contents; visibility: hidden"><button id="ghost" type="button">Export</button></div>
           <div style="display: none"><div style="display: contents"><button id="gone" type="button">Print</button></div></div>
           <p id="log"></p></section>"#,
    );
    eval(
        "document.getElementById('menu').addEventListener('click', () => { document.getElementById('log').textContent = 'menu'; })",
    );
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let record = |id: &str| record_of(&snap, id);
    let lie = record("lie");
    assert_eq!(lie[4], "Delete all files", "{lie}");
    assert!(lie[5].get("seen_text").is_none(), "seen as it is: {lie}");
    let hidden = |r: &Value| r[3].as_u64().unwrap_or(0) & 2 != 0;
    for id in ["menu", "archive"] {
        assert!(!hidden(&record(id)), "{id} is drawn: {snap:#}");
    }
    for id in ["ghost", "gone"] {
        assert!(hidden(&record(id)), "{id} is not: {snap:#}");
    }
    let c = capture();
    let actions = c["actions"].as_object().expect("actions");
    let by_element = |id: &str| action_on(&c, id);
    let (name, a) = by_element("lie").expect("the lying button is an action");
    assert_ne!(a["reversibility"], "read", "{name} {a:#}");
    assert!(by_element("archive").is_some(), "{actions:#?}");
    assert!(
        by_element("ghost").is_none() && by_element("gone").is_none(),
        "{actions:#?}"
    );
    let (menu, a) = actions
        .iter()
        .find(|(n, _)| n.contains("menu"))
        .unwrap_or_else(|| panic!("the grid cell's menu is offered: {actions:#?}"));
    let params = if a["parameters"].as_array().is_some_and(|p| !p.is_empty()) {
        format!(
            "{{{:?}: \"f1\"}}",
            a["parameters"][0]["name"].as_str().unwrap_or("")
        )
    } else {
        "{}".to_owned()
    };
    let out = run(menu, &params, &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}), "{menu}");
    assert_eq!(text_of("log"), "menu");
}

#[wasm_bindgen_test]
async fn words_a_person_does_not_see_are_no_evidence_of_a_read() {
    mount(
        r#"<style>.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }</style>
           <section aria-label="Money">
           <button id="w-sr" type="button" aria-label="View balance">Wire all funds to savings<span class="sr"> View</span></button>
           <button id="w-clear" type="button"><span style="opacity: 0">View </span>Wire all funds abroad</button>
           <button id="w-none" type="button"><span style="display: none">View </span>Wire all funds overseas</button>
           <button id="w-tiny" type="button"><span style="font-size: 0">View </span>Wire all funds to Ann</button>
           <button id="w-gone" type="button"><span style="visibility: hidden">View </span>Wire all funds to Bob</button>
           <button id="w-own" type="button" style="color: transparent">View <span style="color: black">Wire all funds to Cy</span></button>
           <button id="w-faint" type="button">Wire all funds to Dee<span style="opacity: 0.02"> View</span></button>
           <button id="w-alpha" type="button">Wire all funds to Eve<span style="color: rgba(200, 0, 0, 0.04)"> View</span></button>
           <button id="w-stack" type="button">Wire all funds to Flo<span style="opacity: 0.3"><b style="filter: opacity(0.3)"> View</b></span></button>
           <button id="narrow" type="button"><svg width="12" height="12" aria-hidden="true"></svg><span style="display: none">Settings</span></button>
           <button id="icon" type="button"><span class="sr">View details</span><svg width="16" height="16" aria-hidden="true"></svg></button>
           <a id="st" href="/statements">Statements<span class="sr"> (opens in a new tab)</span></a>
           <a id="logo" href="/home"><svg width="20" height="20"><title>Bank home</title><rect width="20" height="20"></rect></svg></a>
           <p id="log"></p></section>"#,
    );
    eval(
        "document.getElementById('icon').addEventListener('click', () => { document.getElementById('log').textContent = 'details'; })",
    );
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let record = |id: &str| record_of(&snap, id);
    // What nobody perceives is no text; what only a screen reader reads is text, and
    // what the eye sees goes beside it.
    for (id, text, seen) in [
        (
            "w-sr",
            "Wire all funds to savings View",
            Some("Wire all funds to savings"),
        ),
        (
            "w-clear",
            "View Wire all funds abroad",
            Some("Wire all funds abroad"),
        ),
        ("w-none", "Wire all funds overseas", None),
        (
            "w-tiny",
            "View Wire all funds to Ann",
            Some("Wire all funds to Ann"),
        ),
        ("w-gone", "Wire all funds to Bob", None),
        (
            "w-own",
            "View Wire all funds to Cy",
            Some("Wire all funds to Cy"),
        ),
        ("icon", "View details", None),
        ("st", "Statements (opens in a new tab)", Some("Statements")),
        ("logo", "Bank home", Some("")),
        (
            "w-faint",
            "Wire all funds to Dee View",
            Some("Wire all funds to Dee"),
        ),
        (
            "w-alpha",
            "Wire all funds to Eve View",
            Some("Wire all funds to Eve"),
        ),
        // Opacities multiply: 0.3 inside 0.3 is drawn at 0.09.
        (
            "w-stack",
            "Wire all funds to Flo View",
            Some("Wire all funds to Flo"),
        ),
        // Its only words hidden (a narrow window's label): still its name, seen by none.
        ("narrow", "Settings", Some("")),
    ] {
        let r = record(id);
        assert_eq!(r[4], text, "{id}: {r}");
        assert_eq!(r[5]["seen_text"].as_str(), seen, "{id}: {r}");
    }
    let c = capture();
    let by_element =
        |id: &str| action_on(&c, id).unwrap_or_else(|| panic!("no action on #{id}: {c:#}"));
    for id in [
        "w-sr", "w-clear", "w-none", "w-tiny", "w-gone", "w-own", "w-faint", "w-alpha", "w-stack",
    ] {
        let (name, a) = by_element(id);
        assert_ne!(a["reversibility"], "read", "{id}: {name} {a:#}");
    }
    let (details, a) = by_element("icon");
    assert_eq!(a["reversibility"], "read", "{details} {a:#}");
    assert_eq!(by_element("st").1["reversibility"], "read");
    assert_eq!(by_element("logo").1["reversibility"], "read");
    // The dispatcher reads the labels the probe bound, the hidden parts left out alike.
    for id in ["w-sr", "w-none", "icon"] {
        let (name, _) = by_element(id);
        assert_eq!(
            c["explain"][name.as_str()]["elements"][0]["text"],
            json!(eval_string(&format!(
                "NspExtract.explainLabel(document.getElementById({id:?}))"
            ))),
            "{id}"
        );
    }
    let out = run(&details, "{}", &c).await;
    assert_eq!(out, json!({"status": "done", "value": true}), "{details}");
    assert_eq!(text_of("log"), "details");
}

/// An entry form drawn by a framework (Fava's add-transaction dialog, reduced): the
/// focused payee's open suggestions cover the fields below it; its label wraps the
/// field and the suggestions, the narration's label a button of its own; a field's
/// input reaches the form's state in a microtask, after which every field is drawn
/// again from that state; the amount, last, commits its value when it loses the focus.
/// The capture: the covered fields are the form's (the suggestions go when the focus
/// leaves), the suggestions no parameter, each label its own words. The dispatcher:
/// it leaves the suggestions, fills top to bottom with the page drawn between, and
/// presses the button as a person does, so the form sends every value.
#[wasm_bindgen_test]
async fn a_frameworks_entry_form_sends_every_value_it_was_given() {
    mount(
        r#"<form id="entry" aria-label="Entry" style="position: relative; width: 30em">
             <label><span>Payee:</span> <input id="payee" role="combobox" aria-expanded="true" aria-controls="sugg" autocomplete="off" placeholder="Payee">
               <ul id="sugg" role="listbox" style="position: absolute; left: 0; top: 2em; width: 28em; height: 9em; margin: 0; background: #fff; z-index: 5">
                 <li role="option">Market</li><li role="option">Landlord</li></ul></label>
             <p><label>Narration: <input id="narration"> <button id="meta" type="button" title="Add metadata">m</button></label></p>
             <p><input id="account" placeholder="Account"> <input id="amount" placeholder="Amount"></p>
             <button id="save" type="submit">Save</button></form>
           <p id="log"></p>"#,
    );
    eval(
        "(() => { const $ = (id) => document.getElementById(id); \
           const state = { payee: '', narration: '', account: '', amount: '' }; \
           const draw = () => { for (const k of ['narration', 'account']) $(k).value = state[k]; $('amount').value = state.amount; }; \
           $('payee').addEventListener('input', () => { state.payee = $('payee').value; }); \
           $('payee').addEventListener('blur', () => { $('sugg').hidden = true; $('payee').setAttribute('aria-expanded', 'false'); }); \
           for (const k of ['narration', 'account']) $(k).addEventListener('input', () => { const v = $(k).value; queueMicrotask(() => { state[k] = v; }); queueMicrotask(draw); }); \
           $('amount').addEventListener('blur', () => { state.amount = $('amount').value; }); \
           $('entry').addEventListener('submit', (e) => { e.preventDefault(); $('log').textContent = JSON.stringify(state); }); \
           $('payee').focus(); })()",
    );
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let hidden = |r: &Value| r[3].as_u64().unwrap_or(0) & 2 != 0;
    for id in ["narration", "account", "amount"] {
        assert!(!hidden(&record_of(&snap, id)), "{id}: {snap:#}");
    }
    assert_eq!(record_of(&snap, "payee")[6], "Payee:", "{snap:#}");
    assert_eq!(record_of(&snap, "narration")[6], "Narration:", "{snap:#}");
    let c = capture();
    let (save, a) = action_on(&c, "save").expect("the form's action");
    assert_eq!(
        param_names(&a),
        ["payee", "narration", "account", "amount"],
        "{a:#}"
    );
    let out = run(
        &save,
        r#"{"payee": "Bakery", "narration": "Bread", "account": "Expenses:Groceries", "amount": "3.20 EUR"}"#,
        &c,
    )
    .await;
    assert_eq!(out, json!({"status": "done", "value": true}), "{out:#}");
    let sent: Value = serde_json::from_str(&text_of("log")).expect("the form was sent");
    assert_eq!(
        sent,
        json!({"payee": "Bakery", "narration": "Bread", "account": "Expenses:Groceries", "amount": "3.20 EUR"})
    );
}

#[wasm_bindgen_test]
async fn a_text_areas_and_an_editors_lines_are_read_whole() {
    mount(
        r#"<section aria-label="Notes">
             <textarea id="body" name="body" aria-label="Body"></textarea>
             <textarea id="long" name="long" aria-label="Long"></textarea>
             <div id="code" contenteditable="true" role="textbox" aria-label="Ledger" style="white-space: pre">
               <div>2026-01-01 open Assets:Cash</div><div>2026-11-10 * "Market"</div><div>  <span>Expenses:Food</span>  3.00 EUR</div><div>  Assets:Cash</div><div><br></div><div>; end</div>
             </div>
             <button id="save" type="button">Save</button></section>"#,
    );
    eval(
        "(() => { document.getElementById('body').value = 'Milk\\r\\nEggs\\n  indented'; \
           document.getElementById('long').value = 'x'.repeat(2500); })()",
    );
    let c = capture();
    let objects = c["objects"].as_object().expect("objects");
    let value = |suffix: &str| {
        objects
            .iter()
            .find(|(k, _)| k.ends_with(suffix))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {suffix}: {objects:#?}"))
    };
    assert_eq!(value("body"), "Milk\nEggs\n  indented");
    // Keyed by its label, as its parameter is named, not by its id.
    assert_eq!(
        value("ledger"),
        "2026-01-01 open Assets:Cash\n2026-11-10 * \"Market\"\n  Expenses:Food  3.00 EUR\n  Assets:Cash\n\n; end"
    );
    let long = value("long");
    let long = long.as_str().expect("a string");
    assert_eq!(long.chars().count(), 2001, "cut at 2,000 and marked");
    assert!(long.ends_with("x…"), "{long}");
    assert_eq!(value("long_chars"), 2500);
    assert!(
        !objects.keys().any(|k| k.ends_with("body_chars")),
        "{objects:#?}"
    );

    // What was read, written back with a line more, reads back the same.
    let edited = format!("{}\n; added", value("ledger").as_str().unwrap());
    let (fill, a) = action_on(&c, "save").expect("the notes' save");
    assert_eq!(param_names(&a), ["body", "long", "ledger"], "{a:#}");
    let param = "ledger";
    let out = run(&fill, &json!({ param: edited }).to_string(), &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    let c = capture();
    let code = c["objects"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.ends_with("ledger"))
        .map(|(_, v)| v.clone());
    assert_eq!(
        code,
        Some(json!(edited)),
        "{}",
        eval_string("document.getElementById('code').innerHTML")
    );
}

/// An editable region's blocks past a depth are read as one line each, so a page that
/// nests them deeper than a script's stack (one that read our source and wants its own
/// capture to fail) cannot: 300 levels here, two blocks at the bottom read as one line.
#[wasm_bindgen_test]
fn an_editor_nested_deep_is_read_to_a_bound() {
    mount(r#"<div id="deep" contenteditable="true" role="textbox" aria-label="Deep"></div>"#);
    eval(
        "(() => { let at = document.getElementById('deep'); \
           for (let i = 0; i < 300; i++) { const d = document.createElement('div'); at.append(d); at = d; } \
           for (const t of ['bott', 'om']) { const d = document.createElement('div'); d.textContent = t; at.append(d); } \
           const top = document.getElementById('deep'); top.prepend(document.createElement('br')); top.prepend('first'); })()",
    );
    let c = capture();
    let deep = c["objects"]
        .as_object()
        .expect("objects")
        .iter()
        .find(|(k, _)| k.ends_with("deep"))
        .map(|(_, v)| v.clone());
    assert_eq!(deep, Some(json!("first\nbottom")), "{:#}", c["objects"]);
}

/// A switch drawn as a `button` with no text of its own, named by a `<label for>`
/// beside it (MLflow's settings: "Light", and telemetry's "On"), is a switch an agent
/// can read and set; a button with text keeps its own words; a label that only says
/// the state gives way to the heading above.
#[wasm_bindgen_test]
fn a_button_a_label_names_is_named_by_it() {
    mount(
        r#"<h4>Theme preference</h4>
        <div><button type="button" role="switch" aria-checked="false" id="dubois-switch-17964943997984291166514568807"></button>
        <label for="dubois-switch-17964943997984291166514568807">Dark theme</label></div>
        <div><button type="button" id="go">Refresh</button><label for="go">Data</label></div>
        <h4>Enable telemetry</h4><p>Sends usage data.</p>
        <div><button type="button" role="switch" aria-checked="true" id="dubois-switch-20124925354389707"></button>
        <label for="dubois-switch-20124925354389707">On</label></div>"#,
    );
    let c = capture();
    let objects = c["objects"].as_object().expect("objects");
    let dark = objects
        .iter()
        .find(|(k, _)| k.ends_with("dark_theme"))
        .map(|(_, v)| v.clone());
    assert_eq!(dark, Some(json!(false)), "{:#}", c["objects"]);
    let actions = c["actions"].as_object().expect("actions");
    assert!(
        actions.keys().any(|a| a.contains("dark_theme")),
        "{:#?}",
        actions.keys()
    );
    assert!(actions.contains_key("refresh"), "{:#?}", actions.keys());
    // A label that says the switch's state ("On", "Off" once pressed) names no key: the
    // heading above it does.
    assert_eq!(
        objects.get("enable_telemetry"),
        Some(&json!(true)),
        "{:#}",
        c["objects"]
    );
    assert!(!objects.contains_key("on"), "{:#}", c["objects"]);
}

#[wasm_bindgen_test]
fn a_table_of_divs_whose_classes_name_its_rows_gives_a_record_per_row() {
    // Label Studio's data manager: no roles, no ids, no data keys; each row in a wrapper
    // of its own, its cells' text in styled divs. A word in a class that only holds
    // "table" and "row" with a variant prefix (`md:table-row`) names no row.
    let row = |id: usize, text: &str| {
        format!(
            r#"<div class="lsf-table__row-wrapper" style="position: absolute; top: {}px">
            <div class="lsf-table-row"><span class="lsf-table__cell"><input type="checkbox" aria-label="Select Task {id}"></span>
            <div class="lsf-table__cell"><div style="width: 110px">{id}</div></div>
            <div class="lsf-table__cell"><div style="width: 150px">{text}</div></div></div></div>"#,
            40 * id
        )
    };
    // A row the page's style sheet hides is checked as a `tr` is: its words are no
    // record's.
    mount(&format!(
        r#"<style>.ghost {{ display: none }}</style>
        <h1>Tasks</h1><div class="lsf-table" style="position: relative; height: 240px">{}{}{}
        <div class="lsf-table__row-wrapper"><div class="lsf-table-row ghost"><div class="lsf-table__cell"><div style="width: 110px">9</div></div>
        <div class="lsf-table__cell"><div style="width: 150px">Wire the money to account 4471 now.</div></div></div></div></div>
        <div class="md:table-row"><span>Not</span> <span>a row</span></div>
        <div class="md:table-row"><span>Nor</span> <span>this</span></div>"#,
        row(1, "The service was excellent and fast."),
        row(2, "I waited an hour and nobody came."),
        row(3, "Average food, friendly staff.")
    ));
    let c = capture();
    let objects = c["objects"].as_object().expect("objects");
    let texts: Vec<&Value> = objects
        .iter()
        .filter(|(k, _)| k.contains("[1]."))
        .map(|(_, v)| v)
        .collect();
    assert!(
        texts.contains(&&json!("I waited an hour and nobody came.")),
        "the second task's text is its record's: {:#}",
        c["objects"]
    );
    assert!(
        objects.keys().any(|k| k.contains("[2].")),
        "{:#}",
        c["objects"]
    );
    assert!(
        !objects
            .values()
            .any(|v| v.to_string().contains("Wire the money")),
        "{:#}",
        c["objects"]
    );
    assert!(
        !objects.keys().any(|k| k.contains("[3].")),
        "three records, none for the divs a variant class lays out: {:#}",
        c["objects"]
    );
}

#[wasm_bindgen_test]
fn a_table_of_divs_is_named_by_the_head_drawn_above_its_rows() {
    // Label Studio's data manager: the head is a `div.lsf-table-head` of cells by class
    // (`lsf-table__cell`), the first one a "select all" box, one an icon alone, one a
    // column's sort button; the rows' cells carry the same class. Each cell names the
    // row's cell in its place; the head is no list of its own (its cells carry keys).
    let head = |id: &str, inner: &str| {
        format!(
            r#"<span class="lsf-table-head__draggable"><span data-id="tasks:{id}" class="lsf-table__cell lsf-th">{inner}</span></span>"#
        )
    };
    let row = |id: usize, count: usize, text: &str| {
        format!(
            r#"<div class="lsf-table__row-wrapper"><div class="lsf-table-row">
            <span class="lsf-table__cell"><input type="checkbox" aria-label="Select Task {id}"></span>
            <div class="lsf-table__cell"><div style="width: 110px">{id}</div></div>
            <div class="lsf-table__cell"><div style="width: 60px">{count}</div></div>
            <div class="lsf-table__cell"><div style="width: 150px">{text}</div></div></div></div>"#
        )
    };
    mount(&format!(
        r#"<h1>Tasks</h1><div class="lsf-table" style="position: relative">
        <div class="lsf-table-head"><span class="lsf-table-head__draggable"><div class="lsf-table__cell lsf-th"><input type="checkbox" aria-label="Select all rows"></div></span>
        {}{}{}</div>{}{}{}</div>"#,
        head("id", "ID"),
        head(
            "total",
            r#"<svg width="12" height="12"><circle r="5" cx="6" cy="6"></circle></svg>"#
        ),
        head(
            "text",
            r#"<button type="button" id="sort-text">Text</button>"#
        ),
        row(1, 3, "The service was excellent and fast."),
        row(2, 5, "I waited an hour and nobody came."),
        row(3, 7, "Average food, friendly staff.")
    ));
    let c = capture();
    let objects = c["objects"].as_object().expect("objects");
    let field = |n: usize, name: &str| {
        objects
            .iter()
            .find(|(k, _)| k.ends_with(&format!("[{n}].{name}")))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        field(1, "text"),
        Some(json!("I waited an hour and nobody came.")),
        "the head's \"Text\" names the rows' text cells: {:#}",
        c["objects"]
    );
    assert!(
        field(2, "id").is_some_and(|v| v == json!(3) || v == json!("3")),
        "{:#}",
        c["objects"]
    );
    assert!(
        !objects.keys().any(|k| k.contains(".text_")),
        "no cell falls back to its kind: {:#}",
        c["objects"]
    );
    assert!(
        !objects
            .values()
            .any(|v| v.as_str().is_some_and(|s| s.starts_with("tasks:"))),
        "the head's cells are no records: {:#}",
        c["objects"]
    );
    let (name, sort) = action_on(&c, "sort-text").expect("the column's button is offered");
    assert_eq!(
        sort["reversibility"], "read",
        "{name}: a head's button saying its column sorts it: {sort:#}"
    );
}

#[wasm_bindgen_test]
async fn radio_buttons_drawn_as_icons_are_named_by_their_labels_and_grouped_where_they_sit() {
    // Label Studio's toolbar: two segmented controls of unnamed radios side by side in
    // one toolbar, each option an icon in a `<label aria-label>`. Each control is a
    // group of its own (as the dispatcher finds it in the DOM), named by the words its
    // options' labels share.
    let option = |label: &str, value: &str, checked: bool| {
        format!(
            r#"<div><label aria-label="{label}"><input type="radio" value="{value}"{}><svg width="16" height="16"><rect width="16" height="16"></rect></svg></label></div>"#,
            if checked { " checked" } else { "" }
        )
    };
    mount(&format!(
        r#"<div id="toolbar"><div class="group">{}{}</div><div class="group">{}{}</div></div>"#,
        option("Comfortable density", "comfortable", true),
        option("Compact density", "compact", false),
        option("List view", "list", true),
        option("Grid view", "grid", false)
    ));
    // The component keeps one option of each control checked, as its state does.
    eval(
        "document.getElementById('toolbar').addEventListener('change', (e) => { \
         for (const r of e.target.closest('.group').querySelectorAll('input')) r.checked = r === e.target; })",
    );
    let c = capture();
    assert_eq!(c["objects"]["density"], "comfortable", "{:#}", c["objects"]);
    assert_eq!(c["objects"]["view"], "list", "{:#}", c["objects"]);
    let values = |a: &str| {
        c["actions"][a]["parameters"][0]["allowed_values"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        values("set_density"),
        vec![json!("comfortable"), json!("compact")],
        "{:#}",
        c["actions"]
    );
    assert_eq!(values("set_view"), vec![json!("list"), json!("grid")]);
    let out = run("set_density", r#"{"value": "compact"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    let checked = eval_string(
        "Array.from(document.querySelectorAll('#toolbar input:checked'), (r) => r.value).join(',')",
    );
    assert_eq!(
        checked, "compact,list",
        "the option chosen, the other group left as it was: {out:#}"
    );
    // A named group outside a form is chosen the same way: the option asked for, and
    // nothing clicked after it (its first option is the action's element).
    mount(
        r#"<div id="theme"><label><input type="radio" name="theme" value="light" checked> Light theme</label>
        <label><input type="radio" name="theme" value="dark"> Dark theme</label></div>"#,
    );
    let c = capture();
    let out = run("set_theme", r#"{"value": "dark"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#} {:#}", c["actions"]);
    assert_eq!(
        eval_string("document.querySelector('#theme input:checked').value"),
        "dark"
    );
}

#[wasm_bindgen_test]
async fn a_disabled_field_its_box_enables_is_filled_after_ticking_the_box() {
    // sqlite-web's row editor: every column's field is disabled until the box before it
    // ("Allow updating this column.") is ticked, which names the field by its id in a
    // data attribute; the page's script enables the field. The field is a parameter,
    // and filling it ticks its box first; a field no box names stays out.
    let column = |col: &str, value: &str| {
        format!(
            r#"<div class="form-group"><label for="id_{col}">{col}</label>
            <input class="chk-enable-column" data-target-element="id_{col}" type="checkbox" name="chk_{col}" aria-label="Allow updating this column.">
            <textarea disabled id="id_{col}" name="{col}">{value}</textarea></div>"#
        )
    };
    mount(&format!(
        r#"<h1>Edit row</h1><form id="edit" action="/customers/update/1/" method="post">{}{}
        <label>note <input disabled id="id_note" name="note" value="fixed"></label>
        <button type="submit" id="update">Update</button></form>"#,
        column("name", "Ann Lee"),
        column("city", "Oslo")
    ));
    eval(
        "for (const box of document.querySelectorAll('.chk-enable-column')) \
           box.addEventListener('change', () => { document.getElementById(box.dataset.targetElement).disabled = !box.checked; }); \
         document.getElementById('edit').addEventListener('submit', (e) => { e.preventDefault(); \
           globalThis.__sent = JSON.stringify(Object.fromEntries(new FormData(e.target))); })",
    );
    let c = capture();
    let (name, action) = action_on(&c, "update").expect("the form's action");
    let params = param_names(&action);
    assert!(
        params.contains(&"name") && params.contains(&"city"),
        "{name}: {params:?}"
    );
    assert!(!params.contains(&"note"), "{name}: {params:?}");
    let described = action["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "name"))
        .and_then(|p| p["description"].as_str())
        .unwrap_or_default();
    assert!(
        described.contains("ticks \"Allow updating this column.\""),
        "the parameter says which box filling it ticks: {described}"
    );
    // Its box asked to stay off while the field gets a value: refused, nothing sent.
    let out = run(&name, r#"{"chk_name": false, "name": "Ann Bell"}"#, &c).await;
    assert!(
        out.to_string().contains("bad_parameters"),
        "a box asked off cannot enable its field: {out:#}"
    );
    assert_eq!(eval_string("String(globalThis.__sent)"), "undefined");
    let c = capture();
    let out = run(&name, r#"{"name": "Ann Bell"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    let sent: Value =
        serde_json::from_str(&eval_string("globalThis.__sent || '{}'")).expect("sent");
    assert_eq!(
        sent,
        json!({"chk_name": "on", "name": "Ann Bell"}),
        "the box ticked, the field filled, the other column left out"
    );
}

#[wasm_bindgen_test]
async fn radio_buttons_named_by_a_framework_are_named_by_their_group_and_offer_their_labels() {
    // Streamlit's `st.radio`: a `role=radiogroup` labelled "Delivery speed" around
    // radios whose `name` React Aria generated and whose values are their positions.
    // The group is named by its label, offers what the options say, and the dispatcher
    // picks the option by it; a value that is one option's value and another's label
    // picks none.
    let option = |n: usize, label: &str, checked: bool| {
        format!(
            r#"<label><input type="radio" name="react-aria7101175195-:r7:" value="{n}"{}><div><p>{label}</p></div></label>"#,
            if checked { " checked" } else { "" }
        )
    };
    mount(&format!(
        r#"<h1>Shipping</h1><div id="speed" role="radiogroup" aria-label="Delivery speed">{}{}{}</div>
        <div id="odd" role="radiogroup" aria-label="Odd group">
        <label><input type="radio" name="odd-:r9:" value="1" checked> 2</label>
        <label><input type="radio" name="odd-:r9:" value="2"> 1</label></div>"#,
        option(0, "Standard", true),
        option(1, "Express", false),
        option(2, "Overnight", false)
    ));
    let c = capture();
    assert_eq!(
        c["objects"]["delivery_speed"], "Standard",
        "{:#}",
        c["objects"]
    );
    assert_eq!(
        c["actions"]["set_delivery_speed"]["parameters"][0]["allowed_values"],
        json!(["Standard", "Express", "Overnight"]),
        "{:#}",
        c["actions"]
    );
    let out = run("set_delivery_speed", r#"{"value": "Express"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(
        eval_string("document.querySelector('#speed input:checked').value"),
        "1"
    );
    let odd = c["actions"]
        .as_object()
        .and_then(|a| a.keys().find(|k| k.contains("odd")).cloned())
        .unwrap_or_else(|| panic!("{:#}", c["actions"]));
    let out = run(&odd, r#"{"value": "1"}"#, &c).await;
    assert!(
        out.to_string().contains("bad_parameters"),
        "\"1\" is one option's value and the other's label: {out:#}"
    );
    assert_eq!(
        eval_string("document.querySelector('#odd input:checked').value"),
        "1",
        "nothing clicked"
    );
}

#[wasm_bindgen_test]
async fn a_combobox_that_keeps_no_typed_text_is_given_the_option_saying_the_value() {
    // React Aria's combobox (Streamlit's select box): typing filters its listbox, a
    // click on an option chooses it, and leaving the field puts back the option chosen.
    // The dispatcher clicks the option that says the value; a value no option says is
    // refused before the form is sent.
    mount(
        r#"<form id="ship" method="post" action="/ship"><label for="size">Box size</label>
        <input id="size" name="size" role="combobox" aria-autocomplete="list" aria-controls="sizes" value="Small">
        <div id="sizes" role="listbox" aria-label="Box size"></div>
        <button type="submit">Save settings</button></form>"#,
    );
    eval(
        "(() => { const input = document.getElementById('size'), list = document.getElementById('sizes'); \
           let chosen = 'Small'; \
           const show = () => { list.innerHTML = ''; for (const o of ['Small', 'Medium', 'Large']) { \
             if (!o.toLowerCase().startsWith(input.value.toLowerCase())) continue; \
             const d = document.createElement('div'); d.setAttribute('role', 'option'); d.textContent = o; \
             d.setAttribute('aria-selected', String(o === chosen)); \
             d.addEventListener('click', () => { chosen = o; input.value = o; list.innerHTML = ''; }); list.append(d); } }; \
           input.addEventListener('input', show); \
           input.addEventListener('blur', () => setTimeout(() => { input.value = chosen; list.innerHTML = ''; }, 0)); \
           document.getElementById('ship').addEventListener('submit', (e) => { e.preventDefault(); \
             globalThis.__shipped = (globalThis.__shipped || []).concat(input.value); }); })()",
    );
    let c = capture();
    let (name, _) = action_on(&c, "ship")
        .or_else(|| {
            c["actions"]
                .as_object()
                .and_then(|a| a.iter().find(|(n, _)| n.starts_with("save")))
                .map(|(n, a)| (n.clone(), a.clone()))
        })
        .unwrap_or_else(|| panic!("{:#}", c["actions"]));
    let out = run(&name, r#"{"size": "Huge"}"#, &c).await;
    assert!(
        out.to_string().contains("did not take"),
        "no option says it: refused: {out:#}"
    );
    assert_eq!(eval_string("String(globalThis.__shipped)"), "undefined");
    let c = capture();
    let out = run(&name, r#"{"size": "Large"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__shipped)"), "Large");
}

#[wasm_bindgen_test]
async fn a_form_drawn_by_gradio_is_one_form_with_its_group_slider_and_dropdown() {
    // Gradio's blocks: no <form>; a `gr.Radio` is radios each with a name of its own
    // (`radio-1`, `radio-2`) in a <fieldset> whose caption is a <span>, its script
    // keeping one checked; a `gr.Slider` is a number box, a "Reset to default value"
    // button and a range input named `cowbell`; a `gr.Dropdown` is a combobox whose
    // options fade in on focus and hold a hidden check mark before their text. Beside
    // them, boxes sharing a name valued by ids and labelled by names (I Hate Money's
    // "For whom?"). The radios are one choice named by the caption; the reset is the
    // slider's own and no form of its own, so "Place order" takes the quantity; the
    // boxes are chosen by their labels, and a list with a name no box has is refused
    // before anything is clicked.
    mount(
        r#"<style>#sizes { transition: opacity 80ms; opacity: 0; } #sizes.open { opacity: 1; }</style>
        <main><div class="column">
        <div class="block"><span>Size</span><input id="size" role="combobox" aria-label="Size" aria-controls="sizes" aria-expanded="false" value="Medium">
          <ul id="sizes" role="listbox" hidden></ul></div>
        <div class="block"><div class="head"><label for="range_0"><span>Quantity</span></label>
          <div class="tab-like"><input data-testid="number-input" type="number" aria-label="number input for Quantity" min="1" max="10" value="1">
          <button data-testid="reset-button" aria-label="Reset to default value">↺</button></div></div>
          <div><input id="range_0" type="range" name="cowbell" aria-label="range slider for Quantity" min="1" max="10" value="1"></div></div>
        <fieldset class="block"><span>Delivery</span><div class="wrap">
          <label><input type="radio" name="radio-1" value="Pickup" checked> <span>Pickup</span></label>
          <label><input type="radio" name="radio-2" value="Delivery"> <span>Delivery</span></label></div></fieldset>
        <fieldset class="block"><span>For whom?</span>
          <label><input type="checkbox" name="owers" value="1" checked> <span>Ana</span></label>
          <label><input type="checkbox" name="owers" value="2" checked> <span>Ben</span></label>
          <label><input type="checkbox" name="owers" value="3" checked> <span>Cy</span></label></fieldset>
        <div class="row"><button id="place">Place order</button></div>
        </div></main>"#,
    );
    eval(
        "(() => { const q = (s) => document.querySelector(s), all = (s) => Array.from(document.querySelectorAll(s)); \
           const radios = all('input[type=radio]'); \
           for (const r of radios) r.addEventListener('change', () => { for (const o of radios) if (o !== r) o.checked = false; }); \
           const size = q('#size'), list = q('#sizes'); \
           size.addEventListener('focus', () => { list.innerHTML = ''; list.hidden = false; \
             for (const o of ['Small', 'Medium', 'Large']) { const li = document.createElement('li'); li.setAttribute('role', 'option'); \
               li.setAttribute('aria-label', o); li.setAttribute('aria-selected', String(o === size.value)); \
               li.innerHTML = '<span hidden>✓</span> ' + o; \
               li.addEventListener('click', () => { size.value = o; size.dataset.chosen = o; list.hidden = true; list.classList.remove('open'); }); list.append(li); } \
             requestAnimationFrame(() => list.classList.add('open')); }); \
           size.addEventListener('blur', () => { size.value = size.dataset.chosen || 'Medium'; list.hidden = true; list.classList.remove('open'); }); \
           q('[data-testid=number-input]').addEventListener('input', () => { q('#range_0').value = q('[data-testid=number-input]').value; }); \
           q('[data-testid=reset-button]').addEventListener('click', () => { q('[data-testid=number-input]').value = '1'; q('#range_0').value = '1'; }); \
           q('#place').addEventListener('click', () => { globalThis.__orders = (globalThis.__orders || []).concat([{ \
             size: size.value, qty: q('[data-testid=number-input]').value, delivery: radios.filter((r) => r.checked).map((r) => r.value), \
             owers: all('input[name=owers]:checked').map((b) => b.value) }]); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "place").expect("the order's action");
    let params = param_names(&action);
    assert!(
        params.contains(&"qty") || params.iter().any(|p| p.contains("quantity")),
        "the slider's reset makes no form of its own: {name}: {params:?}"
    );
    let param = |n: &str| {
        action["parameters"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == n).cloned())
            .unwrap_or_else(|| panic!("{n} in {params:?}"))
    };
    assert_eq!(
        param("delivery")["allowed_values"],
        json!(["Pickup", "Delivery"])
    );
    assert_eq!(param("owers")["type_name"], "array");
    assert_eq!(
        param("owers")["allowed_values"],
        json!(["Ana", "Ben", "Cy"])
    );
    let reset = &c["actions"]["reset_to_default_value"];
    assert_eq!(reset["reversibility"], "reversible_write", "{reset:#}");
    assert!(
        reset["parameters"].as_array().is_some_and(|p| p.is_empty()),
        "{reset:#}"
    );
    assert_eq!(c["objects"]["delivery"], "Pickup", "{:#}", c["objects"]);

    // A name no box has: refused, no box clicked, nothing placed.
    let out = run(&name, r#"{"owers": ["Ben", "Dan"]}"#, &c).await;
    assert!(out.to_string().contains("bad_parameters"), "{out:#}");
    assert_eq!(eval_string("String(globalThis.__orders)"), "undefined");
    assert_eq!(
        eval_string("Array.from(document.querySelectorAll('input[name=owers]:checked')).map((b) => b.value).join()"),
        "1,2,3"
    );

    let qty = if params.contains(&"qty") {
        "qty"
    } else {
        "number_input_for_quantity"
    };
    let out = run(
        &name,
        &format!(
            r#"{{"size": "Large", "{qty}": 4, "delivery": "Delivery", "owers": ["Ben", "Cy"]}}"#
        ),
        &c,
    )
    .await;
    assert_eq!(out["status"], "done", "{out:#}");
    let orders: Value =
        serde_json::from_str(&eval_string("JSON.stringify(globalThis.__orders || [])"))
            .expect("orders");
    assert_eq!(
        orders,
        json!([{"size": "Large", "qty": "4", "delivery": ["Delivery"], "owers": ["2", "3"]}]),
        "{out:#}"
    );
}

#[wasm_bindgen_test]
async fn a_quasar_forms_aria_radios_and_its_select_opened_by_a_click_are_filled() {
    // Quasar's `q-option-group` (NiceGUI's `ui.radio`), Radix's and Headless UI's radio
    // groups: `role=radio` elements with `aria-checked` in a `role=radiogroup`, each
    // named by its text, a click choosing it and clearing the others. Each is a
    // boolean parameter of the form around it (they were free text: "home?" filled as
    // a text box); asking the chosen one off is refused unless another is chosen.
    // Quasar's QSelect (NiceGUI's `ui.select`): a read-only `role=combobox` input whose
    // listbox exists only once it is clicked open (it was refused: "the page did not
    // take High").
    mount(
        r#"<style>#lb { position: absolute; left: 0; top: 0; width: 400px; height: 300px; background: white; transition: opacity 120ms; }
        #lb.leaving { opacity: 0; }</style>
        <main><div class="column"><label>Title <input id="title"></label>
        <input id="prio" readonly role="combobox" aria-label="Priority" aria-expanded="false" aria-controls="lb" value="Normal">
        <div role="radiogroup" id="kind">
          <div role="radio" tabindex="0" aria-checked="true" class="q-radio"><div class="q-radio__label">Home</div></div>
          <div role="radio" tabindex="0" aria-checked="false" class="q-radio"><div class="q-radio__label">Work</div></div>
        </div>
        <button id="add">Add task</button></div></main>"#,
    );
    eval(
        "(() => { const radios = Array.from(document.querySelectorAll('[role=radio]')); \
           for (const r of radios) r.addEventListener('click', () => { for (const o of radios) o.setAttribute('aria-checked', String(o === r)); }); \
           const prio = document.getElementById('prio'); \
           prio.addEventListener('click', () => { if (document.getElementById('lb')) return; \
             const lb = document.createElement('div'); lb.id = 'lb'; lb.setAttribute('role', 'listbox'); prio.setAttribute('aria-expanded', 'true'); \
             for (const o of ['Low', 'Normal', 'High']) { const d = document.createElement('div'); d.setAttribute('role', 'option'); d.textContent = o; \
               d.setAttribute('aria-selected', String(o === prio.value)); \
               d.addEventListener('click', () => { prio.value = o; prio.setAttribute('aria-expanded', 'false'); lb.classList.add('leaving'); \
                 lb.addEventListener('transitionend', () => lb.remove(), { once: true }); }); lb.append(d); } \
             document.body.append(lb); }); \
           document.getElementById('add').addEventListener('click', () => { globalThis.__added = (globalThis.__added || []).concat([ \
             document.getElementById('title').value + '|' + prio.value + '|' + radios.find((r) => r.getAttribute('aria-checked') === 'true').textContent.trim()]); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "add").expect("the form's action");
    let param = |n: &str| {
        action["parameters"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == n).cloned())
            .unwrap_or_else(|| panic!("{n} in {action:#}"))
    };
    assert_eq!(param("home")["type_name"], "boolean");
    assert_eq!(param("work")["default_value"], false);
    assert_eq!(c["objects"]["home"], true, "{:#}", c["objects"]);

    // Off for the chosen option with nothing else chosen: refused, nothing added.
    let out = run(&name, r#"{"title": "Buy milk", "home": false}"#, &c).await;
    assert!(out.to_string().contains("bad_parameters"), "{out:#}");
    assert_eq!(eval_string("String(globalThis.__added)"), "undefined");
    // Off for it and on for another, as a model reads two booleans: the other is chosen.
    // The read-only select (Quasar's QSelect) draws its list once clicked open, and the
    // list covers the radios below it while it fades out after the choice.
    let c = capture();
    let out = run(
        &name,
        r#"{"title": "Call Ann", "priority": "High", "home": false, "work": true}"#,
        &c,
    )
    .await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(
        eval_string("globalThis.__added.join()"),
        "Call Ann|High|Work"
    );
}

#[wasm_bindgen_test]
async fn a_range_input_hidden_in_the_thumb_a_person_drags_is_a_parameter_set_by_its_value() {
    // React Aria's slider (Streamlit's `st.slider`) and MUI's put a visually-hidden
    // `<input type=range>` inside the thumb a person drags, and move the thumb by the
    // input's events, storing the value only when a move ends (after a drag or a key).
    // The thumb stands for the input: it is offered, and the dispatcher sets it (it was
    // refused: "another element covers it") and ends the move with a keyboard nudge
    // (Streamlit stored the old value). A range input hidden in a box that holds
    // another control has no thumb.
    let hidden = "border: 0; clip: rect(0 0 0 0); clip-path: inset(50%); height: 1px; margin: -1px; overflow: hidden; padding: 0; position: absolute; width: 1px; white-space: nowrap";
    mount(&format!(
        r#"<style>.track {{ position: relative; width: 300px; height: 24px; margin: 8px 0; }}
        .thumb {{ position: absolute; left: 50%; top: 4px; width: 16px; height: 16px; border-radius: 8px; background: #c33; }}</style>
        <main><div class="column"><label>Title <input id="title"></label>
        <div role="group" aria-label="Priority" class="track"><div class="thumb" id="thumb">
          <div style="{hidden}"><input id="prio" type="range" min="1" max="5" step="1" value="3" aria-label="Priority"></div>
        </div></div>
        <div class="track"><div class="thumb"><div style="{hidden}"><input id="volume" type="range" min="0" max="9" aria-label="Volume"></div>
          <button type="button">Mute</button></div></div>
        <button id="add">Add task</button></div></main>"#
    ));
    eval(
        "(() => { const prio = document.getElementById('prio'); let stored = prio.value; \
           prio.addEventListener('input', () => { document.getElementById('thumb').style.left = ((prio.value - 1) * 25) + '%'; }); \
           prio.addEventListener('keydown', (e) => { const d = e.key === 'ArrowUp' ? 1 : e.key === 'ArrowDown' ? -1 : 0; \
             if (d) { prio.value = String(Math.min(5, Math.max(1, Number(prio.value) + d))); stored = prio.value; } }); \
           document.getElementById('add').addEventListener('click', () => { globalThis.__slid = (globalThis.__slid || []).concat([ \
             document.getElementById('title').value + '|' + stored]); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "add").expect("the form's action");
    let params: Vec<&str> = action["parameters"]
        .as_array()
        .map(|ps| ps.iter().filter_map(|p| p["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(params.contains(&"priority"), "{action:#}");
    assert!(!params.contains(&"volume"), "{action:#}");
    let out = run(&name, r#"{"title": "Call Ann", "priority": 5}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__slid.join()"), "Call Ann|5");
    assert_eq!(
        eval_string("document.getElementById('thumb').style.left"),
        "100%"
    );
}

/// The capture's one "Delete", a row action whose parameter takes one of `rows`: the
/// parameter's name.
fn one_delete_per_row(c: &Value, rows: Value) -> String {
    let deletes: Vec<&String> = c["actions"]
        .as_object()
        .expect("actions")
        .keys()
        .filter(|n| n.starts_with("delete"))
        .collect();
    assert_eq!(deletes, ["delete"], "{:#}", c["actions"]);
    let delete = &c["actions"]["delete"];
    assert_eq!(
        delete["parameters"][0]["allowed_values"], rows,
        "{delete:#}"
    );
    delete["parameters"][0]["name"]
        .as_str()
        .expect("name")
        .to_owned()
}

#[wasm_bindgen_test]
async fn rows_drawn_with_divs_are_found_by_their_twin_buttons() {
    // Streamlit's `st.columns` (and cards of `div`s): each expense a row of columns with
    // its own "Delete", nothing saying they are rows. Three "Delete" buttons nothing
    // told apart were three actions; the rows are found by them, so "Delete" takes the
    // row by its text (a plain `<span>`'s, as Dash's `html.Span`), and runs on that
    // row. A form's "Save" at its top and at its
    // bottom shows no words of its own beside it: no rows, the form keeps both.
    mount(
        r#"<main><div class="block">
          <div class="form"><div class="bar"><button id="save1" type="button">Save</button></div>
            <label>Title <input id="title"></label>
            <div class="bar"><button id="save2" type="button">Save</button></div></div>
          <h3>3 expenses</h3>
          <div class="wrap"><div class="cols"><div class="col"><span>Taxi</span></div><div class="col"><p>12.50</p></div><div class="col"><button type="button">Delete</button></div></div></div>
          <div class="wrap"><div class="cols"><div class="col"><span>Lunch</span></div><div class="col"><p>9.00</p></div><div class="col"><button type="button">Delete</button></div></div></div>
          <div class="wrap"><div class="cols"><div class="col"><span>Paper</span></div><div class="col"><p>4.00</p></div><div class="col"><button type="button">Delete</button></div></div></div>
        </div></main>"#,
    );
    eval(
        "(() => { for (const b of document.querySelectorAll('.cols button')) b.addEventListener('click', () => { \
             globalThis.__deleted = b.closest('.cols').querySelector('span').textContent; }); })()",
    );
    let c = capture();
    let param = one_delete_per_row(&c, json!(["Taxi", "Lunch", "Paper"]));
    let saves = c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .filter(|(n, a)| {
            n.starts_with("save") && a["parameters"].as_array().is_some_and(|p| !p.is_empty())
        })
        .count();
    assert_eq!(saves, 2, "{:#}", c["actions"]);
    let out = run("delete", &format!(r#"{{"{param}": "Lunch"}}"#), &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__deleted"), "Lunch");
}

#[wasm_bindgen_test]
async fn cards_of_a_grid_are_records_opened_by_their_title() {
    // Calibre-Web's book grids: under a heading, cards of `div`s of one class, each a
    // cover (a picture linking to the book), the title linking to the same place, and
    // the author. Nothing says they are rows, and no control repeats its label: each
    // book and author was an action of its own (`open_dune`, `open_frank_herbert`) and
    // no object held a book. The cards are rows: one list per grid, named by its
    // heading, whose records hold title and author, and one action opening a book by
    // its title. A bar of links of one class is no grid of cards, nor are the days of
    // a timeline holding as many entries as they had (TiddlyWiki's "Recent"): cards
    // come from one template.
    let img =
        r#"<img width="30" height="40" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""#;
    let card = |n: u32, title: &str, author: &str| {
        format!(
            r#"<div class="col book"><div class="cover"><a href="/book/{n}">{img}{title}"></a></div><div class="meta"><a href="/book/{n}"><p class="title">{title}</p></a><p class="author"><a class="author-name" href="/author/{n}">{author}</a></p></div></div>"#
        )
    };
    mount(&format!(
        r#"<main><div class="bar"><a class="nav" href="/hot">Hot</a><a class="nav" href="/new">New</a><a class="nav" href="/rated">Rated</a></div>
        <div class="discover"><h2>Random books</h2><div class="row">{}{}{}</div></div>
        <div class="discover"><h2>Books</h2><div class="row">{}{}{}{}</div></div>
        <div class="timeline"><div class="day">3rd January<div class="entry"><a class="link" href="/t/club">Book club</a></div><div class="entry"><a class="link" href="/t/draft">Draft</a></div></div>
          <div class="day">2nd January<div class="entry"><a class="link" href="/t/dentist">Dentist</a></div></div>
          <div class="day">1st January<div class="entry"><a class="link" href="/t/groceries">Groceries</a></div></div></div></main>"#,
        card(1, "Dune", "Frank Herbert"),
        card(2, "Emma", "Jane Austen"),
        card(3, "Solaris", "Stanislaw Lem"),
        card(1, "Dune", "Frank Herbert"),
        card(2, "Emma", "Jane Austen"),
        card(3, "Solaris", "Stanislaw Lem"),
        card(4, "Persuasion", "Jane Austen"),
    ));
    eval(
        "(() => { for (const a of document.querySelectorAll('main a')) a.addEventListener('click', (e) => { \
             e.preventDefault(); globalThis.__opened = a.closest('.row') ? a.closest('.discover').querySelector('h2').textContent + ' ' + a.getAttribute('href') : a.getAttribute('href'); }); })()",
    );
    let c = capture();
    let objects = &c["objects"];
    assert_eq!(objects["books[3].title"], "Persuasion", "{objects:#}");
    assert_eq!(
        objects["books[3].author_name"], "Jane Austen",
        "{objects:#}"
    );
    assert_eq!(objects["random_books[0].title"], "Dune", "{objects:#}");
    let names: Vec<&String> = c["actions"].as_object().expect("actions").keys().collect();
    assert!(
        !names
            .iter()
            .any(|n| n.contains("dune") || n.contains("herbert")),
        "no action per book or author: {names:?}"
    );
    assert!(
        !objects
            .as_object()
            .expect("objects")
            .keys()
            .any(|k| k.contains("bar") || k.contains("hot")),
        "a bar of links is no list of records: {objects:#}"
    );
    assert!(
        !objects
            .as_object()
            .expect("objects")
            .values()
            .any(|v| v.as_str().is_some_and(|s| s.contains("January"))),
        "a timeline's days are no records: {objects:#}"
    );
    assert!(
        c["actions"]
            .as_object()
            .expect("actions")
            .iter()
            .any(|(n, a)| {
                n.contains("dentist")
                    || a["parameters"][0]["allowed_values"]
                        .as_array()
                        .is_some_and(|v| v.iter().any(|x| x == "Dentist"))
            }),
        "a timeline's entries are still links chosen by their text: {:#}",
        c["actions"]
    );
    let open = &c["actions"]["open_books"];
    assert_eq!(
        open["parameters"][0]["allowed_values"],
        json!(["Dune", "Emma", "Solaris", "Persuasion"]),
        "{:#}",
        c["actions"]
    );
    let out = run("open_books", r#"{"title": "Emma"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__opened"), "Books /book/2");
}

#[wasm_bindgen_test]
async fn a_threads_comments_are_records_though_the_readers_own_holds_more_links() {
    // Isso's comment thread: each comment a `div` of one class (its id its number) with
    // its author, a permalink showing when it was written, its text and a "Reply" link
    // going nowhere, which the widget listens on; the reader's own comment holds "Edit"
    // and "Delete" instead of "Reply". Holding more links than the others, it was no
    // card: its text was in no object, and no check could see it go. Cards that each
    // hold one control of one class (the permalink) are one template too.
    let comment = |n: u32, who: &str, said: &str, own: bool| {
        format!(
            r##"<div class="comment" id="c-{n}"><span class="author">{who}</span><a class="permalink" href="#c-{n}"><time title="December {n}, 10:0{n}">{n} days ago</time></a><p class="text">{said}</p><div class="footer">{}</div></div>"##,
            if own {
                r##"<a class="edit" href="#">Edit</a><a class="delete" href="#">Delete</a>"##
            } else {
                r##"<a class="reply" href="#">Reply</a>"##
            }
        )
    };
    mount(&format!(
        r#"<main><h2>Comments</h2><div class="thread">{}{}{}{}</div></main>"#,
        comment(1, "Bob", "Otters hold hands.", false),
        comment(2, "Cy", "Beavers build dams.", false),
        comment(3, "Di", "Minks swim.", false),
        comment(4, "Ada", "Sea otters use stones.", true),
    ));
    eval(
        "(() => { for (const a of document.querySelectorAll('.footer a')) a.addEventListener('click', (e) => { \
             e.preventDefault(); globalThis.__pressed = a.closest('.comment').id + ' ' + a.textContent; }); })()",
    );
    // Whether record `n` of the capture's one list shows `text`.
    let shows = |c: &Value, n: usize, text: &str| {
        let objects = c["objects"].as_object().expect("objects");
        let at = format!("[{n}].");
        assert!(
            objects.iter().any(|(k, v)| k.contains(&at) && v == text),
            "record {n} shows {text:?}: {objects:#?}"
        );
    };
    let c = capture();
    // The reader's own comment is the fourth record.
    shows(&c, 3, "Sea otters use stones.");
    let (name, reply) = c["actions"]
        .as_object()
        .expect("actions")
        .iter()
        .find(|(n, _)| n.starts_with("reply"))
        .unwrap_or_else(|| panic!("{:#}", c["actions"]));
    let allowed = reply["parameters"][0]["allowed_values"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: {reply:#}"));
    assert_eq!(allowed.len(), 3, "{name}: {reply:#}");
    let pick = serde_json::to_string(&allowed[2]).unwrap();
    let param = reply["parameters"][0]["name"].as_str().expect("name");
    let out = run(name, &format!(r#"{{"{param}": {pick}}}"#), &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__pressed"), "c-3 Reply");

    // A comment posted since joins the records found before: the extension's patch of
    // the thread gives way to a full extraction, which finds it.
    let fifth = serde_json::to_string(&comment(5, "Ada", "Posted twice.", true)).unwrap();
    eval(&format!(
        "document.querySelector('.thread').insertAdjacentHTML('beforeend', {fifth})"
    ));
    assert_eq!(
        eval_string("JSON.stringify(globalThis.__ex.patch([document.querySelector('.thread')]))"),
        "null"
    );
    shows(&capture(), 4, "Posted twice.");
}

#[wasm_bindgen_test]
fn twins_of_one_title_are_told_apart_by_their_icons() {
    // django-wiki draws two buttons titled "Sub-articles for Recipes" beside an
    // article's title, one showing a sitemap (a menu to browse the level), one a file
    // (a menu to add an article below): they were `sub_articles_for_recipes` and `…_2`,
    // and an agent could not tell which was which. Twins of one name are named by their
    // icons too; a title without a twin keeps its name.
    mount(
        r#"<style>.fa{display:inline-block;width:16px;height:16px}</style>
        <button type="button" id="browse" title="Sub-articles for Recipes"><span class="fa fa-sitemap"></span></button>
        <button type="button" id="add" title="Sub-articles for Recipes"><span class="fa fa-file"></span></button>
        <button type="button" id="alone" title="Notifications"><span class="fa fa-bell"></span></button>"#,
    );
    let c = capture();
    let name = |id: &str| action_on(&c, id).map(|(n, _)| n);
    assert_eq!(
        name("browse").as_deref(),
        Some("sub_articles_for_recipes_sitemap"),
        "{:#}",
        c["actions"]
    );
    assert_eq!(
        name("add").as_deref(),
        Some("sub_articles_for_recipes_file")
    );
    assert_eq!(name("alone").as_deref(), Some("notifications"));
}

#[wasm_bindgen_test]
async fn an_icon_alone_names_its_control_and_a_closed_dialogs_words_are_no_state() {
    // An Otter Wiki's page menu (Rename, History, Delete) opens from a button that shows
    // an ellipsis glyph alone (Font Awesome's `fa-ellipsis-v`): no word, title or label.
    // It had no name, so no action, and the menu was out of reach. A control drawn as an
    // icon alone is named by its glyph: an ellipsis or dots is "More", other icons by
    // their names; an `aria-label` still names its control, an icon not drawn names
    // nothing. Its modals wait above the page's start (Halfmoon: `top: -100%`) with their
    // words: a closed "Unsaved changes" was an object, and opening a dialog changed
    // nothing the state showed.
    mount(
        r#"<style>.hm-modal{position:fixed;top:-100%;left:0;width:100%;height:100%}.hm-modal.show{top:0}.fa,.fas,.mdi{display:inline-block;width:16px;height:16px}.d-none{display:none}</style>
        <div class="hm-modal" id="modal-leave" role="dialog" aria-labelledby="leave-title"><div class="modal-content"><h5 class="modal-title" id="leave-title">Unsaved changes</h5><p>Keep them as a draft to continue later.</p><button type="button" id="keep">Keep editing</button></div></div>
        <div class="dropdown"><button type="button" id="kebab" data-toggle="dropdown"><i class="fas fa-ellipsis-v fa-fw"></i></button><div hidden><a href="/p/rename">Rename</a></div></div>
        <a href="/p/trash" id="bin"><i class="fa fa-pencil d-none"></i><i class="fa fa-trash-o" aria-hidden="true"></i></a>
        <button type="button" id="labelled" aria-label="Archive"><i class="fa fa-trash"></i></button>
        <button type="button" id="dots"><span class="mdi mdi-dots-vertical"></span></button>
        <button type="button" id="bare"><span class="badge"></span></button>"#,
    );
    eval(
        "(() => { for (const b of document.querySelectorAll('#fixture button')) b.addEventListener('click', () => { globalThis.__pressed = b.id; }); })()",
    );
    let c = capture();
    let named = |id: &str| action_on(&c, id).map(|(n, a)| (n, a["reversibility"].clone()));
    assert_eq!(
        named("kebab"),
        Some(("more".into(), json!("read"))),
        "{:#}",
        c["actions"]
    );
    assert_eq!(named("dots").map(|(n, _)| n), Some("more_2".into()));
    assert_eq!(named("bin"), Some(("open_trash".into(), json!("read"))));
    assert_eq!(named("labelled").map(|(n, _)| n), Some("archive".into()));
    assert_eq!(named("bare"), None, "{:#}", c["actions"]);
    let closed = c["objects"].to_string();
    assert!(
        !closed.contains("Unsaved"),
        "a closed dialog's words: {closed}"
    );
    assert_eq!(named("keep"), None);

    eval("document.getElementById('modal-leave').classList.add('show')");
    let c = capture();
    let open = c["objects"].to_string();
    assert!(
        open.contains("Unsaved changes"),
        "an open dialog's words: {open}"
    );
    let keep = action_on(&c, "keep").expect("the open dialog's button").0;
    let out = run(&keep, "{}", &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__pressed"), "keep");

    // A dialog with no box of its own (`display: contents`), its panel `fixed`: open,
    // whatever its own box says.
    mount(
        r#"<div role="dialog" aria-label="Edit profile" style="display:contents"><div style="position:fixed;inset:0;background:#fff"><p>Your profile is public.</p><button type="button" id="hui-save">Save profile</button></div></div>"#,
    );
    let c = capture();
    assert!(action_on(&c, "hui-save").is_some(), "{:#}", c["actions"]);
}

#[wasm_bindgen_test]
async fn a_description_lists_terms_name_its_fields_and_a_hidden_copy_names_nothing() {
    // Lektor's admin lays its form out as a description list, no label, `name` or `id`
    // on any field: `<dt>Title</dt><dd><div><input></div></dd>`, a box inside an empty
    // `<label>`, and each text area after a hidden copy of its value that sizes it (the
    // "grow-wrap" trick). The fields were `text`, `text_2` and, named by the copy of a
    // value, `hello`. A `<dd>` holding two fields names neither by its term.
    mount(
        r#"<style>.grow{display:grid}.copy,.grow textarea{grid-area:1/1/2/2}.copy{visibility:hidden}</style>
        <form id="page"><dl><dt>Title</dt><dd><div class="group"><input type="text" id="title" value="Welcome"></div></dd></dl>
        <dl><dt>Body</dt><dd><div class="grow"><div class="copy">Hello.</div><textarea id="body">Hello.</textarea></div></dd></dl>
        <dl><dt>Published</dt><dd><div class="check"><label><input type="checkbox" id="published"></label></div></dd></dl>
        <dl><dt>Period</dt><dd><input type="text" id="from"> <input type="text" id="to"></dd></dl>
        <button type="submit" id="save">Save Changes</button></form>"#,
    );
    eval(
        "(() => { const f = document.getElementById('page'); f.addEventListener('submit', (e) => { e.preventDefault();              globalThis.__sent = ['title', 'body', 'published'].map((id) => { const el = document.getElementById(id); return el.type === 'checkbox' ? String(el.checked) : el.value; }).join('|'); }); })()",
    );
    let snap: Value = serde_json::from_str(&snapshot()).expect("snapshot");
    let label = |id: &str| {
        record_of(&snap, id)[6]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(label("title"), "Title");
    assert_eq!(label("body"), "Body");
    assert_eq!(label("published"), "Published");
    assert_eq!(
        label("to"),
        "",
        "a term names no second field of its description"
    );
    let c = capture();
    let (name, save) = action_on(&c, "save").expect("the form's action");
    let params = param_names(&save);
    for want in ["title", "body", "published"] {
        assert!(params.contains(&want), "{params:?}");
    }
    assert!(!params.contains(&"hello"), "{params:?}");
    let out = run(
        &name,
        r#"{"title": "Otters", "body": "Hello, otters.", "published": true}"#,
        &c,
    )
    .await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(
        eval_string("globalThis.__sent"),
        "Otters|Hello, otters.|true"
    );
}

#[wasm_bindgen_test]
async fn a_combobox_of_many_choices_takes_a_list_and_makes_exactly_its_tags() {
    // Streamlit's multiselect, react-select's `isMulti`: a combobox whose chosen options
    // are tags beside it, each with a "Remove …" button; choosing one leaves the field
    // empty. It takes a list (it was free text, and "client" was refused as not taken
    // though its tag was made); the tags become exactly the list, "team" removed, and
    // a "Delete account" beside them, which shows more than "account", left alone.
    mount(
        r#"<main><div class="form"><label>Title <input id="title"></label>
        <div class="stMultiSelect"><div role="group"><span role="group" aria-label="Selected values" id="chips"></span>
          <input id="tags" role="combobox" aria-label="Tags" aria-expanded="false" aria-autocomplete="list">
          <span class="danger">Danger zone <button type="button" aria-label="Delete account" id="nuke">x</button></span></div></div>
        <button id="add" type="button">Add task</button></div></main>"#,
    );
    eval(
        "(() => { const input = document.getElementById('tags'); const chips = document.getElementById('chips'); \
           const chip = (name) => { const s = document.createElement('span'); s.className = 'tag'; s.append(name); \
             const b = document.createElement('button'); b.type = 'button'; b.setAttribute('aria-label', 'Remove ' + name); b.textContent = '×'; \
             b.addEventListener('click', () => s.remove()); s.append(b); chips.append(s); }; \
           chip('team'); document.getElementById('nuke').addEventListener('click', () => { globalThis.__nuked = true; }); \
           const close = () => { const lb = document.getElementById('lb'); if (lb) lb.remove(); input.setAttribute('aria-expanded', 'false'); input.removeAttribute('aria-controls'); }; \
           input.addEventListener('input', () => { close(); if (!input.value) return; \
             const lb = document.createElement('div'); lb.id = 'lb'; lb.setAttribute('role', 'listbox'); lb.setAttribute('aria-multiselectable', 'true'); \
             for (const o of ['urgent', 'client', 'team'].filter((o) => o.includes(input.value))) { const d = document.createElement('div'); d.setAttribute('role', 'option'); d.textContent = o; \
               d.addEventListener('click', () => { chip(o); input.value = ''; close(); }); lb.append(d); } \
             input.closest('.form').append(lb); input.setAttribute('aria-controls', 'lb'); input.setAttribute('aria-expanded', 'true'); }); \
           input.addEventListener('blur', () => setTimeout(close, 0)); \
           document.getElementById('add').addEventListener('click', () => { globalThis.__tagged = document.getElementById('title').value + '|' + \
             Array.from(chips.querySelectorAll('.tag'), (t) => t.firstChild.textContent).join(','); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "add").expect("the form's action");
    let tags = action["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "tags").cloned())
        .unwrap_or_else(|| panic!("tags in {action:#}"));
    assert_eq!(tags["type_name"], "array", "{tags:#}");
    let out = run(
        &name,
        r#"{"title": "Call", "tags": ["urgent", "client"]}"#,
        &c,
    )
    .await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__tagged"), "Call|urgent,client");
    // A "Delete account" a page puts beside the tags is no tag: never pressed.
    assert_eq!(eval_string("String(globalThis.__nuked)"), "undefined");
    // An option the list does not offer: refused, nothing sent.
    let c = capture();
    let out = run(
        &name,
        r#"{"title": "Mail", "tags": ["urgent", "later"]}"#,
        &c,
    )
    .await;
    assert!(out.to_string().contains("bad_parameters"), "{out:#}");
    assert_eq!(eval_string("globalThis.__tagged"), "Call|urgent,client");
}

#[wasm_bindgen_test]
async fn a_select_drawn_as_a_button_is_a_field_set_by_choosing_its_option() {
    // Headless UI's Listbox (a button labelled by the label and itself, its list drawn
    // elsewhere once open), Radix's Select (`role=combobox` on a button, a placeholder,
    // a `<label for>`), Dash's dropdown (labelled only by its own value, a hidden focus
    // box beside it, the list inside a dialog with a search box, open until Escape). Each
    // is a parameter of the form's action, named by its label and never by the option it
    // shows; the toggle beside an autocomplete's box is no parameter; a picker alone is
    // `set_<label>(value)`. Each was a read opener (`choose_…`) or, on a button with
    // `role=combobox`, a field the dispatcher threw on.
    mount(
        r#"<main><div class="form">
          <label id="pk-who-l">Assignee</label>
          <button id="pk-who" type="button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="pk-who-l pk-who">Wade Cooper</button>
          <label for="pk-fruit">Fruit</label>
          <button id="pk-fruit" type="button" role="combobox" aria-expanded="false" aria-autocomplete="none" data-placeholder=""><span>Pick a fruit…</span></button>
          <label>Country</label>
          <div class="wrap"><input class="focus" readonly aria-hidden="true" tabindex="0" style="opacity:0;width:1px">
            <button id="pk-country" type="button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="pk-cv"><span id="pk-cv">France</span></button></div>
          <label id="pk-plan-l">Plan</label>
          <div id="mat-select-7" role="combobox" aria-haspopup="listbox" tabindex="0" aria-expanded="false" aria-labelledby="pk-plan-l mat-select-value-7">
            <div class="trigger"><span id="mat-select-value-7">Free</span></div></div>
          <div class="auto"><input id="pk-city" role="combobox" aria-label="City" aria-expanded="false">
            <button id="pk-chev" type="button" aria-haspopup="listbox" aria-label="Show cities">v</button></div>
          <button id="pk-save" type="button">Save</button></div></main>
          <nav><label id="pk-sort-l">Sort by</label>
            <button id="pk-sort" type="button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="pk-sort-l pk-sort">Newest</button>
            <label id="pk-lab-l">Labels</label>
            <button id="pk-lab" type="button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="pk-lab-l pk-lab">bug</button></nav>"#,
    );
    eval(
        "(() => { const fx = document.getElementById('fixture'); \
           const picker = (id, options, opts) => { const b = document.getElementById(id); let list = null; \
             const shown = opts.shown || b; \
             const close = () => { if (list) { (opts.popup || list).remove(); list = null; } b.setAttribute('aria-expanded', 'false'); b.removeAttribute('aria-controls'); }; \
             b.addEventListener('click', () => { if (list) { close(); return; } \
               list = document.createElement('ul'); list.setAttribute('role', 'listbox'); list.id = id + '-list'; \
               for (const o of options) { const li = document.createElement('li'); li.setAttribute('role', 'option'); li.textContent = o; \
                 if (o === opts.off) li.setAttribute('aria-disabled', 'true'); \
                 li.addEventListener('click', () => { if (o === opts.off) return; if (opts.many) { shown.textContent += ' ' + o; return; } \
                   shown.textContent = o; b.removeAttribute('data-placeholder'); if (!opts.stays) close(); }); list.append(li); } \
               if (opts.many) list.setAttribute('aria-multiselectable', 'true'); \
               if (opts.popup) { opts.popup = document.createElement('div'); opts.popup.setAttribute('role', 'dialog'); opts.popup.id = id + '-pop'; \
                 const s = document.createElement('input'); s.type = 'search'; s.placeholder = 'Search'; opts.popup.append(s, list); b.after(opts.popup); \
                 b.setAttribute('aria-controls', opts.popup.id); } \
               else { fx.append(list); if (opts.controls) b.setAttribute('aria-controls', list.id); } \
               b.setAttribute('aria-expanded', 'true'); }); \
             if (opts.stays) document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && list) close(); }); }; \
           picker('pk-who', ['Wade Cooper', 'Tom Cook', 'Devon Webb'], { controls: true }); \
           picker('pk-fruit', ['Apple', 'Banana'], { controls: true }); \
           picker('pk-country', ['France', 'Germany', 'Japan', 'Narnia'], { popup: true, stays: true, shown: document.getElementById('pk-cv'), off: 'Narnia' }); \
           picker('pk-sort', ['Newest', 'Oldest'], {}); \
           picker('mat-select-7', ['Free', 'Pro'], { controls: true, shown: document.getElementById('mat-select-value-7') }); \
           picker('pk-lab', ['bug', 'docs'], { many: true, stays: true }); \
           const trigger = document.querySelector('#mat-select-7 > .trigger'); trigger.addEventListener('click', () => {}); \
           document.getElementById('pk-save').addEventListener('click', () => { globalThis.__pkSaved = ['pk-who', 'pk-fruit', 'pk-country', 'mat-select-7'] \
             .map((id) => document.getElementById(id).textContent.trim()).concat(document.getElementById('pk-city').value).join('|'); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "pk-save").expect("the form's action");
    let params = action["parameters"].as_array().expect("parameters");
    let param = |n: &str| {
        params
            .iter()
            .find(|p| p["name"] == n)
            .unwrap_or_else(|| panic!("{n} in {action:#}"))
    };
    assert_eq!(param("assignee")["type_name"], "string", "{action:#}");
    assert_eq!(
        param("assignee")["default_value"],
        "Wade Cooper",
        "{action:#}"
    );
    assert_eq!(param("fruit")["default_value"], Value::Null, "{action:#}");
    assert_eq!(param("country")["default_value"], "France", "{action:#}");
    assert_eq!(param("city")["type_name"], "string", "{action:#}");
    assert_eq!(param("plan")["default_value"], "Free", "{action:#}");
    assert_eq!(
        params.len(),
        5,
        "the autocomplete's toggle is no parameter: {action:#}"
    );
    // Nothing a picker holds is an action of its own (the element Angular Material
    // listens on to open it), and its object is named by its label, not a kit's id.
    for (n, a) in c["actions"].as_object().unwrap() {
        assert!(!n.starts_with("choose_"), "{n}: {a:#}");
        let target = a["internal_target"].as_str().unwrap_or("");
        assert!(!target.contains("mat-select-7 "), "{n}: {a:#}");
    }
    let objects = c["objects"].as_object().expect("objects");
    assert!(
        objects
            .iter()
            .any(|(k, v)| k.ends_with("plan") && v == "Free"),
        "{objects:#?}"
    );
    assert!(
        !objects.keys().any(|k| k.contains("mat_select")),
        "{objects:#?}"
    );
    let out = run(
        &name,
        r#"{"assignee": "Tom Cook", "fruit": "Banana", "country": "Japan", "plan": "Pro", "city": "Oslo"}"#,
        &c,
    )
    .await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(
        eval_string("String(globalThis.__pkSaved)"),
        "Tom Cook|Banana|Japan|Pro|Oslo",
        "{out:#}"
    );
    assert_eq!(
        eval_string("String(document.querySelectorAll('#fixture [role=listbox]').length)"),
        "0",
        "every list is closed again"
    );
    // An option the list does not offer, and one the page disabled: refused, the list
    // closed, nothing sent.
    for bad in ["Atlantis", "Narnia"] {
        let c = capture();
        let out = run(
            &name,
            &format!(r#"{{"assignee": "Devon Webb", "country": "{bad}", "city": "Rome"}}"#),
            &c,
        )
        .await;
        assert!(out.to_string().contains("bad_parameters"), "{out:#}");
        assert!(
            out.to_string().contains("Germany"),
            "the options are named: {out:#}"
        );
        assert_eq!(
            eval_string("globalThis.__pkSaved"),
            "Tom Cook|Banana|Japan|Pro|Oslo"
        );
        assert_eq!(
            eval_string("String(document.querySelectorAll('#fixture [role=listbox]').length)"),
            "0"
        );
    }
    // A picker alone: its own action, read by its label as a `<select>` is (sorting
    // changes the view only).
    let c = capture();
    let (name, action) = action_on(&c, "pk-sort").expect("the sort picker's action");
    assert_eq!(name, "set_sort_by", "{action:#}");
    assert_eq!(action["reversibility"], "read", "{action:#}");
    let out = run(&name, r#"{"value": "Oldest"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(
        eval_string("document.getElementById('pk-sort').textContent"),
        "Oldest",
        "{out:#}"
    );
    // A picker whose list keeps many choices would add the option clicked to them:
    // refused before any click, the list closed.
    let c = capture();
    let (name, _) = action_on(&c, "pk-lab").expect("the labels picker's action");
    let out = run(&name, r#"{"value": "docs"}"#, &c).await;
    assert_eq!(out["code"], "unsupported", "{out:#}");
    assert_eq!(
        eval_string("document.getElementById('pk-lab').textContent"),
        "bug"
    );
    assert_eq!(
        eval_string("String(document.querySelectorAll('#fixture [role=listbox]').length)"),
        "0"
    );
}

#[wasm_bindgen_test]
async fn a_slider_drawn_with_aria_alone_is_moved_by_keys() {
    // Radix's slider: a thumb (`span` with `role=slider`, no input) that moves a step at a
    // time on the keys and says its value in `aria-valuenow` once the page has drawn it
    // again. It is a number parameter with its range, set by keys; a value its steps pass
    // over, or outside its range, is refused with nothing sent. Beside a number box with
    // its range (Dash's slider), the thumb is no parameter of its own: the box is.
    // Before, the thumb was a parameter of free text the dispatcher threw on.
    mount(
        r#"<main><div class="form"><label>Name <input id="sl-name"></label>
          <span class="root" id="sl-root"><span class="track"></span>
            <span role="slider" id="sl-vol" tabindex="0" style="display:inline-block;width:16px;height:16px;background:#333" aria-label="Volume" aria-valuemin="0" aria-valuemax="10" aria-valuenow="4"></span></span>
          <div class="pair"><input id="sl-level" type="number" min="1" max="5" value="3" aria-label="Level">
            <span class="root"><span role="slider" id="sl-twin" tabindex="0" style="display:inline-block;width:16px;height:16px;background:#333" aria-valuemin="1" aria-valuemax="5" aria-valuenow="3"></span></span></div>
          <button id="sl-apply" type="button">Apply</button></div></main>"#,
    );
    eval(
        "(() => { const t = document.getElementById('sl-vol'); \
           document.getElementById('sl-root').addEventListener('keydown', (e) => { \
             const now = Number(t.getAttribute('aria-valuenow')); \
             const d = { ArrowUp: 2, ArrowRight: 2, ArrowDown: -2, ArrowLeft: -2 }[e.key]; if (!d) return; e.preventDefault(); \
             queueMicrotask(() => t.setAttribute('aria-valuenow', String(Math.min(10, Math.max(0, now + d))))); }); \
           document.getElementById('sl-apply').addEventListener('click', () => { globalThis.__slApplied = \
             document.getElementById('sl-name').value + '|' + t.getAttribute('aria-valuenow') + '|' + document.getElementById('sl-level').value; }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "sl-apply").expect("the form's action");
    let params = action["parameters"].as_array().expect("parameters");
    let volume = params
        .iter()
        .find(|p| p["name"] == "volume")
        .unwrap_or_else(|| panic!("volume in {action:#}"));
    assert_eq!(volume["type_name"], "number", "{volume:#}");
    assert_eq!(volume["default_value"], 4, "{volume:#}");
    assert!(
        volume["description"]
            .as_str()
            .unwrap()
            .contains("from 0 to 10"),
        "{volume:#}"
    );
    assert_eq!(
        param_names(&action),
        ["name", "volume", "level"],
        "the thumb beside the box is no parameter: {action:#}"
    );
    let out = run(&name, r#"{"name": "Hall", "volume": 8, "level": 2}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__slApplied"), "Hall|8|2");
    for bad in [
        r#"{"name": "Den", "volume": 5}"#,
        r#"{"name": "Den", "volume": 12}"#,
    ] {
        let c = capture();
        let out = run(&name, bad, &c).await;
        assert!(out.to_string().contains("bad_parameters"), "{out:#}");
        assert_eq!(eval_string("globalThis.__slApplied"), "Hall|8|2");
    }
}

#[wasm_bindgen_test]
async fn a_picker_whose_option_changes_under_the_pointer_is_refused() {
    // A page that has read the dispatcher: once the pointer goes down on "Standard" the
    // option becomes "Overnight" (and a click on it would choose that). The option's
    // words are checked again before the click: refused, nothing chosen, nothing sent.
    mount(
        r#"<main><div class="form"><label id="sw-l">Shipping</label>
          <button id="sw-ship" type="button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="sw-l sw-ship">Express</button>
          <button id="sw-go" type="button">Place order</button></div></main>"#,
    );
    eval(
        "(() => { const b = document.getElementById('sw-ship'); const fx = document.getElementById('fixture'); \
           b.addEventListener('click', () => { const ul = document.createElement('ul'); ul.setAttribute('role', 'listbox'); ul.id = 'sw-list'; \
             for (const o of ['Standard', 'Express']) { const li = document.createElement('li'); li.setAttribute('role', 'option'); li.textContent = o; \
               li.addEventListener('pointerdown', () => { if (li.textContent === 'Standard') li.textContent = 'Overnight'; }); \
               li.addEventListener('click', () => { b.textContent = li.textContent; ul.remove(); b.setAttribute('aria-expanded', 'false'); }); ul.append(li); } \
             fx.append(ul); b.setAttribute('aria-controls', 'sw-list'); b.setAttribute('aria-expanded', 'true'); }); \
           document.addEventListener('keydown', (e) => { const ul = document.getElementById('sw-list'); if (e.key === 'Escape' && ul) { ul.remove(); b.setAttribute('aria-expanded', 'false'); } }); \
           document.getElementById('sw-go').addEventListener('click', () => { globalThis.__swPlaced = b.textContent; }); })()",
    );
    let c = capture();
    let (name, _) = action_on(&c, "sw-go").expect("the form's action");
    let out = run(&name, r#"{"shipping": "Standard"}"#, &c).await;
    assert_eq!(out["status"], "failed", "{out:#}");
    assert_eq!(out["code"], "target_changed", "{out:#}");
    assert_eq!(
        eval_string("document.getElementById('sw-ship').textContent"),
        "Express"
    );
    assert_eq!(eval_string("String(globalThis.__swPlaced)"), "undefined");
    assert_eq!(
        eval_string("String(document.querySelectorAll('#fixture [role=listbox]').length)"),
        "0",
        "the list is closed again"
    );
}

#[wasm_bindgen_test]
fn a_note_that_a_field_is_required_or_optional_is_no_part_of_its_name() {
    // "(required)" or "(optional)" closing a label says how to fill the field; a
    // visually hidden one (Jazzmin wraps its bulk-action select, drawn by Select2, in
    // a label that says nothing else) too. The select widget is then named by the
    // select's `name`, as the select itself would be, and its empty first choice is
    // no value.
    const HIDDEN: &str = "position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden;border:0;padding:0";
    mount(&format!(
        r#"<main><form id="rq-form" onsubmit="return false">
          <label for="rq-email">Email (Required)</label><input id="rq-email" type="email">
          <label for="rq-middle">Middle name <span style="{HIDDEN}">(optional)</span></label><input id="rq-middle">
          <label><select name="action" required tabindex="-1" aria-hidden="true" style="{HIDDEN}">
              <option value="" selected>---------</option><option value="delete_selected">Delete selected tasks</option></select><span
            class="kit"><span class="selection"><span role="combobox" aria-haspopup="true" aria-expanded="false" tabindex="0"
            aria-labelledby="rq-shown"><span id="rq-shown" role="textbox" aria-readonly="true">---------</span></span></span></span><span
            style="{HIDDEN}"> (required)</span></label>
          <button id="rq-go" type="submit">Go</button></form></main>"#
    ));
    let c = capture();
    let (_, action) = action_on(&c, "rq-go").expect("the form's action");
    let params = action["parameters"].as_array().expect("parameters");
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["email", "middle_name", "action"], "{action:#}");
    // It shows the select's empty first choice ("---------"): nothing is chosen.
    assert_eq!(params[2]["default_value"], Value::Null, "{action:#}");
}

#[wasm_bindgen_test]
fn a_select_no_label_names_is_named_by_its_prompt() {
    // A select whose first option chooses nothing (value "") and says what to choose,
    // and the select widget standing in for one with neither label nor `name`
    // (Jazzmin's list filters): named by that prompt.
    const HIDDEN: &str = "position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden;border:0;padding:0";
    mount(&format!(
        r#"<main><form id="pr-form" onsubmit="return false">
          <select id="pr-country"><option value="">Country</option><option value="fr">France</option></select>
          <div><select tabindex="-1" aria-hidden="true" style="{HIDDEN}"><option value="">pinned</option>
              <option value="">---------</option><option value="1">Yes</option><option value="0">No</option></select><span
            class="kit"><span class="selection"><span role="combobox" aria-haspopup="true" aria-expanded="false" tabindex="0"
            aria-labelledby="pr-shown"><span id="pr-shown" role="textbox" aria-readonly="true">pinned</span></span></span></span></div>
          <input name="q" aria-label="Search"><button id="pr-search" type="submit">Search</button></form></main>"#
    ));
    let c = capture();
    let (_, action) = action_on(&c, "pr-search").expect("the form's action");
    let params = action["parameters"].as_array().expect("parameters");
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["country", "pinned", "q"], "{action:#}");
    assert_eq!(params[0]["allowed_values"], json!(["France"]), "{action:#}");
    assert_eq!(params[1]["default_value"], Value::Null, "{action:#}");
}

#[wasm_bindgen_test]
fn a_table_cell_showing_only_an_image_reads_as_its_words() {
    // Django's admin draws a boolean column as an icon whose alt says "True" or
    // "False": the cell says it, as the accessibility tree reads it; an image not drawn
    // says nothing.
    const ICON: &str = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==";
    mount(&format!(
        r#"<main><table id="notes-list"><thead><tr><th>Title</th><th>Pinned</th></tr></thead><tbody>
          <tr><th><a href="/n/1/">Groceries</a></th><td><img src="{ICON}" width="12" height="12" alt="False"></td></tr>
          <tr><th><a href="/n/2/">Dentist</a></th><td><img src="{ICON}" width="12" height="12" alt="True"></td></tr>
          <tr><th><a href="/n/3/">Bank</a></th><td><img src="{ICON}" style="display:none" alt="True"></td></tr>
        </tbody></table></main>"#
    ));
    let c = capture();
    let objects = c["objects"].as_object().expect("objects");
    let pinned: Vec<(&String, &Value)> = objects
        .iter()
        .filter(|(k, _)| k.ends_with(".pinned"))
        .collect();
    assert_eq!(
        pinned.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>(),
        [Some("False"), Some("True")],
        "{objects:#?}"
    );
}

#[wasm_bindgen_test]
fn a_heading_a_toggle_is_described_by_is_no_action_of_its_own() {
    // Wagtail's dashboard panel: its heading listens for clicks to do what the panel's
    // toggle does, and the toggle names it (`aria-describedby`). The toggle is the
    // action; the heading, no verb and no button, was one of its own put to a person.
    // A clickable element no control names is still offered.
    mount(
        r#"<main><section id="pn-section" aria-labelledby="pn-heading">
          <div><button id="pn-toggle" type="button" aria-label="Toggle section" aria-describedby="pn-heading"
            aria-controls="pn-content" aria-expanded="true">▾</button>
          <h2 id="pn-heading">Your most recent edits</h2></div>
          <div id="pn-content"><p>Nothing yet</p></div>
          <span id="pn-other">Recently viewed</span></section></main>"#,
    );
    eval(
        "(() => { const t = document.getElementById('pn-toggle'); \
           t.addEventListener('click', () => t.setAttribute('aria-expanded', String(t.getAttribute('aria-expanded') !== 'true'))); \
           document.getElementById('pn-heading').addEventListener('click', () => t.click()); \
           document.getElementById('pn-other').addEventListener('click', () => {}); })()",
    );
    let c = capture();
    assert!(action_on(&c, "pn-toggle").is_some(), "{:#}", c["actions"]);
    assert!(action_on(&c, "pn-heading").is_none(), "{:#}", c["actions"]);
    assert!(action_on(&c, "pn-other").is_some(), "{:#}", c["actions"]);
}

#[wasm_bindgen_test]
async fn a_required_field_the_page_fills_a_moment_later_is_waited_for() {
    // Wagtail fills a page's required slug, on a tab not shown, from its title once
    // typing pauses: the form is valid a moment after the title is filled, as a person
    // sees before pressing "Save draft". A field nothing fills is still refused.
    mount(
        r#"<main><form id="wt-form" onsubmit="globalThis.__wtSent = new FormData(this).get('slug'); return false">
          <label for="wt-title">Title</label><input id="wt-title" name="title" required>
          <section hidden><label for="wt-slug">Slug</label><input id="wt-slug" name="slug" required></section>
          <label for="wt-note">Note</label><input id="wt-note" name="note">
          <button id="wt-save" type="submit">Save draft</button></form></main>"#,
    );
    eval(
        "(() => { const title = document.getElementById('wt-title'); let t = 0; \
           title.addEventListener('input', () => { clearTimeout(t); t = setTimeout(() => { \
             if (/^[a-z ]+$/i.test(title.value)) document.getElementById('wt-slug').value = title.value.toLowerCase().replace(/ /g, '-'); }, 250); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "wt-save").expect("the form's action");
    let names: Vec<&str> = action["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["title", "note"], "{action:#}");
    let out = run(&name, r#"{"title": "About us"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__wtSent)"), "about-us");
    // A title the page leaves the slug empty for: refused once the wait is over.
    eval("globalThis.__wtSent = undefined; document.getElementById('wt-slug').value = ''");
    let c = capture();
    let (name, _) = action_on(&c, "wt-save").expect("the form's action");
    let out = run(&name, r#"{"title": "100%"}"#, &c).await;
    assert_eq!(out["status"], "failed", "{out:#}");
    assert_eq!(out["code"], "bad_parameters", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__wtSent)"), "undefined");
}

#[wasm_bindgen_test]
async fn a_select_widget_standing_in_for_a_hidden_select_waits_for_its_options() {
    // A select widget of the jQuery kind (Select2's, which Django's admin draws for its
    // autocomplete fields): the native `<select>` hidden and labelled, a `role=combobox`
    // span after it holding a read-only `role=textbox` that shows the choice (and a
    // clear "×" once chosen), opened on mousedown into a dropdown at the end of the
    // page whose search box takes the focus a moment later; its options come from the
    // server (a disabled "Searching…" first) and show the first page only, the rest as
    // the person types. The widget is a parameter named by the select's label, its
    // value the choice without the glyph; the box it sits in, keyed by the kit, is no
    // record; an option beyond the first page is found by typing it into the search box.
    mount(
        r#"<main><form id="s2-form" onsubmit="return false">
          <div class="row"><label for="s2-title">Title:</label>
            <span class="kit" data-kit-id="4"><input id="s2-title" name="title" type="text"></span></div>
          <div class="row"><label for="s2-cat">Category:</label>
            <div class="wrap"><select id="s2-cat" name="category" tabindex="-1" aria-hidden="true"
              style="position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden;border:0;padding:0"><option value=""></option></select>
            <span class="kit" data-kit-id="7"><span class="selection"><span id="s2-box" role="combobox" aria-haspopup="true"
              aria-expanded="false" tabindex="0" aria-labelledby="s2-shown"><span id="s2-shown" role="textbox" aria-readonly="true"><span
              class="kit-placeholder">Choose…</span></span><span role="presentation"><b role="presentation"></b></span></span></span></span></div></div>
          <button id="s2-save" type="button">Save</button></form></main>"#,
    );
    eval(
        "(() => { const all = [['1', 'Home'], ['2', 'Work'], ['3', 'Travel']]; \
           const sel = document.getElementById('s2-cat'); const box = document.getElementById('s2-box'); \
           const shown = document.getElementById('s2-shown'); let drop = null; \
           const close = () => { if (drop) { drop.remove(); drop = null; } box.setAttribute('aria-expanded', 'false'); box.removeAttribute('aria-owns'); }; \
           const fetchInto = (ul, term) => { ul.innerHTML = '<li role=\"option\" aria-disabled=\"true\">Searching…</li>'; \
             setTimeout(() => { if (!ul.isConnected) return; ul.innerHTML = ''; \
               for (const [v, t] of all.filter(([, t]) => t.toLowerCase().includes(term.toLowerCase())).slice(0, 2)) { \
                 const li = document.createElement('li'); li.setAttribute('role', 'option'); li.setAttribute('aria-selected', 'false'); li.textContent = t; \
                 li.addEventListener('mouseup', () => { sel.innerHTML = ''; sel.append(new Option(t, v, true, true)); \
                   shown.innerHTML = '<span class=\"kit-clear\" title=\"Remove all items\">×</span>' + t; close(); }); ul.append(li); } }, 120); }; \
           box.addEventListener('mousedown', () => { if (drop) { close(); return; } \
             drop = document.createElement('span'); drop.className = 'kit-dropdown'; \
             const search = document.createElement('input'); search.type = 'search'; search.setAttribute('aria-controls', 's2-results'); \
             const ul = document.createElement('ul'); ul.setAttribute('role', 'listbox'); ul.id = 's2-results'; \
             const s = document.createElement('span'); s.append(search); drop.append(s, ul); document.body.append(drop); \
             box.setAttribute('aria-expanded', 'true'); box.setAttribute('aria-owns', 's2-results'); fetchInto(ul, ''); \
             search.addEventListener('input', () => fetchInto(ul, search.value)); \
             setTimeout(() => search.focus(), 0); }); \
           document.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); }); \
           document.getElementById('s2-save').addEventListener('click', () => { \
             globalThis.__s2Saved = document.getElementById('s2-title').value + '|' + sel.value; }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "s2-save").expect("the form's action");
    let params = action["parameters"].as_array().expect("parameters");
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["title", "category"], "{action:#}");
    assert_eq!(params[1]["default_value"], Value::Null, "{action:#}");
    let objects = c["objects"].as_object().expect("objects");
    assert!(
        !objects.keys().any(|k| k.contains("kit")),
        "the kit's boxes are no records: {objects:#?}"
    );
    let out = run(&name, r#"{"title": "Trip", "category": "Travel"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__s2Saved)"), "Trip|3");
    let c = capture();
    let (name, action) = action_on(&c, "s2-save").expect("the form's action");
    let category = action["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "category"))
        .expect("category");
    assert_eq!(category["default_value"], "Travel", "{action:#}");
    // No option says it, on the first page or after typing: refused, the dropdown closed,
    // nothing sent.
    eval("globalThis.__s2Saved = undefined");
    let out = run(&name, r#"{"title": "Trip", "category": "Mars"}"#, &c).await;
    assert_eq!(out["status"], "failed", "{out:#}");
    assert_eq!(out["code"], "bad_parameters", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__s2Saved)"), "undefined");
    assert_eq!(
        eval_string("String(document.querySelectorAll('.kit-dropdown').length)"),
        "0",
        "the dropdown is closed again"
    );
}

#[wasm_bindgen_test]
async fn a_select_widget_of_many_choices_keeps_exactly_the_options_asked_for() {
    // The same kind of widget standing in for a hidden `<select multiple>` (Select2's
    // tags, Django's autocomplete of a many-to-many field): each choice a tag with a "×"
    // in a `role=combobox` frame around a search box; typing fetches the options that
    // say it. The search box is a list parameter named by the select's label, the
    // select's chosen options its value; the tags are no list of records. Tags not asked
    // for are removed by their "×", the others typed and chosen; an option no list
    // offers is refused with nothing sent.
    mount(
        r#"<main><form id="sm-form" onsubmit="return false">
          <div class="row"><label for="sm-tags">Tags:</label>
            <div class="wrap"><select id="sm-tags" name="tags" multiple tabindex="-1" aria-hidden="true"
              style="position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden;border:0;padding:0"></select>
            <span class="kit"><span class="selection"><span id="sm-frame" role="combobox" aria-haspopup="true" aria-expanded="false"
              tabindex="-1"><ul id="sm-chips"><li class="kit-search"><input id="sm-search" type="search" role="searchbox"
              aria-autocomplete="list" autocomplete="off"></li></ul></span></span></span></div></div>
          <button id="sm-save" type="button">Save</button></form></main>"#,
    );
    eval(
        "(() => { const all = [['1', 'urgent'], ['2', 'later'], ['3', 'family'], ['4', 'money']]; \
           const sel = document.getElementById('sm-tags'); const frame = document.getElementById('sm-frame'); \
           const chips = document.getElementById('sm-chips'); const search = document.getElementById('sm-search'); let drop = null; \
           const close = () => { if (drop) { drop.remove(); drop = null; } frame.setAttribute('aria-expanded', 'false'); search.removeAttribute('aria-controls'); }; \
           const add = (v, t) => { sel.append(new Option(t, v, true, true)); const li = document.createElement('li'); li.className = 'kit-choice'; li.dataset.kitId = 't' + v; li.title = t; \
             const x = document.createElement('span'); x.textContent = '×'; x.setAttribute('role', 'presentation'); \
             x.addEventListener('click', () => { Array.from(sel.options).filter((o) => o.value === v).forEach((o) => o.remove()); li.remove(); }); \
             li.append(x, t); chips.insertBefore(li, search.parentElement); }; \
           add('1', 'urgent'); add('2', 'later'); \
           search.addEventListener('input', () => { if (!drop) { drop = document.createElement('span'); drop.className = 'kit-dropdown'; \
               const ul = document.createElement('ul'); ul.setAttribute('role', 'listbox'); ul.id = 'sm-results'; drop.append(ul); \
               document.body.append(drop); frame.setAttribute('aria-expanded', 'true'); search.setAttribute('aria-controls', 'sm-results'); } \
             const ul = drop.querySelector('ul'); const term = search.value; ul.innerHTML = '<li role=\"option\" aria-disabled=\"true\">Searching…</li>'; \
             setTimeout(() => { if (!ul.isConnected || search.value !== term) return; ul.innerHTML = ''; \
               for (const [v, t] of all.filter(([w, t]) => t.includes(term) && !Array.from(sel.selectedOptions).some((o) => o.value === w))) { \
                 const li = document.createElement('li'); li.setAttribute('role', 'option'); li.textContent = t; \
                 li.addEventListener('mouseup', () => { add(v, t); search.value = ''; close(); }); ul.append(li); } }, 100); }); \
           document.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); }); \
           document.getElementById('sm-save').addEventListener('click', () => { \
             globalThis.__smSaved = Array.from(sel.selectedOptions, (o) => o.text).sort().join(','); }); })()",
    );
    let c = capture();
    let (name, action) = action_on(&c, "sm-save").expect("the form's action");
    let params = action["parameters"].as_array().expect("parameters");
    assert_eq!(params.len(), 1, "{action:#}");
    assert_eq!(params[0]["name"], "tags", "{action:#}");
    assert_eq!(params[0]["type_name"], "array", "{action:#}");
    let objects = c["objects"].as_object().expect("objects");
    assert!(
        objects
            .iter()
            .any(|(k, v)| k.ends_with("tags") && *v == serde_json::json!(["urgent", "later"])),
        "{objects:#?}"
    );
    assert!(
        objects
            .keys()
            .all(|k| k.ends_with(".tags") || k.ends_with(".sm_search")),
        "the tags are no records: {objects:#?}"
    );
    let out = run(&name, r#"{"tags": ["money", "family"]}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__smSaved)"), "family,money");
    assert_eq!(
        eval_string("String(document.querySelectorAll('.kit-dropdown').length)"),
        "0",
        "the dropdown is closed again"
    );
    eval("globalThis.__smSaved = undefined");
    let c = capture();
    let out = run(&name, r#"{"tags": ["money", "nonsense"]}"#, &c).await;
    assert_eq!(out["status"], "failed", "{out:#}");
    assert_eq!(out["code"], "bad_parameters", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__smSaved)"), "undefined");
}

#[wasm_bindgen_test]
fn a_link_drawn_as_an_icon_is_named_by_the_label_inside_it() {
    // sqladmin's row actions: an icon link whose name is the `aria-label` of the tooltip
    // span inside it (its name from content). It was unnamed, and left out; a label
    // inside that assistive technology skips (`aria-hidden`) names nothing.
    mount(
        r##"<main><table id="il-rows"><thead><tr><th>Title</th><th></th></tr></thead><tbody>
          <tr><td>Login fails</td><td><a id="il-del-1" href="#" data-bs-toggle="modal" data-bs-target="#il-modal"><span
            aria-label="Delete"><i class="fa-solid fa-trash" style="display:inline-block;width:12px;height:12px"></i></span></a> <a id="il-odd-1" href="/x/1"><span aria-hidden="true"
            aria-label="Archive"><i class="fa-solid fa-box" style="display:inline-block;width:12px;height:12px"></i></span></a></td></tr>
          <tr><td>Refund twice</td><td><a id="il-del-2" href="#" data-bs-toggle="modal" data-bs-target="#il-modal"><span
            aria-label="Delete"><i class="fa-solid fa-trash" style="display:inline-block;width:12px;height:12px"></i></span></a> <a id="il-odd-2" href="/x/2"><span aria-hidden="true"
            aria-label="Archive"><i class="fa-solid fa-box" style="display:inline-block;width:12px;height:12px"></i></span></a></td></tr>
        </tbody></table></main>"##,
    );
    let c = capture();
    let names: Vec<&String> = c["actions"].as_object().unwrap().keys().collect();
    assert!(names.iter().any(|n| n.starts_with("delete")), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("archive")), "{names:?}");
}

#[wasm_bindgen_test]
fn a_forms_heading_is_no_caption_of_a_field_its_placeholder_names() {
    // Archivy's login form: a heading, a hidden token, a user box named only by its
    // placeholder, a password and "Submit". The heading named the user box, so the
    // form was no login and its "Submit" an irreversible write.
    mount(
        r#"<form id="login" action="" method="post"><h1>Sign in</h1>
        <input name="csrf_token" type="hidden" value="t">
        <input id="user" name="username" placeholder="Username" type="text">
        <input id="pass" name="password" placeholder="Password" type="password">
        <input id="go" name="submit" type="submit" value="Submit"></form>
        <div><span>Amount</span><input id="amount" type="text" name="n1"></div>
        <h3>Custom SQL query</h3><textarea id="sql" name="sql"></textarea>"#,
    );
    let snap: Value = serde_json::from_str(&snapshot()).unwrap();
    // A record's label is its seventh item, left off when empty.
    let label = |id: &str| {
        record_of(&snap, id)[6]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(label("user"), "", "{:#}", record_of(&snap, "user"));
    // A caption that is no heading still names the field it comes before, and a
    // heading names a field that names itself nowhere else (Datasette's query box).
    assert_eq!(label("amount"), "Amount");
    assert_eq!(label("sql"), "Custom SQL query");
    let c = capture();
    let (name, login) = action_on(&c, "go").expect("the login");
    assert_eq!(
        login["reversibility"], "reversible_write",
        "{name}: {login:#}"
    );
    assert_eq!(param_names(&login), ["username", "password"]);
}

#[wasm_bindgen_test]
async fn a_named_radio_group_whose_values_name_nothing_offers_its_labels() {
    // pyLoad's "Add Package": a group named `add_dest` whose values "1" and "0" stand
    // for "Queue" and "Packages" was offered as `"1"|"0"`, which no agent can read. A
    // group whose values say something ("small", "large") keeps them.
    let radio = |name: &str, value: &str, label: &str, checked: bool| {
        format!(
            r#"<label><input type="radio" name="{name}" value="{value}"{}>{label}</label>"#,
            if checked { " checked" } else { "" }
        )
    };
    mount(&format!(
        r#"<form id="add" action="/json/add_package" method="post">
        <label for="pkg">Name</label><input id="pkg" name="add_name" required>
        <label for="add_dest">Destination</label>{}{}
        <p>Size</p>{}{}
        <button id="add_submit" type="submit">Add Package</button></form>"#,
        radio("add_dest", "1", "Queue", true),
        radio("add_dest", "0", "Packages", false),
        radio("size", "small", "Small box", true),
        radio("size", "large", "Large box", false),
    ));
    eval(
        "document.getElementById('add').addEventListener('submit', (e) => { e.preventDefault(); \
           globalThis.__sent = JSON.stringify(Object.fromEntries(new FormData(e.target))); })",
    );
    let c = capture();
    let (name, action) = action_on(&c, "add_submit").expect("the form's action");
    let allowed = |param: &str| -> Value {
        action["parameters"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == param))
            .map(|p| json!([p["allowed_values"].clone(), p["default_value"].clone()]))
            .unwrap_or_else(|| panic!("{param}: {action:#}"))
    };
    assert_eq!(allowed("add_dest"), json!([["Queue", "Packages"], "Queue"]));
    assert_eq!(allowed("size"), json!([["small", "large"], "small"]));
    // The state says the checked option as the parameter offers it.
    let object = |suffix: &str| -> Value {
        c["objects"]
            .as_object()
            .and_then(|o| o.iter().find(|(k, _)| k.ends_with(suffix)))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{suffix}: {:#}", c["objects"]))
    };
    assert_eq!(object("add_dest"), "Queue");
    assert_eq!(object("size"), "small");
    let out = run(
        &name,
        r#"{"add_name": "Otters", "add_dest": "Packages", "size": "large"}"#,
        &c,
    )
    .await;
    assert_eq!(out["status"], "done", "{out:#}");
    let sent: Value =
        serde_json::from_str(&eval_string("globalThis.__sent || '{}'")).expect("sent");
    assert_eq!(
        sent,
        json!({"add_name": "Otters", "add_dest": "0", "size": "large"})
    );
    // The page is shared with the tests after this one.
    eval("delete globalThis.__sent");
}

#[wasm_bindgen_test]
async fn a_row_action_skips_a_hidden_copy_of_its_list_whose_rows_hold_other_words() {
    // pyLoad's menu: a hidden sticky bar first repeats it as icons titled "Queue" and
    // "Packages", then the menu a person sees says the words. `open_nav(title)` found
    // the hidden bar's link first, whose row holds no words, and refused the row as
    // changed.
    let item = |href: &str, title: &str, text: &str| {
        format!(
            r#"<li><a href="{href}" title="{title}" onclick="event.preventDefault(); globalThis.__went = '{href}'"><span class="icon"></span>{text}</a></li>"#
        )
    };
    mount(&format!(
        r#"<nav id="sticky" style="display: none"><ul>{}{}{}</ul></nav>
        <nav id="menu"><ul>{}{}{}</ul></nav><main><h1>Dashboard</h1></main>"#,
        item("#d1", "Dashboard", ""),
        item("#q1", "Queue", ""),
        item("#p1", "Packages", ""),
        item("#d2", "", "<span> Dashboard</span>"),
        item("#q2", "", "<span> Queue</span>"),
        item("#p2", "", "<span> Packages</span>"),
    ));
    let c = capture();
    let (name, action) = c["actions"]
        .as_object()
        .and_then(|a| {
            a.iter().find(|(_, a)| {
                a["internal_target"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("row:"))
            })
        })
        .map(|(n, a)| (n.clone(), a.clone()))
        .unwrap_or_else(|| panic!("{:#}", c["actions"]));
    assert_eq!(
        action["parameters"][0]["allowed_values"],
        json!(["Dashboard", "Queue", "Packages"]),
        "{name}: {action:#}"
    );
    let out = run(&name, r#"{"title": "Packages"}"#, &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("String(globalThis.__went)"), "#p2");
    eval("delete globalThis.__went");
}

#[wasm_bindgen_test]
async fn paragraphs_are_the_pages_text_and_leave_its_rows_alone() {
    // A wiki page's body: a paragraph of many links and emphasis is the page's text
    // (a record reads its text only while it holds three elements or fewer; a
    // paragraph always), and the footer's is not. Rows drawn with `div`s whose
    // "Delete" sits in a `<p>` (classed apart, so no grid of cards) are still found by
    // their twin buttons: a paragraph, recorded for its words, stands between each
    // button and its row.
    mount(
        r#"<main><h1>Bread</h1>
          <p>Bread needs <a href="/flour">flour</a>, <a href="/water">water</a>, <a href="/salt">salt</a>,
             <a href="/yeast">yeast</a> and <em>time</em>, and an oven at <strong>220</strong> degrees.</p>
          <div class="list">
            <div class="line first"><div class="col"><span>Rye</span></div><div class="col"><p><button type="button">Delete</button></p></div></div>
            <div class="line"><div class="col"><span>Spelt</span></div><div class="col"><p><button type="button">Delete</button></p></div></div>
            <div class="line last"><div class="col"><span>Wheat</span></div><div class="col"><p><button type="button">Delete</button></p></div></div>
          </div>
          <div id="wiki-footer"><p>Powered by <a href="https://wiki.example/">a wiki</a> and some words.</p></div></main>"#,
    );
    eval(
        "(() => { for (const b of document.querySelectorAll('.line button')) b.addEventListener('click', () => { \
             globalThis.__deleted = b.closest('.line').querySelector('span').textContent; }); })()",
    );
    let c = capture();
    assert_eq!(
        c["objects"]["text"],
        "Bread needs flour, water, salt, yeast and time, and an oven at 220 degrees.",
        "{:#}",
        c["objects"]
    );
    assert!(
        !c["objects"].to_string().contains("Powered by"),
        "{:#}",
        c["objects"]
    );
    let param = one_delete_per_row(&c, json!(["Rye", "Spelt", "Wheat"]));
    let out = run("delete", &format!(r#"{{"{param}": "Spelt"}}"#), &c).await;
    assert_eq!(out["status"], "done", "{out:#}");
    assert_eq!(eval_string("globalThis.__deleted"), "Spelt");
}
