//! Pieces both the CLI and the daemon need: paths, configuration, errors, breakpoint locations,
//! and the checks on files the user names.

pub mod config;
pub mod elf;
pub mod error;
pub mod location;
pub mod paths;
pub mod scratch;
pub mod timeline;
pub mod user_files;
