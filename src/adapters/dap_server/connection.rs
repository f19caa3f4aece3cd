//! An in-process adapter's connection to its session: an in-memory duplex stream with the same
//! framing as any adapter's pipes, so nothing above the adapter layer knows it is not a separate
//! process. Requests are read off it into [`Envelope`]s; what the adapter sends goes through an
//! [`Outbox`] to the task that numbers and frames it.

use std::future::Future;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, DuplexStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::outbox::Outbox;
use super::requests::Envelope;
use crate::adapters::process::{AdapterProcess, InProcessControl, SpawnedAdapter};
use crate::dap::codec::encode;
use crate::dap::reader::MessageReader;

/// Bytes in flight between the session and the adapter before a writer waits.
const DUPLEX_BUFFER: usize = 1024 * 1024;

/// Messages queued for the session before their senders wait: a program printing faster than
/// the session reads is slowed down (as a pipe would slow it), never buffered without limit.
const OUTBOX_CAPACITY: usize = 1024;

/// The adapter's side of its connection.
pub struct Connection {
    /// The session's requests, in the order sent.
    pub requests: mpsc::UnboundedReceiver<Envelope>,
    /// Where responses and events go.
    pub outbox: Outbox,
    /// Fires when the session kills the adapter.
    pub kill: oneshot::Receiver<()>,
    /// How the adapter reports its end.
    pub ending: Ending,
}

/// Reports the adapter's end once everything it sent has been written.
pub struct Ending {
    adapter: &'static str,
    writer_done: JoinHandle<()>,
    exit: watch::Sender<Option<String>>,
}

impl Ending {
    /// Waits for the writer to drain (it ends when every [`Outbox`] is dropped, so drop them
    /// first), then tells the session why the adapter ended.
    pub async fn report(self, reason: &str) {
        let _ = self.writer_done.await;
        let _ = self.exit.send(Some(format!(
            "the {} adapter ended: {reason}",
            self.adapter
        )));
    }
}

/// Starts `serve` as the adapter named `adapter` and returns the session's end of the connection.
pub fn start<F, Fut>(adapter: &'static str, serve: F) -> SpawnedAdapter
where
    F: FnOnce(Connection) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (session_side, adapter_side) = tokio::io::duplex(DUPLEX_BUFFER);
    let (process, InProcessControl { kill, exit }) = AdapterProcess::in_process();
    let (reader, writer) = tokio::io::split(adapter_side);
    let (out_tx, out_rx) = mpsc::channel(OUTBOX_CAPACITY);
    let writer_done = tokio::spawn(write_messages(writer, out_rx));
    let (request_tx, requests) = mpsc::unbounded_channel();
    tokio::spawn(read_requests(adapter, reader, request_tx));
    tokio::spawn(serve(Connection {
        requests,
        outbox: Outbox::new(out_tx),
        kill,
        ending: Ending {
            adapter,
            writer_done,
            exit,
        },
    }));
    let (reader, writer) = tokio::io::split(session_side);
    SpawnedAdapter {
        process: Arc::new(process),
        reader: Box::new(reader),
        writer: Box::new(writer),
        program_output: None,
    }
}

async fn read_requests(
    adapter: &'static str,
    reader: tokio::io::ReadHalf<DuplexStream>,
    requests: mpsc::UnboundedSender<Envelope>,
) {
    let mut messages = MessageReader::new(reader);
    loop {
        let body = match messages.next().await {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!("{adapter} adapter: {e}");
                return;
            }
        };
        let Ok(message) = serde_json::from_slice::<Value>(&body) else {
            tracing::warn!("{adapter} adapter: unreadable request ignored");
            continue;
        };
        if message["type"] != "request" {
            continue;
        }
        let Ok(request) = serde_json::from_value::<Envelope>(message) else {
            tracing::warn!("{adapter} adapter: a request without its seq or command ignored");
            continue;
        };
        if requests.send(request).is_err() {
            return;
        }
    }
}

async fn write_messages(
    mut writer: tokio::io::WriteHalf<DuplexStream>,
    mut messages: mpsc::Receiver<Value>,
) {
    let mut seq: i64 = 0;
    while let Some(mut message) = messages.recv().await {
        seq += 1;
        message["seq"] = json!(seq);
        let bytes = encode(message.to_string().as_bytes());
        if writer.write_all(&bytes).await.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}
