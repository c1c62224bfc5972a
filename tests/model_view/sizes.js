// Why this file exists: Playwright's ariaSnapshot() (what Playwright MCP hands a model)
// of the very page nspd reads, in the same browser, beside nspd's state of it as JSON and
// as the compact model view. Run by tests/tests/model_view.rs:
//
//     node sizes.js PLAYWRIGHT_CORE_DIR DEVTOOLS_WS NSPD_BASE KEY PAGES_JSON OUT_DIR
//
// PAGES_JSON: [{name, url, ready?, actions: [names the page must offer first]}]. For
// each page: a new tab, the ready selector, then nspd's state of that tab once it offers
// the named actions and has settled; the three texts are written to OUT_DIR and their
// byte counts printed as one JSON line.
"use strict";

const fs = require("fs");
const path = require("path");

const [pwDir, devtools, base, key, pagesJson, outDir] = process.argv.slice(2);
const { chromium } = require(pwDir);
const SETTLE_MS = 20000;

async function nspd(route) {
  const r = await fetch(base + route, { headers: { "x-substrate-key": key } });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${route}: ${r.status} ${body.slice(0, 200)}`);
  return body;
}

async function settledState(url, wanted) {
  const deadline = Date.now() + SETTLE_MS;
  let last = null;
  for (;;) {
    const apps = JSON.parse(await nspd("/substrate/v1/apps")).apps || [];
    const app = apps.find((a) => a.current_url === url && a.has_state);
    if (app) {
      const json = await nspd(`/substrate/v1/state/${app.pid}`);
      const s = JSON.parse(json);
      const all = wanted.every((a) => a in s.actions);
      if ((all && s.probe_metadata.settled) || Date.now() > deadline) {
        return { pid: app.pid, capture: s.capture_id, all };
      }
      last = s.capture_id;
    }
    if (Date.now() > deadline && !app) throw new Error(`nspd never read ${url} (${last})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

(async () => {
  const pages = JSON.parse(fs.readFileSync(pagesJson, "utf8"));
  const browser = await chromium.connectOverCDP(devtools);
  const context = browser.contexts()[0];
  const out = [];
  for (const p of pages) {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(p.url);
    if (p.ready) await page.waitForSelector(p.ready, { timeout: SETTLE_MS });
    const { pid, all } = await settledState(page.url(), p.actions || []);
    // The JSON and the model view of one capture: nspd's current one, read back to back.
    const json = await nspd(`/substrate/v1/state/${pid}`);
    const model = await nspd(`/substrate/v1/state/${pid}?view=model`);
    const aria = await page.locator("body").ariaSnapshot();
    // What Playwright MCP sends with every snapshot besides it: the page's URL and title
    // lines (our view carries both in its header).
    const pageLines = `- Page URL: ${page.url()}\n- Page Title: ${await page.title()}\n`;
    for (const [ext, text] of [["json", json], ["model.txt", model], ["aria.yml", aria]]) {
      fs.writeFileSync(path.join(outDir, `${p.name}.${ext}`), text);
    }
    out.push({
      name: p.name,
      json_bytes: Buffer.byteLength(json),
      model_bytes: Buffer.byteLength(model),
      aria_bytes: Buffer.byteLength(aria),
      page_lines_bytes: Buffer.byteLength(pageLines),
      offered_all: all,
    });
    await page.close();
  }
  console.log(JSON.stringify({ chromium: browser.version(), pages: out }));
  // Leaves the browser to the test (connectOverCDP's close only disconnects).
  await browser.close();
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
