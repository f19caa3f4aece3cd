//! Why a line breakpoint the adapter left pending is pending, where the adapter's line tables
//! can tell (lldb, GDB: see `adapters::line_tables`).
//!
//! A relative file name goes to those adapters as typed when the session cannot place it, with a
//! note that no such file was found near the program; but the adapter may well have the file,
//! and the line no code. Once the adapter has answered, its line tables say which: a file of the
//! program whose line has no code is said to be so, with the nearest lines that have some.

use super::{Shared, brief_stop};
use crate::adapters::line_tables::no_code_reason;
use crate::common::location::Location;
use crate::daemon::breakpoints::{PlacementNote, Target};
use crate::dap::DapClient;
use crate::dap::requests::{Evaluate, EvaluateArguments};

/// [`explain`] for every file with a pending line breakpoint, once the program is loaded: GDB
/// reads it only as it launches, so its line tables are empty at configuration. The caller holds
/// the sync lock.
pub(super) async fn explain_all(dap: &DapClient, shared: &Shared) {
    let mut targets: Vec<Target> = shared
        .breakpoints
        .registry()
        .entries()
        .iter()
        .filter(|e| e.enabled && !e.verified && matches!(e.spec.location, Location::Line { .. }))
        .map(|e| e.target())
        .collect();
    targets.sort();
    targets.dedup();
    for target in &targets {
        explain(dap, shared, target).await;
    }
}

/// After `target`'s list has been sent: for its line breakpoints the adapter left pending, reads
/// the adapter's line tables of the file, and where the file is the program's but the line has
/// no code, makes that the breakpoint's pending reason. The caller holds the sync lock.
pub(super) async fn explain(dap: &DapClient, shared: &Shared, target: &Target) {
    let Target::File(file) = target else {
        return;
    };
    let pending: Vec<(u32, u32)> = shared
        .breakpoints
        .registry()
        .entries()
        .iter()
        .filter(|e| e.enabled && e.answered && !e.verified && e.target() == *target)
        .filter(|e| !e.placement_note.as_ref().is_some_and(|n| n.held_back))
        .filter_map(|e| match &e.spec.location {
            Location::Line { line, .. } => Some((e.id, *line)),
            _ => None,
        })
        .collect();
    if pending.is_empty() {
        return;
    }
    let Some(query) = (shared.link.adapter().profile().console.line_tables)(file) else {
        return;
    };
    let arguments = EvaluateArguments::repl(&query.command, None);
    let tables = match brief_stop::request_at_a_stop::<Evaluate>(dap, shared, &arguments).await {
        Ok(body) => (query.read)(&body.result),
        Err(e) => {
            tracing::debug!(command = query.command, error = %e, "no line tables");
            return;
        }
    };
    let mut registry = shared.breakpoints.registry();
    for (id, line) in pending {
        let Some(reason) = no_code_reason(file, line, &tables) else {
            continue;
        };
        if let Some(entry) = registry.get_mut(id) {
            entry.placement_note = Some(PlacementNote {
                message: reason,
                adapter_first: false,
                held_back: false,
            });
        }
    }
}
