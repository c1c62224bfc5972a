//! Fuzz target: arbitrary bytes as one text frame on the extension channel, decoded the
//! way `daemon/src/door/channel.rs` decodes it (`ExtensionMessage` from JSON). Decoding must
//! never panic, and whatever decodes must encode and decode back to a message of the
//! same kind (the service worker and nspd share these types; a message nspd accepts but
//! cannot write back would be a contract only one side keeps).

#![no_main]

use libfuzzer_sys::fuzz_target;
use nsp_protocol::channel::ExtensionMessage;

fuzz_target!(|data: &[u8]| {
    // A WebSocket text frame is UTF-8; the daemon decodes it from `&str`.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(msg) = serde_json::from_str::<ExtensionMessage>(text) else {
        return;
    };
    let encoded = serde_json::to_string(&msg).expect("a decoded message encodes");
    let again: ExtensionMessage =
        serde_json::from_str(&encoded).expect("an encoded message decodes again");
    assert_eq!(
        std::mem::discriminant(&msg),
        std::mem::discriminant(&again),
        "the kind of message survives a round trip"
    );
});
