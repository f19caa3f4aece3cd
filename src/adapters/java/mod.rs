//! The JVM (Java and Kotlin). What `doctor` says of the JDK here ([`jdk`]), and the seam
//! between a stopped JVM and the code that reads and evaluates Java over it ([`heap`]).

pub mod expression;
pub mod heap;
pub mod jdk;
pub mod presentation;
pub mod jdwp;
