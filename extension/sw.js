// sw.js — the extension's service worker. It exists because it alone may hold the
// socket to nspd: its WebSocket handshake carries Origin chrome-extension://<our id>,
// which nspd pins, while a socket from a content script would carry the page's Origin.
// It relays between nspd and the content scripts of every tab, enforces at-most-once
// execution of dispatched actions across restarts, runs the probe for pages whose CSP
// forbids WebAssembly in the page (tier wasm_extension: the extension's own CSP allows
// 'wasm-unsafe-eval'), keeps the badge and the popup's status (pushed to the popup over
// a runtime port), and puts nspd's questions to the person (approval cards in the popup,
// a notification, the target outlined in the page) and only an extension page's answer
// back.
//
// This file only wires the browser's events to the modules in worker/, one per concern,
// each holding its state in one object (chrome.storage through worker/storage.js):
//   socket.js       the socket to nspd: config, connect, keepalive, reconnect, `ready`
//   from-daemon.js  nspd's messages, routed
//   once.js         at-most-once claims of action ids
//   tabs.js         the tabs' runtime ports and states; content scripts' messages
//   direct.js       the read fast path (a MessagePort per tab through channel.html)
//   probe.js        probe settings per tab; the extension tier of the probe
//   corrections.js  nspd's corrections; the person's, forwarded
//   approvals.js    questions to the person and their answers
//   tab-ops.js      open_tab / close_tab for nspd; the launched browser's start page
//   join.js         tabs open before the extension started: its content scripts, late
//   agents.js       nspd's agents for the popup; their tab groups; share and revoke
//   badge.js        the badge and per-tab summary
//   popup.js        the popup's pushed status and the recent actions
//   pages.js        the extension's own pages: who they are, their requests
//
// Listeners are registered synchronously at top level (MV3 requirement: a worker woken
// by an event must find its listener), and wait on `ready` before doing work.

import { ready } from "./worker/socket.js";
import { onTabPort, onTabRemoved } from "./worker/tabs.js";
import { onChannelMessage } from "./worker/direct.js";
import { onNotificationClicked } from "./worker/approvals.js";
import { onPopupPort } from "./worker/popup.js";
import { onTabUpdated, onGroupRemoved, forgetAgentTab } from "./worker/agents.js";
import { fromExtensionPage, refused, onPageMessage } from "./worker/pages.js";
import { openStartPage } from "./worker/tab-ops.js";
import { joinOpenTabs } from "./worker/join.js";

chrome.runtime.onConnect.addListener((port) => {
  if (port.name === "nsp-popup") {
    // The popup's live view, and its answers to questions: extension pages only.
    if (!fromExtensionPage(port.sender)) {
      refused("a runtime port named nsp-popup", port.sender);
      port.disconnect();
      return;
    }
    onPopupPort(port);
    return;
  }
  // Only our own content scripts connect (no externally_connectable); still check.
  if (port.name !== "nsp-tab" || !port.sender || !port.sender.tab || port.sender.id !== chrome.runtime.id) {
    port.disconnect();
    return;
  }
  if (port.sender.frameId !== 0) {
    port.disconnect();
    return;
  }
  onTabPort(port);
});

chrome.tabs.onRemoved.addListener(onTabRemoved);
chrome.tabs.onRemoved.addListener(forgetAgentTab);
// An agent's tab taken out of its group, or the group removed: the agent's claim ends.
chrome.tabs.onUpdated.addListener(onTabUpdated);
chrome.tabGroups.onRemoved.addListener(onGroupRemoved);

self.addEventListener("message", onChannelMessage);

chrome.runtime.onMessage.addListener(onPageMessage);

if (chrome.notifications && chrome.notifications.onClicked) {
  chrome.notifications.onClicked.addListener(onNotificationClicked);
}

// Pages open before the extension started (restored as Chromium started, or open as it
// was installed, updated or reloaded) are joined (worker/join.js); then the page
// `nspd run --launch` starts on is opened.
chrome.runtime.onStartup.addListener(() => ready.then(joinOpenTabs));
chrome.runtime.onInstalled.addListener((details) =>
  ready.then(joinOpenTabs).then(() => (details.reason === "install" ? openStartPage() : undefined)),
);
