//! One `tools/call`: the tool's arguments become a [`CommandLine`](crate::commands::CommandLine)
//! run through `commands::run`, as the CLI runs it, and its outcome becomes the tool's result:
//! `structuredContent` is the `data` the CLI's `--json` prints, `content` the text the CLI prints,
//! cut to the call's byte budget. Errors are results with `isError` and our code, message and
//! hint, for the model to read; only what is wrong with the call itself (an unknown tool, bad
//! arguments) is a protocol error.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::budget::{self, DEFAULT_MAX_BYTES, MIN_MAX_BYTES};
use super::jsonrpc::{INVALID_PARAMS, Outgoing};
use super::naming::{self, Claim};
use super::tools::{self, DEFAULT_WAIT_SECS, Tool, Waits};
use super::watch::Watchers;
use crate::commands::{self, Call, CommandLine, Kept, json_args};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{Command, SessionState};

/// A protocol error: the JSON-RPC code and message.
pub type Refusal = (i64, String);

/// How many cut answers are kept for their continuations.
const KEPT_ANSWERS: usize = 16;

/// How often a waiting call reports progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// What one connection keeps between calls.
pub struct Connection {
    /// A session named on the command line (`debugger mcp --session NAME`): every call's default.
    named: Option<String>,
    client: Mutex<String>,
    claim: Mutex<Option<Claim>>,
    /// Full answers that were cut, by tool, session and arguments: a continuation (`offset`) reads
    /// the same answer on, never a second run of a command that changes state.
    cut: Mutex<HashMap<String, Answer>>,
    /// Sessions started with `end_with_client`.
    owned: Mutex<Vec<Owned>>,
    /// The threads that push stops to a subscribed client.
    pub watchers: Watchers,
}

/// A session started with `end_with_client`.
struct Owned {
    session: String,
    /// Detached rather than stopped at the end (an attached program).
    detach: bool,
    /// A connection to its daemon, which ends the session when it closes: so it ends even when
    /// this server is killed and cannot stop it (`Command::Tether`).
    _tether: Option<DaemonClient>,
}

/// Ties `session` to this process's life (see [`Owned`]); `None` if its daemon cannot be told,
/// when only a clean end of this server ends the session.
fn tether(session: &str, detach: bool) -> Option<DaemonClient> {
    let mut client = DaemonClient::connect(session).ok()?;
    client.request(Command::Tether { detach }).ok()?;
    Some(client)
}

/// A tool's answer before its text is cut.
#[derive(Clone)]
struct Answer {
    text: String,
    structured: Value,
    is_error: bool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Connection {
    pub fn new(named: Option<String>) -> Connection {
        Connection {
            named,
            client: Mutex::new("mcp".to_string()),
            claim: Mutex::new(None),
            cut: Mutex::new(HashMap::new()),
            owned: Mutex::new(Vec::new()),
            watchers: Watchers::default(),
        }
    }

    /// The client's name from `initialize`, or from a 2026-07-28 request's `_meta`, for the
    /// default session's name (which is claimed, and so fixed, at its first use).
    pub fn set_client(&self, name: &str) {
        *lock(&self.client) = name.to_string();
    }

    /// The session a call that names none uses, claimed at its first use.
    pub fn default_session(&self) -> String {
        if let Some(named) = &self.named {
            return named.clone();
        }
        let mut claim = lock(&self.claim);
        claim
            .get_or_insert_with(|| naming::claim(&lock(&self.client)))
            .name
            .clone()
    }

    /// Runs one `tools/call`; `out` carries its progress and the stops a watcher pushes.
    pub fn call(&self, params: &Value, out: &Outgoing) -> Result<Value, Refusal> {
        let token = &params["_meta"]["progressToken"];
        let progress = (!token.is_null()).then(|| (token.clone(), out.clone()));
        let name = params["name"].as_str().unwrap_or_default();
        let tool =
            tools::find(name).ok_or_else(|| (INVALID_PARAMS, format!("unknown tool '{name}'")))?;
        let mut arguments = match &params["arguments"] {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            other => {
                return Err((
                    INVALID_PARAMS,
                    format!("arguments must be an object, not {other}"),
                ));
            }
        };
        let session = match arguments.remove("session") {
            // A tool with no session (probe, doctor) claims no name for the connection.
            None | Some(Value::Null) if !tool.sessioned => paths::DEFAULT_SESSION.to_string(),
            None | Some(Value::Null) => self.default_session(),
            Some(Value::String(s)) => {
                paths::validate_session_name(&s).map_err(|e| (INVALID_PARAMS, e.message))?;
                s
            }
            Some(other) => {
                return Err((
                    INVALID_PARAMS,
                    format!("session must be a string, not {other}"),
                ));
            }
        };
        let max_bytes = take_count(&mut arguments, "max_bytes")?.unwrap_or(DEFAULT_MAX_BYTES);
        if max_bytes < MIN_MAX_BYTES {
            return Err((
                INVALID_PARAMS,
                format!("max_bytes must be at least {MIN_MAX_BYTES}"),
            ));
        }
        let offset = take_count(&mut arguments, "offset")?.unwrap_or(0);
        let end_with_client = match arguments.remove("end_with_client") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::Bool(true)) if matches!(tool.name, "start" | "attach") => true,
            Some(other) => {
                return Err((
                    INVALID_PARAMS,
                    format!("end_with_client is start's and attach's, true or false; not {other}"),
                ));
            }
        };
        let waits = waits(tool, &arguments);
        if waits && !arguments.contains_key("timeout") {
            arguments.insert("timeout".into(), json!(DEFAULT_WAIT_SECS));
        }
        let key = format!(
            "{}\n{session}\n{}",
            tool.name,
            Value::Object(arguments.clone())
        );
        let kept = (offset > 0)
            .then(|| lock(&self.cut).get(&key).cloned())
            .flatten();
        let answer = match kept {
            Some(answer) => answer,
            // Running a command that changes state again would not continue its answer: it
            // would resume, step or start once more.
            None if offset > 0 && !tool.read_only => {
                return Err((
                    INVALID_PARAMS,
                    format!(
                        "no cut answer of this {} call is kept to continue (the server keeps the last {KEPT_ANSWERS}); call it without offset",
                        tool.name
                    ),
                ));
            }
            None => {
                let command = json_args::command_line(tool.members, &arguments)
                    .map_err(|e| (INVALID_PARAMS, format!("{} ({})", e.message, e.hint)))?;
                let timeout = arguments.get("timeout").and_then(Value::as_f64);
                let answer = run(
                    command,
                    &session,
                    waits.then_some(timeout).flatten(),
                    progress,
                );
                if end_with_client && !answer.is_error {
                    let detach = tool.name == "attach";
                    lock(&self.owned).push(Owned {
                        session: session.clone(),
                        detach,
                        _tether: tether(&session, detach),
                    });
                }
                if tool.sessioned && !answer.is_error {
                    self.watchers.after_call(&session, &answer.structured, out);
                }
                answer
            }
        };
        let cut = budget::cut(&answer.text, offset, max_bytes);
        let mut structured = answer.structured.clone();
        if let Some(more) = &cut.more {
            structured["more"] = more.clone();
            let mut kept = lock(&self.cut);
            if kept.len() >= KEPT_ANSWERS {
                kept.clear();
            }
            kept.insert(key, answer.clone());
        }
        Ok(json!({
            "content": [{ "type": "text", "text": cut.text }],
            "structuredContent": structured,
            "isError": answer.is_error,
            "_meta": if tool.sessioned { json!({ "session": session }) } else { json!({}) },
        }))
    }

    /// Ends the sessions started with `end_with_client`, and waits for their ends; called when
    /// the connection ends. (Were this server killed instead, their tethers would end them.)
    pub fn end(&self) {
        let owned = std::mem::take(&mut *lock(&self.owned));
        for Owned {
            session,
            detach,
            _tether: tether,
        } in owned
        {
            let command = if detach {
                CommandLine::Detach
            } else {
                CommandLine::Stop
            };
            let mut sink = Kept::default();
            let mut call = Call {
                session: &session,
                data_only: true,
                sink: &mut sink,
            };
            let _ = commands::run(command, &mut call);
            // Let go only now: its end would begin the same ending, which the stop waited for.
            drop(tether);
        }
    }
}

/// Whether this call of `tool` waits for the program: `await` and `probe` always, the execution
/// commands with `wait: true`.
fn waits(tool: &Tool, arguments: &Map<String, Value>) -> bool {
    match tool.waits {
        Waits::No => false,
        Waits::Always => true,
        Waits::WithWait => arguments.get("wait") == Some(&Value::Bool(true)),
    }
}

/// A non-negative whole-number argument of the server's own, taken out of the arguments.
fn take_count(arguments: &mut Map<String, Value>, name: &str) -> Result<Option<usize>, Refusal> {
    match arguments.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                (
                    INVALID_PARAMS,
                    format!("{name} must be a whole number ≥ 0, not {value}"),
                )
            }),
    }
}

/// Runs the command, reporting progress while it waits (`timeout` is how long it may).
fn run(
    command: CommandLine,
    session: &str,
    timeout: Option<f64>,
    progress: Option<(Value, Outgoing)>,
) -> Answer {
    let (done, finished) = mpsc::channel::<()>();
    let ticker = match (timeout, progress) {
        (Some(limit), Some((token, out))) => Some(std::thread::spawn(move || {
            let started = Instant::now();
            while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(PROGRESS_EVERY) {
                let waited = started.elapsed().as_secs_f64().floor();
                out.notify(
                    "notifications/progress",
                    json!({
                        "progressToken": token,
                        "progress": waited,
                        "total": limit,
                        "message": format!("waiting for the program to stop ({waited} of {limit} s)"),
                    }),
                );
            }
        })),
        _ => None,
    };
    let mut sink = Kept::default();
    let result = {
        let mut call = Call {
            session,
            data_only: false,
            sink: &mut sink,
        };
        commands::run(command, &mut call)
    };
    drop(done);
    if let Some(ticker) = ticker {
        let _ = ticker.join();
    }
    let shown = |text: &str| format!("{}{text}{}", sink.text, sink.notes);
    match result {
        Ok(outcome) => {
            let mut structured = as_object(outcome.data);
            let mut text = shown(&outcome.text);
            if let Some(error) = &outcome.error {
                structured["error"] = json!(error);
                text.push_str(&error_text(error));
            }
            Answer {
                text,
                structured,
                is_error: outcome.error.is_some(),
            }
        }
        Err(error) if error.code == ErrorCode::Timeout && timeout.is_some() => {
            let limit = timeout.unwrap_or(DEFAULT_WAIT_SECS);
            let hint = "the program is still running: call `await` to wait again, or `execute` with action=pause to interrupt it";
            Answer {
                text: shown(&format!(
                    "Still running after {limit} s (no stop yet)\nhint: {hint}\n"
                )),
                structured: json!({
                    "state": SessionState::Running, "timed_out_after": limit, "hint": hint,
                }),
                is_error: false,
            }
        }
        Err(error) => Answer {
            text: shown(&error_text(&error)),
            structured: json!({ "error": error }),
            is_error: true,
        },
    }
}

fn error_text(error: &ErrorBody) -> String {
    let mut text = format!("error: {}\n", error.message);
    if !error.hint.is_empty() {
        text.push_str(&format!("hint: {}\n", error.hint));
    }
    text
}

/// `structuredContent` is an object: data that is not one is wrapped as `value`.
fn as_object(data: Value) -> Value {
    match data {
        Value::Object(_) => data,
        other => json!({ "value": other }),
    }
}
