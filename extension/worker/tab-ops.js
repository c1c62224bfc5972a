// worker/tab-ops.js — nspd opens and closes tabs for agents (its MCP tools open_tab and
// close_tab). Web pages only: nspd checks the URL too, and this is the last word before
// chrome.tabs.

import { sendToDaemon } from "./socket.js";

/** @param {{type: string, request_id: string, url?: string, tab_id?: number}} msg */
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
