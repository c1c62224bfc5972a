//! The audit log: one JSON line per gate decision and per dispatched action, in
//! `<data dir>/audit.jsonl`. Irreversible actions are written and flushed to disk
//! before dispatch and completed after, so a crash cannot hide that one was sent.
//! Values of password-like and payment-like parameters are redacted; the key itself
//! never appears (only a short id derived from it).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Map, Value};

/// File name inside the data dir.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// Parameter names whose values are never written.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "otp",
    "pin",
    "cvv",
    "cvc",
    "csc",
    "card",
    "cc_",
    "iban",
    "account_number",
    "routing",
    "ssn",
];

/// Append-only log.
#[derive(Debug)]
pub struct AuditLog {
    file: Mutex<File>,
    path: PathBuf,
}

impl AuditLog {
    pub fn open(data_dir: &Path) -> std::io::Result<AuditLog> {
        let path = data_dir.join(AUDIT_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)?;
        Ok(AuditLog {
            file: Mutex::new(file),
            path,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record with the current time. `durable` also syncs it to disk.
    pub fn record(&self, mut record: Map<String, Value>, durable: bool) {
        record.insert("time".into(), Value::String(crate::tabs::now_rfc3339()));
        let mut line = Value::Object(record).to_string();
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let result = file.write_all(line.as_bytes()).and_then(|()| {
            if durable {
                file.sync_data()
            } else {
                Ok(())
            }
        });
        if let Err(e) = result {
            // Losing the audit trail is serious but must not take the daemon down.
            tracing::error!(error = %e, path = %self.path.display(), "cannot write the audit log");
        }
    }
}

/// The parameters with secret-looking values replaced.
pub fn redact(params: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for (k, v) in params {
        let lowered = k.to_ascii_lowercase();
        let secret = SECRET_WORDS.iter().any(|w| lowered.contains(w));
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
            redact(params.as_object().expect("object")),
        );
        log.record(rec, true);
        let text = std::fs::read_to_string(log.path()).expect("read");
        assert!(!text.contains("4111"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        let line: Value = serde_json::from_str(text.trim()).expect("json line");
        assert_eq!(line["parameters"]["to"], "bob@example.com");
        assert!(line["time"].is_string());
    }
}
