// worker/approvals.js — putting nspd's questions to the person: approval cards in the
// popup, a notification, the target outlined in the page; and only an extension page's
// answer back to nspd. The open questions are mirrored in chrome.storage.session, so a
// restarted worker shows them at once and remembers an answer it gave but could not
// deliver; nspd also asks again after every hello.

import { storage } from "./storage.js";
import { tabs } from "./tabs.js";
import { sendOrKeep } from "./socket.js";
import { remember, pushStatus } from "./popup.js";

const DECISIONS = ["approve_once", "deny", "always"];

/** nspd's open questions (`approval` messages) by approval_id, and their load from storage. */
export const approvals = {
  /** @type {Map<string, ApprovalQuestion>} */
  open: new Map(),
  /** @type {Promise<void>} */
  loaded: Promise.resolve(),
};
approvals.loaded = storage.sessionGet("approvals").then((list) => {
  for (const q of list || []) {
    if (Date.parse(q.expires_at) > Date.now()) approvals.open.set(q.approval_id, q);
  }
}).catch(() => {});

function saveApprovals() {
  return storage.sessionSet("approvals", Array.from(approvals.open.values())).catch(() => {});
}

/** @param {{ type: "approval" } & ApprovalQuestion} msg */
export async function onApproval(msg) {
  await approvals.loaded;
  const { type: _type, ...question } = msg;
  const known = approvals.open.get(question.approval_id);
  if (known && known.answered) {
    // Answered before a restart or a dropped socket: nspd asks again because the answer
    // never arrived. Give the same answer (nspd takes only the first one it receives).
    sendAnswer(question.approval_id, known.answered);
    return;
  }
  approvals.open.set(question.approval_id, question);
  await saveApprovals();
  outline(question, true);
  if (!known) notify(question);
  pushStatus();
}

/** @param {string} approvalId @param {string} reason */
export async function onApprovalClosed(approvalId, reason) {
  await approvals.loaded;
  const q = approvals.open.get(approvalId);
  approvals.open.delete(approvalId);
  await saveApprovals();
  if (q) {
    outline(q, false);
    if (reason !== "answered") {
      const why = reason === "timed_out" ? "not answered in time: refused" : "withdrawn by the agent";
      remember({ action_id: approvalId, tab_id: q.tab_id, action: q.action, at: Date.now(), status: "approval", message: why });
    }
  }
  try {
    chrome.notifications.clear(`nsp-approval-${approvalId}`, () => void chrome.runtime.lastError);
  } catch (_) {
    // No notifications here (permission missing, headless): nothing to clear.
  }
  pushStatus();
}

// The person's answer, from one of this extension's own pages (checked by the callers).
/** @param {string} approvalId @param {string} decision */
export async function answerApproval(approvalId, decision) {
  await approvals.loaded;
  const q = approvals.open.get(approvalId);
  if (!q || q.answered || !DECISIONS.includes(decision)) return false;
  q.answered = decision;
  await saveApprovals();
  sendAnswer(approvalId, decision);
  /** @type {Record<string, string>} */
  const words = { approve_once: "approved once by you", deny: "denied by you", always: "always allowed on this site by you" };
  remember({ action_id: approvalId, tab_id: q.tab_id, action: q.action, at: Date.now(), status: "approval", message: words[decision] });
  pushStatus();
  return true;
}

/** @param {string} approvalId @param {string} decision */
function sendAnswer(approvalId, decision) {
  sendOrKeep({ type: "approval_answer", approval_id: approvalId, decision });
}

// A reloaded page or a restarted worker: outline again what the person is asked about.
/** @param {number} tabId */
export function outlineOpenQuestions(tabId) {
  approvals.loaded.then(() => {
    for (const q of approvals.open.values()) if (q.tab_id === tabId && !q.answered) outline(q, true);
  });
}

// The element the question is about, outlined in its tab by the content script (which
// removes the outline when the question closes).
/** @param {ApprovalQuestion} q @param {boolean} on */
function outline(q, on) {
  const port = tabs.ports.get(q.tab_id);
  if (!port || !q.target) return;
  try {
    port.postMessage({ type: on ? "outline" : "outline_off", approval_id: q.approval_id, selector: q.target });
  } catch (_) {
    // The tab went away meanwhile.
  }
}

/** @param {ApprovalQuestion} q */
function notify(q) {
  // A notification is a courtesy: where there are none (headless, no permission, the
  // person turned them off) the popup's card is enough.
  try {
    chrome.notifications.create(`nsp-approval-${q.approval_id}`, {
      type: "basic",
      iconUrl: chrome.runtime.getURL("icons/nsp-48.png"),
      title: `${q.agent && q.agent !== "default" ? q.agent : "An agent"} asks to run the page's action \u201c${String(q.action).slice(0, 60)}\u201d`,
      message: `${q.tier.replace(/_/g, " ")}, confidence ${Number(q.confidence).toFixed(2)} (needs ${Number(q.floor).toFixed(2)}) on ${q.origin || q.url || "a tab"}. Open NSP to approve or deny.`,
      requireInteraction: true,
      priority: 2,
    }, () => void chrome.runtime.lastError);
  } catch (_) {
    // See above.
  }
}

// Clicking the notification opens the popup page in a tab: answers are given there.
/** @param {string} id */
export function onNotificationClicked(id) {
  if (!id.startsWith("nsp-approval-")) return;
  chrome.tabs.create({ url: chrome.runtime.getURL("popup.html") }).catch(() => {});
}
