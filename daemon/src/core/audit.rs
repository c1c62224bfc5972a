//! The audit log: one JSON line per gate decision and per dispatched action, in
//! `<data dir>/audit.jsonl`. Irreversible actions are written and flushed to disk
//! before dispatch and completed after, so a crash cannot hide that one was sent.
//! Values of parameters the action's schema marks `secret` (and of `type`'s text into a
//! secret field) are redacted, and so are password-like and payment-like names; the key
//! itself never appears (only a short id derived from it).
//!
//! [`AuditLog::record`] reports a failed write: the caller of an irreversible action
//! refuses it (fail closed) rather than dispatch something the log does not hold.
//! A line cut short by a failed write (or by a crash mid-write) is closed with a newline
//! before the next record, so every later line still parses on its own.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

/// File name inside the data dir.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// Parameter names whose values are never written, besides every name the probe and
/// the extension treat as a secret field ([`nsp_protocol::secrets::is_secret_name`]):
/// words of credentials and bank details that name parameters more often than fields.
const MORE_SECRET_WORDS: &[&str] = &[
    "passphrase",
    "secret",
    "token",
    "pin",
    "cc_",
    "iban",
    "account_number",
    "routing",
];

/// Append-only log.
#[derive(Debug)]
pub struct AuditLog {
    file: Mutex<Sink>,
    path: PathBuf,
}

#[derive(Debug)]
struct Sink {
    file: File,
    /// The last write may have left a partial line: start the next one on a new line.
    torn: bool,
}

impl AuditLog {
    pub fn open(data_dir: &Path) -> std::io::Result<AuditLog> {
        let path = data_dir.join(AUDIT_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)?;
        let torn = ends_mid_line(&path).unwrap_or(false);
        Ok(AuditLog {
            file: Mutex::new(Sink { file, torn }),
            path,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record with the current time. `durable` also syncs it to disk. An
    /// error means the record may not be on disk (it is also logged here); for a
    /// durable record the caller must not go on as if it were.
    pub fn record(&self, mut record: Map<String, Value>, durable: bool) -> std::io::Result<()> {
        record.insert(
            "time".into(),
            Value::String(crate::core::util::now_rfc3339()),
        );
        let mut line = Value::Object(record).to_string();
        line.push('\n');
        let mut sink = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if sink.torn {
            line.insert(0, '\n');
        }
        let result = sink.file.write_all(line.as_bytes()).and_then(|()| {
            if durable {
                sink.file.sync_data()
            } else {
                Ok(())
            }
        });
        match &result {
            Ok(()) => sink.torn = false,
            Err(e) => {
                // How much of the line got out is unknown; the next record starts afresh.
                sink.torn = true;
                tracing::error!(error = %e, path = %self.path.display(), "cannot write the audit log");
            }
        }
        result
    }
}

/// Whether the file is non-empty and its last byte is not a newline (a crash cut the
/// last record short).
fn ends_mid_line(path: &Path) -> std::io::Result<bool> {
    let mut f = File::open(path)?;
    let len = f.metadata()?.len();
    if len == 0 || !f.metadata()?.is_file() {
        return Ok(false);
    }
    f.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// One record of the log as one readable line (`nspd audit`): time, decision, action,
/// tab, then what the record holds. A line that is not a JSON object (a record a crash
/// cut short) is shown as such rather than hidden.
pub fn format_line(line: &str) -> String {
    let Ok(Value::Object(rec)) = serde_json::from_str::<Value>(line) else {
        return format!("(not a record) {line}");
    };
    let text = |k: &str| match rec.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    };
    let mut out = format!(
        "{} {:<12} {} pid={}",
        text("time"),
        text("decision"),
        text("action"),
        text("pid")
    );
    for key in ["tier", "result", "effective_confidence"] {
        let v = text(key);
        if !v.is_empty() {
            out.push_str(&format!(" {key}={v}"));
        }
    }
    if let Some(Value::Object(v)) = rec.get("verification") {
        let passed = v.get("passed").and_then(Value::as_bool).unwrap_or(false);
        out.push_str(if passed { " verified" } else { " not-verified" });
    }
    let expr = text("verify_expression");
    if !expr.is_empty() {
        out.push_str(&format!(" verify={expr:?}"));
    }
    if let Some(p) = rec
        .get("parameters")
        .filter(|p| p.as_object().is_some_and(|m| !m.is_empty()))
    {
        out.push_str(&format!(" parameters={p}"));
    }
    let id = text("action_id");
    if !id.is_empty() {
        out.push_str(&format!(" action_id={id}"));
    }
    out.push_str(&format!(" request_id={}", text("request_id")));
    out
}

/// Whether a parameter's name says its value is secret (for parameters the schema does
/// not mark: an older extension's, or a WebMCP tool's).
pub fn secret_by_name(name: &str) -> bool {
    let lowered = name.to_ascii_lowercase();
    nsp_protocol::secrets::is_secret_name(name)
        || MORE_SECRET_WORDS.iter().any(|w| lowered.contains(w))
}

/// The parameters with secret values replaced: those named in `marked` (the schema's
/// `secret` mark: `crate::core::gate::secret_parameters`) and those whose names look secret.
pub fn redact(params: &Map<String, Value>, marked: &[String]) -> Value {
    let mut out = Map::new();
    for (k, v) in params {
        let secret = marked.iter().any(|m| m == k) || secret_by_name(k);
        out.insert(
            k.clone(),
            if secret {
                Value::String("[redacted]".into())
            } else {
                v.clone()
            },
        );
    }
    Value::Object(out)
}

/// The fields every audit record of a request about an action starts with.
/// Every such record names the agent that asked (`nspd audit --agent NAME`).
pub fn base(
    who: &crate::core::agents::Agent,
    request_id: &str,
    pid: u64,
    url: Option<&str>,
    action: &str,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("request_id".into(), json!(request_id));
    m.insert("agent".into(), json!(who.name));
    m.insert("key_id".into(), json!(who.key_id));
    m.insert("pid".into(), json!(pid));
    m.insert("url".into(), json!(url));
    m.insert("action".into(), json!(action));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_redacted_and_lines_are_json() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = AuditLog::open(dir.path()).expect("open");
        let params = json!({"to": "bob@example.com", "card_number": "4111111111111111", "password": "hunter2"});
        let mut rec = Map::new();
        rec.insert("action".into(), json!("pay"));
        rec.insert(
            "parameters".into(),
            redact(params.as_object().expect("object"), &[]),
        );
        log.record(rec, true).expect("recorded");
        let text = std::fs::read_to_string(log.path()).expect("read");
        assert!(!text.contains("4111"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        let line: Value = serde_json::from_str(text.trim()).expect("json line");
        assert_eq!(line["parameters"]["to"], "bob@example.com");
        assert!(line["time"].is_string());
    }

    /// A parameter is redacted when its name is one the probe keeps out of the state as
    /// a secret field, and for the audit's own words; other names are kept.
    #[test]
    fn secret_field_names_and_credential_words_are_redacted() {
        let secret = [
            "password",
            "user_passwd",
            "passphrase",
            "api_secret",
            "token",
            "otp",
            "pin",
            "cvv",
            "cvc",
            "csc",
            "card_number",
            "cc_exp",
            "iban",
            "account_number",
            "routing_no",
            "ssn",
            "pass",
            "security_code",
            "one-time",
        ];
        let kept = ["to", "subject", "email_id", "passenger", "query"];
        let params: Map<String, Value> = secret
            .iter()
            .chain(kept.iter())
            .map(|k| (k.to_string(), json!("v")))
            .collect();
        let redacted = redact(&params, &[]);
        for k in secret {
            assert!(
                nsp_protocol::secrets::is_secret_name(k)
                    || MORE_SECRET_WORDS.iter().any(|w| k.contains(w)),
                "{k}"
            );
            assert_eq!(redacted[k], "[redacted]", "{k}");
        }
        for k in kept {
            assert_eq!(redacted[k], "v", "{k}");
        }
    }

    /// A parameter the schema marks secret is redacted whatever its name (a password
    /// field the page named "x", or `type`'s `text`); the others are kept.
    #[test]
    fn parameters_marked_secret_are_redacted_whatever_their_name() {
        let params = json!({"selector": "#x", "text": "hunter2", "q": "shoes"});
        let redacted = redact(params.as_object().expect("object"), &["text".to_owned()]);
        assert_eq!(redacted["text"], "[redacted]");
        assert_eq!(redacted["selector"], "#x");
        assert_eq!(redacted["q"], "shoes");
    }

    #[test]
    fn a_full_device_is_an_error_not_a_log_line() {
        // /dev/full: every write fails with ENOSPC, as on a full disk (and for root too,
        // unlike permissions).
        let dir = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink("/dev/full", dir.path().join(AUDIT_FILE)).expect("symlink");
        let log = AuditLog::open(dir.path()).expect("open");
        let err = log.record(Map::new(), true).expect_err("a full device");
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{err}");
    }

    #[test]
    fn a_line_cut_short_is_closed_before_the_next_record() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(AUDIT_FILE), "{\"action\":\"sen").expect("write");
        let log = AuditLog::open(dir.path()).expect("open");
        let mut rec = Map::new();
        rec.insert("action".into(), json!("next"));
        log.record(rec.clone(), false).expect("recorded");
        log.record(rec, false).expect("recorded");
        let text = std::fs::read_to_string(log.path()).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], "{\"action\":\"sen");
        for line in &lines[1..] {
            let v: Value = serde_json::from_str(line).expect("later lines parse");
            assert_eq!(v["action"], "next");
        }
    }

    #[test]
    fn records_read_as_one_line_each() {
        let line = json!({"time": "2026-01-01T00:00:00.000Z", "decision": "completed", "action": "send_email",
            "pid": 3, "result": "done", "verification": {"passed": true, "explanation": "x"},
            "action_id": "a1", "request_id": "r1"})
        .to_string();
        assert_eq!(
            format_line(&line),
            "2026-01-01T00:00:00.000Z completed    send_email pid=3 result=done verified action_id=a1 request_id=r1"
        );
        assert_eq!(format_line("{\"act"), "(not a record) {\"act");
    }
}
