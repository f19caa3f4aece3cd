//! A scripted DAP adapter for fault-injection tests; not part of the `debugger` binary.
//!
//! Real adapters are the subject of the functional tests; this one exists for what they cannot be
//! made to do on demand: exit mid-request, write garbage, announce a 4 GiB message, never answer,
//! answer slowly, flood events, send a reverse request. `cargo test` builds it (examples are built
//! with the tests); the tests point a config-defined adapter at it:
//!
//! ```toml
//! [adapters.mock]
//! command = "/path/to/target/debug/examples/mock_adapter"
//! args = ["--script", "/path/to/script.json"]
//! ```
//!
//! The script is JSON: `{"on": {"<command>": {"action": ...}}, "debuggee": bool,
//! "debuggee_stdio": "inherit"|"null", "flood": N, "reverse_request": "runInTerminal",
//! "exit_code_on_continue": N, "exceptions_on_continue": N}`. `exceptions_on_continue` makes each
//! of the first N `continue`s stop again at once, on an exception (before `exit_code_on_continue`
//! applies to the next). `debuggee` makes `launch` start `sleep 600` and report its pid
//! in a `process` event; by default it shares the adapter's stdout and stderr (as launched
//! programs often do, which keeps the protocol pipe open after the adapter dies), and
//! `"debuggee_stdio": "null"` gives it /dev/null instead; `"debuggee_unreaped": true` has
//! `disconnect` kill it without collecting its exit, so that its zombie passes to the daemon
//! when the adapter exits (as lldb-dap's lldb-server does). Actions: `exit` (with `code` and
//! `stderr`), `garbage`, `broken_answer` (an answer to the request cut short), `huge_length`,
//! `hang`, `slow` (with `ms`), `error` (with `message`).
//! Commands without an action are answered like a tiny one-thread program stopped in `main` of
//! `/mock/main.c`. `"memory": {"at": N, "hex": "..."}` gives that program readable bytes at
//! address N: the adapter then advertises `readMemory`, and every `evaluate` answer carries the
//! opaque `memoryReference` `ref-N`.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

struct Adapter {
    out: io::Stdout,
    seq: i64,
    script: Value,
    debuggee: Option<Child>,
    /// `continue` requests answered so far with a scripted exception stop.
    continues: u64,
}

impl Adapter {
    fn write(&mut self, mut message: Value) {
        self.seq += 1;
        message["seq"] = json!(self.seq);
        let body = message.to_string();
        let mut out = self.out.lock();
        let _ = write!(out, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = out.flush();
    }

    fn respond(&mut self, request: &Value, body: Value) {
        self.write(json!({
            "type": "response", "request_seq": request["seq"], "success": true,
            "command": request["command"], "body": body,
        }));
    }

    fn fail(&mut self, request: &Value, message: &str) {
        self.write(json!({
            "type": "response", "request_seq": request["seq"], "success": false,
            "command": request["command"], "message": message,
        }));
    }

    fn event(&mut self, event: &str, body: Value) {
        self.write(json!({ "type": "event", "event": event, "body": body }));
    }

    fn stopped(&mut self, reason: &str) {
        self.event(
            "stopped",
            json!({ "reason": reason, "threadId": 1, "allThreadsStopped": true }),
        );
    }

    /// Says on the console (the daemon logs it) that a request is held, so a test can see it
    /// in flight instead of sleeping for it to get there.
    fn holding(&mut self, command: &str) {
        self.event(
            "output",
            json!({ "category": "console", "output": format!("mock adapter: holding {command}\n") }),
        );
    }

    /// Runs the scripted fault for `command`, if any. Returns true when the request is handled.
    fn fault(&mut self, request: &Value) -> bool {
        let command = request["command"].as_str().unwrap_or_default();
        let action = self.script["on"][command].clone();
        match action["action"].as_str() {
            Some("exit") => {
                eprintln!(
                    "{}",
                    action["stderr"].as_str().unwrap_or("mock adapter: exiting")
                );
                std::process::exit(action["code"].as_i64().unwrap_or(1) as i32);
            }
            Some("garbage") => {
                let mut out = self.out.lock();
                let _ = out.write_all(b"Content-Length: 12\r\n\r\nthis is not{");
                let _ = out.write_all(b"\x00\xff garbage \r\n\r\n");
                let _ = out.flush();
                true
            }
            Some("broken_answer") => {
                // An answer to this request, cut short: JSON that no repair mends.
                let body = format!(
                    r#"{{"seq":{},"type":"response","request_seq":{},"success":true,"command":"{command}","body":{{"result": tru"#,
                    self.seq + 1,
                    request["seq"]
                );
                self.seq += 1;
                let mut out = self.out.lock();
                let _ = write!(out, "Content-Length: {}\r\n\r\n{body}", body.len());
                let _ = out.flush();
                true
            }
            Some("huge_length") => {
                let mut out = self.out.lock();
                let _ = out.write_all(b"Content-Length: 4294967296\r\n\r\n{");
                let _ = out.flush();
                true
            }
            Some("hang") => {
                self.holding(command);
                true
            }
            Some("slow") => {
                self.holding(command);
                std::thread::sleep(Duration::from_millis(action["ms"].as_u64().unwrap_or(1000)));
                false
            }
            Some("error") => {
                let message = action["message"]
                    .as_str()
                    .unwrap_or("scripted failure")
                    .to_string();
                self.fail(request, &message);
                true
            }
            _ => false,
        }
    }

    fn handle(&mut self, request: &Value) {
        if self.fault(request) {
            return;
        }
        let command = request["command"].as_str().unwrap_or_default();
        match command {
            "initialize" => {
                let reads_memory = self.script.get("memory").is_some();
                self.respond(
                    request,
                    json!({ "supportsConfigurationDoneRequest": true, "supportsFunctionBreakpoints": true,
                        "supportsReadMemoryRequest": reads_memory }),
                )
            }
            "launch" | "attach" => {
                if command == "launch" && self.script["debuggee"].as_bool() == Some(true) {
                    let mut sleep = Command::new("sleep");
                    sleep.arg("600").stdin(Stdio::null());
                    if self.script["debuggee_stdio"].as_str() == Some("null") {
                        sleep.stdout(Stdio::null()).stderr(Stdio::null());
                    }
                    self.debuggee = sleep.spawn().ok();
                }
                self.respond(request, json!({}));
                let pid = self.debuggee.as_ref().map(Child::id);
                self.event("process", json!({ "name": "mock", "systemProcessId": pid }));
                self.event("initialized", json!({}));
            }
            "setBreakpoints" | "setFunctionBreakpoints" => {
                let count = request["arguments"]["breakpoints"].as_array().map_or(0, Vec::len);
                let list: Vec<Value> = (0..count)
                    .map(|i| json!({ "id": i + 1, "verified": true, "line": 1 }))
                    .collect();
                self.respond(request, json!({ "breakpoints": list }));
            }
            "configurationDone" => {
                self.respond(request, json!({}));
                self.after_configuration();
            }
            "threads" => self.respond(request, json!({ "threads": [{ "id": 1, "name": "main" }] })),
            "stackTrace" => self.respond(
                request,
                json!({ "stackFrames": [{ "id": 1, "name": "main", "line": 1, "column": 1,
                    "source": { "name": "main.c", "path": "/mock/main.c" } }], "totalFrames": 1 }),
            ),
            "scopes" => self.respond(
                request,
                json!({ "scopes": [{ "name": "Locals", "variablesReference": 1, "expensive": false }] }),
            ),
            "variables" => self.respond(
                request,
                json!({ "variables": [{ "name": "x", "value": "1", "type": "int", "variablesReference": 0 }] }),
            ),
            "evaluate" => {
                let expression = request["arguments"]["expression"].clone();
                let mut body = json!({ "result": expression, "variablesReference": 0 });
                if let Some(at) = self.script["memory"]["at"].as_u64() {
                    body["memoryReference"] = json!(format!("ref-{at}"));
                }
                self.respond(request, body);
            }
            "readMemory" => {
                let body = self.read_memory(&request["arguments"]);
                self.respond(request, body);
            }
            "next" | "stepIn" | "stepOut" => {
                self.respond(request, json!({}));
                self.stopped("step");
            }
            "pause" => {
                self.respond(request, json!({}));
                self.stopped("pause");
            }
            "continue" => {
                self.respond(request, json!({ "allThreadsContinued": true }));
                let exceptions = self.script["exceptions_on_continue"].as_u64().unwrap_or(0);
                if self.continues < exceptions {
                    self.continues += 1;
                    self.stopped("exception");
                } else if let Some(code) = self.script["exit_code_on_continue"].as_i64() {
                    self.event("exited", json!({ "exitCode": code }));
                    self.event("terminated", json!({}));
                }
            }
            "disconnect" => {
                if let Some(mut child) = self.debuggee.take() {
                    let _ = child.kill();
                    // Left a zombie, it passes to our parent when we exit, as lldb-dap's
                    // lldb-server does.
                    if self.script["debuggee_unreaped"].as_bool() != Some(true) {
                        let _ = child.wait();
                    }
                }
                self.respond(request, json!({}));
                std::process::exit(0);
            }
            _ => self.fail(request, &format!("mock adapter: unknown command {command}")),
        }
    }

    /// `readMemory` over the script's `memory`: the bytes from the requested address that lie
    /// in it, the rest counted as unreadable.
    fn read_memory(&self, arguments: &Value) -> Value {
        let reference = arguments["memoryReference"].as_str().unwrap_or_default();
        let base = match reference.strip_prefix("ref-") {
            Some(n) => n.parse::<u64>().ok(),
            None => u64::from_str_radix(reference.trim_start_matches("0x"), 16).ok(),
        };
        let start = base.unwrap_or(0) + arguments["offset"].as_u64().unwrap_or(0);
        let count = arguments["count"].as_u64().unwrap_or(0);
        let at = self.script["memory"]["at"].as_u64().unwrap_or(0);
        let hex = self.script["memory"]["hex"].as_str().unwrap_or_default();
        let memory: Vec<u8> = (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(&hex[i * 2..i * 2 + 2], 16).ok())
            .collect();
        let readable: &[u8] = match start.checked_sub(at) {
            Some(skip) if (skip as usize) < memory.len() => {
                let end = (skip + count).min(memory.len() as u64);
                &memory[skip as usize..end as usize]
            }
            _ => &[],
        };
        json!({
            "address": format!("{start:#x}"),
            "data": base64(readable),
            "unreadableBytes": count - readable.len() as u64,
        })
    }

    fn after_configuration(&mut self) {
        if let Some(count) = self.script["flood"].as_u64() {
            for i in 0..count {
                self.event(
                    "output",
                    json!({ "category": "stdout", "output": format!("flood line {i}\n") }),
                );
            }
        }
        if let Some(command) = self.script["reverse_request"].as_str() {
            let command = command.to_string();
            self.write(
                json!({ "type": "request", "command": command, "arguments": { "args": ["true"] } }),
            );
        }
        self.stopped("entry");
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let script = args
        .iter()
        .position(|a| a == "--script")
        .and_then(|i| args.get(i + 1))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({}));
    let mut adapter = Adapter {
        out: io::stdout(),
        seq: 0,
        script,
        debuggee: None,
        continues: 0,
    };
    let mut reader = BufReader::new(io::stdin());
    while let Some(message) = read_message(&mut reader) {
        match message["type"].as_str() {
            Some("request") => adapter.handle(&message),
            Some("response") => {
                // The answer to our reverse request: report it as program output.
                let answered =
                    format!("reverse request answered: success={}\n", message["success"]);
                adapter.event(
                    "output",
                    json!({ "category": "stdout", "output": answered }),
                );
            }
            _ => {}
        }
    }
}
