//! The PHP adapter as a DAP server inside the daemon: the session talks to it over an in-memory
//! duplex stream with the same framing as any adapter's pipes, so nothing above the adapter
//! layer knows it is not a separate process.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, DuplexStream};
use tokio::sync::{mpsc, oneshot};

use super::dbgp::Element;
use super::debuggee::{Debuggee, Flow, Settings};
use super::outbox::Outbox;
use super::output::ProcessEnd;
use super::requests::Envelope;
use crate::adapters::process::{AdapterProcess, InProcessControl, SpawnedAdapter};
use crate::dap::codec::encode;
use crate::dap::reader::MessageReader;

/// Bytes in flight between the session and the adapter before a writer waits.
const DUPLEX_BUFFER: usize = 1024 * 1024;

/// Messages queued for the session before their senders wait: a program printing faster than
/// the session reads is slowed down, never buffered without limit.
const OUTBOX_CAPACITY: usize = 1024;

/// Starts the adapter task and returns the session's end of the connection.
pub fn start(settings: Settings) -> SpawnedAdapter {
    let (session_side, adapter_side) = tokio::io::duplex(DUPLEX_BUFFER);
    let (process, control) = AdapterProcess::in_process();
    tokio::spawn(run(adapter_side, settings, control));
    let (reader, writer) = tokio::io::split(session_side);
    SpawnedAdapter {
        process: Arc::new(process),
        reader: Box::new(reader),
        writer: Box::new(writer),
        program_output: None,
    }
}

async fn run(stream: DuplexStream, settings: Settings, control: InProcessControl) {
    let InProcessControl { mut kill, exit } = control;
    let (reader, writer) = tokio::io::split(stream);
    let (out_tx, out_rx) = mpsc::channel(OUTBOX_CAPACITY);
    let writer_done = tokio::spawn(write_messages(writer, out_rx));
    let (request_tx, mut requests) = mpsc::unbounded_channel();
    tokio::spawn(read_requests(reader, request_tx));

    let mut debuggee = Debuggee::new(Outbox::new(out_tx), settings);
    let mut events: Option<mpsc::Receiver<Element>> = None;
    let mut running: Option<oneshot::Receiver<Element>> = None;
    let mut process_exit: Option<oneshot::Receiver<Option<ProcessEnd>>> = None;
    let reason = loop {
        tokio::select! {
            _ = &mut kill => {
                debuggee.kill();
                break "it was stopped";
            }
            request = requests.recv() => {
                let Some(request) = request else {
                    break "the session closed its connection";
                };
                // A request that never ends must not keep the adapter from being stopped.
                let flow = tokio::select! {
                    flow = debuggee.handle(&request) => flow,
                    _ = &mut kill => {
                        debuggee.kill();
                        break "it was stopped";
                    }
                };
                match flow {
                    Flow::Continue => {}
                    Flow::Connected { events: new_events, exit } => {
                        events = Some(new_events);
                        process_exit = Some(exit);
                    }
                    Flow::Running(answer) => running = Some(answer),
                    Flow::Finish => break "the session disconnected",
                }
            }
            answer = next(&mut running) => {
                running = None;
                if let Some(answer) = answer {
                    running = debuggee.run_answered(answer).await;
                }
            }
            packet = next_event(&mut events) => if packet.is_none() {
                events = None;
                debuggee.connection_closed().await;
            },
            end = wait_exit(&mut process_exit) => {
                process_exit = None;
                debuggee.process_exited(end).await;
            }
        }
    };
    debuggee.kill();
    if let Some(process_exit) = process_exit {
        // PHP is being killed: wait so it does not outlive the adapter.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), process_exit).await;
    }
    drop(debuggee);
    let _ = writer_done.await;
    let _ = exit.send(Some(format!("the php adapter ended: {reason}")));
}

/// The answer to the command that let the script run; `None` when the connection closed first.
async fn next(running: &mut Option<oneshot::Receiver<Element>>) -> Option<Element> {
    match running {
        Some(answer) => answer.await.ok(),
        None => std::future::pending().await,
    }
}

async fn next_event(events: &mut Option<mpsc::Receiver<Element>>) -> Option<Element> {
    match events {
        Some(events) => events.recv().await,
        None => std::future::pending().await,
    }
}

async fn wait_exit(exit: &mut Option<oneshot::Receiver<Option<ProcessEnd>>>) -> Option<ProcessEnd> {
    match exit {
        Some(exit) => exit.await.ok().flatten(),
        None => std::future::pending().await,
    }
}

async fn read_requests(
    reader: tokio::io::ReadHalf<DuplexStream>,
    requests: mpsc::UnboundedSender<Envelope>,
) {
    let mut messages = MessageReader::new(reader);
    loop {
        let body = match messages.next().await {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!("php adapter: {e}");
                return;
            }
        };
        let Ok(message) = serde_json::from_slice::<Value>(&body) else {
            tracing::warn!("php adapter: unreadable request ignored");
            continue;
        };
        if message["type"] != "request" {
            continue;
        }
        let Ok(request) = serde_json::from_value::<Envelope>(message) else {
            tracing::warn!("php adapter: a request without its seq or command ignored");
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
