//! [`Heap`] over the JDWP connection, for one suspended thread and one of its frames: what the
//! Java expression evaluator and value presenter ask of a stopped JVM, answered by JDWP
//! commands. Names cross as Java writes them; signatures stay at the wire.
//!
//! A frame is known by its depth, and its JDWP id asked for anew when needed: an invocation
//! resumes the thread for a moment, which ends the ids of its frames.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::try_join_all;

use crate::adapters::java::heap::{
    FieldInfo, Heap, HeapError, JavaValue, LocalInfo, MethodInfo, ObjectKind, ObjectRef, Receiver,
    TypeKind, TypeRef,
};
use crate::adapters::java::jdwp::commands::{Invoked, modifiers};
use crate::adapters::java::jdwp::signatures::{method_types, signature_of, type_name};
use crate::adapters::java::jdwp::wire::{Tag, TypeTag, Value};
use crate::adapters::java::jdwp::{Connection, JdwpError};

/// How long a method invoked in the program may run before it is given up.
const INVOKE_LIMIT: Duration = Duration::from_secs(5);

/// One frame of a suspended thread, and the heap it reaches.
pub struct JdwpHeap {
    jvm: Connection,
    thread: u64,
    depth: usize,
    types: Arc<TypeCache>,
}

/// What heaps learnt of each type during one stop, by type id: a type's name, its supertypes,
/// fields and methods cannot change while the program is stopped, and presenting a map of 100
/// entries asks them of the same few types hundreds of times (`getKey` looked up through every
/// supertype of each entry's class), which was nine JDWP round trips in ten. `locals` is
/// several requests (the locals, then each collection's page of children), which share it.
/// An object's runtime type cannot change either: a page of elements asks theirs together
/// ([`Heap::types_of`]) and presenting each then finds it here.
#[derive(Default)]
pub struct TypeCache {
    objects: Mutex<HashMap<u64, (TypeTag, u64)>>,
    signatures: Mutex<HashMap<u64, String>>,
    superclasses: Mutex<HashMap<u64, u64>>,
    interfaces: Mutex<HashMap<u64, Vec<u64>>>,
    fields: Mutex<HashMap<u64, Vec<FieldInfo>>>,
    methods: Mutex<HashMap<u64, Vec<MethodInfo>>>,
}

/// The value cached under `id`, if any (a lock poisoned by a panic elsewhere is still read).
fn cached<T: Clone>(cache: &Mutex<HashMap<u64, T>>, id: u64) -> Option<T> {
    cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(&id)
        .cloned()
}

fn remember<T>(cache: &Mutex<HashMap<u64, T>>, id: u64, value: T) {
    cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(id, value);
}

impl JdwpHeap {
    /// The heap of a frame, knowing what `types` learnt already this stop.
    pub fn new(jvm: Connection, thread: u64, depth: usize, types: Arc<TypeCache>) -> JdwpHeap {
        JdwpHeap {
            jvm,
            thread,
            depth,
            types,
        }
    }

    /// The frame's id and location now.
    async fn frame(&self) -> Result<crate::adapters::java::jdwp::commands::Frame, HeapError> {
        let count = i32::try_from(self.depth + 1).unwrap_or(i32::MAX);
        let frames = self.jvm.frames(self.thread, count).await.map_err(refused)?;
        frames
            .get(self.depth)
            .copied()
            .ok_or_else(|| HeapError::Gone("the frame is gone".into()))
    }

    async fn type_ref(&self, tag: TypeTag, id: u64) -> Result<TypeRef, HeapError> {
        let signature = match cached(&self.types.signatures, id) {
            Some(signature) => signature,
            None => {
                let signature = self.jvm.signature(id).await.map_err(refused)?;
                remember(&self.types.signatures, id, signature.clone());
                signature
            }
        };
        Ok(TypeRef {
            id,
            name: type_name(&signature),
            kind: kind_of(tag),
        })
    }

    /// The runtime type's tag and id of each object, those not known yet asked together.
    async fn reference_types(
        &self,
        objects: &[ObjectRef],
    ) -> Result<Vec<(TypeTag, u64)>, HeapError> {
        let unknown: Vec<u64> = objects
            .iter()
            .map(|o| o.id)
            .filter(|id| cached(&self.types.objects, *id).is_none())
            .collect();
        let asked = try_join_all(unknown.iter().map(|id| self.jvm.reference_type(*id)))
            .await
            .map_err(refused)?;
        for (id, found) in unknown.into_iter().zip(asked) {
            remember(&self.types.objects, id, found);
        }
        objects
            .iter()
            .map(|o| {
                cached(&self.types.objects, o.id)
                    .ok_or_else(|| HeapError::Gone(format!("object {}", o.id)))
            })
            .collect()
    }

    /// The signatures of types not known yet, asked together.
    async fn learn_signatures(&self, ids: &[u64]) -> Result<(), HeapError> {
        let mut unknown: Vec<u64> = Vec::new();
        for id in ids {
            if cached(&self.types.signatures, *id).is_none() && !unknown.contains(id) {
                unknown.push(*id);
            }
        }
        let asked = try_join_all(unknown.iter().map(|id| self.jvm.signature(*id)))
            .await
            .map_err(refused)?;
        for (id, signature) in unknown.into_iter().zip(asked) {
            remember(&self.types.signatures, id, signature);
        }
        Ok(())
    }

    async fn type_by_name(&self, name: &str) -> Result<Option<TypeRef>, HeapError> {
        let found = self
            .jvm
            .classes_by_signature(&signature_of(name))
            .await
            .map_err(refused)?;
        Ok(found.first().map(|loaded| TypeRef {
            id: loaded.id,
            name: name.to_string(),
            kind: kind_of(loaded.tag),
        }))
    }
}

fn kind_of(tag: TypeTag) -> TypeKind {
    match tag {
        TypeTag::Class => TypeKind::Class,
        TypeTag::Interface => TypeKind::Interface,
        TypeTag::Array => TypeKind::Array,
    }
}

/// A JDWP failure as the heap's error.
fn refused(error: JdwpError) -> HeapError {
    match error {
        JdwpError::Jvm(code @ (10 | 15 | 20 | 21 | 30 | 112)) => {
            HeapError::Gone(JdwpError::name(code).to_string())
        }
        JdwpError::Jvm(code) => HeapError::Refused(JdwpError::name(code).to_string()),
        JdwpError::Wire(e) => HeapError::Connection(e.to_string()),
        JdwpError::Closed => HeapError::Connection("the connection to the JVM is closed".into()),
    }
}

fn object_kind(tag: Tag) -> ObjectKind {
    match tag {
        Tag::String => ObjectKind::String,
        Tag::Array => ObjectKind::Array,
        Tag::ClassObject => ObjectKind::ClassObject,
        Tag::Thread => ObjectKind::Thread,
        Tag::ThreadGroup => ObjectKind::ThreadGroup,
        Tag::ClassLoader => ObjectKind::ClassLoader,
        _ => ObjectKind::Plain,
    }
}

fn object_tag(kind: ObjectKind) -> Tag {
    match kind {
        ObjectKind::Plain => Tag::Object,
        ObjectKind::String => Tag::String,
        ObjectKind::Array => Tag::Array,
        ObjectKind::ClassObject => Tag::ClassObject,
        ObjectKind::Thread => Tag::Thread,
        ObjectKind::ThreadGroup => Tag::ThreadGroup,
        ObjectKind::ClassLoader => Tag::ClassLoader,
    }
}

/// A wire value as a Java value.
pub fn to_java(value: Value) -> JavaValue {
    match value {
        Value::Void => JavaValue::Void,
        Value::Boolean(b) => JavaValue::Boolean(b),
        Value::Byte(b) => JavaValue::Byte(b),
        Value::Char(c) => JavaValue::Char(c),
        Value::Short(s) => JavaValue::Short(s),
        Value::Int(i) => JavaValue::Int(i),
        Value::Long(l) => JavaValue::Long(l),
        Value::Float(f) => JavaValue::Float(f),
        Value::Double(d) => JavaValue::Double(d),
        Value::Object { id: 0, .. } => JavaValue::Null,
        Value::Object { tag, id } => JavaValue::Object(ObjectRef {
            id,
            kind: object_kind(tag),
        }),
    }
}

/// A Java value as the wire carries it.
pub fn to_wire(value: &JavaValue) -> Value {
    match *value {
        JavaValue::Void => Value::Void,
        JavaValue::Null => Value::Object {
            tag: Tag::Object,
            id: 0,
        },
        JavaValue::Boolean(b) => Value::Boolean(b),
        JavaValue::Byte(b) => Value::Byte(b),
        JavaValue::Char(c) => Value::Char(c),
        JavaValue::Short(s) => Value::Short(s),
        JavaValue::Int(i) => Value::Int(i),
        JavaValue::Long(l) => Value::Long(l),
        JavaValue::Float(f) => Value::Float(f),
        JavaValue::Double(d) => Value::Double(d),
        JavaValue::Object(object) => Value::Object {
            tag: object_tag(object.kind),
            id: object.id,
        },
    }
}

/// The names a type written in source may have as a binary name: `a.b.C.D` may be the nested
/// `a.b.C$D` or `a.b$C$D`..., tried from the last dot back.
fn binary_names(name: &str) -> Vec<String> {
    let mut names = vec![name.to_string()];
    let mut current = name.to_string();
    while let Some(at) = current.rfind('.') {
        current.replace_range(at..=at, "$");
        names.push(current.clone());
    }
    names
}

impl Heap for JdwpHeap {
    async fn locals(&self) -> Result<Option<Vec<LocalInfo>>, HeapError> {
        let frame = self.frame().await?;
        let location = frame.location;
        let table = match self
            .jvm
            .variable_table(location.class, location.method)
            .await
        {
            Ok(table) => table,
            Err(JdwpError::Jvm(_)) => return Ok(None),
            Err(e) => return Err(refused(e)),
        };
        let mut live: Vec<_> = table
            .variables
            .iter()
            .filter(|v| v.is_live_at(location.index) && v.name != "this")
            .collect();
        live.sort_by_key(|v| v.slot);
        let slots: Vec<(i32, Tag)> = live
            .iter()
            .map(|v| (v.slot, Tag::of_signature(&v.signature)))
            .collect();
        let values = self
            .jvm
            .frame_values(self.thread, frame.id, &slots)
            .await
            .map_err(refused)?;
        Ok(Some(
            live.iter()
                .zip(values)
                .map(|(variable, value)| LocalInfo {
                    name: variable.name.clone(),
                    type_name: type_name(&variable.signature),
                    value: to_java(value),
                    is_argument: variable.slot < table.argument_slots,
                })
                .collect(),
        ))
    }

    async fn this(&self) -> Result<Option<ObjectRef>, HeapError> {
        let frame = self.frame().await?;
        let this = self
            .jvm
            .this_object(self.thread, frame.id)
            .await
            .map_err(refused)?;
        Ok((this != 0).then_some(ObjectRef {
            id: this,
            kind: ObjectKind::Plain,
        }))
    }

    async fn frame_type(&self) -> Result<TypeRef, HeapError> {
        let frame = self.frame().await?;
        self.type_ref(frame.location.type_tag, frame.location.class)
            .await
    }

    async fn find_type(&self, name: &str) -> Result<Option<TypeRef>, HeapError> {
        let name = name.trim();
        for candidate in binary_names(name) {
            if let Some(found) = self.type_by_name(&candidate).await? {
                return Ok(Some(found));
            }
        }
        if name.contains('.') {
            return Ok(None);
        }
        // A simple name, as Java resolves it from the frame's class: its nested types, its
        // package, then java.lang.
        let own = self.frame_type().await?;
        let package = own.name.rsplit_once('.').map(|(p, _)| p);
        let mut places = vec![format!("{}${name}", own.name)];
        if let Some(package) = package {
            places.push(format!("{package}.{name}"));
        }
        places.push(format!("java.lang.{name}"));
        for place in places {
            if let Some(found) = self.type_by_name(&place).await? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    async fn type_of(&self, object: ObjectRef) -> Result<TypeRef, HeapError> {
        let (tag, id) = match cached(&self.types.objects, object.id) {
            Some(known) => known,
            None => {
                let found = self.jvm.reference_type(object.id).await.map_err(refused)?;
                remember(&self.types.objects, object.id, found);
                found
            }
        };
        self.type_ref(tag, id).await
    }

    async fn types_of(&self, objects: &[ObjectRef]) -> Result<Vec<TypeRef>, HeapError> {
        let found = self.reference_types(objects).await?;
        let ids: Vec<u64> = found.iter().map(|(_, id)| *id).collect();
        self.learn_signatures(&ids).await?;
        let mut types = Vec::with_capacity(found.len());
        for (tag, id) in found {
            types.push(self.type_ref(tag, id).await?);
        }
        Ok(types)
    }

    async fn superclass(&self, ty: &TypeRef) -> Result<Option<TypeRef>, HeapError> {
        if ty.kind == TypeKind::Interface {
            return Ok(None);
        }
        let superclass = match cached(&self.types.superclasses, ty.id) {
            Some(superclass) => superclass,
            None => {
                let superclass = self.jvm.superclass(ty.id).await.map_err(refused)?;
                remember(&self.types.superclasses, ty.id, superclass);
                superclass
            }
        };
        if superclass == 0 {
            return Ok(None);
        }
        Ok(Some(self.type_ref(TypeTag::Class, superclass).await?))
    }

    async fn interfaces(&self, ty: &TypeRef) -> Result<Vec<TypeRef>, HeapError> {
        let ids = match cached(&self.types.interfaces, ty.id) {
            Some(ids) => ids,
            None => {
                let ids = self.jvm.interfaces(ty.id).await.map_err(refused)?;
                remember(&self.types.interfaces, ty.id, ids.clone());
                ids
            }
        };
        let mut out = Vec::new();
        for id in ids {
            out.push(self.type_ref(TypeTag::Interface, id).await?);
        }
        Ok(out)
    }

    async fn fields(&self, ty: &TypeRef) -> Result<Vec<FieldInfo>, HeapError> {
        if let Some(fields) = cached(&self.types.fields, ty.id) {
            return Ok(fields);
        }
        let fields: Vec<FieldInfo> = self
            .jvm
            .fields(ty.id)
            .await
            .map_err(refused)?
            .into_iter()
            .map(|field| FieldInfo {
                id: field.id,
                declaring: ty.id,
                type_name: type_name(&field.signature),
                is_static: field.modifiers & modifiers::STATIC != 0,
                is_synthetic: modifiers::is_synthetic(field.modifiers),
                name: field.name,
            })
            .collect();
        remember(&self.types.fields, ty.id, fields.clone());
        Ok(fields)
    }

    async fn methods(&self, ty: &TypeRef) -> Result<Vec<MethodInfo>, HeapError> {
        if let Some(methods) = cached(&self.types.methods, ty.id) {
            return Ok(methods);
        }
        let methods: Vec<MethodInfo> = self
            .jvm
            .methods(ty.id)
            .await
            .map_err(refused)?
            .into_iter()
            .map(|method| {
                let (parameters, returns) = method_types(&method.signature);
                MethodInfo {
                    id: method.id,
                    declaring: ty.id,
                    parameters,
                    returns,
                    is_static: method.modifiers & modifiers::STATIC != 0,
                    is_varargs: method.modifiers & modifiers::VARARGS != 0,
                    is_abstract: method.modifiers & modifiers::ABSTRACT != 0,
                    is_synthetic: modifiers::is_synthetic(method.modifiers),
                    name: method.name,
                }
            })
            .collect();
        remember(&self.types.methods, ty.id, methods.clone());
        Ok(methods)
    }

    async fn get_fields(
        &self,
        object: ObjectRef,
        fields: &[FieldInfo],
    ) -> Result<Vec<JavaValue>, HeapError> {
        let ids: Vec<u64> = fields.iter().map(|f| f.id).collect();
        Ok(self
            .jvm
            .field_values(object.id, &ids)
            .await
            .map_err(refused)?
            .into_iter()
            .map(to_java)
            .collect())
    }

    async fn get_fields_of(
        &self,
        objects: &[ObjectRef],
        fields: &[FieldInfo],
    ) -> Result<Vec<Vec<JavaValue>>, HeapError> {
        let ids: Vec<u64> = fields.iter().map(|f| f.id).collect();
        let values = try_join_all(objects.iter().map(|o| self.jvm.field_values(o.id, &ids)))
            .await
            .map_err(refused)?;
        Ok(values
            .into_iter()
            .map(|values| values.into_iter().map(to_java).collect())
            .collect())
    }

    async fn get_statics(
        &self,
        ty: &TypeRef,
        fields: &[FieldInfo],
    ) -> Result<Vec<JavaValue>, HeapError> {
        let ids: Vec<u64> = fields.iter().map(|f| f.id).collect();
        Ok(self
            .jvm
            .static_values(ty.id, &ids)
            .await
            .map_err(refused)?
            .into_iter()
            .map(to_java)
            .collect())
    }

    async fn set_field(
        &self,
        object: ObjectRef,
        field: &FieldInfo,
        value: JavaValue,
    ) -> Result<(), HeapError> {
        self.jvm
            .set_field_value(object.id, field.id, &to_wire(&value))
            .await
            .map_err(refused)
    }

    async fn set_static(
        &self,
        ty: &TypeRef,
        field: &FieldInfo,
        value: JavaValue,
    ) -> Result<(), HeapError> {
        self.jvm
            .set_static_value(ty.id, field.id, &to_wire(&value))
            .await
            .map_err(refused)
    }

    async fn set_local(&self, name: &str, value: JavaValue) -> Result<(), HeapError> {
        let frame = self.frame().await?;
        let location = frame.location;
        let table = self
            .jvm
            .variable_table(location.class, location.method)
            .await
            .map_err(refused)?;
        let variable = table
            .variables
            .iter()
            .find(|v| v.name == name && v.is_live_at(location.index))
            .ok_or_else(|| HeapError::Refused(format!("no local '{name}' here")))?;
        self.jvm
            .set_frame_value(self.thread, frame.id, variable.slot, &to_wire(&value))
            .await
            .map_err(refused)
    }

    async fn array_length(&self, array: ObjectRef) -> Result<usize, HeapError> {
        self.jvm.array_length(array.id).await.map_err(refused)
    }

    async fn array_elements(
        &self,
        array: ObjectRef,
        first: usize,
        count: usize,
    ) -> Result<Vec<JavaValue>, HeapError> {
        if count == 0 {
            return Ok(Vec::new());
        }
        Ok(self
            .jvm
            .array_values(array.id, first, count)
            .await
            .map_err(refused)?
            .into_iter()
            .map(to_java)
            .collect())
    }

    async fn set_array_elements(
        &self,
        array: ObjectRef,
        first: usize,
        values: &[JavaValue],
    ) -> Result<(), HeapError> {
        let values: Vec<Value> = values.iter().map(to_wire).collect();
        self.jvm
            .set_array_values(array.id, first, &values)
            .await
            .map_err(refused)
    }

    async fn new_array(&self, ty: &TypeRef, length: usize) -> Result<ObjectRef, HeapError> {
        let id = self.jvm.new_array(ty.id, length).await.map_err(refused)?;
        Ok(ObjectRef {
            id,
            kind: ObjectKind::Array,
        })
    }

    async fn string_text(&self, string: ObjectRef) -> Result<String, HeapError> {
        self.jvm.string_value(string.id).await.map_err(refused)
    }

    async fn string_texts(&self, strings: &[ObjectRef]) -> Result<Vec<String>, HeapError> {
        try_join_all(strings.iter().map(|s| self.jvm.string_value(s.id)))
            .await
            .map_err(refused)
    }

    async fn new_string(&self, text: &str) -> Result<ObjectRef, HeapError> {
        let id = self.jvm.create_string(text).await.map_err(refused)?;
        Ok(ObjectRef {
            id,
            kind: ObjectKind::String,
        })
    }

    async fn invoke(
        &self,
        receiver: &Receiver,
        method: &MethodInfo,
        arguments: &[JavaValue],
    ) -> Result<JavaValue, HeapError> {
        let arguments: Vec<Value> = arguments.iter().map(to_wire).collect();
        let call = async {
            match receiver {
                Receiver::Instance(object) => {
                    self.jvm
                        .invoke_method(
                            object.id,
                            self.thread,
                            method.declaring,
                            method.id,
                            &arguments,
                        )
                        .await
                }
                Receiver::Static(class) => {
                    self.jvm
                        .invoke_static(*class, self.thread, method.id, &arguments)
                        .await
                }
            }
        };
        let _invoking = self.jvm.invoking();
        let invoked = tokio::time::timeout(INVOKE_LIMIT, call)
            .await
            .map_err(|_| HeapError::TimedOut)?
            .map_err(refused)?;
        match invoked {
            Invoked::Returned(value) => Ok(to_java(value)),
            Invoked::Threw(exception) => {
                let exception = ObjectRef {
                    id: exception,
                    kind: ObjectKind::Plain,
                };
                let type_name = self.type_of(exception).await?.name;
                Err(HeapError::Threw {
                    exception,
                    type_name,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_canonical_name_is_tried_as_each_binary_name() {
        assert_eq!(
            binary_names("com.shop.Cart.Line"),
            [
                "com.shop.Cart.Line",
                "com.shop.Cart$Line",
                "com.shop$Cart$Line",
                "com$shop$Cart$Line"
            ]
        );
    }

    #[test]
    fn values_cross_the_wire_both_ways() {
        for value in [
            JavaValue::Null,
            JavaValue::Int(3),
            JavaValue::Char(65),
            JavaValue::Object(ObjectRef {
                id: 9,
                kind: ObjectKind::String,
            }),
        ] {
            assert_eq!(to_java(to_wire(&value)), value);
        }
    }
}
