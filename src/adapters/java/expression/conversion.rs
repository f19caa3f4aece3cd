//! The conversions a call's arguments and an assignment's value go through to meet the type
//! they land in: widening, boxing (through the box's `valueOf`, so the JVM's cache of small
//! boxes is kept), unboxing, and the array a varargs call packs its trailing arguments into.

use crate::adapters::java::heap::{Heap, HeapError, JavaValue, MethodInfo, Receiver};

use super::error::ExpressionError;
use super::hierarchy::{is_instance, methods_named, unbox};
use super::overload::Phase;
use super::primitives::{self, Primitive};

/// A value's type as an error names it: `int`, `null`, `java.util.ArrayList`.
pub async fn type_name_of<H: Heap>(heap: &H, value: &JavaValue) -> Result<String, HeapError> {
    Ok(match value {
        JavaValue::Object(object) => heap.type_of(*object).await?.name,
        JavaValue::Null => "null".into(),
        JavaValue::Void => "void".into(),
        other => Primitive::of(other).map_or("?", Primitive::name).into(),
    })
}

/// A primitive in its box (`5` → `Integer.valueOf(5)`); any other value as it is.
pub async fn box_primitive<H: Heap>(
    heap: &H,
    value: &JavaValue,
    column: usize,
) -> Result<JavaValue, ExpressionError> {
    let Some(primitive) = Primitive::of(value) else {
        return Ok(value.clone());
    };
    let unknown = || ExpressionError::UnknownType {
        name: primitive.box_name().into(),
        column,
    };
    let ty = heap
        .find_type(primitive.box_name())
        .await?
        .ok_or_else(unknown)?;
    let value_of = methods_named(heap, &ty, "valueOf")
        .await?
        .into_iter()
        .find(|m| m.is_static && m.parameters == [primitive.name()])
        .ok_or_else(unknown)?;
    Ok(heap
        .invoke(
            &Receiver::Static(ty.id),
            &value_of,
            std::slice::from_ref(value),
        )
        .await?)
}

/// A call's argument as the parameter of type `parameter` takes it.
async fn to_parameter<H: Heap>(
    heap: &H,
    value: &JavaValue,
    parameter: &str,
    column: usize,
) -> Result<JavaValue, ExpressionError> {
    match Primitive::from_name(parameter) {
        Some(to) => {
            let opened = unbox(heap, value.clone()).await?;
            match primitives::cast(&opened, to) {
                Some(converted) => Ok(converted),
                None => Err(ExpressionError::CannotConvert {
                    from: type_name_of(heap, &opened).await?,
                    to: parameter.into(),
                    column,
                }),
            }
        }
        None => box_primitive(heap, value, column).await,
    }
}

/// The values a call passes to `method`, chosen in `phase`, converted to its parameters.
pub async fn arguments_for<H: Heap>(
    heap: &H,
    method: &MethodInfo,
    phase: Phase,
    values: &[JavaValue],
    column: usize,
) -> Result<Vec<JavaValue>, ExpressionError> {
    let fixed = match phase {
        Phase::Varargs => method.parameters.len().saturating_sub(1),
        Phase::Strict | Phase::Loose => method.parameters.len(),
    };
    let mut arguments = Vec::with_capacity(method.parameters.len());
    for (value, parameter) in values.iter().zip(&method.parameters).take(fixed) {
        arguments.push(to_parameter(heap, value, parameter, column).await?);
    }
    if phase == Phase::Varargs
        && let Some(array_type) = method.parameters.last()
    {
        let component = array_type.strip_suffix("[]").unwrap_or(array_type);
        let mut packed = Vec::new();
        for value in values.iter().skip(fixed) {
            packed.push(to_parameter(heap, value, component, column).await?);
        }
        let ty = heap
            .find_type(array_type)
            .await?
            .ok_or_else(|| ExpressionError::UnknownType {
                name: array_type.clone(),
                column,
            })?;
        let array = heap.new_array(&ty, packed.len()).await?;
        if !packed.is_empty() {
            heap.set_array_elements(array, 0, &packed).await?;
        }
        arguments.push(JavaValue::Object(array));
    }
    Ok(arguments)
}

/// A value as a variable, field or element of type `target` takes it in an assignment.
pub async fn for_assignment<H: Heap>(
    heap: &H,
    value: &JavaValue,
    target: &str,
    column: usize,
) -> Result<JavaValue, ExpressionError> {
    let cannot = |from: String| ExpressionError::CannotConvert {
        from,
        to: target.into(),
        column,
    };
    if let Some(to) = Primitive::from_name(target) {
        let opened = unbox(heap, value.clone()).await?;
        return match primitives::assign(&opened, to) {
            Some(converted) => Ok(converted),
            None => Err(cannot(type_name_of(heap, &opened).await?)),
        };
    }
    if let Some(primitive) = Primitive::of(value) {
        let held = Primitive::from_box(target).unwrap_or(primitive);
        let fits = primitive.box_name() == target || primitive.box_supertypes().contains(&target);
        return match primitives::assign(value, held) {
            Some(converted) if fits || held != primitive => {
                box_primitive(heap, &converted, column).await
            }
            _ => Err(cannot(primitive.name().into())),
        };
    }
    let JavaValue::Object(object) = value else {
        return Ok(value.clone());
    };
    let ty = heap.type_of(*object).await?;
    if is_instance(heap, &ty, target).await? {
        Ok(value.clone())
    } else {
        Err(cannot(ty.name))
    }
}
