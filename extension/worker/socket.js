// worker/socket.js — the one socket to nspd: the configuration (daemon URL, instance id),
// connect, keepalive, reconnect with capped backoff and jitter, the hello that re-announces
// every tab, and the messages that could not be sent while the socket was down. `ready`
// settles once the configuration is loaded and the first connection attempted; listeners
// wait on it before doing work.

import { CHANNEL_VERSION, DEFAULT_DAEMON_URL } from "../contract.js";
import { storage } from "./storage.js";
import { tabs } from "./tabs.js";
import { onDaemonMessage } from "./from-daemon.js";
import { restoreCorrections } from "./corrections.js";
import { updateAllBadges } from "./badge.js";
import { pushStatus } from "./popup.js";

const KEEPALIVE_MS = 20_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const UNSENT_LIMIT = 100;

/**
 * @type {{
 *   socket: WebSocket | null,
 *   attempts: number,
 *   keepaliveTimer: ReturnType<typeof setInterval> | undefined,
 *   reconnectTimer: ReturnType<typeof setTimeout> | null,
 *   config: { daemonUrl: string, instanceId: string, startUrl: string | null } | null,
 *   unsent: object[],
 * }}
 */
export const daemon = {
  socket: null,
  attempts: 0,
  keepaliveTimer: undefined,
  reconnectTimer: null,
  config: null,
  // Action results and answers that came while the socket was down (the worker was just
  // woken by the page's answer, or nspd's connection dropped): sent after the next
  // hello, so nspd, which waits a few seconds for the same browser session, still gets
  // a definite answer.
  unsent: [],
};

async function loadConfig() {
  // nspd --launch writes nsp-config.json into its copy of the extension; an everyday
  // install may set a URL in storage; otherwise the default port.
  let daemonUrl = null;
  /** @type {string | null} */
  let startUrl = null;
  try {
    const resp = await fetch(chrome.runtime.getURL("nsp-config.json"));
    if (resp.ok) {
      const config = await resp.json();
      daemonUrl = config.daemon_url || null;
      startUrl = typeof config.start_url === "string" ? config.start_url : null;
    }
  } catch (_) {
    // No config file: an ordinary install.
  }
  daemonUrl = daemonUrl || (await storage.localGet("daemon_url")) || DEFAULT_DAEMON_URL;
  await restoreCorrections();
  let instanceId = await storage.sessionGet("instance_id");
  if (!instanceId) {
    instanceId = crypto.randomUUID();
    await storage.sessionSet("instance_id", instanceId);
  }
  return { daemonUrl, instanceId, startUrl };
}

function browserName() {
  const brands = (navigator.userAgentData && navigator.userAgentData.brands) || [];
  const pick = brands.find((b) => b.brand === "Google Chrome") || brands.find((b) => b.brand === "Chromium");
  if (pick) return `${pick.brand} ${pick.version}`;
  const m = /Chrome\/(\d+)/.exec(navigator.userAgent);
  return m ? `Chromium ${m[1]}` : "Chromium";
}

/** Whether the socket to nspd is open. */
export function connected() {
  return Boolean(daemon.socket && daemon.socket.readyState === WebSocket.OPEN);
}

/** @param {object} msg @returns {boolean} whether it went out */
export function sendToDaemon(msg) {
  if (daemon.socket && daemon.socket.readyState === WebSocket.OPEN) {
    daemon.socket.send(JSON.stringify(msg));
    return true;
  }
  return false;
}

/** Sends `msg`, or keeps it for after the next hello when the socket is down. @param {object} msg */
export function sendOrKeep(msg) {
  if (!sendToDaemon(msg)) {
    daemon.unsent.push(msg);
    if (daemon.unsent.length > UNSENT_LIMIT) daemon.unsent.shift();
  }
}

function scheduleReconnect() {
  if (daemon.reconnectTimer) return;
  // Capped exponential backoff with full jitter, so many browsers don't reconnect in step.
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** daemon.attempts);
  const delay = BACKOFF_MIN_MS / 2 + Math.random() * cap;
  daemon.attempts = Math.min(daemon.attempts + 1, 16);
  daemon.reconnectTimer = setTimeout(() => {
    daemon.reconnectTimer = null;
    connectDaemon();
  }, delay);
}

function connectDaemon() {
  // Set by `ready` before the first connect.
  const config = /** @type {{ daemonUrl: string, instanceId: string }} */ (daemon.config);
  if (daemon.socket && (daemon.socket.readyState === WebSocket.OPEN || daemon.socket.readyState === WebSocket.CONNECTING)) return;
  let ws;
  try {
    ws = new WebSocket(config.daemonUrl);
  } catch (err) {
    console.warn("nsp: cannot open", config.daemonUrl, err);
    scheduleReconnect();
    return;
  }
  daemon.socket = ws;
  ws.onopen = () => {
    daemon.attempts = 0;
    ws.send(JSON.stringify({
      type: "hello",
      channel_version: CHANNEL_VERSION,
      extension_version: chrome.runtime.getManifest().version,
      user_agent: navigator.userAgent,
      browser: browserName(),
      instance_id: config.instanceId,
    }));
    for (const state of tabs.states.values()) ws.send(JSON.stringify(state));
    while (daemon.unsent.length) ws.send(JSON.stringify(daemon.unsent.shift()));
    // Stored states may lag the page a little; fresh captures follow.
    for (const p of tabs.ports.values()) p.postMessage({ type: "capture", request_id: null });
    updateAllBadges();
    pushStatus();
    clearInterval(daemon.keepaliveTimer);
    daemon.keepaliveTimer = setInterval(() => sendToDaemon({ type: "keepalive" }), KEEPALIVE_MS);
  };
  ws.onmessage = (event) => {
    /** @type {DaemonMessage} */
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (_) {
      return;
    }
    onDaemonMessage(msg);
  };
  ws.onclose = () => {
    if (daemon.socket === ws) daemon.socket = null;
    clearInterval(daemon.keepaliveTimer);
    updateAllBadges();
    pushStatus();
    scheduleReconnect();
  };
  ws.onerror = () => {
    // onclose follows and schedules the reconnect.
  };
}

export const ready = loadConfig().then((c) => {
  daemon.config = c;
  connectDaemon();
});
