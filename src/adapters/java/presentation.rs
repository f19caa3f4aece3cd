//! A Java value as `locals`, `print` and a stop report show it, and as DAP `variables` expands
//! it: a summary line plus the children to expand. Values show by what they mean, not by their
//! internals: strings quoted, boxes unboxed, arrays with their length and elements, lists, sets
//! and maps by their elements (through their own `size()` and `toArray()`, so every
//! implementation shows alike), `Optional` as `Optional[x]`, records by their components,
//! enums by their names, other objects by `toString()` where their class overrides it.
//! Everything is bounded: string lengths, element counts and the depth of nested summaries.

use std::collections::HashMap;

use crate::adapters::java::expression::hierarchy::{
    OBJECT, box_field, boxed_value, instance_fields, methods_named, supertype_names,
};
use crate::adapters::java::expression::primitives::{Primitive, java_text};
use crate::adapters::java::heap::{
    FieldInfo, Heap, HeapError, JavaValue, MethodInfo, ObjectId, ObjectKind, ObjectRef, Receiver,
    TypeId, TypeRef,
};

const ENUM: &str = "java.lang.Enum";
const RECORD: &str = "java.lang.Record";
const OPTIONAL: &str = "java.util.Optional";
const COLLECTION: &str = "java.util.Collection";
const MAP: &str = "java.util.Map";
const ELLIPSIS: &str = "…";
/// The entry classes of `HashMap` (and so `LinkedHashMap`) and `TreeMap`, whose `getKey()` and
/// `getValue()` return their `key` and `value` fields.
const PLAIN_ENTRIES: &[&str] = &["java.util.HashMap$Node", "java.util.TreeMap$Entry"];

/// How much of a value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Characters of a string (or a `toString()`) before it is cut.
    pub string_chars: usize,
    /// Elements of an array, collection or map written in a summary.
    pub summary_elements: usize,
    /// Elements given as children to expand.
    pub children: usize,
    /// How many levels of values within values a summary writes out; below, a value shows
    /// as its type and size (`ArrayList(3)`) without running any of its code.
    pub depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            string_chars: 200,
            summary_elements: 10,
            children: 100,
            depth: 2,
        }
    }
}

/// What kind of value was shown, for a client's presentation hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Void,
    Null,
    Primitive,
    String,
    /// A box of a primitive, shown as the primitive.
    Boxed,
    Array,
    Collection,
    Map,
    Optional,
    Record,
    Enum,
    /// An object shown by its class's own `toString()`.
    Described,
    /// An object shown as `Class@id` with its fields as children.
    Plain,
}

/// A value shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Presented {
    pub summary: String,
    /// The runtime type's name (`java.util.ArrayList`), a primitive's, or `null`.
    pub type_name: String,
    pub kind: ValueKind,
    /// What expanding it shows: elements, entries, components or fields.
    pub children: Vec<Child>,
    /// The element count of an array, collection or map, of which `children` hold the first.
    pub length: Option<usize>,
}

/// One thing inside a value: an element (`[0]`), a map's entry (named by its key's summary),
/// a component or a field.
#[derive(Debug, Clone, PartialEq)]
pub struct Child {
    pub name: String,
    pub value: JavaValue,
}

/// `value` shown within `limits`, with its children.
pub async fn present<H: Heap>(
    heap: &H,
    value: &JavaValue,
    limits: &Limits,
) -> Result<Presented, HeapError> {
    Presenter { heap, limits }
        .present(value, limits.depth, true)
        .await
}

/// Several values shown within `limits`, as [`present`] shows each: their strings' texts, types
/// and boxes' contents asked together rather than one value after another.
pub async fn present_all<H: Heap>(
    heap: &H,
    values: &[JavaValue],
    limits: &Limits,
) -> Result<Vec<Presented>, HeapError> {
    Presenter { heap, limits }
        .present_many(values, limits.depth, true)
        .await
}

/// Children `first..first + count` of an array, collection or map (one whose
/// [`Presented::length`] is some), for a client that pages through a long one (DAP's
/// `variables` with `start` and `count`); of a value of another kind, its children.
pub async fn children<H: Heap>(
    heap: &H,
    value: &JavaValue,
    first: usize,
    count: usize,
    limits: &Limits,
) -> Result<Vec<Child>, HeapError> {
    Presenter { heap, limits }.page(value, first, count).await
}

struct Presenter<'a, H> {
    heap: &'a H,
    limits: &'a Limits,
}

/// The elements of a sequence shown: how many there are and the first few.
struct Elements {
    length: usize,
    values: Vec<JavaValue>,
}

impl<H: Heap> Presenter<'_, H> {
    async fn present(
        &self,
        value: &JavaValue,
        depth: usize,
        children: bool,
    ) -> Result<Presented, HeapError> {
        let leaf = |summary: String, type_name: &str, kind| Presented {
            summary,
            type_name: type_name.into(),
            kind,
            children: Vec::new(),
            length: None,
        };
        let object = match value {
            JavaValue::Void => return Ok(leaf("void".into(), "void", ValueKind::Void)),
            JavaValue::Null => return Ok(leaf("null".into(), "null", ValueKind::Null)),
            JavaValue::Object(object) => *object,
            primitive => {
                let name = Primitive::of(primitive).map_or("?", Primitive::name);
                return Ok(leaf(primitive_text(primitive), name, ValueKind::Primitive));
            }
        };
        if object.kind == ObjectKind::String {
            let text = self.heap.string_text(object).await?;
            return Ok(leaf(
                quoted(&text, self.limits.string_chars),
                "java.lang.String",
                ValueKind::String,
            ));
        }
        let ty = self.heap.type_of(object).await?;
        if object.kind == ObjectKind::Array {
            return self.array(object, ty, depth, children).await;
        }
        if Primitive::from_box(&ty.name).is_some()
            && let Some(held) = boxed_value(self.heap, object, &ty).await?
        {
            return Ok(leaf(primitive_text(&held), &ty.name, ValueKind::Boxed));
        }
        if depth == 0 {
            return Ok(leaf(
                format!("{}@{}", simple_name(&ty.name), object.id),
                &ty.name,
                ValueKind::Plain,
            ));
        }
        let supertypes = supertype_names(self.heap, &ty).await?;
        let is = |name: &str| supertypes.iter().any(|s| s == name);
        if is(ENUM) {
            return self.enumeration(object, ty, children).await;
        }
        if ty.name == OPTIONAL {
            return self.optional(object, ty, depth).await;
        }
        if is(RECORD) {
            return self.record(object, ty, depth).await;
        }
        if is(MAP) {
            return self.map(object, ty, depth, children).await;
        }
        if is(COLLECTION) {
            return self.collection(object, ty, depth, children).await;
        }
        self.object(object, ty, children).await
    }

    async fn summary(&self, value: &JavaValue, depth: usize) -> Result<String, HeapError> {
        Ok(Box::pin(self.present(value, depth, false)).await?.summary)
    }

    async fn summaries(
        &self,
        values: &[JavaValue],
        depth: usize,
    ) -> Result<Vec<String>, HeapError> {
        Ok(self
            .present_many(values, depth, false)
            .await?
            .into_iter()
            .map(|shown| shown.summary)
            .collect())
    }

    /// Each value as [`Presenter::present`] shows it. What a page of elements asks of each
    /// (a string's text, an object's type, a box's content) is asked of all together, each
    /// question one JDWP round trip: one after another they were most of `locals`' time.
    async fn present_many(
        &self,
        values: &[JavaValue],
        depth: usize,
        children: bool,
    ) -> Result<Vec<Presented>, HeapError> {
        let objects = |kind_is_string: bool| -> Vec<ObjectRef> {
            values
                .iter()
                .filter_map(|value| match value {
                    JavaValue::Object(object)
                        if (object.kind == ObjectKind::String) == kind_is_string =>
                    {
                        Some(*object)
                    }
                    _ => None,
                })
                .collect()
        };
        let strings = objects(true);
        let texts: HashMap<ObjectId, String> = strings
            .iter()
            .map(|s| s.id)
            .zip(self.heap.string_texts(&strings).await?)
            .collect();
        let others = objects(false);
        let types = self.heap.types_of(&others).await?;
        let held = self.boxes_held(&others, &types).await?;
        let mut shown = Vec::with_capacity(values.len());
        for value in values {
            let known = match value {
                JavaValue::Object(object) => match (texts.get(&object.id), held.get(&object.id)) {
                    (Some(text), _) if object.kind == ObjectKind::String => Some(Presented {
                        summary: quoted(text, self.limits.string_chars),
                        type_name: "java.lang.String".into(),
                        kind: ValueKind::String,
                        children: Vec::new(),
                        length: None,
                    }),
                    (_, Some((type_name, primitive))) => Some(Presented {
                        summary: primitive_text(primitive),
                        type_name: type_name.clone(),
                        kind: ValueKind::Boxed,
                        children: Vec::new(),
                        length: None,
                    }),
                    _ => None,
                },
                _ => None,
            };
            shown.push(match known {
                Some(known) => known,
                None => Box::pin(self.present(value, depth, children)).await?,
            });
        }
        Ok(shown)
    }

    /// The primitives the boxes among `objects` (of runtime `types`) hold, by object, with the
    /// box's type name; each box type's values read together.
    async fn boxes_held(
        &self,
        objects: &[ObjectRef],
        types: &[TypeRef],
    ) -> Result<HashMap<ObjectId, (String, JavaValue)>, HeapError> {
        let mut held = HashMap::new();
        for (ty, group) in by_type(objects, types) {
            if Primitive::from_box(&ty.name).is_none() {
                continue;
            }
            let Some(field) = box_field(self.heap, &ty).await? else {
                continue;
            };
            let values = self
                .heap
                .get_fields_of(&group, std::slice::from_ref(&field))
                .await?;
            for (object, mut value) in group.iter().zip(values) {
                if let Some(value) = value.pop() {
                    held.insert(object.id, (ty.name.clone(), value));
                }
            }
        }
        Ok(held)
    }

    /// `{a, b, …}` of the first elements' summaries, and `… N more` when some are left out.
    async fn listing(
        &self,
        elements: &Elements,
        depth: usize,
        open: &str,
        close: &str,
    ) -> Result<String, HeapError> {
        let shown = elements.values.len().min(self.limits.summary_elements);
        let mut parts = self
            .summaries(&elements.values[..shown], depth.saturating_sub(1))
            .await?;
        if shown < elements.length {
            parts.push(format!("{ELLIPSIS} {} more", elements.length - shown));
        }
        Ok(format!("{open}{}{close}", parts.join(", ")))
    }

    fn indexed(&self, elements: Elements, children: bool) -> Vec<Child> {
        if !children {
            return Vec::new();
        }
        elements
            .values
            .into_iter()
            .take(self.limits.children)
            .enumerate()
            .map(|(i, value)| Child {
                name: format!("[{i}]"),
                value,
            })
            .collect()
    }

    /// How many elements to read: enough for the summary, and the children when wanted.
    fn wanted(&self, children: bool) -> usize {
        if children {
            self.limits.children.max(self.limits.summary_elements)
        } else {
            self.limits.summary_elements
        }
    }

    /// An array's length and its elements `first..first + count` (those of them it has).
    async fn array_elements(
        &self,
        array: ObjectRef,
        first: usize,
        count: usize,
    ) -> Result<Elements, HeapError> {
        let length = self.heap.array_length(array).await?;
        let count = length.saturating_sub(first).min(count);
        let values = if count == 0 {
            Vec::new()
        } else {
            self.heap.array_elements(array, first, count).await?
        };
        Ok(Elements { length, values })
    }

    async fn array(
        &self,
        array: ObjectRef,
        ty: TypeRef,
        depth: usize,
        children: bool,
    ) -> Result<Presented, HeapError> {
        let elements = self
            .array_elements(array, 0, self.wanted(children && depth > 0))
            .await?;
        // `int[]` of three is `int[3]`; `int[][]` of two is `int[2][]`.
        let sized = match ty.name.find("[]") {
            Some(at) => format!(
                "{}[{}]{}",
                &ty.name[..at],
                elements.length,
                &ty.name[at + 2..]
            ),
            None => ty.name.clone(),
        };
        let sized = simple_name(&sized);
        let summary = if depth == 0 {
            sized
        } else {
            format!(
                "{sized} {}",
                self.listing(&elements, depth, "{", "}").await?
            )
        };
        Ok(Presented {
            summary,
            type_name: ty.name,
            kind: ValueKind::Array,
            length: Some(elements.length),
            children: self.indexed(elements, children),
        })
    }

    /// A method of `ty` taking no arguments, run on `object`.
    async fn call(
        &self,
        object: ObjectRef,
        ty: &TypeRef,
        name: &str,
    ) -> Result<Option<JavaValue>, HeapError> {
        let Some(method) = self.no_argument_method(ty, name).await? else {
            return Ok(None);
        };
        self.heap
            .invoke(&Receiver::Instance(object), &method, &[])
            .await
            .map(Some)
    }

    async fn no_argument_method(
        &self,
        ty: &TypeRef,
        name: &str,
    ) -> Result<Option<MethodInfo>, HeapError> {
        Ok(methods_named(self.heap, ty, name)
            .await?
            .into_iter()
            .find(|m| m.parameters.is_empty() && !m.is_static))
    }

    /// A collection's size and its elements `first..first + count`, through `size()` and
    /// `toArray()`.
    async fn collection_elements(
        &self,
        collection: ObjectRef,
        ty: &TypeRef,
        first: usize,
        count: usize,
    ) -> Result<Option<Elements>, HeapError> {
        let Some(JavaValue::Int(size)) = self.call(collection, ty, "size").await? else {
            return Ok(None);
        };
        let Some(JavaValue::Object(array)) = self.call(collection, ty, "toArray").await? else {
            return Ok(None);
        };
        let mut elements = self.array_elements(array, first, count).await?;
        elements.length = usize::try_from(size).unwrap_or(elements.length);
        Ok(Some(elements))
    }

    async fn collection(
        &self,
        collection: ObjectRef,
        ty: TypeRef,
        depth: usize,
        children: bool,
    ) -> Result<Presented, HeapError> {
        let elements = match self
            .collection_elements(collection, &ty, 0, self.wanted(children))
            .await
        {
            Ok(Some(elements)) => elements,
            Ok(None) | Err(HeapError::Threw { .. } | HeapError::TimedOut) => {
                return self.object(collection, ty, children).await;
            }
            Err(error) => return Err(error),
        };
        Ok(Presented {
            summary: self.listing(&elements, depth, "[", "]").await?,
            type_name: ty.name,
            kind: ValueKind::Collection,
            length: Some(elements.length),
            children: self.indexed(elements, children),
        })
    }

    async fn map(
        &self,
        map: ObjectRef,
        ty: TypeRef,
        depth: usize,
        children: bool,
    ) -> Result<Presented, HeapError> {
        let (length, pairs) = match self.entries(map, &ty, 0, self.wanted(children)).await {
            Ok(Some(entries)) => entries,
            Ok(None) | Err(HeapError::Threw { .. } | HeapError::TimedOut) => {
                return self.object(map, ty, children).await;
            }
            Err(error) => return Err(error),
        };
        let keys: Vec<JavaValue> = pairs.iter().map(|(key, _)| key.clone()).collect();
        let key_texts = self.summaries(&keys, depth.saturating_sub(1)).await?;
        let shown = pairs.len().min(self.limits.summary_elements);
        let values: Vec<JavaValue> = pairs[..shown].iter().map(|(_, v)| v.clone()).collect();
        let value_texts = self.summaries(&values, depth.saturating_sub(1)).await?;
        let mut parts: Vec<String> = key_texts
            .iter()
            .zip(&value_texts)
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        let mut named = Vec::new();
        for (i, ((_, value), key_text)) in pairs.into_iter().zip(key_texts).enumerate() {
            if children && i < self.limits.children {
                named.push(Child {
                    name: key_text,
                    value,
                });
            }
        }
        if parts.len() < length {
            parts.push(format!("{ELLIPSIS} {} more", length - parts.len()));
        }
        Ok(Presented {
            summary: format!("{{{}}}", parts.join(", ")),
            type_name: ty.name,
            kind: ValueKind::Map,
            length: Some(length),
            children: named,
        })
    }

    /// A map's size and its entries `first..first + count` as keys and values, through
    /// `entrySet().toArray()` and each entry's `getKey()` and `getValue()`.
    async fn entries(
        &self,
        map: ObjectRef,
        ty: &TypeRef,
        first: usize,
        count: usize,
    ) -> Result<Option<(usize, Vec<(JavaValue, JavaValue)>)>, HeapError> {
        let Some(JavaValue::Object(set)) = self.call(map, ty, "entrySet").await? else {
            return Ok(None);
        };
        let set_type = self.heap.type_of(set).await?;
        let Some(entries) = self
            .collection_elements(set, &set_type, first, count)
            .await?
        else {
            return Ok(None);
        };
        let objects: Vec<ObjectRef> = entries
            .values
            .iter()
            .filter_map(|entry| match entry {
                JavaValue::Object(entry) => Some(*entry),
                _ => None,
            })
            .collect();
        let types = self.heap.types_of(&objects).await?;
        let mut read = HashMap::new();
        for (ty, group) in by_type(&objects, &types) {
            let Some(fields) = self.entry_fields(&ty).await? else {
                continue;
            };
            let values = self.heap.get_fields_of(&group, &fields).await?;
            for (entry, values) in group.iter().zip(values) {
                let mut values = values.into_iter();
                if let (Some(key), Some(value)) = (values.next(), values.next()) {
                    read.insert(entry.id, (key, value));
                }
            }
        }
        let mut pairs = Vec::new();
        for (entry, entry_type) in objects.iter().zip(&types) {
            if let Some(pair) = read.get(&entry.id) {
                pairs.push(pair.clone());
                continue;
            }
            let key = self.call(*entry, entry_type, "getKey").await?;
            let value = self.call(*entry, entry_type, "getValue").await?;
            pairs.push((
                key.unwrap_or(JavaValue::Null),
                value.unwrap_or(JavaValue::Null),
            ));
        }
        Ok(Some((entries.length, pairs)))
    }

    /// The `key` and `value` fields of an entry class of the JDK's own maps, read instead of
    /// calling `getKey()` and `getValue()`: those are two invocations, each of which resumes
    /// the thread, and a page of 100 entries cost hundreds of milliseconds. `None` for any
    /// other entry class, whose getters may compute what they return.
    async fn entry_fields(&self, ty: &TypeRef) -> Result<Option<[FieldInfo; 2]>, HeapError> {
        let supertypes = supertype_names(self.heap, ty).await?;
        if !supertypes
            .iter()
            .any(|name| PLAIN_ENTRIES.contains(&name.as_str()))
        {
            return Ok(None);
        }
        let fields = instance_fields(self.heap, ty).await?;
        let named = |name: &str| fields.iter().rev().find(|f| f.name == name).cloned();
        Ok(named("key")
            .zip(named("value"))
            .map(|(key, value)| [key, value]))
    }

    /// Children `first..first + count` of a sequence; a value of another kind's children.
    async fn page(
        &self,
        value: &JavaValue,
        first: usize,
        count: usize,
    ) -> Result<Vec<Child>, HeapError> {
        let JavaValue::Object(object) = value else {
            return Ok(Vec::new());
        };
        let numbered = |values: Vec<JavaValue>| {
            values
                .into_iter()
                .enumerate()
                .map(|(i, value)| Child {
                    name: format!("[{}]", first + i),
                    value,
                })
                .collect()
        };
        if object.kind == ObjectKind::Array {
            return Ok(numbered(
                self.array_elements(*object, first, count).await?.values,
            ));
        }
        if object.kind == ObjectKind::Plain {
            let ty = self.heap.type_of(*object).await?;
            let supertypes = supertype_names(self.heap, &ty).await?;
            let is = |name: &str| supertypes.iter().any(|s| s == name);
            if is(MAP)
                && let Some((_, pairs)) = self.entries(*object, &ty, first, count).await?
            {
                let keys: Vec<JavaValue> = pairs.iter().map(|(key, _)| key.clone()).collect();
                let names = self
                    .summaries(&keys, self.limits.depth.saturating_sub(1))
                    .await?;
                return Ok(pairs
                    .into_iter()
                    .zip(names)
                    .map(|((_, value), name)| Child { name, value })
                    .collect());
            }
            if is(COLLECTION)
                && let Some(elements) = self.collection_elements(*object, &ty, first, count).await?
            {
                return Ok(numbered(elements.values));
            }
        }
        Ok(self.present(value, self.limits.depth, true).await?.children)
    }

    /// The value of the instance field `name`, declared by the type `declaring` when given
    /// (`Enum.name`, which an enum's own field of that name would otherwise hide).
    async fn field_of(
        &self,
        object: ObjectRef,
        ty: &TypeRef,
        declaring: Option<TypeId>,
        name: &str,
    ) -> Result<Option<JavaValue>, HeapError> {
        let field = instance_fields(self.heap, ty)
            .await?
            .into_iter()
            .rev()
            .find(|f| f.name == name && declaring.is_none_or(|d| f.declaring == d));
        let Some(field) = field else {
            return Ok(None);
        };
        Ok(self.heap.get_fields(object, &[field]).await?.pop())
    }

    async fn optional(
        &self,
        optional: ObjectRef,
        ty: TypeRef,
        depth: usize,
    ) -> Result<Presented, HeapError> {
        let held = self
            .field_of(optional, &ty, None, "value")
            .await?
            .unwrap_or(JavaValue::Null);
        let (summary, children) = match held {
            JavaValue::Null => ("Optional.empty".to_string(), Vec::new()),
            value => (
                format!(
                    "Optional[{}]",
                    self.summary(&value, depth.saturating_sub(1)).await?
                ),
                vec![Child {
                    name: "value".into(),
                    value,
                }],
            ),
        };
        Ok(Presented {
            summary,
            type_name: ty.name,
            kind: ValueKind::Optional,
            children,
            length: None,
        })
    }

    async fn enumeration(
        &self,
        constant: ObjectRef,
        ty: TypeRef,
        children: bool,
    ) -> Result<Presented, HeapError> {
        // A constant with a body is an instance of an anonymous subclass (`Color$1`).
        let enum_type = match self.heap.superclass(&ty).await? {
            Some(parent) if parent.name != ENUM => parent,
            _ => ty.clone(),
        };
        let enum_base = self.heap.find_type(ENUM).await?.map(|t| t.id);
        let name = match self.field_of(constant, &ty, enum_base, "name").await? {
            Some(JavaValue::Object(text)) if text.kind == ObjectKind::String => {
                self.heap.string_text(text).await?
            }
            _ => format!("@{}", constant.id),
        };
        // The enum's own fields, not `Enum`'s name and ordinal.
        let mut own = Vec::new();
        if children {
            let fields: Vec<FieldInfo> = instance_fields(self.heap, &ty)
                .await?
                .into_iter()
                .filter(|f| Some(f.declaring) != enum_base)
                .collect();
            let values = self.heap.get_fields(constant, &fields).await?;
            own = fields
                .into_iter()
                .zip(values)
                .map(|(field, value)| Child {
                    name: field.name,
                    value,
                })
                .collect();
        }
        Ok(Presented {
            summary: format!("{}.{name}", innermost_name(&enum_type.name)),
            type_name: enum_type.name,
            kind: ValueKind::Enum,
            children: own,
            length: None,
        })
    }

    async fn record(
        &self,
        record: ObjectRef,
        ty: TypeRef,
        depth: usize,
    ) -> Result<Presented, HeapError> {
        let components = self.fields(record, &ty, true).await?;
        let mut parts = Vec::new();
        for component in &components {
            let text = self
                .summary(&component.value, depth.saturating_sub(1))
                .await?;
            parts.push(format!("{}={text}", component.name));
        }
        Ok(Presented {
            summary: format!("{}[{}]", innermost_name(&ty.name), parts.join(", ")),
            type_name: ty.name,
            kind: ValueKind::Record,
            children: components,
            length: None,
        })
    }

    /// An object's instance fields as children (none when not wanted).
    async fn fields(
        &self,
        object: ObjectRef,
        ty: &TypeRef,
        wanted: bool,
    ) -> Result<Vec<Child>, HeapError> {
        if !wanted {
            return Ok(Vec::new());
        }
        let fields = instance_fields(self.heap, ty).await?;
        let values = self.heap.get_fields(object, &fields).await?;
        Ok(fields
            .into_iter()
            .zip(values)
            .map(|(field, value)| Child {
                name: field.name,
                value,
            })
            .collect())
    }

    /// Any other object: its class's own `toString()`, else `Class@id`; its fields to expand.
    async fn object(
        &self,
        object: ObjectRef,
        ty: TypeRef,
        children: bool,
    ) -> Result<Presented, HeapError> {
        let plain = format!("{}@{}", simple_name(&ty.name), object.id);
        let to_string = self.no_argument_method(&ty, "toString").await?;
        let object_type = self.heap.find_type(OBJECT).await?;
        let overridden =
            to_string.filter(|m| Some(m.declaring) != object_type.as_ref().map(|t| t.id));
        let (summary, kind) = match overridden {
            None => (plain, ValueKind::Plain),
            Some(method) => {
                match self
                    .heap
                    .invoke(&Receiver::Instance(object), &method, &[])
                    .await
                {
                    Ok(JavaValue::Object(text)) if text.kind == ObjectKind::String => {
                        let text = self.heap.string_text(text).await?;
                        (cut(&text, self.limits.string_chars), ValueKind::Described)
                    }
                    Ok(_) => (format!("{plain} (toString() gave null)"), ValueKind::Plain),
                    Err(HeapError::Threw { type_name, .. }) => (
                        format!("{plain} (toString() threw {type_name})"),
                        ValueKind::Plain,
                    ),
                    Err(HeapError::TimedOut) => (
                        format!("{plain} (toString() ran past its time limit)"),
                        ValueKind::Plain,
                    ),
                    Err(error) => return Err(error),
                }
            }
        };
        Ok(Presented {
            summary,
            children: self.fields(object, &ty, children).await?,
            type_name: ty.name,
            kind,
            length: None,
        })
    }
}

/// Objects grouped by their runtime type (`types[i]` is `objects[i]`'s), in first-seen order.
fn by_type(objects: &[ObjectRef], types: &[TypeRef]) -> Vec<(TypeRef, Vec<ObjectRef>)> {
    let mut groups: Vec<(TypeRef, Vec<ObjectRef>)> = Vec::new();
    for (object, ty) in objects.iter().zip(types) {
        match groups.iter_mut().find(|(known, _)| known.id == ty.id) {
            Some((_, group)) => group.push(*object),
            None => groups.push((ty.clone(), vec![*object])),
        }
    }
    groups
}

/// A type's name without its package, nested types joined by `.`: `Cart.Line`, `int[3]`.
pub fn simple_name(name: &str) -> String {
    let (element, rest) = match name.find('[') {
        Some(at) => name.split_at(at),
        None => (name, ""),
    };
    let simple = element.rsplit('.').next().unwrap_or(element);
    format!("{}{rest}", simple.replace('$', "."))
}

/// A type's own name, as `Class.getSimpleName` gives it and a record's `toString()` and an
/// enum constant's reference write it: `Line` of `com.shop.Cart$Line`.
fn innermost_name(name: &str) -> &str {
    name.rsplit(['.', '$']).next().unwrap_or(name)
}

/// A primitive as Java writes it, a `char` quoted: `'x'`, `'\n'`.
fn primitive_text(value: &JavaValue) -> String {
    if let JavaValue::Char(unit) = value {
        let text = String::from_utf16_lossy(&[*unit]);
        return match text.as_str() {
            "'" => r"'\''".into(),
            _ => format!("'{}'", escaped(&text, '\'')),
        };
    }
    java_text(value).unwrap_or_default()
}

/// A string in double quotes with Java's escapes, cut after `limit` characters.
pub fn quoted(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    if count <= limit {
        return format!("\"{}\"", escaped(text, '"'));
    }
    let head: String = text.chars().take(limit).collect();
    format!("\"{}\"{ELLIPSIS} ({count} chars)", escaped(&head, '"'))
}

fn escaped(text: &str, quote: char) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\r' => out.push_str(r"\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Text cut after `limit` characters.
fn cut(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    if count <= limit {
        return text.to_string();
    }
    let head: String = text.chars().take(limit).collect();
    format!("{head}{ELLIPSIS} ({count} chars)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::java::expression::evaluate;
    use crate::adapters::java::expression::test_heap::{
        TestHeap, array_list, boxed, hash_map, int, shop, threw,
    };
    use std::sync::atomic::Ordering;

    async fn shown(heap: &TestHeap, expression: &str, limits: &Limits) -> Presented {
        let value = evaluate(heap, expression)
            .await
            .unwrap_or_else(|e| panic!("{expression}: {e}"));
        present(heap, &value, limits)
            .await
            .unwrap_or_else(|e| panic!("{expression}: {e}"))
    }

    async fn summary(heap: &TestHeap, expression: &str) -> String {
        shown(heap, expression, &Limits::default()).await.summary
    }

    fn names(presented: &Presented) -> Vec<&str> {
        names_of(&presented.children)
    }

    #[tokio::test]
    async fn primitives_strings_and_boxes() {
        let heap = shop();
        assert_eq!(summary(&heap, "limit").await, "10");
        assert_eq!(summary(&heap, "letter").await, "'x'");
        assert_eq!(summary(&heap, "'\\n'").await, "'\\n'");
        assert_eq!(summary(&heap, "'\\''").await, "'\\''");
        assert_eq!(summary(&heap, "1e10").await, "1.0E10");
        assert_eq!(summary(&heap, "flag").await, "true");
        assert_eq!(summary(&heap, "nothing").await, "null");
        assert_eq!(summary(&heap, "owner").await, "\"ann\"");
        assert_eq!(summary(&heap, "\"a\\\"b\\n\"").await, r#""a\"b\n""#);
        let count = shown(&heap, "count", &Limits::default()).await;
        assert_eq!(
            (count.summary.as_str(), count.type_name.as_str(), count.kind),
            ("5", "java.lang.Integer", ValueKind::Boxed)
        );
        let short = Limits {
            string_chars: 5,
            ..Limits::default()
        };
        assert_eq!(
            shown(&heap, "\"abcdefghij\"", &short).await.summary,
            "\"abcde\"… (10 chars)"
        );
    }

    #[tokio::test]
    async fn arrays_show_their_length_and_elements() {
        let heap = shop();
        let numbers = shown(&heap, "numbers", &Limits::default()).await;
        assert_eq!(numbers.summary, "int[3] {1, 2, 3}");
        assert_eq!(numbers.length, Some(3));
        assert_eq!(names(&numbers), ["[0]", "[1]", "[2]"]);
        assert_eq!(numbers.children[2].value, int(3));
        let few = Limits {
            summary_elements: 2,
            children: 1,
            ..Limits::default()
        };
        let bounded = shown(&heap, "numbers", &few).await;
        assert_eq!(bounded.summary, "int[3] {1, 2, … 1 more}");
        assert_eq!(names(&bounded), ["[0]"]);
    }

    #[tokio::test]
    async fn collections_and_maps_show_elements_not_internals() {
        let heap = shop();
        let list = shown(&heap, "list", &Limits::default()).await;
        assert_eq!(list.summary, r#"["apple", "pear"]"#);
        assert_eq!(
            (list.type_name.as_str(), list.kind, list.length),
            ("java.util.ArrayList", ValueKind::Collection, Some(2))
        );
        assert_eq!(names(&list), ["[0]", "[1]"]);
        let prices = shown(&heap, "prices", &Limits::default()).await;
        assert_eq!(prices.summary, r#"{"apple"=3, "pear"=5}"#);
        assert_eq!(names(&prices), [r#""apple""#, r#""pear""#]);
        assert_eq!(prices.kind, ValueKind::Map);
        let nested = array_list(
            &heap,
            vec![evaluate(&heap, "list").await.unwrap_or(JavaValue::Null)],
        );
        heap.set_locals(Some(vec![("nested", "java.util.List", nested)]));
        assert_eq!(summary(&heap, "nested").await, r#"[["apple", "pear"]]"#);
        let shallow = Limits {
            depth: 1,
            ..Limits::default()
        };
        let at_one = shown(&heap, "nested", &shallow).await.summary;
        assert!(at_one.starts_with("[ArrayList@"), "{at_one}");
    }

    #[tokio::test]
    async fn a_long_list_costs_two_calls_and_shows_a_bounded_part() {
        let heap = shop();
        let long = array_list(&heap, (0..10_000).map(int).collect());
        heap.set_locals(Some(vec![("long", "java.util.List", long.clone())]));
        heap.invocations.store(0, Ordering::Relaxed);
        let presented = present(&heap, &long, &Limits::default())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            presented.summary,
            "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … 9990 more]"
        );
        assert_eq!(presented.length, Some(10_000));
        assert_eq!(presented.children.len(), 100);
        assert_eq!(
            heap.invocations.load(Ordering::Relaxed),
            2,
            "size() and toArray()"
        );
    }

    #[tokio::test]
    async fn a_long_hash_map_reads_its_entries_without_calling_their_getters() {
        let heap = shop();
        let entries = (0..10_000)
            .map(|i| (heap.str_value(&format!("k{i}")), int(i)))
            .collect();
        let long = hash_map(&heap, entries);
        heap.invocations.store(0, Ordering::Relaxed);
        let presented = present(&heap, &long, &Limits::default())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            presented.summary.starts_with(r#"{"k0"=0, "k1"=1, "#),
            "{}",
            presented.summary
        );
        assert!(
            presented.summary.ends_with("… 9990 more}"),
            "{}",
            presented.summary
        );
        assert_eq!(presented.children.len(), 100);
        assert_eq!(
            heap.invocations.load(Ordering::Relaxed),
            3,
            "entrySet(), size() and toArray(); no getKey() or getValue()"
        );
    }

    #[tokio::test]
    async fn optional_record_and_enum() {
        let heap = shop();
        let empty = heap.object("java.util.Optional", &[]);
        let present_value = boxed(&heap, "java.lang.Integer", int(4));
        let full = heap.object("java.util.Optional", &[("value", present_value)]);
        heap.set_locals(Some(vec![
            ("none", "java.util.Optional", JavaValue::Object(empty)),
            ("some", "java.util.Optional", JavaValue::Object(full)),
        ]));
        assert_eq!(summary(&heap, "none").await, "Optional.empty");
        assert_eq!(summary(&heap, "some").await, "Optional[4]");
        let heap = shop();
        let line = shown(&heap, "line", &Limits::default()).await;
        assert_eq!(line.summary, r#"Line[sku="A1", qty=2]"#);
        assert_eq!(
            (names(&line), line.kind),
            (vec!["sku", "qty"], ValueKind::Record)
        );
        let color = shown(&heap, "color", &Limits::default()).await;
        assert_eq!(
            (color.summary.as_str(), color.type_name.as_str(), color.kind),
            ("Color.RED", "com.shop.Color", ValueKind::Enum)
        );
    }

    #[tokio::test]
    async fn objects_by_their_own_to_string_else_by_class_and_id() {
        let mut heap = shop();
        let broken = heap.class("com.shop.Broken", "java.lang.Object", &[]);
        heap.def(broken, "toString", &[], "java.lang.String", |heap, _, _| {
            Err(threw(heap, "java.lang.IllegalStateException", "no"))
        });
        let bob = heap.str_value("bob");
        let named = heap.object("com.shop.Named", &[("name", bob)]);
        let point = heap.object("com.shop.Point", &[("x", int(1)), ("y", int(2))]);
        let broken = heap.object("com.shop.Broken", &[]);
        let values = [named, point, broken].map(JavaValue::Object);
        let limits = Limits::default();
        let named = present(&heap, &values[0], &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (named.summary.as_str(), named.kind),
            ("Named(bob)", ValueKind::Described)
        );
        assert_eq!(names(&named), ["name"]);
        let point = present(&heap, &values[1], &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let JavaValue::Object(point_ref) = values[1] else {
            panic!("an object");
        };
        assert_eq!(point.summary, format!("Point@{}", point_ref.id));
        assert_eq!(
            (names(&point), point.kind),
            (vec!["x", "y"], ValueKind::Plain)
        );
        let broken = present(&heap, &values[2], &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            broken
                .summary
                .ends_with("(toString() threw java.lang.IllegalStateException)"),
            "{}",
            broken.summary
        );
        let cart = shown(&heap, "this", &limits).await;
        assert!(cart.summary.starts_with("Cart@"), "{}", cart.summary);
        assert_eq!(
            names(&cart),
            ["id", "items", "prices", "total", "owner", "discount"],
            "base class fields first"
        );
    }

    #[tokio::test]
    async fn values_presented_together_show_as_each_alone() {
        let heap = shop();
        let mut values = Vec::new();
        for expression in [
            "owner", "count", "list", "prices", "nothing", "limit", "line",
        ] {
            values.push(evaluate(&heap, expression).await.unwrap_or(JavaValue::Null));
        }
        values.push(values[1].clone());
        let limits = Limits::default();
        let together = present_all(&heap, &values, &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut alone = Vec::new();
        for value in &values {
            alone.push(
                present(&heap, value, &limits)
                    .await
                    .unwrap_or_else(|e| panic!("{e}")),
            );
        }
        assert_eq!(together, alone);
    }

    #[tokio::test]
    async fn long_sequences_are_paged() {
        let heap = shop();
        let long = array_list(&heap, (0..1000).map(int).collect());
        let limits = Limits::default();
        let page = children(&heap, &long, 500, 3, &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            page,
            (500..503)
                .map(|i| Child {
                    name: format!("[{i}]"),
                    value: int(i),
                })
                .collect::<Vec<_>>()
        );
        let numbers = evaluate(&heap, "numbers").await.unwrap_or(JavaValue::Null);
        let tail = children(&heap, &numbers, 2, 10, &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(names_of(&tail), ["[2]"]);
        let prices = evaluate(&heap, "prices").await.unwrap_or(JavaValue::Null);
        let second = children(&heap, &prices, 1, 1, &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(names_of(&second), [r#""pear""#]);
        let line = evaluate(&heap, "line").await.unwrap_or(JavaValue::Null);
        let components = children(&heap, &line, 0, 1, &limits)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            names_of(&components),
            ["sku", "qty"],
            "not a sequence: all its children"
        );
    }

    fn names_of(children: &[Child]) -> Vec<&str> {
        children.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn names_lose_their_package() {
        assert_eq!(simple_name("com.shop.Cart$Line"), "Cart.Line");
        assert_eq!(simple_name("java.lang.String[3][]"), "String[3][]");
        assert_eq!(simple_name("int[2]"), "int[2]");
        assert_eq!(innermost_name("com.shop.Cart$Line"), "Line");
    }
}
