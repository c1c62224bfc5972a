// worker/probe.js — the probe's settings for every tab, and the extension tier of the
// probe (wasm_extension): this worker runs the probe on the snapshots the content
// scripts send, so its wasm is compiled once for the browser, not on every page load
// (issue 23). A page too big or too busy to share this worker with every other tab
// moves to a probe of its own in its page, where its CSP allows WebAssembly (content.js,
// WORKER_MAX_RECORDS); the extension's own CSP allows 'wasm-unsafe-eval', so a page whose
// CSP forbids it is analysed here whatever its size.

import initProbe, { Probe, warm, __wbg_reset_state as resetProbeState } from "../probe/nsp_probe.js";
import { tabs } from "./tabs.js";
import { corrections } from "./corrections.js";

/**
 * @type {{
 *   probes: Map<number, Probe>,
 *   init: Promise<unknown> | null,
 *   memory: WebAssembly.Memory | null,
 *   settings: ProbeSettings | null,
 *   origins: Map<number, string | null>,
 *   sentSettings: Map<number, string>,
 *   stopped: Set<number>,
 * }}
 */
const probe = {
  // tabId -> Probe, for tabs on the extension tier.
  probes: new Map(),
  init: null,
  // The probe's linear memory once it is loaded.
  /** @type {WebAssembly.Memory | null} */
  memory: null,
  // The probe settings nspd sent in its welcome ([probe] in nspd.toml: max_objects,
  // max_list_records), or null for the probe's defaults. Every probe, here and in the
  // pages, is configured with them.
  settings: null,
  // tabId -> origin of the page its content script runs in.
  origins: new Map(),
  // tabId -> JSON of the probe settings last sent to it.
  sentSettings: new Map(),
  // Tabs whose document the probe stopped on (see replaceInstance): not read again here
  // until a new document connects.
  stopped: new Set(),
};

// What a tab whose document stopped the probe is told, for every capture it asks for.
const STOPPED =
  "the probe stopped while it read it (its WebAssembly trapped: a bug, or memory run out). " +
  "NSP does not read this page again until it is loaded again (navigate or reload the tab); other tabs go on.";

/** @param {string} tier @param {number} tabId */
function probeConfig(tier, tabId) {
  return JSON.stringify({ tier, ...(settingsFor(tabId) || {}) });
}

// A tab's probe settings: nspd's, plus the corrections of the tab's origin when it has
// any (none: exactly nspd's, so a site without corrections is probed as before).
/** @param {number} tabId @returns {ProbeSettings | null} */
function settingsFor(tabId) {
  const origin = probe.origins.get(tabId);
  const mine = origin ? corrections.list.filter((c) => c && c.origin === origin) : [];
  if (!mine.length) return probe.settings;
  return { ...(probe.settings || {}), corrections: mine };
}

// A new content script: its page's origin, and its probe settings when there are any.
/** @param {number} tabId @param {chrome.runtime.Port} port @param {string} url */
export function probeTabConnected(tabId, port, url) {
  probe.stopped.delete(tabId);
  probe.origins.set(tabId, originOf(url));
  const settings = settingsFor(tabId);
  probe.sentSettings.set(tabId, JSON.stringify(settings));
  if (settings) port.postMessage({ type: "probe_config", settings });
}

/** @param {number} tabId */
export function probeTabGone(tabId) {
  probe.origins.delete(tabId);
  probe.sentSettings.delete(tabId);
  probe.stopped.delete(tabId);
  dropProbe(tabId);
}

// A probe takes its settings when it is made: new settings mean new probes. This
// worker's own are dropped (the next update finds none and the page sends a full
// snapshot); the pages make theirs anew and capture again. Only tabs whose settings
// changed are touched.
export function pushProbeSettings() {
  for (const [tabId, port] of tabs.ports) {
    const settings = settingsFor(tabId);
    const json = JSON.stringify(settings);
    if (probe.sentSettings.get(tabId) === json) continue;
    probe.sentSettings.set(tabId, json);
    dropProbe(tabId);
    try {
      port.postMessage({ type: "probe_config", settings });
    } catch (_) {
      // The tab went away meanwhile.
    }
  }
}

/** @param {ProbeSettings | null} settings */
export function applyProbeSettings(settings) {
  if (JSON.stringify(settings) === JSON.stringify(probe.settings)) return;
  probe.settings = settings;
  pushProbeSettings();
}

/** @param {string} url @returns {string | null} its origin when it is a web page's */
export function originOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch (_) {
    return null;
  }
}

// The probe's wasm, compiled on the first tab of this worker's life, then warmed up
// once: one analysis of a small built-in page compiles its functions before a real
// page's capture needs them.
function probeReady() {
  probe.init =
    probe.init ||
    initProbe({ module_or_path: chrome.runtime.getURL("probe/nsp_probe_bg.wasm") }).then((wasm) => {
      probe.memory = wasm.memory;
      try {
        warm();
      } catch (err) {
        // Only an optimisation: the first capture is slower, nothing else changes.
        if (trapped(err)) replaceInstance();
      }
      return wasm;
    });
  return probe.init;
}

// A trap (a panic, memory run out, a stack overflow) stops the wasm in the middle of a
// call: the allocations it held are never freed, its shadow stack is not unwound, the
// tab's probe stays borrowed. So the instance is not used again: its probes are
// forgotten (stale objects of the old instance; its memory goes with them) and a new
// instance of the compiled module serves every tab. Their next patch finds no probe, so
// each sends a full snapshot (content.js), as after a worker restart.
/** @param {unknown} err */
function trapped(err) {
  return err instanceof WebAssembly.RuntimeError || err instanceof RangeError;
}

function replaceInstance() {
  probe.probes.clear();
  probe.memory = null;
  try {
    resetProbeState();
  } catch (err) {
    // No new instance (no memory for one): every tab is told so, none is read.
    probe.init = Promise.reject(err);
    probe.init.catch(() => {});
    return;
  }
  // The module is loaded, so this only hands back the new instance's exports.
  probe.init = initProbe({ module_or_path: chrome.runtime.getURL("probe/nsp_probe_bg.wasm") }).then((wasm) => {
    probe.memory = wasm.memory;
    return wasm;
  });
}

// What the probe holds in this worker, for the benchmark's memory per tab (it reads this
// through the DevTools protocol; no page can reach a worker's globals).
/** @type {{ nspProbeStats?: () => { tabs: number, wasm_bytes: number } }} */ (globalThis).nspProbeStats = () => ({
  tabs: probe.probes.size,
  wasm_bytes: probe.memory ? probe.memory.buffer.byteLength : 0,
});

/**
 * A content script's question, over its runtime port or its direct one (the answer goes
 * back the same way).
 * @param {number} tabId
 * @param {{ postMessage(message: unknown): void }} port
 * @param {ProbeRequest} msg
 */
export async function runProbe(tabId, port, msg) {
  /** @param {boolean} ok @param {unknown} result @param {string} [error] */
  const reply = (ok, result, error) => {
    try {
      port.postMessage({ type: "probe_result", id: msg.id, ok, result, error });
    } catch (_) {
      // The tab went away meanwhile.
    }
  };
  if (probe.stopped.has(tabId) && (msg.type === "probe_analyze" || msg.type === "probe_update")) {
    reply(false, null, STOPPED);
    return;
  }
  try {
    await probeReady();
    switch (msg.type) {
      case "probe_ping":
        reply(true, Probe.version());
        break;
      case "probe_analyze": {
        let p = probe.probes.get(tabId);
        if (!p) {
          p = new Probe(probeConfig("wasm_extension", tabId));
          probe.probes.set(tabId, p);
        }
        reply(true, p.analyze(msg.snapshot));
        break;
      }
      case "probe_drop":
        // The page moved to a probe of its own.
        dropProbe(tabId);
        break;
      case "probe_update": {
        const p = probe.probes.get(tabId);
        if (!p) {
          reply(false, null, "no snapshot for this tab (the worker restarted): send a full one");
          return;
        }
        reply(true, p.update(msg.patch));
        break;
      }
      default:
        break;
    }
  } catch (err) {
    if (trapped(err)) {
      // Not this page's probe alone: the instance every tab shares. The page that
      // stopped it is not read again (it would stop the new one too, and each stop
      // costs every other tab a full capture).
      replaceInstance();
      probe.stopped.add(tabId);
      reply(false, null, STOPPED);
      return;
    }
    reply(false, null, String((err && err.message) || err));
  }
}

/** @param {number} tabId */
export function dropProbe(tabId) {
  const p = probe.probes.get(tabId);
  if (p) {
    probe.probes.delete(tabId);
    p.free();
  }
}
