//! The keys that differ between two captures, for `VerificationOutcome.changed_fields`
//! and `/diff`.

use std::cmp::Ordering;

use nsp_protocol::api::FieldChange;
use nsp_protocol::SubstrateState;
use serde_json::Value;

use crate::value::json_equal;

/// Every key of `objects` that was added, removed or changed from `prev` to `current`,
/// sorted by path. An added key has `before: null`, a removed one `after: null`.
/// Numbers compare by value, so `3` becoming `3.0` is no change (as in `changed()`).
pub fn changed_fields(prev: &SubstrateState, current: &SubstrateState) -> Vec<FieldChange> {
    let mut changes = Vec::new();
    let mut old = prev.objects.iter().peekable();
    let mut new = current.objects.iter().peekable();
    let change = |path: &String, before: Option<&Value>, after: Option<&Value>| FieldChange {
        path: path.clone(),
        before: before.cloned().unwrap_or(Value::Null),
        after: after.cloned().unwrap_or(Value::Null),
    };
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => return changes,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((ko, _)), Some((kn, _))) => ko.cmp(kn),
        };
        match order {
            Ordering::Less => {
                if let Some((key, before)) = old.next() {
                    changes.push(change(key, Some(before), None));
                }
            }
            Ordering::Greater => {
                if let Some((key, after)) = new.next() {
                    changes.push(change(key, None, Some(after)));
                }
            }
            Ordering::Equal => {
                if let (Some((key, before)), Some((_, after))) = (old.next(), new.next()) {
                    if !json_equal(before, after) {
                        changes.push(change(key, Some(before), Some(after)));
                    }
                }
            }
        }
    }
}
