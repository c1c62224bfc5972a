// worker/join.js — the web pages that were open before this extension started: tabs
// restored or opened as Chromium started (it loads them without waiting for its
// extensions), and every tab open when the extension is installed, updated or reloaded
// (an update leaves the old content scripts behind with nothing to talk to). Chromium
// runs the manifest's content scripts only in documents loaded after the extension, so
// those tabs would stay invisible to nspd until reloaded. They are joined here, with the
// manifest's own scripts in its order.
//
// A page joined late ran its scripts before page-world.js: tools it registered through
// WebMCP then, and listeners it added, were not seen (unless the page-world.js of the
// extension before an update is still there, which pairs with the new isolated world
// and sends them again), and the page could have replaced the built-ins page-world.js
// relies on. What comes from page-world.js is page data either way (see
// page-channel.js); docs/threat-model.md says what joining late weakens.

const RUN_AT = ["document_start", "document_end", "document_idle"];

// The manifest's content scripts as {files, world}, in the order a join runs them: by
// run_at as the manifest says, and at each, the isolated world's first. page-world.js
// (MAIN, document_start) then finds page-channel.js listening and offers to it as it
// starts; an old page-world.js an update left behind hears page-channel.js's hello
// instead (each script runs once per world: see their guards).
function joinOrder() {
  /** @type {{ js?: string[], world?: string, run_at?: string }[]} */
  const entries = chrome.runtime.getManifest().content_scripts || [];
  const at = (/** @type {{ world?: string, run_at?: string }} */ e) => RUN_AT.indexOf(e.run_at || "document_idle") * 2 + (e.world === "MAIN" ? 1 : 0);
  return entries
    .filter((e) => e.js && e.js.length)
    .sort((a, b) => at(a) - at(b))
    .map((e) => ({ files: /** @type {string[]} */ (e.js), world: /** @type {chrome.scripting.ExecutionWorld} */ (e.world === "MAIN" ? "MAIN" : "ISOLATED") }));
}

/** @param {number} tabId */
async function joinTab(tabId) {
  const target = { tabId, frameIds: [0] };
  // Scripts of ours already running in this document's isolated world (the manifest's,
  // or a join that came first): nothing to do. After an update this world is new.
  const [found] = await chrome.scripting.executeScript({ target, func: () => Boolean(/** @type {{ __nspContentLoaded?: boolean }} */ (globalThis).__nspContentLoaded) });
  if (found && found.result) return;
  for (const { files, world } of joinOrder()) {
    await chrome.scripting.executeScript({ target, files, world });
  }
}

// Joins every http(s) tab our scripts are not running in. A tab that cannot be joined
// (an error page, a page the browser keeps from extensions, one closed meanwhile) is
// left as it is.
export async function joinOpenTabs() {
  let open;
  try {
    open = await chrome.tabs.query({ url: ["http://*/*", "https://*/*"] });
  } catch (_) {
    return;
  }
  await Promise.all(
    open.map((tab) =>
      typeof tab.id === "number" && !tab.discarded
        ? joinTab(tab.id).catch((/** @type {unknown} */ err) => console.warn(`nsp: cannot join tab ${tab.id}`, err))
        : undefined,
    ),
  );
}
