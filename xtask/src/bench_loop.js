// bench_loop.js — the browser and extension-channel side of the loop benchmarks, run
// with node by xtask/src/bench_loop.rs. Two modes:
//
//   node bench_loop.js read <extension dir> <chromium> <nspd base url> <agent key> <calls> [<MCP url>]
//     The read round trip: one headless Chromium (launched by playwright-core with the
//     extension loaded and pointed at nspd), one page. Times `read_text` through nspd
//     (agent -> nspd -> service worker -> content script and back), Playwright's
//     `page.textContent(selector)` on the same page, and a bare `GET /health` (the
//     floor), interleaved in rounds so load drifts hit all three alike. Prints one JSON
//     object.
//
//   node bench_loop.js tabs <nspd base url> <agent key> <browsers> <tabs per browser> <delta ms>
//     Simulated tabs on the extension channel (with the extension's Origin): each
//     "browser" is one WebSocket, each tab announces a full capture and then streams a
//     `tab_delta` every <delta ms>. Prints "ready" once nspd lists every tab with a
//     state; when stdin closes, prints one JSON line of counts and exits.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const http = require("http");

const EXTENSION_ID = "cbgfhlkmcpoikadbmijahdfhmdjnmmol";

function need(name) {
  return require(path.join(process.cwd(), "node_modules", name));
}

// One keep-alive connection, one request at a time: the way an agent's client talks.
function client(base, key) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (method, p, body) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
      const headers = { "x-substrate-key": key };
      if (data) {
        headers["content-type"] = "application/json";
        headers["content-length"] = data.length;
      }
      const req = http.request({ host: url.hostname, port: url.port, method, path: p, agent, headers }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      });
      req.on("error", reject);
      if (data) req.write(data);
      req.end();
    });
}

// The same, speaking MCP over Streamable HTTP: one session (initialize, then
// notifications/initialized), then one JSON-RPC request per POST; the answer comes as an
// SSE stream that ends with it. Raw HTTP like the API client: no SDK between the timer
// and nspd.
function mcpClient(mcpUrl, key) {
  const url = new URL(mcpUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let session = null;
  let version = null;
  let nextId = 1;
  const post = (msg) =>
    new Promise((resolve, reject) => {
      const data = Buffer.from(JSON.stringify(msg));
      /** @type {Record<string, string | number>} */
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": data.length };
      if (session) headers["mcp-session-id"] = session;
      if (version) headers["mcp-protocol-version"] = version;
      const req = http.request({ host: url.hostname, port: url.port, method: "POST", path: url.pathname, agent, headers }, (res) => {
        const sid = res.headers["mcp-session-id"];
        if (typeof sid === "string") session = sid;
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let found = null;
          if (String(res.headers["content-type"] || "").startsWith("text/event-stream")) {
            for (const line of text.split("\n")) {
              const d = line.startsWith("data:") ? line.slice(5).trim() : "";
              if (!d) continue;
              const m = JSON.parse(d);
              if (m.id === msg.id) found = m;
            }
          } else if (text) {
            found = JSON.parse(text);
          }
          resolve({ status: res.statusCode, message: found, text });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.write(data);
      req.end();
    });
  return {
    async init() {
      const r = await post({ jsonrpc: "2.0", id: nextId++, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "nsp-bench", version: "1" } } });
      if (r.status !== 200 || !r.message || !r.message.result) throw new Error(`MCP initialize: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
      version = r.message.result.protocolVersion;
      await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    },
    async call(name, args) {
      const r = await post({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } });
      if (r.status !== 200 || !r.message || !r.message.result) throw new Error(`MCP ${name}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
      return r.message.result;
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, ms, probe) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

function stats(samples) {
  const s = samples.slice().sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { n: s.length, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: s[s.length - 1], mean_ms: s.reduce((a, b) => a + b, 0) / s.length };
}

// A small app page: a heading, a counter, a table of 40 orders with a link and buttons.
function page() {
  let rows = "";
  for (let i = 0; i < 40; i++) {
    rows += `<tr><td><a href="/orders/${i}">#${1000 + i}</a></td><td>Customer ${i}</td><td>${(19.99 + i).toFixed(2)}</td><td><button type="button">Archive</button></td></tr>`;
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Orders</title></head><body>
<h1>Orders</h1><p><span id="open-count">42 open orders</span></p>
<form action="/search" method="get"><label>Search <input name="q" type="search"></label><button type="submit">Search</button></form>
<table id="orders"><thead><tr><th>Order</th><th>Customer</th><th>Total</th><th></th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
}

async function readMode([extDir, browserPath, base, key, callsArg, mcpUrl]) {
  // Playwright attaches to every target of the browser it launched, our extension's
  // service worker included, and by default enables the Network domain there: each
  // WebSocket frame between the worker and nspd then also goes to node as a CDP event,
  // two per read, handled by the very process that times the read. A person's Chrome has
  // no such client attached. This Playwright setting turns only that off; the anchor's
  // own path (the page's session) is unchanged.
  process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK = "1";
  const { chromium } = need("playwright-core");
  const calls = Number(callsArg || 1000);
  const warmup = Number(process.env.NSP_BENCH_READ_WARMUP || 1000);
  const html = page();
  const server = http.createServer((req, res) => {
    if (req.url === "/orders.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const pageUrl = `http://127.0.0.1:${server.address().port}/orders.html`;

  // The extension, pointed at this nspd the way `nspd --launch` does it.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nsp-bench-loop-"));
  const ext = path.join(tmp, "extension");
  fs.cpSync(extDir, ext, { recursive: true });
  const ws = base.replace(/^http/, "ws") + "/substrate/v1/extension";
  fs.writeFileSync(path.join(ext, "nsp-config.json"), JSON.stringify({ daemon_url: ws }));
  const args = ["--headless=new", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", `--disable-extensions-except=${ext}`, `--load-extension=${ext}`];
  if (process.getuid && process.getuid() === 0) args.push("--no-sandbox");
  const context = await chromium.launchPersistentContext(path.join(tmp, "profile"), {
    executablePath: browserPath,
    headless: false, // --headless=new above: the headless mode that runs extensions
    args,
    ignoreDefaultArgs: ["--disable-extensions"],
  });
  let result;
  try {
    const tab = context.pages()[0] || (await context.newPage());
    await tab.goto(pageUrl);
    const api = client(base, key);
    const pid = await until("the tab's state in nspd", 30000, async () => {
      const r = await api("GET", "/substrate/v1/apps");
      const apps = JSON.parse(r.body).apps || [];
      const app = apps.find((a) => a.current_url === pageUrl && a.has_state);
      return app ? app.pid : null;
    });
    const selector = "#open-count";
    const ours = async () => {
      const r = await api("POST", "/substrate/v1/action", { pid, action: "read_text", parameters: { selector } });
      if (r.status !== 200) throw new Error(`read_text: HTTP ${r.status}: ${r.body.slice(0, 500)}`);
      return JSON.parse(r.body).raw_return;
    };
    const theirs = () => tab.textContent(selector);
    const floor = async () => {
      const r = await api("GET", "/health");
      if (r.status !== 200) throw new Error(`/health: HTTP ${r.status}`);
    };
    const a = await ours();
    const b = await theirs();
    if (a !== "42 open orders" || b.trim() !== "42 open orders") throw new Error(`the reads disagree: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    // nspd's own share of a read: the same request refused by the gate (no selector),
    // which authenticates, gates and audits but sends nothing to the browser.
    const refused = async () => {
      const r = await api("POST", "/substrate/v1/action", { pid, action: "read_text", parameters: {} });
      if (r.status < 400 || r.status >= 500) throw new Error(`refused read_text: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    };
    // MCP frames an answer that carries page text as untrusted page content: a note, then
    // the JSON between <page-content-TAG> lines (daemon/src/door/mcp/mod.rs, page_json).
    /** @param {string} text */
    const framed = (text) => {
      const m = /\n<page-content-([0-9a-f]{16})>\n([\s\S]*)\n<\/page-content-\1>$/.exec(text);
      if (!m) throw new Error(`MCP answer not framed as page content: ${text.slice(0, 200)}`);
      return m[2];
    };
    /** @type {Record<string, () => Promise<unknown>>} */
    const kinds = { read_text: ours, playwright: theirs, health: floor, refused };
    /** @type {Record<string, number[]>} */
    const samples = { read_text: [], playwright: [], health: [], refused: [] };
    if (mcpUrl) {
      // The same read_text through nspd's MCP door (tools/call execute).
      const mcp = mcpClient(mcpUrl, key);
      await mcp.init();
      kinds.mcp = async () => {
        const r = await mcp.call("execute", { tab: pid, action: "read_text", parameters: { selector } });
        if (r.isError) throw new Error(`MCP read_text: ${JSON.stringify(r.content).slice(0, 500)}`);
        return JSON.parse(framed(r.content[0].text)).raw_return;
      };
      samples.mcp = [];
      const c = await kinds.mcp();
      if (c !== "42 open orders") throw new Error(`MCP read_text read ${JSON.stringify(c)}`);
    }
    const names = Object.keys(kinds);
    // Warm-up (connections, the worker's storage, and JIT: V8 compiles the worker's and
    // the content script's handlers to its optimizing tiers on background threads over
    // the first few hundred reads, which on two cores shows in the tail), then rounds in
    // rotating order. Every kind gets the same warm-up.
    for (const n of names) for (let i = 0; i < warmup; i++) await kinds[n]();
    const ROUND = 100;
    for (let round = 0; round * ROUND < calls; round++) {
      for (let k = 0; k < names.length; k++) {
        const n = names[(round + k) % names.length];
        for (let i = 0; i < ROUND && round * ROUND + i < calls; i++) {
          const t0 = process.hrtime.bigint();
          await kinds[n]();
          samples[n].push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
      }
    }
    result = {
      chromium: context.browser() ? context.browser().version() : "",
      playwright: need("playwright-core/package.json").version,
      calls,
      warmup,
      read_text: stats(samples.read_text),
      playwright_text_content: stats(samples.playwright),
      health: stats(samples.health),
      refused: stats(samples.refused),
      mcp: samples.mcp ? stats(samples.mcp) : null,
    };
  } finally {
    await context.close();
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(result) + "\n");
}

// The capture of simulated tab `t`: about 7.5 KB of state, like a small app page.
function capture(t) {
  const objects = { "orders.open_count": 42, "orders.total": 120, "account.email": `ops${t}@bench.example` };
  for (let i = 0; i < 50; i++) {
    objects[`orders.items[${i}].id`] = `o-${10000 + i}`;
    objects[`orders.items[${i}].status`] = ["paid", "shipped", "refunded"][i % 3];
    objects[`orders.items[${i}].total`] = 19.99 + i;
  }
  const action = (name, tier, target) => ({
    signature: "fn() -> bool", reversibility: tier, description: name, confidence: 0.97, internal_target: target, parameters: [],
  });
  return {
    app_name: "Benchshop",
    confidence: 0.97,
    context: { url: `http://127.0.0.1:9/tab/${t}`, location: "127.0.0.1:9", view: "/orders", window_title: "Orders", window_id: null },
    objects,
    actions: {
      refresh: action("Refresh", "read", "dom:#refresh"),
      archive_order: action("Archive", "reversible_write", "dom:#archive"),
      refund_order: action("Refund", "irreversible_write", "dom:#refund"),
      next_page: action("Next page", "read", "dom:#next"),
    },
    probe_metadata: { capture_latency_ms: 1.0, labeling_latency_ms: 1.0, total_latency_ms: 2.0, raw_object_count: 153, filtered_object_count: 153, cache_hit: false, probe_tier: "wasm_in_page", settled: true },
  };
}

async function tabsMode([base, key, browsersArg, perArg, deltaMsArg]) {
  const WebSocket = need("ws");
  const browsers = Number(browsersArg), per = Number(perArg), deltaMs = Number(deltaMsArg);
  const counts = { deltas_sent: 0, ws_errors: 0, unexpected_closes: 0 };
  let stopping = false;
  const url = base.replace(/^http/, "ws") + "/substrate/v1/extension";
  const sockets = [];
  for (let b = 0; b < browsers; b++) {
    const sock = new WebSocket(url, { origin: `chrome-extension://${EXTENSION_ID}` });
    await new Promise((resolve, reject) => {
      sock.once("open", resolve);
      sock.once("error", reject);
    });
    sock.on("error", () => counts.ws_errors++);
    sock.on("close", () => {
      if (!stopping) counts.unexpected_closes++;
    });
    sock.send(JSON.stringify({ type: "hello", channel_version: 2, extension_version: "bench", user_agent: "bench", browser: "Chromium bench", instance_id: `bench-${b}` }));
    for (let i = 0; i < per; i++) {
      const tabId = b * per + i + 1;
      sock.send(JSON.stringify({ type: "tab_state", tab_id: tabId, window_id: 1, status: "active", url: `http://127.0.0.1:9/tab/${tabId}`, title: "Orders", message: null, capture: capture(tabId), request_id: null }));
    }
    sockets.push(sock);
  }
  const api = client(base, key);
  await until("every simulated tab's state in nspd", 30000, async () => {
    const r = await api("GET", "/substrate/v1/apps");
    const apps = JSON.parse(r.body).apps || [];
    return apps.filter((a) => a.has_state).length >= browsers * per;
  });
  const sample = await api("GET", "/substrate/v1/state/1");
  process.stdout.write(`ready ${JSON.stringify({ state_bytes: Buffer.byteLength(sample.body) })}\n`);

  // Each tab: one changed counter and one changed row per delta, staggered.
  const timers = [];
  let n = 0;
  sockets.forEach((sock, b) => {
    for (let i = 0; i < per; i++) {
      const tabId = b * per + i + 1;
      let seq = 0;
      const start = setTimeout(() => {
        timers.push(setInterval(() => {
          seq++;
          const row = seq % 50;
          const changed = { "orders.open_count": 42 + (seq % 7) };
          changed[`orders.items[${row}].status`] = ["paid", "shipped", "refunded", "pending"][seq % 4];
          sock.send(JSON.stringify({ type: "tab_delta", tab_id: tabId, changed, removed: [] }));
          counts.deltas_sent++;
        }, deltaMs));
      }, (n++ * deltaMs) / (browsers * per));
      timers.push(start);
    }
    timers.push(setInterval(() => sock.send(JSON.stringify({ type: "keepalive" })), 10000));
  });
  process.stdin.resume();
  process.stdin.on("end", () => {
    stopping = true;
    for (const t of timers) clearInterval(t);
    for (const s of sockets) s.close();
    process.stdout.write(JSON.stringify(counts) + "\n");
    process.exit(0);
  });
}

const [mode, ...rest] = process.argv.slice(2);
(mode === "read" ? readMode(rest) : tabsMode(rest)).catch((err) => {
  process.stderr.write(String((err && err.stack) || err) + "\n");
  process.exit(1);
});
