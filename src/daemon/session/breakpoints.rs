//! Breakpoints in a live session: adding, removing, enabling, modifying them, and keeping the
//! adapter's lists in line with the registry.
//!
//! The registry (`daemon/breakpoints.rs`) is the truth; every change re-sends the lists it
//! touches, serialised by one async lock so two concurrent `break` commands cannot interleave
//! their `setBreakpoints` lists. Stops are mapped back to our ids here too.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::sources::Placement;
use super::{Session, Shared, brief_stop, pending_lines};
use crate::adapters::process::BoxFuture;
use crate::adapters::{Requests, rust_expressions};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::Location;
use crate::daemon::breakpoints::{PlacementNote, RefusedCondition, Registry, Target};
use crate::daemon::run_state::StopInfo;
use crate::dap::requests::{BreakpointList, Encoded, SetBreakpoints, SetDataBreakpoints};
use crate::dap::{DapClient, DapError};
use crate::ipc::protocol::{BreakpointChange, BreakpointInfo, BreakpointSpec, Change, StopReason};

/// The breakpoints of a session, kept across restarts.
#[derive(Default)]
pub struct Breakpoints {
    registry: Mutex<Registry>,
    /// Held while a target's list is sent, so concurrent changes cannot interleave re-sends.
    pub(super) sync: tokio::sync::Mutex<()>,
}

impl Breakpoints {
    pub(super) fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a breakpoint without telling any adapter (the next configuration phase will).
    pub fn add(&self, spec: BreakpointSpec) -> u32 {
        self.registry().add(spec)
    }

    pub fn list(&self) -> Vec<BreakpointInfo> {
        let registry = self.registry();
        registry.users().map(|e| registry.describe(e)).collect()
    }
}

impl Session {
    pub fn breakpoints(&self) -> &Arc<Breakpoints> {
        &self.shared.breakpoints
    }

    pub async fn add_breakpoint(&self, spec: BreakpointSpec) -> Result<BreakpointInfo, ErrorBody> {
        if matches!(spec.location, Location::Data { .. }) {
            return self.add_watchpoint(spec).await;
        }
        self.add_breakpoints(vec![spec])
            .await?
            .pop()
            .ok_or_else(|| ErrorBody::internal("a new breakpoint vanished"))
    }

    /// Adds line and function breakpoints together: each target's list is sent once, so 1,000
    /// breakpoints in 100 files cost 100 `setBreakpoints`, not 1,000. Each file is placed first
    /// (see `sources.rs`); an ambiguous name or a line past the end adds none of them.
    pub async fn add_breakpoints(
        &self,
        specs: Vec<BreakpointSpec>,
    ) -> Result<Vec<BreakpointInfo>, ErrorBody> {
        if specs
            .iter()
            .any(|s| matches!(s.location, Location::Data { .. }))
        {
            return Err(ErrorBody::usage(
                "watchpoints are added one at a time",
                "use 'debugger watch EXPR' for each",
            ));
        }
        for spec in &specs {
            self.check_rust_condition(spec)?;
        }
        let mut placed = Vec::with_capacity(specs.len());
        for spec in specs {
            placed.push(self.placed(spec).await?);
        }
        let _sync = self.shared.breakpoints.sync.lock().await;
        let (ids, mut targets) = {
            let mut registry = self.shared.breakpoints.registry();
            let ids: Vec<u32> = placed
                .into_iter()
                .map(|(spec, note)| {
                    let location = spec.location.clone();
                    let id = registry.add(spec);
                    registry.place(id, location, note);
                    id
                })
                .collect();
            let targets: Vec<Target> = ids
                .iter()
                .filter_map(|id| registry.get(*id).map(|e| e.target()))
                .collect();
            (ids, targets)
        };
        targets.sort();
        targets.dedup();
        let added = self.sync_and_describe(&targets, &ids).await;
        let refused = self.shared.breakpoints.registry().refused_conditions(&ids);
        if refused.is_empty() {
            return Ok(added);
        }
        // Nothing of a `break` that failed stays: the others it added go too, as they would
        // had the command been refused before anything was sent.
        let targets = self.shared.breakpoints.registry().remove(&ids);
        for target in &targets {
            self.sync_target(target).await;
        }
        Err(refusal_error(&refused, false, "nothing was added"))
    }

    /// Refuses a condition in a Rust file that calls a method of the standard library
    /// (`v.len() > 3`): the adapter evaluates conditions itself and cannot call such a method,
    /// which the program compiled inline; `print` reads it, a condition would only fail at
    /// every hit.
    fn check_rust_condition(&self, spec: &BreakpointSpec) -> Result<(), ErrorBody> {
        let rust_file = matches!(&spec.location, Location::Line { file, .. }
            if file.extension().is_some_and(|e| e == "rs"));
        let Some(condition) = spec.condition.as_deref() else {
            return Ok(());
        };
        if !rust_file || self.adapter().profile().rust_reading.is_none() {
            return Ok(());
        }
        match rust_expressions::condition_refusal(condition) {
            Some((message, hint)) => Err(ErrorBody::usage(
                format!("breakpoint at {}: {message}", spec.location),
                hint,
            )),
            None => Ok(()),
        }
    }

    /// `spec` with its file placed, and the note for a file found nowhere.
    async fn placed(
        &self,
        mut spec: BreakpointSpec,
    ) -> Result<(BreakpointSpec, Option<PlacementNote>), ErrorBody> {
        let Location::Line { file, line } = &spec.location else {
            return Ok((spec, None));
        };
        let line = *line;
        let placement = self
            .shared
            .sources
            .place(self.dap(), &self.shared, file, line)
            .await?;
        Ok(match placement {
            Placement::File(file) => {
                spec.location = Location::Line { file, line };
                (spec, None)
            }
            Placement::Unplaced(note) => (spec, Some(note)),
        })
    }

    pub async fn remove_breakpoints(&self, ids: &[u32], all: bool) -> Result<Vec<u32>, ErrorBody> {
        let _sync = self.shared.breakpoints.sync.lock().await;
        let (removed, targets) = {
            let mut registry = self.shared.breakpoints.registry();
            let ids: Vec<u32> = if all {
                registry.users().map(|e| e.id).collect()
            } else {
                check_known(&registry, ids)?;
                ids.to_vec()
            };
            let targets = registry.remove(&ids);
            (ids, targets)
        };
        for target in &targets {
            self.sync_target(target).await;
        }
        Ok(removed)
    }

    pub async fn enable_breakpoints(
        &self,
        ids: &[u32],
        enabled: bool,
    ) -> Result<Vec<BreakpointInfo>, ErrorBody> {
        let _sync = self.shared.breakpoints.sync.lock().await;
        let targets = {
            let mut registry = self.shared.breakpoints.registry();
            check_known(&registry, ids)?;
            registry.update(ids, |e| {
                std::mem::replace(&mut e.enabled, enabled) != enabled
            })
        };
        Ok(self.sync_and_describe(&targets, ids).await)
    }

    /// Changes breakpoints in place: each keeps its id, and each list it is in is sent again
    /// (`setBreakpoints` replaces a file's whole list), so the adapter holds the new condition,
    /// hit count or log message before the program runs on.
    pub async fn modify_breakpoints(
        &self,
        ids: &[u32],
        change: &BreakpointChange,
    ) -> Result<Vec<BreakpointInfo>, ErrorBody> {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let _sync = self.shared.breakpoints.sync.lock().await;
        let mut before = Vec::with_capacity(ids.len());
        let targets = {
            let mut registry = self.shared.breakpoints.registry();
            check_known(&registry, &ids)?;
            before.extend(
                ids.iter()
                    .filter_map(|id| registry.get(*id).map(|e| (e.id, e.spec.clone()))),
            );
            if change.log_message != Change::Keep
                && let Some(watchpoint) = ids
                    .iter()
                    .filter_map(|id| registry.get(*id))
                    .find(|e| e.is_watchpoint())
            {
                return Err(ErrorBody::usage(
                    format!(
                        "breakpoint {} is a watchpoint, which cannot log",
                        watchpoint.id
                    ),
                    "change its --condition or --hit-count; a logpoint goes on a line or a \
                     function ('debugger break LOC --log MESSAGE')",
                ));
            }
            registry.update(&ids, |e| change.apply(&mut e.spec))
        };
        let modified = self.sync_and_describe(&targets, &ids).await;
        let refused = self.shared.breakpoints.registry().refused_conditions(&ids);
        if refused.is_empty() {
            return Ok(modified);
        }
        // The breakpoints stay as they were before the refused change.
        let targets = self.shared.breakpoints.registry().update(&ids, |e| {
            let old = before.iter().find(|(id, _)| *id == e.id);
            old.is_some_and(|(_, spec)| {
                e.spec = spec.clone();
                true
            })
        });
        for target in &targets {
            self.sync_target(target).await;
        }
        Err(refusal_error(
            &refused,
            true,
            "the breakpoints keep what they had before this change",
        ))
    }

    /// Sends each target's list, then describes the breakpoints `ids` as the adapter left them.
    /// The caller holds the sync lock.
    async fn sync_and_describe(&self, targets: &[Target], ids: &[u32]) -> Vec<BreakpointInfo> {
        for target in targets {
            self.sync_target(target).await;
        }
        let registry = self.shared.breakpoints.registry();
        ids.iter()
            .filter_map(|id| registry.get(*id).map(|e| registry.describe(e)))
            .collect()
    }

    /// Sends one target's list and records the answer. The caller holds the sync lock.
    pub(super) async fn sync_target(&self, target: &Target) {
        if self.shared.run.get().phase.is_ended() {
            let ids = self.shared.breakpoints.registry().sync_request(target).ids;
            self.shared.breakpoints.registry().apply_failure(
                &ids,
                "the program has ended; this applies when it runs again ('debugger restart')",
            );
            return;
        }
        send_target(self.dap(), &self.shared, target).await;
    }
}

/// The usage error for conditions the adapter refused, one line each (`named`: by the
/// breakpoints' ids as well as their locations), and what became of the command's change.
pub(super) fn refusal_error(refused: &[RefusedCondition], named: bool, outcome: &str) -> ErrorBody {
    let lines: Vec<String> = refused.iter().map(|r| r.sentence(named)).collect();
    ErrorBody::usage(
        lines.join("\n"),
        format!(
            "{outcome}; write the condition in the program's language, with names in scope at that line"
        ),
    )
}

fn check_known(registry: &Registry, ids: &[u32]) -> Result<(), ErrorBody> {
    let unknown = registry.unknown(ids);
    if unknown.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = unknown.iter().map(u32::to_string).collect();
    Err(ErrorBody::new(
        ErrorCode::NotFound,
        format!("no breakpoint {}", list.join(", ")),
        "`debugger breakpoint list` shows the breakpoints and their ids",
    ))
}

/// Places the files of the breakpoints given before the program started (`start --break`), now
/// that the adapter can be asked about the program's files. An ambiguous name or a line past
/// the end cannot fail a start that is under way: the breakpoint stays pending with that reason.
pub(super) async fn place_initial_breakpoints(dap: &DapClient, shared: &Shared) {
    let unplaced = shared.breakpoints.registry().unplaced_lines();
    for (id, file, line) in unplaced {
        let (location, note) = match shared.sources.place(dap, shared, &file, line).await {
            Ok(Placement::File(file)) => (Location::Line { file, line }, None),
            Ok(Placement::Unplaced(note)) => (Location::Line { file, line }, Some(note)),
            // The error's lines (an ambiguity's candidates) folded into one pending message.
            Err(e) => (
                Location::Line { file, line },
                Some(PlacementNote {
                    message: format!(
                        "{}; {}",
                        e.message.replace(":\n  ", ": ").replace("\n  ", ", "),
                        e.hint
                    ),
                    adapter_first: false,
                    held_back: true,
                }),
            ),
        };
        shared.breakpoints.registry().place(id, location, note);
    }
}

pub(super) async fn send_target(dap: &DapClient, shared: &Shared, target: &Target) {
    for moved in prepare_new(dap, shared, target).await {
        send_list(dap, shared, &moved).await;
    }
    send_list(dap, shared, target).await;
    pending_lines::explain(dap, shared, target).await;
}

/// Lets the adapter ready the breakpoints of `target` it has not been sent yet (see
/// `BreakpointHooks::prepare`), and moves those it asks to move; returns the other
/// targets they moved to, whose lists must now be sent too (a move within `target` goes with its
/// own list). The caller holds the sync lock.
async fn prepare_new(dap: &DapClient, shared: &Shared, target: &Target) -> Vec<Target> {
    let fresh: Vec<(u32, Location)> = shared
        .breakpoints
        .registry()
        .entries()
        .iter()
        .filter(|e| e.enabled && e.adapter_id.is_none() && !e.is_watchpoint())
        .filter(|e| &e.target() == target)
        .map(|e| (e.id, e.spec.location.clone()))
        .collect();
    let requests = AtAStop { dap, shared };
    let mut moved = Vec::new();
    for (id, location) in fresh {
        let Some(place) = shared
            .link
            .adapter()
            .breakpoints()
            .prepare(&location, &requests)
            .await
        else {
            continue;
        };
        if let Some(entry) = shared.breakpoints.registry().get_mut(id) {
            tracing::info!(id, from = %location, to = %place, "the adapter moved a breakpoint");
            entry.spec.location = place;
            moved.push(entry.target());
        }
    }
    moved.sort();
    moved.dedup();
    moved.retain(|t| t != target);
    moved
}

/// Sends one target's list and records the answer, one request per new function breakpoint.
async fn send_list(dap: &DapClient, shared: &Shared, target: &Target) {
    let breakpoints = &shared.breakpoints;
    // New function breakpoints go one per request: see `Registry::sync_request_limited`.
    let one_at_a_time = *target == Target::Functions;
    loop {
        let request = {
            let registry = breakpoints.registry();
            if one_at_a_time {
                registry.sync_request_limited(target, 1)
            } else {
                registry.sync_request(target)
            }
        };
        let requests: &dyn Requests = &AtAStop { dap, shared };
        let answer = match &request.list {
            BreakpointList::Functions(sent) => {
                shared
                    .link
                    .adapter()
                    .breakpoints()
                    .set_function_breakpoints(requests, sent.clone())
                    .await
            }
            BreakpointList::Source(sent) => requests
                .request::<SetBreakpoints>(sent)
                .await
                .map_err(ErrorBody::from),
            BreakpointList::Data(sent) => requests
                .request::<SetDataBreakpoints>(sent)
                .await
                .map_err(ErrorBody::from),
        };
        match answer {
            Ok(body) => {
                let mut answer = body.breakpoints;
                shared
                    .link
                    .adapter()
                    .breakpoints()
                    .review(&request.list, &mut answer);
                let refusal = shared.link.adapter().profile().conditions.refusal;
                let mut registry = breakpoints.registry();
                registry.apply_answer(&request.ids, &answer, refusal);
                registry.mirror_duplicates(&request.ids);
            }
            Err(e) => {
                breakpoints
                    .registry()
                    .apply_failure(&request.ids, &e.message);
                return;
            }
        }
        let registry = breakpoints.registry();
        // Stop when the adapter has answered for every entry, or when it left one of this
        // request's out of its answer (sending it again would get no further).
        if !one_at_a_time
            || registry.unanswered_count(target) == 0
            || request
                .ids
                .iter()
                .any(|id| registry.get(*id).is_some_and(|e| !e.answered))
        {
            return;
        }
    }
}

/// The session's line to the adapter as an adapter's hook sees it: requests go as
/// [`send_target`] sends its own, inside a pause where the adapter needs one.
struct AtAStop<'a> {
    dap: &'a DapClient,
    shared: &'a Shared,
}

impl Requests for AtAStop<'_> {
    fn send_encoded(&self, request: Encoded) -> BoxFuture<'_, Result<Value, DapError>> {
        Box::pin(brief_stop::encoded_at_a_stop(
            self.dap,
            self.shared,
            request,
        ))
    }
}

/// Our ids of the breakpoints (or watchpoints) a stop names.
pub(super) fn hit_breakpoints(shared: &Shared, stop: &StopInfo) -> Vec<u32> {
    let mut adapter_ids = stop.hit_breakpoint_ids.clone();
    let watchpoint = stop.reason == StopReason::Watchpoint;
    if adapter_ids.is_empty() && (stop.reason == StopReason::Breakpoint || watchpoint) {
        // lldb-dap names the breakpoint in its description: "breakpoint 2.1", "watchpoint 1".
        let prefix = if watchpoint {
            "watchpoint "
        } else {
            "breakpoint "
        };
        if let Some(id) = stop
            .description
            .as_deref()
            .and_then(|d| d.strip_prefix(prefix))
            .and_then(|rest| rest.split('.').next())
            .and_then(|n| n.trim().parse::<i64>().ok())
        {
            adapter_ids.push(id);
        }
    }
    shared
        .breakpoints
        .registry()
        .ids_for_adapter_ids(&adapter_ids, watchpoint)
}
