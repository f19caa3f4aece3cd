//! The Debug Adapter Protocol: wire codec, message types, and the client.

pub mod base64;
pub mod client;
pub mod codec;
pub mod decode;
pub mod events;
pub mod reader;
pub mod requests;
pub mod types;

pub use client::{DapClient, DapError, PendingRequest, TypedPending};
