//! `set`: the variable, field, static or array element a target expression names, written
//! with a value converted to its type as an assignment converts it.

use crate::adapters::java::heap::{Heap, JavaValue, ObjectKind, ObjectRef};

use super::ast::{Expr, ExprKind};
use super::conversion::{for_assignment, type_name_of};
use super::error::ExpressionError;
use super::evaluator::{Evaluator, Resolved, Variable};
use super::hierarchy::field_named;

/// A place a client names without an expression: DAP's `setVariable`, a child of a scope or
/// of an expanded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A local of the frame.
    Local(String),
    /// A field of an object (a static one too, reached through it).
    Field {
        object: ObjectRef,
        name: String,
    },
    Element {
        array: ObjectRef,
        index: usize,
    },
}

/// What is written: a variable, or one element of an array.
enum Target {
    Variable(Variable),
    Element { array: ObjectRef, index: usize },
}

/// Writes `value` to what `target` names; the value as written (converted).
pub async fn assign<H: Heap>(
    heap: &H,
    target: &Expr,
    value: &Expr,
) -> Result<JavaValue, ExpressionError> {
    let evaluator = Evaluator::new(heap);
    let column = target.column;
    let target = match &target.kind {
        ExprKind::Name(name) => match evaluator.variable(name).await? {
            Some(variable) => Target::Variable(variable),
            None => return Err(evaluator.unknown_name(name, column).await),
        },
        ExprKind::Field {
            target: owner,
            name,
        } => Target::Variable(field_of(&evaluator, owner, name, column).await?),
        ExprKind::Index { array, index } => {
            let array_value = evaluator.eval(array).await?;
            let index_value = evaluator.eval(index).await?;
            let (array, index) = evaluator.element(array, array_value, index_value).await?;
            Target::Element { array, index }
        }
        _ => return Err(ExpressionError::NotAssignable { column }),
    };
    write(&evaluator, target, value).await
}

/// Writes `value` to `place`; the value as written (converted).
pub async fn assign_place<H: Heap>(
    heap: &H,
    place: &Place,
    value: &Expr,
) -> Result<JavaValue, ExpressionError> {
    let evaluator = Evaluator::new(heap);
    let target = match place {
        Place::Local(name) => match evaluator.variable(name).await? {
            Some(local @ Variable::Local(_)) => Target::Variable(local),
            _ => return Err(evaluator.unknown_name(name, 0).await),
        },
        Place::Field { object, name } => {
            let ty = heap.type_of(*object).await?;
            match field_named(heap, &ty, name).await? {
                Some((declaring, field)) if field.is_static => Target::Variable(Variable::Static {
                    ty: declaring,
                    field,
                }),
                Some((_, field)) => Target::Variable(Variable::Field {
                    object: *object,
                    field,
                }),
                None => {
                    return Err(ExpressionError::NoField {
                        type_name: ty.name,
                        field: name.clone(),
                        column: 0,
                    });
                }
            }
        }
        Place::Element { array, index } => {
            let length = heap.array_length(*array).await?;
            if *index >= length {
                return Err(ExpressionError::IndexOutOfBounds {
                    index: i64::try_from(*index).unwrap_or(i64::MAX),
                    length,
                    column: 0,
                });
            }
            Target::Element {
                array: *array,
                index: *index,
            }
        }
    };
    write(&evaluator, target, value).await
}

async fn write<H: Heap>(
    evaluator: &Evaluator<'_, H>,
    target: Target,
    value: &Expr,
) -> Result<JavaValue, ExpressionError> {
    let heap = evaluator.heap;
    let written = evaluator.eval(value).await?;
    let column = value.column;
    Ok(match &target {
        Target::Variable(Variable::Local(local)) => {
            let converted = for_assignment(heap, &written, &local.type_name, column).await?;
            heap.set_local(&local.name, converted.clone()).await?;
            converted
        }
        Target::Variable(Variable::Field { object, field }) => {
            let converted = for_assignment(heap, &written, &field.type_name, column).await?;
            heap.set_field(*object, field, converted.clone()).await?;
            converted
        }
        Target::Variable(Variable::Static { ty, field }) => {
            let converted = for_assignment(heap, &written, &field.type_name, column).await?;
            heap.set_static(ty, field, converted.clone()).await?;
            converted
        }
        Target::Element { array, index } => {
            let array_type = heap.type_of(*array).await?;
            let component = array_type
                .name
                .strip_suffix("[]")
                .unwrap_or(&array_type.name);
            let converted = for_assignment(heap, &written, component, column).await?;
            heap.set_array_elements(*array, *index, std::slice::from_ref(&converted))
                .await?;
            converted
        }
    })
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
