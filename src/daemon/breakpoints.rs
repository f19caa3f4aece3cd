//! The breakpoint registry: our stable ids, what the user asked for, and what the adapter said.
//!
//! DAP sets breakpoints per source file (`setBreakpoints` replaces the file's whole list), all
//! function breakpoints at once, and all data breakpoints (watchpoints) at once, and the
//! adapter's ids may change on every re-send. So the registry is the truth: each change re-sends
//! the affected list, and the answer, which comes back in the order sent, is mapped onto our
//! entries.
//!
//! Logpoints go to the adapter with a marker naming our id in front of the message, so their
//! lines can be told from everything else the adapter prints (see [`logpoint_line`]). Where the
//! adapter has no logpoints, they go as plain breakpoints and the session emulates them.

use std::path::PathBuf;

use crate::common::location::Location;
use crate::dap::requests::{
    BreakpointList, BreakpointOptions, BreakpointSource, DataBreakpoint, FunctionBreakpoint,
    SetBreakpointsArguments, SetDataBreakpointsArguments, SetFunctionBreakpointsArguments,
    SourceBreakpoint,
};
use crate::dap::types::Breakpoint as DapBreakpoint;
use crate::ipc::protocol::{BreakpointInfo, BreakpointKind, BreakpointSpec};

mod answers;
pub use answers::RefusedCondition;

#[derive(Debug, Clone)]
pub struct Entry {
    pub id: u32,
    pub spec: BreakpointSpec,
    pub enabled: bool,
    pub verified: bool,
    pub message: Option<String>,
    pub adapter_id: Option<i64>,
    /// The adapter has answered for this entry, with or without an id (Delve gives none to a
    /// name it could not set): it is no longer new (see [`Registry::sync_request_limited`]).
    pub answered: bool,
    pub resolved_line: Option<u32>,
    /// The file the adapter bound a name we could not place to (lldb, GDB and node match a
    /// relative name themselves), from its answer's `source`.
    pub adapter_file: Option<String>,
    /// A watchpoint's handle from `dataBreakpointInfo`, and the adapter's words for the data.
    pub data: Option<DataHandle>,
    /// Why the file could not be placed (see `session/sources.rs`), shown while the adapter
    /// has not bound the breakpoint.
    pub placement_note: Option<PlacementNote>,
    /// The adapter's words refusing the condition, from its last answer: it does not compile.
    pub condition_refused: Option<String>,
    /// The program stopped here in this run: it is in place, whatever was said before.
    pub hit: bool,
    /// The session's own (a test's failure function), not the user's: unlisted, with an id
    /// from [`INTERNAL_IDS`] on.
    pub internal: bool,
}

/// Where the ids of the session's own breakpoints start, far from the user's numbering.
pub const INTERNAL_IDS: u32 = 1 << 30;

/// The absolute file a verified breakpoint was bound in, as the adapter's answer names it.
fn bound_file(bp: &DapBreakpoint) -> Option<String> {
    let path = bp.source.as_ref()?.path.as_deref()?;
    (bp.verified && std::path::Path::new(path).is_absolute()).then(|| path.to_string())
}

/// Our word on a breakpoint whose file we could not place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementNote {
    pub message: String,
    /// The adapter places such names itself (lldb, GDB, node), so its own message, when it
    /// gives one, says more than ours ("no script named x.js has loaded yet").
    pub adapter_first: bool,
    /// The adapter is not told of it: an ambiguous name or a line past the end, which an
    /// adapter that places names itself would set somewhere the user did not mean.
    pub held_back: bool,
}

/// What `dataBreakpointInfo` answered for a watchpoint: kept across restarts (lldb runs the
/// program at the same addresses each time), so the watchpoint can be set again.
#[derive(Debug, Clone)]
pub struct DataHandle {
    pub data_id: String,
    pub description: String,
    /// The watched value when last seen, for the "old value" of the next hit.
    pub last_value: Option<String>,
    /// The function of the frame it was set in: a hit elsewhere (a field written by a method
    /// the watching frame called) reads it again in the nearest frame of that function.
    pub function: String,
}

/// Which DAP request carries an entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    File(PathBuf),
    Functions,
    Data,
}

/// What a logpoint's marker starts with: the adapter prints `MARKER<id>;<message>`.
const LOG_MARKER: &str = "debugger-logpoint:";

/// The message sent to the adapter for logpoint `id`.
fn marked_log_message(id: u32, message: &str) -> String {
    format!("{LOG_MARKER}{id};{message}")
}

/// Splits a logpoint's output (as the adapter printed it) into our id and the message; `None`
/// for any other output. Some adapters put a prefix of their own in front (Delve: "> [Go 1]: ").
pub fn logpoint_line(output: &str) -> Option<(u32, &str)> {
    let start = output.find(LOG_MARKER)?;
    if output[..start].contains('\n') {
        return None;
    }
    let rest = &output[start + LOG_MARKER.len()..];
    let (id, message) = rest.split_once(';')?;
    Some((id.parse().ok()?, message.trim_end_matches(['\r', '\n'])))
}

/// What makes two entries one breakpoint to the adapter, so that it is sent once and the other
/// mirrors it: a function's name (adapters collapse a repeated name in their answer, as lldb-dap
/// does, which would misalign it), or a line with the same condition and hit count (GDB keys its
/// breakpoints by what was sent: a second identical one would never be removed). Logpoints carry
/// their own id in the message, so none is ever identical to another.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TwinKey<'a> {
    Function(&'a str),
    Line {
        file: &'a std::path::Path,
        line: u32,
        condition: Option<&'a str>,
        hit_count: Option<u32>,
    },
}

impl Entry {
    fn twin_key(&self) -> Option<TwinKey<'_>> {
        match &self.spec.location {
            Location::Function { name } => Some(TwinKey::Function(name)),
            Location::Line { file, line } if self.spec.log_message.is_none() => {
                Some(TwinKey::Line {
                    file,
                    line: *line,
                    condition: self.spec.condition.as_deref(),
                    hit_count: self.spec.hit_count,
                })
            }
            Location::Line { .. } | Location::Data { .. } => None,
        }
    }

    pub fn target(&self) -> Target {
        match &self.spec.location {
            Location::Line { file, .. } => Target::File(file.clone()),
            Location::Function { .. } => Target::Functions,
            Location::Data { .. } => Target::Data,
        }
    }

    pub fn is_watchpoint(&self) -> bool {
        matches!(self.spec.location, Location::Data { .. })
    }

    pub fn info(&self) -> BreakpointInfo {
        let (kind, file, line, function, access) = match &self.spec.location {
            Location::Line { file, line } => (
                BreakpointKind::Line,
                Some(
                    self.adapter_file
                        .clone()
                        .filter(|_| !file.is_absolute())
                        .unwrap_or_else(|| file.display().to_string()),
                ),
                Some(*line),
                None,
                None,
            ),
            Location::Function { name } => (
                BreakpointKind::Function,
                None,
                None,
                Some(name.clone()),
                None,
            ),
            Location::Data { access, .. } => {
                (BreakpointKind::Watch, None, None, None, Some(*access))
            }
        };
        BreakpointInfo {
            id: self.id,
            kind,
            location: self.spec.location.to_string(),
            requested: Some(
                self.spec
                    .requested
                    .clone()
                    .unwrap_or_else(|| self.spec.location.to_string()),
            ),
            file,
            line,
            function,
            condition: self.spec.condition.clone(),
            hit_count: self.spec.hit_count,
            enabled: self.enabled,
            verified: self.enabled && self.verified,
            message: if self.verified {
                self.message.clone()
            } else if let Some(refused) = &self.condition_refused {
                Some(format!("the condition does not compile: {refused}"))
            } else {
                match (&self.placement_note, &self.message) {
                    (Some(note), Some(message)) if note.adapter_first => Some(message.clone()),
                    (Some(note), _) => Some(note.message.clone()),
                    (None, message) => message.clone(),
                }
            },
            resolved_line: self.resolved_line.filter(|l| Some(*l) != line),
            log_message: self.spec.log_message.clone(),
            access,
            watching: self.data.as_ref().map(|d| d.description.clone()),
        }
    }
}

#[derive(Debug)]
pub struct Registry {
    next_id: u32,
    internal_count: u32,
    entries: Vec<Entry>,
    /// The adapter prints logpoint messages itself (`supportsLogPoints`); else the session
    /// emulates them.
    native_logpoints: bool,
    /// The adapter's `hitCondition` for a stop at the Nth hit (`ConditionHandling`).
    hit_condition: fn(u32) -> String,
    /// The program is a native one built without debug info (`common::debug_info`): its
    /// breakpoints say so where they would otherwise say a file or line cannot be found.
    pub program_without_debug_info: bool,
}

/// Why a line breakpoint stays pending in a program without debug info.
const NO_DEBUG_INFO_LINE: &str = "the program has no debug info (built without -g?), so no \
     FILE:LINE can bind in it; break on a function name, or rebuild it with -g";
/// What a function breakpoint in a program without debug info stops at.
const NO_DEBUG_INFO_FUNCTION: &str =
    "at its address only: the program has no debug info, so no source line or locals";

/// One DAP request that brings the adapter in line with the registry for a target.
#[derive(Debug)]
pub struct SyncRequest {
    pub command: &'static str,
    pub list: BreakpointList,
    /// Our ids, in the order of the request's breakpoint list.
    pub ids: Vec<u32>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            next_id: 0,
            internal_count: 0,
            entries: Vec::new(),
            native_logpoints: false,
            hit_condition: |hits| hits.to_string(),
            program_without_debug_info: false,
        }
    }
}

impl Registry {
    pub fn add(&mut self, spec: BreakpointSpec) -> u32 {
        self.add_with_data(spec, None)
    }

    /// Adds one of the session's own breakpoints (see [`Entry::internal`]).
    pub fn add_internal(&mut self, spec: BreakpointSpec) -> u32 {
        let id = INTERNAL_IDS + self.internal_count;
        self.internal_count += 1;
        self.push(id, spec, None, true);
        id
    }

    /// Adds an entry; a watchpoint comes with its handle from `dataBreakpointInfo`.
    pub fn add_with_data(&mut self, spec: BreakpointSpec, data: Option<DataHandle>) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        self.push(id, spec, data, false);
        id
    }

    fn push(&mut self, id: u32, spec: BreakpointSpec, data: Option<DataHandle>, internal: bool) {
        self.entries.push(Entry {
            id,
            spec,
            enabled: true,
            verified: false,
            message: None,
            adapter_id: None,
            answered: false,
            resolved_line: None,
            adapter_file: None,
            data,
            placement_note: None,
            condition_refused: None,
            hit: false,
            internal,
        });
    }

    /// Whether every one of `ids` (and at least one) is the session's own.
    pub fn all_internal(&self, ids: &[u32]) -> bool {
        !ids.is_empty()
            && ids
                .iter()
                .all(|id| self.get(*id).is_some_and(|e| e.internal))
    }

    /// Records where an entry's file was placed: the file it now names, or why none was found.
    /// Called before the entry's list is sent, which then goes to its new target.
    pub fn place(&mut self, id: u32, location: Location, note: Option<PlacementNote>) {
        if let Some(entry) = self.get_mut(id) {
            entry.spec.location = location;
            entry.placement_note = note;
        }
    }

    /// The line breakpoints whose file is not an absolute path yet: placed in the configuration
    /// phase, when the adapter can be asked about the program's files.
    pub fn unplaced_lines(&self) -> Vec<(u32, PathBuf, u32)> {
        self.entries
            .iter()
            .filter_map(|e| match &e.spec.location {
                Location::Line { file, line }
                    if !file.is_absolute() || e.placement_note.is_some() || !file.is_file() =>
                {
                    Some((e.id, file.clone(), *line))
                }
                _ => None,
            })
            .collect()
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.id == id)
    }

    pub fn get(&self, id: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Entry `e` as the user sees it, in a program without debug info said to be one.
    pub fn describe(&self, e: &Entry) -> BreakpointInfo {
        let mut info = e.info();
        if self.program_without_debug_info && info.enabled {
            match &e.spec.location {
                Location::Line { .. } if !info.verified => {
                    info.message = Some(NO_DEBUG_INFO_LINE.to_string());
                }
                Location::Function { .. } if info.verified && info.resolved_line.is_none() => {
                    info.message = Some(NO_DEBUG_INFO_FUNCTION.to_string());
                }
                _ => {}
            }
        }
        info
    }

    /// The ids among `ids` that are no breakpoint of the user's.
    pub fn unknown(&self, ids: &[u32]) -> Vec<u32> {
        ids.iter()
            .copied()
            .filter(|id| self.get(*id).is_none_or(|e| e.internal))
            .collect()
    }

    /// The user's breakpoints (all but the session's own).
    pub fn users(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| !e.internal)
    }

    /// Removes entries; returns the targets that need a re-send.
    pub fn remove(&mut self, ids: &[u32]) -> Vec<Target> {
        let mut targets: Vec<Target> = self
            .entries
            .iter()
            .filter(|e| ids.contains(&e.id))
            .map(Entry::target)
            .collect();
        self.entries.retain(|e| !ids.contains(&e.id));
        targets.sort();
        targets.dedup();
        targets
    }

    /// Changes entries in place (enables, disables, modifies them), keeping their ids; `edit`
    /// says whether it changed one. Returns the targets of those it changed: they need a re-send.
    pub fn update(&mut self, ids: &[u32], mut edit: impl FnMut(&mut Entry) -> bool) -> Vec<Target> {
        let mut targets = Vec::new();
        for entry in self.entries.iter_mut().filter(|e| ids.contains(&e.id)) {
            if edit(entry) {
                targets.push(entry.target());
            }
        }
        targets.sort();
        targets.dedup();
        targets
    }

    /// Every target that has entries (for the configuration phase of a launch).
    pub fn all_targets(&self) -> Vec<Target> {
        let mut targets: Vec<Target> = self.entries.iter().map(Entry::target).collect();
        targets.sort();
        targets.dedup();
        targets
    }

    /// Forgets what the adapter said (a new adapter is about to be told everything afresh), and
    /// learns whether this one prints logpoints itself and how it counts hits.
    pub fn reset_adapter_state(
        &mut self,
        native_logpoints: bool,
        hit_condition: fn(u32) -> String,
    ) {
        self.native_logpoints = native_logpoints;
        self.hit_condition = hit_condition;
        for entry in &mut self.entries {
            entry.verified = false;
            entry.message = None;
            entry.adapter_id = None;
            entry.answered = false;
            entry.resolved_line = None;
            entry.adapter_file = None;
            entry.condition_refused = None;
            entry.hit = false;
            // A new run: the value a watchpoint last saw is the old run's.
            if let Some(data) = &mut entry.data {
                data.last_value = None;
            }
        }
    }

    /// The request that makes the adapter's list for `target` match the enabled entries.
    pub fn sync_request(&self, target: &Target) -> SyncRequest {
        self.sync_request_limited(target, usize::MAX)
    }

    /// How many entries a request for `target` would carry that the adapter never answered for.
    pub fn unanswered_count(&self, target: &Target) -> usize {
        self.sendable(target)
            .iter()
            .filter(|e| e.adapter_id.is_none() && !e.answered)
            .count()
    }

    /// The entries a request for `target` carries, in order.
    fn sendable(&self, target: &Target) -> Vec<&Entry> {
        let mut sent_keys: Vec<TwinKey<'_>> = Vec::new();
        self.entries
            .iter()
            .filter(|e| e.enabled && &e.target() == target)
            // A watchpoint the adapter never described cannot be set.
            .filter(|e| !e.is_watchpoint() || e.data.is_some())
            .filter(|e| !e.placement_note.as_ref().is_some_and(|n| n.held_back))
            // Twins go once (see `TwinKey`); the others mirror the first's state.
            .filter(|e| match e.twin_key() {
                Some(key) if sent_keys.contains(&key) => false,
                Some(key) => {
                    sent_keys.push(key);
                    true
                }
                None => true,
            })
            .collect()
    }

    /// Like [`Registry::sync_request`], but with at most `max_new` entries the adapter has not
    /// answered for yet. Some adapters (lldb-dap 19) answer `setFunctionBreakpoints` in an order
    /// of their own, so new function breakpoints are sent one at a time: the one new id in each
    /// answer is then unambiguous. One answered without an id is not new: counting it would
    /// hold back every entry after it for good.
    pub fn sync_request_limited(&self, target: &Target, max_new: usize) -> SyncRequest {
        let mut new = 0;
        let selected: Vec<&Entry> = self
            .sendable(target)
            .into_iter()
            .filter(|e| {
                if e.adapter_id.is_some() || e.answered {
                    return true;
                }
                new += 1;
                new <= max_new
            })
            .collect();
        let ids = selected.iter().map(|e| e.id).collect();
        let options = |e: &Entry| BreakpointOptions {
            condition: e.spec.condition.clone(),
            hit_condition: e.spec.hit_count.map(self.hit_condition),
            log_message: e
                .spec
                .log_message
                .as_ref()
                .filter(|_| self.logs_natively(e))
                .map(|message| marked_log_message(e.id, message)),
        };
        // Each entry goes in its target's list; an entry of another kind cannot be selected for
        // a target (`Entry::target` follows the location), so none is dropped here.
        let list = match target {
            Target::File(path) => BreakpointList::Source(SetBreakpointsArguments {
                source: BreakpointSource {
                    path: path.clone(),
                    name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
                },
                breakpoints: selected
                    .iter()
                    .filter_map(|e| match &e.spec.location {
                        Location::Line { line, .. } => Some(SourceBreakpoint {
                            line: *line,
                            options: options(e),
                        }),
                        _ => None,
                    })
                    .collect(),
            }),
            Target::Functions => BreakpointList::Functions(SetFunctionBreakpointsArguments {
                breakpoints: selected
                    .iter()
                    .filter_map(|e| match &e.spec.location {
                        Location::Function { name } => Some(FunctionBreakpoint {
                            name: name.clone(),
                            options: options(e),
                        }),
                        _ => None,
                    })
                    .collect(),
            }),
            Target::Data => BreakpointList::Data(SetDataBreakpointsArguments {
                breakpoints: selected
                    .iter()
                    .filter_map(|e| match &e.spec.location {
                        Location::Data { access, .. } => Some(DataBreakpoint {
                            data_id: e.data.as_ref().map(|d| d.data_id.clone()),
                            access_type: access.as_str().to_string(),
                            options: options(e),
                        }),
                        _ => None,
                    })
                    .collect(),
            }),
        };
        SyncRequest {
            command: list.command(),
            list,
            ids,
        }
    }

    /// Whether the adapter prints `entry`'s log message itself: DAP has `logMessage` for source
    /// breakpoints only, so a logpoint on a function is always emulated.
    fn logs_natively(&self, entry: &Entry) -> bool {
        self.native_logpoints && matches!(entry.spec.location, Location::Line { .. })
    }

    /// The logpoints among `ids` that the session must emulate, with their messages; `None`
    /// when any of `ids` is a breakpoint that should stop (or a logpoint the adapter prints).
    pub fn emulated_logpoints(&self, ids: &[u32]) -> Option<Vec<(u32, String)>> {
        if ids.is_empty() {
            return None;
        }
        ids.iter()
            .map(|id| {
                let entry = self.get(*id).filter(|e| !self.logs_natively(e))?;
                Some((*id, entry.spec.log_message.clone()?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
