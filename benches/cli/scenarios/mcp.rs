//! `debugger mcp`: a `status` tool call on a live MCP connection (no process start per call, the
//! path that beats the CLI for agents that speak MCP) set against the daemon round trip it
//! wraps, and the server's peak memory after serving them. Stopped at `square` in
//! fixtures/c/ledger.c, as the inspection rows are. The two run round-robin, so load from
//! elsewhere touches both alike.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use debugger::ipc::protocol::Command as IpcCommand;
use serde_json::{Value, json};

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::machine::vm_hwm_mib;
use crate::session::path_str;
use crate::stats::Stats;

/// The most an MCP call may add to the daemon round trip it wraps.
const OVER_IPC_MS: f64 = 0.5;

pub fn status_round_trip(ctx: &mut Context) -> BenchResult<()> {
    let ledger = build("c/ledger.c");
    let session = ctx.session();
    session.run(&["start", path_str(&ledger)?, "--break", "square"])?;
    // The session's environment names its session, which the server takes as every call's.
    let mut server = Server::start(session.command(&["mcp"]))?;
    let mut mcp = Vec::with_capacity(ctx.plan.cheap);
    let mut ipc = Vec::with_capacity(ctx.plan.cheap);
    for round in 0..ctx.plan.warmup + ctx.plan.cheap {
        let call = server.call(round, "status")?;
        let direct = session.ipc(IpcCommand::Status)?;
        if round >= ctx.plan.warmup {
            mcp.push(call);
            ipc.push(direct);
        }
    }
    let rss = vm_hwm_mib(server.child.id())?;
    server.end()?;
    let (mcp, ipc) = (Stats::of(mcp), Stats::of(ipc));
    let over = (mcp.median.as_secs_f64() - ipc.median.as_secs_f64()) * 1000.0;
    ctx.table.row(
        "MCP status (live connection)",
        &mcp,
        &format!("+{over:.3} ms over the daemon round trip"),
        &format!("≤ +{OVER_IPC_MS} ms"),
        Some(over <= OVER_IPC_MS),
    );
    ctx.table.row(
        "  status's daemon round trip (no MCP)",
        &ipc,
        "what the call wraps",
        "—",
        None,
    );
    ctx.table.row_text(
        "MCP server peak RSS",
        "1",
        &format!("{rss:.1} MiB"),
        "—",
        "VmHWM",
        "≤ 16 MiB",
        Some(rss <= 16.0),
    );
    Ok(())
}

/// A running `debugger mcp`, initialised.
struct Server {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Server {
    fn start(mut command: std::process::Command) -> BenchResult<Server> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("start debugger mcp: {e}"))?;
        let input = child.stdin.take().ok_or("no stdin for debugger mcp")?;
        let output = BufReader::new(child.stdout.take().ok_or("no stdout for debugger mcp")?);
        let mut server = Server {
            child,
            input,
            output,
        };
        let params = json!({
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "bench", "version": "1" },
        });
        server.request(json!("init"), "initialize", params)?;
        server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
        Ok(server)
    }

    /// One `tools/call` of `tool`, timed from the request's write to its answer's read.
    fn call(&mut self, round: usize, tool: &str) -> BenchResult<Duration> {
        let began = Instant::now();
        let params = json!({ "name": tool, "arguments": {} });
        let answer = self.request(json!(round), "tools/call", params)?;
        let elapsed = began.elapsed();
        if answer["result"]["isError"] != Value::Bool(false) {
            return Err(format!("{tool} over MCP failed: {answer}").into());
        }
        Ok(elapsed)
    }

    fn request(&mut self, id: Value, method: &str, params: Value) -> BenchResult<Value> {
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send(&message)?;
        let mut line = String::new();
        self.output
            .read_line(&mut line)
            .map_err(|e| format!("read from debugger mcp: {e}"))?;
        let answer: Value = serde_json::from_str(&line)
            .map_err(|e| format!("debugger mcp answered {line:?}: {e}"))?;
        if answer["id"] != id {
            return Err(format!("debugger mcp answered {answer} to request {id}").into());
        }
        Ok(answer)
    }

    fn send(&mut self, message: &Value) -> BenchResult<()> {
        let mut line = message.to_string();
        line.push('\n');
        self.input
            .write_all(line.as_bytes())
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("write to debugger mcp: {e}").into())
    }

    /// Closes the server's input, which ends it, and waits for it.
    fn end(self) -> BenchResult<()> {
        let Server {
            mut child, input, ..
        } = self;
        drop(input);
        let status = child
            .wait()
            .map_err(|e| format!("wait for debugger mcp: {e}"))?;
        if !status.success() {
            return Err(format!("debugger mcp ended with {status}").into());
        }
        Ok(())
    }
}
