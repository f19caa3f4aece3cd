//! The suite's rows: every built-in adapter, with each language it debugs, and what the suite
//! needs to know of it that the binary does not say. A new adapter joins with a row here and a
//! program under `tests/fixtures/conformance/`.

use super::Feature;
use super::programs::Language;
use crate::common::Session;

/// One adapter on one language.
pub struct Row {
    /// Its name in the suite's table and failures.
    pub name: &'static str,
    /// `--adapter`.
    pub adapter: &'static str,
    pub language: Language,
    /// A new session able to run it (GDB's needs its path in the config).
    pub session: fn() -> Session,
    /// `apply`'s name for a function breakpoint.
    pub apply: &'static str,
    /// What mode `raise` stops with: `exception`, or `signal` where it is an `abort()`.
    pub raise_reason: &'static str,
    /// The exit code mode `raise` ends with, `None` when a signal kills it.
    pub raise_exit: Option<i64>,
    /// The features it does not have: each must be refused as `unsupported`.
    pub lacks: &'static [Feature],
    /// Features that fail on it, each with why: the check must still fail, so that a fix
    /// shows as a failure telling to take the entry out.
    pub known_bugs: &'static [(Feature, &'static str)],
}

pub static LLDB_C: Row = Row {
    name: "lldb-dap (C)",
    adapter: "lldb",
    language: Language::C,
    session: Session::new,
    apply: "apply",
    raise_reason: "signal",
    raise_exit: None,
    lacks: &[],
    known_bugs: &[],
};

pub static LLDB_RUST: Row = Row {
    name: "lldb-dap (Rust)",
    adapter: "lldb",
    language: Language::Rust,
    session: Session::new,
    apply: "conformance_rs::apply",
    raise_reason: "signal",
    raise_exit: None,
    lacks: &[],
    known_bugs: &[
        (
            Feature::HitCount,
            "a line breakpoint on `println!` stops at each of the line's locations: 3 hits \
             per pass, so `--hit-count 2` stops in the first pass",
        ),
        (
            Feature::Logpoint,
            "a logpoint on a `println!` line logs once per location: 3 lines per pass",
        ),
        (
            Feature::Set,
            "`set amount 10` on a scalar argument reads back 10, but the program goes on \
             with 3: rustc's debug build computes with the argument's register and spills a \
             copy for the debugger only",
        ),
    ],
};

pub static GDB_C: Row = Row {
    name: "GDB (C)",
    adapter: "gdb",
    language: Language::C,
    session: Session::with_gdb,
    apply: "apply",
    raise_reason: "signal",
    raise_exit: None,
    lacks: &[],
    known_bugs: &[],
};

pub static DEBUGPY: Row = Row {
    name: "debugpy (Python)",
    adapter: "debugpy",
    language: Language::Python,
    // debugpy attaches to a pid through GDB, and Debian 12's own GDB 13 cannot inject on every
    // kernel: the session names the one the test set-up fetched.
    session: Session::with_gdb,
    apply: "apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    lacks: &[Feature::Core],
    known_bugs: &[],
};

pub static PDB: Row = Row {
    name: "pdb (Python)",
    adapter: "pdb",
    language: Language::Python,
    session: Session::new,
    apply: "apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    lacks: &[Feature::Core, Feature::Attach],
    known_bugs: &[],
};

pub static DELVE: Row = Row {
    name: "Delve (Go)",
    adapter: "delve",
    language: Language::Go,
    session: Session::new,
    apply: "main.apply",
    raise_reason: "exception",
    raise_exit: Some(2),
    lacks: &[],
    known_bugs: &[(
        Feature::Set,
        "Delve 1.27.2 on Go 1.26 answers `setVariable` and reads the new value back, but the \
         program computes with the old one (Delve's own `set` does the same)",
    )],
};

pub static NODE_JS: Row = Row {
    name: "node (JavaScript)",
    adapter: "node",
    language: Language::JavaScript,
    session: Session::new,
    apply: "apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    lacks: &[Feature::Core],
    known_bugs: &[],
};

pub static NODE_TS: Row = Row {
    name: "node (TypeScript)",
    adapter: "node",
    language: Language::TypeScript,
    session: Session::new,
    apply: "apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    lacks: &[Feature::Core],
    known_bugs: &[],
};

pub static JAVA: Row = Row {
    name: "java (Java)",
    adapter: "java",
    language: Language::Java,
    session: Session::new,
    apply: "Conformance.apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    lacks: &[Feature::Core],
    known_bugs: &[],
};

/// Kotlin on the same adapter: a Maven project built by Maven's kotlin plugin into a runnable
/// jar, started as `start target/conformance-1.jar`.
pub static KOTLIN: Row = Row {
    name: "java (Kotlin)",
    adapter: "java",
    language: Language::Kotlin,
    session: Session::new,
    // The top-level `fun apply` of `Conformance.kt`, by its bare name.
    apply: "apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    // The JVM writes no core dumps of its own.
    lacks: &[Feature::Core],
    known_bugs: &[],
};

/// PHP on our own DBGp server, which Xdebug dials in to.
pub static XDEBUG: Row = Row {
    name: "xdebug (PHP)",
    adapter: "xdebug",
    language: Language::Php,
    session: Session::new,
    apply: "apply",
    raise_reason: "exception",
    // PHP's exit code for a fatal error.
    raise_exit: Some(255),
    // PHP writes no core dumps of its own; Xdebug dials out only from a script started with
    // `start_with_request`, so a running PHP cannot be attached to.
    lacks: &[Feature::Core, Feature::Attach],
    known_bugs: &[],
};

/// Ruby through the debug gem's DAP server, inside the program's own Ruby.
pub static RDBG: Row = Row {
    name: "rdbg (Ruby)",
    adapter: "rdbg",
    language: Language::Ruby,
    session: Session::new,
    apply: "Object#apply",
    raise_reason: "exception",
    raise_exit: Some(1),
    // Ruby writes no core dumps of its own.
    lacks: &[Feature::Core],
    known_bugs: &[
        (
            Feature::Set,
            "debug 1.4.0 has no `setVariable`: `set` is refused as unsupported (`print 'x = 10'` \
             assigns)",
        ),
        (
            Feature::Test,
            "debugger test knows no Ruby test runner yet (minitest, RSpec)",
        ),
    ],
};

/// Fails the test, with what to install, when the row's adapter or its language's tools are
/// missing.
pub fn require(row: &Row) {
    use crate::common;
    match row.adapter {
        "lldb" => common::require_lldb_dap(),
        "gdb" => {
            common::require_gdb();
        }
        "debugpy" => common::require_debugpy(),
        "pdb" => common::require_python(),
        "delve" => common::require_delve(),
        "java" => {
            common::require_jdk();
        }
        "xdebug" => common::require_php(),
        "rdbg" => common::require_ruby(),
        _ => common::require_node(),
    }
}
