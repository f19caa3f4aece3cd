//! A launched PHP's output and end: its stdout and stderr become DAP `output` events, and its
//! exit status is reported once both pipes are drained, so the last line printed comes before
//! `exited`.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::sync::oneshot;

use super::outbox::Outbox;

/// How PHP ended: its code (for a signal that killed it, the shell's 128 + N).
#[derive(Debug, Clone, Copy)]
pub struct ProcessEnd {
    pub code: i32,
}

/// How long, after PHP exits, its pipes may take to drain (a grandchild can hold them).
const DRAIN_GRACE: Duration = Duration::from_millis(300);

/// Watches PHP: forwards its output, and reports its end on the returned receiver.
/// Sending on the returned sender kills it.
pub fn watch_process(
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
            let _ = stdout_done.await;
            let _ = stderr_done.await;
        })
        .await;
        let end = status
            .ok()
            .and_then(|s| match crate::platform::exit_signal(&s) {
                Some(signal) => Some(ProcessEnd { code: 128 + signal }),
                None => s.code().map(|code| ProcessEnd { code }),
            });
        let _ = exit_tx.send(end);
    });
    (kill_tx, exit_rx)
}

/// A pipe as it comes, in chunks (a prompt without a newline is shown at once), never splitting
/// a UTF-8 character between two events.
async fn forward_chunks(mut pipe: impl AsyncRead + Unpin, out: Outbox, category: &str) {
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
