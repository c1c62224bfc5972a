// extract.js — the probe's eyes. It exists because the probe (WebAssembly) must not read
// the DOM node by node: every call from wasm into the DOM goes back through JS. So one
// pass here turns the page (open shadow roots and same-origin iframes included) into a
// flat table of the elements worth attention, which crosses into the probe as one JSON
// string. Later DOM changes become splices of whole subtrees of that table.
//
// A classic script defining `NspExtract` on the global object, loaded as a content
// script before content.js; the tests and the benchmark inject the same file into a
// page, so what they measure is what ships.
"use strict";

(() => {
  if (globalThis.NspExtract) return;

  // Limits that keep a hostile or huge page from blowing anything up.
  const MAX_RECORDS = 20000;
  const TEXT_LIMIT = 200;
  const ATTR_LIMIT = 500;
  const FIELD_TEXT_LIMIT = 2000;
  const CLASS_LIMIT = 200;
  const MAX_OPTIONS = 100;
  const MAX_JSON_LD = 5;
  const JSON_LD_LIMIT = 50000;

  // Subtrees that never hold anything an agent acts on or reads.
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "svg", "math", "canvas", "video", "audio", "picture", "source", "track", "br", "hr", "wbr", "slot"]);
  // Always recorded: structure, controls, fields, lists and their cells.
  const ALWAYS = new Set([
    "form", "button", "input", "select", "textarea", "summary", "details", "fieldset", "legend",
    "h1", "h2", "h3", "h4", "h5", "h6", "section", "main", "nav", "aside", "article", "header",
    "footer", "dialog", "table", "thead", "tbody", "tr", "td", "th", "ul", "ol", "li", "dl", "dt",
    "dd", "output", "meter", "progress", "iframe", "frame", "time", "data", "menu", "caption",
  ]);
  // Containers whose text would only repeat their children's.
  // Style and script text is no page text either.
  const NO_TEXT = new Set([
    "script", "style", "noscript", "template",
    "form", "select", "ul", "ol", "table", "thead", "tbody", "tr", "section", "main", "nav", "aside",
    "article", "header", "footer", "dialog", "fieldset", "dl", "menu", "details", "body", "html", "iframe", "frame",
  ]);
  const ROW_TAGS = new Set(["li", "tr", "article"]);
  const ROW_ROLES = new Set(["row", "listitem", "option", "article", "treeitem"]);
  const FIELD_TAGS = new Set(["input", "select", "textarea"]);
  // What a slider's thumb may hold besides its range input: nothing a person acts on.
  const THUMB_HOLDS = "input, button, select, textarea, a[href], [role=slider], [contenteditable]";
  // Attributes copied into the record when present.
  const ATTRS = new Set([
    "id", "name", "type", "role", "href", "aria-label", "aria-pressed", "aria-checked", "aria-expanded",
    "aria-haspopup", "aria-selected", "aria-current", "aria-required", "aria-disabled", "method", "action",
    // A submit button's own method and address, which the browser sends its form with.
    "formmethod", "formaction",
    // The form a control belongs to when it sits outside it (HTML's form owner).
    "form",
    "required", "placeholder", "autocomplete", "title", "alt", "for", "min", "max", "multiple",
    "contenteditable", "tabindex", "itemprop", "itemscope", "itemtype", "content", "datetime",
    "toolname", "tooldescription", "toolparamdescription", "data-confirm", "data-turbo-confirm",
    "data-method", "data-turbo-method", "target", "value", "aria-controls",
    // A field an agent cannot type into (its step buttons are then its only way).
    "readonly", "aria-readonly",
    // Bootstrap's data API: what a click on the element opens (see DATA_API_TOGGLES),
    // and which element.
    "data-toggle", "data-bs-toggle", "data-target", "data-bs-target",
    // Where a row of a virtualized list stands among all its rows, and how many there are;
    // a tree item's depth.
    "aria-rowindex", "aria-rowcount", "aria-posinset", "aria-setsize", "aria-level",
    // A dialog that keeps the rest of the page out of reach while it is open.
    "aria-modal",
  ]);
  // Attributes that make an otherwise plain element worth recording.
  const MARKS = new Set([
    "id", "role", "tabindex", "onclick", "contenteditable", "itemprop", "itemscope", "aria-label",
    "aria-labelledby", "toolname",
  ]);
  // The attributes a secret field's record keeps (see record()).
  const SECRET_KEEP = new Set(["id", "name", "type", "autocomplete", "role", "required", "aria-required", "aria-disabled", "tabindex"]);
  const SECRET_AUTOCOMPLETE = /\b(cc-number|cc-csc|cc-exp|current-password|new-password|one-time-code)\b/i;
  // Input types that hold nothing a person types (protocol/src/secrets.rs'
  // UNTYPED_INPUTS): never a secret field, whatever they are named.
  const UNTYPED_INPUTS = new Set(["checkbox", "radio", "submit", "button", "reset", "image", "range", "color", "file"]);
  // Names that mark a payment or credential field even without autocomplete hints. A
  // card holder's name is caught too: stricter is the safe side.
  const SECRET_NAME = /pass(word|wd)|^pass$|cvv|cvc|csc|card|ccnum|cc-num|security[-_ ]?code|one-time|otp|^pin$|ssn/i;
  // Text that asks for confirmation or warns of a permanent effect: evidence for the
  // classifier even in a plain paragraph (a confirmation page's question sits outside
  // its form). Kept in step with WARNINGS and QUESTIONS in probe-wasm/src/context.rs.
  const CUE_TEXT = /are you sure|do you really want|confirm that you want|you are about to|please confirm|can(?:not|'t|\u2019t| not) be (?:undone|reversed|recovered)|not be able to recover|permanently|irreversible|will be (?:deleted|removed|lost)|related (?:items|objects)|(?:all|following) related|this action is final|(?:type|enter)\b[^.!?]{0,120}(?:below|to confirm)/i;
  const CUE_TAGS = new Set(["p", "div", "span", "strong", "em", "b", "small"]);
  // What in a paragraph the state keys on its own (see the walk: such a paragraph is no
  // running text). The probe's objects.rs keeps the same (KEYED_INSIDE);
  // probe-wasm/tests/discovery.rs ties them.
  const KEYED_INSIDE = "[id], output, [data-nsp-key]";
  const CLICKY_CLASS = /(^|[\s_-])(btn|button|clickable|link|action|icon-button)([\s_-]|$)/i;
  const CLICKY_STYLE = /cursor\s*:\s*pointer/i;
  // `data-toggle` / `data-bs-toggle` values Bootstrap's data API acts on when the element
  // is clicked, through one listener on the document that no element-level shim sees:
  // such an element is a control whatever its tag (a `div.btn` that opens a modal).
  const DATA_API_TOGGLES = new Set(["modal", "dropdown", "collapse", "offcanvas", "tab", "pill", "button"]);
  const IDX = Symbol("nspIndex");
  /** A recorded node, marked with its index in the table (see index()). @typedef {{ [IDX]?: number }} Marked */
  // Always checked for visibility: controls, fields, rows and dialogs, which pages show
  // and hide. Other elements share their parent's unless a class, style or hidden
  // attribute could hide them on their own (checkVisibility is a style lookup, the
  // largest cost of an extraction).
  const CHECKED = new Set([
    "a", "button", "input", "select", "textarea", "summary", "dialog", "tr", "li", "article",
    "iframe", "frame",
  ]);
  const HIDE_CLASS = /hidden|hide|collaps|invisible|sr-only|d-none|closed/i;
  // A class naming a table's row: a word holding "table" and ending in "row". Kept in
  // step with `lists::table_row_class` in probe-wasm/src/lists.rs.
  const TABLE_ROW_CLASS = /(?:^|\s)[\w-]*table[\w-]*row(?=\s|$)/i;
  // The same for a table's cell and head drawn without table markup: a word holding
  // "table" and ending in "cell" (`lsf-table__cell`), or in "head" or "header"
  // (`lsf-table-head`). Kept in step with `lists::table_class` in
  // probe-wasm/src/lists.rs.
  const TABLE_PART_CLASS = /(?:^|\s)[\w-]*table[\w-]*(?:cell|head|header)(?=\s|$)/i;
  // The class tests, remembered per class attribute: a page repeats a few class
  // strings on every row. Bounded, and long strings are tested each time.
  const C_CLICKY = 1;
  const C_HIDE = 2;
  // A table's row drawn with other elements than `tr` and named so by its class
  // (`lsf-table-row`, Tailwind's `table-row`): a row, as a `tr` is (TABLE_ROW_CLASS).
  const C_TROW = 4;
  // A table's cell or head so drawn (TABLE_PART_CLASS): recorded, so that the probe can
  // name the rows' cells by the head's.
  const C_TPART = 8;
  /** @type {Map<string, number>} */
  const CLASS_BITS = new Map();
  /** @param {string} cls */
  function classBits(cls) {
    let b = CLASS_BITS.get(cls);
    if (b === undefined) {
      b = (CLICKY_CLASS.test(cls) ? C_CLICKY : 0) | (HIDE_CLASS.test(cls) ? C_HIDE : 0) | (TABLE_ROW_CLASS.test(cls) ? C_TROW : 0) | (TABLE_PART_CLASS.test(cls) ? C_TPART : 0);
      if (cls.length <= 100 && CLASS_BITS.size < 5000) CLASS_BITS.set(cls, b);
    }
    return b;
  }
  // A record's slots and flag bits (ElementRecord in protocol/src/snapshot.rs).
  const R_PARENT = 1;
  const R_TEXT = 4;
  // Set on a record whose text is its subtree's textContent (a property, not a slot).
  // TEXT_ALL: its textContent; TEXT_OUTSIDE: textOutside (see there); with TEXT_SHOWN,
  // a control's: without what nobody perceives (controlTexts).
  const TEXTY = Symbol("nspTexty");
  const TEXT_ALL = 1;
  const TEXT_OUTSIDE = 2;
  const TEXT_SHOWN = 4;
  // With TEXT_ALL or TEXT_OUTSIDE: without the parts not rendered (textShown).
  const TEXT_RENDERED = 8;
  // What visit tells its parent about the subtree it walked: a list, table, landmark or
  // form (NO_TEXT) is among it (see textOutside), or words nobody perceives (see
  // textShown).
  const B_NO_TEXT = 1;
  const B_UNSEEN = 2;
  // ... or words under `aria-hidden="true"`, which may be an icon font's (see ligature).
  const B_MUTED = 4;
  const F_RELATIVE = 1;
  const F_HIDDEN = 2;
  const F_DISABLED = 4;
  const F_CLICKABLE = 8;
  // What ancestors decide for the elements below them (visit's `flags`): inside a row
  // (ROW_TAGS, ROW_ROLES), inside a table cell, inside an inert subtree.
  const ROW = 1;
  const CELL = 2;
  const INERT = 4;
  // Under aria-hidden="true"; inside a closed <details> (CLOSED_HERE: the parent is
  // one, and only its first <summary> child is shown). See "what a person perceives".
  const ARIA_HIDDEN = 8;
  const CLOSED = 16;
  const CLOSED_HERE = 32;
  // Inside a row a class names (TABLE_ROW_CLASS), whose cells' text sits in leaves
  // styled inline rather than classed.
  const CLASS_ROW = 64;
  // Inside a row Extractor.twinRows found, whose every leaf with words is a cell.
  const TWIN_ROW = 128;
  // Rows drawn with nothing that says so, and the elements holding them, as
  // Extractor.twinRows found them: recorded by every walk of this document from then on
  // (ROWS_SEEN counts the rows, so that pages with none ask nothing).
  /** @type {WeakSet<Element>} */
  const TWIN_ROWS = new WeakSet();
  /** @type {WeakSet<Element>} */
  const TWIN_LISTS = new WeakSet();
  let ROWS_SEEN = 0;
  // Groups of fields no form holds, as Extractor.fieldGroups found them: recorded by
  // every walk of this document from then on (GROUPS_SEEN counts them).
  /** @type {WeakSet<Element>} */
  const FIELD_GROUPS = new WeakSet();
  let GROUPS_SEEN = 0;
  // How far above a button Extractor.fieldGroups looks for the element holding its
  // fields, and how many recorded ancestors the probe asks (forms.rs, field_group).
  const GROUP_DEPTH = 6;
  const GROUP_REACH = 4;
  // Elements that give their content a namespace, where that search stops as the
  // probe's does (page.rs, REGION_TAGS and REGION_ROLES; probe-wasm/tests/discovery.rs
  // ties the lists), and custom elements.
  const REGION_TAGS = new Set(["section", "main", "nav", "aside", "form", "article", "header", "footer", "dialog", "fieldset"]);
  const REGION_ROLES = new Set(["region", "main", "navigation", "article", "dialog", "alertdialog", "form", "complementary", "search", "tabpanel", "banner", "contentinfo", "group"]);
  const REGION_SELECTOR = [...REGION_TAGS, ...[...REGION_ROLES].map((r) => `[role=${r}]`)].join(", ");
  // Records whose controls are in a row already (twinRows looks no further).
  const IN_ROW_TAGS = new Set(["tr", "td", "th", "li"]);
  // How far above a control Extractor.cardRows looks for the card holding it.
  const CARD_DEPTH = 6;
  // What a record button (Extractor.recordButtons) holds none of: a control of its own.
  const PRESSED_INSIDE = "a[href], button, input, select, textarea, [role=button], [role=link], [contenteditable]";

  // How many elements inside `el` hold words of their own, counted to three, among its
  // first 64 elements.
  /** @param {Element} el */
  function wordyParts(el) {
    let n = 0;
    let seen = 0;
    for (let e = el.firstElementChild; e !== null && seen < 64; ) {
      seen++;
      for (let c = e.firstChild; c !== null; c = c.nextSibling) {
        if (c.nodeType === 3 && WORDY.test(/** @type {Text} */ (c).data)) {
          if (++n >= 3) return n;
          break;
        }
      }
      // Depth first through the button's elements.
      if (e.firstElementChild !== null) e = e.firstElementChild;
      else {
        while (e !== null && e !== el && e.nextElementSibling === null) e = e.parentElement;
        e = e === null || e === el ? null : e.nextElementSibling;
      }
    }
    return n;
  }

  // Marks `rows` as rows found by their shape (twinRows, cardRows, recordButtons) and
  // `holder` as the element holding them: recorded by every walk from then on. Returns
  // whether any row is new.
  /** @param {Iterable<Element>} rows @param {Element} holder */
  function markRows(rows, holder) {
    let added = false;
    for (const row of rows) {
      if (TWIN_ROWS.has(row)) continue;
      TWIN_ROWS.add(row);
      ROWS_SEEN++;
      added = true;
    }
    TWIN_LISTS.add(holder);
    return added;
  }

  // Whether `el` is a row (or a cell) that markup, a role or a class says is one: what
  // holds it is a list already.
  /** @param {Element} el */
  function rowish(el) {
    const cls = el.getAttribute("class");
    return ROW_TAGS.has(el.localName) || IN_ROW_TAGS.has(el.localName) || ROW_ROLES.has(el.getAttribute("role") || "") || (cls !== null && (classBits(cls) & C_TROW) !== 0);
  }

  // Whether record `r` is recorded in a table's row or cell or a list's item: that is
  // its row already (twinRows and cardRows look no further).
  /** @param {ElementRecord[]} recs @param {ElementRecord} r */
  function inRowRecord(recs, r) {
    const parent = r[R_PARENT] === null ? undefined : recs[r[R_PARENT]];
    return parent !== undefined && IN_ROW_TAGS.has(parent[0]);
  }

  // Whether `p` has three or more children, all of one tag and one class (a grid's
  // cards).
  /** @param {Element} p */
  function sameShape(p) {
    const kids = p.children;
    if (kids.length < 3) return false;
    const tag = kids[0].localName;
    const cls = kids[0].getAttribute("class");
    if (!cls || !cls.trim()) return false;
    for (const k of kids) if (k.localName !== tag || k.getAttribute("class") !== cls) return false;
    return true;
  }
  // Attributes whose presence the record asks the DOM about (see note()).
  const ASK_LABELLEDBY = 1;
  const ASK_ARIA_DISABLED = 2;

  // The only elements that can have a shadow root besides custom elements (a "-" in
  // the name): the DOM's valid shadow host names. Others skip the shadowRoot read.
  const SHADOW_HOSTS = new Set([
    "article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "main", "nav", "p", "section", "span",
  ]);
  // Each tag's part in the sets above as bits, found with one lookup per element.
  const T_SKIP = 1;
  const T_ALWAYS = 2;
  const T_NO_TEXT = 4;
  const T_ROW = 8;
  const T_FIELD = 16;
  const T_CHECKED = 32;
  const T_HOST = 64;
  const T_BLOCK = 128;
  // Elements laid out as blocks by default, and line breaks: a control's text puts a
  // space around them, as a person reads them apart ("Checking" above "1,200.00" is
  // not "Checking1,200.00", as textContent has it). Other records keep textContent's
  // joined words (see plainLabel).
  const BLOCK = new Set([
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
    "hr", "legend", "li", "main", "nav", "ol", "optgroup", "option", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
  ]);
  // Read as `TAG_BITS.get(tag) | 0`: a tag in none of the sets (undefined) has no bits.
  /** @type {Map<string, number>} */
  const TAG_BITS = new Map();
  for (const [set, bit] of /** @type {[Set<string>, number][]} */ ([
    [SKIP, T_SKIP], [ALWAYS, T_ALWAYS], [NO_TEXT, T_NO_TEXT], [ROW_TAGS, T_ROW], [FIELD_TAGS, T_FIELD],
    [CHECKED, T_CHECKED], [SHADOW_HOSTS, T_HOST], [BLOCK, T_BLOCK],
  ])) {
    for (const tag of set) TAG_BITS.set(tag, (TAG_BITS.get(tag) || 0) | bit);
  }
  /** @type {string[]} */
  const NO_NAMES = [];

  // The value of the k-th of an element's attributes, `names` being its
  // getAttributeNames(). Asking getAttribute by name is cheaper than reading the Attr
  // node, but finds that same attribute only when `byName`: all the names differ
  // (attributes in different namespaces can share one; the first would answer) and this
  // one is lowercase (an HTML element's getAttribute lowercases the name it is given,
  // and setAttributeNS can make one that is not). The callers ask by name for the
  // lowercase names they match literally, and check the case of data-* names.
  /**
   * @param {Element} el
   * @param {string[]} names
   * @param {number} k
   * @param {boolean} byName
   * @returns {string}
   */
  function attrValue(el, names, k, byName) {
    // The attribute is there: `names` came from the element.
    return byName ? /** @type {string} */ (el.getAttribute(names[k])) : el.attributes[k].value;
  }

  /** @param {string[]} names */
  function allDifferent(names) {
    for (let i = 1; i < names.length; i++) {
      for (let j = 0; j < i; j++) if (names[i] === names[j]) return false;
    }
    return true;
  }

  // Ids that CSS.escape returns unchanged (letters, digits, "_" and "-", not starting
  // with a digit or "-" and a digit, not a lone "-"): most ids, and the test is much
  // cheaper than the call.
  const PLAIN_ID = /^(?:-?[A-Za-z_]|--)[\w-]*$/;

  // data-* attributes that name or key a record.
  /** @param {string} n */
  function isDataKey(n) {
    return n.startsWith("data-nsp-") || n === "data-id" || n === "data-key" || n.endsWith("-id") || n.endsWith("_id") || n.endsWith("-key") || n.endsWith("uuid");
  }

  // Which ASK_* bit an attribute name sets: visit's pass notes aria-labelledby and
  // aria-disabled so that record() asks the DOM (hasAttribute, getAttribute) only when
  // one is there. Names differing in case only (which setAttributeNS can make) are
  // noted too: the DOM's own answer then decides, exactly as before.
  /** @param {string} n */
  function note(n) {
    if ((n.length !== 13 && n.length !== 15) || (n.charCodeAt(0) | 32) !== 97) return 0;
    const low = n.toLowerCase();
    if (low === "aria-labelledby") return ASK_LABELLEDBY;
    if (low === "aria-disabled") return ASK_ARIA_DISABLED;
    return 0;
  }

  // `tag:nth-of-type(n)` steps, each made once: a few of them (`td:nth-of-type(2)`)
  // make up most selectors of a page, and one shared string is cheaper to build and to
  // serialize than a new one per element. Bounded, for pages with endless tag names.
  /** @type {Map<string, string[]>} */
  const STEPS = new Map();
  let stepCount = 0;
  // The steps made so far for a tag (indexed by n), to pass to stepOf.
  /** @param {string} tag */
  function stepsOf(tag) {
    let list = STEPS.get(tag);
    if (list === undefined) {
      list = [];
      if (stepCount < 20000) STEPS.set(tag, list);
    }
    return list;
  }
  /** @param {string[]} list @param {string} tag @param {number} n */
  function stepOf(list, tag, n) {
    let s = list[n];
    if (s === undefined) {
      s = `${tag}:nth-of-type(${n})`;
      if (stepCount < 20000) {
        list[n] = s;
        stepCount++;
      }
    }
    return s;
  }

  // Fields seen as type=password at any time: one the page turns into text (a "show
  // password" toggle, or a page fishing for the value) stays secret. content.js adds
  // those whose type attribute changed away from password before a capture saw them.
  /** @type {WeakSet<Node>} */
  const EVER_PASSWORD = new WeakSet();

  /** @param {PageElement} el */
  function isSecret(el) {
    if (EVER_PASSWORD.has(el)) return true;
    if (el.localName === "input" && (el.type || "").toLowerCase() === "password") {
      EVER_PASSWORD.add(el);
      return true;
    }
    // A box, a button, a slider…: nothing typed, so no secret (UNTYPED_INPUTS in
    // protocol/src/secrets.rs; the probe's tests hold the two to one rule).
    if (el.localName === "input" && UNTYPED_INPUTS.has((el.type || "").toLowerCase())) return false;
    if (SECRET_AUTOCOMPLETE.test(el.getAttribute("autocomplete") || "")) return true;
    if (SECRET_NAME.test(el.getAttribute("name") || "") || SECRET_NAME.test(el.id || "")) return true;
    // Whatever the field is called, a value that is a card number is one.
    return looksLikeCardNumber(el.value);
  }

  // 13–19 digits (spaces and dashes allowed) passing the Luhn check.
  /** @param {unknown} value */
  function looksLikeCardNumber(value) {
    if (typeof value !== "string" || value.length < 13 || value.length > 25 || !/^[\d -]+$/.test(value)) return false;
    const digits = value.replace(/[ -]/g, "");
    if (digits.length < 13 || digits.length > 19) return false;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 === 0;
  }

  // Whitespace and control characters collapsed, bounded before any regex runs.
  /** @param {string | null | undefined} text @param {number} max */
  function norm(text, max) {
    if (!text) return "";
    let t = text.length > max * 8 ? text.slice(0, max * 8) : text;
    // Most texts (a button's label, a cell) are already clean; the scan below is much
    // cheaper than the replace and trim it skips.
    if (!isClean(t)) t = t.replace(/[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]+/g, " ").trim();
    return t.length > max ? t.slice(0, max) : t;
  }

  // Whether norm's replace and trim would leave `t` as it is: no character of its class
  // but single spaces, and those neither first nor last. Anything unusual says no and
  // takes the regex path, so the answer only ever errs on the slow side.
  /** @param {string} t */
  function isClean(t) {
    const n = t.length;
    if (t.charCodeAt(0) === 32 || t.charCodeAt(n - 1) === 32) return false;
    let space = false;
    for (let i = 0; i < n; i++) {
      const c = t.charCodeAt(i);
      if (c > 32 && c < 127) {
        space = false;
      } else if (c === 32 && !space) {
        space = true;
      } else if (c > 160 && c < 0x1680) {
        // Letters beyond ASCII (accents, Greek, Cyrillic...), none of them space-like.
        space = false;
      } else {
        return false;
      }
    }
    return true;
  }

  // An element's text without the text inside the lists, tables, landmarks and forms
  // below it (NO_TEXT): theirs is read by their own records, and a wrapper around
  // <main> must not read the whole page. It also keeps a change inside such a block from
  // reaching any record above it, which is what lets patch() stop there. Bounded like
  // norm's input.
  /** @param {Node} el */
  function textOutside(el) {
    let out = "";
    const limit = TEXT_LIMIT * 8;
    /** @param {Node} node */
    const walk = (node) => {
      for (let c = node.firstChild; c !== null && out.length < limit; c = c.nextSibling) {
        if (c.nodeType === 3 || c.nodeType === 4) out += /** @type {CharacterData} */ (c).data;
        else if (c.nodeType === 1 && ((/** @type {number} */ (TAG_BITS.get(/** @type {Element} */ (c).localName)) | 0) & T_NO_TEXT) === 0) walk(c);
      }
    };
    walk(el);
    return out;
  }

  // An element's text (textOutside's when `outside`) without the parts not rendered or
  // `visibility: hidden`: the other of a responsive pair ("hide-on-mobile" beside
  // "hide-on-desktop"), a closed menu's items, a spinner's idle label; and without an
  // icon font's words (see iconWords). Asked only for a record whose walk met such a
  // part (B_UNSEEN, B_MUTED), and only of the parts the walk asks about too: those with
  // a hint of hiding (a `hidden` or `style` attribute, a class that says so) and
  // controls. Past MAX_SHOWN_PARTS elements it reads on unasked.
  const MAX_SHOWN_PARTS = 400;
  const CSS_HIDDEN = { checkVisibilityCSS: true };
  /** @param {Element} el @param {boolean} outside */
  function textShown(el, outside) {
    let out = "";
    let seen = 0;
    const limit = TEXT_LIMIT * 8;
    /** @param {Node} node */
    const walk = (node) => {
      for (let c = node.firstChild; c !== null && out.length < limit; c = c.nextSibling) {
        if (c.nodeType === 3 || c.nodeType === 4) {
          out += /** @type {CharacterData} */ (c).data;
          continue;
        }
        if (c.nodeType !== 1) continue;
        const e = /** @type {Element} */ (c);
        const bits = /** @type {number} */ (TAG_BITS.get(e.localName)) | 0;
        if (outside && (bits & T_NO_TEXT) !== 0) continue;
        if (++seen <= MAX_SHOWN_PARTS && unseenPart(e)) continue;
        walk(e);
      }
    };
    walk(el);
    return out;
  }

  // Icon fonts draw a word as a glyph (Material Icons' "delete" is a bin, "arrow_back"
  // an arrow): a page that sets `aria-hidden="true"` on such a word tells screen
  // readers to skip it, and the eye sees the glyph, so nobody perceives the word. One
  // word of letters, digits and underscores, in a font named for icons or symbols,
  // drawn as one glyph: its layout box (transforms do not shrink it) at most one and a
  // half of its font size wide. A font the page names but never loads draws the word
  // as text, wide, and then the word is read: a page cannot hide a word a person reads
  // by naming a font.
  const ICON_FONT = /icon|symbol/i;
  const LIGATURE = /^\s*[a-z][a-z0-9_]+\s*$/;
  /** @param {Element} e */
  function iconWords(e) {
    if (!LIGATURE.test(e.textContent || "")) return false;
    const win = e.ownerDocument.defaultView;
    if (win === null) return false;
    const cs = win.getComputedStyle(e);
    if (!ICON_FONT.test(cs.fontFamily)) return false;
    const width = /** @type {HTMLElement} */ (e).offsetWidth;
    return typeof width === "number" && width <= 1.5 * parseFloat(cs.fontSize);
  }

  // Whether part `p` of control `el` holds an icon font's word under aria-hidden (on
  // it or an element between it and the control).
  /** @param {Element} p @param {Element} el */
  function ligature(p, el) {
    for (let a = /** @type {Element | null} */ (p); a !== null && a !== el; a = a.parentElement) {
      if (a.getAttribute("aria-hidden") === "true") return iconWords(p);
    }
    return false;
  }
  const ARIA_HIDDEN_SEL = '[aria-hidden="true"]';

  // Whether nobody perceives the words of `e`: not rendered or `visibility: hidden` (asked
  // of an element with a hint of hiding, or a control), or an icon font's.
  /** @param {Element} e */
  function unseenPart(e) {
    if ((PERCEIVED_TAGS.has(e.localName) || hintsHiding(e)) && !shows(e, CSS_HIDDEN)) return true;
    return e.getAttribute("aria-hidden") === "true" && iconWords(e);
  }

  // Whether an element's attributes hint that it may be hidden (visit asks about these:
  // its `hint`, read from its one pass over the attributes).
  /** @param {Element} e */
  function hintsHiding(e) {
    if (e.hasAttribute("hidden") || e.hasAttribute("style")) return true;
    const cls = e.getAttribute("class");
    return cls !== null && (classBits(cls) & C_HIDE) !== 0;
  }

  // What a control says, as [text, seen] before norm. Its text leaves out what nobody
  // perceives: parts not rendered or `visibility: hidden` (neither a screen nor a
  // screen reader shows them). What a sighted person sees on it, `seen`, also leaves
  // out what only a screen reader reads or nobody can read: parts transparent (their
  // opacities inside the control multiplied, or a colour's alpha, under 0.1), visually
  // hidden (clipped away, a box of at most a pixel that hides its overflow, text pushed
  // out by its indent), too small to read (a font under 4 px) or placed before the
  // page's start; an SVG's <title> is perceived, not seen. The page chooses both, so
  // the probe takes read words only from `seen` (see ElementRecord's `seen_text`).
  //
  // What it costs, and why it may stop there: a part is the element holding a text
  // (the control itself for its own text nodes). Whether a part is rendered and opaque
  // is one query; whether its box or style hides it from the eye is the expensive
  // one, asked only when two or more parts may be seen: with one, `seen` is that part
  // or nothing, and that part is the stricter reading (a visible text with words must
  // hold a read word; one with none lets the label speak). So a button of an icon and
  // a word, or of a screen reader's label and an SVG's title, asks no more; a link of
  // a name and a badge asks its two parts. The control's own text nodes are as seen as
  // the control is (hiddenReason judges that) unless its own style hides them while a
  // part shows other words. A control not rendered at all, whose words are all equally
  // unseen, says its plain text twice; one whose only words are not rendered is named
  // by them and shows none. Inside a control drawn transparent (a row's action its
  // hover reveals) its parts' opacity is not judged: it is the control's until the
  // control shows.
  // An icon font's word under aria-hidden (see ligature) is perceived by nobody; `muted`
  // says whether the control holds anything under aria-hidden (the walk knows; asked
  // of the DOM when not given).
  /** @param {Element} el @param {boolean} outside @param {boolean} [muted] @returns {[string, string]} */
  function controlTexts(el, outside, muted) {
    if (!partsSay(el, outside) || typeof el.checkVisibility !== "function") {
      const t = plainText(el, outside);
      return [t, t];
    }
    /** @type {string[]} */
    const texts = [];
    /** @type {(Element | null)[]} */
    const at = []; // each text's part; null for blank text, which goes wherever it is
    const limit = TEXT_LIMIT * 8;
    let length = 0;
    /** @param {Element} node */
    const walk = (node) => {
      for (let c = node.firstChild; c !== null && length < limit; c = c.nextSibling) {
        if (c.nodeType === 3 || c.nodeType === 4) {
          const data = /** @type {CharacterData} */ (c).data;
          texts.push(data);
          at.push(WORDY.test(data) ? node : null);
          length += data.length;
        } else if (c.nodeType === 1) {
          const bits = /** @type {number} */ (TAG_BITS.get(/** @type {Element} */ (c).localName)) | 0;
          if (outside && (bits & T_NO_TEXT) !== 0) continue;
          // Blank text goes with no part (null): a space around a block, read apart.
          if ((bits & T_BLOCK) !== 0) {
            texts.push(" ");
            at.push(null);
            walk(/** @type {Element} */ (c));
            texts.push(" ");
            at.push(null);
          } else {
            walk(/** @type {Element} */ (c));
          }
        }
      }
    };
    walk(el);
    // Each part: 0 seen (so far), 1 perceived only, 2 neither.
    /** @type {Map<Element, number>} */
    const parts = new Map();
    let whole = -1; // the control: 0 rendered and opaque, 1 transparent, 2 not rendered
    const wholeState = () => {
      if (whole < 0) whole = !shows(el) ? 2 : shows(el, OPAQUE) ? 0 : 1;
      return whole;
    };
    let candidates = 0; // parts that may be seen
    const icons = muted !== undefined ? muted : el.querySelector(ARIA_HIDDEN_SEL) !== null;
    for (const p of at) {
      if (p === null || parts.has(p)) continue;
      let got = 0; // the control's own text nodes: as seen as it is
      if (p.localName === "title" && p.namespaceURI === SVG_NS) {
        // An SVG's <title> is never drawn but names the image, as a screen reader (and
        // the pointer's tooltip) tells it: perceived when its image is rendered.
        const image = p.parentElement;
        got = image !== null && image !== el && !shows(image, CSS_HIDDEN) ? 2 : 1;
      } else if (p !== el && icons && ligature(p, el)) {
        got = 2;
      } else if (p !== el && !shows(p, OPAQUE)) {
        got = !shows(p, CSS_HIDDEN) ? 2 : wholeState() === 0 ? 1 : 0;
      }
      if (got === 2 && wholeState() === 2) {
        const t = plainText(el, outside);
        return [t, t];
      }
      if (got === 0) candidates++;
      parts.set(p, got);
    }
    if (candidates >= 2) {
      const win = el.ownerDocument.defaultView;
      /** @type {Map<Element, boolean>} */
      const hides = new Map();
      /** @type {Map<Element, number>} */
      const alphas = new Map();
      // The alpha `e` (inside `el`) is drawn with inside the control: its own times
      // its ancestors' up to the control (opacities multiply).
      /** @param {Element} e @param {CSSStyleDeclaration} cs @returns {number} */
      const alphaIn = (e, cs) => {
        let a = alphas.get(e);
        if (a === undefined) {
          const parent = e.parentElement;
          a = ownAlpha(cs) * (parent === null || parent === el ? 1 : alphaIn(parent, getComputedStyle(parent)));
          alphas.set(e, a);
        }
        return a;
      };
      // Whether the box or the style of `e` (inside `el`) or of an ancestor of it inside
      // `el` hides its text from the eye. Font size, colour and indent are inherited:
      // the part's own computed values are the ones its text is drawn with.
      /** @param {Element} e @param {boolean} part @returns {boolean} */
      const hidden = (e, part) => {
        let got = part ? undefined : hides.get(e);
        if (got !== undefined) return got;
        const cs = getComputedStyle(e);
        got = (part && unreadable(e, cs)) || alphaIn(e, cs) < FAINT;
        if (!got) {
          const overflows = cs.overflowX !== "visible" || cs.overflowY !== "visible";
          const placed = cs.position === "absolute" || cs.position === "fixed";
          const clips = cs.clipPath !== "none" || (placed && cs.clip !== "auto");
          if (overflows || placed || clips) {
            const r = e.getBoundingClientRect();
            got = (overflows && (r.width <= 1 || r.height <= 1)) ||
              (placed && win !== null && (r.right + win.scrollX <= 0 || r.bottom + win.scrollY <= 0)) ||
              (clips && selfClipped(e, r));
          }
        }
        const parent = e.parentElement;
        if (!got && parent !== null && parent !== el) got = hidden(parent, false);
        if (!part) hides.set(e, got);
        return got;
      };
      for (const [p, got] of parts) {
        // The control's own words count as unseen only by its own style (a transparent
        // colour a part overrides) while a part shows others.
        if (got === 0 && (p === el ? unreadable(el, getComputedStyle(el)) : hidden(p, true))) parts.set(p, 1);
      }
    }
    let text = "";
    let seen = "";
    for (let i = 0; i < texts.length; i++) {
      const p = at[i];
      const got = p === null ? 0 : /** @type {number} */ (parts.get(p));
      if (got < 2) text += texts[i];
      if (got < 1) seen += texts[i];
    }
    // A control whose only words are not rendered (a label a narrow window hides, an
    // icon left) is still named by them, as before anyone could see them; the eye
    // sees none of them, so they are never what corroborates a read.
    if (!WORDY.test(text)) return [plainText(el, outside), seen];
    return [text, seen];
  }

  // An element's text as the DOM has it, hidden parts and all (`outside`: textOutside).
  /** @param {Element} el @param {boolean} outside */
  function plainText(el, outside) {
    return outside ? textOutside(el) : el.textContent || "";
  }

  // Whether the text `e` draws (style `cs`, its own computed one) cannot be read: a font
  // under 4 px, a colour of alpha under 0.1, or a first line its indent pushes out for
  // good (further than the box is wide, and further than a hanging indent ever goes:
  // the image replacement pattern's -9999px).
  /** @param {Element} e @param {CSSStyleDeclaration} cs */
  function unreadable(e, cs) {
    const indent = parseFloat(cs.textIndent) || 0;
    return parseFloat(cs.fontSize) < 4 || faint(cs.color) || (indent < 0 && -indent >= Math.max(e.getBoundingClientRect().width, 100));
  }

  // Under this alpha, what is drawn is all but transparent: nobody reads it.
  const FAINT = 0.1;

  // Whether a computed colour is all but transparent: an alpha under FAINT, in the
  // `rgba(r, g, b, a)` Chromium writes or a colour function's `/ a`.
  /** @param {string} color */
  function faint(color) {
    const m = /^(?:rgba\(.*,|.*\/)\s*([\d.]+)(%?)\)$/.exec(color);
    return m !== null && parseFloat(m[1]) / (m[2] ? 100 : 1) < FAINT;
  }

  // The alpha an element's own style draws it and its content with: its `opacity`
  // times each `opacity()` of its `filter` (Chromium writes both as numbers).
  /** @param {CSSStyleDeclaration} cs */
  function ownAlpha(cs) {
    const opacity = cs.opacity;
    let a = opacity === "1" ? 1 : parseFloat(opacity);
    if (!(a >= 0)) a = 1;
    const filter = cs.filter;
    if (filter !== "none" && filter.includes("opacity(")) {
      for (const m of filter.matchAll(/opacity\(([\d.]+)\)/g)) a *= parseFloat(m[1]);
    }
    return a;
  }

  // Whether an element inside `el` holds words (`outside`: not counting lists, tables,
  // landmarks and forms): most controls' elements are icons, and their words their own.
  const WORDY = /\S/;
  /** @param {Element} el @param {boolean} outside */
  function partsSay(el, outside) {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (outside && ((/** @type {number} */ (TAG_BITS.get(c.localName)) | 0) & T_NO_TEXT) !== 0) continue;
      if (WORDY.test(c.textContent || "")) return true;
    }
    return false;
  }

  // A record's text again, read the way `mode` (its TEXTY) says record() read it.
  /** @param {Element} el @param {number} mode */
  function textBy(el, mode) {
    const outside = (mode & TEXT_OUTSIDE) !== 0;
    if ((mode & TEXT_SHOWN) !== 0) return controlTexts(el, outside)[0];
    return (mode & TEXT_RENDERED) !== 0 ? textShown(el, outside) : plainText(el, outside);
  }

  // An element's 1-based position among its siblings of the same tag.
  /** @param {Element} el */
  function nthOfType(el) {
    let n = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === el.localName) n++;
    return n;
  }

  /** @param {string} v */
  function clipAttr(v) {
    return v.length > ATTR_LIMIT ? v.slice(0, ATTR_LIMIT) : v;
  }

  // The lines of an editable region as its editor keeps them: each block child (a code
  // editor's line, a paragraph) a line, its own blocks lines of their own, a <br> the
  // end of one, a line holding only a <br> empty; blank text between blocks is markup.
  // Not innerText: it adds a line for a <br> that ends a block and folds a code line's
  // spaces where the page's style does. Blocks nested deeper than EDIT_DEPTH are one
  // line each: a page cannot make the reading overflow the script's stack.
  /** @param {Element} el @param {number} [depth] @returns {string[]} */
  function editableLines(el, depth = 0) {
    if (depth >= EDIT_DEPTH) return [el.textContent || ""];
    /** @type {string[]} */
    const lines = [];
    /** @type {string | null} */
    let line = null;
    for (let n = el.firstChild; n !== null; n = n.nextSibling) {
      if (n.nodeType === Node.ELEMENT_NODE) {
        const child = /** @type {Element} */ (n);
        const t = child.localName;
        if (t === "br") {
          lines.push(line ?? "");
          line = null;
          continue;
        }
        if (EDIT_BLOCKS.has(t)) {
          if (line !== null) lines.push(line);
          line = null;
          const inner = editableLines(child, depth + 1);
          if (inner.length === 0) lines.push("");
          else for (const l of inner) lines.push(l);
          continue;
        }
        line = (line ?? "") + (child.textContent || "");
      } else if (n.nodeType === Node.TEXT_NODE) {
        const data = /** @type {Text} */ (n).data;
        // Blank text between blocks (or after the last) is the markup's layout; at a
        // line's start it is the line's indentation.
        const next = n.nextSibling;
        if (line === null && !/\S/.test(data) && (next === null || (next.nodeType === Node.ELEMENT_NODE && EDIT_BLOCKS.has(/** @type {Element} */ (next).localName)))) continue;
        line = (line ?? "") + data;
      }
    }
    if (line !== null) lines.push(line);
    return lines;
  }
  const EDIT_DEPTH = 64;
  const EDIT_BLOCKS = new Set(["div", "p", "li", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "section", "article", "table", "tr"]);

  // CodeMirror 5 (EasyMDE's and SimpleMDE's editor) with its default input, a text area:
  // it hides the page's text area (fromTextArea sets `display: none` on it; that text
  // area is the one the form submits, labelled) and draws its editor (`.CodeMirror`)
  // after it, as its next sibling or inside one (EasyMDE's container, after SimpleMDE's
  // toolbar), and takes keys through a text area of its own clipped to nothing, the
  // editor's first child's child. A person sees the editor and types into it: the field
  // is the page's text area (CodeMirror's own where the page gave none), perceived as
  // the editor is, its value the editor's lines; the dispatcher types through
  // CodeMirror's text area. Returns the editor; false for CodeMirror's text area beside
  // a page's, no field of its own; null for any other text area.
  /** @param {Element} el a textarea @returns {HTMLElement | null | false} */
  function codeMirrorOf(el) {
    if (/** @type {HTMLElement} */ (el).style.display === "none") {
      const box = editorAfter(el);
      if (box !== null && sourceOf(box) === el) return box;
      return null;
    }
    const box = el.parentElement && el.parentElement.parentElement;
    if (box === null || codeMirrorInput(box) !== el || !isCodeMirror(box)) return null;
    return sourceOf(box) !== null ? false : /** @type {HTMLElement} */ (box);
  }

  // The editor among the next few siblings of a text area or their children.
  /** @param {Element} el @returns {HTMLElement | null} */
  function editorAfter(el) {
    let n = el.nextElementSibling;
    for (let i = 0; n !== null && i < 3 && n.localName !== "textarea"; i++, n = n.nextElementSibling) {
      if (isCodeMirror(n)) return /** @type {HTMLElement} */ (n);
      let c = n.firstElementChild;
      for (let j = 0; c !== null && j < 3; j++, c = c.nextElementSibling) if (isCodeMirror(c)) return /** @type {HTMLElement} */ (c);
    }
    return null;
  }

  // The hidden text area among the few siblings before an editor or its parent.
  /** @param {Element} box @returns {Element | null} */
  function sourceOf(box) {
    /** @type {Element | null} */
    let at = box;
    for (let up = 0; at !== null && up < 2; up++, at = at.parentElement) {
      let n = at.previousElementSibling;
      for (let i = 0; n !== null && i < 3; i++, n = n.previousElementSibling) {
        if (n.localName === "textarea") return /** @type {HTMLElement} */ (n).style.display === "none" ? n : null;
        if (n.classList.contains("CodeMirror")) return null;
      }
    }
    return null;
  }

  /** @param {Element} box @returns {HTMLTextAreaElement | null} */
  function codeMirrorInput(box) {
    const holder = box.firstElementChild;
    const input = holder && holder.firstElementChild;
    return input && input.localName === "textarea" ? /** @type {HTMLTextAreaElement} */ (input) : null;
  }

  /** @param {Element} box */
  function isCodeMirror(box) {
    return box.classList.contains("CodeMirror") && codeMirrorInput(box) !== null && box.querySelector(".CodeMirror-code") !== null;
  }

  // The lines CodeMirror 5 draws, in order: those in view and a margin around them (a
  // long document's others are not in the page).
  /** @param {Element} box @returns {string[]} */
  function codeMirrorLines(box) {
    const code = box.querySelector(".CodeMirror-code");
    /** @type {string[]} */
    const lines = [];
    if (code === null) return lines;
    for (const pre of code.querySelectorAll("pre.CodeMirror-line")) lines.push(codeMirrorText(pre, 0));
    return lines;
  }

  // Selectize (Shiny's selects, many forms of the jQuery kind) hides the page's
  // <select> (class `selectized`, `display: none`) and draws a control right after it
  // (`.selectize-control`): a box showing the chosen item and holding a text input to
  // search the options, and a dropdown of options drawn once it opens, with no roles
  // anywhere. The select, which names it and is what the form submits, is the field: a
  // picker perceived as the box, valued by its chosen option; what Selectize draws is
  // not recorded. Returns the box of a selectized select, else null.
  /** @param {Element} el a select @returns {HTMLElement | null} */
  function selectizeOf(el) {
    if (!el.classList.contains("selectized")) return null;
    const control = el.nextElementSibling;
    if (control === null || !control.classList.contains("selectize-control")) return null;
    const box = control.firstElementChild;
    return box !== null && box.classList.contains("selectize-input") ? /** @type {HTMLElement} */ (box) : null;
  }

  // What a person sees for a field a script draws elsewhere and hides (CodeMirror's
  // editor, Selectize's box), or null.
  /** @param {Element} el @returns {HTMLElement | null} */
  function drawnFor(el) {
    const tag = el.localName;
    if (tag === "textarea") return codeMirrorOf(el) || null;
    return tag === "select" ? selectizeOf(el) : null;
  }

  // A drawn line's text: an element standing for other text says which in `cm-text` (a
  // tab drawn as spaces, a control character as a dot; "" for an empty line's
  // placeholder, a zero-width or no-break space).
  /** @param {Element} el @param {number} depth @returns {string} */
  function codeMirrorText(el, depth) {
    if (depth > 8) return el.textContent || "";
    let t = "";
    for (let n = el.firstChild; n !== null; n = n.nextSibling) {
      if (n.nodeType === Node.TEXT_NODE) t += /** @type {Text} */ (n).data;
      else if (n.nodeType === Node.ELEMENT_NODE) {
        const stands = /** @type {Element} */ (n).getAttribute("cm-text");
        t += stands !== null ? stands : codeMirrorText(/** @type {Element} */ (n), depth + 1);
      }
    }
    return t;
  }

  // A text a person edits as lines (a text area's, an editable region's) goes whole up
  // to FIELD_TEXT_LIMIT, lines kept, and says how long it is when it is longer: an agent
  // that edits it writes all of it back (the probe's page::held_value, held_chars).
  /** @param {Record<string, string>} attrs @param {string} v */
  function fieldText(attrs, v) {
    if (v.length > FIELD_TEXT_LIMIT) {
      attrs.value = v.slice(0, FIELD_TEXT_LIMIT + 1);
      attrs.value_chars = String(v.length);
    } else {
      attrs.value = v;
    }
  }

  /** @param {Element} el @param {string} ids */
  function textOfIds(el, ids) {
    const root = /** @type {TreeRoot} */ (el.getRootNode());
    const parts = [];
    for (const id of ids.split(/\s+/).slice(0, 8)) {
      const ref = id && root.getElementById ? root.getElementById(id) : null;
      if (ref) parts.push(ref.textContent || "");
    }
    return norm(parts.join(" "), TEXT_LIMIT);
  }

  // Whether a record carries its element's text: not a secret field's, not a
  // container's whose text would only repeat its children's; a control's whatever it
  // wraps, a paragraph's however many links it holds (the page's running text),
  // anything else's while it is small.
  /**
   * @param {string} tag
   * @param {number} bits
   * @param {string} role
   * @param {number} children
   * @param {boolean} secret
   */
  function readsText(tag, bits, role, children, secret) {
    return !secret && (bits & T_NO_TEXT) === 0 &&
      (children <= 3 || tag === "button" || tag === "a" || tag === "p" || tag === "summary" || role === "button" || role === "link" || role === "menuitem" || role === "tab");
  }

  // --- the label the probe sees ------------------------------------------------------------
  // probe-wasm/src/page.rs's control_label over an element's record: the first of
  // aria-label, the record's label, its text, an input's value, title and alt that is
  // not blank, cut where its opening two words come again, clipped to 160 characters.
  // An action's explanation lists its element with that label clipped to 80
  // (explainLabel). dispatch.js checks the element it is about to use against them;
  // the string rules (labelFrom, clip) are ported from the probe's Rust, and
  // probe-wasm/src/page.rs runs both on the same cases.

  // Rust's char::is_whitespace, and char::is_control.
  const RUST_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
  const RUST_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

  /** @param {string} s */
  function rustTrimEnd(s) {
    let b = s.length;
    while (b > 0 && RUST_SPACE.test(s[b - 1])) b--;
    return s.slice(0, b);
  }

  /** @param {string} s */
  function rustTrim(s) {
    let a = 0;
    while (a < s.length && RUST_SPACE.test(s[a])) a++;
    return rustTrimEnd(s.slice(a));
  }

  // text.rs's clip: whitespace collapsed, control characters removed, at most `max`
  // characters (code points), an ellipsis marking a cut.
  /** @param {string} text @param {number} max */
  function clip(text, max) {
    let out = "";
    let count = 0;
    let pendingSpace = false;
    let seen = 0;
    for (const ch of text) {
      if (seen++ >= max * 8 + 64) break;
      if (RUST_SPACE.test(ch) || RUST_CONTROL.test(ch)) {
        pendingSpace = out !== "";
        continue;
      }
      if (pendingSpace) {
        if (count >= max) return out + "\u2026";
        out += " ";
        count++;
        pendingSpace = false;
      }
      if (count >= max) return out + "\u2026";
      out += ch;
      count++;
    }
    return out;
  }

  // page.rs's first_of_repeats: "Toggle theme (auto) Toggle theme (light)" is named by
  // the text up to where its opening two words come again.
  /** @param {string} s */
  function firstOfRepeats(s) {
    const words = s.split(" ").filter((w) => w !== "");
    if (words.length < 2) return s;
    const opening = `${words[0]} ${words[1]}`;
    const at = s.indexOf(opening, words[0].length);
    return at > words[0].length ? rustTrimEnd(s.slice(0, at)) : s;
  }

  // The label from a record's sources [aria-label, label, text, value, title, alt]
  // (null or absent where the record has none).
  /** @param {unknown[]} sources */
  function labelFrom(sources) {
    for (const source of sources) {
      const s = typeof source === "string" ? rustTrim(source) : "";
      if (s) return clip(firstOfRepeats(s), 160);
    }
    return "";
  }

  // An element's label sources, read as record() reads them. Its text is read around
  // any list, table, landmark or form inside, as record() does when it walked one.
  // `plain`: the text read as record() reads an element that is no control (textShown:
  // textContent without the parts not rendered, blocks not spaced apart).
  /** @param {PageElement} el @param {boolean} [plain] */
  function labelSources(el, plain) {
    const tag = el.localName;
    const bits = /** @type {number} */ (TAG_BITS.get(tag)) | 0;
    const field = (bits & T_FIELD) !== 0;
    const secret = field && isSecret(el);
    const attr = (/** @type {string} */ n) => {
      const v = secret ? null : el.getAttribute(n);
      return v === null ? null : clipAttr(v);
    };
    /** @type {string | null} */
    let value = null;
    if (tag === "input" && !secret) {
      value = el.type === "checkbox" || el.type === "radio" ? clipAttr(el.getAttribute("value") || "on") : clipAttr(String(el.value || ""));
    }
    return [
      attr("aria-label"),
      !field && isPicker(el) ? pickerLabel(el) : !secret && (field || el.hasAttribute("aria-labelledby")) ? labelOf(el) : imageLabel(el),
      readsText(tag, bits, el.getAttribute("role") || "", el.childElementCount, secret) ? norm(field ? textOutside(el) : plain ? textShown(el, true) : controlTexts(el, true)[0], TEXT_LIMIT) : "",
      value,
      attr("title"),
      attr("alt"),
    ];
  }

  /** @param {PageElement} el */
  function controlLabel(el) {
    return labelFrom(labelSources(el));
  }

  // A link or button with no text and no title of its own is named by its image, as a
  // person reads it: the alt, else the title, of the first image inside that has one
  // (a footer's logo link, an icon link), when it holds a letter or a digit (an emoji
  // alt names nothing). "" for anything else.
  /** @param {Element} el */
  function imageLabel(el) {
    const tag = el.localName;
    if ((tag !== "a" && tag !== "button") || norm(el.textContent || "", TEXT_LIMIT)) return "";
    if (rustTrim(el.getAttribute("title") || "")) return "";
    // A button a <label for> names (a kit's switch drawn as a button, its words in a
    // label beside it) is named by it, as a screen reader names it.
    if (tag === "button") {
      const named = labelsText(/** @type {HTMLButtonElement} */ (el));
      if (named) return named;
    }
    // Its image's text, else the `aria-label` of an element inside it (an icon in a
    // tooltip's span: sqladmin's row "Delete"), as its name from content is.
    const img = el.querySelector("img[alt], img[title]");
    const inner = img ? null : el.querySelector('[aria-label]:not([aria-hidden="true"])');
    for (const v of img ? [img.getAttribute("alt"), img.getAttribute("title")] : inner ? [inner.getAttribute("aria-label")] : []) {
      const t = norm(v || "", TEXT_LIMIT);
      if (/[\p{L}\p{N}]/u.test(t)) return t;
    }
    return rustTrim(el.getAttribute("aria-label") || "") ? "" : iconName(el);
  }

  // A control drawn as an icon alone, with no word anywhere (no text, title, alt or
  // label), is named by its glyph, as a person reads it: the name an icon set writes in
  // the class of the element that draws it (Font Awesome's "fa-trash-can", Bootstrap
  // Icons' "bi-pencil", Glyphicons, Material Design Icons, Lucide, Feather, Tabler,
  // Boxicons, Remix, PrimeIcons, Line Awesome, Octicons), as words ("trash can"),
  // without the set's style classes and a variant's ending ("-alt", "-o", "-line",
  // "-2"). An ellipsis or dots is "More" and bars "Menu", as people read them (the
  // kebab that opens a page's menu of Rename, History and Delete). The page chooses
  // these classes as it chooses an `aria-label`, so they are trusted with no more: a
  // name, judged by its words like any other. "" when no icon names the control.
  const ICON_SET = /^(?:fa|bi|glyphicon|mdi|ti|la|octicon|feather|lucide|bxs?|ri|pi)-([a-z][a-z0-9-]*)$/;
  const ICON_STYLE = /^(?:fw|xs|sm|lg|xl|2xs|2xl|\dx|spin|pulse|beat|bounce|fade|shake|border|inverse|li|ul|stack(?:-\dx)?|pull-\w+|rotate-\w+|flip-\w+|solid|regular|light|thin|duotone|brands|sharp)$/;
  const ICON_VARIANT = /(?:-(?:alt|o|line|fill|filled|outline|outlined|round|rounded|solid|sharp|\d+))+$/;
  const MORE_GLYPH = /^(?:ellipsis|three dots|dots|more|kebab)\b/;
  const MENU_GLYPH = /^(?:bars|hamburger|navicon|menu)\b/;
  /** @param {Element} el */
  function iconName(el) {
    for (const part of el.querySelectorAll("i[class], span[class], svg[class]")) {
      if (hintsHiding(part) && !shows(part, CSS_HIDDEN)) continue;
      for (const c of part.classList) {
        const m = ICON_SET.exec(c);
        if (m === null || ICON_STYLE.test(m[1])) continue;
        const words = m[1].replace(ICON_VARIANT, "").replace(/-/g, " ");
        if (!words) continue;
        return MORE_GLYPH.test(words) ? "More" : MENU_GLYPH.test(words) ? "Menu" : words;
      }
    }
    return "";
  }

  // Whether a control (a button, a link, a form field, or an element with such a role)
  // names `el` in its `aria-labelledby` or `aria-describedby`.
  /** @param {Element} el */
  function namesControl(el) {
    const root = /** @type {Document | ShadowRoot} */ (el.getRootNode());
    const id = CSS.escape(el.id);
    if (typeof root.querySelectorAll !== "function") return false;
    for (const by of root.querySelectorAll(`[aria-labelledby~="${id}"], [aria-describedby~="${id}"]`)) {
      if (by !== el && by.matches(NAMING_CONTROLS)) return true;
    }
    return false;
  }
  const NAMING_CONTROLS = "button, a[href], input, select, textarea, [role=button], [role=link], [role=tab], [role=switch], [role=checkbox], [role=menuitem]";

  // The words of the one image with an alt in a cell that shows no text, when it is
  // drawn and not hidden from assistive technology and they hold a letter or a digit;
  // "" for anything else.
  /** @param {Element} el */
  function cellImage(el) {
    const imgs = el.querySelectorAll('img[alt]:not([aria-hidden="true"])');
    const t = imgs.length === 1 && imgs[0].checkVisibility() ? norm(imgs[0].getAttribute("alt") || "", TEXT_LIMIT) : "";
    return /[\p{L}\p{N}]/u.test(t) ? t : "";
  }

  /** @param {PageElement} el */
  function explainLabel(el) {
    return clip(controlLabel(el), 80);
  }

  // explainLabel of an element read as record() reads one that is no control (a
  // tablist, a menu): the dispatcher takes either reading of the element it is about to
  // use, since it does not know which one the capture made.
  /** @param {PageElement} el */
  function plainLabel(el) {
    return clip(labelFrom(labelSources(el, true)), 80);
  }

  // Accessible name of a field from its labels, without the field's own text.
  /** @param {PageElement} el */
  function labelOf(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = textOfIds(el, by);
      if (t) return t;
    }
    // A label with no words (a kit's box drawn inside an empty `<label>`) names nothing.
    const labelled = el.labels && el.labels.length ? labelsText(el) : "";
    if (labelled) return labelled;
    if (!FIELD_TAGS.has(el.localName)) return "";
    // A checkbox's or radio button's text follows it: what comes before is another's.
    const boxy = el.localName === "input" && (el.type === "checkbox" || el.type === "radio");
    return (boxy ? textAfter(el) : captionOf(el)) || termOf(el) || (boxy ? "" : selectPrompt(el));
  }

  // The term a description list pairs with the field: the `<dt>` right before the
  // `<dd>` the field is the only field of, within four ancestors (Lektor's admin lays
  // its whole form out as `<dl><dt>Title</dt><dd><div><input></div></dd></dl>`, no
  // label anywhere: its fields were named `text`, `text_2` and, by a hidden copy of a
  // text area's value, `hello`). "" for anything else.
  const TERM_DEPTH = 4;
  /** @param {Element} el */
  function termOf(el) {
    let dd = el.parentElement;
    for (let depth = 1; dd !== null && dd.localName !== "dd" && depth < TERM_DEPTH; depth++) dd = dd.parentElement;
    if (dd === null || dd.localName !== "dd") return "";
    const dt = dd.previousElementSibling;
    if (dt === null || dt.localName !== "dt" || dd.querySelectorAll("input:not([type=hidden]), select, textarea").length !== 1) return "";
    const t = norm(dt.textContent || "", TEXT_LIMIT);
    return t.length <= CAPTION_MAX ? t : "";
  }

  // The words right after a checkbox or radio button no label names, as a person reads
  // its name: the text beside it (`<input type=checkbox> Shared`), or its next sibling
  // element's when that holds no control (Panel's box and the `div` of its words, in a
  // shadow root), of a caption's length. Not a box in a list's row, whose words beside
  // it are the row's (TodoMVC's item text in a `<label>` after its completion box: the
  // box completes the item, it does not select it), nor a `<label>`'s words, which name
  // what they are for. "" for anything else.
  /** @param {Element} el */
  function textAfter(el) {
    if (el.closest("li, tr, [role=row], [role=listitem], [role=option], [role=treeitem]") !== null) return "";
    let n = el.nextSibling;
    while (n !== null && n.nodeType === 3 && !/\S/.test(n.textContent || "")) n = n.nextSibling;
    if (n === null || (n.nodeType !== 3 && n.nodeType !== 1)) return "";
    if (n.nodeType === 1) {
      const e = /** @type {Element} */ (n);
      if (e.localName === "label" || e.matches(NAMING_CONTROLS) || e.querySelector(NAMING_CONTROLS) !== null) return "";
    }
    const t = norm(n.textContent || "", TEXT_LIMIT);
    return t.length <= CAPTION_MAX && /[\p{L}\p{N}]/u.test(t) ? t : "";
  }

  // The words of a select's first option when it chooses nothing (value "") and holds
  // a letter: the prompt that names a select no label names ("Country", Jazzmin's
  // filters' "pinned"). "" for anything else.
  /** @param {Element} el */
  function selectPrompt(el) {
    const first = el.localName === "select" ? /** @type {HTMLSelectElement} */ (el).options[0] : undefined;
    const t = first !== undefined && first.value === "" ? norm(first.text, TEXT_LIMIT) : "";
    return /\p{L}/u.test(t) ? t : "";
  }

  /** The words of the `<label>`s of a labelable element, "" without one.
   * @param {Element & { labels?: NodeListOf<HTMLLabelElement> | null }} el */
  function labelsText(el) {
    const labels = el.labels;
    if (!labels || !labels.length) return "";
    const parts = [];
    // A label drawn as an icon alone (a segmented control's options) is named by its
    // aria-label, as the accessibility tree names the field it labels; words a person
    // reads in it come first.
    for (const label of labels) {
      const words = labelWords(label, 0);
      parts.push(words.trim() ? words : label.getAttribute("aria-label") || "");
    }
    return norm(parts.join(" "), TEXT_LIMIT).replace(FILL_NOTE, "");
  }

  // "(required)" or "(optional)" closing a label says how to fill the field, not what
  // it is ("Email (required)" is `email`; Jazzmin's labels carry a visually hidden
  // "(required)", GOV.UK's forms an "(optional)"): no part of its name. Whether a field
  // must be filled is its `required` attribute's to say.
  const FILL_NOTE = /\s*[(\[]\s*(?:required|optional)\s*[)\]]$/i;

  // The words of a label, not those of what it wraps besides them: the field itself,
  // another control (Fava's "Add metadata" button beside its narration), an open
  // autocomplete's options. Words as textContent joins them.
  const LABEL_SKIP = new Set(["button", "datalist", "option", "optgroup"]);
  const LABEL_SKIP_ROLES = new Set(["button", "combobox", "listbox", "option", "menu", "menuitem", "tooltip", "dialog"]);
  /** @param {Element} node @param {number} depth @returns {string} */
  function labelWords(node, depth) {
    let t = "";
    for (const c of node.childNodes) {
      if (c.nodeType === 3) t += /** @type {Text} */ (c).data;
      else if (c.nodeType === 1) {
        const e = /** @type {Element} */ (c);
        if (FIELD_TAGS.has(e.localName) || LABEL_SKIP.has(e.localName) || LABEL_SKIP_ROLES.has(e.getAttribute("role") || "")) continue;
        t += depth < 8 ? labelWords(e, depth + 1) : e.textContent;
      }
    }
    return t;
  }

  // A field no label names: the short caption a person reads right before it (text
  // before it in its parent, or the element before it, or before its parent when it
  // is its parent's first element: a table cell after the cell with the caption).
  // Nothing that holds a control or a field, nothing longer than CAPTION_MAX, and no
  // heading for a field whose placeholder or title names it: the heading then names
  // the form or section (Archivy's login form opens with "Sign in", which named its
  // user box, whose placeholder says "Username": not a login then, and put to a
  // person), where Datasette's "Custom SQL query" names the one text area after it.
  const CAPTION_MAX = 60;
  const CAPTION_SKIP = "input, select, textarea, button, a[href], [role]";
  const HEADINGS = "h1, h2, h3, h4, h5, h6";
  // `quiet`: elements hidden from assistive technology (`aria-hidden`) are passed over,
  // as a picker's focus box beside it (Dash's).
  /** @param {Element} el @param {boolean} [quiet] */
  function captionOf(el, quiet) {
    for (let node = /** @type {Element | null} */ (el), depth = 0; node && depth < 2; node = node.parentElement, depth++) {
      // The casts below follow the nodeType tests (3: text, 1: element).
      let prev = node.previousSibling;
      // Passed over too: an element nobody sees beside a field people see, such as the
      // hidden copy of a text area's value that sizes it (the "grow-wrap" trick:
      // Lektor's `text-widget__replica`). In a hidden form, all is hidden alike.
      while (prev && ((prev.nodeType === 3 && !/** @type {Text} */ (prev).data.trim()) || prev.nodeType === 8 ||
        (prev.nodeType === 1 && ((quiet && /** @type {Element} */ (prev).getAttribute("aria-hidden") === "true") ||
          unseenBeside(/** @type {Element} */ (prev), el))))) prev = prev.previousSibling;
      if (prev && prev.nodeType === 3) {
        const t = norm(/** @type {Text} */ (prev).data, TEXT_LIMIT);
        return t.length <= CAPTION_MAX ? t : "";
      }
      if (prev && prev.nodeType === 1) {
        const p = /** @type {Element} */ (prev);
        if (FIELD_TAGS.has(p.localName) || p.matches(CAPTION_SKIP) || p.querySelector(CAPTION_SKIP)) return "";
        const named = /\S/.test(el.getAttribute("placeholder") || "") || /\S/.test(el.getAttribute("title") || "");
        if (named && (p.matches(HEADINGS) || p.querySelector(HEADINGS))) return "";
        const t = norm(prev.textContent || "", TEXT_LIMIT);
        return t.length <= CAPTION_MAX ? t : "";
      }
      // The first thing in its parent: the caption may sit before the parent.
      if (!node.parentElement || node.parentElement.localName === "form" || node.parentElement.localName === "body") return "";
    }
    return "";
  }

  // Whether element `e` is not shown (not rendered, `visibility: hidden`) while `field`
  // is.
  /** @param {Element} e @param {Element} field */
  function unseenBeside(e, field) {
    return typeof e.checkVisibility === "function" && !shows(e, CSS_HIDDEN) && shows(field, CSS_HIDDEN);
  }

  /** @param {HTMLSelectElement} el */
  function selectValue(el) {
    if (el.multiple) return Array.from(el.selectedOptions, (o) => o.value).join(",");
    return el.value || "";
  }

  // The visibility of an element, and of the frame it sits in: rendered at all
  // (display, content-visibility). Transparent or visibility:hidden controls count as
  // visible on purpose: row actions that appear on hover are styled that way, and a
  // dispatched click reaches them.
  /** @param {PageElement} el @param {{ frameVisible: boolean }} ctx */
  function visible(el, ctx) {
    if (!ctx.frameVisible) return false;
    // offsetParent is the cheapest layout query (about half of checkVisibility); it is
    // null for hidden elements but also for fixed-position ones and table parts in
    // some cases, which the full check then tells apart.
    // Read once: every read is a layout query of its own.
    const parent = el.offsetParent;
    if (parent !== null && parent !== undefined) return true;
    if (typeof el.checkVisibility === "function") return shows(el);
    return el.getClientRects().length > 0;
  }

  // --- what a person perceives ---------------------------------------------------------------
  // A control a person cannot see or reach is not offered (the record's hidden flag) and
  // dispatch.js refuses to act on it (`target_hidden`). Rendered at all (visible above) is
  // not enough: a page can show the person one thing and leave an invisible control where
  // an agent finds it. A rendered element is hidden when it or an ancestor is inert,
  // under aria-hidden="true", or in a closed <details> (outside its summary): flags the
  // walk hands down, free. A control (PERCEIVED_TAGS, CONTROL_ROLES, click listeners) is
  // hidden too when
  // - it or an ancestor is visibility:hidden, or it is drawn all but transparent: the
  //   product of its and its ancestors' opacities (and filters' opacity()) under 0.1
  //   (see drawn), unless its row reveals it on hover (see hoverRow);
  // - it has no size (at most a pixel; also transform: scale(0)) and nothing inside it
  //   has;
  // - it lies outside the area the document can scroll to;
  // - inside the viewport, the topmost element at its centre is neither it, nor inside
  //   it, nor one of its labels (covered, clipped by anything, pointer-events: none);
  //   outside it, its own `clip` or `clip-path` leaves nothing of it. What covers a
  //   control below the fold, or an ancestor's clipping there, only a hit test sees, and
  //   hit tests need the viewport: a capture must not scroll (the page would notice), so
  //   the dispatcher, which scrolls the control into view and hit-tests it before any
  //   event, refuses those.
  // A field hidden for styling (a custom checkbox) is perceived through a <label> of its
  // that is; a control keyboard focus brings on screen (a skip link) is offered, and the
  // dispatcher focuses it for real before checking again.
  // The geometric checks run only for controls, the ones an agent acts on: they are
  // layout queries, and capture time is spent per element.
  const PERCEIVED_TAGS = new Set(["a", "button", "input", "select", "textarea", "summary"]);
  // hiddenReason's answers about a control's own box alone, which say nothing of what
  // is inside it (see visit).
  const BOX_ONLY = new Set(["it has no size", "another element covers it", "it is off the page"]);
  const CONTROL_ROLES = new Set([
    "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "checkbox", "radio", "switch",
    "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem",
  ]);
  const OPAQUE = { checkOpacity: true, checkVisibilityCSS: true };
  const SVG_NS = "http://www.w3.org/2000/svg";
  // hiddenReason's options during an extraction: whether the control is rendered at
  // all is not known yet (display: none; content-visibility) and is asked too.
  const RENDER_UNKNOWN = { unrendered: true };

  // The parent in the flat tree a person sees: out of a shadow root to its host.
  /** @param {Node} n @returns {Element | null} */
  function up(n) {
    return n.parentElement || (n.parentNode && /** @type {TreeRoot} */ (n.parentNode).host) || null;
  }

  // checkVisibility(opts), for an element that may have no box of its own: one with
  // `display: contents` (a grid's cell wrapper, a custom element's host, a layout
  // wrapper) is never "visible" to checkVisibility, though what it holds is drawn as
  // its parent's children. Such an element shows what it holds as its parent does
  // (through a slot it is assigned to), unless its own `visibility` hides it; a
  // `<slot>` that has nodes assigned shows none of its fallback. One style read, asked
  // only when checkVisibility says no.
  /** @param {Element} el @param {CheckVisibilityOptions} [opts] @returns {boolean} */
  function shows(el, opts) {
    if (el.checkVisibility(opts)) return true;
    const win = el.ownerDocument.defaultView;
    if (!win) return false;
    const cs = win.getComputedStyle(el);
    if (cs.display !== "contents" || (opts && opts.checkVisibilityCSS && cs.visibility !== "visible")) return false;
    if (el.localName === "slot" && /** @type {HTMLSlotElement} */ (el).assignedNodes().length > 0) return false;
    const parent = /** @type {Element | null} */ (el.assignedSlot || up(el));
    return parent === null || shows(parent, opts);
  }

  // Whether `node` is `el` or inside it, across shadow roots.
  // Through the composed tree: a node slotted into a shadow root's `<slot>` (a custom
  // button's icon and label) is inside the shadow element that shows it, not only
  // inside its host.
  /** @param {Node} el @param {Node | null} node */
  function within(el, node) {
    for (let n = /** @type {FlatNode | null} */ (node); n; n = /** @type {FlatNode | null} */ (n.assignedSlot || n.parentNode || n.host || null)) if (n === el) return true;
    return false;
  }

  // The element a person's pointer hits at (x, y) in `doc`'s viewport, through open
  // shadow roots.
  /** @param {Document} doc @param {number} x @param {number} y */
  function hitAt(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  // Per extraction: sizes of each document, the clipping answer of each ancestor.
  // `hits`: hit tests left for the extraction. A hit test is the costliest check; a
  // viewport rarely shows more controls than this, and past it the dispatcher's own
  // hit test (before any event) still holds.
  const MAX_HITS = 200;
  /**
   * @typedef {{ sx: number, sy: number, w: number, h: number }} DocArea
   * @typedef {{ vw: number, vh: number, area: () => DocArea, sx: number, sy: number,
   *   w: number | undefined, h: number }} DocInfo
   * @typedef {{ row: string, target: string }} HoverRule
   * @typedef {{ list: HoverRule[], any: string, focus: string }} HoverRules
   * @typedef {{ docs: Map<Document, DocInfo>, clips: Map<Element, boolean>,
   *   panes: Map<Element, boolean>, hover: Map<Node, HoverRules>, hits: number,
   *   alphas: Map<Element, number>, styleReads: number, faded: Element[],
   *   pointers: Map<Element, boolean> }} Pass
   */
  /** @returns {Pass} */
  function newPass() {
    return { docs: new Map(), clips: new Map(), panes: new Map(), hover: new Map(), hits: MAX_HITS, alphas: new Map(), styleReads: MAX_ALPHA_READS, faded: [], pointers: new Map() };
  }

  // A pass for one element's check right before an event (the dispatcher, nspd's
  // resolve): nothing is left to the budgets of a whole page's extraction.
  function strictPass() {
    const pass = newPass();
    pass.styleReads = Infinity;
    return pass;
  }

  // Controls an extraction found transparent (or visibility:hidden) and kept back; a
  // page that is still animating may be fading them in (see content.js).
  const MAX_FADED = 64;

  // Style reads an extraction spends on how transparent its controls are drawn (see
  // alphaOf). A read costs about a microsecond on the bench's 2-core machine, and a
  // page's controls share most of their ancestors (about 2.3 reads a control), so this
  // covers a page of some 250 controls: the bench's 600-element page needs 300, the
  // held-out apps 19 to 65, the 5,000-element page 2,505 (which would cost it a quarter
  // more extraction). Past it a control's alpha is not known and it is offered: the
  // dispatcher, whose pass has no budget, checks it before any event, as it hit-tests
  // what the extraction's MAX_HITS left.
  const MAX_ALPHA_READS = 600;

  // The alpha a person sees `el` drawn with: the product of its own and every
  // ancestor's in the flat tree, up through same-origin frames (see ownAlpha); 1 when
  // the pass's budget of style reads does not reach (see MAX_ALPHA_READS). Answers
  // are kept for the extraction: a table's controls share their rows'. Once an
  // ancestor is under FAINT, so is all it holds, and its style is not read.
  /** @param {Element} el @param {Pass} pass @returns {number} */
  function alphaOf(el, pass) {
    /** @type {Element[]} */
    const chain = [];
    let a = 1;
    for (let n = /** @type {Element | null} */ (el); n; ) {
      const known = pass.alphas.get(n);
      if (known !== undefined) {
        a = known;
        break;
      }
      chain.push(n);
      const next = /** @type {Element | null} */ (/** @type {FlatNode} */ (/** @type {unknown} */ (n)).assignedSlot || up(n));
      if (next) n = next;
      else {
        const view = n.ownerDocument.defaultView;
        n = view ? view.frameElement : null;
      }
    }
    if (chain.length > pass.styleReads) return 1;
    pass.styleReads -= chain.length;
    for (let i = chain.length - 1; i >= 0; i--) {
      if (a >= FAINT) a *= ownAlpha(getComputedStyle(chain[i]));
      pass.alphas.set(chain[i], a);
    }
    return a;
  }

  // Whether `el` is rendered and drawn where a person can see it: not
  // visibility:hidden, and with an alpha of at least FAINT. An opacity of 0.01, or of
  // 0.3 on a control in a row of 0.3, or a `filter: opacity(0)`, hides a control as
  // well as `opacity: 0` does (which checkVisibility alone sees).
  /** @param {Element} el @param {Pass} pass */
  function drawn(el, pass) {
    return el.checkVisibility(OPAQUE) && alphaOf(el, pass) >= FAINT;
  }

  /** @param {Pass} pass @param {Document} doc @returns {DocInfo} */
  function docInfo(pass, doc) {
    let d = pass.docs.get(doc);
    if (d === undefined) {
      const win = doc.defaultView;
      const root = doc.documentElement;
      const body = doc.body;
      /** @type {DocInfo} */
      const made = {
        vw: win ? win.innerWidth : 0,
        vh: win ? win.innerHeight : 0,
        // The scrollable area, asked only for a box outside the viewport.
        area: () => {
          if (made.w === undefined) {
            made.sx = win ? win.scrollX : 0;
            made.sy = win ? win.scrollY : 0;
            made.w = Math.max(root ? root.scrollWidth : 0, body ? body.scrollWidth : 0);
            made.h = Math.max(root ? root.scrollHeight : 0, body ? body.scrollHeight : 0);
          }
          return /** @type {DocArea} */ (made);
        },
        sx: 0,
        sy: 0,
        w: undefined,
        h: 0,
      };
      d = made;
      pass.docs.set(doc, d);
    }
    return d;
  }

  // `clip: rect(...)` that leaves at most a pixel (the visually-hidden pattern).
  /** @param {CSSStyleDeclaration} cs */
  function clipsAway(cs) {
    const clip = cs.clip;
    if (!clip || clip === "auto" || (cs.position !== "absolute" && cs.position !== "fixed")) return false;
    const n = clip.match(/-?[\d.]+/g);
    if (!n || n.length < 4) return false;
    const [top, right, bottom, left] = n.map(Number);
    return bottom - top <= 1 || right - left <= 1;
  }

  // Whether table row `el` is drawn with a pointer cursor its container is not drawn
  // with (`cursor` is inherited: a page that points everywhere says nothing of its
  // rows). Asked of a container's first child once per pass, the same in a full
  // extraction and a patch, and of each row only where that one points: a table whose
  // rows do not costs one or two style reads.
  /** @param {Element} el @param {Pass} pass */
  function pointerRow(el, pass) {
    const parent = el.parentElement;
    // A table's head is no record to open.
    if (parent === null || parent.localName === "thead") return false;
    let points = pass.pointers.get(parent);
    if (points === undefined) {
      const first = parent.firstElementChild;
      points = first !== null && getComputedStyle(first).cursor === "pointer" && getComputedStyle(parent).cursor !== "pointer";
      pass.pointers.set(parent, points);
    }
    return points && (el === parent.firstElementChild || getComputedStyle(el).cursor === "pointer");
  }

  // Whether `el` or an ancestor clips it to nothing: a `clip` rect of a pixel, or a box
  // of no width (height) whose overflow is not visible. Answers per ancestor are kept
  // for the extraction, since rows share theirs.
  /** @param {Element} el @param {Pass} pass */
  function clipped(el, pass) {
    for (let a = /** @type {Element | null} */ (el); a; a = up(a)) {
      let v = pass.clips.get(a);
      if (v === undefined) {
        v = false;
        const cs = getComputedStyle(a);
        if (clipsAway(cs)) v = true;
        else if (a !== el && (a.clientWidth === 0 || a.clientHeight === 0) && cs.display !== "inline" && cs.display !== "contents") {
          v = (a.clientWidth === 0 && cs.overflowX !== "visible") || (a.clientHeight === 0 && cs.overflowY !== "visible");
        }
        pass.clips.set(a, v);
      }
      if (v) return true;
    }
    return false;
  }

  // Whether an element with a zero-size box still shows something: a descendant with a
  // box (a wrapper whose content overflows it, display: contents).
  /** @param {Element} el */
  function showsInside(el) {
    let seen = 0;
    for (let c = el.firstElementChild; c && seen < 16; c = c.nextElementSibling, seen++) {
      const r = c.getBoundingClientRect();
      if (r.width > 1 && r.height > 1) return true;
    }
    return false;
  }

  // A class that names a select of many choices: Streamlit's `stMultiSelect`,
  // react-select's `…--is-multi`, Ant Design's `ant-select-multiple`.
  const MANY_CLASS = /multi-?select|is-multi|select-multiple/i;

  // Whether combobox `el` keeps many choices (each shown as a tag beside it): its open
  // list says so (`aria-multiselectable`), or it or one of its four nearest ancestors
  // has a class naming a select of many. Such a field's value is a list: typing an
  // option and choosing it adds a tag and leaves the field empty.
  /** @param {Element} el */
  function manyChoices(el) {
    if (el.getAttribute("role") !== "combobox") return manyFor(el) !== null;
    const doc = el.ownerDocument;
    for (const id of (el.getAttribute("aria-controls") || "").split(/\s+/)) {
      const list = id ? doc.getElementById(id) : null;
      if (list && list.getAttribute("aria-multiselectable") === "true") return true;
    }
    let a = /** @type {Element | null} */ (el);
    for (let k = 0; a && k < 5; k++, a = a.parentElement) {
      const cls = a.getAttribute("class");
      if (cls && MANY_CLASS.test(cls)) return true;
    }
    return false;
  }

  // The hidden `<select multiple>` that search box `el` chooses for: the select right
  // before the combobox `el` sits in (selectBefore), which a widget of many choices of
  // the jQuery kind stands in for (Select2's tags around its search box). Its selected
  // options are the choices, and its labels name the box. Null for anything else.
  /** @param {Element} el @returns {HTMLSelectElement | null} */
  function manyFor(el) {
    if (el.localName !== "input" || el.getAttribute("role") !== "searchbox") return null;
    const frame = el.parentElement ? el.parentElement.closest('[role="combobox"]') : null;
    const select = frame ? selectBefore(frame) : null;
    return select !== null && select.multiple ? select : null;
  }

  // A field a person types into, and one whose typing suggests options (an
  // autocomplete's box, whose toggle button only opens them).
  const TYPED = 'input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([readonly]):not([aria-hidden="true"]), textarea, [contenteditable=""], [contenteditable="true"], [role="textbox"]:not([aria-readonly="true"]), [role="searchbox"]';
  const SUGGESTS = '[role="combobox"], [aria-autocomplete], [list]';
  const POPUPS = '[role="dialog"], [role="listbox"], [role="menu"]';
  const HANDLES = 'button, input, select, textarea, [role="button"], [role="combobox"]';

  // The first field that takes typing in `root` outside the popups it holds, or null.
  /** @param {Element} root */
  function typedIn(root) {
    for (const f of root.querySelectorAll(TYPED)) {
      const pop = f.closest(POPUPS);
      if (!pop || pop === root || !root.contains(pop)) return f;
    }
    return null;
  }

  // Whether `el` is a select drawn as a button (Headless UI's Listbox, Radix's and
  // MUI's Select, Dash's dropdown): a button, or an element with role button or
  // combobox, that opens a list of options (`aria-haspopup="listbox"`, or
  // `role=combobox` on an element nobody types into) and shows the option chosen. One
  // that holds a field taking typing is that field's wrapper; one whose first two
  // ancestors' first holding such a field holds an autocomplete's box and at most
  // three controls in all (the box, a clear button, the toggle: MUI's, Downshift's)
  // is that box's toggle. A picker is a field: its value is the text it shows, set by
  // opening its list and clicking the option (the dispatcher's choosePicked).
  /** @param {Element} el */
  function isPicker(el) {
    const tag = el.localName;
    if (tag === "select") return selectizeOf(el) !== null;
    if (tag === "input" || tag === "textarea" || /** @type {HTMLElement} */ (el).isContentEditable) return false;
    const role = el.getAttribute("role") || "";
    const popup = el.getAttribute("aria-haspopup");
    const opens = role === "combobox" ? popup === null || popup === "listbox" || popup === "true" : popup === "listbox" && (tag === "button" || role === "button");
    if (!opens || typedIn(el) !== null) return false;
    let a = el.parentElement;
    for (let k = 0; a !== null && k < 2; k++, a = a.parentElement) {
      const typed = typedIn(a);
      if (typed === null) continue;
      return !(typed.matches(SUGGESTS) && a.querySelectorAll(HANDLES).length <= 3);
    }
    return true;
  }

  // The name of picker `el`, never the option it shows: the elements its
  // `aria-labelledby` names outside itself (Headless UI's and MUI's name the label and
  // the picker; Dash's only its own value), its `<label>`s, else the caption before it.
  /** @param {Element} el */
  function pickerLabel(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const root = /** @type {TreeRoot} */ (el.getRootNode());
      const outside = by.split(/\s+/).filter((id) => {
        const ref = id && root.getElementById ? root.getElementById(id) : null;
        return ref !== null && ref !== el && !el.contains(ref);
      });
      const t = outside.length ? textOfIds(el, outside.join(" ")) : "";
      if (t) return t;
    }
    const labelled = /** @type {Element & { labels?: NodeListOf<HTMLLabelElement> | null }} */ (el);
    if (labelled.labels && labelled.labels.length) return labelsText(labelled);
    // The select it stands for: named by its labels, else by the caption before the
    // picker, else by its `name` or its prompt, as the select itself would be.
    const twin = selectBefore(el);
    return (twin !== null && twin.labels.length ? labelsText(twin) : "") || captionOf(el, true) ||
      (twin !== null ? twin.name || selectPrompt(twin) : "");
  }

  // The native `<select>` right before picker `el` or before one of its three nearest
  // ancestors: the select a widget of that kind stands in for (Select2's, Chosen's,
  // Tom Select's, which hide it and keep it in step), whose labels name the picker.
  /** @param {Element} el @returns {HTMLSelectElement | null} */
  function selectBefore(el) {
    for (let a = /** @type {Element | null} */ (el), k = 0; a !== null && k < 4; a = a.parentElement, k++) {
      const prev = a.previousElementSibling;
      if (prev !== null && prev.localName === "select") return /** @type {HTMLSelectElement} */ (prev);
    }
    return null;
  }

  // The option picker `el` shows, "" while it shows its placeholder (Radix marks the
  // picker `data-placeholder`; Dash and others draw it in an element whose class says
  // placeholder, a select widget the empty first option of its select). A glyph drawn in a part of its own at either end (Select2's clear
  // "×", a caret "▾": one character that is no letter or digit) is no part of it.
  /** @param {Element} el @param {string} text what it shows, as the record reads it */
  function pickerShows(el, text) {
    if (el.hasAttribute("data-placeholder")) return "";
    // The select it stands for holds its empty choice (Django's "---------"): nothing.
    const twin = selectBefore(el);
    if (twin !== null && !twin.multiple && twin.value === "" && twin.selectedIndex === 0) return "";
    const ph = el.querySelector('[class*="placeholder" i]');
    if (ph !== null && norm(ph.textContent || "", TEXT_LIMIT) === text) return "";
    return withoutGlyphs(el, text);
  }

  // `text` (what `el` shows) without the glyphs `el` draws in parts of their own at
  // either end: one character that is no letter or digit (a clear "×", a caret).
  /** @param {Element} el @param {string} text */
  function withoutGlyphs(el, text) {
    if (text.length > 1 && (!ALNUM.test(text[0]) || !ALNUM.test(text[text.length - 1]))) {
      for (const part of el.querySelectorAll("*")) {
        const g = glyphOf(part);
        if (g === "") continue;
        if (text.startsWith(g)) text = text.slice(1).trimStart();
        else if (text.endsWith(g)) text = text.slice(0, -1).trimEnd();
      }
    }
    return text;
  }
  const ALNUM = /[\p{L}\p{N}]/u;

  // The glyph `el` draws, when all it holds is one character that is no letter or
  // digit, else "".
  /** @param {Element} el */
  function glyphOf(el) {
    const g = el.childElementCount === 0 ? (el.textContent || "").trim() : "";
    return g.length === 1 && !ALNUM.test(g) ? g : "";
  }

  // The option picker `el` shows now (pickerShows), read as a capture reads it.
  /** @param {PageElement} el */
  function pickerValue(el) {
    return pickerShows(el, norm(controlTexts(el, true)[0], TEXT_LIMIT));
  }

  // The focused element of `doc` when it is a combobox whose popup is open.
  /** @param {Document} doc @returns {HTMLElement | null} */
  function openCombobox(doc) {
    const active = /** @type {HTMLElement | null} */ (doc.activeElement);
    return active && active.getAttribute("role") === "combobox" && active.getAttribute("aria-expanded") === "true" ? active : null;
  }

  // Whether `hit` lies in the open popup of the focused combobox (an autocomplete's
  // suggestions over the fields below it, Fava's payee over its postings): the popup
  // goes when the focus leaves, as it does when anything else is filled or pressed,
  // so what it covers is no hidden control. The dispatcher moves the focus off such a
  // combobox first and hit-tests every target before its events.
  /** @param {Document} doc @param {Element} hit */
  function focusedPopupHolds(doc, hit) {
    const active = openCombobox(doc);
    if (!active) return false;
    for (const id of (active.getAttribute("aria-controls") || active.getAttribute("aria-owns") || "").split(/\s+/)) {
      const popup = id ? doc.getElementById(id) : null;
      if (popup && popup !== active && !within(popup, active) && within(popup, hit)) return true;
    }
    return false;
  }

  // Whether the element at a covered control's centre belongs to a fixed or sticky bar
  // smaller than half the viewport (a header the page scrolls under): scrolling uncovers
  // the control, and the dispatcher hit-tests again after scrolling it into view.
  /** @param {Element} hit @param {DocInfo} d */
  function barOver(hit, d) {
    for (let a = /** @type {Element | null} */ (hit); a; a = up(a)) {
      const pos = getComputedStyle(a).position;
      if (pos === "fixed" || pos === "sticky") {
        const r = a.getBoundingClientRect();
        return r.width * r.height < 0.5 * d.vw * d.vh;
      }
    }
    return false;
  }

  // Why `box` (a control or a label standing for it) cannot be seen or reached where it
  // is, or "". `row`: the hovered row that reveals it (see hoverRow), whose part at the
  // control's centre counts as the control's; `strictHit`: a covered control is covered
  // even under a bar (the dispatcher, after scrolling); `point`: hit-test there, not at
  // the centre (a click the agent aimed at x, y).
  /**
   * @param {PageElement} el
   * @param {Element} box
   * @param {Element | null} row
   * @param {Pass} pass
   * @param {boolean} strictHit
   * @param {{ x: number, y: number } | null} [point]
   */
  function placeProblem(el, box, row, pass, strictHit, point) {
    const r = box.getBoundingClientRect();
    if ((r.width <= 1 || r.height <= 1) && !showsInside(box)) return "it has no size";
    const doc = box.ownerDocument;
    const d = docInfo(pass, doc);
    const x = point ? point.x : r.left + r.width / 2;
    const y = point ? point.y : r.top + r.height / 2;
    const inView = x >= 0 && y >= 0 && x < d.vw && y < d.vh;
    if (!inView && offArea(r, d.area()) && !inPaneArea(box, r, pass)) return "it is off the page";
    if (inView && (strictHit || pass.hits-- > 0)) {
      const hit = hitAt(doc, x, y);
      if (!hit || within(box, hit) || within(el, hit) || (row && within(row, hit))) return "";
      if (labelsHold(el, hit)) return "";
      if (!strictHit && barOver(hit, d)) return "";
      if (!strictHit && focusedPopupHolds(doc, hit)) return "";
      // Scrolled out of a pane's view, not covered: the dispatcher scrolls the pane.
      if (!strictHit && paneHides(box, r, x, y, pass)) return "";
      return "another element covers it";
    }
    // Outside the viewport no hit test can tell: its own `clip` or `clip-path` is read
    // (a box of at most a pixel counted as no size above: the visually-hidden pattern).
    // What covers it there, or an ancestor's clipping, is not seen until it is scrolled
    // into view: the dispatcher does that and hit-tests it before any event.
    if (selfClipped(box, r)) return "it is clipped away";
    return strictHit && clipped(box, pass) ? "it is clipped away" : "";
  }

  // Whether element `el`, a box with a size, lies wholly outside the area a person can
  // scroll to (and no pane scrolls it into reach). A box of no size says nothing of
  // where its content is drawn (a dialog of `display: contents`, its panel `fixed`, has
  // an empty box at the page's origin).
  /** @param {Element} el @param {Pass} pass */
  function offPage(el, pass) {
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false;
    const d = docInfo(pass, el.ownerDocument);
    if (r.right > 0 && r.bottom > 0 && r.left < d.vw && r.top < d.vh) return false;
    return offArea(r, d.area()) && !inPaneArea(el, r, pass);
  }

  // Whether box `r` lies wholly outside a document's scrollable area `a`.
  /** @param {DOMRect} r @param {DocArea} a */
  function offArea(r, a) {
    return r.right + a.sx <= 0 || r.bottom + a.sy <= 0 || r.left + a.sx >= a.w || r.top + a.sy >= a.h;
  }

  // App shells scroll a pane of the page (`overflow: auto` or `scroll`) instead of the
  // document: what lies below the pane's fold is outside the document's area and
  // outside the pane's view, yet a person reaches it by scrolling the pane. Whether
  // `a` is such a pane (answers kept per extraction).
  const PANE_OVERFLOW = new Set(["auto", "scroll", "overlay"]);
  /** @param {Element} a @param {Pass} pass */
  function isPane(a, pass) {
    let v = pass.panes.get(a);
    if (v === undefined) {
      const cs = getComputedStyle(a);
      v = PANE_OVERFLOW.has(cs.overflowY) || PANE_OVERFLOW.has(cs.overflowX);
      pass.panes.set(a, v);
    }
    return v;
  }

  // Whether box `r` (of `el`, or of an ancestor whose pane holds it) lies in the part of
  // pane `p` (whose box is `c`) that scrolling it can show: not before its start (a
  // negative offset is never scrolled to), not past its content. A pane of at most a
  // pixel shows nothing, however far it scrolls.
  /** @param {Element} p @param {DOMRect} c @param {DOMRect} r */
  function inScrollRange(p, c, r) {
    if (p.clientWidth <= 1 || p.clientHeight <= 1) return false;
    const top = r.top - c.top - p.clientTop + p.scrollTop;
    const left = r.left - c.left - p.clientLeft + p.scrollLeft;
    return top + r.height > 0 && left + r.width > 0 && top < p.scrollHeight && left < p.scrollWidth;
  }

  // Whether `el`, outside its document's scrollable area, is in the scrollable area of
  // its nearest pane, and that pane is on the page (or likewise in an outer pane's).
  /** @param {Element} el @param {DOMRect} r @param {Pass} pass @returns {boolean} */
  function inPaneArea(el, r, pass) {
    const root = el.ownerDocument.documentElement;
    for (let a = up(el); a && a !== root; a = up(a)) {
      if (!isPane(a, pass)) continue;
      const c = a.getBoundingClientRect();
      if (!inScrollRange(a, c, r)) return false;
      return !offArea(c, docInfo(pass, a.ownerDocument).area()) || inPaneArea(a, c, pass);
    }
    return false;
  }

  // Whether point (x, y) of `el` (box `r`) is outside the view of a pane around it
  // that can scroll `el` into its view: a row scrolled out of a sidebar's list, whose
  // place in the viewport the hit test gives to what lies there instead.
  /** @param {Element} el @param {DOMRect} r @param {number} x @param {number} y @param {Pass} pass */
  function paneHides(el, r, x, y, pass) {
    const root = el.ownerDocument.documentElement;
    for (let a = up(el); a && a !== root; a = up(a)) {
      if (!isPane(a, pass)) continue;
      const c = a.getBoundingClientRect();
      const left = c.left + a.clientLeft;
      const top = c.top + a.clientTop;
      if (x >= left && y >= top && x < left + a.clientWidth && y < top + a.clientHeight) continue;
      return inScrollRange(a, c, r);
    }
    return false;
  }

  // Whether an element's own `clip` or `clip-path` leaves nothing of it: a `clip` rect
  // of a pixel, an inset() taking its whole width or height, a circle or ellipse of no
  // radius. Other shapes are taken as showing something.
  /** @param {Element} el @param {DOMRect} r */
  function selfClipped(el, r) {
    const cs = getComputedStyle(el);
    if (clipsAway(cs)) return true;
    const path = cs.clipPath;
    if (!path || path === "none") return false;
    const m = /^(inset|circle|ellipse)\((.*)\)/.exec(path);
    if (!m) return false;
    const size = (/** @type {string} */ v, /** @type {number} */ full) => (v.endsWith("%") ? (parseFloat(v) / 100) * full : parseFloat(v) || 0);
    const args = m[2].split(/\s+round\s+|\s+at\s+/)[0].trim().split(/\s+/);
    if (m[1] === "inset") {
      const [t, rt = t, b = t, l = rt] = args;
      return size(t, r.height) + size(b, r.height) >= r.height || size(l, r.width) + size(rt, r.width) >= r.width;
    }
    return args[0] !== "" && args.every((v) => /^0(\.0*)?(px|%)?$/.test(v));
  }

  /** @param {PageElement} el @param {Node} node */
  function labelsHold(el, node) {
    const labels = el.labels;
    if (!labels) return false;
    for (const l of labels) if (within(l, node)) return true;
    return false;
  }

  // Same-origin style rules with :hover that show something: [{row, target}] selectors
  // (the selector up to the hovered compound, and the whole one, without :hover), kept
  // per sheet until its rule count changes.
  /** @type {WeakMap<CSSStyleSheet, { n: number, list: HoverRule[], focus: string[] }>} */
  const HOVER_SHEETS = new WeakMap();
  // An empty fragment to try selectors on (a syntax check that matches nothing), made on
  // first use: node loads this file without a document for the label-rule tests.
  /** @type {DocumentFragment | null} */
  let validator = null;
  const validate = (/** @type {string} */ selector) => {
    if (!validator) validator = document.createDocumentFragment();
    validator.querySelector(selector);
  };
  const SHOWS = (/** @type {CSSStyleDeclaration} */ style) => {
    const o = style.getPropertyValue("opacity");
    const v = style.getPropertyValue("visibility");
    const d = style.getPropertyValue("display");
    return (o !== "" && parseFloat(o) >= FAINT) || v === "visible" || (d !== "" && d !== "none");
  };

  // Whether a :focus rule's declarations could bring an element on screen: show it, or
  // move, size or unclip it (a skip link's `top: 0`, `clip: auto`, `width: auto`). A
  // rule that only restyles what is already there (`a:focus { outline: dotted }`, as
  // most sites have) reveals nothing: were it evidence, every visibility:hidden link of
  // such a page would be offered.
  const MOVES = ["top", "left", "right", "bottom", "inset", "transform", "translate", "clip", "clip-path", "position", "width", "height", "margin-top", "margin-left"];
  const MOVES_ON = (/** @type {CSSStyleDeclaration} */ style) => SHOWS(style) || MOVES.some((p) => style.getPropertyValue(p) !== "");

  // "ul li:hover > .act, .x" -> per selector of the list, {row: "ul li", target: "ul li > .act"};
  // ".act:is(:where(.group):hover *)" -> {row: ":where(.group)", target: ".act:is(:where(.group) *)"}.
  // None when :hover sits inside another function (:not(:hover), :has(:hover)), a
  // pseudo-element is the subject, or a sibling combinator follows the hovered compound
  // (the revealed element is then not inside the hovered one).
  /** @param {string} text @param {HoverRule[]} out */
  function hoverSelectors(text, out) {
    const parts = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "(" || c === "[") depth++;
      else if (c === ")" || c === "]") depth--;
      else if (c === "," && depth === 0) {
        parts.push(text.slice(start, i));
        start = i + 1;
      }
    }
    parts.push(text.slice(start));
    for (const raw of parts) {
      const sel = raw.trim();
      if (!sel.includes(":hover") || sel.includes("::")) continue;
      let last = -1;
      let bad = false;
      // The function the last :hover sits in ("" at the top level).
      let inside = "";
      /** @type {string[]} */
      const fns = [];
      depth = 0;
      for (let i = 0; i < sel.length; i++) {
        const c = sel[i];
        if (c === "(") {
          fns.push(/** @type {RegExpExecArray} */ (/[\w-]*$/.exec(sel.slice(0, i)))[0]); // matches, if only "".
          depth++;
        } else if (c === "[") {
          fns.push("[");
          depth++;
        } else if (c === ")" || c === "]") {
          fns.pop();
          depth--;
        } else if (c === ":" && sel.startsWith(":hover", i)) {
          const fn = fns.length ? fns[fns.length - 1] : "";
          // :not(:hover) shows when not hovered; :has(:hover) when something inside is.
          if (fn !== "" && fn !== "is" && fn !== "where") bad = true;
          last = i;
          inside = fn;
        }
      }
      if (bad || last < 0) continue;
      const target = sel.split(":hover").join("").trim();
      let row;
      if (inside) {
        // Tailwind's group-hover: `.x:is(:where(.group):hover *)`. The hovered element
        // is the compound just before :hover, back to a combinator or the "(".
        let from = last;
        let d = 0;
        while (from > 0) {
          const c = sel[from - 1];
          if (c === ")" || c === "]") d++;
          else if (c === "(" || c === "[") {
            if (d === 0) break;
            d--;
          } else if (d === 0 && (c === " " || c === ">" || c === "+" || c === "~" || c === ",")) break;
          from--;
        }
        row = sel.slice(from, last).trim();
      } else {
        // The end of the hovered compound: the next combinator outside brackets.
        let end = sel.length;
        depth = 0;
        for (let i = last; i < sel.length; i++) {
          const c = sel[i];
          if (c === "(" || c === "[") depth++;
          else if (c === ")" || c === "]") depth--;
          else if (depth === 0 && (c === " " || c === ">" || c === "+" || c === "~")) {
            end = i;
            break;
          }
        }
        if (/[+~]/.test(sel.slice(end).replace(/\([^)]*\)|\[[^\]]*\]/g, ""))) continue;
        row = sel.slice(0, end).split(":hover").join("").trim();
      }
      if (!row || /[\s>]$/.test(row)) continue;
      try {
        // Both must parse here: the targets are matched as one selector list.
        validate(row);
        validate(target);
      } catch (_) {
        continue;
      }
      out.push({ row, target });
    }
  }

  // Hover rules into `out`; into `focus`, the selectors (without :focus,
  // :focus-visible, :focus-within) of rules that bring an element on screen when it or
  // something inside it has the keyboard focus (a "skip to content" link that moves on
  // screen: MOVES_ON).
  /** @param {CSSRuleList} rules @param {HoverRule[]} out @param {string[]} focus @param {number} depth */
  function scanRules(rules, out, focus, depth) {
    for (let i = 0; i < rules.length && out.length < 500; i++) {
      // A style rule (selectorText, style) or a grouping one (cssRules).
      const rule = /** @type {CSSRule & Partial<CSSStyleRule> & Partial<CSSGroupingRule>} */ (rules[i]);
      if (rule.selectorText !== undefined) {
        const text = rule.selectorText;
        if (text.includes(":hover") && SHOWS(/** @type {CSSStyleDeclaration} */ (rule.style))) hoverSelectors(text, out);
        if (text.includes(":focus") && focus.length < 200 && MOVES_ON(/** @type {CSSStyleDeclaration} */ (rule.style))) focusSelectors(text, focus);
      } else if (rule.cssRules && depth < 4) {
        scanRules(rule.cssRules, out, focus, depth + 1); // @media, @supports, @layer
      }
    }
  }

  /** @param {string} text @param {string[]} focus */
  function focusSelectors(text, focus) {
    for (const raw of text.split(",")) {
      const sel = raw.trim();
      if (!/:focus(-visible|-within)?(?![\w-])/.test(sel) || sel.includes("::") || /\([^)]*:focus/.test(sel)) continue;
      const target = sel.replace(/:focus(-visible|-within)?(?![\w-])/g, "").trim();
      if (!target || /[\s>+~]$/.test(target)) continue;
      try {
        validate(target);
      } catch (_) {
        continue;
      }
      focus.push(target);
    }
  }

  // The hover rules that apply in `root` (a document or a shadow root), and their
  // targets as one selector list, kept for the extraction.
  /** @param {Node} root @param {Pass} pass @returns {HoverRules} */
  function hoverRulesOf(root, pass) {
    let got = pass.hover.get(root);
    if (got === undefined) {
      /** @type {string[]} */
      const focus = [];
      const list = hoverRules(root, focus).slice(0, 300);
      got = { list, any: list.map((r) => r.target).join(", "), focus: focus.slice(0, 300).join(", ") };
      pass.hover.set(root, got);
    }
    return got;
  }

  // Whether a same-origin style rule brings `el` (or an ancestor) on screen when it has
  // the keyboard focus (MOVES_ON): a control a keyboard user brings on screen. Only lets the probe
  // offer it; the dispatcher really focuses it and checks again (focus, unlike hover,
  // can be given for real).
  /** @param {Element} el @param {Pass} pass */
  function focusReveals(el, pass) {
    // Every element has tabIndex (HTML, SVG and MathML alike).
    if (/** @type {HTMLElement} */ (el).tabIndex < 0) return false;
    const rules = hoverRulesOf(el.getRootNode(), pass);
    try {
      return Boolean(rules.focus) && el.closest(rules.focus) !== null;
    } catch (_) {
      return false;
    }
  }

  /** @param {Node} root a document or a shadow root (or a detached subtree's top) @param {string[]} focus */
  function hoverRules(root, focus) {
    /** @type {HoverRule[]} */
    const out = [];
    const sheets = Array.from(/** @type {Partial<DocumentOrShadowRoot>} */ (root).styleSheets || []);
    const adopted = /** @type {Partial<DocumentOrShadowRoot>} */ (root).adoptedStyleSheets;
    if (adopted) sheets.push(...adopted);
    for (const sheet of sheets) {
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (_) {
        continue; // another origin's sheet: not readable, not evidence
      }
      let cached = HOVER_SHEETS.get(sheet);
      if (!cached || cached.n !== rules.length) {
        cached = { n: rules.length, list: [], focus: [] };
        scanRules(rules, cached.list, cached.focus, 0);
        HOVER_SHEETS.set(sheet, cached);
      }
      for (const r of cached.list) out.push(r);
      for (const f of cached.focus) focus.push(f);
    }
    return out;
  }

  // The row whose hover reveals a transparent or visibility:hidden control, or null.
  //
  // What is accepted, and why a page cannot use it to have an agent click something a
  // person cannot see. Evidence of a reveal is (a) a same-origin style rule with :hover
  // that sets opacity above 0, visibility: visible or a display other than none, whose
  // selector without :hover matches the control or an ancestor of it inside the hovered
  // element, which must itself be visible and opaque; or (b) a mouseenter, mouseover,
  // pointerenter or pointerover listener (`hover`, from page-world.js) on one of the
  // control's nearest ancestors (not <html> or <body>). Evidence only lets the probe
  // offer the control. Acting on it is decided by the dispatcher at the moment of the
  // click, in the same task as the click: it hovers the row the way a person's pointer
  // would (pointerover, mouseover, pointerenter, mouseenter at the control's centre) and
  // checks again. Evidence (b) then counts for nothing: the control must now be visible,
  // opaque and topmost at its centre by the full rule. Only (a), which synthetic events
  // cannot trigger (they do not set :hover), is taken on the stylesheet's word, and only
  // when the hovered row is visible and opaque and the topmost element at the control's
  // centre is the control or inside that row: the point a person's pointer would rest
  // on is then inside a row they see, and the page's own rule shows the control there.
  // A page that writes such a rule and then overrides it (a later !important) can keep
  // a control invisible under a visible row; what it gets is a click at a place in a
  // row the person sees, on a control whose label and tier the gate read, exactly as a
  // person pointing there would click it. Covered, clipped, inert, aria-hidden, closed,
  // zero-size and off-page controls are never revealed by hovering.
  /** @param {Element} el @param {Listened | null} hover @param {Pass} pass */
  function hoverRow(el, hover, pass) {
    if (hover && hover.count > 0) {
      let n = 0;
      for (let a = up(el); a && n < 8; a = up(a), n++) {
        if (a.localName === "body" || a.localName === "html") break;
        if (hover.set.has(a)) return a;
      }
    }
    return cssHoverRow(el, pass);
  }

  /** @param {Element} el @param {Pass} pass */
  function cssHoverRow(el, pass) {
    const rules = hoverRulesOf(el.getRootNode(), pass);
    // One match against all the targets first: most controls have no rule at all.
    if (!rules.any || !el.closest(rules.any)) return null;
    for (const rule of rules.list) {
      /** @type {Element | null} */
      let t = null;
      /** @type {Element | null} */
      let row = null;
      try {
        t = el.closest(rule.target);
        row = t ? t.closest(rule.row) : null;
      } catch (_) {
        continue; // a selector this engine's matches() does not take
      }
      if (row && typeof row.checkVisibility === "function" && drawn(row, pass)) return row;
    }
    return null;
  }

  // Whether a click on a <label> of `el` works it even when `el` is not rendered at all:
  // a checkbox or radio button (activating its label toggles it, whatever its display).
  // CSS-only toggles, switches, tabs and menus hide the box with display:none and
  // style the label (the checkbox hack); a text field so hidden is not reachable
  // through its label.
  /** @param {Element} el */
  function labelToggles(el) {
    if (el.localName !== "input") return false;
    const type = /** @type {HTMLInputElement} */ (el).type;
    return type === "checkbox" || type === "radio";
  }

  // The labels of a field that a person can see, if the field itself is hidden for
  // styling (the custom checkbox pattern).
  /** @param {PageElement} el @param {Pass} pass */
  function visibleLabel(el, pass) {
    const labels = FIELD_TAGS.has(el.localName) ? el.labels : null;
    if (!labels) return null;
    for (const l of labels) {
      if (typeof l.checkVisibility === "function" && drawn(l, pass) && !placeProblem(l, l, null, pass, false)) return l;
    }
    return null;
  }

  // The thumb a person drags for a range input hidden for styling inside it (React
  // Aria's, MUI's and Streamlit's sliders put a visually-hidden <input type=range> in
  // the thumb, and move it by its input events): the nearest of the input's three
  // closest ancestors with a box, when a person sees that ancestor at its centre, it is
  // no control itself and it holds no control but the input. null: none.
  /** @param {PageElement} el @param {Pass} pass @returns {Element | null} */
  function thumbOf(el, pass) {
    if (el.localName !== "input" || /** @type {HTMLInputElement} */ (el).type !== "range") return null;
    let a = up(el);
    for (let k = 0; a && k < 3; k++, a = up(a)) {
      const r = a.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue;
      if (isControl(a, a.getAttribute("role") || "", false) || a.querySelectorAll(THUMB_HOLDS).length !== 1) return null;
      return drawn(a, pass) && !placeProblem(el, a, null, pass, false) ? a : null;
    }
    return null;
  }

  /** @param {Element} el @param {string} role @param {boolean} clickable */
  function isControl(el, role, clickable) {
    return clickable || PERCEIVED_TAGS.has(el.localName) || CONTROL_ROLES.has(role);
  }

  // Why a rendered element cannot be perceived, or "" (see above). `flags`: ARIA_HIDDEN,
  // CLOSED, INERT of its ancestors and itself; `hover`: {set, count} of elements with
  // hover listeners; `opts.strict`: the dispatcher's check after scrolling (a bar over
  // the control covers it); `opts.reveal`: which evidence of a hover reveal counts,
  // "any" (the default: listeners and style rules), "css" (the dispatcher has hovered
  // the row already: only a style rule's reveal, which events cannot trigger) or "none";
  // `opts.point`: {x, y} to hit-test instead of the centre.
  /**
   * @param {PageElement} el
   * @param {number} flags
   * @param {boolean} control
   * @param {Listened | null} hover
   * @param {Pass} pass
   * @param {PerceiveOptions | null} opts
   */
  function hiddenReason(el, flags, control, hover, pass, opts) {
    if ((flags & INERT) !== 0) return "it is inert";
    if (el.localName === "textarea" && codeMirrorOf(el) === false) return "its editor types through it for the text area before the editor";
    const standIn = drawnFor(el);
    if (standIn !== null) el = standIn;
    if ((flags & ARIA_HIDDEN) !== 0) return "it is under aria-hidden";
    if ((flags & CLOSED) !== 0) return "it is inside a closed <details>";
    const strict = Boolean(opts && opts.strict);
    let row = null;
    if (typeof el.checkVisibility !== "function") {
      if (opts && opts.unrendered && el.getClientRects().length === 0) return "it is not rendered";
    } else if (!drawn(el, pass)) {
      // Not rendered at all: hidden, unless a label a person sees toggles it.
      if (opts && opts.unrendered && !shows(el)) return labelToggles(el) && visibleLabel(el, pass) ? "" : "it is not rendered";
      const label = visibleLabel(el, pass);
      if (label) return "";
      const reveal = (opts && opts.reveal) || "any";
      if (reveal === "css") row = cssHoverRow(el, pass);
      else if (reveal === "any") row = hoverRow(el, hover, pass);
      if (!row) {
        if (reveal === "any" && focusReveals(el, pass)) return "";
        if (pass.faded.length < MAX_FADED) pass.faded.push(el);
        return "it is transparent or visibility:hidden";
      }
    }
    if (!control) return "";
    const problem = placeProblem(el, el, row, pass, strict, (opts && opts.point) || null);
    if (!problem) return "";
    if (!row && (visibleLabel(el, pass) || thumbOf(el, pass))) return "";
    // A control that keyboard focus brings on screen (a skip link) is offered; the
    // dispatcher focuses it for real and checks again before any event.
    if ((!opts || !opts.reveal || opts.reveal === "any") && focusReveals(el, pass)) return "";
    return problem;
  }

  // What ancestors decide for an element (the walk's INERT, ARIA_HIDDEN, CLOSED),
  // computed from the DOM for one element (the dispatcher, a patch's root).
  /** @param {Element} el */
  function ancestorFlags(el) {
    let flags = 0;
    let prev = el;
    for (let a = /** @type {Element | null} */ (el); a; prev = a, a = up(a)) {
      if (a.hasAttribute("inert")) flags |= INERT;
      if (a.getAttribute("aria-hidden") === "true") flags |= ARIA_HIDDEN;
      if (a !== el && a.localName === "details" && !a.hasAttribute("open") && !(prev.localName === "summary" && firstSummary(a) === prev)) flags |= CLOSED;
    }
    return flags;
  }

  /** @param {Element} details */
  function firstSummary(details) {
    for (let c = details.firstElementChild; c; c = c.nextElementSibling) if (c.localName === "summary") return c;
    return null;
  }

  // The perceivability rule for one live element, as a full extraction applies it:
  // "" or why not. For the dispatcher (`opts`: see hiddenReason) and nspd's resolve.
  // What a person sees of `el` and would click: `el`, what a script draws for it
  // (drawnFor: CodeMirror's editor, Selectize's box), or for a checkbox or radio button
  // not rendered at all, the first label of it a person sees (null: none).
  /** @param {PageElement} el @returns {Element | null} */
  function shownAs(el) {
    const standIn = drawnFor(el);
    if (standIn !== null) return standIn;
    if (el.getClientRects().length > 0 || !labelToggles(el) || !el.isConnected) return el;
    return visibleLabel(el, strictPass());
  }

  /** @param {PageElement | null} el @param {Listened | null} hover @param {PerceiveOptions | null} opts */
  function perceive(el, hover, opts) {
    if (!el || !el.isConnected) return "it is no longer on the page";
    const frame = el.ownerDocument.defaultView && el.ownerDocument.defaultView.frameElement;
    if (frame && !visible(frame, { frameVisible: true })) return "its frame is not shown";
    // A checkbox or radio button not rendered at all is asked about with the others:
    // hiddenReason lets one through by a label a person sees.
    const rendered = visible(drawnFor(el) || el, { frameVisible: true });
    if (!rendered && !labelToggles(el)) return "it is not rendered";
    const role = el.getAttribute("role") || "";
    return hiddenReason(el, ancestorFlags(el), isControl(el, role, true), hover, strictPass(), rendered ? opts : { ...opts, unrendered: true });
  }

  // A walk's shapes (see visit): what is fixed for one walk, what a parent hands its
  // children, and what visit found about an element it records.
  /**
   * @typedef {{ recs: ElementRecord[], nodes: Element[], ends: number[], base: number }} Walk
   * @typedef {{ root: TreeRoot, prefix: string, frameVisible: boolean }} Scope
   * @typedef {{ walk: Walk, ctx: Scope, idx: number | null, head: string, relHead: string | null,
   *   flags: number, visible: boolean | null }} Above
   * @typedef {{ el: PageElement, tag: string, bits: number, role: string, cls: string | null,
   *   parentIdx: number | null, where: string | number, relative: boolean, inert: boolean,
   *   clickable: boolean, vis: boolean, names: string[], unique: boolean, ask: number,
   *   children: number, block: boolean, unseen: boolean, muted: boolean }} Found
   */

  /** @implements {NspExtractor} */
  class Extractor {
    // `maxRecords`: stop recording past this many elements (the page's own cap,
    // MAX_RECORDS, by default; content.js's warm-up records a few hundred).
    /** @param {Document} [doc] @param {{ maxRecords?: number }} [options] */
    constructor(doc, options) {
      this.doc = doc || document;
      this.maxRecords = Math.min((options && options.maxRecords) || MAX_RECORDS, MAX_RECORDS);
      /** @type {Element[]} */
      this.nodes = [];
      /** @type {ElementRecord[]} */
      this.recs = [];
      /** @type {number[]} */
      this.ends = [];
      this.truncated = false;
      // Elements the page attached click listeners to, reported by the main-world
      // shim just before each extraction (content.js fills it).
      /** @type {WeakSet<Element>} */
      this.clickable = new WeakSet();
      this.clickableCount = 0;
      /** @type {((root: ShadowRoot) => void) | null} */
      this.onShadowRoot = null;
      /** @type {((frame: Element, doc: Document) => void) | null} */
      this.onFrame = null;
      // Elements that are ours, not the page's (content.js's short-lived channel frame):
      // not part of any snapshot.
      /** @type {WeakSet<Node>} */
      this.own = new WeakSet();
      this.indexed = true;
      // Elements with hover listeners (mouseenter and the like), reported by the
      // main-world script as the page adds them (content.js fills it): evidence that a
      // row reveals its controls on hover (see hoverRow).
      /** @type {Listened} */
      this.hover = { set: new WeakSet(), count: 0 };
      this.pass = newPass();
      // visitChildren's second result (see there).
      this.childBlock = 0;
    }

    // A whole new table. Returns the PageSnapshot object.
    full() {
      const started = performance.now();
      this.pass = newPass();
      this.nodes = [];
      this.recs = [];
      this.ends = [];
      this.truncated = false;
      const root = this.doc.documentElement;
      if (root) {
        const walk = { recs: this.recs, nodes: this.nodes, ends: this.ends, base: 0 };
        const ctx = { root: this.doc, prefix: "", frameVisible: true };
        const walkAll = () => this.visit(root, root.localName, null, 0, { walk, ctx, idx: null, head: "html", relHead: null, flags: 0, visible: null });
        walkAll();
        const rows = this.twinRows();
        if (this.fieldGroups() || rows) {
          // Rows or groups found for the first time: walked again, to record them (and
          // the rows' words).
          this.pass = newPass();
          this.nodes.length = this.recs.length = this.ends.length = 0;
          this.truncated = false;
          walkAll();
        }
      }
      this.indexed = false;
      return this.snapshot(performance.now() - started);
    }

    // Rows drawn with nothing that says so (Streamlit's `st.columns`, cards of `div`s):
    // two or more visible controls of one tag and one label recorded under one parent,
    // which no row holds apart, each inside its own child of the nearest element
    // holding them all. Those children are rows when they are of one tag, hold no
    // field, and each shows words of its own besides the control's, different from
    // every other's (a form's "Save" at its top and at its bottom shows none): from
    // then on each is recorded with its words, marked `nsp-row`, and the element
    // holding them is recorded too, so the probe finds a list whose rows tell its
    // controls apart. Returns whether any row is new.
    twinRows() {
      const recs = this.recs;
      // Cards first: a book in two grids is no twin making rows of the grids' sections.
      /** @type {Set<number>} */
      const inCard = new Set();
      const carded = this.cardRows(inCard);
      /** @type {Map<string, number[]>} */
      const groups = new Map();
      for (let i = 0; i < recs.length; i++) {
        const r = recs[i];
        const label = r[6] || r[R_TEXT];
        if (inCard.has(i) || r[R_PARENT] === null || !label || (r[3] & (F_HIDDEN | F_DISABLED)) !== 0 || !(r[0] === "button" || r[0] === "a" || (r[3] & F_CLICKABLE) !== 0)) continue;
        if (inRowRecord(recs, r)) continue;
        // Under one parent, not counting paragraphs (recorded as running text): a
        // card's button in a `<p>` is beside its twins all the same.
        /** @type {number | null} */
        let parent = r[R_PARENT];
        while (parent !== null && recs[parent][0] === "p") parent = recs[parent][R_PARENT];
        if (parent === null) continue;
        const key = `${parent}\u0001${r[0]}\u0001${label}`;
        const group = groups.get(key);
        if (group) group.push(i);
        else groups.set(key, [i]);
      }
      let added = false;
      for (const group of groups.values()) {
        if (group.length < 2) continue;
        const controls = group.map((i) => this.nodes[i]);
        let holder = controls[0].parentElement;
        while (holder && !controls.every((c) => holder !== null && holder.contains(c))) holder = holder.parentElement;
        if (!holder) continue;
        const rows = controls.map((c) => {
          let a = c;
          while (a.parentElement && a.parentElement !== holder) a = a.parentElement;
          return a;
        });
        const words = rows.map((row, k) => norm((row.textContent || "").replace(controls[k].textContent || "", ""), 200));
        if (rows.some((row, k) => row === controls[k] || row.localName !== rows[0].localName || row.querySelector("input, select, textarea, [contenteditable]") !== null)) continue;
        if (words.some((w, k) => w === "" || words.indexOf(w) !== k)) continue;
        if (markRows(rows, holder)) added = true;
      }
      return this.recordButtons(inCard) || carded || added;
    }

    // Buttons each drawn as a whole record (a mail client's messages: sender, time,
    // subject and the start of the text in one `<button>`): two or more visible,
    // enabled buttons (or clickable elements) of one tag sharing a class (each may add
    // its state's: read, selected), children of one element, no row holding them, each holding three or more elements with words
    // (a command and its shortcut are two) and nothing else a person presses or fills,
    // not all showing the same words (a mailbox may hold one message twice). Each is a row of its own, marked as twinRows marks its rows, so
    // that its words are recorded as its cells and the probe reads its record (and,
    // in rows.rs, pressing it as opening that record). Returns whether any row is new.
    /** @param {Set<number>} inCard */
    recordButtons(inCard) {
      const recs = this.recs;
      /** @type {Map<Element, Map<string, Element[]>>} */
      const groups = new Map();
      for (let i = 0; i < recs.length; i++) {
        const r = recs[i];
        const node = this.nodes[i];
        // A record button found before is a card's control to cardRows: it still counts
        // here, where a new message beside it is judged with it.
        if ((inCard.has(i) && !TWIN_ROWS.has(node)) || (r[3] & (F_HIDDEN | F_DISABLED)) !== 0 || !(r[0] === "button" || (r[3] & F_CLICKABLE) !== 0) || inRowRecord(recs, r)) continue;
        const parent = node.parentElement;
        if (parent === null || !node.firstElementChild) continue;
        let shapes = groups.get(parent);
        if (!shapes) groups.set(parent, (shapes = new Map()));
        const shape = r[0];
        const group = shapes.get(shape);
        if (group) group.push(node);
        else shapes.set(shape, [node]);
      }
      let added = false;
      for (const [parent, shapes] of groups) {
        for (const buttons of shapes.values()) {
          if (buttons.length < 2 || buttons.every((b) => TWIN_ROWS.has(b))) continue;
          // One class among them all, whatever each adds of its state (read, selected).
          const classes = buttons.map((b) => (b.getAttribute("class") || "").split(/\s+/).filter(Boolean));
          if (classes.some((c) => c.length > 0) && !classes[0].some((c) => classes.every((o) => o.includes(c)))) continue;
          const words = buttons.map((b) => norm(b.textContent || "", 200));
          if (words.some((w) => w === "") || words.every((w) => w === words[0])) continue;
          if (buttons.some((b) => b.querySelector(PRESSED_INSIDE) !== null || wordyParts(b) < 3)) continue;
          if (markRows(buttons, parent)) added = true;
        }
      }
      return added;
    }

    // Fields and their button with nothing recorded around them (Shiny's and
    // Bootstrap's cards are `div`s of classes; the fields and the button carry ids):
    // for a visible, enabled button in no form and no row whose nearest GROUP_REACH
    // recorded ancestors hold no field, the nearest element above it (at most
    // GROUP_DEPTH up, below `body`, not a form) that holds a field a person fills is
    // recorded from then on, so the probe finds the group it sends (forms.rs,
    // field_group) and a second card's button beside it is told apart. The search stops
    // at a region holding no field (a navigation bar's button sends nothing beside it),
    // as the probe's does, and at an element holding a region (the page's layout around
    // its header, its sections and its forms, not a group of fields). Nothing is asked
    // of a page whose fields are all in forms.
    // Returns whether any group is new.
    fieldGroups() {
      const recs = this.recs;
      const nodes = this.nodes;
      let loose = false;
      for (let i = 0; i < recs.length && !loose; i++) {
        const r = recs[i];
        if (FIELD_TAGS.has(r[0]) && (r[3] & (F_HIDDEN | F_DISABLED)) === 0 && /** @type {HTMLInputElement} */ (nodes[i]).form === null) loose = true;
      }
      if (!loose) return false;
      // The elements holding a field a person fills: the ancestors of each recorded
      // one, each marked once (a page of thousands of buttons asks a set, not the DOM).
      /** @type {Set<Element>} */
      const above = new Set();
      for (let i = 0; i < recs.length; i++) {
        const node = nodes[i];
        const field = FIELD_TAGS.has(recs[i][0]) ? /** @type {HTMLInputElement} */ (node).type !== "hidden" : node.hasAttribute("contenteditable") && /** @type {HTMLElement} */ (node).isContentEditable;
        if (!field) continue;
        for (let a = node.parentElement; a !== null && !above.has(a); a = a.parentElement) above.add(a);
      }
      const holdsField = (/** @type {Element} */ el) => above.has(el);
      /** @type {Map<Element, boolean>} */
      const grouping = new Map();
      let added = false;
      for (let i = 0; i < recs.length; i++) {
        const r = recs[i];
        if ((r[3] & (F_HIDDEN | F_DISABLED)) !== 0 || inRowRecord(recs, r)) continue;
        const node = nodes[i];
        const tag = r[0];
        const button = tag === "button" || (tag === "input" && /^(?:submit|button)$/i.test(node.getAttribute("type") || "")) || node.getAttribute("role") === "button";
        if (!button || node.closest("form") !== null) continue;
        let held = false;
        for (let p = r[R_PARENT], d = 0; p !== null && d < GROUP_REACH && !held; p = recs[p][R_PARENT], d++) held = holdsField(nodes[p]);
        if (held) continue;
        for (let a = node.parentElement, d = 0; a !== null && d < GROUP_DEPTH; a = a.parentElement, d++) {
          if (a.localName === "body" || a.localName === "html") break;
          if (!holdsField(a)) {
            if (REGION_TAGS.has(a.localName) || a.localName.includes("-") || REGION_ROLES.has((a.getAttribute("role") || "").trim().split(/\s+/)[0])) break;
            continue;
          }
          // A container of regions is the page's layout, not a group of fields. Asked
          // once per element: a thousand buttons in one container ask it once.
          let group = grouping.get(a);
          if (group === undefined) grouping.set(a, (group = a.querySelector(REGION_SELECTOR) === null));
          if (group && !FIELD_GROUPS.has(a)) {
            FIELD_GROUPS.add(a);
            GROUPS_SEEN++;
            added = true;
          }
          break;
        }
      }
      return added;
    }

    // Cards drawn with nothing that says they are rows (a grid of books or products:
    // a cover, a title and an author, each a link): three or more children of one
    // element, all of one tag and one class, each holding as many recorded links and
    // buttons below it as the others (one template; a timeline's days hold as many
    // entries as they had) or, once each, a link or button of one label or one class
    // that every other holds once too (a thread's permalink under each comment, the
    // reader's own with its "Edit" and "Delete" besides; a timeline's day holding two
    // entries holds their class twice), no field, and words of its own different from
    // every other's. From a
    // control, up to CARD_DEPTH ancestors are climbed to the first whose siblings all
    // share its tag and class; a control that is itself such a sibling (a bar of links)
    // is no card. Marked as twinRows marks its rows; `inCard` gets the records of the
    // controls inside a card. Returns whether any row is new.
    /** @param {Set<number>} inCard */
    cardRows(inCard) {
      const recs = this.recs;
      /** @type {Map<number, Element>} */
      const cardOf = new Map();
      /** @type {Map<Element, boolean>} */
      const uniform = new Map();
      // The controls each card holds.
      /** @type {Map<Element, number>} */
      const reached = new Map();
      // The labels and classes of the controls each card holds, with how many hold each.
      /** @type {Map<Element, Map<string, number>>} */
      const marks = new Map();
      /** @type {Set<Element>} */
      const holders = new Set();
      for (let i = 0; i < recs.length; i++) {
        const r = recs[i];
        if ((r[3] & (F_HIDDEN | F_DISABLED)) !== 0 || !(r[0] === "a" || r[0] === "button")) continue;
        if (inRowRecord(recs, r)) continue;
        /** @type {Element} */
        let a = this.nodes[i];
        for (let d = 0; d < CARD_DEPTH; d++) {
          const p = a.parentElement;
          // A card found before is counted with its grid, so that one added since (a
          // new comment) is judged beside it.
          const known = TWIN_ROWS.has(a);
          if (known) inCard.add(i);
          if (!p || rowish(a) || rowish(p)) break;
          let u = uniform.get(p);
          if (u === undefined) {
            u = sameShape(p);
            uniform.set(p, u);
          }
          if (u) {
            if (d > 0) {
              holders.add(p);
              reached.set(a, (reached.get(a) || 0) + 1);
              let held = marks.get(a);
              if (!held) marks.set(a, (held = new Map()));
              const cls = this.nodes[i].getAttribute("class");
              for (const m of [r[6] || r[R_TEXT], cls && "\u0001" + cls]) if (m) held.set(m, (held.get(m) || 0) + 1);
              cardOf.set(i, a);
            }
            break;
          }
          if (known) break;
          a = p;
        }
      }
      let added = false;
      for (const holder of holders) {
        const cards = holder.children;
        /** @type {Set<string>} */
        const words = new Set();
        let ok = true;
        const each = reached.get(cards[0]);
        // A label or class every card's controls show once (none when a card holds no
        // control).
        const all = [...cards];
        const shared = all.every((c) => reached.get(c) === each) || [...(marks.get(cards[0]) || [])].some(([m]) => all.every((c) => marks.get(c)?.get(m) === 1));
        for (const card of cards) {
          const w = norm(card.textContent, 200);
          if (!shared || w === "" || words.has(w) || card.querySelector("input, select, textarea, [contenteditable]") !== null) {
            ok = false;
            break;
          }
          words.add(w);
        }
        if (!ok) continue;
        if (markRows(cards, holder)) added = true;
        // The element holding the grid and a heading before it ("Books" above the
        // cards): recorded too, so that the list is named by its heading.
        const up = holder.parentElement;
        for (let s = holder.previousElementSibling, n = 0; up && s && n < 3; s = s.previousElementSibling, n++) {
          if (/^h[1-6]$/.test(s.localName)) {
            TWIN_LISTS.add(up);
            break;
          }
        }
      }
      for (const [i, card] of cardOf) if (TWIN_ROWS.has(card)) inCard.add(i);
      return added;
    }

    // Marks each recorded node with its index, for recordedAncestor. Done by the first
    // patch after a full extraction rather than by the extraction itself, whose time
    // a capture waits for (and many captures are never patched).
    index() {
      if (this.indexed) return;
      for (let i = 0; i < this.nodes.length; i++) /** @type {Marked} */ (this.nodes[i])[IDX] = i;
      this.indexed = true;
    }

    /** @param {number} extractMs @returns {PageSnapshot} */
    snapshot(extractMs) {
      const doc = this.doc;
      const meta = doc.querySelector('meta[name="application-name"]') || doc.querySelector('meta[property="og:site_name"]');
      /** @type {unknown[]} */
      const jsonLd = [];
      for (const s of doc.querySelectorAll('script[type="application/ld+json"]')) {
        if (jsonLd.length >= MAX_JSON_LD) break;
        const text = s.textContent || "";
        if (text.length > JSON_LD_LIMIT) continue;
        try {
          jsonLd.push(JSON.parse(text));
        } catch (_) {
          // Broken JSON-LD is the page's problem, not a reason to fail.
        }
      }
      /** @type {PageSnapshot} */
      const snap = {
        url: doc.location ? doc.location.href : "",
        title: norm(doc.title, TEXT_LIMIT),
        site_name: meta ? norm(meta.getAttribute("content"), TEXT_LIMIT) : null,
        elements: this.recs,
        extract_ms: extractMs,
        unsettled: false,
        truncated: this.truncated,
      };
      if (jsonLd.length) snap.json_ld = jsonLd;
      return snap;
    }

    // Depth-first over one element and its subtree. `at` is what its parent hands all
    // its children alike (an Above, made once per parent, not per element: extraction
    // runs on every capture); `step` and `nth` are the element's own.
    //
    // An Above's `walk` is fixed for the whole walk: the tables `recs`/`nodes`/`ends` it
    // appends to, with indexes offset by `base` (non-zero when re-extracting a subtree
    // in place). Its `ctx` changes only at a shadow root or a frame (root, prefix,
    // frameVisible). `idx` is the nearest recorded ancestor's index (null for none),
    // `flags` what ancestors decide (ROW, CELL, INERT), `visible` the parent's
    // visibility (null: not known, ask).
    //
    // The element's selector is `head + step` (its parent's selector and a combinator,
    // then its own `tag:nth-of-type(n)`) unless an id names it on its own; a null `step`
    // means `head` is the whole selector already (the root of a document or of a
    // re-extracted subtree). `relHead` likewise leads the path relative to the nearest
    // recorded ancestor ("" when that is the parent), or is null when the path starts
    // afresh (an id, a shadow root). The parent builds `head` and `relHead` once for all
    // its children, and the element its own selector only after its id is known; V8
    // keeps the concatenations as cheap rope strings.
    /**
     * @param {PageElement} el
     * @param {string} tag
     * @param {string | null} step
     * @param {number} nth
     * @param {Above} at
     * @returns {number} B_NO_TEXT, B_UNSEEN and B_MUTED, of the element and its subtree
     */
    visit(el, tag, step, nth, at) {
      const walk = at.walk;
      const recs = walk.recs;
      const base = walk.base;
      const ctx = at.ctx;
      const flags = at.flags;
      const parentIdx = at.idx;
      const bits = /** @type {number} */ (TAG_BITS.get(tag)) | 0;
      // A skipped element still keeps its text (a <style>'s CSS) out of its parent's.
      if ((bits & T_SKIP) !== 0 && tag !== "svg") return (bits & T_NO_TEXT) !== 0 ? B_NO_TEXT : 0;
      if (base + recs.length >= this.maxRecords) {
        this.truncated = true;
        return 0;
      }
      // One pass over the element's attributes decides everything below; record()
      // reads the values it keeps from the same names.
      let role = "";
      let inert = (flags & INERT) !== 0;
      let ariaHidden = (flags & ARIA_HIDDEN) !== 0;
      let ariaHiddenHere = false;
      let marked = false;
      /** @type {string | null} */
      let cls = null;
      /** @type {string | null} */
      let style = null;
      let hidden = false;
      let onclick = false;
      let href = false;
      let ariaLabel = false;
      let id = false;
      let dataApi = false;
      // ASK_* bits: attributes record() must ask the DOM about (see note()).
      let ask = 0;
      let names = NO_NAMES;
      let unique = true;
      if (el.hasAttributes()) {
        names = el.getAttributeNames();
        const count = names.length;
        unique = count < 2 || allDifferent(names);
        for (let k = 0; k < count; k++) {
          const n = names[k];
          switch (n) {
            case "role":
              role = attrValue(el, names, k, unique);
              marked = true;
              break;
            case "inert":
              inert = true;
              break;
            case "aria-hidden":
              if (attrValue(el, names, k, unique) === "true") ariaHidden = ariaHiddenHere = true;
              break;
            case "class":
              cls = attrValue(el, names, k, unique);
              break;
            case "style":
              style = attrValue(el, names, k, unique);
              break;
            case "hidden":
              hidden = true;
              break;
            case "onclick":
              onclick = true;
              break;
            case "href":
              href = true;
              break;
            case "aria-label":
              ariaLabel = true;
              marked = true;
              break;
            case "id":
              // Only an attribute named exactly "id" gives `el.id` a value.
              id = true;
              marked = true;
              break;
            case "data-toggle":
            case "data-bs-toggle":
              if (DATA_API_TOGGLES.has(attrValue(el, names, k, unique).trim())) dataApi = true;
              break;
            default:
              if (!marked && (MARKS.has(n) || (n.startsWith("data-") && isDataKey(n)))) marked = true;
              ask |= note(n);
          }
        }
      }
      const clsBits = cls ? classBits(cls) : 0;
      // (A link or button is a control already: the data API adds nothing to it.)
      let clickable = onclick || (dataApi && !PERCEIVED_TAGS.has(tag)) || (this.clickableCount > 0 && this.clickable.has(el));
      // An element a control names as its label or description, which the page makes
      // clickable to do what that control does (Wagtail's panel heading, described by
      // the panel's toggle): the control is the action.
      if (clickable && id && !PERCEIVED_TAGS.has(tag) && namesControl(el)) clickable = false;
      // A table's row the page draws with a pointer cursor (mitmweb's flow list, clicked
      // through one listener at the root, which no listener of the row's shows).
      if (!clickable && (tag === "tr" || role === "row") && pointerRow(el, this.pass)) clickable = true;
      let record = marked || clickable || (bits & T_ALWAYS) !== 0 || (tag === "a" && href);
      if (!record && (tag === "div" || tag === "span" || tag === "li" || tag === "i" || tag === "img") &&
          ((clsBits & C_CLICKY) !== 0 || (style && CLICKY_STYLE.test(style)))) {
        clickable = true;
        record = true;
      }
      const drawnTable = (clsBits & (C_TROW | C_TPART)) !== 0 && (tag === "div" || tag === "span");
      const tableRow = drawnTable && (clsBits & C_TROW) !== 0;
      if (drawnTable) record = true;
      const twinRow = ROWS_SEEN > 0 && TWIN_ROWS.has(el);
      if (twinRow || (ROWS_SEEN > 0 && TWIN_LISTS.has(el)) || (GROUPS_SEEN > 0 && FIELD_GROUPS.has(el))) record = true;
      const first = el.firstElementChild;
      // Leaf text in a row is a record field, unless its cell (td) already holds it: a
      // classed leaf (in a row a class names, a styled one too), or a paragraph (a
      // record's or an article's text).
      if (!record && (flags & (ROW | CELL)) === ROW && (cls !== null || tag === "p" || (flags & TWIN_ROW) !== 0 || (style !== null && (flags & CLASS_ROW) !== 0)) && first === null && (el.textContent || "").trim()) {
        record = true;
      }
      // A paragraph holding words is the page's running text: the probe reads what a
      // page says outside its records from them (objects.rs, prose). Not one around a
      // value keyed on its own (an element with an id, an output, a declared key: "<span
      // id=count>3</span> open"), which is no running text: its text would change with
      // the value's, and a change of a value alone is applied without a full analysis.
      if (!record && tag === "p" && WORDY.test(el.textContent || "") && (first === null || el.querySelector(KEYED_INSIDE) === null)) record = true;
      if (!record && CUE_TAGS.has(tag) && first === null) {
        const t = el.textContent;
        if (t !== null && t.length >= 8 && CUE_TEXT.test(t.length > 600 ? t.slice(0, 600) : t)) record = true;
      }
      if (tag === "svg" && !ariaLabel && !clickable) return 0; // an icon's drawing
      // CodeMirror's text area beside the page's, which is the field (codeMirrorOf).
      if (tag === "textarea" && codeMirrorOf(el) === false) return 0;
      // What Selectize draws for a select is that select's (its box shows the chosen
      // option, its search input and dropdown the others): no actions, fields or
      // objects of its own.
      if (cls !== null && tag === "div" && cls.includes("selectize-control") && el.previousElementSibling !== null &&
          el.previousElementSibling.localName === "select" && selectizeOf(el.previousElementSibling) !== null) return 0;

      // Children are walked unless this is an svg (only its label matters); only some
      // elements can host a shadow root at all (T_HOST).
      const descend = tag !== "svg" && first !== null;
      const shadow = tag !== "svg" && ((bits & T_HOST) !== 0 || tag.includes("-")) ? el.shadowRoot : null;
      // The selector and relative path, made only when a record or a child uses them
      // (most leaves that are not recorded have none).
      /** @type {string | null} */
      let sel = at.head;
      let rel = at.relHead;
      if (step !== null && !record && !descend && shadow === null) {
        sel = null;
        rel = null;
      } else if (step !== null) {
        const byId = id ? this.idSelector(el, ctx) : null;
        if (byId !== null) {
          sel = byId;
          rel = null;
        } else {
          sel = at.head + step;
          if (rel !== null) rel += step;
        }
      }

      // Visibility: see CHECKED. Inside a hidden element everything is hidden. Closed
      // <details>: only its first <summary> shows (see "what a person perceives").
      let closed = (flags & CLOSED) !== 0;
      if ((flags & CLOSED_HERE) !== 0 && !(tag === "summary" && el.parentElement && firstSummary(el.parentElement) === el)) closed = true;
      // The attributes' hint of hiding (hintsHiding asks the same of the DOM).
      const hint = hidden || style !== null || (clsBits & C_HIDE) !== 0;
      // (A row a class names is checked as a `tr` is: its text is the model's to read.)
      const candidate = record && (clickable || (bits & T_CHECKED) !== 0 || role !== "" || tableRow || twinRow);
      const hides = (inert ? INERT : 0) | (ariaHidden ? ARIA_HIDDEN : 0) | (closed ? CLOSED : 0);
      let vis;
      /** @type {boolean | null | undefined} what the children are told (see below) */
      let inner;
      const parentVisible = at.visible;
      if (parentVisible === false) {
        vis = false;
      } else if (candidate && isControl(el, role, clickable)) {
        // A control: rendered, and perceivable by a person (and so is everything
        // inside it). One checkVisibility answers both in the common case.
        const why = ctx.frameVisible ? hiddenReason(el, hides, true, this.hover, this.pass, RENDER_UNKNOWN) : "its frame is hidden";
        vis = why === "";
        // When only its own box fails (no size, covered at its centre, off the page),
        // what is inside it is asked again, not hidden with it: an element the page
        // listens on may be a container whose content is drawn elsewhere (a React root
        // under an open modal, a portal's container of no size holding the modal).
        if (!vis && BOX_ONLY.has(why)) inner = null;
      } else {
        vis = parentVisible === null || hint || candidate ? visible(el, ctx) : parentVisible;
        // Other candidates (rows, dialogs, frames): what hides a whole subtree.
        if (vis && candidate && hides !== 0) vis = false;
        // A dialog closed by making it invisible or transparent, or by moving it off the
        // page (Halfmoon's modals wait above its start): nobody perceives its words, and
        // they are not the page's state (a closed "Unsaved changes" holds nothing
        // unsaved); opening it is then a change the state shows. Asked again once the
        // page's animations end, as a faded control is (a dialog may be sliding in).
        if (vis && (role === "dialog" || role === "alertdialog") && !(shows(el, OPAQUE) && !offPage(el, this.pass))) {
          vis = false;
          if (this.pass.faded.length < MAX_FADED) this.pass.faded.push(el);
        }
        // A page hiding something from screen readers often hides it from the eye too,
        // by `visibility` or `opacity` (a reconnection notice, a toast waiting for its
        // message, a closed popover): then nobody perceives its text, and it is not the
        // page's state (the walk hides controls under aria-hidden anyway). Asked only
        // where the attribute is set: aria-hidden alone hides nothing from the eye
        // (icons, visual duplicates of a screen reader's text).
        if (vis && ariaHiddenHere && typeof el.checkVisibility === "function" && !shows(el, OPAQUE)) vis = false;
      }
      // The top of a subtree nobody perceives, holding words: the texts of the records
      // above leave them out (textShown, which asks the same elements).
      const unseen = !vis && parentVisible !== false && (hint || PERCEIVED_TAGS.has(tag)) && typeof el.checkVisibility === "function" &&
        !shows(el, CSS_HIDDEN) && WORDY.test(el.textContent || "");
      const muted = ariaHiddenHere && WORDY.test(el.textContent || "");
      let idx = parentIdx;
      if (record) {
        idx = base + recs.length;
        // Its place in the table; the record itself is made after the children are
        // walked, which counts them for it.
        recs.push(/** @type {ElementRecord} */ (/** @type {unknown} */ (null))); // filled in below
        walk.nodes.push(el);
        walk.ends.push(0);
      }
      let childFlags = flags & ~CLOSED_HERE;
      if ((bits & T_ROW) !== 0 || (role !== "" && ROW_ROLES.has(role))) childFlags |= ROW;
      if (tableRow) childFlags |= ROW | CLASS_ROW;
      if (twinRow) childFlags |= ROW | TWIN_ROW;
      if (tag === "td" || tag === "th") childFlags |= CELL;
      if (inert) childFlags |= INERT;
      if (ariaHidden) childFlags |= ARIA_HIDDEN;
      if (closed) childFlags |= CLOSED;
      if (tag === "details" && !el.hasAttribute("open")) childFlags |= CLOSED_HERE;
      let children = 0;
      // What the descendants hold (B_*): a list, table, landmark or form (NO_TEXT), whose
      // text this element's then leaves out (see textOutside); words nobody perceives.
      let below = 0;
      if (tag !== "svg") {
        if (descend) {
          children = this.visitChildren(first, {
            walk, ctx, idx, head: sel + " > ", relHead: record ? "" : rel === null ? null : rel + " > ", flags: childFlags, visible: inner === undefined ? vis : inner,
          });
          below = this.childBlock;
        }
        if (shadow) {
          if (this.onShadowRoot) this.onShadowRoot(shadow);
          const sctx = { root: shadow, prefix: sel + " >>> ", frameVisible: ctx.frameVisible };
          const sfirst = shadow.firstElementChild;
          if (sfirst !== null) {
            this.visitChildren(sfirst, { walk, ctx: sctx, idx, head: sctx.prefix + "> ", relHead: null, flags: childFlags, visible: null });
          }
        }
        if ((tag === "iframe" || tag === "frame") && record) {
          /** @type {Document | null} */
          let inner = null;
          try {
            inner = /** @type {HTMLIFrameElement} */ (el).contentDocument;
          } catch (_) {
            inner = null; // cross-origin: not ours to read
          }
          if (inner && inner.documentElement) {
            if (this.onFrame) this.onFrame(el, inner);
            const fctx = { root: inner, prefix: sel + " >>> ", frameVisible: ctx.frameVisible && vis };
            const html = inner.documentElement;
            const frameFlags = childFlags & (INERT | ARIA_HIDDEN | CLOSED);
            const above = { walk, ctx: fctx, idx, head: sel + " >>> html", relHead: null, flags: frameFlags, visible: null };
            this.visit(html, html.localName, null, 0, above);
          }
        }
      }
      if (record) {
        const relative = rel !== null && parentIdx !== null;
        // A relative selector that is this element's own step travels as its number.
        // A recorded element has a selector (only unrecorded leaves go without), and a
        // relative one has its path.
        const where = /** @type {string | number} */ (!relative ? sel : rel === step ? nth : rel);
        // A recorded element has its own index.
        const own = /** @type {number} */ (idx);
        recs[own - base] = this.record({
          el, tag, bits, role, cls, parentIdx, where, relative: relative && rel !== step,
          inert, clickable, vis, names, unique, ask, children: tag === "svg" ? el.childElementCount : children,
          block: (below & B_NO_TEXT) !== 0, unseen: (below & B_UNSEEN) !== 0, muted: (below & B_MUTED) !== 0,
        });
        walk.ends[own - base] = base + recs.length;
      }
      // A list, table, landmark or form is left out of the texts above whole.
      if ((bits & T_NO_TEXT) !== 0) return B_NO_TEXT;
      return below | (unseen ? B_UNSEEN : 0) | (muted ? B_MUTED : 0);
    }

    // Visits `child` and the siblings after it, each with its `tag:nth-of-type(n)`
    // step, and returns how many there were. While all children so far share one tag
    // (rows of a table, items of a list, most small containers) a running count gives
    // n; a Map counts per tag only once they differ.
    // `at`: see visit.
    /**
     * @param {Element | null} child
     * @param {Above} at
     * @returns {number}
     */
    visitChildren(child, at) {
      /** @type {string | null} */
      let tag = null;
      let run = 0;
      /** @type {Map<string, number> | null} */
      let counts = null;
      let count = 0;
      // The steps list of the last child's tag: siblings mostly repeat it.
      /** @type {string[] | null} */
      let steps = null;
      /** @type {string | null} */
      let stepsTag = null;
      let below = 0;
      for (; child !== null; child = child.nextElementSibling) {
        const ct = child.localName;
        if (ct === "iframe" && this.own.has(child)) continue;
        let n;
        if (counts === null) {
          if (ct === tag || tag === null) {
            tag = ct;
            n = ++run;
          } else {
            counts = new Map();
            counts.set(tag, run);
            counts.set(ct, 1);
            n = 1;
          }
        } else {
          n = (counts.get(ct) || 0) + 1;
          counts.set(ct, n);
        }
        if (ct !== stepsTag) {
          steps = stepsOf(ct);
          stepsTag = ct;
        }
        // Set above for the first child, whose tag differs from null.
        below |= this.visit(child, ct, stepOf(/** @type {string[]} */ (steps), ct, n), n, at);
        count++;
      }
      // A second result, read by the caller at once (see visit's `below`).
      this.childBlock = below;
      return count;
    }

    /** @param {Element} el @param {{ root: TreeRoot, prefix: string }} ctx */
    idSelector(el, ctx) {
      const id = el.id;
      if (id && ctx.root.getElementById && ctx.root.getElementById(id) === el) {
        return ctx.prefix + "#" + (PLAIN_ID.test(id) ? id : CSS.escape(id));
      }
      return null;
    }

    // One record from what visit found (a Found, made only for an element it records).
    // `names`, `unique`, `ask`: see visit; `children` is el.childElementCount.
    // `where` is the selector, or the nth-of-type number of a relative one-step selector;
    // `relative` says a selector string continues the parent's.
    // `block`: a NO_TEXT element is among the descendants (see textOutside); `unseen`:
    // words nobody perceives are; `muted`: words under aria-hidden are (see textShown).
    /** @param {Found} found */
    record(found) {
      const { el, tag, bits, role, cls, parentIdx, where, relative, inert, clickable, vis, names, unique, ask, children, block, unseen, muted } = found;
      // Positional (see ElementRecord in protocol/src/snapshot.rs): [tag, parent, where,
      // flags, text, attrs?, label?]; the R_* constants name the slots.
      let recFlags = relative ? F_RELATIVE : 0;
      const field = (bits & T_FIELD) !== 0;
      const secret = field && isSecret(el);
      // Created with the first attribute worth keeping: most records have none.
      /** @type {Record<string, string> | null} */
      let attrs = null;
      for (let k = 0; k < names.length; k++) {
        const n = names[k];
        // A secret field's record carries no text the page could fill with its value
        // (a label, a placeholder, a data-nsp-value): only what names its kind.
        if (secret && !SECRET_KEEP.has(n)) continue;
        if (ATTRS.has(n)) {
          // A field's value is read below as a property and goes last, as the
          // markup's would after being replaced.
          if (field && n === "value") continue;
          if (attrs === null) attrs = {};
          // The role visit read is this one's value (or, if the name repeats, the
          // last one's, which is what the last assignment leaves here anyway).
          attrs[n] = clipAttr(n === "role" ? role : attrValue(el, names, k, unique));
        } else if (n === "class") {
          // Likewise the class.
          if (attrs === null) attrs = {};
          const c = /** @type {string} */ (cls); // visit read it
          attrs.class = c.length > CLASS_LIMIT ? c.slice(0, CLASS_LIMIT) : c;
        } else if (n.startsWith("data-")) {
          if (isDataKey(n)) {
            if (attrs === null) attrs = {};
            attrs[n] = clipAttr(attrValue(el, names, k, unique && n.toLowerCase() === n));
          }
        } else if (n === "onclick") {
          // Only whether it asks for confirmation matters.
          if (attrs === null) attrs = {};
          attrs.onclick = /confirm\s*\(/.test(attrValue(el, names, k, unique)) ? "confirm()" : "handler";
        }
      }
      // A row Extractor.twinRows found: the probe takes it for one (lists.rs).
      if (ROWS_SEEN > 0 && TWIN_ROWS.has(el)) {
        if (attrs === null) attrs = {};
        attrs["nsp-row"] = "";
      }
      // A select drawn as a button is a field (the probe reads `nsp-picker`; its value
      // is set below, from its text).
      const picker = !field && (tag === "button" || role === "button" || role === "combobox") && isPicker(el);
      if (picker) {
        if (attrs === null) attrs = {};
        attrs["nsp-picker"] = "";
      }
      // A combobox of many choices takes a list (the probe reads `multiple`, as on a
      // <select>).
      const many = field && (role === "combobox" || role === "searchbox") && manyChoices(el);
      if (many) {
        if (attrs === null) attrs = {};
        attrs.multiple = "";
      }
      if (field) {
        // Values are read as properties: that is what the user typed, not the markup.
        if (attrs === null) attrs = {};
        if (secret) {
          // Whether it is filled, and nothing more: not even the length leaves the page.
          attrs.value_filled = el.value ? "true" : "false";
        } else if (tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
          attrs.checked = String(el.checked);
          attrs.value = clipAttr(el.getAttribute("value") || "on");
        } else if (tag === "select") {
          const select = /** @type {HTMLSelectElement} */ (el);
          // Drawn by Selectize: a picker whose options exist once it is open.
          if (selectizeOf(el) !== null) attrs["nsp-picker"] = "";
          attrs.value = clipAttr(selectValue(select));
          const values = [];
          // What a person reads, when the page gave its options other values (ids):
          // the probe offers those texts, and the dispatcher takes either.
          const labels = [];
          let hiddenValues = false;
          for (let o = 0; o < select.options.length && o < MAX_OPTIONS; o++) {
            const option = select.options[o];
            const label = (option.label || option.text || "").replace(/\s+/g, " ").trim().slice(0, 120);
            values.push(option.value);
            labels.push(label);
            if (label !== option.value) hiddenValues = true;
          }
          attrs.options = JSON.stringify(values);
          if (hiddenValues) attrs.option_labels = JSON.stringify(labels);
        } else if (tag === "textarea") {
          const editor = codeMirrorOf(el);
          fieldText(attrs, editor ? codeMirrorLines(editor).join("\n") : String(el.value || ""));
        } else {
          attrs.value = clipAttr(String(el.value || ""));
        }
      } else if (role === "slider") {
        // A slider drawn with ARIA alone (Radix's thumb): its value and range are what it
        // says; the dispatcher moves it by keys (slide).
        if (attrs === null) attrs = {};
        attrs.value = clipAttr(el.getAttribute("aria-valuenow") || "");
        const lo = el.getAttribute("aria-valuemin");
        const hi = el.getAttribute("aria-valuemax");
        if (lo !== null) attrs.min = clipAttr(lo);
        if (hi !== null) attrs.max = clipAttr(hi);
      } else if (attrs !== null && attrs.contenteditable !== undefined && el.isContentEditable &&
        !(el.parentElement !== null && el.parentElement.isContentEditable)) {
        // An editable region's value is its text as lines (a code editor draws each line
        // as an element of its own), as a text area's is.
        fieldText(attrs, editableLines(el).join("\n"));
      }
      let text = "";
      // A control's text is its name, however many icons and visually hidden labels it
      // wraps (a theme toggle: visually hidden labels and icons): what a person
      // perceives of it, and what a sighted person sees goes beside it when that is
      // less (controlTexts).
      const texty = readsText(tag, bits, role, children, secret);
      const isControlText = !field && (clickable || PERCEIVED_TAGS.has(tag) || CONTROL_ROLES.has(role));
      const mode = texty ? (block ? TEXT_OUTSIDE : TEXT_ALL) | (isControlText ? TEXT_SHOWN : unseen || muted ? TEXT_RENDERED : 0) : 0;
      if ((mode & TEXT_SHOWN) !== 0) {
        const [all, shown] = controlTexts(el, block, muted);
        text = norm(all, TEXT_LIMIT);
        const seen = shown === all ? text : norm(shown, TEXT_LIMIT);
        if (seen !== text) {
          if (attrs === null) attrs = {};
          attrs.seen_text = seen;
        }
      } else if (texty) {
        text = norm(unseen || muted ? textShown(el, block) : plainText(el, block), TEXT_LIMIT);
      }
      // A table cell that shows only an image reads as the image's words, as the
      // accessibility tree reads it (Django's admin draws a boolean as an icon whose alt
      // is "True" or "False").
      if (!text && texty && (tag === "td" || tag === "th") && children > 0) text = cellImage(el);
      if (picker) /** @type {Record<string, string>} */ (attrs).value = pickerShows(el, text);
      let label = "";
      const twin = many ? manyFor(el) : null;
      if (picker) label = pickerLabel(el);
      else if (twin !== null && twin.labels.length) label = labelsText(twin);
      else if (!secret && (field || ((ask & ASK_LABELLEDBY) !== 0 && el.hasAttribute("aria-labelledby")))) label = labelOf(el);
      else if ((tag === "a" || tag === "button") && !text) {
        label = imageLabel(el);
        // Named by its title or aria-label and drawn as an icon: the icon's name goes
        // with it, which tells apart twins of one name (django-wiki's two "Sub-articles
        // for …" buttons, a sitemap and a file: the probe's discover.rs).
        if (!label && (el.hasAttribute("title") || el.hasAttribute("aria-label"))) {
          const icon = iconName(el);
          if (icon) {
            if (attrs === null) attrs = {};
            attrs["nsp-icon"] = icon;
          }
        }
      }
      if (!vis) recFlags |= F_HIDDEN;
      const disabled = inert || ((ask & ASK_ARIA_DISABLED) !== 0 && el.getAttribute("aria-disabled") === "true") ||
        ((field || tag === "button" || tag === "fieldset") && el.matches(":disabled"));
      if (disabled) recFlags |= F_DISABLED;
      const enabler = disabled && field && !inert ? enablerOf(el) : null;
      if (enabler !== null) {
        if (attrs === null) attrs = {};
        attrs.enabled_by = explainLabel(/** @type {PageElement} */ (enabler)) || "its box";
      }
      if (tag === "fieldset") {
        const caption = fieldsetCaption(el);
        if (caption) {
          if (attrs === null) attrs = {};
          attrs.caption = caption;
        }
      }
      if (clickable) recFlags |= F_CLICKABLE;
      /** @type {ElementRecord} */
      const rec = /** @type {ElementRecord} */ ([tag, parentIdx, where, recFlags, text]);
      if (label) rec.push(attrs, label);
      else if (attrs !== null) rec.push(attrs);
      // Kept beside the slots, where JSON.stringify does not look: patch() needs it.
      if (texty) rec[TEXTY] = mode;
      return rec;
    }

    // The table index of the nearest recorded ancestor-or-self of a node, or -1.
    /** @param {Node} node */
    recordedAncestor(node) {
      let n = /** @type {TreeRoot & Marked | null} */ (node);
      while (n) {
        if (n.nodeType === 1 && n[IDX] !== undefined && this.nodes[n[IDX]] === n) return n[IDX];
        if (n.parentNode) n = n.parentNode;
        else if (n.host) n = n.host; // out of a shadow root
        else if (n.defaultView && n.defaultView.frameElement) n = n.defaultView.frameElement;
        else n = null;
      }
      return -1;
    }

    // The selector of an element computed from scratch (the slow path, for the root of
    // a re-extracted subtree).
    /** @param {Element} el @returns {string} */
    selectorOf(el) {
      const root = /** @type {TreeRoot} */ (el.getRootNode());
      let prefix = "";
      if (root.host) prefix = this.selectorOf(root.host) + " >>> ";
      else if (root !== this.doc && root.defaultView && root.defaultView.frameElement) {
        prefix = this.selectorOf(root.defaultView.frameElement) + " >>> ";
      }
      const ctx = { root, prefix };
      const parts = [];
      let node = /** @type {Element | null} */ (el);
      while (node && node.nodeType === 1) {
        const byId = this.idSelector(node, ctx);
        if (byId) {
          parts.unshift(byId.slice(prefix.length));
          return prefix + parts.join(" > ");
        }
        if (node === root.documentElement) {
          parts.unshift("html");
          return prefix + parts.join(" > ");
        }
        parts.unshift(`${node.localName}:nth-of-type(${nthOfType(node)})`);
        if (!node.parentElement) return prefix + "> " + parts.join(" > ");
        node = node.parentElement;
      }
      return prefix + parts.join(" > ");
    }

    // Where the root of a re-extracted subtree sits, in the terms a full extraction's
    // visit() gets from its parent: the head and step of its selector, its
    // nth-of-type, and its path from the parent record (null when an id or a shadow
    // root starts the path afresh). The patched record then reads exactly like the
    // full extraction's, which lets the probe see a text change as only that.
    /** @param {Element} el @param {number | null} parentIdx @param {{ root: TreeRoot, prefix: string }} ctx */
    placeOf(el, parentIdx, ctx) {
      const parentEl = el.parentElement;
      if (!parentEl) return { head: this.selectorOf(el), step: null, nth: 0, relHead: null };
      const tag = el.localName;
      const nth = nthOfType(el);
      let relHead = null;
      if (parentIdx !== null) {
        const parentRecord = this.nodes[parentIdx];
        let path = "";
        let node = /** @type {Element | null} */ (parentEl);
        while (node && node !== parentRecord && !(node.id && this.idSelector(node, ctx))) {
          path = stepOf(stepsOf(node.localName), node.localName, nthOfType(node)) + " > " + path;
          node = node.parentElement;
        }
        if (node === parentRecord) relHead = path;
      }
      return { head: this.selectorOf(parentEl) + " > ", step: stepOf(stepsOf(tag), tag, nth), nth, relHead };
    }

    /** @param {Element} el */
    contextOf(el) {
      const root = /** @type {TreeRoot} */ (el.getRootNode());
      let prefix = "";
      let frameVisible = true;
      if (root.host) prefix = this.selectorOf(root.host) + " >>> ";
      else if (root !== this.doc && root.defaultView && root.defaultView.frameElement) {
        const frame = root.defaultView.frameElement;
        prefix = this.selectorOf(frame) + " >>> ";
        frameVisible = visible(frame, { frameVisible: true });
      }
      // The flags a full extraction hands down to this element: from its ancestors in
      // its own tree and, through shadow hosts, in the trees around it (a frame's
      // document starts afresh, as in visit).
      let flags = 0;
      let prev = el;
      for (let a = up(el); a; prev = a, a = up(a)) {
        const t = a.localName;
        if (ROW_TAGS.has(t) || ROW_ROLES.has(a.getAttribute("role") || "")) flags |= ROW;
        if (t === "td" || t === "th") flags |= CELL;
        if (a.hasAttribute("inert")) flags |= INERT;
        if (a.getAttribute("aria-hidden") === "true") flags |= ARIA_HIDDEN;
        if (t === "details" && !a.hasAttribute("open")) {
          // The parent's decides with the element's own tag (visit); a higher one's by
          // whether the path goes through its first summary.
          if (prev === el) flags |= CLOSED_HERE;
          else if (!(prev.localName === "summary" && firstSummary(a) === prev)) flags |= CLOSED;
        }
      }
      // A frame's document starts afresh but for what hides everything in it.
      if (root !== this.doc && !root.host && root.defaultView && root.defaultView.frameElement) {
        flags |= ancestorFlags(root.defaultView.frameElement) & (INERT | ARIA_HIDDEN | CLOSED);
      }
      return { root, prefix, frameVisible, flags };
    }

    // The controls the last extraction or patch kept back as transparent or
    // visibility:hidden (at most MAX_FADED): content.js asks about them again once the
    // page's animations end.
    faded() {
      return this.pass.faded;
    }

    // Splices for the subtrees around changed nodes, applied to this extractor's own
    // table too. Returns null when a full extraction is the better answer.
    /** @param {Iterable<Node>} changed @returns {SnapshotPatch | null} */
    patch(changed) {
      const started = performance.now();
      this.pass = newPass();
      this.index();
      /** @type {Set<number>} */
      const roots = new Set();
      for (const node of changed) {
        let i = this.recordedAncestor(node);
        if (i < 0) return null;
        // A card or twin row added to (or taken from) the element holding such rows:
        // whether it is one too is for twinRows, which only a full extraction runs.
        if (ROWS_SEEN > 0 && TWIN_LISTS.has(this.nodes[i])) return null;
        // A record above whose text is read from its subtree (TEXTY) may now read
        // differently: the highest one that does is re-extracted with it. Records above
        // a list, table, landmark or form leave its text out (textOutside), so the
        // search ends at the first one, and at once when the change is inside one.
        if (!NO_TEXT.has(this.recs[i][0])) {
          for (let p = this.recs[i][R_PARENT]; p !== null; p = this.recs[p][R_PARENT]) {
            const rec = this.recs[p];
            const mode = rec[TEXTY];
            if (mode === undefined) {
              if (NO_TEXT.has(rec[0])) break;
              continue;
            }
            const el = this.nodes[p];
            if (norm(textBy(el, mode), TEXT_LIMIT) !== rec[R_TEXT]) i = p;
          }
        }
        roots.add(i);
      }
      // Drop roots inside other roots; handle the rest from the end of the table, so
      // earlier indexes stay valid while later ones move.
      const sorted = Array.from(roots).sort((a, b) => a - b);
      const kept = [];
      for (const i of sorted) {
        if (kept.length && i < this.ends[kept[kept.length - 1]]) continue;
        kept.push(i);
      }
      let covered = 0;
      for (const i of kept) covered += this.ends[i] - i;
      if (covered > Math.max(200, this.recs.length * 0.3)) return null;
      /** @type {SnapshotSplice[]} */
      const splices = [];
      for (let k = kept.length - 1; k >= 0; k--) {
        const i = kept[k];
        const el = this.nodes[i];
        const oldEnd = this.ends[i];
        const parentIdx = this.recs[i][R_PARENT];
        /** @type {ElementRecord[]} */
        const recs = [];
        /** @type {Element[]} */
        const nodes = [];
        /** @type {number[]} */
        const ends = [];
        if (el.isConnected) {
          const ctx = this.contextOf(el);
          const at = this.placeOf(el, parentIdx, ctx);
          const walk = { recs, nodes, ends, base: i };
          this.visit(el, el.localName, at.step, at.nth, { walk, ctx, idx: parentIdx, head: at.head, relHead: at.relHead, flags: ctx.flags, visible: null });
        }
        this.splice(i, oldEnd - i, recs, nodes, ends);
        splices.push({ start: i, delete: oldEnd - i, insert: recs });
      }
      return {
        splices,
        url: this.doc.location ? this.doc.location.href : "",
        title: norm(this.doc.title, TEXT_LIMIT),
        extract_ms: performance.now() - started,
        unsettled: false,
      };
    }

    /**
     * @param {number} start
     * @param {number} deleteCount
     * @param {ElementRecord[]} recs
     * @param {Element[]} nodes
     * @param {number[]} ends
     */
    splice(start, deleteCount, recs, nodes, ends) {
      const delta = recs.length - deleteCount;
      const oldEnd = start + deleteCount;
      if (delta !== 0) {
        for (let j = oldEnd; j < this.recs.length; j++) {
          const p = this.recs[j][R_PARENT];
          if (p !== null && p >= oldEnd) this.recs[j][R_PARENT] = p + delta;
          this.ends[j] += delta;
        }
        // Ancestors of the subtree grow or shrink with it.
        let p = start < this.recs.length ? this.recs[start][R_PARENT] : null;
        while (p !== null) {
          this.ends[p] += delta;
          p = this.recs[p][R_PARENT];
        }
      }
      this.recs.splice(start, deleteCount, ...recs);
      this.nodes.splice(start, deleteCount, ...nodes);
      this.ends.splice(start, deleteCount, ...ends);
      for (let j = start; j < this.nodes.length; j++) /** @type {Marked} */ (this.nodes[j])[IDX] = j;
    }
  }

  // The box that enables a disabled field ("Allow updating this column" beside each of
  // a record's fields): a checkbox or switch of the field's own form that names the
  // field by its id, in `aria-controls` or in another attribute whose value is the id
  // or `#id` (`data-target-element="id_name"`). The extraction marks such a field with
  // the box's label (`enabled_by`), so the probe offers it and says which box filling
  // it ticks; the dispatcher ticks the box before filling it, and refuses the value if
  // the field stays disabled. A field outside a form has none.
  // What a fieldset shows as its caption: its <legend>, else the first words inside it
  // before its first field, button or label (Gradio draws its radio and checkbox groups'
  // names as a <span> there). The probe names a group of radios drawn without a shared
  // name by it (`page::radio_group_name`). "" when there are no such words.
  /** @param {Element} fieldset @returns {string} */
  function fieldsetCaption(fieldset) {
    const walker = fieldset.ownerDocument.createTreeWalker(fieldset, 5 /* SHOW_ELEMENT | SHOW_TEXT */, {
      // What is never text (a script, an icon's SVG) is passed over whole.
      acceptNode: (n) => (n.nodeType === 1 && SKIP.has(/** @type {Element} */ (n).localName) ? 2 /* FILTER_REJECT */ : 1),
    });
    for (let n = walker.nextNode(), seen = 0; n !== null && seen < 40; n = walker.nextNode(), seen++) {
      if (n.nodeType === 1) {
        const tag = /** @type {Element} */ (n).localName;
        // Words the page hides are no caption a person reads.
        if (tag === "legend") return /** @type {Element} */ (n).checkVisibility(OPAQUE) ? norm(n.textContent || "", 80) : "";
        if (tag === "label" || tag === "button" || FIELD_TAGS.has(tag)) return "";
        continue;
      }
      const words = norm(n.nodeValue || "", 80);
      // Words the page hides are no caption a person reads.
      const parent = n.parentElement;
      if (words && parent && (typeof parent.checkVisibility !== "function" || parent.checkVisibility(OPAQUE))) return words;
    }
    return "";
  }

  /** @param {Element} el @returns {HTMLElement | null} */
  function enablerOf(el) {
    const id = el.id;
    const form = /** @type {HTMLInputElement} */ (el).form;
    if (!id || !form) return null;
    for (const box of form.querySelectorAll('input[type="checkbox"], [role="switch"], [role="checkbox"]')) {
      for (const a of Array.from(box.attributes)) {
        if (a.name === "id" || a.name === "name" || a.name === "value") continue;
        const v = a.value.trim();
        if (v === id || v === "#" + id || (a.name === "aria-controls" && v.split(/\s+/).includes(id))) return /** @type {HTMLElement} */ (box);
      }
    }
    return null;
  }

  // A field whose type attribute was password (content.js, from a mutation's old value).
  /** @param {Node} el */
  function rememberPassword(el) {
    if (el && el.nodeType === 1) EVER_PASSWORD.add(el);
  }

  globalThis.NspExtract = {
    Extractor, norm, isSecret, IDX, REGION_TAGS, REGION_ROLES, KEYED_INSIDE, codeMirrorOf, codeMirrorInput, codeMirrorLines, selectizeOf, controlLabel, explainLabel, plainLabel, labelFrom, clip, perceive, shownAs, rememberPassword, hitAt, within, openCombobox, manyChoices, manyFor, withoutGlyphs, glyphOf, isPicker, pickerValue,
    enablerOf,
  };
})();
