//! nspd as a library: the daemon that sits between agents (HTTP, NSP v1) and the
//! browser extension (one WebSocket per browser).
//!
//! The binary in `main.rs` only parses the command line and calls into here; tests
//! start the same [`server::Server`] in-process or run the binary.

pub mod api;
pub mod app;
pub mod approvals;
pub mod audit;
pub mod auth;
pub mod channel;
pub mod codes;
pub mod config;
pub mod corrections;
pub mod error;
pub mod gate;
pub mod http;
pub mod hub;
pub mod idempotency;
pub mod launch;
pub mod learn;
pub mod mcp;
pub mod mcp_stdio;
pub mod openapi;
pub mod pipeline;
pub mod ratelimit;
pub mod route;
pub mod server;
pub mod tab_ops;
pub mod util;
pub mod verification;
pub mod watch;

/// The daemon's version, as `/health` reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
