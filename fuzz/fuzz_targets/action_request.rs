//! Fuzz target: arbitrary bytes as the body of `POST /substrate/v1/action`, through
//! `nsp_daemon::api::parse_action_request`, the exact decoder and validator the route
//! runs before anything happens. It must never panic; what it accepts must meet the
//! checks it promises (a tab named, a positive pid, a short non-empty action, a verify
//! timeout in range); what it refuses must be an `invalid_request` whose JSON body
//! builds.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nsp_daemon::api::parse_action_request;
use nsp_protocol::api::ActionRequest;

fuzz_target!(|data: &[u8]| {
    match parse_action_request(data) {
        Ok(req) => {
            assert!(req.pid.is_some() || req.app_id.is_some(), "no tab: {req:?}");
            assert_ne!(req.pid, Some(0), "pid 0 accepted");
            assert!(!req.action.trim().is_empty(), "empty action accepted");
            assert!(req.action.len() <= 256, "overlong action accepted");
            if let Some(t) = req.verify_timeout_ms {
                assert!((100..=30_000).contains(&t), "timeout {t} accepted");
            }
            // What nspd accepted, written back out, is accepted again (the SDK sends
            // what it would read).
            let encoded = serde_json::to_vec(&req).expect("a request encodes");
            let again: ActionRequest = parse_action_request(&encoded)
                .expect("an accepted request, re-encoded, is accepted");
            assert_eq!(again.action, req.action);
            assert_eq!(again.pid, req.pid);
        }
        Err(err) => {
            assert_eq!(err.code, "invalid_request", "{err:?}");
            assert_eq!(err.status.as_u16(), 400);
            let body = err.body("fuzz");
            assert_eq!(body["code"], "invalid_request");
            serde_json::to_vec(&body).expect("the error body encodes");
        }
    }
});
