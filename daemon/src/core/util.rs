//! Small helpers shared by several modules: the time as the API and the audit log
//! write it, and the host part of a URL.

/// The current time as RFC 3339 (UTC, milliseconds).
pub fn now_rfc3339() -> String {
    rfc3339(std::time::SystemTime::now())
}

/// `t` as RFC 3339 in UTC, to the millisecond.
pub fn rfc3339(t: std::time::SystemTime) -> String {
    let t = time::OffsetDateTime::from(t);
    let t = t
        .replace_nanosecond(t.millisecond() as u32 * 1_000_000)
        .unwrap_or(t);
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}

/// The host of an absolute URL (`scheme://[user@]host[:port]/...`), without brackets
/// for an IPv6 literal; `None` when there is none.
pub fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_once(']')
            .map_or(host, |(h, _)| h.trim_start_matches('['))
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then_some(host)
}

/// Page text for a message: at most `max` chars (a page can make a label a megabyte
/// long), with an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// The JSON of `value` as the agent gets it: through `serde_json::Value`, so object keys
/// come out in one (sorted) order whatever the type. [`crate::core::hub::Hub::state_json`]
/// caches these bytes; the doors send them.
pub fn json_bytes<T: serde::Serialize>(value: &T) -> bytes::Bytes {
    let value = serde_json::to_value(value).unwrap_or_else(|_| serde_json::json!({}));
    bytes::Bytes::from(serde_json::to_vec(&value).unwrap_or_else(|_| b"{}".to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_urls() {
        assert_eq!(
            host_of("https://mail.example.com/inbox"),
            Some("mail.example.com")
        );
        assert_eq!(
            host_of("http://user:pw@127.0.0.1:8080/x?y"),
            Some("127.0.0.1")
        );
        assert_eq!(host_of("http://[::1]:80/x"), Some("::1"));
        assert_eq!(host_of("about:blank"), None);
        assert_eq!(host_of("file:///tmp/x"), None);
    }

    #[test]
    fn times_are_rfc3339_with_milliseconds() {
        let now = now_rfc3339();
        let parsed =
            time::OffsetDateTime::parse(&now, &time::format_description::well_known::Rfc3339)
                .expect("RFC 3339");
        assert_eq!(parsed.nanosecond() % 1_000_000, 0, "{now}");
    }
}
