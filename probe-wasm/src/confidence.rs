//! How well the probe understood a page. The state's confidence is not an average of
//! action confidences: it measures coverage (how many of the page's visible interactive
//! elements are explained by a confident action), whether the DOM has settled, and
//! whether the extraction was complete. A clearly built page reaches 0.95 once settled;
//! a page of unlabelled clickable divs cannot, so the gate keeps its writes closed.

use nsp_protocol::snapshot::PageSnapshot;

use crate::discover::Found;
use crate::page::{is_control, ElementRecordExt, Page};

/// Actions at least this sure count as full coverage of their elements.
const CONFIDENT: f64 = 0.8;

#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// Visible, enabled interactive elements.
    pub interactive: usize,
    /// Sum of coverage credits (1 per confidently covered element, less for guesses).
    pub covered: f64,
    /// Interactive elements no action covers.
    pub uncovered: usize,
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
    for (i, e) in page.els.iter().enumerate() {
        if !e.visible || e.disabled || !is_interactive(e) {
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
        cov.interactive += 1;
        match best[i] {
            c if c >= CONFIDENT => cov.covered += 1.0,
            c if c >= 0.0 => cov.covered += c,
            _ => cov.uncovered += 1,
        }
    }
    cov.ratio = if cov.interactive == 0 {
        1.0
    } else {
        cov.covered / cov.interactive as f64
    };
    cov
}

fn is_interactive(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    is_control(e)
        || e.tag == "select"
        || (e.tag == "input" && matches!(e.input_type().as_ref(), "checkbox" | "radio"))
        || matches!(e.role(), "switch" | "checkbox" | "radio")
}

pub fn state(snapshot: &PageSnapshot, cov: &Coverage) -> StateConfidence {
    let (mut value, mut reason) = if cov.interactive == 0 {
        (
            0.9,
            "nothing on the page to act on; only the builtins apply".to_owned(),
        )
    } else {
        (
            0.4 + 0.6 * cov.ratio,
            format!(
                "{}% of {} visible interactive elements are explained by confident actions{}",
                (cov.ratio * 100.0).round() as u32,
                cov.interactive,
                if cov.uncovered > 0 {
                    format!(" ({} not understood)", cov.uncovered)
                } else {
                    String::new()
                }
            ),
        )
    };
    if snapshot.truncated {
        value *= 0.9;
        reason.push_str("; the page is larger than one extraction covers");
    }
    if snapshot.unsettled {
        value *= 0.85;
        reason.push_str("; the page is still loading or changing");
    }
    StateConfidence {
        value: crate::round4(value.clamp(0.0, 1.0)),
        reason,
    }
}
