// dispatch.js — the probe's hands. It exists because an action the daemon allowed must
// be carried out the way a person would: fill each field the way framework-controlled
// inputs expect (native value setter, then input/change events), then click the bound
// control or submit its form. Right before each event it fires it checks, in the same
// task as the event (so no page script runs in between), that the target is what the
// gate saw (`expect`: the labels nspd's gate read, the named row's cells, the element a
// builtin's selector found) and what the newest capture describes, and that a person
// could do the same: the element is on the page, perceivable (extract.js' rule), enabled
// and the topmost element at its click point once scrolled into view (the checks follow
// the idea of Playwright's actionability checks). If not, it refuses (`target_changed`,
// `target_hidden`) rather than acting on something else.
//
// A classic script defining `NspDispatch`, loaded before content.js. Every outcome is
// `{status: "done", value, dialogs?}` or `{status: "failed", code, message}` with the
// codes of the protocol's DispatchFailure.
"use strict";

(() => {
  if (globalThis.NspDispatch) return;

  // A content script cannot import the generated contract.js, so these three copy the
  // protocol's lists (nsp_protocol::builtins::NAMES, channel::DispatchFailure,
  // Reversibility); protocol/tests/extension_contract.rs fails when they disagree.
  const BUILTINS = new Set(["click", "type", "clear", "focus", "scroll", "press_key", "navigate", "read_text"]);
  // The protocol's DispatchFailure codes a page-side step may report.
  const FAILURE_CODES = new Set(["target_not_found", "target_changed", "target_hidden", "threw", "bad_parameters", "unsupported", "dialog_declined"]);
  /** @type {Record<string, number>} */
  const TIER_RANK = { read: 0, reversible_write: 1, irreversible_write: 2 };
  const READ_TEXT_LIMIT = 10000;
  const FIELD_TAGS = new Set(["input", "select", "textarea"]);

  class Failure extends Error {
    /** @param {string} code @param {string} message */
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }
  /** @type {(code: string, message: string) => never} */
  const fail = (code, message) => {
    throw new Failure(code, message);
  };

  // --- finding elements ------------------------------------------------------------------

  // Selectors may step into a shadow root or a same-origin iframe with " >>> "; a
  // segment starting with "> " is anchored at the top of that shadow root.
  /** @param {Document | ShadowRoot} root @param {string} seg @returns {Element[]} */
  function queryIn(root, seg) {
    if (seg.startsWith("> ")) {
      const rest = seg.slice(2);
      const cut = rest.indexOf(" > ");
      const first = cut < 0 ? rest : rest.slice(0, cut);
      const tail = cut < 0 ? null : rest.slice(cut + 3);
      const tops = Array.from(root.children).filter((c) => c.matches(first));
      if (!tail) return tops;
      /** @type {Element[]} */
      const out = [];
      for (const t of tops) out.push(...t.querySelectorAll(":scope > " + tail));
      return out;
    }
    return Array.from(root.querySelectorAll(seg));
  }

  /** @param {string} path @param {Document} [doc] @returns {Element[]} */
  function resolveAll(path, doc) {
    /** @type {(Document | ShadowRoot)[]} */
    let roots = [doc || document];
    const segs = String(path).split(" >>> ");
    for (let k = 0; k < segs.length; k++) {
      const seg = segs[k].trim();
      if (!seg) return [];
      /** @type {Element[]} */
      const found = [];
      for (const root of roots) {
        try {
          found.push(...queryIn(root, seg));
        } catch (err) {
          fail("bad_parameters", `${JSON.stringify(String(path).slice(0, 200))} is not a valid selector: ${err.message}`);
        }
      }
      if (k === segs.length - 1) return found;
      roots = [];
      for (const el of found) {
        if (el.shadowRoot) roots.push(el.shadowRoot);
        else if (el.localName === "iframe" || el.localName === "frame") {
          try {
            const frame = /** @type {HTMLIFrameElement} */ (el);
            if (frame.contentDocument) roots.push(frame.contentDocument);
          } catch (_) {
            // cross-origin frame: unreachable, like a missing element
          }
        }
      }
    }
    return [];
  }

  /** @param {string} path */
  function resolve(path) {
    return resolveAll(path)[0] || null;
  }

  /** @param {string | null | undefined} text */
  function norm(text) {
    return globalThis.NspExtract ? globalThis.NspExtract.norm(text || "", 200) : String(text || "").replace(/\s+/g, " ").trim().slice(0, 200);
  }

  // The label the probe saw, by its own rule (see extract.js, "the label the probe
  // sees"): controlLabel is what a row action's label values are; an explanation lists
  // its elements with explainLabel (clipped to 80 characters). Compared exactly: both
  // sides read the element the same way (an element that is no control in one of two
  // ways, see sameLabel), so any difference is a change of the page.
  /** @param {PageElement} el */
  function labelOf(el) {
    return globalThis.NspExtract.controlLabel(el);
  }

  /** @param {PageElement} el */
  function listedLabel(el) {
    return globalThis.NspExtract.explainLabel(el);
  }

  // --- what a person could do --------------------------------------------------------------

  // The running dispatch: the bridge (for dialogs) and the element the action's own
  // click, key or submit went to.
  /** @type {{ page: NspPage, target: Element | null } | null} */
  let session = null;

  const say = (/** @type {Element} */ el) => `<${el.localName}> ${JSON.stringify(listedLabel(el))}`;

  /** @param {Element} el */
  function isDisabled(el) {
    return el.getAttribute("aria-disabled") === "true" || (typeof el.matches === "function" && el.matches(":disabled"));
  }

  // Whether (x, y) is inside its window's viewport.
  /** @param {Element} el */
  function inView(el) {
    const r = el.getBoundingClientRect();
    const win = el.ownerDocument.defaultView;
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    return win !== null && x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight;
  }

  // Scrolls `el` into view as a person would before acting on it: the page, centring
  // it, when it is outside the viewport; else only as far as a pane around it (an app
  // shell's scrolling region) needs to show it, which does nothing when it shows.
  /** @param {Element} el */
  function bringIntoView(el) {
    if (!inView(el)) el.scrollIntoView({ block: "center", inline: "nearest" });
    else el.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  // Hovers `el` the way a person's pointer arriving at its centre does: pointerover and
  // mouseover on what is there, pointerenter and mouseenter on it and each ancestor
  // entered (not <html>, <body>). The page's hover handlers may reveal a row's actions.
  /** @param {Element} el a connected element (its document has a window) */
  function hoverOver(el) {
    const r = el.getBoundingClientRect();
    const doc = el.ownerDocument;
    const view = /** @type {Window & typeof globalThis} */ (doc.defaultView);
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const at = NspExtract.hitAt(doc, x, y) || el;
    const init = { bubbles: true, cancelable: true, composed: true, view, clientX: x, clientY: y };
    const PointerCtor = view.PointerEvent || MouseEvent;
    at.dispatchEvent(new PointerCtor("pointerover", { ...init, pointerId: 1, isPrimary: true }));
    at.dispatchEvent(new MouseEvent("mouseover", init));
    const chain = [];
    for (let a = /** @type {Element | null} */ (at); a && a.localName !== "body" && a.localName !== "html"; a = a.parentElement || (a.parentNode && /** @type {FlatNode} */ (a.parentNode).host) || null) chain.unshift(a);
    const enter = { ...init, bubbles: false, cancelable: false, composed: false };
    for (const a of chain) {
      a.dispatchEvent(new PointerCtor("pointerenter", { ...enter, pointerId: 1, isPrimary: true }));
      a.dispatchEvent(new MouseEvent("mouseenter", enter));
    }
  }

  // A control its row shows on hover (the page's pointer handlers add a class) with an
  // animated reveal (a fade-in): hovered before the checks and waited for like any motion
  // (see still), as a person's pointer rests on the row until the control has appeared.
  // Decides nothing: actionable, right before the event, hovers again and checks.
  /** @param {Target} el */
  async function hoverFirst(el) {
    if (!el.isConnected) return;
    bringIntoView(NspExtract.shownAs(el) || el);
    const shows = () => !/transparent/.test(NspExtract.perceive(el, null, { strict: true, reveal: "none" }));
    if (shows()) return;
    hoverOver(el);
    await still();
    // A fade a script steps through the style's opacity (jQuery's `fadeTo`: pyLoad's
    // package buttons) is no animation the document lists: waited for until the
    // control shows, at most MOTION_MS; the checks that follow decide either way.
    const deadline = performance.now() + MOTION_MS;
    while (!shows() && el.isConnected && performance.now() < deadline) await settle();
  }

  // Refuses (`target_hidden`) unless a person could act on `el` now: it is on the page,
  // perceivable by extract.js' rule, enabled, and, scrolled into view, the topmost
  // element at its centre (or inside it, or a label of its). A control its row shows
  // on hover is hovered first and checked again (see hoverRow in extract.js for what is
  // accepted). `read`: only perceivable (read_text).
  /** @param {Target} el @param {boolean} read */
  function actionable(el, read) {
    if (!el.isConnected) fail("target_hidden", `${say(el)} is no longer on the page.`);
    // A checkbox the page does not render is seen, and checked, through its label.
    const box = NspExtract.shownAs(el) || el;
    if (!read) bringIntoView(box);
    const page = session && session.page;
    const hover = read && page && typeof page.hover === "function" ? page.hover() : null;
    let why = NspExtract.perceive(el, hover, { strict: !read, reveal: read ? "any" : "none" });
    if (why && !read && /transparent/.test(why)) {
      hoverOver(el);
      why = NspExtract.perceive(el, null, { strict: true, reveal: "css" });
    }
    // A control keyboard focus reveals (a skip link): focused for real, as a keyboard
    // user would, then checked again by the full rule.
    if (why && !read && /transparent|size|off the page|clipped|covers/.test(why) && el.tabIndex >= 0 && typeof el.focus === "function") {
      el.focus();
      if (!inView(el)) el.scrollIntoView({ block: "center", inline: "nearest" });
      why = NspExtract.perceive(el, null, { strict: true, reveal: "none" });
    }
    if (why) fail("target_hidden", `A person cannot see or reach ${say(el)}: ${why}.`);
    if (!read && isDisabled(el)) fail("target_hidden", `${say(el)} is disabled.`);
  }

  // The live element against the label the gate saw (`want`; null: the gate sent none)
  // and the one the newest capture lists (`listed`). Empty on a text field: the probe
  // lists fields without their text, which is their value.
  /**
   * @param {Target} el
   * @param {string | null | undefined} want
   * @param {string} listed
   * @param {string} what
   */
  function sameLabel(el, want, listed, what) {
    const live = listedLabel(el);
    const textField = isTextField(el);
    // An element that is no control was read as records read such elements (see
    // plainLabel): either reading of it now will do, never a reading of other words.
    let plain = /** @type {string | null} */ (null);
    const says = (/** @type {string} */ label) => label === live || label === (plain === null ? (plain = globalThis.NspExtract.plainLabel(el)) : plain);
    if (listed && !says(listed)) fail("target_changed", `${what} was bound to ${JSON.stringify(listed)}, but the element now says ${JSON.stringify(live)}.`);
    if (want !== null && want !== undefined && !(want === "" && textField) && !says(want)) {
      fail("target_changed", `${what} was allowed for ${JSON.stringify(want)}, but the element now says ${JSON.stringify(live)}; read the state again.`);
    }
  }

  // --- acting like a person ---------------------------------------------------------------

  // Runs the action's trigger on `el`: the only moment a confirm() it raises may be
  // accepted (when nspd allowed it), because only then is it this action's question.
  /**
   * @template T
   * @param {Element} el
   * @param {() => T} fn
   * @returns {T}
   */
  function trigger(el, fn) {
    if (session) session.target = el;
    const page = session && session.page;
    return page && typeof page.trigger === "function" ? page.trigger(fn) : fn();
  }

  /** @param {Element} el @returns {(this: Element, value: string) => void} */
  function valueSetter(el) {
    const proto = el.localName === "textarea" ? HTMLTextAreaElement.prototype
      : el.localName === "select" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    // These prototypes all have a value setter.
    return /** @type {(this: Element, value: string) => void} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, "value")).set);
  }

  /** @param {Element} el @param {string} type */
  function fire(el, type) {
    el.dispatchEvent(new Event(type, { bubbles: true, composed: true }));
  }

  // Sets a field's value so frameworks notice: the native setter (React keeps its own
  // copy of the last value and compares), then input and change.
  /** @param {Target} el @param {string} value */
  function setValue(el, value) {
    const editor = el.localName === "textarea" ? NspExtract.codeMirrorOf(el) : null;
    if (editor) {
      typeIntoCodeMirror(editor, value, false);
      return;
    }
    el.focus({ preventScroll: true });
    if (el.isContentEditable) {
      // A document with a window (the element is connected) has a selection.
      const sel = /** @type {Selection} */ (el.ownerDocument.getSelection());
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(range);
      const ok = value === "" ? el.ownerDocument.execCommand("delete") : el.ownerDocument.execCommand("insertText", false, value);
      if (!ok) {
        el.textContent = value;
        fire(el, "input");
      }
      return;
    }
    valueSetter(el).call(el, value);
    fire(el, "input");
    // A person's last key comes up after the text changed: widgets of the jQuery kind
    // read the field on keyup (bootstrap-datepicker parses the date then, and Shiny
    // reads its date only from the picker).
    if (el.localName !== "select") el.dispatchEvent(new KeyboardEvent("keyup", { key: value.slice(-1) || "Unidentified", bubbles: true, cancelable: true, composed: true }));
    fire(el, "change");
  }

  // Focuses `el` as a person's click or Tab does. A window without the focus (another
  // window in front, a headless browser) moves the focus without its event, which
  // widgets wait for (CodeMirror before it reads what is typed, Selectize before it
  // opens its dropdown): then the event is sent.
  /** @param {HTMLElement} el */
  function focusFor(el) {
    el.focus({ preventScroll: true });
    const doc = el.ownerDocument;
    if (doc.activeElement === el && !doc.hasFocus()) el.dispatchEvent(new FocusEvent("focus"));
  }

  // CodeMirror 5 (see codeMirrorOf in extract.js) takes text as a person's keys reach
  // it, through its own text area: focused, a key its keymap binds (select-all, which
  // replaces the text; with `append`, go-to-the-end, which adds to it), then the text
  // typed there (insertText fires the input event CodeMirror reads). A key it handles
  // itself, by its keymap (by key code): the browser does nothing with a script's key.
  // The lines it draws then must end with the text's (the cursor, at its end, is kept
  // in view), else the fill failed, and nothing after it (a press) runs.
  /** @param {HTMLElement} editor @param {string} value @param {boolean} append */
  function typeIntoCodeMirror(editor, value, append) {
    const input = /** @type {HTMLTextAreaElement} */ (NspExtract.codeMirrorInput(editor));
    focusFor(input);
    const [key, code] = append ? ["End", 35] : ["a", 65];
    const mac = /Mac|iPhone|iPad/.test(navigator.platform);
    const init = { key, keyCode: code, which: code, ctrlKey: !mac, metaKey: mac, bubbles: true, cancelable: true, composed: true };
    input.dispatchEvent(new KeyboardEvent("keydown", init));
    input.dispatchEvent(new KeyboardEvent("keyup", init));
    const doc = input.ownerDocument;
    if (value !== "") doc.execCommand("insertText", false, value);
    else if (input.value !== "") doc.execCommand("delete");
    const shown = NspExtract.codeMirrorLines(editor);
    const lines = value.split("\n");
    const at = lines.length - shown.length;
    const ok = append ? shown.join("\n").endsWith(value) : at >= 0 && shown.every((/** @type {string} */ l, /** @type {number} */ i) => lines[at + i] === l);
    if (!ok) fail("threw", `The page's editor did not take the text (it shows ${JSON.stringify(shown.slice(0, 3).join("\n").slice(0, 80))}); nothing was pressed after it.`);
  }

  // `guard`: the checks to run right before the pointer goes down and again right
  // before the click itself (the page's pointerdown and mousedown handlers run between).
  // `findRow`: how the element's row is found (a row action knows its rows exactly).
  /**
   * @param {Target} el
   * @param {(() => void) | null} guard
   * @param {(el: Element) => Element | null} [findRow]
   */
  function click(el, guard, findRow = rowOf) {
    const box = NspExtract.shownAs(el) || el;
    bringIntoView(box);
    if (guard) guard();
    // The row around the control, as it reads now: a page that rewrites it while the
    // pointer goes down (a new row rendered into the same elements) has the click land
    // on something other than what was checked.
    const row = findRow(el);
    const before = row ? rowText(row) : null;
    const rect = box.getBoundingClientRect();
    const shown = box.getClientRects().length > 0;
    const init = { bubbles: true, cancelable: true, composed: true, view: el.ownerDocument.defaultView, clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2, button: 0 };
    const PointerCtor = /** @type {Window & typeof globalThis} */ (el.ownerDocument.defaultView).PointerEvent || MouseEvent;
    el.dispatchEvent(new PointerCtor("pointerdown", { ...init, pointerId: 1, isPrimary: true }));
    el.dispatchEvent(new MouseEvent("mousedown", init));
    if (typeof el.focus === "function") el.focus({ preventScroll: true });
    el.dispatchEvent(new PointerCtor("pointerup", { ...init, pointerId: 1, isPrimary: true }));
    el.dispatchEvent(new MouseEvent("mouseup", init));
    // The page took the press and removed or hid the element (a menu that runs its item
    // on mouseup and closes, Selectize's dropdown choosing its option): the action
    // happened; a click now would go nowhere, and reporting "no longer on the page"
    // would tell the agent nothing ran.
    if (!el.isConnected || (shown && box.getClientRects().length === 0)) return;
    if (guard) guard();
    if (row && (findRow(el) !== row || rowText(row) !== before)) {
      fail("target_changed", `The row of ${say(el)} changed while the pointer went down on it; nothing was clicked.`);
    }
    el.click();
  }

  // The nearest row around an element (a list item, a table row, an ARIA row), or null.
  /** @param {Element} el */
  function rowOf(el) {
    return el.closest('li, tr, [role="row"], [role="listitem"], [role="option"], [role="treeitem"]');
  }

  /** @param {Element} row */
  function rowText(row) {
    return globalThis.NspExtract ? globalThis.NspExtract.norm(row.textContent || "", 1 << 16) : String(row.textContent || "");
  }

  /** @param {Target} el */
  function fieldKind(el) {
    if (el.isContentEditable) return "editable";
    if (NspExtract.isPicker(el)) return "picker";
    const tag = el.localName;
    if (tag === "select") return el.multiple ? "multiselect" : "select";
    if (tag === "textarea") return "text";
    if (tag === "input") {
      const t = (el.type || "text").toLowerCase();
      if (t === "checkbox") return "checkbox";
      if (t === "radio") return "radio";
      return "text";
    }
    const role = el.getAttribute("role") || "";
    if (role === "switch" || role === "checkbox") return "aria-checkbox";
    if (role === "slider") return "aria-slider";
    if (role === "radio") return "aria-radio";
    if (role === "listbox") return "listbox";
    if (role === "tablist") return "tablist";
    return "text";
  }

  // Whether a box's parameter value asks for it on.
  /** @param {unknown} value */
  function isOn(value) {
    return value === true || value === "true" || value === 1 || value === "on";
  }

  // `guard(target)`: the checks to run right before an event goes to `target`.
  /**
   * @param {Target} el
   * @param {string} name
   * @param {unknown} value
   * @param {(target: Target) => void} guard
   */
  function fill(el, name, value, guard) {
    const kind = fieldKind(el);
    // A refusal names the value, unless the field is secret (a card type select).
    const shown = (/** @type {unknown} */ v) => (FIELD_TAGS.has(el.localName) && NspExtract.isSecret(el) ? "the value given" : JSON.stringify(v));
    switch (kind) {
      case "checkbox":
      case "aria-checkbox": {
        if (Array.isArray(value)) {
          // A group of checkboxes sharing a name: check exactly the listed boxes, each
          // named by its value or by what its label says (the probe offers labels
          // where the values name nothing). An item naming no box, or two, is refused
          // before any box is clicked: a bulk action must not run on another set.
          const group = groupOf(el);
          /** @type {Set<Target>} */
          const picked = new Set();
          for (const item of value) {
            const want = String(item);
            const picks = group.filter((b) => b.value === want || norm(NspExtract.explainLabel(b)) === norm(want));
            if (picks.length > 1) fail("bad_parameters", `${name}: ${shown(item)} names more than one box.`);
            if (picks.length === 0) fail("bad_parameters", `${name}: ${shown(item)} is not one of ${JSON.stringify(group.map((b) => b.value))}.`);
            picked.add(picks[0]);
          }
          for (const box of group) {
            const want = picked.has(box);
            if (box.checked !== want) click(box, () => guard(box));
          }
          return;
        }
        const want = isOn(value);
        const now = kind === "checkbox" ? el.checked : el.getAttribute("aria-checked") === "true";
        if (now !== want) click(el, () => guard(el));
        return;
      }
      case "aria-radio": {
        // An ARIA radio button (Quasar's, Radix's) is chosen by a click. A click does not
        // clear one: choosing another option of its group does, so "off" is checked once
        // every field is filled (see run), and refused if the option is still chosen.
        if (isOn(value) && el.getAttribute("aria-checked") !== "true") click(el, () => guard(el));
        return;
      }
      case "radio": {
        // By its value, or by what its label says where the probe offers labels (the
        // values name nothing: Streamlit's "0", "1"); a value that picks two options
        // (one's label another's value) picks none.
        const group = groupOf(el);
        const want = String(value);
        const picks = group.filter((r) => r.value === want || norm(NspExtract.explainLabel(r)) === norm(want));
        const pick = picks.length === 1 ? picks[0] : null;
        if (picks.length > 1) fail("bad_parameters", `${name}: ${shown(value)} names more than one option.`);
        if (!pick) fail("bad_parameters", `${name}: ${shown(value)} is not one of ${JSON.stringify(group.map((r) => r.value))}.`);
        if (!pick.checked) click(pick, () => guard(pick));
        return;
      }
      case "select": {
        // An option's text (what the state offers when the page's values are ids), else
        // its value.
        const options = Array.from(/** @type {HTMLSelectElement} */ (el).options);
        const text = (/** @type {HTMLOptionElement} */ o) => norm(o.label || o.text || "");
        const pick = options.find((o) => text(o) === norm(String(value))) || options.find((o) => o.value === String(value));
        if (!pick) fail("bad_parameters", `${name}: ${shown(value)} is not one of the options ${JSON.stringify(options.slice(0, 50).map((o) => text(o) || o.value))}.`);
        guard(el);
        setValue(el, pick.value);
        return;
      }
      case "listbox": {
        // A custom select: a person clicks the option, and the page's own handler
        // (React state, a hidden input) records the choice. The probe offers the
        // options' texts; a value attribute or data-value is accepted too. The list is
        // what a person must be able to reach; its options may sit in a closed popup.
        const options = Array.from(/** @type {NodeListOf<HTMLElement>} */ (el.querySelectorAll('[role="option"]'))).filter((o) => o.closest('[role="listbox"]') === el);
        const want = norm(String(value));
        const pick = options.find((o) => norm(o.textContent) === want) || options.find((o) => (o.getAttribute("data-value") || o.getAttribute("value")) === String(value));
        if (!pick) fail("bad_parameters", `${name}: ${JSON.stringify(value)} is not one of the options ${JSON.stringify(options.slice(0, 50).map((o) => norm(o.textContent)))}.`);
        if (pick.getAttribute("aria-disabled") === "true") fail("bad_parameters", `${name}: the option ${JSON.stringify(want)} is disabled.`);
        if (pick.getAttribute("aria-selected") !== "true") click(pick, () => guard(el));
        return;
      }
      case "tablist": {
        // A tab bar (the probe's `select_tab`): a person clicks the tab by its label
        // (the probe's rule, controlLabel), among this bar's own tabs.
        const tabs = Array.from(/** @type {NodeListOf<HTMLElement>} */ (el.querySelectorAll('[role="tab"]'))).filter((t) => t.closest('[role="tablist"]') === el);
        const want = norm(String(value));
        const pick = tabs.find((t) => norm(labelOf(t)) === want) || tabs.find((t) => norm(t.textContent) === want);
        if (!pick) fail("bad_parameters", `${name}: ${JSON.stringify(value)} is not one of the tabs ${JSON.stringify(tabs.slice(0, 50).map((t) => norm(labelOf(t))))}.`);
        if (isDisabled(pick)) fail("bad_parameters", `${name}: the tab ${JSON.stringify(want)} is disabled.`);
        click(pick, () => guard(pick));
        return;
      }
      case "multiselect": {
        const want = (Array.isArray(value) ? value : [value]).map(String);
        guard(el);
        const wanted = want.map(norm);
        for (const o of /** @type {HTMLSelectElement} */ (el).options) o.selected = want.includes(o.value) || wanted.includes(norm(o.label || o.text || ""));
        fire(el, "input");
        fire(el, "change");
        return;
      }
      case "picker":
      case "aria-slider":
        // Chosen in its own list (choosePicked), moved by keys (slide): before fill.
        return;
      default:
        guard(el);
        // A read-only combobox takes no typing: its option is chosen (chooseTyped).
        if (choosesOption(el) && isReadOnly(el)) return;
        // Nothing else here takes a value but what one types into.
        if (!isTextField(el) && !el.isContentEditable) fail("bad_parameters", `${name}: ${say(el)} takes no typed value.`);
        setValue(el, value === null || value === undefined ? "" : typeof value === "string" ? value : String(value));
        if (el.localName === "input" && /** @type {HTMLInputElement} */ (el).type === "range") nudge(/** @type {HTMLInputElement} */ (el));
    }
  }

  // Refuses a value that picks no option of an open list, or two, or a disabled one
  // (`picks`: how many say it; `disabled`: the one that does is), naming the options.
  /** @param {string} pname @param {unknown} value @param {number} picks @param {boolean} disabled @param {string[]} seen @returns {never} */
  function refuseChoice(pname, value, picks, disabled, seen) {
    const why = picks > 1 ? "names more than one option" : picks && disabled ? "is a disabled option" : "is not one of the options";
    fail("bad_parameters", `${pname}: ${JSON.stringify(value)} ${why} ${JSON.stringify(seen)}; nothing was chosen.`);
  }

  // Clicks the option chosen in an open list, then closes the list (`close`); closed
  // too before a refusal under the pointer (the option changed, something covered it)
  // goes back.
  /** @param {Target} pick @param {(t: Target) => void} guard @param {() => Promise<void>} close */
  async function clickOption(pick, guard, close) {
    try {
      click(pick, () => guard(pick));
    } catch (err) {
      await close();
      throw err;
    }
    await settle();
    await still();
    await close();
  }

  // Whether `field` is a date input flatpickr draws, the box a person clicks: the
  // page's `input.flatpickr-input` (read-only), or the read-only box flatpickr shows in
  // its place (`altInput`) right after it, hidden, which holds the value it sends.
  /** @param {Target} field */
  function isFlatpickr(field) {
    if (field.localName !== "input") return false;
    if (field.classList.contains("flatpickr-input")) return /** @type {HTMLInputElement} */ (field).type !== "hidden";
    const before = field.previousElementSibling;
    return before !== null && before.localName === "input" && before.classList.contains("flatpickr-input") && /** @type {HTMLInputElement} */ (before).type === "hidden";
  }

  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  // How many months the calendar is moved, one arrow click each, at the most.
  const MONTH_STEPS = 240;

  // A date flatpickr draws, set as a person sets it (its input takes no typing): the
  // box clicked open, the calendar moved a month at a time (its arrows) to the date's
  // month, the day named as flatpickr names its days ("December 24, 2026") clicked. A
  // value that is no date (YYYY-MM-DD), a day the calendar does not offer or disables,
  // and a calendar whose days are named otherwise (another language) are refused; the
  // day must then be the one selected. Setting the input's value instead showed the
  // date while the app (Panel) stored none.
  /** @param {Target} box @param {string} pname @param {unknown} value @param {(t: Target) => void} guard */
  async function chooseDate(box, pname, value, guard) {
    const m = typeof value === "string" ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim()) : null;
    if (m === null || Number(m[2]) < 1 || Number(m[2]) > 12) fail("bad_parameters", `${pname}: give a date as YYYY-MM-DD.`);
    const [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
    const label = `${MONTHS[month]} ${day}, ${year}`;
    const root = /** @type {Document | ShadowRoot} */ (box.getRootNode());
    const opened = () => /** @type {HTMLElement | null} */ (root.querySelector(".flatpickr-calendar.open") || box.ownerDocument.querySelector(".flatpickr-calendar.open"));
    let cal = opened();
    if (cal === null) {
      // Checked before the pointer goes down; by the click itself the calendar has
      // opened on the focus (and may cover the box): then the click is the opening's.
      click(box, () => {
        if (opened() === null) guard(box);
      });
      await settle();
      cal = opened();
    }
    if (cal === null) fail("unsupported", `${pname}: ${say(box)} opened no calendar when clicked; nothing was chosen.`);
    // It fades in (an animation of its own class, which may not have started yet): a
    // person waits until it shows, at most MOTION_MS.
    for (const until = performance.now() + MOTION_MS; performance.now() < until && Number(getComputedStyle(cal).opacity) < 1;) await settle();
    await still();
    try {
      await pickDay(cal, pname, value, year, month, label, guard);
    } catch (err) {
      // Closed again before the refusal, as a person leaves it (Escape).
      if (cal.classList.contains("open")) {
        pressKey(box, "Escape", null);
        await settle();
      }
      throw err;
    }
  }

  /**
   * @param {HTMLElement} calendar @param {string} pname @param {unknown} value
   * @param {number} year @param {number} month @param {string} label @param {(t: Target) => void} guard
   */
  async function pickDay(calendar, pname, value, year, month, label, guard) {
    // The month the calendar shows: its year box and its month list (or the month's
    // name when it draws no list).
    const shown = () => {
      const y = Number(/** @type {HTMLInputElement | null} */ (calendar.querySelector(".cur-year"))?.value);
      const list = /** @type {HTMLSelectElement | null} */ (calendar.querySelector("select.flatpickr-monthDropdown-months"));
      const mo = list !== null ? Number(list.value) : MONTHS.indexOf(norm(calendar.querySelector(".cur-month")?.textContent || ""));
      return Number.isInteger(y) && mo >= 0 ? y * 12 + mo : NaN;
    };
    for (let k = 0; ; k++) {
      const at = shown();
      if (Number.isNaN(at)) fail("unsupported", `${pname}: the calendar does not say which month it shows; nothing was chosen.`);
      const diff = year * 12 + month - at;
      if (diff === 0) break;
      const arrow = /** @type {Target | null} */ (calendar.querySelector(diff > 0 ? ".flatpickr-next-month" : ".flatpickr-prev-month"));
      if (k >= MONTH_STEPS || arrow === null || arrow.classList.contains("flatpickr-disabled")) fail("bad_parameters", `${pname}: the calendar does not reach ${value}; nothing was chosen.`);
      click(arrow, () => guard(arrow));
      await settle();
      await still();
      if (shown() === at) fail("threw", `${pname}: the calendar did not move to another month; nothing was chosen.`);
    }
    const days = Array.from(calendar.querySelectorAll(".flatpickr-day")).filter((d) => !d.classList.contains("prevMonthDay") && !d.classList.contains("nextMonthDay"));
    const pick = /** @type {Target | undefined} */ (days.find((d) => d.getAttribute("aria-label") === label));
    if (pick === undefined) {
      const named = days.length > 0 && days.every((d) => /^[A-Z][a-z]+ \d{1,2}, \d{4}$/.test(d.getAttribute("aria-label") || ""));
      fail(named ? "bad_parameters" : "unsupported", named ? `${pname}: ${value} is no day of the calendar; nothing was chosen.` : `${pname}: the calendar names its days in a way this does not read; nothing was chosen.`);
    }
    if (pick.classList.contains("flatpickr-disabled")) fail("bad_parameters", `${pname}: the calendar does not allow ${value}; nothing was chosen.`);
    click(pick, () => guard(pick));
    await settle();
    const chosen = calendar.querySelector(".flatpickr-day.selected");
    if (chosen === null || chosen.getAttribute("aria-label") !== label) fail("threw", `${pname}: the calendar did not select ${value}.`);
  }

  // A select Selectize draws (see selectizeOf in extract.js), chosen as a person does:
  // a click on its box opens its dropdown (Selectize opens it when its search input
  // gets the focus: focusFor), the value is typed into the search input when no option shows it (the
  // dropdown lists what matches), and the one option whose text (or `data-value`) is
  // the value is clicked. None, or two, is refused with the options named, the dropdown
  // closed, nothing chosen; the select must then hold the value. One of many choices
  // (`multiple`) is refused before any click: a click adds to the choices.
  /**
   * @param {HTMLSelectElement} select
   * @param {HTMLElement} box
   * @param {string} pname
   * @param {string} value
   * @param {(t: Target) => void} guard
   */
  async function chooseSelectized(select, box, pname, value, guard) {
    if (select.multiple) fail("unsupported", `${pname}: ${say(select)} keeps many choices; nothing was chosen (choose each with the builtins, or ask the person).`);
    const want = norm(value);
    const chosen = () => Array.from(select.selectedOptions).map((o) => norm(o.text || o.value));
    const was = chosen();
    if (was.length === 1 && was[0] === want) return;
    const control = /** @type {HTMLElement} */ (box.parentElement);
    const search = /** @type {HTMLInputElement | null} */ (box.querySelector("input"));
    const doc = select.ownerDocument;
    const dropdown = () => /** @type {HTMLElement | null} */ (control.querySelector(".selectize-dropdown")) ||
      Array.from(doc.querySelectorAll(".selectize-dropdown")).find((d) => d.checkVisibility()) || null;
    const open = () => {
      const d = dropdown();
      return d !== null && d.checkVisibility();
    };
    const options = () => {
      const d = dropdown();
      return d === null ? [] : /** @type {Target[]} */ (Array.from(d.querySelectorAll(".option[data-selectable]")).filter((o) => o.checkVisibility()));
    };
    const says = (/** @type {Element} */ o) => norm(o.textContent) === want || o.getAttribute("data-value") === value;
    // Escape, as its keymap reads it (by key code).
    const close = async () => {
      if (!open()) return;
      (search || box).dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", keyCode: 27, which: 27, bubbles: true, cancelable: true, composed: true }));
      await settle();
      await still();
    };
    click(box, () => guard(select));
    await settle();
    if (!open() && search !== null) {
      focusFor(search);
      await settle();
    }
    await still();
    if (!open()) fail("bad_parameters", `${pname}: ${say(select)} opened no list of options when clicked; nothing was chosen.`);
    let picks = options().filter(says);
    if (picks.length === 0 && search !== null) {
      setValue(search, value);
      await settle();
      await still();
      picks = options().filter(says);
    }
    if (picks.length !== 1) {
      const seen = options().slice(0, 50).map((o) => norm(o.textContent));
      await close();
      refuseChoice(pname, value, picks.length, false, seen);
    }
    await clickOption(picks[0], guard, close);
    const now = chosen();
    if (now.length !== 1 || (now[0] !== want && select.value !== value)) fail("bad_parameters", `${pname}: the page did not take ${JSON.stringify(value)} (it holds ${JSON.stringify(now.join(", ").slice(0, 80))}).`);
  }

  // A range input a script draws as a slider (React Aria's: Streamlit's, MUI's) shows
  // the value its input events give it but stores it only when a move ends, after a
  // drag or a key. A keyboard user's nudge ends one: a step up and back down (down
  // and back up at the top; up and down, not right and left, whatever the slider's
  // direction). A plain range input ignores synthetic keys and keeps the value set.
  /** @param {HTMLInputElement} el */
  function nudge(el) {
    const min = el.min === "" ? 0 : Number(el.min);
    const max = el.max === "" ? 100 : Number(el.max);
    if (!(max > min)) return;
    const keys = Number(el.value) < max ? ["ArrowUp", "ArrowDown"] : ["ArrowDown", "ArrowUp"];
    for (const key of keys) pressKey(el, key, null);
  }

  /** @param {Target} el @returns {Target[]} */
  function groupOf(el) {
    const name = el.name;
    if (!name) return el.type === "radio" ? unnamedRadios(el) : [el];
    const scope = /** @type {ParentNode} */ (el.form || el.getRootNode());
    const named = Array.from(/** @type {NodeListOf<HTMLInputElement>} */ (scope.querySelectorAll(`input[type="${el.type}"]`))).filter((x) => x.name === name && x.form === el.form);
    return el.type === "radio" && named.length === 1 ? loneRadios(el) : named;
  }

  // A radio button whose name no other radio of its form has (Gradio's `radio-1`,
  // `radio-2` for one `gr.Radio`) and the other such radios in its nearest ancestor
  // holding one, within its form: the probe's `page::radio_group` draws the same group.
  /** @param {Target} el @returns {Target[]} */
  function loneRadios(el) {
    const scope = /** @type {ParentNode} */ (el.form || el.getRootNode());
    /** @type {Map<string, number>} */
    const count = new Map();
    const radios = Array.from(/** @type {NodeListOf<HTMLInputElement>} */ (scope.querySelectorAll('input[type="radio"]'))).filter((x) => x.form === el.form);
    for (const r of radios) count.set(r.name, (count.get(r.name) || 0) + 1);
    const lone = (/** @type {HTMLInputElement} */ r) => r.name !== "" && r.form === el.form && count.get(r.name) === 1;
    for (let a = el.parentElement; a !== null; a = a.parentElement) {
      const group = Array.from(/** @type {NodeListOf<HTMLInputElement>} */ (a.querySelectorAll('input[type="radio"]'))).filter(lone);
      if (group.length > 1) return group;
      if (a.localName === "form") break;
    }
    return [el];
  }

  // A radio button with no `name` (a component's, which HTML leaves a group of its own)
  // and the others with none in its nearest ancestor holding one, within its form: the
  // probe's `page::radio_group` draws the same group from the records.
  /** @param {Target} el @returns {Target[]} */
  function unnamedRadios(el) {
    for (let a = el.parentElement; a !== null; a = a.parentElement) {
      const group = Array.from(/** @type {NodeListOf<HTMLInputElement>} */ (a.querySelectorAll('input[type="radio"]:not([name]), input[type="radio"][name=""]')));
      if (group.length > 1) return group;
      if (a.localName === "form") break;
    }
    return [el];
  }

  // Waits a little, so handlers that run after the event (React batches, microtask
  // chains) have run. Not requestAnimationFrame: hidden tabs never paint.
  /** @param {number} [ms] */
  function settle(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms === undefined ? 20 : ms));
  }

  // The most an action waits for the page to stop moving before its checks.
  const MOTION_MS = 1000;
  // The most key presses slide() makes to move a slider.
  const SLIDE_STEPS = 400;

  // Waits until the page's running animations and transitions that end have ended (a
  // story river sliding an editor in, a dialog fading up), at most MOTION_MS: a person
  // waits for the page to stop moving before clicking, and a control's place and what
  // covers it are only known then. Endless animations (spinners) are not waited for;
  // the checks that follow decide either way.
  async function still() {
    if (typeof document.getAnimations !== "function") return;
    const deadline = performance.now() + MOTION_MS;
    for (;;) {
      const moving = document.getAnimations().filter((a) => a.playState === "running" && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
      const left = deadline - performance.now();
      if (!moving.length || left <= 0) return;
      await Promise.race([Promise.allSettled(moving.map((a) => a.finished)), settle(left)]);
    }
  }

  // --- named actions ----------------------------------------------------------------------

  /** @param {ActionSchema} schema @param {Record<string, unknown>} params */
  function checkParameters(schema, params) {
    const declared = new Map((schema.parameters || []).map((p) => [p.name, p]));
    for (const key of Object.keys(params)) {
      if (!declared.has(key)) fail("bad_parameters", `Unknown parameter ${JSON.stringify(key)}; the action takes ${JSON.stringify([...declared.keys()])}.`);
    }
    for (const p of declared.values()) {
      if (p.required && (params[p.name] === undefined || params[p.name] === null)) {
        fail("bad_parameters", `Missing required parameter ${JSON.stringify(p.name)}.`);
      }
    }
  }

  // The labels the gate saw (`expect.labels`), or null when nspd sent none (an older
  // daemon: the newest capture alone is compared, as before).
  /** @param {DispatchExpect | null} expect */
  function gatedLabels(expect) {
    return expect && Array.isArray(expect.labels) && expect.labels.length ? expect.labels.map(String) : null;
  }

  /**
   * @param {string} name
   * @param {ActionSchema} schema
   * @param {ActionExplain | null} explain
   * @param {Record<string, unknown>} params
   * @param {DispatchExpect | null} expect
   */
  async function runDom(name, schema, explain, params, expect) {
    await still();
    const target = schema.internal_target.slice(4);
    const el = /** @type {Target | null} */ (resolve(target));
    if (!el) fail("target_not_found", `The element of ${name} (${target.slice(0, 200)}) is no longer on the page.`);
    const bound = explain && explain.elements && explain.elements[0];
    if (bound && bound.tag !== el.localName) fail("target_changed", `${name} was bound to a <${bound.tag}>, but ${target.slice(0, 200)} is now a <${el.localName}>.`);
    const gated = gatedLabels(expect);
    // A control the gate saw inside a row (a declared row button): the row's cells too.
    const cells = expect && Array.isArray(expect.row) ? expect.row : null;
    const form = /** @type {HTMLFormElement | null} */ (el.localName === "form" ? el : el.form || null);
    // The other bound elements (a submit's form), found where the newest capture lists
    // them.
    /** @type {{ el: Target, want: string | null, text: string, typed: boolean }[]} */
    const others = [];
    const listed = (explain && explain.elements) || [];
    for (let i = 1; i < listed.length; i++) {
      const other = /** @type {Target | null} */ (listed[i].selector ? resolve(listed[i].selector) : null);
      const typed = other !== null && other.localName !== "form" && !(other.getAttribute("aria-label") || "").trim() && !other.hasAttribute("aria-labelledby")
        && other.querySelector('.CodeMirror, [contenteditable=""], [contenteditable="true"]') !== null;
      if (other) others.push({ el: other, want: gated && i < gated.length ? gated[i] : null, text: listed[i].text, typed });
    }
    // The bound elements as the gate saw them and as the newest capture lists them; run
    // right before every event of the action. A group of fields with no form (the
    // element around them and their button) and no name of its own (`aria-label`,
    // `aria-labelledby`) reads as its text, which typing into an editor inside it
    // changes (the editor's lines, EasyMDE's count of words under them): such a group
    // is checked so before the first event, then by still holding the action's element,
    // whose own label is checked every time, as each field's is. A named group keeps its
    // name while typed into, and is checked every time.
    let started = false;
    const same = () => {
      if (!el.isConnected) fail("target_not_found", `The element of ${name} left the page.`);
      sameLabel(el, gated ? gated[0] : null, bound ? bound.text : "", name);
      for (const o of others) {
        if (started && o.typed && o.el.contains(el)) continue;
        sameLabel(o.el, o.want, o.text, `${name}'s <${o.el.localName}>`);
      }
      const row = cells ? rowOf(el) : null;
      if (cells && (!row || !rowHolds(row, cells))) {
        fail("target_changed", `The row ${name} would act on is not the row the gate saw (it held ${JSON.stringify(cells.slice(0, 6))}); read the state again.`);
      }
    };
    same();
    started = true;
    await hoverFirst(el);
    const guard = (/** @type {Target} */ t) => {
      actionable(t, false);
      same();
    };
    const fields = (explain && explain.parameters) || {};
    const role = el.getAttribute("role");
    const kind = FIELD_TAGS.has(el.localName) || role === "switch" || role === "checkbox" || role === "tablist" || NspExtract.isPicker(el) ? fieldKind(el) : null;
    // An action bound to a switch, a choice list, a radio group or a tab bar
    // (`select_tab(tab)`) sets that control itself. A radio group's action names its
    // first option as the field of its value too: the option asked for is clicked, and
    // nothing after it (clicking the action's own element would choose the first).
    const choice = params.checked !== undefined ? params.checked : params.value !== undefined ? params.value : kind === "tablist" ? params.tab : undefined;
    if (kind === "picker" && choice !== undefined) {
      await choosePicked(el, "value", choice, guard);
      return true;
    }
    if (kind && kind !== "text" && choice !== undefined && (!fields.value || kind === "radio")) {
      trigger(el, () => fill(el, name, choice, guard));
      await settle();
      return true;
    }
    // The fields as a person fills them: in the order the page shows them, top to
    // bottom (a field may depend on the one before it: a country, then its regions),
    // one after another with the page rendering between (Svelte and Vue apply an input
    // in a microtask; a form that adds a row once the last one is filled draws its
    // fields again from state the next input has not reached yet, and a value set in
    // the same task is lost).
    /** @type {[string, unknown, Target][]} */
    const filling = [];
    for (const [pname, value] of Object.entries(params)) {
      const selector = fields[pname];
      if (!selector) continue;
      const field = /** @type {Target | null} */ (resolve(selector));
      if (!field) fail("target_not_found", `The field for ${pname} (${selector.slice(0, 200)}) is no longer on the page.`);
      filling.push([pname, value, field]);
    }
    filling.sort((a, b) => (a[2].compareDocumentPosition(b[2]) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    for (const [pname, value, field] of filling) {
      await leaveSuggestions(field);
      await enable(field, pname, guard, filling);
      if (NspExtract.isPicker(field)) {
        await choosePicked(field, pname, value, guard);
        continue;
      }
      if (isFlatpickr(field)) {
        await chooseDate(field, pname, value, guard);
        continue;
      }
      if (fieldKind(field) === "aria-slider") {
        await slide(field, pname, value, guard);
        continue;
      }
      if (NspExtract.manyChoices(field)) {
        await chooseMany(field, pname, value, guard);
        continue;
      }
      fill(field, pname, value, guard);
      await settle();
      await chooseTyped(field, value, guard);
    }
    if (filling.length) await leaveSuggestions(el);
    // A combobox that keeps no typed text (its value is one of its options) and did
    // not take the value given: refused before anything is sent. Asked once the field
    // is left, as a person leaves it for the button (such a field puts its option back
    // then). So is an ARIA radio button asked off and still chosen (no other option of
    // its group was chosen after it).
    for (const [pname, value, field] of filling) {
      if (field.getAttribute("role") === "radio" && !isOn(value) && field.getAttribute("aria-checked") === "true") {
        fail("bad_parameters", `${pname}: an option cannot be cleared; choose another option of its group instead.`);
      }
      if (!choosesOption(field) || typeof value !== "string" || !("value" in field) || NspExtract.manyChoices(field) || NspExtract.isPicker(field)) continue;
      if (field.ownerDocument.activeElement === field) {
        field.blur();
        await settle();
      }
      if (norm(String(field.value)) !== norm(value)) {
        fail("bad_parameters", `${pname}: the page did not take ${JSON.stringify(value)} (it shows ${JSON.stringify(String(field.value).slice(0, 80))}); give one of the options it offers.`);
      }
    }
    if (form && (el === form || isSubmit(el))) {
      if (!(await validSoon(form)) && !form.checkValidity()) {
        const bad = Array.from(/** @type {HTMLCollectionOf<HTMLInputElement>} */ (/** @type {unknown} */ (form.elements))).find((f) => f.willValidate && !f.checkValidity());
        const what = bad ? `${bad.name || bad.id || bad.localName}: ${bad.validationMessage}` : "the form is not valid";
        fail("bad_parameters", `The page refused the values (${what}).`);
      }
      if (el !== form && el.disabled) fail("bad_parameters", `${JSON.stringify(labelOf(el))} stays disabled after filling the fields.`);
      // After the fields: the page may have relabelled the submit while they filled.
      // The checks and the submit run in one task.
      trigger(el, () => {
        if (el === form) {
          same();
          const why = NspExtract.perceive(form, null, { reveal: "none" });
          if (why) fail("target_hidden", `A person cannot see the form of ${name}: ${why}.`);
          form.requestSubmit();
          return;
        }
        // A submit button is pressed as a person presses it: the pointer goes down and
        // the button takes the focus, so the field last filled loses it (an
        // autocomplete that commits its value on blur, Fava's payee); then its own
        // click listeners run (a page that does its work there and cancels the native
        // submit), and the browser submits the form with it as the submitter.
        click(el, () => guard(el));
      });
    } else {
      if (el.disabled || el.getAttribute("aria-disabled") === "true") fail("bad_parameters", `${JSON.stringify(labelOf(el))} is disabled.`);
      trigger(el, () => click(el, () => guard(el)));
    }
    await settle();
    return true;
  }

  // Whether form `form` is valid, or becomes valid within VALID_MS: a page may fill a
  // required field from another a moment after that one changed (Wagtail fills a page's
  // slug, on a tab not shown, from its title once typing pauses), as a person sees
  // before pressing the button. Read from each field's `validity`, which fires no
  // `invalid` event.
  const VALID_MS = 1000;
  /** @param {HTMLFormElement} form */
  async function validSoon(form) {
    const deadline = performance.now() + VALID_MS;
    const fields = /** @type {HTMLInputElement[]} */ (Array.from(form.elements));
    while (fields.some((f) => f.willValidate && !f.validity.valid)) {
      if (performance.now() >= deadline) return false;
      await settle(50);
    }
    return true;
  }

  // A disabled field a box enables (NspExtract.enablerOf: "Allow updating this column")
  // is filled as a person fills it: the box is ticked first, as a click, and the field
  // must then be enabled. A disabled field nothing enables is left to fill(), whose
  // checks refuse it.
  // A box the agent asked to leave unticked while giving the field a value is a
  // contradiction: refused, nothing filled after it.
  /**
   * @param {Target} field @param {string} pname @param {(t: Target) => void} guard
   * @param {[string, unknown, Target][]} filling
   */
  async function enable(field, pname, guard, filling) {
    if (!isDisabled(field)) return;
    const box = /** @type {Target | null} */ (NspExtract.enablerOf(field));
    if (!box) return;
    const asked = filling.find((f) => f[2] === box);
    if (asked && !isOn(asked[1])) {
      fail("bad_parameters", `${pname}: its field is enabled by ${asked[0]}, which was asked to stay off.`);
    }
    // Ticked as the box's own parameter is set: a click only when it is off.
    fill(box, pname, true, guard);
    await settle();
    if (isDisabled(field)) fail("bad_parameters", `${pname}: the field stays disabled after ticking the box that enables it.`);
  }

  // A combobox whose typed text filters its options (React Aria's, Streamlit's select
  // box) takes a value when the option saying it is chosen, as a person chooses it:
  // after the text is typed, the option of its listbox (`aria-controls`, `aria-owns`)
  // whose text is the value is clicked. A read-only one (Quasar's QSelect, NiceGUI's
  // `ui.select`) draws its listbox only once clicked open: it is clicked first, as a
  // person opens it. Suggestions of a field that keeps what is typed are left alone
  // when none says the value.
  /** @param {Target} field @param {unknown} value @param {(t: Target) => void} guard */
  async function chooseTyped(field, value, guard) {
    if (!choosesOption(field) || typeof value !== "string") return;
    const doc = field.ownerDocument;
    const want = norm(value);
    const listbox = () => popupIds(field).map((id) => doc.getElementById(id)).find((l) => l !== null && l.getAttribute("role") === "listbox") || null;
    let list = /** @type {Element | null} */ (listbox());
    if (list === null && isReadOnly(field) && field.getAttribute("aria-expanded") !== "true") {
      // Named once open (Mantine's names its list only then), else the one list the
      // click opened.
      const before = new Set(doc.querySelectorAll('[role="listbox"]'));
      click(field, () => guard(field));
      await settle();
      await still();
      list = openedList(field, before);
    }
    if (list === null) return;
    const option = /** @type {Target | undefined} */ (Array.from(list.querySelectorAll('[role="option"]')).find((o) => optionSays(o, want)));
    if (option && option.getAttribute("aria-selected") !== "true") {
      // A person waits for the list to stop moving in (Gradio's fades up), and out
      // again before the next field (Quasar's menu covers the fields below it while
      // it fades).
      await still();
      click(option, () => guard(option));
      await settle();
      await still();
    }
  }

  // A select drawn as a button (NspExtract.isPicker: Headless UI's Listbox, Radix's and
  // MUI's Select, Dash's dropdown) is set as a person sets it: clicked open, the option
  // saying the value clicked in the list it opened, the list closed if it stays open.
  // The list is the one the picker names (`aria-controls`, `aria-owns`: the listbox or
  // the popup holding it), else the one listbox that was not open before the click. A
  // value no option says, or an option the page disabled, is refused with the list
  // closed again and nothing chosen; the picker must show the value after.
  /** @param {Target} field @param {string} pname @param {unknown} value @param {(t: Target) => void} guard */
  async function choosePicked(field, pname, value, guard) {
    if (typeof value !== "string" && typeof value !== "number") fail("bad_parameters", `${pname}: give the text of one option.`);
    const box = field.localName === "select" ? NspExtract.selectizeOf(field) : null;
    if (box !== null) {
      await chooseSelectized(/** @type {HTMLSelectElement} */ (field), box, pname, String(value), guard);
      return;
    }
    const want = norm(String(value));
    if (norm(NspExtract.pickerValue(field)) === want) return;
    const doc = field.ownerDocument;
    const before = new Set(doc.querySelectorAll('[role="listbox"]'));
    click(field, () => guard(field));
    await settle();
    await still();
    const list = openedList(field, before);
    const close = async () => {
      if (field.getAttribute("aria-expanded") !== "true" && (list === null || !list.isConnected)) return;
      pressKey(/** @type {Target} */ (doc.activeElement || list || field), "Escape", null);
      await settle();
      await still();
    };
    if (list === null) {
      await close();
      fail("bad_parameters", `${pname}: ${say(field)} opened no list of options when clicked; nothing was chosen.`);
    }
    // A list of many choices (`aria-multiselectable`, or options holding checkboxes:
    // Dash's `multi`) toggles what is clicked and keeps the rest: a click would add to
    // the choices, not choose one. Refused before any.
    if (list.getAttribute("aria-multiselectable") === "true" || list.querySelector('[role="option"] input[type="checkbox"]') !== null) {
      await close();
      fail("unsupported", `${pname}: ${say(field)} keeps many choices; nothing was chosen (choose each with the builtins, or ask the person).`);
    }
    const said = (/** @type {Target} */ o) => norm(NspExtract.explainLabel(/** @type {PageElement} */ (o)));
    const saying = (/** @type {Target[]} */ opts) => opts.filter((o) => optionSays(o, want));
    let options = await filled(list, null, null);
    let picks = saying(options);
    // A list that shows its first options only, and the rest as the person types in
    // its search box (Select2's, Django's autocomplete): the value is typed there, as a
    // person narrows it, and the list read again once it has changed.
    const search = picks.length ? null : searchOf(list);
    if (search !== null) {
      const was = listSays(list);
      guard(search);
      setValue(search, String(value));
      await settle();
      options = await filled(list, was, want.toLowerCase());
      picks = saying(options);
    }
    if (picks.length !== 1 || isDisabled(picks[0])) {
      await close();
      refuseChoice(pname, value, picks.length, true, options.slice(0, 50).map(said));
    }
    await clickOption(picks[0], guard, close);
    const shows = NspExtract.pickerValue(field);
    if (norm(shows) !== want) fail("bad_parameters", `${pname}: the page did not take ${JSON.stringify(value)} (it shows ${JSON.stringify(shows.slice(0, 80))}).`);
  }

  // A slider drawn with ARIA alone (Radix's thumb: a `span` with `role=slider`, no
  // input) is moved as a keyboard user moves it: focused, then a step up or down at a
  // time (up and down, whatever its direction) until it says the value. A value outside
  // its range, one its steps pass over, or a slider that does not move is refused.
  /** @param {Target} field @param {string} pname @param {unknown} value @param {(t: Target) => void} guard */
  async function slide(field, pname, value, guard) {
    const want = typeof value === "number" ? value : typeof value === "string" && value.trim() ? Number(value) : NaN;
    if (!Number.isFinite(want)) fail("bad_parameters", `${pname}: give a number.`);
    const num = (/** @type {string} */ n) => {
      const v = field.getAttribute(n);
      return v === null || v.trim() === "" ? NaN : Number(v);
    };
    const [lo, hi] = [num("aria-valuemin"), num("aria-valuemax")];
    if (want < lo || want > hi) fail("bad_parameters", `${pname}: ${want} is outside ${lo} to ${hi}.`);
    guard(field);
    field.focus({ preventScroll: true });
    for (let k = 0; k < SLIDE_STEPS; k++) {
      const now = num("aria-valuenow");
      if (now === want) {
        // Left, as a keyboard user tabs on: the value bubble a focused thumb shows
        // (Mantine's) goes.
        field.blur();
        await settle();
        return;
      }
      const up = !(now > want);
      pressKey(field, up ? "ArrowUp" : "ArrowDown", null);
      await settle(0);
      const next = num("aria-valuenow");
      if (next === now || Number.isNaN(next)) fail("bad_parameters", `${pname}: the slider did not move from ${now}.`);
      if (up ? next > want : next < want) fail("bad_parameters", `${pname}: the slider moves in steps from ${now} to ${next}, past ${want}.`);
    }
    fail("bad_parameters", `${pname}: ${want} is more than ${SLIDE_STEPS} steps away.`);
  }

  // Whether option `o` says `want` (normalized) to a person: by its label (Gradio's
  // options hold a hidden check mark before their text), else by its text.
  /** @param {Element} o @param {string} want */
  function optionSays(o, want) {
    return norm(NspExtract.explainLabel(/** @type {PageElement} */ (o))) === want || norm(o.textContent) === want;
  }

  // The most an action waits for an opened list to fill (options a page fetches).
  const LIST_MS = 3000;

  // What list `list` says now: its options' texts, "" once it has left the page.
  /** @param {Element} list */
  function listSays(list) {
    return list.isConnected ? `${list.querySelectorAll('[role="option"]').length} ${norm(list.textContent)}` : "";
  }

  // The options of `list` once it has filled: it holds an option a person can choose,
  // is not busy (`aria-busy`), says something other than `was` (what it said before the
  // search that should change it), every option a person can choose says `term` (the
  // search typed, lowercase: the list has narrowed to it; Select2 keeps the old
  // options under its "Searching…" until the new ones come), and it said the same at
  // the last look, 50 ms earlier. Options a page fetches when its list opens (Select2's
  // "Searching…" is a disabled option until they come) are waited for, at most
  // LIST_MS; then the list is read as it is.
  /** @param {Element} list @param {string | null} was @param {string | null} term @returns {Promise<Target[]>} */
  async function filled(list, was, term) {
    const deadline = performance.now() + LIST_MS;
    let last = null;
    for (;;) {
      const says = listSays(list);
      const options = Array.from(/** @type {NodeListOf<Target>} */ (list.querySelectorAll('[role="option"]'))).filter((o) => o.closest('[role="listbox"]') === list);
      const open = options.filter((o) => !isDisabled(o));
      const ready = open.length > 0 && list.getAttribute("aria-busy") !== "true" && says !== was &&
        (term === null || open.every((o) => norm(o.textContent).toLowerCase().includes(term)));
      if ((ready && says === last) || performance.now() > deadline || !list.isConnected) return options;
      last = says;
      await settle(50);
    }
  }

  // The search box that narrows `list`: the focused text box the list opened with,
  // which says it controls the list, or sits beside it (within three levels).
  /** @param {Element} list @returns {Target | null} */
  function searchOf(list) {
    const box = /** @type {Target | null} */ (list.ownerDocument.activeElement);
    if (box === null || box.localName !== "input" || !isTextField(box) || isReadOnly(box) || isDisabled(box)) return null;
    if (list.id && popupIds(box).includes(list.id)) return box;
    for (let a = box.parentElement, k = 0; a !== null && k < 3; a = a.parentElement, k++) {
      if (a.contains(list)) return box;
    }
    return null;
  }

  // The ids of what `field` says it controls or owns (its popup), read now.
  /** @param {Element} field @returns {string[]} */
  function popupIds(field) {
    return `${field.getAttribute("aria-controls") || ""} ${field.getAttribute("aria-owns") || ""}`.split(/\s+/).filter(Boolean);
  }

  // The list picker `field` opened: see choosePicked.
  /** @param {Element} field @param {Set<Element>} before @returns {Element | null} */
  function openedList(field, before) {
    const doc = field.ownerDocument;
    for (const id of popupIds(field)) {
      const popup = doc.getElementById(id);
      if (popup === null) continue;
      const list = popup.getAttribute("role") === "listbox" ? popup : popup.querySelector('[role="listbox"]');
      if (list !== null) return list;
    }
    const fresh = Array.from(doc.querySelectorAll('[role="listbox"]')).filter((l) => !before.has(l) && l.checkVisibility());
    return fresh.length === 1 ? fresh[0] : null;
  }

  // A combobox of many choices (Streamlit's multiselect, react-select's `isMulti`):
  // each chosen option is a tag beside the field with its own "Remove …" button. The
  // tags become exactly the list asked for, as a person makes them: the tags not in it
  // removed by their buttons, each missing option typed and chosen from the list (the
  // field is empty again after each), then every option asked for checked to be a tag
  // (refused before anything is sent otherwise).
  /** @param {Target} field @param {string} pname @param {unknown} value @param {(el: Element) => void} guard */
  async function chooseMany(field, pname, value, guard) {
    const want = (Array.isArray(value) ? value : value === null || value === undefined || value === "" ? [] : [value]).map((v) => String(v));
    const wanted = new Set(want.map(norm));
    // The hidden `<select multiple>` a widget stands in for (Select2's tags): its
    // selected options are the choices, each shown as a tag in the combobox around
    // the field.
    const select = NspExtract.manyFor(field);
    // The field's own box: the combobox around it for such a widget, else the group
    // around it within three levels (Streamlit's, React Aria's), else its parent; never
    // a wider group a page wraps a form in.
    let box = (select !== null && field.parentElement ? field.parentElement.closest('[role="combobox"]') : null) || field.parentElement || field;
    for (let a = field.parentElement, k = 0; select === null && a && k < 3; a = a.parentElement, k++) {
      if (a.getAttribute("role") === "group") {
        box = a;
        break;
      }
    }
    // A tag: a button saying "Remove X" (or "Delete X") whose own element shows X and
    // nothing else besides it. Any other such button in the box (a "Delete account" a
    // page put there) is no tag, and is never pressed. For a widget standing in for a
    // select, each option the select has selected, shown by the innermost element of
    // the box that shows its words and a glyph or button besides (Select2's `li` with
    // its "×"), which removes it.
    const tags = () => {
      /** @type {Map<string, Target | null>} */
      const out = new Map();
      if (select !== null) {
        for (const o of Array.from(select.selectedOptions)) {
          const t = norm(o.text);
          /** @type {Target | null} */
          let remove = null;
          for (const chip of /** @type {NodeListOf<Target>} */ (box.querySelectorAll("*"))) {
            if (chip.contains(field) || NspExtract.withoutGlyphs(chip, norm(chip.textContent)) !== t) continue;
            const parts = /** @type {Target[]} */ (Array.from(chip.querySelectorAll("*")));
            remove = parts.find((d) => d.localName === "button" || d.getAttribute("role") === "button") || parts.find((d) => NspExtract.glyphOf(d) !== "") || remove;
          }
          out.set(t, remove);
        }
        return out;
      }
      for (const b of /** @type {NodeListOf<Target>} */ (box.querySelectorAll("button, [role=button]"))) {
        const m = /^(?:remove|delete)\s+(.+)$/i.exec(norm(NspExtract.explainLabel(/** @type {PageElement} */ (b))));
        const chip = b.parentElement;
        if (!m || !chip || chip === box) continue;
        const shown = norm((chip.textContent || "").replace(b.textContent || "", ""));
        if (shown === norm(m[1])) out.set(shown, b);
      }
      return out;
    };
    for (const [tag, remove] of tags()) {
      if (wanted.has(tag)) continue;
      if (remove === null) fail("bad_parameters", `${pname}: ${JSON.stringify(tag)} shows no way to remove it; nothing was removed.`);
      click(remove, () => guard(remove));
      await settle();
    }
    for (const item of want) {
      if (tags().has(norm(item))) continue;
      const before = new Set(field.ownerDocument.querySelectorAll('[role="listbox"]'));
      guard(field);
      setValue(field, item);
      await settle();
      if (select !== null) await chooseListed(field, before, item, guard);
      else await chooseTyped(field, item, guard);
    }
    // A list of many choices stays open after each (it covered Streamlit's submit):
    // closed as a person closes it, by Escape, and left.
    if (field.getAttribute("aria-expanded") === "true" || box.getAttribute("aria-expanded") === "true") pressKey(field, "Escape", null);
    field.blur();
    await settle();
    await still();
    const now = tags();
    const missing = want.filter((item) => !now.has(norm(item)));
    if (missing.length) fail("bad_parameters", `${pname}: the page did not take ${JSON.stringify(missing)}; give options it offers.`);
    const kept = Array.from(now.keys()).filter((t) => !wanted.has(t));
    if (kept.length) fail("bad_parameters", `${pname}: the page kept ${JSON.stringify(kept)} besides the options asked for.`);
  }

  // After `item` was typed into the search box of a widget of many choices, the option
  // saying it is clicked in the list the box names (`aria-controls`), else the one
  // listbox not open before the typing, once the list has narrowed to what was typed
  // (filled). None, or several, saying it: nothing is clicked (chooseMany then
  // refuses).
  /** @param {Target} field @param {Set<Element>} before @param {string} item @param {(t: Target) => void} guard */
  async function chooseListed(field, before, item, guard) {
    const list = openedList(field, before);
    if (list === null) return;
    const want = norm(item);
    const options = await filled(list, null, want.toLowerCase());
    const picks = options.filter((o) => !isDisabled(o) && optionSays(o, want));
    if (picks.length !== 1) return;
    await still();
    click(picks[0], () => guard(picks[0]));
    await settle();
    await still();
  }

  // A field whose value is one of the options of a list it opens: a combobox, or an
  // input that says it opens a listbox (Mantine's Select: a read-only input with
  // `aria-haspopup="listbox"` and no role).
  /** @param {Element} field */
  function choosesOption(field) {
    return field.getAttribute("role") === "combobox" || (field.localName === "input" && field.getAttribute("aria-haspopup") === "listbox");
  }

  // Whether a field takes no typing: `readonly`, or `aria-readonly="true"`.
  /** @param {Element} field */
  function isReadOnly(field) {
    return field.hasAttribute("readonly") || field.getAttribute("aria-readonly") === "true";
  }

  // A focused combobox's open suggestions may cover the fields below it (the capture
  // does not count them hidden: see focusedPopupHolds in extract.js); a person moving
  // on to `next` leaves the combobox first (Tab), and the page closes them.
  /** @param {Element} next */
  async function leaveSuggestions(next) {
    const active = NspExtract.openCombobox(next.ownerDocument);
    if (active && active !== next) {
      active.blur();
      await settle();
    }
  }

  /** @param {Element} el */
  function isSubmit(el) {
    const tag = el.localName;
    const type = (el.getAttribute("type") || "").toLowerCase();
    return (tag === "button" && (type === "" || type === "submit")) || (tag === "input" && (type === "submit" || type === "image"));
  }

  // Whether the live row still holds each cell the gate saw of it (texts as the
  // snapshot has them, each a part of the row's text). Compared without whitespace:
  // the snapshot reads a control's parts apart ("AL alice@…" where textContent runs
  // "ALalice@…" together), and spacing is not what tells rows apart.
  /** @param {Element} row @param {unknown[]} cells */
  function rowHolds(row, cells) {
    // Every character norm() reads as a space (extract.js), taken out.
    const bare = (/** @type {string} */ s) => s.replace(/[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]+/g, "");
    const text = bare(String(row.textContent || "").slice(0, 1 << 20));
    /** @type {string[] | null} */
    let alts = null;
    return cells.every((c) => {
      const want = bare(String(c));
      if (!want || text.includes(want)) return true;
      // A cell that shows only an image says its alt (the extraction's cellImage).
      if (alts === null) alts = Array.from(row.querySelectorAll("img[alt]"), (i) => bare(i.getAttribute("alt") || ""));
      return alts.includes(want);
    });
  }

  // row:<controls> | <rows> | <key>
  /**
   * @param {string} name
   * @param {ActionSchema} schema
   * @param {ActionExplain | null} explain
   * @param {Record<string, unknown>} params
   * @param {DispatchExpect | null} expect
   */
  async function runRow(name, schema, explain, params, expect) {
    await still();
    // A fourth part says how the control is pressed: "open", a record's name in a
    // listing, opened as a person opens an item (see below); "self", a row that is
    // itself the button (a mail client's message drawn whole as one).
    const [controlsSel, rowsSel, keySpec, how] = schema.internal_target.slice(4).split(" | ");
    if (!controlsSel || !rowsSel || !keySpec) fail("unsupported", `Cannot read the row target of ${name}.`);
    // The rows, exactly as the probe named them (a bare tag for `li`/`tr` rows, the
    // container's children otherwise): a control's row is its nearest ancestor among
    // them, never a wrapper inside the row that happens to share the row's tag.
    const rowSet = new Set(resolveAll(rowsSel));
    const rowFor = (/** @type {Element} */ el) => {
      for (let a = how === "self" ? el : el.parentElement; a; a = a.parentElement) if (rowSet.has(a)) return a;
      return null;
    };
    // The control's label is part of its identity when it is the same on every row (the
    // probe grouped them by it); a declared control may be labelled per row (a subject).
    const texts = explain && explain.elements ? explain.elements.map((e) => e.text) : [];
    const expected = texts.length && texts.every((t) => t === texts[0]) ? texts[0] : null;
    // What the gate saw: the controls' labels (the same on every row, or one per row)
    // and the named row's cells.
    const gated = gatedLabels(expect);
    const gatedSame = gated && gated.every((t) => t === gated[0]) ? gated[0] : null;
    const cells = expect && Array.isArray(expect.row) ? expect.row : null;
    const names = (schema.parameters || []).map((p) => p.name);
    const want = (/** @type {string} */ pname) => (params[pname] === undefined || params[pname] === null ? null : String(params[pname]));
    /** @type {Element[] | null} */
    let rowsByIndex = null;
    const matches = (/** @type {Element} */ row, /** @type {Element} */ control) => {
      if (keySpec === "label") return labelOf(control) === want(names[0]);
      if (keySpec === "param") {
        const pairs = new Map();
        for (const part of (row.getAttribute("data-nsp-param") || "").split(";")) {
          const eq = part.indexOf("=");
          if (eq > 0) pairs.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
        }
        return names.every((n) => pairs.get(n) === want(n));
      }
      if (keySpec.startsWith("@")) return row.getAttribute(keySpec.slice(1)) === want(names[0]);
      if (keySpec.startsWith("text:")) {
        // "text:" alone: the row's own text is its key (an item that is its text).
        const cell = keySpec === "text:" ? row : row.querySelector(":scope > " + keySpec.slice(5));
        return Boolean(cell) && norm(/** @type {Element} */ (cell).textContent) === norm(want(names[0]));
      }
      if (keySpec === "index") {
        rowsByIndex = rowsByIndex || resolveAll(rowsSel);
        return rowsByIndex[Number(params.index)] === row;
      }
      return false;
    };
    /** @type {Target | null} */
    let control = null;
    /** @type {Element | null} */
    let row = null;
    let rowSeen = false;
    /** @type {{ c: Target, r: Element } | null} */
    let hidden = null;
    for (const c of /** @type {Target[]} */ (resolveAll(controlsSel))) {
      const r = rowFor(c);
      if (!r || !matches(r, c)) continue;
      rowSeen = true;
      if (expected && expected !== listedLabel(c)) continue;
      // A row the key matches that does not hold what the gate saw is another list's
      // (pyLoad's hidden sticky bar repeats its menu as icons titled alike): the next.
      if (cells && !rowHolds(r, cells)) continue;
      // So is a copy the page does not render: the one a person sees first, else the
      // hidden one (refused below as no person could reach it).
      if (typeof c.checkVisibility === "function" && !c.checkVisibility()) {
        if (!hidden) hidden = { c, r };
        continue;
      }
      control = c;
      row = r;
      break;
    }
    if (!control && hidden) {
      control = hidden.c;
      row = hidden.r;
    }
    if (!control || !row) {
      const what = names.map((n) => `${n}=${JSON.stringify(params[n])}`).join(", ");
      if (rowSeen) fail("target_changed", `The row with ${what} no longer has a ${JSON.stringify(expected)} control.`);
      fail("target_not_found", `No row with ${what} offers ${name} right now; read the state for current values.`);
    }
    if (control.disabled || control.getAttribute("aria-disabled") === "true") fail("bad_parameters", `${name} is disabled on that row.`);
    const c = control;
    const r = row;
    const same = () => {
      if (!c.isConnected || rowFor(c) !== r) fail("target_changed", `The control of ${name} left its row.`);
      // Still a control of the group's shape: a row button whose formaction or
      // formmethod the page changed after it was chosen sends the form elsewhere.
      if (!resolveAll(controlsSel).includes(c)) fail("target_changed", `The control of ${name} on that row changed (where it sends the form, or its kind); read the state again.`);
      const live = listedLabel(c);
      if (expected && expected !== live) fail("target_changed", `${name}'s control now says ${JSON.stringify(live)}, not ${JSON.stringify(expected)}.`);
      if (gated && (gatedSame !== null ? gatedSame !== live : !gated.includes(live))) {
        fail("target_changed", `${name} was allowed for a control labelled ${JSON.stringify(gatedSame !== null ? gatedSame : gated[0])}, but it now says ${JSON.stringify(live)}; read the state again.`);
      }
      if (cells && !rowHolds(r, cells)) {
        fail("target_changed", `The row ${name} would act on is not the row the gate saw (it held ${JSON.stringify(cells.slice(0, 6))}); read the state again.`);
      }
    };
    same();
    await hoverFirst(c);
    trigger(c, () => {
      click(c, () => {
        actionable(c, false);
        same();
      }, rowFor);
      // A listing opens an item on a double-click where a click only selects it (a
      // file browser); where the click opened it already, the name has left the page.
      if (how === "open" && c.isConnected && rowFor(c) === r) {
        const rect = c.getBoundingClientRect();
        c.dispatchEvent(new MouseEvent("dblclick", {
          bubbles: true, cancelable: true, composed: true, view: c.ownerDocument.defaultView,
          clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2, button: 0, detail: 2,
        }));
      }
    });
    await settle();
    return true;
  }

  /** @param {DispatchRequest} msg @param {PageCapture | null} capture @param {NspPage} page */
  async function runNamed(msg, capture, page) {
    const { action } = msg;
    const params = msg.parameters || {};
    const schema = capture && capture.actions ? capture.actions[action] : null;
    if (!schema) fail("target_not_found", `${JSON.stringify(action)} is not among the page's current actions.`);
    if (msg.internal_target && msg.internal_target !== schema.internal_target) {
      fail("target_changed", `${action} now targets ${schema.internal_target.slice(0, 200)}, not ${String(msg.internal_target).slice(0, 200)}: the page changed; read the state again.`);
    }
    const expect = msg.expect && typeof msg.expect === "object" ? msg.expect : null;
    // The page now rates the action stricter than the gate let through.
    if (expect && expect.tier && TIER_RANK[schema.reversibility] > TIER_RANK[expect.tier]) {
      fail("target_changed", `${action} is now a ${schema.reversibility}, not the ${expect.tier} that was allowed; read the state again.`);
    }
    checkParameters(schema, params);
    // A schema was found, so there is a capture.
    const cap = /** @type {PageCapture} */ (capture);
    const explain = cap.explain ? cap.explain[action] : null;
    const target = schema.internal_target;
    if (target.startsWith("dom:")) return runDom(action, schema, explain, params, expect);
    if (target.startsWith("row:")) return runRow(action, schema, explain, params, expect);
    if (target.startsWith("webmcp:")) return page.callTool(target.slice(7), params);
    fail("unsupported", `This extension cannot run targets like ${target.slice(0, 40)}.`);
    return null;
  }

  // --- builtins ---------------------------------------------------------------------------

  /**
   * @template {"string" | "number"} K
   * @param {Record<string, unknown>} params
   * @param {string} key
   * @param {K} type
   * @returns {K extends "string" ? string : number}
   */
  function need(params, key, type) {
    const v = params[key];
    if (typeof v !== type || (type === "string" && !v)) fail("bad_parameters", `${key} must be a ${type === "string" ? "non-empty string" : type}.`);
    return /** @type {K extends "string" ? string : number} */ (v);
  }

  // The element a builtin's selector names. With `expected` (the element nspd's gate
  // rated, from a resolve), the selector must find exactly one element, of that tag and
  // label; without (an older daemon), the first match, as before.
  /**
   * @overload
   * @param {Record<string, unknown>} params
   * @param {true} required
   * @param {ResolvedElement | null} expected
   * @returns {Target}
   */
  /**
   * @overload
   * @param {Record<string, unknown>} params
   * @param {boolean} required
   * @param {ResolvedElement | null} expected
   * @returns {Target | null}
   */
  /**
   * @param {Record<string, unknown>} params
   * @param {boolean} required
   * @param {ResolvedElement | null} expected
   * @returns {Target | null}
   */
  function element(params, required, expected) {
    if (params.selector === undefined && !required) return null;
    const selector = need(params, "selector", "string");
    const all = resolveAll(selector);
    if (!all.length) fail("target_not_found", `No element matches ${JSON.stringify(selector)}.`);
    const el = /** @type {Target} */ (all[0]);
    if (expected) {
      if (all.length !== 1) fail("target_changed", `${JSON.stringify(selector.slice(0, 200))} now matches ${all.length} elements, not the one that was allowed.`);
      sameElement(el, expected, selector);
    }
    return el;
  }

  /** @param {Target} el @param {ResolvedElement} expected @param {string} selector */
  function sameElement(el, expected, selector) {
    if (String(expected.tag || "") !== el.localName) {
      fail("target_changed", `${JSON.stringify(selector.slice(0, 200))} was a <${expected.tag}> when allowed, and is now a <${el.localName}>.`);
    }
    const want = String(expected.label || "");
    const live = listedLabel(el);
    if (want !== live && !(want === "" && isTextField(el))) {
      fail("target_changed", `${JSON.stringify(selector.slice(0, 200))} was ${JSON.stringify(want)} when allowed, and now says ${JSON.stringify(live)}.`);
    }
  }

  /** @param {Target} el */
  function isTextField(el) {
    return el.isContentEditable || el.localName === "textarea" || (el.localName === "input" && fieldKind(el) === "text");
  }

  /**
   * @param {string} action
   * @param {Record<string, unknown>} params
   * @param {DispatchExpect | null} expect
   */
  async function runBuiltin(action, params, expect) {
    // Whatever it aims at is found and checked once the page stops moving, as for a
    // named action; a scroll or a navigation checks nothing to wait for.
    if (action !== "scroll" && action !== "navigate") await still();
    const expected = expect && expect.element && typeof expect.element === "object" ? expect.element : null;
    const selector = typeof params.selector === "string" ? params.selector : "";
    // Right before the event: a person could, and it is still what was allowed.
    const guard = (/** @type {Target} */ el) => {
      actionable(el, false);
      if (expected) sameElement(el, expected, selector);
    };
    switch (action) {
      case "read_text": {
        const el = element(params, true, expected);
        actionable(el, true);
        const text = (el.innerText || el.textContent || "").trim();
        return text.length > READ_TEXT_LIMIT ? text.slice(0, READ_TEXT_LIMIT) : text;
      }
      case "click": {
        let el = element(params, false, expected);
        if (!el) {
          const x = need(params, "x", "number");
          const y = need(params, "y", "number");
          // What a person's pointer hits there: the topmost element, inside open shadow
          // roots too.
          el = /** @type {Target | null} */ (NspExtract.hitAt(document, x, y));
          if (!el) fail("target_not_found", `Nothing is at (${x}, ${y}).`);
          const at = el;
          trigger(at, () => click(at, () => {
            const why = NspExtract.perceive(at, null, { strict: true, reveal: "none", point: { x, y } });
            if (why) fail("target_hidden", `A person cannot see ${say(at)} at (${x}, ${y}): ${why}.`);
            if (NspExtract.hitAt(document, x, y) !== at) fail("target_changed", `What is at (${x}, ${y}) changed.`);
          }));
          await settle();
          return true;
        }
        const target = el;
        await hoverFirst(target);
        trigger(target, () => click(target, () => guard(target)));
        await settle();
        return true;
      }
      case "type": {
        const el = element(params, true, expected);
        const text = need(params, "text", "string");
        if (!isTextField(el)) fail("bad_parameters", `${JSON.stringify(params.selector)} is not a text field.`);
        await hoverFirst(el);
        guard(el);
        const editor = el.localName === "textarea" ? NspExtract.codeMirrorOf(el) : null;
        if (editor) {
          typeIntoCodeMirror(editor, text, true);
        } else if (el.isContentEditable) {
          el.focus();
          const sel = /** @type {Selection} */ (el.ownerDocument.getSelection());
          sel.selectAllChildren(el);
          sel.collapseToEnd();
          if (!el.ownerDocument.execCommand("insertText", false, text)) {
            el.textContent += text;
            fire(el, "input");
          }
        } else {
          setValue(el, String(el.value || "") + text);
        }
        await settle();
        return true;
      }
      case "clear": {
        const el = element(params, true, expected);
        if (!isTextField(el)) fail("bad_parameters", `${JSON.stringify(params.selector)} is not a text field.`);
        await hoverFirst(el);
        guard(el);
        setValue(el, "");
        await settle();
        return true;
      }
      case "focus": {
        const el = element(params, true, expected);
        await hoverFirst(el);
        guard(el);
        const editor = el.localName === "textarea" ? NspExtract.codeMirrorOf(el) : null;
        const into = editor ? /** @type {HTMLTextAreaElement} */ (NspExtract.codeMirrorInput(editor)) : el;
        into.focus();
        return into.ownerDocument.activeElement === into;
      }
      case "scroll": {
        const el = element(params, false, expected);
        if (el) el.scrollIntoView({ block: "center" });
        else window.scrollTo(need(params, "x", "number"), need(params, "y", "number"));
        await settle();
        return { x: window.scrollX, y: window.scrollY };
      }
      case "press_key": {
        const key = need(params, "key", "string");
        const aimed = element(params, false, expected);
        const el = /** @type {Target} */ (aimed || document.activeElement || document.body);
        if (aimed) await hoverFirst(aimed);
        trigger(el, () => {
          if (aimed) guard(aimed);
          pressKey(el, key, aimed ? () => guard(aimed) : null);
        });
        await settle();
        return true;
      }
      case "navigate": {
        const raw = need(params, "url", "string");
        let url;
        try {
          url = new URL(raw, location.href);
        } catch (_) {
          fail("bad_parameters", `${JSON.stringify(raw)} is not a URL.`);
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") fail("bad_parameters", "navigate only goes to http(s) URLs.");
        // Answer first: the page (and this script) is gone once the navigation starts.
        setTimeout(() => location.assign(url.href), 50);
        return { url: url.href };
      }
      default:
        fail("unsupported", `${action} is not a builtin.`);
    }
    return null;
  }

  /** @type {Record<string, number>} */
  const KEY_CODES = {
    Backspace: 8, Tab: 9, Enter: 13, Escape: 27, " ": 32, PageUp: 33, PageDown: 34, End: 35, Home: 36,
    ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Delete: 46,
  };

  // Synthetic key events do not make browsers act, so the default actions an agent
  // relies on are carried out here: Enter submits a form field's form or presses a
  // button, printable keys type into text fields. `guard`: checks before the effect.
  /** @param {Target} el @param {string} key @param {(() => void) | null} guard */
  function pressKey(el, key, guard) {
    // With the legacy key code a browser gives the key too: handlers written for it
    // (flatpickr's Escape, jQuery-era widgets) read nothing else.
    const code = KEY_CODES[key] || (/^[a-z0-9]$/i.test(key) ? key.toUpperCase().charCodeAt(0) : 0);
    const init = { key, keyCode: code, which: code, bubbles: true, cancelable: true, composed: true };
    const proceed = el.dispatchEvent(new KeyboardEvent("keydown", init));
    if (key.length === 1) el.dispatchEvent(new KeyboardEvent("keypress", init));
    if (proceed) {
      if (key === "Enter") {
        if (el.localName === "input" && el.form) {
          if (guard) guard();
          el.form.requestSubmit();
        } else if (el.localName === "button" || el.localName === "a" || el.getAttribute("role") === "button") click(el, guard);
      } else if (key === " " && (el.localName === "button" || el.getAttribute("role") === "button")) {
        click(el, guard);
      } else if (key.length === 1 && isTextField(el)) {
        if (guard) guard();
        setValue(el, String(el.value || "") + key);
      }
    }
    el.dispatchEvent(new KeyboardEvent("keyup", init));
  }

  // --- resolve ----------------------------------------------------------------------------

  // nspd's question before it gates a builtin aimed by selector: which element the
  // selector finds here and how the gate should see it (the protocol's Resolution): its
  // label, the newest capture's discovered actions bound to it or around it, whether it
  // is secret, whether a person perceives it. `hover`: the extractor's hover evidence.
  /**
   * @param {string} selector
   * @param {PageCapture | null} capture
   * @param {Listened | null} hover
   * @returns {Resolution}
   */
  function describe(selector, capture, hover) {
    let found;
    try {
      found = resolveAll(String(selector));
    } catch (err) {
      return { count: 0, error: String((err && err.message) || err).slice(0, 500) };
    }
    /** @type {Resolution} */
    const resolution = { count: found.length };
    if (found.length !== 1) return resolution;
    const el = found[0];
    resolution.element = {
      tag: el.localName,
      label: listedLabel(el),
      actions: actionsAt(el, capture),
      secret: FIELD_TAGS.has(el.localName) && NspExtract.isSecret(el),
      perceivable: NspExtract.perceive(el, hover || null, null) === "",
    };
    return resolution;
  }

  // The capture's discovered actions whose bound elements (or dom: target) are `el` or
  // an ancestor of it.
  /** @param {Element} el @param {PageCapture | null} capture */
  function actionsAt(el, capture) {
    /** @type {string[]} */
    const names = [];
    if (!capture || !capture.actions) return names;
    const holds = (/** @type {string} */ selector) => {
      try {
        return resolveAll(selector).some((e) => NspExtract.within(e, el));
      } catch (_) {
        return false;
      }
    };
    for (const [name, schema] of Object.entries(capture.actions)) {
      const target = String((schema && schema.internal_target) || "");
      if (target.startsWith("builtin:")) continue;
      if (target.startsWith("dom:") && holds(target.slice(4))) {
        names.push(name);
        continue;
      }
      const explain = capture.explain ? capture.explain[name] : null;
      for (const e of (explain && explain.elements) || []) {
        if (e && typeof e.selector === "string" && e.selector && holds(e.selector)) {
          names.push(name);
          break;
        }
      }
    }
    return names;
  }

  // --- entry point ------------------------------------------------------------------------

  // `page` is content.js's bridge to the main world: {armDialogs, trigger, disarmDialogs,
  // callTool}. `msg.accept_confirm` (set by nspd only for an irreversible write sent with
  // a verify expression) lets the action's own confirm() be answered yes. When a confirm()
  // is answered no, `onDeclined({element, target, text})` hears which control asked
  // (element: the one the action clicked or submitted, or null; target: the action's
  // internal_target), so the page's question can count as evidence from then on.
  /**
   * @param {DispatchRequest} msg
   * @param {PageCapture | null} capture
   * @param {NspPage} page
   * @param {(seen: { element: Element | null, target: string, text: string }) => void} [onDeclined]
   * @returns {Promise<DispatchOutcome>}
   */
  async function run(msg, capture, page, onDeclined) {
    const action = String(msg.action || "");
    const schema = capture && capture.actions ? capture.actions[action] : null;
    const builtin = BUILTINS.has(action) && (!schema || schema.internal_target.startsWith("builtin:"));
    // The worker skipped the at-most-once claim because it took this for the read_text
    // builtin (see isPureRead in worker/once.js): anything else must not run unclaimed.
    if (msg.unclaimed === true && !(builtin && action === "read_text")) {
      return { status: "failed", code: "target_changed", message: `${action} was sent as the read_text builtin, but the page now has an action of that name; read the state again.` };
    }
    session = { page, target: null };
    page.armDialogs(msg.accept_confirm === true);
    let value;
    try {
      value = builtin ? await runBuiltin(action, msg.parameters || {}, msg.expect || null) : await runNamed(msg, capture, page);
    } catch (err) {
      const dialogs = page.disarmDialogs();
      session = null;
      if (err instanceof Failure || (err && FAILURE_CODES.has(err.code))) return { status: "failed", code: err.code, message: String(err.message) };
      return { status: "failed", code: "threw", message: `The page threw: ${String((err && err.message) || err).slice(0, 500)}${dialogNote(dialogs)}` };
    }
    const dialogs = page.disarmDialogs();
    const target = session.target;
    session = null;
    const declined = dialogs.filter((d) => d.kind !== "alert" && !d.accepted);
    if (declined.length) {
      const asked = declined.find((d) => d.kind === "confirm");
      if (asked && typeof onDeclined === "function") {
        onDeclined({ element: target, target: builtin || !schema ? "" : schema.internal_target, text: asked.message });
      }
      return {
        status: "failed",
        code: "dialog_declined",
        message: `The page asked ${JSON.stringify(declined[0].message)} (${declined[0].kind}) and NSP answered no, so ${action} most likely did not complete.`,
      };
    }
    /** @type {{ status: "done", value: unknown, dialogs?: PageDialog[] }} */
    const outcome = { status: "done", value: value === undefined ? null : value };
    if (dialogs.length) outcome.dialogs = dialogs;
    return outcome;
  }

  /** @param {PageDialog[]} dialogs */
  function dialogNote(dialogs) {
    return dialogs && dialogs.length ? ` (the page also showed: ${JSON.stringify(dialogs.map((d) => d.message))})` : "";
  }

  // `contract`: the copies above, for the test that ties them to the protocol.
  const contract = Object.freeze({ builtins: [...BUILTINS], failureCodes: [...FAILURE_CODES], tierRank: TIER_RANK });
  globalThis.NspDispatch = { run, resolve, resolveAll, labelOf, actionable, describe, still, Failure, contract };
})();
