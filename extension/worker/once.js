// worker/once.js — at most once: a dispatched action id runs once, across reconnects that
// re-deliver a dispatch and restarts of this worker. Executed action ids live in
// chrome.storage.session: they survive worker restarts and die with the browser session.

import { storage } from "./storage.js";
import { tabs } from "./tabs.js";

const EXECUTED_LIMIT = 5_000;

/** @type {{ claimChain: Promise<unknown> }} */
const once = {
  // Serialises read-modify-write of the executed list.
  claimChain: Promise.resolve(),
};

/** @param {string} actionId @returns {Promise<boolean>} false when it already ran */
async function claimActionId(actionId) {
  const executed = (await storage.sessionGet("executed")) || [];
  if (executed.includes(actionId)) return false;
  executed.push(actionId);
  if (executed.length > EXECUTED_LIMIT) executed.splice(0, executed.length - EXECUTED_LIMIT);
  await storage.sessionSet("executed", executed);
  return true;
}

// The read_text builtin only reads the page: run twice, it changes nothing, so it skips
// the claim (two chrome.storage.session round trips and a rewrite of the whole executed
// list, most of its round trip in `cargo xtask bench`). Only the builtin: a page's own
// action of that name is claimed like any other, and the content script runs nothing
// but the builtin for an unclaimed dispatch.
/** @param {{ action: string, tab_id: number }} msg a dispatch */
export function isPureRead(msg) {
  if (msg.action !== "read_text") return false;
  const state = tabs.states.get(msg.tab_id);
  const actions = state && state.capture ? state.capture.actions : null;
  const schema = actions ? actions.read_text : null;
  return !schema || String(schema.internal_target || "").startsWith("builtin:");
}

/** @param {string} actionId @returns {Promise<boolean>} */
export function claimInOrder(actionId) {
  const next = once.claimChain.then(() => claimActionId(actionId));
  once.claimChain = next.catch(() => {});
  return next;
}
