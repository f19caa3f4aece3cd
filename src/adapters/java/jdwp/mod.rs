//! Our JDWP client: the JVM's own debugging protocol, spoken to the agent every JDK and JRE
//! carries (`-agentlib:jdwp`). `wire` is the bytes, `connection` the packets' exchange,
//! `events` what the JVM tells unasked, `commands` what we ask, `signatures` the type names.

pub mod commands;
pub mod connection;
pub mod events;
pub mod signatures;
pub mod wire;

pub use connection::{Connection, EventPacket, EventPackets, JdwpError};
