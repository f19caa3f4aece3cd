//! An adapter's profile: what the session needs of an adapter that is the same in every session
//! (its DAP identity, its quirks, what it offers beyond DAP), as plain data and hooks that hold
//! no state of the adapter's. Every built-in adapter's is a constant in its own folder, which its
//! row in the table and its [`DebugAdapter::profile`] both name; what needs the adapter's own
//! state or async code is its trait's.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::line_tables::LineTableQuery;
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::rust_expressions::RustReading;
use super::value_reading::ValueReading;
use super::{
    ConditionHandling, ConsoleMemory, CoreOpening, CoreSaving, LoadedSources, SignalReporting,
    SourceLookup, StdioSupport,
};
#[cfg(doc)]
use super::{DebugAdapter, SourceRoots};
use crate::common::error::ErrorBody;
use crate::ipc::protocol::{CoreSpec, ProcessContext};

/// An expression the session evaluates before it leaves a program running (see
/// [`Profile::before_leaving`]), in the stopped thread's first frame whose answer reads `answer`.
#[derive(Debug, Clone, Copy)]
pub struct LeavingCall {
    pub expression: &'static str,
    pub answer: &'static str,
}

/// How an adapter leaves a program it attached to (see [`Profile::attach_stop`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachStop {
    /// Running, as it was.
    Running,
    /// Stopped (GDB, reason `attach`).
    Stopped,
    /// Stopped, and stopped once more just after it is continued (rdbg 1.4.0: its server
    /// interrupts the program as the client connects and again at `attach`, and the second
    /// interrupt, unless the two fell together, stops the program as it resumes).
    StoppedTwice,
}

/// What an adapter is and does the same in every session.
#[derive(Clone, Copy)]
pub struct Profile {
    /// The adapter's canonical name (`lldb`).
    pub name: &'static str,
    /// The `adapterID` sent in `initialize`.
    pub adapter_id: &'static str,
    /// How the daemon's channels for the program's streams (`program_io`) reach the program,
    /// for an adapter that can use them; `None`: its streams come only in `output` events, and
    /// `--tty`/`--stdin` cannot be had.
    pub stdio: Option<StdioSupport>,
    /// Whether and how the daemon keeps one of this adapter ready for the next session.
    pub warm: WarmPolicy,
    /// How the adapter tells signals: stops on them, deaths by them.
    pub signals: SignalReporting,
    /// How the adapter deals with breakpoint conditions that fail.
    pub conditions: ConditionHandling,
    /// How the files the program is made of are found when a breakpoint names a file by a
    /// relative name (see `common::location::resolve`).
    pub source_lookup: SourceLookup,
    /// The exception filters set in the configuration phase (from the adapter's own list).
    pub exception_filters: &'static [&'static str],
    /// The exception filters that stop where a test fails (`test --break-on-failure`), in place
    /// of [`Profile::exception_filters`]: a test runner catches the failure, so a filter for
    /// uncaught exceptions never sees it.
    pub failure_exception_filters: &'static [&'static str],
    /// What the adapter's own exception stops are (`C++ throw/catch`), as the hint for an adapter
    /// that offers none names them ([`super::exception_filters_hint`]).
    pub exception_stops: Option<&'static str>,
    /// For an adapter that stops on exceptions by their class's name (`catch CLASS`): the
    /// category its DAP `exceptionOptions` paths start with (by DAP's convention, the first
    /// segment groups them), the class's name the segment below it. `None`: `catch` takes
    /// the adapter's filters alone.
    pub exception_classes: Option<&'static str>,
    /// Whether the adapter reaches a `--connect` address itself (from its `attach` arguments)
    /// instead of being a DAP server listening there.
    pub connects_itself: bool,
    /// How the adapter leaves a program it attached to; the session continues one it stopped,
    /// so `attach` means the same with every adapter.
    pub attach_stop: AttachStop,
    /// For an adapter whose server runs inside the program (rdbg's): where a running process's
    /// server listens, for `attach PID`, which then connects there; why not, when it has none.
    pub server_of_process: Option<fn(u32) -> Result<String, ErrorBody>>,
    /// Whether an attach ends its configuration with `configurationDone`, as DAP has it. rdbg
    /// 1.4.0 answers that request on an attach with a second `stopped` of its own making: the
    /// session, having continued the real one, would take the running program for stopped.
    pub done_configuring_attach: bool,
    /// What to evaluate in a stopped program before the session leaves it running (`stop` on
    /// an attached program, `detach`).
    pub before_leaving: Option<LeavingCall>,
    /// How the results of evaluations the adapter could not make begin, for an adapter that
    /// answers such a failure as the value (`result`) of a successful `evaluate`: they are told
    /// as failures.
    pub failing_results: &'static [&'static str],
    /// Whether the adapter tells a launched program's `process` event (its pid) only after it
    /// has answered `launch` (debugpy defers it so). `start` then waits for that event, briefly,
    /// so that its report names the program's pid as it does for every other adapter.
    pub reports_process_after_launch: bool,
    /// The type names of an object's members that are its methods, for an adapter that lists
    /// some of them among its data: a listing leaves them out and counts them, as it does a
    /// group of methods (docs/cli.md, "locals").
    pub method_types: &'static [&'static str],
    /// Where the value a `finish` returned is found, or why it cannot be.
    pub return_value: ReturnValueSource,
    /// How the runtime tells the files the program loaded, for the end of a run to name a
    /// breakpoint whose file never loaded (see [`super::loaded_sources`]).
    pub loaded_sources: LoadedSources,
    /// How its values are read whole: `print`'s `evaluate` context, and the parts of a value's
    /// text it left unloaded, which `locals` reads (see `value_reading`).
    pub value_reading: ValueReading,
    /// Whether the language's expressions may begin with `@` (Ruby's `@name`, `@@count`): then
    /// only a frame number or a plain function name before the first `:` makes an `@FRAME:`
    /// prefix, and any other text is the language's own (`common::frame_prefix`).
    pub at_sign_names: bool,
    /// How `print` reads Rust expressions (`v.len()`, `m.get(&k)`, `o.unwrap()`) over this
    /// adapter's variables in a Rust frame (see [`super::rust_expressions`]); `None` for an
    /// adapter that reads no Rust program, or reads them itself.
    pub rust_reading: Option<RustReading>,
    /// The rule that tells whether the frame running a function in a file is the runtime's own
    /// machinery (Rust's `std::rt`, Python's `runpy`), which the text of a stack folds (see
    /// [`runtime_frames`]).
    pub runtime_frames: runtime_frames::Rule,
    /// How the adapter opens and writes core dumps.
    pub cores: Cores,
    /// Whether the adapter can attach to a program already running.
    pub attaching: Attaching,
    /// What the adapter's own console (DAP `evaluate`, `repl` context) is used for.
    pub console: ConsoleUse,
    /// Whether an `output` event of this category is the program's own output (kept in the
    /// output buffer) rather than the adapter's (logged).
    pub is_program_output: fn(Option<&str>) -> bool,
    /// Undoes what the adapter's transport did to program output (e.g. a pty's `\r\n`).
    pub clean_program_output: fn(&str) -> Cow<'_, str>,
    /// The name a stop's header gives a thread, from the adapter's name for it. An adapter
    /// whose name says where the thread is (Delve: `* [Go 1] main.add (Thread 5378)`) gives the
    /// thread's own part alone: the header names the frame shown, which after `up` is another.
    pub thread_label: fn(&str) -> Cow<'_, str>,
    /// A frame's function name as the adapter sent it, made the function's own: an adapter
    /// that adds a label of its own to the name (debugpy's ` (Current frame)`) takes it off,
    /// so that stacks, stop reports and a test's failure name the function alone.
    pub frame_name: fn(&str) -> Cow<'_, str>,
    /// Whether a stop (its reason and description) is the adapter's way of reporting an
    /// interrupt (our `pause`, or the entry stop), so the session can name it `pause` or `entry`.
    pub is_interrupt_stop: fn(&str, Option<&str>) -> bool,
    /// Whether a stop is the process's `exec` of another program (`Stopped after exec of …`).
    pub is_exec_stop: fn(&str, Option<&str>) -> bool,
    /// Files a launch sent `arguments` makes (a program the adapter builds), which the session
    /// removes when the program ends: the adapter would only in its own time, not waited for.
    pub build_products: fn(&Value) -> Vec<PathBuf>,
}

impl Profile {
    /// What every built-in adapter's profile is written over, setting its own name and
    /// `adapterID` and what it does otherwise.
    pub const PLAIN: Profile = Profile::plain("");

    /// An adapter's with no quirk and nothing beyond DAP, named `name` (as an adapter from the
    /// config is).
    pub const fn plain(name: &'static str) -> Profile {
        Profile {
            name,
            adapter_id: name,
            stdio: None,
            warm: WarmPolicy::Cold,
            signals: SignalReporting::DEFAULT,
            conditions: ConditionHandling::DEFAULT,
            // The adapter matches a relative name itself, against the program's line tables, as
            // lldb and GDB do.
            source_lookup: SourceLookup {
                adapter_matches_names: true,
                ..SourceLookup::NONE
            },
            exception_filters: &[],
            failure_exception_filters: &[],
            exception_stops: None,
            exception_classes: None,
            connects_itself: false,
            attach_stop: AttachStop::Running,
            server_of_process: None,
            done_configuring_attach: true,
            before_leaving: None,
            failing_results: &[],
            reports_process_after_launch: false,
            method_types: &[],
            return_value: ReturnValueSource::Unknown("this adapter does not tell it"),
            loaded_sources: LoadedSources::Untold,
            value_reading: ValueReading::DEFAULT,
            at_sign_names: false,
            rust_reading: None,
            // The adapter's language is unknown.
            runtime_frames: |_, _| None,
            cores: Cores::NONE,
            attaching: Attaching::Supported,
            console: ConsoleUse::NONE,
            is_program_output: |category| matches!(category, Some("stdout") | Some("stderr")),
            clean_program_output: |text| Cow::Borrowed(text),
            thread_label: |name| Cow::Borrowed(name),
            frame_name: |name| Cow::Borrowed(name),
            is_interrupt_stop: |reason, _| reason == "pause" || reason == "entry",
            is_exec_stop: |_, _| false,
            build_products: |_| Vec::new(),
        }
    }
}

/// How the daemon keeps one of an adapter ready, spawned and initialised, for the next session
/// (`[daemon] warm_adapter_secs`).
#[derive(Clone, Copy)]
pub enum WarmPolicy {
    /// None is kept: its start-up takes something of the program, or a session so started has
    /// not been tested.
    Cold,
    /// A spare is kept, whose start-up (its spawn, its `initialize`) takes nothing of the
    /// program, and which then runs `commands` (DAP `evaluate` in the `repl` context) before any
    /// program is known: work every program's launch would do, done while the adapter waits,
    /// that leaves nothing behind but the adapter's caches.
    Spare { commands: fn() -> Vec<String> },
    /// The spare is the next program's own process, started ahead in the folder and environment
    /// of the launch before ([`ProcessContext`]; pdb, whose adapter runs inside the program's
    /// interpreter). It serves only a launch that starts the same way, and takes the program's
    /// channels by their paths in `launch`, having been started on none.
    AsProgram { start_inputs: StartInputs },
    /// A spare is kept, and also one kept *launched*: the last session's launch sent again as
    /// that session ends, and held at `initialized`, before the program's own code has run
    /// (debugpy, whose launch starts a launcher and the program's Python and imports pydevd into
    /// it: most of its first stop, and nothing a configuration request can change). It serves
    /// only the same launch again (`kept_launch.rs` in the daemon's session), whose breakpoints
    /// then come as a running program's would.
    ///
    /// `facts` is a console expression, run in the kept program's process once it waits at
    /// `initialized`, whose value is `{"pid": its process id, "watched": what its start read}`
    /// (`watched_paths.py`: `[[path, modification time in ns or null], ...]`) as JSON in
    /// hexadecimal digits, which every adapter's quoting leaves as they are
    /// ([`super::hex_json`]). A kept launch serves a session only while its program lives and
    /// all it read is unchanged.
    KeptLaunch {
        facts: fn() -> String,
        start_inputs: StartInputs,
    },
}

/// For an adapter whose warm form runs the program's own interpreter: the files, beyond what the
/// interpreter reports it read, that decide how it starts in a context (a version manager's).
/// The daemon notes them before the warm one starts, since the interpreter's own report comes
/// after what read them: a warm one serves only while they are unchanged.
pub type StartInputs = fn(&ProcessContext) -> Vec<PathBuf>;

impl WarmPolicy {
    /// Whether one is kept at all.
    pub fn keeps_warm(self) -> bool {
        !matches!(self, WarmPolicy::Cold)
    }

    /// Whether the warm one is the next program's own process.
    pub fn as_program(self) -> bool {
        matches!(self, WarmPolicy::AsProgram { .. })
    }

    /// Whether one is kept launched.
    pub fn keeps_launch(self) -> bool {
        matches!(self, WarmPolicy::KeptLaunch { .. })
    }

    /// The console commands a spare runs once it has answered `initialize`.
    pub fn commands(self) -> Vec<String> {
        match self {
            WarmPolicy::Spare { commands } => commands(),
            _ => Vec::new(),
        }
    }

    /// The files that decide how a warm one starts in `context` (see [`StartInputs`]).
    pub fn start_inputs(self, context: &ProcessContext) -> Vec<PathBuf> {
        match self {
            WarmPolicy::AsProgram { start_inputs }
            | WarmPolicy::KeptLaunch { start_inputs, .. } => start_inputs(context),
            _ => Vec::new(),
        }
    }

    /// The expression a kept launch's facts are read with (see [`WarmPolicy::KeptLaunch`]).
    pub fn kept_launch_facts(self) -> Option<String> {
        match self {
            WarmPolicy::KeptLaunch { facts, .. } => Some(facts()),
            _ => None,
        }
    }
}

/// Whether an adapter can attach to a running program, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attaching {
    Supported,
    /// `attach` is refused as `unsupported`, with this reason.
    Unsupported(&'static str),
}

/// How an adapter opens and writes core dumps.
#[derive(Clone, Copy)]
pub struct Cores {
    /// How the adapter opens the core dump a spec names; `None`: it cannot.
    pub opening: fn(&CoreSpec) -> Option<CoreOpening>,
    /// How the adapter writes a core of the program it holds stopped (its pid) into a folder;
    /// `None`: it cannot.
    pub saving: fn(&Path, Option<u32>) -> Option<CoreSaving>,
}

impl Cores {
    /// Neither.
    pub const NONE: Cores = Cores {
        opening: |_| None,
        saving: |_, _| None,
    };
}

/// What an adapter's own console (DAP `evaluate` in the `repl` context) is used for.
#[derive(Clone, Copy)]
pub struct ConsoleUse {
    /// Whether console text ends the adapter's debugger itself (`quit`): `raw` refuses it.
    pub quits: fn(&str) -> bool,
    /// Console commands that make the console act in a thread (its id) and frame (0 the
    /// innermost), sent before a `raw` text, for an adapter whose console ignores the `evaluate`
    /// request's frame (lldb-dap runs its commands in LLDB's own selection, which `up` or
    /// `frame` never moved). Empty: the frame in the request is enough.
    pub frame_selection: fn(i64, u32) -> Vec<String>,
    /// How to read memory through the console, for an adapter whose DAP side lacks
    /// `readMemory` (lldb-dap 19), or has one that reads less (Delve's). `None`: no such way.
    /// Only used when the adapter does not advertise `supportsReadMemoryRequest`, unless the
    /// reader says it goes first ([`ConsoleMemory::instead_of_read_memory`]).
    pub memory: Option<&'static dyn ConsoleMemory>,
    /// How to read the line tables of the program's files named like a file, for an adapter
    /// that places such names itself: a breakpoint it leaves pending is then said to be on a
    /// line without code, not in a file that cannot be found. `None`: no way.
    pub line_tables: fn(&Path) -> Option<LineTableQuery>,
}

impl ConsoleUse {
    /// None of them.
    pub const NONE: ConsoleUse = ConsoleUse {
        quits: |_| false,
        frame_selection: |_, _| Vec::new(),
        memory: None,
        line_tables: |_| None,
    };
}
