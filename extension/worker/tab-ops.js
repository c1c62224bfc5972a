// worker/tab-ops.js — nspd opens and closes tabs for agents (its MCP tools open_tab and
// close_tab, and POST /substrate/v1/tabs). Web pages only: nspd checks the URL too, and
// this is the last word before chrome.tabs. A tab opened for an agent other than the
// default one goes into that agent's tab group (agents.js).

import { sendToDaemon, daemon } from "./socket.js";
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

// The page `nspd run --launch URL` starts on (nsp-config.json's `start_url`), opened
// here, once, when the launched browser installs the extension, rather than from
// Chromium's command line: Chromium loads the tabs it starts with without waiting for
// its extensions, so such a tab can miss the document_start scripts (page-world.js, and
// with it the page's WebMCP tools and dialogs) or every content script. A navigation
// made by the extension waits for its content scripts. The launched profile's one tab
// (about:blank) is reused.
export async function openStartPage() {
  const url = daemon.config && daemon.config.startUrl;
  if (!url || !/^https?:\/\/[^/]/i.test(url)) return;
  try {
    const tabs = await chrome.tabs.query({});
    const only = tabs.length === 1 ? tabs[0].id : undefined;
    if (typeof only === "number") await chrome.tabs.update(only, { url });
    else await chrome.tabs.create({ url, active: true });
  } catch (err) {
    console.warn("nsp: cannot open the start page", err);
  }
}
