// delta.js — applies a `tab_delta` to a capture. It exists because two copies of a tab's
// capture are kept up to date from the same deltas: the content script's (what dispatch
// checks targets against) and the service worker's (what it re-announces to nspd after
// a reconnect), and both must read a delta the same way.
//
// A classic script defining `NspDelta`: a content script loaded before content.js, and
// imported for its effect by the service worker (worker/tabs.js; the worker is a module).
"use strict";

(() => {
  if (globalThis.NspDelta) return;

  // A delta is nsp_protocol::channel::TabDelta; protocol/tests/extension_contract.rs
  // checks that every field of it is applied here. Removed first, then changed: a key in
  // both ends up with its new value. The daemon (Hub::tab_delta,
  // daemon/src/core/hub/registry.rs) applies a delta in this same order, and
  // daemon/tests/delta_order.rs checks the two agree.
  /**
   * @param {PageCapture} cap
   * @param {TabDelta} delta
   */
  function apply(cap, delta) {
    for (const k of delta.removed || []) delete cap.objects[k];
    for (const [k, v] of Object.entries(delta.changed || {})) cap.objects[k] = v;
    if (delta.actions) cap.actions = delta.actions;
    if (delta.explain) cap.explain = delta.explain;
    if (typeof delta.confidence === "number") cap.confidence = delta.confidence;
    if (delta.context) cap.context = delta.context;
    if (delta.probe_metadata) cap.probe_metadata = delta.probe_metadata;
  }

  globalThis.NspDelta = { apply };
})();
