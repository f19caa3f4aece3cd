//! How an adapter opens a core dump, and how it writes one of a stopped program: each adapter
//! has its own way (lldb-dap's `attach` with `coreFile`, Delve's `launch` in `core` mode, GDB's
//! console, since GDB 16's DAP `attach` takes only a pid or a remote target).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Which adapters open core dumps, for the hint of one that cannot.
pub const CORE_OPENING_HINT: &str =
    "use --adapter lldb or --adapter gdb (C, C++, Rust), or --adapter delve (Go)";

/// Which adapters write core files, for the hint of one that cannot.
pub const CORE_SAVING_HINT: &str = "drop --core-dir, or use --adapter lldb or --adapter gdb";

/// How an adapter opens a core dump.
pub enum CoreOpening {
    /// A `launch` or `attach` request, in the usual configuration sequence; the adapter then
    /// reports the crash as a stop.
    Request {
        command: &'static str,
        arguments: Value,
    },
    /// Console commands (DAP `evaluate`, `repl` context) run once the adapter is initialised,
    /// with no `launch`, `attach` or `configurationDone`. The adapter reports no stop: the
    /// crashed thread is the value of `thread_expression` (a `watch` evaluation).
    Console {
        commands: Vec<String>,
        thread_expression: &'static str,
    },
}

/// How an adapter writes a core of the program it holds stopped: the console command, and the
/// file it writes.
pub struct CoreSaving {
    pub command: String,
    pub path: PathBuf,
}

/// `DIR/STEM.EXTENSION`, the file a core is saved to.
pub(crate) fn saved_core_path(dir: &Path, stem: &str, extension: &str) -> PathBuf {
    dir.join(format!("{stem}.{extension}"))
}

/// A path as GDB's command line reads one argument: whitespace, quotes and backslashes escaped
/// by a backslash (what GDB's own DAP does for `program`).
pub(crate) fn gdb_argument(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if c.is_whitespace() || matches!(c, '\'' | '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gdb_arguments_escape_what_its_parser_splits_on() {
        assert_eq!(
            gdb_argument(Path::new("/tmp/a b/it's\\x")),
            "/tmp/a\\ b/it\\'s\\\\x"
        );
    }
}
