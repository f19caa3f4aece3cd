//! A small relay between Delve and the session, making up for habits of older Delves (1.20, as
//! Debian 12 ships it); a newer Delve (1.27) that does these things itself passes through:
//! - Delve 1.20 never sends `exited`: when the program ends it sends only `terminated`, and
//!   states the exit status as console output only while it handles `disconnect`. On a
//!   `terminated` with no `exited` before it, the relay disconnects Delve itself, reads the status
//!   from that console line, and passes on `exited { exitCode }` and then the `terminated`, as
//!   other adapters do.
//! - A failed build fails `launch` with "Check the debug console for details", the details being
//!   an `output` event just before. The relay puts them in the error itself.
//! - Delve 1.20 sends no `process` event, so the session would not know the debuggee's pid (for
//!   `status`, and to end a launched program whose adapter died: a running Go program outlives a
//!   killed `dlv`). Delve starts the program as its own child before it sends `initialized`;
//!   there, unless Delve announced it already, the relay looks the child up and announces it in
//!   a `process` event.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::adapters::process::SpawnedAdapter;
use crate::dap::codec::{self, CodecError};
use crate::dap::reader::{MessageReader, ReadError};
use crate::platform;

/// The `seq` of the relay's own `disconnect`: far above any the session will reach (yet within
/// 32 bits), so its response is told apart and kept from the session.
const RELAY_SEQ: i64 = 2_000_000_000;
/// How long the relay holds `terminated` back waiting for the exit status line.
const STATUS_WAIT: Duration = Duration::from_secs(3);
/// Bytes buffered between the relay and the session in each direction.
const RELAY_BUFFER: usize = 256 * 1024;

/// Puts the relay between Delve's DAP stream and the session (see the module docs).
pub(super) fn relay(mut spawned: SpawnedAdapter) -> SpawnedAdapter {
    let dlv_pid = spawned.process.pid;
    let (session_end, relay_end) = tokio::io::duplex(RELAY_BUFFER);
    let (session_reader, session_writer) = tokio::io::split(session_end);
    let (from_session, to_session) = tokio::io::split(relay_end);
    let (to_delve_tx, to_delve_rx) = mpsc::unbounded_channel();
    let session_disconnecting = Arc::new(AtomicBool::new(false));
    let delve_reader = std::mem::replace(&mut spawned.reader, Box::new(session_reader));
    let delve_writer = std::mem::replace(&mut spawned.writer, Box::new(session_writer));
    tokio::spawn(write_to_delve(delve_writer, to_delve_rx));
    tokio::spawn(relay_session_requests(
        from_session,
        to_delve_tx.clone(),
        session_disconnecting.clone(),
    ));
    tokio::spawn(relay_delve_messages(
        Relay {
            dlv_pid,
            ..Relay::default()
        },
        delve_reader,
        to_session,
        to_delve_tx,
        session_disconnecting,
    ));
    spawned
}

/// Writes whole framed messages (the session's and the relay's own) to Delve.
async fn write_to_delve<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut messages: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(bytes) = messages.recv().await {
        if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}

/// Passes the session's requests on to Delve a whole message at a time (so the relay's own
/// request never lands inside one), noting when the session disconnects.
async fn relay_session_requests<R: AsyncRead + Unpin>(
    from_session: R,
    to_delve: mpsc::UnboundedSender<Vec<u8>>,
    disconnecting: Arc<AtomicBool>,
) {
    let mut messages = MessageReader::new(from_session);
    loop {
        let body = match messages.next().await {
            Ok(Some(body)) => body,
            Ok(None) | Err(ReadError::Io(_)) => return,
            Err(ReadError::Codec(error)) => {
                // Our own client's framing: never happens; end the stream rather than guess.
                tracing::warn!("unreadable message to dlv: {error}");
                return;
            }
        };
        if serde_json::from_slice::<Value>(&body)
            .is_ok_and(|m| m["type"] == "request" && m["command"] == "disconnect")
        {
            disconnecting.store(true, Ordering::SeqCst);
        }
        if to_delve.send(codec::encode(&body)).is_err() {
            return;
        }
    }
}

/// What the relay knows of the conversation, to decide what to do with each message from Delve.
#[derive(Debug, Default)]
struct Relay {
    /// An `exited` event went by: Delve reports exits itself, nothing to fill in.
    saw_exited: bool,
    /// The relay has sent its own `disconnect`.
    disconnect_sent: bool,
    /// The `terminated` event held back until the exit status is known.
    held: Option<Vec<u8>>,
    /// The last `stderr` output event: the details of a failed build.
    last_stderr: Option<String>,
    /// Delve's own pid, whose child the launched program is.
    dlv_pid: Option<u32>,
    /// `initialized` went by (the program, if launched, was announced before it).
    saw_initialized: bool,
    /// Delve announced the program in a `process` event of its own.
    saw_process: bool,
}

/// The relay's decision about one message from Delve.
#[derive(Debug, PartialEq)]
enum Action {
    /// Pass these message bodies on to the session, in order.
    Forward(Vec<Vec<u8>>),
    /// Hold `terminated` back and send this `disconnect` to Delve.
    Disconnect(Vec<u8>),
}

impl Relay {
    fn on_message(&mut self, body: Vec<u8>, session_disconnecting: bool) -> Action {
        let Ok(mut message) = serde_json::from_slice::<Value>(&body) else {
            return Action::Forward(vec![body]);
        };
        let kind = message["type"].as_str().unwrap_or("");
        let event = message["event"].as_str().unwrap_or("");
        match (kind, event) {
            ("event", "process") => {
                self.saw_process = true;
                Action::Forward(vec![body])
            }
            ("event", "initialized") if !self.saw_initialized => {
                self.saw_initialized = true;
                let mut bodies: Vec<Vec<u8>> = self
                    .dlv_pid
                    .filter(|_| !self.saw_process)
                    .and_then(platform::only_child)
                    .map(process_event)
                    .into_iter()
                    .collect();
                bodies.push(body);
                Action::Forward(bodies)
            }
            ("event", "exited") => {
                self.saw_exited = true;
                Action::Forward(vec![body])
            }
            ("event", "terminated") if self.disconnect_sent => {
                // Delve's second `terminated`, from handling our disconnect: said already.
                match self.held.take() {
                    Some(held) => Action::Forward(vec![held]),
                    None => Action::Forward(Vec::new()),
                }
            }
            ("event", "terminated") if !self.saw_exited && !session_disconnecting => {
                self.held = Some(body);
                self.disconnect_sent = true;
                let request = json!({
                    "seq": RELAY_SEQ,
                    "type": "request",
                    "command": "disconnect",
                    "arguments": { "terminateDebuggee": true },
                });
                Action::Disconnect(request.to_string().into_bytes())
            }
            ("event", "output") if self.held.is_some() => {
                let status = message["body"]["output"].as_str().and_then(exit_status);
                let mut bodies = vec![body];
                if let Some(code) = status {
                    self.saw_exited = true;
                    let exited = json!({
                        "seq": 0,
                        "type": "event",
                        "event": "exited",
                        "body": { "exitCode": code },
                    });
                    bodies.push(exited.to_string().into_bytes());
                    bodies.extend(self.held.take());
                }
                Action::Forward(bodies)
            }
            ("response", _) if message["request_seq"].as_i64() == Some(RELAY_SEQ) => {
                // Our disconnect is done; whatever Delve said, the session hears `terminated`.
                Action::Forward(self.held.take().into_iter().collect())
            }
            ("response", _) if message["success"] == false => {
                if self.with_console_details(&mut message) {
                    Action::Forward(vec![message.to_string().into_bytes()])
                } else {
                    Action::Forward(vec![body])
                }
            }
            ("event", "output") => {
                if message["body"]["category"] == "stderr" {
                    self.last_stderr = message["body"]["output"].as_str().map(str::to_string);
                }
                Action::Forward(vec![body])
            }
            _ => Action::Forward(vec![body]),
        }
    }

    /// Replaces "Check the debug console for details" in a failure with those details (Delve's
    /// last `stderr` output). Whether the message changed.
    fn with_console_details(&mut self, response: &mut Value) -> bool {
        const POINTER: &str = "Check the debug console for details.";
        let Some(format) = response.pointer_mut("/body/error/format") else {
            return false;
        };
        let Some(text) = format.as_str().filter(|f| f.contains(POINTER)) else {
            return false;
        };
        let Some(details) = self.last_stderr.take() else {
            return false;
        };
        // "Failed to launch: Build error: Check ..." becomes "Failed to launch: Build Error: go
        // build ...\n<the compiler's messages>".
        let head = text
            .split_once("Build error:")
            .map_or(text, |(head, _)| head);
        let head = head.replace(POINTER, "");
        *format = Value::String(format!("{}{}", head, details.trim()));
        true
    }
}

/// The `process` event Delve does not send, for the program it launched.
fn process_event(pid: u32) -> Vec<u8> {
    let name = platform::executable_of(pid)
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    json!({
        "seq": 0,
        "type": "event",
        "event": "process",
        "body": {
            "name": name,
            "systemProcessId": pid,
            "isLocalProcess": true,
            "startMethod": "launch",
        },
    })
    .to_string()
    .into_bytes()
}

/// Reads "Process 4242 has exited with status 3".
fn exit_status(text: &str) -> Option<i64> {
    let (_, rest) = text.split_once("has exited with status ")?;
    let digits: String = rest
        .trim()
        .chars()
        .enumerate()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && *c == '-'))
        .map(|(_, c)| c)
        .collect();
    digits.parse().ok()
}

/// Header bytes that make the session's decoder fail as ours did, so a broken stream from Delve
/// is reported as exactly that.
fn replay_error(error: &CodecError) -> Vec<u8> {
    match error {
        CodecError::MissingContentLength => b"Content-Type: none\r\n\r\n".to_vec(),
        CodecError::InvalidContentLength(value) => {
            format!("Content-Length: {value}\r\n\r\n").into_bytes()
        }
        CodecError::TooLarge(length) => format!("Content-Length: {length}\r\n\r\n").into_bytes(),
        CodecError::HeaderTooLong => vec![b'x'; codec::MAX_HEADER_BYTES + 1],
        CodecError::HeaderNotText => b"\xff\xfe\r\n\r\n".to_vec(),
    }
}

/// Passes Delve's messages on to the session, amended by [`Relay`].
async fn relay_delve_messages<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    mut relay: Relay,
    from_delve: R,
    mut to_session: W,
    to_delve: mpsc::UnboundedSender<Vec<u8>>,
    session_disconnecting: Arc<AtomicBool>,
) {
    let mut messages = MessageReader::new(from_delve);
    let mut deadline: Option<tokio::time::Instant> = None;
    loop {
        let next = match deadline {
            Some(at) => tokio::time::timeout_at(at, messages.next()).await,
            None => Ok(messages.next().await),
        };
        let body = match next {
            Ok(Ok(Some(body))) => body,
            Ok(Ok(None) | Err(ReadError::Io(_))) => break,
            Ok(Err(ReadError::Codec(error))) => {
                tracing::warn!("unreadable message from dlv: {error}");
                let _ = to_session.write_all(&replay_error(&error)).await;
                let _ = to_session.shutdown().await;
                return;
            }
            Err(_) => {
                // No status line in time: let `terminated` through without one.
                deadline = None;
                if let Some(held) = relay.held.take()
                    && to_session.write_all(&codec::encode(&held)).await.is_err()
                {
                    return;
                }
                continue;
            }
        };
        let disconnecting = session_disconnecting.load(Ordering::SeqCst);
        let bodies = match relay.on_message(body, disconnecting) {
            Action::Forward(bodies) => bodies,
            Action::Disconnect(request) => {
                tracing::debug!("dlv sent terminated without exited: disconnecting for the status");
                deadline = Some(tokio::time::Instant::now() + STATUS_WAIT);
                let _ = to_delve.send(codec::encode(&request));
                Vec::new()
            }
        };
        if relay.held.is_none() {
            deadline = None;
        }
        for body in bodies {
            if to_session.write_all(&codec::encode(&body)).await.is_err() {
                return;
            }
        }
        if to_session.flush().await.is_err() {
            return;
        }
    }
    if let Some(held) = relay.held.take() {
        let _ = to_session.write_all(&codec::encode(&held)).await;
    }
    let _ = to_session.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(event: &str, body: Value) -> Vec<u8> {
        json!({ "seq": 9, "type": "event", "event": event, "body": body })
            .to_string()
            .into_bytes()
    }

    fn parsed(bodies: &[Vec<u8>]) -> Vec<Value> {
        bodies
            .iter()
            .map(|b| serde_json::from_slice(b).expect("json"))
            .collect()
    }

    #[test]
    fn reads_the_exit_status_line() {
        assert_eq!(
            exit_status("Process 4242 has exited with status 3\n"),
            Some(3)
        );
        assert_eq!(exit_status("Process 7 has exited with status -1"), Some(-1));
        assert_eq!(exit_status("Detaching"), None);
    }

    #[test]
    fn terminated_without_exited_waits_for_the_status_from_a_disconnect() {
        let mut relay = Relay::default();
        let stdout = event("output", json!({ "category": "stdout", "output": "hi" }));
        assert_eq!(
            relay.on_message(stdout.clone(), false),
            Action::Forward(vec![stdout])
        );
        let terminated = event("terminated", json!({}));
        let Action::Disconnect(request) = relay.on_message(terminated.clone(), false) else {
            panic!("expected a disconnect");
        };
        let request: Value = serde_json::from_slice(&request).expect("json");
        assert_eq!(request["command"], "disconnect");
        assert_eq!(request["seq"], RELAY_SEQ);

        let status = event(
            "output",
            json!({ "category": "console", "output": "Process 42 has exited with status 3\n" }),
        );
        let Action::Forward(bodies) = relay.on_message(status, false) else {
            panic!("expected forwarding");
        };
        let bodies = parsed(&bodies);
        assert_eq!(bodies.len(), 3, "{bodies:?}");
        assert_eq!(bodies[1]["event"], "exited");
        assert_eq!(bodies[1]["body"]["exitCode"], 3);
        assert_eq!(bodies[2]["event"], "terminated");

        // Our disconnect's answer and Delve's second `terminated` stay with the relay.
        let response = json!({ "seq": 10, "type": "response", "request_seq": RELAY_SEQ,
            "command": "disconnect", "success": true });
        assert_eq!(
            relay.on_message(response.to_string().into_bytes(), false),
            Action::Forward(Vec::new())
        );
        assert_eq!(
            relay.on_message(terminated, false),
            Action::Forward(Vec::new())
        );
    }

    #[test]
    fn terminated_goes_through_without_a_status_line() {
        let mut relay = Relay::default();
        let terminated = event("terminated", json!({}));
        assert!(matches!(
            relay.on_message(terminated.clone(), false),
            Action::Disconnect(_)
        ));
        let response = json!({ "seq": 10, "type": "response", "request_seq": RELAY_SEQ,
            "command": "disconnect", "success": true });
        assert_eq!(
            relay.on_message(response.to_string().into_bytes(), false),
            Action::Forward(vec![terminated])
        );
    }

    #[test]
    fn exits_reported_by_delve_or_ended_by_the_session_pass_untouched() {
        let terminated = event("terminated", json!({}));
        let mut relay = Relay::default();
        assert_eq!(
            relay.on_message(terminated.clone(), true),
            Action::Forward(vec![terminated.clone()])
        );
        let mut relay = Relay::default();
        let exited = event("exited", json!({ "exitCode": 0 }));
        assert_eq!(
            relay.on_message(exited.clone(), false),
            Action::Forward(vec![exited])
        );
        assert_eq!(
            relay.on_message(terminated.clone(), false),
            Action::Forward(vec![terminated])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn announces_the_launched_child_before_initialized() {
        // A stand-in for dlv: a shell whose one child is the "program".
        let mut shell = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .expect("spawn sh");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let program = loop {
            if let Some(pid) = platform::only_child(shell.id()) {
                break pid;
            }
            assert!(std::time::Instant::now() < deadline, "sh never forked");
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut relay = Relay {
            dlv_pid: Some(shell.id()),
            ..Relay::default()
        };
        let initialized = event("initialized", json!({}));
        let Action::Forward(bodies) = relay.on_message(initialized.clone(), false) else {
            panic!("expected forwarding");
        };
        let bodies = parsed(&bodies);
        assert_eq!(bodies.len(), 2, "{bodies:?}");
        assert_eq!(bodies[0]["event"], "process");
        assert_eq!(bodies[0]["body"]["systemProcessId"], program);
        assert!(
            bodies[0]["body"]["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("sleep")),
            "{bodies:?}"
        );
        assert_eq!(bodies[1]["event"], "initialized");
        // Only the first `initialized` is preceded by the announcement.
        assert_eq!(
            relay.on_message(initialized.clone(), false),
            Action::Forward(vec![initialized.clone()])
        );
        // A Delve that announces the program itself (1.27) is not announced twice.
        let mut relay = Relay {
            dlv_pid: Some(shell.id()),
            ..Relay::default()
        };
        let process = event("process", json!({ "systemProcessId": program }));
        assert_eq!(
            relay.on_message(process.clone(), false),
            Action::Forward(vec![process])
        );
        assert_eq!(
            relay.on_message(initialized.clone(), false),
            Action::Forward(vec![initialized])
        );
        let _ = platform::kill(program);
        let _ = shell.wait();
    }

    #[test]
    fn a_failed_build_says_why() {
        let mut relay = Relay::default();
        let details = "Build Error: go build -o /tmp/x main.go\n./main.go:2:15: x declared but not used (exit status 1)\n";
        relay.on_message(
            event("output", json!({ "category": "stderr", "output": details })),
            false,
        );
        let response = json!({ "seq": 3, "type": "response", "request_seq": 2, "command": "launch",
            "success": false, "message": "Failed to launch",
            "body": { "error": { "id": 3000,
                "format": "Failed to launch: Build error: Check the debug console for details." } } });
        let Action::Forward(bodies) = relay.on_message(response.to_string().into_bytes(), false)
        else {
            panic!("expected forwarding");
        };
        let bodies = parsed(&bodies);
        assert_eq!(
            bodies[0]["body"]["error"]["format"],
            "Failed to launch: Build Error: go build -o /tmp/x main.go\n./main.go:2:15: x declared but not used (exit status 1)"
        );
        assert_eq!(bodies[0]["request_seq"], 2);
    }
}
