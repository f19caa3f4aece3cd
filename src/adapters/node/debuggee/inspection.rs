//! Values at a pause: the variables of scopes and values (by the handles the pause gives out),
//! evaluation with V8's timeout, and `setVariable`, all told in the names the user wrote where a
//! bundler or minifier renamed them.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::super::cdp::Cdp;
use super::super::collection_sizes;
use super::super::objects::{
    array_page, call_argument, exception_message, own_properties, with_preview,
};
use super::super::scripts::Scripts;
use super::super::values;
use super::class_names::WrittenClasses;
use super::original_names::{in_generated_names, written_names};
use super::pause::{Handle, Pause, This, shown_this};
use super::script_texts::ScriptTexts;
use crate::adapters::dap_server::RequestError;
use crate::dap::requests::{
    EvaluateArguments, SetValueBody, SetVariableArguments, VariablesArguments,
};
use crate::dap::types::{EvaluateBody, Variable, VariablesBody};

/// The parameters CommonJS wraps every module in: shown as locals of the top level, they are
/// noise; they are hidden when all five are there.
const MODULE_WRAPPER: [&str; 5] = ["exports", "require", "module", "__filename", "__dirname"];

/// Sets a property of an object (`this`) and returns its new value.
const SET_PROPERTY: &str = "function (name, value) { this[name] = value; return this[name]; }";

/// How long an expression may run before V8 stops it (`print` of an endless loop fails instead of
/// hanging the program and the session).
pub const EVALUATION_TIMEOUT_MS: u64 = 10_000;

/// Most array elements given when no page was asked for.
const UNPAGED_ARRAY_LIMIT: u64 = 10_000;

/// The process in focus as its values are read: its connection, its pause and scripts, and the
/// texts and class names read so far.
pub struct Inspection<'a> {
    pub cdp: &'a Cdp,
    pub pause: &'a mut Pause,
    pub scripts: &'a Scripts,
    pub texts: &'a mut ScriptTexts,
    pub classes: &'a mut WrittenClasses,
}

impl Inspection<'_> {
    /// DAP `variables`: the children of a scope or a value.
    pub async fn variables(
        &mut self,
        arguments: &VariablesArguments,
    ) -> Result<VariablesBody, RequestError> {
        let cdp = self.cdp;
        let (frame, objects, this, length, is_scope) =
            match self.pause.handle(arguments.variables_reference)? {
                Handle::Locals {
                    frame,
                    scopes,
                    this,
                } => (
                    Some(*frame),
                    scopes.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>(),
                    this.clone(),
                    None,
                    true,
                ),
                Handle::Scope {
                    frame, object_id, ..
                } => (Some(*frame), vec![object_id.clone()], None, None, true),
                Handle::Object {
                    frame,
                    object_id,
                    length,
                } => (*frame, vec![object_id.clone()], None, *length, false),
                Handle::Returned(returned) => {
                    let returned = returned.clone();
                    let name = format!("(return) {}", returned.function);
                    return Ok(VariablesBody {
                        variables: vec![self.variable(Some(0), &name, &returned.value)],
                    });
                }
            };
        let properties = match length {
            Some(length) => {
                let start = arguments.start.unwrap_or(0);
                let count = arguments
                    .count
                    .unwrap_or_else(|| length.min(UNPAGED_ARRAY_LIMIT));
                array_page(cdp, &objects[0], start, count).await?
            }
            None => {
                let mut all = Vec::new();
                for object in &objects {
                    all.extend(own_properties(cdp, object).await?);
                }
                all
            }
        };
        // A minifier's names, told as written (see `original_names`).
        let written = match (frame, is_scope) {
            (Some(frame), true) => {
                let frame = self.pause.current().and_then(|p| p.call_frames.get(frame));
                written_names(Some(cdp), frame, self.scripts, self.texts).await
            }
            _ => HashMap::new(),
        };
        let mut seen = std::collections::HashSet::new();
        let mut shown = Vec::new();
        let wrapper = MODULE_WRAPPER
            .iter()
            .all(|name| properties.iter().any(|(n, _)| n == name));
        for (name, value) in properties {
            if !seen.insert(name.clone()) || (wrapper && MODULE_WRAPPER.contains(&name.as_str())) {
                continue;
            }
            let value = match frame.filter(|_| is_scope) {
                Some(frame) => self
                    .pause
                    .overridden(frame, &name)
                    .cloned()
                    .unwrap_or(value),
                None => value,
            };
            let name = written.get(&name).unwrap_or(&name);
            let value = collection_sizes::read_through_class(cdp, value).await;
            let value = self.with_written_class(value).await;
            shown.push(self.variable(frame, name, &value));
        }
        let this = match this {
            Some(This::Given(this)) => Some(with_preview(cdp, this).await),
            Some(This::Lexical) => match frame {
                Some(frame) => self
                    .evaluate_raw("this", Some(frame as i64 + 1), EVALUATION_TIMEOUT_MS)
                    .await
                    .ok()
                    .and_then(|(_, this)| shown_this(&this)),
                None => None,
            },
            None => None,
        };
        // At a CommonJS module's top level `this` is `module.exports`: noise too.
        if let Some(this) = this.filter(|_| !wrapper) {
            let this = self.with_written_class(this).await;
            shown.push(self.variable(frame, "this", &this));
        }
        Ok(VariablesBody { variables: shown })
    }

    /// A DAP variable for a value, with a handle when it has children.
    fn variable(&mut self, frame: Option<usize>, name: &str, value: &Value) -> Variable {
        let (variables_reference, indexed_variables) = self.children(frame, value);
        Variable {
            name: name.to_string(),
            value: values::display(value),
            type_name: Some(values::type_name(value)),
            variables_reference,
            named_variables: None,
            indexed_variables,
        }
    }

    /// The handle of a value's children (0 when it has none), and how many elements it has
    /// when it is an array.
    fn children(&mut self, frame: Option<usize>, value: &Value) -> (i64, Option<u64>) {
        if !values::has_children(value) {
            return (0, None);
        }
        let Some(object_id) = value["objectId"].as_str() else {
            return (0, None);
        };
        let length = values::array_length(value);
        let reference = self.pause.add_handle(Handle::Object {
            frame,
            object_id: object_id.to_string(),
            length,
        });
        (reference, length)
    }

    /// `Debugger.evaluateOnCallFrame` when paused, `Runtime.evaluate` otherwise; V8 stops the
    /// evaluation after `timeout_ms`.
    async fn evaluate_raw(
        &self,
        expression: &str,
        frame_id: Option<i64>,
        timeout_ms: u64,
    ) -> Result<(Option<usize>, Value), RequestError> {
        let cdp = self.cdp;
        let (frame, answer) = match self.pause.current() {
            Some(_) => {
                let (index, frame) = self.pause.frame(frame_id.unwrap_or(1))?;
                let call_frame = frame["callFrameId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let answer = cdp
                    .call(
                        "Debugger.evaluateOnCallFrame",
                        json!({
                            "callFrameId": call_frame,
                            "expression": expression,
                            "generatePreview": true,
                            "silent": true,
                            "timeout": timeout_ms,
                        }),
                    )
                    .await
                    .map_err(|e| timed_out(e, timeout_ms))?;
                (Some(index), answer)
            }
            None => {
                let answer = cdp
                    .call(
                        "Runtime.evaluate",
                        json!({
                            "expression": expression,
                            "generatePreview": true,
                            "silent": true,
                            "replMode": true,
                            "timeout": timeout_ms,
                        }),
                    )
                    .await
                    .map_err(|e| timed_out(e, timeout_ms))?;
                (None, answer)
            }
        };
        if let Some(details) = answer.get("exceptionDetails") {
            return Err(exception_message(details).into());
        }
        Ok((frame, answer["result"].clone()))
    }

    /// DAP `evaluate`, in a paused frame's names as the user wrote them.
    pub async fn evaluate(
        &mut self,
        arguments: &EvaluateArguments,
    ) -> Result<EvaluateBody, RequestError> {
        let expression = arguments.expression.as_str();
        let expression = match (self.pause.current(), arguments.frame_id) {
            (Some(paused), frame) => {
                let index = frame
                    .and_then(|f| usize::try_from(f).ok())
                    .and_then(|f| f.checked_sub(1))
                    .unwrap_or(0);
                let frame = paused.call_frames.get(index);
                in_generated_names(Some(self.cdp), frame, self.scripts, self.texts, expression)
                    .await
            }
            (None, _) => expression.to_string(),
        };
        let (frame, value) = self
            .evaluate_raw(
                &expression,
                arguments.frame_id,
                arguments.timeout_ms.unwrap_or(EVALUATION_TIMEOUT_MS),
            )
            .await?;
        let value = collection_sizes::read_through_class(self.cdp, value).await;
        let value = self.with_written_class(value).await;
        let (variables_reference, indexed_variables) = self.children(frame, &value);
        Ok(EvaluateBody {
            result: values::display(&value),
            type_name: Some(values::type_name(&value)),
            variables_reference,
            named_variables: None,
            indexed_variables,
            memory_reference: None,
        })
    }

    /// DAP `setVariable`: a variable of a scope, or a member of an object.
    pub async fn set_variable(
        &mut self,
        arguments: &SetVariableArguments,
    ) -> Result<SetValueBody, RequestError> {
        let name = arguments.name.as_str();
        let expression = arguments.value.as_str();
        let cdp = self.cdp;
        // Where the variable lives: a scope of a frame, or an object.
        enum Target {
            Scopes(usize, Vec<(usize, String)>),
            Object(Option<usize>, String),
        }
        let target = match self.pause.handle(arguments.variables_reference)? {
            Handle::Locals { frame, scopes, .. } => Target::Scopes(*frame, scopes.clone()),
            Handle::Scope {
                frame,
                number,
                object_id,
            } => Target::Scopes(*frame, vec![(*number, object_id.clone())]),
            Handle::Object {
                frame, object_id, ..
            } => Target::Object(*frame, object_id.clone()),
            Handle::Returned(_) => return Err("a return value cannot be set".into()),
        };
        let frame_of = |frame: Option<usize>| Some(frame.map_or(1, |f| f as i64 + 1));
        let new_value = match &target {
            Target::Scopes(frame, _) => {
                self.evaluate_raw(expression, frame_of(Some(*frame)), EVALUATION_TIMEOUT_MS)
                    .await
            }
            Target::Object(frame, _) => {
                self.evaluate_raw(expression, frame_of(*frame), EVALUATION_TIMEOUT_MS)
                    .await
            }
        }?
        .1;
        let argument = call_argument(&new_value);
        let (frame, stored) = match target {
            Target::Scopes(frame, scopes) => {
                let mut number = None;
                for (n, object) in &scopes {
                    if own_properties(cdp, object)
                        .await?
                        .iter()
                        .any(|(p, _)| p == name)
                    {
                        number = Some(*n);
                        break;
                    }
                }
                let number = number.ok_or_else(|| format!("no variable '{name}' in this scope"))?;
                let call_frame = self.pause.frame(frame as i64 + 1)?.1["callFrameId"].clone();
                cdp.call(
                    "Debugger.setVariableValue",
                    json!({
                        "scopeNumber": number,
                        "variableName": name,
                        "newValue": argument,
                        "callFrameId": call_frame,
                    }),
                )
                .await?;
                self.pause.set_override(frame, name, new_value.clone());
                (Some(frame), new_value)
            }
            Target::Object(frame, object_id) => {
                let answer = cdp
                    .call(
                        "Runtime.callFunctionOn",
                        json!({
                            "objectId": object_id,
                            "functionDeclaration": SET_PROPERTY,
                            "arguments": [{ "value": name }, argument],
                            "generatePreview": true,
                            "silent": true,
                        }),
                    )
                    .await?;
                if let Some(details) = answer.get("exceptionDetails") {
                    return Err(exception_message(details).into());
                }
                (frame, answer["result"].clone())
            }
        };
        let (variables_reference, indexed_variables) = self.children(frame, &stored);
        Ok(SetValueBody {
            value: Some(values::display(&stored)),
            type_name: Some(values::type_name(&stored)),
            variables_reference: Some(variables_reference),
            indexed_variables,
        })
    }

    async fn with_written_class(&mut self, value: Value) -> Value {
        self.classes
            .name(Some(self.cdp), self.scripts, self.texts, value)
            .await
    }
}

/// V8's words for an evaluation stopped by its `timeout` (`timeout_ms`), said in the words the
/// session reads (`evaluation_limits::INTERRUPTED_WORDS`).
fn timed_out(error: String, timeout_ms: u64) -> RequestError {
    if error.contains("Execution was terminated") {
        RequestError::Failed(format!(
            "{} of {} ms",
            crate::adapters::evaluation_limits::INTERRUPTED_WORDS,
            timeout_ms
        ))
    } else {
        RequestError::Failed(error)
    }
}
