//! The generic builtins every tab offers (docs/safety.md). Their schemas are defined once,
//! in `nsp_protocol::builtins`, shared with the daemon's gate; the probe lists them in
//! every state.

use std::collections::BTreeMap;

use nsp_protocol::ActionSchema;

/// Names no discovered action may take: a page could otherwise shadow a builtin.
pub use nsp_protocol::builtins::NAMES;

/// Adds every builtin to `actions`.
pub fn add(actions: &mut BTreeMap<String, ActionSchema>) {
    for name in NAMES {
        if let Some(schema) = nsp_protocol::builtins::schema(name) {
            actions.insert((*name).to_owned(), schema);
        }
    }
}
