//! What the session keeps for inspecting the program where it stopped: the selection and the
//! caches of the current stop, each frame's locals at its last stops, the evaluation limits, and
//! rustc's names of the program's pointer types.
//!
//! The view of the stop is one plain mutex (`Inspection::view`), held only for quick updates and
//! never across an await; its parts are small structs so each concern names the facts it
//! touches. Every stop resets the selection and the caches (see `events.rs`).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use super::changes::LocalsMemory;
use super::frames::FrameCache;
use super::stop_values::StopValues;
use crate::adapters::rust_dwarf::PointerNames;
use crate::ipc::protocol::StopReport;

/// The inspection state of a session.
pub(super) struct Inspection {
    view: Mutex<View>,
    /// How long an evaluation may run when its command names no limit (`[timeouts]
    /// evaluate_secs`).
    default_limit: Duration,
    /// rustc's names of the program's pointer types, for an adapter that names them as C's
    /// (`RustReading::c_pointer_names`; see `rust_pointer_names.rs`).
    pointer_names: Option<PointerNames>,
}

impl Inspection {
    pub(super) fn new(default_limit: Duration, pointer_names: Option<PointerNames>) -> Inspection {
        Inspection {
            view: Mutex::default(),
            default_limit,
            pointer_names,
        }
    }

    pub(super) fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn default_limit(&self) -> Duration {
        self.default_limit
    }

    pub(super) fn pointer_names(&self) -> Option<&PointerNames> {
        self.pointer_names.as_ref()
    }
}

/// What users see of the current stop: the selection and the caches, invalidated by every stop.
#[derive(Default)]
pub(super) struct View {
    pub(super) selection: Selection,
    pub(super) caches: Caches,
    /// Each frame's locals at its last stops, to mark what changed.
    pub(super) locals_memory: LocalsMemory,
    /// The evaluation limit last told to an adapter whose limit its console sets
    /// (`bounded_evaluation.rs`).
    pub(super) evaluation_limit: Option<Duration>,
}

impl View {
    /// A new stop, on `thread` when the adapter names one: the old stop's selection of a frame
    /// and its caches no longer hold.
    pub(super) fn stopped(&mut self, thread: Option<i64>) {
        self.caches.thread_names.clear();
        if thread.is_some() {
            self.selection.thread = thread;
        }
        self.selection.frame = 0;
        self.caches.frames = None;
    }
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
