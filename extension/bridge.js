// bridge.js — the isolated world's side of the channel to page-world.js (the extension's
// main-world script). It exists because WebMCP tools, dialogs raised by an action and
// click listeners live in the page's own JavaScript world, which content scripts cannot
// see: the two sides talk through DOM CustomEvents carrying JSON strings.
//
// A classic script defining `NspBridge`, loaded before content.js; tests and the
// benchmark inject it with extract.js to take snapshots exactly as the extension does.
// Everything that comes back is page data: the page can forge these events. Dialogs are
// the exception: they are answered over page-channel.js's private channel, and their
// log is kept here, in the isolated world.
"use strict";

(() => {
  if (globalThis.NspBridge) return;

  const TO_PAGE = "nsp:to-page";
  const FROM_PAGE = "nsp:from-page";
  const CLICKABLE = "nsp:clickable";
  const TOOL_TIMEOUT_MS = 60_000;

  // `on`: optional {toolsChanged(), navigated()} callbacks for what the page reports.
  function create(on) {
    const handlers = on || {};
    const pending = new Map();
    let seq = 0;
    let collecting = null;
    let replies = null;
    let count = 0;
    document.addEventListener(CLICKABLE, (event) => {
      if (collecting) {
        collecting.add(event.composedPath()[0]);
        count++;
      }
    }, true);
    document.addEventListener(FROM_PAGE, (event) => {
      let msg;
      try {
        msg = JSON.parse(/** @type {CustomEvent} */ (event).detail);
      } catch (_) {
        return;
      }
      if (!msg || typeof msg !== "object") return;
      if (replies) replies.push(msg);
      switch (msg.type) {
        case "tools_changed":
          if (handlers.toolsChanged) handlers.toolsChanged();
          break;
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
    const post = (msg) => document.dispatchEvent(new CustomEvent(TO_PAGE, { detail: JSON.stringify(msg) }));
    // The main world answers synchronously, inside dispatchEvent.
    const ask = (msg, type) => {
      replies = [];
      post(msg);
      const got = replies.find((r) => r.type === type) || null;
      replies = null;
      return got;
    };
    const failure = (code, message) => Object.assign(new Error(message), { code });

    // Dialogs during an action: armed for the whole dispatch; `accept` (nspd said the
    // action is an irreversible write sent with a verify expression) lets one confirm()
    // be answered yes, and only while `trigger` runs the action's click or submit, so
    // a confirm() from a timer, a later fetch callback or a field's change handler is
    // declined like any other.
    let dialogs = null;
    const channel = globalThis.NspPageChannel || null;
    if (channel) {
      channel.onDialog((kind, message) => {
        if (!dialogs) return null;
        const accept = kind === "confirm" && dialogs.accept && dialogs.triggering && !dialogs.acceptedOne;
        if (accept) dialogs.acceptedOne = true;
        dialogs.log.push({ kind, message, accepted: kind === "alert" ? true : accept });
        return { accept };
      });
    }

    const bridge = {
      // WebMCP tools the page registered, as the snapshot's `tools`.
      tools() {
        const r = ask({ type: "tools" }, "tools");
        return r && Array.isArray(r.tools) ? r.tools : [];
      },
      // Elements with click listeners: the main world fires an event on each.
      clickable() {
        collecting = new WeakSet();
        count = 0;
        post({ type: "mark_clickable" });
        const set = collecting;
        collecting = null;
        return { set, count };
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
      // Tells the extractor which elements have click listeners.
      mark(extractor) {
        const { set, count: n } = bridge.clickable();
        extractor.clickable = set;
        extractor.clickableCount = n;
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
