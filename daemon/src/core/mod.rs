//! The core: what nspd decides and remembers, whichever door a request came through.
//! It knows nothing of HTTP, MCP or WebSockets (no hyper, rmcp or tungstenite here; the
//! layering test `xtask/tests/layers.rs` fails on any) and returns domain errors
//! ([`error::CoreError`]); each door encodes them its own way.

pub mod access;
pub mod agents;
pub mod app;
pub mod approvals;
pub mod audit;
pub mod auth;
pub mod codes;
pub mod config;
pub mod corrections;
pub mod crew;
pub mod error;
pub mod filestore;
pub mod gate;
pub mod hub;
pub mod idempotency;
pub mod learn;
pub mod leases;
pub mod lock;
pub mod model_view;
pub mod owners;
pub mod pipeline;
pub mod ratelimit;
pub mod request;
pub mod tab_ops;
pub mod util;
pub mod verification;
