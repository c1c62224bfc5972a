//! The daemon's settings. Every setting has a sane default.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Everything the server needs to run, after the command line (and later the config
/// file) have been applied.
#[derive(Debug, Clone)]
pub struct Settings {
    pub host: IpAddr,
    /// 0 picks a free port; the bound one is printed.
    pub port: u16,
    pub data_dir: PathBuf,
    /// Allowed extension ids on the extension channel (`Origin: chrome-extension://<id>`).
    pub allowed_extension_ids: Vec<String>,
    pub require_key: bool,
    pub max_body_bytes: usize,
    /// How long the page gets to answer a dispatched action.
    pub action_timeout: Duration,
    /// How long a `fresh=true` capture may take.
    pub capture_timeout: Duration,
    /// Largest WebSocket message accepted on the extension channel.
    pub max_ws_message_bytes: usize,
}

impl Settings {
    pub fn new(data_dir: PathBuf) -> Settings {
        Settings {
            host: IpAddr::from([127, 0, 0, 1]),
            port: 7842,
            data_dir,
            allowed_extension_ids: vec![nsp_protocol::EXTENSION_ID.to_owned()],
            require_key: true,
            max_body_bytes: 10 * 1024 * 1024,
            action_timeout: Duration::from_secs(30),
            capture_timeout: Duration::from_secs(10),
            max_ws_message_bytes: 16 * 1024 * 1024,
        }
    }
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
