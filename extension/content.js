// content.js — runs in every http(s) page (isolated world). It exists because only a
// content script can read and act on the DOM: it extracts one compact snapshot of the
// page, runs the wasm probe on it where the page's CSP allows WebAssembly, relays the
// capture to the service worker over a runtime port, and executes dispatched actions.
// It never talks to nspd itself: a socket opened here would carry the page's Origin.
"use strict";

(() => {
  if (globalThis.__nspContentLoaded) return; // injected twice (e.g. extension reload)
  globalThis.__nspContentLoaded = true;

  const TEXT_LIMIT = 200;
  const RECORD_SELECTOR = [
    "form", "button", "a[href]", "input", "select", "textarea", "[role]", "[data-nsp-action]",
    "[data-nsp-key]", "[id]", "h1", "h2", "h3", "section", "main", "nav", "aside", "article",
    "header", "footer", "dialog", "[contenteditable]",
  ].join(",");
  const ATTRS = [
    "id", "name", "type", "role", "href", "aria-label", "aria-pressed", "aria-checked", "aria-expanded",
    "method", "action", "required", "placeholder", "autocomplete", "title", "checked", "for",
  ];
  const SECRET_AUTOCOMPLETE = /\b(cc-number|cc-csc|current-password|new-password|one-time-code)\b/;

  let port = null;
  let probe = null;
  let probeError = null;
  let lastState = null;

  function isSecret(el) {
    return (el.type === "password") || SECRET_AUTOCOMPLETE.test(el.getAttribute("autocomplete") || "");
  }

  function collapse(text) {
    const t = (text || "").replace(/\s+/g, " ").trim();
    return t.length > TEXT_LIMIT ? t.slice(0, TEXT_LIMIT) : t;
  }

  function isVisible(el) {
    if (typeof el.checkVisibility === "function") {
      return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    }
    return el.getClientRects().length > 0;
  }

  // Unique CSS selector: an id when it is unique, else a nth-of-type path up to the
  // nearest uniquely-identified ancestor.
  function makeSelector(el, idCounts) {
    const uniqueId = (node) => node.id && idCounts.get(node.id) === 1;
    if (uniqueId(el)) return "#" + CSS.escape(el.id);
    const parts = [];
    let node = el;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      if (node !== el && uniqueId(node)) {
        parts.unshift("#" + CSS.escape(node.id));
        break;
      }
      let index = 1;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        if (sib.localName === node.localName) index++;
      }
      parts.unshift(`${node.localName}:nth-of-type(${index})`);
      node = node.parentElement;
    }
    return parts.join(" > ");
  }

  // One pass over the DOM into a flat table; the probe does the thinking.
  function extractSnapshot() {
    const started = performance.now();
    const idCounts = new Map();
    for (const el of document.querySelectorAll("[id]")) idCounts.set(el.id, (idCounts.get(el.id) || 0) + 1);
    const nodes = document.querySelectorAll(RECORD_SELECTOR);
    const indexOf = new Map();
    const elements = [];
    for (const el of nodes) {
      let parent = null;
      for (let up = el.parentElement; up; up = up.parentElement) {
        const i = indexOf.get(up);
        if (i !== undefined) { parent = i; break; }
      }
      const attrs = {};
      for (const name of ATTRS) {
        const v = el.getAttribute(name);
        if (v !== null) attrs[name] = v.length > 500 ? v.slice(0, 500) : v;
      }
      for (const a of el.attributes) {
        if (a.name.startsWith("data-nsp-")) attrs[a.name] = a.value.slice(0, 500);
      }
      const tag = el.localName;
      if ((tag === "input" || tag === "textarea" || tag === "select") && !isSecret(el)) {
        if (el.type === "checkbox" || el.type === "radio") attrs.checked = String(el.checked);
        else attrs.value = String(el.value || "").slice(0, 500);
      } else if (isSecret(el)) {
        delete attrs.value;
      }
      const leafish = el.childElementCount <= 3 && tag !== "form" && tag !== "select";
      const text = isSecret(el) ? "" : (leafish ? collapse(el.textContent) : "");
      indexOf.set(el, elements.length);
      elements.push({
        tag,
        parent,
        selector: makeSelector(el, idCounts),
        text,
        attrs,
        visible: isVisible(el),
        disabled: Boolean(el.disabled) || el.getAttribute("aria-disabled") === "true",
      });
    }
    const meta = document.querySelector('meta[name="application-name"]') || document.querySelector('meta[property="og:site_name"]');
    return {
      url: location.href,
      title: document.title,
      site_name: meta ? meta.getAttribute("content") : null,
      elements,
      extract_ms: performance.now() - started,
      unsettled: document.readyState !== "complete",
    };
  }

  function describeLoadError(err) {
    const text = String(err && err.message || err);
    const csp = (err instanceof WebAssembly.CompileError) || /Content Security Policy|wasm-unsafe-eval|unsafe-eval/i.test(text);
    if (csp) {
      return "This page's Content-Security-Policy blocks WebAssembly in the page (script-src without 'wasm-unsafe-eval'), so the in-page probe cannot run here. Browser said: " + text;
    }
    return "The probe could not be loaded in this page: " + text;
  }

  async function loadProbe() {
    const glue = await import(chrome.runtime.getURL("probe/nsp_probe.js"));
    await glue.default({ module_or_path: chrome.runtime.getURL("probe/nsp_probe_bg.wasm") });
    return new glue.Probe({ tier: "wasm_in_page" });
  }

  function send(msg) {
    if (!port) connect();
    try {
      port.postMessage(msg);
    } catch (_) {
      // The worker restarted between messages; reconnect and resend once.
      port = null;
      connect();
      port.postMessage(msg);
    }
  }

  function capture(requestId) {
    const base = { type: "tab_state", url: location.href, title: document.title, request_id: requestId || null };
    if (!probe) {
      lastState = { ...base, status: "error", message: probeError };
    } else {
      try {
        const snap = extractSnapshot();
        lastState = { ...base, status: "active", capture: probe.analyze(snap) };
      } catch (err) {
        lastState = { ...base, status: "error", message: "The probe failed on this page: " + String(err && err.message || err) };
      }
    }
    send(lastState);
  }

  function runAction(msg) {
    const { action, parameters } = msg;
    try {
      if (action === "read_text") {
        const selector = parameters && parameters.selector;
        if (typeof selector !== "string" || !selector) {
          return { status: "failed", code: "bad_parameters", message: "read_text needs a selector string." };
        }
        let el;
        try {
          el = document.querySelector(selector);
        } catch (e) {
          return { status: "failed", code: "bad_parameters", message: `${JSON.stringify(selector)} is not a valid CSS selector.` };
        }
        if (!el) return { status: "failed", code: "target_not_found", message: `No element matches ${JSON.stringify(selector)}.` };
        return { status: "done", value: (el.innerText || el.textContent || "").trim() };
      }
      return { status: "failed", code: "unsupported", message: `This extension cannot run ${JSON.stringify(action)} yet.` };
    } catch (err) {
      return { status: "failed", code: "threw", message: String(err && err.message || err) };
    }
  }

  function onWorkerMessage(msg) {
    if (!msg || typeof msg !== "object") return;
    switch (msg.type) {
      case "dispatch":
        send({ type: "action_result", action_id: msg.action_id, outcome: runAction(msg) });
        break;
      case "capture":
        capture(msg.request_id);
        break;
      default:
        break;
    }
  }

  function connect() {
    port = chrome.runtime.connect({ name: "nsp-tab" });
    port.onMessage.addListener(onWorkerMessage);
    port.onDisconnect.addListener(() => {
      // The worker went away (restart or extension update). Reconnect and re-announce.
      port = null;
      setTimeout(() => {
        try {
          connect();
          if (lastState) port.postMessage(lastState);
        } catch (_) {
          // The extension was removed: nothing left to talk to.
        }
      }, 100);
    });
  }

  connect();
  send({ type: "tab_state", status: "attaching", url: location.href, title: document.title });
  loadProbe().then(
    (p) => { probe = p; capture(null); },
    (err) => { probeError = describeLoadError(err); capture(null); },
  );
})();
