//! Lists: repeated rows that become indexed records in `objects`
//! (`inbox.emails[0].subject`) and the rows that parameterized row actions select
//! (`archive(email_id)`). Both passes must agree on which list a row is in and what
//! keys it, so they share this one finding.
//!
//! Declared lists come from `data-nsp-key="path[]"` on each row. Other lists are found
//! from structure: a list container (`ul`, `tbody`, `role=list`…) whose children are
//! row-like elements.

use nsp_protocol::snapshot::ElementRecord;
use serde_json::Value;

use crate::page::{control_label, is_field, is_secret, stable_id, ElementRecordExt, Page};
use crate::text::{
    declared_value, name_slug, name_value_pairs, slug, sorted_distinct, typed_value,
};
use crate::HashMap;

/// Most records one list contributes to `objects`; the rest are counted in
/// `<list>_total`, so a 5,000-row table cannot inflate the state.
pub const MAX_RECORDS: usize = 100;
/// Most fields one record contributes.
const MAX_FIELDS: usize = 12;

/// One list on the page.
#[derive(Debug, Clone)]
pub struct List {
    /// Dot path of the list, e.g. `inbox.emails`.
    pub path: String,
    pub declared: bool,
    /// Row elements in document order.
    pub rows: Vec<usize>,
    /// How a row is told apart from its siblings, when it can be.
    pub key: Option<RowKey>,
    /// Classes that some rows have and others don't (`unread`), reported as booleans.
    pub state_classes: Vec<String>,
    /// Prefixes of class families that say one thing about each row with a word
    /// (`status-open`, `status-closed`; Django's `model-group`, `model-user`), each
    /// reported as one field, `status: "open"`, instead of a boolean per class.
    pub class_fields: Vec<String>,
    /// Column names of a table, by cell position.
    pub columns: Vec<String>,
    /// Cell positions left out of records: unnamed columns with the same text on every
    /// row ("Details" links) say nothing about the row.
    pub dropped_cells: Vec<usize>,
    /// For a list of named items (a nav's links, a menu, a tablist) whose rows each carry
    /// a short, distinct label: each row's name, the slug of that label without its
    /// numbers. Such records are keyed `<list>.<name>` instead of `<list>[N]`, so
    /// `folders.inbox.count` says which counter it is. `None` for lists of records.
    pub item_names: Option<Vec<String>>,
    /// How many rows the page says the list has when it shows only some of them (a
    /// virtualized list: `aria-rowcount` on a grid, `aria-setsize` on its rows).
    pub declared_total: Option<usize>,
    /// Whether a record reports the words its row shows outside any of its parts
    /// ([`unclaimed_words`]), and which of them it leaves out: those every row shows
    /// ("by", "comments"), the list's words, not a record's.
    pub unclaimed: Option<Vec<String>>,
}

/// Most rows a list of named items may have: longer lists are data, not navigation.
const MAX_NAMED_ITEMS: usize = 40;
/// Longest label (in bytes) that still names an item rather than describing a record.
const MAX_ITEM_LABEL: usize = 48;

/// What identifies a row.
#[derive(Debug, Clone, PartialEq)]
pub enum RowKey {
    /// An attribute of the row element (`data-email-id`), reported as field `field`.
    Attr { attr: String, field: String },
    /// The text of a cell, found at the same place in every row: its selector relative
    /// to the row (`div:nth-of-type(1) > span:nth-of-type(1)`).
    Text { rel: String, field: String },
}

/// All lists, and for each row element which list and record it is.
#[derive(Debug, Default)]
pub struct Lists {
    pub lists: Vec<List>,
    /// For each row element: its list and record index.
    pub row_of: Vec<Option<(usize, usize)>>,
    /// For each element: the list, record index and row element it belongs to.
    owner: Vec<Option<(usize, usize, usize)>>,
    /// Row containers of tables of labelled values ([`property_table`]), ascending:
    /// not lists.
    property_tables: Vec<usize>,
    /// Checkboxes and switches no record holds (a header's "select all" box),
    /// ascending.
    pub free_boxes: Vec<usize>,
}

/// What a cell of a table of labelled values ([`property_table`]) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyCell {
    /// A `th`: the label of the value after it.
    Label,
    /// A `td`: the value the `th` before it (this index) names.
    Value(usize),
}

impl Lists {
    /// The list and record index of the row `idx` belongs to (ancestor-or-self), and
    /// that row.
    pub fn record_of(&self, _page: &Page<'_>, idx: usize) -> Option<(usize, usize, usize)> {
        self.owner.get(idx).copied().flatten()
    }

    /// Whether `idx` is a cell of a table of labelled values, and which.
    pub fn property_cell(&self, page: &Page<'_>, idx: usize) -> Option<PropertyCell> {
        if self.property_tables.is_empty() {
            return None;
        }
        let row = page.parent[idx]?;
        if page.parent[row].is_none_or(|c| self.property_tables.binary_search(&c).is_err()) {
            return None;
        }
        match page.els[idx].tag.as_str() {
            "th" => Some(PropertyCell::Label),
            "td" => {
                let cells = page.children(row);
                let at = cells.iter().position(|c| *c == idx)?;
                let th = *cells[..at].last()?;
                (page.els[th].tag == "th").then_some(PropertyCell::Value(th))
            }
            _ => None,
        }
    }

    /// The label (`th`) of the value `idx` shows, when it is the whole of a value cell
    /// of a table of labelled values (a link showing Trac's owner, priority): the cell's
    /// text is its text and the cell holds no field. A toolbar in a cell beside its
    /// editor is no value.
    pub fn property_label_of(&self, page: &Page<'_>, idx: usize) -> Option<usize> {
        if self.property_tables.is_empty() {
            return None;
        }
        let td = page
            .ancestors(idx)
            .take(4)
            .find(|a| page.els[*a].tag == "td")?;
        let Some(PropertyCell::Value(th)) = self.property_cell(page, td) else {
            return None;
        };
        let whole = page.els[td].text.trim() == page.els[idx].text.trim()
            && !page.descendants(td).any(|d| page.field(d));
        whole.then_some(th)
    }
}

pub fn find(page: &Page<'_>) -> Lists {
    let mut lists = Lists {
        row_of: vec![None; page.els.len()],
        ..Lists::default()
    };
    let mut paths: HashMap<String, usize> = HashMap::default();
    let mut next: HashMap<String, usize> = HashMap::default();

    // Declared lists first: their paths are the page's own and must not be renamed.
    let mut declared_rows: Vec<(String, usize)> = Vec::new();
    for (i, e) in page.els.iter().enumerate() {
        if let Some(key) = e.attr("data-nsp-key").map(str::trim) {
            if let Some(path) = key.strip_suffix("[]") {
                let path = resolve_declared_path(page, i, path);
                if !path.is_empty() {
                    declared_rows.push((path, i));
                }
            }
        }
    }
    for (path, row) in declared_rows {
        let list_idx = *paths.entry(path.clone()).or_insert_with(|| {
            lists.lists.push(List {
                path: path.clone(),
                declared: true,
                rows: Vec::new(),
                key: None,
                state_classes: Vec::new(),
                class_fields: Vec::new(),
                columns: Vec::new(),
                dropped_cells: Vec::new(),
                item_names: None,
                declared_total: None,
                unclaimed: None,
            });
            lists.lists.len() - 1
        });
        let n = lists.lists[list_idx].rows.len();
        lists.lists[list_idx].rows.push(row);
        lists.row_of[row] = Some((list_idx, n));
    }

    // Whether each element is a record's row or inside one, as the rows are found:
    // parents come first, so an element's answer is final when the loop reaches it.
    let mut in_record = vec![false; page.els.len()];
    // The heads of tables drawn without table markup, found with their rows
    // ([`drawn_table_columns`]): they name columns, and hold no list of their own.
    let mut heads: Vec<usize> = Vec::new();
    // Whether each element is a combobox or inside one: what a combobox holds (the tags
    // of Select2's list of many choices) is its value, no list.
    let mut in_combobox = vec![false; page.els.len()];
    for c in 0..page.els.len() {
        in_record[c] = lists.row_of[c].is_some()
            || heads.contains(&c)
            || page.parent[c].is_some_and(|p| in_record[p]);
        in_combobox[c] =
            page.els[c].role() == "combobox" || page.parent[c].is_some_and(|p| in_combobox[p]);
        if page.declared_scope[c] || !page.els[c].visible || in_combobox[c] {
            continue;
        }
        let container = is_list_container(&page.els[c]);
        // A listbox whose options are labels around boxes of their own (Dash's
        // `dcc.Checklist` and `dcc.RadioItems`) is a group of fields, not a list.
        if page.els[c].role() == "listbox" && page.descendants(c).any(|d| page.field(d)) {
            continue;
        }
        if container && property_table(page, c) {
            lists.property_tables.push(c);
            continue;
        }
        let grid = aria_grid(&page.els[c]);
        // A table drawn with a `tbody` per row (Django Unfold's, to open each row
        // apart): the rows of all its bodies are one list, taken at the first body.
        let bodies: Vec<usize> = match page.parent[c] {
            Some(t) if page.els[c].tag == "tbody" && page.els[t].tag == "table" => page
                .children(t)
                .iter()
                .copied()
                .filter(|b| page.els[*b].tag == "tbody" && page.els[*b].visible)
                .collect(),
            _ => Vec::new(),
        };
        if bodies.len() > 1 && bodies[0] != c {
            continue;
        }
        let sources = if bodies.len() > 1 { bodies } else { vec![c] };
        let mut rows: Vec<usize> = Vec::new();
        for &b in &sources {
            rows.extend(page.children(b).iter().copied().filter(|r| {
                let e = &page.els[*r];
                let row_like = if container {
                    // A header row names columns; it is no record (a `tr` of `th`
                    // cells in the body too: a table written without `<thead>`; a
                    // row drawn as one, [`drawn_header_row`]).
                    is_row(e)
                        && !((e.role() == "row" || e.tag == "tr") && header_row(page, *r))
                        && !drawn_header_row(page, *r)
                } else {
                    // Outside list markup, repeated articles or siblings keyed by a data
                    // attribute are rows (an id alone marks a thing, not a row); a field
                    // is an object of its own, not a record of its key (Fava keys its
                    // filter fields with their shortcuts: `data-key="f t"`).
                    e.tag == "article"
                        || e.role() == "article"
                        // Rows the extraction found by their twin controls
                        // (`twinRows` in extract.js).
                        || e.attr("nsp-row").is_some()
                        || e.classes().split_whitespace().any(table_row_class)
                        || (!is_field(e)
                            && key_attrs(e).iter().any(|(a, _)| a != "id")
                            && !field_wrapper(page, *r))
                };
                // A bare item (no letter or digit, nothing recorded inside) is a
                // divider: an empty `li`, a toolbar's "---------------", a pager's "…".
                let bare = !e.text.chars().any(char::is_alphanumeric) && page.end[*r] == *r + 1;
                e.visible
                    && row_like
                    && !(bare && container)
                    && !page.declared_scope[*r]
                    && lists.row_of[*r].is_none()
            }));
        }
        // A grid drawn in parts (pinned columns beside the others): one list per part,
        // the first keyed and named as usual, the others adding their cells to the same
        // records ([`grid_parts`]).
        let mut twins: Vec<Vec<usize>> = Vec::new();
        if grid {
            rows = grid_rows(page, c, &lists.row_of);
            if let Some(mut parts) = grid_parts(page, &rows) {
                rows = parts.remove(0);
                twins = parts;
            }
        } else if !container && in_record[c] {
            // Inside a record, only list markup makes a list of its own ([`sublist`]):
            // keyed parts or frames of a row are that row's fields already.
            rows.clear();
        } else if rows.is_empty() && !container {
            rows = frames(page, c, &lists.row_of);
        }
        if form_layout(page, &rows) {
            continue;
        }
        if rows.is_empty()
            || (!container
                && (rows.len() < 2
                    || rows
                        .iter()
                        .any(|r| page.els[*r].tag != page.els[rows[0]].tag)))
        {
            continue;
        }
        let (mut name, mut named) = list_name(page, c);
        if !named && !in_record[c] {
            if let Some(headed) = headed_name(page, c, &lists.row_of) {
                (name, named) = (headed, true);
            }
        }
        let ns = records_namespace(page, c, &rows);
        let item_names = item_names(page, c, &rows);
        // A sublist is keyed under the record holding it: `accounts[1].items`.
        let holder = sublist(page, c)
            .then(|| page.ancestors(c).find_map(|a| lists.row_of[a]))
            .flatten()
            .filter(|(l, _)| !lists.lists[*l].declared);
        // A record's menu of controls drawn as icons, in list markup (a page listing's
        // `td > ul.actions > li > button[aria-label="More options for 'About us'"]`):
        // no list of its own, its items show no text; its controls are the record's.
        if holder.is_some()
            && rows
                .iter()
                .all(|&r| page.els[r].text.trim().is_empty() && text_cells(page, r).is_empty())
        {
            continue;
        }
        let path = match (holder, ns) {
            (Some((l, n)), _) => {
                let outer = &lists.lists[l];
                match &outer.item_names {
                    Some(names) => format!("{}.{}.{name}", outer.path, names[n]),
                    None => format!("{}[{n}].{name}", outer.path),
                }
            }
            // An unnamed list of named items adds no level: `folders.inbox.count`, not
            // `folders.items.inbox.count`.
            (None, Some(ns)) if item_names.is_some() && !named => ns.to_owned(),
            (None, _) => page.key_in(ns, &name),
        };
        // Numbered on from the last number tried: a page of thousands of lists of one
        // name is no n².
        let path = crate::text::number_on(path, &mut next, &|p| crate::kept(&paths, p).is_some());
        let mut column_parts = if grid {
            aria_columns(page, c)
        } else if container {
            vec![table_columns(page, c)]
        } else {
            let mut columns = Vec::new();
            if let Some((head, names)) = drawn_table_columns(page, c, &rows) {
                heads.push(head);
                columns = names;
            }
            vec![columns]
        };
        if column_parts.len() != twins.len() + 1 {
            column_parts = vec![column_parts.concat()];
        }
        let mut column_parts = column_parts.into_iter();
        let columns = column_parts.next().unwrap_or_default();
        let key = row_key(page, &rows, &columns);
        let (state_classes, class_fields) = state_classes(page, &rows);
        let dropped_cells = constant_unnamed_cells(page, &rows, &columns);
        let declared_total = declared_total(page, c, &rows);
        let unclaimed = item_names
            .is_none()
            .then(|| unclaimed_glue(page, &rows))
            .flatten();
        let list_idx = lists.lists.len();
        paths.insert(path.clone(), list_idx);
        for (n, r) in rows.iter().enumerate() {
            lists.row_of[*r] = Some((list_idx, n));
        }
        lists.lists.push(List {
            path: path.clone(),
            declared: false,
            rows,
            key,
            state_classes,
            class_fields,
            columns,
            dropped_cells,
            item_names,
            declared_total,
            unclaimed,
        });
        for rows in twins {
            let n = lists.lists.len();
            for (k, r) in rows.iter().enumerate() {
                lists.row_of[*r] = Some((n, k));
            }
            lists.lists.push(List {
                path: path.clone(),
                declared: false,
                rows,
                key: None,
                state_classes: Vec::new(),
                class_fields: Vec::new(),
                columns: column_parts.next().unwrap_or_default(),
                dropped_cells: Vec::new(),
                item_names: None,
                declared_total: None,
                unclaimed: None,
            });
        }
    }
    // Ownership flows down the table: parents come before children.
    lists.owner = vec![None; page.els.len()];
    for i in 0..page.els.len() {
        lists.owner[i] = match lists.row_of[i] {
            Some((l, n)) => Some((l, n, i)),
            None => page.parent[i].and_then(|p| lists.owner[p]),
        };
        if lists.owner[i].is_none() && crate::page::is_switch(&page.els[i]) {
            lists.free_boxes.push(i);
        }
    }
    lists
}

/// Whether `r` wraps a field and shows no words but the field's (a widget's box keyed
/// by the widget: Select2's `span[data-select2-id]` around its picker): the field is
/// an object of its own, the box no record.
fn field_wrapper(page: &Page<'_>, r: usize) -> bool {
    let text = page.els[r].text.trim();
    page.descendants(r)
        .any(|d| page.field(d) && page.els[d].text.trim() == text)
}

/// What the records of `rows` report of the words their rows show outside their parts
/// ([`unclaimed_words`]): `None` when no row (of those a capture reports) shows any
/// but the words every row that shows some shows, else those words, the list's and no
/// record's ("by", "comments"; none when one row shows any).
fn unclaimed_glue(page: &Page<'_>, rows: &[usize]) -> Option<Vec<String>> {
    let shown: Vec<Vec<&str>> = rows
        .iter()
        .take(MAX_RECORDS)
        .filter_map(|&r| unclaimed_words(page, r))
        .collect();
    let glue: Vec<String> = match shown.split_first() {
        Some((first, rest)) if !rest.is_empty() => first
            .iter()
            .filter(|w| rest.iter().all(|r| r.contains(w)))
            .map(|w| (*w).to_owned())
            .collect(),
        _ => Vec::new(),
    };
    shown
        .iter()
        .flatten()
        .any(|w| !glue.iter().any(|g| g == w))
        .then_some(glue)
}

/// The words row `row` shows that none of its recorded parts holds: text written
/// straight into the row or into elements the extraction does not record (a journal
/// entry's narration after its payee, `<strong class="payee">Market</strong>Vegetables`
/// in one span; "by" between a title and its author). Each part's text is found in the
/// row's text in order, whitespace aside, and what lies between them is returned in
/// pieces, those that hold a letter or a digit. `None` when the row has no parts, when
/// a visible part's text is not where it should be (the row's text was cut at its
/// limit), or when the row holds a list box or a text area, whose markup puts words in
/// the row's text that are no value shown.
pub fn unclaimed_words<'p>(page: &'p Page<'_>, row: usize) -> Option<Vec<&'p str>> {
    let parts = page.children(row);
    let text = page.els[row].text.as_str();
    if parts.is_empty() || text.trim().is_empty() {
        return None;
    }
    if page
        .descendants(row)
        .any(|d| matches!(page.els[d].tag.as_str(), "select" | "textarea"))
    {
        return None;
    }
    let mut pieces: Vec<&str> = Vec::new();
    let mut at = 0;
    for &p in parts {
        let t = page.els[p].text.trim();
        if t.is_empty() {
            continue;
        }
        match find_loose(text, at, t) {
            Some((start, end)) => {
                pieces.push(&text[at..start]);
                at = end;
            }
            None if !page.els[p].visible => {}
            None => return None,
        }
    }
    pieces.push(&text[at..]);
    let words: Vec<&str> = pieces
        .into_iter()
        .map(str::trim)
        .filter(|p| p.chars().any(char::is_alphanumeric))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// Where `needle` is in `hay` at or after byte `from`, whitespace aside (a control's
/// text spaces its blocks apart where its row's text does not): the byte range of
/// `hay` from its first matched character to just after its last.
fn find_loose(hay: &str, from: usize, needle: &str) -> Option<(usize, usize)> {
    let solid = |c: &char| !c.is_whitespace();
    let first = needle.chars().find(solid)?;
    'start: for (s, _) in hay[from..].match_indices(first) {
        let start = from + s;
        let mut rest = hay[start..].char_indices().filter(|(_, c)| solid(c));
        let mut end = start;
        for want in needle.chars().filter(solid) {
            match rest.next() {
                Some((at, c)) if c == want => end = start + at + c.len_utf8(),
                _ => continue 'start,
            }
        }
        return Some((start, end));
    }
    None
}

fn constant_unnamed_cells(page: &Page<'_>, rows: &[usize], columns: &[String]) -> Vec<usize> {
    if rows.len() < 2 {
        return Vec::new();
    }
    let cells: Vec<Vec<usize>> = rows.iter().map(|r| cell_elements(page, *r)).collect();
    let width = cells.iter().map(Vec::len).min().unwrap_or(0);
    (0..width)
        .filter(|pos| {
            // Named by the cell's own column, wherever cells without text sit before it;
            // a link that says the same on every row is an action's label ("edit"), in
            // whatever column it sits.
            let named = !page.control(cells[0][*pos])
                && column_name(page, columns, rows[0], cells[0][*pos])
                    .is_some_and(|c| !c.starts_with("col"));
            let first = &page.els[cells[0][*pos]].text;
            !named && cells.iter().all(|row| page.els[row[*pos]].text == *first)
        })
        .collect()
}

/// The namespace of a list's records: its region's, unless that region is named by its
/// first heading and that heading is one record's own (the region around a list of
/// posts named after the first post): every record, and every control in them, would
/// then be named after that one record. Such a region is skipped for the one around it.
pub fn records_namespace<'p>(page: &'p Page<'_>, c: usize, rows: &[usize]) -> Option<&'p str> {
    let mut region = page.region[c];
    while let Some(r) = region {
        let named_by_record = crate::page::own_name(page, &page.els[r]).is_none()
            && (r + 1..page.end[r].min(r + 60))
                .find(|j| page.heading(*j))
                .is_some_and(|h| rows.iter().any(|row| *row <= h && h < page.end[*row]));
        if !named_by_record {
            return page.region_name[r].as_deref();
        }
        region = page.region[r];
    }
    None
}

/// The size a virtualized list declares, when it is more than the rows it shows: the
/// container's `aria-rowcount` (a grid counts its header rows too, as the page says),
/// else its first row's `aria-setsize`. `-1` (unknown) and values that are no count give
/// none.
fn declared_total(page: &Page<'_>, c: usize, rows: &[usize]) -> Option<usize> {
    let count = |v: Option<&str>| v.and_then(|v| v.trim().parse::<usize>().ok());
    // A grid counts its header rows among its rows (`aria-rowcount` is the whole
    // table's): the last header row's index, else how many there are.
    let above = || {
        let (mut heads, mut last) = (0, None);
        for d in page.descendants(c) {
            if page.els[d].role() == "row" && header_row(page, d) {
                heads += 1;
                last = count(page.els[d].attr("aria-rowindex")).max(last);
            }
        }
        last.unwrap_or(heads)
    };
    let total = count(page.els[c].attr("aria-rowcount"))
        .map(|n| n.saturating_sub(above()))
        .or_else(|| count(rows.first().and_then(|r| page.els[*r].attr("aria-setsize"))))?;
    (total > rows.len()).then_some(total)
}

/// A declared key relative to its declared ancestors: `.emails[]` inside
/// `data-nsp-key="inbox"` is `inbox.emails`.
pub fn resolve_declared_path(page: &Page<'_>, idx: usize, key: &str) -> String {
    let key = key.trim();
    if !key.starts_with('.') {
        return key.to_owned();
    }
    for a in page.ancestors(idx) {
        if let Some(outer) = page.els[a].attr("data-nsp-key").map(str::trim) {
            if outer.ends_with("[]") {
                // Relative keys inside a record resolve in `objects` with the index.
                return String::new();
            }
            let outer = resolve_declared_path(page, a, outer);
            if outer.is_empty() {
                return String::new();
            }
            return format!("{outer}{key}");
        }
    }
    key.trim_start_matches('.').to_owned()
}

/// An ARIA grid or table drawn with other elements than a `<table>`: its rows sit in
/// row groups, often in wrappers a virtualizing list positions, and its header row is
/// a row of `columnheader`s.
fn aria_grid(e: &ElementRecord) -> bool {
    e.tag != "table" && matches!(e.role(), "grid" | "treegrid" | "table")
}

/// The rows of an ARIA grid, wherever they sit below it (row groups, a virtualized
/// list's wrappers), without its header rows and without the rows of a grid inside it.
fn grid_rows(page: &Page<'_>, grid: usize, row_of: &[Option<(usize, usize)>]) -> Vec<usize> {
    let mut rows = Vec::new();
    let mut d = grid + 1;
    while d < page.end[grid] {
        let e = &page.els[d];
        if matches!(e.role(), "grid" | "treegrid" | "table") || e.tag == "table" {
            d = page.end[d];
            continue;
        }
        if e.role() == "row" {
            if e.visible && !page.declared_scope[d] && row_of[d].is_none() && !header_row(page, d) {
                rows.push(d);
            }
            d = page.end[d];
            continue;
        }
        d += 1;
    }
    rows
}

/// The rows of an ARIA grid drawn in parts side by side, one part per row group, in
/// document order: a data grid draws the columns pinned to an edge in a row group of
/// their own, so each row of the table is a row in every part, the parts' rows sharing
/// their `aria-rowindex` in the same order (AG Grid). `None` unless every part's rows
/// carry the first part's indexes, one for one.
fn grid_parts(page: &Page<'_>, rows: &[usize]) -> Option<Vec<Vec<usize>>> {
    let mut parts: Vec<Vec<usize>> = Vec::new();
    for &r in rows {
        match parts
            .iter_mut()
            .find(|p| page.parent[p[0]] == page.parent[r])
        {
            Some(p) => p.push(r),
            None => parts.push(vec![r]),
        }
    }
    let index = |r: &usize| page.els[*r].attr("aria-rowindex").map(str::trim);
    let first = parts.first()?;
    (parts.len() > 1
        && first
            .iter()
            .all(|r| index(r).is_some_and(|v| !v.is_empty()))
        && parts[1..].iter().all(|p| {
            p.len() == first.len() && p.iter().zip(first).all(|(a, b)| index(a) == index(b))
        }))
    .then_some(parts)
}

/// A row whose cells are all column headers.
fn header_row(page: &Page<'_>, row: usize) -> bool {
    let cells = row_cells_at(page, row);
    !cells.is_empty()
        && cells
            .iter()
            .all(|c| page.els[*c].role() == "columnheader" || page.els[*c].tag == "th")
}

/// Whether element `i` is a table's cell (`td`, `th`, an ARIA cell or header, or a
/// `div` or `span` whose class names it one: [`table_cell_class`]).
fn is_cell(page: &Page<'_>, i: usize) -> bool {
    let e = &page.els[i];
    matches!(e.tag.as_str(), "td" | "th")
        || matches!(e.role(), "gridcell" | "cell" | "columnheader" | "rowheader")
        || (matches!(e.tag.as_str(), "div" | "span")
            && e.classes().split_whitespace().any(table_cell_class))
}

/// The cells of row `row`, in order: its children that are cells, and the cells inside
/// its other children, as the accessibility tree owns them through the wrappers a grid
/// draws its pinned and scrolling columns in (AG Grid's `role=presentation` parts).
fn row_cells_at(page: &Page<'_>, row: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut d = row + 1;
    while d < page.end[row] {
        if is_cell(page, d) {
            out.push(d);
        } else if !matches!(page.els[d].role(), "row" | "grid" | "table" | "treegrid") {
            d += 1;
            continue;
        }
        d = page.end[d];
    }
    out
}

/// A header row drawn without table markup (`ol > li.head`, `tr.header` of `td`s): a
/// row whose class says it heads (`head`, `header`, `heading`, `thead`, or a word ending
/// in one: `table-header`, `list__head`), that holds what column names hold and no data
/// (no link, field, heading or submit; a few words), and that heads rows of its own tag:
/// it is the first row of its list and another follows, or the one row of a list right
/// before theirs (Fava draws its journal's header as a list of its own). Like a row of
/// `th`, it is no record, and its buttons are the columns' sorts
/// ([`in_drawn_header`]).
pub fn drawn_header_row(page: &Page<'_>, r: usize) -> bool {
    let e = &page.els[r];
    if !is_row(e) || !e.classes().split_whitespace().any(heads_class) {
        return false;
    }
    let data = page.descendants(r).any(|d| {
        let x = &page.els[d];
        page.field(d)
            || page.heading(d)
            || x.tag == "a"
            || (x.tag == "input" && matches!(x.input_type().as_ref(), "submit" | "image"))
            || (x.tag == "button"
                && page.form[d].is_some()
                && x.attr("type")
                    .is_none_or(|t| t.trim().eq_ignore_ascii_case("submit")))
    });
    if data || crate::text::words(&e.text).len() >= 24 {
        return false;
    }
    let rows_like = |c: usize| rows_of_tag(page, c, &e.tag);
    let Some(p) = page.parent[r] else {
        return false;
    };
    let first = page
        .children(p)
        .iter()
        .find(|x| page.els[**x].visible && is_row(&page.els[**x]));
    if first != Some(&r) {
        return false;
    }
    if rows_like(p) >= 2 {
        return true;
    }
    let next = page.end[p];
    next < page.els.len()
        && page.parent[next] == page.parent[p]
        && is_list_container(&page.els[next])
        && rows_like(next) >= 1
}

/// How many of `c`'s children are visible rows of tag `tag`.
#[inline(never)]
fn rows_of_tag(page: &Page<'_>, c: usize, tag: &str) -> usize {
    let mut n = 0;
    for &x in page.children(c) {
        let x = &page.els[x];
        n += usize::from(x.visible && x.tag == tag && is_row(x));
    }
    n
}

/// A class word that says its element heads what follows: `head`, `header`,
/// `heading`, `thead`, or a compound ending in one (`table-header`, `list__head`,
/// `gridHeader`).
fn heads_class(c: &str) -> bool {
    // Without lowercasing a copy: every row's every class comes through here.
    let ends = |s: &str, tail: &str| {
        s.len() >= tail.len()
            && s.as_bytes()[s.len() - tail.len()..].eq_ignore_ascii_case(tail.as_bytes())
    };
    let last = c.rsplit(['-', '_']).next().unwrap_or(c);
    ["head", "header", "heading", "thead"]
        .iter()
        .any(|w| last.eq_ignore_ascii_case(w))
        || (last.len() == c.len() && c.len() <= 16 && (ends(c, "header") || ends(c, "head")))
}

/// Whether element `idx` sits in a [`drawn_header_row`] (its nearest row is one), or
/// in a cell of a table's head drawn without table markup ([`drawn_table_columns`]:
/// a class cell inside an element whose class says it heads a table).
pub fn in_drawn_header(page: &Page<'_>, idx: usize) -> bool {
    if page
        .ancestors(idx)
        .take(8)
        .find(|a| is_row(&page.els[*a]))
        .is_some_and(|r| drawn_header_row(page, r))
    {
        return true;
    }
    let mut in_cell = false;
    for a in page.ancestors(idx).take(8) {
        let e = &page.els[a];
        let mut classes = e.classes().split_whitespace();
        if in_cell && classes.any(table_head_class) {
            return true;
        }
        in_cell |= matches!(e.tag.as_str(), "div" | "span")
            && e.classes().split_whitespace().any(table_cell_class);
    }
    false
}

/// Records drawn as repeated frames outside list markup: siblings of one tag and one
/// class (at least two), each holding a heading and a control (open editors, cards,
/// panes). Each is one record, so a control every frame repeats ("Close") is one row
/// action chosen by the record, not one action per frame.
fn frames(page: &Page<'_>, c: usize, row_of: &[Option<(usize, usize)>]) -> Vec<usize> {
    let kids = page.children(c);
    let Some(&first) = kids.first() else {
        return Vec::new();
    };
    let shape = |r: usize| (page.els[r].tag.as_str(), page.els[r].classes());
    if shape(first).1.trim().is_empty() {
        return Vec::new();
    }
    let rows: Vec<usize> = kids
        .iter()
        .copied()
        .filter(|r| shape(*r) == shape(first))
        .collect();
    let framed = |r: usize| {
        let e = &page.els[r];
        e.visible
            && !page.declared_scope[r]
            && row_of[r].is_none()
            && page
                .descendants(r)
                .any(|d| crate::page::is_heading(&page.els[d]))
            && page.descendants(r).any(|d| page.control(d))
    };
    if rows.len() < 2 || rows.len() != kids.len() || !rows.iter().all(|r| framed(*r)) {
        return Vec::new();
    }
    rows
}

/// Whether the rows of table section `c` (a `tbody`, or a `table` holding its rows) are
/// labelled values rather than records: every row is one or more `th`, `td` pairs
/// (`<th>Reported by:</th><td>alice</td><th>Owned by:</th><td>bob</td>`), at least
/// one `th` has text, and no `thead` names columns. A ticket's or a person's details,
/// an infobox. Their values are objects named by their labels (objects.rs), and what
/// the cells hold is no record of a list.
fn property_table(page: &Page<'_>, c: usize) -> bool {
    let table = match page.els[c].tag.as_str() {
        "table" => c,
        "tbody" => match page.parent[c] {
            Some(t) if page.els[t].tag == "table" => t,
            _ => return false,
        },
        _ => return false,
    };
    let rows = page.children(c);
    if rows.is_empty()
        || page
            .children(table)
            .iter()
            .any(|s| page.els[*s].tag == "thead")
    {
        return false;
    }
    let mut labelled = false;
    for &r in rows {
        if page.els[r].tag != "tr" {
            return false;
        }
        let cells = page.children(r);
        if cells.is_empty() || cells.len() % 2 != 0 {
            return false;
        }
        for pair in cells.chunks(2) {
            let (th, td) = (&page.els[pair[0]], &page.els[pair[1]]);
            if th.tag != "th" || td.tag != "td" {
                return false;
            }
            labelled |= !th.text.trim().is_empty();
        }
    }
    labelled
}

/// Whether `rows` lay out a form's fields rather than records: each row holds at most a
/// few fields a person fills (no checkbox or radio: a todo's box beside its text is a
/// record's state), each named by a label of its own that no other row's field has
/// (records repeat their fields; a form's rows each hold different ones), and no text
/// but those labels and the text of controls beside them ("Weeks" beside the weeks of
/// an interval, a settings table; Roundup's "Priority" and "Status" in one row, a
/// "(list)" helper link beside "Nosy List"); a row of the form's buttons alone is part
/// of it. Rows of one `<form>` whose fields all have names of their own are laid out
/// too, whatever their labels and boxes (the form sends each field by its name). The
/// fields are the page's own objects, named and valued as fields are (`objects.rs`),
/// not rows of label texts with their values left out.
fn form_layout(page: &Page<'_>, rows: &[usize]) -> bool {
    if rows.len() < 2 {
        return false;
    }
    let fields_of = |r: usize| -> Vec<usize> {
        page.descendants(r)
            .filter(|&i| page.field(i) && page.els[i].visible)
            .collect()
    };
    // Rows of one `<form>` whose every field has a name no other has: the form sends
    // each by its name, so they are its fields whatever their labels say (Roundup's
    // "Sort on: [sort0] Descending: [sortdir0]", then "[sort1] Descending: [sortdir1]").
    // A records list in a form repeats its rows' names (`_selected_action`).
    let by_name = {
        let form = page.form[rows[0]];
        let mut names: Vec<&str> = Vec::new();
        form.is_some()
            && rows.iter().all(|r| page.form[*r] == form)
            && rows.iter().flat_map(|&r| fields_of(r)).all(|f| {
                // A select widget is sent as the select it stands for, which its
                // label names (Flask-AppBuilder's Select2 fields beside named inputs).
                let e = &page.els[f];
                let name = match e.attr("name") {
                    None if crate::page::is_picker(e) => e.label.trim(),
                    n => n.map_or("", str::trim),
                };
                let fresh = !name.is_empty() && !names.contains(&name);
                names.push(name);
                fresh
            })
    };
    let mut labels: Vec<&str> = Vec::new();
    let mut with_fields = 0;
    for &r in rows {
        let fields = fields_of(r);
        if fields.len() > 4 {
            return false;
        }
        let first = labels.len();
        for &f in &fields {
            let field = &page.els[f];
            let label = field.label.trim();
            if !by_name
                && (label.is_empty()
                    || labels.contains(&label)
                    || matches!(field.input_type().as_ref(), "checkbox" | "radio")
                    || matches!(field.role(), "checkbox" | "radio" | "switch"))
            {
                return false;
            }
            labels.push(label);
        }
        with_fields += usize::from(!fields.is_empty());
        let own = &labels[first..];
        let in_control = |i: usize| {
            std::iter::once(i)
                .chain(page.ancestors(i).take_while(|a| *a != r))
                .any(|a| page.control(a) || page.field(a))
        };
        // Every text of the row is a label of its fields or a control's, or drawn inside
        // one (a select widget's clear "×"; in rows sent by name, a caption in a header
        // cell or ending in a colon: "Sort on:").
        let said = |i: usize| {
            let e = &page.els[i];
            let t = e.text.trim();
            t.is_empty()
                || own.contains(&t)
                || fields.contains(&i)
                || in_control(i)
                || (by_name && (matches!(e.tag.as_str(), "th" | "label") || t.ends_with(':')))
        };
        if !page
            .descendants(r)
            .filter(|&i| page.children(i).is_empty())
            .all(said)
        {
            return false;
        }
        // Nor any word outside its parts.
        if unclaimed_words(page, r).is_some() {
            return false;
        }
    }
    with_fields >= 2
}

fn is_list_container(e: &ElementRecord) -> bool {
    matches!(
        e.tag.as_str(),
        "ul" | "ol" | "tbody" | "table" | "menu" | "dl"
    ) || matches!(
        e.role(),
        "list" | "grid" | "listbox" | "table" | "rowgroup" | "feed" | "tree" | "treegrid" | "menu"
    )
}

/// A row of a list: a list item, table row, article, ARIA row or item, or an element a
/// class names a table's row.
pub fn is_row(e: &ElementRecord) -> bool {
    matches!(e.tag.as_str(), "li" | "tr" | "article")
        || matches!(
            e.role(),
            "row" | "listitem" | "option" | "article" | "treeitem" | "menuitem"
        )
        || e.classes().split_whitespace().any(table_row_class)
}

/// A class naming a table's row on an element that is no `tr` (`lsf-table-row`,
/// Tailwind's `table-row`): a word holding "table" and ending in "row", any case. Kept
/// in step with `TABLE_ROW_CLASS` in extension/extract.js.
fn table_row_class(c: &str) -> bool {
    table_class(c, "row")
}

/// A class naming a table's cell on an element that is no `td` (`lsf-table__cell`).
fn table_cell_class(c: &str) -> bool {
    table_class(c, "cell")
}

/// A class naming the head of a table drawn without table markup (`lsf-table-head`,
/// `data-table-header`).
fn table_head_class(c: &str) -> bool {
    table_class(c, "head") || table_class(c, "header")
}

/// A class word of letters, digits, `_` and `-` that holds "table" and ends in `tail`,
/// any case (a variant's `md:table-cell` is a layout rule, not a part). Kept in step
/// with `TABLE_ROW_CLASS` and `TABLE_PART_CLASS` in extension/extract.js.
#[inline(never)]
fn table_class(c: &str, tail: &str) -> bool {
    let (b, t) = (c.as_bytes(), tail.as_bytes());
    if b.len() < t.len() + 5 {
        return false;
    }
    let at = b.len() - t.len();
    // "table" before the tail, any case: a match so far of `seen` letters.
    let mut seen = 0;
    let mut table = false;
    for (k, &x) in b.iter().enumerate() {
        if !(x.is_ascii_alphanumeric() || x == b'_' || x == b'-')
            || (k >= at && x.to_ascii_lowercase() != t[k - at])
        {
            return false;
        }
        let x = x.to_ascii_lowercase();
        seen = if k < at && x == b"table"[seen] {
            seen + 1
        } else {
            usize::from(x == b't')
        };
        table |= seen == 5;
        if seen == 5 {
            seen = 0;
        }
    }
    table
}

/// A list drawn with list markup inside a row of another list (`li > ol`: a tree's
/// branch, a nested menu, a comment's replies, a cell's tags): a list of its own, keyed
/// under the record that holds it ([`find`]), and no part of that record's fields, so
/// each item is said once, under its parent, not again in every ancestor's record.
/// Tables are not: a table inside a row is most often layout.
fn sublist(page: &Page<'_>, i: usize) -> bool {
    let e = &page.els[i];
    e.visible
        && (matches!(e.tag.as_str(), "ul" | "ol" | "menu")
            || matches!(e.role(), "list" | "tree" | "group"))
        && page.children(i).iter().any(|r| {
            let r = &page.els[*r];
            r.visible && is_row(r)
        })
}

/// The descendants of `row` that are its own: those of its [`sublist`]s left out.
pub fn own_descendants<'p>(page: &'p Page<'_>, row: usize) -> impl Iterator<Item = usize> + 'p {
    let end = page.end[row];
    let mut i = row + 1;
    std::iter::from_fn(move || {
        while i < end {
            if sublist(page, i) {
                i = page.end[i];
                continue;
            }
            i += 1;
            return Some(i - 1);
        }
        None
    })
}

/// The list's name, and whether the page gave it one (an id or a label) rather than
/// the fallback `items`/`rows`.
fn list_name(page: &Page<'_>, c: usize) -> (String, bool) {
    let e = &page.els[c];
    if let Some(name) = crate::page::own_name(page, e) {
        return (name, true);
    }
    let table = match e.tag.as_str() {
        "table" => Some(c),
        "tbody" => page.parent[c].filter(|t| page.els[*t].tag == "table"),
        _ => None,
    };
    if let Some(table) = table {
        if let Some(name) = crate::page::own_name(page, &page.els[table]) {
            return (name, true);
        }
        let titled = title_row(page, table)
            .and_then(|r| {
                row_cells_of(page, r)
                    .first()
                    .map(|h| slug(&page.els[*h].text))
            })
            .filter(|n| !n.is_empty());
        if let Some(name) = titled {
            return (name, true);
        }
        return ("rows".into(), false);
    }
    match e.tag.as_str() {
        "table" | "tbody" => ("rows".into(), false),
        _ => ("items".into(), false),
    }
}

/// The name a list with none of its own takes from the heading right before it (or
/// before its table: among the 12 records before it) in an element holding both, with
/// nothing of another list between them, when that heading does not name the list's
/// region already: a flat section's heading (MLflow's "Metrics (2)" and "Parameters
/// (2)" above two tables, Fava's "Beancount options" in an article whose first heading
/// is "Color scheme"). Not a page's title (`h1`), nor one of a run of headings with
/// nothing between them (tabs drawn as headings). Counts are left out
/// ([`name_slug`]): they change with the rows.
fn headed_name(page: &Page<'_>, c: usize, row_of: &[Option<(usize, usize)>]) -> Option<String> {
    let at = match page.parent[c] {
        Some(t) if page.els[c].tag == "tbody" && page.els[t].tag == "table" => t,
        _ => c,
    };
    let h = page.heading_before(at, 12)?;
    if page.els[h].tag == "h1"
        || (h + 1..at).any(|j| row_of[j].is_some())
        // A run of headings with nothing between them is a row of tabs or links
        // (Fava's "Journal", "Changes (monthly)", "Balances (monthly)"), no title.
        || (h.saturating_sub(12)..h)
            .any(|k| page.heading(k) && page.end[k] == h && page.parent[k] == page.parent[h])
    {
        return None;
    }
    let name = crate::text::name_slug(&page.els[h].text);
    let region = page.region[c].and_then(|r| page.region_name[r].as_deref());
    (!name.is_empty() && name.len() <= 40 && region != Some(name.as_str())).then_some(name)
}

/// The names of a list's items when it is a list of named items: a menu, or a list
/// inside navigation, of at most [`MAX_NAMED_ITEMS`] rows, each labelled by a short text
/// whose slug (numbers left out, see [`name_slug`]) is distinct from the others'.
/// Tables and lists elsewhere are data: their records keep `[N]`.
fn item_names(page: &Page<'_>, c: usize, rows: &[usize]) -> Option<Vec<String>> {
    let e = &page.els[c];
    let menu_like = e.tag == "menu" || matches!(e.role(), "menu" | "menubar" | "tablist");
    // Inside navigation: the nearest region around it is a nav (every nav is a region,
    // named "nav" at least).
    let in_nav = || {
        page.region[c]
            .is_some_and(|r| page.els[r].tag == "nav" || page.els[r].role() == "navigation")
    };
    if matches!(e.tag.as_str(), "table" | "tbody" | "dl")
        || rows.is_empty()
        || rows.len() > MAX_NAMED_ITEMS
        || !(menu_like || e.tag == "nav" || e.role() == "navigation" || in_nav())
    {
        return None;
    }
    // Plain loops in these functions, not iterator chains: each chain is code of its own
    // in the wasm, which has a size budget.
    let mut names: Vec<String> = Vec::with_capacity(rows.len());
    for r in rows {
        let label = item_label(page, *r);
        if label.len() > MAX_ITEM_LABEL {
            return None;
        }
        let name = name_slug(&label);
        // A name still starting with a digit is made of numbers: no name at all.
        if name.is_empty() || name.as_bytes()[0].is_ascii_digit() || names.contains(&name) {
            return None;
        }
        names.push(name);
    }
    Some(names)
}

/// What an item of a menu is called: the label of its first control (the link or
/// button a person reads), else its own text.
pub fn item_label(page: &Page<'_>, row: usize) -> String {
    if let Some(i) = first_control(page, row) {
        let label = control_label(&page.els[i]);
        if !label.trim().is_empty() {
            return label;
        }
    }
    page.els[row].text.trim().to_owned()
}

/// The row itself when it is a control, else its first control.
fn first_control(page: &Page<'_>, row: usize) -> Option<usize> {
    (row..page.end[row]).find(|i| page.control(*i))
}

/// An ARIA state of an item: on the row, else on its first control.
fn item_state<'p>(page: &'p Page<'_>, row: usize, attr: &str) -> Option<&'p str> {
    match page.els[row].attr(attr) {
        Some(v) => Some(v),
        None => first_control(page, row).and_then(|i| page.els[i].attr(attr)),
    }
}

/// Column names of the table a row container belongs to, from its header row: the
/// first row of a `<thead>`, else a first row whose cells with text are all `th`. Cells
/// without text (a selection box's column, an actions column) are named by their
/// position (`col1`), and do not stop the others from naming theirs.
fn table_columns(page: &Page<'_>, c: usize) -> Vec<String> {
    let table = if page.els[c].tag == "table" {
        Some(c)
    } else {
        page.parent[c].filter(|t| page.els[*t].tag == "table")
    };
    let Some(table) = table else {
        return Vec::new();
    };
    let title = title_row(page, table);
    for r in page.descendants(table) {
        let e = &page.els[r];
        if e.tag == "tr" && Some(r) != title {
            let cells = row_cells_of(page, r);
            let in_head = page.parent[r].is_some_and(|p| page.els[p].tag == "thead");
            let header = in_head
                || cells.iter().any(|x| page.els[*x].tag == "th")
                    && cells
                        .iter()
                        .all(|x| page.els[*x].tag == "th" || page.els[*x].text.trim().is_empty());
            if !cells.is_empty() && header {
                return column_names(page, &cells, &mut HashMap::default(), &mut 0);
            }
            return Vec::new();
        }
    }
    Vec::new()
}

/// Column names of rows drawn as a table without table markup (`div.lsf-table-row`s of
/// `div.lsf-table__cell`s), from the head drawn before them: the last element before
/// the first row, among the rows' container's children, or else the container's
/// previous sibling, whose class says it heads a table ([`table_head_class`]:
/// `lsf-table-head`), with two or more cells ([`row_cells_at`]) and no more than the
/// first row holds. Its cells name the rows' cells by their place, as a `thead`'s do.
/// Returns the head too: it is no list of its own.
fn drawn_table_columns(page: &Page<'_>, c: usize, rows: &[usize]) -> Option<(usize, Vec<String>)> {
    let first = *rows.first()?;
    let heads = |h: usize| {
        let e = &page.els[h];
        e.visible && e.classes().split_whitespace().any(table_head_class)
    };
    let mut head = None;
    for &k in page.children(c) {
        if k >= first {
            break;
        }
        if heads(k) {
            head = Some(k);
        }
    }
    if head.is_none() {
        let mut before = None;
        for &k in page.children(page.parent[c]?) {
            if k >= c {
                break;
            }
            before = Some(k);
        }
        head = before.filter(|k| heads(*k));
    }
    let head = head?;
    let cells = row_cells_at(page, head);
    (cells.len() >= 2 && cells.len() <= row_cells_at(page, first).len()).then(|| {
        let columns = column_names(page, &cells, &mut HashMap::default(), &mut 0);
        (head, columns)
    })
}

/// What a column header calls its column: the label of the one control it holds (its
/// sort link or button) when its text starts with it, as a header's text does when a
/// count or an icon's words follow the name (Wagtail's "Title 1-3 of 3 pages"), else
/// its text.
fn column_title<'p>(page: &'p Page<'_>, h: usize) -> std::borrow::Cow<'p, str> {
    let text = page.els[h].text.trim();
    let mut controls = page.descendants(h).filter(|d| page.control(*d));
    if let (Some(c), None) = (controls.next(), controls.next()) {
        let label = control_label(&page.els[c]);
        if !label.is_empty() && label.len() < text.len() && text.starts_with(label.as_str()) {
            return label.into();
        }
    }
    text.into()
}

/// The `th` and `td` cells of table row `r`.
fn row_cells_of(page: &Page<'_>, r: usize) -> Vec<usize> {
    page.children(r)
        .iter()
        .copied()
        .filter(|x| matches!(page.els[*x].tag.as_str(), "th" | "td"))
        .collect()
}

/// A table's title written as its first row: one `th` with text (spanning the table),
/// followed by a header row of as many cells as the row after it, two or more
/// (Roundup's "History" above "Date | User | Action | Args" and rows of four). It names
/// the table, as a caption would, and no column. A table whose second row is no such
/// header (Roundup's messages: a row of "msg1 (view) | Author | Date" above each
/// message's one cell) keeps its first row's word as its one column's name.
fn title_row(page: &Page<'_>, table: usize) -> Option<usize> {
    let mut trs = page.descendants(table).filter(|r| page.els[*r].tag == "tr");
    let first = trs.next()?;
    let cells = row_cells_of(page, first);
    let head = row_cells_of(page, trs.next()?);
    let data = trs.next().map(|r| row_cells_of(page, r).len());
    (cells.len() == 1
        && page.els[cells[0]].tag == "th"
        && !page.els[cells[0]].text.trim().is_empty()
        && head.len() >= 2
        && head.iter().all(|c| page.els[*c].tag == "th")
        && data.is_none_or(|n| n == head.len()))
    .then_some(first)
}

/// Column names of an ARIA grid, from its header row: the first row of
/// `columnheader`s, or, when the last one that says something carries an
/// `aria-rowindex`, every header row carrying that index (the rows of column groups sit
/// above it), one part per row, in document order, as [`grid_parts`] splits the rows.
fn aria_columns(page: &Page<'_>, grid: usize) -> Vec<Vec<String>> {
    let heads: Vec<usize> = page
        .descendants(grid)
        .filter(|d| page.els[*d].role() == "row" && header_row(page, *d))
        .collect();
    let index = |r: &usize| page.els[*r].attr("aria-rowindex");
    let last = heads
        .iter()
        .rfind(|h| page.els[**h].visible && !page.els[**h].text.trim().is_empty());
    let parts: Vec<usize> = match last.and_then(index) {
        Some(at) => heads
            .iter()
            .copied()
            .filter(|h| page.els[*h].visible && index(h) == Some(at))
            .collect(),
        None => heads.into_iter().take(1).collect(),
    };
    let (mut seen, mut n) = (HashMap::default(), 0);
    parts
        .into_iter()
        .map(|head| column_names(page, &row_cells_at(page, head), &mut seen, &mut n))
        .collect()
}

/// The names of the columns whose headers are `cells`, unique among those `seen`; a
/// column whose header says nothing is `col<n>` (`n` counts the columns before).
fn column_names(
    page: &Page<'_>,
    cells: &[usize],
    seen: &mut HashMap<String, usize>,
    n: &mut usize,
) -> Vec<String> {
    cells
        .iter()
        .map(|x| {
            *n += 1;
            let s = slug(&column_title(page, *x));
            let s = if s.is_empty() { format!("col{n}") } else { s };
            unique(seen, s)
        })
        .collect()
}

fn unique(seen: &mut HashMap<String, usize>, name: String) -> String {
    let count = crate::slot(seen, name.clone());
    *count += 1;
    if *count == 1 {
        name
    } else {
        format!("{name}_{count}")
    }
}

/// Attributes that identify a row, best first.
fn key_attrs(e: &ElementRecord) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in &e.attrs {
        if value.trim().is_empty() {
            continue;
        }
        let field = if let Some(rest) = name.strip_prefix("data-") {
            if rest.starts_with("nsp-") || names_component(rest) {
                continue;
            }
            if rest == "id"
                || rest == "key"
                || rest.ends_with("-id")
                || rest.ends_with("_id")
                || rest.ends_with("-key")
                || rest.ends_with("uuid")
            {
                slug(rest)
            } else {
                continue;
            }
        } else if name == "id" {
            "id".to_owned()
        } else {
            continue;
        };
        out.push((name.clone(), field));
    }
    // data-* ids before the element id, which is often generated (moved, not sorted:
    // a stable sort's code is kilobytes of wasm per element type).
    if let Some(at) = out.iter().position(|(a, _)| a == "id") {
        let id = out.remove(at);
        out.push(id);
    }
    out
}

/// Whether a `data-*` attribute (without its prefix) marks which part of the page's
/// code an element is, for its tests or its analytics (`data-test-id`, `data-qa-id`,
/// `data-cy-id`, `data-component-id`, `data-tracking-id`): every instance of one
/// component carries the same value (MLflow marks each header cell of a table and each
/// pagination button so), so it tells no record from another; or which pane of the
/// layout it is (`data-panel-id`, `data-panel-group-id`: react-resizable-panels' panes,
/// marimo's sidebar and body), a region, not a record.
fn names_component(attr: &str) -> bool {
    let Some(head) = attr
        .strip_suffix("id")
        .map(|h| h.trim_end_matches(['-', '_']))
    else {
        return false;
    };
    matches!(
        head,
        "test"
            | "testing"
            | "qa"
            | "e2e"
            | "cy"
            | "component"
            | "analytics"
            | "tracking"
            | "track"
            | "telemetry"
            | "log"
            | "ga"
            | "gtm"
            | "automation"
            | "pw"
            | "pane"
    ) || head.starts_with("panel")
}

/// Whether attribute `attr`'s `values` on a list's rows are keyboard shortcuts written
/// as their keys ("g e", "ctrl+k", "m"): how to press a row, not which row it is (Fava
/// marks its buttons and links with `data-key="s o"`). Only a `…key` attribute whose
/// values are all keys of one character or modifiers, one of them several keys, is
/// read so: `data-id="a"` is an id.
fn shortcut_keys(attr: &str, values: &[&str]) -> bool {
    let chord = |v: &str| {
        let keys: Vec<&str> = v.split([' ', '+']).filter(|k| !k.is_empty()).collect();
        !keys.is_empty()
            && keys.iter().all(|k| {
                k.chars().count() == 1
                    || matches!(
                        k.to_ascii_lowercase().as_str(),
                        "ctrl" | "control" | "alt" | "shift" | "meta" | "cmd" | "mod" | "option"
                    )
            })
    };
    attr.ends_with("key")
        && values.iter().all(|v| chord(v))
        && values.iter().any(|v| v.contains([' ', '+']))
}

fn row_key(page: &Page<'_>, rows: &[usize], columns: &[String]) -> Option<RowKey> {
    let first = &page.els[rows[0]];
    for (attr, field) in key_attrs(first) {
        let values: Vec<&str> = rows
            .iter()
            .filter_map(|r| page.els[*r].attr(&attr))
            .collect();
        if values.len() == rows.len()
            && sorted_distinct(&values).len() == rows.len()
            && (attr != "id" || values.iter().all(|v| stable_id(v)))
            && !shortcut_keys(&attr, &values)
        {
            return Some(RowKey::Attr { attr, field });
        }
    }
    // A text cell at the same place in every row whose values are all different: the
    // first such cell of the row with the most cells (a row whose cell is drawn as a
    // control, a focused item's name, still has it at that place).
    let mut template = (rows[0], text_cells(page, rows[0]));
    for r in rows.iter().skip(1).take(20) {
        let cells = text_cells(page, *r);
        if cells.len() > template.1.len() {
            template = (*r, cells);
        }
    }
    let (t, cells) = template;
    for (c, name) in cells.iter().take(4) {
        // A cell its page gave an id of its own (Wagtail's `#page_5_title` inside the
        // title's link) is found in each row by the element around it that says the
        // same words.
        let words = page.els[*c].text.trim();
        let Some(rel) = std::iter::once(*c)
            .chain(
                page.ancestors(*c)
                    .take_while(|a| *a != t)
                    .filter(|a| page.els[*a].text.trim() == words),
            )
            .find_map(|a| rel_selector(page, t, a))
        else {
            continue;
        };
        let values: Vec<String> = rows
            .iter()
            .filter_map(|r| cell_at(page, *r, &rel).map(|i| page.els[i].text.clone()))
            .collect();
        let texts: Vec<&str> = values.iter().map(String::as_str).collect();
        // A time that moves by itself ("13 minutes ago", "just now") names no record: a
        // date does not move.
        let moving = |v: &str| {
            let l = v.trim().to_ascii_lowercase();
            (l.ends_with(" ago") || l == "just now") && crate::text::live_text(v)
        };
        if values.len() == rows.len()
            && sorted_distinct(&texts).len() == rows.len()
            && values
                .iter()
                .all(|v| !v.trim().is_empty() && v.len() <= 120 && !moving(v))
        {
            // The record's name a person presses to open it (a listing item's name the
            // page makes focusable or listens for clicks on) is its `name`.
            let field = column_name(page, columns, t, *c).unwrap_or_else(|| {
                if rows
                    .iter()
                    .any(|r| cell_at(page, *r, &rel).is_some_and(|i| pressed_name(page, i)))
                {
                    "name".to_owned()
                } else {
                    name.clone()
                }
            });
            return Some(RowKey::Text { rel, field });
        }
    }
    // No cell tells rows apart, but each row's own text does (a todo list's items,
    // whose text is the item): the row itself is its key; not a row of a grid's cells,
    // whose text is all its cells' run together.
    let own: Vec<&str> = rows.iter().map(|r| page.els[*r].text.trim()).collect();
    if rows.len() >= 2
        && sorted_distinct(&own).len() == rows.len()
        && page
            .children(rows[0])
            .iter()
            .filter(|c| {
                let e = &page.els[**c];
                matches!(e.tag.as_str(), "td" | "th") || matches!(e.role(), "cell" | "gridcell")
            })
            .count()
            < 2
        && own
            .iter()
            .all(|v| v.chars().any(char::is_alphanumeric) && v.len() <= 120)
    {
        return Some(RowKey::Text {
            rel: String::new(),
            field: "name".to_owned(),
        });
    }
    None
}

/// A record's name drawn as text a person presses (a span or cell the page makes a
/// button, focusable or clickable), not a link (which opens its own URL) nor a real
/// button or field (an action of its own that only shows the record's name), nor text
/// inside one (a link's `span.nav-link-title`: pressing it follows the link).
pub fn pressed_name(page: &Page<'_>, i: usize) -> bool {
    let e = &page.els[i];
    let control_tag = |i: usize| matches!(page.els[i].tag.as_str(), "a" | "button");
    (page.control(i) || e.clickable)
        && !page.field(i)
        && !matches!(
            e.tag.as_str(),
            "a" | "button" | "input" | "select" | "textarea"
        )
        && !page.ancestors(i).any(control_tag)
}

/// The selector of `cell` relative to its row (what `:scope > …` finds from the row),
/// when the cell's selector continues the row's.
pub fn rel_selector(page: &Page<'_>, row: usize, cell: usize) -> Option<String> {
    page.selector(cell)
        .strip_prefix(&format!("{} > ", page.selector(row)))
        .map(str::to_owned)
}

/// The element at `rel` below `row` (see [`rel_selector`]).
pub fn cell_at(page: &Page<'_>, row: usize, rel: &str) -> Option<usize> {
    // The row's own text is its key.
    if rel.is_empty() {
        return Some(row);
    }
    let want = format!("{} > {rel}", page.selector(row));
    page.descendants(row).find(|i| page.selector(*i) == want)
}

/// What a field in a row holds, as its object says it (`page::held_value`). None for
/// boxes (their own rule above), buttons, files, hidden inputs, multiple selects and
/// anything that is no input, select, textarea or editable region.
fn row_field_value(d: &ElementRecord) -> Option<Value> {
    let kind = d.input_type();
    let holds = match d.tag.as_str() {
        "input" => !matches!(
            kind.as_ref(),
            "checkbox" | "radio" | "hidden" | "file" | "submit" | "button" | "reset" | "image"
        ),
        "select" => !d.has("multiple"),
        "textarea" => true,
        _ => crate::page::is_editable(d),
    };
    (holds && !matches!(d.role(), "checkbox" | "radio" | "switch"))
        .then(|| crate::page::held_value(d))
}

/// The name of the table column `cell` (a `td` or `th` of `row`) stands in: by its
/// position among the row's cells, so a leading cell that holds only a selection box
/// (which is no text cell) shifts no value into its neighbour's column.
fn column_name(page: &Page<'_>, columns: &[String], row: usize, cell: usize) -> Option<String> {
    if columns.is_empty() {
        return None;
    }
    // Text inside a cell that also holds a control (a value beside its copy button) is
    // the cell's when it is all the cell says.
    let said = |i: usize| page.els[i].text.trim();
    let cells = row_cells_at(page, row);
    let k = cells
        .iter()
        .position(|&c| c <= cell && cell < page.end[c])
        .filter(|&k| cells[k] == cell || said(cells[k]) == said(cell))?;
    columns.get(k).cloned()
}

/// The name the row's record gives the cell holding element `el` (a table's column
/// header, else the cell's own name: see [`text_cells`]), when one of the row's text
/// cells holds it.
pub fn field_at(page: &Page<'_>, list: &List, row: usize, el: usize) -> Option<String> {
    let (cell, name) = text_cells(page, row)
        .into_iter()
        .find(|(i, _)| *i <= el && el < page.end[*i])?;
    Some(column_name(page, &list.columns, row, cell).unwrap_or(name))
}

/// The header of the table column whose cell in `row` holds element `el`, when the
/// table has a header row that names it.
pub fn header_at(page: &Page<'_>, list: &List, row: usize, el: usize) -> Option<String> {
    let cell = std::iter::once(el)
        .chain(page.ancestors(el))
        .find(|a| page.parent[*a] == Some(row))?;
    column_name(page, &list.columns, row, cell)
}

/// The text-bearing cells of a row, in order, with a field name for each.
///
/// A cell is named by its `itemprop`, else by a class that names it: one no other cell
/// of the row carries (a class on several cells styles them, as a design system's
/// typography class does) and that reads as a word, not a generated hash
/// ([`crate::text::generated_name`]: `css-1o4wo1x`). Else by what it is: `link`, a
/// semantic tag (`time`, `code`), or `text`.
pub fn text_cells(page: &Page<'_>, row: usize) -> Vec<(usize, String)> {
    let mut seen = HashMap::default();
    let cells = cell_elements(page, row);
    let row_classes = page.els[row].classes();
    let shared = |i: usize, class: &str| {
        cells.iter().any(|o| {
            *o != i
                && page.els[*o]
                    .classes()
                    .split_whitespace()
                    .any(|c| c == class)
        })
    };
    cells
        .iter()
        .map(|&i| {
            let e = &page.els[i];
            let name = e
                .attr("itemprop")
                .map(slug)
                .filter(|s| !s.is_empty())
                .or_else(|| {
                    e.classes()
                        .split_whitespace()
                        .filter(|c| !shared(i, c) && !is_state_word(c) && !is_utility_class(c))
                        .map(|c| element_part(row_classes, c))
                        .filter(|c| !crate::text::generated_name(c))
                        .map(slug)
                        .find(|s| !s.is_empty() && s.len() <= 24)
                })
                .unwrap_or_else(|| {
                    match e.tag.as_str() {
                        "a" => "link",
                        "span" | "div" | "td" | "th" | "p" | "li" | "b" | "i" | "em" | "strong"
                        | "small" | "label" | "font" | "dd" | "dt" => "text",
                        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "title",
                        other => other,
                    }
                    .to_owned()
                });
            (i, unique(&mut seen, name))
        })
        .collect()
}

/// A CSS framework's utility class: it says when, where or how an element shows, never
/// what it holds. Responsive visibility (`hidden-sm`, `visible-md-block`, `d-none`,
/// `d-md-inline`, `sr-only`, `visually-hidden`; any class with a variant prefix,
/// `md:block`), spacing (`mb-2`, `px-4`, `me-auto`), and type (`text-muted`,
/// `text-right`, `font-bold`, `fw-semibold`, `fs-6`, `small`, a kit's
/// `MuiTypography-body1` or `du-bois-light-typography`).
fn is_utility_class(c: &str) -> bool {
    let c = c.to_ascii_lowercase();
    // A variant, or a kit's type style (`MuiTypography-body1`, `ant-typography`).
    if c.contains(':') || c.contains("typography") {
        return true;
    }
    // A negative size (Tailwind's `-mt-2`) is spacing too.
    let c = c.trim_start_matches('-');
    let (head, rest) = c.split_once('-').unwrap_or((c, ""));
    match head {
        "hidden" | "visible" | "invisible" | "d" | "sr" | "visually" | "text" | "font" | "fw"
        | "fs" | "lh" => true,
        "small" | "lead" | "muted" | "truncate" => rest.is_empty(),
        // m, mt, mx, ms, p, pb, px…: a size or `auto` after the dash.
        _ => {
            let spacing = head.len() <= 2
                && matches!(head.as_bytes().first(), Some(b'm' | b'p'))
                && head[1..].bytes().all(|b| b"trblxyse".contains(&b));
            spacing
                && (rest == "auto"
                    || rest
                        .trim_start_matches('n')
                        .bytes()
                        .next()
                        .is_some_and(|b| b.is_ascii_digit()))
        }
    }
}

/// A cell's class named after its row's (`item-title` in a row of class `item`,
/// `card__price` in `card`, `listItemSize` in `listItem`: a block's element, as class
/// naming schemes write it) names the cell by what follows: `title`, `price`, `size`.
/// Any other class is returned whole.
fn element_part<'c>(row_classes: &str, class: &'c str) -> &'c str {
    for r in row_classes.split_whitespace().filter(|r| r.len() >= 3) {
        if let Some(rest) = class.strip_prefix(r) {
            let rest = rest.trim_start_matches(['-', '_']);
            if rest.bytes().any(|b| b.is_ascii_alphabetic()) {
                return rest;
            }
        }
    }
    class
}

/// The elements of [`text_cells`], without their names (what a caller comparing cells
/// across rows needs: names cost a slug and an allocation each).
fn cell_elements(page: &Page<'_>, row: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    // Links are cells (a title), and so is plain text a page listens for clicks on (a
    // file's name that opens it): its text is the row's data whatever clicking does.
    let plain_text = |d: usize| {
        let e = &page.els[d];
        e.tag == "a"
            || (e.clickable
                && e.role().is_empty()
                && matches!(e.tag.as_str(), "span" | "div" | "p" | "td")
                && page.children(d).is_empty())
    };
    let action_or_field = |d: usize| page.control(d) && !plain_text(d) || page.field(d);
    // Text a person cannot see is no data of the row: a closed menu's items inside a
    // navigation item (the account menu under a user's name), a cell the page hides at
    // this width. The extraction flags an element that is not rendered, and all inside
    // it, and also a control out of reach: a disabled one is most often drawn greyed
    // out under `pointer-events: none` (a pagination's "First" on the first page),
    // shown all the same, so its text stays.
    let unseen = |i: usize| {
        std::iter::once(i)
            .chain(page.ancestors(i).take_while(|a| *a != row))
            .any(|a| {
                let e = &page.els[a];
                !(e.visible || (e.disabled && page.control(a)))
            })
    };
    for i in own_descendants(page, row) {
        let e = &page.els[i];
        let cell = is_cell(page, i) || (page.children(i).is_empty() && !e.text.trim().is_empty());
        if !cell || action_or_field(i) || unseen(i) {
            continue;
        }
        // A cell inside a cell already taken (td > span): the outer one wins. Cells come
        // in document order, so only the last one taken can contain this one.
        if out.last().is_some_and(|o| i < page.end[*o]) {
            continue;
        }
        // A cell of buttons holds actions, not data.
        if page.descendants(i).any(action_or_field) {
            continue;
        }
        // Words of a control a person does not see (a theme toggle's visually hidden
        // label for each theme, beside the one its icon stands for): the control's, no
        // data of the row. The extraction records what the eye sees of such a control.
        let text = e.text.trim();
        if page.ancestors(i).take_while(|a| *a != row).any(|a| {
            page.control(a)
                && page.els[a]
                    .attr("seen_text")
                    .is_some_and(|seen| !seen.contains(text))
        }) {
            continue;
        }
        out.push(i);
        if out.len() >= MAX_FIELDS {
            break;
        }
    }
    out
}

/// The classes that vary between `rows`, as booleans, and the families among them that
/// are one field each ([`class_families`]).
fn state_classes(page: &Page<'_>, rows: &[usize]) -> (Vec<String>, Vec<String>) {
    if rows.len() < 2 {
        // One row cannot show which classes vary; a lone `unread` still counts.
        let lone = row_classes(page, rows[0])
            .into_iter()
            .filter(|c| is_state_word(c))
            .map(str::to_owned)
            .take(3)
            .collect();
        return (lone, Vec::new());
    }
    // String keys: one HashMap type for the whole probe keeps the wasm small.
    let mut counts: HashMap<String, usize> = HashMap::default();
    for r in rows {
        for c in row_classes(page, *r) {
            *crate::slot(&mut counts, c.to_owned()) += 1;
        }
    }
    // Sorted as `(&str, usize)` pairs, a type the lexicon sorts too: the wasm holds a
    // sort's code once per type.
    let mut sorted: Vec<(&str, usize)> = counts
        .iter()
        .filter(|(c, n)| {
            **n < rows.len()
                && c.len() <= 24
                && c.chars().all(|ch| ch.is_ascii_alphabetic() || ch == '-')
                && !is_position_class(c)
        })
        .map(|(c, n)| (c.as_str(), *n))
        .collect();
    sorted.sort_unstable();
    let varying: Vec<String> = sorted.into_iter().map(|(c, _)| c.to_owned()).collect();
    let families = class_families(page, rows, &varying);
    let mut out: Vec<String> = varying
        .into_iter()
        .filter(|c| {
            c.len() <= 16
                && family_of(c).is_none_or(|f| !families.iter().any(|p| p == f))
                && !is_kind_class(c)
        })
        .collect();
    out.truncate(3);
    (out, families)
}

/// The family a class belongs to: the word before its first `-` (`status` of
/// `status-open`), when a word follows it. `is-` and `has-` say a state, not a family.
fn family_of(class: &str) -> Option<&str> {
    let (prefix, rest) = class.split_once('-')?;
    (prefix.len() >= 2
        && !matches!(prefix, "is" | "has")
        && rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    .then_some(prefix)
}

/// Families of varying classes that say one thing about each row: at least two classes
/// share the prefix, no row carries two of them, and at least two rows carry one.
fn class_families(page: &Page<'_>, rows: &[usize], varying: &[String]) -> Vec<String> {
    // `varying` is sorted, so the members of a family (`status-…`) are next to each
    // other.
    let prefixes: Vec<&str> = varying.iter().filter_map(|c| family_of(c)).collect();
    let mut out = Vec::new();
    for (k, p) in prefixes.iter().enumerate() {
        // Two or more members, each prefix once.
        if k == 0 || prefixes[k - 1] != *p || out.iter().any(|o: &String| o == p) {
            continue;
        }
        let mut carried = 0;
        let one_each = rows.iter().all(|r| {
            let n = page.els[*r]
                .classes()
                .split_whitespace()
                .filter(|c| family_of(c) == Some(*p))
                .count();
            carried += usize::from(n == 1);
            n <= 1
        });
        if one_each && carried >= 2 {
            out.push((*p).to_owned());
        }
    }
    out.truncate(2);
    out
}

/// The classes that say a row's state: its own, and the state words ([`is_state_word`])
/// of its cells, where pages often mark the current item (`li > a.selected` in a filter
/// bar, `li > a.active` in a nav list). Other classes of a cell style it. Sorted, each
/// once.
fn row_classes<'p>(page: &'p Page<'_>, row: usize) -> Vec<&'p str> {
    let cells = cell_elements(page, row);
    let states = cells.iter().flat_map(|i| {
        page.els[*i]
            .classes()
            .split_whitespace()
            .filter(|c| is_state_word(c))
    });
    let classes: Vec<&str> = page.els[row]
        .classes()
        .split_whitespace()
        .chain(states)
        .collect();
    sorted_distinct(&classes)
}

/// A class that says where a row is (`first`, `last`, `odd`, `even-row`,
/// `is-last-child`): it varies from row to row as state does, but the row's index says
/// it already, and it never changes while the row stays where it is. Or where it is
/// drawn: a CSS framework's utility class that one row of a nav carries and the others
/// do not (`ml-auto`, `float-right`, `pull-left`, `text-center`) places that row, it
/// says nothing of its state.
fn is_position_class(c: &str) -> bool {
    let c = c.to_ascii_lowercase();
    let c = c.trim_start_matches("is-");
    c.split('-').any(|part| {
        matches!(
            part,
            "first"
                | "last"
                | "odd"
                | "even"
                | "alt"
                | "alternate"
                | "nth"
                | "auto"
                | "left"
                | "right"
                | "center"
                | "float"
                | "pull"
                | "clearfix"
                | "nowrap"
        )
    })
}

/// A class that names what an element is, as a CSS framework or a block naming scheme
/// writes it (`pure-menu-item`, `dropdown-divider`, `nav-link`: a noun last): on some
/// rows and not others it tells a menu's items from its dividers, not a state.
fn is_kind_class(c: &str) -> bool {
    c.rsplit(['-', '_']).next().is_some_and(|last| {
        matches!(
            last,
            "item"
                | "items"
                | "row"
                | "entry"
                | "link"
                | "cell"
                | "wrapper"
                | "container"
                | "divider"
                | "separator"
                | "label"
                | "icon"
                | "btn"
                | "button"
        )
    }) && c.contains(['-', '_'])
}

/// A class that says a state a row or item is in (`unread`, `selected`; `is-active` as
/// some frameworks write it), never what a cell holds.
fn is_state_word(c: &str) -> bool {
    matches!(
        c.strip_prefix("is-").unwrap_or(c),
        "unread"
            | "read"
            | "selected"
            | "active"
            | "current"
            | "done"
            | "completed"
            | "starred"
            | "checked"
            | "open"
            | "closed"
            | "pinned"
            | "muted"
            | "disabled"
            | "expanded"
            | "collapsed"
    )
}

/// The fields of one record: `(field, value)` in a stable order.
pub fn record_fields(page: &Page<'_>, list: &List, row: usize) -> Vec<(String, Value)> {
    record_fields_sourced(page, list, row)
        .into_iter()
        .map(|(n, v, _)| (n, v))
        .collect()
}

/// A record's fields, each with the element whose text it was read from, when it was
/// read from text (what a text-only change can update without a full analysis).
pub type SourcedField = (String, Value, Option<(usize, TextSource)>);

/// How a value was read from an element's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextSource {
    /// `typed_value(text)`: numbers become numbers.
    Typed,
    /// As `Typed`, but no text is the empty string (a table's labelled value: its key
    /// stays while the cell is empty).
    TypedOrEmpty,
    /// The text as a bounded string.
    Plain,
    /// `declared_element_value`.
    Declared,
}

/// Adds a field to a record's fields unless it has no name, the record has its most
/// fields already or one of that name. A function of its own, never inlined: the
/// record's dozen call sites each had a copy (with the drop of a refused `Value`), 1.8
/// KB of the wasm gzipped.
#[inline(never)]
fn push_from(
    fields: &mut Vec<SourcedField>,
    name: String,
    value: Value,
    src: Option<(usize, TextSource)>,
) {
    if !name.is_empty() && fields.len() < MAX_FIELDS && !fields.iter().any(|(n, _, _)| *n == name) {
        fields.push((name, value, src));
    }
}

pub fn record_fields_sourced(page: &Page<'_>, list: &List, row: usize) -> Vec<SourcedField> {
    let e = &page.els[row];
    let mut fields: Vec<SourcedField> = Vec::new();
    let push = |fields: &mut Vec<SourcedField>, name: String, value: Value| {
        push_from(fields, name, value, None)
    };
    if list.declared {
        if let Some(pairs) = e.attr("data-nsp-fields") {
            for (name, raw) in name_value_pairs(pairs) {
                push(&mut fields, slug_key(&name), declared_value(&raw));
            }
        }
        for i in page.descendants(row) {
            let d = &page.els[i];
            // Only this record's own keys: a nested record owns its subtree.
            if page.record[i] != Some(row) {
                continue;
            }
            if let Some(key) = d.attr("data-nsp-key").map(str::trim) {
                if let Some(rel) = key.strip_prefix('.') {
                    if let Some(v) = declared_element_value(d) {
                        let src = (!d.has("data-nsp-value") && !is_field(d))
                            .then_some((i, TextSource::Declared));
                        push_from(&mut fields, rel.to_owned(), v, src);
                    }
                }
                if let Some(pairs) = d.attr("data-nsp-fields").filter(|_| !is_secret(d)) {
                    let prefix = key.strip_prefix('.').unwrap_or("");
                    for (name, raw) in name_value_pairs(pairs) {
                        let name = if prefix.is_empty() {
                            slug_key(&name)
                        } else {
                            format!("{prefix}.{}", slug_key(&name))
                        };
                        push(&mut fields, name, declared_value(&raw));
                    }
                }
            }
        }
        return fields;
    }
    match &list.key {
        Some(RowKey::Attr { attr, field }) => {
            if let Some(v) = e.attr(attr) {
                push(
                    &mut fields,
                    field.clone(),
                    Value::String(crate::text::clip(v, 120)),
                );
            }
        }
        Some(RowKey::Text { .. }) | None => {}
    }
    let classes = if list.state_classes.is_empty() {
        Vec::new()
    } else {
        row_classes(page, row)
    };
    for prefix in &list.class_fields {
        if let Some(word) = e
            .classes()
            .split_whitespace()
            .find(|c| family_of(c) == Some(prefix.as_str()))
            .and_then(|c| c.split_once('-'))
            .map(|(_, word)| word)
        {
            push(&mut fields, slug(prefix), Value::String(word.to_owned()));
        }
    }
    for c in &list.state_classes {
        push(
            &mut fields,
            slug(c),
            Value::Bool(classes.contains(&c.as_str())),
        );
    }
    for (attr, name) in [
        ("aria-selected", "selected"),
        ("aria-checked", "checked"),
        ("aria-current", "current"),
        ("aria-expanded", "expanded"),
    ] {
        if let Some(v) = e.attr(attr) {
            push(
                &mut fields,
                name.into(),
                Value::Bool(!matches!(v.trim(), "false" | "mixed")),
            );
        }
    }
    // Where the row stands among all of a virtualized list's rows, as the page numbers
    // it (1-based): its index in `objects` counts only the rows shown.
    if let Some(n) = e
        .attr("aria-posinset")
        .or_else(|| e.attr("aria-rowindex"))
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        push(&mut fields, "position".into(), Value::from(n));
    }
    // A tree item's depth (1 at the top): the records of a tree are flat.
    if let Some(n) = (e.role() == "treeitem")
        .then(|| e.attr("aria-level"))
        .flatten()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        push(&mut fields, "level".into(), Value::from(n));
    }
    let cells = text_cells(page, row);
    let key_el = match &list.key {
        Some(RowKey::Text { rel, .. }) => cell_at(page, row, rel),
        _ => None,
    };
    // A row keyed by its own text says that text once: with no cell (an option, a todo
    // whose text is the item) as `text` below, else as the key, and a cell holding all
    // of it (the item's one link) is the key already.
    let self_keyed = key_el == Some(row);
    let own_text = self_keyed && cells.is_empty() && page.children(row).is_empty();
    let own_key = self_keyed.then(|| page.els[row].text.trim());
    // The key cell is a field of every row, also where the page draws it as a control
    // (a focused item's name), which is no text cell.
    if let (Some(k), Some(RowKey::Text { field, .. })) = (key_el, &list.key) {
        if !own_text && !cells.iter().any(|(i, _)| *i == k) {
            if let Some(v) = typed_value(&page.els[k].text) {
                push(&mut fields, field.clone(), v);
            }
        }
    }
    // A cell inside the key's element that holds all of its text (`a > span.name`) is
    // the key already.
    let key_text = key_el.map(|k| (k, page.els[k].text.trim()));
    let in_key = |i: usize| {
        key_text.is_some_and(|(k, t)| k < i && i < page.end[k] && page.els[i].text.trim() == t)
    };
    for (pos, (i, name)) in cells.iter().enumerate() {
        if list.dropped_cells.contains(&pos)
            || own_key == Some(page.els[*i].text.trim())
            || in_key(*i)
        {
            continue;
        }
        let key_cell = key_el == Some(*i);
        // The key cell is named as the key is, on every row.
        let name = match (&list.key, key_cell) {
            (Some(RowKey::Text { field, .. }), true) => field.clone(),
            _ => column_name(page, &list.columns, row, *i).unwrap_or_else(|| name.clone()),
        };
        if let Some(v) = typed_value(&page.els[*i].text) {
            push_from(
                &mut fields,
                name,
                v,
                (!key_cell).then_some((*i, TextSource::Typed)),
            );
        }
    }
    // Checkboxes in rows ("select this row", "done") are state too.
    for i in own_descendants(page, row) {
        let d = &page.els[i];
        if d.tag == "input"
            && matches!(d.input_type().as_ref(), "checkbox" | "radio")
            && !is_secret(d)
        {
            // Named by its `name` when that names something (not a record id: "17").
            let name = d
                .attr("name")
                .filter(|n| crate::page::names_something(n))
                .map(slug)
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "checked".into());
            push(
                &mut fields,
                name,
                Value::Bool(d.attr("checked") == Some("true")),
            );
        }
    }
    // A field a person fills in a table's row (a cart line's quantity, a grid's inline
    // edit) holds the row's value of its column, named by the column's header. (In a
    // row with no named columns a field is most often a control of a menu, a search box
    // in a navigation bar, and its value no part of a record.)
    for i in own_descendants(page, row) {
        let d = &page.els[i];
        if !page.field(i) || !d.visible || is_secret(d) {
            continue;
        }
        let Some(v) = row_field_value(d) else {
            continue;
        };
        let cell = page
            .ancestors(i)
            .take_while(|&a| a != row)
            .last()
            .unwrap_or(i);
        // A cell that says more than its field's label (a run's name beside its colour
        // picker) has another value than the field's.
        let said = |t: &str| t.chars().filter(|c| c.is_alphanumeric()).count();
        if said(&page.els[cell].text) > said(&d.label) {
            continue;
        }
        if let Some(name) =
            column_name(page, &list.columns, row, cell).filter(|c| !c.starts_with("col"))
        {
            push(&mut fields, name, v);
        }
    }
    // Toggle buttons in rows (a star, a like) are state too, named after what they set.
    for i in own_descendants(page, row) {
        if page.control(i) && !page.field(i) {
            for (name, value) in toggle_states(&page.els[i]) {
                push(&mut fields, name, value);
            }
        }
    }
    // Words the row shows outside its parts are its data too (see [`unclaimed_words`]),
    // unless they are its key (a row keyed by its own text) or another field already.
    if let Some(glue) = list
        .unclaimed
        .as_ref()
        .filter(|_| !self_keyed && !fields.is_empty())
    {
        if let Some(v) = unclaimed_words(page, row)
            .map(|w| {
                let own: Vec<&str> = w
                    .into_iter()
                    .filter(|w| !glue.iter().any(|g| g == w))
                    .collect();
                crate::text::clip(&own.join(" "), 120)
            })
            .as_deref()
            .and_then(typed_value)
            .filter(|v| !fields.iter().any(|(_, f, _)| f == v))
        {
            let name = std::iter::once("text".to_owned())
                .chain((2..).map(|n| format!("text_{n}")))
                .find(|n| !fields.iter().any(|(f, _, _)| f == n))
                .unwrap_or_default();
            push(&mut fields, name, v);
        }
    }
    // A row with no text cell of its own (an option, a tree item whose text is its own)
    // is named by its text.
    if fields.is_empty() || (cells.is_empty() && page.children(row).is_empty()) {
        if let Some(v) = typed_value(&e.text) {
            push_from(
                &mut fields,
                "text".into(),
                v,
                Some((row, TextSource::Typed)),
            );
        }
    }
    // A row that says nothing but which of its list's classes it carries (a menu's icon
    // item: `menu_collapsible: false`) names nothing an agent could tell apart or act on.
    let from_classes = |n: &str| {
        list.state_classes.iter().any(|c| slug(c) == n)
            || list.class_fields.iter().any(|p| slug(p) == n)
    };
    if !list.declared && fields.iter().all(|(n, _, _)| from_classes(n)) {
        fields.clear();
    }
    fields
}

/// The fields of one item of a list of named items (see [`List::item_names`]): `count`
/// when the item shows a number (in its label, "Inbox 2", or in a badge of its own),
/// and the ARIA states of the item or its control as booleans (`current`, `selected`,
/// `expanded`). A state that any item of the list carries is
/// reported for every item, so `folders.sent.current` exists while false and turns true
/// when the page moves `aria-current`. A count is reported only while shown: pages hide
/// zero badges, and the probe does not guess that a missing number is 0.
pub fn item_fields(page: &Page<'_>, list: &List, row: usize) -> Vec<(String, Value)> {
    let mut fields: Vec<(String, Value)> = Vec::new();
    // The item's own text holds its badge wherever it sits; an item too large to carry
    // text (see the extractor) still has its control's label.
    let count = crate::text::count_in(&page.els[row].text)
        .or_else(|| crate::text::count_in(&item_label(page, row)));
    if let Some(n) = count {
        fields.push(("count".into(), n));
    }
    // A tab's selection is its tablist's `selected_tab` (objects.rs), one string
    // whichever tab is chosen, not a boolean per tab besides it.
    let tab = |r: usize| {
        (page.els[r].role() == "tab"
            || first_control(page, r).is_some_and(|i| page.els[i].role() == "tab"))
            && page.ancestors(r).any(|a| page.els[a].role() == "tablist")
    };
    for (attr, name) in [
        ("aria-current", "current"),
        ("aria-selected", "selected"),
        ("aria-expanded", "expanded"),
    ] {
        if attr == "aria-selected" && tab(row) {
            continue;
        }
        let own = item_state(page, row, attr);
        if own.is_some()
            || list
                .rows
                .iter()
                .any(|r| item_state(page, *r, attr).is_some())
        {
            let on = own.is_some_and(|v| !matches!(v.trim(), "false" | "mixed"));
            fields.push((name.into(), Value::Bool(on)));
        }
    }
    fields
}

/// The states a toggle control shows, as booleans named by [`state_name`] from its label
/// (its first class when it has no label: icon buttons): `aria-pressed` (else
/// `aria-checked`) as `<name>` ("Star" → `starred`), `aria-expanded` as
/// `<name>_expanded`. Only `"true"` is on; `"mixed"` and `"false"` are off. Selection is
/// reported where it belongs: a tablist's `selected_tab`, a record's `selected`.
pub fn toggle_states(e: &ElementRecord) -> Vec<(String, Value)> {
    toggle_states_named(e, None)
}

/// [`toggle_states`] under `name` when given (a custom select's trigger, named by what it
/// chooses rather than by the value its label shows: see `controls::picker_name`).
pub fn toggle_states_named(e: &ElementRecord, name: Option<String>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let pressed = e.attr("aria-pressed").or_else(|| e.attr("aria-checked"));
    let expanded = e.attr("aria-expanded");
    if pressed.is_none() && expanded.is_none() {
        return out;
    }
    // An unlabelled icon button is named by its title (in `control_label`) or its first
    // class: the state is shown either way.
    let name = name.unwrap_or_else(|| {
        let label = control_label(e);
        crate::text::state_name(if label.is_empty() {
            e.classes().split_whitespace().next().unwrap_or("")
        } else {
            &label
        })
    });
    if name.is_empty() {
        return out;
    }
    if let Some(v) = expanded {
        out.push((name.clone() + "_expanded", Value::Bool(v.trim() == "true")));
    }
    if let Some(v) = pressed {
        out.push((name, Value::Bool(v.trim() == "true")));
    }
    out
}

/// Most cells one row of a row action reports ([`row_cells`]), and the most characters
/// of one: a capture carries them for every row it offers, so they stay small.
pub const ROW_CELLS: usize = 6;
pub const CELL_CHARS: usize = 80;

/// Tags whose text the extractor leaves out of the records above them (`NO_TEXT` in
/// `extension/extract.js`): a record with one of them below carries its text without
/// theirs, which is not a substring of the live element's text.
const BLOCKS: &[&str] = &[
    "form", "select", "ul", "ol", "table", "thead", "tbody", "tr", "section", "main", "nav",
    "aside", "article", "header", "footer", "dialog", "fieldset", "dl", "menu", "details", "body",
    "html", "iframe", "frame",
];

/// The cells of one row as a row action reports them (`ActionExplain::rows`): the
/// non-empty texts of the row's visible records, as the snapshot has them
/// (whitespace-collapsed), in document order, the row's own first; a text already
/// inside an earlier cell is left out; at most [`ROW_CELLS`], each cut to its first
/// [`CELL_CHARS`] characters (no ellipsis). The texts of controls and fields come only
/// when the row has no other text: they repeat on every row, the dispatcher checks a
/// control's label on its own, and a toggle's label changes with its state. Each cell
/// is literally in the live row's collapsed `textContent`, which is what the
/// dispatcher checks: so only records whose text is their whole subtree's (no
/// [`BLOCKS`] below them) and that sit in the row's own document (not inside a shadow
/// root or frame below it, whose text the row's `textContent` does not hold) give
/// cells.
pub fn row_cells(page: &Page<'_>, row: usize) -> Vec<String> {
    let data = cells_of(page, row, false);
    if data.is_empty() {
        cells_of(page, row, true)
    } else {
        data
    }
}

fn cells_of(page: &Page<'_>, row: usize, controls: bool) -> Vec<String> {
    // The shadow roots and frames a selector steps into. A record between the row and
    // a cell is in another document when its selector steps into one more: a relative
    // selector (continuing its parent's) that steps at all, a selector that starts
    // afresh with another count than the row's.
    let boundaries = |s: &str| s.matches(" >>> ").count();
    let own = boundaries(&page.selector(row));
    let elsewhere = |i: usize| {
        let mut cur = i;
        while cur != row {
            let e = &page.els[cur];
            let steps = boundaries(&e.selector);
            let continues = e.relative || e.nth > 0;
            if (continues && steps > 0) || (!continues && steps != own) {
                return true;
            }
            match page.parent[cur] {
                Some(p) => cur = p,
                None => return true,
            }
        }
        false
    };
    let in_control = |i: usize| {
        page.control(i)
            || page.field(i)
            || page
                .ancestors(i)
                .take_while(|a| *a != row)
                .any(|a| page.control(a) || page.field(a))
    };
    let mut cells: Vec<String> = Vec::new();
    // Bounded: a row of a hostile page may hold thousands of records.
    for i in std::iter::once(row).chain(page.descendants(row)).take(64) {
        let e = &page.els[i];
        let text = e.text.trim();
        // A record with a large subtree is left out rather than scanned.
        if text.is_empty() || !e.visible || page.end[i] - i > 257 {
            continue;
        }
        // A record holding a control carries its label in its text too.
        let holds_control = || {
            page.descendants(i)
                .any(|d| page.control(d) || page.field(d))
        };
        if !controls && ((i != row && in_control(i)) || holds_control()) {
            continue;
        }
        let cell: String = text.chars().take(CELL_CHARS).collect();
        let cell = cell.trim_end();
        if cell.is_empty()
            || cells.iter().any(|c| c.contains(cell))
            || page
                .descendants(i)
                .any(|d| BLOCKS.contains(&page.els[d].tag.as_str()))
            || elsewhere(i)
        {
            continue;
        }
        cells.push(cell.to_owned());
        if cells.len() == ROW_CELLS {
            break;
        }
    }
    cells
}

pub fn slug_key(name: &str) -> String {
    let s = slug(name);
    if s.is_empty() {
        name.trim().to_owned()
    } else {
        s
    }
}

/// The value an element with `data-nsp-key` reports: `data-nsp-value`, a field's value
/// (never a secret's), or its text.
pub fn declared_element_value(e: &ElementRecord) -> Option<Value> {
    // First: a page may declare on a secret field a `data-nsp-value` that is what was
    // typed.
    if is_secret(e) {
        return None;
    }
    if let Some(raw) = e.attr("data-nsp-value") {
        return Some(typed_as(e, raw));
    }
    if e.tag == "input" && matches!(e.input_type().as_ref(), "checkbox" | "radio") {
        return Some(Value::Bool(e.attr("checked") == Some("true")));
    }
    if is_field(e) {
        return Some(typed_as(e, e.attr("value").unwrap_or("")));
    }
    let text = e.text.trim();
    if text.is_empty() {
        return None;
    }
    Some(typed_as(e, text))
}

fn typed_as(e: &ElementRecord, raw: &str) -> Value {
    match e.attr("data-nsp-type").map(str::trim) {
        Some("string") => Value::String(crate::text::clip(raw, crate::text::MAX_VALUE_LEN)),
        Some("number") => crate::text::parse_number(raw.trim()).unwrap_or(Value::Null),
        Some("boolean") => Value::Bool(matches!(raw.trim(), "true" | "1" | "yes" | "on")),
        _ => declared_value(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::{table_cell_class, table_head_class, table_row_class};

    #[test]
    fn table_classes_hold_table_and_end_in_their_part() {
        for (class, row, cell, head) in [
            ("lsf-table-row", true, false, false),
            ("TableRow", true, false, false),
            ("table-row", true, false, false),
            ("lsf-table__cell", false, true, false),
            ("ttable-cell", false, true, false),
            ("tablecell", false, true, false),
            ("lsf-table-head", false, false, true),
            ("data-table-header", false, false, true),
            ("md:table-row", false, false, false),
            ("table", false, false, false),
            ("row", false, false, false),
            ("tabl-row", false, false, false),
            ("cell-table", false, false, false),
            ("lsf-table-head__extra", false, false, false),
            ("täble-row", false, false, false),
        ] {
            assert_eq!(table_row_class(class), row, "{class}");
            assert_eq!(table_cell_class(class), cell, "{class}");
            assert_eq!(table_head_class(class), head, "{class}");
        }
    }
}
