//! The daemon's settings: defaults, then `nspd.toml`, then `NSP_<SECTION>__<KEY>`
//! environment overrides, then command-line flags. A wrong key or value is an error
//! naming it (and the line, for the file); nothing falls back silently.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("environment variable {var}: {message}")]
    Env { var: String, message: String },
    #[error("{0}")]
    Invalid(String),
}

/// `[server]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    pub host: IpAddr,
    pub port: u16,
    /// Bound on every request except `POST /action` (which has its own 120 s).
    pub request_timeout_ms: u64,
    pub max_body_bytes: usize,
    /// Largest WebSocket message accepted on the extension channel.
    pub max_ws_message_bytes: usize,
    /// At most this many `/watch` streams at once.
    pub max_watchers: usize,
    /// At most this many tabs tracked at once.
    pub max_tabs: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            host: IpAddr::from([127, 0, 0, 1]),
            port: nsp_protocol::DEFAULT_PORT,
            request_timeout_ms: 30_000,
            max_body_bytes: 10 * 1024 * 1024,
            max_ws_message_bytes: 16 * 1024 * 1024,
            max_watchers: 64,
            max_tabs: 512,
        }
    }
}

/// `[auth]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    pub require_key: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig { require_key: true }
    }
}

/// `[rate_limit]`: token buckets per key.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitConfig {
    pub actions_per_sec: u32,
    pub state_reads_per_sec: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            actions_per_sec: 10,
            state_reads_per_sec: 100,
        }
    }
}

/// `[dispatcher]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DispatcherConfig {
    /// Wait after an action before the first verification capture.
    pub post_action_wait_ms: u64,
    /// Interval between verification captures.
    pub poll_interval_ms: u64,
    pub verify_expression_max_bytes: usize,
    /// How long the page gets to answer a dispatched action.
    pub action_timeout_ms: u64,
    /// How long a fresh capture may take.
    pub capture_timeout_ms: u64,
    /// How long a request waits for another action on the same tab to finish.
    pub action_lock_timeout_ms: u64,
}

impl Default for DispatcherConfig {
    fn default() -> Self {
        DispatcherConfig {
            post_action_wait_ms: 200,
            poll_interval_ms: 250,
            verify_expression_max_bytes: 2048,
            action_timeout_ms: 30_000,
            capture_timeout_ms: 10_000,
            action_lock_timeout_ms: 30_000,
        }
    }
}

/// `[gate] ask_person`: whether a request refused only by a confidence floor is held
/// and put to the person at the browser instead (docs/safety.md, "Asking the person").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskPerson {
    BelowFloor,
    Never,
}

/// `[gate]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    /// Unset: `below_floor` when nspd runs against a headed browser, `never` for
    /// `--launch --headless` (nobody is there to ask).
    pub ask_person: Option<AskPerson>,
    /// How long a held action waits for the person's answer before 408
    /// `approval_timeout`.
    pub approval_timeout_ms: u64,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            ask_person: None,
            approval_timeout_ms: 60_000,
        }
    }
}

/// `[extension]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExtensionConfig {
    /// Extension ids allowed on the extension channel and as API origins.
    pub allowed_ids: Vec<String>,
}

impl Default for ExtensionConfig {
    fn default() -> Self {
        ExtensionConfig {
            allowed_ids: vec![nsp_protocol::EXTENSION_ID.to_owned()],
        }
    }
}

/// `[probe]`: how much of a page the probe reports, passed to the extension in the
/// channel's welcome. Larger values show more of long pages (row 600 of a table) at the
/// cost of larger captures; `GET /state?prefix=&limit=` reads parts of them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProbeConfig {
    /// Most keys one capture reports in `objects`.
    pub max_objects: u64,
    /// Most records one list contributes; the rest are counted in `<list>_total`.
    pub max_list_records: u64,
}

/// The probe's own defaults (`nsp_probe::Limits`), repeated here because the daemon does
/// not link the probe (a wasm crate). nspd always sends its values, so these are what a
/// browser gets when nspd.toml says nothing; keep them equal to the probe's.
pub const PROBE_MAX_OBJECTS: u64 = 1500;
pub const PROBE_MAX_LIST_RECORDS: u64 = 100;
/// The largest cap the probe accepts (`nsp_probe::MAX_OBJECTS_CEILING`).
pub const PROBE_CAP_CEILING: u64 = 100_000;

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            max_objects: PROBE_MAX_OBJECTS,
            max_list_records: PROBE_MAX_LIST_RECORDS,
        }
    }
}

/// `[mcp]`: the MCP front door (Streamable HTTP at `/mcp`), on a port of its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// Serve MCP at all.
    pub enabled: bool,
    /// Its port; 0 picks a free one (printed, and written to `<data dir>/mcp.url`).
    /// Unset: the API's port + 1 (7843), or a free one when the API's port is 0.
    pub port: Option<u16>,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            enabled: true,
            port: None,
        }
    }
}

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
    pub server: ServerConfig,
    pub auth: AuthConfig,
    pub rate_limit: RateLimitConfig,
    pub dispatcher: DispatcherConfig,
    pub extension: ExtensionConfig,
    pub probe: ProbeConfig,
    pub gate: GateConfig,
    pub mcp: McpConfig,
}

/// Everything the server needs, after all sources are applied.
#[derive(Debug, Clone)]
pub struct Settings {
    pub host: IpAddr,
    /// 0 picks a free port; the bound one is printed.
    pub port: u16,
    pub data_dir: PathBuf,
    pub allowed_extension_ids: Vec<String>,
    pub require_key: bool,
    pub max_body_bytes: usize,
    pub request_timeout: Duration,
    /// The route timeout of `POST /action` (docs/api.md: 120 s).
    pub action_route_timeout: Duration,
    pub action_timeout: Duration,
    pub capture_timeout: Duration,
    pub action_lock_timeout: Duration,
    pub post_action_wait: Duration,
    pub poll_interval: Duration,
    pub verify_expression_max_bytes: usize,
    pub max_ws_message_bytes: usize,
    pub max_watchers: usize,
    pub max_tabs: usize,
    pub actions_per_sec: u32,
    pub state_reads_per_sec: u32,
    /// Sent to the extension in the welcome, for every probe it runs.
    pub probe: nsp_protocol::channel::ProbeSettings,
    /// `[gate] ask_person`, resolved: `main` turns an unset value into `never` for a
    /// headless launch.
    pub ask_person: AskPerson,
    pub approval_timeout: Duration,
    /// Serve MCP (`[mcp] enabled`).
    pub mcp_enabled: bool,
    /// `[mcp] port` (or `--mcp-port`); see [`Settings::mcp_port`].
    pub mcp_port: Option<u16>,
}

impl Settings {
    /// Defaults only.
    pub fn new(data_dir: PathBuf) -> Settings {
        Settings::from_config(FileConfig::default(), data_dir)
    }

    pub fn from_config(c: FileConfig, data_dir: PathBuf) -> Settings {
        Settings {
            host: c.server.host,
            port: c.server.port,
            data_dir,
            allowed_extension_ids: c.extension.allowed_ids,
            require_key: c.auth.require_key,
            max_body_bytes: c.server.max_body_bytes,
            request_timeout: Duration::from_millis(c.server.request_timeout_ms),
            // The person's time to answer comes on top of the action's own budget.
            action_route_timeout: Duration::from_secs(120)
                + Duration::from_millis(c.gate.approval_timeout_ms),
            action_timeout: Duration::from_millis(c.dispatcher.action_timeout_ms),
            capture_timeout: Duration::from_millis(c.dispatcher.capture_timeout_ms),
            action_lock_timeout: Duration::from_millis(c.dispatcher.action_lock_timeout_ms),
            post_action_wait: Duration::from_millis(c.dispatcher.post_action_wait_ms),
            poll_interval: Duration::from_millis(c.dispatcher.poll_interval_ms),
            verify_expression_max_bytes: c.dispatcher.verify_expression_max_bytes,
            max_ws_message_bytes: c.server.max_ws_message_bytes,
            max_watchers: c.server.max_watchers,
            max_tabs: c.server.max_tabs,
            actions_per_sec: c.rate_limit.actions_per_sec,
            state_reads_per_sec: c.rate_limit.state_reads_per_sec,
            probe: nsp_protocol::channel::ProbeSettings {
                max_objects: c.probe.max_objects,
                max_list_records: c.probe.max_list_records,
            },
            ask_person: c.gate.ask_person.unwrap_or(AskPerson::BelowFloor),
            approval_timeout: Duration::from_millis(c.gate.approval_timeout_ms),
            mcp_enabled: c.mcp.enabled,
            mcp_port: c.mcp.port,
        }
    }

    /// The port MCP listens on, or `None` when it is off: `[mcp] port` if set, else the
    /// API's port + 1, else (API port 0, as in tests) a free one.
    pub fn mcp_port(&self) -> Option<u16> {
        if !self.mcp_enabled {
            return None;
        }
        Some(self.mcp_port.unwrap_or(if self.port == 0 {
            0
        } else {
            self.port.saturating_add(1)
        }))
    }
}

const SECTIONS: &[&str] = &[
    "server",
    "auth",
    "rate_limit",
    "dispatcher",
    "extension",
    "probe",
    "gate",
    "mcp",
];

/// Loads the file (if `path` exists or was given explicitly) and applies the
/// environment overrides from `env`.
pub fn load(
    path: &Path,
    explicit: bool,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<FileConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => String::new(),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    // Deserialising the text itself (not a parsed table) keeps spans, so errors name
    // the line and column.
    let file_error = |e: toml::de::Error| ConfigError::File {
        path: path.to_owned(),
        message: describe_toml_error(&e, &text),
    };
    toml::from_str::<FileConfig>(&text).map_err(file_error)?;
    let mut table = text.parse::<toml::Table>().map_err(file_error)?;
    let mut env_vars: Vec<(String, String)> = env
        .into_iter()
        .filter(|(k, _)| k.starts_with("NSP_") && k.contains("__"))
        .collect();
    env_vars.sort();
    for (var, raw) in &env_vars {
        apply_env(&mut table, var, raw)?;
        // Check each override on its own so the error names the variable.
        table
            .clone()
            .try_into::<FileConfig>()
            .map_err(|e| ConfigError::Env {
                var: var.clone(),
                message: one_line(&e.to_string()),
            })?;
    }
    let config: FileConfig = table
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::Invalid(one_line(&e.to_string())))?;
    validate(&config)?;
    Ok(config)
}

fn apply_env(table: &mut toml::Table, var: &str, raw: &str) -> Result<(), ConfigError> {
    let rest = &var["NSP_".len()..];
    let (section, key) = rest.split_once("__").ok_or_else(|| ConfigError::Env {
        var: var.to_owned(),
        message: "expected NSP_<SECTION>__<KEY>".into(),
    })?;
    let section = section.to_ascii_lowercase();
    let key = key.to_ascii_lowercase();
    if !SECTIONS.contains(&section.as_str()) {
        return Err(ConfigError::Env {
            var: var.to_owned(),
            message: format!(
                "unknown section {section:?}; known: {}",
                SECTIONS.join(", ")
            ),
        });
    }
    // The value is TOML (`7843`, `true`, `["a", "b"]`); a bare word is a string.
    let value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()));
    let entry = table
        .entry(section.clone())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    match entry {
        toml::Value::Table(t) => {
            t.insert(key, value);
            Ok(())
        }
        _ => Err(ConfigError::Env {
            var: var.to_owned(),
            message: format!("[{section}] in the config file is not a table"),
        }),
    }
}

fn validate(c: &FileConfig) -> Result<(), ConfigError> {
    let bad = |m: String| Err(ConfigError::Invalid(m));
    if !c.server.host.is_loopback() {
        return bad(format!(
            "server.host = {} is not a loopback address; nspd binds 127.0.0.1 or ::1 only",
            c.server.host
        ));
    }
    if c.rate_limit.actions_per_sec == 0 || c.rate_limit.state_reads_per_sec == 0 {
        return bad("rate_limit values must be at least 1 per second".into());
    }
    if c.dispatcher.poll_interval_ms == 0 {
        return bad("dispatcher.poll_interval_ms must be at least 1".into());
    }
    if !(16..=65_536).contains(&c.dispatcher.verify_expression_max_bytes) {
        return bad("dispatcher.verify_expression_max_bytes must be between 16 and 65536".into());
    }
    for (name, value) in [
        ("probe.max_objects", c.probe.max_objects),
        ("probe.max_list_records", c.probe.max_list_records),
    ] {
        if !(1..=PROBE_CAP_CEILING).contains(&value) {
            return bad(format!(
                "{name} = {value} is out of range; it must be between 1 and {PROBE_CAP_CEILING}"
            ));
        }
    }
    if !(100..=600_000).contains(&c.gate.approval_timeout_ms) {
        return bad("gate.approval_timeout_ms must be between 100 and 600000".into());
    }
    if c.server.max_body_bytes < 1024 {
        return bad("server.max_body_bytes must be at least 1024".into());
    }
    if c.extension
        .allowed_ids
        .iter()
        .any(|id| id.len() != 32 || !id.bytes().all(|b| (b'a'..=b'p').contains(&b)))
    {
        return bad(
            "extension.allowed_ids entries must be 32-letter Chrome extension ids (a..p)".into(),
        );
    }
    Ok(())
}

/// "line N, column M: <what toml said>".
fn describe_toml_error(e: &toml::de::Error, text: &str) -> String {
    let message = one_line(e.message());
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let column = before.len() - line_start + 1;
            let line_text = text[line_start..].lines().next().unwrap_or("").trim();
            format!("line {line}, column {column} (`{line_text}`): {message}")
        }
        None => message,
    }
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The default data dir: `$NSP_DATA_DIR`, else `$XDG_DATA_HOME/nspd`, else
/// `~/.local/share/nspd`.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NSP_DATA_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME") {
        return PathBuf::from(dir).join("nspd");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".local/share/nspd")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(text: &str, env: &[(&str, &str)]) -> Result<FileConfig, ConfigError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nspd.toml");
        std::fs::write(&path, text).expect("write");
        load(
            &path,
            true,
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        )
    }

    #[test]
    fn defaults_without_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let c = load(&dir.path().join("absent.toml"), false, Vec::new()).expect("defaults");
        assert_eq!(c.server.port, 7842);
        assert_eq!(c.dispatcher.post_action_wait_ms, 200);
        assert_eq!(c.dispatcher.verify_expression_max_bytes, 2048);
        assert!(c.auth.require_key);
    }

    #[test]
    fn the_gate_section_sets_asking_the_person() {
        let c = load_str("", &[]).expect("defaults");
        assert_eq!(c.gate.ask_person, None);
        let s = Settings::from_config(c, PathBuf::from("/tmp/x"));
        assert_eq!(s.ask_person, AskPerson::BelowFloor);
        assert_eq!(s.approval_timeout, Duration::from_secs(60));
        let c = load_str(
            "[gate]\nask_person = \"never\"\napproval_timeout_ms = 500\n",
            &[],
        )
        .expect("gate");
        assert_eq!(c.gate.ask_person, Some(AskPerson::Never));
        assert_eq!(c.gate.approval_timeout_ms, 500);
        let err = load_str("[gate]\nask_person = \"sometimes\"\n", &[]).expect_err("bad");
        assert!(err.to_string().contains("ask_person"), "{err}");
        let err = load_str("[gate]\napproval_timeout_ms = 5\n", &[]).expect_err("bad");
        assert!(err.to_string().contains("approval_timeout_ms"), "{err}");
    }

    #[test]
    fn an_explicit_missing_file_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = load(&dir.path().join("absent.toml"), true, Vec::new()).expect_err("must fail");
        assert!(err.to_string().contains("absent.toml"), "{err}");
    }

    #[test]
    fn file_values_and_env_overrides_apply_in_order() {
        let c = load_str(
            "[server]\nport = 9000\n[dispatcher]\npoll_interval_ms = 50\n",
            &[
                ("NSP_SERVER__PORT", "9100"),
                ("NSP_RATE_LIMIT__ACTIONS_PER_SEC", "3"),
            ],
        )
        .expect("config");
        assert_eq!(c.server.port, 9100);
        assert_eq!(c.dispatcher.poll_interval_ms, 50);
        assert_eq!(c.rate_limit.actions_per_sec, 3);
    }

    #[test]
    fn an_unknown_key_in_the_file_names_key_and_line() {
        let err = load_str("[server]\nport = 9000\nprot = 1\n", &[]).expect_err("must fail");
        let text = err.to_string();
        assert!(text.contains("prot"), "{text}");
        assert!(text.contains("line 3"), "{text}");
    }

    #[test]
    fn a_wrong_type_names_the_key() {
        let err = load_str("[server]\nport = \"high\"\n", &[]).expect_err("must fail");
        assert!(err.to_string().contains("port"), "{err}");
    }

    #[test]
    fn a_bad_env_override_names_the_variable() {
        let err = load_str("", &[("NSP_SERVER__PORT", "abc")]).expect_err("must fail");
        assert!(err.to_string().contains("NSP_SERVER__PORT"), "{err}");
        let err = load_str("", &[("NSP_SERVR__PORT", "1")]).expect_err("must fail");
        assert!(err.to_string().contains("NSP_SERVR__PORT"), "{err}");
        let err = load_str("", &[("NSP_SERVER__PROT", "1")]).expect_err("must fail");
        assert!(err.to_string().contains("NSP_SERVER__PROT"), "{err}");
    }

    #[test]
    fn probe_caps_come_from_the_file_and_env_and_are_bounded() {
        let c = load_str(
            "[probe]\nmax_objects = 20000\n",
            &[("NSP_PROBE__MAX_LIST_RECORDS", "1000")],
        )
        .expect("config");
        let s = Settings::from_config(c, PathBuf::from("."));
        assert_eq!(s.probe.max_objects, 20_000);
        assert_eq!(s.probe.max_list_records, 1000);
        let d = Settings::new(PathBuf::from("."));
        assert_eq!(d.probe.max_objects, PROBE_MAX_OBJECTS);
        let err = load_str("[probe]\nmax_objects = 0\n", &[]).expect_err("must fail");
        assert!(err.to_string().contains("probe.max_objects"), "{err}");
        let err = load_str("[probe]\nmax_list_records = 100001\n", &[]).expect_err("must fail");
        assert!(err.to_string().contains("between 1 and 100000"), "{err}");
    }

    #[test]
    fn a_non_loopback_host_is_refused() {
        let err = load_str("[server]\nhost = \"0.0.0.0\"\n", &[]).expect_err("must fail");
        assert!(err.to_string().contains("loopback"), "{err}");
    }
}
