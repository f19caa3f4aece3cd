//! What tells a Go program that `start` was given without `--adapter`: a folder holding a Go
//! package, or a native executable carrying Go's build info.

use std::path::Path;

use crate::common::user_files;

/// Whether the folder `path` holds Go sources: a package Delve builds and runs.
pub fn is_package_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "go"))
    })
}

/// Go binaries carry a build-info blob that starts with this magic (`go version -m` reads it).
pub const GO_BUILD_INFO_MAGIC: &[u8] = b"\xff Go buildinf:";

/// Whether `path` is a Go binary: its build-info header is the magic at a 16-byte boundary (the
/// Go linker aligns it so), followed by the pointer size (4 or 8) and a flags byte with only its
/// two low bits in use. Any program that looks for Go binaries holds the magic as a constant,
/// ours included; the header around it is what tells the real one.
pub fn carries_go_build_info(path: &Path) -> bool {
    // The blob sits in its own section near the start of the data; scan a bounded prefix.
    let bytes = user_files::read_head(path, 64 * 1024 * 1024);
    let header = GO_BUILD_INFO_MAGIC.len() + 2;
    (0..bytes.len().saturating_sub(header))
        .step_by(16)
        .any(|at| {
            bytes[at..].starts_with(GO_BUILD_INFO_MAGIC)
                && matches!(bytes[at + GO_BUILD_INFO_MAGIC.len()], 4 | 8)
                && bytes[at + GO_BUILD_INFO_MAGIC.len() + 1] & !0b11 == 0
        })
}
