//! An index over the flat element table: parent and subtree links, the form, region,
//! dialog, declared row and declared record around each element, computed in one
//! forward pass (parents come before children) and one backward pass. Everything the
//! discovery passes ask about structure is O(1) here, which keeps a capture linear in
//! the size of the page.

use nsp_protocol::secrets;
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};

use crate::text::{clip, slug};
use crate::HashMap;

const CONTROL: u8 = 1;
const FIELD: u8 = 2;
const REGION: u8 = 4;
const HEADING: u8 = 8;
/// A `<form>` element holding a control that submits it.
const SENT: u8 = 16;

/// How many recorded ancestors an element may have and still be read. Real pages nest
/// their records a dozen deep at most (the corpus: 11); a page nesting thousands would
/// make every selector at that depth thousands of steps long, and the analysis
/// quadratic in time and its capture in size (a 3,000-deep chain: 7 s and 1.3 GB of
/// capture), in the service worker every tab shares. See [`trim_deep`].
pub const MAX_DEPTH: usize = 128;

/// Each record's number of recorded ancestors (a parent that does not point backwards
/// is none, as in [`Page`]).
fn depths(els: &[ElementRecord]) -> Vec<usize> {
    let mut depth = vec![0usize; els.len()];
    for i in 0..els.len() {
        if let Some(p) = els[i].parent.map(|p| p as usize).filter(|&p| p < i) {
            depth[i] = depth[p] + 1;
        }
    }
    depth
}

/// Whether a record of `snap` is deeper than [`MAX_DEPTH`].
pub fn too_deep(snap: &PageSnapshot) -> bool {
    depths(&snap.elements).iter().any(|&d| d > MAX_DEPTH)
}

/// Drops the records of `snap` deeper than [`MAX_DEPTH`] (their subtrees go with them)
/// and marks it truncated, as a snapshot cut at its record cap is; whether it did.
/// The records kept are numbered anew, so the snapshot no longer matches the page's
/// record table: a patch cannot apply to it.
pub fn trim_deep(snap: &mut PageSnapshot) -> bool {
    let depth = depths(&snap.elements);
    if depth.iter().all(|&d| d <= MAX_DEPTH) {
        return false;
    }
    // A kept record's parent is shallower, so kept too.
    let mut new_index = vec![0u32; depth.len()];
    let mut kept = 0u32;
    for (i, d) in depth.iter().enumerate() {
        if *d <= MAX_DEPTH {
            new_index[i] = kept;
            kept += 1;
        }
    }
    let mut i = 0;
    snap.elements.retain_mut(|e| {
        let keep = depth[i] <= MAX_DEPTH;
        if keep {
            e.parent = e
                .parent
                .filter(|&p| (p as usize) < i)
                .map(|p| new_index[p as usize]);
        }
        i += 1;
        keep
    });
    snap.truncated = true;
    true
}

/// Answers a pass keeps by name while it asks ([`Page::memo`]); taken and put back
/// around each use.
#[derive(Default)]
pub struct Memo(pub std::cell::Cell<crate::HashMap<String, usize>>);

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

/// The snapshot plus structure.
#[derive(Debug)]
pub struct Page<'a> {
    pub snap: &'a PageSnapshot,
    pub els: &'a [ElementRecord],
    /// Parent links, with anything that does not point backwards dropped.
    pub parent: Vec<Option<usize>>,
    /// One past the last record of each element's subtree.
    pub end: Vec<usize>,
    /// Nearest `<form>` ancestor.
    pub form: Vec<Option<usize>>,
    /// Nearest named region ancestor (landmark, section, form, dialog… with a name).
    pub region: Vec<Option<usize>>,
    /// The namespace slug of each named region.
    pub region_name: Vec<Option<String>>,
    /// Inside a `<dialog>` or `role=dialog`.
    pub in_dialog: Vec<bool>,
    /// The open modal dialog ([`is_modal`]), if any: while it is open a person can
    /// reach nothing outside it, so nothing outside it is offered (what it shows is
    /// still read into `objects`).
    pub modal: Option<usize>,
    /// Nearest ancestor-or-self that declares row parameters (`data-nsp-param="a=1"`).
    pub row: Vec<Option<usize>>,
    /// Nearest ancestor that is a declared list record (`data-nsp-key="x[]"`).
    pub record: Vec<Option<usize>>,
    /// Inside (or on) an element whose state the page declared with `data-nsp-key`;
    /// heuristics leave such subtrees alone.
    pub declared_scope: Vec<bool>,
    /// What the page as a whole says (context for the classifier), gathered once.
    /// Filled in by the analysis (`context.rs`) once the page is built.
    pub facts: crate::facts::PageFacts,
    /// What each element is (`CONTROL`, `FIELD`, `REGION`, `HEADING` bits), decided once:
    /// the passes ask about every element many times, and each answer reads attributes.
    kind: Vec<u8>,
    /// Children of each element, as ranges into `child_list`.
    child_start: Vec<usize>,
    child_list: Vec<usize>,
    /// The prefixes of ids the page's framework numbers ([`numbered_prefixes`]).
    numbered: Vec<&'a str>,
    /// Each radio button's group ([`radio_group`]): the recorded element holding it,
    /// and its members as the range `radio_lo..radio_hi` of `radio_list`. Empty when
    /// the page has no radio button; `radio_hi` 0 for an element in no group.
    radio_holder: Vec<u32>,
    radio_lo: Vec<u32>,
    radio_hi: Vec<u32>,
    radio_list: Vec<usize>,
    /// Whether a group holds a control saying a verb (`classify::evidence`'s undoing
    /// verb), by "group\u{1}verb": 1 no, 2 yes. Each control of a group asked it of the
    /// whole group: thousands of "Close" buttons in one were n². And the element of each
    /// id, by "\u{2}id" ([`Page::by_id`]).
    pub memo: Memo,
}

impl<'a> Page<'a> {
    /// The first element whose `id` is `id`, as `getElementById` finds it, through an
    /// index of every id made on the first question: each of thousands of controls
    /// naming what it opens by id read the whole page.
    pub fn by_id(&self, id: &str) -> Option<usize> {
        let mut memo = self.memo.0.take();
        if crate::kept(&memo, "\u{2}").is_none() {
            *crate::slot(&mut memo, "\u{2}".into()) = 0;
            for (i, e) in self.els.iter().enumerate().rev() {
                if let Some(id) = e.attr("id") {
                    *crate::slot(&mut memo, format!("\u{2}{id}")) = i;
                }
            }
        }
        let found = crate::kept(&memo, &format!("\u{2}{id}"));
        self.memo.0.set(memo);
        found
    }

    pub fn new(snap: &'a PageSnapshot) -> Page<'a> {
        let els = snap.elements.as_slice();
        let n = els.len();
        let parent: Vec<Option<usize>> = els
            .iter()
            .enumerate()
            .map(|(i, e)| e.parent.map(|p| p as usize).filter(|p| *p < i))
            .collect();

        let mut end: Vec<usize> = (1..=n).collect();
        for i in (0..n).rev() {
            if let Some(p) = parent[i] {
                end[p] = end[p].max(end[i]);
            }
        }

        let mut counts = vec![0usize; n + 1];
        for p in parent.iter().flatten() {
            counts[*p] += 1;
        }
        let mut child_start = vec![0usize; n + 1];
        for i in 0..n {
            child_start[i + 1] = child_start[i] + counts[i];
        }
        let mut fill = child_start.clone();
        let mut child_list = vec![0usize; child_start[n]];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = p {
                child_list[fill[*p]] = i;
                fill[*p] += 1;
            }
        }

        let kind = els
            .iter()
            .map(|e| {
                let bit = |yes: bool, bit: u8| if yes { bit } else { 0 };
                bit(is_control(e), CONTROL)
                    | bit(is_field(e), FIELD)
                    | bit(is_region(e), REGION)
                    | bit(is_heading(e), HEADING)
            })
            .collect();
        let mut page = Page {
            snap,
            els,
            kind,
            parent,
            end,
            form: vec![None; n],
            region: vec![None; n],
            region_name: vec![None; n],
            in_dialog: vec![false; n],
            modal: None,
            row: vec![None; n],
            record: vec![None; n],
            declared_scope: vec![false; n],
            facts: crate::facts::PageFacts::default(),
            child_start,
            child_list,
            numbered: numbered_prefixes(els),
            radio_holder: Vec::new(),
            radio_lo: Vec::new(),
            radio_hi: Vec::new(),
            radio_list: Vec::new(),
            memo: Default::default(),
        };
        page.demote_containers();
        page.demote_control_parts();
        page.modal = page.open_modal();
        page.derive_context();
        // After derive_context: lone names are counted per form.
        page.group_radios();
        // Which forms hold a control that submits them, asked once per page (each
        // button of a form asked it of the whole form: thousands of buttons were n²).
        for d in 0..n {
            if submits_form(&page, d) {
                let mut a = page.parent[d];
                while let Some(x) = a {
                    if page.els[x].tag == "form" {
                        page.kind[x] |= SENT;
                    }
                    a = page.parent[x];
                }
            }
        }
        page
    }

    /// Finds every radio button's group once ([`radio_group`]), in time linear in the
    /// radios and their selectors: a page of thousands of radios is no n².
    ///
    /// The radios that may group are put in classes: those with no name or a generated
    /// one by their name, and those whose name no other radio of their form (or, outside
    /// any form, of the page) has by their form. Within a class, in document order, the
    /// radios sharing the most selector steps with a radio are the run around it not
    /// broken by a pair that shares fewer: elements sharing a DOM ancestor are a run of
    /// the document's order, and so are selectors sharing their first steps.
    fn group_radios(&mut self) {
        let n = self.els.len();
        let name = |o: usize| self.els[o].attr("name").map_or("", str::trim);
        let form = |o: usize| self.form[o].unwrap_or(usize::MAX);
        // How many radios of each form have each name (the form's number first, so no
        // name makes two keys alike).
        let key = |o: usize| format!("{}\u{2}{}", form(o), name(o));
        let mut radios = Vec::new();
        let mut per: crate::HashMap<String, usize> = crate::HashMap::default();
        for (o, e) in self.els.iter().enumerate() {
            if e.tag == "input" && e.input_type() == "radio" {
                radios.push(o);
                *crate::slot(&mut per, key(o)) += 1;
            }
        }
        let mut classes: crate::HashMap<String, Vec<usize>> = crate::HashMap::default();
        for &o in &radios {
            let class = if !stable_id(name(o)) {
                format!("\u{2}{}", name(o))
            } else if crate::kept(&per, &key(o)) == Some(1) {
                format!("\u{1}{}", form(o))
            } else {
                // A name others of its form share: HTML's group.
                continue;
            };
            crate::members(&mut classes, class).push(o);
        }
        if classes.is_empty() {
            return;
        }
        let (mut holder, mut lo, mut hi) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
        let mut list = Vec::new();
        for c in classes.values() {
            let base = list.len();
            list.extend_from_slice(c);
            // The steps each radio's selector shares with the next one's.
            let mut sel = Vec::new();
            for &o in c {
                sel.push(self.selector(o));
            }
            let mut shared = Vec::new();
            for w in sel.windows(2) {
                shared.push(
                    w[0].split(" > ")
                        .zip(w[1].split(" > "))
                        .take_while(|(x, y)| x == y)
                        .count(),
                );
            }
            // For each pair, the run of radios around it whose pairs share as many: its
            // first radio and its last.
            let pairs = shared.len();
            let (mut first, mut last) = (vec![0; pairs], vec![0; pairs]);
            let mut stack: Vec<usize> = Vec::new();
            for j in 0..pairs {
                while stack.last().is_some_and(|&t| shared[t] >= shared[j]) {
                    stack.pop();
                }
                first[j] = stack.last().map_or(0, |&t| t + 1);
                stack.push(j);
            }
            stack.clear();
            for j in (0..pairs).rev() {
                while stack.last().is_some_and(|&t| shared[t] >= shared[j]) {
                    stack.pop();
                }
                last[j] = stack.last().map_or(pairs, |&t| t);
                stack.push(j);
            }
            for (k, &i) in c.iter().enumerate() {
                // The nearest recorded ancestor holding another of the class, within its
                // form.
                let left_in = |a: usize| k > 0 && a < c[k - 1];
                let right_in = |a: usize| c.get(k + 1).is_some_and(|&d| d < self.end[a]);
                let Some(a) = self
                    .ancestors(i)
                    .find(|&a| left_in(a) || right_in(a) || self.els[a].tag == "form")
                    .filter(|&a| left_in(a) || right_in(a))
                else {
                    continue;
                };
                // The run of those sharing the most steps with it, within `a` (a page's
                // selectors that start afresh, at an id, may reach past it).
                let left = left_in(a).then(|| shared[k - 1]);
                let right = right_in(a).then(|| shared[k]);
                let most = left.max(right);
                let mut start = if left == most { first[k - 1] } else { k };
                let mut end = if right == most { last[k] } else { k };
                while c[start] <= a {
                    start += 1;
                }
                while c[end] >= self.end[a] {
                    end -= 1;
                }
                holder[i] = a as u32;
                lo[i] = (base + start) as u32;
                hi[i] = (base + end + 1) as u32;
            }
        }
        self.radio_holder = holder;
        self.radio_lo = lo;
        self.radio_hi = hi;
        self.radio_list = list;
    }

    /// A plain element the page listens for clicks on that holds fields or several
    /// controls of its own is a container handling its children's clicks (a dock panel,
    /// a card list), not one more action: its children are the actions. Bottom-up, so a
    /// container inside another counts as no control of the outer one.
    fn demote_containers(&mut self) {
        let n = self.els.len();
        // Controls and fields in each element's subtree (itself excluded).
        let mut inside = vec![0usize; n];
        let mut fields = vec![0usize; n];
        // Preformatted blocks in each subtree: a plain element listening for clicks
        // around one is the surface of a code editor or viewer (CodeMirror's scroller
        // around its `pre` lines), whose text is content, not a label.
        let mut pre = vec![false; n];
        for i in (0..n).rev() {
            let e = &self.els[i];
            let plain = plain_clickable(e);
            // A tally the page listens for clicks on ("0 of 3 selected": Django's
            // action counter) is a count, not a control.
            if plain
                && self.kind[i] & CONTROL != 0
                && (fields[i] > 0
                    || inside[i] >= 2
                    || pre[i]
                    || crate::text::tally(&control_label(e)))
            {
                self.kind[i] &= !CONTROL;
            } else if plain && self.kind[i] & CONTROL != 0 && inside[i] == 1 {
                // A wrapper of one control (a component's host around its shadow
                // `<button>`, a span around a link with the same words) is that control.
                let inner = (i + 1..self.end[i]).find(|j| self.kind[*j] & CONTROL != 0);
                if inner.is_some_and(|j| {
                    e.tag.contains('-') || control_label(e) == control_label(&self.els[j])
                }) {
                    self.kind[i] &= !CONTROL;
                }
            }
            // A combobox around the box a person types into (Select2's list of many
            // choices around its search box) is that box's frame: the box is the field.
            if fields[i] > 0 && e.role() == "combobox" && !is_picker(e) {
                self.kind[i] &= !FIELD;
            }
            let own = usize::from(self.kind[i] & (CONTROL | FIELD) != 0);
            if let Some(p) = self.parent[i] {
                inside[p] += inside[i] + own;
                fields[p] += fields[i] + usize::from(self.kind[i] & FIELD != 0);
                pre[p] |= pre[i] || e.tag == "pre";
            }
        }
    }

    /// A plain element with a click handler inside a real control (the text or icon
    /// `span` of a `<button>`, often carrying the button's class) is part of that
    /// control: a click on it is a click on the control, which is the action.
    fn demote_control_parts(&mut self) {
        let n = self.els.len();
        // Whether each element sits inside a real control. Parents come before their
        // children.
        let mut in_control = vec![false; n];
        // Whether each element sits inside a picker: the parts a picker draws (the
        // read-only `role=textbox` Select2 shows its choice in) are the picker's own, no
        // fields of their own.
        let mut in_picker = vec![false; n];
        for i in 0..n {
            let inside = self.parent[i].is_some_and(|p| {
                in_control[p] || (self.kind[p] & CONTROL != 0 && !plain_clickable(&self.els[p]))
            });
            in_control[i] = inside;
            if inside && plain_clickable(&self.els[i]) {
                self.kind[i] &= !CONTROL;
            }
            in_picker[i] = self.parent[i].is_some_and(|p| in_picker[p] || is_picker(&self.els[p]));
            if in_picker[i] {
                self.kind[i] &= !FIELD;
            }
        }
    }

    /// The open modal dialog: the last visible one, on top. While it is open what lies
    /// outside it is inert for a person, and `discover.rs` offers nothing there. A page
    /// that shows such a dialog to hide its controls only makes the probe offer less.
    fn open_modal(&self) -> Option<usize> {
        (0..self.els.len())
            .rev()
            .find(|&i| self.els[i].visible && is_modal(&self.els[i]))
    }

    /// Whether element `i` lies outside the open modal dialog (false when none is open).
    pub fn outside_modal(&self, i: usize) -> bool {
        self.modal.is_some_and(|m| i < m || i >= self.end[m])
    }

    fn derive_context(&mut self) {
        let mut used_names: HashMap<String, usize> = HashMap::default();
        for i in 0..self.els.len() {
            let e = &self.els[i];
            if let Some(p) = self.parent[i] {
                let pe = &self.els[p];
                self.form[i] = if pe.tag == "form" {
                    Some(p)
                } else {
                    self.form[p]
                };
                self.region[i] = if self.region_name[p].is_some() {
                    Some(p)
                } else {
                    self.region[p]
                };
                self.in_dialog[i] = self.in_dialog[p] || is_dialog(pe);
                self.row[i] = self.row[p];
                self.record[i] = if is_declared_record(pe) {
                    Some(p)
                } else {
                    self.record[p]
                };
                self.declared_scope[i] = self.declared_scope[p];
            }
            if e.attrs
                .get("data-nsp-param")
                .is_some_and(|v| v.contains('='))
            {
                self.row[i] = Some(i);
            }
            if e.attrs.contains_key("data-nsp-key") {
                self.declared_scope[i] = true;
            }
            if self.region_el(i) {
                if let Some(name) = self.name_region(i) {
                    let seen = crate::slot(&mut used_names, name.clone());
                    *seen += 1;
                    let name = if *seen == 1 {
                        name
                    } else {
                        format!("{name}_{seen}")
                    };
                    self.region_name[i] = Some(name);
                }
            }
        }
    }

    /// `e`'s id when it can name it: no framework made it, by its shape ([`stable_id`])
    /// or by numbering every element of the page with it ([`numbered_prefixes`]).
    pub fn id_of<'e>(&self, e: &'e ElementRecord) -> Option<&'e str> {
        e.attr("id")
            .filter(|id| stable_id(id) && !self.numbered_id(id))
    }

    /// `e`'s `name` unless it is a numbered id of the framework's too (NiceGUI names a
    /// field as it numbers it: `name="c6"`).
    pub fn name_of<'e>(&self, e: &'e ElementRecord) -> Option<&'e str> {
        e.attr("name")
            .filter(|n| !self.numbered_id(n) && !n.split(['-', '_']).any(random_token))
    }

    fn numbered_id(&self, id: &str) -> bool {
        number_prefix(id).is_some_and(|p| self.numbered.contains(&p))
    }

    /// A region's namespace: a stable id, else its label, else its first heading.
    fn name_region(&self, i: usize) -> Option<String> {
        let e = &self.els[i];
        if let Some(s) = own_name(self, e) {
            return Some(s);
        }
        if e.tag == "form" || e.tag == "main" {
            // Unnamed forms and the main landmark add no useful level to a key.
            return None;
        }
        // Its own heading, not one of a record inside it (an article's, a row's title):
        // that would name every control of the region after the first record. Nor one
        // of a block of its own beside the region's controls, a block with headings of
        // its own (a promotion panel's "Try our extension" above a settings form).
        let controls_outside = |p: usize| {
            (i..self.end[i].min(i + 400))
                .any(|k| (k < p || k >= self.end[p]) && (self.control(k) || self.field(k)))
        };
        let in_record = |j: usize| {
            let mut a = self.parent[j];
            while let Some(p) = a.filter(|p| *p > i) {
                let r = &self.els[p];
                if matches!(r.tag.as_str(), "article" | "li" | "tr")
                    || matches!(
                        r.role(),
                        "row" | "listitem" | "article" | "option" | "treeitem"
                    )
                {
                    return true;
                }
                let headings = (p + 1..self.end[p].min(p + 200))
                    .filter(|k| self.heading(*k))
                    .take(2)
                    .count();
                if headings >= 2 && controls_outside(p) {
                    return true;
                }
                a = self.parent[p];
            }
            false
        };
        let heading = (i + 1..self.end[i].min(i + 60))
            .find(|j| self.heading(*j) && !in_record(*j))
            .map(|j| slug(&self.els[j].text))
            .filter(|s| !s.is_empty());
        heading.or_else(|| match e.tag.as_str() {
            "nav" | "header" | "footer" | "aside" => Some(e.tag.clone()),
            _ => None,
        })
    }

    /// How many controls element `i`'s subtree holds (itself included).
    pub fn control_count(&self, i: usize) -> usize {
        (i..self.end[i]).filter(|j| self.control(*j)).count()
    }

    /// [`is_control`] of element `i`.
    pub fn control(&self, i: usize) -> bool {
        self.kind[i] & CONTROL != 0
    }

    /// [`is_field`] of element `i`.
    pub fn field(&self, i: usize) -> bool {
        self.kind[i] & FIELD != 0
    }

    /// Whether `<form>` `f` holds a control that submits it.
    pub fn sent(&self, f: usize) -> bool {
        self.kind[f] & SENT != 0
    }

    /// [`is_region`] of element `i`.
    pub fn region_el(&self, i: usize) -> bool {
        self.kind[i] & REGION != 0
    }

    /// [`is_heading`] of element `i`.
    pub fn heading(&self, i: usize) -> bool {
        self.kind[i] & HEADING != 0
    }

    /// The heading nearest before element `i`, among the `reach` records before it, when
    /// its parent holds `i` too (a settings card's "Enable telemetry" above its switch, a
    /// section's heading above its table) and it says something.
    pub fn heading_before(&self, i: usize, reach: usize) -> Option<usize> {
        let h = (i.saturating_sub(reach)..i)
            .rev()
            .find(|&h| self.heading(h))?;
        (self.parent[h].is_some_and(|p| p < i && i < self.end[p])
            && !self.els[h].text.trim().is_empty())
        .then_some(h)
    }

    /// The full selector of element `i` (records may continue their parent's): the
    /// chain of records up to one that starts afresh, joined into one string.
    pub fn selector(&self, i: usize) -> String {
        use std::fmt::Write as _;
        let mut chain = vec![i];
        let mut cur = i;
        while let Some(p) = self.parent[cur].filter(|_| {
            let e = &self.els[cur];
            e.nth > 0 || e.relative
        }) {
            chain.push(p);
            cur = p;
        }
        let mut out = String::new();
        for (k, &j) in chain.iter().rev().enumerate() {
            let e = &self.els[j];
            if k > 0 {
                out.push_str(" > ");
            }
            if e.nth > 0 {
                let _ = write!(out, "{}:nth-of-type({})", e.tag, e.nth);
            } else {
                out.push_str(&e.selector);
            }
        }
        out
    }

    /// What the page says just before field `i`: the text of the element recorded right
    /// before it among its parent's children (a paragraph asking to "enter the phrase
    /// DELETE in the box below:"), when that is visible text holding no control or field.
    pub fn text_before(&self, i: usize) -> Option<&str> {
        let p = self.parent[i]?;
        let kids = self.children(p);
        let at = kids.iter().position(|&k| k == i)?;
        let prev = *kids[..at].last()?;
        let e = &self.els[prev];
        let holds_control = std::iter::once(prev)
            .chain(self.descendants(prev))
            .any(|j| self.control(j) || self.field(j));
        let t = e.text.trim();
        (e.visible && !holds_control && !t.is_empty()).then_some(t)
    }

    pub fn children(&self, i: usize) -> &[usize] {
        &self.child_list[self.child_start[i]..self.child_start[i + 1]]
    }

    /// Records of `i`'s subtree, excluding `i`.
    pub fn descendants(&self, i: usize) -> std::ops::Range<usize> {
        i + 1..self.end[i]
    }

    pub fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let mut next = self.parent[i];
        std::iter::from_fn(move || {
            let cur = next?;
            next = self.parent[cur];
            Some(cur)
        })
    }

    /// The namespace of element `i` (its nearest named region), if any.
    pub fn namespace(&self, i: usize) -> Option<&str> {
        self.region[i].and_then(|r| self.region_name[r].as_deref())
    }

    /// The namespace including `i` itself when it is a named region.
    pub fn namespace_incl(&self, i: usize) -> Option<&str> {
        self.region_name[i].as_deref().or_else(|| self.namespace(i))
    }

    /// `ns.leaf`, or `leaf` without a namespace. A leaf that repeats its namespace is
    /// not prefixed twice: `#compose-status` in `compose` is `compose.status`.
    pub fn key_in(&self, ns: Option<&str>, leaf: &str) -> String {
        match ns {
            Some(ns) if !ns.is_empty() => {
                match leaf.strip_prefix(ns).and_then(|r| r.strip_prefix('_')) {
                    Some(rest) if !rest.is_empty() => format!("{ns}.{rest}"),
                    _ if leaf == ns => leaf.to_owned(),
                    _ => format!("{ns}.{leaf}"),
                }
            }
            _ => leaf.to_owned(),
        }
    }

    /// `ns.leaf` even when the leaf repeats the namespace's name.
    pub fn key_under(&self, ns: Option<&str>, leaf: &str) -> String {
        match ns {
            Some(ns) if !ns.is_empty() => format!("{ns}.{leaf}"),
            _ => leaf.to_owned(),
        }
    }
}

impl ElementRecordExt for ElementRecord {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name).map(String::as_str)
    }
}

/// Attribute access that reads well at call sites.
pub trait ElementRecordExt {
    fn attr(&self, name: &str) -> Option<&str>;

    fn has(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    fn role(&self) -> &str {
        match self.attr("role") {
            Some(role) => first_word(role),
            None => "",
        }
    }

    /// Lowercase `type` of an input, `text` when absent (borrowed unless the page
    /// wrote it in capitals: this runs in every pass).
    fn input_type(&self) -> std::borrow::Cow<'_, str> {
        match self.attr("type").map(str::trim).filter(|t| !t.is_empty()) {
            None => std::borrow::Cow::Borrowed("text"),
            Some(t) if t.bytes().any(|b| b.is_ascii_uppercase()) => {
                std::borrow::Cow::Owned(t.to_ascii_lowercase())
            }
            Some(t) => std::borrow::Cow::Borrowed(t),
        }
    }

    fn classes(&self) -> &str {
        self.attr("class").unwrap_or("")
    }
}

/// The first whitespace-separated word of `text`, or "". Never inlined: `role` is called
/// in some eighty places, and `split_whitespace` inlined into each was about 2 KB of the
/// wasm gzipped; most elements have no role and never get here.
#[inline(never)]
fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// The name an element gives itself: the slug of its stable id, else of its
/// aria-label, else of its label (the first one whose slug is not empty).
pub fn own_name(page: &Page<'_>, e: &ElementRecord) -> Option<String> {
    let id = page.id_of(e);
    for candidate in [id, e.attr("aria-label"), Some(e.label.as_str())]
        .into_iter()
        .flatten()
    {
        let s = slug(candidate);
        if !s.is_empty() {
            return Some(s);
        }
    }
    None
}

/// The prefixes of ids a framework numbers its elements with (NiceGUI's `c14`, Ember's
/// `ember12`, ExtJS's `ext-gen7`, GWT's `gwt-uid-3`): a prefix followed by a number on
/// four or more elements of three or more tags. Such a number is the element's place in
/// the order the framework made them, no name; a page's own numbered ids (rows
/// `task-7`, `task-8`; questions `q1` to `q5`) are on elements of one or two kinds.
fn numbered_prefixes(els: &[ElementRecord]) -> Vec<&str> {
    const MIN_IDS: usize = 4;
    const MIN_TAGS: usize = 3;
    // Each prefix's place in `groups` (a map type the probe has anyway: each one more
    // costs the wasm kilobytes): the prefix, how many ids, and up to three tags.
    let mut at: HashMap<String, usize> = HashMap::default();
    let mut groups: Vec<(&str, usize, [&str; MIN_TAGS])> = Vec::new();
    for e in els {
        let Some(prefix) = e.attr("id").and_then(number_prefix) else {
            continue;
        };
        let k = match at.get(prefix) {
            Some(&k) => k,
            None => {
                *crate::slot(&mut at, prefix.to_owned()) = groups.len();
                groups.push((prefix, 0, [""; MIN_TAGS]));
                groups.len() - 1
            }
        };
        let (_, count, tags) = &mut groups[k];
        *count += 1;
        if let Some(slot) = tags.iter().position(|t| t.is_empty() || *t == e.tag) {
            tags[slot] = &e.tag;
        }
    }
    groups
        .into_iter()
        .filter(|(_, count, tags)| *count >= MIN_IDS && tags.iter().all(|t| !t.is_empty()))
        .map(|(prefix, _, _)| prefix)
        .collect()
}

/// The part of an id before the number it ends with (`c` of `c14`), when it has both
/// and the part is short enough to be a framework's prefix.
fn number_prefix(id: &str) -> Option<&str> {
    let id = id.trim();
    let prefix = id.trim_end_matches(|c: char| c.is_ascii_digit());
    (!prefix.is_empty() && prefix.len() < id.len() && prefix.len() <= 24).then_some(prefix)
}

/// Whether `e` asks `confirm()` before it acts: Rails' `data-confirm`, Turbo's
/// `data-turbo-confirm`, an inline handler calling `confirm(`.
pub fn asks_confirm(e: &ElementRecord) -> bool {
    e.has("data-confirm")
        || e.has("data-turbo-confirm")
        || e.attr("onclick").is_some_and(|o| o.contains("confirm("))
}

/// The method a link's `data-method` (Rails', Laravel's) or `data-turbo-method` sends,
/// lowercased, unless it is GET: a click on it submits that request instead of
/// navigating.
pub fn data_method(e: &ElementRecord) -> Option<String> {
    let m = e
        .attr("data-method")
        .or_else(|| e.attr("data-turbo-method"))?
        .trim()
        .to_ascii_lowercase();
    (m != "get").then_some(m)
}

/// Whether control `idx` would submit its form (a `<button>` of a form without
/// another type, a submit or image input).
pub fn submits_form(page: &Page<'_>, idx: usize) -> bool {
    let e = &page.els[idx];
    match e.tag.as_str() {
        "button" => {
            page.form[idx].is_some()
                && e.attr("type")
                    .is_none_or(|t| t.trim().is_empty() || t.eq_ignore_ascii_case("submit"))
        }
        "input" => matches!(e.input_type().as_ref(), "submit" | "image"),
        _ => false,
    }
}

/// Ids a framework generated (`:r1:`, `ember123`, hashes) change between loads; keys
/// and names must not be built from them.
pub fn stable_id(id: &str) -> bool {
    let id = id.trim();
    // React's `useId`: `:r1:` (18), `«r1»` (19.0), `_r_5o_` (19.2, inside Radix's
    // `radix-_r_5o_`), whatever its letters.
    let use_id = id.match_indices("_r_").any(|(i, _)| {
        (i == 0 || id.as_bytes()[i - 1] == b'-')
            && id[i + 3..]
                .split_once('_')
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric()))
    });
    if id.is_empty() || id.len() > 48 || id.contains([':', '\u{ab}']) || use_id {
        return false;
    }
    let digits = id.chars().filter(char::is_ascii_digit).count();
    if digits >= 4 {
        return false;
    }
    // A number between words is a library counting its instances (`ag-10-input`,
    // `react-select-3-input`); a number at the end may be what it names
    // (`address_line_2`).
    let mut parts = id.split(['-', '_']).peekable();
    while let Some(p) = parts.next() {
        if parts.peek().is_some() && !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    if id.split(['-', '_']).any(random_token) {
        return false;
    }
    // A run of 8+ hex characters with a digit in it is a hash.
    let mut run = 0;
    let mut run_has_digit = false;
    for c in id.chars() {
        if c.is_ascii_hexdigit() {
            run += 1;
            run_has_digit |= c.is_ascii_digit();
            if run >= 8 && run_has_digit {
                return false;
            }
        } else {
            run = 0;
            run_has_digit = false;
        }
    }
    true
}

/// A part of an id or a name that a library drew at random (Mantine's `useId`:
/// `mantine-vc3gav8sm`, `mantine-dl6mqkqvp`): seven or more letters and digits with a
/// digit between letters, or six consonants in a row, which no word has.
fn random_token(part: &str) -> bool {
    let b = part.as_bytes();
    if b.len() < 7 || !b.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let inner_digit = (1..b.len() - 1).any(|k| {
        b[k].is_ascii_digit() && b[..k].iter().any(u8::is_ascii_alphabetic) && {
            let after = &b[k..];
            let run = after.iter().take_while(|c| c.is_ascii_digit()).count();
            after.get(run).is_some_and(u8::is_ascii_alphabetic)
        }
    });
    let mut consonants = 0;
    let mut most = 0;
    for c in b {
        let consonant = c.is_ascii_alphabetic() && !b"aeiouyAEIOUY".contains(c);
        consonants = if consonant { consonants + 1 } else { 0 };
        most = most.max(consonants);
    }
    inner_digit || most >= 6
}

/// What a field that is no checkbox, radio button or file says it holds: a number
/// field's number (null when empty), a text area's or an editable region's text with
/// its lines (up to [`crate::text::MAX_FIELD_TEXT_LEN`] characters; the region's
/// recorded text, one line, in snapshots from before the extractor sent its `value`),
/// a switch's state, a single select's choice as its parameter takes it (the option's
/// text when its values are ids a person never sees: "Georg", not "2"), else its
/// `value`.
pub fn held_value(e: &ElementRecord) -> serde_json::Value {
    use serde_json::Value;
    let text = |t: &str| Value::String(clip(t, crate::text::MAX_VALUE_LEN));
    let lines =
        |t: &str| Value::String(crate::text::clip_lines(t, crate::text::MAX_FIELD_TEXT_LEN));
    match (e.tag.as_str(), e.input_type().as_ref()) {
        ("input", "number" | "range") => {
            crate::text::parse_number(e.attr("value").unwrap_or("").trim()).unwrap_or(Value::Null)
        }
        ("textarea", _) => lines(e.attr("value").unwrap_or("")),
        _ if is_editable(e) => match e.attr("value") {
            Some(v) => lines(v),
            None => text(&e.text),
        },
        _ if matches!(e.role(), "switch" | "checkbox" | "radio") => {
            Value::Bool(e.attr("aria-checked") == Some("true"))
        }
        ("select", _) if !e.has("multiple") => text(&select_choices(e).1.unwrap_or_default()),
        // A select of many choices holds the list of the options chosen, in the words
        // its parameter takes (the extraction joins their values with commas).
        ("select", _) => {
            let (values, labels) = select_values_labels(e);
            let mut chosen = Vec::new();
            for v in e.attr("value").unwrap_or("").split(',') {
                if let Some(i) = values.iter().position(|x| x == v) {
                    chosen.push(text(labels.get(i).unwrap_or(&values[i]).trim()));
                }
            }
            Value::Array(chosen)
        }
        _ => text(e.attr("value").unwrap_or("")),
    }
}

/// A field whose text a person edits as lines: a text area or an editable region
/// ([`held_value`] keeps their lines).
pub fn holds_lines(e: &ElementRecord) -> bool {
    e.tag == "textarea" || is_editable(e)
}

/// How many characters a text area or an editable region holds when its value in
/// `objects` is cut ([`held_value`]): what the extractor counted beyond its own limit
/// (`value_chars`), else the recorded value's length when the probe cut it.
pub fn held_chars(e: &ElementRecord) -> Option<usize> {
    if !holds_lines(e) {
        return None;
    }
    if let Some(n) = e.attr("value_chars").and_then(|n| n.trim().parse().ok()) {
        return Some(n);
    }
    let n = e.attr("value")?.chars().count();
    (n > crate::text::MAX_FIELD_TEXT_LEN).then_some(n)
}

/// A select's choices as a person reads them: its options' texts when the page gave
/// them values a person does not see (ids: "1", "2"), else their values; and the
/// chosen one, read the same way. Empty options ("Choose…" placeholders) are left out.
/// The dispatcher takes either form (`dispatch.js`, `fill`).
pub fn select_choices(e: &ElementRecord) -> (Vec<String>, Option<String>) {
    let (values, labels) = select_values_labels(e);
    let current = e.attr("value").filter(|v| !v.is_empty());
    match labels.is_empty() {
        false => {
            let chosen = current.and_then(|v| {
                values
                    .iter()
                    .position(|x| x == v)
                    .map(|i| labels[i].trim().to_owned())
            });
            let shown = values
                .iter()
                .zip(&labels)
                .filter(|(v, l)| !v.is_empty() && !l.trim().is_empty())
                .map(|(_, l)| l.trim().to_owned())
                .collect();
            (shown, chosen)
        }
        true => (
            values.into_iter().filter(|v| !v.is_empty()).collect(),
            current.map(str::to_owned),
        ),
    }
}

/// A select's option values and their texts, the texts empty unless usable: every
/// option a person can choose (one with a value; an empty one is a "Choose…"
/// placeholder, and so is a first option that shows no text, whatever its value:
/// WTForms' `__None`) has a text of its own that no other has.
fn select_values_labels(e: &ElementRecord) -> (Vec<String>, Vec<String>) {
    // Read as a `Value`, which the probe parses anyway: a parser of its own for a list
    // of strings was a kilobyte of the wasm.
    let parse = |name: &str| -> Option<Vec<String>> {
        let v: serde_json::Value = serde_json::from_str(e.attr(name)?).ok()?;
        v.as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    let values = parse("options").unwrap_or_default();
    let labels = parse("option_labels").filter(|l| {
        let blank = l.first().is_some_and(|t| t.trim().is_empty());
        let chosen: Vec<&str> = l
            .iter()
            .zip(&values)
            .skip(usize::from(blank))
            .filter(|(_, v)| !v.is_empty())
            .map(|(t, _)| t.trim())
            .collect();
        l.len() == values.len()
            && crate::text::sorted_distinct(&chosen).len() == chosen.len()
            && chosen.iter().all(|t| !t.is_empty())
    });
    (values, labels.unwrap_or_default())
}

/// A modal dialog: a `<dialog>`, `role=dialog` or `role=alertdialog` that says
/// `aria-modal="true"`.
pub fn is_modal(e: &ElementRecord) -> bool {
    is_dialog(e) && e.attr("aria-modal").is_some_and(|v| v.trim() == "true")
}

pub fn is_heading(e: &ElementRecord) -> bool {
    matches!(e.tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") || e.role() == "heading"
}

pub fn is_dialog(e: &ElementRecord) -> bool {
    e.tag == "dialog" || matches!(e.role(), "dialog" | "alertdialog")
}

fn is_declared_record(e: &ElementRecord) -> bool {
    e.attr("data-nsp-key")
        .is_some_and(|k| k.trim().ends_with("[]"))
}

/// The tags of elements that give their content a namespace ([`is_region`]).
/// `extension/extract.js` keeps the same list (`REGION_TAGS`: its search for a group of
/// fields stops at a region, as [`crate::forms`] does); `tests/discovery.rs` ties them.
pub const REGION_TAGS: &[&str] = &[
    "section", "main", "nav", "aside", "form", "article", "header", "footer", "dialog", "fieldset",
];

/// The roles of elements that give their content a namespace ([`is_region`]); `extract.js`
/// keeps the same list (`REGION_ROLES`).
pub const REGION_ROLES: &[&str] = &[
    "region",
    "main",
    "navigation",
    // An `article` drawn with a div: a record view, named by its heading.
    "article",
    "dialog",
    "alertdialog",
    "form",
    "complementary",
    "search",
    "tabpanel",
    "banner",
    "contentinfo",
    "group",
];

/// Elements that give their content a namespace. Custom elements count: a component
/// (often a shadow host) is the unit its content belongs to.
pub fn is_region(e: &ElementRecord) -> bool {
    e.tag.contains('-') || REGION_TAGS.contains(&e.tag.as_str()) || REGION_ROLES.contains(&e.role())
}

/// Things a person clicks. Not the parts of an app's shell: a landmark, panel,
/// toolbar or splitter is no action even when the page made it focusable or listens
/// for clicks on it (to move focus, or to handle its children's clicks in one place),
/// and a skip link only moves the reading position ([`is_skip_link`]).
/// A control only by the page listening for its clicks: no button, link, summary or
/// input, and no role of one.
pub fn plain_clickable(e: &ElementRecord) -> bool {
    e.clickable
        && !matches!(e.tag.as_str(), "button" | "summary" | "a" | "input")
        && !matches!(
            e.role(),
            "button" | "link" | "menuitem" | "menuitemcheckbox" | "menuitemradio" | "tab"
        )
}

pub fn is_control(e: &ElementRecord) -> bool {
    if is_picker(e) {
        return false;
    }
    match e.tag.as_str() {
        "button" | "summary" => true,
        // A link with no `href` is a control when the page listens for its clicks (an
        // `onclick`: Isso's admin's "Delete" and "Validate").
        "a" => (e.has("href") || e.clickable) && !is_skip_link(e),
        "input" => matches!(
            e.input_type().as_ref(),
            "submit" | "button" | "reset" | "image"
        ),
        _ => {
            matches!(
                e.role(),
                "button" | "link" | "menuitem" | "menuitemcheckbox" | "menuitemradio" | "tab"
            ) || (e.clickable && !is_field(e) && !is_structure(e))
        }
    }
}

/// The page's shell: its header, navigation, footer or a sidebar, by tag or landmark
/// role.
pub fn is_shell(e: &ElementRecord) -> bool {
    matches!(e.tag.as_str(), "header" | "nav" | "footer" | "aside")
        || matches!(
            e.role(),
            "banner" | "navigation" | "contentinfo" | "complementary"
        )
}

/// Elements that structure a page rather than act: landmarks and regions, panels,
/// toolbars, the containers of tabs, menus and lists, splitters (`role=separator`,
/// which a person drags to resize panes; nothing an agent's click does), and a grid's
/// cells (a data grid listens for clicks on each to move its focus: a cell's text is
/// data, its controls are inside it).
pub fn is_structure(e: &ElementRecord) -> bool {
    matches!(
        e.role(),
        "main"
            | "region"
            | "navigation"
            | "complementary"
            | "banner"
            | "contentinfo"
            | "search"
            | "form"
            | "toolbar"
            | "tablist"
            | "tabpanel"
            | "menubar"
            | "menu"
            | "group"
            | "separator"
            | "application"
            | "document"
            | "feed"
            | "log"
            | "status"
            | "dialog"
            | "alertdialog"
            | "list"
            | "listbox"
            | "grid"
            | "tree"
            | "treegrid"
            | "table"
            | "rowgroup"
            | "gridcell"
            | "cell"
            | "presentation"
            | "none"
    ) || (e.role().is_empty()
        && matches!(
            e.tag.as_str(),
            "html"
                | "body"
                | "main"
                | "nav"
                | "aside"
                | "header"
                | "footer"
                | "section"
                | "form"
                | "dialog"
                | "fieldset"
                | "ul"
                | "ol"
                | "table"
                | "tbody"
                | "hr"
        ))
}

/// A same-page link that only moves the reading position past the page's shell ("Skip
/// to main content", "Jump to navigation"): keyboard users' convention, no action.
pub fn is_skip_link(e: &ElementRecord) -> bool {
    let same_page = e
        .attr("href")
        .map(str::trim)
        .is_some_and(|h| h.len() > 1 && h.starts_with('#'));
    if !same_page {
        return false;
    }
    let label = control_label(e);
    let first = label
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(first.as_str(), "skip" | "jump")
}

/// Things a person types into or chooses in.
pub fn is_field(e: &ElementRecord) -> bool {
    match e.tag.as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            e.input_type().as_ref(),
            "submit" | "button" | "reset" | "image" | "hidden"
        ),
        _ => {
            matches!(
                e.role(),
                "textbox"
                    | "searchbox"
                    | "combobox"
                    | "switch"
                    | "checkbox"
                    | "radio"
                    | "slider"
                    | "spinbutton"
            ) || is_editable(e)
                || is_picker(e)
        }
    }
}

/// A slider drawn with ARIA alone (Radix's thumb, a `span` with `role=slider`): a field
/// whose value, minimum and maximum the extraction copies from its `aria-value*`.
pub fn is_aria_slider(e: &ElementRecord) -> bool {
    e.role() == "slider" && e.tag != "input"
}

/// An ARIA slider beside the number box that sets the same value (Dash's slider and its
/// box): the first of its five nearest ancestors that holds a number or range input
/// holds one with its minimum or its maximum. The box is then the field; the thumb only
/// shows its value.
pub fn slider_twin(page: &Page<'_>, i: usize) -> bool {
    let e = &page.els[i];
    if !is_aria_slider(e) {
        return false;
    }
    for a in page.ancestors(i).take(5) {
        let mut boxes = page.descendants(a).filter(|&d| {
            let x = &page.els[d];
            x.tag == "input" && matches!(x.input_type().as_ref(), "number" | "range")
        });
        let mut any = false;
        let twin = boxes.any(|d| {
            any = true;
            let x = &page.els[d];
            (x.has("min") && x.attr("min") == e.attr("min"))
                || (x.has("max") && x.attr("max") == e.attr("max"))
        });
        if twin || any {
            return twin;
        }
    }
    false
}

/// A select drawn as a button (Headless UI's Listbox, Radix's and MUI's Select, Dash's
/// dropdown), as `extract.js`' `isPicker` marks its record (`nsp-picker`): a field whose
/// value is the option it shows, chosen from the list it opens.
pub fn is_picker(e: &ElementRecord) -> bool {
    e.has("nsp-picker")
}

/// The option a picker shows, as its parameter's default: none on a placeholder.
pub fn picker_default(e: &ElementRecord) -> Option<serde_json::Value> {
    e.attr("value")
        .filter(|v| !v.is_empty())
        .map(|v| serde_json::Value::String(clip(v, 200)))
}

pub fn is_editable(e: &ElementRecord) -> bool {
    e.attr("contenteditable")
        .is_some_and(|v| v.is_empty() || v == "true" || v == "plaintext-only")
}

/// Password and payment fields: their values never enter the state. The content script
/// already leaves their values out of the snapshot; this is the second wall, by the
/// same rule ([`nsp_protocol::secrets`], which `extract.js`'s `isSecret` follows; the
/// test `extract_js_and_the_probe_agree_on_secret_fields` runs both).
pub fn is_secret(e: &ElementRecord) -> bool {
    // The extractor sends only whether it is filled for what it judged secret
    // (`value_filled`; recorded snapshots from before carry `value_length`).
    if (e.input_type() == "password" && e.tag == "input")
        || e.has("value_filled")
        || e.has("value_length")
    {
        return true;
    }
    if e.tag == "input" && secrets::UNTYPED_INPUTS.contains(&e.input_type().as_ref()) {
        return false;
    }
    e.attr("autocomplete")
        .is_some_and(secrets::is_secret_autocomplete)
        || e.attr("name").is_some_and(secrets::is_secret_name)
        || e.attr("id").is_some_and(secrets::is_secret_name)
        || e.attr("value").is_some_and(secrets::looks_like_card_number)
}

/// The name a secret field is known by, for its key and its parameter: its `name`, its
/// stable `id`, else what it holds by its type and `autocomplete` (`password`,
/// `card_number`, `one_time_code`: [`secrets::secret_kind`]). Never its label, title,
/// placeholder or value: a page that mirrors what is typed into one of those would
/// otherwise put the secret into a key.
pub fn secret_name(page: &Page<'_>, e: &ElementRecord) -> String {
    let own = [page.name_of(e), page.id_of(e)]
        .into_iter()
        .flatten()
        .map(slug)
        .find(|s| !s.is_empty());
    own.unwrap_or_else(|| {
        secrets::secret_kind(
            &e.input_type(),
            e.attr("autocomplete").unwrap_or(""),
            e.attr("name").or_else(|| e.attr("id")).unwrap_or(""),
        )
        .to_owned()
    })
}

/// Fields that take payment details.
pub fn is_payment(e: &ElementRecord) -> bool {
    e.attr("autocomplete")
        .is_some_and(|a| a.split_whitespace().any(|t| t.starts_with("cc-")))
        || ["name", "id"].iter().any(|k| {
            e.attr(k).is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                v.contains("card") || v.contains("cvv") || v.contains("cvc") || v.contains("iban")
            })
        })
}

/// The human label of a control: aria-label, text, value, title, alt.
// Called from many passes; inlined, each call site carried its own copy in the wasm.
#[inline(never)]
pub fn control_label(e: &ElementRecord) -> String {
    let candidates = [
        e.attr("aria-label"),
        Some(e.label.as_str()),
        Some(e.text.as_str()),
        e.attr("value").filter(|_| e.tag == "input"),
        e.attr("title"),
        e.attr("alt"),
    ];
    candidates
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .map(|s| clip(first_of_repeats(s), crate::text::MAX_DESCRIPTION_LEN))
        .unwrap_or_default()
}

/// A control that wraps one hidden label per state ("Toggle theme (current theme:
/// auto) Toggle theme (current theme: light) …") is named by the first: the text up to
/// where its opening two words come again.
fn first_of_repeats(s: &str) -> &str {
    let mut words = s.split(' ').filter(|w| !w.is_empty());
    let (Some(a), Some(b)) = (words.next(), words.next()) else {
        return s;
    };
    let opening = format!("{a} {b}");
    match s[a.len()..].find(&opening) {
        Some(at) if at > 0 => s[..a.len() + at].trim_end(),
        _ => s,
    }
}

/// The human label of a field: its aria-label, `<label>` (`for=`, a wrapping label,
/// `aria-labelledby`, else a short caption just before it: `extract.js`' `labelOf`),
/// the text of an ARIA checkbox, switch or radio drawn with other elements (named by
/// its content, as a screen reader names it), placeholder, title, name or stable id.
/// Never its value, and nothing that names no thing: a colour, a number, a generated
/// id ([`names_something`]).
pub fn field_label(page: &Page<'_>, e: &ElementRecord) -> String {
    let candidates = [
        e.attr("aria-label"),
        Some(e.label.as_str()),
        content_name(e),
        e.attr("placeholder"),
        e.attr("title"),
        page.name_of(e),
        page.id_of(e),
    ];
    let label = candidates
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| names_something(s))
        .map(|s| clip(s, 60))
        .unwrap_or_default();
    if is_switch(e) && says_state(&label) {
        let i = page.els.iter().position(|x| std::ptr::eq(x, e));
        if let Some(h) = i.and_then(|i| page.heading_before(i, 60)) {
            return clip(page.els[h].text.trim(), 60);
        }
    }
    label
}

/// A switch's label that says its state, not what it sets ("On", "Off", "Enabled"):
/// it changes with the state, so it names no key.
fn says_state(label: &str) -> bool {
    matches!(
        label.to_ascii_lowercase().as_str(),
        "on" | "off" | "enabled" | "disabled" | "yes" | "no" | "active" | "inactive"
    )
}

/// A checkbox or a switch, native or drawn with ARIA roles: a box that holds an
/// on/off state.
pub fn is_switch(e: &ElementRecord) -> bool {
    (e.tag == "input" && e.input_type() == "checkbox") || matches!(e.role(), "switch" | "checkbox")
}

/// The text of an ARIA checkbox, switch or radio drawn with other elements (a `div`
/// with `role=switch` around "Urgent"), which names it as a screen reader names it:
/// by its content. `None` for a native field, whose text is no name.
pub fn content_name(e: &ElementRecord) -> Option<&str> {
    let named_by_content = !matches!(e.tag.as_str(), "input" | "select" | "textarea")
        && matches!(
            e.role(),
            "checkbox" | "switch" | "radio" | "menuitemcheckbox" | "menuitemradio"
        );
    named_by_content.then_some(e.text.as_str())
}

/// Whether a text can name a field or a parameter: it has a letter, and is not a
/// colour (`#1f272d`, `rgb(…)`, `hsl(…)`) or a hash.
pub fn names_something(s: &str) -> bool {
    let t = s.trim();
    if !t.chars().any(char::is_alphabetic) {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    let hex =
        |h: &str| matches!(h.len(), 3 | 4 | 6 | 8) && h.bytes().all(|b| b.is_ascii_hexdigit());
    if lower.strip_prefix('#').is_some_and(hex)
        || ["rgb(", "rgba(", "hsl(", "hsla(", "oklch(", "color("]
            .iter()
            .any(|p| lower.starts_with(p))
    {
        return false;
    }
    // A bare run of hex with digits in it ("1f272d", "a3f9c2e1") is a value or hash.
    !(t.len() >= 6
        && t.bytes().all(|b| b.is_ascii_hexdigit())
        && t.bytes().any(|b| b.is_ascii_digit()))
}

/// A group of radio buttons with no `name`, or a generated one ([`radio_group`]): the recorded element
/// holding them, and its members in document order (the first is the group's
/// identity).
pub struct RadioGroup<'p> {
    pub holder: usize,
    pub members: &'p [usize],
}

/// The group of a radio button with no `name` (a component's radios, which HTML would
/// leave each a group of its own): the radios with no name under the nearest element,
/// within its form, that holds another. `dispatch.js`' `unnamedRadios` finds it in the
/// DOM; here the nearest recorded ancestor holding another is found first, and the
/// elements between it and the radios, which the snapshot does not record, are read
/// from their selectors: a toolbar holding two segmented controls is two groups.
/// A group named by a framework's generated name (React Aria's
/// `react-aria7101175195-:r7:`, Streamlit's radios) is its radios of that name, found
/// and named the same way: the name says nothing to a model. So are radios each
/// with a name no other radio of its form has (Gradio's `radio-1`, `radio-2` for one
/// `gr.Radio`: HTML leaves each a group of its own, which no person could clear, and
/// the component's script makes them one): the lone-named radios under the nearest
/// element holding another. `None` for a radio button with a name that names
/// something and other radios share, or one alone. Found for every radio at once when
/// the page is read (`Page::group_radios`); this looks it up.
pub fn radio_group<'p>(page: &'p Page<'_>, i: usize) -> Option<RadioGroup<'p>> {
    let hi = page.radio_hi.get(i).map_or(0, |&h| h as usize);
    (hi > 0).then(|| RadioGroup {
        holder: page.radio_holder[i] as usize,
        members: &page.radio_list[page.radio_lo[i] as usize..hi],
    })
}

/// The radio buttons of radio `i`'s `name` in its form (or, in none, on the page), in
/// document order, `i` among them.
pub fn named_radios(page: &Page<'_>, i: usize) -> Vec<usize> {
    let e = &page.els[i];
    let scope = page.form[i].map_or(0..page.els.len(), |f| page.descendants(f));
    scope
        .filter(|&o| {
            let x = &page.els[o];
            x.tag == "input"
                && x.input_type() == "radio"
                && page.form[o] == page.form[i]
                && x.attr("name") == e.attr("name")
        })
        .collect()
}

/// What each of a group of radio buttons [`radio_group`] found, or of checkboxes
/// sharing a name (`members`, in order), offers as its value:
/// its `value`, unless the values name nothing or repeat (Streamlit's "0", "1", "2"
/// for "Standard", "Express", "Overnight"; options with no value, all "on"), then what
/// each option's label says, when every label says something of its own. The
/// dispatcher takes either, and refuses one that picks two options.
pub fn group_choices(page: &Page<'_>, members: &[usize]) -> Vec<String> {
    let mut values = Vec::new();
    let mut labels = Vec::new();
    let (mut values_name, mut values_ok, mut labels_ok) = (false, true, true);
    for &m in members {
        let value = page.els[m].attr("value").unwrap_or("on").to_owned();
        let label = field_label(page, &page.els[m]);
        values_name |= names_something(&value) && stable_id(&value);
        values_ok &= !value.trim().is_empty();
        labels_ok &= !label.trim().is_empty();
        values.push(value);
        labels.push(label);
    }
    // Each one distinct, told by sorting (thousands of options are no n²).
    let distinct = |texts: &[String]| {
        let mut all = Vec::new();
        for t in texts {
            all.push(t.as_str());
        }
        crate::text::sorted_distinct(&all).len() == texts.len()
    };
    values_ok = values_ok && distinct(&values);
    labels_ok = labels_ok && distinct(&labels);
    if (values_ok && values_name) || !labels_ok {
        values
    } else {
        labels
    }
}

/// What names a group of radio buttons [`radio_group`] found: a hidden
/// input in the group's holder holding one of its values (the component's own field,
/// Label Studio's `<input type=hidden name=sampling value="Sequential sampling">`),
/// else the holder's `aria-label` when the group is all the radios it holds, else the
/// caption of a `<fieldset>` holding the group alone ([`fieldset_caption`]), else the
/// words all its options' labels say.
pub fn radio_group_name(page: &Page<'_>, g: &RadioGroup) -> Option<String> {
    let values: Vec<&str> = g
        .members
        .iter()
        .filter_map(|d| page.els[*d].attr("value"))
        .collect();
    let radios = page
        .descendants(g.holder)
        .filter(|d| page.els[*d].input_type() == "radio")
        .count();
    page.descendants(g.holder)
        .find_map(|d| {
            let x = &page.els[d];
            (x.input_type() == "hidden" && x.attr("value").is_some_and(|v| values.contains(&v)))
                .then(|| x.attr("name"))
                .flatten()
        })
        .or_else(|| {
            (radios == g.members.len())
                .then(|| page.els[g.holder].attr("aria-label"))
                .flatten()
        })
        .or_else(|| fieldset_caption(page, g, radios))
        .filter(|n| names_something(n))
        .map(slug)
        .or_else(|| {
            // The words every option's label says ("Line chart", "Area chart": `chart`).
            let labels: Vec<Vec<String>> = g
                .members
                .iter()
                .map(|d| crate::text::words(&field_label(page, &page.els[*d])))
                .collect();
            let (first, rest) = labels.split_first()?;
            let shared: Vec<&str> = first
                .iter()
                .filter(|w| rest.iter().all(|l| l.contains(w)))
                .map(String::as_str)
                .collect();
            Some(slug(&shared.join(" ")))
        })
        .filter(|n| !n.is_empty())
}

/// The caption of the `<fieldset>` holding a radio group [`radio_group`] found and no
/// other radios (`radios`: how many its holder holds): the extraction's `caption`, its
/// `<legend>` or the words it shows before its first field (Gradio's "Delivery").
fn fieldset_caption<'p>(page: &'p Page<'_>, g: &RadioGroup, radios: usize) -> Option<&'p str> {
    if radios != g.members.len() {
        return None;
    }
    let mut f = g.holder;
    for _ in 0..2 {
        if page.els[f].tag == "fieldset" {
            break;
        }
        f = page.parent[f]?;
    }
    let fieldset = &page.els[f];
    if fieldset.tag != "fieldset" {
        return None;
    }
    // Above the holder, the fieldset holds no other radios.
    if f != g.holder
        && page
            .descendants(f)
            .filter(|d| page.els[*d].input_type() == "radio")
            .count()
            != radios
    {
        return None;
    }
    fieldset.attr("caption").map(str::trim)
}

/// What a field is, as a name for a field nothing else names: `text`, `number`,
/// `date`, `choice`, `checked`… (its role, in the words of its type).
pub fn role_name(e: &ElementRecord) -> &'static str {
    match e.tag.as_str() {
        "textarea" => return "text",
        "select" => return "choice",
        "input" => {
            return match e.input_type().as_ref() {
                "search" => "search",
                "email" => "email",
                "url" => "url",
                "tel" => "phone",
                "number" | "range" => "number",
                "date" => "date",
                "time" => "time",
                "datetime-local" => "date_time",
                "month" => "month",
                "week" => "week",
                "color" => "colour",
                "checkbox" => "checked",
                "radio" => "choice",
                _ => "text",
            }
        }
        _ => {}
    }
    match e.role() {
        "combobox" | "listbox" | "radiogroup" => "choice",
        "switch" | "checkbox" => "checked",
        "slider" | "spinbutton" => "number",
        "searchbox" => "search",
        _ => "text",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_radio_is_lone_by_the_names_of_its_own_form() {
        // "size" is lone in each form, "colour" is HTML's group of two, "opt-2" is lone:
        // form b's lone radios are one group, form a's one is alone.
        let snap: PageSnapshot = serde_json::from_str(
            r##"{"url":"u","title":"t","elements":[
                {"t":"form","s":"#a"},
                {"t":"input","n":1,"p":0,"a":{"type":"radio","name":"size"}},
                {"t":"form","s":"#b"},
                {"t":"input","n":1,"p":2,"a":{"type":"radio","name":"size"}},
                {"t":"input","n":2,"p":2,"a":{"type":"radio","name":"colour"}},
                {"t":"input","n":3,"p":2,"a":{"type":"radio","name":"colour"}},
                {"t":"input","n":4,"p":2,"a":{"type":"radio","name":"opt-2"}},
                {"t":"input","n":5,"p":2,"a":{"type":"text","name":"note"}}]}"##,
        )
        .expect("parses");
        let page = Page::new(&snap);
        let groups: Vec<Option<(usize, Vec<usize>)>> = (0..8)
            .map(|i| radio_group(&page, i).map(|g| (g.holder, g.members.to_vec())))
            .collect();
        let b = Some((2, vec![3, 6]));
        assert_eq!(groups, [None, None, None, b.clone(), None, None, b, None]);
    }

    #[test]
    fn a_run_of_radios_is_grouped_by_the_steps_its_neighbours_share() {
        // Unnamed radios: two under one unrecorded element, one beside it; and, under a
        // second unrecorded element, a deeper pair and one above them.
        let snap: PageSnapshot = serde_json::from_str(
            r##"{"url":"u","title":"t","elements":[
                {"t":"main","s":"main"},
                {"t":"input","s":"div:nth-of-type(1) > input:nth-of-type(1)","r":true,"p":0,"a":{"type":"radio"}},
                {"t":"input","s":"div:nth-of-type(1) > input:nth-of-type(2)","r":true,"p":0,"a":{"type":"radio"}},
                {"t":"input","s":"input:nth-of-type(1)","r":true,"p":0,"a":{"type":"radio"}},
                {"t":"input","s":"div:nth-of-type(2) > input:nth-of-type(1)","r":true,"p":0,"a":{"type":"radio"}},
                {"t":"input","s":"div:nth-of-type(2) > p:nth-of-type(1) > input:nth-of-type(1)","r":true,"p":0,"a":{"type":"radio"}},
                {"t":"input","s":"div:nth-of-type(2) > p:nth-of-type(1) > input:nth-of-type(2)","r":true,"p":0,"a":{"type":"radio"}}]}"##,
        )
        .expect("parses");
        let page = Page::new(&snap);
        let members: Vec<Vec<usize>> = (1..7)
            .map(|i| radio_group(&page, i).map_or(Vec::new(), |g| g.members.to_vec()))
            .collect();
        assert_eq!(
            members,
            [
                vec![1, 2],
                vec![1, 2],
                // Beside the first pair and the second element: every radio of `main`.
                vec![1, 2, 3, 4, 5, 6],
                vec![4, 5, 6],
                vec![5, 6],
                vec![5, 6],
            ]
        );
    }

    #[test]
    fn numbered_selectors_read_like_written_ones() {
        let numbered: PageSnapshot = serde_json::from_str(
            r#"{"url":"u","title":"t","elements":[
                {"t":"html","s":"html"},
                {"t":"body","n":1,"p":0},
                {"t":"td","s":"div:nth-of-type(1) > td:nth-of-type(2)","r":true,"p":1},
                {"t":"b","n":3,"p":2},
                {"t":"p","n":2}]}"#,
        )
        .expect("parses");
        let page = Page::new(&numbered);
        let selectors: Vec<String> = (0..5).map(|i| page.selector(i)).collect();
        assert_eq!(
            selectors,
            [
                "html",
                "html > body:nth-of-type(1)",
                "html > body:nth-of-type(1) > div:nth-of-type(1) > td:nth-of-type(2)",
                "html > body:nth-of-type(1) > div:nth-of-type(1) > td:nth-of-type(2) > b:nth-of-type(3)",
                "p:nth-of-type(2)",
            ]
        );
    }

    /// Runs `program` in node with `extension/extract.js` loaded.
    fn node_with_extract_js(program: &str) -> serde_json::Value {
        let script = crate::node::extension_script("extract.js");
        crate::node::run_json(&format!(
            "require({:?}); {program}",
            script.display().to_string()
        ))
    }

    /// The extractor (`isSecret`, the first wall) and the probe (`is_secret`, the second)
    /// judge the same fields secret: each case is given to both, as a field with these
    /// attributes that the extractor has not yet judged.
    #[test]
    fn extract_js_and_the_probe_agree_on_secret_fields() {
        // (type, name, id, autocomplete, value)
        let mut cases: Vec<(&str, &str, &str, &str, &str)> = vec![
            ("password", "", "", "", ""),
            ("PassWord", "x", "", "", ""),
            ("text", "email", "email", "email", "a@b.c"),
            ("text", "user_password", "", "", ""),
            ("text", "", "passwd2", "", ""),
            ("text", "pass", "", "", ""),
            ("text", "Pass", "", "", ""),
            ("text", "passenger", "", "", ""),
            ("text", "pin", "", "", ""),
            ("text", "PIN", "", "", ""),
            ("text", "pinned", "", "", ""),
            ("text", "shipping", "", "", ""),
            ("text", "cvv2", "", "", ""),
            ("text", "card-holder", "", "", ""),
            ("text", "ccnum", "", "", ""),
            ("text", "cc-num", "", "", ""),
            ("text", "security code", "", "", ""),
            ("text", "security_code", "", "", ""),
            ("text", "security-code", "", "", ""),
            ("text", "securitycode", "", "", ""),
            ("text", "security.code", "", "", ""),
            ("text", "one-time", "", "", ""),
            ("text", "otp_code", "", "", ""),
            ("text", "ssn", "", "", ""),
            ("text", "q", "", "cc-number", ""),
            ("text", "q", "", "cc-exp-month", ""),
            ("text", "q", "", "section-pay cc-csc", ""),
            ("text", "q", "", "NEW-PASSWORD", ""),
            ("text", "q", "", "one-time-code", ""),
            ("text", "q", "", "cc-name", ""),
            ("text", "q", "", "xcc-number", ""),
            ("text", "q", "", "cc-number_2", ""),
            ("text", "q", "", "username", ""),
            ("text", "q", "", "", "4111 1111 1111 1111"),
            ("text", "q", "", "", "4111-1111-1111-1112"),
            ("text", "q", "", "", "378282246310005"),
            ("text", "q", "", "", "12345"),
            ("search", "query", "", "off", "card"),
            ("checkbox", "passwd_role", "passwd_role", "", ""),
            ("radio", "card", "", "", ""),
            ("Checkbox", "pin", "", "cc-number", ""),
            ("submit", "password_reset", "", "", ""),
            ("range", "pin", "", "", "4111 1111 1111 1111"),
            ("file", "ssn_scan", "", "", ""),
            ("hidden", "reset_password_token", "", "", ""),
        ];
        // Every type the rule says holds nothing typed, named like a secret.
        cases.extend(
            secrets::UNTYPED_INPUTS
                .iter()
                .map(|t| (*t, "password", "", "new-password", "")),
        );
        let fields: Vec<serde_json::Value> = cases
            .iter()
            .map(|(t, name, id, ac, value)| {
                serde_json::json!({"type": t, "name": name, "id": id, "autocomplete": ac, "value": value})
            })
            .collect();
        // A field as isSecret reads it: localName, the type property (lowercased, as
        // the DOM reflects it), attributes, id and the value property.
        let js = node_with_extract_js(&format!(
            "const fields = {}; process.stdout.write(JSON.stringify(fields.map((f) => NspExtract.isSecret({{\
             localName: 'input', type: f.type.toLowerCase(), id: f.id, value: f.value, \
             getAttribute: (n) => (f[n] === '' || f[n] === undefined ? null : f[n]) }}))));",
            serde_json::Value::Array(fields.clone())
        ));
        for (case, (field, js)) in cases
            .iter()
            .zip(fields.iter().zip(js.as_array().expect("array")))
        {
            let attrs: serde_json::Map<String, serde_json::Value> = field
                .as_object()
                .expect("object")
                .iter()
                .filter(|(_, v)| v.as_str() != Some(""))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let record: ElementRecord =
                serde_json::from_value(serde_json::json!({"t": "input", "a": attrs}))
                    .expect("record");
            assert_eq!(Some(is_secret(&record)), js.as_bool(), "{case:?}");
        }
    }

    /// The label an action's element is listed with (`control_label`, clipped to 80 in
    /// its explanation) is what `extract.js`'s `labelFrom` and `clip` make of the same
    /// record, which `dispatch.js` checks an element against before acting on it.
    #[test]
    fn extract_js_and_the_probe_agree_on_the_label_of_a_control() {
        let long = "word ".repeat(50);
        let spaced = format!("  Archive\u{a0}all \t\n {}", "x".repeat(90));
        // (tag, aria-label, label, text, value, title, alt)
        let cases: Vec<[&str; 7]> = vec![
            ["button", "", "", "Send", "", "", ""],
            ["button", "Delete forever", "", "Delete", "", "", ""],
            ["button", "   ", "", "  Archive  ", "", "", ""],
            ["input", "", "Subject", "", "hello", "", ""],
            ["input", "", "", "", "Search", "t", ""],
            ["button", "", "", "", "ignored: not an input", "Close", ""],
            ["img", "", "", "", "", "", "Logo"],
            [
                "a",
                "",
                "",
                "Toggle theme (auto) Toggle theme (light) Toggle theme (dark)",
                "",
                "",
                "",
            ],
            ["a", "", "", "Save and save again", "", "", ""],
            ["a", "", "", "ab ab ab", "", "", ""],
            ["span", "", "", &long, "", "", ""],
            ["span", "", "", &spaced, "", "", ""],
            [
                "button",
                "",
                "",
                "caf\u{e9} \u{1f600} na\u{ef}ve\u{2028}next\u{feff}x\u{7}y",
                "",
                "",
                "",
            ],
            ["button", "\u{3000}Wide\u{3000}", "", "", "", "", ""],
            ["div", "", "", "", "", "", ""],
        ];
        let js_cases: Vec<serde_json::Value> = cases
            .iter()
            .map(|c| {
                let v = |s: &str| {
                    if s.is_empty() {
                        serde_json::Value::Null
                    } else {
                        s.into()
                    }
                };
                serde_json::json!([
                    v(c[1]),
                    c[2],
                    c[3],
                    if c[0] == "input" {
                        v(c[4])
                    } else {
                        serde_json::Value::Null
                    },
                    v(c[5]),
                    v(c[6])
                ])
            })
            .collect();
        let js = node_with_extract_js(&format!(
            "const cases = {}; process.stdout.write(JSON.stringify(cases.map((c) => {{ \
             const l = NspExtract.labelFrom(c); return [l, NspExtract.clip(l, 80)]; }})));",
            serde_json::Value::Array(js_cases)
        ));
        for (case, js) in cases.iter().zip(js.as_array().expect("array")) {
            let mut attrs = serde_json::Map::new();
            for (k, v) in [
                ("aria-label", case[1]),
                ("value", case[4]),
                ("title", case[5]),
                ("alt", case[6]),
            ] {
                if !v.is_empty() {
                    attrs.insert(k.into(), v.into());
                }
            }
            let record: ElementRecord = serde_json::from_value(
                serde_json::json!({"t": case[0], "a": attrs, "l": case[2], "x": case[3]}),
            )
            .expect("record");
            let label = control_label(&record);
            let listed = clip(&label, 80);
            assert_eq!(js, &serde_json::json!([label, listed]), "{case:?}");
        }
    }

    #[test]
    fn a_label_repeated_per_state_is_named_by_its_first() {
        assert_eq!(
            first_of_repeats("Toggle theme (auto) Toggle theme (light) Toggle theme (dark)"),
            "Toggle theme (auto)"
        );
        assert_eq!(
            first_of_repeats("Save and save again"),
            "Save and save again"
        );
        assert_eq!(first_of_repeats("Send"), "Send");
    }

    #[test]
    fn colours_numbers_and_hashes_name_nothing() {
        for good in ["Title", "due date", "step2", "Add a tag", "2FA code"] {
            assert!(names_something(good), "{good}");
        }
        for bad in [
            "0",
            "12",
            "#1f272d",
            "#FFF",
            "rgb(31, 39, 45)",
            "hsl(0 0% 0%)",
            "1f272d",
            "a3f9c2e1",
            "",
            " - ",
        ] {
            assert!(!names_something(bad), "{bad}");
        }
    }

    #[test]
    fn generated_ids_are_not_stable() {
        for good in [
            "inbox",
            "unread-count",
            "compose",
            "step2",
            "h1",
            "address_line_2",
            "mp3",
            "strengths",
            "section2",
            "user_r_name",
            "car_r_",
        ] {
            assert!(stable_id(good), "{good}");
        }
        for bad in [
            ":r1:",
            "ember1234",
            "a3f9c2e1b7",
            "id-1699999999",
            "",
            "ag-10-input",
            "react-select-3-input",
            "mantine-vc3gav8sm",
            "mantine-u1ii09vsk",
            "mantine-dl6mqkqvp",
            "mantine-xkqzwrtm",
            // React 19's `useId`, in Radix's ids (marimo's dialogs).
            "radix-_r_5o_",
            "_r_a_",
            "\u{ab}r5o\u{bb}",
        ] {
            assert!(!stable_id(bad), "{bad}");
        }
    }
}
