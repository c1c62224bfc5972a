//! The model view over HTTP (`GET /state/{pid}?view=model`, issue 23), end to end: real
//! Chromium with the extension on the demo mail app, the real nspd. The text holds every
//! object of the JSON state as a `key: value` line and every page action as one line with
//! its tier and confidence, and no selector; `prefix` and `limit` slice it as they slice
//! the JSON; a bad `view` is refused. The flow driven from the compact form alone is in
//! `tests/mcp/client.py` (`mcp.rs`).

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_tests::{open_tab, Nspd};
use serde_json::Value;

/// GET `path` with the key; status, content type and body text.
async fn get_text(nspd: &Nspd, path: &str) -> (u16, String, String) {
    let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let req = Request::get(format!("{}{path}", nspd.base))
        .header("x-substrate-key", &nspd.key)
        .body(Empty::new())
        .expect("request");
    let resp = tokio::time::timeout(Duration::from_secs(30), client.request(req))
        .await
        .expect("an answer within 30 s")
        .expect("nspd answers");
    let status = resp.status().as_u16();
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = resp.into_body().collect().await.expect("body").to_bytes();
    (status, kind, String::from_utf8_lossy(&body).into_owned())
}

/// The lines of one `## ` section of the view.
fn section<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| !l.starts_with(header))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .collect()
}

/// The objects the view's object lines say, read back as an agent would: `key: value`,
/// a record's line `record: {field: value, …}`, and a table `list[N]: a, b` with its
/// rows `[n]: value, value` (`-` where a record lacks the column's field).
fn objects_of(lines: &[&str]) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut table: Option<(String, Vec<String>)> = None;
    for line in lines {
        if let Some(row) = line.strip_prefix('[') {
            let (n, rest) = row.split_once("]: ").expect("a row line");
            let (stem, columns) = table.as_ref().expect("a row after its table's line");
            let values = json_values(rest);
            assert_eq!(values.len(), columns.len(), "{line}");
            // `-`: the record has no such field.
            for (column, value) in columns.iter().zip(values) {
                if let Some(value) = value {
                    out.insert(format!("{stem}[{n}].{column}"), value);
                }
            }
            continue;
        }
        let (key, raw) = line.split_once(": ").expect("a key: value line");
        if let Some(stem) = key.strip_suffix("[N]") {
            table = Some((
                stem.to_owned(),
                raw.split(", ").map(str::to_owned).collect(),
            ));
        } else if let Some(fields) = raw.strip_prefix('{').filter(|r| !r.starts_with(['"', '}'])) {
            let mut rest = fields;
            loop {
                let (field, after) = rest.split_once(": ").expect("field: value");
                let (value, used) = json_value(after);
                out.insert(format!("{key}.{field}"), value);
                rest = &after[used..];
                if rest == "}" {
                    break;
                }
                rest = rest.strip_prefix(", ").expect("fields apart");
            }
        } else {
            out.insert(key.to_owned(), serde_json::from_str(raw).expect(line));
        }
    }
    out
}

/// The JSON value at the start of `raw`, and how many bytes it took.
fn json_value(raw: &str) -> (Value, usize) {
    let mut values = serde_json::Deserializer::from_str(raw).into_iter::<Value>();
    let value = values.next().expect("a value").expect("JSON");
    (value, values.byte_offset())
}

/// `"a", 2, -, true` as its values (`-`: none).
fn json_values(raw: &str) -> Vec<Option<Value>> {
    let mut out = Vec::new();
    let mut rest = raw;
    loop {
        if rest == "-" || rest.starts_with("-, ") {
            out.push(None);
            rest = &rest[1..];
        } else {
            let (value, used) = json_value(rest);
            out.push(Some(value));
            rest = &rest[used..];
        }
        if rest.is_empty() {
            return out;
        }
        rest = rest.strip_prefix(", ").expect("values apart");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_view_holds_the_state_without_selectors_and_slices_like_the_json() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let (nspd, app) = open_tab(&demo.url("/"), 0.95)
        .await
        .expect("the demo tab is active");
    let pid = app.pid;

    // One capture read both ways: the JSON before and after the text name the same
    // capture (the page may still be settling: then read again, at most 20 times).
    let mut tries = 0;
    let (json, kind, text) = loop {
        let (status, json) = nspd
            .get(&format!("/substrate/v1/state/{pid}"))
            .await
            .expect("state");
        assert_eq!(status, 200, "{json}");
        let (status, kind, text) =
            get_text(&nspd, &format!("/substrate/v1/state/{pid}?view=model")).await;
        assert_eq!(status, 200, "{text}");
        let (_, after) = nspd
            .get(&format!("/substrate/v1/state/{pid}"))
            .await
            .expect("state");
        tries += 1;
        if after["capture_id"] == json["capture_id"] || tries == 20 {
            break (json, kind, text);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(kind, "text/plain; charset=utf-8");
    eprintln!(
        "model view {} bytes, JSON {} bytes:\n{text}",
        text.len(),
        json.to_string().len()
    );
    let capture_id = json["capture_id"].as_str().unwrap_or("?");
    assert!(
        text.contains(&format!(
            "capture: {}\n",
            &capture_id[capture_id.len() - 8..]
        )),
        "the capture id to act on: {text}"
    );
    assert!(
        text.starts_with(&format!("url: {}\n", json["context"]["url"])),
        "{text}"
    );

    // Every object, read back from its line, its record's line or its table; an empty
    // field (`""`, a secret's `<name>_filled: false`, a closed menu's
    // `<name>_expanded: false`) may be left out: absent reads as empty (false).
    let objects = json["objects"].as_object().expect("objects");
    let lines = section(&text, "## objects");
    let read = objects_of(&lines);
    let empty = |k: &str, v: &Value| {
        v == "" || ((k.ends_with("_filled") || k.ends_with("_expanded")) && *v == false)
    };
    let expected: BTreeMap<String, Value> = objects
        .iter()
        .filter(|(k, v)| read.contains_key(*k) || !empty(k, v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(read, expected, "{text}");
    assert!(lines.len() < objects.len(), "records share lines: {text}");

    // Every page action on one line with its tier and confidence; no builtin, no
    // selector, no signature.
    let actions = json["actions"].as_object().expect("actions");
    let action_lines = section(&text, "## actions");
    let page_actions: Vec<(&String, &Value)> = actions
        .iter()
        .filter(|(_, a)| {
            !a["internal_target"]
                .as_str()
                .unwrap_or("")
                .starts_with("builtin:")
        })
        .collect();
    assert_eq!(action_lines.len(), page_actions.len(), "{text}");
    for (name, a) in page_actions {
        let line = action_lines
            .iter()
            .find(|l| l.starts_with(&format!("{name}(")))
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"));
        let tier = match a["reversibility"].as_str().unwrap_or("?") {
            "reversible_write" => "write",
            "irreversible_write" => "irreversible",
            other => other,
        };
        assert!(line.contains(&format!(") {tier} ")), "{line}");
    }
    for absent in ["dom:", "builtin:", "row:", "fn(", "internal_target"] {
        assert!(!text.contains(absent), "{absent:?} in\n{text}");
    }
    assert!(
        text.len() * 3 < json.to_string().len(),
        "{} vs {}",
        text.len(),
        json.to_string().len()
    );

    // The slices: prefix and limit cut the objects as they cut the JSON's.
    let query = "prefix=inbox.emails%5B&limit=3";
    let (_, sliced) = nspd
        .get(&format!("/substrate/v1/state/{pid}?{query}"))
        .await
        .expect("sliced state");
    let (status, _, sliced_text) = get_text(
        &nspd,
        &format!("/substrate/v1/state/{pid}?{query}&view=model"),
    )
    .await;
    assert_eq!(status, 200, "{sliced_text}");
    let lines = section(&sliced_text, "## objects");
    let json_keys: Vec<&String> = sliced["objects"]
        .as_object()
        .expect("objects")
        .keys()
        .collect();
    assert_eq!(json_keys.len(), 3, "{sliced}");
    let read = objects_of(&lines);
    assert_eq!(read.keys().collect::<Vec<_>>(), json_keys, "{sliced_text}");
    assert!(
        sliced_text.contains("## objects (more matched than shown"),
        "{sliced_text}"
    );

    // view=json is the JSON; anything else is refused, naming the field.
    let (status, kind, body) =
        get_text(&nspd, &format!("/substrate/v1/state/{pid}?view=json")).await;
    assert_eq!((status, kind.as_str()), (200, "application/json"), "{body}");
    let (status, _, body) = get_text(&nspd, &format!("/substrate/v1/state/{pid}?view=yaml")).await;
    assert_eq!(status, 400, "{body}");
    let err: Value = serde_json::from_str(&body).expect("error JSON");
    assert_eq!(err["error"]["code"], "invalid_request", "{body}");
    assert_eq!(err["field"], "view", "{body}");
}
