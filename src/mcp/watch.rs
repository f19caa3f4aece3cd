//! Stops pushed to the client: once a client has set a log level (`logging/setLevel`, MCP's way
//! to subscribe to log messages), each session a call leaves running is watched, and its next
//! stop or exit is sent as a `notifications/message`, with the stop report as data, so an agent
//! that resumed without waiting hears where the program stopped without polling.
//!
//! A watcher is one thread blocked in `await` on the session, as a second CLI client would be:
//! the daemon serves it beside the connection's own calls. It ends with the stop it reports, or
//! with the session; the connection's end does not wait for it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Value, json};

use super::jsonrpc::Outgoing;
use crate::commands::{self, Call, CommandLine, Kept, execution::AwaitArgs};
use crate::common::error::ErrorCode;
use crate::ipc::protocol::SessionState;

/// How long one `await` of a watcher lasts before it asks again: a watcher costs nothing while
/// it waits, so this only bounds how long a finished session's watcher lingers.
const WATCH_SECS: f64 = 600.0;

/// The connection's watchers.
#[derive(Default)]
pub struct Watchers {
    subscribed: AtomicBool,
    watching: Arc<Mutex<HashSet<String>>>,
}

impl Watchers {
    /// The client asked for log messages.
    pub fn subscribe(&self) {
        self.subscribed.store(true, Ordering::SeqCst);
    }

    /// Called after each call on `session` with its answer's data: a session left running is
    /// watched, once.
    pub fn after_call(&self, session: &str, data: &Value, out: &Outgoing) {
        let running = SessionState::deserialize(&data["state"]).ok() == Some(SessionState::Running);
        if !self.subscribed.load(Ordering::SeqCst) || !running {
            return;
        }
        let watching = Arc::clone(&self.watching);
        if !lock(&watching).insert(session.to_string()) {
            return;
        }
        let (session, out) = (session.to_string(), out.clone());
        std::thread::spawn(move || {
            if let Some(stop) = next_stop(&session) {
                out.notify(
                    "notifications/message",
                    json!({ "level": "info", "logger": "debugger", "data": stop }),
                );
            }
            lock(&watching).remove(&session);
        });
    }
}

/// The session's next stop, as `{session, stop, text}`; `None` when the session ends first.
fn next_stop(session: &str) -> Option<Value> {
    loop {
        let mut sink = Kept::default();
        let mut call = Call {
            session,
            data_only: true,
            sink: &mut sink,
        };
        let args = AwaitArgs {
            timeout: WATCH_SECS,
            locals: None,
            print: Vec::new(),
        };
        match commands::run(CommandLine::Await(args), &mut call) {
            Ok(outcome) => {
                return Some(json!({
                    "session": session, "stop": outcome.data, "text": outcome.text,
                }));
            }
            Err(e) if e.code == ErrorCode::Timeout => continue,
            Err(_) => return None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
