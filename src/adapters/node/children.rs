//! The Node processes a program starts (a test runner's workers: vitest's forks, `node --test`'s
//! file runners, `npx` starting the runner) are debugged too, each before its first line runs.
//!
//! The launched Node gets `NODE_OPTIONS=--require BOOTLOADER`, which every Node process below it
//! inherits. In each of them (not in the launched one, whose inspector is open already, nor in a
//! worker thread) the bootloader opens an inspector on a free port, tells this adapter its
//! WebSocket through a local TCP connection, and waits for the debugger. The adapter connects,
//! places the breakpoints and lets it run (`Runtime.runIfWaitingForDebugger`), as it does with
//! the launched process at `--inspect-brk`.
//!
//! The announcement must come from a thread that is not blocked: the bootloader sends it from a
//! worker thread while the main thread waits on an `Atomics.wait` for the adapter's "ok" (at
//! most [`ANNOUNCE_WAIT_MS`], then it runs undebugged), and only then calls
//! `inspector.waitForDebugger()`, so a process whose debugger is gone never hangs. Another way
//! was tried: `--inspect-brk=0` in `NODE_OPTIONS` makes each child wait, but its address is said
//! only on its own stderr, which a runner may pipe and keep (vitest's forks, jest's workers).
//!
//! The announcement carries a token from the environment, so another local user cannot make
//! the adapter connect to an inspector of theirs.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::cdp::CdpEvent;

/// The environment variable that tells the bootloader where to announce itself:
/// `HOST:PORT:TOKEN`.
const ADDRESS_VARIABLE: &str = "DEBUGGER_NODE_CHILDREN";

/// How long a child waits for the adapter to take its announcement before it runs undebugged.
const ANNOUNCE_WAIT_MS: u32 = 10_000;

/// The longest announcement line read (a pid and a WebSocket URL).
const MAX_ANNOUNCEMENT: u64 = 4096;

/// Preloaded into every Node process below the launched one (see the module's documentation).
const BOOTLOADER: &str = r#"// Written by `debugger`: lets it debug this Node process from its first line.
'use strict';
(function () {
  const announce = process.env.DEBUGGER_NODE_CHILDREN;
  if (!announce) return;
  let inspector, threads;
  try {
    inspector = require('node:inspector');
    threads = require('node:worker_threads');
  } catch {
    return;
  }
  if (!threads.isMainThread || inspector.url()) return;
  const parts = announce.split(':');
  const token = parts.pop();
  const port = Number(parts.pop());
  const host = parts.join(':');
  try {
    inspector.open(0, '127.0.0.1', false);
  } catch {
    return;
  }
  const url = inspector.url();
  if (!url) return;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new threads.Worker(
    `const { workerData: d } = require('node:worker_threads');
     const done = (v) => { Atomics.compareExchange(d.flag, 0, 0, v); Atomics.notify(d.flag, 0); };
     const s = require('node:net').connect(d.port, d.host, () => {
       s.write(JSON.stringify({ token: d.token, pid: d.pid, url: d.url, argv: d.argv }) + '\\n');
     });
     let said = '';
     s.on('data', (b) => { said += b; if (said.includes('\\n')) { done(said.startsWith('ok') ? 1 : 2); s.destroy(); } });
     s.on('error', () => done(2));
     s.on('close', () => done(2));`,
    { eval: true, workerData: { flag, host, port, token, url, pid: process.pid, argv: process.argv.slice(1, 3) } },
  );
  worker.on('error', () => {});
  worker.unref();
  Atomics.wait(flag, 0, 0, ANNOUNCE_WAIT_MS);
  if (Atomics.load(flag, 0) === 1) {
    // At its end the child leaves its debugger itself: Node would otherwise say "Waiting for
    // the debugger to disconnect..." on a stderr it may share with the launched process.
    process.on('exit', () => {
      try {
        inspector.close();
      } catch {}
    });
    inspector.waitForDebugger();
  } else {
    inspector.close();
  }
})();
"#;

/// What the children's side tells the adapter.
pub enum ChildEvent {
    /// A Node process waits for its debugger at `url`.
    Announced { pid: u32, url: String, name: String },
    /// An event of the child shown as `thread`.
    Event { thread: i64, event: CdpEvent },
    /// The child's inspector connection ended.
    Closed { thread: i64 },
}

/// Where children announce themselves: what the launched Node's environment gets.
pub struct Hub {
    /// `NODE_OPTIONS` for the launched Node: the user's own, then the bootloader.
    pub node_options: String,
    /// [`ADDRESS_VARIABLE`]'s value.
    pub address: String,
}

impl Hub {
    /// The variables to add to the launched Node's environment.
    pub fn environment(&self) -> Vec<(String, String)> {
        vec![
            ("NODE_OPTIONS".into(), self.node_options.clone()),
            (ADDRESS_VARIABLE.into(), self.address.clone()),
        ]
    }
}

/// Writes the bootloader into the private `folder` and listens for announcements, which go to
/// `events`. `user_options` is the `NODE_OPTIONS` the program would have had.
pub async fn listen(
    folder: &Path,
    user_options: Option<&str>,
    events: mpsc::UnboundedSender<ChildEvent>,
) -> Result<Hub, String> {
    let bootloader = write_bootloader(folder)?;
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen for child processes: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for child processes: {e}"))?
        .port();
    let token = crate::adapters::dial_in::random_token();
    tokio::spawn(accept(listener, token.clone(), events));
    let require = format!("--require {}", quoted(&bootloader.display().to_string()));
    let node_options = match user_options.map(str::trim).filter(|o| !o.is_empty()) {
        Some(theirs) => format!("{theirs} {require}"),
        None => require,
    };
    Ok(Hub {
        node_options,
        address: format!("127.0.0.1:{port}:{token}"),
    })
}

fn write_bootloader(folder: &Path) -> Result<PathBuf, String> {
    let path = folder.join("node-children-1.cjs");
    let text = BOOTLOADER.replace("ANNOUNCE_WAIT_MS", &ANNOUNCE_WAIT_MS.to_string());
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(path)
}

/// A value for `NODE_OPTIONS`, which splits on spaces unless quoted (backslash escapes `"`
/// and `\` inside quotes).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

async fn accept(listener: TcpListener, token: String, events: mpsc::UnboundedSender<ChildEvent>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        if events.is_closed() {
            return;
        }
        let token = token.clone();
        let events = events.clone();
        tokio::spawn(async move {
            let (reader, mut writer) = stream.into_split();
            let mut line = String::new();
            let mut reader =
                BufReader::new(tokio::io::AsyncReadExt::take(reader, MAX_ANNOUNCEMENT));
            if reader.read_line(&mut line).await.is_err() {
                return;
            }
            let Some(announced) = announcement(&line, &token) else {
                let _ = writer.write_all(b"no\n").await;
                return;
            };
            // The child waits for this answer before it waits for the debugger.
            if events.send(announced).is_ok() {
                let _ = writer.write_all(b"ok\n").await;
            } else {
                let _ = writer.write_all(b"no\n").await;
            }
        });
    }
}

/// The announcement in `line`, when it carries `token`.
fn announcement(line: &str, token: &str) -> Option<ChildEvent> {
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    if value["token"].as_str() != Some(token) {
        return None;
    }
    let url = value["url"].as_str()?.to_string();
    if !url.starts_with("ws://127.0.0.1:") {
        return None;
    }
    let pid = u32::try_from(value["pid"].as_u64()?).ok()?;
    let name = value["argv"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|arg| {
            Path::new(arg)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| arg.to_string())
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(ChildEvent::Announced { pid, url, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announcement_needs_the_token_and_a_local_inspector() {
        let line = r#"{"token":"t","pid":42,"url":"ws://127.0.0.1:4000/x","argv":["/p/node_modules/vitest/dist/workers/forks.js"]}"#;
        match announcement(line, "t") {
            Some(ChildEvent::Announced { pid, url, name }) => {
                assert_eq!(pid, 42);
                assert_eq!(url, "ws://127.0.0.1:4000/x");
                assert_eq!(name, "forks.js");
            }
            _ => panic!("not announced"),
        }
        assert!(announcement(line, "other").is_none());
        let remote = line.replace("127.0.0.1", "10.0.0.1");
        assert!(announcement(&remote, "t").is_none());
    }

    #[test]
    fn node_options_quote_the_bootloaders_path() {
        assert_eq!(quoted(r#"/a b/c"d"#), r#""/a b/c\"d""#);
        assert_eq!(quoted(r"C:\x"), r#""C:\\x""#);
        assert_ne!(
            crate::adapters::dial_in::random_token(),
            crate::adapters::dial_in::random_token()
        );
    }
}
