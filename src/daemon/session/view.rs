//! What users see of the session besides the run state: the selection, the debuggee's process
//! facts, caches, and requests in flight whose stops are still to come.
//!
//! It is one plain mutex (`Shared::view`), held only for quick updates and never across an
//! await; the parts are small structs so each concern names the facts it touches. Every stop
//! resets the selection and the caches (see `events.rs`).

use std::collections::HashMap;

use super::brief_stop;
use super::changes::LocalsMemory;
use super::frames::FrameCache;
use super::stop_values::StopValues;
use crate::ipc::protocol::StopReport;

/// What users see of the view: selection and caches, invalidated by every stop.
#[derive(Default)]
pub(super) struct View {
    pub(super) selection: Selection,
    pub(super) debuggee: Debuggee,
    pub(super) caches: Caches,
    pub(super) in_flight: InFlight,
    /// Each frame's locals at its last stops, to mark what changed.
    pub(super) locals_memory: LocalsMemory,
    /// The address whose access killed the process, as its core dump holds it.
    pub(super) core_fault_address: Option<u64>,
    /// The C library's message of an abort, as the core dump holds it.
    pub(super) core_abort_message: Option<String>,
    /// The evaluation limit last told to an adapter whose limit its console sets
    /// (`bounded_evaluation.rs`).
    pub(super) evaluation_limit: Option<std::time::Duration>,
}

/// Where the user is looking, and what they have been shown.
#[derive(Default)]
pub(super) struct Selection {
    pub(super) thread: Option<i64>,
    pub(super) frame: u32,
    /// The generation of the last stop, or of the end, that a client has been shown in a report.
    pub(super) seen_generation: u64,
}

/// The debuggee's process, as the adapter told us of it.
#[derive(Default)]
pub(super) struct Debuggee {
    pub(super) pid: Option<u32>,
    pub(super) exit_code: Option<i64>,
    /// The signal that killed it, when the adapter told (then `exit_code` is `None`).
    pub(super) signal: Option<i32>,
    /// The signal of the last stop on one (reason `signal`): an adapter that reports a death by
    /// a signal as an exit with its number is read by it (see `events::on_exited`).
    pub(super) stopped_on_signal: Option<i32>,
    /// How the adapter's own log said the program ended, read from its console output before
    /// its `exited` event (`SignalReporting::end_in_console`).
    pub(super) logged_end: Option<crate::adapters::LoggedEnd>,
    /// The end is being asked of the adapter (see `events::ask_exit_signal`): `terminated`
    /// must not report it first.
    pub(super) end_pending: bool,
    /// The launched debuggee's start time, which tells it from a later process with its pid.
    pub(super) started: Option<u64>,
    /// The program has exited or terminated: its pid is nobody's to kill any more.
    pub(super) gone: bool,
    /// The process that ran the launched program (its parent when the adapter told of it) and
    /// that process's start time: the adapter's helper, whose death the adapter misreports.
    pub(super) runner: Option<(u32, Option<u64>)>,
}

/// Answers kept for the current stop.
#[derive(Default)]
pub(super) struct Caches {
    /// Threads' names as a stop's header gives them ([`Profile::thread_label`]).
    ///
    /// [`Profile::thread_label`]: crate::adapters::Profile::thread_label
    pub(super) thread_names: HashMap<i64, String>,
    pub(super) frames: Option<FrameCache>,
    /// The report of the latest stop, by generation, and the locals it read (`None` when it read
    /// none): `status` and `await` repeat it for free, and a later report that wants the values
    /// reads only those.
    pub(super) report: Option<(u64, StopReport, Option<StopValues>)>,
}

/// Requests sent whose stops have not arrived yet, which decide how those stops are told.
#[derive(Default)]
pub(super) struct InFlight {
    /// The next interrupt stop is the entry stop of `--stop-on-entry`.
    pub(super) entry_expected: bool,
    /// A `pause` was sent and its stop has not arrived yet.
    pub(super) pause_requested: bool,
    /// A step (`next`, `step`, `finish`) was sent and its stop has not arrived yet: that stop is
    /// the user's, even on a line where an emulated logpoint sits.
    pub(super) step_requested: bool,
    /// A pause the user does not see is under way (see `brief_stop.rs`): told how it ended.
    pub(super) brief_stop: Option<tokio::sync::oneshot::Sender<brief_stop::Ended>>,
}
