//! Inspection of the stopped program: `context`, `locals`, `print`/`eval`, `set`, and the
//! adapter's own console (`raw`).
//!
//! Apart from frames and threads, which only find where to look: this is what is read and
//! written there, through scopes, variables and evaluation, with the adapter's error text cut
//! down to what a reader needs.

use std::time::Duration;

use super::bounded_evaluation::{EvaluationFailure, clean_evaluate_error};
use super::caller_frames::AskedBy;
use super::frames::frame_info;
use super::rust_evaluation::{RustFailure, RustForm, is_rust_frame};
use super::rust_pointer_names::Named;
use super::unloaded_values::cap_values;
use super::{Session, changes};
use crate::adapters::value_reading::ValueReading;
use crate::adapters::{console_answer, expression_errors};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::run_state::Phase;
use crate::daemon::variables::{self, Limits};
use crate::dap::DapError;
use crate::dap::requests::{
    Evaluate, EvaluateArguments, Scopes, ScopesArguments, SetExpression, SetExpressionArguments,
    SetVariable, SetVariableArguments, Variables, VariablesArguments,
};
use crate::dap::types::{EvaluateBody, StackFrame};
use crate::ipc::protocol::{
    ContextResult, EvaluateResult, LocalsResult, RawResult, SetResult, StopReason,
};

/// Source lines shown either side of the selection by `context`.
const CONTEXT_LINES: u32 = 5;

impl Session {
    /// Where the selection points, with source around it and (for `context`) the locals.
    pub async fn context(&self, with_locals: bool) -> Result<ContextResult, ErrorBody> {
        let state = self.shared.run.get();
        let (thread_id, index, frame) = self.selected_frame().await?;
        let reason = match &state.phase {
            Phase::Stopped(stop) => Some(stop.reason.clone()),
            _ => None,
        };
        let info = frame_info(index, &frame);
        let source = self.frame_snippet(&frame, &info, CONTEXT_LINES).await;
        let (variables, locals_error) = if with_locals {
            match self
                .frame_locals(&frame, Limits::for_locals(0, false))
                .await
            {
                Ok(locals) => (Some(locals.variables), None),
                Err(error) => (None, Some(error.message)),
            }
        } else {
            (None, None)
        };
        let exception = match &state.phase {
            Phase::Stopped(stop) if stop.reason == StopReason::Exception => {
                self.report(&state).await.exception
            }
            _ => None,
        };
        self.mark_seen();
        Ok(ContextResult {
            exception,
            state: state.phase.state(),
            reason,
            thread_id,
            thread_name: self
                .shared
                .view()
                .caches
                .thread_names
                .get(&thread_id)
                .cloned(),
            frame: info,
            source,
            variables,
            locals_error,
        })
    }

    /// The selected frame's locals, `depth` levels deep, `children` of each value (and of the
    /// frame) or [`variables::CHILDREN_SHOWN`]; values cut at a line's worth unless `full`.
    /// Each is marked when it changed since the frame's previous stop, and with `changed_only`
    /// only those are listed.
    pub async fn locals(
        &self,
        depth: u32,
        full: bool,
        changed_only: bool,
        children: Option<u64>,
    ) -> Result<LocalsResult, ErrorBody> {
        let (thread_id, index, frame) = self.selected_frame().await?;
        let generation = self.shared.run.get().generation;
        let limits = Limits::for_locals(depth, full).with_children(children);
        let mut result = self.frame_locals(&frame, limits).await?;
        let compared = match self.frame_key(thread_id, index).await {
            Some(key) => self.remember_locals(key, generation, &mut result.variables),
            None => false,
        };
        if changed_only {
            result.variables = changes::only_changed(std::mem::take(&mut result.variables));
            result.omitted = 0;
            result.compared = Some(compared);
        }
        self.mark_seen();
        Ok(result)
    }

    /// The selected frame's locals as they are, neither marked nor remembered: for `probe`,
    /// which tells each hit's changes its own way.
    pub async fn plain_locals(
        &self,
        depth: u32,
        children: Option<u64>,
    ) -> Result<LocalsResult, ErrorBody> {
        let (_, _, frame) = self.selected_frame().await?;
        let limits = Limits::for_locals(depth, false).with_children(children);
        let result = self.frame_locals(&frame, limits).await?;
        self.mark_seen();
        Ok(result)
    }

    /// `frame`'s locals as `locals` shows them: expanded under `limits`, with the parts of
    /// their values the adapter left unloaded read in (`unloaded_values`).
    pub(super) async fn frame_locals(
        &self,
        frame: &StackFrame,
        limits: Limits,
    ) -> Result<LocalsResult, ErrorBody> {
        // Cut once the unloaded parts are in, so that the cut says how much of the whole text
        // was left out.
        let whole = Limits {
            max_value_chars: variables::FULL_VALUE_CHARS,
            ..limits
        };
        let mut result = self.expand_locals(frame, whole).await?;
        self.load_unloaded(&mut result.variables, frame.id).await;
        self.name_rust_pointers(frame, Named::Variables, &mut result.variables)
            .await;
        cap_values(&mut result.variables, limits.max_value_chars);
        Ok(result)
    }

    /// `frame`'s locals as the adapter gives them, expanded under `limits`.
    pub(super) async fn expand_locals(
        &self,
        frame: &StackFrame,
        limits: Limits,
    ) -> Result<LocalsResult, ErrorBody> {
        self.expand_scopes(frame, limits, self.adapter().profile().value_reading)
            .await
    }

    /// Every variable of `frame`'s scopes, the adapter's own among them (Delve's result
    /// slots, which a finish reads its results by), one level deep.
    pub(super) async fn frame_slots(&self, frame: &StackFrame) -> Result<LocalsResult, ErrorBody> {
        let reading = ValueReading {
            hidden_local: |_| false,
            ..self.adapter().profile().value_reading
        };
        self.expand_scopes(frame, Limits::for_locals(0, false), reading)
            .await
    }

    async fn expand_scopes(
        &self,
        frame: &StackFrame,
        limits: Limits,
        reading: ValueReading,
    ) -> Result<LocalsResult, ErrorBody> {
        let scopes = self
            .dap()
            .request_typed::<Scopes>(&ScopesArguments { frame_id: frame.id })
            .await?
            .scopes;
        let shown = variables::locals_scopes(&scopes);
        let mut variables = Vec::new();
        let mut omitted = 0;
        for scope in &shown {
            let count = variables::child_count(scope.named_variables, scope.indexed_variables);
            let root = variables::Root {
                reference: scope.variables_reference,
                known_count: count,
                type_name: None,
                name: None,
                method_types: self.adapter().profile().method_types,
                reading,
            };
            let expanded = variables::expand(self.dap(), root, limits).await?;
            variables.extend(expanded.nodes);
            omitted += expanded.omitted;
        }
        let names: Vec<&str> = shown.iter().map(|s| s.name.as_str()).collect();
        Ok(LocalsResult {
            scope: names.join(", "),
            variables,
            omitted,
            compared: None,
        })
    }

    /// Evaluates `expression` in a frame (`watch` context), with the adapter's error trimmed
    /// to its message.
    pub(super) async fn evaluate_in(
        &self,
        expression: &str,
        frame_id: i64,
    ) -> Result<EvaluateBody, ErrorBody> {
        self.dap()
            .request_typed::<Evaluate>(&EvaluateArguments::watch(expression, Some(frame_id)))
            .await
            .map_err(|e| self.expression_error(expression, e, true))
    }

    /// The error for `expression`, which the adapter refused: its words cut down to the
    /// message, said as what they mean, with the hint for that kind of failure (a name that is
    /// not in scope, a syntax error, an exception the expression raised, ...: see
    /// `adapters::expression_errors`). `statements`: whether a statement is out of place there
    /// (in `print`; not in `raw`, which runs them).
    pub(super) fn expression_error(
        &self,
        expression: &str,
        error: DapError,
        statements: bool,
    ) -> ErrorBody {
        if error.is_not_stopped() {
            return error.into();
        }
        match error {
            DapError::Adapter { message, .. } if message.is_empty() => ErrorBody::new(
                ErrorCode::Adapter,
                format!("{} could not evaluate {expression}", self.adapter().name()),
                "the adapter gave no reason",
            ),
            DapError::Adapter { message, .. } => {
                let innermost = self.shared.view().selection.frame == 0;
                let (message, hint) = expression_errors::explain_in_frame(
                    self.adapter().name(),
                    expression,
                    &clean_evaluate_error(&message),
                    statements,
                    innermost,
                );
                ErrorBody::new(ErrorCode::Adapter, message, hint)
            }
            other => other.reading("an evaluation"),
        }
    }

    /// `print EXPR` (`AskedBy` says whose words an error suggests): `expression` evaluated in
    /// the selected frame, or in the one its `@FRAME:` prefix names, its children expanded
    /// `depth` levels, `children` of each value shown (or [`variables::CHILDREN_SHOWN`]).
    pub async fn evaluate(
        &self,
        expression: &str,
        depth: u32,
        children: Option<u64>,
        asked_by: AskedBy,
        limit: Option<Duration>,
    ) -> Result<EvaluateResult, ErrorBody> {
        let at = self.frame_prefix(expression).map_err(|e| {
            ErrorBody::usage(e, "'@1:i' reads i in the caller, '@main:i' in main's frame")
        })?;
        let place = self.evaluation_frame(at.map(|a| a.frame)).await?;
        let inner = at.map_or(expression, |a| a.expression);
        let frame = &place.frame;
        let rust = self.rust_form(inner, is_rust_frame(frame));
        let walked = match &rust {
            Some(RustForm::Walk(chain, reading)) => {
                match self.rust_evaluate(chain, frame.id, *reading).await {
                    Ok(body) => Some(body),
                    Err(RustFailure::Told(error)) => return Err(error),
                    Err(RustFailure::Root(error)) => {
                        let error = self
                            .evaluation_error(expression, inner, error, &place, asked_by)
                            .await;
                        return Err(error);
                    }
                }
            }
            _ => None,
        };
        let body = match walked {
            Some(body) => body,
            None => match self.variable_at_path(inner, frame.id).await {
                Some(body) => body,
                None => {
                    let arguments = EvaluateArguments {
                        context: self.adapter().profile().value_reading.context,
                        ..EvaluateArguments::watch(inner, Some(frame.id))
                    };
                    let limit = self.evaluation_limit(limit);
                    match self.evaluate_bounded(arguments, limit, expression).await {
                        Ok(body) => body,
                        Err(EvaluationFailure::Told(error)) => return Err(error),
                        Err(EvaluationFailure::Adapter(error)) => {
                            let error = self
                                .evaluation_error(expression, inner, error, &place, asked_by)
                                .await;
                            return Err(match &rust {
                                Some(form) => self.rust_error(inner, form, error),
                                None => error,
                            });
                        }
                    }
                }
            },
        };
        let limits = Limits::with_depth(depth.saturating_sub(1)).with_children(children);
        let expand = body.variables_reference > 0
            && depth > 0
            && !variables::is_char_array_value(&body.result, body.type_name.as_deref());
        let (children, omitted_children, methods_omitted) = if expand {
            let known = variables::child_count(body.named_variables, body.indexed_variables);
            let root = variables::Root {
                reference: body.variables_reference,
                known_count: known,
                type_name: body.type_name.as_deref(),
                name: Some(inner),
                method_types: self.adapter().profile().method_types,
                reading: self.adapter().profile().value_reading,
            };
            let expanded = variables::expand(self.dap(), root, limits).await;
            match expanded {
                Ok(expanded) => (expanded.nodes, expanded.omitted, expanded.methods),
                // The value itself was read; only its members cannot be (GDB, on a NULL
                // pointer): show the value alone.
                Err(DapError::Adapter { .. }) => (Vec::new(), 0, false),
                Err(e) => return Err(e.into()),
            }
        } else {
            (Vec::new(), 0, false)
        };
        self.mark_seen();
        let result = (self.adapter().profile().value_reading.reword)(
            &body.result,
            body.type_name.as_deref(),
        )
        .unwrap_or(body.result);
        let mut node = variables::node_for(expression, &result, body.type_name.clone(), limits);
        node.children = children;
        self.load_unloaded(std::slice::from_mut(&mut node), frame.id)
            .await;
        self.name_rust_pointers(frame, Named::Value(inner), std::slice::from_mut(&mut node))
            .await;
        Ok(EvaluateResult {
            expression: expression.to_string(),
            value: node.value,
            type_name: node.type_name.filter(|t| !t.is_empty()),
            children: node.children,
            omitted_children,
            methods_omitted,
        })
    }

    /// Sends `text` to the adapter's own console (lldb commands through lldb-dap, Python
    /// statements through debugpy), in the selected frame when the program is stopped.
    pub async fn raw(&self, text: &str, limit: Option<Duration>) -> Result<RawResult, ErrorBody> {
        if (self.adapter().profile().console.quits)(text) {
            let adapter = self.adapter().name();
            return Err(ErrorBody::usage(
                format!(
                    "'{}' would end {adapter} itself under the session, which would then answer nothing more",
                    text.trim()
                ),
                "end the session with 'debugger stop' ('debugger detach' leaves the program running)",
            ));
        }
        let state = self.shared.run.get();
        if state.phase.is_ended() || matches!(state.phase, Phase::Evaluating(_)) {
            return Err(self.not_running_error(&state.phase));
        }
        let mut frame_id = None;
        if matches!(state.phase, Phase::Stopped(_))
            && let Ok((thread_id, index, frame)) = self.selected_frame().await
        {
            frame_id = Some(frame.id);
            for command in (self.adapter().profile().console.frame_selection)(thread_id, index) {
                let selected = self
                    .dap()
                    .request_typed::<Evaluate>(&EvaluateArguments::repl(&command, frame_id))
                    .await;
                if let Err(e) = console_answer(selected) {
                    tracing::debug!(%command, error = %e, "the console's frame was not selected");
                }
            }
        }
        let limit = self.evaluation_limit(limit);
        let answer = self
            .evaluate_bounded(EvaluateArguments::repl(text, frame_id), limit, text)
            .await;
        let answer = match answer {
            Err(EvaluationFailure::Told(error)) => return Err(error),
            Err(EvaluationFailure::Adapter(error)) => Err(error),
            Ok(body) => Ok(body),
        };
        let output = console_answer(answer).map_err(|e| self.expression_error(text, e, false))?;
        Ok(RawResult { output })
    }

    /// The error for `set name value`, which the adapter refused: what failed, in our words
    /// (lldb-dap gives none for some values it cannot assign), then the adapter's reason
    /// cleaned as `print`'s is ("Invalid encoding." is lldb's for a string slice), with the hint
    /// its reason calls for, else one on what can be assigned.
    fn set_error(&self, name: &str, value: &str, error: DapError) -> ErrorBody {
        let adapter = self.adapter().name();
        let reason = match &error {
            DapError::Adapter { message, .. } if !error.is_not_stopped() => {
                clean_evaluate_error(message)
            }
            _ => return error.into(),
        };
        let (reason, hint) = expression_errors::explain(adapter, name, &reason, false);
        let mut message = format!("{adapter} could not set {name} to {value}");
        if !reason.is_empty() {
            message = format!("{message}: {reason}");
        }
        let hint = if hint.is_empty() {
            format!(
                "VALUE must fit the type `debugger print {name}` shows, and {adapter} cannot \
                 assign every kind of value (a string, a struct): `debugger raw` runs its own \
                 commands"
            )
        } else {
            hint
        };
        ErrorBody::new(ErrorCode::Adapter, message, hint)
    }

    /// Gives `name` (a variable, or an assignable expression like `acct->balance`) a new value
    /// in the selected frame: `setExpression` where the adapter has it, else `setVariable` on
    /// the scope or parent that holds it.
    pub async fn set_variable(&self, name: &str, value: &str) -> Result<SetResult, ErrorBody> {
        let (_, _, frame) = self.selected_frame().await?;
        let body = if self.capabilities().supports_set_expression {
            let arguments = SetExpressionArguments {
                expression: name.to_string(),
                value: value.to_string(),
                frame_id: frame.id,
            };
            self.dap()
                .request_typed::<SetExpression>(&arguments)
                .await
                .map_err(|e| self.set_error(name, value, e))?
        } else if self.capabilities().supports_set_variable {
            let (container, child) = self.container_of(name, frame.id).await?;
            let arguments = SetVariableArguments {
                variables_reference: container,
                name: child,
                value: value.to_string(),
            };
            self.dap()
                .request_typed::<SetVariable>(&arguments)
                .await
                .map_err(|e| self.set_error(name, value, e))?
        } else {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter cannot change variables",
                    self.adapter().name()
                ),
                "",
            ));
        };
        self.shared.view().caches.report = None;
        Ok(SetResult {
            name: name.to_string(),
            value: body.value.unwrap_or_else(|| value.to_string()),
            type_name: body.type_name,
        })
    }

    /// The `variablesReference` that holds `name`, and the child's name within it: a scope of
    /// the frame for a plain name, else the parent expression's value (`a.b`, `p->f`, `v[3]`).
    pub(super) async fn container_of(
        &self,
        name: &str,
        frame_id: i64,
    ) -> Result<(i64, String), ErrorBody> {
        let not_found = || {
            ErrorBody::new(
                ErrorCode::NotFound,
                format!("no variable '{name}' here"),
                "`debugger locals` lists the names in scope here",
            )
        };
        let split = [("->", 2), (".", 1), ("[", 0)]
            .iter()
            .filter_map(|(sep, skip)| name.rfind(sep).map(|at| (at, *skip, *sep)))
            .max_by_key(|(at, _, _)| *at);
        if let Some((at, skip, sep)) = split {
            let parent = &name[..at];
            let child = if sep == "[" {
                name[at..].to_string()
            } else {
                name[at + skip..].to_string()
            };
            let answer = self
                .dap()
                .request_typed::<Evaluate>(&EvaluateArguments::watch(parent, Some(frame_id)))
                .await;
            let reference = match answer {
                Ok(body) => Some(body.variables_reference),
                // A value we cannot read has no members we could reach.
                Err(DapError::Unreadable { .. }) => None,
                Err(e) => return Err(self.expression_error(parent, e, false)),
            };
            let reference = reference.filter(|r| *r > 0).ok_or_else(not_found)?;
            return Ok((reference, child));
        }
        let scopes = self
            .dap()
            .request_typed::<Scopes>(&ScopesArguments { frame_id })
            .await?
            .scopes;
        for scope in scopes.iter().filter(|s| !s.expensive) {
            let arguments = VariablesArguments {
                variables_reference: scope.variables_reference,
                start: None,
                count: None,
            };
            let body = self.dap().request_typed::<Variables>(&arguments).await?;
            let holds = body.variables.iter().any(|v| v.name == name);
            if holds {
                return Ok((scope.variables_reference, name.to_string()));
            }
        }
        Err(not_found())
    }
}
