// page-world.js — the extension's only code in the page's own JavaScript world
// (manifest content script with "world": "MAIN", at document_start). It exists because
// three things are invisible from the isolated world content.js runs in:
//
// - WebMCP tools: a page registers them on navigator.modelContext / document.modelContext
//   with JavaScript objects (and execute callbacks) that only this world can hold;
// - window.confirm/alert/prompt raised by an action we dispatch: only a wrapper here can
//   answer them instead of blocking the page. How to answer is decided in the isolated
//   world and comes over a private channel (see page-channel.js for why and how);
// - click listeners added with addEventListener, which mark a <div> as a control;
// - SPA navigations through history.pushState/replaceState.
//
// What it learns about the page (WebMCP tools, click and hover listeners) it pushes to
// the isolated world as it happens, over the private channel (page-channel.js), so that
// nothing the page can observe happens when a capture is taken: a page that could hear
// captures could change itself between the capture nspd gates and the action. What
// comes from here is still page data, exactly as trustworthy as the DOM itself. The
// dialog answers go over the same channel, which the page can neither read nor forge.
// The requests that are the page's own business (calling a WebMCP tool the agent asked
// for, SPA navigations the page made) use DOM CustomEvents whose detail is a JSON string.
// Injected by the browser, it is not subject to the page's CSP.
(() => {
  "use strict";
  if (window.__nspPageWorld) return;
  Object.defineProperty(window, "__nspPageWorld", { value: true });

  const TO_PAGE = "nsp:to-page";
  const FROM_PAGE = "nsp:from-page";

  // The built-ins the channel uses, taken before any page script runs: a page that later
  // replaces them cannot see or inject channel traffic.
  const listen = EventTarget.prototype.addEventListener;
  const dispatchEvent = EventTarget.prototype.dispatchEvent;
  const Weak = WeakRef;
  const Custom = CustomEvent;
  const Mouse = MouseEvent;
  const stringify = JSON.stringify;
  const createElement = Document.prototype.createElement;
  const getRootNode = Node.prototype.getRootNode;
  const ShadowRootType = ShadowRoot;
  // Getters every browser has (the descriptors and their `get` are never missing).
  const childrenOf = /** @type {(this: Node) => HTMLCollection} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(Element.prototype, "children")).get);
  const fragmentChildren = /** @type {(this: Node) => HTMLCollection} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(DocumentFragment.prototype, "children")).get);
  const parentOf = /** @type {(this: Node) => ParentNode | null} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(Node.prototype, "parentNode")).get);
  const hostOf = /** @type {(this: Node) => Element} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(ShadowRoot.prototype, "host")).get);
  const indexOf = Array.prototype.indexOf;

  /** @param {Record<string, unknown>} msg */
  const emit = (msg) => {
    document.dispatchEvent(new CustomEvent(FROM_PAGE, { detail: JSON.stringify(msg) }));
  };

  // Detached, never inserted, never given to the page: events on it reach only the
  // listeners of page-world.js and page-channel.js. A new one replaces it only when
  // the isolated world it was paired with is gone (see onHello).
  let chan = createElement.call(document, "nsp-channel");
  let paired = false;
  // The first MAX_MARKED elements given click or hover listeners (see below), sent again
  // to an isolated world paired later (see the pairing).
  const MAX_MARKED = 2000;
  /** @type {[string, WeakRef<Element>][]} */
  const marked = [];

  // Tells the isolated world about `el` (a "nsp:clickable" or "nsp:hover" element). An
  // element goes as the relatedTarget of an event on the channel; one inside a shadow
  // root would arrive as its host (events retarget it), so it goes as its outermost host
  // and, just before, the path down from there (child indexes per shadow root).
  /**
   * @param {string} type
   * @param {Element} el
   */
  function sendElement(type, el) {
    if (!paired) return;
    /** @type {Node} */
    let node = el;
    let root = getRootNode.call(node);
    const levels = [];
    while (root instanceof ShadowRootType) {
      const steps = [];
      for (let n = node; n !== root; n = parentOf.call(n)) {
        const parent = parentOf.call(n);
        if (!parent) return;
        steps.unshift(indexOf.call(parent === root ? fragmentChildren.call(root) : childrenOf.call(parent), n));
      }
      levels.unshift(steps);
      node = hostOf.call(root);
      root = getRootNode.call(node);
    }
    if (levels.length) dispatchEvent.call(chan, new Custom(type + "-path", { detail: stringify(levels) }));
    dispatchEvent.call(chan, new Mouse(type, { relatedTarget: node }));
  }

  // --- WebMCP ---------------------------------------------------------------------------
  /**
   * A tool as a page registers it: page data, checked where it is used.
   * @typedef {{ name: string, description?: unknown, inputSchema?: unknown,
   *   annotations?: { readOnlyHint?: unknown, destructiveHint?: unknown },
   *   execute: (input: unknown, client: object) => unknown }} PageTool
   */
  /** @type {Map<string, PageTool>} */
  const tools = new Map();

  /** @param {PageTool} tool */
  function describeTool(tool) {
    const annotations = tool.annotations || {};
    let schema = null;
    try {
      schema = tool.inputSchema ? JSON.parse(JSON.stringify(tool.inputSchema)) : null;
    } catch (_) {
      schema = null;
    }
    return {
      name: String(tool.name).slice(0, 128),
      description: String(tool.description || "").slice(0, 2000),
      input_schema: schema,
      read_only: typeof annotations.readOnlyHint === "boolean" ? annotations.readOnlyHint : null,
      destructive: typeof annotations.destructiveHint === "boolean" ? annotations.destructiveHint : null,
    };
  }

  /**
   * @param {PageTool} tool
   * @param {{ signal?: AbortSignal }} [options]
   */
  function register(tool, options) {
    if (!tool || typeof tool.name !== "string" || !tool.name || typeof tool.execute !== "function") {
      throw new TypeError("registerTool needs {name, description, inputSchema, execute}");
    }
    tools.set(tool.name, tool);
    const signal = options && options.signal;
    if (signal && typeof signal.addEventListener === "function") {
      signal.addEventListener("abort", () => unregister(tool.name), { once: true });
    }
    toolsChanged();
  }

  /** @param {unknown} name */
  function unregister(name) {
    if (tools.delete(String(name))) toolsChanged();
  }

  // The tools as the snapshot's `tools`, pushed over the channel whenever they change;
  // content.js keeps the last list and reads it when it captures.
  function toolsChanged() {
    if (!paired) return;
    let list;
    try {
      list = stringify(Array.from(tools.values(), describeTool));
    } catch (_) {
      list = "[]";
    }
    dispatchEvent.call(chan, new Custom("nsp:tools", { detail: list }));
  }

  const existing = /** @type {Record<string, unknown> | null} */ (navigator.modelContext || document.modelContext || null);
  const modelContext = existing || {};
  /** @type {Record<string, Function>} */
  const native = {};
  for (const m of ["registerTool", "unregisterTool", "provideContext", "clearContext"]) {
    if (existing && typeof existing[m] === "function") native[m] = /** @type {Function} */ (existing[m]).bind(existing);
  }
  /**
   * @param {string} name
   * @param {(...args: unknown[]) => void} ours what the page passed, checked by register()
   */
  const wrap = (name, ours) => {
    /** @param {unknown[]} args */
    const fn = function (...args) {
      const result = native[name] ? native[name](...args) : undefined;
      ours(...args);
      return result;
    };
    try {
      Object.defineProperty(modelContext, name, { value: fn, configurable: true, writable: true });
    } catch (_) {
      // A frozen native object: we still record through getters below if possible.
    }
  };
  wrap("registerTool", (tool, options) => register(/** @type {PageTool} */ (tool), /** @type {{ signal?: AbortSignal }} */ (options)));
  wrap("unregisterTool", (name) => unregister(name));
  wrap("provideContext", (/** @type {{ tools?: PageTool[] } | null} */ ctx) => {
    tools.clear();
    for (const tool of (ctx && ctx.tools) || []) register(tool);
    toolsChanged();
  });
  wrap("clearContext", () => {
    tools.clear();
    toolsChanged();
  });
  if (!existing) {
    // Pages that feature-detect WebMCP find an implementation that lets agents reach
    // their tools through nspd.
    for (const target of [navigator, document]) {
      try {
        Object.defineProperty(target, "modelContext", { value: modelContext, configurable: true });
      } catch (_) {
        // Already defined by the browser; nothing to add.
      }
    }
  }

  /**
   * @param {unknown} id
   * @param {string} name
   * @param {unknown} input
   */
  async function callTool(id, name, input) {
    const tool = tools.get(name);
    if (!tool) {
      emit({ type: "tool_result", id, ok: false, code: "target_not_found", message: `No WebMCP tool named ${JSON.stringify(name)} is registered.` });
      return;
    }
    try {
      const client = { requestUserInteraction: async (/** @type {unknown} */ cb) => (typeof cb === "function" ? cb() : undefined) };
      const value = await tool.execute(input || {}, client);
      let json;
      try {
        json = value === undefined ? null : JSON.parse(JSON.stringify(value));
      } catch (_) {
        json = String(value);
      }
      emit({ type: "tool_result", id, ok: true, value: json });
    } catch (err) {
      emit({ type: "tool_result", id, ok: false, code: "threw", message: String((err && err.message) || err).slice(0, 1000) });
    }
  }

  // --- the pairing, and dialogs raised by a dispatched action -----------------------------
  /** @type {string | null} */
  let answer = null;
  let alive = false;
  /** @param {Element} el */
  const listenOn = (el) => {
    listen.call(el, "nsp:dialog-answer", (/** @type {CustomEvent} */ event) => {
      answer = event.detail;
    });
    listen.call(el, "nsp:channel-pong", () => {
      alive = true;
    });
    listen.call(el, "nsp:channel-paired", () => {
      paired = true;
      // What the isolated world missed: all of it when it came after the page's scripts
      // (the extension started after the page loaded, or was updated under it).
      if (tools.size) toolsChanged();
      for (const [kind, ref] of marked) {
        const el = ref.deref();
        if (el && el.isConnected) sendElement(kind, el);
      }
    });
  };
  listenOn(chan);
  const offer = () => dispatchEvent.call(document, new Mouse("nsp:channel-offer", { relatedTarget: chan }));
  // page-channel.js says hello as it starts. Unpaired, this answers with the offer.
  // Paired, it asks the isolated world it is paired with whether it is still there: the
  // extension was updated, reloaded or reinstalled under this page, which leaves this
  // script here (its world is the page's) and starts a new isolated world. Only when
  // nobody answers is a new channel offered, so a hello the page sends while NSP's
  // isolated world is alive changes nothing.
  const onHello = () => {
    if (paired) {
      alive = false;
      dispatchEvent.call(chan, new Custom("nsp:channel-ping"));
      if (alive) return;
      paired = false;
      chan = createElement.call(document, "nsp-channel");
      listenOn(chan);
    }
    offer();
  };
  listen.call(document, "nsp:channel-hello", onHello, true);
  offer();

  const original = { confirm: window.confirm, alert: window.alert, prompt: window.prompt };
  /** @param {"confirm" | "alert" | "prompt"} kind */
  const dialog = (kind) => function (/** @type {unknown} */ message) {
    answer = null;
    if (paired) {
      const text = String(message === undefined ? "" : message).slice(0, 500);
      dispatchEvent.call(chan, new Custom("nsp:dialog", { detail: stringify({ kind, message: text }) }));
    }
    // No answer: not during an action of NSP's, so the person answers.
    if (answer === null) return original[kind].apply(this, arguments);
    const yes = answer === "yes";
    answer = null;
    if (kind === "confirm") return yes;
    return kind === "prompt" ? null : undefined;
  };
  window.confirm = dialog("confirm");
  window.alert = dialog("alert");
  window.prompt = dialog("prompt");

  // --- click and hover listeners ---------------------------------------------------------
  // Reported once per element as the page adds them: a click listener marks a <div> as a
  // control; a hover listener is evidence that a row reveals its actions on hover.
  const CLICK_TYPES = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart"]);
  const HOVER_TYPES = new Set(["mouseenter", "mouseover", "pointerenter", "pointerover"]);
  /** @type {Record<string, WeakSet<Element>>} */
  const seen = { "nsp:clickable": new WeakSet(), "nsp:hover": new WeakSet() };

  const addEventListener = EventTarget.prototype.addEventListener;
  /**
   * @this {EventTarget}
   * @param {string} type
   * @param {EventListenerOrEventListenerObject | null} listener
   * @param {boolean | AddEventListenerOptions} [options]
   */
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    const kind = CLICK_TYPES.has(type) ? "nsp:clickable" : HOVER_TYPES.has(type) ? "nsp:hover" : null;
    if (kind && this instanceof Element && !seen[kind].has(this)) {
      // Listeners on html/body delegate for the whole page; they mark nothing.
      if (this !== document.documentElement && this !== document.body) {
        seen[kind].add(this);
        if (marked.length < MAX_MARKED) marked.push([kind, new Weak(this)]);
        try {
          sendElement(kind, this);
        } catch (_) {
          // A detached oddity; the page's own call goes on regardless.
        }
      }
    }
    return addEventListener.call(this, type, listener, options);
  };

  // --- SPA navigation --------------------------------------------------------------------
  for (const m of /** @type {const} */ (["pushState", "replaceState"])) {
    const orig = history[m];
    /** @param {[unknown, string, (string | URL | null)?]} args */
    history[m] = function (...args) {
      const result = orig.apply(this, args);
      emit({ type: "navigated", how: m });
      return result;
    };
  }

  // --- requests from content.js -----------------------------------------------------------
  document.addEventListener(TO_PAGE, (event) => {
    // Anything on `document` may come from the page too (checked below).
    /** @type {{ type?: unknown, id?: unknown, name?: unknown, input?: unknown } | null} */
    let msg;
    try {
      msg = JSON.parse(/** @type {CustomEvent} */ (event).detail);
    } catch (_) {
      return;
    }
    switch (msg && msg.type) {
      case "call_tool": {
        const call = /** @type {{ id?: unknown, name?: unknown, input?: unknown }} */ (msg); // not null: it has a type
        callTool(call.id, String(call.name), call.input);
        break;
      }
      default:
        break;
    }
  });
})();
