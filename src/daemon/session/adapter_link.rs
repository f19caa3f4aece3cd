//! The session's link to its adapter: the adapter, its process and DAP connection, what it said
//! it can do in `initialize`, and whether it came warm (and so whether a warm one follows).
//!
//! Made once the adapter is connected, before the event task starts (which reads the adapter's
//! profile through it), and never changed after, but for the capabilities, set once the
//! configuration sequence has answered, and the one claim of a warm successor: every part of the
//! session reads it without a lock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, OnceLock};

use crate::adapters::DebugAdapter;
use crate::adapters::process::AdapterProcess;
use crate::dap::DapClient;
use crate::dap::types::Capabilities;

pub(super) struct AdapterLink {
    adapter: Arc<dyn DebugAdapter>,
    process: Arc<AdapterProcess>,
    dap: DapClient,
    /// Set once `initialize` has been answered and the configuration sequence is done.
    caps: OnceLock<Capabilities>,
    /// The session runs on the daemon's warm adapter rather than one it started.
    warm_start: bool,
    /// Set once a warm adapter has been asked for to follow this session, so its end asks once.
    warm_claimed: AtomicBool,
}

impl AdapterLink {
    pub(super) fn new(
        adapter: Arc<dyn DebugAdapter>,
        process: Arc<AdapterProcess>,
        dap: DapClient,
        warm_start: bool,
    ) -> AdapterLink {
        AdapterLink {
            adapter,
            process,
            dap,
            caps: OnceLock::new(),
            warm_start,
            warm_claimed: AtomicBool::new(false),
        }
    }

    pub(super) fn adapter(&self) -> &dyn DebugAdapter {
        &*self.adapter
    }

    /// The adapter, for work that outlives the borrow (a blocking task).
    pub(super) fn adapter_owned(&self) -> Arc<dyn DebugAdapter> {
        self.adapter.clone()
    }

    pub(super) fn process(&self) -> &AdapterProcess {
        &self.process
    }

    pub(super) fn dap(&self) -> &DapClient {
        &self.dap
    }

    /// Records what the adapter said it can do, once the configuration sequence is done.
    pub(super) fn configured(&self, caps: Capabilities) {
        let _ = self.caps.set(caps);
    }

    /// What the adapter said it can do in `initialize`: nothing, before it has answered.
    pub(super) fn capabilities(&self) -> &Capabilities {
        static NOTHING: LazyLock<Capabilities> = LazyLock::new(Capabilities::default);
        self.caps.get().unwrap_or(&NOTHING)
    }

    pub(super) fn warm_start(&self) -> bool {
        self.warm_start
    }

    /// The adapter's pid while it runs.
    pub(super) fn pid(&self) -> Option<u32> {
        self.process.pid.filter(|_| !self.process.has_exited())
    }

    /// The adapter, for a warm one of its kind to follow the session, once: `None` after the
    /// first claim, and for an adapter that is never kept warm.
    pub(super) fn claim_warm_successor(&self) -> Option<Arc<dyn DebugAdapter>> {
        (!self.warm_claimed.swap(true, Ordering::SeqCst)
            && self.adapter.profile().warm.keeps_warm())
        .then(|| self.adapter.clone())
    }
}
