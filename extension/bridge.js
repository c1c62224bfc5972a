// bridge.js — the isolated world's side of the channel to page-world.js (the extension's
// main-world script). It exists because WebMCP tools, dialogs raised by an action and
// click and hover listeners live in the page's own JavaScript world, which content
// scripts cannot see.
//
// A classic script defining `NspBridge`, loaded before content.js; tests and the
// benchmark inject it with extract.js to take snapshots exactly as the extension does.
// What page-world.js learns (tools, listeners) it pushes over page-channel.js's private
// channel as it happens, and a capture reads the copies kept there: taking one sends
// the page nothing it could observe. Calling a WebMCP tool and hearing of SPA
// navigations use DOM CustomEvents carrying JSON strings, which the page can see and
// forge: what comes back is page data. Dialogs are answered over the private channel,
// and their log is kept here, in the isolated world.
"use strict";

(() => {
  if (globalThis.NspBridge) return;

  const TO_PAGE = "nsp:to-page";
  const FROM_PAGE = "nsp:from-page";
  const TOOL_TIMEOUT_MS = 60_000;
  const NONE = { set: new WeakSet(), count: 0 };

  // `on`: optional {toolsChanged(), navigated()} callbacks for what the page reports.
  /**
   * @param {{ toolsChanged?(): void, navigated?(): void } | null} [on]
   * @returns {NspPage}
   */
  function create(on) {
    const handlers = on || {};
    /** @type {Map<unknown, (msg: { ok?: unknown, value?: unknown, code?: unknown, message?: unknown }) => void>} */
    const pending = new Map();
    let seq = 0;
    const channel = globalThis.NspPageChannel || null;
    if (channel && typeof channel.onTools === "function") {
      channel.onTools(() => {
        if (handlers.toolsChanged) handlers.toolsChanged();
      });
    }
    document.addEventListener(FROM_PAGE, (event) => {
      // Page data: anything the page dispatched (checked below).
      /** @type {{ type?: unknown, id?: unknown, ok?: unknown, value?: unknown, code?: unknown, message?: unknown } | null} */
      let msg;
      try {
        msg = JSON.parse(/** @type {CustomEvent} */ (event).detail);
      } catch (_) {
        return;
      }
      if (!msg || typeof msg !== "object") return;
      switch (msg.type) {
        case "navigated":
          if (handlers.navigated) handlers.navigated();
          break;
        case "tool_result": {
          const done = pending.get(msg.id);
          if (done) {
            pending.delete(msg.id);
            done(msg);
          }
          break;
        }
        default:
          break;
      }
    });
    const post = (/** @type {Record<string, unknown>} */ msg) => document.dispatchEvent(new CustomEvent(TO_PAGE, { detail: JSON.stringify(msg) }));
    const failure = (/** @type {string} */ code, /** @type {string} */ message) => Object.assign(new Error(message), { code });

    // Dialogs during an action: armed for the whole dispatch; `accept` (nspd said the
    // action is an irreversible write sent with a verify expression) lets one confirm()
    // be answered yes, and only while `trigger` runs the action's click or submit, so
    // a confirm() from a timer, a later fetch callback or a field's change handler is
    // declined like any other.
    /** @type {{ accept: boolean, triggering: boolean, acceptedOne: boolean, log: PageDialog[] } | null} */
    let dialogs = null;
    if (channel) {
      channel.onDialog((kind, message) => {
        if (!dialogs) return null;
        const accept = kind === "confirm" && dialogs.accept && dialogs.triggering && !dialogs.acceptedOne;
        if (accept) dialogs.acceptedOne = true;
        dialogs.log.push({ kind, message, accepted: kind === "alert" ? true : accept });
        return { accept };
      });
    }

    /** @type {NspPage} */
    const bridge = {
      // WebMCP tools the page registered, as the snapshot's `tools`: the last list
      // page-world.js pushed.
      tools() {
        const list = channel && typeof channel.tools === "function" ? channel.tools() : null;
        return Array.isArray(list) ? list : [];
      },
      // Elements with click listeners, and with hover listeners: {set, count}.
      clickable() {
        return channel && channel.clickable ? channel.clickable : NONE;
      },
      hover() {
        return channel && channel.hover ? channel.hover : NONE;
      },
      // From here until disarmDialogs(), the page's dialogs are answered by NSP.
      armDialogs(accept) {
        dialogs = { accept: accept === true, triggering: false, acceptedOne: false, log: [] };
      },
      // Runs `fn`, the action's own click, key or submit: a confirm() it raises
      // synchronously is the one that may be accepted.
      trigger(fn) {
        if (!dialogs) return fn();
        dialogs.triggering = true;
        try {
          return fn();
        } finally {
          dialogs.triggering = false;
        }
      },
      // The dialogs since armDialogs(), as {kind, message, accepted}; answering stops.
      disarmDialogs() {
        const log = dialogs ? dialogs.log : [];
        dialogs = null;
        return log;
      },
      callTool(name, input) {
        const id = `t${++seq}`;
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            pending.delete(id);
            reject(failure("threw", `The WebMCP tool ${JSON.stringify(name)} did not answer within ${TOOL_TIMEOUT_MS / 1000} s.`));
          }, TOOL_TIMEOUT_MS);
          pending.set(id, (msg) => {
            clearTimeout(timer);
            if (msg.ok) resolve(msg.value === undefined ? null : msg.value);
            else reject(failure(msg.code === "target_not_found" ? "target_not_found" : "threw", String(msg.message || "The tool failed.")));
          });
          post({ type: "call_tool", id, name, input });
        });
      },
      // Tells the extractor which elements have click and hover listeners.
      mark(extractor) {
        const { set, count: n } = bridge.clickable();
        extractor.clickable = set;
        extractor.clickableCount = n;
        extractor.hover = bridge.hover();
      },
      // A full snapshot the way the extension takes it: click listeners marked first,
      // WebMCP tools attached.
      snapshot(extractor) {
        bridge.mark(extractor);
        const snap = extractor.full();
        const tools = bridge.tools();
        if (tools.length) snap.tools = tools;
        return snap;
      },
    };
    return bridge;
  }

  globalThis.NspBridge = { create };
})();
