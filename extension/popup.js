// popup.js — renders the service worker's status in the toolbar popup, and is where the
// person answers nspd's questions. It exists so a person can see at a glance whether
// nspd is connected, what agents can do on each tab and what they did, and approve or
// deny an action the probe was not sure about. Page text is inserted with textContent
// only: it is data, never markup. And it is shown as page text: quoted, marked "from
// the page", never in the extension's own voice (pageText), because a page can write
// "SYSTEM: this action is pre-approved" as an action's description or its title.
//
// The worker pushes its status over a runtime port whenever it changes. Answers go back
// over the same port, and only from trusted input (a real click or key press by the
// person: `event.isTrusted`); a script's synthetic click on a button does nothing.

// Generated from the Rust side by `cargo xtask dist` (protocol/src/contract.rs).
import { FLOOR_IRREVERSIBLE_WRITE, FLOOR_REVERSIBLE_WRITE, TIERS } from "./contract.js";

/**
 * The status the worker pushes (worker/popup.js).
 * @typedef {ReturnType<typeof import("./worker/popup.js").popupStatus>} PopupStatus
 * @typedef {PopupStatus["tabs"][number]} TabSummary
 */

/** @param {string} id one of popup.html's elements, which are all there */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const TIER_NAMES = Object.fromEntries(TIERS.map((tier) => [tier, tier.replace("_", " ")]));
// The popup lists the most consequential actions first.
const TIERS_MOST_FIRST = [...TIERS].reverse();

/** @type {chrome.runtime.Port | null} */
let port = null;
/** @type {PopupStatus | null} */
let last = null;           // the last status pushed
/** @type {string | null} */
let shownApprovals = null; // JSON of the approvals rendered, so cards are not rebuilt under the pointer
/** @type {number | null} */
let selectedTab = null;    // the tab whose actions are shown
/** @type {string | null} */
let shownAgents = null;    // JSON of the agents and the current tab rendered, for the same reason

/** @param {HTMLTableRowElement} row @param {string} text @param {string} [className] */
function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
  return td;
}

/** @param {string} tag @param {string | null} [text] @param {string} [className] */
function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (className) e.className = className;
  return e;
}

// Text that came from the page (an action's name or description, a label, an
// explanation line quoting it, a title): quoted and styled as the page's words.
/** @param {unknown} text @param {string} [tag] */
function pageText(text, tag) {
  const q = el(tag || "q", String(text === undefined || text === null ? "" : text), "page-text");
  q.title = "text from the page, not from NSP";
  return q;
}

/** @param {PopupStatus} status */
function render(status) {
  last = status;
  const conn = $("connection");
  conn.textContent = status.connected ? "connected to nspd" : "nspd not connected";
  conn.className = "pill " + (status.connected ? "ok" : "off");
  conn.title = status.daemon_url || "";

  renderApprovals(status.approvals || []);
  renderAgents(status).catch((err) => console.warn("nsp: agents", err));

  const body = /** @type {HTMLTableElement} */ ($("tabs")).tBodies[0];
  body.replaceChildren();
  for (const t of status.tabs) {
    const row = document.createElement("tr");
    row.dataset.tabId = String(t.tab_id);
    if (t.tab_id === selectedTab) row.className = "open";
    const page = cell(row, "", "page");
    if (t.title) page.append(pageText(t.title));
    else page.textContent = t.url || `tab ${t.tab_id}`;
    page.title = t.url || "";
    const tier = t.status === "error" ? "error" : t.probe_tier === "wasm_extension" ? "extension" : t.probe_tier === "wasm_in_page" ? "in page" : t.status;
    cell(row, tier).title = t.message || "";
    const c = typeof t.confidence === "number" ? t.confidence : null;
    cell(row, c === null ? "–" : c.toFixed(2) + (t.settled === false ? " (settling)" : ""), c === null ? "" : c >= FLOOR_IRREVERSIBLE_WRITE ? "good" : c >= FLOOR_REVERSIBLE_WRITE ? "mid" : "low");
    cell(row, `${t.by_tier.read} / ${t.by_tier.reversible_write} / ${t.by_tier.irreversible_write}`);
    row.addEventListener("click", () => {
      selectedTab = selectedTab === t.tab_id ? null : t.tab_id;
      render(/** @type {PopupStatus} */ (last));
    });
    body.append(row);
  }
  $("no-tabs").hidden = status.tabs.length > 0;
  renderTabActions(status.tabs.find((t) => t.tab_id === selectedTab) || null);

  const list = $("recent");
  list.replaceChildren();
  for (const r of status.recent) {
    const li = document.createElement("li");
    const when = new Date(r.at).toLocaleTimeString();
    li.textContent = `${when} tab ${r.tab_id}: ${r.action} — ${r.status}${r.message ? ` (${r.message.slice(0, 80)})` : ""}`;
    li.className = r.status === "refused" || r.status === "failed" ? "low" : "";
    list.append(li);
  }
  $("no-recent").hidden = status.recent.length > 0;
}

// The selected tab's actions, grouped by tier, strictest first, each with its confidence
// and the probe's reason.
/** @param {TabSummary | null} tab */
function renderTabActions(tab) {
  const box = $("tab-actions");
  box.replaceChildren();
  box.hidden = !tab;
  if (!tab) return;
  const head = el("h3", "Actions on ");
  if (tab.title) head.append(pageText(tab.title));
  else head.append(tab.url || `tab ${tab.tab_id}`);
  box.append(head);
  const actions = tab.action_list || [];
  if (!actions.length) box.append(el("p", "No actions found on this page.", "muted"));
  for (const tier of TIERS_MOST_FIRST) {
    const ofTier = actions.filter((a) => a.tier === tier);
    if (!ofTier.length) continue;
    const group = el("div", null, `tier-group ${tier}`);
    group.append(el("h3", `${TIER_NAMES[tier]} (${ofTier.length})`));
    const ul = el("ul");
    for (const a of ofTier) {
      const li = el("li");
      li.dataset.action = a.name;
      const c = Number(a.confidence);
      li.append(pageText(a.name, "code"), " ", el("span", c.toFixed(2), c >= 0.95 ? "good" : c >= 0.8 ? "mid" : "low"));
      if (a.reason) {
        const reason = el("div", null, "reason muted");
        reason.append(pageText(a.reason));
        li.append(reason);
      }
      ul.append(li);
    }
    group.append(ul);
    box.append(group);
  }
}

/** @param {ApprovalQuestion[]} approvals */
function renderApprovals(approvals) {
  const json = JSON.stringify(approvals);
  if (json === shownApprovals) return;
  shownApprovals = json;
  const box = $("approvals");
  box.replaceChildren();
  $("approvals-section").hidden = approvals.length === 0;
  const template = /** @type {HTMLTemplateElement} */ ($("approval-card"));
  for (const q of approvals) {
    const card = /** @type {HTMLElement} */ (/** @type {Element} */ (template.content.firstElementChild).cloneNode(true));
    card.dataset.approvalId = q.approval_id;
    // The name is the page's (made from its labels): boxed and marked as page text.
    // The agent that asks, by name (nothing extra for the default agent).
    const asks = q.agent && q.agent !== "default" ? `${q.agent} asks to run ` : "Run ";
    /** @type {Element} */ (card.querySelector(".what")).replaceChildren(asks, pageText(q.action, "code"), "?");
    const tier = /** @type {Element} */ (card.querySelector(".tier"));
    tier.textContent = TIER_NAMES[q.tier] || q.tier;
    tier.classList.add(q.tier);
    /** @type {Element} */ (card.querySelector(".where")).textContent = `${q.url || q.origin || ""} (tab ${q.tab_id})`;
    // Secret parameters (the schema marks them; nspd and the worker mask them) never
    // show their value.
    const secret = new Set(Array.isArray(q.secret_parameters) ? q.secret_parameters : []);
    const params = Object.entries(q.parameters || {});
    /** @type {Element} */ (card.querySelector(".params")).textContent = params.length
      ? params.map(([k, v]) => `${k} = ${secret.has(k) ? "\u2022\u2022\u2022\u2022\u2022\u2022" : typeof v === "string" ? v : JSON.stringify(v)}`).join(", ")
      : "none";
    /** @type {Element} */ (card.querySelector(".conf")).textContent = `${Number(q.confidence).toFixed(2)}, under the floor of ${Number(q.floor).toFixed(2)} for this tier`;
    // The probe's explanation lines quote the page's labels and descriptions.
    const signals = /** @type {Element} */ (card.querySelector(".signals"));
    for (const s of q.signals || []) {
      const li = el("li");
      li.append(pageText(s));
      signals.append(li);
    }
    /** @type {Element} */ (card.querySelector(".reason")).textContent = (q.signals || []).length ? "" : q.reason;
    /** @type {Element} */ (card.querySelector(".verify")).replaceChildren(q.verify_expression ? el("code", q.verify_expression) : el("span", "none (nspd checks nothing after it)", "muted"));
    /** @type {Element} */ (card.querySelector(".key")).textContent = q.agent && q.agent !== "default" ? `agent ${q.agent} (key ${q.key_id})` : `agent key ${q.key_id}`;
    for (const button of card.querySelectorAll("button[data-decision]")) {
      if (!(button instanceof HTMLButtonElement)) continue;
      button.addEventListener("click", (event) => {
        // Only the person: a script in any world can dispatch a click, but not a trusted one.
        if (!event.isTrusted) return;
        answer(q.approval_id, button.dataset.decision, card);
      });
    }
    box.append(card);
  }
}

// Chrome's tab group colours, as its tab strip draws them.
/** @type {Record<string, string>} */
const GROUP_COLORS = {
  grey: "#5f6368", blue: "#1a73e8", red: "#d93025", yellow: "#f9ab00", green: "#188038",
  pink: "#d01884", purple: "#a142f4", cyan: "#007b83", orange: "#fa903e",
};

// The tab "Share this tab with…" is about: the active tab of this window if nspd has it,
// else (the popup itself open as a tab) the one of nspd's tabs used last.
/** @param {PopupStatus} status */
async function currentTab(status) {
  const known = new Map(status.tabs.map((t) => [t.tab_id, t]));
  const open = (await chrome.tabs.query({ currentWindow: true })).filter((t) => typeof t.id === "number" && known.has(t.id));
  if (!open.length) return null;
  const pick = open.find((t) => t.active) || open.reduce((a, b) => ((b.lastAccessed || 0) > (a.lastAccessed || 0) ? b : a));
  return known.get(/** @type {number} */ (pick.id)) || null;
}

// Each agent nspd knows besides the default one: its name on a chip of its tab group's
// colour, its scope, its tabs, its last actions and a Revoke button; and for the current
// tab, whom it is shared with.
/** @param {PopupStatus} status */
async function renderAgents(status) {
  const list = status.agents || [];
  const tab = list.length ? await currentTab(status) : null;
  const json = JSON.stringify([list, tab && tab.tab_id, tab && tab.title]);
  if (json === shownAgents) return;
  shownAgents = json;
  $("agents-section").hidden = list.length === 0;
  const box = $("agents");
  box.replaceChildren();
  for (const a of list) {
    const card = el("article", null, "agent");
    card.dataset.agent = a.name;
    const head = el("div", null, "agent-head");
    head.append(chip(a), " ", el("span", `owns ${a.owned_tabs.length} tab${a.owned_tabs.length === 1 ? "" : "s"}, ${a.shared_tabs.length} shared`, "muted tabs-count"));
    const revoke = el("button", "Revoke", "revoke");
    revoke.setAttribute("type", "button");
    revoke.title = `Revoke ${a.name}'s key: its next request is refused`;
    revoke.addEventListener("click", (event) => {
      // Only the person (see answer()).
      if (!event.isTrusted) return;
      /** @type {HTMLButtonElement} */ (revoke).disabled = true;
      toWorker({ type: "revoke_agent", name: a.name });
    });
    head.append(revoke);
    card.append(head, el("div", a.scope, "scope muted"));
    const actions = el("ul", null, "last-actions");
    for (const line of a.last_actions.slice(0, 5)) actions.append(el("li", line));
    if (!a.last_actions.length) actions.append(el("li", "no actions yet", "muted"));
    card.append(actions);
    box.append(card);
  }
  const share = $("share");
  share.replaceChildren();
  share.hidden = !tab || list.length === 0;
  if (!tab) return;
  const head = el("div", "Share this tab with\u2026 ");
  head.append(tab.title ? pageText(tab.title) : tab.url || `tab ${tab.tab_id}`);
  share.dataset.tabId = String(tab.tab_id);
  share.append(head);
  for (const a of list) {
    const row = el("div", null, "share-row");
    row.dataset.agent = a.name;
    const shared = a.shared_tabs.includes(tab.tab_id);
    const owned = a.owned_tabs.includes(tab.tab_id);
    row.append(chip(a), " ");
    if (owned) {
      row.append(el("span", "its own tab", "muted"));
    } else {
      const button = el("button", shared ? "Stop sharing" : "Share");
      button.setAttribute("type", "button");
      button.addEventListener("click", (event) => {
        if (!event.isTrusted) return;
        /** @type {HTMLButtonElement} */ (button).disabled = true;
        toWorker({ type: "share_tab", tab_id: tab.tab_id, agent: a.name, share: !shared });
      });
      row.append(button);
    }
    share.append(row);
  }
}

/** An agent's name on a chip of its group's colour. @param {AgentView} a */
function chip(a) {
  const c = el("span", a.name, "chip");
  c.style.background = GROUP_COLORS[a.group.color] || GROUP_COLORS.grey;
  c.title = `tab group \u201c${a.group.title}\u201d (${a.group.color})`;
  return c;
}

// The person's request to the worker: over the port, or as a one-off message when the
// worker restarted this instant (the worker takes either only from this extension's pages).
/** @param {{ type: string, [field: string]: unknown }} msg */
function toWorker(msg) {
  try {
    /** @type {chrome.runtime.Port} */ (port).postMessage(msg);
  } catch (_) {
    chrome.runtime.sendMessage(msg).catch(() => {});
  }
}

/** @param {string} approvalId @param {string | undefined} decision @param {HTMLElement} card */
function answer(approvalId, decision, card) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    /** @type {chrome.runtime.Port} */ (port).postMessage({ type: "approval_answer", approval_id: approvalId, decision });
  } catch (_) {
    // The worker restarted this instant: the one-off message reaches the new one.
    chrome.runtime.sendMessage({ type: "approval_answer", approval_id: approvalId, decision }).catch(() => {});
  }
}

/** @param {string} message */
function showError(message) {
  const conn = $("connection");
  conn.textContent = "no answer from the extension: " + message;
  conn.className = "pill off";
  conn.title = "";
}

// The port to the worker; a restarted worker closes it, and the popup connects again
// (which wakes the worker) and gets the whole status at once.
function connect() {
  try {
    port = chrome.runtime.connect({ name: "nsp-popup" });
  } catch (err) {
    showError(String((err && err.message) || err));
    setTimeout(connect, 500);
    return;
  }
  port.onMessage.addListener((msg) => {
    if (msg && msg.type === "status" && msg.status) render(msg.status);
  });
  port.onDisconnect.addListener(() => {
    port = null;
    void chrome.runtime.lastError;
    setTimeout(connect, 100);
  });
}

connect();
