// worker/tabs.js — the tabs this worker relays for: each tab's runtime port to its
// content script and its last tab_state (re-announced to nspd on reconnect), a content
// script's connection and departure, and what content scripts send.

import "../delta.js"; // NspDelta
import { sendToDaemon, sendOrKeep, ready } from "./socket.js";
import { offerChannel, dropDirect, forgetOffers } from "./direct.js";
import { probeTabConnected, probeTabGone, runProbe } from "./probe.js";
import { outlineOpenQuestions } from "./approvals.js";
import { updateBadge } from "./badge.js";
import { settleRecent, pushStatus } from "./popup.js";

/** @type {{ ports: Map<number, chrome.runtime.Port>, states: Map<number, TabState> }} */
export const tabs = {
  // tabId -> runtime Port of the tab's content script.
  ports: new Map(),
  // tabId -> last tab_state message, re-announced on reconnect.
  states: new Map(),
};

// A content script's runtime port (named nsp-tab, from this extension, top frame: the
// caller checked).
/** @param {chrome.runtime.Port} port */
export function onTabPort(port) {
  // The caller took only a tab's port: its sender has a tab, with an id.
  const sender = /** @type {chrome.runtime.MessageSender & { tab: chrome.tabs.Tab & { id: number } }} */ (port.sender);
  const tabId = sender.tab.id;
  const windowId = sender.tab.windowId;
  tabs.ports.set(tabId, port);
  dropDirect(tabId);
  offerChannel(tabId, windowId, port);
  probeTabConnected(tabId, port, sender.url || sender.tab.url || "");
  outlineOpenQuestions(tabId);
  port.onMessage.addListener((msg) => {
    if (msg && typeof msg.type === "string" && msg.type.startsWith("probe_")) {
      runProbe(tabId, port, msg);
      return;
    }
    ready.then(() => onTabMessage(tabId, windowId, msg));
  });
  port.onDisconnect.addListener(() => {
    forgetOffers(port);
    if (tabs.ports.get(tabId) !== port) return;
    tabs.ports.delete(tabId);
    dropDirect(tabId);
    probeTabGone(tabId);
    // Navigation or reload: the tab lives on and a new content script will report.
    const last = tabs.states.get(tabId);
    /** @type {TabState} */
    const detecting = { type: "tab_state", tab_id: tabId, window_id: windowId, status: "detecting", url: last ? last.url : null, title: last ? last.title : null, message: null, capture: null, request_id: null };
    tabs.states.set(tabId, detecting);
    ready.then(() => sendToDaemon(detecting));
  });
}

/** @param {number} tabId */
export function onTabRemoved(tabId) {
  tabs.ports.delete(tabId);
  dropDirect(tabId);
  tabs.states.delete(tabId);
  probeTabGone(tabId);
  ready.then(() => sendToDaemon({ type: "tab_closed", tab_id: tabId }));
}

/**
 * What a tab's content script sent (over its runtime port, or an action result over its direct port).
 * @param {number} tabId
 * @param {number | undefined} windowId
 * @param {TabMessage | null} msg
 */
export function onTabMessage(tabId, windowId, msg) {
  if (!msg || typeof msg !== "object") return;
  switch (msg.type) {
    case "tab_state": {
      /** @type {TabState} */
      const state = {
        type: "tab_state",
        tab_id: tabId,
        window_id: windowId,
        status: msg.status,
        url: msg.url || null,
        title: msg.title || null,
        message: msg.message || null,
        capture: msg.capture || null,
        request_id: msg.request_id || null,
      };
      // Re-announce later without answering an old capture request.
      tabs.states.set(tabId, { ...state, request_id: null });
      sendToDaemon(state);
      updateBadge(tabId);
      pushStatus();
      break;
    }
    case "tab_delta": {
      const { type: _type, ...delta } = msg;
      const state = tabs.states.get(tabId);
      if (state && state.capture) NspDelta.apply(state.capture, delta);
      sendToDaemon({ type: "tab_delta", tab_id: tabId, ...delta });
      updateBadge(tabId);
      pushStatus();
      break;
    }
    case "resolved":
      sendToDaemon({ type: "resolved", request_id: String(msg.request_id || ""), tab_id: tabId, resolution: msg.resolution || { count: 0, error: "no answer" } });
      break;
    case "action_result": {
      settleRecent(msg.action_id, msg.outcome);
      pushStatus();
      sendOrKeep({ type: "action_result", action_id: msg.action_id, tab_id: tabId, outcome: msg.outcome });
      break;
    }
    default:
      break;
  }
}
