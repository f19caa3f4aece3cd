//! A launched Node process's output and end: its stdout and stderr become DAP `output` events
//! (the inspector's own lines on stderr left out), and its exit status is reported once both
//! pipes are drained, so the last line printed comes before `exited`.
//!
//! When the program has finished, Node says "Waiting for the debugger to disconnect..." on stderr
//! and waits: the inspector connection is closed then, and Node exits.

use serde_json::Value;
use tokio::io::AsyncBufRead;
use tokio::sync::oneshot;

use super::cdp::Cdp;
use super::inspector::{Launched, is_inspector_chatter};
use super::values;
use crate::adapters::dap_server::{self, Outbox, ProcessEnd, forward_chunks};
use crate::adapters::process::next_line;

/// What Node prints when the program has finished and it waits for its debugger to leave.
const PROGRAM_FINISHED: &str = "Waiting for the debugger to disconnect...";

/// Watches a launched Node: forwards its output, and reports its end on the returned receiver.
/// Sending on the returned sender kills it; dropping the sender leaves it running.
pub fn watch_process(
    launched: Launched,
    out: Outbox,
    inspector: Cdp,
) -> (oneshot::Sender<()>, oneshot::Receiver<Option<ProcessEnd>>) {
    let Launched {
        child,
        stdout,
        stderr,
        early_stderr,
        ..
    } = launched;
    let stdout_done = tokio::spawn({
        let out = out.clone();
        async move {
            if let Some(stdout) = stdout {
                forward_chunks(stdout, out, "stdout").await;
            }
        }
    });
    let stderr_done = tokio::spawn(async move {
        for line in early_stderr {
            out.output("stderr", &line).await;
        }
        forward_stderr(stderr, out, inspector).await;
    });
    dap_server::watch_process(child, [stdout_done, stderr_done])
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
