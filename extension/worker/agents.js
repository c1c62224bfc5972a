// worker/agents.js — the agents other than the default one, as nspd describes them (an
// `agents` message after the welcome and on every change), for the popup; the tab groups
// their tabs go into (one per agent, titled with its name, in its colour); and the end
// of an agent's claim on a tab when the person takes the tab out of its group or removes
// the group (`tab_ungrouped`). Which tab is in which agent's group is kept in
// chrome.storage.session, so a restarted worker still notices. The person's share and
// revoke from the popup (an extension page, checked by the callers) go to nspd from here.

import { storage } from "./storage.js";
import { sendOrKeep, ready } from "./socket.js";
import { pushStatus } from "./popup.js";

/**
 * @type {{
 *   list: AgentView[],
 *   tabs: Map<number, AgentTab>,
 *   grouping: Set<number>,
 *   loaded: Promise<void>,
 * }}
 */
export const agents = {
  // nspd's last `agents` message.
  list: [],
  // tabId -> the agent whose group it was put in, and that group's id.
  tabs: new Map(),
  // Tabs being put into a group right now: their group changes are ours, not the person's.
  grouping: new Set(),
  loaded: Promise.resolve(),
};
agents.loaded = storage.sessionGet("agent_tabs").then((saved) => {
  for (const t of saved || []) if (!agents.tabs.has(t.tab_id)) agents.tabs.set(t.tab_id, t);
}).catch(() => {});

function saveTabs() {
  return storage.sessionSet("agent_tabs", Array.from(agents.tabs.values())).catch(() => {});
}

/** nspd's list. @param {unknown} list */
export function applyAgents(list) {
  agents.list = Array.isArray(list) ? /** @type {AgentView[]} */ (list) : [];
  pushStatus();
}

/**
 * Puts a tab nspd opened for an agent into the agent's group in the tab's window: the one
 * of that title if there is one, else a new one in the agent's colour.
 * @param {chrome.tabs.Tab} tab
 * @param {TabGroup} group
 */
export async function groupTab(tab, group) {
  await agents.loaded;
  const tabId = tab.id;
  if (typeof tabId !== "number") return;
  agents.grouping.add(tabId);
  try {
    const found = await chrome.tabGroups.query({ windowId: tab.windowId });
    const mine = found.find((g) => g.title === group.title);
    let groupId;
    if (mine) {
      groupId = await chrome.tabs.group({ groupId: mine.id, tabIds: tabId });
    } else {
      groupId = await chrome.tabs.group({ tabIds: tabId, createProperties: { windowId: tab.windowId } });
      await chrome.tabGroups.update(groupId, { title: group.title, color: /** @type {chrome.tabGroups.Color} */ (/** @type {unknown} */ (group.color)) });
    }
    agents.tabs.set(tabId, { tab_id: tabId, agent: group.title, group_id: groupId });
    await saveTabs();
  } finally {
    agents.grouping.delete(tabId);
  }
}

/** The claim on `tabId` ends: tell nspd. @param {number} tabId */
function ungrouped(tabId) {
  if (!agents.tabs.delete(tabId)) return;
  saveTabs();
  ready.then(() => sendOrKeep({ type: "tab_ungrouped", tab_id: tabId }));
}

// chrome.tabs.onUpdated: a tab of an agent's group moved to no group or another one.
/** @param {number} tabId @param {chrome.tabs.OnUpdatedInfo} change */
export async function onTabUpdated(tabId, change) {
  if (change.groupId === undefined) return;
  await agents.loaded;
  const known = agents.tabs.get(tabId);
  if (!known || agents.grouping.has(tabId) || change.groupId === known.group_id) return;
  if (change.groupId !== chrome.tabGroups.TAB_GROUP_ID_NONE) {
    // Into another group: still the agent's if that group bears its name.
    const into = await chrome.tabGroups.get(change.groupId).catch(() => null);
    if (into && into.title === known.agent) {
      known.group_id = into.id;
      saveTabs();
      return;
    }
  }
  ungrouped(tabId);
}

// chrome.tabGroups.onRemoved: every tab the group held leaves the agent.
/** @param {chrome.tabGroups.TabGroup} group */
export async function onGroupRemoved(group) {
  await agents.loaded;
  for (const t of Array.from(agents.tabs.values())) if (t.group_id === group.id) ungrouped(t.tab_id);
}

// chrome.tabs.onRemoved: a closed tab already ends the claim (`tab_closed`).
/** @param {number} tabId */
export async function forgetAgentTab(tabId) {
  await agents.loaded;
  if (agents.tabs.delete(tabId)) saveTabs();
}

// The person's share, stop-sharing or revoke, from one of this extension's own pages
// (checked by the callers). Only agents nspd listed, only whole tab ids.
/** @param {{ type?: unknown, tab_id?: unknown, agent?: unknown, share?: unknown, name?: unknown }} msg */
export function onAgentsMessage(msg) {
  const known = (/** @type {unknown} */ name) => typeof name === "string" && agents.list.some((a) => a.name === name);
  switch (msg.type) {
    case "share_tab": {
      if (!Number.isSafeInteger(msg.tab_id) || !known(msg.agent) || typeof msg.share !== "boolean") {
        return { ok: false, error: "sharing needs a tab id, a listed agent and share true or false" };
      }
      sendOrKeep({ type: "share_tab", tab_id: msg.tab_id, agent: msg.agent, share: msg.share });
      return { ok: true };
    }
    case "revoke_agent": {
      if (!known(msg.name)) return { ok: false, error: "no such agent" };
      sendOrKeep({ type: "revoke_agent", name: msg.name });
      return { ok: true };
    }
    default:
      return { ok: false, error: "unknown message" };
  }
}
