//! `debugger`: a command-line debugger whose short-lived CLI calls talk to a per-session daemon
//! that drives a real debug adapter over the Debug Adapter Protocol.

pub mod adapters;
pub mod cli;
pub mod commands;
pub mod common;
pub mod daemon;
pub mod dap;
pub mod ipc;
pub mod mcp;
pub mod platform;
