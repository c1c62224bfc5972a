// sw.js — the extension's service worker. It exists because it alone may hold the
// socket to nspd: its WebSocket handshake carries Origin chrome-extension://<our id>,
// which nspd pins, while a socket from a content script would carry the page's Origin.
// It relays between nspd and the content scripts of every tab, and enforces
// at-most-once execution of dispatched actions across restarts.
//
// Listeners are registered synchronously at top level (MV3 requirement: a worker woken
// by an event must find its listener), and wait on `ready` before doing work.

const DEFAULT_DAEMON_URL = "ws://127.0.0.1:7842/substrate/v1/extension";
const CHANNEL_VERSION = 1;
const KEEPALIVE_MS = 20_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const EXECUTED_LIMIT = 5_000;

const ports = new Map();    // tabId -> runtime Port of the tab's content script
const states = new Map();   // tabId -> last tab_state message, re-announced on reconnect
let socket = null;
let attempts = 0;
let keepaliveTimer = null;
let reconnectTimer = null;
let config = null;

// --- chrome.* behind one small surface -------------------------------------------------

const storage = {
  async sessionGet(key) {
    const got = await chrome.storage.session.get(key);
    return got[key];
  },
  sessionSet(key, value) {
    return chrome.storage.session.set({ [key]: value });
  },
  async localGet(key) {
    const got = await chrome.storage.local.get(key);
    return got[key];
  },
};

async function loadConfig() {
  // nspd --launch writes nsp-config.json into its copy of the extension; an everyday
  // install may set a URL in storage; otherwise the default port.
  let daemonUrl = null;
  try {
    const resp = await fetch(chrome.runtime.getURL("nsp-config.json"));
    if (resp.ok) daemonUrl = (await resp.json()).daemon_url || null;
  } catch (_) {
    // No config file: an ordinary install.
  }
  daemonUrl = daemonUrl || (await storage.localGet("daemon_url")) || DEFAULT_DAEMON_URL;
  let instanceId = await storage.sessionGet("instance_id");
  if (!instanceId) {
    instanceId = crypto.randomUUID();
    await storage.sessionSet("instance_id", instanceId);
  }
  return { daemonUrl, instanceId };
}

function browserName() {
  const brands = (navigator.userAgentData && navigator.userAgentData.brands) || [];
  const pick = brands.find((b) => b.brand === "Google Chrome") || brands.find((b) => b.brand === "Chromium");
  if (pick) return `${pick.brand} ${pick.version}`;
  const m = /Chrome\/(\d+)/.exec(navigator.userAgent);
  return m ? `Chromium ${m[1]}` : "Chromium";
}

// --- the daemon socket -----------------------------------------------------------------

function sendToDaemon(msg) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(msg));
    return true;
  }
  return false;
}

function scheduleReconnect() {
  if (reconnectTimer) return;
  // Capped exponential backoff with full jitter, so many browsers don't reconnect in step.
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempts);
  const delay = BACKOFF_MIN_MS / 2 + Math.random() * cap;
  attempts = Math.min(attempts + 1, 16);
  reconnectTimer = setTimeout(() => {
    reconnectTimer = null;
    connectDaemon();
  }, delay);
}

function connectDaemon() {
  if (socket && (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)) return;
  let ws;
  try {
    ws = new WebSocket(config.daemonUrl);
  } catch (err) {
    console.warn("nsp: cannot open", config.daemonUrl, err);
    scheduleReconnect();
    return;
  }
  socket = ws;
  ws.onopen = () => {
    attempts = 0;
    ws.send(JSON.stringify({
      type: "hello",
      channel_version: CHANNEL_VERSION,
      extension_version: chrome.runtime.getManifest().version,
      user_agent: navigator.userAgent,
      browser: browserName(),
      instance_id: config.instanceId,
    }));
    for (const state of states.values()) ws.send(JSON.stringify(state));
    clearInterval(keepaliveTimer);
    keepaliveTimer = setInterval(() => sendToDaemon({ type: "keepalive" }), KEEPALIVE_MS);
  };
  ws.onmessage = (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (_) {
      return;
    }
    onDaemonMessage(msg);
  };
  ws.onclose = () => {
    if (socket === ws) socket = null;
    clearInterval(keepaliveTimer);
    scheduleReconnect();
  };
  ws.onerror = () => {
    // onclose follows and schedules the reconnect.
  };
}

// --- at most once ----------------------------------------------------------------------

// Executed action ids live in chrome.storage.session: they survive worker restarts and
// reconnects that re-deliver a dispatch, and die with the browser session.
async function claimActionId(actionId) {
  const executed = (await storage.sessionGet("executed")) || [];
  if (executed.includes(actionId)) return false;
  executed.push(actionId);
  if (executed.length > EXECUTED_LIMIT) executed.splice(0, executed.length - EXECUTED_LIMIT);
  await storage.sessionSet("executed", executed);
  return true;
}

let claimChain = Promise.resolve();
function claimInOrder(actionId) {
  // Serialise read-modify-write of the executed list.
  const next = claimChain.then(() => claimActionId(actionId));
  claimChain = next.catch(() => {});
  return next;
}

// --- messages from nspd ----------------------------------------------------------------

async function onDaemonMessage(msg) {
  switch (msg.type) {
    case "welcome":
    case "keepalive_ack":
      break;
    case "dispatch": {
      const fail = (code, message) => sendToDaemon({
        type: "action_result", action_id: msg.action_id, tab_id: msg.tab_id,
        outcome: { status: "failed", code, message },
      });
      if (!(await claimInOrder(msg.action_id))) {
        fail("duplicate", "This action id was already executed; it was not run again.");
        return;
      }
      const port = ports.get(msg.tab_id);
      if (!port) {
        fail("no_probe", "The tab has no live probe (it may be loading or closed).");
        return;
      }
      port.postMessage({ type: "dispatch", action_id: msg.action_id, action: msg.action, parameters: msg.parameters || {}, internal_target: msg.internal_target || null });
      break;
    }
    case "capture": {
      const port = ports.get(msg.tab_id);
      if (port) port.postMessage({ type: "capture", request_id: msg.request_id });
      break;
    }
    default:
      break;
  }
}

// --- messages from content scripts -----------------------------------------------------

function onTabMessage(tabId, windowId, msg) {
  if (!msg || typeof msg !== "object") return;
  switch (msg.type) {
    case "tab_state": {
      const state = {
        type: "tab_state",
        tab_id: tabId,
        window_id: windowId,
        status: msg.status,
        url: msg.url || null,
        title: msg.title || null,
        message: msg.message || null,
        capture: msg.capture || null,
        request_id: msg.request_id || null,
      };
      // Re-announce later without answering an old capture request.
      states.set(tabId, { ...state, request_id: null });
      sendToDaemon(state);
      break;
    }
    case "action_result":
      sendToDaemon({ type: "action_result", action_id: msg.action_id, tab_id: tabId, outcome: msg.outcome });
      break;
    default:
      break;
  }
}

const ready = loadConfig().then((c) => {
  config = c;
  connectDaemon();
});

chrome.runtime.onConnect.addListener((port) => {
  // Only our own content scripts connect (no externally_connectable); still check.
  if (port.name !== "nsp-tab" || !port.sender || !port.sender.tab || port.sender.id !== chrome.runtime.id) {
    port.disconnect();
    return;
  }
  if (port.sender.frameId !== 0) {
    port.disconnect();
    return;
  }
  const tabId = port.sender.tab.id;
  const windowId = port.sender.tab.windowId;
  ports.set(tabId, port);
  port.onMessage.addListener((msg) => {
    ready.then(() => onTabMessage(tabId, windowId, msg));
  });
  port.onDisconnect.addListener(() => {
    if (ports.get(tabId) !== port) return;
    ports.delete(tabId);
    // Navigation or reload: the tab lives on and a new content script will report.
    const last = states.get(tabId);
    const detecting = { type: "tab_state", tab_id: tabId, window_id: windowId, status: "detecting", url: last ? last.url : null, title: last ? last.title : null, message: null, capture: null, request_id: null };
    states.set(tabId, detecting);
    ready.then(() => sendToDaemon(detecting));
  });
});

chrome.tabs.onRemoved.addListener((tabId) => {
  ports.delete(tabId);
  states.delete(tabId);
  ready.then(() => sendToDaemon({ type: "tab_closed", tab_id: tabId }));
});

chrome.runtime.onStartup.addListener(() => ready);
chrome.runtime.onInstalled.addListener(() => ready);
