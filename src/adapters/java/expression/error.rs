//! Why an expression was not understood or could not be evaluated, naming what and where, so an
//! agent can fix what it typed: `unknown name 'totl' (locals: total, items)`,
//! `no method size(int) in java.util.ArrayList`, `expected ')' at column 14`.

use std::fmt;

use crate::adapters::java::heap::HeapError;

/// What was wrong with a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiteralProblem {
    /// An `int` past 2147483647 (or 0xffffffff), a `long` past its 64 bits.
    TooLarge,
    /// A string or character literal with no closing quote.
    Unterminated,
    /// A backslash followed by what no escape is.
    BadEscape,
    /// A character literal holding other than one character.
    NotOneCharacter,
    /// Digits that make no number (`0x`, `1e`, `09`).
    Malformed,
}

impl fmt::Display for LiteralProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LiteralProblem::TooLarge => "number too large",
            LiteralProblem::Unterminated => "unterminated literal",
            LiteralProblem::BadEscape => "illegal escape character",
            LiteralProblem::NotOneCharacter => "a char literal holds one character",
            LiteralProblem::Malformed => "malformed number",
        })
    }
}

/// Why an expression failed. Columns count characters from 1.
#[derive(Debug, Clone, PartialEq)]
pub enum ExpressionError {
    /// The parser wanted `expected` where it found `found` (a token's text, or `end of input`).
    Expected {
        expected: String,
        found: String,
        column: usize,
    },
    BadLiteral {
        text: String,
        problem: LiteralProblem,
        column: usize,
    },
    /// A character no Java token begins with, or a form this evaluator does not take (`new`,
    /// lambdas, `super`).
    Unsupported {
        what: String,
        column: usize,
    },
    /// A name that is no local, field of `this`, static of the frame's class, or loaded type.
    /// `locals` is `None` when the method has no local variable table (compiled without `-g`).
    UnknownName {
        name: String,
        locals: Option<Vec<String>>,
        column: usize,
    },
    UnknownType {
        name: String,
        column: usize,
    },
    NoField {
        type_name: String,
        field: String,
        column: usize,
    },
    /// No method of that name takes arguments of these types (the types' names).
    NoMethod {
        type_name: String,
        name: String,
        arguments: Vec<String>,
        column: usize,
    },
    /// More than one method fits and none is more specific: their parameter lists.
    AmbiguousCall {
        type_name: String,
        name: String,
        candidates: Vec<String>,
        column: usize,
    },
    /// An operator applied to what it does not take: `!` to an int, `+` to a boolean.
    BadOperands {
        operator: String,
        operands: Vec<String>,
        column: usize,
    },
    /// Indexing, `.length` or a call on `null`: what was null.
    NullPointer {
        what: String,
        column: usize,
    },
    NotAnArray {
        type_name: String,
        column: usize,
    },
    IndexOutOfBounds {
        index: i64,
        length: usize,
        column: usize,
    },
    /// Integer division or remainder by zero (Java's `ArithmeticException`).
    DivisionByZero {
        column: usize,
    },
    /// A value of one type where another is needed: a cast, an assignment, a condition.
    CannotConvert {
        from: String,
        to: String,
        column: usize,
    },
    /// `this`, or an instance field or method without a receiver, in a static method.
    StaticContext {
        what: String,
        column: usize,
    },
    /// A type's name where a value is needed (`print Cart`).
    NotAValue {
        type_name: String,
        column: usize,
    },
    /// What `set` was given to write to is no variable, field or array element.
    NotAssignable {
        column: usize,
    },
    /// A method the expression called threw: the exception's type and its message, if any.
    Threw {
        type_name: String,
        message: Option<String>,
    },
    /// The JVM could not answer.
    Heap(HeapError),
}

impl From<HeapError> for ExpressionError {
    fn from(error: HeapError) -> ExpressionError {
        ExpressionError::Heap(error)
    }
}

impl std::error::Error for ExpressionError {}

impl fmt::Display for ExpressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpressionError::Expected {
                expected,
                found,
                column,
            } => write!(f, "expected {expected} at column {column}, found {found}"),
            ExpressionError::BadLiteral {
                text,
                problem,
                column,
            } => write!(f, "{problem}: {text} at column {column}"),
            ExpressionError::Unsupported { what, column } => {
                write!(f, "{what} at column {column} is not supported here")
            }
            ExpressionError::UnknownName {
                name,
                locals: Some(locals),
                ..
            } => write!(f, "unknown name '{name}' (locals: {})", locals.join(", ")),
            ExpressionError::UnknownName {
                name, locals: None, ..
            } => write!(
                f,
                "unknown name '{name}' (the method's class was compiled without -g: it has no \
                 local variable names)"
            ),
            ExpressionError::UnknownType { name, .. } => {
                write!(f, "unknown type '{name}' (no loaded class has that name)")
            }
            ExpressionError::NoField {
                type_name, field, ..
            } => write!(f, "no field '{field}' in {type_name}"),
            ExpressionError::NoMethod {
                type_name,
                name,
                arguments,
                ..
            } => write!(
                f,
                "no method {name}({}) in {type_name}",
                arguments.join(", ")
            ),
            ExpressionError::AmbiguousCall {
                type_name,
                name,
                candidates,
                ..
            } => write!(
                f,
                "call of {name} in {type_name} is ambiguous: {}",
                candidates
                    .iter()
                    .map(|c| format!("{name}({c})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ExpressionError::BadOperands {
                operator,
                operands,
                column,
            } => write!(
                f,
                "bad operand type{} {} for '{operator}' at column {column}",
                if operands.len() > 1 { "s" } else { "" },
                operands.join(" and ")
            ),
            ExpressionError::NullPointer { what, .. } => {
                write!(f, "NullPointerException: {what} is null")
            }
            ExpressionError::NotAnArray { type_name, .. } => {
                write!(f, "{type_name} is not an array")
            }
            ExpressionError::IndexOutOfBounds { index, length, .. } => write!(
                f,
                "ArrayIndexOutOfBoundsException: index {index} out of bounds for length {length}"
            ),
            ExpressionError::DivisionByZero { .. } => f.write_str("ArithmeticException: / by zero"),
            ExpressionError::CannotConvert { from, to, column } => {
                write!(f, "cannot convert {from} to {to} at column {column}")
            }
            ExpressionError::StaticContext { what, .. } => {
                write!(f, "{what} cannot be used in a static method")
            }
            ExpressionError::NotAValue { type_name, .. } => {
                write!(f, "{type_name} is a type, not a value")
            }
            ExpressionError::NotAssignable { column } => write!(
                f,
                "the target at column {column} is no variable, field or array element"
            ),
            ExpressionError::Threw {
                type_name,
                message: Some(message),
            } => write!(f, "{type_name}: {message}"),
            ExpressionError::Threw {
                type_name,
                message: None,
            } => write!(f, "{type_name} was thrown"),
            ExpressionError::Heap(error) => write!(f, "{error}"),
        }
    }
}
