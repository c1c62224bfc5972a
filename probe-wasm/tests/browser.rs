//! Browser tests of the probe's WebAssembly boundary, run in headless Chromium by
//! `wasm-pack test --headless --chrome` (one binary, a module per area).

#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

pub mod boundary {
    use super::*;
    use nsp_probe::Probe;

    fn snapshot() -> JsValue {
        let json = r##"{
            "url": "http://127.0.0.1:9/#inbox",
            "title": "Inbox — Demo Mail",
            "site_name": "Demo Mail",
            "elements": [
                {"tag": "section", "parent": null, "selector": "#inbox", "text": "", "attrs": {"id": "inbox"}, "visible": true, "disabled": false},
                {"tag": "span", "parent": 0, "selector": "#unread-count", "text": "3", "attrs": {"id": "unread-count"}, "visible": true, "disabled": false},
                {"tag": "button", "parent": 0, "selector": "#inbox > button", "text": "Archive", "attrs": {"type": "button"}, "visible": true, "disabled": false}
            ],
            "extract_ms": 0.5,
            "unsettled": false
        }"##;
        js_sys::JSON::parse(json).expect("valid JSON")
    }

    fn config(tier: &str) -> JsValue {
        js_sys::JSON::parse(&format!(r#"{{"tier": "{tier}"}}"#)).expect("valid JSON")
    }

    #[wasm_bindgen_test]
    fn analyze_returns_a_plain_json_capture() {
        let probe = Probe::new(config("wasm_in_page")).expect("probe");
        let capture = probe.analyze(snapshot()).expect("capture");
        // Plain objects, not JS Maps: JSON.stringify must see every field.
        let text: String = js_sys::JSON::stringify(&capture).expect("stringify").into();
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(value["app_name"], "Demo Mail");
        assert_eq!(value["objects"]["inbox.unread_count"], 3);
        assert_eq!(
            value["actions"]["archive"]["reversibility"],
            "reversible_write"
        );
        assert_eq!(value["probe_metadata"]["probe_tier"], "wasm_in_page");
        assert_eq!(value["context"]["view"], "/#inbox");
    }

    #[wasm_bindgen_test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(Probe::new(config("somewhere_else")).is_err());
        let probe = Probe::new(config("wasm_extension")).expect("probe");
        assert!(probe.analyze(JsValue::from_str("not a snapshot")).is_err());
        assert!(probe.analyze(JsValue::NULL).is_err());
    }
}
