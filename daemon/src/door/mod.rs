//! The doors: each translates its wire into calls of the [`crate::core`] and the core's
//! domain errors into its own encoding. Status codes are chosen here, never in the core.
//!
//! - [`http`]: the agent HTTP API (NSP v1), its route table, OpenAPI and `/watch`;
//! - [`mcp`]: the MCP server (streamable HTTP) and the stdio bridge;
//! - [`channel`]: the extension's WebSocket.

pub mod channel;
pub mod http;
pub mod mcp;
