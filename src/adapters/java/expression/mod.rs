//! Java expressions as an agent types them at a stop (`print`, breakpoint conditions, `set`),
//! parsed with positions ([`parse`]) and evaluated over a stopped JVM's [`Heap`]: locals,
//! fields and statics, calls with Java's overload resolution run in the stopped thread,
//! operators with Java's promotions, boxes opened where Java opens them.

pub mod assign;
pub mod ast;
pub mod conversion;
pub mod error;
pub mod evaluator;
pub mod hierarchy;
pub mod lexer;
pub mod operators;
pub mod overload;
pub mod parser;
pub mod primitives;
#[cfg(test)]
pub mod test_heap;
#[cfg(test)]
mod tests;

use crate::adapters::java::heap::{Heap, JavaValue};

pub use assign::Place;
pub use error::ExpressionError;
pub use evaluator::Evaluator;
pub use parser::parse;

/// The value of the expression `source` in the heap's frame.
pub async fn evaluate<H: Heap>(heap: &H, source: &str) -> Result<JavaValue, ExpressionError> {
    Evaluator::new(heap).eval(&parse(source)?).await
}

/// Whether a breakpoint's condition holds: its expression must be a `boolean` (or `Boolean`).
pub async fn evaluate_condition<H: Heap>(heap: &H, source: &str) -> Result<bool, ExpressionError> {
    let expr = parse(source)?;
    let evaluator = Evaluator::new(heap);
    let value = evaluator.eval(&expr).await?;
    evaluator.truth(value, expr.column).await
}

/// `set TARGET VALUE`: writes the value of `value` to the local, field, static or array
/// element `target` names, converted to its type; the value written.
pub async fn assign<H: Heap>(
    heap: &H,
    target: &str,
    value: &str,
) -> Result<JavaValue, ExpressionError> {
    let target = parse(target)?;
    let value = parse(value)?;
    assign::assign(heap, &target, &value).await
}

/// DAP's `setVariable`: writes the value of `value` to a local, a field of an object or an
/// element of an array, converted to its type; the value written.
pub async fn assign_place<H: Heap>(
    heap: &H,
    place: &Place,
    value: &str,
) -> Result<JavaValue, ExpressionError> {
    assign::assign_place(heap, place, &parse(value)?).await
}
