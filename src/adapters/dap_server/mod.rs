//! What the adapters that run inside the daemon (node, java, php) share as DAP servers: the
//! in-memory connection with its framing, the requests' envelope, where responses and events go,
//! why a request is refused, and the watching of the process they launch. Each adapter keeps its
//! own loop, since what it waits on besides requests (inspector events, JDWP packets, DBGp
//! answers) is its own.

mod connection;
mod error;
mod outbox;
mod process;
mod requests;

pub use connection::{Connection, start};
pub use error::RequestError;
pub use outbox::Outbox;
pub use process::{ProcessEnd, forward_chunks, wait_exit, watch_child, watch_process};
pub use requests::{Envelope, read_arguments, typed_arguments};
