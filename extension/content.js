// content.js — runs in every http(s) page (isolated world), after extract.js,
// bridge.js and dispatch.js. It exists because only a content script can read and act
// on the DOM. It extracts the page with NspExtract, has the probe analyse it — in the
// service worker (tier wasm_extension), whose wasm is compiled once for the browser,
// or, for a page too big or too busy to share the worker with every other tab, in a
// probe of the page's own (tier wasm_in_page) where its CSP allows WebAssembly — and
// relays captures and incremental deltas to the service worker over a runtime port.
// It executes dispatched actions with NspDispatch, and answers nspd's `resolve` (which
// element a builtin's selector finds) with it too.
//
// It never talks to nspd itself: a socket opened here would carry the page's Origin.
"use strict";

(() => {
  if (globalThis.__nspContentLoaded) return; // injected twice (e.g. extension reload)
  globalThis.__nspContentLoaded = true;

  // Mutations are gathered this long after the last one, but never longer than the max.
  const DEBOUNCE_MS = 40;
  const MAX_BATCH_MS = 250;
  // A page is still moving (so less understood) while it is loading, while mutations
  // keep coming without a DEBOUNCE_MS pause, or when more than BUSY_FLUSHES batches
  // came within BUSY_WINDOW_MS. One burst of changes after an action is not "moving":
  // agents act in sequence and must not be refused for the page's answer to them.
  const BUSY_FLUSHES = 3;
  const BUSY_WINDOW_MS = 1000;
  // How long after a busy spell the page is checked again, and a fresh capture may wait
  // for a quiet moment.
  const SETTLE_MS = 300;
  const FRESH_WAIT_MS = 300;
  // A control a capture kept back as transparent while the page ran finite animations
  // (a dialog fading in, its buttons still at an opacity under 0.1) is asked about
  // again when they end, or after this long, once per change of the page.
  const FADE_WAIT_MS = 2000;
  // The first capture waits for a quiet page, up to a limit.
  const FIRST_QUIET_MS = 120;
  const FIRST_MAX_MS = 1500;
  // Where the probe runs (issue 23). The service worker's probe is compiled once for the
  // whole browser and kept hot by every tab's captures, where a probe in each page was
  // compiled again on every page load (its cold analysis was most of a first capture's).
  // But the worker relays every tab, so a page that would take much of its time gets a
  // probe of its own in its page: one with more than WORKER_MAX_RECORDS element records
  // (an analysis of that size takes the worker about 10 ms on the bench's 2-core
  // machine), or whose analyses took the worker more than WORKER_MAX_MS within the last
  // WORKER_WINDOW_MS (a page that changes, or navigates in place, many times a second).
  // Under both, one tab holds the worker at most about a tenth of its time. A page
  // whose CSP forbids WebAssembly stays in the worker whatever it costs.
  const WORKER_MAX_RECORDS = 4000;
  const WORKER_MAX_MS = 100;
  const WORKER_WINDOW_MS = 1000;
  // How long the start waits for the worker's probe before the page loads its own.
  const WORKER_PING_MS = 2000;
  // How long after the worker went away the port is opened again.
  const RECONNECT_MS = 100;

  const started = performance.now();
  /** @type {chrome.runtime.Port | null} */
  let port = null;
  /** @type {"wasm_in_page" | "wasm_extension" | null} */
  let tier = null;
  /** @type {import("./probe/nsp_probe.js").Probe | null} */
  let probe = null;
  /** @type {typeof import("./probe/nsp_probe.js") | null} */
  let glue = null;
  // nspd's probe settings, relayed by the service worker (see worker/probe.js); null: defaults.
  /** @type {ProbeSettings | null} */
  let probeSettings = null;
  /** @type {string | null} */
  let probeError = null;
  // The worker's analyses of this page: [end time, duration] within WORKER_WINDOW_MS.
  /** @type {[number, number][]} */
  const workerCost = [];
  // Whether the move to a probe of the page's own is under way (its probe loading), and
  // whether the page's CSP (or anything else) stopped it, so that it is not tried again.
  let moving = false;
  let cannotMove = false;
  /** @type {PageCapture | null} */
  let capture = null;
  /** @type {Record<string, unknown> | null} */
  let lastState = null;
  let lastMutation = started;
  let firstMutationInBatch = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let flushTimer;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let settleTimer;
  let batchCut = false;
  /** @type {number[]} */
  const flushTimes = [];
  let toolsChanged = true;
  let navigated = false;
  /** @type {Promise<unknown>} */
  let queue = Promise.resolve();
  /** @type {Set<Node>} */
  const dirty = new Set();
  /** @type {Map<string, (msg: { ok: boolean, gone?: boolean, result?: unknown, error?: string }) => void>} */
  const rpcPending = new Map();
  let rpcSeq = 0;
  // Controls that raised a confirm() NSP declined: {element, selector, target, text}.
  // Kept for the document's life (a navigation starts a new content script), sent with
  // every full snapshot as `confirmed_controls`; the probe rates them irreversible.
  /** @type {{ element: WeakRef<Element> | null, selector: string, target: string, text: string }[]} */
  const confirmSeen = [];
  const MAX_CONFIRM_SEEN = 50;

  // --- the main world (page-world.js), through bridge.js --------------------------------

  const page = NspBridge.create({
    toolsChanged() {
      toolsChanged = true;
      markDirty(document.documentElement);
    },
    navigated: () => onNavigated(),
  });

  // --- extraction ------------------------------------------------------------------------

  const observer = new MutationObserver((records) => {
    for (const r of records) if (!ownRecord(r)) markDirty(r.target);
  });
  // Whether a mutation is only our channel frame coming or going: not a page change.
  /** @param {MutationRecord} r */
  function ownRecord(r) {
    if (r.type !== "childList") return extractor.own.has(r.target);
    if (!r.addedNodes.length && !r.removedNodes.length) return false;
    for (const n of r.addedNodes) if (!extractor.own.has(n)) return false;
    for (const n of r.removedNodes) if (!extractor.own.has(n)) return false;
    return true;
  }
  // A field that was ever type=password stays secret when the page turns it into text
  // (see isSecret in extract.js); this hears the change even before a capture saw it.
  const typeWatch = new MutationObserver((records) => {
    for (const r of records) if (r.oldValue && r.oldValue.toLowerCase() === "password") NspExtract.rememberPassword(r.target);
  });
  const observed = new WeakSet();
  const OBSERVE = { subtree: true, childList: true, attributes: true, characterData: true };
  const TYPE_WATCH = { subtree: true, attributes: true, attributeFilter: ["type"], attributeOldValue: true };
  /** @param {Node} root */
  function observe(root) {
    if (observed.has(root)) return;
    observed.add(root);
    observer.observe(root, OBSERVE);
    typeWatch.observe(root, TYPE_WATCH);
  }
  const extractor = new NspExtract.Extractor(document);
  extractor.onShadowRoot = observe;
  extractor.onFrame = (frame, doc) => {
    observe(doc);
    if (!observed.has(frame)) {
      observed.add(frame);
      // A frame that navigates or reloads brings a new document.
      frame.addEventListener("load", () => schedule(() => fullCapture(null)));
    }
    for (const type of ["input", "change"]) doc.addEventListener(type, (e) => markDirty(/** @type {Node} */ (e.target)), true);
  };
  observe(document);
  // Typing changes properties, which mutation observers do not see.
  for (const type of ["input", "change"]) document.addEventListener(type, (e) => markDirty(/** @type {Node} */ (e.composedPath()[0] || e.target)), true);
  window.addEventListener("popstate", onNavigated);
  window.addEventListener("hashchange", onNavigated);

  function settledNow() {
    if (document.readyState !== "complete") return false;
    const now = performance.now();
    if (now - lastMutation < DEBOUNCE_MS) return false;
    while (flushTimes.length && now - flushTimes[0] > BUSY_WINDOW_MS) flushTimes.shift();
    if (now - lastMutation >= SETTLE_MS) return true;
    return !batchCut && flushTimes.length <= BUSY_FLUSHES;
  }

  /** @param {number} maxMs */
  function quiet(maxMs) {
    const until = performance.now() + maxMs;
    return new Promise((/** @type {(value?: unknown) => void} */ resolve) => {
      const check = () => {
        const now = performance.now();
        if (now - lastMutation >= DEBOUNCE_MS || now >= until) resolve();
        else setTimeout(check, DEBOUNCE_MS / 2);
      };
      check();
    });
  }

  // Fades: no mutation announces a transition's end, so a control found transparent
  // while one ran would stay out of the state until the page changed again. The
  // recheck is a patch of those controls; it happens once per mutation the page made
  // (a page that keeps animating does not keep the probe busy).
  let fadeWait = false;
  let fadeSeen = -1; // lastMutation as the last recheck left it
  function recheckFades() {
    const faded = extractor.faded();
    if (!faded.length || fadeWait || lastMutation === fadeSeen || typeof document.getAnimations !== "function") return;
    const moving = document.getAnimations().filter((a) => a.playState === "running" && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
    if (!moving.length) return;
    const els = faded.slice();
    fadeWait = true;
    const timeout = new Promise((resolve) => setTimeout(resolve, FADE_WAIT_MS));
    Promise.race([Promise.allSettled(moving.map((a) => a.finished)), timeout]).then(() => {
      fadeWait = false;
      let marked = false;
      for (const el of els) {
        if (!el.isConnected) continue;
        markDirty(el);
        marked = true;
      }
      if (marked) fadeSeen = lastMutation;
    });
  }

  /** @param {Node} node */
  function markDirty(node) {
    lastMutation = performance.now();
    dirty.add(node);
    if (!firstMutationInBatch) firstMutationInBatch = lastMutation;
    if (!capture) return; // the first capture takes everything anyway
    clearTimeout(flushTimer);
    const waited = lastMutation - firstMutationInBatch;
    const cut = waited >= MAX_BATCH_MS;
    flushTimer = setTimeout(() => {
      batchCut = cut;
      schedule(flush);
    }, cut ? 0 : DEBOUNCE_MS);
  }

  function onNavigated() {
    navigated = true;
    markDirty(document.documentElement);
  }

  // Captures, patches and dispatches run one at a time, in order.
  /** @param {() => unknown} task */
  function schedule(task) {
    if (retired) return queue;
    queue = queue.then(task).catch((err) => console.warn("nsp:", err));
    return queue;
  }

  // The extension was updated, reloaded or removed under this page: this script is left
  // behind with nothing to talk to (the new extension joins the page with scripts of its
  // own, see worker/join.js), so it stops watching the page.
  let retired = false;
  function retire() {
    retired = true;
    observer.disconnect();
    typeWatch.disconnect();
    clearTimeout(flushTimer);
    clearTimeout(settleTimer);
  }

  function snapshot() {
    const snap = page.snapshot(extractor);
    toolsChanged = false;
    snap.unsettled = !settledNow();
    if (confirmSeen.length) snap.confirmed_controls = confirmedControls();
    return snap;
  }

  // Each control where it is now, in the extractor's own selector form (which the
  // probe's records compose to); where it was, once it has left the page.
  function confirmedControls() {
    return confirmSeen.map((c) => {
      const el = c.element && c.element.deref();
      if (el && el.isConnected) c.selector = extractor.selectorOf(el);
      return { selector: c.selector, target: c.target, text: c.text };
    });
  }

  /** @param {{ element: Element | null, target: string, text: string }} seen */
  function rememberConfirm(seen) {
    const el = seen.element && seen.element.nodeType === 1 ? seen.element : null;
    const entry = {
      element: el ? new WeakRef(el) : null,
      selector: el && el.isConnected ? extractor.selectorOf(el) : "",
      target: String(seen.target || ""),
      text: String(seen.text || "").slice(0, 500),
    };
    if (!entry.selector && !entry.target) return false;
    const same = confirmSeen.find((c) => c.selector === entry.selector && c.target === entry.target);
    if (same) {
      same.text = entry.text;
      return false;
    }
    if (confirmSeen.length >= MAX_CONFIRM_SEEN) confirmSeen.shift();
    confirmSeen.push(entry);
    return true;
  }

  /** @param {string | null} requestId @param {boolean} [retried] */
  async function fullCapture(requestId, retried) {
    clearTimeout(flushTimer);
    dirty.clear();
    firstMutationInBatch = 0;
    navigated = false;
    if (!tier) {
      sendState({ status: "error", message: probeError, request_id: requestId || null });
      return;
    }
    let text;
    const t0 = performance.now();
    let t1 = t0;
    let records = 0;
    try {
      const snap = snapshot();
      records = snap.elements.length;
      t1 = performance.now();
      text = await analyze(JSON.stringify(snap));
    } catch (err) {
      // The worker restarted while it analysed: its probe is new, so ask again once
      // the port is back (connect's reconnect), instead of reporting a failure.
      if (err instanceof WorkerGone && !retried) {
        setTimeout(() => schedule(() => fullCapture(requestId, true)), RECONNECT_MS * 2);
        return;
      }
      sendState({ status: "error", message: "The probe failed on this page: " + String((err && err.message) || err), request_id: requestId || null });
      return;
    }
    /** @type {PageCapture} */
    const fresh = JSON.parse(text);
    capture = fresh;
    // What the capture cost here, end to end: the extraction (with the click listeners
    // and WebMCP tools), then the snapshot's JSON, the analysis and the capture parsed.
    const meta = fresh.probe_metadata;
    if (meta) {
      const t2 = performance.now();
      const ms = (/** @type {number} */ d) => Math.round(d * 1000) / 1000;
      meta.capture_latency_ms = ms(t1 - t0);
      meta.labeling_latency_ms = ms(t2 - t1);
      meta.total_latency_ms = ms(t2 - t0);
    }
    sendState({ status: "active", capture, request_id: requestId || null });
    scheduleSettleCheck();
    recheckFades();
    considerMove(records);
  }

  async function flush() {
    clearTimeout(flushTimer);
    if (!capture || !tier) return;
    if (navigated || (capture.context && capture.context.url !== location.href)) {
      await fullCapture(null);
      return;
    }
    const nodes = Array.from(dirty);
    dirty.clear();
    firstMutationInBatch = 0;
    if (nodes.length) flushTimes.push(performance.now());
    page.mark(extractor);
    const patch = extractor.patch(nodes);
    if (!patch) {
      await fullCapture(null);
      return;
    }
    patch.unsettled = !settledNow();
    if (toolsChanged) {
      patch.tools = page.tools();
      toolsChanged = false;
    }
    let text;
    try {
      text = await update(JSON.stringify(patch));
    } catch (_) {
      // The probe lost its copy (worker restart) or the patch did not fit.
      await fullCapture(null);
      return;
    }
    if (text) {
      /** @type {TabDelta} */
      const delta = JSON.parse(text);
      NspDelta.apply(capture, delta);
      send({ type: "tab_delta", ...delta });
    }
    scheduleSettleCheck();
    recheckFades();
    considerMove(extractor.recs.length);
  }

  // Once the DOM has been quiet long enough, a capture taken while it moved is
  // re-derived as settled (its confidence goes up).
  function scheduleSettleCheck() {
    clearTimeout(settleTimer);
    if (!capture || !capture.probe_metadata || capture.probe_metadata.settled) return;
    const wait = Math.max(20, lastMutation + SETTLE_MS - performance.now() + 20);
    settleTimer = setTimeout(() => {
      if (document.readyState !== "complete") {
        scheduleSettleCheck();
        return;
      }
      schedule(flush);
    }, wait);
  }

  // --- the probe, in the page or in the extension -----------------------------------------

  /** @param {{ message?: string } | null | undefined} err what was thrown */
  function describeLoadError(err) {
    const text = String((err && err.message) || err);
    const csp = (err instanceof WebAssembly.CompileError) || /Content Security Policy|wasm-unsafe-eval|unsafe-eval/i.test(text);
    return { csp, text };
  }

  // The worker's probe when it answers (it compiles the wasm on the first tab of its
  // life); else a probe of the page's own.
  async function loadProbe() {
    try {
      await rpc("probe_ping", {}, WORKER_PING_MS);
      tier = "wasm_extension";
      return;
    } catch (swErr) {
      const why = await loadOwnProbe();
      if (!why) {
        tier = "wasm_in_page";
        return;
      }
      probeError = (why.csp
        ? "The extension's probe did not answer, and this page's Content-Security-Policy blocks WebAssembly in the page: "
        : "The probe could not be loaded: ") + String((swErr && swErr.message) || swErr) + " / " + why.text;
    }
  }

  // A probe of the page's own: null once it is made, else why it could not be.
  /** @returns {Promise<{ csp: boolean, text: string } | null>} */
  async function loadOwnProbe() {
    try {
      const g = await import(chrome.runtime.getURL("probe/nsp_probe.js"));
      await g.default({ module_or_path: chrome.runtime.getURL("probe/nsp_probe_bg.wasm") });
      probe = new g.Probe(probeConfig());
      glue = g;
      return null;
    } catch (err) {
      return describeLoadError(err);
    }
  }

  // Moves a page that costs the worker too much (see WORKER_MAX_RECORDS) to a probe of
  // its own: once it is loaded, the next capture is a full one in the page and the
  // worker forgets its copy. Until then the worker goes on, so nothing waits.
  /** @param {number} records the element records of the page's newest snapshot */
  function considerMove(records) {
    if (tier !== "wasm_extension" || moving || cannotMove) return;
    const now = performance.now();
    while (workerCost.length && now - workerCost[0][0] > WORKER_WINDOW_MS) workerCost.shift();
    const spent = workerCost.reduce((sum, c) => sum + c[1], 0);
    if (records <= WORKER_MAX_RECORDS && spent <= WORKER_MAX_MS) return;
    moving = true;
    loadOwnProbe().then((why) => {
      if (why) {
        cannotMove = true;
        moving = false;
        return;
      }
      schedule(async () => {
        moving = false;
        tier = "wasm_in_page";
        send({ type: "probe_drop" });
        await fullCapture(null);
      });
    });
  }

  function probeConfig() {
    return JSON.stringify({ tier: "wasm_in_page", ...(probeSettings || {}) });
  }

  // New settings from nspd: a probe is configured when it is made, so the page's probe
  // is made anew (the extension's own was dropped by the worker) and the page captured
  // again under the new caps.
  /** @param {ProbeSettings | null} settings */
  function onProbeSettings(settings) {
    if (JSON.stringify(settings) === JSON.stringify(probeSettings)) return;
    probeSettings = settings;
    if (tier === "wasm_in_page" && glue) {
      const old = probe;
      probe = new glue.Probe(probeConfig());
      if (old) old.free();
    }
    if (capture) schedule(() => fullCapture(null));
  }

  /** @param {string} json @returns {Promise<string>} */
  function analyze(json) {
    // On that tier `probe` is the page's own (loadOwnProbe made it first).
    if (tier === "wasm_in_page") return Promise.resolve(/** @type {import("./probe/nsp_probe.js").Probe} */ (probe).analyze(json));
    return /** @type {Promise<string>} */ (timed(rpc("probe_analyze", { snapshot: json })));
  }

  /** @param {string} json @returns {Promise<string | undefined>} */
  function update(json) {
    if (tier === "wasm_in_page") return Promise.resolve(/** @type {import("./probe/nsp_probe.js").Probe} */ (probe).update(json));
    return /** @type {Promise<string | undefined>} */ (timed(rpc("probe_update", { patch: json })));
  }

  // What an analysis by the worker took, from here (see considerMove).
  /** @param {Promise<unknown>} asked */
  function timed(asked) {
    const t0 = performance.now();
    const done = () => {
      const now = performance.now();
      workerCost.push([now, now - t0]);
    };
    asked.then(done, done);
    return asked;
  }

  // The worker went away while it had a question of ours (a restart, an update).
  class WorkerGone extends Error {}

  /**
   * @param {ProbeRequest["type"]} type
   * @param {Record<string, unknown>} payload
   * @param {number} [waitMs] how long to wait for the answer
   * @returns {Promise<unknown>} the worker's probe's answer (its result, as the page's probe gives it)
   */
  function rpc(type, payload, waitMs) {
    const id = `r${++rpcSeq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        rpcPending.delete(id);
        reject(new Error("the extension's probe did not answer"));
      }, waitMs || 10_000);
      rpcPending.set(id, (msg) => {
        clearTimeout(timer);
        if (msg.ok) resolve(msg.result);
        else reject(msg.gone ? new WorkerGone(msg.error) : new Error(msg.error || "probe error"));
      });
      // The direct port when there is one: a snapshot is the biggest message a tab
      // sends, and that port neither crosses the browser process nor turns the message
      // into JSON on the way (see channel.js).
      if (direct) direct.postMessage({ type, id, ...payload });
      else send({ type, id, ...payload });
    });
  }

  // --- the service worker ------------------------------------------------------------------

  /** @param {Record<string, unknown>} extra */
  function sendState(extra) {
    lastState = { type: "tab_state", url: location.href, title: document.title, ...extra };
    send(lastState);
  }

  /** @param {Record<string, unknown>} msg */
  function send(msg) {
    try {
      (port || connect()).postMessage(msg);
    } catch (_) {
      // The worker restarted between messages; reconnect and resend once.
      port = null;
      connect().postMessage(msg);
    }
  }

  /** @param {{ request_id: string, selector: string }} msg */
  async function answerResolve(msg) {
    // nspd's question before it gates a builtin aimed by selector (see describe in
    // dispatch.js), answered once the page stops moving: whether a person perceives the
    // element is only known then.
    await NspDispatch.still();
    if (dirty.size) await flush();
    send({ type: "resolved", request_id: msg.request_id, resolution: NspDispatch.describe(msg.selector, capture, extractor.hover) });
  }

  // `reply`: the direct port the dispatch came on (a pure read), or null for the
  // runtime port.
  /**
   * @param {{ action_id: string } & DispatchRequest} msg
   * @param {MessagePort | null} reply
   */
  async function runDispatch(msg, reply) {
    // Pending DOM changes first: the action must check its target against the page as
    // it is now.
    if (dirty.size) await flush();
    let answered = false;
    /** @param {DispatchOutcome} outcome */
    const answer = (outcome) => {
      if (answered) return;
      answered = true;
      const result = { type: "action_result", action_id: msg.action_id, outcome };
      if (reply && reply === direct) reply.postMessage(result);
      else send(result);
    };
    // A click that opens another document (a link, a form's submit) takes this script
    // with it, often before the dispatcher has finished settling: a fast server answers
    // a GET in a few milliseconds. The answer goes out as soon as the navigation starts
    // (or, at the latest, as the page is hidden), so the agent hears that it ran instead
    // of waiting for a page that is gone.
    const leaving = () => answer({ status: "done", value: null });
    /** @param {NavigateEvent} event */
    const onNavigate = (event) => {
      if (event && event.destination && event.destination.sameDocument === false) leaving();
    };
    const nav = globalThis.navigation;
    if (nav && typeof nav.addEventListener === "function") nav.addEventListener("navigate", onNavigate);
    addEventListener("pagehide", leaving);
    /** @type {DispatchOutcome} */
    let outcome;
    let asked = false;
    try {
      outcome = await NspDispatch.run(msg, capture, page, (seen) => {
        asked = rememberConfirm(seen) || asked;
      });
    } catch (err) {
      outcome = { status: "failed", code: "threw", message: String((err && err.message) || err).slice(0, 500) };
    } finally {
      if (nav && typeof nav.removeEventListener === "function") nav.removeEventListener("navigate", onNavigate);
      removeEventListener("pagehide", leaving);
    }
    // A new control asked for confirmation: the capture that rates it irreversible goes
    // out before the answer, so whoever reads the state after the refusal sees it.
    if (asked) await fullCapture(null);
    answer(outcome);
  }

  // The element a question to the person is about, outlined while they decide. The
  // inline style is put back exactly as it was when the question closes.
  /** @type {Map<string, { el: HTMLElement, outline: string, offset: string }>} */
  const outlined = new Map(); // approval_id -> { el, outline, offset }

  /** @param {string} approvalId @param {unknown} selector @param {boolean} on */
  function outlineTarget(approvalId, selector, on) {
    const had = outlined.get(approvalId);
    if (!on) {
      if (had) {
        had.el.style.outline = had.outline;
        had.el.style.outlineOffset = had.offset;
        outlined.delete(approvalId);
      }
      return;
    }
    if (had || typeof selector !== "string") return;
    let el = null;
    try {
      el = /** @type {HTMLElement | null} */ (document.querySelector(selector));
    } catch (_) {
      return; // Not a selector this document understands.
    }
    if (!el || !el.style) return;
    outlined.set(approvalId, { el, outline: el.style.outline, offset: el.style.outlineOffset });
    el.style.outline = "3px solid #d93025";
    el.style.outlineOffset = "2px";
    try {
      el.scrollIntoView({ block: "nearest" });
    } catch (_) {
      // Old engines: the outline still shows.
    }
  }

  /** @param {WorkerToTab | null} msg */
  function onWorkerMessage(msg) {
    if (!msg || typeof msg !== "object") return;
    switch (msg.type) {
      case "dispatch":
        schedule(() => runDispatch(msg, null));
        break;
      case "channel_offer":
        if (typeof msg.token === "string") openChannel(msg.token);
        break;
      case "resolve":
        schedule(() => answerResolve(msg));
        break;
      case "capture":
        // Asked for a fresh state (often right after an action, or right before one is
        // dispatched): let the page finish its current burst of changes first, then
        // stop moving (NspDispatch.still: at most 1 s; what a control looks like and
        // what covers it are only known then).
        schedule(() => quiet(FRESH_WAIT_MS).then(() => NspDispatch.still()).then(() => fullCapture(msg.request_id)));
        break;
      case "probe_config":
        onProbeSettings(msg.settings || null);
        break;
      case "outline":
        outlineTarget(msg.approval_id, msg.selector, true);
        break;
      case "outline_off":
        outlineTarget(msg.approval_id, msg.selector, false);
        break;
      case "probe_result": {
        const done = rpcPending.get(msg.id);
        if (done) {
          rpcPending.delete(msg.id);
          done(msg);
        }
        break;
      }
      default:
        break;
    }
  }

  // --- the read fast path (see channel.js and worker/direct.js) -------------------------------

  // The direct MessagePort to the service worker, once it has confirmed it; null until
  // then, and when the runtime port drops (the worker restarted: it offers a new one).
  /** @type {MessagePort | null} */
  let direct = null;
  const CHANNEL_WAIT_MS = 5_000;

  /** @param {string} token */
  function openChannel(token) {
    const root = document.documentElement;
    if (!root) return;
    const extensionOrigin = new URL(chrome.runtime.getURL("")).origin;
    const pipe = new MessageChannel();
    const frame = document.createElement("iframe");
    extractor.own.add(frame);
    frame.setAttribute("aria-hidden", "true");
    frame.tabIndex = -1;
    frame.style.setProperty("display", "none", "important");
    const done = () => {
      clearTimeout(timer);
      frame.remove();
    };
    // No answer in time (the page's CSP or the page itself stopped the frame, or the
    // frame cannot reach the worker): the runtime port carries everything, as before.
    const timer = setTimeout(() => {
      done();
      pipe.port1.close();
    }, CHANNEL_WAIT_MS);
    pipe.port1.onmessage = (event) => {
      const msg = event.data;
      if (!msg || typeof msg !== "object") return;
      if (msg.type === "channel_ready") {
        done();
        if (direct) direct.close();
        direct = pipe.port1;
        // The worker sends reads on this port only after this answer (see worker/direct.js).
        direct.postMessage({ type: "channel_ack" });
      } else if (msg.type === "dispatch") {
        schedule(() => runDispatch(msg, pipe.port1));
      } else if (msg.type === "probe_result") {
        onWorkerMessage(msg);
      }
    };
    frame.addEventListener("load", () => {
      // Posted to the extension's origin only: if the page navigated the frame
      // elsewhere, nothing is delivered and the wait above runs out.
      try {
        const target = frame.contentWindow;
        if (target) target.postMessage({ type: "nsp_channel", token }, extensionOrigin, [pipe.port2]);
      } catch (_) {
        // The frame is gone already.
      }
    }, { once: true });
    frame.src = chrome.runtime.getURL("channel.html");
    root.appendChild(frame);
  }

  /** Opens the port to the service worker and returns it. */
  function connect() {
    const opened = chrome.runtime.connect({ name: "nsp-tab" });
    port = opened;
    opened.onMessage.addListener(onWorkerMessage);
    opened.onDisconnect.addListener(() => {
      // The worker went away (restart or extension update). Reconnect and re-announce
      // the current state (deltas are folded into `capture`).
      port = null;
      if (!chrome.runtime.id) retire();
      if (direct) {
        direct.close();
        direct = null;
      }
      for (const done of rpcPending.values()) done({ ok: false, gone: true, error: "the service worker restarted" });
      rpcPending.clear();
      setTimeout(() => {
        try {
          // A message sent meanwhile (the full capture that follows a patch the gone
          // worker could not take) may have opened the port already: one per page.
          const again = port || connect();
          if (lastState) {
            const state = capture ? { ...lastState, status: "active", capture, request_id: null } : { ...lastState, request_id: null };
            again.postMessage(state);
          }
        } catch (_) {
          // The extension was removed: nothing left to talk to.
        }
      }, RECONNECT_MS);
    });
    return opened;
  }

  // --- start -------------------------------------------------------------------------------

  // Enough elements for every function of a typical extraction to run many times (a
  // few rows of a list, a form, the navigation); about a tenth of the bench's
  // 5,000-element page, whose first extraction it made about a third faster.
  const WARM_RECORDS = 300;
  let warmed = false;
  function quietStart() {
    return new Promise((/** @type {(value?: unknown) => void} */ resolve) => {
      const check = () => {
        const now = performance.now();
        const quiet = now - lastMutation >= FIRST_QUIET_MS && document.readyState === "complete";
        if (quiet || now - started >= FIRST_MAX_MS) resolve();
        else {
          // Still waiting: V8 runs a script's first calls in its slowest tiers, so the
          // first capture's extraction was several times a warm one (BENCHMARKS.md,
          // issue 23). One extraction of the page's first WARM_RECORDS elements, thrown
          // away (nothing leaves this script), compiles its functions and starts their
          // optimisation now, while the page is busy loading; and a probe of the page's
          // own analyses a small built-in page for the same reason (the worker's warmed
          // up when it loaded). Not when the page is quiet already: the capture goes
          // first then. Only an optimisation: a failure changes nothing.
          if (!warmed && tier) {
            warmed = true;
            try {
              new NspExtract.Extractor(document, { maxRecords: WARM_RECORDS }).full();
              if (tier === "wasm_in_page" && glue) glue.warm();
            } catch (_) {
              // Captures still work; the first one is just slower.
            }
          }
          setTimeout(check, 30);
        }
      };
      check();
    });
  }

  connect();
  sendState({ status: "attaching" });
  loadProbe()
    .then(quietStart)
    .then(() => schedule(() => fullCapture(null)));
})();
