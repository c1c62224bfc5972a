//! Wire types shared by the probe, the extension channel and the agent API.
//!
//! This crate is the only place that defines what crosses a process or language
//! boundary. It knows nothing about sockets, DOMs or time: it builds for native and
//! for `wasm32-unknown-unknown` with serde alone, so the probe and the daemon agree on
//! every field by construction.

pub mod api;
pub mod approval;
pub mod builtins;
pub mod channel;
pub mod contract;
pub mod reserved;
pub mod secrets;
pub mod snapshot;
pub mod state;

pub use state::{
    round_confidence, ActionExplain, ActionParameter, ActionSchema, Context, ExplainElement,
    PageCapture, ProbeMetadata, ProbeStatus, ProbeTier, Reversibility, SubstrateState,
};

/// Version of the state schema (`SubstrateState.schema_version`). Bump the minor on
/// additive changes, the major when a field changes meaning.
pub const SCHEMA_VERSION: &str = "1.0.0";

/// The port nspd listens on unless configured otherwise, and the one the extension
/// connects to unless told otherwise.
pub const DEFAULT_PORT: u16 = 7842;

/// Path of the extension channel, relative to the daemon's origin.
pub const EXTENSION_CHANNEL_PATH: &str = "/substrate/v1/extension";

/// Version of the extension channel protocol. The daemon refuses a `hello` that carries
/// another major.
pub const CHANNEL_VERSION: u32 = 2;

/// The id Chrome gives our extension, fixed by the `key` in `extension/manifest.json`
/// (first 128 bits of SHA-256 of the public key, hex digits mapped to `a`..`p`). A test
/// recomputes it from the manifest so the two cannot drift apart.
pub const EXTENSION_ID: &str = "cbgfhlkmcpoikadbmijahdfhmdjnmmol";
