//! A Chrome DevTools Protocol client over a WebSocket (tokio-tungstenite): numbered commands
//! answered by `id`, and everything else an event.
//!
//! One task reads the socket and routes answers to their waiting callers; another writes. When
//! the socket closes (Node exited, or dropped us), every waiting call fails with that reason and
//! the event channel ends, which is how the adapter learns the debuggee is gone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use crate::common::peer_json;

/// How long [`Cdp::close_when_idle`] waits for answers still due.
const IDLE_WAIT: Duration = Duration::from_secs(2);

/// The largest CDP message accepted: a `getScriptSource` of a bundled script can be large.
const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Console messages (an attached program's output) waiting to be handled before more are dropped:
/// a program logging in a tight loop must not make the daemon buffer without limit.
const CONSOLE_BACKLOG: usize = 10_000;

/// The inspector's events, in order. Console messages beyond [`CONSOLE_BACKLOG`] unhandled ones
/// are dropped, and their number is reported as an event of its own (`dropped.console`).
pub struct Events {
    rx: mpsc::UnboundedReceiver<CdpEvent>,
    console_backlog: Arc<AtomicUsize>,
}

impl Events {
    pub async fn recv(&mut self) -> Option<CdpEvent> {
        let event = self.rx.recv().await?;
        if event.method == CONSOLE_EVENT {
            self.console_backlog.fetch_sub(1, Ordering::Relaxed);
        }
        Some(event)
    }
}

const CONSOLE_EVENT: &str = "Runtime.consoleAPICalled";

/// The pseudo-event telling how many console messages were dropped (`params.count`).
pub const DROPPED_CONSOLE_EVENT: &str = "dropped.console";

/// Forwards events, dropping console messages while too many wait.
struct EventSender {
    tx: mpsc::UnboundedSender<CdpEvent>,
    console_backlog: Arc<AtomicUsize>,
    dropped: u64,
}

impl EventSender {
    fn send(&mut self, event: CdpEvent) {
        if event.method == CONSOLE_EVENT {
            if self.console_backlog.load(Ordering::Relaxed) >= CONSOLE_BACKLOG {
                self.dropped += 1;
                return;
            }
            if self.dropped > 0 {
                let _ = self.tx.send(CdpEvent {
                    method: DROPPED_CONSOLE_EVENT.into(),
                    params: json!({ "count": self.dropped }),
                });
                self.dropped = 0;
            }
            self.console_backlog.fetch_add(1, Ordering::Relaxed);
        }
        let _ = self.tx.send(event);
    }
}

/// A CDP event: `method` and its `params`.
#[derive(Debug, Clone)]
pub struct CdpEvent {
    pub method: String,
    pub params: Value,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// A connection to one V8 inspector target.
#[derive(Clone)]
pub struct Cdp {
    outgoing: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
    /// Set when the reader has ended: a call made after that would wait for ever.
    closed: Arc<AtomicBool>,
}

impl Cdp {
    /// Connects to `ws://...` and starts the reader and writer tasks.
    pub async fn connect(url: &str) -> Result<(Cdp, Events), String> {
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE_BYTES))
            .max_frame_size(Some(MAX_MESSAGE_BYTES));
        let address = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .ok_or_else(|| format!("not an inspector address: {url}"))?;
        let stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| format!("cannot connect to the inspector at {url}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let (socket, _) = tokio_tungstenite::client_async_with_config(
            url,
            QuickAck { inner: stream },
            Some(config),
        )
        .await
        .map_err(|e| format!("cannot connect to the inspector at {url}: {e}"))?;
        let (mut sink, mut stream) = socket.split();
        let (outgoing, mut to_send) = mpsc::unbounded_channel::<Message>();
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let console_backlog = Arc::new(AtomicUsize::new(0));
        let mut events_tx = EventSender {
            tx: events_tx,
            console_backlog: console_backlog.clone(),
            dropped: 0,
        };
        let events = Events {
            rx: events_rx,
            console_backlog,
        };
        let pending: Pending = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));

        tokio::spawn(async move {
            while let Some(message) = to_send.recv().await {
                let closing = matches!(message, Message::Close(_));
                if sink.send(message).await.is_err() || closing {
                    break;
                }
            }
            let _ = sink.close().await;
        });

        let reader_pending = pending.clone();
        let reader_closed = closed.clone();
        tokio::spawn(async move {
            let reason = loop {
                let message = match stream.next().await {
                    Some(Ok(message)) => message,
                    Some(Err(e)) => break format!("the inspector connection failed: {e}"),
                    None => break "the inspector closed the connection".to_string(),
                };
                let text = match message {
                    Message::Text(text) => text,
                    Message::Close(_) => break "the inspector closed the connection".to_string(),
                    _ => continue,
                };
                tracing::trace!("cdp < {}", text.as_str());
                receive(text.as_bytes(), &reader_pending, &mut events_tx);
            };
            tracing::info!("{reason}");
            // Before the drain: a call that comes after it sees this (see `call`).
            reader_closed.store(true, Ordering::SeqCst);
            let waiting: Vec<_> = reader_pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .drain()
                .collect();
            for (_, tx) in waiting {
                let _ = tx.send(Err(reason.clone()));
            }
        });

        Ok((
            Cdp {
                outgoing,
                pending,
                next_id: Arc::new(AtomicU64::new(1)),
                closed,
            },
            events,
        ))
    }

    /// Sends `method` and waits for its answer: the `result`, or the inspector's error message.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        if self.closed.load(Ordering::SeqCst) {
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            return Err("the inspector connection is closed".into());
        }
        let message = json!({ "id": id, "method": method, "params": params }).to_string();
        tracing::trace!("cdp > {message}");
        if self.outgoing.send(Message::text(message)).is_err() {
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            return Err("the inspector connection is closed".into());
        }
        rx.await
            .unwrap_or_else(|_| Err("the inspector connection is closed".into()))
    }

    /// Closes the connection (Node, waiting for its debugger to leave, then exits).
    pub fn close(&self) {
        let _ = self.outgoing.send(Message::Close(None));
    }

    /// Closes the connection once no call waits for its answer (at most [`IDLE_WAIT`] from
    /// now). Node says the program has finished on stderr before its inspector thread has
    /// always sent the answer to the `Debugger.resume` that let it finish: closing at once would
    /// fail that `continue`.
    pub fn close_when_idle(&self) {
        let cdp = self.clone();
        tokio::spawn(async move {
            let deadline = tokio::time::Instant::now() + IDLE_WAIT;
            while !cdp
                .pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_empty()
                && tokio::time::Instant::now() < deadline
            {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            cdp.close();
        });
    }
}

/// A TCP stream that acknowledges what it reads at once.
///
/// Node's inspector writes with Nagle's algorithm on: after one message, the next waits until the
/// first is acknowledged, and Linux delays acknowledgements by up to 40 ms. Each `next`, `print`
/// or stop is two messages (a result and an event), so without this every one of them took
/// 40 ms more. TCP_QUICKACK is not sticky; it is set again after every read.
struct QuickAck {
    inner: tokio::net::TcpStream,
}

impl QuickAck {
    fn acknowledge_now(&self) {
        crate::platform::acknowledge_now(&self.inner);
    }
}

impl tokio::io::AsyncRead for QuickAck {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, std::task::Poll::Ready(Ok(()))) {
            self.acknowledge_now();
        }
        polled
    }
}

impl tokio::io::AsyncWrite for QuickAck {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Reads one message from the inspector and hands it on: an answer to its caller, an event to
/// the adapter.
///
/// V8 writes every character past ASCII as a `\u` escape, so its text frames are always UTF-8
/// (which the WebSocket layer checks), but a string holding a lone surrogate becomes a lone
/// surrogate escape (`"\ud800"`), which strict JSON refuses; `peer_json` reads it as U+FFFD.
///
/// A message that still cannot be read must not leave its caller waiting, as a call has no
/// deadline of its own: an answer fails the call whose `id` it carries, an event (it has a
/// `method`) is skipped, and a message that is neither fails every call waiting, since any of
/// them may have been its caller.
fn receive(bytes: &[u8], pending: &Pending, events: &mut EventSender) {
    let error = match peer_json::parse::<Value>(bytes, peer_json::LoneSurrogates::AreCharacters) {
        Ok(value) => return route(value, pending, events),
        Err(error) => error,
    };
    let reason = format!("the inspector sent a message that cannot be read: {error}");
    let lock = || pending.lock().unwrap_or_else(|p| p.into_inner());
    let callers: Vec<_> =
        match peer_json::top_level_integer(bytes, "id").and_then(|id| u64::try_from(id).ok()) {
            Some(id) => lock().remove(&id).into_iter().collect(),
            None if peer_json::top_level_string(bytes, "method").is_some() => Vec::new(),
            None => lock().drain().map(|(_, tx)| tx).collect(),
        };
    tracing::warn!(callers = callers.len(), "{reason}");
    for tx in callers {
        let _ = tx.send(Err(reason.clone()));
    }
}

fn route(value: Value, pending: &Pending, events: &mut EventSender) {
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        let waiter = pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        if let Some(tx) = waiter {
            let answer = match value.get("error") {
                Some(error) => Err(error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the inspector refused the command")
                    .to_string()),
                None => Ok(value.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = tx.send(answer);
        }
        return;
    }
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        events.send(CdpEvent {
            method: method.to_string(),
            params: value.get("params").cloned().unwrap_or(Value::Null),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn console() -> CdpEvent {
        CdpEvent {
            method: CONSOLE_EVENT.into(),
            params: Value::Null,
        }
    }

    type Answer = oneshot::Receiver<Result<Value, String>>;

    /// A pending map with callers waiting on `ids` (their answers, in order), and an event
    /// channel.
    fn waiting(ids: &[u64]) -> (Pending, Vec<Answer>, EventSender, Events) {
        let pending: Pending = Arc::default();
        let mut answers = Vec::new();
        for id in ids {
            let (tx, rx) = oneshot::channel();
            pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(*id, tx);
            answers.push(rx);
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let backlog = Arc::new(AtomicUsize::new(0));
        let sender = EventSender {
            tx,
            console_backlog: backlog.clone(),
            dropped: 0,
        };
        let events = Events {
            rx,
            console_backlog: backlog,
        };
        (pending, answers, sender, events)
    }

    /// As V8 answers an evaluation of `"\ud800 lone surrogate"`.
    #[tokio::test]
    async fn an_answer_holding_a_lone_surrogate_reaches_its_caller() {
        let (pending, mut answers, mut sender, _events) = waiting(&[8]);
        receive(
            br#"{"id":8,"result":{"result":{"type":"string","value":"\ud800 lone surrogate"}}}"#,
            &pending,
            &mut sender,
        );
        let answer = answers.remove(0).await.expect("answered");
        assert_eq!(
            answer.map(|r| r["result"]["value"].clone()),
            Ok(Value::from("\u{fffd} lone surrogate"))
        );
    }

    #[tokio::test]
    async fn events_with_bad_bytes_or_odd_escapes_are_read() {
        let (pending, _answers, mut sender, mut events) = waiting(&[]);
        receive(
            b"{\"method\":\"Runtime.consoleAPICalled\",\"params\":{\"v\":\"caf\xe9 \\x41 \\udce9\"}}",
            &pending,
            &mut sender,
        );
        let event = events.recv().await.expect("the event");
        assert_eq!(event.params["v"], "caf\\xe9 \\x41 \u{fffd}");
    }

    #[tokio::test]
    async fn an_unreadable_answer_fails_its_caller_alone() {
        let (pending, mut answers, mut sender, _events) = waiting(&[3, 4]);
        receive(br#"{"id":4,"result":{"x": tru"#, &pending, &mut sender);
        let failed = answers.remove(1).await.expect("answered");
        assert!(
            failed.as_ref().is_err_and(|e| e.contains("cannot be read")),
            "{failed:?}"
        );
        // The other caller still waits, and gets its own answer.
        receive(br#"{"id":3,"result":{}}"#, &pending, &mut sender);
        assert_eq!(answers.remove(0).await.expect("answered"), Ok(json!({})));
    }

    #[tokio::test]
    async fn an_unreadable_event_is_skipped_and_a_message_tied_to_nothing_fails_every_caller() {
        let (pending, answers, mut sender, mut events) = waiting(&[1, 2]);
        receive(
            br#"{"method":"Debugger.paused","params":{"#,
            &pending,
            &mut sender,
        );
        assert_eq!(pending.lock().map(|p| p.len()).unwrap_or(0), 2);
        receive(br#"{"method":"Debugger.resumed"}"#, &pending, &mut sender);
        assert_eq!(
            events.recv().await.map(|e| e.method),
            Some("Debugger.resumed".into())
        );
        receive(b"{\"result\": {", &pending, &mut sender);
        for answer in answers {
            assert!(answer.await.expect("answered").is_err());
        }
    }

    #[tokio::test]
    async fn console_messages_beyond_the_backlog_are_dropped_and_counted() {
        let (tx, rx) = mpsc::unbounded_channel();
        let backlog = Arc::new(AtomicUsize::new(0));
        let mut sender = EventSender {
            tx,
            console_backlog: backlog.clone(),
            dropped: 0,
        };
        let mut events = Events {
            rx,
            console_backlog: backlog,
        };
        for _ in 0..CONSOLE_BACKLOG + 5 {
            sender.send(console());
        }
        // Other events are never dropped.
        sender.send(CdpEvent {
            method: "Debugger.paused".into(),
            params: Value::Null,
        });
        for _ in 0..CONSOLE_BACKLOG {
            let event = events.recv().await.expect("event");
            assert_eq!(event.method, CONSOLE_EVENT);
        }
        assert_eq!(
            events.recv().await.map(|e| e.method),
            Some("Debugger.paused".into())
        );
        // Room again: the count of what was lost comes before the next message.
        sender.send(console());
        let dropped = events.recv().await.expect("dropped");
        assert_eq!(dropped.method, DROPPED_CONSOLE_EVENT);
        assert_eq!(dropped.params["count"], 5);
        assert_eq!(
            events.recv().await.map(|e| e.method),
            Some(CONSOLE_EVENT.into())
        );
    }
}
