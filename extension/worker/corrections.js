// worker/corrections.js — every correction nspd stores (per origin and action; nspd
// pushes all of them after its welcome and on every change). A page's probe gets its own
// origin's in its configuration (probe.js) and applies them as declared-level evidence.
// Kept in chrome.storage.session too, so a restarted worker configures new pages with
// them before nspd has answered. Also the popup's corrections list, and a person's
// corrections forwarded to nspd.

import { TIERS } from "../contract.js";
import { storage } from "./storage.js";
import { tabs } from "./tabs.js";
import { connected, sendToDaemon } from "./socket.js";
import { pushProbeSettings, originOf } from "./probe.js";

/** @type {{ list: StoredCorrection[] }} */
export const corrections = { list: [] };

// What a previous run of this worker stored, unless nspd has already sent its list.
export async function restoreCorrections() {
  const stored = await storage.sessionGet("corrections");
  if (Array.isArray(stored) && !corrections.list.length) {
    corrections.list = stored;
    pushProbeSettings();
  }
}

/** @param {unknown} list nspd's list */
export function applyCorrections(list) {
  corrections.list = Array.isArray(list) ? list : [];
  storage.sessionSet("corrections", corrections.list).catch(() => {});
  pushProbeSettings();
  // Open extension pages (the popup) re-read them; none open is not an error.
  chrome.runtime.sendMessage({ type: "corrections_changed" }).catch(() => {});
}

// What the popup's corrections list needs: every stored correction, and each tab's
// actions (builtins left out) to correct.
function correctionsStatus() {
  const list = [];
  for (const [tabId, state] of tabs.states) {
    const cap = state && state.capture;
    const actions = [];
    for (const [name, a] of Object.entries((cap && cap.actions) || {})) {
      if (a.internal_target && a.internal_target.startsWith("builtin:")) continue;
      // The action's `--explain` lines that say who corrected it and when.
      const why = cap && cap.explain && cap.explain[name] ? cap.explain[name].signals || [] : [];
      const corrected = why.filter((line) => String(line).startsWith("corrected ("));
      actions.push({ name, reversibility: a.reversibility, confidence: a.confidence, description: a.description || "", corrected });
    }
    list.push({ tab_id: tabId, title: state.title, url: state.url, origin: originOf(state.url || ""), actions });
  }
  return { connected: connected(), corrections: corrections.list.slice(), tabs: list };
}

// A person's correction or removal, forwarded to nspd (which stores it and pushes the
// new list back). Checked here so nspd gets only well-formed messages.
/** @param {{ type?: string, tier?: unknown, trusted?: unknown, origin?: unknown, action?: unknown, id?: unknown }} msg */
export function onCorrectionsMessage(msg) {
  switch (msg.type) {
    case "corrections_status":
      return correctionsStatus();
    case "correct": {
      const tier = msg.tier == null ? null : String(msg.tier);
      const trusted = msg.trusted === true;
      if (typeof msg.origin !== "string" || originOf(msg.origin) !== msg.origin || typeof msg.action !== "string" || !msg.action
        || (tier !== null && !TIERS.includes(tier)) || (tier === null && !trusted)) {
        return { ok: false, error: "a correction needs an origin, an action, and a tier or trusted" };
      }
      const sent = sendToDaemon({ type: "correct", origin: msg.origin, action: msg.action, tier, trusted });
      return sent ? { ok: true } : { ok: false, error: "nspd is not connected" };
    }
    case "remove_correction": {
      if (typeof msg.id !== "string" || !msg.id) return { ok: false, error: "no id" };
      const sent = sendToDaemon({ type: "remove_correction", id: msg.id });
      return sent ? { ok: true } : { ok: false, error: "nspd is not connected" };
    }
    default:
      return { ok: false, error: "unknown message" };
  }
}
