//! The value a `finish` returned, read the way the adapter tells it (its row's
//! [`ReturnValueSource`]) and put in the finish's stop report.
//!
//! Apart from the report because only a finish asks for it, and each way costs a request or
//! two that no other stop should pay.

use super::Session;
use crate::adapters::console_answer;
use crate::adapters::return_value::{ReturnValueSource, ReturnedValue};
use crate::daemon::variables::{self, Limits};
use crate::dap::requests::{Evaluate, EvaluateArguments, Scopes, ScopesArguments};
use crate::dap::types::StackFrame;
use crate::ipc::protocol::StopReport;

impl Session {
    /// Fills in what a finish that stopped in the caller returned: the value, or why it is
    /// unknown. A finish that stopped elsewhere first (a breakpoint inside) returned nothing yet.
    pub(super) async fn add_return_value(&self, report: &mut StopReport) {
        if report.reason != "step" {
            return;
        }
        let (value, missing) = match self.selected_frame().await {
            Ok((_, _, frame)) => match self.adapter.return_value() {
                ReturnValueSource::LocalNamed(prefix) => (
                    self.returned_local(&frame, prefix).await,
                    "the adapter showed no return value here",
                ),
                ReturnValueSource::Scope { missing } => {
                    (self.returned_in_scope(&frame).await, missing)
                }
                ReturnValueSource::Console {
                    command,
                    read,
                    missing,
                } => (
                    self.returned_in_console(&frame, command, read).await,
                    missing,
                ),
                ReturnValueSource::Unknown(why) => (None, why),
            },
            Err(_) => (None, "the frame returned to could not be read"),
        };
        match value {
            Some(returned) => {
                report.return_value = Some(returned.value);
                report.return_type = returned.type_name;
            }
            None => report.return_value_unknown = Some(missing.to_string()),
        }
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

    /// The first variable of the frame's `returnValue` scope.
    async fn returned_in_scope(&self, frame: &StackFrame) -> Option<ReturnedValue> {
        let scopes = self
            .dap
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
            method_types: self.adapter.method_types(),
        };
        let expanded = variables::expand(&self.dap, root, Limits::for_locals(0, false))
            .await
            .ok()?;
        expanded.nodes.into_iter().next().map(|v| ReturnedValue {
            value: v.value,
            type_name: v.type_name,
        })
    }

    /// What the adapter's console answers to `command`, read by `read`.
    async fn returned_in_console(
        &self,
        frame: &StackFrame,
        command: &str,
        read: fn(&str) -> Option<ReturnedValue>,
    ) -> Option<ReturnedValue> {
        let answer = self
            .dap
            .request_typed::<Evaluate>(&EvaluateArguments::repl(command, Some(frame.id)))
            .await;
        read(&console_answer(answer).ok()?)
    }
}
