// channel.js — the page behind a hidden, short-lived frame that a tab's content script
// opens once per connection to the service worker. Its only job is an introduction: it
// hands the MessagePort that the content script posted to it on to the service worker,
// with the one-time token the worker gave that content script over its runtime port.
// From then on the port is a direct pipe between the page's renderer and the worker, so
// a read does not cross the browser process twice as a runtime-port message does (see
// "The read fast path" in ARCHITECTURE.md). The frame is removed as soon as the worker
// has the port.
//
// Anyone can load this page (it is web-accessible so a content script can frame it), so
// it trusts nothing: it forwards only what its parent window sent, and the worker binds
// a port only for a token it issued, once, to the tab it issued it to.
"use strict";

addEventListener("message", (event) => {
  const data = event.data;
  if (event.source !== parent || !data || data.type !== "nsp_channel" || typeof data.token !== "string" || event.ports.length !== 1) return;
  const port = event.ports[0];
  navigator.serviceWorker.ready.then(
    (registration) => {
      if (registration.active) registration.active.postMessage({ type: "nsp_channel", token: data.token }, [port]);
    },
    () => {
      // No worker reachable from this frame: the content script gives up after its wait
      // and keeps using its runtime port.
    },
  );
});
