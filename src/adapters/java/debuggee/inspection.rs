//! What a stop shows: the stopped threads' frames (DAP frame ids are this stop's), their
//! locals and `this`, the children of values (by references handed out in this stop), and
//! `evaluate` of names and field paths. Everything here is forgotten when the program runs on.

use serde_json::{Value as Json, json};

use super::heap::JdwpHeap;
use super::sources::SourcePaths;
use super::types::Types;
use super::values::{self, Children, Shown};
use crate::adapters::java::error::RequestError;
use crate::adapters::java::heap::{Heap, HeapError};
use crate::adapters::java::jdwp::commands::{Frame, modifiers};
use crate::adapters::java::jdwp::signatures::type_name;
use crate::adapters::java::jdwp::wire::{Tag, Value};
use crate::adapters::java::jdwp::{Connection, JdwpError};
use crate::dap::requests::{EvaluateArguments, StackTraceArguments, VariablesArguments};

/// How many array elements one `variables` answer gives when the client asks for no range.
const ARRAY_PAGE: usize = 100;

/// What a variables reference stands for.
#[derive(Debug, Clone, Copy)]
enum Handle {
    Locals(usize),
    Children(Children),
}

/// The program stopped: in which thread, and what has been handed out since.
pub struct Stop {
    pub thread: u64,
    /// Frames handed out: (thread, depth, frame); a DAP frame id is its index + 1.
    frames: Vec<(u64, usize, Frame)>,
    handles: Vec<Handle>,
}

/// A local variable at a frame's location.
pub struct Local {
    pub name: String,
    pub signature: String,
    pub slot: i32,
}

impl Stop {
    pub fn new(thread: u64) -> Stop {
        Stop {
            thread,
            frames: Vec::new(),
            handles: Vec::new(),
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
            .ok_or(RequestError::NoFrame)
    }

    /// The heap as a frame of this stop reaches it (see [`JdwpHeap`]).
    pub fn heap(&self, jvm: &Connection, frame_id: i64) -> Result<JdwpHeap, RequestError> {
        usize::try_from(frame_id - 1)
            .ok()
            .and_then(|at| self.frames.get(at))
            .map(|&(thread, depth, _)| JdwpHeap::new(jvm.clone(), thread, depth))
            .ok_or(RequestError::NoFrame)
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
        let frame = frames.first().ok_or(RequestError::NoFrame)?;
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
        let thread = u64::try_from(arguments.thread_id).map_err(|_| RequestError::NoFrame)?;
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
        let at = usize::try_from(frame_id - 1).map_err(|_| RequestError::NoFrame)?;
        self.frame(frame_id)?;
        let reference = self.handle(Handle::Locals(at));
        Ok(json!({ "scopes": [{
            "name": "Locals",
            "presentationHint": "locals",
            "variablesReference": reference,
            "expensive": false,
        }]}))
    }

    /// The locals live at a frame's location; `None` when its class has no variable table.
    pub async fn locals_of(
        jvm: &Connection,
        types: &mut Types,
        frame: &Frame,
    ) -> Result<Option<Vec<Local>>, JdwpError> {
        let location = frame.location;
        let Some(table) = types
            .variable_table(jvm, location.class, location.method)
            .await?
        else {
            return Ok(None);
        };
        let mut live: Vec<Local> = table
            .variables
            .iter()
            .filter(|v| v.is_live_at(location.index) && v.name != "this")
            .map(|v| Local {
                name: v.name.clone(),
                signature: v.signature.clone(),
                slot: v.slot,
            })
            .collect();
        live.sort_by_key(|l| l.slot);
        Ok(Some(live))
    }

    async fn local_variables(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        at: usize,
    ) -> Result<Vec<Json>, RequestError> {
        let (thread, _, frame) = *self.frames.get(at).ok_or(RequestError::NoFrame)?;
        let mut out = Vec::new();
        let method = types
            .method(jvm, frame.location.class, frame.location.method)
            .await?;
        let is_static = method.is_none_or(|m| m.modifiers & modifiers::STATIC != 0);
        if !is_static {
            let this = jvm.this_object(thread, frame.id).await?;
            if this != 0 {
                let value = Value::Object {
                    tag: Tag::Object,
                    id: this,
                };
                out.push(self.variable(jvm, types, "this", &value, "").await?);
            }
        }
        match Self::locals_of(jvm, types, &frame).await? {
            Some(locals) => {
                let slots: Vec<(i32, Tag)> = locals
                    .iter()
                    .map(|l| (l.slot, Tag::of_signature(&l.signature)))
                    .collect();
                let values = jvm.frame_values(thread, frame.id, &slots).await?;
                for (local, value) in locals.iter().zip(values) {
                    let declared = type_name(&local.signature);
                    out.push(self.variable(jvm, types, &local.name, &value, &declared).await?);
                }
            }
            None => out.push(json!({
                "name": "(locals)",
                "value": "not known: this class was compiled without a local variable table (javac -g)",
                "variablesReference": 0,
            })),
        }
        Ok(out)
    }

    async fn variable(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        name: &str,
        value: &Value,
        declared: &str,
    ) -> Result<Json, JdwpError> {
        let shown = values::show(jvm, types, value, declared).await?;
        let reference = match shown.children {
            Some(children) => self.handle(Handle::Children(children)),
            None => 0,
        };
        Ok(values::variable(name, &shown, reference))
    }

    pub async fn variables(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        arguments: &VariablesArguments,
    ) -> Result<Json, RequestError> {
        let handle = usize::try_from(arguments.variables_reference - 1)
            .ok()
            .and_then(|at| self.handles.get(at).copied())
            .ok_or(RequestError::VariableGone)?;
        let variables = match handle {
            Handle::Locals(at) => self.local_variables(jvm, types, at).await?,
            Handle::Children(Children::Object { id, type_id }) => {
                let mut out = Vec::new();
                for (name, declared, value) in values::instance_fields(jvm, id, type_id).await? {
                    out.push(self.variable(jvm, types, &name, &value, &declared).await?);
                }
                out
            }
            Handle::Children(Children::Array { id, length }) => {
                let first = arguments.start.unwrap_or(0) as usize;
                let count = arguments
                    .count
                    .map_or(ARRAY_PAGE, |c| c as usize)
                    .min(length.saturating_sub(first));
                let elements = if count == 0 {
                    Vec::new()
                } else {
                    jvm.array_values(id, first, count).await?
                };
                let mut out = Vec::new();
                for (offset, value) in elements.iter().enumerate() {
                    let name = format!("[{}]", first + offset);
                    out.push(self.variable(jvm, types, &name, value, "").await?);
                }
                out
            }
        };
        Ok(json!({ "variables": variables }))
    }

    /// `evaluate` of a local, `this`, a field of `this`, and `.field` or `.length` after any of
    /// them.
    pub async fn evaluate(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        arguments: &EvaluateArguments,
    ) -> Result<Json, RequestError> {
        let frame_id = match arguments.frame_id {
            Some(id) => id,
            None => self.top_frame_id(jvm).await?,
        };
        let (thread, frame) = self.frame(frame_id)?;
        let expression = arguments.expression.trim();
        let mut parts = expression.split('.').map(str::trim);
        let first = parts.next().unwrap_or_default();
        let not_understood = || {
            RequestError::Failed(format!(
                "cannot evaluate '{expression}': only names and field paths (a.b.c, a.length) are read so far"
            ))
        };
        if first.is_empty()
            || !first
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return Err(not_understood());
        }
        let found = self
            .name_in_frame(jvm, types, thread, &frame, first)
            .await?;
        let (mut value, mut declared) = match found {
            Some(found) => found,
            None => self
                .static_field(jvm, frame_id, first, parts.next())
                .await?
                .ok_or_else(|| {
                    RequestError::Failed(format!(
                        "cannot evaluate '{expression}': no local, field or class named '{first}' here"
                    ))
                })?,
        };
        for part in parts {
            let Value::Object { tag, id } = value else {
                return Err(not_understood());
            };
            if id == 0 {
                return Err(RequestError::Failed(format!(
                    "cannot evaluate '{expression}': a null has no '{part}'"
                )));
            }
            if tag == Tag::Array && part == "length" {
                value = Value::Int(i32::try_from(jvm.array_length(id).await?).unwrap_or(i32::MAX));
                declared = "int".into();
                continue;
            }
            let (_, type_id) = jvm.reference_type(id).await?;
            let field = values::instance_fields(jvm, id, type_id)
                .await?
                .into_iter()
                .find(|(name, _, _)| name == part)
                .ok_or_else(|| {
                    RequestError::Failed(format!(
                        "cannot evaluate '{expression}': no field '{part}' there"
                    ))
                })?;
            declared = field.1;
            value = field.2;
        }
        let shown: Shown = values::show(jvm, types, &value, &declared).await?;
        let reference = match shown.children {
            Some(children) => self.handle(Handle::Children(children)),
            None => 0,
        };
        Ok(json!({
            "result": shown.text,
            "type": shown.type_name,
            "variablesReference": reference,
        }))
    }

    /// `Class.FIELD`: a static field of a loaded class, the class named as Java would resolve
    /// it from the frame (see [`Heap::find_type`]).
    async fn static_field(
        &self,
        jvm: &Connection,
        frame_id: i64,
        class: &str,
        field: Option<&str>,
    ) -> Result<Option<(Value, String)>, RequestError> {
        let Some(field) = field else {
            return Ok(None);
        };
        let heap = self.heap(jvm, frame_id)?;
        let failed = |e: HeapError| RequestError::Failed(e.to_string());
        let Some(ty) = heap.find_type(class).await.map_err(failed)? else {
            return Ok(None);
        };
        let Some(info) = heap
            .fields(&ty)
            .await
            .map_err(failed)?
            .into_iter()
            .find(|f| f.is_static && f.name == field)
        else {
            return Err(RequestError::Failed(format!(
                "{} has no static field '{field}'",
                ty.name
            )));
        };
        let values = heap
            .get_statics(&ty, std::slice::from_ref(&info))
            .await
            .map_err(failed)?;
        Ok(values
            .first()
            .map(|value| (super::heap::to_wire(value), info.type_name.clone())))
    }

    /// A name as the frame sees it: a local, `this`, or a field of `this`.
    async fn name_in_frame(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        thread: u64,
        frame: &Frame,
        name: &str,
    ) -> Result<Option<(Value, String)>, JdwpError> {
        if let Some(locals) = Self::locals_of(jvm, types, frame).await?
            && let Some(local) = locals.iter().find(|l| l.name == name)
        {
            let values = jvm
                .frame_values(
                    thread,
                    frame.id,
                    &[(local.slot, Tag::of_signature(&local.signature))],
                )
                .await?;
            if let Some(value) = values.into_iter().next() {
                return Ok(Some((value, type_name(&local.signature))));
            }
        }
        let this = match jvm.this_object(thread, frame.id).await {
            Ok(this) => this,
            Err(JdwpError::Jvm(_)) => 0,
            Err(e) => return Err(e),
        };
        if this == 0 {
            return Ok(None);
        }
        if name == "this" {
            let (_, type_id) = jvm.reference_type(this).await?;
            let declared = type_name(&types.signature(jvm, type_id).await?);
            return Ok(Some((
                Value::Object {
                    tag: Tag::Object,
                    id: this,
                },
                declared,
            )));
        }
        let (_, type_id) = jvm.reference_type(this).await?;
        Ok(values::instance_fields(jvm, this, type_id)
            .await?
            .into_iter()
            .find(|(field, _, _)| field == name)
            .map(|(_, declared, value)| (value, declared)))
    }
}

/// A frame's class as its name shows it: the binary name without its package
/// (`Cart$Line`), a hidden class's (`LambdaForm$MH/0x…`) without its address.
fn frame_class(name: &str) -> String {
    let name = name.split_once("/0x").map_or(name, |(class, _)| class);
    name.rsplit('.').next().unwrap_or(name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_name_their_class_without_its_package() {
        assert_eq!(frame_class("com.shop.Cart$Line"), "Cart$Line");
        assert_eq!(
            frame_class("java.lang.invoke.LambdaForm$MH/0x000000003b06c000"),
            "LambdaForm$MH"
        );
        assert_eq!(frame_class("Main"), "Main");
    }
}
