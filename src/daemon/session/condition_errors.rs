//! Why a stop at a breakpoint with a condition came: the condition held, or it could not be
//! evaluated. Every adapter stops where a condition fails (each made to: see
//! `adapters/conditions.rs`), and most say no more than for a condition that held. So unless the
//! adapter said so in the stop itself (Delve), the condition is evaluated again in the stopped
//! frame, and an error there is the report's `condition_error`, said at every such hit until the
//! condition is changed.
//!
//! Apart from `report.rs` because it is the one part of a report that runs the program's code
//! (a condition may call a function), and it is bounded on its own.

use std::time::Duration;

use super::Session;
use super::bounded_evaluation::clean_evaluate_error;
use crate::daemon::run_state::StopInfo;
use crate::dap::DapError;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::ipc::protocol::{StopReason, StopReport};

/// How long a condition evaluated again at its stop may take; past it, the stop is taken as the
/// condition's holding.
const CONDITION_TIMEOUT: Duration = Duration::from_secs(2);

/// `condition 'retx.length > 3' failed: ReferenceError: retx is not defined`.
fn failed(condition: &str, error: &str) -> String {
    format!("condition '{condition}' failed: {error}")
}

impl Session {
    /// Fills in `report.condition_error` for a stop at breakpoints (`report` located: its
    /// frame known), and, for an adapter whose stop on a failed condition names no breakpoint,
    /// which breakpoint it is (the conditional one bound at the stopped line).
    pub(super) async fn explain_condition(&self, stop: &StopInfo, report: &mut StopReport) {
        if report.reason != StopReason::Breakpoint {
            return;
        }
        if stop.condition_failure.is_some()
            && report.breakpoint_ids.is_empty()
            && let Some(frame) = &report.frame
            && let (Some(file), Some(line)) = (&frame.file, frame.line)
        {
            let mut registry = self.shared.breakpoints.registry();
            report.breakpoint_ids = registry.conditional_at(file, line);
            registry.mark_hit(&report.breakpoint_ids);
        }
        let conditions: Vec<String> = {
            let registry = self.shared.breakpoints.registry();
            report
                .breakpoint_ids
                .iter()
                .filter_map(|id| registry.get(*id)?.spec.condition.clone())
                .collect()
        };
        if let Some(failure) = &stop.condition_failure {
            report.condition_error = Some(match conditions.first() {
                Some(condition) => failed(condition, failure),
                None => format!("a breakpoint's condition failed: {failure}"),
            });
            return;
        }
        if conditions.is_empty() {
            return;
        }
        let (Some(thread_id), Some(frame)) = (report.thread_id, &report.frame) else {
            return;
        };
        let Ok((frames, _)) = self.frames(thread_id, frame.index + 1).await else {
            return;
        };
        let Some(frame_id) = frames.get(frame.index as usize).map(|f| f.id) else {
            return;
        };
        for condition in conditions {
            let arguments = EvaluateArguments::watch(&condition, Some(frame_id));
            let answer = tokio::time::timeout(
                CONDITION_TIMEOUT,
                self.dap().request_typed::<Evaluate>(&arguments),
            )
            .await;
            match answer {
                Ok(Err(error)) if error.is_not_stopped() => return,
                Ok(Err(DapError::Adapter { message, .. })) => {
                    let error = match clean_evaluate_error(&message) {
                        error if error.is_empty() => "the adapter gave no reason".to_string(),
                        error => error,
                    };
                    report.condition_error = Some(failed(&condition, &error));
                    return;
                }
                _ => {}
            }
        }
    }
}
