// worker/pages.js — this extension's own pages (the popup, opened as a popup or as a
// tab, and its corrections list): who counts as one, their one-off requests (the status,
// an answer to a question, corrections, sharing a tab with an agent, revoking one), and
// the refusal of those messages from anyone else. Content scripts use ports, and their
// messages here are refused.

import { storage } from "./storage.js";
import { ready } from "./socket.js";
import { approvals, answerApproval } from "./approvals.js";
import { onCorrectionsMessage } from "./corrections.js";
import { popupStatus } from "./popup.js";
import { onAgentsMessage } from "./agents.js";

const PAGE_ONLY = ["approval_answer", "popup_status", "correct", "remove_correction", "corrections_status", "share_tab", "revoke_agent"];

// Refusals of messages that only the extension's pages may send, counted for the tests
// (and a person reading the worker's console).
const pages = { refusedCount: 0 };

// Whether a message or port comes from one of this extension's own pages. A content
// script's sender.url is the web page's, and a web page cannot reach this worker at all
// (no externally_connectable), so an answer to a question can only come from here.
/** @param {chrome.runtime.MessageSender | undefined} sender */
export function fromExtensionPage(sender) {
  if (!sender || sender.id !== chrome.runtime.id) return false;
  const base = chrome.runtime.getURL("");
  if (typeof sender.url !== "string" || !sender.url.startsWith(base)) return false;
  // Where Chrome says the frame's origin, it must be ours too (a content script's is the
  // web page's, whatever its URL claims).
  return sender.origin === undefined || sender.origin === base.replace(/\/$/, "");
}

/** @param {string} what @param {chrome.runtime.MessageSender | undefined} sender */
export function refused(what, sender) {
  pages.refusedCount++;
  storage.sessionSet("refused_senders", pages.refusedCount).catch(() => {});
  console.warn(`nsp: refused ${what} from ${sender && sender.url}`);
}

// chrome.runtime.onMessage: one-off requests from our own extension pages.
/**
 * @param {{ type?: string, [field: string]: unknown } | null} msg from a page or a content script
 * @param {chrome.runtime.MessageSender} sender
 * @param {(response?: unknown) => void} sendResponse
 */
export function onPageMessage(msg, sender, sendResponse) {
  if (!msg || typeof msg !== "object") return false;
  if (!fromExtensionPage(sender)) {
    if (typeof msg.type === "string" && PAGE_ONLY.includes(msg.type)) refused(`a ${msg.type} message`, sender);
    return false;
  }
  if (msg.type === "popup_status") {
    Promise.all([ready, approvals.loaded]).then(() => sendResponse(popupStatus()));
    return true;
  }
  if (msg.type === "approval_answer") {
    ready.then(() => answerApproval(String(msg.approval_id), String(msg.decision))).then((ok) => sendResponse({ ok }));
    return true;
  }
  if (msg.type === "share_tab" || msg.type === "revoke_agent") {
    ready.then(() => sendResponse(onAgentsMessage(msg)));
    return true;
  }
  if (msg.type === "corrections_status" || msg.type === "correct" || msg.type === "remove_correction") {
    ready.then(() => sendResponse(onCorrectionsMessage(msg)));
    return true;
  }
  return false;
}
