// bench_probe.js — the probe benchmark's browser side, run with node by
// xtask/src/bench_probe.rs. It exists because the comparison must happen in one headless
// Chromium run: for generated app pages of several sizes it times our full capture
// (the extension's extract.js + bridge.js, the wasm probe) against Playwright's
// `locator('body').ariaSnapshot({ timeout: 0 })`, compares the sizes of what each produces, and times
// an incremental update after one small DOM change; each page load's first (cold)
// capture in a fresh renderer, and the memory a tab keeps. Prints one JSON object.
//
// Usage: node bench_probe.js <extension dir> <chromium> <sizes,comma,separated> [<snapshots dir>]
//        (the snapshots dir: recorded real-app pages, for the cold first analysis of each)
//        node bench_probe.js nav … (a page load's time to its first state at nspd; see nav())
"use strict";

const fs = require("fs");
const path = require("path");
const { chromium } = require(path.join(process.cwd(), "node_modules", "playwright-core"));

const [extDir, browserPath, sizesArg, realDir] = process.argv.slice(2);
const SIZES = (sizesArg || "600,1700,5000,12000,35000").split(",").map(Number);
const RUNS = 7;
// Cold page loads per size (each a fresh context and renderer); the median is reported.
const COLD_RUNS = 5;
// Fresh contexts per recorded real-app page for its cold first analysis.
const REAL_COLD_RUNS = 3;
// Warm-up: at least this many captures and this much time spent capturing. V8 moves
// wasm and JS to its optimizing tier by the work done, not by the number of calls, so
// a small page needs more captures than a big one to reach the state agents get.
const WARMUP = 10;
const WARMUP_MS = 300;
const ORIGIN = "http://bench.test";

// A realistic app page of about `n` elements: a header with navigation, a sidebar with a
// filter form, a table of records with a link, a status badge and two row buttons.
function page(n) {
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Orders</title>
<meta name="application-name" content="Benchshop">
<style>body{font:14px sans-serif} .hidden{display:none} td,th{padding:2px 6px}</style>
<script src="/extract.js"></script><script src="/bridge.js"></script><script src="/dispatch.js"></script></head><body>`;
  let out = head;
  out += `<header><h1>Benchshop</h1><nav aria-label="Main"><ul>`;
  for (const l of ["Dashboard", "Orders", "Customers", "Products", "Reports", "Settings"]) out += `<li><a href="/${l.toLowerCase()}">${l}</a></li>`;
  out += `</ul></nav><div class="account"><span>ops@benchshop.example</span> <button type="button">Sign out</button></div></header>`;
  out += `<aside><form id="filters" method="get" action="/orders" aria-label="Filters">
<label>Search <input name="q" type="search"></label>
<label>Status <select name="status"><option value="">Any</option><option>paid</option><option>shipped</option><option>refunded</option></select></label>
<label><input type="checkbox" name="mine"> Only mine</label>
<button type="submit">Apply filters</button></form></aside>`;
  out += `<main><section id="orders" aria-label="Orders"><h2>Orders</h2><p><span id="open-count">0</span> open</p><table id="order-table"><thead><tr><th>Order</th><th>Customer</th><th>Total</th><th>Status</th><th></th></tr></thead><tbody>`;
  // ~14 elements per row: tr, 5 td, a, 2 spans, div, 2 buttons, 2 icons.
  const perRow = 14;
  const used = (out.match(/<[a-z]/g) || []).length + 6;
  const rows = Math.max(1, Math.round((n - used) / perRow));
  const statuses = ["paid", "shipped", "refunded", "pending"];
  for (let i = 0; i < rows; i++) {
    const id = `o-${10000 + i}`;
    out += `<tr data-order-id="${id}"><td><a href="/orders/${id}">#${10000 + i}</a></td><td><span class="name">Customer ${i % 97}</span></td><td class="total">${(19.99 + (i % 50)).toFixed(2)}</td><td><span class="badge">${statuses[i % 4]}</span></td><td><div class="actions"><button type="button" class="refund"><i class="icon"></i>Refund</button><button type="button" class="archive"><i class="icon"></i>Archive</button></div></td></tr>`;
  }
  out += `</tbody></table></section></main><footer><a href="/help">Help</a></footer></body></html>`;
  return out;
}

async function main() {
  const browser = await chromium.launch({
    executablePath: browserPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  });
  const context = await browser.newContext();
  const files = {
    "/extract.js": ["text/javascript", fs.readFileSync(path.join(extDir, "extract.js"))],
    "/bridge.js": ["text/javascript", fs.readFileSync(path.join(extDir, "bridge.js"))],
    "/dispatch.js": ["text/javascript", fs.readFileSync(path.join(extDir, "dispatch.js"))],
    "/probe/nsp_probe.js": ["text/javascript", fs.readFileSync(path.join(extDir, "probe", "nsp_probe.js"))],
    "/probe/nsp_probe_bg.wasm": ["application/wasm", fs.readFileSync(path.join(extDir, "probe", "nsp_probe_bg.wasm"))],
  };
  const pages = {};
  const bare = {};
  const serve = (route) => {
    const url = new URL(route.request().url());
    const f = files[url.pathname];
    if (f) return route.fulfill({ status: 200, contentType: f[0], body: f[1] });
    const m = /^\/page-(\d+)\.html$/.exec(url.pathname);
    if (m) return route.fulfill({ status: 200, contentType: "text/html", body: pages[m[1]] || (pages[m[1]] = page(Number(m[1]))) });
    // The same page without our scripts: the memory baseline.
    const b = /^\/bare-(\d+)\.html$/.exec(url.pathname);
    if (b) return route.fulfill({ status: 200, contentType: "text/html", body: bare[b[1]] || (bare[b[1]] = page(Number(b[1])).replace(/<script [^>]*><\/script>/g, "")) });
    return route.fulfill({ status: 404, body: "" });
  };
  await context.route(`${ORIGIN}/**`, serve);
  // The JS heap in use after a full garbage collection (CDP: HeapProfiler.collectGarbage,
  // Runtime.getHeapUsage), in bytes.
  const heapUsed = async (t) => {
    const cdp = await context.newCDPSession(t);
    await cdp.send("HeapProfiler.enable");
    await cdp.send("HeapProfiler.collectGarbage");
    await cdp.send("HeapProfiler.collectGarbage");
    const h = await cdp.send("Runtime.getHeapUsage");
    await cdp.detach();
    return h.usedSize;
  };

  // Cold: a page load's first capture, each in a fresh browser context on an origin of
  // its own (so a new renderer process: V8 shares compiled wasm and its tier-ups between
  // the pages of one process, which no first visit to a site gets). Timed like the
  // content script runs it: load the probe (import the glue, fetch + compile +
  // instantiate the wasm, make the Probe), its warm-up, then one full capture.
  const coldRun = async (n, k, warmUp) => {
    const ctx = await browser.newContext();
    const origin = `http://cold-${warmUp ? "w" : "n"}-${n}-${k}.test`;
    await ctx.route(`${origin}/**`, (route) => serve(route));
    const t = await ctx.newPage();
    await t.goto(`${origin}/page-${n}.html`);
    const r = await t.evaluate(async (warmUp) => {
      const t0 = performance.now();
      const glue = await import("/probe/nsp_probe.js");
      const t1 = performance.now();
      await glue.default({ module_or_path: "/probe/nsp_probe_bg.wasm" });
      const probe = new glue.Probe(JSON.stringify({ tier: "wasm_in_page" }));
      const bridge = NspBridge.create({});
      const t2 = performance.now();
      // What the content script does next, while it waits for a quiet page.
      if (warmUp) glue.warm();
      const t3 = performance.now();
      const ex = new NspExtract.Extractor(document);
      const snap = bridge.snapshot(ex);
      const t4 = performance.now();
      const cap = JSON.parse(probe.analyze(JSON.stringify(snap)));
      const t5 = performance.now();
      if (!cap.actions) throw new Error("no capture");
      return { import: t1 - t0, init: t2 - t1, warm: t3 - t2, extract: t4 - t3, analyze: t5 - t4, total: t5 - t3 };
    }, warmUp);
    await ctx.close();
    return r;
  };
  // The anchor's cold run: Playwright's first ariaSnapshot() of a freshly loaded page,
  // in a fresh context of its own (Playwright injects its script into every new page).
  const coldAria = async (n, k) => {
    const ctx = await browser.newContext();
    const origin = `http://aria-${n}-${k}.test`;
    await ctx.route(`${origin}/**`, (route) => serve(route));
    const t = await ctx.newPage();
    await t.goto(`${origin}/bare-${n}.html`);
    const t0 = performance.now();
    await t.locator("body").ariaSnapshot({ timeout: 0 });
    const ms = performance.now() - t0;
    await ctx.close();
    return ms;
  };

  const results = [];
  for (const n of SIZES) {
    const colds = [];
    const coldArias = [];
    // Without the warm-up too, to show what it moves out of the first capture.
    const coldsBare = [];
    for (let k = 0; k < COLD_RUNS; k++) {
      colds.push(await coldRun(n, k, true));
      coldsBare.push(await coldRun(n, k, false));
      coldArias.push(await coldAria(n, k));
    }
    const tab = await context.newPage();
    await tab.goto(`${ORIGIN}/page-${n}.html`);
    // The probe, loaded the way the content script loads it.
    await tab.evaluate(async () => {
      const glue = await import("/probe/nsp_probe.js");
      globalThis.__wasm = await glue.default({ module_or_path: "/probe/nsp_probe_bg.wasm" });
      globalThis.__probe = new glue.Probe(JSON.stringify({ tier: "wasm_in_page" }));
      globalThis.__bridge = NspBridge.create({});
    });
    const elements = await tab.evaluate(() => document.getElementsByTagName("*").length);

    // One full capture: extraction (one DOM pass) + JSON + wasm analysis + JSON back.
    const capture = () => tab.evaluate(() => {
      const t0 = performance.now();
      const ex = new NspExtract.Extractor(document);
      const snap = globalThis.__bridge.snapshot(ex);
      const t1 = performance.now();
      const text = globalThis.__probe.analyze(JSON.stringify(snap));
      const cap = JSON.parse(text);
      const t2 = performance.now();
      globalThis.__ex = ex;
      const state = JSON.stringify({ confidence: cap.confidence, context: cap.context, objects: cap.objects, actions: cap.actions, probe_metadata: cap.probe_metadata });
      return { total: t2 - t0, extract: t1 - t0, analyze: t2 - t1, records: snap.elements.length, stateBytes: state.length, actions: Object.keys(cap.actions).length, objects: Object.keys(cap.objects).length, confidence: cap.confidence };
    });
    await capture();
    // V8 first runs wasm and JS from its baseline compilers and optimizes hot code in
    // the background; the extension captures a page again on every change, so the
    // steady state is what agents see. Warm up both contestants the same way.
    let warmed = 0;
    for (let w = 0; w < WARMUP || warmed < WARMUP_MS; w++) warmed += (await capture()).total;
    // Memory per tab, before Playwright's own script enters this page (ariaSnapshot
    // injects it): what our scripts, the extractor and the last capture keep in the JS
    // heap, against the same page without our scripts (below), plus the wasm
    // instance's linear memory (its high-water mark: it never shrinks).
    const heapOurs = await heapUsed(tab);
    const wasmMemory = await tab.evaluate(() => globalThis.__wasm.memory.buffer.byteLength);
    warmed = 0;
    for (let w = 0; w < 2 || warmed < WARMUP_MS; w++) {
      const t0 = performance.now();
      await tab.locator("body").ariaSnapshot({ timeout: 0 });
      warmed += performance.now() - t0;
    }
    const ours = [];
    const oursOuter = [];
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now();
      ours.push(await capture());
      oursOuter.push(performance.now() - t0);
    }
    const aria = [];
    let ariaText = "";
    for (let r = 0; r < Math.max(3, RUNS - 2); r++) {
      const t0 = performance.now();
      ariaText = await tab.locator("body").ariaSnapshot({ timeout: 0 });
      aria.push(performance.now() - t0);
    }
    // Incremental: one counter changes; the content script's path from the mutation to
    // the delta (patch of the changed subtree, wasm update, delta parsed).
    const incremental = [];
    for (let r = 0; r < RUNS; r++) {
      incremental.push(await tab.evaluate((k) => {
        const el = document.getElementById("open-count");
        el.textContent = String(k + 1);
        const t0 = performance.now();
        const patch = globalThis.__ex.patch([el.firstChild]);
        const text = globalThis.__probe.update(JSON.stringify(patch));
        const delta = text ? JSON.parse(text) : null;
        const t1 = performance.now();
        if (!delta || !delta.changed["orders.open_count"]) throw new Error("no delta for the counter: " + text);
        return t1 - t0;
      }, r));
    }
    // What a dispatched click adds for actionability: the dispatcher checks the control
    // (connected, perceivable, enabled, topmost at its click point) and its label right
    // before the pointer goes down and again right before click(), so two rounds per
    // click. Timed over many rounds on a row button in view; median of RUNS batches.
    const clickChecks = await tab.evaluate((runs) => {
      const el = document.querySelector("tbody tr button.archive");
      el.scrollIntoView({ block: "center" });
      const label = NspExtract.explainLabel(el);
      const batches = [];
      for (let r = 0; r < runs * 4; r++) {
        const t0 = performance.now();
        for (let n = 0; n < 50; n++) {
          for (let k = 0; k < 2; k++) {
            NspDispatch.actionable(el, false);
            if (NspExtract.explainLabel(el) !== label) throw new Error("the label moved");
          }
        }
        batches.push((performance.now() - t0) / 50);
      }
      return batches;
    }, RUNS);
    await tab.close();
    const bareTab = await context.newPage();
    await bareTab.goto(`${ORIGIN}/bare-${n}.html`);
    await bareTab.evaluate(() => document.getElementsByTagName("*").length);
    const heapBare = await heapUsed(bareTab);
    await bareTab.close();
    results.push({
      target_elements: n,
      elements,
      records: ours[0].records,
      cold_ms: median(colds.map((c) => c.total)),
      cold_extract_ms: median(colds.map((c) => c.extract)),
      cold_analyze_ms: median(colds.map((c) => c.analyze)),
      cold_load_ms: median(colds.map((c) => c.import + c.init)),
      cold_warm_ms: median(colds.map((c) => c.warm)),
      cold_unwarmed_ms: median(coldsBare.map((c) => c.total)),
      cold_aria_ms: median(coldArias),
      cold_runs: colds,
      heap_bytes: heapOurs - heapBare,
      wasm_memory_bytes: wasmMemory,
      capture_ms: median(ours.map((o) => o.total)),
      extract_ms: median(ours.map((o) => o.extract)),
      analyze_ms: median(ours.map((o) => o.analyze)),
      capture_outer_ms: median(oursOuter),
      aria_ms: median(aria),
      incremental_ms: median(incremental),
      click_checks_ms: median(clickChecks),
      state_bytes: ours[0].stateBytes,
      aria_bytes: Buffer.byteLength(ariaText, "utf8"),
      actions: ours[0].actions,
      objects: ours[0].objects,
      confidence: ours[0].confidence,
    });
  }
  // The cold first analysis of pages nobody here generated: each recorded real-app
  // snapshot, in fresh contexts, right after `warm()` as the content script runs it (the
  // extraction is the bench pages' above; this is the wasm's first call on a new shape).
  let realCold = null;
  if (realDir) {
    const names = fs.readdirSync(realDir).filter((f) => f.endsWith(".json")).sort();
    const pages = [];
    const warms = [];
    for (const name of names) {
      const text = fs.readFileSync(path.join(realDir, name), "utf8");
      const firsts = [];
      for (let k = 0; k < REAL_COLD_RUNS; k++) {
        const ctx = await browser.newContext();
        const origin = `http://real-${k}-${name.replace(/[^a-z0-9-]/g, "")}.test`;
        await ctx.route(`${origin}/**`, (route) => {
          const p = new URL(route.request().url()).pathname;
          if (files[p]) return route.fulfill({ status: 200, contentType: files[p][0], body: files[p][1] });
          return route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>blank</title>" });
        });
        const t = await ctx.newPage();
        await t.goto(`${origin}/blank.html`);
        const m = await t.evaluate(async (text) => {
          const glue = await import("/probe/nsp_probe.js");
          await glue.default({ module_or_path: "/probe/nsp_probe_bg.wasm" });
          const probe = new glue.Probe(JSON.stringify({ tier: "wasm_in_page" }));
          const t0 = performance.now();
          glue.warm();
          const t1 = performance.now();
          const out = probe.analyze(text);
          const t2 = performance.now();
          if (!out.includes("\"actions\"")) throw new Error("no capture");
          return { warm: t1 - t0, first: t2 - t1 };
        }, text);
        await ctx.close();
        firsts.push(m.first);
        warms.push(m.warm);
      }
      pages.push({ page: name.replace(/\.json$/, ""), first_ms: median(firsts) });
    }
    if (pages.length) {
      const slowest = pages.reduce((a, b) => (b.first_ms > a.first_ms ? b : a));
      realCold = {
        pages: pages.length,
        runs: REAL_COLD_RUNS,
        geomean_ms: Math.exp(pages.reduce((sum, p) => sum + Math.log(p.first_ms), 0) / pages.length),
        slowest_ms: slowest.first_ms,
        slowest: slowest.page,
        warm_ms: median(warms),
        per_page: pages,
      };
    }
  }
  await browser.close();
  process.stdout.write(JSON.stringify({ chromium: browser.version ? browser.version() : "", results, real_cold: realCold }) + "\n");
}

// The middle of a list of timings (the upper one of an even count).
function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

// node bench_probe.js nav <extension dir> <chromium> <sizes> <nspd base url> <agent key>
// A page load's time to its first state at nspd, cold: the extension loaded in headless
// Chromium and pointed at nspd the way `nspd --launch` does it; each load in a new tab
// on a host of its own (`*.localhost`, so a new renderer process: nothing compiled is
// shared), timed from the navigation's start (`performance.timeOrigin` in the page) to
// the moment nspd lists the tab with a state (polled every 2 ms from node; node's and the
// page's clocks are both the system's). Also the page's own load event, for the share
// that is the page's. Prints one JSON object.
async function nav(argv) {
  const [ext0, chromiumPath, sizesArg, base, key] = argv;
  process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK = "1";
  const os = require("os");
  const http = require("http");
  const sizes = sizesArg.split(",").map(Number);
  const server = http.createServer((req, res) => {
    const m = /^\/page-(\d+)\.html$/.exec(req.url || "");
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(page(Number(m[1])).replace(/<script [^>]*><\/script>/g, ""));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const port = /** @type {{ port: number }} */ (server.address()).port;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nsp-bench-nav-"));
  const ext = path.join(tmp, "extension");
  fs.cpSync(ext0, ext, { recursive: true });
  fs.writeFileSync(path.join(ext, "nsp-config.json"), JSON.stringify({ daemon_url: base.replace(/^http/, "ws") + "/substrate/v1/extension" }));
  const args = ["--headless=new", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", `--disable-extensions-except=${ext}`, `--load-extension=${ext}`];
  if (process.getuid && process.getuid() === 0) args.push("--no-sandbox");
  const context = await chromium.launchPersistentContext(path.join(tmp, "profile"), {
    executablePath: chromiumPath,
    headless: false, // --headless=new above: the headless mode that runs extensions
    args,
    ignoreDefaultArgs: ["--disable-extensions"],
  });
  const getJson = (route) =>
    new Promise((resolve, reject) => {
      const u = new URL(base + route);
      http
        .get({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers: { "x-substrate-key": key } }, (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
        })
        .on("error", reject);
    });
  const apps = async () => (await getJson("/substrate/v1/apps")).apps || [];
  const once = async (url) => {
    const tab = await context.newPage();
    const going = tab.goto(url);
    let seen = null;
    let app = null;
    const deadline = Date.now() + 30000;
    while (!seen) {
      if (Date.now() > deadline) throw new Error(`no state at nspd for ${url} within 30 s`);
      app = (await apps()).find((a) => a.current_url === url && a.has_state);
      if (app) seen = Date.now();
      else await new Promise((r) => setTimeout(r, 2));
    }
    // The first state's own account of its capture, as the content script took it
    // (after its quiet wait and warm-up): the extraction, then JSON + analysis + JSON.
    const meta = (await getJson(`/substrate/v1/state/${app.pid}`)).probe_metadata || {};
    await going;
    const t = await tab.evaluate(() => {
      const e = /** @type {PerformanceNavigationTiming} */ (performance.getEntriesByType("navigation")[0]);
      return { origin: performance.timeOrigin, load: e.loadEventEnd, dcl: e.domContentLoadedEventEnd };
    });
    await tab.close();
    return { state: seen - t.origin, load: t.load, dcl: t.dcl, extract: meta.capture_latency_ms, analyze: meta.labeling_latency_ms, tier: meta.probe_tier };
  };
  // The probe's share of the service worker, which analyses every tab's snapshots up to
  // content.js's WORKER_MAX_RECORDS: its wasm memory with one tab of `n` elements open,
  // then with TABS_OPEN, each kept as the worker keeps it (its last snapshot and capture,
  // for the next patch). Linear memory keeps its high-water mark, so the first tab's
  // figure holds one analysis's working memory and the growth past it is what each
  // further tab keeps. And the extension's warm full capture, as it takes it: fresh
  // captures (`?fresh=true`) of one open tab, after WARM_FRESH of them, timed by the
  // content script (its probe_metadata).
  const TABS_OPEN = 4;
  const WARM_FRESH = 10;
  /** @type {import("playwright-core").Worker | null} */
  let worker = null;
  const stats = async () => (worker ? worker.evaluate(() => globalThis.nspProbeStats && globalThis.nspProbeStats()) : null);
  const openTabs = async (n) => {
    const open = [];
    const memory = [];
    let warm = [];
    try {
      for (let k = 0; k < TABS_OPEN; k++) {
        const url = `http://open${n}-${k}.localhost:${port}/page-${n}.html`;
        const tab = await context.newPage();
        open.push(tab);
        await tab.goto(url);
        const deadline = Date.now() + 30000;
        let app = null;
        while (!(app = (await apps()).find((a) => a.current_url === url && a.has_state))) {
          if (Date.now() > deadline) throw new Error(`no state at nspd for ${url} within 30 s`);
          await new Promise((r) => setTimeout(r, 5));
        }
        const s = await stats();
        memory.push(s ? s.wasm_bytes : null);
        if (k === 0) {
          for (let i = 0; i < 2 * WARM_FRESH; i++) {
            const meta = (await getJson(`/substrate/v1/state/${app.pid}?fresh=true`)).probe_metadata || {};
            if (i >= WARM_FRESH) warm.push(meta);
          }
        }
      }
    } finally {
      for (const tab of open) await tab.close();
    }
    const one = memory[0];
    const all = memory[memory.length - 1];
    return {
      worker_wasm_one_tab: one,
      worker_wasm_per_tab: one === null || all === null ? null : (all - one) / (TABS_OPEN - 1),
      warm_capture_ms: median(warm.map((m) => m.total_latency_ms)),
      warm_extract_ms: median(warm.map((m) => m.capture_latency_ms)),
      warm_analyze_ms: median(warm.map((m) => m.labeling_latency_ms)),
      warm_tier: warm.length ? warm[0].probe_tier : null,
    };
  };
  const runs = Number(process.env.NSP_BENCH_NAV_RUNS || 5);
  const results = [];
  try {
    // One navigation first, so the service worker, its socket to nspd and the browser's
    // own start-up are not in the first page's time.
    await once(`http://warm.localhost:${port}/page-60.html`);
    worker = context.serviceWorkers().find((w) => w.url().startsWith("chrome-extension://")) || null;
    for (const n of sizes) {
      const loads = [];
      for (let k = 0; k < runs; k++) loads.push(await once(`http://n${n}-${k}.localhost:${port}/page-${n}.html`));
      results.push({
        target_elements: n,
        nav_state_ms: median(loads.map((l) => l.state)),
        nav_load_ms: median(loads.map((l) => l.load)),
        first_capture_ms: median(loads.map((l) => l.extract + l.analyze)),
        first_extract_ms: median(loads.map((l) => l.extract)),
        first_analyze_ms: median(loads.map((l) => l.analyze)),
        tier: loads[0].tier,
        ...(await openTabs(n)),
        runs: loads,
      });
    }
  } finally {
    await context.close();
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ results }) + "\n");
}

(process.argv[2] === "nav" ? nav(process.argv.slice(3)) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
