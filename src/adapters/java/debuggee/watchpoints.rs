//! Watchpoints on fields (DAP data breakpoints) as JDWP's field events: `FieldModification` for
//! a write, `FieldAccess` for a read, filtered to the field and, for an instance field, to its
//! object. A field is all JDWP can watch: a local variable lives in a frame's slot, which no
//! event reports.
//!
//! JDWP tells of a write before it is made. So a write takes one bytecode step on, past the
//! store, and stops there: the field then holds its new value, which the session reads as it
//! does at any watchpoint's stop, beside the one it last saw.

use serde_json::{Value as Json, json};

use super::heap::JdwpHeap;
use crate::adapters::java::expression;
use crate::adapters::java::heap::{FieldInfo, Heap, JavaValue, ObjectRef, TypeRef};
use crate::adapters::java::jdwp::Connection;
use crate::adapters::java::jdwp::commands::Modifier;
use crate::adapters::java::jdwp::events::{EventKind, SuspendPolicy};
use crate::dap::requests::DataBreakpoint;

/// A watched field, as its `dataId` spells it: `field:CLASS:FIELD:OBJECT` (object 0: static).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WatchedField {
    class: u64,
    field: u64,
    object: u64,
}

impl WatchedField {
    fn data_id(self) -> String {
        format!("field:{}:{}:{}", self.class, self.field, self.object)
    }

    fn parse(data_id: &str) -> Option<WatchedField> {
        let mut parts = data_id.strip_prefix("field:")?.split(':');
        let mut next = || parts.next()?.parse().ok();
        Some(WatchedField {
            class: next()?,
            field: next()?,
            object: next()?,
        })
    }
}

/// What a field event means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldHit {
    /// Not a watchpoint's.
    NotOurs,
    /// The program stops for the watchpoint with this id.
    Stop(i64),
    /// A write is being made: the program stops past it.
    Writing,
}

/// The watchpoints set, each with its JDWP requests.
#[derive(Default)]
pub struct Watchpoints {
    /// (DAP id, kind, JDWP request).
    requests: Vec<(i64, EventKind, i32)>,
    next_id: i64,
    /// A write under way: the step past it, and the watchpoint's id.
    writing: Option<(i32, i64)>,
}

impl Watchpoints {
    /// `setDataBreakpoints`: the list replaces the watchpoints set before.
    pub async fn set(&mut self, jvm: &Connection, breakpoints: &[DataBreakpoint]) -> Json {
        for (_, kind, request) in self.requests.drain(..) {
            let _ = jvm.clear_event(kind, request).await;
        }
        let mut answers = Vec::new();
        for breakpoint in breakpoints {
            self.next_id += 1;
            let id = self.next_id;
            let answer = match self.add(jvm, id, breakpoint).await {
                Ok(()) => json!({ "id": id, "verified": true }),
                Err(why) => json!({ "id": id, "verified": false, "message": why }),
            };
            answers.push(answer);
        }
        json!({ "breakpoints": answers })
    }

    async fn add(
        &mut self,
        jvm: &Connection,
        id: i64,
        breakpoint: &DataBreakpoint,
    ) -> Result<(), String> {
        if breakpoint.options.condition.is_some() || breakpoint.options.hit_condition.is_some() {
            return Err("a watchpoint on a Java field takes no condition or hit count".into());
        }
        let watched = breakpoint
            .data_id
            .as_deref()
            .and_then(WatchedField::parse)
            .ok_or("not a field this adapter named")?;
        let kinds: &[EventKind] = match breakpoint.access_type.as_str() {
            "read" => &[EventKind::FieldAccess],
            "readWrite" => &[EventKind::FieldAccess, EventKind::FieldModification],
            _ => &[EventKind::FieldModification],
        };
        let mut modifiers = vec![Modifier::FieldOnly {
            class: watched.class,
            field: watched.field,
        }];
        if watched.object != 0 {
            modifiers.push(Modifier::InstanceOnly(watched.object));
        }
        for kind in kinds {
            let request = jvm
                .set_event(*kind, SuspendPolicy::All, &modifiers)
                .await
                .map_err(|e| format!("the JVM refused the watchpoint: {e}"))?;
            self.requests.push((id, *kind, request));
        }
        Ok(())
    }

    /// A field event of `request` in `thread`: a read stops at once; a write steps past itself
    /// first.
    pub async fn field_event(&mut self, jvm: &Connection, request: i32, thread: u64) -> FieldHit {
        let Some(&(id, kind, _)) = self.requests.iter().find(|(_, _, r)| *r == request) else {
            return FieldHit::NotOurs;
        };
        if kind == EventKind::FieldAccess {
            return FieldHit::Stop(id);
        }
        match jvm
            .set_event(
                EventKind::SingleStep,
                SuspendPolicy::All,
                &[Modifier::InstructionStep { thread }],
            )
            .await
        {
            Ok(step) => {
                self.writing = Some((step, id));
                FieldHit::Writing
            }
            // Without the step, it stops before the write.
            Err(_) => FieldHit::Stop(id),
        }
    }

    /// A step's arrival: the id of the watchpoint whose write it stepped past, if it was one.
    pub async fn stepped(&mut self, jvm: &Connection, request: i32) -> Option<i64> {
        let (step, id) = self.writing.filter(|(step, _)| *step == request)?;
        self.writing = None;
        let _ = jvm.clear_event(EventKind::SingleStep, step).await;
        Some(id)
    }
}

/// `dataBreakpointInfo` for `name` within `container` (an object whose field it is; `None`:
/// a name or expression of the frame), read in `heap`'s frame.
pub async fn field_info(heap: &JdwpHeap, container: Option<ObjectRef>, name: &str) -> Json {
    match watched_field(heap, container, name).await {
        Ok((watched, description)) => json!({
            "dataId": watched.data_id(),
            "description": description,
            "accessTypes": ["read", "write", "readWrite"],
            "canPersist": false,
        }),
        Err(why) => json!({ "dataId": null, "description": why }),
    }
}

async fn watched_field(
    heap: &JdwpHeap,
    container: Option<ObjectRef>,
    name: &str,
) -> Result<(WatchedField, String), String> {
    if let Some(object) = container {
        return object_field(heap, object, name).await;
    }
    if let Some((owner, field)) = name.rsplit_once('.') {
        let (owner, field) = (owner.trim(), field.trim());
        return match expression::evaluate(heap, owner).await {
            Ok(JavaValue::Object(object)) => object_field(heap, object, field).await,
            Ok(JavaValue::Null) => Err(format!("'{owner}' is null")),
            Ok(_) => Err(format!(
                "'{owner}' is no object: only fields can be watched"
            )),
            Err(evaluated) => match heap.find_type(owner).await {
                Ok(Some(ty)) => static_field(heap, &ty, field).await,
                _ => Err(format!("{evaluated}, and no class '{owner}' is loaded yet")),
            },
        };
    }
    // A bare name: a field of `this` or a static of the frame's class, not a local.
    if let Ok(Some(locals)) = heap.locals().await
        && locals.iter().any(|l| l.name == name)
    {
        return Err(format!(
            "'{name}' is a local variable: the JVM watches fields only (this.FIELD, Class.FIELD)"
        ));
    }
    if let Ok(Some(this)) = heap.this().await
        && let Ok(found) = object_field(heap, this, name).await
    {
        return Ok(found);
    }
    let ty = heap.frame_type().await.map_err(|e| e.to_string())?;
    static_field(heap, &ty, name).await
}

/// The field `name` of `object`'s class or a superclass; a static one is watched as such.
async fn object_field(
    heap: &JdwpHeap,
    object: ObjectRef,
    name: &str,
) -> Result<(WatchedField, String), String> {
    let ty = heap.type_of(object).await.map_err(|e| e.to_string())?;
    let (declaring, field) = find_field(heap, &ty, name).await?;
    let object = if field.is_static { 0 } else { object.id };
    Ok((
        WatchedField {
            class: field.declaring,
            field: field.id,
            object,
        },
        format!("{}.{}", declaring.name, field.name),
    ))
}

async fn static_field(
    heap: &JdwpHeap,
    ty: &TypeRef,
    name: &str,
) -> Result<(WatchedField, String), String> {
    let (declaring, field) = find_field(heap, ty, name).await?;
    if !field.is_static {
        return Err(format!(
            "{}.{name} is an instance field: watch it through an object (this.{name})",
            declaring.name
        ));
    }
    Ok((
        WatchedField {
            class: field.declaring,
            field: field.id,
            object: 0,
        },
        format!("{}.{}", declaring.name, field.name),
    ))
}

/// The field `name` declared by `ty` or its nearest superclass that has one.
async fn find_field(
    heap: &JdwpHeap,
    ty: &TypeRef,
    name: &str,
) -> Result<(TypeRef, FieldInfo), String> {
    let mut at = Some(ty.clone());
    while let Some(ty) = at {
        let fields = heap.fields(&ty).await.map_err(|e| e.to_string())?;
        if let Some(field) = fields.into_iter().find(|f| f.name == name) {
            return Ok((ty, field));
        }
        at = heap.superclass(&ty).await.map_err(|e| e.to_string())?;
    }
    Err(format!("{} has no field '{name}'", ty.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_id_names_the_field_and_its_object() {
        let watched = WatchedField {
            class: 7,
            field: 9,
            object: 0,
        };
        assert_eq!(WatchedField::parse(&watched.data_id()), Some(watched));
        assert_eq!(WatchedField::parse("field:7:9"), None);
        assert_eq!(WatchedField::parse("0x10/4"), None);
    }
}
