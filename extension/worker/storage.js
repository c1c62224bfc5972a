// worker/storage.js — chrome.storage behind one small surface: the worker's modules read
// and write their state through it, never through chrome.storage themselves.
// chrome.storage.session survives worker restarts and dies with the browser session;
// chrome.storage.local holds what a person set (daemon_url).

export const storage = {
  /** @param {string} key @returns {Promise<any>} what was stored, or undefined */
  async sessionGet(key) {
    const got = await chrome.storage.session.get(key);
    return got[key];
  },
  /** @param {string} key @param {any} value */
  sessionSet(key, value) {
    return chrome.storage.session.set({ [key]: value });
  },
  /** @param {string} key @returns {Promise<any>} what was stored, or undefined */
  async localGet(key) {
    const got = await chrome.storage.local.get(key);
    return got[key];
  },
};
