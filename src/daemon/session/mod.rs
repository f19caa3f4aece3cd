//! One live debug session: an adapter process, its DAP connection, and what we know of the
//! debuggee.
//!
//! Commands from any number of clients run concurrently against a shared [`Session`]. Its state
//! is held by parts that own it, each with its own discipline: the link to the adapter
//! (`adapter_link.rs`: the adapter, its process and DAP client, its capabilities), set once and
//! read without a lock by the commands and the event task alike; the run (`run.rs`: the run
//! state, a `watch` cell the event task writes, the requests in flight, the stop held while
//! commands read it); the program from its start to its end (`program.rs`: its process,
//! channels and end); the inspection state (`inspection_state.rs`: the selection and the caches
//! of the current stop, the evaluation limits, the names of pointer types); the breakpoints
//! (`breakpoints.rs`), whose re-sends are serialised by their own async lock so two concurrent
//! `break` commands cannot interleave their `setBreakpoints` lists.
//! The plain mutexes among them are held only for quick updates, never across an await.
//!
//! This file holds the [`Session`] type, which does what needs several parts, the parts the
//! event task and the commands share ([`Shared`]) and the accessors every part uses. Each
//! concern has a file of its own, so that one can be read (and changed) without the others:
//! `lifecycle.rs` (open, configure, end), `run_control.rs` (resume, pause, await), `report.rs`
//! (stop reports), `frames.rs` (threads, frames, the selection), `inspection.rs` (locals,
//! evaluate, set, the raw console), `bounded_evaluation.rs` (the limit of every evaluation of
//! the user's expressions), `exception_filters.rs` (`catch`), `watchpoints.rs`, `displays.rs`
//! (`display`, and the expressions a stop report evaluates), `sources.rs`, `pending_lines.rs`,
//! `brief_stop.rs`, `memory.rs`, `disassembly.rs`, and `events.rs` (the event task).

mod adapter_link;
mod bounded_evaluation;
mod breakpoints;
mod brief_stop;
mod caller_frames;
mod changes;
mod condition_errors;
mod core_dump;
mod disassembly;
mod displays;
mod events;
mod exception_filters;
mod failure_stops;
mod frames;
mod inspection;
mod inspection_state;
pub mod kept_launch;
mod leaving;
mod lifecycle;
mod liveness;
mod loaded_sources;
mod memory;
mod pending_lines;
mod program;
mod report;
mod return_value;
mod run;
mod run_control;
mod rust_evaluation;
mod rust_pointer_names;
mod sources;
mod stop_values;
mod symbol_names;
mod unloaded_values;
mod variable_path;
mod warm_adapter;
mod watchpoints;

use adapter_link::AdapterLink;
pub(super) use bounded_evaluation::clean_evaluate_error;
pub use breakpoints::Breakpoints;
pub use caller_frames::AskedBy;
pub(crate) use core_dump::cannot_run;
pub use displays::StopAsk;
pub use exception_filters::CaughtChoice;
use exception_filters::ExceptionFilters;
use inspection_state::{Inspection, View};
pub use lifecycle::Carried;
use program::Program;
use run::RunControl;
pub use warm_adapter::{WarmAdapter, end_with_its_program};

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use super::displays::Displays;
use super::output::OutputBuffer;
use super::run_state::{Phase, RunState, StopInfo};
use crate::adapters::DebugAdapter;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::DapClient;
use crate::dap::requests::EvaluateContext;
use crate::dap::types::Capabilities;
use crate::ipc::protocol::{AttachSpec, CoreSpec, LaunchSpec, ProcessContext, StopReason};

/// How the session came to be, which decides restart and how `stop` treats the debuggee.
#[derive(Debug, Clone)]
pub enum Origin {
    Launch(Box<LaunchSpec>),
    Attach(AttachSpec),
    /// A core dump: a stopped process that can be read but never run.
    Core(CoreSpec),
}

impl Origin {
    /// Where a launched program's process starts (none for an attach or a core): what a warm
    /// adapter that is the program's own process must match (see `warm_adapter.rs`).
    pub fn process_context(&self) -> Option<ProcessContext> {
        match self {
            Origin::Launch(spec) => Some(ProcessContext::of(spec)),
            Origin::Attach(_) | Origin::Core(_) => None,
        }
    }
}

/// State the event task and the commands share.
pub(super) struct Shared {
    /// The run state and the requests in flight (`run.rs`).
    run: RunControl,
    /// The selection, the caches of the current stop and what reading values needs
    /// (`inspection_state.rs`).
    inspection: Inspection,
    breakpoints: Arc<Breakpoints>,
    /// The expressions every stop report shows (`display`), carried across a restart.
    displays: Arc<Displays>,
    output: Arc<OutputBuffer>,
    initialized: Notify,
    /// Told of each `process` event, for a launch whose adapter reports it after answering
    /// (`Profile::reports_process_after_launch`).
    process_reported: Notify,
    /// The adapter, its process and DAP client, and what it can do (`adapter_link.rs`).
    link: AdapterLink,
    /// The adapter's own last output lines (console, its stderr), for the report of its death.
    adapter_log: Mutex<VecDeque<String>>,
    /// The exception filters in force (set in the configuration phase, changed by `catch`).
    exception_filters: Mutex<ExceptionFilters>,
    /// What the user chose with `catch`, carried to the next run.
    caught: Arc<CaughtChoice>,
    /// The program's files, for placing breakpoints given by a relative file name.
    sources: sources::ProgramSources,
    /// The program's process, its channels and its end.
    program: Program,
    /// The files the program loaded, as its runtime tells them (`loaded_sources.rs`).
    loaded: Mutex<loaded_sources::Loaded>,
}

impl Shared {
    /// Marks the output complete, unless we are ending the session ourselves (`end()` does it,
    /// and a restart may already have reopened the buffer for the next run).
    fn program_ended(&self) {
        self.program.take_output();
        self.program.remove_build_products();
        if !self.program.is_ending() {
            self.output.finish();
        }
    }

    /// Whether the adapter's word that the launched program ended hides its own helper's death
    /// (see [`Program::lost_by_adapter`]), which is then told as the adapter's.
    fn lost_by_adapter(&self, exit_code: Option<i64>) -> bool {
        let Some(detail) = self.program.lost_by_adapter(exit_code) else {
            return false;
        };
        self.run.forget_brief_stop();
        self.output.finish();
        self.run
            .set_if(Phase::AdapterDied { detail }, |s| !s.phase.is_ended());
        true
    }

    fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.inspection.view()
    }

    fn loaded(&self) -> std::sync::MutexGuard<'_, loaded_sources::Loaded> {
        self.loaded.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn output(&self) -> &OutputBuffer {
        &self.output
    }

    /// The `evaluate` context of an emulated logpoint's `{expression}`.
    pub(super) fn logpoint_context(&self) -> EvaluateContext {
        self.link.adapter().profile().value_reading.logpoint_context
    }

    /// An emulated logpoint could not let the program go on: show the stop rather than leave
    /// the program stopped with nobody told.
    pub(super) fn logpoint_stuck(&self, thread_id: i64, detail: &str) {
        let stop = StopInfo {
            reason: StopReason::Breakpoint,
            description: Some(format!(
                "stopped at a logpoint: continuing failed ({detail})"
            )),
            text: None,
            thread_id: Some(thread_id),
            hit_breakpoint_ids: Vec::new(),
            signal: None,
            condition_failure: None,
        };
        self.run
            .set_if(Phase::Stopped(stop), |s| matches!(s.phase, Phase::Running));
    }
}

/// "killed by signal SIGSEGV (11)", or the bare number on an OS that has no name for it.
pub(crate) fn killed_by(signal: i32) -> String {
    match crate::platform::signal_name(signal) {
        Some(name) => format!("killed by signal {name} ({signal})"),
        None => format!("killed by signal {signal}"),
    }
}

pub struct Session {
    origin: Origin,
    shared: Arc<Shared>,
}

impl Session {
    /// Shares the stop with other readers until the guard is dropped; taken once per command,
    /// by the dispatcher (a second take in the same command could wait on a resume waiting on
    /// the first).
    pub async fn hold_stop(&self) -> tokio::sync::RwLockReadGuard<'_, ()> {
        self.shared.run.hold_stop().await
    }

    /// Whether the session runs on the daemon's warm adapter.
    pub fn warm_start(&self) -> bool {
        self.shared.link.warm_start()
    }

    /// The adapter, for a warm one of its kind to follow the session (started where its program
    /// started, for one that needs it: see `warm_adapter.rs` and `kept_launch.rs`); `None` once
    /// asked for.
    pub fn claim_warm_successor(&self) -> Option<Arc<dyn DebugAdapter>> {
        self.shared.link.claim_warm_successor()
    }

    pub fn adapter_name(&self) -> &'static str {
        self.adapter().name()
    }

    fn adapter(&self) -> &dyn DebugAdapter {
        self.shared.link.adapter()
    }

    /// What the adapter said it can do in `initialize`.
    fn capabilities(&self) -> &Capabilities {
        self.shared.link.capabilities()
    }

    fn dap(&self) -> &DapClient {
        self.shared.link.dap()
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    pub fn output(&self) -> &Arc<OutputBuffer> {
        &self.shared.output
    }

    pub fn run_state(&self) -> RunState {
        self.shared.run.get()
    }

    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<RunState> {
        self.shared.run.subscribe()
    }

    pub fn program(&self) -> Option<String> {
        match &self.origin {
            Origin::Launch(spec) => Some(spec.label()),
            Origin::Core(spec) => Some(spec.label()),
            Origin::Attach(spec) => match (spec.pid, &spec.connect) {
                (Some(pid), _) => Some(format!("pid {pid}")),
                (None, Some(address)) if self.adapter().profile().connects_itself => {
                    Some(format!("the program at {address}"))
                }
                (None, Some(address)) => Some(format!("the adapter at {address}")),
                (None, None) => None,
            },
        }
    }

    pub fn adapter_pid(&self) -> Option<u32> {
        self.shared.link.pid()
    }

    /// The debuggee's pid while it runs (an ended program has none).
    pub fn debuggee_pid(&self) -> Option<u32> {
        if self.shared.run.get().phase.is_ended() {
            return None;
        }
        match &self.origin {
            Origin::Attach(spec) => spec.pid.or(self.shared.program.facts().pid),
            Origin::Launch(_) => self.shared.program.facts().pid,
            // The process is long gone; its pid may be another's by now.
            Origin::Core(_) => None,
        }
    }

    pub fn exit_code(&self) -> Option<i64> {
        self.shared.program.facts().exit_code
    }

    /// What the exit code may mean besides an exit with it, where the adapter's codes are
    /// ambiguous.
    pub fn exit_note(&self) -> Option<String> {
        self.exit_code()
            .and_then(self.adapter().profile().signals.exit_code_note)
    }

    /// The signal that killed the program, when one did and the adapter told.
    pub fn exit_signal(&self) -> Option<i32> {
        self.shared.program.facts().signal
    }

    fn not_running_error(&self, phase: &Phase) -> ErrorBody {
        match phase {
            Phase::Exited {
                signal: Some(signal),
                ..
            } => ErrorBody::new(
                ErrorCode::NotRunning,
                format!("the program was {}", killed_by(*signal)),
                "run it again with 'debugger restart', or read its output with 'debugger output'",
            ),
            Phase::Exited {
                exit_code: Some(code),
                ..
            } => ErrorBody::new(
                ErrorCode::NotRunning,
                match (self.adapter().profile().signals.exit_code_note)(*code) {
                    Some(note) => format!("the program has exited with code {code} ({note})"),
                    None => format!("the program has exited with code {code}"),
                },
                "run it again with 'debugger restart', or read its output with 'debugger output'",
            ),
            Phase::Exited { .. } => ErrorBody::new(
                ErrorCode::NotRunning,
                "the program has terminated",
                "run it again with 'debugger restart', or read its output with 'debugger output'",
            ),
            Phase::AdapterDied { detail } => ErrorBody::new(
                ErrorCode::AdapterDied,
                format!("the debug adapter died: {detail}"),
                "start a new session with 'debugger start <program>'",
            ),
            Phase::Starting => ErrorBody::new(
                ErrorCode::Running,
                "the session is still starting",
                "wait for it with 'debugger await'",
            ),
            Phase::Evaluating(evaluation) => {
                bounded_evaluation::still_running(self.adapter().name(), evaluation)
            }
            Phase::Running | Phase::Stopped(_) => ErrorBody::running(),
        }
    }

    /// Marks the current stop as shown to a client (a later `continue` then resumes it).
    pub(super) fn mark_seen(&self) {
        let state = self.shared.run.get();
        if matches!(state.phase, Phase::Stopped(_)) {
            self.shared.view().selection.seen_generation = state.generation;
        }
    }
}
