//! A launched Node process's output and end: its stdout and stderr become DAP `output` events
//! (the inspector's own lines on stderr left out), and its exit status is reported once both
//! pipes are drained, so the last line printed comes before `exited`.
//!
//! When the program has finished, Node says "Waiting for the debugger to disconnect..." on stderr
//! and waits: the inspector connection is closed then, and Node exits.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncRead, AsyncReadExt};
use tokio::sync::oneshot;

use super::cdp::Cdp;
use super::inspector::{Launched, is_inspector_chatter};
use super::outbox::Outbox;
use super::values;
use crate::adapters::process::next_line;

/// How the launched Node ended: its code, or the signal that killed it (the code is then the
/// shell's 128 + N, for a client that reads only the code).
#[derive(Debug, Clone, Copy)]
pub struct ProcessEnd {
    pub code: i32,
    pub signal: Option<i32>,
}

/// What Node prints when the program has finished and it waits for its debugger to leave.
const PROGRAM_FINISHED: &str = "Waiting for the debugger to disconnect...";

/// How long, after Node exits, its pipes may take to drain (a grandchild can hold them open).
const DRAIN_GRACE: Duration = Duration::from_millis(300);

/// Watches a launched Node: forwards its output, and reports its exit code on the returned
/// receiver. Sending on the returned sender kills it; dropping the sender leaves it running.
pub fn watch_process(
    launched: Launched,
    out: Outbox,
    inspector: Cdp,
) -> (oneshot::Sender<()>, oneshot::Receiver<Option<ProcessEnd>>) {
    let Launched {
        mut child,
        stdout,
        stderr,
        early_stderr,
        ..
    } = launched;
    let stdout_done = tokio::spawn({
        let out = out.clone();
        async move {
            if let Some(stdout) = stdout {
                forward_chunks(stdout, out).await;
            }
        }
    });
    let stderr_done = tokio::spawn(async move {
        for line in early_stderr {
            out.output("stderr", &line).await;
        }
        forward_stderr(stderr, out, inspector).await;
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
                Some(signal) => Some(ProcessEnd {
                    code: 128 + signal,
                    signal: Some(signal),
                }),
                None => s.code().map(|code| ProcessEnd { code, signal: None }),
            });
        let _ = exit_tx.send(end);
    });
    (kill_tx, exit_rx)
}

/// Stdout as it comes, in chunks (a prompt without a newline is shown at once), never splitting
/// a UTF-8 character between two events.
async fn forward_chunks(mut pipe: impl AsyncRead + Unpin, out: Outbox) {
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
            out.output("stdout", &text).await;
        }
    }
    if !pending.is_empty() {
        out.output("stdout", &String::from_utf8_lossy(&pending))
            .await;
    }
}

/// Stderr line by line, without the inspector's "Debugger attached." and the like.
async fn forward_stderr(mut pipe: impl AsyncBufRead + Unpin, out: Outbox, inspector: Cdp) {
    while let Some(text) = next_line(&mut pipe).await {
        if text.starts_with(PROGRAM_FINISHED) {
            inspector.close_when_idle();
        }
        if !is_inspector_chatter(&text) {
            out.output("stderr", &text).await;
        }
    }
}

/// A `Runtime.consoleAPICalled` as one output line: `console.error` and `console.warn` go to
/// stderr, the rest to stdout; the arguments are joined as `console.log` joins them.
pub fn console_line(params: &Value) -> (&'static str, String) {
    let category = match params["type"].as_str() {
        Some("error" | "warning" | "assert" | "trace") => "stderr",
        _ => "stdout",
    };
    let parts: Vec<String> = params["args"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|arg| match arg["type"].as_str() {
            Some("string") => arg["value"].as_str().unwrap_or_default().to_string(),
            _ => values::display(arg),
        })
        .collect();
    (category, format!("{}\n", parts.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn console_calls_read_like_console_output() {
        let params = json!({
            "type": "log",
            "args": [{"type": "string", "value": "total"}, {"type": "number", "value": 3, "description": "3"}],
        });
        assert_eq!(console_line(&params), ("stdout", "total 3\n".to_string()));
        let error = json!({"type": "error", "args": [{"type": "string", "value": "bad"}]});
        assert_eq!(console_line(&error).0, "stderr");
    }
}
