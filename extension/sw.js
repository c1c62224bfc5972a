// sw.js — the extension's service worker. It exists because it alone may hold the
// socket to nspd: its WebSocket handshake carries Origin chrome-extension://<our id>,
// which nspd pins, while a socket from a content script would carry the page's Origin.
// It relays between nspd and the content scripts of every tab, enforces at-most-once
// execution of dispatched actions across restarts, runs the probe for pages whose CSP
// forbids WebAssembly in the page (tier wasm_extension: the extension's own CSP allows
// 'wasm-unsafe-eval'), and keeps the badge and the popup's status.
//
// Listeners are registered synchronously at top level (MV3 requirement: a worker woken
// by an event must find its listener), and wait on `ready` before doing work.

import initProbe, { Probe } from "./probe/nsp_probe.js";
import "./delta.js";

const DEFAULT_DAEMON_URL = "ws://127.0.0.1:7842/substrate/v1/extension";
const CHANNEL_VERSION = 2;
const KEEPALIVE_MS = 20_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const EXECUTED_LIMIT = 5_000;
const RECENT_LIMIT = 20;

const ports = new Map();    // tabId -> runtime Port of the tab's content script
const states = new Map();   // tabId -> last tab_state message, re-announced on reconnect
let socket = null;
let attempts = 0;
let keepaliveTimer = null;
let reconnectTimer = null;
let config = null;
const probes = new Map();  // tabId -> Probe, for tabs on the extension tier
let probeInit = null;
// The probe settings nspd sent in its welcome ([probe] in nspd.toml: max_objects,
// max_list_records), or null for the probe's defaults. Every probe, here and in the
// pages, is configured with them.
let probeSettings = null;
const recent = [];         // last dispatched actions, newest first, for the popup
// Action results that came while the socket was down (the worker was just woken by the
// page's answer, or nspd's connection dropped): sent after the next hello, so nspd,
// which waits a few seconds for the same browser session, still gets a definite answer.
const unsentResults = [];
const UNSENT_LIMIT = 100;

// --- chrome.* behind one small surface -------------------------------------------------

const storage = {
  /** @returns {Promise<any>} what was stored, or undefined */
  async sessionGet(key) {
    const got = await chrome.storage.session.get(key);
    return got[key];
  },
  sessionSet(key, value) {
    return chrome.storage.session.set({ [key]: value });
  },
  /** @returns {Promise<any>} what was stored, or undefined */
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
    while (unsentResults.length) ws.send(JSON.stringify(unsentResults.shift()));
    // Stored states may lag the page a little; fresh captures follow.
    for (const p of ports.values()) p.postMessage({ type: "capture", request_id: null });
    updateAllBadges();
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
    updateAllBadges();
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

// The read_text builtin only reads the page: run twice, it changes nothing, so it skips
// the claim (two chrome.storage.session round trips and a rewrite of the whole executed
// list, most of its round trip in `cargo xtask bench`). Only the builtin: a page's own
// action of that name is claimed like any other, and the content script runs nothing
// but the builtin for an unclaimed dispatch.
function isPureRead(msg) {
  if (msg.action !== "read_text") return false;
  const state = states.get(msg.tab_id);
  const actions = state && state.capture ? state.capture.actions : null;
  const schema = actions ? actions.read_text : null;
  return !schema || String(schema.internal_target || "").startsWith("builtin:");
}

/** @type {Promise<unknown>} */
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
      applyProbeSettings(msg.probe || null);
      break;
    case "keepalive_ack":
      break;
    case "dispatch": {
      const fail = (code, message) => sendToDaemon({
        type: "action_result", action_id: msg.action_id, tab_id: msg.tab_id,
        outcome: { status: "failed", code, message },
      });
      const unclaimed = isPureRead(msg);
      if (!unclaimed && !(await claimInOrder(msg.action_id))) {
        fail("duplicate", "This action id was already executed; it was not run again.");
        return;
      }
      const port = ports.get(msg.tab_id);
      if (!port) {
        fail("no_probe", "The tab has no live probe (it may be loading or closed).");
        return;
      }
      remember({ action_id: msg.action_id, tab_id: msg.tab_id, action: msg.action, at: Date.now(), status: "running" });
      port.postMessage({ type: "dispatch", action_id: msg.action_id, action: msg.action, parameters: msg.parameters || {}, internal_target: msg.internal_target || null, accept_confirm: msg.accept_confirm === true, unclaimed });
      break;
    }
    case "capture": {
      const port = ports.get(msg.tab_id);
      if (port) port.postMessage({ type: "capture", request_id: msg.request_id });
      break;
    }
    case "open_tab":
    case "close_tab":
      tabOperation(msg);
      break;
    default:
      break;
  }
}

// nspd opens and closes tabs for agents (its MCP tools open_tab and close_tab). Web pages
// only: nspd checks the URL too, and this is the last word before chrome.tabs.
/** @param {{type: string, request_id: string, url?: string, tab_id?: number}} msg */
async function tabOperation(msg) {
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

// --- the probe, for pages whose CSP forbids WebAssembly -----------------------------------

function probeConfig(tier) {
  return JSON.stringify({ tier, ...(probeSettings || {}) });
}

// A probe takes its settings when it is made: new settings mean new probes. This
// worker's own are dropped (the next update finds none and the page sends a full
// snapshot); the pages make theirs anew and capture again.
function applyProbeSettings(settings) {
  if (JSON.stringify(settings) === JSON.stringify(probeSettings)) return;
  probeSettings = settings;
  for (const tabId of Array.from(probes.keys())) dropProbe(tabId);
  for (const port of ports.values()) {
    try {
      port.postMessage({ type: "probe_config", settings: probeSettings });
    } catch (_) {
      // The tab went away meanwhile.
    }
  }
}

function probeReady() {
  probeInit = probeInit || initProbe({ module_or_path: chrome.runtime.getURL("probe/nsp_probe_bg.wasm") });
  return probeInit;
}

async function runProbe(tabId, port, msg) {
  const reply = (ok, result, error) => {
    try {
      port.postMessage({ type: "probe_result", id: msg.id, ok, result, error });
    } catch (_) {
      // The tab went away meanwhile.
    }
  };
  try {
    await probeReady();
    switch (msg.type) {
      case "probe_ping":
        reply(true, Probe.version());
        break;
      case "probe_analyze": {
        let probe = probes.get(tabId);
        if (!probe) {
          probe = new Probe(probeConfig("wasm_extension"));
          probes.set(tabId, probe);
        }
        reply(true, probe.analyze(msg.snapshot));
        break;
      }
      case "probe_update": {
        const probe = probes.get(tabId);
        if (!probe) {
          reply(false, null, "no snapshot for this tab (the worker restarted): send a full one");
          return;
        }
        reply(true, probe.update(msg.patch));
        break;
      }
      default:
        break;
    }
  } catch (err) {
    reply(false, null, String((err && err.message) || err));
  }
}

function dropProbe(tabId) {
  const probe = probes.get(tabId);
  if (probe) {
    probes.delete(tabId);
    probe.free();
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
      updateBadge(tabId);
      break;
    }
    case "tab_delta": {
      const { type: _type, ...delta } = msg;
      const state = states.get(tabId);
      if (state && state.capture) NspDelta.apply(state.capture, delta);
      sendToDaemon({ type: "tab_delta", tab_id: tabId, ...delta });
      updateBadge(tabId);
      break;
    }
    case "action_result": {
      const entry = recent.find((r) => r.action_id === msg.action_id);
      if (entry && msg.outcome) {
        entry.status = msg.outcome.status;
        entry.message = msg.outcome.message || null;
      }
      const result = { type: "action_result", action_id: msg.action_id, tab_id: tabId, outcome: msg.outcome };
      if (!sendToDaemon(result)) {
        unsentResults.push(result);
        if (unsentResults.length > UNSENT_LIMIT) unsentResults.shift();
      }
      break;
    }
    default:
      break;
  }
}

// --- badge and popup ---------------------------------------------------------------------

function remember(entry) {
  recent.unshift(entry);
  if (recent.length > RECENT_LIMIT) recent.length = RECENT_LIMIT;
}

function summarize(tabId, state) {
  const cap = state && state.capture;
  const byTier = { read: 0, reversible_write: 0, irreversible_write: 0 };
  let actions = 0;
  if (cap) {
    for (const a of Object.values(cap.actions || {})) {
      if (a.internal_target && a.internal_target.startsWith("builtin:")) continue;
      actions++;
      if (byTier[a.reversibility] !== undefined) byTier[a.reversibility]++;
    }
  }
  return {
    tab_id: tabId,
    url: state ? state.url : null,
    title: state ? state.title : null,
    status: state ? state.status : "detecting",
    message: state ? state.message : null,
    probe_tier: cap && cap.probe_metadata ? cap.probe_metadata.probe_tier : null,
    confidence: cap ? cap.confidence : null,
    settled: cap && cap.probe_metadata ? Boolean(cap.probe_metadata.settled) : null,
    actions,
    by_tier: byTier,
    objects: cap ? Object.keys(cap.objects || {}).length : 0,
  };
}

function updateBadge(tabId) {
  const s = summarize(tabId, states.get(tabId));
  const connected = Boolean(socket && socket.readyState === WebSocket.OPEN);
  let text = "";
  let color = "#777";
  if (s.status === "error") {
    text = "!";
    color = "#b00020";
  } else if (typeof s.confidence === "number") {
    text = String(Math.round(s.confidence * 100));
    color = !connected ? "#777" : s.confidence >= 0.95 ? "#1e7e34" : s.confidence >= 0.8 ? "#b26a00" : "#b00020";
  }
  const tierName = s.probe_tier === "wasm_extension" ? "in the extension (page CSP forbids wasm)" : s.probe_tier === "wasm_in_page" ? "in the page" : "not running";
  const title = `NSP — ${connected ? "connected to nspd" : "nspd not connected"}\nprobe: ${tierName}` +
    (typeof s.confidence === "number" ? `\nconfidence ${s.confidence.toFixed(2)}, ${s.actions} actions (${s.by_tier.read} read, ${s.by_tier.reversible_write} reversible, ${s.by_tier.irreversible_write} irreversible)` : "");
  chrome.action.setBadgeText({ tabId, text }).catch(() => {});
  chrome.action.setBadgeBackgroundColor({ tabId, color }).catch(() => {});
  chrome.action.setTitle({ tabId, title }).catch(() => {});
}

function updateAllBadges() {
  for (const tabId of states.keys()) updateBadge(tabId);
}

function popupStatus() {
  return {
    connected: Boolean(socket && socket.readyState === WebSocket.OPEN),
    daemon_url: config ? config.daemonUrl : null,
    tabs: Array.from(states.entries(), ([tabId, state]) => summarize(tabId, state)),
    recent: recent.slice(),
  };
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
  if (probeSettings) port.postMessage({ type: "probe_config", settings: probeSettings });
  port.onMessage.addListener((msg) => {
    if (msg && typeof msg.type === "string" && msg.type.startsWith("probe_")) {
      runProbe(tabId, port, msg);
      return;
    }
    ready.then(() => onTabMessage(tabId, windowId, msg));
  });
  port.onDisconnect.addListener(() => {
    if (ports.get(tabId) !== port) return;
    ports.delete(tabId);
    dropProbe(tabId);
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
  dropProbe(tabId);
  ready.then(() => sendToDaemon({ type: "tab_closed", tab_id: tabId }));
});

// The popup asks for status; only our own extension pages may (content scripts use ports).
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // Extension pages only: a content script's sender.url is the web page's.
  const fromExtensionPage = sender.id === chrome.runtime.id && typeof sender.url === "string" && sender.url.startsWith(chrome.runtime.getURL(""));
  if (!fromExtensionPage || !msg || msg.type !== "popup_status") return false;
  ready.then(() => sendResponse(popupStatus()));
  return true;
});

chrome.runtime.onStartup.addListener(() => ready);
chrome.runtime.onInstalled.addListener(() => ready);
