//! Finding a Node process's inspector: starting `node --inspect-brk` and reading where it
//! listens, or, for attach, asking an inspector's HTTP endpoint (`/json/list`) for its WebSocket,
//! after waking the inspector of a running process with SIGUSR1 and finding its port in /proc;
//! and which Node a launch runs (`node --version`).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

use crate::adapters::process::next_line;
use crate::ipc::protocol::StdioPaths;
use crate::platform;

/// What Node prints when its inspector is up: "Debugger listening on ws://127.0.0.1:PORT/UUID".
const LISTENING_PREFIX: &str = "Debugger listening on ";

/// Lines Node's inspector prints on the program's stderr: not the program's output.
const INSPECTOR_CHATTER: &[&str] = &[
    "Debugger listening on ",
    "For help, see: https://nodejs.org/en/docs/inspector",
    "Debugger attached.",
    "Waiting for the debugger to disconnect...",
    "Debugger ending on ",
];

/// Whether a stderr line is the inspector talking rather than the program.
pub fn is_inspector_chatter(line: &str) -> bool {
    let line = line.trim_end();
    INSPECTOR_CHATTER.iter().any(|c| line.starts_with(c))
}

/// A Node process started paused before its first line, and where its inspector listens.
pub struct Launched {
    pub child: Child,
    pub websocket: String,
    /// None when node's stdout is the session's channel.
    pub stdout: Option<ChildStdout>,
    /// The rest of stderr, after the inspector's greeting.
    pub stderr: BufReader<ChildStderr>,
    /// Program stderr lines read while looking for the greeting.
    pub early_stderr: Vec<String>,
}

/// What `node` to run and how.
pub struct LaunchPlan<'a> {
    pub node: &'a Path,
    pub runtime_args: &'a [String],
    /// The script; Node itself (`node --test x.js`) when `args` are Node's whole command line.
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    pub env: Option<&'a [(String, String)]>,
    /// Set on top of `env` (or of the inherited environment).
    pub extra_env: &'a [(String, String)],
    /// The session's channels: node's stdin and stdout are opened on them (its stderr carries
    /// the inspector's greeting, so it stays our pipe).
    pub stdio: Option<&'a StdioPaths>,
}

/// Starts `node --inspect-brk=127.0.0.1:0 PROGRAM ARGS...` (port 0: the OS picks a free one, so
/// sessions never collide) and reads the WebSocket address from its stderr.
pub async fn launch(plan: LaunchPlan<'_>, timeout: Duration) -> Result<Launched, String> {
    let mut command = Command::new(plan.node);
    command
        .arg("--inspect-brk=127.0.0.1:0")
        .args(plan.runtime_args);
    if !super::is_node_runtime(plan.program) {
        command.arg(plan.program);
    }
    command
        .args(plan.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = plan.cwd {
        command.current_dir(cwd);
    }
    let mut stdout_piped = true;
    if let Some(paths) = plan.stdio {
        let [stdin, stdout, _stderr] = crate::adapters::process::open_program_streams(paths)
            .map_err(|e| format!("the program's channels cannot be opened: {e}"))?;
        command.stdin(stdin).stdout(stdout);
        stdout_piped = false;
    }
    if let Some(env) = plan.env {
        command.env_clear();
        command.envs(env.iter().map(|(k, v)| (k, v)));
    }
    command.envs(plan.extra_env.iter().map(|(k, v)| (k, v)));
    crate::adapters::process::as_daemons_child(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", plan.node.display()))?;
    let stdout = child.stdout.take();
    let (true, Some(stderr)) = (stdout.is_some() || !stdout_piped, child.stderr.take()) else {
        return Err("node's pipes were not created".into());
    };
    let mut stderr = BufReader::new(stderr);
    let mut early_stderr = Vec::new();
    let find = async {
        while let Some(line) = next_line(&mut stderr).await {
            if let Some(url) = line.trim().strip_prefix(LISTENING_PREFIX) {
                return Some(url.to_string());
            }
            if !is_inspector_chatter(&line) {
                early_stderr.push(line);
            }
        }
        None
    };
    let found = tokio::time::timeout(timeout, find).await;
    match found {
        Ok(Some(websocket)) => Ok(Launched {
            child,
            websocket,
            stdout,
            stderr,
            early_stderr,
        }),
        Ok(None) => {
            let status = child.wait().await.ok().and_then(|s| s.code());
            let said = early_stderr.join("").trim().to_string();
            Err(match (status, said.is_empty()) {
                (_, false) => format!("node ended before its inspector started: {said}"),
                (Some(code), true) => {
                    format!("node exited with status {code} before its inspector started")
                }
                (None, true) => "node ended before its inspector started".into(),
            })
        }
        Err(_) => {
            let _ = child.start_kill();
            Err(format!(
                "node did not open its inspector within {} s",
                timeout.as_secs()
            ))
        }
    }
}

/// The WebSocket of the inspector at `address`: a `ws://` URL is taken as it is, `HOST:PORT` is
/// asked for its targets.
pub async fn websocket_at(address: &str, timeout: Duration) -> Result<String, String> {
    if address.starts_with("ws://") {
        return Ok(address.to_string());
    }
    let address = address.strip_prefix("http://").unwrap_or(address);
    let address = address.trim_end_matches('/');
    let targets = tokio::time::timeout(timeout, get_json(address, "/json/list"))
        .await
        .map_err(|_| format!("the inspector at {address} did not answer"))??;
    targets
        .as_array()
        .and_then(|list| {
            list.iter()
                .find_map(|t| t.get("webSocketDebuggerUrl").and_then(Value::as_str))
        })
        .map(str::to_string)
        .ok_or_else(|| format!("the inspector at {address} has no debuggable target"))
}

/// A minimal HTTP/1.1 GET of a JSON document (the inspector's endpoints are plain HTTP on
/// loopback; a whole HTTP client would be out of proportion).
async fn get_json(address: &str, path: &str) -> Result<Value, String> {
    let mut stream = TcpStream::connect(address)
        .await
        .map_err(|e| format!("cannot connect to {address}: {e}"))?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("cannot talk to {address}: {e}"))?;
    let mut response = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let read = stream
            .read(&mut chunk)
            .await
            .map_err(|e| format!("cannot read from {address}: {e}"))?;
        if read == 0 {
            break;
        }
        response.extend_from_slice(&chunk[..read]);
        if response.len() > 4 * 1024 * 1024 {
            return Err(format!("{address} answered with too much"));
        }
        if let Some(body) = complete_body(&response) {
            return parse_body(address, body);
        }
    }
    let body = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| &response[at + 4..])
        .ok_or_else(|| format!("{address} is not an inspector (no HTTP answer)"))?;
    parse_body(address, body)
}

fn parse_body(address: &str, body: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(body)
        .map_err(|_| format!("{address} is not a Node inspector (its answer is not JSON)"))
}

/// The body of an HTTP response once all `Content-Length` bytes of it are in.
fn complete_body(response: &[u8]) -> Option<&[u8]> {
    let end = response.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&response[..end]);
    let length: usize = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())?
    })?;
    let body = &response[end + 4..];
    (body.len() >= length).then(|| &body[..length])
}

/// Whether a Node inspector answers at `address` (its `/json/version` names the browser
/// "node.js/vX"): how `attach --connect` tells Node from a DAP adapter without `--adapter`.
pub async fn is_inspector(address: &str) -> bool {
    let address = address.strip_prefix("http://").unwrap_or(address);
    tokio::time::timeout(Duration::from_secs(2), get_json(address, "/json/version"))
        .await
        .is_ok_and(|answer| {
            answer.is_ok_and(|v| {
                v.get("Protocol-Version").is_some()
                    && v["Browser"].as_str().is_some_and(|b| b.starts_with("node"))
            })
        })
}

/// Opens the inspector of the running Node process `pid` (as `node inspect -p` does: SIGUSR1 on
/// Unix, `process._debugProcess` on Windows) and returns its WebSocket. A process whose inspector is already open is not signalled again.
pub async fn attach_to_pid(pid: u32, timeout: Duration) -> Result<String, String> {
    if !platform::process_exists(pid) {
        return Err(format!("no process has pid {pid}"));
    }
    if !is_node(pid) {
        return Err(format!("process {pid} is not a Node.js program"));
    }
    let before = platform::listening_ports(pid);
    if let Some(url) = first_inspector(&before).await {
        return Ok(url);
    }
    // On Windows this runs a second Node for a moment: off the runtime's thread.
    tokio::task::spawn_blocking(move || platform::open_node_inspector(pid))
        .await
        .map_err(|e| format!("cannot ask process {pid} to open its inspector: {e}"))??;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let ports: Vec<u16> = platform::listening_ports(pid)
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if let Some(url) = first_inspector(&ports).await {
            return Ok(url);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!(
                "process {pid} did not open its inspector within {} s: another process may hold Node's default inspector port 9229, or it runs with --disable-sigusr1; start it with --inspect=127.0.0.1:PORT and use 'debugger attach --connect 127.0.0.1:PORT'",
                timeout.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn first_inspector(ports: &[u16]) -> Option<String> {
    for port in ports {
        if let Ok(url) = websocket_at(&format!("127.0.0.1:{port}"), Duration::from_secs(2)).await {
            return Some(url);
        }
    }
    None
}

fn is_node(pid: u32) -> bool {
    let exe = platform::executable_of(pid).unwrap_or_default();
    let name = exe
        .file_stem()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.starts_with("node") || name == "nodejs"
}

/// `node --version` without its leading "v" ("20.20.2").
pub fn version(node: &Path) -> Option<String> {
    let output = std::process::Command::new(node)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !text.is_empty()).then(|| text.trim_start_matches('v').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspector_lines_are_not_program_output() {
        assert!(is_inspector_chatter(
            "Debugger listening on ws://127.0.0.1:9229/abc\n"
        ));
        assert!(is_inspector_chatter(
            "Waiting for the debugger to disconnect...\n"
        ));
        assert!(!is_inspector_chatter("Debugger says hi\n"));
    }

    #[test]
    fn http_bodies_are_complete_only_with_all_their_bytes() {
        let partial = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n[1,2";
        assert!(complete_body(partial).is_none());
        let whole = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n[1,2]";
        assert_eq!(complete_body(whole), Some(&b"[1,2]"[..]));
    }
}
