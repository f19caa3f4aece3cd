//! A DAP client: sends requests with increasing `seq`, matches responses to them, hands events to
//! the session, and answers the adapter's reverse requests.
//!
//! One reader task owns the adapter's output and one writer task its input, so any number of
//! requests can be in flight from any number of tasks. Events go out on a channel the moment they
//! are decoded: nothing here polls. When the adapter's stream ends or breaks, every pending
//! request fails at once with the reason (exit status and stderr tail), and so does every later
//! one: a dead adapter never turns into a wait for a timeout. A message that cannot be read fails
//! only what waited for it (`decode.rs` ties it to its request); the conversation goes on.

use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::codec;
use super::decode::{self, Incoming, Unreadable};
use super::events::Event;
use super::reader::{MessageReader, ReadError};
use super::requests::{self, Encoded, Request};
use super::types::ReverseRequest;

mod errors;
pub use errors::DapError;

type Reply = Result<Value, DapError>;

/// How many bytes of a message that cannot be read the log shows.
const UNREADABLE_SHOWN: usize = 400;

/// Events decoded but not yet applied by the session, at most.
const EVENT_QUEUE: usize = 1024;

enum Pending {
    Open(HashMap<i64, (String, oneshot::Sender<Reply>)>),
    Closed(String),
}

struct Inner {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    next_seq: AtomicI64,
    pending: Mutex<Pending>,
    request_timeout: Duration,
    /// Who starts the program when the adapter asks with `runInTerminal`; none: refused.
    terminal: Mutex<Option<TerminalRunner>>,
}

/// Starts the command of a `runInTerminal` request (its arguments) and answers the process id,
/// or why it could not.
pub type TerminalRunner = Arc<dyn Fn(&Value) -> Result<u32, String> + Send + Sync>;

impl Inner {
    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        // A poisoned lock only means another task panicked mid-update of a plain map; the map is
        // still usable, and refusing all further DAP traffic would be worse.
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Fails every pending request, and every later one, with `reason`. The first reason wins.
    fn close(&self, reason: String) {
        let mut pending = self.pending();
        if matches!(*pending, Pending::Closed(_)) {
            return;
        }
        let previous = std::mem::replace(&mut *pending, Pending::Closed(reason.clone()));
        drop(pending);
        if let Pending::Open(map) = previous {
            for (_, (_, tx)) in map {
                let _ = tx.send(Err(DapError::Closed(reason.clone())));
            }
        }
    }

    fn closed_reason(&self) -> Option<String> {
        match &*self.pending() {
            Pending::Closed(reason) => Some(reason.clone()),
            Pending::Open(_) => None,
        }
    }
}

/// A handle to a running DAP conversation. Cheap to clone; all clones share the connection.
#[derive(Clone)]
pub struct DapClient {
    inner: Arc<Inner>,
}

/// A request that has been sent and whose response has not been awaited yet.
pub struct PendingRequest {
    inner: Arc<Inner>,
    seq: i64,
    command: String,
    rx: Option<oneshot::Receiver<Reply>>,
    immediate: Option<DapError>,
}

impl PendingRequest {
    /// Waits for the response, at most the client's request timeout.
    pub async fn response(self) -> Reply {
        let timeout = self.inner.request_timeout;
        self.response_within(timeout).await
    }

    /// Waits for the response, at most `timeout`.
    pub async fn response_within(mut self, timeout: Duration) -> Reply {
        if let Some(err) = self.immediate.take() {
            return Err(err);
        }
        let Some(rx) = self.rx.as_mut() else {
            return Err(DapError::Closed("request already answered".into()));
        };
        let outcome = tokio::time::timeout(timeout, rx).await;
        // From here the entry is settled; on a timeout, `drop` removes it from the map.
        match outcome {
            Ok(Ok(reply)) => {
                self.rx = None;
                reply
            }
            Ok(Err(_)) => {
                self.rx = None;
                Err(DapError::Closed(self.inner.closed_reason().unwrap_or_else(
                    || "the debug adapter connection closed".into(),
                )))
            }
            Err(_) => Err(DapError::Timeout {
                command: self.command.clone(),
                secs: timeout.as_secs_f64(),
            }),
        }
    }
}

/// A typed request that has been sent and whose answer has not been awaited yet: the answer's
/// body is read into `R::Response` when it comes.
pub struct TypedPending<R: Request> {
    pending: PendingRequest,
    request: PhantomData<fn() -> R>,
}

impl<R: Request> TypedPending<R> {
    /// Waits for the answer, at most the client's request timeout.
    pub async fn response(self) -> Result<R::Response, DapError> {
        requests::decode::<R>(self.pending.response().await?)
    }

    /// Waits for the answer, at most `timeout`.
    pub async fn response_within(self, timeout: Duration) -> Result<R::Response, DapError> {
        requests::decode::<R>(self.pending.response_within(timeout).await?)
    }
}

impl Drop for PendingRequest {
    /// A request abandoned before its answer (timed out, or its waiter cancelled) leaves no entry
    /// behind: a hung adapter must not make the pending map grow.
    fn drop(&mut self) {
        if self.rx.is_some()
            && let Pending::Open(map) = &mut *self.inner.pending()
        {
            map.remove(&self.seq);
        }
    }
}

impl DapClient {
    /// Starts the reader and writer tasks over an adapter's streams.
    ///
    /// `closed_detail` resolves to a description of why the adapter went away (its exit status and
    /// stderr tail); it is awaited when the stream ends, so pending requests fail with it.
    pub fn start<R, W, F>(
        reader: R,
        writer: W,
        request_timeout: Duration,
        closed_detail: F,
    ) -> (DapClient, mpsc::Receiver<Event>)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
        F: Future<Output = String> + Send + 'static,
    {
        let (outgoing, outgoing_rx) = mpsc::unbounded_channel();
        // Bounded: an adapter flooding events is slowed to the pace the session applies them,
        // instead of growing a queue without limit.
        let (events_tx, events_rx) = mpsc::channel(EVENT_QUEUE);
        let inner = Arc::new(Inner {
            outgoing,
            next_seq: AtomicI64::new(1),
            pending: Mutex::new(Pending::Open(HashMap::new())),
            request_timeout,
            terminal: Mutex::new(None),
        });
        tokio::spawn(write_loop(writer, outgoing_rx, inner.clone()));
        tokio::spawn(read_loop(reader, events_tx, inner.clone(), closed_detail));
        (DapClient { inner }, events_rx)
    }

    /// Serves the adapter's `runInTerminal` requests with `runner` from now on (set before
    /// `launch`, for an adapter that asks us to start the program on our channels).
    pub fn serve_run_in_terminal(&self, runner: TerminalRunner) {
        *self
            .inner
            .terminal
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(runner);
    }

    /// Sends the typed request `R` now; its answer is awaited later through the returned handle.
    pub fn send_typed<R: Request>(&self, arguments: &R::Arguments) -> TypedPending<R> {
        let pending = match Encoded::new::<R>(arguments) {
            Ok(encoded) => self.send_encoded(encoded),
            Err(e) => PendingRequest {
                inner: self.inner.clone(),
                seq: 0,
                command: R::COMMAND.to_string(),
                rx: None,
                immediate: Some(e),
            },
        };
        TypedPending {
            pending,
            request: PhantomData,
        }
    }

    /// Sends the typed request `R` and waits for its answer, read into its body type.
    pub async fn request_typed<R: Request>(
        &self,
        arguments: &R::Arguments,
    ) -> Result<R::Response, DapError> {
        self.send_typed::<R>(arguments).response().await
    }

    /// Sends a typed request that crossed an object-safe boundary in its encoded form (see
    /// [`Encoded`]); the answer's body comes back unread, for [`requests::decode`].
    pub fn send_encoded(&self, request: Encoded) -> PendingRequest {
        let (command, arguments) = request.into_parts();
        self.send(command, arguments)
    }

    /// Sends a request now; the response is awaited later through the returned handle.
    ///
    /// Untyped, for the one request whose arguments have no shape of ours: `launch`/`attach`,
    /// which each adapter phrases its own way and the user's config adds fields to
    /// (`[adapters.NAME.launch]`). Everything else goes through [`DapClient::send_typed`].
    pub fn send(&self, command: &str, arguments: Value) -> PendingRequest {
        let seq = self.inner.next_seq.fetch_add(1, Ordering::Relaxed);
        let pending = self.expect_answer(seq, command);
        if pending.immediate.is_some() {
            return pending;
        }
        let message = json!({
            "seq": seq,
            "type": "request",
            "command": command,
            "arguments": arguments,
        });
        tracing::debug!(seq, command, "-> request");
        let bytes = codec::encode(message.to_string().as_bytes());
        if self.inner.outgoing.send(bytes).is_err() {
            self.inner
                .close("the debug adapter connection closed".into());
        }
        pending
    }

    /// Registers `seq` as awaiting its answer (or, on a closed connection, fails it at once).
    fn expect_answer(&self, seq: i64, command: &str) -> PendingRequest {
        let mut pending = PendingRequest {
            inner: self.inner.clone(),
            seq,
            command: command.to_string(),
            rx: None,
            immediate: None,
        };
        let (tx, rx) = oneshot::channel();
        match &mut *self.inner.pending() {
            Pending::Closed(reason) => {
                pending.immediate = Some(DapError::Closed(reason.clone()));
            }
            Pending::Open(map) => {
                map.insert(seq, (command.to_string(), tx));
                pending.rx = Some(rx);
            }
        }
        pending
    }

    /// Takes on a request sent with `seq` before this client read the stream (a kept launch's,
    /// see `kept_launch.rs` in the daemon's session): its answer comes through the returned
    /// handle. Adopted before any answer to it can come (debugpy answers a kept launch only
    /// after `configurationDone`); an answer read before then would find no one waiting.
    pub fn adopt(&self, seq: i64, command: &str) -> PendingRequest {
        self.number_from(seq + 1);
        self.expect_answer(seq, command)
    }

    /// Numbers this client's requests from `seq` on (or later), past those sent on the stream
    /// before it read it.
    pub fn number_from(&self, seq: i64) {
        self.inner.next_seq.fetch_max(seq, Ordering::Relaxed);
    }

    /// Sends an untyped request and waits for its response body (`null` when it has none); see
    /// [`DapClient::send`] for when that is right.
    pub async fn request(&self, command: &str, arguments: Value) -> Reply {
        self.send(command, arguments).response().await
    }

    /// How long a request may take before it fails.
    pub fn request_timeout(&self) -> Duration {
        self.inner.request_timeout
    }

    /// Why the connection closed, if it has.
    pub fn closed_reason(&self) -> Option<String> {
        self.inner.closed_reason()
    }

    /// Marks the connection closed (e.g. when we kill the adapter ourselves).
    pub fn close(&self, reason: &str) {
        self.inner.close(reason.to_string());
    }

    /// Closes our side of the stream once everything sent so far is written: the adapter reads
    /// its end. debugpy's adapter, for one, exits only then, even after `disconnect`.
    pub fn end_input(&self) {
        // Requests are never empty: an empty write is the end.
        let _ = self.inner.outgoing.send(Vec::new());
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut outgoing: mpsc::UnboundedReceiver<Vec<u8>>,
    inner: Arc<Inner>,
) {
    while let Some(bytes) = outgoing.recv().await {
        if bytes.is_empty() {
            let _ = writer.shutdown().await;
            return;
        }
        let result = async {
            writer.write_all(&bytes).await?;
            writer.flush().await
        }
        .await;
        if let Err(e) = result {
            tracing::warn!("writing to the debug adapter failed: {e}");
            // The reader usually sees the adapter's end too, with its exit status: give it the
            // chance to report that better reason first.
            tokio::time::sleep(Duration::from_millis(2500)).await;
            inner.close(format!("writing to the debug adapter failed: {e}"));
            return;
        }
    }
}

async fn read_loop<R, F>(
    mut reader: R,
    events: mpsc::Sender<Event>,
    inner: Arc<Inner>,
    closed_detail: F,
) where
    R: AsyncRead + Unpin,
    F: Future<Output = String>,
{
    let reading = read_messages(&mut reader, &events, &inner);
    tokio::pin!(reading);
    let exited = closed_detail;
    tokio::pin!(exited);
    let reason = tokio::select! {
        failure = &mut reading => match failure {
            // The adapter is still there but talks nonsense: say so at once (the session
            // kills it).
            Some(protocol_error) => protocol_error,
            // The stream ended. Ask how the adapter went (exit status, stderr), but not for
            // long: an adapter that closed its output and lingers must not hold up requests.
            None => match tokio::time::timeout(Duration::from_secs(2), &mut exited).await {
                Ok(detail) => detail,
                Err(_) => "the debug adapter closed its output".to_string(),
            },
        },
        // The adapter exited, yet its output may never end: a child of it (the debuggee) can
        // hold the pipe open. Take what it wrote before dying, briefly, then report the exit.
        detail = &mut exited => {
            let _ = tokio::time::timeout(Duration::from_millis(200), &mut reading).await;
            detail
        }
    };
    tracing::info!("debug adapter connection closed: {reason}");
    inner.close(reason);
    // Dropping `events` tells the session the adapter is gone.
}

/// Reads until the stream ends (`None`) or a protocol error (`Some(error)`).
async fn read_messages<R: AsyncRead + Unpin>(
    reader: &mut R,
    events: &mpsc::Sender<Event>,
    inner: &Inner,
) -> Option<String> {
    let mut messages = MessageReader::new(reader);
    loop {
        let body = match messages.next().await {
            Ok(Some(body)) => body,
            Ok(None) => return None,
            Err(ReadError::Io(e)) => {
                return Some(format!("reading from the debug adapter failed: {e}"));
            }
            Err(ReadError::Codec(e)) => return Some(format!("protocol error: {e}")),
        };
        let message = match decode::decode(&body) {
            Ok(message) => message,
            Err(Unreadable::NotJson { detail }) => {
                return Some(format!(
                    "protocol error: the debug adapter sent a malformed message: {detail}"
                ));
            }
            Err(unreadable) => {
                tracing::warn!(
                    "unreadable message from the adapter, it begins: {}",
                    String::from_utf8_lossy(&body[..body.len().min(UNREADABLE_SHOWN)])
                );
                settle_unreadable(unreadable, inner);
                continue;
            }
        };
        match message {
            Incoming::Event(event) => {
                tracing::debug!(event = event.name(), "<- event");
                // The session stopped listening: it is ending, and the events do not matter.
                let _ = events.send(event).await;
            }
            other => dispatch(other, inner),
        }
    }
}

/// Answers what waits for a message that could not be read, so nothing waits for ever: the
/// request it answers fails, a reverse request is refused; one tied to nothing is skipped (the
/// framing is intact, and a request it may have answered still has its timeout).
fn settle_unreadable(unreadable: Unreadable, inner: &Inner) {
    match unreadable {
        Unreadable::Answer {
            request_seq,
            detail,
        } => {
            let entry = match &mut *inner.pending() {
                Pending::Open(map) => map.remove(&request_seq),
                Pending::Closed(_) => None,
            };
            tracing::warn!(
                seq = request_seq,
                "unreadable answer from the adapter: {detail}"
            );
            if let Some((command, tx)) = entry {
                let _ = tx.send(Err(DapError::Unreadable { command, detail }));
            }
        }
        Unreadable::Request {
            seq,
            command,
            detail,
        } => {
            tracing::warn!(
                seq,
                command,
                "unreadable request from the adapter: {detail}"
            );
            let refusal = format!("the request could not be read: {detail}");
            send_reverse_answer(inner, seq, &command, Err(refusal));
        }
        Unreadable::Stray { detail } => {
            tracing::warn!("unreadable message from the adapter skipped: {detail}");
        }
        Unreadable::NotJson { detail } => {
            tracing::warn!("the adapter sent something that is not a message: {detail}");
        }
    }
}

fn dispatch(message: Incoming, inner: &Inner) {
    match message {
        Incoming::Response(response) => {
            let entry = match &mut *inner.pending() {
                Pending::Open(map) => map.remove(&response.request_seq),
                Pending::Closed(_) => None,
            };
            let Some((command, tx)) = entry else {
                tracing::debug!(
                    seq = response.request_seq,
                    "response to a request nobody waits for"
                );
                return;
            };
            tracing::debug!(
                seq = response.request_seq,
                command,
                success = response.success,
                "<- response"
            );
            let reply = if response.success {
                Ok(response.body.unwrap_or(Value::Null))
            } else {
                Err(DapError::Adapter {
                    command,
                    message: failure_message(&response.message, &response.body),
                })
            };
            let _ = tx.send(reply);
        }
        // Events go out through the bounded queue in `read_messages`.
        Incoming::Event(_) => {}
        Incoming::Request(request) => answer_reverse_request(request, inner),
    }
}

/// The adapter's own words for a failure: `body.error.format` when given, else `message`, else
/// `body.message` (where lldb-dap puts why a `setVariable` failed); empty when it gave none.
fn failure_message(message: &Option<String>, body: &Option<Value>) -> String {
    let in_body = |pointer: &str| {
        body.as_ref()
            .and_then(|b| b.pointer(pointer))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    in_body("/error/format")
        .or(message.as_deref().filter(|m| !m.is_empty()))
        .or_else(|| in_body("/message"))
        .unwrap_or_default()
        .to_string()
}

/// Every reverse request gets an answer, or the adapter would wait forever.
fn answer_reverse_request(request: ReverseRequest, inner: &Inner) {
    tracing::info!(
        command = request.command,
        "reverse request from the adapter"
    );
    let runner = inner
        .terminal
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let answer = match (request.command.as_str(), runner) {
        ("runInTerminal", Some(runner)) => runner(&request.arguments)
            .map(|pid| json!({ "processId": pid, "shellProcessId": Value::Null })),
        ("runInTerminal", None) => Err(
            "debugger captures program output itself and does not run programs in a terminal"
                .to_string(),
        ),
        ("startDebugging", _) => {
            Err("child debug sessions are not supported by this adapter integration".to_string())
        }
        _ => Err("unsupported reverse request".to_string()),
    };
    send_reverse_answer(inner, request.seq, &request.command, answer);
}

/// Answers the adapter's request `request_seq`: its body, or the reason it is refused.
fn send_reverse_answer(
    inner: &Inner,
    request_seq: i64,
    command: &str,
    answer: Result<Value, String>,
) {
    let seq = inner.next_seq.fetch_add(1, Ordering::Relaxed);
    let mut response = json!({
        "seq": seq,
        "type": "response",
        "request_seq": request_seq,
        "command": command,
        "success": answer.is_ok(),
    });
    match answer {
        Ok(body) => response["body"] = body,
        Err(message) => {
            tracing::warn!("reverse request {command} refused: {message}");
            response["message"] = json!(message);
        }
    }
    let _ = inner
        .outgoing
        .send(codec::encode(response.to_string().as_bytes()));
}

#[cfg(test)]
mod tests;
