//! The API contract checked against things other than the table it is built from:
//! the router's real answers (every operation the document lists is answered, and
//! nothing else is), the daemon's sources (every error code a handler can give is in
//! `door::http::status::ALL`, with the status docs/api.md gives it), and a real OpenAPI 3.1 validator
//! from PyPI (the document, and the bodies nspd actually sends against its schemas).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hyper::Method;
use serde_json::{json, Value};
use support::{daemon_with_tab, fast_config, Daemon, Response};

const METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

fn method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("method")
}

/// Whether the router sent the request to a handler: anything but "no such path" and
/// "not this method". (HEAD answers carry no body, so the status decides.)
fn routed(r: &Response) -> bool {
    match r.status.as_u16() {
        405 => false,
        404 => !(r.body.is_null() || r.code() == "not_found"),
        _ => true,
    }
}

/// What the operation promises for this answer: the status is one of its responses,
/// and an error's code is among those the response names.
fn assert_documented(op: &Value, what: &str, r: &Response) {
    let status = r.status.as_u16().to_string();
    let response = &op["responses"][&status];
    assert!(
        response.is_object(),
        "{what} answered {status}, which its operation does not list: {}",
        r.body
    );
    if r.status.as_u16() >= 400 && !r.body.is_null() {
        let codes =
            &response["content"]["application/json"]["schema"]["properties"]["code"]["enum"];
        assert!(
            codes
                .as_array()
                .is_some_and(|c| c.contains(&json!(r.code()))),
            "{what} answered {status} {}, which its operation does not list ({codes})",
            r.code()
        );
    }
}

async fn document(d: &Daemon) -> Value {
    let r = d.get("/substrate/v1/openapi.json").await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

fn concrete(template: &str, pid: u64) -> String {
    template.replace("{pid}", &pid.to_string())
}

#[tokio::test]
async fn the_router_answers_exactly_the_operations_of_the_document() {
    let (d, _ext, pid) = daemon_with_tab(fast_config(), 0.99).await;
    let doc = document(&d).await;
    let paths = doc["paths"].as_object().expect("paths");
    assert!(paths.len() >= 9, "{} paths", paths.len());
    for (template, item) in paths {
        let path = concrete(template, pid);
        for m in METHODS {
            let op = &item[m.to_ascii_lowercase()];
            let body = (*m == "POST").then(|| json!({}));
            let r = d.call(method(m), &path, body, &[]).await;
            assert_eq!(
                routed(&r),
                op.is_object(),
                "{m} {path}: the router {} it, the document {} it ({} {})",
                if routed(&r) { "answers" } else { "refuses" },
                if op.is_object() {
                    "lists"
                } else {
                    "does not list"
                },
                r.status,
                r.body
            );
            if !op.is_object() {
                continue;
            }
            let what = format!("{m} {path}");
            assert_documented(op, &what, &r);
            // Without the key: a secured operation says 401, an open one answers.
            let r = d
                .call(method(m), &path, None, &[("x-substrate-key", "")])
                .await;
            if op["security"].is_array() {
                r.assert_error_if_body(401, "missing_key", &what);
                assert_documented(op, &format!("{what} without a key"), &r);
            } else {
                assert!(r.status.is_success(), "{what} without a key: {}", r.status);
            }
            if template.contains("{pid}") {
                for (bad, status) in [("0", 400), ("x", 400), ("999999", 404)] {
                    let r = d
                        .call(
                            method(m),
                            &concrete(template, 0).replace("/0", &format!("/{bad}")),
                            None,
                            &[],
                        )
                        .await;
                    assert_eq!(
                        r.status.as_u16(),
                        status,
                        "{m} {template} with pid {bad}: {}",
                        r.body
                    );
                    assert_documented(op, &format!("{m} {template} with pid {bad}"), &r);
                }
            }
        }
    }
}

#[tokio::test]
async fn paths_the_document_does_not_list_are_not_found() {
    let (d, _ext, pid) = daemon_with_tab(fast_config(), 0.99).await;
    let doc = document(&d).await;
    let templates: Vec<String> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .cloned()
        .collect();
    let listed: BTreeSet<String> = templates.iter().map(|p| concrete(p, pid)).collect();
    // Near misses of every listed path (its literal segments changed, one segment more
    // or less; a `{pid}` segment is left alone, since any text there is the listed
    // route's bad pid), and paths around the prefix.
    let mut probes: BTreeSet<String> = [
        "/",
        "/substrate",
        "/substrate/v1",
        "/substrate/v1/",
        "/substrate/v2/apps",
        "/substrate/v1/nothing",
        "/health/",
        "/healthz",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for template in &templates {
        probes.insert(concrete(&format!("{template}/x"), pid));
        if let Some((parent, _)) = template.rsplit_once('/') {
            probes.insert(concrete(parent, pid));
        }
        let segments: Vec<&str> = template.split('/').collect();
        for (i, seg) in segments.iter().enumerate() {
            if seg.is_empty() || *seg == "{pid}" {
                continue;
            }
            for changed in [format!("{seg}s"), seg.to_uppercase(), seg[1..].to_owned()] {
                let mut s = segments.clone();
                s[i] = &changed;
                probes.insert(concrete(&s.join("/"), pid));
            }
        }
    }
    probes.retain(|p| !listed.contains(p));
    assert!(probes.len() > 30, "{probes:?}");
    for path in &probes {
        for m in METHODS {
            let r = d.call(method(m), path, None, &[]).await;
            assert_eq!(
                r.status, 404,
                "{m} {path} is not in the document: {}",
                r.body
            );
            if *m != "HEAD" {
                r.assert_error(404, "not_found");
            }
        }
    }
}

trait ErrorIfBody {
    fn assert_error_if_body(&self, status: u16, code: &str, what: &str);
}

impl ErrorIfBody for Response {
    fn assert_error_if_body(&self, status: u16, code: &str, what: &str) {
        assert_eq!(self.status.as_u16(), status, "{what}: {}", self.body);
        if !self.body.is_null() {
            self.assert_error(status, code);
        }
    }
}

fn daemon_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `NAME` → `"value"` of every `pub const NAME: &str = "value";` in codes.rs.
fn code_constants() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(daemon_dir().join("src/core/codes.rs")).expect("codes.rs");
    text.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("pub const ")?;
            let (name, value) = rest.split_once(": &str = \"")?;
            Some((name.to_owned(), value.strip_suffix("\";")?.to_owned()))
        })
        .collect()
}

/// The constant names after every `codes::` in the daemon's sources (codes.rs aside).
fn codes_used() -> BTreeMap<String, Vec<String>> {
    let mut files = Vec::new();
    rust_files(&daemon_dir().join("src"), &mut files);
    let mut used: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files.iter().filter(|f| !f.ends_with("codes.rs")) {
        let text = std::fs::read_to_string(file).expect("source");
        for (at, _) in text.match_indices("codes::") {
            let name: String = text[at + "codes::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // `codes::ALL` is the table itself, not a code.
            if name.len() > 1 && name != "ALL" {
                used.entry(name).or_default().push(
                    file.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into(),
                );
            }
        }
        // An error's code is always a constant: no literal can slip past the table.
        for call in ["CoreError::new(", "Self::new("] {
            for (at, _) in text.match_indices(call) {
                let arg = text[at + call.len()..].trim_start();
                assert!(
                    !arg.starts_with('"'),
                    "{}: {call} with a string literal; use a codes:: constant",
                    file.display()
                );
            }
        }
        if !file.ends_with("error.rs") {
            // A struct literal (not a return type `-> CoreError {`) would set a code
            // past the table.
            for (at, _) in text.match_indices("CoreError {") {
                assert!(
                    text[..at].ends_with("-> "),
                    "{}: builds a CoreError by hand, past the status table",
                    file.display()
                );
            }
        }
    }
    used
}

/// `code` → status from the "Every code" table of docs/api.md.
fn documented_statuses() -> BTreeMap<String, u16> {
    let text = std::fs::read_to_string(daemon_dir().join("../docs/api.md")).expect("docs/api.md");
    text.lines()
        .filter_map(|l| {
            let mut cells = l.split('|').map(str::trim).skip(1);
            let status = cells.next()?.parse::<u16>().ok()?;
            let code = cells.next()?.strip_prefix('`')?.strip_suffix('`')?;
            Some((code.to_owned(), status))
        })
        .collect()
}

#[test]
fn every_code_a_handler_can_give_is_in_the_table_with_the_documented_status() {
    let constants = code_constants();
    let used = codes_used();
    let docs = documented_statuses();
    assert!(used.len() >= 25, "found only {} codes in use", used.len());
    assert!(
        docs.len() >= 25,
        "found only {} codes in docs/api.md",
        docs.len()
    );
    let table: BTreeMap<&str, u16> = nsp_daemon::door::http::status::ALL
        .iter()
        .map(|(s, c, _)| (*c, *s))
        .collect();
    assert_eq!(
        table.len(),
        nsp_daemon::door::http::status::ALL.len(),
        "a code is twice in ALL"
    );
    for (name, files) in &used {
        let value = constants.get(name).unwrap_or_else(|| {
            panic!("codes::{name} (in {files:?}) is not a constant of codes.rs")
        });
        let status = table.get(value.as_str()).unwrap_or_else(|| {
            panic!("{value} (codes::{name}, in {files:?}) is not in codes::ALL")
        });
        assert_eq!(
            docs.get(value.as_str()),
            Some(status),
            "{value}: codes::ALL says {status}, docs/api.md's table says otherwise or nothing"
        );
    }
    for (code, status) in &docs {
        assert_eq!(
            table.get(code.as_str()),
            Some(status),
            "docs/api.md lists {code} {status}"
        );
    }
    // Every code a handler uses is documented on some operation (or is the router's
    // own answer to a path or method that is not there).
    let mut on_routes: BTreeSet<&str> = nsp_daemon::door::http::api::ROUTES
        .iter()
        .flat_map(|r| r.codes())
        .collect();
    on_routes.extend([
        nsp_daemon::core::codes::NOT_FOUND,
        nsp_daemon::core::codes::METHOD_NOT_ALLOWED,
    ]);
    for code in on_routes.iter() {
        assert!(
            table.contains_key(code),
            "a route lists {code}, which is not in codes::ALL"
        );
    }
    for name in used.keys() {
        let value = constants[name].as_str();
        assert!(
            on_routes.contains(value),
            "{value} is used in the daemon but no route of api::ROUTES lists it"
        );
    }
}

/// The Python with `openapi-spec-validator` (`cargo xtask test` installs it under
/// target/openapi-venv and passes it as NSP_OPENAPI_PYTHON). A path that is set must
/// be there: only an unset one lets the test skip.
fn validator_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NSP_OPENAPI_PYTHON") {
        let p = PathBuf::from(p);
        assert!(
            p.is_file(),
            "NSP_OPENAPI_PYTHON={} is not a file; `cargo xtask test` installs the validator \
             under target/openapi-venv",
            p.display()
        );
        return Some(p);
    }
    let venv = daemon_dir().join("../target/openapi-venv/bin/python");
    venv.is_file().then_some(venv)
}

/// Validates the document as OpenAPI 3.1, each component schema against JSON Schema
/// 2020-12, and each sample answer against the schema its operation gives it.
const VALIDATE: &str = r#"
import json, sys
from openapi_spec_validator import OpenAPIV31SpecValidator
from jsonschema import Draft202012Validator
data = json.load(sys.stdin)
doc, samples = data["document"], data["samples"]
OpenAPIV31SpecValidator(doc).validate()
for name, schema in doc["components"]["schemas"].items():
    Draft202012Validator.check_schema(schema)
bad = []
for s in samples:
    op = doc["paths"][s["path"]][s["method"]]
    schema = op["responses"][str(s["status"])]["content"]["application/json"]["schema"]
    root = dict(schema, components=doc["components"])
    for e in Draft202012Validator(root).iter_errors(s["body"]):
        bad.append(f'{s["method"]} {s["path"]} {s["status"]}: {e.message} at {list(e.absolute_path)}')
if bad:
    sys.exit("\n".join(bad))
print(f"valid: the document and {len(samples)} answers")
"#;

#[tokio::test]
async fn the_document_is_valid_openapi_and_describes_what_nspd_sends() {
    let Some(python) = validator_python() else {
        // `cargo xtask test` (NSP_XTASK_TEST) and CI must validate, never skip.
        assert!(
            std::env::var_os("CI").is_none() && std::env::var_os("NSP_XTASK_TEST").is_none(),
            "openapi-spec-validator is missing and NSP_OPENAPI_PYTHON is not set; \
             `cargo xtask test` installs it under target/openapi-venv and sets it"
        );
        eprintln!(
            "SKIPPED the_document_is_valid_openapi_and_describes_what_nspd_sends: no openapi-spec-validator \
             (set NSP_OPENAPI_PYTHON, or run `cargo xtask test` once to install it under target/openapi-venv)"
        );
        return;
    };
    let (d, ext, pid) = daemon_with_tab(fast_config(), 0.99).await;
    let doc = document(&d).await;
    // Real answers of every kind, each with the template of its operation.
    let mut samples = Vec::new();
    let mut sample = |template: &str, m: &str, r: Response| {
        assert!(!r.body.is_null(), "{m} {template}: no JSON body");
        samples.push(json!({"path": template, "method": m.to_ascii_lowercase(),
            "status": r.status.as_u16(), "body": r.body}));
    };
    let state = format!("/substrate/v1/state/{pid}");
    sample("/health", "GET", d.get("/health").await);
    sample(
        "/substrate/v1/apps",
        "GET",
        d.get("/substrate/v1/apps").await,
    );
    sample("/substrate/v1/state/{pid}", "GET", d.get(&state).await);
    sample(
        "/substrate/v1/state/{pid}",
        "GET",
        d.get(&format!("{state}?limit=1&fresh=true")).await,
    );
    sample(
        "/substrate/v1/state/{pid}",
        "GET",
        d.get(&format!("{state}?limit=0")).await,
    );
    sample(
        "/substrate/v1/state/{pid}",
        "GET",
        d.get("/substrate/v1/state/424242").await,
    );
    sample(
        "/substrate/v1/schema/{pid}",
        "GET",
        d.get(&format!("/substrate/v1/schema/{pid}")).await,
    );
    ext.set(|p| {
        p.capture
            .objects
            .insert("inbox.unread_count".into(), json!(2));
    });
    let _ = d.get(&format!("{state}?fresh=true")).await;
    sample(
        "/substrate/v1/diff/{pid}",
        "GET",
        d.get(&format!("/substrate/v1/diff/{pid}")).await,
    );
    for body in [
        json!({"pid": pid, "action": "search", "parameters": {"q": "x"}}),
        json!({"pid": pid, "action": "search", "parameters": {"q": "x"}, "verify_expression": "inbox.unread_count == 2"}),
        json!({"pid": pid, "action": "send_email"}),
        json!({"pid": pid}),
    ] {
        sample("/substrate/v1/action", "POST", d.act(body).await);
    }
    for body in [
        json!({"pid": pid, "expression": "inbox.unread_count == 2", "timeout_ms": 200}),
        json!({"pid": pid, "expression": "inbox.unread_count ==", "timeout_ms": 200}),
    ] {
        sample(
            "/substrate/v1/verify",
            "POST",
            d.post("/substrate/v1/verify", body).await,
        );
    }
    sample(
        "/substrate/v1/apps",
        "GET",
        d.call(
            Method::GET,
            "/substrate/v1/apps",
            None,
            &[("x-substrate-key", "wrong")],
        )
        .await,
    );
    let statuses: BTreeSet<u64> = samples
        .iter()
        .filter_map(|s| s["status"].as_u64())
        .collect();
    assert!(statuses.len() >= 4, "too few kinds of answer: {statuses:?}");

    let mut child = Command::new(&python)
        .args(["-c", VALIDATE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{} cannot run: {e}", python.display()));
    let input = json!({"document": doc, "samples": samples}).to_string();
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("validator");
    assert!(
        out.status.success(),
        "the validator refused:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", String::from_utf8_lossy(&out.stdout).trim());
}
