//! Pieces both the CLI and the daemon need: paths, configuration, errors, breakpoint locations.

pub mod config;
pub mod elf;
pub mod error;
pub mod location;
pub mod paths;
pub mod scratch;
pub mod timeline;
