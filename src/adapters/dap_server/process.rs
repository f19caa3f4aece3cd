//! A program an in-process adapter launched: its stdout and stderr become DAP `output` events, and
//! its end is reported once its pipes are drained, so the last line printed comes before
//! `exited`.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::outbox::Outbox;

/// How the program ended: its code, or the signal that killed it (the code is then the shell's
/// 128 + N, for a client that reads only the code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessEnd {
    pub code: i32,
    pub signal: Option<i32>,
}

/// How long, after the program exits, its pipes may take to drain (a grandchild can hold them
/// open).
const DRAIN_GRACE: Duration = Duration::from_millis(300);

/// Watches `child`, forwarding its stdout and stderr as they come. See [`watch_process`].
pub fn watch_child(
    mut child: Child,
    out: Outbox,
) -> (oneshot::Sender<()>, oneshot::Receiver<Option<ProcessEnd>>) {
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let stdout_done = tokio::spawn({
        let out = out.clone();
        async move {
            if let Some(stdout) = stdout {
                forward_chunks(stdout, out, "stdout").await;
            }
        }
    });
    let stderr_done = tokio::spawn(async move {
        if let Some(stderr) = stderr {
            forward_chunks(stderr, out, "stderr").await;
        }
    });
    watch_process(child, [stdout_done, stderr_done])
}

/// Reports `child`'s end on the returned receiver once the tasks forwarding its output are done
/// (or [`DRAIN_GRACE`] has passed). Sending on the returned sender kills it; dropping the sender
/// leaves it running.
pub fn watch_process(
    mut child: Child,
    forwarding: [JoinHandle<()>; 2],
) -> (oneshot::Sender<()>, oneshot::Receiver<Option<ProcessEnd>>) {
    let (kill_tx, kill_rx) = oneshot::channel::<()>();
    let (exit_tx, exit_rx) = oneshot::channel();
    tokio::spawn(async move {
        let status = tokio::select! {
            status = child.wait() => status,
            Ok(()) = kill_rx => {
                let _ = child.start_kill();
                child.wait().await
            }
        };
        let _ = tokio::time::timeout(DRAIN_GRACE, async {
            for task in forwarding {
                let _ = task.await;
            }
        })
        .await;
        let _ = exit_tx.send(status.ok().and_then(|status| end_of(&status)));
    });
    (kill_tx, exit_rx)
}

fn end_of(status: &std::process::ExitStatus) -> Option<ProcessEnd> {
    match crate::platform::exit_signal(status) {
        Some(signal) => Some(ProcessEnd {
            code: 128 + signal,
            signal: Some(signal),
        }),
        None => status.code().map(|code| ProcessEnd { code, signal: None }),
    }
}

/// A pipe as it comes, in chunks (a prompt without a newline is shown at once), never splitting
/// a UTF-8 character between two events.
pub async fn forward_chunks(mut pipe: impl AsyncRead + Unpin, out: Outbox, category: &str) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let read = match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        pending.extend_from_slice(&buffer[..read]);
        let complete = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => pending.len(),
        };
        let text = String::from_utf8_lossy(&pending[..complete]).into_owned();
        pending.drain(..complete);
        if !text.is_empty() {
            out.output(category, &text).await;
        }
    }
    if !pending.is_empty() {
        out.output(category, &String::from_utf8_lossy(&pending))
            .await;
    }
}

/// The watched program's end, once; never, when there is none to wait for (nothing launched yet,
/// or its end already reported), so it can stand in a `select!` beside the rest.
pub async fn wait_exit(
    exit: &mut Option<oneshot::Receiver<Option<ProcessEnd>>>,
) -> Option<ProcessEnd> {
    match exit {
        Some(exit) => exit.await.ok().flatten(),
        None => std::future::pending().await,
    }
}
