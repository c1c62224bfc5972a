// worker/from-daemon.js — what nspd sends, routed: a dispatch goes to its tab's content
// script once (at most once, see once.js) or is refused here; captures and resolves go to
// the tab; settings, corrections, questions, tab operations and agents to their modules.

import { tabs } from "./tabs.js";
import { direct } from "./direct.js";
import { sendToDaemon } from "./socket.js";
import { isPureRead, claimInOrder } from "./once.js";
import { applyProbeSettings } from "./probe.js";
import { applyCorrections } from "./corrections.js";
import { onApproval, onApprovalClosed } from "./approvals.js";
import { tabOperation } from "./tab-ops.js";
import { applyAgents } from "./agents.js";
import { remember, pushStatus } from "./popup.js";

/** @param {DaemonMessage} msg */
export async function onDaemonMessage(msg) {
  switch (msg.type) {
    case "welcome":
      applyProbeSettings(msg.probe || null);
      break;
    case "keepalive_ack":
      break;
    case "corrections":
      applyCorrections(msg.corrections);
      break;
    case "dispatch": {
      /** @param {string} code @param {string} message */
      const fail = (code, message) => {
        // Refused here, before the page saw it: the popup lists it too.
        remember({ action_id: msg.action_id, tab_id: msg.tab_id, action: msg.action, at: Date.now(), status: "refused", message: `${code}: ${message}` });
        pushStatus();
        sendToDaemon({
          type: "action_result", action_id: msg.action_id, tab_id: msg.tab_id,
          outcome: { status: "failed", code, message },
        });
      };
      const unclaimed = isPureRead(msg);
      if (!unclaimed && !(await claimInOrder(msg.action_id))) {
        fail("duplicate", "This action id was already executed; it was not run again.");
        return;
      }
      const port = tabs.ports.get(msg.tab_id);
      if (!port) {
        fail("no_probe", "The tab has no live probe (it may be loading or closed).");
        return;
      }
      // A pure read changes nothing, so it is not one of the popup's recent actions:
      // keeping it there would rewrite chrome.storage.session twice per read, most of
      // a read's round trip.
      if (!unclaimed) {
        remember({ action_id: msg.action_id, tab_id: msg.tab_id, action: msg.action, at: Date.now(), status: "running" });
        pushStatus();
      }
      // A pure read goes over the tab's direct port when it has one, and its answer
      // comes back the same way. Everything else keeps the runtime port, the one ordered
      // channel its captures and deltas travel on (verification reads the capture that
      // follows a write's result).
      const fast = unclaimed ? direct.ports.get(msg.tab_id) : undefined;
      // `expect`: what nspd's gate saw (labels, the named row, a builtin's element); the
      // dispatcher compares the live page with it right before each event.
      (fast || port).postMessage({ type: "dispatch", action_id: msg.action_id, action: msg.action, parameters: msg.parameters || {}, internal_target: msg.internal_target || null, accept_confirm: msg.accept_confirm === true, expect: msg.expect || null, unclaimed });
      break;
    }
    case "capture": {
      const port = tabs.ports.get(msg.tab_id);
      if (port) port.postMessage({ type: "capture", request_id: msg.request_id });
      break;
    }
    case "resolve": {
      // Answered by the tab's content script (a `resolved`), or here when it has none.
      const port = tabs.ports.get(msg.tab_id);
      if (port) {
        port.postMessage({ type: "resolve", request_id: msg.request_id, selector: String(msg.selector || "") });
      } else {
        sendToDaemon({ type: "resolved", request_id: msg.request_id, tab_id: msg.tab_id, resolution: { count: 0, error: "The tab has no live probe (it may be loading or closed)." } });
      }
      break;
    }
    case "approval":
      await onApproval(msg);
      break;
    case "approval_closed":
      await onApprovalClosed(msg.approval_id, msg.reason);
      break;
    case "open_tab":
    case "close_tab":
      tabOperation(msg);
      break;
    case "agents":
      applyAgents(msg.agents);
      break;
    default:
      break;
  }
}
