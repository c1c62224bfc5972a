// popup.js — renders the service worker's status in the toolbar popup. It exists so a
// person can see at a glance whether nspd is connected and what agents can do on each
// tab. Page text is inserted with textContent only: it is data, never markup.

// Generated from the Rust side by `cargo xtask dist` (protocol/src/contract.rs).
import { FLOOR_IRREVERSIBLE_WRITE, FLOOR_REVERSIBLE_WRITE } from "./contract.js";

const $ = (id) => document.getElementById(id);

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
  return td;
}

function render(status) {
  const conn = $("connection");
  conn.textContent = status.connected ? "connected to nspd" : "nspd not connected";
  conn.className = "pill " + (status.connected ? "ok" : "off");
  conn.title = status.daemon_url || "";

  const body = $("tabs").tBodies[0];
  body.replaceChildren();
  for (const t of status.tabs) {
    const row = document.createElement("tr");
    cell(row, t.title || t.url || `tab ${t.tab_id}`, "page").title = t.url || "";
    const tier = t.status === "error" ? "error" : t.probe_tier === "wasm_extension" ? "extension" : t.probe_tier === "wasm_in_page" ? "in page" : t.status;
    cell(row, tier).title = t.message || "";
    const c = typeof t.confidence === "number" ? t.confidence : null;
    cell(row, c === null ? "–" : c.toFixed(2) + (t.settled === false ? " (settling)" : ""), c === null ? "" : c >= FLOOR_IRREVERSIBLE_WRITE ? "good" : c >= FLOOR_REVERSIBLE_WRITE ? "mid" : "low");
    cell(row, `${t.by_tier.read} / ${t.by_tier.reversible_write} / ${t.by_tier.irreversible_write}`);
    body.append(row);
  }
  $("no-tabs").hidden = status.tabs.length > 0;

  const list = $("recent");
  list.replaceChildren();
  for (const r of status.recent) {
    const li = document.createElement("li");
    const when = new Date(r.at).toLocaleTimeString();
    li.textContent = `${when} tab ${r.tab_id}: ${r.action} — ${r.status}${r.message ? ` (${r.message.slice(0, 80)})` : ""}`;
    list.append(li);
  }
  $("no-recent").hidden = status.recent.length > 0;
}

function showError(message) {
  const conn = $("connection");
  conn.textContent = "no answer from the extension: " + message;
  conn.className = "pill off";
  conn.title = "";
}

// The popup stays open while a person reads it; nspd may come or go and probes settle
// meanwhile, so it asks again every second and re-renders when the answer changed.
const REFRESH_MS = 1000;
let shown = null;

async function refresh() {
  try {
    const status = await chrome.runtime.sendMessage({ type: "popup_status" });
    if (!status) throw new Error("the service worker sent no status");
    const json = JSON.stringify(status);
    if (json !== shown) {
      render(status);
      shown = json;
    }
  } catch (err) {
    showError(String((err && err.message) || err));
    shown = null;
  }
  setTimeout(refresh, REFRESH_MS);
}

refresh();
