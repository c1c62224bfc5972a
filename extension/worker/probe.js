// worker/probe.js — the probe's settings for every tab, and the extension tier of the
// probe: for pages whose CSP forbids WebAssembly in the page (tier wasm_extension: the
// extension's own CSP allows 'wasm-unsafe-eval') this worker runs the same probe on the
// snapshot the content script sends.

import initProbe, { Probe } from "../probe/nsp_probe.js";
import { tabs } from "./tabs.js";
import { corrections } from "./corrections.js";

/**
 * @type {{
 *   probes: Map<number, Probe>,
 *   init: Promise<unknown> | null,
 *   settings: ProbeSettings | null,
 *   origins: Map<number, string | null>,
 *   sentSettings: Map<number, string>,
 * }}
 */
const probe = {
  // tabId -> Probe, for tabs on the extension tier.
  probes: new Map(),
  init: null,
  // The probe settings nspd sent in its welcome ([probe] in nspd.toml: max_objects,
  // max_list_records), or null for the probe's defaults. Every probe, here and in the
  // pages, is configured with them.
  settings: null,
  // tabId -> origin of the page its content script runs in.
  origins: new Map(),
  // tabId -> JSON of the probe settings last sent to it.
  sentSettings: new Map(),
};

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
  probe.origins.set(tabId, originOf(url));
  const settings = settingsFor(tabId);
  probe.sentSettings.set(tabId, JSON.stringify(settings));
  if (settings) port.postMessage({ type: "probe_config", settings });
}

/** @param {number} tabId */
export function probeTabGone(tabId) {
  probe.origins.delete(tabId);
  probe.sentSettings.delete(tabId);
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

function probeReady() {
  probe.init = probe.init || initProbe({ module_or_path: chrome.runtime.getURL("probe/nsp_probe_bg.wasm") });
  return probe.init;
}

/** @param {number} tabId @param {chrome.runtime.Port} port @param {ProbeRequest} msg */
export async function runProbe(tabId, port, msg) {
  /** @param {boolean} ok @param {unknown} result @param {string} [error] */
  const reply = (ok, result, error) => {
    try {
      port.postMessage({ type: "probe_result", id: msg.id, ok, result, error });
    } catch (_) {
      // The tab went away meanwhile.
    }
  };
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
