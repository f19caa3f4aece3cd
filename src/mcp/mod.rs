//! `debugger mcp`: the Model Context Protocol front door, over stdio. It is one more client of
//! the same session daemons the CLI talks to, running the same commands (`commands::run`) with
//! the same rendering, so a session started here reads the same from `debugger status`.
//!
//! The protocol surface is small and written here (`jsonrpc.rs`), not taken from an SDK: the
//! server is a loop over lines of stdin, each `tools/call` on its own thread so that a waiting
//! call never holds up another; the daemon client it calls is blocking, so no async runtime is
//! needed at all, and the CLI's start-up path gains nothing. The official SDK, `rmcp` (3.11,
//! MSRV 1.88), would build here and keeps to tokio's current-thread `rt`, but its server and
//! stdio features add 31 crates to the lock (schemars and its derive, chrono, futures' executor,
//! uuid, sha2, tokio-util, its macros) for the few methods this server answers, and its async
//! handlers would have to move every blocking command onto `spawn_blocking`.
//!
//! Protocol revisions: 2026-07-28 (stateless, the version in each request's `_meta`) and the
//! `initialize` revisions 2025-11-25 and 2025-06-18, told apart per request (`era.rs`).
//!
//! The layering is `mcp → commands → ipc`, as for the CLI (`tests/layers.rs`).

mod budget;
mod call;
mod config;
mod era;
mod jsonrpc;
mod naming;
mod tools;
mod watch;

use std::io::BufRead;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use crate::commands::guide;
use call::{Connection, Refusal};
use era::Era;
use jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, Outgoing};

pub use config::print_config;

/// The levels `logging/setLevel` takes: syslog's, as MCP names them.
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Serves one MCP connection on stdin and stdout until stdin ends; returns the exit status.
/// `session` is a session named on the command line, the default of every call.
pub fn run(session: Option<String>) -> i32 {
    let out = Outgoing::new(Box::new(std::io::stdout()));
    let connection = Arc::new(Connection::new(session));
    let mut input = std::io::stdin().lock();
    let mut calls = Vec::new();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        // Bytes, not `lines()`: a line that is not UTF-8 is a parse error to answer, not the
        // end of the connection.
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&bytes);
        if line.trim().is_empty() {
            continue;
        }
        match jsonrpc::classify(&line) {
            Incoming::Request { id, method, params } => {
                let era = match Era::of(&method, &params) {
                    Ok(era) => era,
                    Err(refused) => {
                        out.error_with(&id, refused.code, &refused.message, refused.data);
                        continue;
                    }
                };
                if let Some(name) = era.client_name(&params) {
                    connection.set_client(name);
                }
                if method == "tools/call" {
                    let (out, connection) = (out.clone(), Arc::clone(&connection));
                    calls.retain(|c: &std::thread::JoinHandle<()>| !c.is_finished());
                    calls.push(std::thread::spawn(move || {
                        // A call that panics (a bug) is still answered, and the server serves on.
                        let called = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            connection.call(&params, &out)
                        }));
                        match called {
                            Ok(Ok(result)) => out.result(&id, era.finish(result)),
                            Ok(Err((code, message))) => out.error(&id, code, &message),
                            Err(_) => {
                                out.error(&id, INTERNAL_ERROR, "the call failed: a bug in debugger")
                            }
                        }
                    }));
                } else {
                    match answer(&connection, era, &method, &params) {
                        Ok(result) => out.result(&id, era.finish(result)),
                        Err((code, message)) => out.error(&id, code, &message),
                    }
                }
            }
            // `notifications/initialized`, `notifications/cancelled`: nothing to do (a call
            // that runs ends by itself, within its timeout).
            Incoming::Notification { .. } | Incoming::Response => {}
            Incoming::Invalid { id, code, message } => out.error(&id, code, &message),
        }
    }
    // The input has ended. The sessions that end with the client end first: a client that
    // closes its side soon sends a signal too, and a call waiting on such a session ends with
    // it. Calls still running are then answered, for a client that closed its side once it had
    // sent its last request; each ends within its own timeout.
    connection.end();
    for running in calls {
        let _ = running.join();
    }
    0
}

/// Answers a request other than `tools/call`. The handshake revisions' methods (`initialize`,
/// `ping`, `logging/setLevel`) are gone from 2026-07-28, which has `server/discover` instead.
fn answer(
    connection: &Connection,
    era: Era,
    method: &str,
    params: &Value,
) -> Result<Value, Refusal> {
    match (era, method) {
        (Era::Handshake, "initialize") => {
            if let Some(name) = params["clientInfo"]["name"].as_str() {
                connection.set_client(name);
            }
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version = era::HANDSHAKE_VERSIONS
                .iter()
                .find(|v| **v == asked)
                .unwrap_or(&era::HANDSHAKE_VERSIONS[0]);
            Ok(json!({
                "protocolVersion": version,
                "capabilities": { "tools": { "listChanged": false }, "logging": {} },
                "serverInfo": era::server_info(),
                "instructions": guide::TEXT,
            }))
        }
        (Era::Stateless, "server/discover") => Ok(era::discover(guide::TEXT)),
        (Era::Handshake, "ping") => Ok(json!({})),
        (_, "tools/list") => {
            // Built once: the schemas come from every command's flags.
            static LISTED: OnceLock<Value> = OnceLock::new();
            let tools = LISTED.get_or_init(|| {
                let tools: Vec<Value> = tools::TOOLS.iter().map(tools::listing).collect();
                json!({ "tools": tools })
            });
            Ok(era.cacheable(tools.clone()))
        }
        (Era::Handshake, "logging/setLevel")
            if params["level"]
                .as_str()
                .is_some_and(|level| LOG_LEVELS.contains(&level)) =>
        {
            connection.watchers.subscribe();
            Ok(json!({}))
        }
        (Era::Handshake, "logging/setLevel") => Err((
            INVALID_PARAMS,
            format!(
                "params.level must be one of MCP's log levels: {}",
                LOG_LEVELS.join(", ")
            ),
        )),
        _ => Err((METHOD_NOT_FOUND, format!("no method '{method}'"))),
    }
}
