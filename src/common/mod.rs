//! Pieces both the CLI and the daemon need: paths, configuration, errors, breakpoint locations,
//! the checks on files the user names, and reading the JSON other programs write.

pub mod config;
pub mod debug_info;
pub mod elf;
pub mod error;
pub mod escape;
pub mod frame_prefix;
pub mod location;
pub mod paths;
pub mod peer_json;
pub mod scratch;
pub mod source_snippet;
pub mod timeline;
pub mod user_files;
