// worker/tab-ops.js — nspd opens and closes tabs for agents (its MCP tools open_tab and
// close_tab, and POST /substrate/v1/tabs). Web pages only: nspd checks the URL too, and
// this is the last word before chrome.tabs. A tab opened for an agent other than the
// default one goes into that agent's tab group (agents.js).

import { sendToDaemon } from "./socket.js";
import { groupTab } from "./agents.js";

/** @param {{type: string, request_id: string, url?: string, tab_id?: number, group?: TabGroup | null}} msg */
export async function tabOperation(msg) {
  const answer = (/** @type {number | null} */ tabId, /** @type {string | null} */ error) =>
    sendToDaemon({ type: "tab_op_result", request_id: msg.request_id, tab_id: tabId, error });
  try {
    if (msg.type === "open_tab") {
      const url = String(msg.url || "");
      if (!/^https?:\/\/[^/]/i.test(url)) {
        answer(null, `not an http(s) URL: ${url}`);
        return;
      }
      const tab = await chrome.tabs.create({ url, active: true });
      if (msg.group) {
        // The tab exists either way: a group that could not be made is logged, not an error.
        await groupTab(tab, msg.group).catch((err) => console.warn("nsp: cannot group the tab", err));
      }
      answer(typeof tab.id === "number" ? tab.id : null, null);
    } else {
      const tabId = Number(msg.tab_id);
      await chrome.tabs.remove(tabId);
      answer(tabId, null);
    }
  } catch (err) {
    answer(null, String(err instanceof Error ? err.message : err));
  }
}
