//! App shells, menus, dialogs and fields on live DOM (issue 20): what the real
//! extraction makes of a workbench's landmarks, splitters, skip link and tab bar, of
//! fields nothing names but a caption, of a component-library modal whose confirm
//! button sits outside its `<form>`, and of a row's open menu; and that the dispatcher
//! runs `select_tab(tab)` and the modal's confirm with its fields like a person.

use super::*;
use wasm_bindgen_futures::JsFuture;

/// Runs one named action against `capture`.
async fn run(action: &str, params: &str, capture: &Value) -> Value {
    let capture = serde_json::to_string(capture).unwrap();
    let promise: js_sys::Promise = eval(&format!(
        "NspDispatch.run({{action: {action:?}, parameters: {params}}}, {capture}, globalThis.__b, () => {{}})"
    ))
    .into();
    let out = JsFuture::from(promise).await.expect("dispatch");
    serde_json::from_str(&js_sys::JSON::stringify(&out).unwrap().as_string().unwrap()).unwrap()
}

fn log() -> String {
    eval_string("document.getElementById('log').textContent")
}

fn names(capture: &Value) -> Vec<String> {
    capture["actions"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, a)| {
            !a["internal_target"]
                .as_str()
                .unwrap_or("")
                .starts_with("builtin:")
        })
        .map(|(n, _)| n.clone())
        .collect()
}

const SHELL: &str = r##"
    <a href="#main-panel" class="skip">Skip to main panel</a>
    <div role="banner" tabindex="-1" id="banner"><button type="button" id="run">Run build</button></div>
    <div class="dock" id="dock" tabindex="0">
      <button type="button" id="refresh">Refresh</button>
      <input type="search" aria-label="Filter files">
    </div>
    <div role="separator" tabindex="0" aria-orientation="vertical" aria-valuenow="30" id="splitter" style="width:4px;height:20px;background:#ccc"></div>
    <div role="main" id="main-panel" tabindex="-1">
      <div role="tablist" aria-label="Editors" id="tabs">
        <button type="button" role="tab" aria-selected="true" id="t1">README.md</button>
        <button type="button" role="tab" aria-selected="false" id="t2">main.rs</button>
        <button type="button" role="tab" aria-selected="false" id="t3">lib.rs</button>
      </div>
      <section role="region" aria-label="Main content" tabindex="0" id="content"><p>Hello</p></section>
    </div>
    <p id="log"></p>"##;

/// Landmarks, a dock panel and a splitter the page listens on, and a skip link: no
/// actions. The tab bar is one `select_tab(tab)` that clicks the named tab.
#[wasm_bindgen_test]
async fn an_app_shell_offers_its_controls_and_one_tab_action() {
    mount(SHELL);
    eval(
        "(() => { for (const id of ['banner', 'dock', 'splitter', 'main-panel', 'content']) \
           document.getElementById(id).addEventListener('click', (e) => { e.currentTarget.focus(); }); \
         const tabs = document.querySelectorAll('[role=tab]'); \
         for (const t of tabs) t.addEventListener('click', () => { \
           for (const o of tabs) o.setAttribute('aria-selected', String(o === t)); \
           document.getElementById('log').textContent = 'tab ' + t.textContent; }); })()",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let names = names(&capture);
    for name in &names {
        assert!(
            !name.contains("skip") && !name.contains("main_content") && !name.starts_with("show_"),
            "{name}: {names:?}"
        );
        let target = capture["actions"][name]["internal_target"]
            .as_str()
            .unwrap();
        for shell in ["#banner", "#dock", "#splitter", "#main-panel", "#content"] {
            assert_ne!(target, format!("dom:{shell}"), "{name}: {names:?}");
        }
    }
    for real in ["run_build", "refresh", "select_tab"] {
        assert!(names.contains(&real.to_owned()), "{real}: {names:?}");
    }
    let tab = &capture["actions"]["select_tab"];
    assert_eq!(tab["reversibility"], "read", "{tab}");
    assert_eq!(
        tab["parameters"][0]["allowed_values"],
        serde_json::json!(["README.md", "main.rs", "lib.rs"])
    );
    let selected: Vec<&Value> = capture["objects"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.ends_with("selected_tab"))
        .map(|(_, v)| v)
        .collect();
    assert_eq!(
        selected,
        [&Value::from("README.md")],
        "{}",
        capture["objects"]
    );

    let out = run("select_tab", r#"{"tab": "main.rs"}"#, &capture).await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "tab main.rs");
    assert_eq!(
        eval_string("document.getElementById('t2').getAttribute('aria-selected')"),
        "true"
    );
    let out = run("select_tab", r#"{"tab": "Cargo.toml"}"#, &capture).await;
    assert_eq!(out["code"], "bad_parameters", "{out}");
}

/// An editor with a bare title box (no name, id, label or placeholder; a generated
/// class; "New item" as its value), a number box captioned by the text before it, and
/// a table row's box captioned by the cell before it: each is a parameter of "Save",
/// and the dispatcher fills the one it names.
#[wasm_bindgen_test]
async fn unnamed_fields_are_parameters_and_get_filled() {
    mount(
        r##"<section aria-label="Editor" id="editor">
          <input class="css-1o4wo1x" id="title-box-9f3a2b1c7d" value="New item">
          <div><span>Priority</span> <input type="number" id="prio-7f3e9a2b1c"></div>
          <table><tr><td>Owner</td><td><input id="owner-1a2b3c4d5e"></td></tr></table>
          <button type="button" id="save">Save item</button>
        </section>
        <p id="log"></p>"##,
    );
    eval(
        "document.getElementById('save').addEventListener('click', () => { \
           const v = (s) => document.querySelector(s).value; \
           document.getElementById('log').textContent = [v('#editor .css-1o4wo1x'), v('[type=number]'), v('td input')].join('|'); })",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let save = &capture["actions"]["save_item"];
    let params: Vec<&str> = save["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", capture["actions"]))
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["text", "priority", "owner"], "{save}");
    assert!(
        capture["objects"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| !k.contains("new_item")),
        "{}",
        capture["objects"]
    );
    let out = run(
        "save_item",
        r#"{"text": "Quarterly report", "priority": 2, "owner": "Ana"}"#,
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "Quarterly report|2|Ana");
}

/// A component-library modal: the fields in a `<form>` the page never submits, the
/// "Cancel" and "Create" buttons in the footer outside it, all in a portal container
/// that listens for clicks outside the dialog. "Create" carries the fields; the form
/// and the portal are no actions.
#[wasm_bindgen_test]
async fn a_modals_confirm_button_outside_its_form_fills_the_fields_and_clicks() {
    mount(
        r##"<button type="button" id="open" aria-haspopup="dialog">New project</button>
        <div class="portal" id="portal">
          <div role="dialog" aria-modal="true" aria-labelledby="dlg-title" id="dlg">
            <h2 id="dlg-title">Create project</h2>
            <form id="project-form">
              <label for="pname">Project name</label><input id="pname" name="title" required>
              <label>Visibility <select name="visibility"><option>Private</option><option>Public</option></select></label>
            </form>
            <div class="footer"><button type="button" id="cancel">Cancel</button><button type="button" id="create">Create</button></div>
          </div>
        </div>
        <p id="log"></p>"##,
    );
    eval(
        "(() => { document.getElementById('portal').addEventListener('click', (e) => { if (e.target.id === 'portal') document.getElementById('log').textContent = 'dismissed'; }); \
           document.getElementById('project-form').addEventListener('submit', (e) => { e.preventDefault(); }); \
           document.getElementById('create').addEventListener('click', () => { const f = new FormData(document.getElementById('project-form')); \
             document.getElementById('log').textContent = 'created ' + f.get('title') + ' ' + f.get('visibility'); }); })()",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let names = names(&capture);
    let create = &capture["actions"]["create"];
    assert_eq!(create["internal_target"], "dom:#create", "{names:?}");
    let params: Vec<&str> = create["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["title", "visibility"], "{create}");
    for name in &names {
        assert!(!name.starts_with("submit"), "{name}: {names:?}");
        let target = capture["actions"][name]["internal_target"]
            .as_str()
            .unwrap();
        assert!(
            target != "dom:#portal" && target != "dom:#project-form",
            "{name}: {names:?}"
        );
    }
    let out = run(
        "create",
        r#"{"title": "Apollo", "visibility": "Public"}"#,
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "created Apollo Public");
}

/// A list whose rows each have a "More actions" menu button; the second row's menu is
/// open, rendered at the end of the page. Its items are actions named by their text,
/// described as that row's, and the state says which menu is open and whose.
#[wasm_bindgen_test]
fn an_open_menu_belongs_to_the_row_that_opened_it() {
    mount(
        r##"<ul aria-label="Files" id="files">
          <li><span class="name">Report.pdf</span> <button type="button" aria-label="More actions" aria-haspopup="menu" aria-expanded="false">⋮</button></li>
          <li><span class="name">Budget.xlsx</span> <button type="button" aria-label="More actions" aria-haspopup="menu" aria-expanded="true" aria-controls="row-menu">⋮</button></li>
          <li><span class="name">Notes.txt</span> <button type="button" aria-label="More actions" aria-haspopup="menu" aria-expanded="false">⋮</button></li>
        </ul>
        <div role="menu" id="row-menu">
          <div role="menuitem" tabindex="-1">Rename</div>
          <div role="menuitem" tabindex="-1">Move to trash</div>
        </div>"##,
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let actions = &capture["actions"];
    for name in ["rename", "move_to_trash"] {
        let d = actions[name]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: {actions:#}"));
        assert!(d.contains("Budget.xlsx"), "{name}: {d}");
    }
    assert_eq!(
        capture["objects"]["open_menu.name"], "More actions",
        "{}",
        capture["objects"]
    );
    assert!(
        capture["objects"]["open_menu.record"]
            .as_str()
            .is_some_and(|r| r.ends_with("[1]")),
        "{}",
        capture["objects"]
    );
}
