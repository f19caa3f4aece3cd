//! One PHP request's DBGp connection: commands go out with a transaction id, and a task reads
//! Xdebug's packets, handing each response to the command that waits for it. A command that
//! lets the program run (`run`, the steps) is answered only when it stops again, so its answer
//! is awaited apart, by the adapter's loop; what Xdebug sends unasked (`stream`, `notify`)
//! comes on the connection's events.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::wire;
use super::xml::{self, Element};

/// Why a command failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbgpError {
    /// The connection is gone: the request (the script) has ended.
    Closed,
    /// Xdebug refused the command, with its error code and words.
    Refused { code: u32, message: String },
}

impl std::fmt::Display for DbgpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbgpError::Closed => f.write_str("the PHP script has ended"),
            DbgpError::Refused { message, .. } => f.write_str(message),
        }
    }
}

/// DBGp's error code for an `eval` or a property whose expression could not be evaluated.
pub const CANNOT_EVALUATE: u32 = 206;

#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

struct Inner {
    writer: Mutex<OwnedWriteHalf>,
    next: AtomicU32,
    pending: std::sync::Mutex<HashMap<u32, oneshot::Sender<Element>>>,
}

impl Connection {
    /// Takes a connection: its `init` packet, and the packets Xdebug sends unasked.
    pub async fn open(
        stream: TcpStream,
    ) -> Result<(Connection, Element, mpsc::Receiver<Element>), String> {
        let (read, write) = stream.into_split();
        let mut reader = BufReader::new(read);
        let init = wire::read_packet(&mut reader)
            .await
            .map_err(|e| format!("cannot read Xdebug's greeting: {e}"))?
            .ok_or("Xdebug closed the connection before its greeting")?;
        let init = xml::parse(&init)?;
        let connection = Connection {
            inner: Arc::new(Inner {
                writer: Mutex::new(write),
                next: AtomicU32::new(1),
                pending: std::sync::Mutex::new(HashMap::new()),
            }),
        };
        let (events_tx, events) = mpsc::channel(256);
        tokio::spawn(read_packets(
            reader,
            Arc::clone(&connection.inner),
            events_tx,
        ));
        Ok((connection, init, events))
    }

    /// Sends a command and waits for its answer.
    pub async fn command(
        &self,
        name: &str,
        args: &[(&str, String)],
        data: Option<&str>,
    ) -> Result<Element, DbgpError> {
        let answer = self.start(name, args, data).await?;
        let response = answer.await.map_err(|_| DbgpError::Closed)?;
        refusal(&response).map_or(Ok(response), Err)
    }

    /// Sends a command whose answer comes later (`run` answers when the script stops again).
    pub async fn start(
        &self,
        name: &str,
        args: &[(&str, String)],
        data: Option<&str>,
    ) -> Result<oneshot::Receiver<Element>, DbgpError> {
        let transaction = self.inner.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut pending) = self.inner.pending.lock() {
            pending.insert(transaction, tx);
        }
        let bytes = wire::command(name, transaction, args, data);
        let mut writer = self.inner.writer.lock().await;
        writer
            .write_all(&bytes)
            .await
            .map_err(|_| DbgpError::Closed)?;
        Ok(rx)
    }
}

/// The error a response carries, if any.
pub fn refusal(response: &Element) -> Option<DbgpError> {
    let error = response.child("error")?;
    Some(DbgpError::Refused {
        code: error.attr("code").and_then(|c| c.parse().ok()).unwrap_or(0),
        message: error
            .child("message")
            .map(|m| m.text.trim().to_string())
            .unwrap_or_else(|| "Xdebug refused the command".into()),
    })
}

async fn read_packets(
    mut reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    inner: Arc<Inner>,
    events: mpsc::Sender<Element>,
) {
    while let Ok(Some(packet)) = wire::read_packet(&mut reader).await {
        let element = match xml::parse(&packet) {
            Ok(element) => element,
            Err(e) => {
                tracing::warn!("php adapter: {e}");
                continue;
            }
        };
        let waiter = element
            .attr("transaction_id")
            .and_then(|t| t.parse::<u32>().ok())
            .filter(|_| element.name == "response")
            .and_then(|t| inner.pending.lock().ok().and_then(|mut p| p.remove(&t)));
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(element);
            }
            None => {
                if events.send(element).await.is_err() {
                    return;
                }
            }
        }
    }
    // Every command still waiting learns the script has ended.
    if let Ok(mut pending) = inner.pending.lock() {
        pending.clear();
    }
}
