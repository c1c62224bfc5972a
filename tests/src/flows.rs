//! The flow suite's harness: an agent that does an app's ordinary write work (create,
//! edit, comment, change a status, delete through the app's own confirmation) using
//! only what nspd's state offers, and a report per app of how much of it passed the
//! gate without a person. The app's own database or files are the ground truth.
//!
//! # The rules a flow follows
//!
//! - **Only the state.** A step names its intent in words; the agent picks the action
//!   whose name, description and parameter names contain *every* word. An action named
//!   by exactly the words wins, then one with all the words in its name, then one that
//!   needs its description. No match, or several equally good ones, fails the step with
//!   the list of actions offered. No CSS selector, no builtin (`click`, `type`, …) and
//!   no hand-written URL: to go to another page, follow a link the state offers.
//! - **Parameters by words.** [`Step::param`] fills the one parameter of the chosen
//!   action whose name contains the words (one named by exactly those words wins).
//!   [`Step::record`] does the same for a value that picks something the page shows (a
//!   row's key, an option): it must be in the parameter's `allowed_values` if it has
//!   them, else in `objects`. [`Step::on`] names the record a step acts on: the agent
//!   takes the action named after it (`delete_buy_milk`) or the one whose parameter
//!   picks it (`delete(title)`; `delete(id)` with the key of the row showing it, as
//!   `objects` pairs them; or `toggle(index)` with the `N` of the row showing it),
//!   whichever the state offers, so a flow survives the probe's naming changing.
//! - **Verification from the state.** Unless the step says otherwise
//!   ([`Verify::Expr`], [`Verify::None`]), the agent sends
//!   `context.url != '<the url now>' || changed(<each top-level object>)`: built from
//!   the state's own keys, it holds once the page went somewhere or showed a change, and
//!   it is what an irreversible write needs. (An effect that only adds a new top-level
//!   object needs [`Verify::Expr`].) The database says whether it was the right change.
//!   A press that only asks for a second one ([`Verify::Fails`]: Isso's "Delete" turning
//!   into "Confirm") is expected to leave its expression false, as nspd then says; one
//!   whose effect the state may not show for certain ([`Verify::Unsure`]: mitmweb's
//!   replay, marked by an icon) is done once it ran, either way.
//! - **The gate decides; a person lifts.** Every request is sent first with
//!   `"approval": "never"`. If nspd refuses it with `confidence_too_low` (the one
//!   refusal a person can lift), the step counts as *needed a person*: the agent sends
//!   it again with `"approval": "ask"` and the harness plays the person as
//!   `tests/tests/approvals.rs` does, with a real click on "Approve once" in the
//!   extension's popup, then goes back to the app's window. A `stale_state`, or an
//!   `action_failed` with `failure: target_changed` (the page changed before dispatch;
//!   nothing was sent), makes the agent read the state and decide again (three tries).
//!   Every step starts from a capture taken after the previous step ended. Any other
//!   refusal or failure fails the flow.
//! - **What the state does not offer.** A step the state offers no action for can be
//!   done by the person by hand ([`FlowAgent::person_does`], or
//!   [`FlowAgent::run_or_person`], which lets the agent try first), so the flow can go
//!   on; it counts as needing a person (`not_offered`) and the report says why.
//! - **True tiers.** The flow's author labels each step with its true tier
//!   ([`Step::new`]'s `truth`), from what the step does in the app, before looking at
//!   the probe's output. A step is **unsafe**, as the corpora count it, when it is truly
//!   an `irreversible_write` and the state's tier of the chosen action is lower; a step
//!   rated under its true tier otherwise (a reversible write offered as a read) is
//!   marked on its line and not asserted.
//! - **The report.** [`FlowAgent::finish`] prints one table row (app, write steps,
//!   passed without a person, needed a person, unsafe, ground truth exact; steps that
//!   are reads both truly and in the state, such as following a link, are counted
//!   apart as navigation) and every refusal's reason, writes the report to
//!   `target/flows/<app>.json`, and asserts 0 unsafe and the ground truth. The share
//!   that passed without a person is printed, never asserted. Run with
//!   `-- --nocapture` to see it; [`table_of_written_reports`] sums the reports.
//!
//! Each flow starts its own app ([`crate::real_apps::RealApp`]), its own nspd and its
//! own headless Chromium with the extension (the app in a focused window of its own,
//! the popup in the driver's); dropping the agent and the app reaps them.
//! `NSP_FLOW_DUMP=<dir>` writes every state a step was planned on to that directory.
//!
//! # Example
//!
//! ```no_run
//! # async fn flow() -> anyhow::Result<()> {
//! use nsp_tests::flows::{FlowAgent, Step, Tier};
//! use nsp_tests::real_apps::{AppKind, RealApp, RealAppOptions};
//!
//! let app = RealApp::start(AppKind::FlaskAdmin, RealAppOptions::default())?;
//! let mut agent = FlowAgent::start("flask-admin", &app.url("/admin/contact/")).await?;
//! // Follow the "Create" link (a read), then save the form (a reversible write).
//! agent.run(Step::new("open the create form", &["create"], Tier::Read)).await?;
//! agent
//!     .run(
//!         Step::new("create a contact", &["save"], Tier::ReversibleWrite)
//!             .avoid(&["another", "continue"])
//!             .param(&["name"], "Katherine Johnson")
//!             .param(&["email"], "kj@example.com"),
//!     )
//!     .await?;
//! // Open that record's edit form, whatever the row action is called.
//! agent
//!     .run(Step::new("open it", &["edit"], Tier::Read).on("Katherine Johnson"))
//!     .await?;
//! let rows = app.query("select name from contact order by id")?;
//! agent.finish(rows.len(), 4);
//! # Ok(())
//! # }
//! ```

use std::fmt::{self, Debug, Write as _};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

pub use nsp_protocol::Reversibility as Tier;

use crate::{
    extension_dir, fresh_data_dir, popup_url, workspace_root, Nspd, WebDriver, WebDriverOptions,
};

/// How long a step waits for the state to offer its action (after the previous step,
/// the page may still be loading).
const CHOOSE_TIMEOUT: Duration = Duration::from_secs(20);
/// How long [`FlowAgent::run_or_person`] waits for the state to offer a step before the
/// person does it.
const OFFER_TIMEOUT: Duration = Duration::from_secs(6);
/// How long the person's card may take to appear in the popup.
const CARD_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a flow's action polls its verify expression (the API's default is 5 s).
const FLOW_VERIFY_TIMEOUT_MS: u64 = 20_000;

/// nspd's `approval_timeout_ms` in flows: the harness answers at once.
const APPROVAL_TIMEOUT_MS: &str = "30000";
const TAB_TIMEOUT: Duration = Duration::from_secs(60);

/// How a step is verified.
#[derive(Debug, Clone)]
pub enum Verify {
    /// `context.url != '<url now>' || changed(<each top-level object of the state>)`.
    Auto,
    /// This expression (write it from keys of the state).
    Expr(String),
    /// No expression: only for a step whose state tier is not irreversible (nspd
    /// refuses an irreversible write without one).
    None,
    /// An expression the step leaves false, honestly: a press that only asks for a
    /// second one (Isso's "Delete" turns into "Confirm" and deletes nothing). nspd runs
    /// it and answers `verification_failed` with `executed: true`, naming what the page
    /// offers now, which is what the step expects; an expression that holds fails the
    /// flow. Polled for a second, not [`FLOW_VERIFY_TIMEOUT_MS`].
    Fails(String),
    /// An expression the page may or may not make true: it shows what the action did
    /// only in ways the state does not key for certain (mitmweb marks a replayed flow
    /// with an icon, and its timing may come out the same). The step is done when the
    /// action ran (`executed: true`), whether the expression held or not; the ground
    /// truth decides what happened. Polled for a second.
    Unsure(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FillKind {
    /// Any value (what the agent wants to write).
    Plain,
    /// A value the state shows (a record's key, an option).
    FromState,
    /// The position `N` of the record of the parameter's list whose field has the value.
    IndexOf,
}

#[derive(Debug, Clone)]
struct Fill {
    words: Vec<String>,
    value: Value,
    kind: FillKind,
}

/// One step of a flow: an intent in words, the parameters, the true tier.
#[derive(Debug, Clone)]
pub struct Step {
    intent: String,
    words: Vec<String>,
    avoid: Vec<String>,
    fills: Vec<Fill>,
    truth: Tier,
    verify: Verify,
    target: Option<Value>,
}

impl Step {
    /// `intent`: what the step does, for the report. `words`: every one must appear in
    /// the action's name, description or parameter names (case-insensitive, whole
    /// words; a plural `s` is ignored). `truth`: the step's true tier, as the flow's
    /// author labels it from what the step does in the app.
    pub fn new(intent: &str, words: &[&str], truth: Tier) -> Step {
        Step {
            intent: intent.to_owned(),
            words: words.iter().map(|w| w.to_lowercase()).collect(),
            avoid: Vec::new(),
            fills: Vec::new(),
            truth,
            verify: Verify::Auto,
            target: None,
        }
    }

    /// The record the step acts on, by a value the page shows for it (its title): the
    /// agent takes the action named after it (`delete_buy_milk`) or the one whose
    /// parameter picks it (`delete(title)`, `toggle(index)`; see [`Step::record`] with
    /// no words), or the form whose description names the record showing it (`… (in
    /// comments[0])`), whichever the state offers.
    pub fn on(mut self, record: impl Into<Value>) -> Step {
        self.target = Some(record.into());
        self
    }

    /// Leaves out actions whose name, description or parameter names contain any of
    /// these words.
    pub fn avoid(mut self, words: &[&str]) -> Step {
        self.avoid.extend(words.iter().map(|w| w.to_lowercase()));
        self
    }

    /// Fills the parameter whose name contains every one of `words` with `value`.
    pub fn param(mut self, words: &[&str], value: impl Into<Value>) -> Step {
        self.fills.push(Fill {
            words: words.iter().map(|w| w.to_lowercase()).collect(),
            value: value.into(),
            kind: FillKind::Plain,
        });
        self
    }

    /// As [`Step::param`], for a value that picks something the page shows (a row's
    /// key, an option): it must be one of the parameter's `allowed_values` when it has
    /// them, else a value in the state's `objects`. With no words (`&[]`, best for rows:
    /// column names change more than the records do), the agent picks the record
    /// showing the value: the parameter whose `allowed_values` hold it, else a position
    /// parameter filled with the `N` of the row showing it ([`Step::record_index`]),
    /// else the action's only parameter.
    pub fn record(mut self, words: &[&str], value: impl Into<Value>) -> Step {
        self.fills.push(Fill {
            words: words.iter().map(|w| w.to_lowercase()).collect(),
            value: value.into(),
            kind: FillKind::FromState,
        });
        self
    }

    /// For a parameter that picks a row by position (its description names the list,
    /// `… in todos.items[N]`): fills it with the `N` of the row that has a field equal
    /// to `value` in the state's `objects` (exactly one such row, or the step fails).
    pub fn record_index(mut self, words: &[&str], value: impl Into<Value>) -> Step {
        self.fills.push(Fill {
            words: words.iter().map(|w| w.to_lowercase()).collect(),
            value: value.into(),
            kind: FillKind::IndexOf,
        });
        self
    }

    pub fn verify(mut self, verify: Verify) -> Step {
        self.verify = verify;
        self
    }
}

/// What a step will send, decided from one state.
struct Planned {
    state: Value,
    name: String,
    parameters: serde_json::Map<String, Value>,
}

/// Why nspd did not let a step through by itself.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub code: String,
    pub message: String,
    pub actual_confidence: Option<f64>,
    pub required_confidence: Option<f64>,
}

/// What happened at one step.
#[derive(Debug, Clone)]
pub struct StepRecord {
    pub intent: String,
    /// The action the agent chose.
    pub action: String,
    /// Its tier and confidence in the state the agent decided on.
    pub tier: Tier,
    pub confidence: f64,
    /// The page's confidence in that state.
    pub page_confidence: f64,
    /// The step's true tier (the flow author's label).
    pub truth: Tier,
    /// `None`: passed the gate without a person; else the refusal a person lifted.
    pub person: Option<Refusal>,
}

impl StepRecord {
    /// Unsafe, as the corpora count it (docs/probe.md): an irreversible step the state
    /// rated lower, so the gate held it to a lower floor.
    pub fn unsafe_tier(&self) -> bool {
        self.truth == Tier::IrreversibleWrite && self.tier < self.truth
    }

    /// The state rated the action lower than it is (a reversible write offered as a
    /// read, say): reported on the step's line, not asserted.
    pub fn under_rated(&self) -> bool {
        self.tier < self.truth
    }

    /// Whether the gate had something to decide: the step writes, truly or in the
    /// state's view. Steps that are reads both ways (following a link) are counted
    /// apart, as navigation.
    pub fn counts(&self) -> bool {
        self.truth != Tier::Read || self.tier != Tier::Read
    }
}

/// One app's flows, summed up.
#[derive(Debug, Clone)]
pub struct FlowReport {
    pub app: String,
    pub steps: Vec<StepRecord>,
    pub ground_truth_exact: bool,
    /// What the ground truth was expected to be and what it was, when they differ.
    pub ground_truth_detail: String,
}

impl FlowReport {
    /// Steps that count: writes, by their true tier or the state's.
    pub fn write_steps(&self) -> usize {
        self.steps.iter().filter(|s| s.counts()).count()
    }

    /// Counted steps that passed the gate without a person.
    pub fn passed_alone(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.counts() && s.person.is_none())
            .count()
    }

    /// Steps a person had to approve (only counted steps can need one).
    pub fn needed_person(&self) -> usize {
        self.steps.iter().filter(|s| s.person.is_some()).count()
    }

    pub fn unsafe_steps(&self) -> usize {
        self.steps.iter().filter(|s| s.unsafe_tier()).count()
    }

    /// Steps the state offered no action for (a person did them by hand).
    pub fn not_offered(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.person.as_ref().is_some_and(|r| r.code == "not_offered"))
            .count()
    }

    /// Steps that are reads both truly and in the state (following a link).
    pub fn read_steps(&self) -> usize {
        self.steps.len() - self.write_steps()
    }

    /// The header of the table [`FlowReport::row`] prints a row of.
    pub fn header() -> String {
        "| app | write steps | passed without a person | needed a person | unsafe | ground truth exact | navigation steps |\n|---|---|---|---|---|---|---|".to_owned()
    }

    pub fn row(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            self.app,
            self.write_steps(),
            self.passed_alone(),
            self.needed_person(),
            self.unsafe_steps(),
            if self.ground_truth_exact { "yes" } else { "NO" },
            self.read_steps(),
        )
    }

    /// Every step, one line each, with the refusal a person lifted.
    pub fn details(&self) -> String {
        let mut out = String::new();
        for (i, s) in self.steps.iter().enumerate() {
            if let Some(r) = s.person.as_ref().filter(|r| r.code == "not_offered") {
                let _ = writeln!(
                    out,
                    "  {}. {} -> no action [page {:.2}; true: {}] done by a person: {}",
                    i + 1,
                    s.intent,
                    s.page_confidence,
                    s.truth.as_str(),
                    r.message
                );
                continue;
            }
            let _ = write!(
                out,
                "  {}. {} -> {} [state: {} {:.2}, page {:.2}; true: {}]{}",
                i + 1,
                s.intent,
                s.action,
                s.tier.as_str(),
                s.confidence,
                s.page_confidence,
                s.truth.as_str(),
                if s.unsafe_tier() {
                    " UNSAFE"
                } else if s.under_rated() {
                    " (rated under its true tier)"
                } else {
                    ""
                }
            );
            match &s.person {
                None => out.push_str(" passed\n"),
                Some(r) => {
                    let _ = writeln!(
                        out,
                        " needed a person: {} ({:?} < {:?}): {}",
                        r.code, r.actual_confidence, r.required_confidence, r.message
                    );
                }
            }
        }
        out
    }

    fn to_json(&self) -> Value {
        json!({
            "app": self.app,
            "write_steps": self.write_steps(),
            "passed_without_person": self.passed_alone(),
            "needed_person": self.needed_person(),
            "unsafe": self.unsafe_steps(),
            "ground_truth_exact": self.ground_truth_exact,
            "read_steps": self.read_steps(),
            "not_offered": self.not_offered(),
            "steps": self.steps.iter().map(|s| json!({
                "intent": s.intent,
                "action": s.action,
                "tier": s.tier.as_str(),
                "confidence": s.confidence,
                "page_confidence": s.page_confidence,
                "truth": s.truth.as_str(),
                "unsafe": s.unsafe_tier(),
                "person": s.person.as_ref().map(|r| json!({
                    "code": r.code,
                    "message": r.message,
                    "actual_confidence": r.actual_confidence,
                    "required_confidence": r.required_confidence,
                })),
            })).collect::<Vec<_>>(),
        })
    }
}

impl fmt::Display for FlowReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let writes = self.write_steps();
        let share = if writes == 0 {
            0.0
        } else {
            100.0 * self.passed_alone() as f64 / writes as f64
        };
        writeln!(f, "{}", FlowReport::header())?;
        writeln!(f, "{}", self.row())?;
        writeln!(
            f,
            "{}: {share:.0} % of write steps passed without a person; of the {} that needed \
             one, {} had no action in the state",
            self.app,
            self.needed_person(),
            self.not_offered()
        )?;
        write!(f, "{}", self.details())?;
        if !self.ground_truth_exact {
            writeln!(f, "ground truth: {}", self.ground_truth_detail)?;
        }
        Ok(())
    }
}

/// The flow table of every report under `target/flows/` (what the flow tests wrote in
/// this tree, newest run of each app), with a total row: for the closing note, after
/// `cargo test -p nsp-tests --test flows`.
pub fn table_of_written_reports() -> Result<String> {
    let dir = workspace_root().join("target/flows");
    let mut reports: Vec<Value> = std::fs::read_dir(&dir)
        .with_context(|| format!("no reports in {}", dir.display()))?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| serde_json::from_str(&std::fs::read_to_string(e.path()).ok()?).ok())
        .collect();
    reports.sort_by(|a: &Value, b: &Value| a["app"].as_str().cmp(&b["app"].as_str()));
    let mut out = FlowReport::header() + "\n";
    let n = |r: &Value, k: &str| r[k].as_u64().unwrap_or(0);
    let mut total = [0u64; 5];
    let mut all_exact = true;
    for r in &reports {
        let exact = r["ground_truth_exact"] == true;
        all_exact &= exact;
        let row = [
            n(r, "write_steps"),
            n(r, "passed_without_person"),
            n(r, "needed_person"),
            n(r, "unsafe"),
            n(r, "read_steps"),
        ];
        for (t, v) in total.iter_mut().zip(row) {
            *t += v;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r["app"].as_str().unwrap_or("?"),
            row[0],
            row[1],
            row[2],
            row[3],
            if exact { "yes" } else { "NO" },
            row[4]
        );
    }
    let _ = writeln!(
        out,
        "| all | {} | {} ({:.0} %) | {} | {} | {} | {} |",
        total[0],
        total[1],
        if total[0] == 0 {
            0.0
        } else {
            100.0 * total[1] as f64 / total[0] as f64
        },
        total[2],
        total[3],
        if all_exact { "yes" } else { "NO" },
        total[4]
    );
    Ok(out)
}

/// The agent: a running nspd, a headless Chromium with the extension (its popup open in
/// the driver's window, where the "person" answers), and the app's tab.
#[derive(Debug)]
pub struct FlowAgent {
    app: String,
    nspd: Arc<Nspd>,
    browser: WebDriver,
    pub pid: u64,
    steps: Vec<StepRecord>,
    /// The app's browser window (Chrome's id), focused again after the person answers.
    app_window: i64,
}

impl FlowAgent {
    /// Starts nspd (refusing below the floor unless a request asks the person) and a
    /// browser with the extension, opens `url` in a tab and waits for its probe.
    /// `app` names the app in the report.
    pub async fn start(app: &str, url: &str) -> Result<FlowAgent> {
        let nspd = Nspd::serve_with_env(
            0,
            fresh_data_dir()?,
            &[
                ("NSP_GATE__ASK_PERSON", "never"),
                ("NSP_GATE__APPROVAL_TIMEOUT_MS", APPROVAL_TIMEOUT_MS),
            ],
        )?;
        let ws_url = format!("ws://127.0.0.1:{}/substrate/v1/extension", nspd.port());
        let browser = WebDriver::start(&WebDriverOptions {
            extension: Some(extension_dir()?),
            daemon_ws_url: Some(ws_url),
            window_size: Some((1280, 1000)),
            ..WebDriverOptions::default()
        })
        .await
        .context("chromedriver with the extension")?;
        browser.goto(&popup_url()).await.context("open the popup")?;
        let origin = url.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
        // In a window of its own, in front, as a person's app tab is (apps that lay out
        // in animation frames or transitions never finish in a background tab); the
        // popup stays in the driver's window for the person's click.
        let app_window = browser
            .eval(
                "return (await chrome.windows.create({ url: args[0], focused: true })).id;",
                json!([url]),
            )
            .await
            .context("open the app's window from the popup")?
            .as_i64()
            .context("chrome.windows.create gave no window id")?;
        // The app may redirect (to a login page, a default view): any page of its origin.
        let tab = nspd
            .wait_for_app(TAB_TIMEOUT, |a| {
                a.probe_status == nsp_protocol::ProbeStatus::Active
                    && a.current_url
                        .as_deref()
                        .is_some_and(|u| u.starts_with(&origin))
            })
            .await
            .context("the app's tab is active in nspd")?;
        Ok(FlowAgent {
            app: app.to_owned(),
            nspd: Arc::new(nspd),
            browser,
            pid: tab.pid,
            steps: Vec::new(),
            app_window,
        })
    }

    /// The nspd the agent talks to.
    pub fn nspd(&self) -> &Nspd {
        &self.nspd
    }

    /// The tab's latest state.
    pub async fn state(&self) -> Result<Value> {
        let (status, state) = self
            .nspd
            .get(&format!("/substrate/v1/state/{}", self.pid))
            .await?;
        if status != 200 {
            bail!("GET /state answered {status}: {state}");
        }
        Ok(state)
    }

    /// The text of the object `find` picks by key and value (a code editor's whole text,
    /// read as an agent reads it), once it is what `done` wants: the state is read again
    /// until then, at most `wait`; after that, an error naming the text last found.
    pub async fn read_text(
        &self,
        find: impl Fn(&str, &str) -> bool,
        done: impl Fn(&str) -> bool,
        wait: Duration,
    ) -> Result<String> {
        let deadline = Instant::now() + wait;
        loop {
            let state = self.state().await?;
            let text = state["objects"]
                .as_object()
                .into_iter()
                .flatten()
                .find_map(|(k, v)| v.as_str().filter(|t| find(k, t)))
                .map(str::to_owned);
            match text {
                Some(t) if done(&t) => return Ok(t),
                _ if Instant::now() > deadline => {
                    bail!("the state shows {text:?} after {wait:?}: {state:#}")
                }
                _ => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }

    /// Puts the app's window in front again (best effort).
    async fn focus_app(&self) {
        let _ = self
            .browser
            .eval(
                "await chrome.windows.update(args[0], { focused: true });",
                json!([self.app_window]),
            )
            .await;
    }

    /// A state captured now (`?fresh=true`).
    async fn fresh_state(&self) -> Result<Value> {
        let (status, state) = self
            .nspd
            .get(&format!("/substrate/v1/state/{}?fresh=true", self.pid))
            .await?;
        if status != 200 {
            bail!("GET /state?fresh=true answered {status}: {state}");
        }
        Ok(state)
    }

    /// The steps so far.
    pub fn steps(&self) -> &[StepRecord] {
        &self.steps
    }

    /// Waits (at most `wait`) until the state offers exactly one action for `step` and
    /// shows every value it picks; returns that state, the action's name and the
    /// parameters.
    async fn plan(&self, step: &Step, wait: Duration) -> Result<Planned> {
        let deadline = Instant::now() + wait;
        // The first read asks the page for a capture taken now: after a write that
        // reloaded the page, the latest capture may still be the old document's.
        let mut fresh = true;
        loop {
            let state = if fresh {
                fresh = false;
                match self.fresh_state().await {
                    Ok(state) => state,
                    Err(_) => self.state().await?,
                }
            } else {
                self.state().await?
            };
            dump_state(&self.app, &step.intent, &state);
            let settled = state["probe_metadata"]["settled"].as_bool() != Some(false);
            let planned = choose_action_on(&state, &step.words, &step.avoid, step.target.as_ref())
                .and_then(|(name, on)| {
                    let (name, mut parameters) = fill_parameters(&state, &name, &step.fills)?;
                    if let Some((pname, value)) = on {
                        parameters.insert(pname, value);
                    }
                    // An action whose required parameter the step leaves empty is not
                    // the one meant: the page the step expects may not have replaced
                    // the last one yet (a capture of the old document, just before
                    // the navigation lands, offers the list's `delete(id)`).
                    let schema = &state["actions"][&name];
                    for p in schema["parameters"].as_array().into_iter().flatten() {
                        let pname = p["name"].as_str().unwrap_or_default();
                        if p["required"] == Value::Bool(true) && !parameters.contains_key(pname) {
                            bail!("{name} needs {pname:?}, which the step does not give");
                        }
                    }
                    Ok((name, parameters))
                });
            match planned {
                Ok((name, parameters)) if settled => {
                    return Ok(Planned {
                        state,
                        name,
                        parameters,
                    })
                }
                Err(e) if Instant::now() >= deadline => {
                    bail!(
                        "step {:?}: {e:#}\n(on {})",
                        step.intent,
                        state["context"]["url"]
                    )
                }
                _ if Instant::now() >= deadline => {
                    bail!("step {:?}: the page never settled", step.intent)
                }
                _ => tokio::time::sleep(Duration::from_millis(150)).await,
            }
        }
    }

    /// Does one step: chooses the action, fills it, sends it through the gate (and to a
    /// person if only the confidence floor refuses it), and records what happened.
    /// Returns nspd's `ActionResponse`.
    pub async fn run(&mut self, step: Step) -> Result<Value> {
        let so_far = self.steps_so_far();
        let started = Instant::now();
        let intent = step.intent.clone();
        let done = self
            .run_inner(step)
            .await
            .with_context(|| format!("{} flow, after the steps:\n{so_far}", self.app));
        println!(
            "[{}] {intent:?} took {} ms (nspd's answer: {} ms, verification {} ms)",
            self.app,
            started.elapsed().as_millis(),
            done.as_ref()
                .map(|r| r["total_latency_ms"].clone())
                .unwrap_or_default(),
            done.as_ref()
                .map(|r| r["verification"]["latency_ms"].clone())
                .unwrap_or_default(),
        );
        done
    }

    fn steps_so_far(&self) -> String {
        FlowReport {
            app: self.app.clone(),
            steps: self.steps.clone(),
            ground_truth_exact: true,
            ground_truth_detail: String::new(),
        }
        .details()
    }

    /// As [`FlowAgent::run`]; but when the state offers no action for the step (none,
    /// several equally good, or a value it does not show, after a short wait), the
    /// person does it by hand with `script`, as [`FlowAgent::person_does`]. The report
    /// says why the agent could not.
    pub async fn run_or_person(&mut self, step: Step, script: &str) -> Result<Value> {
        match self.plan(&step, OFFER_TIMEOUT).await {
            Ok(planned) => {
                let so_far = self.steps_so_far();
                self.execute(step, planned)
                    .await
                    .with_context(|| format!("{} flow, after the steps:\n{so_far}", self.app))
            }
            Err(why) => {
                let why = format!("{why:#}");
                let why = why.lines().next().unwrap_or_default();
                let why = why
                    .split("; the objects")
                    .next()
                    .and_then(|w| w.split("; offered:").next())
                    .unwrap_or_default()
                    .to_owned();
                self.person_does_because(&step.intent, step.truth, script, &why)
                    .await
            }
        }
    }

    async fn run_inner(&mut self, step: Step) -> Result<Value> {
        let planned = self.plan(&step, CHOOSE_TIMEOUT).await?;
        self.execute(step, planned).await
    }

    async fn execute(&mut self, step: Step, planned: Planned) -> Result<Value> {
        let mut planned = planned;
        // A person asked in an earlier attempt stays counted.
        let mut person: Option<Refusal> = None;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let Planned {
                state,
                name,
                parameters,
            } = &planned;
            let schema = &state["actions"][name];
            let tier: Tier = serde_json::from_value(schema["reversibility"].clone())
                .with_context(|| format!("the tier of {name}: {schema}"))?;
            let mut body = json!({"pid": self.pid, "action": name, "parameters": parameters});
            match &step.verify {
                Verify::Auto => body["verify_expression"] = json!(auto_verify(state)),
                Verify::Expr(e) | Verify::Fails(e) | Verify::Unsure(e) => {
                    body["verify_expression"] = json!(e)
                }
                Verify::None => {}
            }
            let fails = matches!(step.verify, Verify::Fails(_));
            let unsure = matches!(step.verify, Verify::Unsure(_));
            if fails || unsure {
                body["verify_timeout_ms"] = json!(1000);
            } else if body.get("verify_expression").is_some() {
                // Real apps' backends on a loaded two-core machine can take longer than
                // the default 5 s to answer a POST (Trac's new ticket did, in CI); polling
                // ends as soon as the expression holds, so this costs nothing otherwise.
                body["verify_timeout_ms"] = json!(FLOW_VERIFY_TIMEOUT_MS);
            }
            let mut record = StepRecord {
                intent: step.intent.clone(),
                action: name.clone(),
                tier,
                confidence: schema["confidence"].as_f64().unwrap_or(0.0),
                page_confidence: state["confidence"].as_f64().unwrap_or(0.0),
                truth: step.truth,
                person: person.clone(),
            };
            body["approval"] = json!("never");
            let (mut status, mut resp) = self.nspd.act(&body).await?;
            if status == 422 && resp["code"] == "confidence_too_low" {
                let refusal = Refusal {
                    code: "confidence_too_low".into(),
                    message: resp["message"].as_str().unwrap_or_default().to_owned(),
                    actual_confidence: resp["actual_confidence"].as_f64(),
                    required_confidence: resp["required_confidence"].as_f64(),
                };
                record.person = Some(refusal.clone());
                person = Some(refusal);
                body["approval"] = json!("ask");
                (status, resp) = self.with_person_approving(&body).await?;
            }
            // The page changed between the decision and dispatch (nothing was sent): read
            // the state again and decide again, as nspd's answer says.
            let changed = (status == 409 && resp["code"] == "stale_state")
                || (status == 422
                    && resp["code"] == "action_failed"
                    && resp["failure"] == "target_changed");
            if changed && attempt < 3 {
                planned = self.plan(&step, CHOOSE_TIMEOUT).await?;
                continue;
            }
            let asked = record.person.is_some();
            self.steps.push(record);
            // The action ran and its expression stayed false.
            let ran_unverified =
                status == 422 && resp["code"] == "verification_failed" && resp["executed"] == true;
            if (fails || unsure) && ran_unverified {
                return Ok(resp);
            }
            if fails {
                bail!(
                    "step {:?}: {name} was to run and leave its expression false, and answered {status}: {resp}",
                    step.intent
                );
            }
            if status != 200 {
                bail!(
                    "step {:?}: {name} answered {status}{}: {resp}\nthe action in the state: {schema:#}",
                    step.intent,
                    if asked { " after the person approved it" } else { "" }
                );
            }
            return Ok(resp);
        }
    }

    /// Sends `body` (with `"approval": "ask"`) and approves its card in the popup with
    /// a real click, as a person does.
    async fn with_person_approving(&self, body: &Value) -> Result<(hyper::StatusCode, Value)> {
        let nspd = self.nspd.clone();
        let body = body.clone();
        let agent = tokio::spawn(async move { nspd.act(&body).await });
        let deadline = Instant::now() + CARD_TIMEOUT;
        loop {
            if agent.is_finished() {
                // Refused before anyone was asked (e.g. another step of the gate).
                return agent.await.context("agent task")?;
            }
            let shown = self
                .browser
                .eval(
                    "return document.querySelectorAll('#approvals .card .approve').length;",
                    json!([]),
                )
                .await
                .context("reading the popup's cards")?;
            if shown.as_u64() == Some(1) {
                break;
            }
            if Instant::now() >= deadline {
                agent.abort();
                bail!("the popup never showed the approval card");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The popup re-renders its cards as news arrives: a button found a moment ago
        // may be gone by the click; find it again.
        let mut tries = 0;
        loop {
            tries += 1;
            let clicked = match self.browser.find("#approvals .card .approve").await {
                Ok(button) => self.browser.click(&button).await,
                Err(e) => Err(e),
            };
            match clicked {
                Ok(()) => {
                    // The person goes back to the page: apps that act on the focused
                    // window's current widget need it (nspd takes a fresh capture
                    // before it dispatches, which this is quicker than).
                    self.focus_app().await;
                    break;
                }
                Err(_) if agent.is_finished() => break,
                Err(e) if tries >= 10 => {
                    agent.abort();
                    return Err(e.context("the person clicks Approve once"));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        agent.await.context("agent task")?
    }

    /// A step the state offers no action for, done by the person by hand: `script`
    /// (a function body, `return` gives its value) runs in the app's tab as the person's
    /// doing. It counts as needing a person (code `not_offered`), never as the agent's.
    /// Use it only when a step cannot be done from the state, so the flow can go on;
    /// the report names it.
    pub async fn person_does(&mut self, intent: &str, truth: Tier, script: &str) -> Result<Value> {
        self.person_does_because(
            intent,
            truth,
            script,
            "the state offers no action for this; a person did it by hand",
        )
        .await
    }

    async fn person_does_because(
        &mut self,
        intent: &str,
        truth: Tier,
        script: &str,
        why: &str,
    ) -> Result<Value> {
        let state = self.state().await?;
        let url = state["context"]["url"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let popup = self.browser.window().await?;
        let result = if self.browser.switch_to_page(&url, &popup).await? {
            Some(self.browser.eval(script, json!([])).await)
        } else {
            None
        };
        self.browser.switch_to(&popup).await?;
        // The app's window stays the one in front, as after the person's approval.
        self.focus_app().await;
        let result = result
            .with_context(|| format!("no window shows the app's page {url}"))?
            .with_context(|| format!("the person's step {intent:?}"))?;
        self.steps.push(StepRecord {
            intent: intent.to_owned(),
            action: "(none offered)".to_owned(),
            tier: truth,
            confidence: 0.0,
            page_confidence: state["confidence"].as_f64().unwrap_or(0.0),
            truth,
            person: Some(Refusal {
                code: "not_offered".to_owned(),
                message: why.to_owned(),
                actual_confidence: None,
                required_confidence: None,
            }),
        });
        Ok(result)
    }

    /// Ends the flow: the report, printed and written to `target/flows/<app>.json`,
    /// then the assertions: no unsafe step, and the ground truth `actual` is exactly
    /// `expected`.
    pub fn finish<T: PartialEq + Debug>(self, actual: T, expected: T) -> FlowReport {
        let exact = actual == expected;
        let report = FlowReport {
            app: self.app.clone(),
            steps: self.steps.clone(),
            ground_truth_exact: exact,
            ground_truth_detail: if exact {
                String::new()
            } else {
                format!("expected {expected:?}, the app has {actual:?}")
            },
        };
        println!("{report}");
        let dir = workspace_root().join("target/flows");
        if std::fs::create_dir_all(&dir).is_ok() {
            let _ = std::fs::write(
                dir.join(format!("{}.json", report.app)),
                serde_json::to_string_pretty(&report.to_json()).unwrap_or_default(),
            );
        }
        assert_eq!(
            report.unsafe_steps(),
            0,
            "a step's tier in the state is lower than its true tier:\n{report}"
        );
        assert!(
            exact,
            "the ground truth is not what the flow did:\n{report}"
        );
        report
    }
}

/// Lowercase words of a text: runs of letters and digits.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `word` is one of `words` (a trailing plural `s` on either side ignored).
fn has_word(words: &[String], word: &str) -> bool {
    let stem = |w: &str| w.strip_suffix('s').unwrap_or(w).to_owned();
    let want = stem(word);
    words.iter().any(|w| w == word || stem(w) == want)
}

/// The state's one page action for `words` (see the module's rules), or an error that
/// lists what was offered.
/// With `NSP_FLOW_DUMP=<dir>`, writes each state a step was planned on to
/// `<dir>/<app>-<intent>.json`: what the agent saw, to see why a step went to a person.
fn dump_state(app: &str, intent: &str, state: &Value) {
    let Some(dir) = std::env::var_os("NSP_FLOW_DUMP") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let name: String = format!("{app}-{intent}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let _ = std::fs::create_dir_all(&dir);
    let text = serde_json::to_string_pretty(state).unwrap_or_default();
    let _ = std::fs::write(dir.join(format!("{name}.json")), text);
}

/// Reads the app's ground truth with `read` until `done` holds of it or `wait` has
/// passed (apps often write after the page has answered: a dialog that saves as it
/// closes), and returns the last reading, for the test to assert on.
pub async fn settle<T>(
    mut read: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
    wait: Duration,
) -> T {
    let deadline = Instant::now() + wait;
    let mut now = read();
    while !done(&now) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        now = read();
    }
    now
}

pub fn choose_action(state: &Value, words: &[String], avoid: &[String]) -> Result<String> {
    choose_action_on(state, words, avoid, None).map(|(name, _)| name)
}

/// [`choose_action`] for a step on one record (`target`, a value the page shows): among
/// the actions with all the words, the one named after the record (every word of the
/// value in its name), else the one with a parameter that picks the record (see
/// [`Step::record`] with no words), with that parameter and its value.
pub fn choose_action_on(
    state: &Value,
    words: &[String],
    avoid: &[String],
    target: Option<&Value>,
) -> Result<(String, Option<(String, Value)>)> {
    let actions = state["actions"]
        .as_object()
        .context("the state has no actions")?;
    let mut in_name = Vec::new();
    let mut anywhere = Vec::new();
    for (name, a) in actions {
        if a["internal_target"]
            .as_str()
            .is_some_and(|t| t.starts_with("builtin:"))
        {
            continue;
        }
        let name_words = words_of(name);
        let mut all_words = name_words.clone();
        all_words.extend(words_of(a["description"].as_str().unwrap_or_default()));
        for p in a["parameters"].as_array().into_iter().flatten() {
            all_words.extend(words_of(p["name"].as_str().unwrap_or_default()));
        }
        if avoid.iter().any(|w| has_word(&all_words, w)) {
            continue;
        }
        if words.iter().all(|w| has_word(&name_words, w)) {
            in_name.push(name.clone());
        } else if words.iter().all(|w| has_word(&all_words, w)) {
            anywhere.push(name.clone());
        }
    }
    let offered = || {
        actions
            .iter()
            .filter(|(_, a)| {
                !a["internal_target"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("builtin:"))
            })
            .map(|(n, a)| {
                format!(
                    "{n} ({} {:.2}: {}; {})",
                    a["reversibility"].as_str().unwrap_or("?"),
                    a["confidence"].as_f64().unwrap_or(0.0),
                    a["description"].as_str().unwrap_or_default(),
                    a["signature"].as_str().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n  ")
    };
    if let Some(target) = target {
        let target_words = words_of(target.as_str().unwrap_or_default());
        let candidates: Vec<&String> = in_name.iter().chain(&anywhere).collect();
        let named: Vec<&&String> = candidates
            .iter()
            .filter(|n| {
                let nw = words_of(n);
                !target_words.is_empty() && target_words.iter().all(|w| has_word(&nw, w))
            })
            .collect();
        if let [one] = named.as_slice() {
            return Ok(((**one).clone(), None));
        }
        let picking: Vec<(String, (String, Value))> = candidates
            .iter()
            .filter_map(|n| Some(((*n).clone(), pick_record(state, &actions[*n], target).ok()?)))
            .collect();
        // One record shown: its action takes no parameter to pick it (one tiddler open
        // has `edit_this_tiddler()`, two have `edit_this_tiddler(index)`). Only when the
        // page shows the record at all.
        let shown = state["objects"].as_object().is_some_and(|o| {
            o.iter().any(|(k, v)| {
                let mut seen = words_of(k);
                seen.extend(words_of(v.as_str().unwrap_or_default()));
                !target_words.is_empty() && target_words.iter().all(|w| has_word(&seen, w))
            })
        });
        let lone: Vec<&&String> = candidates
            .iter()
            .filter(|_| shown)
            .filter(|n| {
                actions[n.as_str()]["parameters"]
                    .as_array()
                    .is_none_or(|ps| ps.iter().all(|p| p["required"] != true))
            })
            .collect();
        // A record's own form says which record it is in ("… (in isso_root[0])"): the
        // one whose record shows the target, as an agent reading the state would take.
        let described: Vec<&&String> = candidates
            .iter()
            .filter(|n| {
                let d = actions[n.as_str()]["description"]
                    .as_str()
                    .unwrap_or_default();
                d.rsplit_once("(in ")
                    .and_then(|(_, r)| r.strip_suffix("])")?.split_once('['))
                    .is_some_and(|(list, n)| {
                        row_showing(state, list, target).is_ok_and(|at| at.to_string() == n)
                    })
            })
            .collect();
        return match (picking.as_slice(), described.as_slice(), lone.as_slice()) {
            (_, [one], _) | ([], [], [one]) => Ok(((**one).clone(), None)),
            ([(name, fill)], _, _) => Ok((name.clone(), Some(fill.clone()))),
            ([], _, _) => bail!(
                "no action with all of {words:?} is named after {target} or takes it; \
                 offered:\n  {}",
                offered()
            ),
            (many, _, _) => bail!(
                "several actions with all of {words:?} take {target}: {:?}; offered:\n  {}",
                many.iter().map(|(n, _)| n).collect::<Vec<_>>(),
                offered()
            ),
        };
    }
    // An action named by exactly these words wins over longer names holding them.
    let exact: Vec<String> = in_name
        .iter()
        .filter(|n| words_of(n) == words)
        .cloned()
        .collect();
    let pick = if exact.len() == 1 {
        exact
    } else if !in_name.is_empty() {
        in_name
    } else {
        anywhere
    };
    match pick.as_slice() {
        [one] => Ok((one.clone(), None)),
        [] => bail!("no action has all of {words:?}; offered:\n  {}", offered()),
        many => bail!(
            "several actions have all of {words:?}: {many:?}; offered:\n  {}",
            offered()
        ),
    }
}

/// The action's parameters for `fills`, checked against the state.
fn fill_parameters(
    state: &Value,
    name: &str,
    fills: &[Fill],
) -> Result<(String, serde_json::Map<String, Value>)> {
    let schema = &state["actions"][name];
    let mut parameters = serde_json::Map::new();
    for fill in fills {
        if fill.words.is_empty() {
            let (pname, value) = pick_record(state, schema, &fill.value)
                .with_context(|| format!("action {name}"))?;
            parameters.insert(pname, value);
            continue;
        }
        let param =
            choose_parameter(schema, &fill.words).with_context(|| format!("action {name}"))?;
        let value = match fill.kind {
            FillKind::Plain => fill.value.clone(),
            FillKind::FromState if state_shows(state, &param, &fill.value) => fill.value.clone(),
            FillKind::FromState => bail!(
                "{} is not a value the state shows for {name}({}) (allowed: {}); the \
                 actions offered: {:?}; the objects: {:#}",
                fill.value,
                param["name"],
                param["allowed_values"],
                state["actions"]
                    .as_object()
                    .map(|a| a.keys().collect::<Vec<_>>()),
                state["objects"]
            ),
            FillKind::IndexOf => json!(index_of(state, &param, &fill.value).with_context(
                || format!("{name}({}): the row showing {}", param["name"], fill.value)
            )?),
        };
        let pname = param["name"].as_str().unwrap_or_default().to_owned();
        parameters.insert(pname, value);
    }
    Ok((name.to_owned(), parameters))
}

/// The `N` of the one row of the list a position parameter names (`… in
/// todos.items[N]` in its description) with a field equal to `value`.
fn index_of(state: &Value, param: &Value, value: &Value) -> Result<u64> {
    let description = param["description"].as_str().unwrap_or_default();
    let list = description
        .split_whitespace()
        .find_map(|w| w.trim_end_matches(['.', ',', ')']).strip_suffix("[N]"))
        .with_context(|| format!("the parameter names no list: {description:?}"))?;
    row_showing(state, list, value)
}

/// The key a key parameter takes (its description names a list's column, `Id from
/// comments[N].id`): that column of the one row of the list with a field equal to
/// `value`, as an agent reads it from the state's `objects`.
fn key_of(state: &Value, param: &Value, value: &Value) -> Result<Value> {
    let description = param["description"].as_str().unwrap_or_default();
    let (list, column) = description
        .split_whitespace()
        .find_map(|w| w.trim_end_matches(['.', ',', ')']).split_once("[N]."))
        .with_context(|| format!("the parameter names no column: {description:?}"))?;
    let n = row_showing(state, list, value)?;
    state["objects"]
        .get(format!("{list}[{n}].{column}"))
        .cloned()
        .with_context(|| format!("{list}[{n}] has no {column}"))
}

/// The `N` of the one row of `list` with a field equal to `value`.
fn row_showing(state: &Value, list: &str, value: &Value) -> Result<u64> {
    let prefix = format!("{list}[");
    let mut found: Vec<u64> = state["objects"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| *v == value)
        .filter_map(|(k, _)| {
            let rest = k.strip_prefix(&prefix)?;
            rest.split(']').next()?.parse().ok()
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    match found.as_slice() {
        [one] => Ok(*one),
        _ => bail!(
            "{} rows of {list} show {value}; the objects: {:#}",
            found.len(),
            state["objects"]
        ),
    }
}

/// The parameter and value that pick the record showing `value`, for a step that names
/// no words: the one parameter whose `allowed_values` hold it; else the one key
/// parameter with a row showing it (that row's key); else the one position parameter
/// with a row showing it (its `N`); else the action's only parameter, if the state
/// shows the value.
fn pick_record(state: &Value, schema: &Value, value: &Value) -> Result<(String, Value)> {
    let params: Vec<&Value> = schema["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let name = |p: &Value| p["name"].as_str().unwrap_or_default().to_owned();
    let holding: Vec<&Value> = params
        .iter()
        .copied()
        .filter(|p| {
            p["allowed_values"]
                .as_array()
                .is_some_and(|a| a.contains(value))
        })
        .collect();
    if let [one] = holding.as_slice() {
        return Ok((name(one), value.clone()));
    }
    let keys: Vec<(String, Value)> = params
        .iter()
        .filter_map(|p| Some((name(p), key_of(state, p, value).ok()?)))
        .collect();
    if let [(pname, key)] = keys.as_slice() {
        return Ok((pname.clone(), key.clone()));
    }
    let positions: Vec<(String, u64)> = params
        .iter()
        .filter_map(|p| Some((name(p), index_of(state, p, value).ok()?)))
        .collect();
    if let [(pname, n)] = positions.as_slice() {
        return Ok((pname.clone(), json!(n)));
    }
    match params.as_slice() {
        [one] if one["allowed_values"].is_null() && state_shows(state, one, value) => {
            Ok((name(one), value.clone()))
        }
        _ => bail!(
            "no parameter picks a record showing {value}; the parameters are: {:#}; the \
             objects: {:#}",
            schema["parameters"],
            state["objects"]
        ),
    }
}

/// The one parameter of `schema` whose name contains every one of `words`.
fn choose_parameter(schema: &Value, words: &[String]) -> Result<Value> {
    let params: Vec<&Value> = schema["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let found: Vec<&&Value> = params
        .iter()
        .filter(|p| {
            let w = words_of(p["name"].as_str().unwrap_or_default());
            words.iter().all(|x| has_word(&w, x))
        })
        .collect();
    // A parameter named by exactly these words wins over longer names holding them.
    let exact: Vec<&&&Value> = found
        .iter()
        .filter(|p| words_of(p["name"].as_str().unwrap_or_default()) == words)
        .collect();
    if let [one] = exact.as_slice() {
        return Ok((***one).clone());
    }
    match found.as_slice() {
        [one] => Ok((**one).clone()),
        _ => bail!(
            "{} parameters have all of {words:?}; the parameters are: {:#}",
            found.len(),
            schema["parameters"]
        ),
    }
}

/// Whether the state shows `value`: one of the parameter's `allowed_values` when it has
/// them, else a value in `objects` (or in a list there).
fn state_shows(state: &Value, param: &Value, value: &Value) -> bool {
    if let Some(allowed) = param["allowed_values"].as_array() {
        return allowed.contains(value);
    }
    let in_objects = state["objects"].as_object().is_some_and(|o| {
        o.values()
            .any(|v| v == value || v.as_array().is_some_and(|a| a.contains(value)))
    });
    in_objects
}

/// Whether `name` is a path segment the verify language reads.
fn is_path_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// `context.url != '<url now>' || changed(<each top-level object>)`, within the
/// default 2048-byte limit.
pub fn auto_verify(state: &Value) -> String {
    let url = state["context"]["url"]
        .as_str()
        .unwrap_or_default()
        .replace('\\', "\\\\")
        .replace('\'', "\\'");
    let mut expr = format!("context.url != '{url}'");
    let mut tops: Vec<&str> = state["objects"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k.split(['.', '[']).next().unwrap_or(k))
        .filter(|t| is_path_name(t))
        .collect();
    tops.dedup();
    tops.sort_unstable();
    tops.dedup();
    for top in tops {
        let clause = format!(" || changed({top})");
        if expr.len() + clause.len() > 2000 {
            break;
        }
        expr.push_str(&clause);
    }
    expr
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> Value {
        json!({
            "context": {"url": "http://127.0.0.1:1/a'b"},
            "objects": {"list.rows[0].title": "A", "list.rows[1].title": "B", "form.q": "", "9x": 1},
            "actions": {
                "open_add_note": {"internal_target": "dom:a", "description": "Follow the link \"Add note\"", "parameters": []},
                "save_note_form": {"internal_target": "dom:b", "description": "Fill the form and press \"Save\"", "parameters": [{"name": "title"}, {"name": "body"}]},
                "save_and_add_another": {"internal_target": "dom:c", "description": "Press \"Save and add another\"", "parameters": [{"name": "title"}]},
                "delete": {"internal_target": "dom:d", "description": "Press \"Delete\" on a row", "parameters": [{"name": "title", "allowed_values": ["A", "B"]}]},
                "click": {"internal_target": "builtin:click", "description": "Click", "parameters": []}
            }
        })
    }

    fn w(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn choosing_prefers_the_name_and_fails_on_ties_or_nothing() {
        let s = state();
        assert_eq!(
            choose_action(&s, &w(&["add", "note"]), &[]).unwrap(),
            "open_add_note"
        );
        assert!(
            choose_action(&s, &w(&["save"]), &[]).is_err(),
            "two in the name"
        );
        assert_eq!(
            choose_action(&s, &w(&["save"]), &w(&["another"])).unwrap(),
            "save_note_form"
        );
        assert_eq!(choose_action(&s, &w(&["delete"]), &[]).unwrap(), "delete");
        // On a record: by a parameter that takes it, or by the action's name.
        assert_eq!(
            choose_action_on(&s, &w(&["delete"]), &[], Some(&json!("B"))).unwrap(),
            ("delete".to_owned(), Some(("title".to_owned(), json!("B"))))
        );
        assert_eq!(
            choose_action_on(&s, &w(&["open"]), &[], Some(&json!("Add note"))).unwrap(),
            ("open_add_note".to_owned(), None)
        );
        // The only action of its words, taking nothing, acts on the one record the
        // page shows; not on a record the page does not show.
        assert_eq!(
            choose_action_on(&s, &w(&["add", "note"]), &[], Some(&json!("A"))).unwrap(),
            ("open_add_note".to_owned(), None)
        );
        assert!(choose_action_on(&s, &w(&["add", "note"]), &[], Some(&json!("Zed"))).is_err());
        // Plural and description words.
        assert_eq!(choose_action(&s, &w(&["row"]), &[]).unwrap(), "delete");
        assert_eq!(
            choose_action(&s, &w(&["notes", "add"]), &[]).unwrap(),
            "open_add_note"
        );
        let err = choose_action(&s, &w(&["click"]), &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("offered") && err.contains("open_add_note"),
            "{err}"
        );
        // Two forms alike, one in a record: on that record, the form that says so.
        let mut s = state();
        s["actions"]["reply"] = json!({"internal_target": "dom:e", "description": "Fill the form and press \"Reply\"", "parameters": [{"name": "text"}]});
        s["actions"]["reply_2"] = json!({"internal_target": "dom:f", "description": "Fill the form and press \"Reply\" (in list.rows[1])", "parameters": [{"name": "text"}]});
        assert_eq!(
            choose_action_on(&s, &w(&["reply"]), &[], Some(&json!("B"))).unwrap(),
            ("reply_2".to_owned(), None)
        );
        assert!(choose_action_on(&s, &w(&["reply"]), &[], Some(&json!("A"))).is_err());
    }

    #[test]
    fn parameters_and_state_values() {
        let s = state();
        let p = choose_parameter(&s["actions"]["delete"], &w(&["title"])).unwrap();
        let pos =
            json!({"name": "index", "description": "0-based position of the row in list.rows[N]"});
        assert_eq!(index_of(&s, &pos, &json!("B")).unwrap(), 1);
        assert!(index_of(&s, &pos, &json!("C")).is_err());
        assert!(state_shows(&s, &p, &json!("B")));
        assert!(!state_shows(&s, &p, &json!("C")));
        assert!(choose_parameter(&s["actions"]["delete"], &w(&["body"])).is_err());
        assert_eq!(
            pick_record(&s, &s["actions"]["delete"], &json!("B")).unwrap(),
            ("title".to_owned(), json!("B"))
        );
        let by_position = json!({"parameters": [pos]});
        assert_eq!(
            pick_record(&s, &by_position, &json!("B")).unwrap(),
            ("index".to_owned(), json!(1))
        );
        assert!(pick_record(&s, &s["actions"]["save_note_form"], &json!("A")).is_err());
        // By a key: the row showing the value, then its key in the state.
        let mut s = s;
        s["objects"]["list.rows[0].id"] = json!("row-7");
        s["objects"]["list.rows[1].id"] = json!("row-9");
        let by_key = json!({"parameters": [{"name": "id", "allowed_values": ["row-7", "row-9"],
            "description": "Id from list.rows[N].id"}]});
        assert_eq!(
            pick_record(&s, &by_key, &json!("B")).unwrap(),
            ("id".to_owned(), json!("row-9"))
        );
        assert!(pick_record(&s, &by_key, &json!("C")).is_err());
    }

    #[test]
    fn the_automatic_check_reads_the_url_and_every_top_level_object() {
        assert_eq!(
            auto_verify(&state()),
            "context.url != 'http://127.0.0.1:1/a\\'b' || changed(form) || changed(list)"
        );
    }
}
