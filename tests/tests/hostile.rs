//! The hostile-page suite: pages written to fool the extension (by someone who has read
//! its source: `fixtures/hostile/`), the real nspd, headless Chromium with the built
//! extension, and a recording backend as the ground truth. One test per attack class of
//! `docs/threat-model.md` ("Pages that lie"); each runs its cases one after another in
//! one browser, every case on a fresh tab and a fresh server, and reports every case
//! that failed rather than only the first. (The secrets class has nspd launch its own
//! browser instead, so that nspd's log can be searched.)
//!
//! Every case asserts from the backend's log of writes that nothing the agent did not
//! ask for happened, and, second, that nspd refused with a code that says why. Each
//! class also has a positive control on the same page (a visible delete, a true read, a
//! real expression), so a refusal is the defence at work and not a page nobody
//! understood.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use nsp_tests::hostile::{Suite, Tab};
use serde_json::{json, Value};

const STATE_TIMEOUT: Duration = Duration::from_secs(20);

/// Refusals by the gate: nothing was sent to the page.
const GATE: &[&str] = &[
    "action_not_available",
    "confidence_too_low",
    "dangerous_action_unverified",
    "invalid_parameters",
    "irreversible_not_confirmed",
    "missing_verify_expression",
    "stale_state",
    "verify_expression_vacuous",
];

/// Refusals by the page's dispatcher (`action_failed` with one of these `failure`s):
/// sent, but the dispatcher fired nothing at the element.
const DISPATCHER: &[&str] = &["target_hidden", "target_changed", "target_not_found"];

/// Whether `body` (with `status`) is a refusal, by the gate (a code of `GATE`) or by
/// the dispatcher (a failure of `DISPATCHER`), and never an action that ran: the code
/// (`action_failed:<failure>` for the dispatcher's), or what was wrong.
fn refusal(what: &str, status: u16, body: &Value) -> Result<String, String> {
    if status == 200 || body["executed"] == true {
        return Err(format!("{what} ran: {status} {body}"));
    }
    let code = body["code"].as_str().unwrap_or_default();
    if code == "action_failed" {
        let failure = body["failure"].as_str().unwrap_or_default();
        if DISPATCHER.contains(&failure) {
            return Ok(format!("action_failed:{failure}"));
        }
        return Err(format!(
            "{what}: the page failed in a way that does not say it refused ({failure}): {body}"
        ));
    }
    if GATE.contains(&code) {
        Ok(code.to_owned())
    } else {
        Err(format!("{what}: not a refusal ({status} {code}): {body}"))
    }
}

/// [`refusal`], asserted.
fn refused(what: &str, status: u16, body: &Value) -> String {
    refusal(what, status, body).unwrap_or_else(|problem| panic!("{problem}"))
}

/// Collects the problems of a case's steps, so that one failing step does not hide the
/// others; [`Problems::check`] fails with all of them.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn refusal(&mut self, what: &str, status: u16, body: &Value) {
        match refusal(what, status, body) {
            Ok(code) => eprintln!("  {what}: refused, {code}"),
            Err(problem) => {
                eprintln!("  {what}: NOT REFUSED");
                self.0.push(problem);
            }
        }
    }

    fn expect(&mut self, ok: bool, problem: impl FnOnce() -> String) {
        if !ok {
            self.0.push(problem());
        }
    }

    fn check(self) {
        assert!(self.0.is_empty(), "{}", self.0.join("\n"));
    }
}

/// The message of a case that panicked.
fn panic_text(error: tokio::task::JoinError) -> String {
    match error.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "a panic without a message".to_owned()),
        Err(error) => error.to_string(),
    }
}

/// Runs the cases of one class one after another on one suite; fails at the end with
/// every case that failed.
struct Cases {
    suite: Arc<Suite>,
    failed: Vec<String>,
    ran: usize,
}

impl Cases {
    async fn start() -> Cases {
        Cases {
            suite: Arc::new(Suite::start().await.expect("nspd and the browser")),
            failed: Vec::new(),
            ran: 0,
        }
    }

    async fn case<F, Fut>(&mut self, name: &str, body: F)
    where
        F: FnOnce(Arc<Suite>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.ran += 1;
        let started = std::time::Instant::now();
        let outcome = tokio::spawn(body(self.suite.clone())).await;
        let took = started.elapsed().as_secs_f64();
        match outcome {
            Ok(()) => eprintln!("hostile case {name}: ok ({took:.1} s)"),
            Err(error) => {
                let text = panic_text(error);
                eprintln!("hostile case {name}: FAILED ({took:.1} s)");
                self.failed.push(format!("{name}: {text}"));
            }
        }
    }

    fn finish(self) {
        assert!(
            self.failed.is_empty(),
            "{} of {} cases failed:\n\n{}",
            self.failed.len(),
            self.ran,
            self.failed.join("\n\n")
        );
    }
}

/// Opens `path` and waits until its state offers `action` (the page is understood).
async fn open_with(suite: &Suite, path: &str, action: &str) -> (Tab, Value) {
    let tab = suite.open(path).await.expect("open the page");
    let state = suite
        .nspd
        .wait_state(tab.pid, action, STATE_TIMEOUT, |s| {
            s["actions"][action].is_object()
        })
        .await;
    (tab, state)
}

/// Each write the backend recorded as (verb, target), in order.
fn verbs(writes: &[nsp_fixtures::Write]) -> Vec<(&str, &str)> {
    writes
        .iter()
        .map(|w| (w.verb.as_str(), w.target.as_str()))
        .collect()
}

/// The names of the state's actions whose target names the element `selector` (an
/// `#id`): the selector itself, or the selector followed by anything that is not part
/// of a longer id (`#h-clipped` is not `#h-clipped-below`).
fn actions_mentioning(state: &Value, selector: &str) -> Vec<String> {
    let names = |target: &str| {
        target.match_indices(selector).any(|(at, _)| {
            target[at + selector.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'))
        })
    };
    state["actions"]
        .as_object()
        .map(|actions| {
            actions
                .iter()
                .filter(|(_, a)| a["internal_target"].as_str().is_some_and(names))
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

// --- 1. hidden controls ---------------------------------------------------------------

/// The hidden "Delete account" buttons of hidden.html, by `data-case`.
const HIDDEN: &[&str] = &[
    "visibility",
    "opacity",
    "zero",
    "scale",
    "offscreen",
    "clipped",
    "details",
    "aria",
    "inert",
    "covered",
    "none",
    "dialog",
    "faint",
    "faint-stack",
    "filter",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_controls_are_not_offered_and_a_click_on_them_is_refused() {
    let mut cases = Cases::start().await;
    cases
        .case(
            "hidden controls, then the honest ones",
            |suite| async move {
                let (tab, state) = open_with(&suite, "/hostile/hidden.html", "delete_draft").await;
                assert!(
                    state["actions"]["archive_file"].is_object(),
                    "{:#}",
                    state["actions"]
                );
                let mut problems = Problems::default();
                for case in HIDDEN {
                    let action = format!("delete_account_{}", case.replace('-', "_"));
                    problems.expect(state["actions"][&action].is_null(), || {
                        format!(
                            "{action} is offered although nobody can see it: {}",
                            state["actions"][&action]
                        )
                    });
                    let bound = actions_mentioning(&state, &format!("#h-{case}"));
                    problems.expect(bound.is_empty(), || {
                        format!("#h-{case} is offered as {bound:?}")
                    });
                    // A click by selector with a real expression (log.deleted is 0 now).
                    let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "click", "parameters": {"selector": format!("#h-{case}")},
                               "verify_expression": "log.deleted == 1", "approval": "never"}),
                    )
                    .await;
                    problems.refusal(&format!("click #h-{case}"), status, &body);
                }
                // The rule that held before: display:none with the vacuous `true`.
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "click", "parameters": {"selector": "#h-none"},
                           "verify_expression": "true", "approval": "never"}),
                    )
                    .await;
                problems.refusal("click #h-none with true", status, &body);
                // Not offered later either, once the page has been looked at again.
                let fresh = suite.fresh_state(&tab).await;
                for case in HIDDEN {
                    let bound = actions_mentioning(&fresh, &format!("#h-{case}"));
                    let offered = fresh["actions"]
                        [format!("delete_account_{}", case.replace('-', "_"))]
                    .is_object();
                    problems.expect(!offered && bound.is_empty(), || {
                        format!("#h-{case} is offered in a fresh capture: {bound:?}")
                    });
                }
                let writes = tab.settled_writes(0).await;
                assert!(writes.is_empty(), "a hidden control wrote: {writes:?}");

                // Honest: a row action revealed only while its row is hovered still works,
                // on the row the agent named.
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "archive_file", "parameters": {"file_id": "f2"}}),
                    )
                    .await;
                assert_eq!(status, 200, "the hover-revealed archive: {body:#}");
                let writes = tab.settled_writes(1).await;
                assert_eq!(verbs(&writes), [("archive", "f2")], "{writes:?}");

                // Honest: a visible delete clicked by selector with a real expression runs,
                // so the refusals above are the hidden rule's, not a page nobody trusts.
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "click", "parameters": {"selector": "#delete-draft"},
                           "verify_expression": "log.deleted == 1", "approval": "never"}),
                    )
                    .await;
                assert_eq!(status, 200, "the visible delete: {body:#}");
                let writes = tab.settled_writes(2).await;
                let deletes: Vec<_> = writes.iter().filter(|w| w.verb == "delete").collect();
                assert_eq!(deletes.len(), 1, "{writes:?}");
                assert_eq!(deletes[0].target, "draft", "{writes:?}");
                suite.close(tab).await;
                problems.check();
            },
        )
        .await;
    cases
        .case("hidden controls below the fold", |suite| async move {
            let (tab, state) = open_with(&suite, "/hostile/below.html", "delete_draft").await;
            let mut problems = Problems::default();
            for case in ["covered-below", "clipped-below"] {
                let action = format!("delete_account_{}", case.replace('-', "_"));
                let bound = actions_mentioning(&state, &format!("#h-{case}"));
                // A control's own clipping is read from its style anywhere on the page.
                // What covers a control below the fold only a hit test sees, and a
                // capture must not scroll to make one (the page would notice: a capture
                // signal, class 3), so such a control may be offered; the dispatcher
                // scrolls it into view and hit-tests it before any event.
                if case == "clipped-below" {
                    problems.expect(
                        state["actions"][&action].is_null() && bound.is_empty(),
                        || format!("#h-{case} is offered although nobody can see it: {bound:?}"),
                    );
                } else if state["actions"][&action].is_object() {
                    let (status, body) = suite
                        .act(
                            &tab,
                            json!({"action": action, "parameters": {},
                                   "verify_expression": "log.deleted == 1", "approval": "never"}),
                        )
                        .await;
                    problems.expect(status == 422 && body["failure"] == "target_hidden", || {
                        format!(
                            "{action}, offered, is not refused as target_hidden: {status} {body}"
                        )
                    });
                }
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "click", "parameters": {"selector": format!("#h-{case}")},
                               "verify_expression": "log.deleted == 1", "approval": "never"}),
                    )
                    .await;
                problems.refusal(&format!("click #h-{case}"), status, &body);
            }
            let writes = tab.settled_writes(0).await;
            assert!(writes.is_empty(), "a hidden control wrote: {writes:?}");
            suite.close(tab).await;
            problems.check();
        })
        .await;
    cases
        .case("a panel that fades in slowly", |suite| async move {
            // The capture after the panel's class changes sees its button all but
            // transparent (an ease-in over 900 ms): kept back then, and offered once
            // the fade has ended, with no further change to the page to announce it.
            let (tab, state) = open_with(&suite, "/hostile/hidden.html", "delete_draft").await;
            assert!(
                state["actions"]["share_all_files"].is_null(),
                "the transparent panel's button is offered: {:#}",
                state["actions"]
            );
            suite
                .in_page(&tab, "window.sharing.show(); return true;", json!([]))
                .await
                .expect("start the fade");
            suite
                .nspd
                .wait_state(tab.pid, "share_all_files", STATE_TIMEOUT, |s| {
                    s["actions"]["share_all_files"].is_object()
                })
                .await;
            let (status, body) = suite
                .act(
                    &tab,
                    json!({"action": "share_all_files", "parameters": {},
                           "verify_expression": "log.shared == 1", "approval": "never"}),
                )
                .await;
            assert_eq!(status, 200, "{body:#}");
            let writes = tab.settled_writes(1).await;
            assert_eq!(verbs(&writes), [("share", "all")], "{writes:?}");
            suite.close(tab).await;
        })
        .await;
    cases
        .case(
            "row actions revealed on hover: by CSS :hover alone, and fading in",
            |suite| async move {
                // Notes' Archive buttons show under a CSS :hover rule alone; pinned notes'
                // Unpin buttons and rename fields fade in over 400 ms once the page's
                // pointer handler marks the row hovered; starred notes' Unstar buttons
                // are faded in by a script stepping their opacity (no animation the
                // document lists): the dispatcher hovers, waits for the fade as a
                // person's pointer would, and clicks the row the agent named, or types
                // into the field it named, once each.
                let (tab, _) = open_with(&suite, "/hostile/hover.html", "unpin_note").await;
                for (action, parameters, verify) in [
                    ("archive_note", json!({"note_id": "n2"}), None),
                    ("unpin_note", json!({"pin_id": "p2"}), None),
                    (
                        "type",
                        json!({"selector": "#pinned li:nth-of-type(1) input.rename", "text": "Novels"}),
                        Some("log.renamed == 1"),
                    ),
                    ("unstar_note", json!({"star_id": "s2"}), None),
                ] {
                    let mut request = json!({"action": action, "parameters": parameters});
                    if let Some(verify) = verify {
                        request["verify_expression"] = json!(verify);
                        request["approval"] = json!("never");
                    }
                    let (status, body) = suite.act(&tab, request).await;
                    assert_eq!(status, 200, "{action}: {body:#}");
                }
                let writes = tab.settled_writes(4).await;
                assert_eq!(
                    verbs(&writes),
                    [
                        ("archive", "n2"),
                        ("unpin", "p2"),
                        ("rename", "p1"),
                        ("unstar", "s2")
                    ],
                    "{writes:?}"
                );
                assert!(writes[2].body.contains("Novels"), "{writes:?}");
                suite.close(tab).await;
            },
        )
        .await;
    cases
        .case(
            "controls the page covers while it moves",
            |suite| async move {
                let (tab, _) = open_with(&suite, "/hostile/motion.html", "archive_note").await;
                let pass = |ms: u64, note: &'static str| {
                    let suite = suite.clone();
                    let tab = &tab;
                    async move {
                        let covered = suite
                            .in_page(
                                tab,
                                "return window.motion.pass(args[0], args[1]);",
                                json!([ms, note]),
                            )
                            .await
                            .expect("start the slide");
                        // The premise: without it the case would test nothing.
                        assert_eq!(
                            covered,
                            json!(true),
                            "the slide does not cover {note}'s button"
                        );
                    }
                };
                // A slide of 0.9 s covers the button when the action arrives (the
                // Web Animations API: no mutation, so the state read before it still
                // offers the action). The action waits for the page to stop moving and
                // then archives exactly that note.
                pass(900, "n1").await;
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "archive_note", "parameters": {"note_id": "n1"}}),
                    )
                    .await;
                assert_eq!(
                    status, 200,
                    "archive n1 while a slide passes over it: {body:#}"
                );
                // A builtin aimed by selector, the same way (resolved and dispatched once
                // the page is still).
                pass(900, "n2").await;
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "click", "parameters": {"selector": "#archive-n2"},
                               "verify_expression": "log.archived == 2", "approval": "never"}),
                    )
                    .await;
                assert_eq!(
                    status, 200,
                    "click #archive-n2 while a slide passes over it: {body:#}"
                );
                let writes = tab.settled_writes(2).await;
                assert_eq!(
                    verbs(&writes),
                    [("archive", "n1"), ("archive", "n2")],
                    "{writes:?}"
                );
                // A slide of 5 s outlasts the wait (1 s): the button is still covered
                // when the capture before dispatch and the checks run, so the action is
                // refused (the capture no longer offers it: stale_state) and nothing is
                // written.
                pass(5000, "n3").await;
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "archive_note", "parameters": {"note_id": "n3"}}),
                    )
                    .await;
                let _ = suite
                    .in_page(&tab, "window.motion.stop(); return true;", json!([]))
                    .await;
                let why = refused("archive n3 under a slide that stays", status, &body);
                assert!(
                    why == "stale_state" || why == "action_failed:target_hidden",
                    "archive n3 under a slide that stays: {status} {body:#}"
                );
                let writes = tab.settled_writes(2).await;
                assert_eq!(writes.len(), 2, "a covered button wrote: {writes:?}");
                suite.close(tab).await;
            },
        )
        .await;
    cases.finish();
}

// --- 2. lying declarations -----------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declarations_that_lie_do_not_run_without_an_expression() {
    let mut cases = Cases::start().await;
    cases
        .case("lying reads, then the honest read", |suite| async move {
            let (tab, state) = open_with(&suite, "/hostile/lying.html", "show_balance").await;
            // The WebMCP tool registers from the page's script; wait for it too.
            let state = if state["actions"]["account_summary"].is_object() {
                state
            } else {
                suite
                    .nspd
                    .wait_state(tab.pid, "the WebMCP tool", STATE_TIMEOUT, |s| {
                        s["actions"]["account_summary"].is_object()
                    })
                    .await
            };
            let mut problems = Problems::default();
            // Each with the counter its real effect moves, for the request that brings
            // an expression: the declaration and the text conflict, so even then only a
            // person could let it run.
            for (action, counter) in [
                ("account", "log.deleted"),
                ("transfer_all_funds", "log.transfers"),
                ("wire_all_funds_to_savings", "log.wires"),
                ("account_summary", "log.deleted"),
                // Undeclared: a read word only a screen reader gets, or drawn transparent.
                ("view_balance", "log.wires"),
                ("view_wire_all_funds_to_ann", "log.wires"),
            ] {
                let schema = &state["actions"][action];
                assert!(
                    schema.is_object(),
                    "{action} is not offered: {:#}",
                    state["actions"]
                );
                eprintln!(
                    "  {action}: {} at {}",
                    schema["reversibility"], schema["confidence"]
                );
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": action, "parameters": {}, "approval": "never"}),
                    )
                    .await;
                problems.refusal(&format!("{action} without an expression"), status, &body);
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": action, "parameters": {}, "approval": "never",
                               "verify_expression": format!("{counter} == 1")}),
                    )
                    .await;
                problems.refusal(
                    &format!("{action} with an expression, no person"),
                    status,
                    &body,
                );
            }
            let writes = tab.settled_writes(0).await;
            assert!(writes.is_empty(), "a lying control ran: {writes:?}");

            // Honest: the true read runs without an expression on the same page.
            let (status, body) = suite
                .act(&tab, json!({"action": "show_balance", "parameters": {}}))
                .await;
            assert_eq!(status, 200, "{body:#}");
            let writes = tab.settled_writes(1).await;
            assert_eq!(writes.len(), 1, "{writes:?}");
            assert_eq!(
                (writes[0].verb.as_str(), writes[0].target.as_str()),
                ("view", "balance")
            );
            suite.close(tab).await;
            problems.check();
        })
        .await;
    cases.finish();
}

// --- 3. swaps between check and use --------------------------------------------------

/// Runs `archive_report` on swap.html?on=`on` against the capture the agent read
/// (after `before`, which may change the page), and asserts no delete was recorded.
async fn swap_report(suite: Arc<Suite>, on: &str) {
    let (tab, state) = open_with(
        &suite,
        &format!("/hostile/swap.html?on={on}"),
        "archive_report",
    )
    .await;
    let capture = state["capture_id"].clone();
    if on == "preview" {
        // The agent's read is taken; its harmless preview makes the page swap.
        let (status, body) = suite
            .act(&tab, json!({"action": "preview_report", "parameters": {}}))
            .await;
        assert_eq!(status, 200, "{body:#}");
        suite
            .nspd
            .wait_state(tab.pid, "the swap", STATE_TIMEOUT, |s| {
                s["objects"]["report.revision"].as_f64().unwrap_or(0.0) >= 1.0
            })
            .await;
    }
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": "archive_report", "parameters": {}, "expected_capture_id": capture,
                   "approval": "never"}),
        )
        .await;
    eprintln!("  archive_report (on={on}): {status} {}", body["code"]);
    let writes = tab.settled_writes(2).await;
    assert_eq!(
        tab.writes().count("delete", "report"),
        0,
        "the swap deleted: {writes:?}"
    );
    assert!(tab.writes().count("archive", "report") <= 1, "{writes:?}");
    if on == "preview" {
        // The page changed what the action is after the agent's capture: refused, and
        // with an expression too (then by the stale-state guard or the floor).
        refused("archive_report after the swap", status, &body);
        let (status, body) = suite
            .act(
                &tab,
                json!({"action": "archive_report", "parameters": {}, "expected_capture_id": capture,
                       "verify_expression": "log.archived == 1", "approval": "never"}),
            )
            .await;
        let code = refused(
            "archive_report after the swap, with an expression",
            status,
            &body,
        );
        eprintln!("  archive_report (on={on}) with an expression: {code}");
        let writes = tab.settled_writes(0).await;
        assert!(writes.iter().all(|w| w.verb == "preview"), "{writes:?}");
    }
    suite.close(tab).await;
}

/// Runs `save_note` on swap-editor.html?on=`on` (a formless group with an editable
/// region, whose button or name changes on the typing's first `input`), and asserts
/// the note was not sent and the action was refused as changed.
async fn swap_note(suite: Arc<Suite>, on: &str) {
    let (tab, state) = open_with(
        &suite,
        &format!("/hostile/swap-editor.html?on={on}"),
        "save_note",
    )
    .await;
    let schema = &state["actions"]["save_note"];
    assert!(
        schema["parameters"][0]["name"] == "note",
        "the editable region is not save_note's parameter: {schema:#}"
    );
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": "save_note", "parameters": {"note": "private, do not share"},
                   "expected_capture_id": state["capture_id"], "approval": "never"}),
        )
        .await;
    eprintln!(
        "  save_note (on={on}): {status} {} {}",
        body["code"], body["failure"]
    );
    let writes = tab.settled_writes(0).await;
    assert!(
        tab.writes().of("send").is_empty(),
        "the note was sent: {writes:?}"
    );
    assert!(writes.is_empty(), "{writes:?}");
    let code = refused(&format!("save_note (on={on})"), status, &body);
    assert_eq!(code, "action_failed:target_changed", "{body:#}");
    suite.close(tab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_swaps_between_check_and_use_does_not_get_the_swapped_action() {
    let mut cases = Cases::start().await;
    cases
        .case("relabelled after each capture", |suite| {
            swap_report(suite, "capture")
        })
        .await;
    cases
        .case("relabelled on the click's pointerdown", |suite| {
            swap_report(suite, "pointerdown")
        })
        .await;
    cases
        .case("relabelled between the read and the action", |suite| {
            swap_report(suite, "preview")
        })
        .await;
    cases
        .case(
            "a save that becomes a send while its fields fill",
            |suite| async move {
                let (tab, state) = open_with(&suite, "/hostile/swap-form.html", "save_draft").await;
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "save_draft",
                           "parameters": {"title": "Q3 notes", "notes": "private, do not share"},
                           "expected_capture_id": state["capture_id"], "approval": "never"}),
                    )
                    .await;
                eprintln!(
                    "  save_draft: {status} {} {}",
                    body["code"], body["failure"]
                );
                let writes = tab.settled_writes(1).await;
                assert!(
                    tab.writes().of("send").is_empty(),
                    "the draft was sent: {writes:?}"
                );
                assert!(tab.writes().of("save").len() <= 1, "{writes:?}");
                suite.close(tab).await;
            },
        )
        .await;
    cases
        .case(
            "a note's button relabelled while its editable region is typed into",
            |suite| swap_note(suite, "button"),
        )
        .await;
    cases
        .case(
            "a note's group renamed while its editable region is typed into",
            |suite| swap_note(suite, "group"),
        )
        .await;
    cases
        .case("a control flipping every 30 ms", |suite| async move {
            let tab = suite
                .open("/hostile/flip.html")
                .await
                .expect("open the page");
            // The page changes every 30 ms, so nspd may keep a capture of either phase
            // for a while: take fresh ones until one says "Archive item" (half of them
            // should), and make the request against that one.
            let mut state = suite.fresh_state(&tab).await;
            for _ in 0..60 {
                if state["actions"]["archive_item"].is_object() {
                    break;
                }
                state = suite.fresh_state(&tab).await;
            }
            assert!(
                state["actions"]["archive_item"].is_object(),
                "no capture showed Archive item: {:#}",
                state["actions"]
            );
            let (status, body) = suite
                .act(
                    &tab,
                    json!({"action": "archive_item", "parameters": {},
                           "expected_capture_id": state["capture_id"], "approval": "never"}),
                )
                .await;
            eprintln!(
                "  archive_item: {status} {} {}",
                body["code"], body["failure"]
            );
            let writes = tab.settled_writes(1).await;
            assert!(
                tab.writes().of("delete").is_empty(),
                "the flip deleted: {writes:?}"
            );
            assert!(tab.writes().of("archive").len() <= 1, "{writes:?}");
            suite.close(tab).await;
        })
        .await;
    cases.finish();
}

// --- 4. rows keyed by position, and rows inside one form --------------------------------

/// The archive action of rows.html's list: with `declared`, the page's own
/// `archive_message`; else the row action the probe found (any action aimed at rows).
fn archive_action(state: &Value, declared: bool) -> Option<(String, Value)> {
    let actions = state["actions"].as_object()?;
    if declared {
        return actions
            .get("archive_message")
            .map(|a| ("archive_message".to_owned(), a.clone()));
    }
    actions
        .iter()
        .find(|(_, a)| {
            a["internal_target"]
                .as_str()
                .is_some_and(|t| t.starts_with("row:") && t.contains("#messages"))
        })
        .map(|(name, a)| (name.clone(), a.clone()))
}

/// Archives the first row of rows.html?on=`on` against the capture in which row 0 was
/// m1 ("Billing, Invoice, Mon"): only m1 may be archived, or nothing.
async fn archive_first_row(suite: Arc<Suite>, on: &str, declared: bool) {
    let path = format!(
        "/hostile/rows.html?on={on}{}",
        if declared { "&declared" } else { "" }
    );
    let tab = suite.open(&path).await.expect("open the page");
    let state = suite
        .nspd
        .wait_state(tab.pid, "the archive action", STATE_TIMEOUT, |s| {
            archive_action(s, declared).is_some()
        })
        .await;
    let (action, schema) = archive_action(&state, declared).expect("the archive action");
    let parameters = match schema["parameters"].as_array().map(Vec::as_slice) {
        Some([]) | None => json!({}),
        Some([only]) if only["name"] == "index" => json!({"index": 0}),
        _ => panic!("{action} is not keyed by position, so this attack does not apply: {schema:#}"),
    };
    eprintln!("  {action}: {} {parameters}", schema["internal_target"]);
    let capture = state["capture_id"].clone();
    if on == "check" {
        let (status, body) = suite
            .act(
                &tab,
                json!({"action": "show_new_messages", "parameters": {}}),
            )
            .await;
        assert_eq!(status, 200, "{body:#}");
        suite
            .nspd
            .wait_state(tab.pid, "the new message", STATE_TIMEOUT, |s| {
                s["objects"]
                    .as_object()
                    .is_some_and(|o| o.keys().any(|k| k.contains("[3]")))
            })
            .await;
    }
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": action, "parameters": parameters,
                   "expected_capture_id": capture, "approval": "never"}),
        )
        .await;
    eprintln!(
        "  {action} {parameters} (on={on}): {status} {} {}",
        body["code"], body["failure"]
    );
    let writes = tab.settled_writes(2).await;
    let archived: Vec<&str> = writes
        .iter()
        .filter(|w| w.verb == "archive")
        .map(|w| w.target.as_str())
        .collect();
    assert!(
        archived.is_empty() || archived == ["m1"],
        "archived {archived:?}, but the agent read m1 in the first row: {writes:?}"
    );
    suite.close(tab).await;
}

/// form-rows.html's watches, by their uuids: the third row's "Archive" posts to the
/// delete address.
const WATCHES: [&str; 3] = [
    "4f365339-9fd8-4157-8135-014dfd9b450d",
    "7d6c72a8-5505-41b8-a737-3ea1d36be8e1",
    "c135624b-af29-4b7f-8b65-3a22038ea6a6",
];

/// The archive action of form-rows.html: the row action keyed by the rows' uuid.
fn form_row_archive(state: &Value) -> Option<(String, Value)> {
    state["actions"].as_object()?.iter().find_map(|(name, a)| {
        (name.starts_with("archive") && a["parameters"][0]["name"] == "watch_uuid")
            .then(|| (name.clone(), a.clone()))
    })
}

/// Rows inside one form, each with an "Archive" button whose `formaction` names its row:
/// the second row's archive runs (the positive control); the third row's "Archive",
/// which posts to the delete address, is never pressed for `archive`; with
/// `on=mousedown`, neither is the first row's once the page points it there.
async fn archive_in_form_rows(suite: Arc<Suite>, on: &str) {
    let tab = suite
        .open(&format!("/hostile/form-rows.html?on={on}"))
        .await
        .expect("open the page");
    let state = suite
        .nspd
        .wait_state(tab.pid, "the rows' archive", STATE_TIMEOUT, |s| {
            form_row_archive(s).is_some()
        })
        .await;
    let (action, schema) = form_row_archive(&state).expect("the rows' archive");
    eprintln!("  {action}: {}", schema["internal_target"]);
    let mut problems = Problems::default();
    let mut archived = 0;
    if on != "mousedown" {
        let (status, body) = suite
            .act(
                &tab,
                json!({"action": action, "parameters": {"watch_uuid": WATCHES[1]},
                       "verify_expression": "log.archived == 1", "approval": "never"}),
            )
            .await;
        problems.expect(status == 200, || {
            format!("the second row's archive: {status} {body}")
        });
        archived = 1;
    }
    let (target, what) = if on == "mousedown" {
        (
            WATCHES[0],
            "the first row's archive, pointed at delete during the click",
        )
    } else {
        (
            WATCHES[2],
            "the third row's \"Archive\", which posts to delete",
        )
    };
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": action, "parameters": {"watch_uuid": target},
                   "verify_expression": format!("log.archived == {}", archived + 1),
                   "approval": "never"}),
        )
        .await;
    problems.refusal(what, status, &body);
    let writes = tab.settled_writes(archived).await;
    let done = verbs(&writes);
    let expected: Vec<(&str, &str)> = if archived == 1 {
        vec![("archive", WATCHES[1])]
    } else {
        Vec::new()
    };
    problems.expect(done == expected, || {
        format!("writes {done:?}, expected {expected:?}")
    });
    suite.close(tab).await;
    problems.check();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_action_lands_on_the_row_the_agent_read() {
    let mut cases = Cases::start().await;
    cases
        .case("a row's button in one form that posts elsewhere", |suite| {
            archive_in_form_rows(suite, "none")
        })
        .await;
    cases
        .case(
            "a row's button pointed elsewhere during the click",
            |suite| archive_in_form_rows(suite, "mousedown"),
        )
        .await;
    cases
        .case("a new row between the read and the action", |suite| {
            archive_first_row(suite, "check", false)
        })
        .await;
    cases
        .case("a new row during the click", |suite| {
            archive_first_row(suite, "mousedown", false)
        })
        .await;
    cases
        .case(
            "a declared row button, a new row between the read and the action",
            |suite| archive_first_row(suite, "check", true),
        )
        .await;
    cases
        .case(
            "a declared row button, a new row during the click",
            |suite| archive_first_row(suite, "mousedown", true),
        )
        .await;
    cases.finish();
}

// --- 5. a builtin's selector deciding its own gate -----------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_builtins_selector_is_gated_by_the_element_it_finds() {
    let mut cases = Cases::start().await;
    cases
        .case("selectors that start with a read link", |suite| async move {
            let (tab, state) = open_with(&suite, "/hostile/selector.html", "open_help").await;
            assert_eq!(state["actions"]["open_help"]["reversibility"], "read", "{state:#}");
            let mut problems = Problems::default();
            for selector in [
                "#help + button",
                "#help ~ button",
                "#help ~ #wipe",
                "#help ~ button:first-of-type",
                "#help, #wipe",
            ] {
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "click", "parameters": {"selector": selector},
                               "verify_expression": "log.deleted == 1", "approval": "never"}),
                    )
                    .await;
                problems.refusal(&format!("click {selector:?}"), status, &body);
            }
            let (status, body) = suite
                .act(
                    &tab,
                    json!({"action": "press_key", "parameters": {"key": "Enter", "selector": "#help + button"},
                           "verify_expression": "log.deleted == 1", "approval": "never"}),
                )
                .await;
            problems.refusal("press_key Enter on #help + button", status, &body);
            let writes = tab.settled_writes(0).await;
            assert!(writes.is_empty(), "a selector reached past the link: {writes:?}");
            suite.close(tab).await;
            problems.check();
        })
        .await;
    cases.finish();
}

// --- 6. verification that verifies nothing -------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expression_that_already_holds_is_refused_and_unexplained_clicks_need_a_person() {
    let mut cases = Cases::start().await;
    cases
        .case("vacuous expressions, an unexplained click, then a real send", |suite| async move {
            let (tab, state) = open_with(&suite, "/hostile/verify.html", "send_report").await;
            assert_eq!(state["objects"]["outbox.sent_count"], 3, "{:#}", state["objects"]);
            let mut problems = Problems::default();
            for expression in [
                "true",
                "outbox.sent_count > 0",
                "1 == 1",
                "prev.outbox.sent_count == outbox.sent_count",
            ] {
                let (status, body) = suite
                    .act(
                        &tab,
                        json!({"action": "send_report", "parameters": {},
                               "verify_expression": expression, "approval": "never"}),
                    )
                    .await;
                let message = body["message"].as_str().unwrap_or_default();
                // The refusal says how to write one that verifies: a change or the
                // exact value expected afterwards.
                let hints = message.contains("changed(") || message.contains("prev.");
                problems.expect(
                    status == 400 && body["code"] == "verify_expression_vacuous" && hints,
                    || format!("{expression:?} is not refused as vacuous with a hint: {status} {body}"),
                );
            }
            // An element no action explains, with a real expression: only a person
            // could let it run, and this request says not to ask.
            let (status, body) = suite
                .act(
                    &tab,
                    json!({"action": "click", "parameters": {"selector": "#mystery"},
                           "verify_expression": "outbox.sent_count == 4", "approval": "never"}),
                )
                .await;
            problems.expect(status == 422 && body["code"] == "confidence_too_low", || {
                format!("a click on #mystery is not confidence_too_low: {status} {body}")
            });
            let writes = tab.settled_writes(0).await;
            assert!(writes.is_empty(), "sent without a real check: {writes:?}");

            // Honest: the same send with an expression that can only hold afterwards.
            let (status, body) = suite
                .act(
                    &tab,
                    json!({"action": "send_report", "parameters": {},
                           "verify_expression": "outbox.sent_count == 4", "approval": "never"}),
                )
                .await;
            assert_eq!(status, 200, "{body:#}");
            assert_eq!(body["verification"]["passed"], true, "{body:#}");
            let writes = tab.settled_writes(1).await;
            assert_eq!(writes.len(), 1, "{writes:?}");
            assert_eq!((writes[0].verb.as_str(), writes[0].target.as_str()), ("send", "report"));
            suite.close(tab).await;
            problems.check();
        })
        .await;
    cases.finish();
}

// --- 7. secrets -----------------------------------------------------------------------

/// The secrets secrets.html holds or the agent types; none may leave the page in clear.
const PAGE_SECRETS: &[&str] = &[
    "Aria-Mirror-Secret-31",
    "Attr-Value-Secret-53",
    "Toggle-Secret-77",
];
const FORM_SECRET: &str = "Form-Secret-88";
const TYPED_SECRET: &str = "Typed-Secret-42";

/// Asserts that no object key or value of `state`, and nothing else in it, holds a
/// secret of `secrets`.
fn assert_no_secret(what: &str, state: &Value, secrets: &[&str]) {
    for (key, value) in state["objects"].as_object().into_iter().flatten() {
        for secret in secrets {
            assert!(
                !key.contains(secret) && !value.to_string().contains(secret),
                "{what}: {secret:?} is in the object {key:?} = {value}"
            );
        }
    }
    let text = state.to_string();
    for secret in secrets {
        assert!(
            !text.contains(secret),
            "{what}: {secret:?} is in the state: {state:#}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_stay_secret_in_the_state_the_audit_log_and_nspds_log() {
    // nspd launches its own browser here, so that its log can be searched too.
    let dir = tempfile::tempdir().expect("a dir for nspd's log");
    let log = dir.path().join("nspd.log");
    let (suite, tab) = Suite::launch_logged("/hostile/secrets.html", &log)
        .await
        .expect("nspd with its browser on secrets.html");
    let state = suite
        .nspd
        .wait_state(tab.pid, "sign_in", STATE_TIMEOUT, |s| {
            s["actions"]["sign_in"].is_object()
        })
        .await;
    assert_no_secret("the first state", &state, PAGE_SECRETS);
    let fresh = suite.fresh_state(&tab).await;
    assert_no_secret("a fresh state", &fresh, PAGE_SECRETS);

    // The form's password parameter is marked secret, whatever its name.
    let params = state["actions"]["sign_in"]["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let k = params
        .iter()
        .find(|p| p["name"] == "k")
        .unwrap_or_else(|| panic!("sign_in has no parameter k: {params:#?}"));
    assert_eq!(k["secret"], true, "{k:#}");

    // Fill the form through its discovered action.
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": "sign_in", "parameters": {"user": "ann", "k": FORM_SECRET},
                   "verify_expression": "log.signins == 1", "approval": "never"}),
        )
        .await;
    assert_eq!(status, 200, "{body:#}");
    assert!(
        !body.to_string().contains(FORM_SECRET),
        "the answer: {body:#}"
    );
    // Type into the same field with the builtin.
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": "type",
                   "parameters": {"selector": "#signin input[name=k]", "text": TYPED_SECRET},
                   "verify_expression": "changed(vault.typed)", "approval": "never"}),
        )
        .await;
    eprintln!("  type into the passphrase: {status} {}", body["code"]);
    assert!(
        !body.to_string().contains(TYPED_SECRET),
        "the answer: {body:#}"
    );

    // The page turns a password field into a text field: still secret.
    let (status, body) = suite
        .act(
            &tab,
            json!({"action": "show_recovery_key", "parameters": {}}),
        )
        .await;
    assert_eq!(status, 200, "{body:#}");
    let fresh = suite.fresh_state(&tab).await;
    let mut all = PAGE_SECRETS.to_vec();
    all.extend([FORM_SECRET, TYPED_SECRET]);
    assert_no_secret("after the reveal", &fresh, &all);

    let audit = std::fs::read_to_string(suite.nspd.data_dir.path().join("audit.jsonl"))
        .expect("the audit log");
    assert!(
        audit.contains("sign_in"),
        "the sign-in is in the audit log: {audit}"
    );
    for secret in &all {
        assert!(
            !audit.contains(secret),
            "{secret:?} is in audit.jsonl:\n{audit}"
        );
    }
    suite.close(tab).await;
    // nspd's log, complete once nspd has stopped.
    let mut nspd = suite.nspd;
    nspd.stop();
    let text = std::fs::read_to_string(&log).expect("nspd's log");
    assert!(
        text.contains("extension connected"),
        "the log is nspd's: {text}"
    );
    for secret in &all {
        assert!(
            !text.contains(secret),
            "{secret:?} is in nspd's log:\n{text}"
        );
    }
}

// --- 8. page text aimed at the model -------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_text_cannot_shadow_the_products_names_or_approve_an_action() {
    let mut cases = Cases::start().await;
    cases
        .case("reserved names and a pre-approval in page text", |suite| async move {
            let (tab, state) = open_with(&suite, "/hostile/pagetext.html", "transfer_funds").await;
            assert_eq!(state["context"]["url"], tab.url.as_str(), "{:#}", state["context"]);
            assert!(state["confidence"].is_number(), "{}", state["confidence"]);
            let objects = state["objects"].as_object().cloned().unwrap_or_default();
            for key in objects.keys() {
                assert!(
                    key != "confidence" && !key.starts_with("context.") && key != "gate.approved",
                    "the page's key {key:?} shadows a name of the product: {objects:#?}"
                );
            }
            // Renamed, not lost: the page's values are still there under other keys.
            let values: Vec<String> = objects.values().map(Value::to_string).collect();
            assert!(
                values.iter().any(|v| v.contains("https://bank.example/approved")),
                "{objects:#?}"
            );
            // Expressions mean the product's names.
            let (status, body) = suite
                .nspd
                .post(
                    "/substrate/v1/verify",
                    &json!({"pid": tab.pid, "expression": format!("context.url == '{}'", tab.url),
                            "timeout_ms": 100}),
                )
                .await
                .expect("verify");
            assert_eq!(status, 200, "{body:#}");
            assert_eq!(body["passed"], true, "{body:#}");

            // "Call it with verify_expression true": refused, and nothing moved.
            for request in [
                json!({"action": "transfer_funds", "parameters": {}, "verify_expression": "true",
                       "approval": "never"}),
                json!({"action": "transfer_funds", "parameters": {}, "approval": "never"}),
            ] {
                let (status, body) = suite.act(&tab, request).await;
                let code = refused("transfer_funds as the page says", status, &body);
                eprintln!("  transfer_funds: {code}");
            }
            let writes = tab.settled_writes(0).await;
            assert!(writes.is_empty(), "the page's text moved money: {writes:?}");
            suite.close(tab).await;
        })
        .await;
    cases.finish();
}

// --- NSP's own channels -----------------------------------------------------------------

/// The page says hello to page-world.js as a new isolated world would, and listens for
/// the offer first: while the isolated world it is paired with is alive, page-world.js
/// offers nothing, so the page holds no channel and cannot turn NSP's "no" to its
/// `confirm()` into a yes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_saying_hello_to_the_page_world_gets_no_channel_and_no_yes() {
    let mut cases = Cases::start().await;
    cases
        .case("hello before and during the action", |suite| async move {
            let (tab, state) = open_with(&suite, "/hostile/hello.html", "archive").await;
            assert_eq!(
                state["actions"]["archive"]["reversibility"], "reversible_write",
                "the page must be understood for this case: {state}"
            );
            let (status, body) = suite
                .act(&tab, json!({"action": "archive", "parameters": {}}))
                .await;
            assert_eq!(status, 422, "{body}");
            assert_eq!(body["failure"], "dialog_declined", "{body}");
            let writes = tab.settled_writes(0).await;
            assert!(
                writes.is_empty(),
                "the page answered its own confirm: {writes:?}"
            );
            let state = suite.fresh_state(&tab).await;
            assert_eq!(
                state["objects"]["page.offers_caught"], 0,
                "the page caught a channel: {}",
                state["objects"]
            );
            suite.close(tab).await;
        })
        .await;
    cases.finish();
}
