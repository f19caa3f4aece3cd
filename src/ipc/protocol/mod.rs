//! The messages the CLI and the daemon exchange, and the typed results commands return.
//!
//! A [`Request`] carries one [`Command`]; the daemon answers with one [`Response`] whose result is
//! the command's result serialised as JSON, or an [`ErrorBody`]. The result structs here are also
//! the `data` of the CLI's `--json` output, so their field names are a public contract
//! (docs/json.md): add fields freely, never rename.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::error::ErrorBody;
use crate::common::location::Location;

mod crash;
mod display;
mod language_options;
mod machinery;
mod probe;
mod results;
mod state;
mod stop_reason;
mod unloaded;

// The results keep their paths (`protocol::StopReport`): every command and the daemon name them.
pub use crash::*;
pub use display::*;
pub use language_options::*;
pub use machinery::*;
pub use probe::*;
pub use results::*;
pub use state::*;
pub use stop_reason::*;
pub use unloaded::*;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub command: Command,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Response {
    pub id: u64,
    pub result: Result<Value, ErrorBody>,
}

/// The children of one value (or the locals of one frame) shown unless `--children` says more:
/// the daemon's cap, and the count past which a front door's hint names the flag.
pub const CHILDREN_SHOWN: u64 = 32;

/// Everything the CLI can ask of a daemon.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    Start {
        spec: Box<LaunchSpec>,
        /// How long to wait for the program's first stop or end, to answer with it (`None`:
        /// answer at once, without looking).
        #[serde(default)]
        first_stop: Option<WaitSpec>,
    },
    Attach(AttachSpec),
    /// Opens a core dump (`debugger core`): a session on a process that has already died.
    Core(CoreSpec),
    Status,
    /// What `sessions` lists of this daemon: its status, or, with no session, its warm adapter.
    Listing,
    /// A `probe` borrows the daemon's warm adapter of this kind and executable: answered with a
    /// [`LendResult`], after which the connection carries the adapter's DAP stream both ways,
    /// raw, until either side closes it; then the daemon ends that adapter and warms another.
    Lend {
        adapter: String,
        executable: std::path::PathBuf,
        /// Where and how the probe's program starts, for an adapter whose warm form is the
        /// program's own process ([`ProcessContext`]).
        #[serde(default)]
        context: Option<ProcessContext>,
    },
    /// Keep a warm adapter of this kind (a `probe` that found none asks for one for the next),
    /// run from `executable` (the probe's, found in its environment, which may not be the
    /// daemon's), prepared in `context` for an adapter whose warm form is the program's own
    /// process.
    Warm {
        adapter: String,
        #[serde(default)]
        executable: Option<std::path::PathBuf>,
        #[serde(default)]
        context: Option<ProcessContext>,
    },
    Stop,
    Detach,
    /// Ties the session to this connection (MCP's `end_with_client`): answered at once, after
    /// which the daemon only watches the connection, and when it closes, however its client
    /// ended (a SIGKILL included), ends the session as `stop` does (`detach`: as `detach` does).
    /// A session started anew on the name since is left alone.
    Tether {
        detach: bool,
    },
    /// Runs the program again; `first_stop` as for `Start`.
    Restart {
        #[serde(default)]
        first_stop: Option<WaitSpec>,
    },
    BreakpointAdd(BreakpointSpec),
    /// Several at once (`breakpoint add LOC LOC...`): each file's list goes to the adapter once.
    BreakpointAddMany {
        specs: Vec<BreakpointSpec>,
    },
    BreakpointRemove {
        ids: Vec<u32>,
        all: bool,
    },
    /// `breakpoint modify`: change breakpoints in place, keeping their ids.
    BreakpointModify {
        ids: Vec<u32>,
        change: BreakpointChange,
    },
    BreakpointList,
    BreakpointEnable {
        ids: Vec<u32>,
        enabled: bool,
    },
    /// `continue`, `next`, `step`, `finish`.
    Resume {
        action: ResumeAction,
        wait: Option<WaitSpec>,
    },
    Pause {
        wait: Option<WaitSpec>,
    },
    Await(WaitSpec),
    Context,
    Backtrace {
        limit: u32,
        thread: Option<i64>,
    },
    /// Every thread's stack, the selected thread's first.
    BacktraceAll {
        limit: u32,
    },
    Threads,
    SelectThread {
        id: i64,
    },
    SelectFrame(FrameSelection),
    Locals {
        depth: u32,
        /// Values whole, not cut at a line's worth.
        #[serde(default)]
        full: bool,
        /// Only the values that changed since the frame's previous stop.
        #[serde(default)]
        changed: bool,
        /// How many locals, and children of each value, are shown (`None`: [`CHILDREN_SHOWN`]).
        #[serde(default)]
        children: Option<u64>,
    },
    Evaluate {
        expression: String,
        depth: u32,
        /// How many children of each value are shown (`None`: [`CHILDREN_SHOWN`]).
        #[serde(default)]
        children: Option<u64>,
        /// How long the evaluation may run; `None`: the config's `[timeouts] evaluate_secs`.
        #[serde(default)]
        timeout_secs: Option<f64>,
    },
    /// `display EXPR`: evaluate `expression` at every stop of the session from now on.
    DisplayAdd {
        expression: String,
    },
    /// `display`: the session's displays.
    DisplayList,
    /// `display --remove N`.
    DisplayRemove {
        id: u32,
    },
    OutputRead(OutputQuery),
    /// Text for the adapter's own console (DAP `evaluate` in the `repl` context).
    Raw {
        text: String,
        /// How long the text may run in the program, as `Evaluate`'s.
        #[serde(default)]
        timeout_secs: Option<f64>,
    },
    /// Changes a variable (or any assignable expression) in the selected frame.
    SetVariable {
        name: String,
        value: String,
    },
    /// Lists the adapter's exception filters; with `filters`, sets exactly those.
    Catch {
        filters: Option<Vec<String>>,
    },
    /// Reads `count` bytes at an address, or where an expression's value points.
    MemoryRead {
        target: String,
        count: u32,
    },
    /// Disassembles `count` instructions around the selected frame's pc (`target` `None`), or
    /// from an address or expression.
    Disassemble {
        target: Option<String>,
        count: u32,
    },
}

/// The bytes `memory read` reads when not told.
pub const MEMORY_READ_DEFAULT: u32 = 64;
/// The most bytes one `memory read` may ask for: a hexdump longer than this is no longer read.
pub const MEMORY_READ_MAX: u32 = 64 * 1024;
/// The instructions `disassemble` shows when not told.
pub const DISASSEMBLE_DEFAULT: u32 = 16;
/// The most instructions one `disassemble` may ask for.
pub const DISASSEMBLE_MAX: u32 = 1000;

/// How to launch a program. The CLI fills in its own working directory and environment, so the
/// debuggee runs where and how the user would have run it, not where the daemon happens to be.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// Absolute path (resolved by the CLI against its own working directory).
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// The complete environment of the debuggee.
    pub env: Vec<(String, String)>,
    pub adapter: Option<String>,
    pub stop_on_entry: bool,
    pub breakpoints: Vec<BreakpointSpec>,
    /// Talk to an adapter already listening at HOST:PORT instead of starting one.
    #[serde(default)]
    pub connect: Option<String>,
    /// Give the program a terminal for its stdout and stderr (`start --tty`).
    #[serde(default)]
    pub tty: bool,
    /// A file the program reads as its stdin (`start --stdin`); none: the null device.
    #[serde(default)]
    pub stdin: Option<PathBuf>,
    /// What only one language's adapters read (Python's `-m MODULE`, ...).
    #[serde(default)]
    pub options: LanguageOptions,
    /// The program is a test run (`debugger test`, `probe --test`), with how it is one.
    #[serde(default)]
    pub test: Option<Box<TestLaunch>>,
}

/// The folder and environment a launched program's process starts in: what an adapter that is
/// the program's own process (pdb) must have before the program is known, so that a warm one
/// (started ahead, for the next launch) serves only a launch that starts the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessContext {
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// For an adapter kept launched (debugpy): the whole `launch` request's arguments, as its
    /// adapter and the config's extra fields make them for the launch without its breakpoints,
    /// less the process tree's tag (`kept_launch.rs` in the daemon's session). A kept launch
    /// serves only a launch whose arguments are these.
    #[serde(default)]
    pub launch: Option<serde_json::Value>,
}

impl ProcessContext {
    /// Where and how `spec`'s program starts.
    pub fn of(spec: &LaunchSpec) -> ProcessContext {
        ProcessContext {
            cwd: spec.cwd.clone(),
            env: spec.env.clone(),
            launch: None,
        }
    }

    /// Whether a process started in `self` starts as one started in `other` would: the same
    /// folder and environment, but for the variable named `ignored` (the process tree's tag,
    /// which says whose clean-up ends it, and which the launch itself sets).
    pub fn starts_like(&self, other: &ProcessContext, ignored: &str) -> bool {
        let sorted = |env: &[(String, String)]| {
            let mut kept: Vec<(String, String)> = env
                .iter()
                .filter(|(key, _)| key != ignored)
                .cloned()
                .collect();
            kept.sort();
            kept
        };
        self.cwd == other.cwd && sorted(&self.env) == sorted(&other.env)
    }

    /// The same, with `key` set to `value` (replacing any value it had).
    pub fn with_variable(mut self, key: &str, value: &str) -> ProcessContext {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
        self
    }
}

/// How a launch runs a test rather than a program.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestLaunch {
    /// Stop where the test fails: the adapter's exception filters for a failing test replace
    /// its usual ones (a failure a test runner catches is no uncaught exception).
    pub break_on_failure: bool,
    /// Functions every failure of the test's toolchain passes through (Go's
    /// `testing.(*common).Fail`, Rust's `rust_panic`), broken on with `break_on_failure`: the
    /// session's own breakpoints, not the user's (unlisted, unnumbered), whose stops are told as
    /// the failure's (reason `failure`).
    #[serde(default)]
    pub failure_functions: Vec<String>,
    /// Exception classes every failure of the test's runner raises (Ruby's
    /// `Minitest::Assertion`), caught by class with `break_on_failure`, beside the adapter's
    /// failure filters: the runner rescues them, so no filter for uncaught exceptions sees them.
    #[serde(default)]
    pub failure_exceptions: Vec<String>,
}

impl LaunchSpec {
    /// The failure functions the session breaks on: a test's, when it stops at its failure.
    pub fn failure_functions(&self) -> Vec<String> {
        self.test
            .as_ref()
            .filter(|test| test.break_on_failure)
            .map(|test| test.failure_functions.clone())
            .unwrap_or_default()
    }

    /// What reports call the launched program: its path, or `python -m MODULE`.
    pub fn label(&self) -> String {
        match &self.options.python.module {
            Some(module) => format!("python -m {module}"),
            None => self.program.display().to_string(),
        }
    }
}

/// The files the program's standard streams are opened on (FIFOs the daemon reads, or a pty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StdioPaths {
    pub stdin: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AttachSpec {
    /// The process to attach to; optional with `connect` (the adapter knows its process).
    pub pid: Option<u32>,
    pub adapter: Option<String>,
    pub breakpoints: Vec<BreakpointSpec>,
    /// Talk to an adapter already listening at HOST:PORT instead of starting one.
    #[serde(default)]
    pub connect: Option<String>,
}

/// A core dump to open, and the program that wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CoreSpec {
    /// The executable that crashed (absolute; resolved by the CLI).
    pub program: PathBuf,
    /// The core file (absolute).
    pub core: PathBuf,
    pub adapter: Option<String>,
    /// The CLI's working directory, where the adapter looks for relative source paths.
    pub cwd: PathBuf,
}

impl CoreSpec {
    /// What reports call a core session: the program and its core.
    pub fn label(&self) -> String {
        format!("{} (core {})", self.program.display(), self.core.display())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakpointSpec {
    pub location: Location,
    /// The location as the user typed it, when the file in `location` was resolved from it.
    #[serde(default)]
    pub requested: Option<String>,
    pub condition: Option<String>,
    /// Stop only on this hit (and after): DAP's `hitCondition`.
    pub hit_count: Option<u32>,
    /// A logpoint: log this message (with `{expr}` interpolated) instead of stopping.
    #[serde(default)]
    pub log_message: Option<String>,
}

/// What `breakpoint modify` changes in each breakpoint it names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakpointChange {
    #[serde(default)]
    pub condition: Change<String>,
    /// DAP's `hitCondition`, as [`BreakpointSpec::hit_count`].
    #[serde(default)]
    pub hit_count: Change<u32>,
    #[serde(default)]
    pub log_message: Change<String>,
}

impl BreakpointChange {
    /// Makes the change to `spec`; whether it differs now.
    pub fn apply(&self, spec: &mut BreakpointSpec) -> bool {
        let condition = self.condition.clone().apply(&mut spec.condition);
        let hit_count = self.hit_count.clone().apply(&mut spec.hit_count);
        let log_message = self.log_message.clone().apply(&mut spec.log_message);
        condition || hit_count || log_message
    }
}

/// One setting of a [`BreakpointChange`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change<T> {
    #[default]
    Keep,
    Set(T),
    Clear,
}

impl<T> Change<T> {
    /// Applies the change to `value`; whether it differs now.
    pub fn apply(self, value: &mut Option<T>) -> bool
    where
        T: PartialEq,
    {
        let new = match self {
            Change::Keep => return false,
            Change::Set(new) => Some(new),
            Change::Clear => None,
        };
        let changed = *value != new;
        *value = new;
        changed
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResumeAction {
    Continue,
    Next,
    Step,
    Finish,
}

impl ResumeAction {
    pub fn verb(self) -> &'static str {
        match self {
            ResumeAction::Continue => "continue",
            ResumeAction::Next => "next",
            ResumeAction::Step => "step",
            ResumeAction::Finish => "finish",
        }
    }
}

/// Wait for the next stop or exit, at most this long.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WaitSpec {
    pub timeout_secs: f64,
    /// Which of the stopped frame's locals the report carries; `None`: the config's default
    /// (`[defaults] stop_locals`).
    #[serde(default)]
    pub locals: Option<StopLocals>,
    /// Expressions the report evaluates in the stopped frame this once (`-p EXPR`), after the
    /// session's displays.
    #[serde(default)]
    pub prints: Vec<String>,
}

/// Which of the stopped frame's locals a stop report carries (`--locals`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopLocals {
    /// None: the report reads no values.
    None,
    /// Only those that changed since the frame's previous stop.
    Changed,
    /// All of them (bounded), the changed ones marked.
    #[default]
    All,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum FrameSelection {
    Index { index: u32 },
    Up { count: u32 },
    Down { count: u32 },
}

/// A read of the program's output buffer. Offsets count bytes since the session started.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct OutputQuery {
    /// Read from this offset; `None` reads from the oldest byte still held.
    pub from: Option<u64>,
    /// Read only the last N lines held (ignored when `from` is set).
    pub tail_lines: Option<u32>,
    /// The most bytes to return in one answer; the caller pages with `next`.
    pub max_bytes: u32,
    /// Drop what this read returned from the buffer.
    pub clear: bool,
    /// Block until there is output past `from`, or the program has ended.
    pub wait: bool,
}

#[cfg(test)]
mod tests {
    use super::ProcessContext;

    fn context(cwd: &str, env: &[(&str, &str)]) -> ProcessContext {
        ProcessContext {
            cwd: cwd.into(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            launch: None,
        }
    }

    #[test]
    fn a_process_starts_alike_in_the_same_folder_and_environment_in_any_order() {
        let first = context("/w", &[("A", "1"), ("B", "2"), ("TAG", "x")]);
        let same = context("/w", &[("B", "2"), ("TAG", "y"), ("A", "1")]);
        assert!(first.starts_like(&same, "TAG"));
        assert!(!first.starts_like(&same, "OTHER"), "the tag differs");
        let untagged = context("/w", &[("A", "1"), ("B", "2")]);
        assert!(first.starts_like(&untagged, "TAG"));
        let other_value = context("/w", &[("A", "1"), ("B", "3"), ("TAG", "x")]);
        assert!(!first.starts_like(&other_value, "TAG"));
        let one_more = context("/w", &[("A", "1"), ("B", "2"), ("C", ""), ("TAG", "x")]);
        assert!(!first.starts_like(&one_more, "TAG"));
        let elsewhere = context("/v", &[("A", "1"), ("B", "2"), ("TAG", "x")]);
        assert!(!first.starts_like(&elsewhere, "TAG"));
        let retagged = first.clone().with_variable("TAG", "z");
        assert_eq!(retagged.env.iter().filter(|(k, _)| k == "TAG").count(), 1);
        assert!(retagged.starts_like(&first, "TAG"));
    }
}
