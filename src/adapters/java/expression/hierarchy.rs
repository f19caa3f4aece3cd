//! A type's place among its supertypes, as name lookup and overload resolution walk it: fields
//! and methods found in the nearest type that declares them, superclasses before interfaces.

use crate::adapters::java::heap::{
    FieldInfo, Heap, HeapError, JavaValue, MethodInfo, ObjectKind, ObjectRef, TypeKind, TypeRef,
};

use super::primitives::Primitive;

pub const OBJECT: &str = "java.lang.Object";

/// A type and its supertypes, nearest first: itself, its superclasses up to `Object`, then the
/// interfaces of each, breadth-first. An array's are `Object`'s.
pub async fn supertypes<H: Heap>(heap: &H, ty: &TypeRef) -> Result<Vec<TypeRef>, HeapError> {
    let mut all = vec![ty.clone()];
    if ty.kind == TypeKind::Array {
        all.extend(heap.find_type(OBJECT).await?);
        return Ok(all);
    }
    let mut current = ty.clone();
    while let Some(next) = heap.superclass(&current).await? {
        all.push(next.clone());
        current = next;
    }
    let mut at = 0;
    while at < all.len() {
        for interface in heap.interfaces(&all[at]).await? {
            if !all.iter().any(|t| t.id == interface.id) {
                all.push(interface);
            }
        }
        at += 1;
    }
    Ok(all)
}

/// The names a value of this runtime type is an instance of, itself included; `Object` for
/// interfaces too, and what every array is.
pub async fn supertype_names<H: Heap>(heap: &H, ty: &TypeRef) -> Result<Vec<String>, HeapError> {
    let mut names: Vec<String> = supertypes(heap, ty)
        .await?
        .into_iter()
        .map(|t| t.name)
        .collect();
    let mut extra = vec![OBJECT];
    if ty.kind == TypeKind::Array {
        extra.extend(["java.lang.Cloneable", "java.io.Serializable"]);
    }
    for name in extra {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    Ok(names)
}

/// Whether an object of runtime type `ty` is an instance of the type named `name`.
pub async fn is_instance<H: Heap>(heap: &H, ty: &TypeRef, name: &str) -> Result<bool, HeapError> {
    Ok(supertype_names(heap, ty).await?.iter().any(|n| n == name))
}

/// The field called `name` in the nearest of `ty`'s supertypes that declares one, with that
/// type (which a static's value is read from).
pub async fn field_named<H: Heap>(
    heap: &H,
    ty: &TypeRef,
    name: &str,
) -> Result<Option<(TypeRef, FieldInfo)>, HeapError> {
    for ty in supertypes(heap, ty).await? {
        if let Some(field) = heap.fields(&ty).await?.into_iter().find(|f| f.name == name) {
            return Ok(Some((ty, field)));
        }
    }
    Ok(None)
}

/// An object's instance fields, its base classes' first, as a listing shows them.
pub async fn instance_fields<H: Heap>(heap: &H, ty: &TypeRef) -> Result<Vec<FieldInfo>, HeapError> {
    let mut chain = vec![ty.clone()];
    let mut current = ty.clone();
    while let Some(next) = heap.superclass(&current).await? {
        chain.push(next.clone());
        current = next;
    }
    let mut fields = Vec::new();
    for ty in chain.iter().rev() {
        fields.extend(heap.fields(ty).await?.into_iter().filter(|f| !f.is_static));
    }
    Ok(fields)
}

/// The methods called `name` that `ty` has, declared or inherited: the nearest declaration of
/// each parameter list (an override hides what it overrides). Bridge methods, which the
/// compiler makes to forward to a real one, are left out.
pub async fn methods_named<H: Heap>(
    heap: &H,
    ty: &TypeRef,
    name: &str,
) -> Result<Vec<MethodInfo>, HeapError> {
    let mut found: Vec<MethodInfo> = Vec::new();
    for ty in supertypes(heap, ty).await? {
        for method in heap.methods(&ty).await? {
            if method.name == name
                && !method.is_synthetic
                && !found.iter().any(|m| m.parameters == method.parameters)
            {
                found.push(method);
            }
        }
    }
    Ok(found)
}

/// The primitive a box holds (`Integer 5` → `5`); any other value as it is.
pub async fn unbox<H: Heap>(heap: &H, value: JavaValue) -> Result<JavaValue, HeapError> {
    let JavaValue::Object(object) = &value else {
        return Ok(value);
    };
    if object.kind != ObjectKind::Plain {
        return Ok(value);
    }
    let ty = heap.type_of(*object).await?;
    if Primitive::from_box(&ty.name).is_none() {
        return Ok(value);
    }
    Ok(boxed_value(heap, *object, &ty).await?.unwrap_or(value))
}

/// The field a box of type `ty` holds its primitive in (`value`).
pub async fn box_field<H: Heap>(heap: &H, ty: &TypeRef) -> Result<Option<FieldInfo>, HeapError> {
    Ok(heap
        .fields(ty)
        .await?
        .into_iter()
        .find(|f| f.name == "value" && !f.is_static))
}

/// The `value` field of a box of type `ty`.
pub async fn boxed_value<H: Heap>(
    heap: &H,
    object: ObjectRef,
    ty: &TypeRef,
) -> Result<Option<JavaValue>, HeapError> {
    let Some(field) = box_field(heap, ty).await? else {
        return Ok(None);
    };
    Ok(heap
        .get_fields(object, std::slice::from_ref(&field))
        .await?
        .into_iter()
        .next())
}
