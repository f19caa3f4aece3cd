//! The adapter's own time: lldb-dap driven in-process by the crate's own `DapClient`, with no CLI
//! process and no daemon, on the runtime flavour the daemon uses (current-thread).
//!
//! Each in-process figure sits beside the CLI figure for the same work, so the difference is
//! what our code adds. To keep that difference honest, this runs the daemon's own launch
//! sequence (`initialize` → `launch`, not awaited → `initialized` → breakpoints →
//! `setExceptionBreakpoints` → `configurationDone` → `launch` response) and sends the same
//! requests with the same arguments the daemon sends for each command.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use debugger::adapters::DebugAdapter;
use debugger::adapters::lldb::LldbDap;
use debugger::adapters::process::AdapterProcess;
use debugger::common::config::AdapterConfig;
use debugger::dap::DapClient;
use debugger::dap::events::Event;
use debugger::dap::requests::{Initialize, InitializeArguments};
use debugger::ipc::protocol::LaunchSpec;

use crate::{BenchResult, WAIT_LIMIT};

/// Runs the same launch and requests the daemon makes, on the same runtime flavour
/// (current-thread), timing what the adapter itself costs.
pub struct InProcess {
    runtime: tokio::runtime::Runtime,
    lldb: LldbDap,
    cwd: PathBuf,
}

/// An in-process session stopped at a breakpoint.
pub struct Stopped {
    session: DapSession,
    thread: i64,
    frame_id: i64,
}

/// The DAP requests behind one inspection command.
#[derive(Clone, Copy)]
pub enum Probe {
    StackTrace,
    Locals,
    /// `locals` as the daemon reads them: the locals and the members of each that has any.
    LocalsWithMembers,
    Evaluate,
}

/// One adapter conversation, stopped or running.
struct DapSession {
    client: DapClient,
    events: mpsc::UnboundedReceiver<Event>,
    process: Arc<AdapterProcess>,
}

impl InProcess {
    /// Finds lldb-dap (the whole bench needs it) and builds the runtime; programs launched
    /// in-process run in `cwd`.
    pub fn new(cwd: &Path) -> BenchResult<InProcess> {
        let lldb = LldbDap::locate(&AdapterConfig::default()).map_err(|e| {
            format!(
                "lldb-dap is needed: {} ({})",
                e.message,
                debugger::adapters::lldb::install_hint(debugger::platform::Os::CURRENT)
            )
        })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("build the tokio runtime: {e}"))?;
        Ok(InProcess {
            runtime,
            lldb,
            cwd: cwd.to_path_buf(),
        })
    }

    pub fn lldb_path(&self) -> &Path {
        self.lldb.executable()
    }

    fn spec(&self, program: &Path) -> LaunchSpec {
        LaunchSpec {
            program: program.to_path_buf(),
            args: Vec::new(),
            cwd: self.cwd.clone(),
            env: std::env::vars().collect(),
            adapter: None,
            stop_on_entry: false,
            breakpoints: Vec::new(),
            connect: None,
            tty: false,
            stdin: None,
            options: Default::default(),
            test: None,
        }
    }

    /// Spawn → initialize → launch → initialized → the program's set-up (Rust's formatters, for
    /// a Rust program) → breakpoints → configurationDone → launch response → stopped →
    /// stackTrace(1): the daemon's launch, timed end to end, to a function breakpoint.
    pub fn launch_to_breakpoint(&self, program: &Path, function: &str) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let lldb = LldbDap::locate(&AdapterConfig::default())
                .map_err(|e| format!("lldb-dap: {}", e.message))?;
            let mut session = DapSession::launch(&lldb, &self.spec(program), &[function]).await?;
            let thread = session.wait_stopped().await?;
            session.stack_trace(thread, 1).await?;
            let elapsed = began.elapsed();
            session.end().await;
            Ok(elapsed)
        })
    }

    /// Launches `program` in-process and waits until it stops in `function`.
    pub fn stop_at(&self, program: &Path, function: &str) -> BenchResult<Stopped> {
        self.runtime.block_on(async {
            let mut session =
                DapSession::launch(&self.lldb, &self.spec(program), &[function]).await?;
            let thread = session.wait_stopped().await?;
            let frames = session.stack_trace(thread, 32).await?;
            let frame_id = frames["stackFrames"][0]["id"]
                .as_i64()
                .ok_or("the stack trace has no frame id")?;
            Ok(Stopped {
                session,
                thread,
                frame_id,
            })
        })
    }

    /// Ends a session from [`InProcess::stop_at`].
    pub fn finish(&self, stopped: Stopped) {
        self.runtime.block_on(stopped.session.end());
    }

    /// The DAP requests behind `backtrace`, `locals` and `print x`, as the daemon sends them.
    pub fn probe(&self, stopped: &Stopped, probe: Probe) -> BenchResult<Duration> {
        let client = &stopped.session.client;
        let (thread, frame_id) = (stopped.thread, stopped.frame_id);
        self.runtime.block_on(async {
            let began = Instant::now();
            match probe {
                Probe::StackTrace => {
                    client
                        .request(
                            "stackTrace",
                            json!({ "threadId": thread, "startFrame": 0, "levels": 32 }),
                        )
                        .await?;
                }
                Probe::Locals => {
                    let scopes = client
                        .request("scopes", json!({ "frameId": frame_id }))
                        .await?;
                    let reference = scopes["scopes"][0]["variablesReference"]
                        .as_i64()
                        .ok_or("no locals scope")?;
                    client
                        .request(
                            "variables",
                            json!({ "variablesReference": reference, "start": 0, "count": 33 }),
                        )
                        .await?;
                }
                Probe::LocalsWithMembers => stopped.session.locals(frame_id).await?,
                Probe::Evaluate => {
                    let value = client
                        .request(
                            "evaluate",
                            json!({ "expression": "x", "frameId": frame_id, "context": "watch" }),
                        )
                        .await?;
                    if value["result"] != json!("3") {
                        return Err(format!("evaluate x gave {value}").into());
                    }
                }
            }
            Ok(began.elapsed())
        })
    }

    /// One `next` → its `stopped` event → `stackTrace(levels)`: what `next --wait` needs.
    pub fn step(&self, stopped: &mut Stopped, levels: u32) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let answer = stopped
                .session
                .client
                .send("next", json!({ "threadId": stopped.thread }));
            let thread = stopped.session.wait_stopped().await?;
            answer.response().await?;
            let trace = stopped.session.stack_trace(thread, levels).await?;
            // What a step's report reads besides the stack: the top frame's locals and their
            // members, to list what changed.
            let frame = trace["stackFrames"][0]["id"].as_i64().unwrap_or(0);
            stopped.session.locals(frame).await?;
            Ok(began.elapsed())
        })
    }

    /// One `next` → its `stopped` event → `stackTrace(1)` → the top frame's locals one level
    /// deep beside an `evaluate` of `expression` there, sent together as the daemon sends them:
    /// what `next --wait` with one display needs.
    pub fn step_with_evaluate(
        &self,
        stopped: &mut Stopped,
        expression: &str,
    ) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let answer = stopped
                .session
                .client
                .send("next", json!({ "threadId": stopped.thread }));
            let thread = stopped.session.wait_stopped().await?;
            answer.response().await?;
            let trace = stopped.session.stack_trace(thread, 1).await?;
            let frame = trace["stackFrames"][0]["id"].as_i64().unwrap_or(0);
            let evaluate = stopped.session.client.send(
                "evaluate",
                json!({ "expression": expression, "frameId": frame, "context": "watch" }),
            );
            let (locals, value) = tokio::join!(stopped.session.locals(frame), evaluate.response());
            locals?;
            let value = value?;
            if value["result"].as_str().is_none() {
                return Err(format!("evaluate {expression} gave {value}").into());
            }
            Ok(began.elapsed())
        })
    }

    /// One `stepOut` → its `stopped` event → `stackTrace(1)` → the caller's locals one level
    /// deep beside lldb's `thread info`, which tells what the function returned: what
    /// `finish --wait` needs for a report with the return value.
    pub fn finish_with_return(&self, stopped: &mut Stopped) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let answer = stopped
                .session
                .client
                .send("stepOut", json!({ "threadId": stopped.thread }));
            let thread = stopped.session.wait_stopped().await?;
            answer.response().await?;
            let trace = stopped.session.stack_trace(thread, 1).await?;
            let frame = trace["stackFrames"][0]["id"].as_i64().unwrap_or(0);
            let info = stopped.session.client.send(
                "evaluate",
                json!({ "expression": "thread info", "frameId": frame, "context": "repl" }),
            );
            let (locals, info) = tokio::join!(stopped.session.locals(frame), info.response());
            locals?;
            let info = info?;
            if !info["result"]
                .as_str()
                .is_some_and(|text| text.contains("Return value"))
            {
                return Err(format!("thread info told no return value: {info}").into());
            }
            Ok(began.elapsed())
        })
    }

    /// A line breakpoint at `line` of `file` in the stopped program, for [`InProcess::hit`].
    pub fn break_at(&self, stopped: &Stopped, file: &Path, line: u32) -> BenchResult<()> {
        self.runtime
            .block_on(stopped.session.set_breakpoints(file, &[line]))?;
        Ok(())
    }

    /// One `continue` → its `stopped` event at a breakpoint → `stackTrace(1)` → the top
    /// frame's locals one level deep: what `continue --wait` needs for a report with values.
    pub fn hit(&self, stopped: &mut Stopped) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let answer = stopped
                .session
                .client
                .send("continue", json!({ "threadId": stopped.thread }));
            let thread = stopped.session.wait_stopped().await?;
            answer.response().await?;
            let trace = stopped.session.stack_trace(thread, 1).await?;
            let frame = trace["stackFrames"][0]["id"].as_i64().unwrap_or(0);
            stopped.session.locals(frame).await?;
            Ok(began.elapsed())
        })
    }

    /// On a program stopped in main: `setBreakpoints` for each of `lines` in each file in turn,
    /// each re-sending its file's list so far (what one `breakpoint add` costs the adapter).
    pub fn incremental_breakpoints(
        &self,
        program: &Path,
        files: &[PathBuf],
        lines: &[u32],
    ) -> BenchResult<AdapterBreakpoints> {
        self.runtime.block_on(async {
            let mut session =
                DapSession::launch(&self.lldb, &self.spec(program), &["main"]).await?;
            let result: BenchResult<_> = async {
                session.wait_stopped().await?;
                let began = Instant::now();
                let mut each = Vec::with_capacity(files.len() * lines.len());
                for file in files {
                    for count in 1..=lines.len() {
                        let sent = Instant::now();
                        session.set_breakpoints(file, &lines[..count]).await?;
                        each.push(sent.elapsed());
                    }
                }
                let incremental = began.elapsed();
                // Clear them, then set each file's lines in one request: what batching would cost.
                for file in files {
                    session.set_breakpoints(file, &[]).await?;
                }
                let began = Instant::now();
                for file in files {
                    session.set_breakpoints(file, lines).await?;
                }
                Ok(AdapterBreakpoints {
                    incremental,
                    each,
                    batched: began.elapsed(),
                })
            }
            .await;
            session.end().await;
            result
        })
    }
}

/// What lldb-dap alone takes for the 1,000 breakpoints.
pub struct AdapterBreakpoints {
    /// One `setBreakpoints` per breakpoint, each re-sending its file's list so far.
    pub incremental: Duration,
    pub each: Vec<Duration>,
    /// One `setBreakpoints` per file with all its lines.
    pub batched: Duration,
}

impl DapSession {
    /// The daemon's launch sequence with function breakpoints `functions`.
    async fn launch(
        lldb: &LldbDap,
        spec: &LaunchSpec,
        functions: &[&str],
    ) -> BenchResult<DapSession> {
        // Asked for before the adapter starts, as the daemon does, so the look-up overlaps it.
        let setup = lldb.program_setup(&spec.program);
        let spawned = lldb
            .spawn(debugger::adapters::Start::Plain)
            .await
            .map_err(|e| format!("spawn lldb-dap: {}", e.message))?;
        let process = spawned.process.clone();
        let (client, mut adapter_events) = DapClient::start(
            spawned.reader,
            spawned.writer,
            WAIT_LIMIT,
            process.exit_detail(),
        );
        // Drain the client's bounded event queue at once, as the daemon's event task does, so a
        // burst of events never holds up a response we are waiting for.
        let (tx, events) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(event) = adapter_events.recv().await {
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        let mut session = DapSession {
            client,
            events,
            process,
        };
        let caps = session
            .client
            .request_typed::<Initialize>(&InitializeArguments::new(lldb.profile().adapter_id))
            .await?;
        let launch = session
            .client
            .send("launch", lldb.launch_arguments(spec, None));
        session.wait_event("initialized").await?;
        for command in setup.await {
            session
                .client
                .request(
                    "evaluate",
                    json!({ "expression": command, "context": "repl" }),
                )
                .await?;
        }
        let breakpoints: Vec<Value> = functions.iter().map(|f| json!({ "name": f })).collect();
        session
            .client
            .request(
                "setFunctionBreakpoints",
                json!({ "breakpoints": breakpoints }),
            )
            .await?;
        if caps.exception_breakpoint_filters.is_some() {
            session
                .client
                .request("setExceptionBreakpoints", json!({ "filters": [] }))
                .await?;
        }
        if caps.supports_configuration_done_request {
            session
                .client
                .request("configurationDone", json!({}))
                .await?;
        }
        launch.response().await?;
        Ok(session)
    }

    async fn wait_event(&mut self, name: &str) -> BenchResult<Event> {
        let deadline = tokio::time::Instant::now() + WAIT_LIMIT;
        loop {
            let event = tokio::time::timeout_at(deadline, self.events.recv())
                .await
                .map_err(|_| format!("no '{name}' event within {} s", WAIT_LIMIT.as_secs()))?
                .ok_or_else(|| format!("the adapter ended before a '{name}' event"))?;
            if event.name() == name {
                return Ok(event);
            }
            if matches!(event, Event::Exited(_) | Event::Terminated) {
                return Err(format!("the program ended while waiting for '{name}'").into());
            }
        }
    }

    /// The next `stopped` event's thread.
    async fn wait_stopped(&mut self) -> BenchResult<i64> {
        match self.wait_event("stopped").await? {
            Event::Stopped(body) => body
                .thread_id
                .ok_or_else(|| "a stopped event without a thread".into()),
            _ => Err("an unreadable stopped event".into()),
        }
    }

    /// `setBreakpoints` for `file`: exactly `lines`.
    async fn set_breakpoints(&self, file: &Path, lines: &[u32]) -> BenchResult<Value> {
        let breakpoints: Vec<Value> = lines.iter().map(|line| json!({ "line": line })).collect();
        let name = file.file_name().map(|n| n.to_string_lossy().to_string());
        Ok(self
            .client
            .request(
                "setBreakpoints",
                json!({
                    "source": { "path": file, "name": name },
                    "breakpoints": breakpoints,
                }),
            )
            .await?)
    }

    async fn stack_trace(&self, thread: i64, levels: u32) -> BenchResult<Value> {
        Ok(self
            .client
            .request(
                "stackTrace",
                json!({ "threadId": thread, "startFrame": 0, "levels": levels }),
            )
            .await?)
    }

    /// A frame's locals one level deep, as `locals` reads them: its scopes, the locals scope's
    /// variables, and the members of each that has any.
    async fn locals(&self, frame: i64) -> BenchResult<()> {
        let scopes = self
            .client
            .request("scopes", json!({ "frameId": frame }))
            .await?;
        let Some(reference) = scopes["scopes"][0]["variablesReference"].as_i64() else {
            return Ok(());
        };
        let variables = self
            .client
            .request("variables", json!({ "variablesReference": reference }))
            .await?;
        let members = variables["variables"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["variablesReference"].as_i64().filter(|r| *r > 0));
        for reference in members {
            self.client
                .request("variables", json!({ "variablesReference": reference }))
                .await?;
        }
        Ok(())
    }

    /// Ends the debuggee and the adapter.
    async fn end(self) {
        let _ = self
            .client
            .send("disconnect", json!({ "terminateDebuggee": true }))
            .response_within(Duration::from_secs(5))
            .await;
        self.process.shut_down(Duration::from_secs(2)).await;
        self.client.close("the bench ended the session");
    }
}
