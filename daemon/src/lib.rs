//! nspd as a library: the daemon that sits between agents (HTTP, NSP v1) and the
//! browser extension (one WebSocket per browser).
//!
//! The binary in `main.rs` only parses the command line and calls into here; tests
//! start the same [`server::Server`] in-process or run the binary.

pub mod core;
pub mod door;
pub mod launch;
pub mod server;

/// The daemon's version, as `/health` reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
