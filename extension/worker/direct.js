// worker/direct.js — the read fast path, which the probe's snapshots take too. A
// runtime-port message crosses the browser process on its way between this worker and a
// page (~0.2 ms each way here, half of a read's round trip), and is turned into JSON on
// the way. A MessagePort is a direct pipe between the two renderers. A content script
// cannot reach the worker with one itself, so it frames channel.html (ours,
// web-accessible) for a moment and posts the port there with a token it got over its
// runtime port; the frame hands both to this worker. The token is random, single-use and
// bound to the runtime port it was sent over, so a page that frames channel.html itself
// and posts a port gets nothing bound.

import { tabs, onTabMessage } from "./tabs.js";
import { ready } from "./socket.js";
import { pushStatus } from "./popup.js";
import { runProbe } from "./probe.js";

/**
 * @type {{
 *   ports: Map<number, MessagePort>,
 *   tokens: Map<string, { tabId: number, windowId: number, port: chrome.runtime.Port }>,
 * }}
 */
export const direct = {
  // tabId -> MessagePort straight to the tab's content script: set up through
  // channel.html for each runtime port, gone with it.
  ports: new Map(),
  // One-time tokens for that set-up: token -> {tabId, windowId, port} of the runtime
  // port the token was sent over.
  tokens: new Map(),
};

/** @param {number} tabId @param {number} windowId @param {chrome.runtime.Port} port */
export function offerChannel(tabId, windowId, port) {
  const token = crypto.randomUUID();
  direct.tokens.set(token, { tabId, windowId, port });
  port.postMessage({ type: "channel_offer", token });
}

/** The tokens offered over a runtime port that is gone. @param {chrome.runtime.Port} port */
export function forgetOffers(port) {
  for (const [token, offer] of direct.tokens) if (offer.port === port) direct.tokens.delete(token);
}

/** @param {number} tabId */
export function dropDirect(tabId) {
  const fast = direct.ports.get(tabId);
  if (!fast) return;
  direct.ports.delete(tabId);
  fast.onmessage = null;
  fast.close();
}

// Only this extension's own pages can message this worker (same origin), and of those
// only channel.html sends nsp_channel.
/** @param {MessageEvent} event */
export function onChannelMessage(event) {
  const data = event.data;
  if (!data || data.type !== "nsp_channel" || typeof data.token !== "string" || event.ports.length !== 1) return;
  const offer = direct.tokens.get(data.token);
  if (!offer) return;
  direct.tokens.delete(data.token);
  // The runtime port the token went out on must still be the tab's: a reload or restart
  // since then offered a new token.
  if (tabs.ports.get(offer.tabId) !== offer.port) return;
  const { tabId, windowId } = offer;
  const fast = event.ports[0];
  // The port carries reads only once the page has acknowledged `channel_ready`: a page
  // that gave up waiting (a slow frame load after a reload) has closed its end, and
  // reads posted into a closed port are lost without a word.
  fast.onmessage = (e) => {
    const msg = e.data;
    if (!msg) return;
    if (msg.type === "channel_ack") {
      if (tabs.ports.get(tabId) !== offer.port) {
        fast.close();
        return;
      }
      dropDirect(tabId);
      direct.ports.set(tabId, fast);
      pushStatus();
    } else if (direct.ports.get(tabId) !== fast) {
      // A port the tab has replaced since.
    } else if (msg.type === "action_result") {
      ready.then(() => onTabMessage(tabId, windowId, msg));
    } else if (typeof msg.type === "string" && msg.type.startsWith("probe_")) {
      // The probe's snapshots and patches, the biggest messages a tab sends.
      runProbe(tabId, fast, msg);
    }
  };
  fast.postMessage({ type: "channel_ready" });
}
