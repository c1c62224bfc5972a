//! The layering test (issue 21): reads the `use` lines and the `crate::`/`super::` paths
//! of `daemon/src`, `probe-wasm/src` and `verify/src`, builds each crate's module graph,
//! and fails on
//!
//! 1. an import against the layer rule, naming the file and the line: in the daemon a
//!    module of the core (`daemon/src/core/**`) imports nothing of a door
//!    (`daemon/src/door/**`) or of the binary (the rest: `server`, `launch`, `lib.rs`,
//!    `main.rs`), and names nothing of hyper, rmcp or tungstenite; a door imports
//!    nothing of the binary; in the probe only `lib.rs` (the wasm door) names
//!    wasm-bindgen, `js_sys` or `web_sys`;
//!    Doors do not call each other's request handling: nothing outside `door::http`
//!    imports its route table and handlers (`door::http::api`, `door::http::route`);
//! 2. an import cycle between modules, naming the cycle.
//!
//! A module is a file (`hub/mod.rs` is `hub`). A parent reaching into its own children
//! (`mod x; pub use x::Y;`, the crate root declaring everything) is containment, not an
//! import: only the other edges count, and the crate root's own items (`crate::VERSION`)
//! are open to every layer. Test code (`#[cfg(test)]` items) is left out.
//!
//! `cargo test -p xtask --test layers -- --nocapture` prints the counts (and with
//! `LAYERS_EDGES=1` every import edge).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Core,
    Door,
    Binary,
}

#[derive(Debug)]
struct Module {
    file: PathBuf,
    /// Blanked source: comments, string and char literals and `#[cfg(test)]` items
    /// replaced by spaces (newlines kept, so offsets still give line numbers).
    code: String,
}

#[derive(Debug)]
struct Edge {
    from: String,
    to: String,
    line: usize,
}

#[derive(Debug, Default)]
struct Report {
    violations: Vec<String>,
    /// Each cycle as module names, first repeated at the end.
    cycles: Vec<Vec<String>>,
    /// Modules that lie on some cycle.
    in_cycles: usize,
    /// Edges a depth-first walk finds going back up its path.
    back_edges: usize,
    /// Strongly connected groups of more than one module.
    groups: Vec<BTreeSet<String>>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

fn daemon_layer(module: &str) -> Layer {
    if module == "core" || module.starts_with("core::") {
        Layer::Core
    } else if module == "door" || module.starts_with("door::") {
        Layer::Door
    } else {
        Layer::Binary
    }
}

fn probe_layer(_module: &str) -> Layer {
    Layer::Core
}

/// Which modules may name the forbidden crates: in the probe only `lib.rs`, its wasm door
/// (the other modules use its plain items, such as `crate::HashMap`, freely).
fn probe_door(module: &str) -> bool {
    module.is_empty()
}

fn no_door(_module: &str) -> bool {
    false
}

/// The daemon's rule between doors: the HTTP API's route table and handlers (its
/// parsers) are its own.
fn daemon_door_rule(from: &str, to: &str) -> bool {
    let http_api = to == "door::http::api" || to == "door::http::route";
    http_api && !from.starts_with("door::http")
}

fn no_rule(_from: &str, _to: &str) -> bool {
    false
}

fn verify_layer(_module: &str) -> Layer {
    Layer::Core
}

/// Crates a core module must not name, per crate.
const DAEMON_FORBIDDEN: &[&str] = &[
    "hyper",
    "hyper_util",
    "http_body_util",
    "rmcp",
    "tokio_tungstenite",
    "tungstenite",
];
const PROBE_FORBIDDEN: &[&str] = &["wasm_bindgen", "js_sys", "web_sys"];

#[test]
fn daemon_layers_and_no_cycles() {
    let r = analyse(
        "daemon/src",
        daemon_layer,
        DAEMON_FORBIDDEN,
        no_door,
        daemon_door_rule,
    );
    print_counts("daemon", &r);
    let mut failures = r.violations.clone();
    failures.extend(
        r.cycles
            .iter()
            .map(|c| format!("import cycle: {}", c.join(" -> "))),
    );
    assert!(failures.is_empty(), "daemon/src:\n{}", failures.join("\n"));
}

#[test]
fn verify_has_no_cycles() {
    let r = analyse("verify/src", verify_layer, &[], no_door, no_rule);
    print_counts("verify", &r);
    let mut failures = r.violations.clone();
    failures.extend(
        r.cycles
            .iter()
            .map(|c| format!("import cycle: {}", c.join(" -> "))),
    );
    assert!(failures.is_empty(), "verify/src:\n{}", failures.join("\n"));
}

#[test]
fn probe_layers_and_no_cycles() {
    let r = analyse(
        "probe-wasm/src",
        probe_layer,
        PROBE_FORBIDDEN,
        probe_door,
        no_rule,
    );
    print_counts("probe", &r);
    let mut failures = r.violations.clone();
    failures.extend(
        r.cycles
            .iter()
            .map(|c| format!("import cycle: {}", c.join(" -> "))),
    );
    assert!(
        failures.is_empty(),
        "probe-wasm/src:\n{}",
        failures.join("\n")
    );
}

fn print_counts(name: &str, r: &Report) {
    println!(
        "{name}: {} cycle group(s), {} module(s) in cycles, {} back-edge(s), {} layer violation(s)",
        r.groups.len(),
        r.in_cycles,
        r.back_edges,
        r.violations.len()
    );
    for g in &r.groups {
        println!(
            "  group: {}",
            g.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
}

// ---------------------------------------------------------------- the analysis

fn analyse(
    dir: &str,
    layer: fn(&str) -> Layer,
    forbidden: &[&str],
    door: fn(&str) -> bool,
    edge_forbidden: fn(&str, &str) -> bool,
) -> Report {
    let src = root().join(dir);
    let modules = load(&src);
    assert!(!modules.is_empty(), "no modules under {dir}");
    let names: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut edges = Vec::new();
    let mut report = Report::default();
    for (name, m) in &modules {
        let rel = m
            .file
            .strip_prefix(root())
            .unwrap_or(&m.file)
            .display()
            .to_string();
        for (path, offset) in references(&m.code, name) {
            let Some(target) = resolve(&path, &names) else {
                continue;
            };
            if target == *name || is_ancestor(name, target) {
                continue; // itself, or a parent reaching into its children
            }
            let line = line_of(&m.code, offset);
            let (from_layer, to_layer) = (layer(name), layer(target));
            // The crate root holds module declarations and crate-wide constants
            // (`crate::VERSION`): every module may use those.
            if to_layer > from_layer && !target.is_empty() {
                report.violations.push(format!(
                    "{rel}:{line}: `{}` ({from_layer:?}) imports `{}` ({to_layer:?}): a lower layer must not import a higher one",
                    display(name),
                    display(target)
                ));
            }
            if edge_forbidden(name, target) {
                report.violations.push(format!(
                    "{rel}:{line}: `{}` imports `{}`: a door does not call another door's request handling",
                    display(name),
                    display(target)
                ));
            }
            edges.push(Edge {
                from: name.clone(),
                to: target.to_string(),
                line,
            });
        }
        if layer(name) == Layer::Core && !door(name) {
            for (krate, offset) in crate_uses(&m.code, forbidden) {
                report.violations.push(format!(
                    "{rel}:{}: `{}` is in the core layer and names `{krate}`",
                    line_of(&m.code, offset),
                    display(name)
                ));
            }
        }
    }
    report.violations.sort();
    report.violations.dedup();
    if std::env::var_os("LAYERS_EDGES").is_some() {
        for e in &edges {
            println!(
                "edge {dir} {} -> {} :{}",
                display(&e.from),
                display(&e.to),
                e.line
            );
        }
    }
    cycles(&modules, &edges, &mut report);
    report
}

fn display(module: &str) -> &str {
    if module.is_empty() {
        "crate"
    } else {
        module
    }
}

fn is_ancestor(ancestor: &str, of: &str) -> bool {
    ancestor.is_empty() || of.starts_with(&format!("{ancestor}::"))
}

fn line_of(code: &str, offset: usize) -> usize {
    code[..offset].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Every `.rs` file under `src` except binaries (`main.rs`, `bin/`), by module path.
fn load(src: &Path) -> BTreeMap<String, Module> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            let name = match parts.last().map(String::as_str) {
                Some("main") if parts.len() == 1 => continue,
                Some("lib") if parts.len() == 1 => String::new(),
                Some("mod") => parts[..parts.len() - 1].join("::"),
                _ => parts.join("::"),
            };
            let text = std::fs::read_to_string(&path).expect("read");
            out.insert(
                name,
                Module {
                    file: path,
                    code: strip_tests(&blank(&text)),
                },
            );
        }
    }
    out
}

/// The longest prefix of `path` that names a module.
fn resolve<'a>(path: &[String], names: &BTreeSet<&'a str>) -> Option<&'a str> {
    (0..=path.len())
        .rev()
        .find_map(|n| names.get(path[..n].join("::").as_str()).copied())
}

// ---------------------------------------------------------------- cycles

fn cycles(modules: &BTreeMap<String, Module>, edges: &[Edge], report: &mut Report) {
    let index: BTreeMap<&str, usize> = modules
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let names: Vec<&str> = modules.keys().map(String::as_str).collect();
    let mut adj: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); names.len()];
    for e in edges {
        adj[index[e.from.as_str()]].insert(index[e.to.as_str()]);
    }
    // Back-edges of a depth-first walk in name order.
    let mut state = vec![0u8; names.len()]; // 0 new, 1 on the path, 2 done
    for start in 0..names.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> =
            vec![(start, adj[start].iter().copied().collect())];
        state[start] = 1;
        while let Some((node, rest)) = stack.last_mut() {
            let node = *node;
            if let Some(next) = rest.pop() {
                match state[next] {
                    0 => {
                        state[next] = 1;
                        stack.push((next, adj[next].iter().copied().collect()));
                    }
                    1 => report.back_edges += 1,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    // Strongly connected groups (Tarjan), then one cycle through each.
    for group in tarjan(&adj) {
        if group.len() < 2 {
            continue;
        }
        report.in_cycles += group.len();
        let set: BTreeSet<usize> = group.iter().copied().collect();
        let start = *set.iter().next().expect("non-empty");
        let cycle = shortest_cycle(start, &adj, &set);
        let mut text: Vec<String> = cycle
            .iter()
            .map(|&i| display(names[i]).to_string())
            .collect();
        text.push(display(names[start]).to_string());
        // Name the line of each step.
        let mut steps = Vec::new();
        for w in cycle
            .iter()
            .chain(std::iter::once(&start))
            .collect::<Vec<_>>()
            .windows(2)
        {
            let (a, b) = (names[*w[0]], names[*w[1]]);
            let e = edges
                .iter()
                .find(|e| e.from == a && e.to == b)
                .expect("edge");
            let file = modules[a]
                .file
                .strip_prefix(root())
                .unwrap_or(&modules[a].file)
                .display()
                .to_string();
            steps.push(format!("{file}:{}", e.line));
        }
        let mut line = text.join(" -> ");
        let _ = write!(line, " (at {})", steps.join(", "));
        report.cycles.push(vec![line]);
        report
            .groups
            .push(set.iter().map(|&i| names[i].to_string()).collect());
    }
}

fn shortest_cycle(start: usize, adj: &[BTreeSet<usize>], within: &BTreeSet<usize>) -> Vec<usize> {
    let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for &m in &adj[n] {
            if !within.contains(&m) {
                continue;
            }
            if m == start {
                let mut path = vec![n];
                let mut at = n;
                while at != start {
                    at = prev[&at];
                    path.push(at);
                }
                path.reverse();
                return path;
            }
            if let std::collections::btree_map::Entry::Vacant(v) = prev.entry(m) {
                v.insert(n);
                queue.push_back(m);
            }
        }
    }
    vec![start]
}

fn tarjan(adj: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        adj: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T<'_>, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in t.adj[v].iter() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(i) if t.on[w] => t.low[v] = t.low[v].min(i),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut group = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            t.out.push(group);
        }
    }
    let n = adj.len();
    let mut t = T {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

// ---------------------------------------------------------------- reading Rust

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `text` with comments and string/char literals replaced by spaces (newlines kept).
fn blank(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let prev_ident = i > 0 && is_ident(b[i - 1]);
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            wipe(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            wipe(&mut out, i, j);
            i = j;
        } else if b[i] == b'r' && !prev_ident && matches!(b.get(i + 1), Some(b'"' | b'#')) {
            // raw string r"..." / r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end = b[j + 1..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| j + 1 + p + close.len());
            wipe(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            wipe(&mut out, i, end);
            i = end;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let end = b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map_or(b.len(), |p| i + 3 + p);
                wipe(&mut out, i, end);
                i = end;
            } else if let Some(c) = text[i + 1..].chars().next() {
                let after = i + 1 + c.len_utf8();
                if b.get(after) == Some(&b'\'') {
                    wipe(&mut out, i, after + 1);
                    i = after + 1;
                } else {
                    i += 1;
                }
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("ascii blanks keep utf-8")
}

/// `code` with every `#[cfg(test)]` item (a `mod tests { .. }`, a `use ..;`, a `fn`)
/// blanked.
fn strip_tests(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(p) = code[from..].find("#[cfg(test)]") {
        let start = from + p;
        let b = code.as_bytes();
        let mut j = start + "#[cfg(test)]".len();
        let mut depth = 0i32;
        let mut end = b.len();
        while j < b.len() {
            match b[j] {
                b';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        for c in &mut out[start..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = end;
    }
    String::from_utf8(out).expect("utf-8")
}

/// Every path through `crate::` or `super::` in `code`, made absolute (module segments
/// from the crate root), with the offset where it starts.
fn references(code: &str, module: &str) -> Vec<(Vec<String>, usize)> {
    let b = code.as_bytes();
    let here: Vec<String> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").map(String::from).collect()
    };
    // `super` from `a/b.rs` (module a::b) and from `a/b/mod.rs` alike is `a`.
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b':');
        let start_kw = ["crate::", "super::"]
            .iter()
            .find(|kw| b[i..].starts_with(kw.as_bytes()));
        let (Some(_), true) = (start_kw, boundary) else {
            i += 1;
            continue;
        };
        let start = i;
        let mut base: Vec<String> = Vec::new();
        if b[i..].starts_with(b"crate::") {
            i += "crate::".len();
        } else {
            base = here.clone();
            while b[i..].starts_with(b"super::") {
                base.pop();
                i += "super::".len();
            }
        }
        let (paths, end) = parse_tree(code, i);
        for p in paths {
            let mut full = base.clone();
            full.extend(p);
            out.push((full, start));
        }
        i = end.max(start + 1);
    }
    out
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Parses `a::b::{c, d::e as f, self, *}` at `i`; returns the paths (segments) and where
/// it ends.
fn parse_tree(code: &str, mut i: usize) -> (Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    let mut prefix = Vec::new();
    loop {
        i = skip_ws(b, i);
        if b.get(i) == Some(&b'{') {
            let mut out = Vec::new();
            i += 1;
            loop {
                i = skip_ws(b, i);
                match b.get(i) {
                    None => return (out, i),
                    Some(b'}') => return (out, i + 1),
                    Some(b',') => i += 1,
                    _ => {
                        let (inner, end) = parse_tree(code, i);
                        for p in inner {
                            let mut full = prefix.clone();
                            full.extend(p.into_iter().filter(|s| s != "self"));
                            out.push(full);
                        }
                        i = end.max(i + 1);
                    }
                }
            }
        }
        let s = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        if s == i {
            // `*` or something else: the prefix is the path.
            if b.get(i) == Some(&b'*') {
                i += 1;
            }
            return (vec![prefix], i);
        }
        prefix.push(code[s..i].to_string());
        let j = skip_ws(b, i);
        if b[j..].starts_with(b"::") {
            i = j + 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

/// Where `code` names one of `crates` as the first segment of a path.
fn crate_uses(code: &str, crates: &[&str]) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for krate in crates {
        let mut from = 0;
        while let Some(p) = code[from..].find(krate) {
            let at = from + p;
            from = at + krate.len();
            let before_ok = at == 0 || !(is_ident(b[at - 1]) || b[at - 1] == b':');
            let after = skip_ws(b, at + krate.len());
            let after_ok = b[after..].starts_with(b"::")
                || (code[..at].trim_end().ends_with("extern crate")
                    && !is_ident(b[at + krate.len()]));
            if before_ok && after_ok {
                out.push((krate.to_string(), at));
            }
        }
    }
    out
}

// ---------------------------------------------------------------- the reader's own tests

#[test]
fn reads_use_groups_super_and_paths_but_not_comments_strings_or_tests() {
    let src = r#"
use crate::{a::b, c::{self, d}};
use super::e::F;
// use crate::commented::out;
const S: &str = "crate::in_a_string::x";
fn f() { crate::g::h(); let c = 'x'; }
#[cfg(test)]
mod tests {
    use crate::only_in_tests;
}
"#;
    let code = strip_tests(&blank(src));
    let mut got: Vec<String> = references(&code, "m::n")
        .into_iter()
        .map(|(p, _)| p.join("::"))
        .collect();
    got.sort();
    assert_eq!(got, ["a::b", "c", "c::d", "g::h", "m::e::F"]);
    let hyper = "use hyper::StatusCode;\nfn f() -> tokio_tungstenite::X {}\n// hyper::x\n";
    let found: Vec<String> = crate_uses(&blank(hyper), DAEMON_FORBIDDEN)
        .into_iter()
        .map(|(k, at)| format!("{k}@{}", line_of(hyper, at)))
        .collect();
    assert_eq!(found, ["hyper@1", "tokio_tungstenite@2"]);
}

#[test]
fn finds_a_cycle_and_names_it() {
    let mut modules = BTreeMap::new();
    for name in ["a", "b", "c"] {
        modules.insert(
            name.to_string(),
            Module {
                file: PathBuf::from(format!("{name}.rs")),
                code: String::new(),
            },
        );
    }
    let edge = |from: &str, to: &str| Edge {
        from: from.into(),
        to: to.into(),
        line: 1,
    };
    let mut report = Report::default();
    cycles(
        &modules,
        &[edge("a", "b"), edge("b", "a"), edge("b", "c")],
        &mut report,
    );
    assert_eq!(report.groups.len(), 1);
    assert_eq!(report.in_cycles, 2);
    assert_eq!(report.back_edges, 1);
    assert!(
        report.cycles[0][0].starts_with("a -> b -> a"),
        "{:?}",
        report.cycles
    );
}
