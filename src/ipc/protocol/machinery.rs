//! Which frames of a stack are the runtime's own machinery rather than the program's: the
//! mark a frame carries, and how a folded run of them is named. Which frames those are is each
//! language's knowledge, kept with its adapter (`adapters::runtime_frames`), as are their names.

use serde::{Deserialize, Serialize};

/// Whose machinery a frame is: code a runtime runs around the program's, which a reader skips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Machinery {
    /// Rust's standard library: `core::ops::function` shims, `std::rt`, `std::panicking`.
    RustStd,
    /// The C library's start-up and thread entry (`_start`, `__libc_start_main`, `start_thread`).
    CRuntime,
    /// Python's module running and importing (`runpy`, `importlib._bootstrap`).
    PythonRuntime,
    /// Node's own JavaScript (`node:internal/…`: the module loader, the main entry).
    NodeInternals,
    /// Go's runtime (`runtime.main`, `runtime.goexit`).
    GoRuntime,
    /// The JDK's own classes (`java.*`, `jdk.*`, `sun.*`: reflection, method handles and lambda
    /// forms, the source launcher, thread pools) and the JVM's hidden lambda classes.
    JvmRuntime,
}
