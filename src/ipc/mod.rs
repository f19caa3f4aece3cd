//! The CLI–daemon protocol: message types, framing, the socket's name, and the client side
//! (connecting, starting a daemon) that every front door uses.

pub mod client;
pub mod framing;
pub mod listing;
pub mod protocol;
pub mod socket;
pub mod spawn;
