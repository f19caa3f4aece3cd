//! Java expressions as an agent types them at a stop (`print`, breakpoint conditions, `set`),
//! parsed with positions ([`parse`]) and evaluated over a stopped JVM's [`Heap`].
//!
//! [`Heap`]: crate::adapters::java::heap::Heap

pub mod ast;
pub mod error;
pub mod lexer;
pub mod parser;

pub use error::ExpressionError;
pub use parser::parse;
