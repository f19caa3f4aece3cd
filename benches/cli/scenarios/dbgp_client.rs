//! The least a DBGp client does to answer the first-stop question of a PHP script: the native
//! path `php-first-stop` sets `probe` against, as `lldb -b` is lldb's. It listens on a loopback
//! port, starts `php` with the `-d` flags that make Xdebug dial in there, sets one line
//! breakpoint, runs to it, reads one property and stops the script: each command written once
//! the previous answer has come, every read bounded by the bench's wait limit.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;

use crate::{BenchResult, WAIT_LIMIT};

/// Breaks at `script:line`, answers `property_get` of `name` (its XML, the value in it), and
/// ends the script and PHP.
pub fn first_stop(php: &Path, script: &Path, line: u32, name: &str) -> BenchResult<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let mut child = Command::new(php)
        .args([
            "-d",
            "xdebug.mode=debug",
            "-d",
            "xdebug.start_with_request=yes",
        ])
        .args(["-d", "xdebug.client_host=127.0.0.1"])
        .args(["-d", &format!("xdebug.client_port={port}")])
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("run {}: {e}", php.display()))?;
    let answered = converse(&listener, script, line, name);
    let status = match &answered {
        Ok(_) => child.wait(),
        Err(_) => child.kill().and_then(|()| child.wait()),
    };
    status.map_err(|e| format!("wait for php: {e}"))?;
    answered
}

fn converse(listener: &TcpListener, script: &Path, line: u32, name: &str) -> BenchResult<String> {
    // A thread waits for the connection, so the wait is bounded without polling.
    let waiting = listener.try_clone()?;
    let (send, accepted) = channel();
    std::thread::spawn(move || send.send(waiting.accept()));
    let (stream, _) = accepted
        .recv_timeout(WAIT_LIMIT)
        .map_err(|_| "Xdebug did not connect")?
        .map_err(|e| format!("accept Xdebug: {e}"))?;
    stream.set_read_timeout(Some(WAIT_LIMIT))?;
    let mut dbgp = Dbgp {
        stream,
        next: 1,
        unread: Vec::new(),
    };
    dbgp.packet()?; // <init>
    let file = format!("file://{}", script.display());
    dbgp.ask(&format!("breakpoint_set -t line -f {file} -n {line}"))?;
    let stopped = dbgp.ask("run")?;
    if !stopped.contains("status=\"break\"") {
        return Err(format!("Xdebug did not break: {stopped}").into());
    }
    let property = dbgp.ask(&format!("property_get -n {name}"))?;
    dbgp.ask("stop")?;
    Ok(property)
}

struct Dbgp {
    stream: TcpStream,
    next: u32,
    unread: Vec<u8>,
}

impl Dbgp {
    /// Writes `command` with a transaction id and returns its answer.
    fn ask(&mut self, command: &str) -> BenchResult<String> {
        let (name, rest) = command.split_once(' ').unwrap_or((command, ""));
        let id = self.next;
        self.next += 1;
        let line = format!("{name} -i {id} {rest}");
        self.stream.write_all(line.trim_end().as_bytes())?;
        self.stream.write_all(b"\0")?;
        self.packet()
    }

    /// One packet from Xdebug: its length in digits, NUL, the XML, NUL.
    fn packet(&mut self) -> BenchResult<String> {
        loop {
            if let Some(nul) = self.unread.iter().position(|b| *b == 0) {
                let length: usize = std::str::from_utf8(&self.unread[..nul])?.parse()?;
                let end = nul + 1 + length + 1;
                if self.unread.len() >= end {
                    let xml = String::from_utf8_lossy(&self.unread[nul + 1..end - 1]).into_owned();
                    self.unread.drain(..end);
                    return Ok(xml);
                }
            }
            let mut chunk = [0u8; 8192];
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Err("Xdebug closed the connection".into());
            }
            self.unread.extend_from_slice(&chunk[..n]);
        }
    }
}
