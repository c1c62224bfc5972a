// worker/popup.js — the popup's status (connection, tabs, recent actions, open
// questions), pushed to every open popup over its runtime port when it changes; and the
// recent list, which outlives a worker restart (chrome.storage.session) so the popup's
// history does not lose what happened just before one.

import { storage } from "./storage.js";
import { tabs } from "./tabs.js";
import { daemon, connected, ready } from "./socket.js";
import { approvals, answerApproval } from "./approvals.js";
import { summarize } from "./badge.js";
import { agents, onAgentsMessage } from "./agents.js";

const RECENT_LIMIT = 20;
const PUSH_MS = 100;

/**
 * @type {{
 *   recent: RecentAction[],
 *   recentLoaded: Promise<void>,
 *   ports: Set<chrome.runtime.Port>,
 *   pushTimer: ReturnType<typeof setTimeout> | null,
 * }}
 */
export const popup = {
  // Last dispatched actions, newest first.
  recent: [],
  recentLoaded: Promise.resolve(),
  // Open popups (runtime ports named nsp-popup): each gets the whole status whenever it
  // changes, at most every PUSH_MS, instead of asking for it on a timer.
  ports: new Set(),
  pushTimer: null,
};
popup.recentLoaded = storage.sessionGet("recent").then((saved) => {
  const recent = popup.recent;
  for (const r of saved || []) if (!recent.some((x) => x.action_id === r.action_id && x.status === r.status)) recent.push(r);
  recent.sort((a, b) => b.at - a.at);
  if (recent.length > RECENT_LIMIT) recent.length = RECENT_LIMIT;
}).catch(() => {});

/** @param {RecentAction} entry */
export function remember(entry) {
  popup.recent.unshift(entry);
  if (popup.recent.length > RECENT_LIMIT) popup.recent.length = RECENT_LIMIT;
  saveRecent();
}

function saveRecent() {
  popup.recentLoaded.then(() => storage.sessionSet("recent", popup.recent)).catch(() => {});
}

// A dispatched action's outcome, from its tab: its recent entry shows it.
/** @param {string} actionId @param {DispatchOutcome | undefined} outcome */
export function settleRecent(actionId, outcome) {
  const entry = popup.recent.find((r) => r.action_id === actionId);
  if (entry && outcome) {
    entry.status = outcome.status;
    entry.message = outcome.message || null;
    saveRecent();
  }
}

// A tab's own actions for the popup's tab view: name, tier, confidence and the probe's
// reason (the builtins every tab has are left out).
/** @param {TabState | undefined} state */
function tabActions(state) {
  const cap = state && state.capture;
  if (!cap) return [];
  const explain = cap.explain || {};
  const out = [];
  for (const [name, a] of Object.entries(cap.actions || {})) {
    if (a.internal_target && a.internal_target.startsWith("builtin:")) continue;
    const why = explain[name];
    const reason = why ? [why.tier_reason, why.confidence_reason].filter(Boolean).join("; ") : "";
    out.push({ name, tier: a.reversibility, confidence: a.confidence, reason: reason || a.description || "" });
  }
  out.sort((x, y) => x.name.localeCompare(y.name));
  return out;
}

export function popupStatus() {
  return {
    connected: connected(),
    daemon_url: daemon.config ? daemon.config.daemonUrl : null,
    tabs: Array.from(tabs.states.entries(), ([tabId, state]) => ({ ...summarize(tabId, state), action_list: tabActions(state) })),
    recent: popup.recent.slice(),
    approvals: Array.from(approvals.open.values()).filter((q) => !q.answered).map(maskSecrets),
    agents: agents.list.slice(),
  };
}

// A question's parameters with those the tab's action schema marks secret masked (nspd
// masks them too; this holds when an older nspd did not): the popup shows no secret.
/** @param {ApprovalQuestion} q */
function maskSecrets(q) {
  const state = tabs.states.get(q.tab_id);
  const schema = state && state.capture && state.capture.actions ? state.capture.actions[q.action] : null;
  const secret = new Set(((schema && schema.parameters) || []).filter((p) => p && p.secret === true).map((p) => p.name));
  if (!secret.size || !q.parameters) return q;
  /** @type {Record<string, unknown>} */
  const parameters = {};
  for (const [k, v] of Object.entries(q.parameters)) parameters[k] = secret.has(k) ? "\u2022\u2022\u2022\u2022\u2022\u2022" : v;
  return { ...q, parameters, secret_parameters: Array.from(secret) };
}

export function pushStatus() {
  if (!popup.ports.size || popup.pushTimer) return;
  popup.pushTimer = setTimeout(() => {
    popup.pushTimer = null;
    const status = popupStatus();
    for (const port of popup.ports) {
      try {
        port.postMessage({ type: "status", status });
      } catch (_) {
        popup.ports.delete(port);
      }
    }
  }, PUSH_MS);
}

// A popup's port (its sender already checked to be one of this extension's pages): the
// live view, the person's answers to questions, shares and revocations.
/** @param {chrome.runtime.Port} port */
export function onPopupPort(port) {
  popup.ports.add(port);
  port.onDisconnect.addListener(() => popup.ports.delete(port));
  port.onMessage.addListener((msg) => {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "approval_answer") {
      ready.then(() => answerApproval(String(msg.approval_id), String(msg.decision)));
    } else if (msg.type === "share_tab" || msg.type === "revoke_agent") {
      ready.then(() => onAgentsMessage(msg));
    }
  });
  Promise.all([ready, approvals.loaded, popup.recentLoaded]).then(() => {
    try {
      port.postMessage({ type: "status", status: popupStatus() });
    } catch (_) {
      popup.ports.delete(port);
    }
  });
}
