// worker/badge.js — each tab's badge (the capture's confidence in percent, coloured by the
// gate's floors) and its title, and the per-tab summary the popup shows too.

import { FLOOR_IRREVERSIBLE_WRITE, FLOOR_REVERSIBLE_WRITE, TIERS } from "../contract.js";
import { tabs } from "./tabs.js";
import { direct } from "./direct.js";
import { connected } from "./socket.js";

/** @param {number} tabId @param {TabState | undefined} state the tab's last tab_state */
export function summarize(tabId, state) {
  const cap = state && state.capture;
  const byTier = Object.fromEntries(TIERS.map((tier) => [tier, 0]));
  let actions = 0;
  if (cap) {
    for (const a of Object.values(cap.actions || {})) {
      if (a.internal_target && a.internal_target.startsWith("builtin:")) continue;
      actions++;
      if (byTier[a.reversibility] !== undefined) byTier[a.reversibility]++;
    }
  }
  return {
    tab_id: tabId,
    url: state ? state.url : null,
    title: state ? state.title : null,
    status: state ? state.status : "detecting",
    message: state ? state.message : null,
    probe_tier: cap && cap.probe_metadata ? cap.probe_metadata.probe_tier : null,
    confidence: cap ? cap.confidence : null,
    settled: cap && cap.probe_metadata ? Boolean(cap.probe_metadata.settled) : null,
    direct_channel: direct.ports.has(tabId),
    actions,
    by_tier: byTier,
    objects: cap ? Object.keys(cap.objects || {}).length : 0,
  };
}

/** @param {number} tabId */
export function updateBadge(tabId) {
  const s = summarize(tabId, tabs.states.get(tabId));
  const isConnected = connected();
  let text = "";
  let color = "#777";
  if (s.status === "error") {
    text = "!";
    color = "#b00020";
  } else if (typeof s.confidence === "number") {
    text = String(Math.round(s.confidence * 100));
    color = !isConnected ? "#777" : s.confidence >= FLOOR_IRREVERSIBLE_WRITE ? "#1e7e34" : s.confidence >= FLOOR_REVERSIBLE_WRITE ? "#b26a00" : "#b00020";
  }
  const tierName = s.probe_tier === "wasm_extension" ? "in the extension" : s.probe_tier === "wasm_in_page" ? "in the page" : "not running";
  const title = `NSP — ${isConnected ? "connected to nspd" : "nspd not connected"}\nprobe: ${tierName}` +
    (typeof s.confidence === "number" ? `\nconfidence ${s.confidence.toFixed(2)}, ${s.actions} actions (${s.by_tier.read} read, ${s.by_tier.reversible_write} reversible, ${s.by_tier.irreversible_write} irreversible)` : "");
  chrome.action.setBadgeText({ tabId, text }).catch(() => {});
  chrome.action.setBadgeBackgroundColor({ tabId, color }).catch(() => {});
  chrome.action.setTitle({ tabId, title }).catch(() => {});
}

export function updateAllBadges() {
  for (const tabId of tabs.states.keys()) updateBadge(tabId);
}
