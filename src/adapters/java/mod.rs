//! The JVM (Java and Kotlin). For now, what `doctor` says of the JDK here ([`jdk`]); the adapter
//! itself will live beside it.

pub mod jdk;
