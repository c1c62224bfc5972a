//! The OpenAPI 3.1 document of the agent API, served at
//! `/substrate/v1/openapi.json`. Everything in it comes from elsewhere: the operations
//! from `api::ROUTES` (the table the router serves), the JSON Schemas from the
//! `protocol` types (schemars, draft 2020-12, the dialect of OpenAPI 3.1), the error
//! codes and statuses from `status::ALL`, and limits that nspd's configuration sets
//! from the running daemon's settings. Nothing here lists a route, a field or a code.

use schemars::generate::SchemaSettings;
use schemars::SchemaGenerator;
use serde_json::{json, Map, Value};

use crate::core::config::Settings;
use crate::door::http::route::{Reply, Route, SchemaFn};
use crate::door::http::status;

/// Where schemas go in the document, and so what their `$ref`s say.
const COMPONENTS: &str = "/components/schemas";

fn generator(settings: SchemaSettings, inline: bool) -> SchemaGenerator {
    settings
        .with(|s| {
            s.definitions_path = COMPONENTS.into();
            // The document's dialect is OpenAPI 3.1's default, draft 2020-12.
            s.meta_schema = None;
            s.inline_subschemas = inline;
        })
        .into_generator()
}

/// The generators of one document: responses are described as nspd writes them,
/// requests as nspd reads them (a field with a default is optional), and query and
/// header types inline, since each of their fields becomes one parameter.
struct Generators {
    replies: SchemaGenerator,
    requests: SchemaGenerator,
    parameters: SchemaGenerator,
}

impl Generators {
    fn new() -> Generators {
        Generators {
            replies: generator(SchemaSettings::draft2020_12().for_serialize(), false),
            requests: generator(SchemaSettings::draft2020_12().for_deserialize(), false),
            parameters: generator(SchemaSettings::draft2020_12().for_deserialize(), true),
        }
    }

    /// Every named schema either generator made. A type both read and written must
    /// come out the same both ways, or one name would mean two shapes.
    fn components(mut self) -> Map<String, Value> {
        let mut out = self.replies.take_definitions(true);
        for (name, schema) in self.requests.take_definitions(true) {
            if let Some(existing) = out.get(&name) {
                assert_eq!(
                    existing, &schema,
                    "{name} is read and written with different shapes: give the two their own types"
                );
            }
            out.insert(name, schema);
        }
        out
    }
}

fn pid_parameter() -> Value {
    json!({"name": "pid", "in": "path", "required": true,
        "description": "The tab, from GET /substrate/v1/apps",
        "schema": {"type": "integer", "minimum": 1}})
}

/// One parameter per field of a query or header type.
fn parameters(g: &mut SchemaGenerator, of: Option<SchemaFn>, place: &str) -> Vec<Value> {
    let Some(of) = of else { return Vec::new() };
    let schema = of(g).to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, field)| {
            let mut field = field.clone();
            let description = field.as_object_mut().and_then(|f| f.remove("description"));
            // A parameter is present or absent; JSON's null has no place in a query.
            if let Some(f) = field.as_object_mut() {
                if f.get("default") == Some(&Value::Null) {
                    f.remove("default");
                }
            }
            if let Some(types) = field.get_mut("type").and_then(Value::as_array_mut) {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    field["type"] = types[0].clone();
                }
            }
            let mut p = json!({"name": name, "in": place,
                "required": required.contains(&name.as_str()), "schema": field});
            if let Some(d) = description {
                p["description"] = d;
            }
            p
        })
        .collect()
}

/// The error answers of a route: one per status, naming the codes it can carry.
fn error_responses(route: &Route) -> Map<String, Value> {
    let mine = route.codes();
    let mut out = Map::new();
    for (status, _, _) in status::ALL {
        let here: Vec<&(u16, &str, &str)> = status::ALL
            .iter()
            .filter(|(s, c, _)| s == status && mine.contains(c))
            .collect();
        if here.is_empty() || out.contains_key(&status.to_string()) {
            continue;
        }
        let description = here
            .iter()
            .map(|(_, c, when)| format!("`{c}`: {when}"))
            .collect::<Vec<_>>()
            .join("; ");
        let names: Vec<&str> = here.iter().map(|(_, c, _)| *c).collect();
        out.insert(
            status.to_string(),
            json!({
                "description": description,
                "content": {"application/json": {"schema": {
                    "allOf": [{"$ref": format!("#{COMPONENTS}/ErrorBody")}],
                    "properties": {"code": {"enum": names}}
                }}}
            }),
        );
    }
    out
}

fn operation(route: &Route, g: &mut Generators) -> Value {
    let mut params = Vec::new();
    if route.has_pid() {
        params.push(pid_parameter());
    }
    params.extend(parameters(&mut g.parameters, route.query, "query"));
    params.extend(parameters(&mut g.parameters, route.headers, "header"));
    let mut responses = Map::new();
    let (status, ok) = match route.reply {
        Reply::Json(of) => (
            "200",
            json!({"description": "Done", "content": {"application/json": {"schema": of(&mut g.replies)}}}),
        ),
        Reply::JsonOrModelText(of) => (
            "200",
            json!({"description": "Done: JSON, or with view=model the compact text for a model", "content": {
                "application/json": {"schema": of(&mut g.replies)},
                "text/plain": {"schema": {"type": "string"}},
            }}),
        ),
        Reply::WebSocket(of) => (
            "101",
            json!({
                "description": "Switching to the WebSocket protocol; then one text message of x-nsp-message per change",
                "x-nsp-message": of(&mut g.replies),
            }),
        ),
        Reply::Document => (
            "200",
            json!({"description": "This OpenAPI 3.1 document",
                "content": {"application/json": {"schema": {"type": "object"}}}}),
        ),
    };
    responses.insert(status.into(), ok);
    responses.extend(error_responses(route));
    let mut op = json!({"summary": route.summary, "parameters": params, "responses": responses});
    if route.access != crate::door::http::route::Access::Open {
        op["security"] = json!([{"SubstrateKey": []}, {"Bearer": []}]);
    }
    if let Some(of) = route.body {
        op["requestBody"] = json!({"required": true,
            "content": {"application/json": {"schema": of(&mut g.requests)}}});
    }
    op
}

/// Replaces every `x-nsp-max-length-from` (a limit the configuration sets) with the
/// `maxLength` this daemon enforces.
fn resolve_limits(value: &mut Value, settings: &Settings) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.remove("x-nsp-max-length-from") {
                let limit = match name.as_str() {
                    Some(nsp_protocol::api::VERIFY_EXPRESSION_LIMIT) => {
                        settings.verify_expression_max_bytes
                    }
                    other => panic!("no configured limit is called {other:?}"),
                };
                map.insert("maxLength".into(), json!(limit));
            }
            map.values_mut().for_each(|v| resolve_limits(v, settings));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| resolve_limits(v, settings)),
        _ => {}
    }
}

/// The whole document, as this daemon (with these settings) serves it.
pub fn document(routes: &[Route], settings: &Settings) -> Value {
    let mut g = Generators::new();
    let mut paths = Map::new();
    for route in routes {
        let entry = paths.entry(route.path).or_insert_with(|| json!({}));
        entry[route.method.as_str().to_ascii_lowercase()] = operation(route, &mut g);
    }
    g.replies.subschema_for::<nsp_protocol::api::ErrorBody>();
    let mut schemas = g.components();
    // Every code, so a client can tell a known code from a new one.
    schemas["ErrorBody"]["properties"]["code"]["enum"] =
        json!(status::ALL.iter().map(|(_, c, _)| *c).collect::<Vec<_>>());
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "NSP v1 (nspd, NSP for the browser)",
            "version": crate::VERSION,
            "description": "Local API for AI agents to act on browser tabs safely. Every error body carries both shapes: top-level code/message and a nested error object. Under /substrate/v1, a path that is not here is 404 not_found and a method that is not here 405 method_not_allowed (after the key is checked)."
        },
        "servers": [{"url": format!("http://127.0.0.1:{}", settings.port)}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "SubstrateKey": {"type": "apiKey", "in": "header", "name": "X-Substrate-Key"},
                "Bearer": {"type": "http", "scheme": "bearer"}
            },
            "schemas": schemas,
        }
    });
    resolve_limits(&mut doc, settings);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(max: usize) -> Settings {
        let mut s = Settings::new(std::env::temp_dir());
        s.verify_expression_max_bytes = max;
        s
    }

    #[test]
    fn the_expression_limit_is_the_configured_one() {
        for max in [16, 2048, 65_536] {
            let doc = document(crate::door::http::api::ROUTES, &settings(max));
            let schemas = &doc["components"]["schemas"];
            assert_eq!(
                schemas["ActionRequest"]["properties"]["verify_expression"]["maxLength"],
                json!(max)
            );
            assert_eq!(
                schemas["VerifyRequest"]["properties"]["expression"]["maxLength"],
                json!(max)
            );
            assert!(
                !doc.to_string().contains("x-nsp-max-length-from"),
                "a configured limit was left unresolved"
            );
        }
    }

    #[test]
    fn every_reference_resolves() {
        // A `$ref` to a schema that was never generated would be a broken document
        // that still parses as JSON.
        let doc = document(crate::door::http::api::ROUTES, &settings(2048));
        let text = doc.to_string();
        let mut rest = text.as_str();
        let mut seen = 0;
        while let Some(at) = rest.find("\"$ref\":\"#/components/schemas/") {
            rest = &rest[at + "\"$ref\":\"#/components/schemas/".len()..];
            let name = &rest[..rest.find('"').expect("closed")];
            assert!(
                doc["components"]["schemas"][name].is_object(),
                "{name} is referenced and missing"
            );
            seen += 1;
        }
        assert!(seen > 10, "only {seen} references");
    }
}
