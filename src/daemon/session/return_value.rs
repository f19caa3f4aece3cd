//! The value a `finish` returned, read the way the adapter tells it (its row's
//! [`ReturnValueSource`]) and put in the finish's stop report.
//!
//! Apart from the report because only a finish asks for it, and each way costs a request or
//! two that no other stop should pay.

use super::Session;
use super::displays::StopAsk;
use crate::adapters::console_answer;
use crate::adapters::return_value::{ReadingStep, ResultReading, ReturnValueSource, ReturnedValue};
use crate::daemon::run_state::{Phase, RunState};
use crate::daemon::variables::{self, Limits};
use crate::dap::requests::{Evaluate, EvaluateArguments, Scopes, ScopesArguments};
use crate::dap::types::StackFrame;
use crate::ipc::protocol::{StopReason, StopReport};

/// The most evaluations one reading of results may ask for (a Go string takes two per result).
const READING_STEPS: usize = 64;

/// What a finish learned before it left the function, for an adapter whose results are read
/// after the return ([`ReturnValueSource::Evaluated`]): how to read them, or why they cannot be.
pub(super) type Planned = Option<Result<PlannedReading, String>>;

/// How a finish's results are read, and where: only right after the call, in its caller.
pub(super) struct PlannedReading {
    reading: Box<dyn ResultReading>,
    caller: String,
}

impl Session {
    /// Before a finish leaves the top frame of `thread_id`: how its results will be read, for
    /// an adapter that reads them by evaluation (the others need nothing).
    pub(super) async fn plan_return_value(&self, thread_id: i64) -> Planned {
        let ReturnValueSource::Evaluated { plan } = self.adapter().profile().return_value else {
            return None;
        };
        let frames = match self.frames(thread_id, 2).await {
            Ok((frames, _)) => frames,
            Err(e) => return Some(Err(format!("the function's frame could not be read: {e}"))),
        };
        let [frame, caller, ..] = frames.as_slice() else {
            return Some(Err("the function has no caller to return to".into()));
        };
        if frame.instruction_pointer_reference.is_some()
            && frame.instruction_pointer_reference == caller.instruction_pointer_reference
        {
            // One machine frame for both: no call, so nothing was returned where a call returns.
            return Some(Err("the function was inlined into its caller".into()));
        }
        let locals = match self.frame_slots(frame).await {
            Ok(locals) => locals.variables,
            Err(e) => return Some(Err(format!("the function's locals could not be read: {e}"))),
        };
        let named: Vec<(String, Option<String>)> =
            locals.into_iter().map(|v| (v.name, v.type_name)).collect();
        Some(plan(&named).map(|reading| PlannedReading {
            reading,
            caller: caller.name.clone(),
        }))
    }

    /// What a finish that stopped in `state` returned: the value, or why it is unknown; `None`
    /// for a finish that stopped elsewhere first (a breakpoint inside), which returned nothing
    /// yet. Its requests go out beside the report's (see [`Session::finish_report`]).
    pub(super) async fn returned(
        &self,
        state: &RunState,
        planned: Planned,
    ) -> Option<Result<ReturnedValue, String>> {
        let Phase::Stopped(stop) = &state.phase else {
            return None;
        };
        if stop.reason != StopReason::Step {
            return None;
        }
        let returned = match self.selected_frame().await {
            Ok((_, _, frame)) => match self.adapter().profile().return_value {
                ReturnValueSource::LocalNamed(prefix) => self
                    .returned_local(&frame, prefix)
                    .await
                    .ok_or_else(|| "the adapter showed no return value here".to_string()),
                ReturnValueSource::Scope { missing } => {
                    match self.returned_in_scope(&frame).await {
                        Some(Some(returned)) => Ok(returned),
                        // An empty scope: the function returns nothing (Java's `void`).
                        Some(None) => return None,
                        None => Err(missing.to_string()),
                    }
                }
                ReturnValueSource::Console {
                    command,
                    read,
                    missing,
                } => self
                    .returned_in_console(&frame, command, read)
                    .await
                    .ok_or_else(|| missing.to_string()),
                ReturnValueSource::Evaluated { .. } => match planned {
                    Some(Ok(planned)) if planned.caller != frame.name => Err(format!(
                        "the step out stopped in {}, not back in {}",
                        frame.name, planned.caller
                    )),
                    Some(Ok(planned)) => {
                        self.returned_by_reading(&frame, planned.reading.as_ref())
                            .await
                    }
                    Some(Err(why)) => Err(why),
                    None => Err("its results were not looked up before it returned".into()),
                },
                ReturnValueSource::Unknown(why) => Err(why.to_string()),
            },
            Err(_) => Err("the frame returned to could not be read".into()),
        };
        Some(returned)
    }

    /// The report of a finish that settled in `state`, with what the function returned. The
    /// stack is read first, so the report and the return value share it, and their requests go
    /// to the adapter together.
    pub(super) async fn finish_report(
        &self,
        state: &RunState,
        ask: &StopAsk,
        planned: Planned,
    ) -> StopReport {
        if let Phase::Stopped(stop) = &state.phase
            && let Some(thread_id) = stop.thread_id
        {
            let _ = self.frames(thread_id, 1).await;
        }
        let (mut report, returned) =
            tokio::join!(self.report_with(state, ask), self.returned(state, planned));
        match returned {
            Some(Ok(returned)) => {
                report.return_value = Some(returned.value);
                report.return_type = returned.type_name;
            }
            Some(Err(why)) => report.return_value_unknown = Some(why),
            None => {}
        }
        report
    }

    /// The frame's local named `prefix...` (the last, the most recent call's, when a line made
    /// several).
    async fn returned_local(&self, frame: &StackFrame, prefix: &str) -> Option<ReturnedValue> {
        let locals = self
            .frame_locals(frame, Limits::for_locals(0, false))
            .await
            .ok()?;
        locals
            .variables
            .into_iter()
            .rev()
            .find(|v| v.name.starts_with(prefix))
            .map(|v| ReturnedValue {
                value: v.value,
                type_name: v.type_name,
            })
    }

    /// The first variable of the frame's `returnValue` scope; `Some(None)` when the scope is
    /// there and empty, for a function that returns nothing.
    async fn returned_in_scope(&self, frame: &StackFrame) -> Option<Option<ReturnedValue>> {
        let scopes = self
            .dap()
            .request_typed::<Scopes>(&ScopesArguments { frame_id: frame.id })
            .await
            .ok()?
            .scopes;
        let scope = scopes
            .iter()
            .find(|s| s.presentation_hint.as_deref() == Some("returnValue"))?;
        let root = variables::Root {
            reference: scope.variables_reference,
            known_count: variables::child_count(scope.named_variables, scope.indexed_variables),
            type_name: None,
            name: None,
            method_types: self.adapter().profile().method_types,
            reading: self.adapter().profile().value_reading,
        };
        let expanded = variables::expand(self.dap(), root, Limits::for_locals(0, false))
            .await
            .ok()?;
        Some(expanded.nodes.into_iter().next().map(|v| ReturnedValue {
            value: v.value,
            type_name: v.type_name,
        }))
    }

    /// What the adapter's console answers to `command`, read by `read`. The command reads the
    /// thread the adapter has selected, which a stop does not change: the finish's may be
    /// another (a test's, a spawned one's). A `scopes` request on `frame` selects its thread,
    /// as it does when a user picks a frame in an editor, so it goes first.
    async fn returned_in_console(
        &self,
        frame: &StackFrame,
        command: &str,
        read: fn(&str) -> Option<ReturnedValue>,
    ) -> Option<ReturnedValue> {
        if let Err(e) = self
            .dap()
            .request_typed::<Scopes>(&ScopesArguments { frame_id: frame.id })
            .await
        {
            tracing::debug!("the returned-to frame's scopes: {e}");
        }
        let answer = self
            .dap()
            .request_typed::<Evaluate>(&EvaluateArguments::repl(command, Some(frame.id)))
            .await;
        read(&console_answer(answer).ok()?)
    }

    /// The results read by evaluating in `frame` (the caller) what `reading` asks.
    async fn returned_by_reading(
        &self,
        frame: &StackFrame,
        reading: &dyn ResultReading,
    ) -> Result<ReturnedValue, String> {
        let mut answers = Vec::new();
        for _ in 0..READING_STEPS {
            match reading.next(&answers) {
                ReadingStep::Evaluate(expression) => {
                    let answer = self
                        .dap()
                        .request_typed::<Evaluate>(&EvaluateArguments::watch(
                            expression.as_str(),
                            Some(frame.id),
                        ))
                        .await
                        .map_err(|e| format!("'{expression}' could not be read: {e}"))?;
                    answers.push(answer.result);
                }
                ReadingStep::Done(done) => return done,
            }
        }
        Err("reading the results took too many steps".into())
    }
}
