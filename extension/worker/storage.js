// worker/storage.js — chrome.storage behind one small surface: the worker's modules read
// and write their state through it, never through chrome.storage themselves.
// chrome.storage.session survives worker restarts and dies with the browser session;
// chrome.storage.local holds what a person set (daemon_url).

/**
 * What the worker keeps under each key: session storage but for daemon_url (local).
 * @typedef {{ approvals: ApprovalQuestion[], corrections: StoredCorrection[], executed: string[],
 *   recent: RecentAction[], instance_id: string, refused_senders: number, daemon_url: string,
 *   agent_tabs: AgentTab[] }} Stored
 */

export const storage = {
  /**
   * @template {keyof Stored} K
   * @param {K} key
   * @returns {Promise<Stored[K] | undefined>} what was stored, or undefined
   */
  async sessionGet(key) {
    const got = await chrome.storage.session.get(key);
    return /** @type {Stored[K] | undefined} */ (got[key]); // what this worker stored there
  },
  /**
   * @template {keyof Stored} K
   * @param {K} key
   * @param {Stored[K]} value
   */
  sessionSet(key, value) {
    return chrome.storage.session.set({ [key]: value });
  },
  /**
   * @template {keyof Stored} K
   * @param {K} key
   * @returns {Promise<Stored[K] | undefined>} what was stored, or undefined
   */
  async localGet(key) {
    const got = await chrome.storage.local.get(key);
    return /** @type {Stored[K] | undefined} */ (got[key]); // what this worker stored there
  },
};
