// bridge.js — the isolated world's side of the channel to page-world.js (the extension's
// main-world script). It exists because WebMCP tools, dialogs raised by an action and
// click listeners live in the page's own JavaScript world, which content scripts cannot
// see: the two sides talk through DOM CustomEvents carrying JSON strings.
//
// A classic script defining `NspBridge`, loaded before content.js; tests and the
// benchmark inject it with extract.js to take snapshots exactly as the extension does.
// Everything that comes back is page data: the page can forge these events.
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
        msg = JSON.parse(event.detail);
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
      armDialogs(accept) {
        post({ type: "arm_dialogs", accept: accept === true });
      },
      disarmDialogs() {
        const r = ask({ type: "disarm_dialogs" }, "dialogs");
        return r && Array.isArray(r.log) ? r.log : [];
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
