//! A `probe`'s side of the warm adapter: the probe has no daemon of its own, so it borrows the
//! warm adapter of its session name's daemon, whose connection then relays the adapter's DAP
//! stream (`Command::Lend`, see `warm.rs`); the probe runs its session on it as on an adapter it
//! spawned. When there is none to borrow, the probe spawns its own and, once its session has
//! ended, asks the daemon (started if none runs) to keep one warm for the next probe or `start`:
//! not before, as the end of the probe's session ends every process the probe started, and a
//! daemon it starts is one of them until then.
//!
//! Apart from `in_process.rs` because this is the one place a session run in the caller's
//! process talks to a daemon.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::session::WarmAdapter;
use super::warm::WarmSource;
use crate::adapters::DebugAdapter;
use crate::adapters::process::{AdapterProcess, BoxFuture, SpawnedAdapter};
use crate::ipc::client::SessionPaths;
use crate::ipc::framing::{read_frame_bytes_async, write_frame_async};
use crate::ipc::protocol::{Command, LendResult, ProcessContext, Request, Response};
use crate::ipc::socket;

/// What a probe that found no warm adapter asks its daemon to keep for the next one.
struct Wanted {
    adapter: &'static str,
    /// Its executable, as the probe found it.
    executable: PathBuf,
    /// Where the program started (for a warm one that is the program's own process).
    context: Option<ProcessContext>,
}

/// Borrows from the daemon of session `session`; see the module's note.
pub struct Borrower {
    session: String,
    /// The adapter to ask the daemon to keep warm for the next time, when this one found none.
    wanted: Mutex<Option<Wanted>>,
}

impl Borrower {
    pub fn new(session: &str) -> Borrower {
        Borrower {
            session: session.to_string(),
            wanted: Mutex::new(None),
        }
    }

    /// Whether [`Borrower::finish`] will ask a daemon for a warm adapter (this probe found none).
    pub fn will_ask(&self) -> bool {
        self.wanted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Called once the probe's session has ended: asks the daemon (starting one if none runs)
    /// to keep a warm adapter for the next time, when this probe found none to borrow.
    pub async fn finish(&self) {
        let wanted = self.wanted.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(wanted) = wanted else {
            return;
        };
        let session = self.session.clone();
        let asked = tokio::task::spawn_blocking(move || {
            crate::ipc::spawn::connect_or_spawn(&session).and_then(|mut client| {
                client.request(Command::Warm {
                    adapter: wanted.adapter.to_string(),
                    executable: Some(wanted.executable),
                    context: wanted.context,
                })
            })
        })
        .await;
        if let Ok(Err(e)) = asked {
            tracing::debug!("cannot ask for a warm adapter: {}", e.message);
        }
    }
}

impl WarmSource for Borrower {
    fn take_for<'a>(
        &'a self,
        adapter: &'a Arc<dyn DebugAdapter>,
        context: Option<&'a ProcessContext>,
    ) -> BoxFuture<'a, Option<WarmAdapter>> {
        Box::pin(async move {
            if !adapter.profile().warm.keeps_warm() {
                return None;
            }
            let borrowed = borrow(&self.session, adapter, context).await;
            if borrowed.is_none() {
                *self.wanted.lock().unwrap_or_else(|p| p.into_inner()) = Some(Wanted {
                    adapter: adapter.name(),
                    executable: PathBuf::from(adapter.executable()),
                    context: context.cloned(),
                });
            }
            borrowed
        })
    }
}

/// The daemon's warm adapter fit for `adapter`, relayed over a connection to it; `None` when no
/// daemon answers or it has none that fits.
async fn borrow(
    session: &str,
    adapter: &Arc<dyn DebugAdapter>,
    context: Option<&ProcessContext>,
) -> Option<WarmAdapter> {
    let paths = SessionPaths::for_session(session).ok()?;
    let stream = socket::connect_async(&paths.socket).await.ok()?;
    let (mut reader, mut writer) = tokio::io::split(stream);
    let request = Request {
        id: 1,
        command: Command::Lend {
            adapter: adapter.name().to_string(),
            executable: PathBuf::from(adapter.executable()),
            context: context.cloned(),
        },
    };
    write_frame_async(&mut writer, &request).await.ok()?;
    let answer = read_frame_bytes_async(&mut reader).await.ok()?;
    let response: Response = serde_json::from_slice(&answer).ok()?;
    let lent: LendResult = match response.result {
        Ok(value) => serde_json::from_value(value).ok()?,
        Err(err) => {
            tracing::debug!("no warm adapter to borrow: {}", err.message);
            return None;
        }
    };
    // Killing it is closing the connection, which the session does as it ends (the daemon then
    // ends the adapter); the control's `exit` says it is gone.
    let (process, control) = AdapterProcess::lent(lent.adapter_pid);
    let exit = Arc::new(control.exit);
    let given_back = exit.clone();
    tokio::spawn(async move {
        let _ = control.kill.await;
        tell_exit(&given_back, "the borrowed warm adapter was given back");
    });
    tracing::info!(pid = ?lent.adapter_pid, "borrowed the daemon's warm adapter");
    let spawned = SpawnedAdapter {
        process: Arc::new(process),
        reader: Box::new(EndTold {
            inner: reader,
            exit,
        }),
        writer: Box::new(writer),
        program_output: None,
    };
    Some(WarmAdapter::lent(adapter.clone(), spawned, lent))
}

/// The relayed stream, which tells the lent adapter's end when it ends: the adapter ended at the
/// daemon (a pdb adapter is the program's Python, gone with the program), and no process of
/// ours can say so. The session's client waits briefly for an adapter's exit once its output
/// ends; untold, a probe on a warm pdb waited that out (2.1 s where 0.1 s was enough).
struct EndTold<R> {
    inner: R,
    exit: Arc<tokio::sync::watch::Sender<Option<String>>>,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for EndTold<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(result) = &polled {
            let ended = buf.filled().len() == before && buf.remaining() > 0;
            if result.is_err() || ended {
                tell_exit(&self.exit, "the daemon's warm adapter ended");
            }
        }
        polled
    }
}

/// Says the lent adapter is gone, unless that was said already.
fn tell_exit(exit: &tokio::sync::watch::Sender<Option<String>>, detail: &str) {
    exit.send_if_modified(|told| {
        let first = told.is_none();
        if first {
            *told = Some(detail.to_string());
        }
        first
    });
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn the_relayed_streams_end_tells_the_lent_adapters_end() {
        let (exit, mut told) = tokio::sync::watch::channel(None);
        let mut stream = EndTold {
            inner: &b"Content-Length: 2\r\n\r\n{}"[..],
            exit: Arc::new(exit),
        };
        let mut read = Vec::new();
        stream.read_to_end(&mut read).await.expect("read");
        assert_eq!(read.len(), 23);
        let detail = told.wait_for(Option::is_some).await.expect("told");
        assert_eq!(detail.as_deref(), Some("the daemon's warm adapter ended"));
    }

    #[tokio::test]
    async fn a_stream_still_open_tells_nothing() {
        let (exit, told) = tokio::sync::watch::channel(None);
        let (near, far) = tokio::io::duplex(64);
        let mut stream = EndTold {
            inner: near,
            exit: Arc::new(exit),
        };
        let mut writer = far;
        tokio::io::AsyncWriteExt::write_all(&mut writer, b"abc")
            .await
            .expect("write");
        let mut buffer = [0u8; 3];
        stream.read_exact(&mut buffer).await.expect("read");
        assert!(told.borrow().is_none());
        drop(writer);
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).await.expect("read");
        assert!(told.borrow().is_some());
    }
}
