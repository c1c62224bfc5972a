//! Discovery: from a flat element table to actions, tiers, confidence and objects.
//!
//! Sources, most trusted first: declarations (WebMCP tools, `data-nsp-*`, WebMCP's
//! declarative `toolname` forms), forms (and fields grouped with a button without a
//! `<form>`), repeated row controls (one parameterized action), standalone controls,
//! builtins. Each source claims the elements it binds, so an element is offered by the
//! most trusted source that understands it and by no other.
//!
//! Action names come from page text and must stay the same from capture to capture for
//! the same page structure: every pass walks the table in document order, and a name
//! that collides is qualified by its namespace before any counter is added.

use std::collections::BTreeMap;

use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::{Context, PageCapture, ProbeMetadata, ProbeTier};

use crate::confidence::Coverage;
use crate::found::{Claims, Found, Source};
use crate::lists::TextSource;
use crate::objects::Limits;
use crate::page::Page;
use crate::text::{clip, host, slug, view_of, MAX_DESCRIPTION_LEN};
use crate::HashMap;
use crate::{builtins, confidence, confirms, controls, declared, forms, lists, objects, rows};

/// Most actions one capture offers (builtins come on top).
const MAX_ACTIONS: usize = 300;

/// What an analysis knows beyond the capture, kept by a [`crate::Probe`] so that a later
/// change of text alone can be applied without analysing the page again.
#[derive(Debug, Clone, Default)]
pub struct Reuse {
    /// For each element whose text only feeds values: the keys read from it, and how.
    pub text_keys: TextKeys,
    /// The coverage the state's confidence was computed from.
    pub coverage: Coverage,
}

/// The keys read from each element's text: a chain per element through one list (no
/// map keyed by element: one kind of hash map fewer in the wasm).
#[derive(Debug, Clone, Default)]
pub struct TextKeys {
    /// Per element, its last entry in `keys` plus one (0: none).
    last: Vec<u32>,
    /// A key, how it is read, and the element's entry before it plus one (0: none).
    keys: Vec<(String, TextSource, u32)>,
}

impl TextKeys {
    fn push(&mut self, i: usize, key: String, how: TextSource) {
        if self.last.len() <= i {
            self.last.resize(i + 1, 0);
        }
        self.keys.push((key, how, self.last[i]));
        self.last[i] = self.keys.len() as u32;
    }

    /// Whether element `i`'s text feeds any key.
    pub fn has(&self, i: usize) -> bool {
        self.last.get(i).is_some_and(|&k| k > 0)
    }

    /// The keys element `i`'s text feeds, and how each is read.
    pub fn of(&self, i: usize) -> impl Iterator<Item = (&str, TextSource)> {
        let mut next = self.last.get(i).copied().unwrap_or(0);
        std::iter::from_fn(move || {
            let (key, how, before) = self.keys.get(next.checked_sub(1)? as usize)?;
            next = *before;
            Some((key.as_str(), *how))
        })
    }
}

/// Analyses one snapshot.
pub fn analyze(snapshot: &PageSnapshot, tier: ProbeTier, limits: Limits) -> PageCapture {
    analyze_with_reuse(snapshot, tier, limits, &[]).0
}

/// Analyses one snapshot and says what a text-only change may reuse.
pub fn analyze_with_reuse(
    snapshot: &PageSnapshot,
    tier: ProbeTier,
    limits: Limits,
    fixes: &[crate::corrections::Fix],
) -> (PageCapture, Reuse) {
    let mut page = Page::new(snapshot);
    page.facts = crate::context::PageFacts::gather(&page);
    let page = page;
    let lists = lists::find(&page);
    let mut claims = Claims::new(snapshot.elements.len());
    let mut found = Vec::new();
    declared::discover(&page, &lists, &mut claims, &mut found);
    forms::claim_fields_buttons(&page, &mut claims);
    let left = forms::discover(&page, &lists, &mut claims, &mut found);
    rows::discover(&page, &lists, &mut claims, &mut found);
    forms::discover_left(&page, &left, &mut claims, &mut found);
    forms::discover_implicit(&page, &lists, &mut claims, &mut found);
    controls::discover(&page, &lists, &mut claims, &mut found);
    if page.modal.is_some() {
        // Behind an open modal dialog a person reaches nothing: what was found there is
        // not offered (the page's text there is still read into `objects`).
        found.retain(|f| f.bound.is_empty() || f.bound.iter().any(|&b| !page.outside_modal(b)));
    }
    put_twins_to_a_person(&page, &mut found);
    settle_names(&page, &mut found);
    // The person's (and agents') corrections name actions as agents see them, and count
    // for coverage like declarations.
    crate::corrections::apply(fixes, &mut found);
    let coverage = confidence::coverage(&page, &found);
    // After coverage: a confirm() tells what an action does, not that the probe
    // understood the page less.
    confirms::raise(&page, &snapshot.confirmed_controls, &mut found);
    found.truncate(MAX_ACTIONS);
    let mut actions = BTreeMap::new();
    let mut explain = BTreeMap::new();
    for f in found {
        actions.insert(f.name.clone(), f.schema);
        explain.insert(f.name, f.explain);
    }
    builtins::add(&mut actions);

    let objects = objects::extract(&page, &lists, limits);
    let state_confidence = confidence::state(snapshot, &coverage);

    let app_name = snapshot
        .site_name
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| Some(snapshot.title.as_str()).filter(|s| !s.trim().is_empty()))
        .map(|s| clip(s, MAX_DESCRIPTION_LEN))
        .unwrap_or_else(|| host(&snapshot.url).to_owned());
    let raw_object_count = objects.raw_count as u64;
    let objects_truncated = objects.truncated;
    let mut text_keys = TextKeys::default();
    for (i, key, how) in objects.text_sources {
        let _e = &page.els[i];
        // Text that also names or labels something needs the full analysis.
        let plain_value =
            !page.control(i) && !page.field(i) && !page.heading(i) && !page.region_el(i);
        if plain_value {
            text_keys.push(i, key, how);
        }
    }
    let reuse = Reuse {
        text_keys,
        coverage: coverage.clone(),
    };
    let objects = objects.values;
    let capture = PageCapture {
        app_name,
        confidence: state_confidence.value,
        context: Context {
            url: Some(snapshot.url.clone()),
            location: Some(host(&snapshot.url).to_owned()),
            view: Some(view_of(&snapshot.url)),
            window_title: Some(clip(&snapshot.title, MAX_DESCRIPTION_LEN)),
            window_id: None,
        },
        probe_metadata: ProbeMetadata {
            capture_latency_ms: snapshot.extract_ms,
            labeling_latency_ms: 0.0,
            total_latency_ms: snapshot.extract_ms,
            raw_object_count,
            filtered_object_count: objects.len() as u64,
            cache_hit: false,
            probe_tier: Some(tier),
            element_count: snapshot.elements.len() as u64,
            probe_version: env!("CARGO_PKG_VERSION").to_owned(),
            settled: !snapshot.unsettled,
            coverage: Some(crate::round4(coverage.ratio)),
            confidence_reason: Some(state_confidence.reason),
            objects_truncated,
        },
        objects,
        actions: {
            for a in actions.values_mut() {
                a.confidence = crate::round4(a.confidence);
            }
            actions
        },
        explain,
    };
    (capture, reuse)
}

/// `name` with the numbers `label` holds between the words `name` was made of, before
/// any bracket: "Apply heading level 2 formatting to lines" turns
/// `apply_heading_level_formatting_to_lines` into `apply_heading_level_2_formatting_to_lines`.
/// `name` itself when its words are not the label's in order.
fn with_numbers(name: &str, label: &str) -> String {
    // The label up to a bracket: what follows one is a count or a shortcut.
    let full = slug(label.split(['(', '[']).next().unwrap_or(label));
    let want: Vec<&str> = name.split('_').collect();
    let mut out: Vec<&str> = Vec::new();
    let mut k = 0;
    for token in full.split('_') {
        if k == want.len() {
            break;
        }
        if token == want[k] {
            k += 1;
            out.push(token);
        } else if k > 0 && !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
            out.push(token);
        }
    }
    if k < want.len() {
        return name.to_owned();
    }
    out.join("_")
}

/// The most a write may be trusted when other writes look exactly like it.
const TWIN_CONFIDENCE: f64 = 0.5;

/// Writes nothing in the state tells apart: two or more with one name, one description
/// and the same parameters that are not the submit buttons of one `<form>` (those send
/// the same fields). A Streamlit app's "Delete" on each row it draws with `<div>`s, or
/// "Add to cart" on cards in which no list was found: which one an agent means, only a
/// person seeing the page can tell, so each is put to one (the gate asks).
fn put_twins_to_a_person(page: &Page<'_>, found: &mut [Found]) {
    // What an agent tells a write by: its name, description and parameters, and the
    // kind of element it is (a real button and a dialog's header the page listens on
    // for dragging, both saying "Delete", do not look alike). None: not a write.
    let keys: Vec<Option<String>> = found
        .iter()
        .map(|f| {
            (f.schema.reversibility != nsp_protocol::Reversibility::Read
                && matches!(f.source, Source::Form | Source::Control))
            .then(|| {
                let mut k = format!("{}\u{1}{}\u{1}", f.name, f.schema.description);
                for p in &f.schema.parameters {
                    k.push_str(&p.name);
                    k.push(',');
                }
                if let Some(&b) = f.bound.first() {
                    k.push_str(&page.els[b].tag);
                }
                k
            })
        })
        .collect();
    let form_of = |f: &Found| f.bound.first().and_then(|&b| page.form[b]);
    // A twin, unless both submit one `<form>`: a write outside a form is one when any
    // other write has its key, one in a form when a write outside that form has it.
    // Counted, not compared pairwise: a page of thousands of one button is no n². One
    // map counts both: a key ends with a tag, a `,` or a `\u{1}`, never with `\u{2}`
    // and a form's number (no element's name holds a control character).
    let mut count: HashMap<String, usize> = HashMap::default();
    let form_key = |key: &str, form: usize| format!("{key}\u{2}{form}");
    for (f, key) in found.iter().zip(&keys) {
        let Some(key) = key else {
            continue;
        };
        *crate::slot(&mut count, key.clone()) += 1;
        if let Some(form) = form_of(f) {
            *crate::slot(&mut count, form_key(key, form)) += 1;
        }
    }
    let count_of = |k: &str| crate::kept(&count, k).unwrap_or(0);
    for i in 0..found.len() {
        let Some(key) = &keys[i] else {
            continue;
        };
        let alike = count_of(key);
        let twinned = match form_of(&found[i]) {
            None => alike > 1,
            Some(form) => alike > count_of(&form_key(key, form)),
        };
        if twinned {
            let f = &mut found[i];
            f.schema.confidence = f.schema.confidence.min(TWIN_CONFIDENCE);
            f.explain.confidence_reason = "controls just like it, and nothing in the state tells them apart: a person is asked which".into();
        }
    }
}

/// Gives every action a unique, stable name: the first claimant (most trusted source,
/// a real control before an element the page only listens on, then document order)
/// keeps the plain name, later ones are qualified by namespace, then numbered.
fn settle_names(page: &Page<'_>, found: &mut Vec<Found>) {
    // By source, then a real control before a plain element, document order kept within:
    // one bucket each (a stable sort's code is kilobytes of wasm per element type).
    let rank = |f: &Found| {
        let plain = f
            .bound
            .first()
            .is_some_and(|&b| crate::page::plain_clickable(&page.els[b]));
        f.source as usize * 2 + usize::from(plain)
    };
    let mut buckets: Vec<Vec<Found>> = Vec::new();
    for f in found.drain(..) {
        let r = rank(&f);
        if buckets.len() <= r {
            buckets.resize_with(r + 1, Vec::new);
        }
        buckets[r].push(f);
    }
    found.extend(buckets.into_iter().flatten());
    // Controls whose names differ only by the numbers their labels hold ("Apply heading
    // level 1", "… level 2") are told apart by them: a name leaves numbers out so that a
    // count does not rename its control, but here they are what the controls are. A
    // number in brackets stays a count ("Replies (3)").
    let mut shared: HashMap<String, usize> = HashMap::default();
    for f in found.iter() {
        *crate::slot(&mut shared, f.name.clone()) += 1;
    }
    // So are twins of one label drawn with different icons, by their icons' names
    // (`nsp-icon`, extract.js): django-wiki's "Sub-articles for Recipes", a sitemap
    // and a file, are `sub_articles_for_recipes_sitemap` and `…_file`.
    for f in found.iter_mut() {
        if crate::kept(&shared, &f.name).is_some_and(|n| n > 1) {
            if let Some(&b) = f.bound.first() {
                let label = crate::page::control_label(&page.els[b]);
                f.name = with_numbers(&f.name, &label);
                if let Some(icon) =
                    crate::page::ElementRecordExt::attr(&page.els[b], "nsp-icon").map(slug)
                {
                    if !icon.is_empty() {
                        f.name = format!("{}_{icon}", f.name);
                    }
                }
            }
        }
    }
    let mut taken: HashMap<String, usize> = builtins::NAMES
        .iter()
        .map(|n| ((*n).to_owned(), 0))
        .collect();
    let mut next: HashMap<String, usize> = HashMap::default();
    for f in found.iter_mut() {
        let base = if f.name.is_empty() {
            "action".to_owned()
        } else {
            f.name.clone()
        };
        let mut name = base.clone();
        if crate::kept(&taken, &name).is_some() {
            if let Some(ns) = f.ns.as_deref().map(slug).filter(|s| !s.is_empty()) {
                name = format!("{base}_{ns}");
            }
            name = crate::text::number_on(name, &mut next, &|n| crate::kept(&taken, n).is_some());
        }
        *crate::slot(&mut taken, name.clone()) = 0;
        f.name = name;
    }
}
