//! The CLI–daemon protocol: message types, framing, and the socket's name.

pub mod framing;
pub mod protocol;
pub mod socket;
