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
// Listeners are registered synchronously at top level (MV3 requirement: a worker woken
// by an event must find its listener), and wait on `ready` before doing work.

import initProbe, { Probe } from "./probe/nsp_probe.js";
import "./delta.js";
// Generated from the Rust side by `cargo xtask dist` (protocol/src/contract.rs).
import { CHANNEL_VERSION, DEFAULT_DAEMON_URL, FLOOR_IRREVERSIBLE_WRITE, FLOOR_REVERSIBLE_WRITE, TIERS } from "./contract.js";

const KEEPALIVE_MS = 20_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const EXECUTED_LIMIT = 5_000;
const RECENT_LIMIT = 20;

const ports = new Map();    // tabId -> runtime Port of the tab's content script
// tabId -> MessagePort straight to the tab's content script (the read fast path): set
// up through channel.html for each runtime port, gone with it.
const directPorts = new Map();
// One-time tokens for that set-up: token -> {tabId, windowId, port} of the runtime port
// the token was sent over.
const channelTokens = new Map();
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
// Every correction nspd stores (per origin and action; nspd pushes all of them after its
// welcome and on every change). A page's probe gets its own origin's in its
// configuration and applies them as declared-level evidence. Kept in
// chrome.storage.session too, so a restarted worker configures new pages with them
// before nspd has answered.
let corrections = [];
const origins = new Map();      // tabId -> origin of the page its content script runs in
const sentSettings = new Map(); // tabId -> JSON of the probe settings last sent to it
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
  const stored = await storage.sessionGet("corrections");
  if (Array.isArray(stored) && !corrections.length) {
    corrections = stored;
    pushProbeSettings();
  }
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
    pushStatus();
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
    pushStatus();
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
    case "corrections":
      applyCorrections(msg.corrections);
      break;
    case "dispatch": {
      const fail = (code, message) => {
        // Refused here, before the page saw it: the popup lists it too.
        remember({ action_id: msg.action_id, tab_id: msg.tab_id, action: msg.action, at: Date.now(), status: "refused", message: `${code}: ${message}` });
        pushStatus();
        sendToDaemon({
          type: "action_result", action_id: msg.action_id, tab_id: msg.tab_id,
          outcome: { status: "failed", code, message },
        });
      };
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
      // A pure read changes nothing, so it is not one of the popup's recent actions:
      // keeping it there would rewrite chrome.storage.session twice per read, most of
      // a read's round trip.
      if (!unclaimed) {
        remember({ action_id: msg.action_id, tab_id: msg.tab_id, action: msg.action, at: Date.now(), status: "running" });
        pushStatus();
      }
      // A pure read goes over the tab's direct port when it has one, and its answer
      // comes back the same way. Everything else keeps the runtime port, the one ordered
      // channel its captures and deltas travel on (verification reads the capture that
      // follows a write's result).
      const direct = unclaimed ? directPorts.get(msg.tab_id) : undefined;
      // `expect`: what nspd's gate saw (labels, the named row, a builtin's element); the
      // dispatcher compares the live page with it right before each event.
      (direct || port).postMessage({ type: "dispatch", action_id: msg.action_id, action: msg.action, parameters: msg.parameters || {}, internal_target: msg.internal_target || null, accept_confirm: msg.accept_confirm === true, expect: msg.expect || null, unclaimed });
      break;
    }
    case "capture": {
      const port = ports.get(msg.tab_id);
      if (port) port.postMessage({ type: "capture", request_id: msg.request_id });
      break;
    }
    case "resolve": {
      // Answered by the tab's content script (a `resolved`), or here when it has none.
      const port = ports.get(msg.tab_id);
      if (port) {
        port.postMessage({ type: "resolve", request_id: msg.request_id, selector: String(msg.selector || "") });
      } else {
        sendToDaemon({ type: "resolved", request_id: msg.request_id, tab_id: msg.tab_id, resolution: { count: 0, error: "The tab has no live probe (it may be loading or closed)." } });
      }
      break;
    }
    case "approval":
      await onApproval(msg);
      break;
    case "approval_closed":
      await onApprovalClosed(msg.approval_id, msg.reason);
      break;
    case "open_tab":
    case "close_tab":
      tabOperation(msg);
      break;
    default:
      break;
  }
}

// --- asking the person -------------------------------------------------------------------

// nspd's open questions (`approval` messages), by approval_id. Mirrored in
// chrome.storage.session, so a restarted worker shows them at once and remembers an
// answer it gave but could not deliver; nspd also asks again after every hello.
const approvals = new Map();
const approvalsLoaded = storage.sessionGet("approvals").then((list) => {
  for (const q of list || []) {
    if (Date.parse(q.expires_at) > Date.now()) approvals.set(q.approval_id, q);
  }
}).catch(() => {});

function saveApprovals() {
  return storage.sessionSet("approvals", Array.from(approvals.values())).catch(() => {});
}

async function onApproval(msg) {
  await approvalsLoaded;
  const { type: _type, ...question } = msg;
  const known = approvals.get(question.approval_id);
  if (known && known.answered) {
    // Answered before a restart or a dropped socket: nspd asks again because the answer
    // never arrived. Give the same answer (nspd takes only the first one it receives).
    sendAnswer(question.approval_id, known.answered);
    return;
  }
  approvals.set(question.approval_id, question);
  await saveApprovals();
  outline(question, true);
  if (!known) notify(question);
  pushStatus();
}

async function onApprovalClosed(approvalId, reason) {
  await approvalsLoaded;
  const q = approvals.get(approvalId);
  approvals.delete(approvalId);
  await saveApprovals();
  if (q) {
    outline(q, false);
    if (reason !== "answered") {
      const why = reason === "timed_out" ? "not answered in time: refused" : "withdrawn by the agent";
      remember({ action_id: approvalId, tab_id: q.tab_id, action: q.action, at: Date.now(), status: "approval", message: why });
    }
  }
  try {
    chrome.notifications.clear(`nsp-approval-${approvalId}`, () => void chrome.runtime.lastError);
  } catch (_) {
    // No notifications here (permission missing, headless): nothing to clear.
  }
  pushStatus();
}

const DECISIONS = ["approve_once", "deny", "always"];

// The person's answer, from one of this extension's own pages (checked by the callers).
async function answerApproval(approvalId, decision) {
  await approvalsLoaded;
  const q = approvals.get(approvalId);
  if (!q || q.answered || !DECISIONS.includes(decision)) return false;
  q.answered = decision;
  await saveApprovals();
  sendAnswer(approvalId, decision);
  const words = { approve_once: "approved once by you", deny: "denied by you", always: "always allowed on this site by you" };
  remember({ action_id: approvalId, tab_id: q.tab_id, action: q.action, at: Date.now(), status: "approval", message: words[decision] });
  pushStatus();
  return true;
}

function sendAnswer(approvalId, decision) {
  const answer = { type: "approval_answer", approval_id: approvalId, decision };
  if (!sendToDaemon(answer)) {
    unsentResults.push(answer);
    if (unsentResults.length > UNSENT_LIMIT) unsentResults.shift();
  }
}

// The element the question is about, outlined in its tab by the content script (which
// removes the outline when the question closes).
function outline(q, on) {
  const port = ports.get(q.tab_id);
  if (!port || !q.target) return;
  try {
    port.postMessage({ type: on ? "outline" : "outline_off", approval_id: q.approval_id, selector: q.target });
  } catch (_) {
    // The tab went away meanwhile.
  }
}

function notify(q) {
  // A notification is a courtesy: where there are none (headless, no permission, the
  // person turned them off) the popup's card is enough.
  try {
    chrome.notifications.create(`nsp-approval-${q.approval_id}`, {
      type: "basic",
      iconUrl: chrome.runtime.getURL("icons/nsp-48.png"),
      title: `An agent asks to run the page's action \u201c${String(q.action).slice(0, 60)}\u201d`,
      message: `${q.tier.replace(/_/g, " ")}, confidence ${Number(q.confidence).toFixed(2)} (needs ${Number(q.floor).toFixed(2)}) on ${q.origin || q.url || "a tab"}. Open NSP to approve or deny.`,
      requireInteraction: true,
      priority: 2,
    }, () => void chrome.runtime.lastError);
  } catch (_) {
    // See above.
  }
}

if (chrome.notifications && chrome.notifications.onClicked) {
  // Clicking the notification opens the popup page in a tab: answers are given there.
  chrome.notifications.onClicked.addListener((id) => {
    if (!id.startsWith("nsp-approval-")) return;
    chrome.tabs.create({ url: chrome.runtime.getURL("popup.html") }).catch(() => {});
  });
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

function probeConfig(tier, tabId) {
  return JSON.stringify({ tier, ...(settingsFor(tabId) || {}) });
}

// A tab's probe settings: nspd's, plus the corrections of the tab's origin when it has
// any (none: exactly nspd's, so a site without corrections is probed as before).
function settingsFor(tabId) {
  const origin = origins.get(tabId);
  const mine = origin ? corrections.filter((c) => c && c.origin === origin) : [];
  if (!mine.length) return probeSettings;
  return { ...(probeSettings || {}), corrections: mine };
}

// A probe takes its settings when it is made: new settings mean new probes. This
// worker's own are dropped (the next update finds none and the page sends a full
// snapshot); the pages make theirs anew and capture again. Only tabs whose settings
// changed are touched.
function pushProbeSettings() {
  for (const [tabId, port] of ports) {
    const settings = settingsFor(tabId);
    const json = JSON.stringify(settings);
    if (sentSettings.get(tabId) === json) continue;
    sentSettings.set(tabId, json);
    dropProbe(tabId);
    try {
      port.postMessage({ type: "probe_config", settings });
    } catch (_) {
      // The tab went away meanwhile.
    }
  }
}

function applyProbeSettings(settings) {
  if (JSON.stringify(settings) === JSON.stringify(probeSettings)) return;
  probeSettings = settings;
  pushProbeSettings();
}

function applyCorrections(list) {
  corrections = Array.isArray(list) ? list : [];
  storage.sessionSet("corrections", corrections).catch(() => {});
  pushProbeSettings();
  // Open extension pages (the popup) re-read them; none open is not an error.
  chrome.runtime.sendMessage({ type: "corrections_changed" }).catch(() => {});
}

function originOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch (_) {
    return null;
  }
}

// --- corrections from the extension's own pages -------------------------------------------

// What the popup's corrections list needs: every stored correction, and each tab's
// actions (builtins left out) to correct.
function correctionsStatus() {
  const tabs = [];
  for (const [tabId, state] of states) {
    const cap = state && state.capture;
    const actions = [];
    for (const [name, a] of Object.entries((cap && cap.actions) || {})) {
      if (a.internal_target && a.internal_target.startsWith("builtin:")) continue;
      // The action's `--explain` lines that say who corrected it and when.
      const why = cap.explain && cap.explain[name] ? cap.explain[name].signals || [] : [];
      const corrected = why.filter((line) => String(line).startsWith("corrected ("));
      actions.push({ name, reversibility: a.reversibility, confidence: a.confidence, description: a.description || "", corrected });
    }
    tabs.push({ tab_id: tabId, title: state.title, url: state.url, origin: originOf(state.url || ""), actions });
  }
  return { connected: Boolean(socket && socket.readyState === WebSocket.OPEN), corrections: corrections.slice(), tabs };
}

// A person's correction or removal, forwarded to nspd (which stores it and pushes the
// new list back). Checked here so nspd gets only well-formed messages.
function onCorrectionsMessage(msg) {
  switch (msg.type) {
    case "corrections_status":
      return correctionsStatus();
    case "correct": {
      const tier = msg.tier == null ? null : String(msg.tier);
      const trusted = msg.trusted === true;
      if (typeof msg.origin !== "string" || originOf(msg.origin) !== msg.origin || typeof msg.action !== "string" || !msg.action
        || (tier !== null && !TIERS.includes(tier)) || (tier === null && !trusted)) {
        return { ok: false, error: "a correction needs an origin, an action, and a tier or trusted" };
      }
      const sent = sendToDaemon({ type: "correct", origin: msg.origin, action: msg.action, tier, trusted });
      return sent ? { ok: true } : { ok: false, error: "nspd is not connected" };
    }
    case "remove_correction": {
      if (typeof msg.id !== "string" || !msg.id) return { ok: false, error: "no id" };
      const sent = sendToDaemon({ type: "remove_correction", id: msg.id });
      return sent ? { ok: true } : { ok: false, error: "nspd is not connected" };
    }
    default:
      return { ok: false, error: "unknown message" };
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
          probe = new Probe(probeConfig("wasm_extension", tabId));
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
      pushStatus();
      break;
    }
    case "tab_delta": {
      const { type: _type, ...delta } = msg;
      const state = states.get(tabId);
      if (state && state.capture) NspDelta.apply(state.capture, delta);
      sendToDaemon({ type: "tab_delta", tab_id: tabId, ...delta });
      updateBadge(tabId);
      pushStatus();
      break;
    }
    case "resolved":
      sendToDaemon({ type: "resolved", request_id: String(msg.request_id || ""), tab_id: tabId, resolution: msg.resolution || { count: 0, error: "no answer" } });
      break;
    case "action_result": {
      const entry = recent.find((r) => r.action_id === msg.action_id);
      if (entry && msg.outcome) {
        entry.status = msg.outcome.status;
        entry.message = msg.outcome.message || null;
        saveRecent();
      }
      pushStatus();
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

// The recent list outlives a worker restart (chrome.storage.session), so the popup's
// history does not lose what happened just before one.
const recentLoaded = storage.sessionGet("recent").then((saved) => {
  for (const r of saved || []) if (!recent.some((x) => x.action_id === r.action_id && x.status === r.status)) recent.push(r);
  recent.sort((a, b) => b.at - a.at);
  if (recent.length > RECENT_LIMIT) recent.length = RECENT_LIMIT;
}).catch(() => {});

function remember(entry) {
  recent.unshift(entry);
  if (recent.length > RECENT_LIMIT) recent.length = RECENT_LIMIT;
  saveRecent();
}

function saveRecent() {
  recentLoaded.then(() => storage.sessionSet("recent", recent)).catch(() => {});
}

function summarize(tabId, state) {
  const cap = state && state.capture;
  const byTier = Object.fromEntries(TIERS.map((tier) => [tier, 0]));
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
    direct_channel: directPorts.has(tabId),
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
    color = !connected ? "#777" : s.confidence >= FLOOR_IRREVERSIBLE_WRITE ? "#1e7e34" : s.confidence >= FLOOR_REVERSIBLE_WRITE ? "#b26a00" : "#b00020";
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

// A tab's own actions for the popup's tab view: name, tier, confidence and the probe's
// reason (the builtins every tab has are left out).
function tabActions(state) {
  const cap = state && state.capture;
  if (!cap) return [];
  const explain = cap.explain || {};
  const out = [];
  for (const [name, a] of Object.entries(cap.actions || {})) {
    if (a.internal_target && a.internal_target.startsWith("builtin:")) continue;
    const why = explain[name];
    const reason = why ? [why.tier_reason, why.confidence_reason].filter(Boolean).join("; ") : "";
    out.push({ name, tier: a.reversibility, confidence: a.confidence, reason: reason || a.description || "" });
  }
  out.sort((x, y) => x.name.localeCompare(y.name));
  return out;
}

function popupStatus() {
  return {
    connected: Boolean(socket && socket.readyState === WebSocket.OPEN),
    daemon_url: config ? config.daemonUrl : null,
    tabs: Array.from(states.entries(), ([tabId, state]) => ({ ...summarize(tabId, state), action_list: tabActions(state) })),
    recent: recent.slice(),
    approvals: Array.from(approvals.values()).filter((q) => !q.answered).map(maskSecrets),
  };
}

// A question's parameters with those the tab's action schema marks secret masked (nspd
// masks them too; this holds when an older nspd did not): the popup shows no secret.
function maskSecrets(q) {
  const state = states.get(q.tab_id);
  const schema = state && state.capture && state.capture.actions ? state.capture.actions[q.action] : null;
  const secret = new Set(((schema && schema.parameters) || []).filter((p) => p && p.secret === true).map((p) => p.name));
  if (!secret.size || !q.parameters) return q;
  const parameters = {};
  for (const [k, v] of Object.entries(q.parameters)) parameters[k] = secret.has(k) ? "\u2022\u2022\u2022\u2022\u2022\u2022" : v;
  return { ...q, parameters, secret_parameters: Array.from(secret) };
}

// Open popups (runtime ports named nsp-popup): each gets the whole status whenever it
// changes, at most every PUSH_MS, instead of asking for it on a timer.
const popupPorts = new Set();
const PUSH_MS = 100;
let pushTimer = null;

function pushStatus() {
  if (!popupPorts.size || pushTimer) return;
  pushTimer = setTimeout(() => {
    pushTimer = null;
    const status = popupStatus();
    for (const port of popupPorts) {
      try {
        port.postMessage({ type: "status", status });
      } catch (_) {
        popupPorts.delete(port);
      }
    }
  }, PUSH_MS);
}

// Whether a message or port comes from one of this extension's own pages (the popup,
// opened as a popup or as a tab). A content script's sender.url is the web page's, and
// a web page cannot reach this worker at all (no externally_connectable), so an answer
// to a question can only come from here.
function fromExtensionPage(sender) {
  if (!sender || sender.id !== chrome.runtime.id) return false;
  const base = chrome.runtime.getURL("");
  if (typeof sender.url !== "string" || !sender.url.startsWith(base)) return false;
  // Where Chrome says the frame's origin, it must be ours too (a content script's is the
  // web page's, whatever its URL claims).
  return sender.origin === undefined || sender.origin === base.replace(/\/$/, "");
}

function onPopupPort(port) {
  popupPorts.add(port);
  port.onDisconnect.addListener(() => popupPorts.delete(port));
  port.onMessage.addListener((msg) => {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "approval_answer") {
      ready.then(() => answerApproval(String(msg.approval_id), String(msg.decision)));
    }
  });
  Promise.all([ready, approvalsLoaded, recentLoaded]).then(() => {
    try {
      port.postMessage({ type: "status", status: popupStatus() });
    } catch (_) {
      popupPorts.delete(port);
    }
  });
}

const ready = loadConfig().then((c) => {
  config = c;
  connectDaemon();
});

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
  const tabId = port.sender.tab.id;
  const windowId = port.sender.tab.windowId;
  ports.set(tabId, port);
  dropDirect(tabId);
  offerChannel(tabId, windowId, port);
  origins.set(tabId, originOf(port.sender.url || port.sender.tab.url || ""));
  const settings = settingsFor(tabId);
  sentSettings.set(tabId, JSON.stringify(settings));
  if (settings) port.postMessage({ type: "probe_config", settings });
  // A reloaded page or a restarted worker: outline again what the person is asked about.
  approvalsLoaded.then(() => {
    for (const q of approvals.values()) if (q.tab_id === tabId && !q.answered) outline(q, true);
  });
  port.onMessage.addListener((msg) => {
    if (msg && typeof msg.type === "string" && msg.type.startsWith("probe_")) {
      runProbe(tabId, port, msg);
      return;
    }
    ready.then(() => onTabMessage(tabId, windowId, msg));
  });
  port.onDisconnect.addListener(() => {
    for (const [token, offer] of channelTokens) if (offer.port === port) channelTokens.delete(token);
    if (ports.get(tabId) !== port) return;
    ports.delete(tabId);
    dropDirect(tabId);
    origins.delete(tabId);
    sentSettings.delete(tabId);
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
  dropDirect(tabId);
  origins.delete(tabId);
  sentSettings.delete(tabId);
  states.delete(tabId);
  dropProbe(tabId);
  ready.then(() => sendToDaemon({ type: "tab_closed", tab_id: tabId }));
});

// --- the read fast path ------------------------------------------------------------------

// A runtime-port message crosses the browser process on its way between this worker and
// a page (~0.2 ms each way here, half of a read's round trip). A MessagePort is a direct
// pipe between the two renderers. A content script cannot reach the worker with one
// itself, so it frames channel.html (ours, web-accessible) for a moment and posts the
// port there with a token it got over its runtime port; the frame hands both to this
// worker. The token is random, single-use and bound to the runtime port it was sent
// over, so a page that frames channel.html itself and posts a port gets nothing bound.
function offerChannel(tabId, windowId, port) {
  const token = crypto.randomUUID();
  channelTokens.set(token, { tabId, windowId, port });
  port.postMessage({ type: "channel_offer", token });
}

function dropDirect(tabId) {
  const direct = directPorts.get(tabId);
  if (!direct) return;
  directPorts.delete(tabId);
  direct.onmessage = null;
  direct.close();
}

// Only this extension's own pages can message this worker (same origin), and of those
// only channel.html sends nsp_channel.
self.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "nsp_channel" || typeof data.token !== "string" || event.ports.length !== 1) return;
  const offer = channelTokens.get(data.token);
  if (!offer) return;
  channelTokens.delete(data.token);
  // The runtime port the token went out on must still be the tab's: a reload or restart
  // since then offered a new token.
  if (ports.get(offer.tabId) !== offer.port) return;
  const { tabId, windowId } = offer;
  const direct = event.ports[0];
  // The port carries reads only once the page has acknowledged `channel_ready`: a page
  // that gave up waiting (a slow frame load after a reload) has closed its end, and
  // reads posted into a closed port are lost without a word.
  direct.onmessage = (e) => {
    const msg = e.data;
    if (!msg) return;
    if (msg.type === "channel_ack") {
      if (ports.get(tabId) !== offer.port) {
        direct.close();
        return;
      }
      dropDirect(tabId);
      directPorts.set(tabId, direct);
      pushStatus();
    } else if (msg.type === "action_result" && directPorts.get(tabId) === direct) {
      ready.then(() => onTabMessage(tabId, windowId, msg));
    }
  };
  direct.postMessage({ type: "channel_ready" });
});

// Refusals of messages that only the extension's pages may send, counted for the tests
// (and a person reading the worker's console).
let refusedCount = 0;
function refused(what, sender) {
  refusedCount++;
  storage.sessionSet("refused_senders", refusedCount).catch(() => {});
  console.warn(`nsp: refused ${what} from ${sender && sender.url}`);
}

// One-off requests from our own extension pages: the status, or an answer to a
// question. Content scripts use ports, and their messages here are refused.
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || typeof msg !== "object") return false;
  if (!fromExtensionPage(sender)) {
    if (msg.type === "approval_answer" || msg.type === "popup_status" || msg.type === "correct" || msg.type === "remove_correction" || msg.type === "corrections_status") {
      refused(`a ${msg.type} message`, sender);
    }
    return false;
  }
  if (msg.type === "popup_status") {
    Promise.all([ready, approvalsLoaded]).then(() => sendResponse(popupStatus()));
    return true;
  }
  if (msg.type === "approval_answer") {
    ready.then(() => answerApproval(String(msg.approval_id), String(msg.decision))).then((ok) => sendResponse({ ok }));
    return true;
  }
  if (msg.type === "corrections_status" || msg.type === "correct" || msg.type === "remove_correction") {
    ready.then(() => sendResponse(onCorrectionsMessage(msg)));
    return true;
  }
  return false;
});

chrome.runtime.onStartup.addListener(() => ready);
chrome.runtime.onInstalled.addListener(() => ready);
