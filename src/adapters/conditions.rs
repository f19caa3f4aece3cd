//! How an adapter deals with a breakpoint condition it cannot evaluate, which each does its own
//! way: lldb, GDB and our pdb stop there and say nothing more; Delve stops with a "runtime error"
//! of its own; debugpy and V8 take the condition as false unless told otherwise (see the
//! `debugpy` and `node` folders for how they are told); and some refuse a condition that does not
//! compile when it is set (GDB once it has read the program, Delve, our pdb and node adapters).
//!
//! The session reads [`ConditionHandling`] to stop, and say why, wherever a condition fails: a
//! stop the adapter does not explain is checked by evaluating the condition again in the stopped
//! frame (`session/condition_errors.rs`), and a refused condition is a usage error at `break`.

use serde_json::Value;

use crate::dap::types::{Breakpoint, StoppedEventBody};

/// What the session needs to know of an adapter's way with conditions that fail.
#[derive(Clone, Copy)]
pub struct ConditionHandling {
    /// Reads a stop that the adapter made because a condition failed, and says so in the stop
    /// itself: the adapter's message. `None`: not such a stop (a stop at a breakpoint with a
    /// condition is then checked by evaluating the condition again).
    pub failure_in_stop: fn(&StoppedEventBody) -> Option<String>,
    /// Reads the adapter's answer for a breakpoint sent with a condition: the adapter's message
    /// when the answer refuses the condition (it does not compile), `None` otherwise.
    pub refusal: fn(&Breakpoint) -> Option<String>,
    /// A request (command and arguments) sent in the configuration phase that makes the adapter
    /// stop where a condition fails, for an adapter that would take it as false.
    pub stop_on_failure_request: Option<SettingRequest>,
    /// The `hitCondition` that stops at the Nth hit: N, as DAP has it, but for an adapter that
    /// reads it as hits to ignore (GDB's `ignore_count`, which stops at the (N+1)th).
    pub hit_condition: fn(u32) -> String,
}

/// A request of the adapter's own that changes one of its settings.
#[derive(Clone, Copy)]
pub struct SettingRequest {
    pub command: &'static str,
    pub arguments: fn() -> Value,
}

impl ConditionHandling {
    /// An adapter's with no quirk of this kind.
    pub const DEFAULT: ConditionHandling = ConditionHandling {
        failure_in_stop: |_| None,
        refusal: |_| None,
        stop_on_failure_request: None,
        hit_condition: |hits| hits.to_string(),
    };
}

/// The message after `prefix` in an unverified answer: how an adapter of ours words a condition
/// it refused.
pub fn refused_with_prefix<'a>(answer: &'a Breakpoint, prefix: &str) -> Option<&'a str> {
    answer
        .message
        .as_deref()
        .filter(|_| !answer.verified)?
        .strip_prefix(prefix)
}
