//! `set`: the variable, field, static or array element a target expression names, written
//! with a value converted to its type as an assignment converts it.

use crate::adapters::java::heap::{Heap, JavaValue, ObjectKind};

use super::ast::{Expr, ExprKind};
use super::conversion::{for_assignment, type_name_of};
use super::error::ExpressionError;
use super::evaluator::{Evaluator, Resolved, Variable};
use super::hierarchy::field_named;

/// Writes `value` to what `target` names; the value as written (converted).
pub async fn assign<H: Heap>(
    heap: &H,
    target: &Expr,
    value: &Expr,
) -> Result<JavaValue, ExpressionError> {
    let evaluator = Evaluator::new(heap);
    let column = target.column;
    let variable = match &target.kind {
        ExprKind::Name(name) => match evaluator.variable(name).await? {
            Some(variable) => variable,
            None => return Err(evaluator.unknown_name(name, column).await),
        },
        ExprKind::Field {
            target: owner,
            name,
        } => field_of(&evaluator, owner, name, column).await?,
        ExprKind::Index { array, index } => {
            let array_value = evaluator.eval(array).await?;
            let index_value = evaluator.eval(index).await?;
            let (array_ref, at) = evaluator.element(array, array_value, index_value).await?;
            let array_type = heap.type_of(array_ref).await?;
            let component = array_type
                .name
                .strip_suffix("[]")
                .unwrap_or(&array_type.name);
            let written = evaluator.eval(value).await?;
            let converted = for_assignment(heap, &written, component, value.column).await?;
            heap.set_array_elements(array_ref, at, std::slice::from_ref(&converted))
                .await?;
            return Ok(converted);
        }
        _ => return Err(ExpressionError::NotAssignable { column }),
    };
    let written = evaluator.eval(value).await?;
    let converted = match &variable {
        Variable::Local(local) => {
            let converted = for_assignment(heap, &written, &local.type_name, value.column).await?;
            heap.set_local(&local.name, converted.clone()).await?;
            converted
        }
        Variable::Field { object, field } => {
            let converted = for_assignment(heap, &written, &field.type_name, value.column).await?;
            heap.set_field(*object, field, converted.clone()).await?;
            converted
        }
        Variable::Static { ty, field } => {
            let converted = for_assignment(heap, &written, &field.type_name, value.column).await?;
            heap.set_static(ty, field, converted.clone()).await?;
            converted
        }
    };
    Ok(converted)
}

/// The field `name` of what `owner` denotes: an object's, or a type's static.
async fn field_of<H: Heap>(
    evaluator: &Evaluator<'_, H>,
    owner: &Expr,
    name: &str,
    column: usize,
) -> Result<Variable, ExpressionError> {
    let heap = evaluator.heap;
    let no_field = |type_name: String| ExpressionError::NoField {
        type_name,
        field: name.into(),
        column,
    };
    match evaluator.resolve(owner).await? {
        Resolved::Value(JavaValue::Object(object)) => {
            if object.kind == ObjectKind::Array {
                return Err(ExpressionError::NotAssignable { column });
            }
            let ty = heap.type_of(object).await?;
            match field_named(heap, &ty, name).await? {
                Some((declaring, field)) if field.is_static => Ok(Variable::Static {
                    ty: declaring,
                    field,
                }),
                Some((_, field)) => Ok(Variable::Field { object, field }),
                None => Err(no_field(ty.name)),
            }
        }
        Resolved::Value(JavaValue::Null) => Err(ExpressionError::NullPointer {
            what: owner.to_string(),
            column: owner.column,
        }),
        Resolved::Value(other) => Err(no_field(type_name_of(heap, &other).await?)),
        Resolved::Type(ty) => match field_named(heap, &ty, name).await? {
            Some((declaring, field)) if field.is_static => Ok(Variable::Static {
                ty: declaring,
                field,
            }),
            _ => Err(no_field(ty.name)),
        },
        Resolved::Package { first, column, .. } => {
            Err(evaluator.unknown_name(&first, column).await)
        }
    }
}
