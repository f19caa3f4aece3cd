//! What a stop shows: the stopped threads' frames (DAP frame ids are this stop's), their
//! locals and `this`, the children of values (by references handed out in this stop), all
//! shown by the presenter; `evaluate`, `setExpression` and `setVariable` through the Java
//! expression evaluator. Everything here is forgotten when the program runs on.

use std::sync::Arc;

use serde_json::{Value as Json, json};

use super::frame_names::frame_class;
use super::heap::{JdwpHeap, TypeCache};
use super::returns::Returned;
use super::sources::SourcePaths;
use super::types::Types;
use super::watchpoints;
use crate::adapters::dap_server::RequestError;
use crate::adapters::java::expression::{self, Place};
use crate::adapters::java::heap::{Heap, HeapError, JavaValue, ObjectKind};
use crate::adapters::java::jdwp::Connection;
use crate::adapters::java::jdwp::commands::Frame;
use crate::adapters::java::jdwp::signatures::type_name;
use crate::adapters::java::presentation::{Limits, Presented, children, present, present_all};
use crate::dap::requests::{
    DataBreakpointInfoArguments, EvaluateArguments, EvaluateContext, SetExpressionArguments,
    SetVariableArguments, StackTraceArguments, VariablesArguments,
};

/// What a variables reference stands for: a frame's locals, or a value's children, read in
/// the frame (by index in `frames`) the value was reached from.
#[derive(Debug, Clone)]
enum Handle {
    Locals(usize),
    /// What the method a `finish` left returned, shown in the frame at this index.
    Returned(usize),
    Value {
        frame: usize,
        value: JavaValue,
    },
}

/// The program stopped: in which thread, and what has been handed out since.
pub struct Stop {
    pub thread: u64,
    /// Frames handed out: (thread, depth, frame); a DAP frame id is its index + 1.
    frames: Vec<(u64, usize, Frame)>,
    handles: Vec<Handle>,
    /// What the method a `finish` stopping here left returned.
    returned: Option<Returned>,
    /// What this stop's requests learnt of the program's types.
    types: Arc<TypeCache>,
}

impl Stop {
    pub fn new(thread: u64, returned: Option<Returned>) -> Stop {
        Stop {
            thread,
            frames: Vec::new(),
            handles: Vec::new(),
            returned,
            types: Arc::default(),
        }
    }

    fn handle(&mut self, handle: Handle) -> i64 {
        self.handles.push(handle);
        self.handles.len() as i64
    }

    fn frame(&self, id: i64) -> Result<(u64, Frame), RequestError> {
        usize::try_from(id - 1)
            .ok()
            .and_then(|at| self.frames.get(at))
            .map(|&(thread, _, frame)| (thread, frame))
            .ok_or(RequestError::FrameGone)
    }

    /// The top frame of the stopped thread, as `evaluate` without a frame reads in.
    pub async fn top_frame_id(&mut self, jvm: &Connection) -> Result<i64, RequestError> {
        if let Some(at) = self
            .frames
            .iter()
            .position(|&(t, depth, _)| t == self.thread && depth == 0)
        {
            return Ok(at as i64 + 1);
        }
        let frames = jvm.frames(self.thread, 1).await?;
        let frame = frames.first().ok_or(RequestError::FrameGone)?;
        self.frames.push((self.thread, 0, *frame));
        Ok(self.frames.len() as i64)
    }

    pub async fn stack_trace(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        sources: &mut SourcePaths,
        arguments: &StackTraceArguments,
    ) -> Result<Json, RequestError> {
        let thread = u64::try_from(arguments.thread_id).map_err(|_| RequestError::FrameGone)?;
        let frames = jvm.frames(thread, -1).await?;
        let total = frames.len();
        let start = arguments.start_frame as usize;
        let end = match arguments.levels {
            0 => total,
            levels => total.min(start + levels as usize),
        };
        let mut out = Vec::new();
        for (depth, frame) in frames
            .iter()
            .enumerate()
            .skip(start)
            .take(end.saturating_sub(start))
        {
            self.frames.push((thread, depth, *frame));
            let id = self.frames.len();
            let location = frame.location;
            let signature = types.signature(jvm, location.class).await?;
            let class_name = frame_class(&type_name(&signature));
            let method = types
                .method(jvm, location.class, location.method)
                .await?
                .map_or_else(|| "?".to_string(), |m| m.name);
            let line = types.line_of(jvm, &location).await?;
            let file = types.source_file(jvm, location.class).await?;
            let mut entry = json!({
                "id": id,
                "name": format!("{class_name}.{method}"),
                "line": line.unwrap_or(0),
                "column": 1,
            });
            if let Some(file) = file {
                let path = sources.locate(&signature, &file);
                entry["source"] = match path {
                    Some(path) => json!({ "name": file, "path": path }),
                    None => json!({ "name": file }),
                };
            }
            out.push(entry);
        }
        Ok(json!({ "stackFrames": out, "totalFrames": total }))
    }

    pub fn scopes(&mut self, frame_id: i64) -> Result<Json, RequestError> {
        let at = usize::try_from(frame_id - 1).map_err(|_| RequestError::FrameGone)?;
        let (thread, _) = self.frame(frame_id)?;
        let reference = self.handle(Handle::Locals(at));
        let mut scopes = vec![json!({
            "name": "Locals",
            "presentationHint": "locals",
            "variablesReference": reference,
            "expensive": false,
        })];
        // The frame a finish returned to: the stopped thread's top one.
        if self.returned.is_some() && thread == self.thread && self.frames[at].1 == 0 {
            let reference = self.handle(Handle::Returned(at));
            scopes.push(json!({
                "name": "Return value",
                "presentationHint": "returnValue",
                "variablesReference": reference,
                "expensive": false,
            }));
        }
        Ok(json!({ "scopes": scopes }))
    }

    /// The heap as the frame at index `at` of `frames` reaches it.
    fn heap_at(&self, jvm: &Connection, at: usize) -> Result<JdwpHeap, RequestError> {
        self.frames
            .get(at)
            .map(|&(thread, depth, _)| {
                JdwpHeap::new(jvm.clone(), thread, depth, self.types.clone())
            })
            .ok_or(RequestError::FrameGone)
    }

    /// `this` and the locals of the frame at `at`, each shown by the presenter.
    async fn local_variables(
        &mut self,
        jvm: &Connection,
        at: usize,
    ) -> Result<Vec<Json>, RequestError> {
        let heap = self.heap_at(jvm, at)?;
        let mut named = Vec::new();
        if let Some(this) = heap.this().await.map_err(failed)? {
            named.push(("this".to_string(), JavaValue::Object(this)));
        }
        let locals = heap.locals().await.map_err(failed)?;
        let known = locals.is_some();
        named.extend(
            locals
                .into_iter()
                .flatten()
                .map(|local| (local.name, local.value)),
        );
        let mut out = self.variables_of(&heap, at, named).await?;
        if !known {
            out.push(json!({
                "name": "(locals)",
                "value": "not known: this class was compiled without a local variable table (javac -g)",
                "variablesReference": 0,
            }));
        }
        Ok(out)
    }

    /// DAP variables of named values as the presenter shows them (all presented together),
    /// each with a reference to its children when it has any.
    async fn variables_of(
        &mut self,
        heap: &JdwpHeap,
        at: usize,
        named: Vec<(String, JavaValue)>,
    ) -> Result<Vec<Json>, RequestError> {
        // A variable needs its summary and whether it has children, not the children
        // themselves, which `variables` reads a page at a time: an array, list or map reads
        // only the elements its summary shows (10, not 100 entries with their keys).
        let limits = Limits {
            children: 0,
            ..Limits::default()
        };
        let values: Vec<JavaValue> = named.iter().map(|(_, value)| value.clone()).collect();
        let shown = present_all(heap, &values, &limits).await.map_err(failed)?;
        Ok(named
            .into_iter()
            .zip(shown)
            .map(|((name, value), shown)| self.variable(at, &name, &value, shown))
            .collect())
    }

    /// A DAP variable of `value` shown, with a reference to its children when it has any.
    fn variable(&mut self, at: usize, name: &str, value: &JavaValue, shown: Presented) -> Json {
        let reference = self.reference(at, value, &shown);
        let mut variable = json!({
            "name": name,
            "value": shown.summary,
            "type": shown.type_name,
            "variablesReference": reference,
        });
        if let Some(length) = shown.length {
            variable["indexedVariables"] = json!(length);
        }
        variable
    }

    /// The reference a shown value's children are read by; 0 when it has none.
    fn reference(&mut self, at: usize, value: &JavaValue, shown: &Presented) -> i64 {
        if shown.children.is_empty() && shown.length.is_none_or(|n| n == 0) {
            return 0;
        }
        self.handle(Handle::Value {
            frame: at,
            value: value.clone(),
        })
    }

    pub async fn variables(
        &mut self,
        jvm: &Connection,
        arguments: &VariablesArguments,
    ) -> Result<Json, RequestError> {
        let handle = self.handle_of(arguments.variables_reference)?;
        let variables = match handle {
            Handle::Locals(at) => self.local_variables(jvm, at).await?,
            Handle::Returned(at) => match self.returned.clone() {
                // A void method returned nothing: the scope is empty.
                Some(returned) if returned.value != JavaValue::Void => {
                    let heap = self.heap_at(jvm, at)?;
                    let name = format!("(return) {}", returned.method);
                    self.variables_of(&heap, at, vec![(name, returned.value)])
                        .await?
                }
                _ => Vec::new(),
            },
            Handle::Value { frame, value } => {
                let heap = self.heap_at(jvm, frame)?;
                let limits = Limits::default();
                let first = arguments.start.map_or(0, |s| s as usize);
                let count = arguments.count.map_or(limits.children, |c| c as usize);
                let children = children(&heap, &value, first, count, &limits)
                    .await
                    .map_err(failed)?;
                let named = children
                    .into_iter()
                    .map(|child| (child.name, child.value))
                    .collect();
                self.variables_of(&heap, frame, named).await?
            }
        };
        Ok(json!({ "variables": variables }))
    }

    fn handle_of(&self, reference: i64) -> Result<Handle, RequestError> {
        usize::try_from(reference - 1)
            .ok()
            .and_then(|at| self.handles.get(at).cloned())
            .ok_or(RequestError::VariableGone)
    }

    /// The frame index an `evaluate` or `setExpression` reads in: the one named, or the top
    /// frame of the stopped thread.
    async fn frame_index(
        &mut self,
        jvm: &Connection,
        frame_id: Option<i64>,
    ) -> Result<usize, RequestError> {
        let id = match frame_id {
            Some(id) => id,
            None => self.top_frame_id(jvm).await?,
        };
        self.frame(id)?;
        usize::try_from(id - 1).map_err(|_| RequestError::FrameGone)
    }

    /// `evaluate`: a Java expression in the frame (see `expression`), its value shown by the
    /// presenter with its children behind a reference.
    pub async fn evaluate(
        &mut self,
        jvm: &Connection,
        arguments: &EvaluateArguments,
    ) -> Result<Json, RequestError> {
        let at = self.frame_index(jvm, arguments.frame_id).await?;
        let heap = self.heap_at(jvm, at)?;
        let value = expression::evaluate(&heap, &arguments.expression)
            .await
            .map_err(|e| RequestError::Failed(e.to_string()))?;
        // A logpoint writes a string's characters into its line, as `String.valueOf` would.
        if arguments.context == EvaluateContext::Log
            && let JavaValue::Object(object) = &value
            && object.kind == ObjectKind::String
        {
            let text = heap.string_text(*object).await.map_err(failed)?;
            return Ok(json!({
                "result": text,
                "type": "java.lang.String",
                "variablesReference": 0,
            }));
        }
        self.answer_value(&heap, at, &value, "result").await
    }

    /// A value written by `setExpression` or `setVariable`, or evaluated, as DAP answers it
    /// (`result` or `value` naming the summary).
    async fn answer_value(
        &mut self,
        heap: &JdwpHeap,
        at: usize,
        value: &JavaValue,
        field: &str,
    ) -> Result<Json, RequestError> {
        let shown = present(heap, value, &Limits::default())
            .await
            .map_err(failed)?;
        let reference = self.reference(at, value, &shown);
        let mut answer = json!({
            "type": shown.type_name,
            "variablesReference": reference,
        });
        answer[field] = json!(shown.summary);
        if let Some(length) = shown.length {
            answer["indexedVariables"] = json!(length);
        }
        Ok(answer)
    }

    /// `dataBreakpointInfo`: the field `name` names, within a container handed out in this
    /// stop (an object's children) or as an expression of the frame.
    pub async fn field_info(
        &mut self,
        jvm: &Connection,
        arguments: &DataBreakpointInfoArguments,
    ) -> Result<Json, RequestError> {
        let (at, container) = match arguments.variables_reference {
            Some(reference) => match self.handle_of(reference)? {
                Handle::Value {
                    frame,
                    value: JavaValue::Object(object),
                } => (frame, Some(object)),
                Handle::Locals(at) | Handle::Returned(at) => (at, None),
                Handle::Value { frame, .. } => (frame, None),
            },
            None => (self.frame_index(jvm, Some(arguments.frame_id)).await?, None),
        };
        let heap = self.heap_at(jvm, at)?;
        Ok(watchpoints::field_info(&heap, container, &arguments.name).await)
    }

    /// `setExpression`: `set TARGET VALUE` in a frame (see `expression::assign`).
    pub async fn set_expression(
        &mut self,
        jvm: &Connection,
        arguments: &SetExpressionArguments,
    ) -> Result<Json, RequestError> {
        let at = self.frame_index(jvm, Some(arguments.frame_id)).await?;
        let heap = self.heap_at(jvm, at)?;
        let value = expression::assign(&heap, &arguments.expression, &arguments.value)
            .await
            .map_err(|e| RequestError::Failed(e.to_string()))?;
        self.answer_value(&heap, at, &value, "value").await
    }

    /// `setVariable`: a local of a scope, a field of an object, an element of an array.
    pub async fn set_variable(
        &mut self,
        jvm: &Connection,
        arguments: &SetVariableArguments,
    ) -> Result<Json, RequestError> {
        let (at, place) = match self.handle_of(arguments.variables_reference)? {
            Handle::Locals(at) => (at, Place::Local(arguments.name.clone())),
            Handle::Returned(_) => return Err("a return value cannot be set".into()),
            Handle::Value {
                frame,
                value: JavaValue::Object(object),
            } => {
                let place = match object.kind {
                    ObjectKind::Array => Place::Element {
                        array: object,
                        index: element_index(&arguments.name).ok_or_else(|| {
                            RequestError::Failed(format!(
                                "'{}' is no element of the array",
                                arguments.name
                            ))
                        })?,
                    },
                    _ => Place::Field {
                        object,
                        name: arguments.name.clone(),
                    },
                };
                (frame, place)
            }
            Handle::Value { .. } => {
                return Err(RequestError::Failed(format!(
                    "'{}' cannot be set here",
                    arguments.name
                )));
            }
        };
        let heap = self.heap_at(jvm, at)?;
        let value = expression::assign_place(&heap, &place, &arguments.value)
            .await
            .map_err(|e| RequestError::Failed(e.to_string()))?;
        self.answer_value(&heap, at, &value, "value").await
    }
}

/// The index an array element's child is named by (`[3]`).
fn element_index(name: &str) -> Option<usize> {
    name.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}

/// A heap failure as the request's.
fn failed(error: HeapError) -> RequestError {
    RequestError::Failed(error.to_string())
}
