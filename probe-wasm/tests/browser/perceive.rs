//! What a person cannot perceive, an agent cannot do (issue 19): each way of hiding a
//! control keeps it out of the capture and makes the dispatcher answer `target_hidden`;
//! a row action revealed on hover stays offered and runs; and the dispatcher compares the
//! live page with what nspd's gate saw (`expect`) right before each event it fires.

use super::*;
use wasm_bindgen_futures::JsFuture;

/// Mounts `html` and scrolls the fixture into the viewport, where hit tests apply.
fn mount_in_view(html: &str) {
    mount(html);
    eval("document.getElementById('fixture').scrollIntoView({block: 'start'})");
}

/// Runs one dispatch message (a JS object literal) against `capture`.
async fn dispatch(msg: &str, capture: &Value) -> Value {
    let capture = serde_json::to_string(capture).unwrap();
    let promise: js_sys::Promise = eval(&format!(
        "NspDispatch.run({msg}, {capture}, globalThis.__b, () => {{}})"
    ))
    .into();
    let out = JsFuture::from(promise).await.expect("dispatch");
    serde_json::from_str(&js_sys::JSON::stringify(&out).unwrap().as_string().unwrap()).unwrap()
}

fn log() -> String {
    eval_string("document.getElementById('log').textContent")
}

/// The action bound to `target` (an internal_target), if the capture offers one.
fn action_at(capture: &Value, target: &str) -> Option<String> {
    capture["actions"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, a)| a["internal_target"] == target)
        .map(|(name, _)| name.clone())
}

/// Every way a page can leave a control rendered but out of a person's sight or reach,
/// as a change applied to `t` (the control) and `w` (its wrapper).
const HIDDEN_KINDS: &[(&str, &str)] = &[
    ("visibility:hidden", "t.style.visibility = 'hidden'"),
    ("opacity:0 on an ancestor", "w.style.opacity = '0'"),
    (
        "zero size",
        "t.style.cssText = 'width:0;height:0;padding:0;border:0;overflow:hidden'",
    ),
    ("transform: scale(0)", "t.style.transform = 'scale(0)'"),
    (
        "far off-screen",
        "t.style.cssText = 'position:absolute;left:-10000px;top:-10000px'",
    ),
    (
        "clip: rect(0 0 0 0)",
        "t.style.cssText = 'position:absolute;clip:rect(0 0 0 0)'",
    ),
    ("clip-path", "t.style.clipPath = 'inset(50%)'"),
    (
        "a zero-size overflow:hidden ancestor",
        "w.style.cssText = 'height:0;overflow:hidden'",
    ),
    (
        "covered by an opaque element",
        "w.style.position = 'relative'; const c = document.createElement('div'); \
         c.style.cssText = 'position:absolute;inset:0;background:#fff;z-index:5'; w.append(c)",
    ),
    (
        "inside a closed details",
        "const d = document.createElement('details'); d.innerHTML = '<summary>More</summary>'; \
         w.append(d); d.append(t)",
    ),
    ("under aria-hidden", "w.setAttribute('aria-hidden', 'true')"),
    ("inert", "w.inert = true"),
    // Drawn all but transparent: what a person sees is the product of every opacity
    // on the way up, and a filter's opacity() draws as one.
    ("opacity 0.05 on an ancestor", "w.style.opacity = '0.05'"),
    (
        "opacities of 0.3 on it and its wrapper (0.09)",
        "w.style.opacity = '0.3'; t.style.opacity = '0.3'",
    ),
    (
        "filter: opacity(0) on an ancestor",
        "w.style.filter = 'opacity(0)'",
    ),
    (
        "filter: opacity(5%) beside a blur",
        "t.style.filter = 'blur(1px) opacity(5%)'",
    ),
];

const HIDDEN_PAGE: &str = r##"<div id="w" style="padding:6px"><button type="button" id="t">Delete account</button></div>
    <button type="button" id="ok">Refresh list</button>
    <p id="log"></p>"##;

#[wasm_bindgen_test]
async fn each_kind_of_hidden_control_is_not_offered_and_not_dispatched() {
    for (kind, hide) in HIDDEN_KINDS {
        mount_in_view(HIDDEN_PAGE);
        eval("document.getElementById('t').addEventListener('click', () => { document.getElementById('log').textContent = 'deleted'; })");
        let before = analyze(&mut probe(), &snapshot_json());
        let action = action_at(&before, "dom:#t")
            .unwrap_or_else(|| panic!("{kind}: shown, it is offered: {}", before["actions"]));
        eval(&format!(
            "(() => {{ const t = document.getElementById('t'); const w = document.getElementById('w'); {hide}; }})()"
        ));
        let after = analyze(&mut probe(), &snapshot_json());
        assert!(
            action_at(&after, "dom:#t").is_none(),
            "{kind}: still offered: {}",
            after["actions"]
        );
        assert!(
            action_at(&after, "dom:#ok").is_some(),
            "{kind}: the visible control is still offered: {}",
            after["actions"]
        );
        // An agent holding the earlier state asks anyway.
        let out = dispatch(
            &format!("{{action: {action:?}, parameters: {{}}}}"),
            &before,
        )
        .await;
        assert_eq!(out["code"], "target_hidden", "{kind}: {out}");
        assert_eq!(log(), "", "{kind}: the hidden control was clicked");
    }
}

/// Faded is not hidden: a disabled-looking button (Bootstrap draws them at 0.65) in a
/// half-transparent row is still offered and still runs.
#[wasm_bindgen_test]
async fn a_faded_control_a_person_still_reads_is_offered_and_runs() {
    mount_in_view(
        r##"<div id="w" style="opacity:0.5;padding:6px"><button type="button" id="t" style="opacity:0.4">Refresh list</button></div>
        <p id="log"></p>"##,
    );
    eval("document.getElementById('t').addEventListener('click', () => { document.getElementById('log').textContent = 'refreshed'; })");
    let capture = analyze(&mut probe(), &snapshot_json());
    let action = action_at(&capture, "dom:#t")
        .unwrap_or_else(|| panic!("a control at 0.2 is offered: {}", capture["actions"]));
    let out = dispatch(
        &format!("{{action: {action:?}, parameters: {{}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "refreshed");
}

/// An extraction spends a bounded number of style reads on how transparent its
/// controls are (extract.js, MAX_ALPHA_READS), so a faint control behind many others
/// may be offered; the dispatcher's own check has no such bound and refuses it before
/// any event.
#[wasm_bindgen_test]
async fn a_faint_control_past_the_extractions_budget_is_refused_at_the_click() {
    mount_in_view(
        r##"<ul id="many"></ul>
        <div style="opacity:0.3"><div style="opacity:0.3"><button type="button" id="t">Delete account</button></div></div>
        <p id="log"></p>"##,
    );
    eval(
        "const ul = document.getElementById('many'); \
         for (let i = 0; i < 700; i++) { const li = document.createElement('li'); li.innerHTML = `<span><button type=\"button\">Open ${i}</button></span>`; ul.append(li); } \
         document.getElementById('t').addEventListener('click', () => { document.getElementById('log').textContent = 'deleted'; })",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    // 2,100 reads come before it: past the budget (raise the row count with it).
    let action = action_at(&capture, "dom:#t").unwrap_or_else(|| {
        panic!(
            "past the budget the control is offered: {}",
            capture["actions"]
        )
    });
    let out = dispatch(
        &format!("{{action: {action:?}, parameters: {{}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    let out = dispatch("{action: 'click', parameters: {selector: '#t'}}", &capture).await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "", "the faint control was clicked");
}

#[wasm_bindgen_test]
async fn builtins_refuse_what_a_person_cannot_reach() {
    mount_in_view(
        r##"<button type="button" id="gone" style="display:none">Delete</button>
        <button type="button" id="ghost" style="opacity:0">Wipe</button>
        <input id="field" aria-label="Note">
        <p id="log"></p>"##,
    );
    eval("for (const b of document.querySelectorAll('button')) b.addEventListener('click', () => { document.getElementById('log').textContent = b.id; })");
    let capture = analyze(&mut probe(), &snapshot_json());
    for sel in ["#gone", "#ghost"] {
        let out = dispatch(
            &format!("{{action: 'click', parameters: {{selector: {sel:?}}}}}"),
            &capture,
        )
        .await;
        assert_eq!(out["code"], "target_hidden", "{sel}: {out}");
        let out = dispatch(
            &format!("{{action: 'focus', parameters: {{selector: {sel:?}}}}}"),
            &capture,
        )
        .await;
        assert_eq!(out["code"], "target_hidden", "{sel}: {out}");
    }
    let out = dispatch(
        "{action: 'read_text', parameters: {selector: '#gone'}}",
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "");
    // A field a person can reach is typed into.
    let out = dispatch(
        "{action: 'type', parameters: {selector: '#field', text: 'hi'}}",
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    eval("document.getElementById('field').style.visibility = 'hidden'");
    let out = dispatch(
        "{action: 'type', parameters: {selector: '#field', text: 'more'}}",
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(eval_string("document.getElementById('field').value"), "hi");
}

/// Rows whose actions show on hover: by a stylesheet rule, and by a listener.
const HOVER_PAGE: &str = r##"<style>
      #css-rows .act { opacity: 0 }
      #css-rows li:hover .act { opacity: 1 }
      #js-rows .act, #dud-rows .act { visibility: hidden }
      .tw-act { opacity: 0 }
      @media (hover: hover) { .tw-act:is(:where(.grp):hover *) { opacity: 1 } }
      #faint-rows .act { opacity: 0 }
      #faint-rows li:hover .act { opacity: 0.05 }
    </style>
    <ul id="tw-rows">
      <li class="grp" data-task-id="t1"><span class="name">Seven</span> <button type="button" class="act tw-act">Pin</button></li>
      <li class="grp" data-task-id="t2"><span class="name">Eight</span> <button type="button" class="act tw-act">Pin</button></li>
    </ul>
    <ul id="css-rows">
      <li data-item-id="c1"><span class="name">One</span> <button type="button" class="act">Archive</button></li>
      <li data-item-id="c2"><span class="name">Two</span> <button type="button" class="act">Archive</button></li>
    </ul>
    <ul id="js-rows">
      <li data-msg-id="j1"><span class="name">Three</span> <button type="button" class="act">Star</button></li>
      <li data-msg-id="j2"><span class="name">Four</span> <button type="button" class="act">Star</button></li>
    </ul>
    <ul id="dud-rows">
      <li data-file-id="d1"><span class="name">Five</span> <button type="button" class="act">Remove</button></li>
      <li data-file-id="d2"><span class="name">Six</span> <button type="button" class="act">Remove</button></li>
    </ul>
    <ul id="faint-rows">
      <li data-doc-id="f1"><span class="name">Nine</span> <button type="button" class="act">Erase</button></li>
      <li data-doc-id="f2"><span class="name">Ten</span> <button type="button" class="act">Erase</button></li>
    </ul>
    <p id="log"></p>"##;

#[wasm_bindgen_test]
async fn hover_revealed_row_actions_are_offered_and_run_and_fake_reveals_do_not() {
    mount_in_view(HOVER_PAGE);
    eval(
        "(() => { for (const b of document.querySelectorAll('.act')) b.addEventListener('click', () => { \
           document.getElementById('log').textContent = b.textContent + ' ' + b.closest('li').firstElementChild.textContent; }); \
         for (const li of document.querySelectorAll('#js-rows li')) { \
           li.addEventListener('mouseenter', () => { li.querySelector('.act').style.visibility = 'visible'; }); } \
         for (const li of document.querySelectorAll('#dud-rows li')) li.addEventListener('mouseenter', () => {}); })()",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    // The row action whose rows include the one keyed `key`.
    let row_action = |key: &str| {
        capture["actions"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, a)| {
                a["parameters"][0]["allowed_values"]
                    .as_array()
                    .is_some_and(|v| v.contains(&Value::from(key)))
            })
            .map(|(name, a)| (name.clone(), a["parameters"][0]["name"].clone()))
            .unwrap_or_else(|| panic!("a row action on row {key}: {}", capture["actions"]))
    };
    // The stylesheet says hovering the row shows the control: offered, and it runs.
    let (archive, key) = row_action("c2");
    let out = dispatch(
        &format!("{{action: {archive:?}, parameters: {{{key}: 'c2'}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "Archive Two");
    // The same rule as Tailwind writes it (group-hover: :hover inside :is/:where).
    let (pin, key) = row_action("t2");
    let out = dispatch(
        &format!("{{action: {pin:?}, parameters: {{{key}: 't2'}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "Pin Eight");
    // A listener shows it: the dispatcher hovers the row and the control appears.
    let (star, key) = row_action("j1");
    let out = dispatch(
        &format!("{{action: {star:?}, parameters: {{{key}: 'j1'}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "Star Three");
    // A listener that reveals nothing is evidence enough to offer the control, never to
    // click it: after hovering it is still invisible.
    eval("document.getElementById('log').textContent = ''");
    let (remove, key) = row_action("d1");
    let out = dispatch(
        &format!("{{action: {remove:?}, parameters: {{{key}: 'd1'}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "");
    // A hover rule that leaves the control all but transparent reveals nothing.
    let erase = capture["actions"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, a)| a.to_string().contains("f2"))
        .map(|(name, _)| name.clone());
    assert!(
        erase.is_none(),
        "a row action revealed at 0.05 is offered: {erase:?}"
    );
    let out = dispatch(
        "{action: 'click', parameters: {selector: '#faint-rows li:nth-of-type(2) .act'}}",
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "");
}

#[wasm_bindgen_test]
async fn a_label_other_than_the_gated_one_is_refused() {
    mount_in_view(r##"<button type="button" id="rep">Archive report</button><p id="log"></p>"##);
    eval("document.getElementById('rep').addEventListener('click', () => { document.getElementById('log').textContent = 'clicked ' + document.getElementById('rep').textContent; })");
    let gated = analyze(&mut probe(), &snapshot_json());
    let gated_name = action_at(&gated, "dom:#rep").expect("offered");
    let gated_tier = gated["actions"][&gated_name]["reversibility"].clone();
    // Right after the capture nspd re-gated, the page relabels its control; the content
    // script's newest capture sees the new label (and so would its own comparison).
    eval("document.getElementById('rep').textContent = 'Delete report forever'");
    let newest = analyze(&mut probe(), &snapshot_json());
    let name = action_at(&newest, "dom:#rep").expect("offered");
    let expect = serde_json::json!({"tier": newest["actions"][&name]["reversibility"], "labels": ["Archive report"]});
    let out = dispatch(
        &format!("{{action: {name:?}, parameters: {{}}, expect: {expect}}}"),
        &newest,
    )
    .await;
    assert_eq!(out["code"], "target_changed", "{out}");
    assert_eq!(log(), "");
    // A tier stricter than the one the gate allowed is refused too.
    let expect = serde_json::json!({"tier": gated_tier, "labels": ["Delete report forever"]});
    if gated_tier != newest["actions"][&name]["reversibility"] {
        let out = dispatch(
            &format!("{{action: {name:?}, parameters: {{}}, expect: {expect}}}"),
            &newest,
        )
        .await;
        assert_eq!(out["code"], "target_changed", "{out}");
        assert_eq!(log(), "");
    }
    // What the gate saw is what is there: it runs.
    let expect = serde_json::json!({"tier": newest["actions"][&name]["reversibility"], "labels": ["Delete report forever"]});
    let out = dispatch(
        &format!("{{action: {name:?}, parameters: {{}}, expect: {expect}}}"),
        &newest,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "clicked Delete report forever");
}

#[wasm_bindgen_test]
async fn a_submit_relabelled_while_the_fields_fill_is_refused_before_submitting() {
    mount_in_view(
        r##"<form id="f" method="post" action="/drafts" aria-label="Draft">
          <label>To <input name="to" id="to"></label>
          <button type="submit" id="sub">Save draft</button>
        </form><p id="log"></p>"##,
    );
    eval(
        "(() => { const sub = document.getElementById('sub'); \
         document.getElementById('to').addEventListener('input', () => { sub.textContent = 'Send to all contacts'; }); \
         document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault(); document.getElementById('log').textContent = 'submitted as ' + sub.textContent; }); })()",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let name = action_at(&capture, "dom:#sub").expect("the form's action");
    let labels: Vec<Value> = capture["explain"][&name]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].clone())
        .collect();
    assert_eq!(labels[0], "Save draft", "{labels:?}");
    let expect =
        serde_json::json!({"tier": capture["actions"][&name]["reversibility"], "labels": labels});
    let out = dispatch(
        &format!("{{action: {name:?}, parameters: {{to: 'team@example.com'}}, expect: {expect}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_changed", "{out}");
    // The fields were filled; the relabelled submit was not pressed.
    assert_eq!(
        eval_string("document.getElementById('to').value"),
        "team@example.com"
    );
    assert_eq!(log(), "");
}

#[wasm_bindgen_test]
async fn a_row_other_than_the_gated_one_is_refused() {
    mount_in_view(
        r##"<ul id="rows">
          <li data-item-id="r1"><span class="name">Invoice March</span> <button type="button">Archive</button></li>
          <li data-item-id="r2"><span class="name">Invoice April</span> <button type="button">Archive</button></li>
        </ul><p id="log"></p>"##,
    );
    eval("for (const b of document.querySelectorAll('#rows button')) b.addEventListener('click', () => { document.getElementById('log').textContent = 'archived ' + b.closest('li').dataset.itemId; })");
    let capture = analyze(&mut probe(), &snapshot_json());
    let name = capture["actions"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, a)| a["internal_target"].as_str().unwrap().starts_with("row:"))
        .map(|(n, _)| n.clone())
        .expect("a row action");
    let key = capture["actions"][&name]["parameters"][0]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    // The gate saw the March row under this key; the page now has April there.
    let wrong =
        serde_json::json!({"labels": ["Archive", "Archive"], "row": ["Invoice March", "Archive"]});
    let out = dispatch(
        &format!("{{action: {name:?}, parameters: {{{key}: 'r2'}}, expect: {wrong}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_changed", "{out}");
    assert_eq!(log(), "");
    let right =
        serde_json::json!({"labels": ["Archive", "Archive"], "row": ["Invoice April", "Archive"]});
    let out = dispatch(
        &format!("{{action: {name:?}, parameters: {{{key}: 'r2'}}, expect: {right}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "archived r2");
}

#[wasm_bindgen_test]
async fn a_builtin_runs_only_on_the_element_the_gate_resolved() {
    mount_in_view(
        r##"<a href="#h" id="help">Help</a> <button type="button" id="del">Delete</button>
        <p id="log"></p>"##,
    );
    eval("document.getElementById('del').addEventListener('click', (e) => { document.getElementById('log').textContent = 'deleted'; })");
    let capture = analyze(&mut probe(), &snapshot_json());
    // The gate resolved "#help ~ button" to the Delete button: it runs only on that.
    let seen: Value = serde_json::from_str(&eval_string(
        "JSON.stringify(NspDispatch.describe('#help ~ button', null, null))",
    ))
    .unwrap();
    assert_eq!(seen["count"], 1, "{seen}");
    assert_eq!(seen["element"]["label"], "Delete", "{seen}");
    let expect = serde_json::json!({"element": {"tag": "button", "label": "Help"}});
    let out = dispatch(
        &format!(
            "{{action: 'click', parameters: {{selector: '#help ~ button'}}, expect: {expect}}}"
        ),
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_changed", "{out}");
    assert_eq!(log(), "");
    // A selector that now finds two elements is refused.
    eval("document.getElementById('del').insertAdjacentHTML('afterend', '<button type=\"button\">Delete</button>')");
    let expect = serde_json::json!({"element": {"tag": "button", "label": "Delete"}});
    let out = dispatch(
        &format!(
            "{{action: 'click', parameters: {{selector: '#help ~ button'}}, expect: {expect}}}"
        ),
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_changed", "{out}");
    assert_eq!(log(), "");
    let out = dispatch(
        &format!("{{action: 'click', parameters: {{selector: '#del'}}, expect: {expect}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "deleted");
}

#[wasm_bindgen_test]
fn resolve_answers_what_the_selector_finds() {
    mount_in_view(
        r##"<form id="login" method="post" action="/session" aria-label="Sign in">
          <label>Password <input type="password" id="pw" name="pw"></label>
          <button type="submit" id="go">Sign in</button>
        </form>
        <button type="button" id="ghost" style="visibility:hidden">Wipe</button>"##,
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let form_action = action_at(&capture, "dom:#go").expect("the form's action");
    let describe = |sel: &str| -> Value {
        let capture = serde_json::to_string(&capture).unwrap();
        serde_json::from_str(&eval_string(&format!(
            "JSON.stringify(NspDispatch.describe({sel:?}, {capture}, null))"
        )))
        .unwrap()
    };
    let go = describe("#go");
    assert_eq!(go["count"], 1);
    assert_eq!(go["element"]["tag"], "button");
    assert_eq!(go["element"]["label"], "Sign in");
    assert_eq!(go["element"]["perceivable"], true);
    assert_eq!(go["element"]["secret"], false);
    assert_eq!(go["element"]["actions"], serde_json::json!([form_action]));
    // A field inside the form belongs to the form's action; a password is secret.
    let pw = describe("#login input");
    assert_eq!(pw["element"]["secret"], true, "{pw}");
    assert_eq!(pw["element"]["label"], "", "{pw}");
    assert!(
        pw["element"]["actions"]
            .as_array()
            .unwrap()
            .contains(&Value::String(form_action.clone())),
        "{pw}"
    );
    let ghost = describe("#ghost");
    assert_eq!(ghost["element"]["perceivable"], false, "{ghost}");
    assert_eq!(
        ghost["element"]["actions"],
        serde_json::json!([]),
        "{ghost}"
    );
    let many = describe("button");
    assert_eq!(many["count"], 2, "{many}");
    assert!(many.get("element").is_none(), "{many}");
    let bad = describe("##");
    assert_eq!(bad["count"], 0);
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("not a valid selector"),
        "{bad}"
    );
}

#[wasm_bindgen_test]
fn a_field_that_was_a_password_stays_secret() {
    mount_in_view(
        r##"<form id="login" method="post" action="/session">
          <input type="password" id="pw" aria-label="Password" placeholder="Your password" data-nsp-value="s3cr3t-marker">
          <button type="submit">Sign in</button>
        </form>"##,
    );
    let first = snapshot_json();
    assert!(
        !first.contains("s3cr3t-marker"),
        "data-nsp-value of a password left the page"
    );
    // "Show password": the page turns the field into text and mirrors the value into
    // every attribute it could.
    eval(
        "(() => { const pw = document.getElementById('pw'); pw.value = 'hunter2-value'; pw.type = 'text'; \
         for (const a of ['aria-label', 'title', 'placeholder', 'data-nsp-value', 'data-nsp-label', 'class']) pw.setAttribute(a, 'hunter2-value'); \
         const l = document.createElement('label'); l.htmlFor = 'pw'; l.textContent = 'hunter2-value'; pw.before(l); })()",
    );
    let snap = snapshot_json();
    assert!(!snap.contains("hunter2"), "the value left the page: {snap}");
    let capture = analyze(&mut probe(), &snap);
    assert!(!capture.to_string().contains("hunter2"));
    assert_eq!(
        eval("NspExtract.isSecret(document.getElementById('pw'))").as_bool(),
        Some(true)
    );
    // A field the content script saw change away from password (its mutation observer)
    // is secret before any capture read it.
    eval("(() => { const f = document.createElement('input'); f.id = 'was'; document.getElementById('login').append(f); NspExtract.rememberPassword(f); })()");
    assert_eq!(
        eval("NspExtract.isSecret(document.getElementById('was'))").as_bool(),
        Some(true)
    );
}

/// A list rendered by position puts a newcomer into the first row while the pointer goes
/// down: the click would land on a message the agent never saw.
#[wasm_bindgen_test]
async fn a_row_rewritten_while_the_pointer_goes_down_is_not_clicked() {
    mount_in_view(
        r##"<ul id="msgs">
          <li><span class="from">Billing</span> <span class="subject">Invoice</span> <button type="button" class="archive" data-nsp-action="archive_message" data-nsp-reversibility="reversible_write">Archive</button></li>
        </ul><p id="log"></p>"##,
    );
    eval(
        "(() => { const li = document.querySelector('#msgs li'); \
         li.addEventListener('mousedown', () => { li.querySelector('.from').textContent = 'Team'; }, true); \
         li.querySelector('button').addEventListener('click', () => { document.getElementById('log').textContent = 'archived ' + li.querySelector('.from').textContent; }); })()",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let name = "archive_message";
    assert!(
        capture["actions"][name].is_object(),
        "the declared action: {}",
        capture["actions"]
    );
    let out = dispatch(&format!("{{action: {name:?}, parameters: {{}}}}"), &capture).await;
    assert_eq!(out["code"], "target_changed", "{out}");
    assert_eq!(log(), "");
}

/// A link that sits off the page until keyboard focus brings it on screen (as skip links
/// do; a skip link itself is no action): offered, and the dispatcher focuses it for
/// real before clicking. A rule that only restyles the focused control (`color`, an
/// `outline` as most sites give every focused link) brings nothing on screen: the
/// control is not offered, and a click on it is refused.
#[wasm_bindgen_test]
async fn a_control_keyboard_focus_reveals_is_focused_then_clicked() {
    mount_in_view(
        r##"<style>
          .skip { position: absolute; top: -999px; left: 0 }
          .skip:focus { top: 0 }
          .fake { position: absolute; top: -999px; left: 0 }
          .fake:focus { color: red }
          a:focus { outline: dotted thin }
          .panel { visibility: hidden; position: absolute; left: -200px }
        </style>
        <div class="panel"><a id="sub" href="/reports/locked">Locked pages</a></div>
        <a class="skip" id="skip" href="/help/keys">Keyboard shortcuts</a>
        <a class="skip" id="to-main" href="#log">Skip to main content</a>
        <button type="button" class="fake" id="fake">Wipe everything</button>
        <p id="log"></p>"##,
    );
    eval(
        "for (const id of ['skip', 'fake']) document.getElementById(id).addEventListener('click', (e) => { e.preventDefault(); document.getElementById('log').textContent = id; })",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    // A skip link only moves the reading position: no action (issue 20).
    assert!(
        action_at(&capture, "dom:#to-main").is_none(),
        "{}",
        capture["actions"]
    );
    let skip = action_at(&capture, "dom:#skip")
        .unwrap_or_else(|| panic!("the focus-revealed link is offered: {}", capture["actions"]));
    let out = dispatch(&format!("{{action: {skip:?}, parameters: {{}}}}"), &capture).await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "skip");
    eval("document.getElementById('log').textContent = ''; document.activeElement.blur()");
    assert!(
        action_at(&capture, "dom:#fake").is_none(),
        "restyled on focus, not revealed: {}",
        capture["actions"]
    );
    // A closed flyout's link (visibility:hidden, off to the left) under a page-wide
    // `a:focus { outline }`: hidden.
    assert!(
        action_at(&capture, "dom:#sub").is_none(),
        "hidden, whatever outline focus would draw: {}",
        capture["actions"]
    );
    let out = dispatch(
        "{action: 'click', parameters: {selector: '#fake'}}",
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "");
}

/// The checkbox hack: CSS-only switches, tabs and drawers leave their checkbox or radio
/// button unrendered (`display: none`) and style its `<label>`, which a person clicks.
/// Such a box is offered when a label of it is in sight, and the dispatcher checks it
/// through that label (a click on the box toggles it, as the label's does). Without a
/// visible label it stays hidden, and so does a text field hidden that way (a label
/// focuses a field only when the field is rendered).
#[wasm_bindgen_test]
async fn a_checkbox_shown_only_by_its_label_is_offered_and_toggled() {
    mount_in_view(
        r##"<style>
          .switch-box { display: none }
          .switch { display: inline-block; padding: 4px 10px; border: 1px solid #888 }
          .switch-box:checked + .switch { background: #333; color: #fff }
        </style>
        <div>
          <input type="checkbox" class="switch-box" id="digest"><label class="switch" for="digest">Weekly digest</label>
        </div>
        <div>
          <input type="checkbox" class="switch-box" id="secret"><label class="switch" for="secret" style="visibility: hidden">Share my data</label>
        </div>
        <div>
          <label for="note">Note</label><input id="note" name="note" style="display: none">
        </div>
        <p id="log"></p>"##,
    );
    eval(
        "for (const id of ['digest', 'secret']) document.getElementById(id).addEventListener('change', (e) => { document.getElementById('log').textContent = id + ':' + e.target.checked; })",
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let digest = action_at(&capture, "dom:#digest").unwrap_or_else(|| {
        panic!(
            "the switch a person sees is offered: {}",
            capture["actions"]
        )
    });
    assert!(
        action_at(&capture, "dom:#secret").is_none(),
        "its label is hidden too: {}",
        capture["actions"]
    );
    assert!(
        action_at(&capture, "dom:#note").is_none(),
        "a text field is not reached through its label: {}",
        capture["actions"]
    );
    let params = &capture["actions"][&digest]["parameters"];
    assert_eq!(params[0]["type_name"], "boolean", "{digest}: {params}");
    let key = params[0]["name"].as_str().unwrap();
    let out = dispatch(
        &format!("{{action: {digest:?}, parameters: {{{key:?}: true}}}}"),
        &capture,
    )
    .await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "digest:true");
    assert_eq!(
        eval_string("String(document.getElementById('digest').checked)"),
        "true"
    );
    // The hidden-label box, asked for with a selector anyway: refused, untouched.
    let out = dispatch(
        "{action: 'click', parameters: {selector: '#secret'}}",
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "digest:true");
}

/// Radio buttons drawn by their labels (a star rating, a segmented control) are a form's
/// field: its submit takes one of those a person can pick, offered by what the labels
/// say where the values ("1", "2", "3") name nothing.
#[wasm_bindgen_test]
fn radio_buttons_shown_only_by_their_labels_are_a_forms_field() {
    mount_in_view(
        r##"<style>.stars input { display: none } .stars label { padding: 2px 6px; border: 1px solid #999 }</style>
        <form id="review" method="post" action="/reviews" aria-label="Review">
          <label>Comment <input name="comment"></label>
          <fieldset class="stars"><legend>Rating</legend>
            <input type="radio" name="rating" value="1" id="r1"><label for="r1">1 star</label>
            <input type="radio" name="rating" value="2" id="r2"><label for="r2">2 stars</label>
            <input type="radio" name="rating" value="3" id="r3"><label for="r3">3 stars</label>
          </fieldset>
          <button type="submit">Post review</button>
        </form>"##,
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    let (_, submit) = capture["actions"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, a)| {
            a["parameters"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p["name"] == "comment"))
        })
        .unwrap_or_else(|| panic!("the form is an action: {}", capture["actions"]));
    let rating = submit["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "rating")
        .unwrap_or_else(|| panic!("the stars are a field: {submit}"));
    assert_eq!(
        rating["allowed_values"],
        serde_json::json!(["1 star", "2 stars", "3 stars"]),
        "{rating}"
    );
}

/// An app shell scrolls a pane (`overflow: auto`) instead of the document: what lies
/// past the pane's fold is outside the document's scrollable area, or where the
/// viewport shows something else, yet a person reaches it by scrolling the pane. Such
/// controls are offered and run (the dispatcher scrolls the pane); one placed before the
/// pane's start, where no scrolling reaches, in a pane of no height, or past the edge
/// of a box that clips (`overflow: hidden`), is not.
#[wasm_bindgen_test]
async fn controls_below_a_scrolling_panes_fold_are_offered_and_run() {
    mount_in_view(
        r##"<div style="display: flex; height: 220px">
          <div id="pane" style="flex: 1; overflow-y: auto; position: relative">
            <div style="height: 300px">Drafts</div>
            <button type="button" id="near">Archive draft</button>
            <div style="height: 3000px"></div>
            <button type="button" id="deep">Publish draft</button>
            <button type="button" id="before" style="position: absolute; top: -400px; left: 0">Erase drafts</button>
          </div>
          <div style="height: 0; overflow: auto"><div style="height: 40px"></div><button type="button" id="flat">Drop all</button></div>
          <div style="height: 100px; overflow: hidden"><div style="height: 3000px"></div><button type="button" id="clipped">Empty trash</button></div>
        </div>
        <p id="log"></p>"##,
    );
    eval(
        "for (const b of document.querySelectorAll('#fixture button')) b.addEventListener('click', () => { document.getElementById('log').textContent = b.id; })",
    );
    // `near` sits in the viewport below the pane's view (what the viewport shows there
    // is the page under the pane); `deep` is past the document's end.
    eval("document.getElementById('pane').scrollTop = 0");
    assert_eq!(
        eval_string(
            "(() => { const r = document.getElementById('near').getBoundingClientRect(); \
             return String(r.top > 220 && r.bottom < innerHeight); })()"
        ),
        "true",
        "near: in the viewport, below the pane's view"
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    for id in ["near", "deep"] {
        assert!(
            action_at(&capture, &format!("dom:#{id}")).is_some(),
            "{id}: scrolling the pane shows it: {}",
            capture["actions"]
        );
    }
    for id in ["before", "flat", "clipped"] {
        assert!(
            action_at(&capture, &format!("dom:#{id}")).is_none(),
            "{id}: no scrolling shows it: {}",
            capture["actions"]
        );
    }
    let deep = action_at(&capture, "dom:#deep").unwrap();
    let out = dispatch(&format!("{{action: {deep:?}, parameters: {{}}}}"), &capture).await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "deep");
    eval("document.getElementById('pane').scrollTop = 0");
    let near = action_at(&capture, "dom:#near").unwrap();
    let out = dispatch(&format!("{{action: {near:?}, parameters: {{}}}}"), &capture).await;
    assert_eq!(out["status"], "done", "{out}");
    assert_eq!(log(), "near");
    let out = dispatch(
        "{action: 'click', parameters: {selector: '#before'}}",
        &capture,
    )
    .await;
    assert_eq!(out["code"], "target_hidden", "{out}");
    assert_eq!(log(), "near");
}

/// Bootstrap's data API acts on a click through one listener on the document, which no
/// element-level shim sees: an element whose `data-toggle` (`data-bs-toggle`) says it
/// opens a modal, a dropdown or a collapse is a control, and one that opens something
/// (not a tab or a toggle button) reads: the dialog it opens asks before anything is
/// done. The same element without the attribute is no control.
#[wasm_bindgen_test]
fn bootstrap_data_api_toggles_are_controls_that_open_something() {
    mount_in_view(
        r##"<div class="btn btn-default" id="restart" data-toggle="modal" data-target="#dlg">Restart</div>
        <span class="menu" id="more" data-bs-toggle="dropdown">More</span>
        <div class="btn btn-default" id="plain">Restart</div>
        <div class="modal" id="dlg" style="display: none">Restart the server?</div>"##,
    );
    let capture = analyze(&mut probe(), &snapshot_json());
    for id in ["restart", "more"] {
        let name = action_at(&capture, &format!("dom:#{id}"))
            .unwrap_or_else(|| panic!("{id} is a control: {}", capture["actions"]));
        assert_eq!(
            capture["actions"][&name]["reversibility"], "read",
            "{id}: {}",
            capture["explain"][&name]
        );
    }
    assert!(
        action_at(&capture, "dom:#plain").is_none(),
        "{}",
        capture["actions"]
    );
}

/// React listens for clicks on its root container, and a portal renders a modal into a
/// container of no size of its own (its content is `position: fixed`): both are
/// elements with click listeners, judged as controls, and both fail as such (the root
/// is covered by the modal, the portal has no size). What they hold is judged on its
/// own: the modal's buttons are offered, the page's buttons under the modal are not.
#[wasm_bindgen_test]
fn a_portal_modal_is_offered_and_the_page_under_it_is_not() {
    mount_in_view(
        r##"<div id="app-root"><h2>Models</h2><button type="button" id="create">Create model</button></div>
        <div id="portal"><div class="modal-root"><div style="position: fixed; inset: 0; background: rgba(0,0,0,0.4); z-index: 10">
          <div role="dialog" aria-label="What's new" style="background: #fff; margin: 40px; padding: 12px">
            <p>Model aliases are here.</p>
            <button type="button" id="try">Try it now</button>
          </div>
        </div></div></div>"##,
    );
    eval(
        "for (const id of ['app-root', 'portal']) { const el = document.getElementById(id); el.addEventListener('click', () => {}); }",
    );
    // The page-world shim reports elements with click listeners; the test marks them
    // as the content script does before an extraction.
    let capture = analyze(
        &mut probe(),
        &eval_string(
            "(() => { const ex = new NspExtract.Extractor(document); \
             for (const id of ['app-root', 'portal']) ex.clickable.add(document.getElementById(id)); \
             ex.clickableCount = 2; return JSON.stringify(ex.full()); })()",
        ),
    );
    assert!(
        action_at(&capture, "dom:#try").is_some(),
        "the modal's button: {}",
        capture["actions"]
    );
    assert!(
        action_at(&capture, "dom:#create").is_none(),
        "under the modal: {}",
        capture["actions"]
    );
}
