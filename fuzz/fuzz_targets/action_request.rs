//! Fuzz target: arbitrary bytes as the body of `POST /substrate/v1/action`, through
//! `nsp_daemon::door::http::api::parse_action_request` (the JSON decoder, then the core's
//! `ActionCall::new`, the one validator both doors use), exactly what the route runs
//! before anything happens. It must never panic; what it accepts must meet the
//! checks it promises (a tab named, a positive pid, a short non-empty action, a verify
//! timeout in range); what it refuses must be an `invalid_request` whose JSON body
//! builds.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nsp_daemon::door::http::api::parse_action_request;
use nsp_daemon::door::http::status;

fuzz_target!(|data: &[u8]| {
    match parse_action_request(data) {
        Ok(call) => {
            let req = call.request();
            assert!(req.pid.is_some() || req.app_id.is_some(), "no tab: {req:?}");
            assert_ne!(req.pid, Some(0), "pid 0 accepted");
            assert!(!req.action.trim().is_empty(), "empty action accepted");
            assert!(req.action.len() <= 256, "overlong action accepted");
            if let Some(t) = req.verify_timeout_ms {
                assert!((100..=30_000).contains(&t), "timeout {t} accepted");
            }
            // What nspd accepted, written back out, is accepted again (the SDK sends
            // what it would read).
            let encoded = serde_json::to_vec(req).expect("a request encodes");
            let again = parse_action_request(&encoded)
                .expect("an accepted request, re-encoded, is accepted");
            let again = again.request();
            assert_eq!(again.action, req.action);
            assert_eq!(again.pid, req.pid);
        }
        Err(err) => {
            assert_eq!(err.code, "invalid_request", "{err:?}");
            assert_eq!(status::status(&err).as_u16(), 400);
            let body = status::body(&err, "fuzz");
            assert_eq!(body["code"], "invalid_request");
            serde_json::to_vec(&body).expect("the error body encodes");
        }
    }
});
