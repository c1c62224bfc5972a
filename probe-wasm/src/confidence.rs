//! How far the state can be trusted as a whole: the probability that every claim it
//! makes at ≥ 0.8 is right *and* that nothing on the page that can write is missing
//! from it or misunderstood (ARCHITECTURE.md, "State confidence"; the reliability
//! table in `probe-wasm/tests/state_confidence.rs` measures it on both corpora).
//!
//! It is not an average of the actions' confidences. What lowers it is a control that
//! could change something and that the probe does not confidently understand:
//! - a control with no name at all (an unlabelled clickable `div`, an icon button with
//!   no label) is a write the probe cannot see into; the value loses
//!   `0.6 × its share` of the page's write-capable controls, so a page built of them
//!   stays well under 0.80 and a clear form beside two of them under 0.95;
//! - a named control the probe rates below 0.8 lowers it
//!   by `0.3 × (1 − confidence) × its share`, so one unclear button among many does
//!   not close a page, and half a page of them does.
//!
//! Controls that cannot change anything, by their structure, do not count at all:
//! links that open a page or move within it (image-only home links, skip links), tabs,
//! disclosure and menu buttons (`aria-expanded`, `aria-haspopup`, `<summary>`), the
//! buttons of an editor's formatting toolbar, and a form's bare "Cancel" / "Close" /
//! "Back". Unsettled and truncated captures lower the value as before. The gate's rule
//! is unchanged: an action is held to the lower of its own and the page's confidence.

use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};

use crate::found::Found;
use crate::page::{control_label, is_editable, ElementRecordExt, Page};

/// Actions at least this sure count as full coverage of their elements.
const CONFIDENT: f64 = 0.8;
/// How much a page made only of controls with no name loses: such a page is one the
/// probe cannot read, and none of its claims can be trusted far.
const UNNAMED_WEIGHT: f64 = 0.6;
/// How much a page made only of named but unclear controls loses.
const UNCLEAR_WEIGHT: f64 = 0.3;
/// A page with nothing to act on at all may be drawn on a canvas the probe cannot read.
const NOTHING_TO_ACT_ON: f64 = 0.9;
const TRUNCATED: f64 = 0.9;
const UNSETTLED: f64 = 0.85;

#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// Visible, enabled interactive elements that could change something.
    pub interactive: usize,
    /// Visible, enabled interactive elements that by their structure cannot (links to
    /// pages, tabs, disclosure and menu buttons, formatting toolbars, bare dismissals).
    pub inert: usize,
    /// Sum of coverage credits (1 per confidently covered element, less for guesses).
    pub covered: f64,
    /// Interactive elements no action covers.
    pub uncovered: usize,
    /// Interactive elements with no name at all, not confidently covered.
    pub unnamed: usize,
    /// Named interactive elements below [`CONFIDENT`]: the sum of `1 - confidence`.
    pub unclear: f64,
    /// How many named interactive elements are below [`CONFIDENT`].
    pub unclear_count: usize,
    /// `covered / interactive`, 1 when there is nothing to act on.
    pub ratio: f64,
}

#[derive(Debug, Clone)]
pub struct StateConfidence {
    pub value: f64,
    pub reason: String,
}

pub fn coverage(page: &Page<'_>, found: &[Found]) -> Coverage {
    // The best confidence of any action covering each element; -1 for none.
    let mut best = vec![-1.0f64; page.els.len()];
    for f in found {
        for b in &f.bound {
            if let Some(slot) = best.get_mut(*b) {
                *slot = slot.max(f.schema.confidence);
            }
        }
    }
    let mut cov = Coverage::default();
    // Per group of controls, whether it is an editor's toolbar (see formats_an_editor):
    // in bits 1 and 2, 0 not known yet, 1 no, 2 yes; and per element around a group,
    // whether it holds an editor (bit 4 no, bit 8 yes). Asked of each of a group's
    // controls, each is read once: a group of thousands of buttons is no n².
    let mut toolbars = vec![0u8; page.els.len()];
    for (i, e) in page.els.iter().enumerate() {
        // Behind an open modal dialog nothing can be reached, so nothing is offered.
        if !e.visible || e.disabled || page.outside_modal(i) {
            continue;
        }
        if !(page.control(i) || chooses(e)) {
            continue;
        }
        // A clickable span inside a button is the button.
        if page
            .ancestors(i)
            .take(3)
            .any(|a| page.control(a) && !page.els[a].clickable)
        {
            continue;
        }
        // A clickable element with no name around a control (a component's host whose
        // shadow root draws its button: Bokeh's) is that control, counted as itself.
        if e.clickable
            && best[i] < 0.0
            && page.descendants(i).any(|d| page.control(d))
            && control_label(e).trim().is_empty()
        {
            continue;
        }
        if best[i] < CONFIDENT && cannot_write(page, i, &mut toolbars) {
            cov.inert += 1;
            continue;
        }
        cov.interactive += 1;
        match best[i] {
            c if c >= CONFIDENT => {
                cov.covered += 1.0;
                continue;
            }
            c if c >= 0.0 => cov.covered += c,
            _ => cov.uncovered += 1,
        }
        // A table's row pressed as a whole is named by its cells.
        let row = e.tag == "tr" || e.role() == "row";
        if control_label(e).trim().is_empty() && !(row && best[i] >= 0.0) {
            cov.unnamed += 1;
        } else {
            cov.unclear += 1.0 - best[i].max(0.0);
            cov.unclear_count += 1;
        }
    }
    cov.ratio = if cov.interactive == 0 {
        1.0
    } else {
        cov.covered / cov.interactive as f64
    };
    cov
}

/// Controls that by their structure cannot change anything an agent must be guarded
/// from: they open or move within a page, show or hide part of it, format the text of
/// an editor that a separate control saves, or step a number field that an action
/// fills.
fn cannot_write(page: &Page<'_>, i: usize, toolbars: &mut [u8]) -> bool {
    let e = &page.els[i];
    if e.tag == "a" && e.role().is_empty() && navigates(e) {
        return true;
    }
    if e.tag == "summary"
        || matches!(e.role(), "tab" | "separator")
        || e.attr("aria-haspopup").is_some_and(|v| v != "false")
        || e.has("aria-expanded")
    {
        return true;
    }
    dismisses(e)
        || formats_an_editor(page, i, toolbars)
        || crate::classify::editor_toolbar_button(page, i)
        || crate::forms::steps_a_field(page, i).is_some()
}

/// A link to another page or a place in this one (`href="#"` and `javascript:` run a
/// script instead, which can do anything).
fn navigates(e: &ElementRecord) -> bool {
    let href = e.attr("href").map(str::trim).unwrap_or("");
    !href.is_empty() && href != "#" && !href.to_ascii_lowercase().starts_with("javascript:")
}

/// A control whose whole label is a dismissal ("Cancel", "Close", "Back"): it
/// leaves without changing anything. "Cancel order" is not one: it names what it ends.
fn dismisses(e: &ElementRecord) -> bool {
    let label = control_label(e);
    let label = label
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '×');
    matches!(
        label.to_ascii_lowercase().as_str(),
        "cancel" | "close" | "dismiss" | "back" | "go back" | "not now"
    )
}

/// A button of an editor's formatting toolbar: inside `role=toolbar`, or one of three
/// or more buttons that submit nothing, grouped right beside a text area or an editable
/// region. What they change is the editor's text, which only its form's own submit
/// sends.
fn formats_an_editor(page: &Page<'_>, i: usize, toolbars: &mut [u8]) -> bool {
    let e = &page.els[i];
    if submits(e) {
        return false;
    }
    if page
        .ancestors(i)
        .take(4)
        .any(|a| page.els[a].role() == "toolbar")
    {
        return true;
    }
    let Some(group) = page.ancestors(i).next() else {
        return false;
    };
    if toolbars[group] & 3 == 0 {
        let beside = editor_beside(page, group, toolbars);
        toolbars[group] |= 1 + u8::from(beside);
    }
    toolbars[group] & 3 == 2
}

/// Three or more controls under `group`, none of which submits, beside a text area or
/// an editable region.
fn editor_beside(page: &Page<'_>, group: usize, toolbars: &mut [u8]) -> bool {
    let mut controls = 0;
    for d in page.descendants(group) {
        if page.control(d) {
            if submits(&page.els[d]) {
                return false;
            }
            controls += 1;
        }
    }
    if controls < 3 {
        return false;
    }
    // The editor sits beside the group: under the group's parent (or grandparent),
    // each asked once (bits 4 and 8 of `toolbars`): the cells of a table of thousands of
    // rows ask about the one table.
    page.ancestors(group).take(2).any(|around| {
        if toolbars[around] & 12 == 0 {
            let holds = page.descendants(around).any(|d| {
                let el = &page.els[d];
                el.tag == "textarea" || is_editable(el)
            });
            toolbars[around] |= if holds { 8 } else { 4 };
        }
        toolbars[around] & 8 != 0
    })
}

fn submits(e: &ElementRecord) -> bool {
    match e.tag.as_str() {
        "button" => matches!(
            e.attr("type").map(str::trim),
            None | Some("submit") | Some("")
        ),
        "input" => matches!(e.input_type().as_ref(), "submit" | "image"),
        _ => false,
    }
}

/// Fields that act when chosen: a select, a checkbox or radio, a switch. (Controls are
/// [`Page::control`]: the page's own judgement, which leaves out landmarks, panels and
/// containers that only hold controls.)
fn chooses(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    e.tag == "select"
        || (e.tag == "input" && matches!(e.input_type().as_ref(), "checkbox" | "radio"))
        || matches!(e.role(), "switch" | "checkbox" | "radio")
}

pub fn state(snapshot: &PageSnapshot, cov: &Coverage) -> StateConfidence {
    let (mut value, mut reason) = if cov.interactive == 0 && cov.inert == 0 {
        (
            NOTHING_TO_ACT_ON,
            "nothing on the page to act on; only the builtins apply".to_owned(),
        )
    } else if cov.interactive == 0 {
        (
            1.0,
            format!(
                "{} controls, none of which can change anything (links, tabs, menus)",
                cov.inert
            ),
        )
    } else {
        let n = cov.interactive as f64;
        let value =
            1.0 - UNNAMED_WEIGHT * cov.unnamed as f64 / n - UNCLEAR_WEIGHT * cov.unclear / n;
        let mut reason = format!(
            "{} of {} controls that can change something are understood",
            cov.interactive - cov.unclear_count - cov.unnamed,
            cov.interactive
        );
        if cov.unnamed > 0 {
            reason.push_str(&format!("; {} unnamed", cov.unnamed));
        }
        if cov.unclear_count > 0 {
            reason.push_str(&format!("; {} unclear", cov.unclear_count));
        }
        (value, reason)
    };
    if snapshot.truncated {
        value *= TRUNCATED;
        reason.push_str("; the page is larger than one extraction covers");
    }
    if snapshot.unsettled {
        value *= UNSETTLED;
        reason.push_str("; the page is still loading or changing");
    }
    StateConfidence {
        value: crate::round4(value.clamp(0.0, 1.0)),
        reason,
    }
}
