//! What the adapter said of the registry's entries, recorded on them: its answers to the
//! breakpoint requests, its `breakpoint` events, the stops that name them, and a condition it
//! refused.
//!
//! Apart from the registry's own bookkeeping (ids, what is sent) because this is the other
//! direction: the adapter's word, which the entries follow.

use super::{Entry, Registry, bound_file};
use crate::common::location::Location;
use crate::dap::types::Breakpoint as DapBreakpoint;

/// An entry whose condition the adapter refused, as a `break` or `modify` that asked for it is
/// told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedCondition {
    pub id: u32,
    /// The location as the user gave it.
    pub location: String,
    pub condition: String,
    /// The adapter's words.
    pub message: String,
}

impl RefusedCondition {
    /// `the condition 'x ==' of breakpoint 2 (t.c:3) does not compile: <the adapter's words>`.
    pub fn sentence(&self, named: bool) -> String {
        let which = match named {
            true => format!("breakpoint {} ({})", self.id, self.location),
            false => self.location.clone(),
        };
        format!(
            "the condition '{}' of {which} does not compile: {}",
            self.condition, self.message
        )
    }
}

impl Registry {
    /// Records the adapter's answer to a [`super::SyncRequest`]; `refusal` reads an answer that
    /// refuses its breakpoint's condition (`adapters::ConditionHandling::refusal`).
    ///
    /// Entries whose adapter id reappears in the answer keep it; the rest are paired with the
    /// remaining answers in order (the order DAP promises).
    pub fn apply_answer(
        &mut self,
        ids: &[u32],
        answer: &[DapBreakpoint],
        refusal: impl Fn(&DapBreakpoint) -> Option<String>,
    ) {
        let mut used = vec![false; answer.len()];
        let mut pairs: Vec<(u32, usize)> = Vec::with_capacity(ids.len());
        let mut unpaired: Vec<u32> = Vec::new();
        for id in ids {
            let known = self.get(*id).and_then(|e| e.adapter_id);
            let found = known.and_then(|a| {
                answer
                    .iter()
                    .enumerate()
                    .position(|(i, bp)| !used[i] && bp.id == Some(a))
            });
            match found {
                Some(i) => {
                    used[i] = true;
                    pairs.push((*id, i));
                }
                None => unpaired.push(*id),
            }
        }
        let mut free = (0..answer.len()).filter(|i| !used[*i]);
        for id in unpaired {
            if let Some(i) = free.next() {
                pairs.push((id, i));
            }
        }
        for (id, i) in pairs {
            let bp = &answer[i];
            if let Some(entry) = self.entries.iter_mut().find(|e| e.id == id) {
                // A breakpoint the program stopped at is there, whatever the adapter guesses
                // on a later send of the same place (debugpy's answer for a function).
                entry.verified = bp.verified || entry.hit;
                entry.message = bp
                    .message
                    .clone()
                    .filter(|m| !m.is_empty() && (bp.verified || !entry.hit));
                entry.adapter_id = bp.id;
                entry.answered = true;
                // Line 0 is no line: what lldb answers for a function without debug info.
                entry.resolved_line = bp.line.filter(|line| *line > 0);
                entry.adapter_file = bound_file(bp);
                entry.condition_refused = entry
                    .spec
                    .condition
                    .as_ref()
                    .and_then(|_| refusal(bp))
                    .filter(|_| !bp.verified);
            }
        }
    }

    /// Gives each breakpoint left out of a request as a twin (see `TwinKey`) the state of the
    /// entry that was sent for both.
    pub fn mirror_duplicates(&mut self, sent: &[u32]) {
        let sent_entries: Vec<Entry> = self
            .entries
            .iter()
            .filter(|e| sent.contains(&e.id))
            .cloned()
            .collect();
        for entry in self.entries.iter_mut().filter(|e| !sent.contains(&e.id)) {
            let Some(key) = entry.twin_key() else {
                continue;
            };
            let twin = sent_entries
                .iter()
                .find(|s| s.twin_key().as_ref() == Some(&key));
            if let Some(twin) = twin.filter(|_| entry.enabled) {
                entry.verified = twin.verified;
                entry.message = twin.message.clone();
                entry.adapter_id = twin.adapter_id;
                entry.answered = twin.answered;
                entry.resolved_line = twin.resolved_line;
                entry.adapter_file = twin.adapter_file.clone();
                entry.condition_refused = twin.condition_refused.clone();
            }
        }
    }

    /// Records the failure of a [`super::SyncRequest`] on each of its entries: the adapter holds
    /// none of them, so each is new to it again.
    pub fn apply_failure(&mut self, ids: &[u32], message: &str) {
        for entry in self.entries.iter_mut().filter(|e| ids.contains(&e.id)) {
            entry.verified = false;
            entry.message = Some(message.to_string());
            entry.adapter_id = None;
            entry.answered = false;
        }
    }

    /// Applies a `breakpoint` event (the adapter resolved or moved one later).
    pub fn apply_event(&mut self, reason: &str, bp: &DapBreakpoint) {
        let Some(adapter_id) = bp.id else {
            return;
        };
        // Watchpoints have ids of their own kind (lldb numbers them apart); these events are
        // about breakpoints.
        let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.adapter_id == Some(adapter_id) && !e.is_watchpoint())
        else {
            return;
        };
        if reason == "removed" {
            entry.verified = false;
            entry.hit = false;
            entry.adapter_id = None;
            return;
        }
        entry.verified = bp.verified;
        entry.hit &= bp.verified;
        if bp.message.is_some() || bp.verified {
            entry.message = bp.message.clone().filter(|m| !m.is_empty());
        }
        if let Some(line) = bp.line.filter(|line| *line > 0) {
            entry.resolved_line = Some(line);
        }
        if let Some(file) = bound_file(bp) {
            entry.adapter_file = Some(file);
        }
    }

    /// Records that the program stopped at the breakpoints `ids`: whatever the adapter said
    /// before, each is in place (a pending guess of ours or the adapter's was wrong), until the
    /// adapter says otherwise or the run ends.
    pub fn mark_hit(&mut self, ids: &[u32]) {
        for entry in self.entries.iter_mut().filter(|e| ids.contains(&e.id)) {
            entry.hit = true;
            entry.verified = true;
            entry.message = None;
            entry.placement_note = None;
        }
    }

    /// Our ids for the adapter's ids (from a `stopped` event): of watchpoints for a stop on
    /// data, else of breakpoints, since adapters may number the two kinds apart.
    pub fn ids_for_adapter_ids(&self, adapter_ids: &[i64], watchpoints: bool) -> Vec<u32> {
        self.entries
            .iter()
            .filter(|e| e.is_watchpoint() == watchpoints)
            .filter(|e| e.adapter_id.is_some_and(|a| adapter_ids.contains(&a)))
            .map(|e| e.id)
            .collect()
    }

    /// The enabled breakpoints with a condition bound at `line` of `file` (as the adapter names
    /// it): which breakpoint a stop is at, for an adapter whose stop on a failed condition names
    /// none (Delve).
    pub fn conditional_at(&self, file: &str, line: u32) -> Vec<u32> {
        self.entries
            .iter()
            .filter(|e| e.enabled && e.spec.condition.is_some())
            .filter(|e| match &e.spec.location {
                Location::Line {
                    file: ours,
                    line: asked,
                } => {
                    e.resolved_line.unwrap_or(*asked) == line
                        && (e.adapter_file.as_deref() == Some(file) || ours.as_os_str() == file)
                }
                Location::Function { .. } => e.resolved_line == Some(line),
                Location::Data { .. } => false,
            })
            .map(|e| e.id)
            .collect()
    }

    /// The conditions the adapter refused among the entries `ids`.
    pub fn refused_conditions(&self, ids: &[u32]) -> Vec<RefusedCondition> {
        self.entries
            .iter()
            .filter(|e| ids.contains(&e.id) && e.enabled)
            .filter_map(|e| {
                Some(RefusedCondition {
                    id: e.id,
                    location: e
                        .spec
                        .requested
                        .clone()
                        .unwrap_or_else(|| e.spec.location.to_string()),
                    condition: e.spec.condition.clone()?,
                    message: e.condition_refused.clone()?,
                })
            })
            .collect()
    }
}
