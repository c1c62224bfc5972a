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
  const NO_TEXT = new Set([
    "form", "select", "ul", "ol", "table", "thead", "tbody", "tr", "section", "main", "nav", "aside",
    "article", "header", "footer", "dialog", "fieldset", "dl", "menu", "details", "body", "html", "iframe", "frame",
  ]);
  const ROW_TAGS = new Set(["li", "tr", "article"]);
  const ROW_ROLES = new Set(["row", "listitem", "option", "article", "treeitem"]);
  const FIELD_TAGS = new Set(["input", "select", "textarea"]);
  // Attributes copied into the record when present.
  const ATTRS = new Set([
    "id", "name", "type", "role", "href", "aria-label", "aria-pressed", "aria-checked", "aria-expanded",
    "aria-haspopup", "aria-selected", "aria-current", "aria-required", "aria-disabled", "method", "action",
    "required", "placeholder", "autocomplete", "title", "alt", "for", "min", "max", "multiple",
    "contenteditable", "tabindex", "itemprop", "itemscope", "itemtype", "content", "datetime",
    "toolname", "tooldescription", "toolparamdescription", "data-confirm", "data-turbo-confirm",
    "data-method", "data-turbo-method", "target", "value",
  ]);
  // Attributes that make an otherwise plain element worth recording.
  const MARKS = new Set([
    "id", "role", "tabindex", "onclick", "contenteditable", "itemprop", "itemscope", "aria-label",
    "aria-labelledby", "toolname",
  ]);
  const SECRET_AUTOCOMPLETE = /\b(cc-number|cc-csc|cc-exp|current-password|new-password|one-time-code)\b/i;
  // Names that mark a payment or credential field even without autocomplete hints. A
  // card holder's name is caught too: stricter is the safe side.
  const SECRET_NAME = /pass(word|wd)|^pass$|cvv|cvc|csc|card|ccnum|cc-num|security[-_ ]?code|one-time|otp|^pin$|ssn/i;
  const CLICKY_CLASS = /(^|[\s_-])(btn|button|clickable|link|action|icon-button)([\s_-]|$)/i;
  const CLICKY_STYLE = /cursor\s*:\s*pointer/i;
  const IDX = Symbol("nspIndex");
  // Always checked for visibility: controls, fields, rows and dialogs, which pages show
  // and hide. Other elements share their parent's unless a class, style or hidden
  // attribute could hide them on their own (checkVisibility is a style lookup, the
  // largest cost of an extraction).
  const CHECKED = new Set([
    "a", "button", "input", "select", "textarea", "summary", "dialog", "tr", "li", "article",
    "iframe", "frame",
  ]);
  const HIDE_CLASS = /hidden|hide|collaps|invisible|sr-only|d-none|closed/i;

  function isSecret(el) {
    if (el.localName === "input" && (el.type || "").toLowerCase() === "password") return true;
    if (SECRET_AUTOCOMPLETE.test(el.getAttribute("autocomplete") || "")) return true;
    if (SECRET_NAME.test(el.getAttribute("name") || "") || SECRET_NAME.test(el.id || "")) return true;
    // Whatever the field is called, a value that is a card number is one.
    return looksLikeCardNumber(el.value);
  }

  // 13–19 digits (spaces and dashes allowed) passing the Luhn check.
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
  function norm(text, max) {
    if (!text) return "";
    let t = text.length > max * 8 ? text.slice(0, max * 8) : text;
    t = t.replace(/[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]+/g, " ").trim();
    return t.length > max ? t.slice(0, max) : t;
  }

  function clipAttr(v) {
    return v.length > ATTR_LIMIT ? v.slice(0, ATTR_LIMIT) : v;
  }

  function textOfIds(el, ids) {
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.split(/\s+/).slice(0, 8)) {
      const ref = id && root.getElementById ? root.getElementById(id) : null;
      if (ref) parts.push(ref.textContent || "");
    }
    return norm(parts.join(" "), TEXT_LIMIT);
  }

  // Accessible name of a field from its labels, without the field's own text.
  function labelOf(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = textOfIds(el, by);
      if (t) return t;
    }
    const labels = el.labels;
    if (labels && labels.length) {
      const parts = [];
      for (const label of labels) {
        let t = "";
        for (const node of label.childNodes) {
          if (node.nodeType === 3) t += node.data;
          else if (node.nodeType === 1 && !FIELD_TAGS.has(node.localName)) t += node.textContent;
        }
        parts.push(t);
      }
      return norm(parts.join(" "), TEXT_LIMIT);
    }
    return "";
  }

  function selectValue(el) {
    if (el.multiple) return Array.from(el.selectedOptions, (o) => o.value).join(",");
    return el.value || "";
  }

  // The visibility of an element, and of the frame it sits in: rendered at all
  // (display, content-visibility). Transparent or visibility:hidden controls count as
  // visible on purpose: row actions that appear on hover are styled that way, and a
  // dispatched click reaches them.
  function visible(el, ctx) {
    if (!ctx.frameVisible) return false;
    // offsetParent is the cheapest layout query (about half of checkVisibility); it is
    // null for hidden elements but also for fixed-position ones and table parts in
    // some cases, which the full check then tells apart.
    if (el.offsetParent !== null && el.offsetParent !== undefined) return true;
    if (typeof el.checkVisibility === "function") return el.checkVisibility();
    return el.getClientRects().length > 0;
  }

  class Extractor {
    constructor(doc, options) {
      this.doc = doc || document;
      this.options = options || {};
      this.nodes = [];
      this.recs = [];
      this.ends = [];
      this.truncated = false;
      // Elements the page attached click listeners to, reported by the main-world
      // shim just before each extraction (content.js fills it).
      this.clickable = new WeakSet();
      this.clickableCount = 0;
      this.onShadowRoot = null;
      this.onFrame = null;
    }

    // A whole new table. Returns the PageSnapshot object.
    full() {
      const started = performance.now();
      this.nodes = [];
      this.recs = [];
      this.ends = [];
      this.truncated = false;
      const root = this.doc.documentElement;
      if (root) {
        const ctx = { root: this.doc, prefix: "", inRow: false, inert: false, frameVisible: true, depth: 0 };
        this.visit(root, null, "html", null, ctx, this.recs, this.nodes, this.ends, 0, null);
      }
      for (let i = 0; i < this.nodes.length; i++) this.nodes[i][IDX] = i;
      return this.snapshot(performance.now() - started);
    }

    snapshot(extractMs) {
      const doc = this.doc;
      const meta = doc.querySelector('meta[name="application-name"]') || doc.querySelector('meta[property="og:site_name"]');
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

    // Depth-first over one element and its subtree, appending to `recs`/`nodes`/`ends`
    // with indexes offset by `base` (non-zero when re-extracting a subtree in place).
    // `sel` is the element's full selector; `rel` the same path relative to the
    // nearest recorded ancestor, or null when it starts afresh (an id, a shadow root).
    // Both are built by concatenation, which V8 keeps as cheap rope strings.
    visit(el, parentIdx, sel, rel, ctx, recs, nodes, ends, base, parentVisible) {
      const tag = el.localName;
      if (SKIP.has(tag) && tag !== "svg") return;
      if (base + recs.length >= MAX_RECORDS) {
        this.truncated = true;
        return;
      }
      // One pass over the element's attributes decides everything below.
      let role = "";
      let inert = ctx.inert;
      let marked = false;
      let cls = null;
      let style = null;
      let hidden = false;
      let onclick = false;
      let href = false;
      let ariaLabel = false;
      if (el.hasAttributes()) {
        const list = el.attributes;
        for (let k = 0; k < list.length; k++) {
          const n = list[k].name;
          switch (n) {
            case "role":
              role = list[k].value;
              marked = true;
              break;
            case "inert":
              inert = true;
              break;
            case "class":
              cls = list[k].value;
              break;
            case "style":
              style = list[k].value;
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
            default:
              if (!marked && (MARKS.has(n) || (n.startsWith("data-") && (n.startsWith("data-nsp-") || n === "data-id" || n === "data-key" || n.endsWith("-id") || n.endsWith("_id") || n.endsWith("-key"))))) {
                marked = true;
              }
          }
        }
      }
      let clickable = onclick || (this.clickableCount > 0 && this.clickable.has(el));
      let record = marked || clickable || ALWAYS.has(tag) || (tag === "a" && href);
      if (!record && (tag === "div" || tag === "span" || tag === "li" || tag === "i" || tag === "img") &&
          ((cls && CLICKY_CLASS.test(cls)) || (style && CLICKY_STYLE.test(style)))) {
        clickable = true;
        record = true;
      }
      // Leaf text in a row is a record field, unless its cell (td) already holds it.
      if (!record && ctx.inRow && cls !== null && el.childElementCount === 0 && !ctx.inCell && (el.textContent || "").trim()) {
        record = true;
      }
      if (tag === "svg" && !ariaLabel && !clickable) return; // an icon's drawing

      // Visibility: see CHECKED. Inside a hidden element everything is hidden.
      const hint = hidden || style !== null || (cls !== null && HIDE_CLASS.test(cls));
      const vis = parentVisible === false ? false
        : parentVisible === null || hint || (record && (clickable || CHECKED.has(tag) || role !== "")) ? visible(el, ctx)
          : parentVisible;
      let idx = parentIdx;
      if (record) {
        idx = base + recs.length;
        recs.push(this.record(el, tag, role, parentIdx, rel === null || parentIdx === null ? sel : rel, rel !== null && parentIdx !== null, ctx, inert, clickable, vis));
        nodes.push(el);
        ends.push(0);
      }
      const cell = tag === "td" || tag === "th";
      const childCtx = (ctx.inRow || ROW_TAGS.has(tag) || ROW_ROLES.has(role) || inert !== ctx.inert || cell)
        ? { ...ctx, inRow: ctx.inRow || ROW_TAGS.has(tag) || ROW_ROLES.has(role), inCell: ctx.inCell || cell, inert, depth: ctx.depth + 1 }
        : ctx;
      if (tag !== "svg") {
        const counts = Object.create(null);
        for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
          const ct = child.localName;
          const n = (counts[ct] = (counts[ct] || 0) + 1);
          const byId = this.idSelector(child, childCtx);
          if (byId) {
            this.visit(child, idx, byId, null, childCtx, recs, nodes, ends, base, vis);
          } else {
            const seg = `${ct}:nth-of-type(${n})`;
            const childRel = record ? seg : rel === null ? null : `${rel} > ${seg}`;
            this.visit(child, idx, `${sel} > ${seg}`, childRel, childCtx, recs, nodes, ends, base, vis);
          }
        }
        const shadow = el.shadowRoot;
        if (shadow) {
          if (this.onShadowRoot) this.onShadowRoot(shadow);
          const sctx = { ...childCtx, root: shadow, prefix: sel + " >>> " };
          const scounts = Object.create(null);
          for (let child = shadow.firstElementChild; child; child = child.nextElementSibling) {
            const ct = child.localName;
            const n = (scounts[ct] = (scounts[ct] || 0) + 1);
            const csel = this.idSelector(child, sctx) || `${sctx.prefix}> ${ct}:nth-of-type(${n})`;
            this.visit(child, idx, csel, null, sctx, recs, nodes, ends, base, null);
          }
        }
        if ((tag === "iframe" || tag === "frame") && record) {
          let inner = null;
          try {
            inner = el.contentDocument;
          } catch (_) {
            inner = null; // cross-origin: not ours to read
          }
          if (inner && inner.documentElement) {
            if (this.onFrame) this.onFrame(el, inner);
            const fctx = {
              root: inner, prefix: sel + " >>> ", inRow: false, inert,
              frameVisible: ctx.frameVisible && recs[idx - base].v !== false, depth: ctx.depth + 1,
            };
            this.visit(inner.documentElement, idx, sel + " >>> html", null, fctx, recs, nodes, ends, base, null);
          }
        }
      }
      if (record) ends[idx - base] = base + recs.length;
    }

    idSelector(el, ctx) {
      const id = el.id;
      if (id && ctx.root.getElementById && ctx.root.getElementById(id) === el) {
        return ctx.prefix + "#" + CSS.escape(id);
      }
      return null;
    }

    record(el, tag, role, parentIdx, selector, relative, ctx, inert, clickable, vis) {
      // One-letter names (see ElementRecord in protocol/src/snapshot.rs): t tag,
      // s selector, r relative, p parent, a attrs, x text, l label, v visible,
      // d disabled, c clickable.
      const rec = { t: tag, s: selector };
      if (relative) rec.r = true;
      if (parentIdx !== null) rec.p = parentIdx;
      const attrs = {};
      // One pass over the element's own attributes (usually one to three).
      const list = el.attributes;
      for (let k = 0; k < list.length; k++) {
        const a = list[k];
        const n = a.name;
        if (ATTRS.has(n)) {
          attrs[n] = clipAttr(a.value);
        } else if (n === "class") {
          attrs.class = a.value.length > CLASS_LIMIT ? a.value.slice(0, CLASS_LIMIT) : a.value;
        } else if (n.startsWith("data-")) {
          if (n.startsWith("data-nsp-") || n === "data-id" || n === "data-key" || n.endsWith("-id") || n.endsWith("_id") || n.endsWith("-key")) {
            attrs[n] = clipAttr(a.value);
          }
        } else if (n === "onclick") {
          // Only whether it asks for confirmation matters.
          attrs.onclick = /confirm\s*\(/.test(a.value) ? "confirm()" : "handler";
        }
      }
      const secret = FIELD_TAGS.has(tag) && isSecret(el);
      if (FIELD_TAGS.has(tag)) {
        // Values are read as properties: that is what the user typed, not the markup.
        delete attrs.value;
        if (secret) {
          attrs.value_length = String((el.value || "").length);
        } else if (tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
          attrs.checked = String(el.checked);
          attrs.value = clipAttr(el.getAttribute("value") || "on");
        } else if (tag === "select") {
          attrs.value = clipAttr(selectValue(el));
          const values = [];
          for (let o = 0; o < el.options.length && o < MAX_OPTIONS; o++) values.push(el.options[o].value);
          attrs.options = JSON.stringify(values);
        } else {
          attrs.value = clipAttr(String(el.value || ""));
        }
      }
      for (const _ in attrs) {
        rec.a = attrs;
        break;
      }
      if (!secret && !NO_TEXT.has(tag) && el.childElementCount <= 3) {
        const text = norm(el.textContent, TEXT_LIMIT);
        if (text) rec.x = text;
      }
      if (FIELD_TAGS.has(tag) || el.hasAttribute("aria-labelledby")) {
        const label = labelOf(el);
        if (label) rec.l = label;
      }
      if (!vis) rec.v = false;
      const disabled = inert || el.getAttribute("aria-disabled") === "true" ||
        ((FIELD_TAGS.has(tag) || tag === "button" || tag === "fieldset") && el.matches(":disabled"));
      if (disabled) rec.d = true;
      if (clickable) rec.c = true;
      return rec;
    }

    // The table index of the nearest recorded ancestor-or-self of a node, or -1.
    recordedAncestor(node) {
      let n = node;
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
    selectorOf(el) {
      const root = el.getRootNode();
      let prefix = "";
      if (root.host) prefix = this.selectorOf(root.host) + " >>> ";
      else if (root !== this.doc && root.defaultView && root.defaultView.frameElement) {
        prefix = this.selectorOf(root.defaultView.frameElement) + " >>> ";
      }
      const ctx = { root, prefix };
      const parts = [];
      let node = el;
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
        let n = 1;
        for (let s = node.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === node.localName) n++;
        parts.unshift(`${node.localName}:nth-of-type(${n})`);
        if (!node.parentElement) return prefix + "> " + parts.join(" > ");
        node = node.parentElement;
      }
      return prefix + parts.join(" > ");
    }

    contextOf(el) {
      const root = el.getRootNode();
      let prefix = "";
      let frameVisible = true;
      if (root.host) prefix = this.selectorOf(root.host) + " >>> ";
      else if (root !== this.doc && root.defaultView && root.defaultView.frameElement) {
        const frame = root.defaultView.frameElement;
        prefix = this.selectorOf(frame) + " >>> ";
        frameVisible = visible(frame, { frameVisible: true });
      }
      let inRow = false;
      let inert = false;
      for (let a = el.parentElement; a; a = a.parentElement) {
        if (ROW_TAGS.has(a.localName) || ROW_ROLES.has(a.getAttribute("role") || "")) inRow = true;
        if (a.hasAttribute("inert")) inert = true;
      }
      return { root, prefix, inRow, inert, frameVisible, depth: 0 };
    }

    // Splices for the subtrees around changed nodes, applied to this extractor's own
    // table too. Returns null when a full extraction is the better answer.
    patch(changed) {
      const started = performance.now();
      const roots = new Set();
      for (const node of changed) {
        let i = this.recordedAncestor(node);
        if (i < 0) return null;
        // Records whose text contains this one's (a leafish parent) are re-read too.
        for (let p = this.recs[i].p; p !== undefined && this.recs[p].x; p = this.recs[p].p) i = p;
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
      const splices = [];
      for (let k = kept.length - 1; k >= 0; k--) {
        const i = kept[k];
        const el = this.nodes[i];
        const oldEnd = this.ends[i];
        const parentIdx = this.recs[i].p === undefined ? null : this.recs[i].p;
        const recs = [];
        const nodes = [];
        const ends = [];
        if (el.isConnected) {
          const ctx = this.contextOf(el);
          this.visit(el, parentIdx, this.selectorOf(el), null, ctx, recs, nodes, ends, i, null);
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

    splice(start, deleteCount, recs, nodes, ends) {
      const delta = recs.length - deleteCount;
      const oldEnd = start + deleteCount;
      if (delta !== 0) {
        for (let j = oldEnd; j < this.recs.length; j++) {
          const p = this.recs[j].p;
          if (p !== undefined && p >= oldEnd) this.recs[j].p = p + delta;
          this.ends[j] += delta;
        }
        // Ancestors of the subtree grow or shrink with it.
        let p = start < this.recs.length ? this.recs[start].p : undefined;
        while (p !== undefined && p !== null) {
          this.ends[p] += delta;
          p = this.recs[p].p;
        }
      }
      this.recs.splice(start, deleteCount, ...recs);
      this.nodes.splice(start, deleteCount, ...nodes);
      this.ends.splice(start, deleteCount, ...ends);
      for (let j = start; j < this.nodes.length; j++) this.nodes[j][IDX] = j;
    }
  }

  globalThis.NspExtract = { Extractor, norm, isSecret, IDX };
})();
