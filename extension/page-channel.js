// page-channel.js — the isolated world's end of a private channel to page-world.js,
// for the one question that must not be forgeable: how NSP answers a confirm() the page
// raises while NSP runs an action. A manifest content script at document_start, in the
// isolated world, like content.js but early: it must pair with page-world.js before any
// of the page's own scripts run.
//
// Why a private channel. bridge.js talks to the main world with CustomEvents on
// `document`, which the page can read and dispatch itself. That is fine for data that is
// page data anyway (WebMCP tools, click listeners), but "answer yes to this confirm()"
// must come from NSP alone. So page-world.js makes a detached element that it never
// inserts and never hands to the page, and offers it once, as the relatedTarget of an
// event on `document`, while no page script exists yet to listen. Events dispatched on a
// detached element reach only that element's own listeners: after pairing, only
// page-world.js and this script can talk on it. page-world.js holds the built-ins it
// uses (dispatchEvent, the event constructors) from before the page ran, so a page that
// later patches them cannot read or inject either.
//
// What this does not protect, and need not: the page's own code decides what its
// confirm() answer means. A page can replace window.confirm, skip asking, or write
// anyway; no extension can stop a page from doing what it does. What the channel
// guarantees is that NSP itself never says yes except for an action that nspd's gate
// allowed as an irreversible write with a verify expression, only to a dialog raised
// synchronously inside that action's click or submit, and only once; and that what NSP
// reports about the page's dialogs (which decides `dialog_declined` and raises the
// control's tier) is recorded here, in the isolated world, where the page cannot write.
//
// The same channel carries what page-world.js learns as it happens: the WebMCP tools
// (the last list is kept here), and the elements the page adds click or hover listeners
// to. Reading them at capture time sends the page nothing: a page must not be able to
// tell when a capture is taken (it could change between the capture nspd gates and the
// action).
//
// Defines `NspPageChannel` for bridge.js: `onDialog(handler)`, where handler(kind,
// message) returns null (not during an action of ours: the person answers) or
// {accept: boolean}; `tools()`, the last tool list; `onTools(fn)`, called when it
// changes; `clickable` and `hover`, {set: WeakSet of elements, count}.
"use strict";

(() => {
  if (globalThis.NspPageChannel) return;

  const OFFER = "nsp:channel-offer";
  const HELLO = "nsp:channel-hello";
  const PAIRED = "nsp:channel-paired";
  const DIALOG = "nsp:dialog";
  const ANSWER = "nsp:dialog-answer";
  const PING = "nsp:channel-ping";
  const PONG = "nsp:channel-pong";

  /** @type {Element | null} */
  let chan = null;
  /** @type {((kind: string, message: string) => { accept: boolean } | null) | null} */
  let handler = null;
  /** @type {WebMcpTool[]} */
  let tools = [];
  /** @type {(() => void) | null} */
  let onTools = null;
  const clickable = { set: new WeakSet(), count: 0 };
  const hover = { set: new WeakSet(), count: 0 };
  // The path announced just before an element inside a shadow root (see sendElement in
  // page-world.js), by event type.
  /** @type {Record<string, unknown>} */
  const paths = { "nsp:clickable": null, "nsp:hover": null };

  /** @param {CustomEvent} event */
  function onToolList(event) {
    try {
      const list = JSON.parse(event.detail);
      tools = Array.isArray(list) ? list : [];
    } catch (_) {
      tools = [];
    }
    if (onTools) onTools();
  }

  /** @param {CustomEvent} event */
  function onPath(event) {
    const type = event.type.slice(0, -"-path".length);
    try {
      paths[type] = JSON.parse(event.detail);
    } catch (_) {
      paths[type] = null;
    }
  }

  // The element an event names: its relatedTarget, or down the announced path from it.
  /** @param {MouseEvent} event */
  function onElement(event) {
    const type = event.type;
    const levels = paths[type];
    paths[type] = null;
    const target = event.relatedTarget;
    if (!(target instanceof Element)) return;
    let node = target;
    if (Array.isArray(levels)) {
      for (const steps of levels) {
        /** @type {ParentNode | null} */
        let at = node.shadowRoot; // a closed root stays closed to us: nothing to mark
        if (!at || !Array.isArray(steps)) return;
        for (const i of steps) {
          at = at && Number.isInteger(i) ? at.children[i] : null;
        }
        if (!(at instanceof Element)) return;
        node = at;
      }
    }
    const into = type === "nsp:hover" ? hover : clickable;
    if (!into.set.has(node)) {
      into.set.add(node);
      into.count++;
    }
  }

  /** @param {CustomEvent} event */
  function onDialog(event) {
    /** @type {{ kind?: unknown, message?: unknown } | null} */
    let msg;
    try {
      msg = JSON.parse(event.detail);
    } catch (_) {
      return;
    }
    if (!msg || typeof msg !== "object") return;
    const kind = msg.kind === "confirm" || msg.kind === "alert" || msg.kind === "prompt" ? msg.kind : null;
    // Heard on the channel only, so `chan` is set.
    if (!kind || !handler || !chan) return;
    const verdict = handler(kind, String(msg.message || "").slice(0, 500));
    if (!verdict) return;
    chan.dispatchEvent(new CustomEvent(ANSWER, { detail: verdict.accept === true ? "yes" : "no" }));
  }

  // page-world.js asks, when another isolated world says hello, whether this one is
  // still there. Not once the extension that made it is gone (updated, reloaded or
  // removed under the page: chrome.runtime.id is undefined then), so that page-world.js
  // pairs with the new one. Without chrome.runtime at all (tests and the bench inject
  // these scripts into the page), always.
  function onPing() {
    const runtime = typeof chrome === "undefined" ? null : chrome.runtime;
    if (runtime && !runtime.id) return;
    if (chan) chan.dispatchEvent(new CustomEvent(PONG));
  }

  /** @param {MouseEvent} event */
  function onOffer(event) {
    const el = event.relatedTarget;
    // Only a detached element can be private; the first offer is page-world.js's (no
    // page script has run yet).
    if (chan || !(el instanceof Element) || el.isConnected) return;
    chan = el;
    document.removeEventListener(OFFER, onOffer, true);
    chan.addEventListener(DIALOG, onDialog);
    chan.addEventListener(PING, onPing);
    chan.addEventListener("nsp:tools", onToolList);
    for (const type of ["nsp:clickable", "nsp:hover"]) {
      chan.addEventListener(type, onElement);
      chan.addEventListener(type + "-path", onPath);
    }
    chan.dispatchEvent(new CustomEvent(PAIRED));
  }

  // Whichever of the two scripts runs second completes the pairing: page-world.js offers
  // as it starts, and again when it hears hello while unpaired (or paired with an
  // isolated world that is gone, see onPing).
  document.addEventListener(OFFER, onOffer, true);
  document.dispatchEvent(new CustomEvent(HELLO));

  globalThis.NspPageChannel = {
    onDialog(fn) {
      handler = typeof fn === "function" ? fn : null;
    },
    get paired() {
      return chan !== null;
    },
    tools() {
      return tools;
    },
    onTools(fn) {
      onTools = typeof fn === "function" ? fn : null;
    },
    clickable,
    hover,
  };
})();
