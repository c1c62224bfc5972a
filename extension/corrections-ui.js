// corrections-ui.js — the popup's corrections: the list nspd stores (each with a
// Remove button) and, for every action of every open tab, a control to correct it on
// that tab's site: set its tier, or trust it (the probe's tier at the confidence of a
// site's own declaration). It exists apart from popup.js so any popup layout can mount
// it: `mountCorrections(element)`, or an element with id "corrections" in the page.
//
// Everything goes through the service worker, which accepts these messages only from
// the extension's own pages and forwards them to nspd; nothing here talks to a page.
// Page text is inserted with textContent only: it is data, never markup.

// Generated from the Rust side by `cargo xtask dist` (protocol/src/contract.rs).
import { TIERS } from "./contract.js";

const REFRESH_MS = 2000;

/**
 * What the worker answers to corrections_status (worker/corrections.js).
 * @typedef {{ id: string, origin: string, action: string, tier?: string | null, trusted?: boolean,
 *   max_confidence?: number, created_at?: string, by?: string, key_id?: string }} Correction
 * @typedef {{ name: string, reversibility: string, confidence: number, description: string,
 *   corrected: string[] }} CorrectableAction
 * @typedef {{ connected: boolean, corrections: Correction[], tabs: { tab_id: number, title?: string,
 *   url?: string, origin: string | null, actions: CorrectableAction[] }[] }} CorrectionsStatus
 */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props] properties; `text` the text, `dataset` data-* values
 * @param {(Node | string | null | undefined)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "text") node.textContent = /** @type {string} */ (v);
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[k] = v;
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

/** @param {Correction} c */
function describe(c) {
  const what = [];
  if (c.tier) what.push(c.tier);
  if (c.trusted) what.push("trusted");
  if (typeof c.max_confidence === "number") what.push(`confidence ≤ ${c.max_confidence}`);
  return what.join(", ");
}

/** @param {Correction} c */
function who(c) {
  const date = String(c.created_at || "").slice(0, 10);
  const by = c.by === "agent" ? `an agent${c.key_id ? ` (key ${c.key_id})` : ""}` : "you";
  return `by ${by}${date ? ` on ${date}` : ""}`;
}

/** @param {{ type: string, [field: string]: unknown }} msg */
async function ask(msg) {
  const answer = await chrome.runtime.sendMessage(msg);
  if (!answer) throw new Error("the service worker did not answer");
  return answer;
}

/** @param {Element} root */
export function mountCorrections(root) {
  const status = el("p", { className: "muted corrections-status" });
  const list = el("table", { className: "corrections-list" },
    el("thead", {}, el("tr", {}, ...["site", "action", "correction", "", ""].map((h) => el("th", { text: h })))),
    el("tbody"));
  const none = el("p", { className: "muted no-corrections", text: "No corrections." });
  const actions = el("div", { className: "correct-actions" });
  root.replaceChildren(
    el("h2", { text: "Corrections" }), status, list, none,
    el("h3", { text: "Correct an action on its site" }), actions);
  /** @type {string | null} */
  let shown = null;
  // A select the person is using is not re-rendered under them.
  let busy = false;

  /** @param {CorrectionsStatus} s */
  function render(s) {
    const body = list.tBodies[0];
    body.replaceChildren();
    for (const c of s.corrections) {
      const remove = el("button", { className: "remove-correction", text: "Remove", type: "button" });
      remove.addEventListener("click", () => send({ type: "remove_correction", id: c.id }));
      body.append(el("tr", { className: "correction", dataset: { id: c.id, origin: c.origin, action: c.action } },
        el("td", { text: c.origin }), el("td", { text: c.action }), el("td", { className: "what", text: describe(c) }),
        el("td", { className: "muted", text: who(c) }), el("td", {}, remove)));
    }
    none.hidden = s.corrections.length > 0;

    actions.replaceChildren();
    for (const t of s.tabs) {
      if (!t.origin || !t.actions.length) continue;
      const rows = el("tbody");
      for (const a of t.actions) {
        const select = el("select", { className: "correct-tier" },
          ...TIERS.map((tier) => el("option", { value: tier, text: tier, selected: tier === a.reversibility })));
        select.addEventListener("focus", () => { busy = true; });
        select.addEventListener("blur", () => { busy = false; });
        const apply = el("button", { className: "correct-apply", type: "button", text: "Set tier" });
        apply.addEventListener("click", () => send({ type: "correct", origin: t.origin, action: a.name, tier: select.value, trusted: false }));
        const trust = el("button", { className: "correct-trust", type: "button", text: "Trust" });
        trust.title = "Treat like the site's own declaration: the probe's tier, at declared confidence";
        trust.addEventListener("click", () => send({ type: "correct", origin: t.origin, action: a.name, tier: null, trusted: true }));
        const conf = typeof a.confidence === "number" ? a.confidence.toFixed(2) : "–";
        rows.append(el("tr", { className: "correct-action", dataset: { origin: t.origin, action: a.name, tier: a.reversibility } },
          el("td", { text: a.name, title: [a.description, ...(a.corrected || [])].filter(Boolean).join("\n") }),
          el("td", { className: "tier", text: a.reversibility + ((a.corrected || []).length ? " (corrected)" : "") }),
          el("td", { className: "confidence", text: conf }), el("td", {}, select, apply, trust)));
      }
      actions.append(el("details", { className: "correct-tab", dataset: { origin: t.origin } },
        el("summary", { text: `${t.title || t.url} (${t.origin})` }),
        el("table", {}, rows)));
    }
  }

  async function refresh() {
    if (busy) return;
    try {
      const s = await ask({ type: "corrections_status" });
      const json = JSON.stringify(s);
      if (json === shown) return;
      // Keep open the tabs the person opened.
      const open = new Set(Array.from(/** @type {NodeListOf<HTMLDetailsElement>} */ (actions.querySelectorAll("details[open]")), (d) => d.dataset.origin));
      render(s);
      for (const d of actions.querySelectorAll("details")) if (open.has(d.dataset.origin)) d.open = true;
      status.textContent = s.connected ? "" : "nspd is not connected: corrections cannot be changed now.";
      shown = json;
    } catch (err) {
      status.textContent = "no answer from the extension: " + String((err && err.message) || err);
      shown = null;
    }
  }

  /** @param {{ type: string, [field: string]: unknown }} msg */
  async function send(msg) {
    try {
      const r = await ask(msg);
      status.textContent = r.ok ? "Sent to nspd." : `Not sent: ${r.error}`;
    } catch (err) {
      status.textContent = "Not sent: " + String((err && err.message) || err);
    }
  }

  // The worker tells open extension pages when nspd pushed a new list; tabs' actions
  // change without a message, so a slow refresh too.
  chrome.runtime.onMessage.addListener((msg, sender) => {
    if (sender.id === chrome.runtime.id && msg && msg.type === "corrections_changed") {
      shown = null;
      refresh();
    }
  });
  setInterval(refresh, REFRESH_MS);
  return refresh();
}

const auto = document.getElementById("corrections");
if (auto) mountCorrections(auto);
