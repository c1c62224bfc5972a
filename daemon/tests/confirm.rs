//! A `confirm()` raised while an action runs: nspd lets the page accept it only for an
//! irreversible write that passed the gate with a verify expression (the dispatch says
//! so in `accept_confirm`), reports the accepted dialog's text in the response and the
//! audit log, and turns a declined one into `dialog_declined`.

mod support;

use serde_json::json;
use support::*;

const ASKED: &str = "Send to everyone? This cannot be undone.";

#[tokio::test]
async fn only_an_irreversible_write_with_an_expression_may_accept_a_confirm() {
    let (d, ext, pid) = daemon_with_tab(fast_config(), 0.99).await;
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Confirm {
            message: ASKED.into(),
            changes: [("outbox.sent_count".to_owned(), json!(15))].into(),
        }
    });

    // Irreversible, with its verify expression: the dialog is its own confirmation.
    let r = d
        .act(json!({"pid": pid, "action": "send_email", "parameters": {"to": "a@b.co"}, "verify_expression": "outbox.sent_count == 15"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["dialogs"],
        json!([{"kind": "confirm", "message": ASKED, "accepted": true}])
    );
    let message = r.body["message"].as_str().unwrap_or("");
    assert!(
        message.contains(ASKED) && message.contains("answered yes"),
        "{message}"
    );
    // The same click through the builtin, at the compose form's button (the page says
    // the element belongs to send_email), is gated as send_email, so it may accept too.
    ext.set(|p| {
        p.on_dispatch = OnDispatch::Confirm {
            message: ASKED.into(),
            changes: [("outbox.sent_count".to_owned(), json!(16))].into(),
        };
        p.resolutions.insert(
            "#compose button".into(),
            resolves_to("button", "Send", &["send_email"]),
        );
    });
    let r = d
        .act(json!({"pid": pid, "action": "click", "parameters": {"selector": "#compose button"}, "verify_expression": "outbox.sent_count == 16"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);

    // Anything else is declined: a reversible write (with or without an expression)
    // and a read.
    for body in [
        json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}}),
        json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e1"}, "verify_expression": "inbox.unread_count == 2"}),
        json!({"pid": pid, "action": "search", "parameters": {"q": "x"}}),
    ] {
        let r = d.act(body.clone()).await;
        r.assert_error(422, "action_failed");
        assert_eq!(r.body["failure"], "dialog_declined", "{body}");
        let message = r.body["message"].as_str().unwrap_or("");
        assert!(message.contains(ASKED), "{message}");
        assert!(message.contains("irreversible_write"), "{message}");
    }
    let asked = ext.page.lock().expect("page").accept_confirm.clone();
    assert_eq!(asked, [true, true, false, false, false]);

    // The accepted dialog is in the audit log's completion record.
    let completed: Vec<_> = d
        .audit_lines()
        .into_iter()
        .filter(|l| l["decision"] == "completed" && l["action"] == "send_email")
        .collect();
    assert_eq!(completed.len(), 1, "{completed:?}");
    assert_eq!(completed[0]["dialogs"][0]["message"], ASKED);
}

#[tokio::test]
async fn a_response_without_dialogs_leaves_the_field_out() {
    let (d, _ext, pid) = daemon_with_tab(fast_config(), 0.99).await;
    let r = d
        .act(json!({"pid": pid, "action": "search", "parameters": {"q": "x"}}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.get("dialogs").is_none(), "{}", r.body);
    // The OpenAPI document describes the field.
    let doc = d.get("/substrate/v1/openapi.json").await;
    let schemas = &doc.body["components"]["schemas"];
    assert_eq!(
        schemas["ActionResponse"]["properties"]["dialogs"]["items"]["$ref"],
        "#/components/schemas/PageDialog"
    );
    assert!(schemas["PageDialog"]["properties"]["message"].is_object());
}
