//! What users see of the session besides the run state and the program: the selection and
//! caches.
//!
//! It is one plain mutex (`Shared::view`), held only for quick updates and never across an
//! await; the parts are small structs so each concern names the facts it touches. Every stop
//! resets the selection and the caches (see `events.rs`).

use std::collections::HashMap;

use super::changes::LocalsMemory;
use super::frames::FrameCache;
use super::stop_values::StopValues;
use crate::ipc::protocol::StopReport;

/// What users see of the view: selection and caches, invalidated by every stop.
#[derive(Default)]
pub(super) struct View {
    pub(super) selection: Selection,
    pub(super) caches: Caches,
    /// Each frame's locals at its last stops, to mark what changed.
    pub(super) locals_memory: LocalsMemory,
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
