//! The OpenAPI 3.1 document of the agent API, served at
//! `/substrate/v1/openapi.json`. Paths come from `api::ROUTES` and error codes from
//! `codes::ALL`, so the document cannot forget a route or a code; a test checks both.

use serde_json::{json, Map, Value};

use crate::api::ROUTES;
use crate::codes;

fn error_responses(statuses: &[u16]) -> Map<String, Value> {
    let mut out = Map::new();
    for status in statuses {
        let codes_here: Vec<&str> = codes::ALL
            .iter()
            .filter(|(s, _, _)| s == status)
            .map(|(_, c, _)| *c)
            .collect();
        let description = codes::ALL
            .iter()
            .filter(|(s, _, _)| s == status)
            .map(|(_, c, when)| format!("`{c}`: {when}"))
            .collect::<Vec<_>>()
            .join("; ");
        out.insert(
            status.to_string(),
            json!({
                "description": description,
                "content": {"application/json": {"schema": {
                    "allOf": [{"$ref": "#/components/schemas/Error"}],
                    "properties": {"code": {"enum": codes_here}}
                }}}
            }),
        );
    }
    out
}

fn operation(method: &str, path: &str) -> Value {
    let pid_param = json!([{"name": "pid", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}]);
    let ok = |schema: &str, description: &str| json!({"description": description, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}});
    let auth = [401u16, 403, 429];
    let (summary, params, request, ok_resp, errors): (&str, Value, Option<Value>, Value, Vec<u16>) = match (method, path) {
        ("GET", "/health") => ("Daemon health; needs no key", json!([]), None, ok("Health", "The daemon is up"), vec![403]),
        ("GET", "/substrate/v1/apps") => ("List the tabs with a probe", json!([]), None, ok("AppList", "Every known tab"), auth.to_vec()),
        ("GET", "/substrate/v1/state/{pid}") => (
            "A tab's state, flat; fresh=true asks the page for a new capture; prefix=, after= and limit= return a part of its objects (a large page read in pages)",
            json!([pid_param[0],
                {"name": "fresh", "in": "query", "required": false, "schema": {"type": "boolean", "default": false}},
                {"name": "prefix", "in": "query", "required": false, "description": "Only the objects whose key starts with this (e.g. `inbox.emails[12].`); percent-encode `[` and `]`",
                    "schema": {"type": "string", "maxLength": crate::api::MAX_KEY_QUERY_BYTES}},
                {"name": "after", "in": "query", "required": false, "description": "Only the objects whose key sorts after this one: the last key of the previous page",
                    "schema": {"type": "string", "maxLength": crate::api::MAX_KEY_QUERY_BYTES}},
                {"name": "limit", "in": "query", "required": false, "description": "At most this many objects, in key order; when more match, probe_metadata.objects_truncated is true",
                    "schema": {"type": "integer", "minimum": 1, "maximum": crate::api::MAX_STATE_LIMIT}}]),
            None,
            ok("SubstrateState", "The tab's state"),
            [&auth[..], &[400, 404, 503, 504]].concat(),
        ),
        ("GET", "/substrate/v1/schema/{pid}") => ("A tab's actions", pid_param.clone(), None, ok("Schema", "The tab's action schema"), [&auth[..], &[400, 404, 503]].concat()),
        ("POST", "/substrate/v1/action") => (
            "Gate, dispatch and verify one action (route timeout 120 s; Idempotency-Key header accepted)",
            json!([{"name": "Idempotency-Key", "in": "header", "required": false, "schema": {"type": "string", "maxLength": 255}}]),
            Some(json!({"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ActionRequest"}}}})),
            ok("ActionResponse", "The action ran (and was verified when an expression was given)"),
            [&auth[..], &[400, 404, 409, 413, 422, 503, 504]].concat(),
        ),
        ("GET", "/substrate/v1/diff/{pid}") => ("What changed between the tab's last two captures", pid_param.clone(), None, ok("Diff", "The difference"), [&auth[..], &[400, 404, 503]].concat()),
        ("POST", "/substrate/v1/verify") => (
            "Evaluate an expression against the live state, polling until true or timeout",
            json!([]),
            Some(json!({"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/VerifyRequest"}}}})),
            ok("VerificationOutcome", "The outcome, passed or not"),
            [&auth[..], &[400, 404, 413, 503, 504]].concat(),
        ),
        ("GET", "/substrate/v1/watch/{pid}") => (
            "WebSocket of state changes ({pid, app_id, sequence, changed_keys, captured_at}); pings; closes 1000 when the tab goes away. The key may also be given as ?key=",
            json!([pid_param[0], {"name": "key", "in": "query", "required": false, "schema": {"type": "string"}}]),
            None,
            json!({"description": "Switching to the WebSocket protocol"}),
            [&auth[..], &[400, 404, 426, 503]].concat(),
        ),
        ("POST", "/substrate/v1/learn") => (
            "Correct an action on the tab's site; an agent may only make it stricter (a higher tier, a lower confidence), anything looser is 403 forbidden",
            json!([]),
            Some(json!({"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LearnRequest"}}}})),
            ok("LearnResponse", "The correction was stored; the probe applies it on its next capture of the site"),
            [&auth[..], &[400, 404, 413, 503]].concat(),
        ),
        ("GET", "/substrate/v1/openapi.json") => ("This document", json!([]), None, json!({"description": "OpenAPI 3.1"}), auth.to_vec()),
        _ => ("", json!([]), None, json!({"description": "OK"}), vec![]),
    };
    let ok_status = if path.contains("/watch/") {
        "101"
    } else {
        "200"
    };
    let mut responses = Map::new();
    responses.insert(ok_status.into(), ok_resp);
    let mut all_errors = errors;
    all_errors.extend([404, 405]);
    all_errors.sort_unstable();
    all_errors.dedup();
    responses.extend(error_responses(&all_errors));
    let mut op = json!({
        "summary": summary,
        "parameters": params,
        "responses": responses,
    });
    if path != "/health" {
        op["security"] = json!([{"SubstrateKey": []}, {"Bearer": []}]);
    }
    if let Some(body) = request {
        op["requestBody"] = body;
    }
    op
}

/// The whole document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for (method, path) in ROUTES {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[method.to_ascii_lowercase()] = operation(method, path);
    }
    let string = json!({"type": "string"});
    let nullable_string = json!({"type": ["string", "null"]});
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "NSP v1 (nspd, NSP for the browser)",
            "version": crate::VERSION,
            "description": "Local API for AI agents to act on browser tabs safely. Every error body carries both shapes: top-level code/message and a nested error object."
        },
        "servers": [{"url": "http://127.0.0.1:7842"}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "SubstrateKey": {"type": "apiKey", "in": "header", "name": "X-Substrate-Key"},
                "Bearer": {"type": "http", "scheme": "bearer"}
            },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["success", "code", "message", "error"],
                    "properties": {
                        "success": {"const": false},
                        "code": {"type": "string", "enum": codes::ALL.iter().map(|(_, c, _)| *c).collect::<Vec<_>>()},
                        "message": string,
                        "error": {"type": "object", "properties": {"code": string, "message": string, "request_id": string}},
                        "field": string,
                        "actual_confidence": {"type": "number"},
                        "required_confidence": {"type": "number"},
                        "retry_after_ms": {"type": "integer"},
                        "suggested_expression": string,
                        "verification": {"$ref": "#/components/schemas/VerificationOutcome"}
                    }
                },
                "Health": {"type": "object", "properties": {"status": string, "version": string, "uptime_secs": {"type": "integer"}, "tracked_processes": {"type": "integer"}, "auth_enabled": {"type": "boolean"}}},
                "AppSummary": {"type": "object", "properties": {
                    "pid": {"type": "integer", "minimum": 1}, "app_id": string, "app_name": string, "runtime": {"const": "v8"}, "runtime_name": string,
                    "probe_status": {"enum": ["detecting", "attaching", "cold_probe", "active", "error", "detached"]},
                    "probe_message": nullable_string, "confidence": {"type": "number"}, "object_count": {"type": "integer"}, "action_count": {"type": "integer"},
                    "last_captured_at": nullable_string, "has_state": {"type": "boolean"}, "current_view": nullable_string, "current_url": nullable_string
                }},
                "AppList": {"type": "object", "properties": {"total": {"type": "integer"}, "apps": {"type": "array", "items": {"$ref": "#/components/schemas/AppSummary"}}}},
                "Parameter": {"type": "object", "required": ["name", "type_name", "required", "description"], "properties": {
                    "name": string, "type_name": {"enum": ["string", "number", "boolean", "object", "array"]}, "required": {"type": "boolean"},
                    "description": string, "allowed_values": {"type": "array"}, "default_value": {}
                }},
                "ActionSchema": {"type": "object", "properties": {
                    "signature": string, "reversibility": {"enum": ["read", "reversible_write", "irreversible_write"]}, "description": string,
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1}, "internal_target": string,
                    "parameters": {"type": "array", "items": {"$ref": "#/components/schemas/Parameter"}}
                }},
                "SubstrateState": {"type": "object", "properties": {
                    "pid": {"type": "integer", "minimum": 1}, "app_id": string, "app_name": string, "runtime": {"const": "v8"},
                    "confidence": {"type": "number"}, "capture_id": string, "schema_version": string, "captured_at": {"type": "string", "format": "date-time"},
                    "context": {"type": "object", "properties": {"url": nullable_string, "location": nullable_string, "view": nullable_string, "window_title": nullable_string, "window_id": nullable_string}},
                    "objects": {"type": "object"},
                    "actions": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/ActionSchema"}},
                    "probe_metadata": {"type": "object", "properties": {
                        "raw_object_count": {"type": "integer", "description": "Keys the probe found before its caps"},
                        "filtered_object_count": {"type": "integer", "description": "Keys in this response's objects"},
                        "objects_truncated": {"type": "boolean", "description": "Present and true when a cap left objects out: the probe's max_objects or max_list_records, or this request's limit"}
                    }}
                }},
                "Schema": {"type": "object", "properties": {"pid": {"type": "integer"}, "app_id": string, "app_name": string, "schema_version": string, "actions": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/ActionSchema"}}}},
                "ActionRequest": {"type": "object", "required": ["action"], "properties": {
                    "pid": {"type": "integer", "minimum": 1}, "app_id": string, "action": {"type": "string", "minLength": 1},
                    "parameters": {"type": "object"}, "verify": {"type": "boolean"}, "verify_expression": {"type": "string", "maxLength": 2048},
                    "verify_timeout_ms": {"type": "integer", "minimum": 100, "maximum": 30000}, "fresh_state": {"type": "boolean"},
                    "expected_capture_id": string,
                    "approval": {"type": "string", "enum": ["ask", "never"], "description": "ask: an action only its confidence floor refuses is put to the person at the browser (403 approval_denied, 408 approval_timeout); never: refused as usual. Default: [gate] ask_person"}
                }},
                "FieldChange": {"type": "object", "properties": {"path": string, "before": {}, "after": {}}},
                "VerificationOutcome": {"type": "object", "properties": {
                    "passed": {"type": "boolean"}, "expression": string, "computed_value": {}, "explanation": string,
                    "latency_ms": {"type": "integer"}, "poll_cycles": {"type": "integer"},
                    "changed_fields": {"type": "array", "items": {"$ref": "#/components/schemas/FieldChange"}}
                }},
                "ActionResponse": {"type": "object", "properties": {
                    "success": {"type": "boolean"}, "action_id": string, "action": string, "executed": {"type": "boolean"}, "runtime": string,
                    "total_latency_ms": {"type": "integer"}, "message": string,
                    "verification": {"oneOf": [{"$ref": "#/components/schemas/VerificationOutcome"}, {"type": "null"}]},
                    "updated_state": {"oneOf": [{"$ref": "#/components/schemas/SubstrateState"}, {"type": "null"}]},
                    "state_delta": {"type": ["object", "null"]}, "raw_return": {},
                    "dialogs": {"type": "array", "description": "Dialogs the page raised while the action ran and how NSP answered them (an irreversible write's own confirm() is accepted and quoted here); absent when there were none",
                        "items": {"$ref": "#/components/schemas/PageDialog"}}
                }},
                "PageDialog": {"type": "object", "properties": {
                    "kind": {"type": "string", "enum": ["confirm", "alert", "prompt"]}, "message": string, "accepted": {"type": "boolean"}
                }},
                "VerifyRequest": {"type": "object", "required": ["expression"], "properties": {
                    "pid": {"type": "integer", "minimum": 1}, "app_id": string, "expression": string, "timeout_ms": {"type": "integer", "minimum": 100, "maximum": 30000}
                }},
                "Diff": {"type": "object", "properties": {
                    "pid": {"type": "integer"}, "app_id": string, "diff": {"type": "array", "items": {"$ref": "#/components/schemas/FieldChange"}},
                    "captured_at": string, "previous_capture_id": string, "current_capture_id": string
                }}
            }
        }
    });
    add_learn_schemas(&mut doc, &string);
    doc
}

/// `/learn`'s models, added apart from the rest (one `json!` of everything would pass
/// the macro's recursion limit).
fn add_learn_schemas(doc: &mut Value, string: &Value) {
    let tier =
        json!({"type": "string", "enum": ["read", "reversible_write", "irreversible_write"]});
    doc["components"]["schemas"]["LearnRequest"] = json!({
        "type": "object", "required": ["action"], "additionalProperties": false, "properties": {
            "pid": {"type": "integer", "minimum": 1}, "app_id": string, "action": string,
            "reversibility": tier, "confidence": {"type": "number", "minimum": 0, "maximum": 1}
        }
    });
    doc["components"]["schemas"]["LearnResponse"] = json!({
        "type": "object", "properties": {
            "success": {"type": "boolean"}, "message": string,
            "correction": {"type": "object", "properties": {
                "id": string, "origin": string, "action": string, "tier": tier,
                "trusted": {"type": "boolean"}, "max_confidence": {"type": "number"},
                "by": {"type": "string", "enum": ["person", "agent"]}, "key_id": string,
                "created_at": string
            }}
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error table of the contract (docs/api.md), by status and code.
    const CONTRACT: &[(u16, &str)] = &[
        (400, "invalid_request"),
        (400, "missing_verify_expression"),
        (400, "verify_expression_too_large"),
        (400, "invalid_verify_expression"),
        (400, "dangerous_action_unverified"),
        (400, "invalid_parameters"),
        (401, "missing_key"),
        (401, "invalid_key"),
        (404, "pid_not_found"),
        (404, "action_not_available"),
        (409, "idempotency_conflict"),
        (409, "stale_state"),
        (422, "irreversible_not_confirmed"),
        (422, "confidence_too_low"),
        (422, "verification_failed"),
        (422, "idempotency_key_reused"),
        (422, "action_failed"),
        (429, "rate_limited"),
        (503, "probe_detached"),
        (503, "probe_not_ready"),
        (504, "probe_timeout"),
        (503, "outcome_unknown"),
    ];

    #[test]
    fn every_contract_code_is_in_the_table_and_the_document() {
        let doc = document().to_string();
        for (status, code) in CONTRACT {
            assert_eq!(codes::status_of(code), Some(*status), "{code}");
            assert!(
                doc.contains(&format!("\"{code}\"")),
                "{code} missing from the OpenAPI document"
            );
        }
        for (_, code, _) in codes::ALL {
            assert!(
                doc.contains(&format!("\"{code}\"")),
                "{code} missing from the OpenAPI document"
            );
        }
    }

    #[test]
    fn every_route_is_documented_with_its_method() {
        let doc = document();
        assert_eq!(doc["openapi"], "3.1.0");
        for (method, path) in ROUTES {
            let op = &doc["paths"][*path][method.to_ascii_lowercase()];
            assert!(op.is_object(), "{method} {path} missing");
            assert!(
                op["responses"].is_object(),
                "{method} {path} has no responses"
            );
        }
        assert_eq!(
            doc["paths"].as_object().map(|p| p.len()),
            Some(ROUTES.len())
        );
    }
}
