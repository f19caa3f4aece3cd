//! The node adapter's state and its answers: DAP requests become CDP commands, and CDP events
//! become DAP events. One task owns this (see `server`), so no locking is needed; a request is
//! answered completely before the next one or the next CDP event is looked at, which keeps the
//! order DAP clients expect (the answer to `next` before the `stopped` it causes).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::breakpoints::Breakpoints;
use super::cdp::{Cdp, CdpEvent, DROPPED_CONSOLE_EVENT, Events};
use super::inspector::{self, LaunchPlan};
use super::objects::{array_page, call_argument, exception_message, own_properties, with_preview};
use super::output;
use super::scripts::{Scripts, path_of_url};
use super::server::Outbox;
use super::values;

/// The one thread a Node program shows (workers are separate inspector targets).
const THREAD_ID: i64 = 1;

/// The parameters CommonJS wraps every module in: shown as locals of the top level, they are
/// noise; they are hidden when all five are there.
const MODULE_WRAPPER: [&str; 5] = ["exports", "require", "module", "__filename", "__dirname"];

/// Sets a property of an object (`this`) and returns its new value.
const SET_PROPERTY: &str = "function (name, value) { this[name] = value; return this[name]; }";

/// How long an expression may run before V8 stops it (`print` of an endless loop fails instead of
/// hanging the program and the session).
const EVALUATION_TIMEOUT_MS: u64 = 10_000;

/// How long a running Node may take to open its inspector after SIGUSR1 (it takes milliseconds;
/// when it cannot, e.g. its port is taken, it never will).
const SIGNALLED_INSPECTOR_TIMEOUT: Duration = Duration::from_secs(5);

/// How many times a step may step out of Node's internals before it stops where it is.
const MAX_INTERNAL_STEPS: u32 = 50;

/// Most array elements given when no page was asked for.
const UNPAGED_ARRAY_LIMIT: u64 = 10_000;

/// What the adapter was told to do and how to reach Node.
pub struct Settings {
    pub node: PathBuf,
    pub launch_timeout: Duration,
}

/// What happened that the server loop must act on.
pub enum Flow {
    Continue,
    /// Connected to an inspector: its events, and the launched process's exit.
    Connected {
        events: Events,
        exit: Option<oneshot::Receiver<Option<i32>>>,
    },
    /// The client disconnected: the adapter ends.
    Finish,
}

/// Why the program last stopped, as V8 told it.
struct Paused {
    call_frames: Vec<Value>,
    reason: String,
    data: Value,
}

/// What a DAP `variablesReference` stands for while the program is paused.
enum Handle {
    /// The innermost scopes of a frame shown as one (block scopes and the function's own).
    Locals {
        frame: usize,
        scopes: Vec<(usize, String)>,
        this: Option<Value>,
    },
    /// Another scope of a frame (closure, module, global).
    Scope {
        frame: usize,
        number: usize,
        object_id: String,
    },
    Object {
        frame: Option<usize>,
        object_id: String,
        length: Option<u64>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expecting {
    Nothing,
    Step,
    Pause,
}

pub struct Debuggee {
    out: Outbox,
    settings: Settings,
    cdp: Option<Cdp>,
    /// Ends the Node process we launched.
    kill_node: Option<oneshot::Sender<()>>,
    launched: bool,
    stop_on_entry: bool,
    entry_seen: bool,
    scripts: Scripts,
    breakpoints: Breakpoints,
    paused: Option<Paused>,
    handles: Vec<Handle>,
    expecting: Expecting,
    /// Steps taken on our own to get out of Node's internals since the user's last step.
    internal_steps: u32,
    /// Values set in a frame's scopes while paused: V8's scope objects are snapshots taken at the
    /// stop, so a variable read back from them after `set` would show its old value.
    overrides: HashMap<(usize, String), Value>,
}

type Answer = Result<Value, String>;

impl Debuggee {
    pub fn new(out: Outbox, settings: Settings) -> Debuggee {
        Debuggee {
            out,
            settings,
            cdp: None,
            kill_node: None,
            launched: false,
            stop_on_entry: false,
            entry_seen: false,
            scripts: Scripts::default(),
            breakpoints: Breakpoints::default(),
            paused: None,
            handles: Vec::new(),
            expecting: Expecting::Nothing,
            internal_steps: 0,
            overrides: HashMap::new(),
        }
    }

    /// Answers one DAP request.
    pub async fn handle(&mut self, request: Value) -> Flow {
        let command = request["command"].as_str().unwrap_or_default().to_string();
        let arguments = request.get("arguments").cloned().unwrap_or(Value::Null);
        let mut flow = Flow::Continue;
        let answer = match command.as_str() {
            "initialize" => Ok(capabilities()),
            "launch" => match self.launch(&arguments).await {
                Ok(connected) => {
                    flow = connected;
                    Ok(Value::Null)
                }
                Err(e) => Err(e),
            },
            "attach" => match self.attach(&arguments).await {
                Ok(connected) => {
                    flow = connected;
                    Ok(Value::Null)
                }
                Err(e) => Err(e),
            },
            "disconnect" => {
                self.disconnect(&arguments).await;
                flow = Flow::Finish;
                Ok(Value::Null)
            }
            _ => self.answer(&command, &arguments).await,
        };
        self.out.respond(&request, answer).await;
        if matches!(flow, Flow::Connected { .. }) {
            self.out.event("initialized", json!({})).await;
        }
        flow
    }

    async fn answer(&mut self, command: &str, arguments: &Value) -> Answer {
        match command {
            "setBreakpoints" => self.set_breakpoints(arguments).await,
            "setFunctionBreakpoints" => self.set_function_breakpoints(arguments).await,
            "setExceptionBreakpoints" => self.set_exception_breakpoints(arguments).await,
            "configurationDone" => {
                // A launched program waits at --inspect-brk, and so does an attached one started
                // with it; for any other this does nothing.
                self.cdp()?
                    .call("Runtime.runIfWaitingForDebugger", json!({}))
                    .await?;
                Ok(Value::Null)
            }
            "threads" => Ok(json!({ "threads": [{ "id": THREAD_ID, "name": "main" }] })),
            "continue" => self
                .resume("Debugger.resume", Expecting::Nothing)
                .await
                .map(|_| json!({ "allThreadsContinued": true })),
            "next" => self.resume("Debugger.stepOver", Expecting::Step).await,
            "stepIn" => self.resume("Debugger.stepInto", Expecting::Step).await,
            "stepOut" => self.resume("Debugger.stepOut", Expecting::Step).await,
            "pause" => {
                if self.paused.is_some() {
                    return Ok(Value::Null);
                }
                self.expecting = Expecting::Pause;
                self.cdp()?.call("Debugger.pause", json!({})).await?;
                Ok(Value::Null)
            }
            "stackTrace" => self.stack_trace(arguments),
            "scopes" => self.scopes(arguments),
            "variables" => self.variables(arguments).await,
            "evaluate" => self.evaluate(arguments).await,
            "setVariable" => self.set_variable(arguments).await,
            "exceptionInfo" => self.exception_info(),
            "source" => Err("no source is available for this frame".into()),
            other => Err(format!("the node adapter does not support '{other}'")),
        }
    }

    fn cdp(&self) -> Result<&Cdp, String> {
        self.cdp
            .as_ref()
            .ok_or_else(|| "the program is not running".to_string())
    }

    // ---- starting and ending ------------------------------------------------------------

    async fn launch(&mut self, arguments: &Value) -> Result<Flow, String> {
        if let Some(address) = arguments["connect"].as_str() {
            return Err(format!(
                "a Node program cannot be started through {address}: to debug one that runs there, use 'debugger attach --connect {address}'"
            ));
        }
        let program = arguments["program"]
            .as_str()
            .ok_or("launch needs a program")?;
        let strings = |key: &str| -> Vec<String> {
            arguments[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let args = strings("args");
        let runtime_args = strings("runtimeArgs");
        let env: Option<Vec<(String, String)>> = arguments["env"].as_object().map(|env| {
            env.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        });
        let cwd = arguments["cwd"].as_str().map(PathBuf::from);
        let node = arguments["runtimeExecutable"]
            .as_str()
            .map(PathBuf::from)
            .unwrap_or_else(|| self.settings.node.clone());
        let launched = inspector::launch(
            LaunchPlan {
                node: &node,
                runtime_args: &runtime_args,
                program: std::path::Path::new(program),
                args: &args,
                cwd: cwd.as_deref(),
                env: env.as_deref(),
            },
            self.settings.launch_timeout,
        )
        .await?;
        let pid = launched.child.id();
        let (cdp, events) = Cdp::connect(&launched.websocket).await?;
        let (kill_tx, exit) = output::watch_process(launched, self.out.clone(), cdp.clone());
        self.kill_node = Some(kill_tx);
        self.launched = true;
        if let Some(folder) = std::path::Path::new(program).parent() {
            self.breakpoints.set_source_root(folder);
        }
        self.stop_on_entry = arguments["stopOnEntry"].as_bool().unwrap_or(false);
        self.enable(&cdp).await?;
        self.cdp = Some(cdp);
        if let Some(pid) = pid {
            self.out.event(
                "process",
                json!({ "name": program, "systemProcessId": pid, "isLocalProcess": true, "startMethod": "launch" }),
            ).await;
        }
        Ok(Flow::Connected {
            events,
            exit: Some(exit),
        })
    }

    async fn attach(&mut self, arguments: &Value) -> Result<Flow, String> {
        let timeout = self.settings.launch_timeout;
        let websocket = match (
            arguments["processId"].as_u64(),
            arguments["address"].as_str(),
        ) {
            (_, Some(address)) => inspector::websocket_at(address, timeout).await?,
            (Some(pid), None) => {
                let pid = u32::try_from(pid).map_err(|_| format!("no process has pid {pid}"))?;
                inspector::attach_to_pid(pid, SIGNALLED_INSPECTOR_TIMEOUT).await?
            }
            (None, None) => return Err("attach needs a process id or an inspector address".into()),
        };
        let (cdp, events) = Cdp::connect(&websocket).await?;
        self.enable(&cdp).await?;
        self.cdp = Some(cdp);
        if let Some(pid) = arguments["processId"].as_u64() {
            self.out.event(
                "process",
                json!({ "name": format!("pid {pid}"), "systemProcessId": pid, "isLocalProcess": true, "startMethod": "attach" }),
            ).await;
        }
        Ok(Flow::Connected { events, exit: None })
    }

    /// Turns on what the adapter listens to. The Runtime domain's events are only needed for an
    /// attached program's console output: for a launched one they would double every line it
    /// prints (its stdout is read directly), and make Node send each line over the inspector.
    async fn enable(&self, cdp: &Cdp) -> Result<(), String> {
        if !self.launched {
            cdp.call("Runtime.enable", json!({})).await?;
        }
        cdp.call("Debugger.enable", json!({})).await?;
        // Stepping never stops in Node's own JavaScript (`step` into `require`, `finish` out of
        // the main module): it runs through it to the user's code.
        let _ = cdp
            .call(
                "Debugger.setBlackboxPatterns",
                json!({ "patterns": ["^node:"] }),
            )
            .await;
        // Uncaught exceptions stop unless the client says otherwise in the configuration phase.
        cdp.call(
            "Debugger.setPauseOnExceptions",
            json!({ "state": "uncaught" }),
        )
        .await?;
        Ok(())
    }

    async fn disconnect(&mut self, arguments: &Value) {
        let terminate = arguments["terminateDebuggee"]
            .as_bool()
            .unwrap_or(self.launched);
        if self.launched && terminate {
            self.kill();
            return;
        }
        if let Some(cdp) = self.cdp.take() {
            // Leaving a paused program paused would hang it: let it go first.
            if self.paused.is_some() {
                let _ = cdp.call("Debugger.resume", json!({})).await;
            }
            cdp.close();
        }
        // A launched program left running is no longer ours to end.
        if let Some(kill) = self.kill_node.take() {
            drop(kill);
        }
    }

    /// Ends the Node process we launched, if it still runs.
    pub fn kill(&mut self) {
        if let Some(kill) = self.kill_node.take() {
            let _ = kill.send(());
        }
        if let Some(cdp) = self.cdp.take() {
            cdp.close();
        }
    }

    /// The launched process ended with `code`.
    pub async fn process_exited(&mut self, code: Option<i32>) {
        self.cdp = None;
        self.paused = None;
        self.forget_pause_objects();
        if let Some(code) = code {
            self.out.event("exited", json!({ "exitCode": code })).await;
        }
        self.out.event("terminated", json!({})).await;
    }

    /// The inspector connection closed: for an attached program, the session is over.
    pub async fn inspector_closed(&mut self) {
        self.cdp = None;
        self.paused = None;
        self.forget_pause_objects();
        if !self.launched {
            self.out.event("terminated", json!({})).await;
        }
    }

    // ---- CDP events ---------------------------------------------------------------------

    pub async fn on_event(&mut self, event: CdpEvent) {
        let params = event.params;
        match event.method.as_str() {
            "Debugger.scriptParsed" => self.script_parsed(&params).await,
            "Debugger.breakpointResolved" => {
                let script = params["location"]["scriptId"].as_str().unwrap_or_default();
                let script = self.scripts.get(script).cloned();
                let line = params["location"]["lineNumber"].as_u64().unwrap_or(0) + 1;
                let id = params["breakpointId"].as_str().unwrap_or_default();
                let Some(cdp) = self.cdp.clone() else {
                    return;
                };
                if let Some(breakpoint) = self
                    .breakpoints
                    .resolved(&cdp, id, script.as_ref(), line as u32)
                    .await
                {
                    self.out
                        .event(
                            "breakpoint",
                            json!({ "reason": "changed", "breakpoint": breakpoint }),
                        )
                        .await;
                }
            }
            "Debugger.paused" => self.on_paused(params).await,
            "Debugger.resumed" => {
                self.paused = None;
                self.forget_pause_objects();
            }
            DROPPED_CONSOLE_EVENT => {
                let count = params["count"].as_u64().unwrap_or(0);
                self.out
                    .output(
                        "stderr",
                        &format!("[debugger: {count} console messages dropped: the program logged faster than they could be read]\n"),
                    )
                    .await;
            }
            "Runtime.consoleAPICalled" if !self.launched => {
                // An attached program's stdout is not ours to read: its console calls are.
                let (category, text) = output::console_line(&params);
                self.out
                    .event("output", json!({ "category": category, "output": text }))
                    .await;
            }
            _ => {}
        }
    }

    async fn script_parsed(&mut self, params: &Value) {
        let id = params["scriptId"].as_str().unwrap_or_default();
        let url = params["url"].as_str().unwrap_or_default();
        let Some(script) = self.scripts.add(id, url).cloned() else {
            return;
        };
        let Some(cdp) = self.cdp.clone() else {
            return;
        };
        if let Some(folder) = script.path.as_deref().and_then(|p| p.parent()) {
            // Attached: the first of the program's files names its folder.
            self.breakpoints.adopt_source_root(&cdp, folder).await;
        }
        for breakpoint in self.breakpoints.script_loaded(&cdp, &script).await {
            self.out
                .event(
                    "breakpoint",
                    json!({ "reason": "changed", "breakpoint": breakpoint }),
                )
                .await;
        }
    }

    async fn on_paused(&mut self, params: Value) {
        let reason = params["reason"].as_str().unwrap_or("other").to_string();
        let hit_ids: Vec<String> = params["hitBreakpoints"]
            .as_array()
            .map(|ids| {
                ids.iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let expecting = self.expecting;
        if expecting == Expecting::Step
            && hit_ids.is_empty()
            && reason == "other"
            && self.internal_steps < MAX_INTERNAL_STEPS
            && params["callFrames"]
                .get(0)
                .is_some_and(|frame| self.is_internal(frame))
        {
            // A step that lands in Node's own JavaScript (into `require`, or off the end of the
            // main module) goes on out of it: V8 accepts the blackbox pattern but still stops
            // there.
            self.internal_steps += 1;
            if let Some(cdp) = &self.cdp {
                let _ = cdp.call("Debugger.stepOut", json!({})).await;
            }
            return;
        }
        self.internal_steps = 0;
        let (dap_reason, description, text, dap_ids) = match reason.as_str() {
            // A launched program, or an attached one started with --inspect-brk, waiting at its
            // first line: it goes on unless the user asked to stop there.
            "Break on start" if !self.entry_seen => {
                self.entry_seen = true;
                if !self.stop_on_entry {
                    self.resume_silently().await;
                    return;
                }
                ("entry", None, None, Vec::new())
            }
            "exception" | "promiseRejection" => {
                let text = values::display(&params["data"]);
                let what = if reason == "exception" {
                    "exception"
                } else {
                    "unhandled promise rejection"
                };
                (
                    "exception",
                    Some(format!("Paused on {what}")),
                    Some(text),
                    Vec::new(),
                )
            }
            _ if !hit_ids.is_empty() => {
                let hit = self.breakpoints.hit(&hit_ids);
                if !hit.stop && expecting == Expecting::Nothing {
                    self.resume_silently().await;
                    return;
                }
                if hit.dap_ids.is_empty() {
                    (step_or_pause(expecting), None, None, Vec::new())
                } else {
                    ("breakpoint", None, None, hit.dap_ids)
                }
            }
            _ if expecting != Expecting::Nothing => {
                (step_or_pause(expecting), None, None, Vec::new())
            }
            _ => (
                "breakpoint",
                Some("debugger statement".to_string()),
                None,
                Vec::new(),
            ),
        };
        self.expecting = Expecting::Nothing;
        self.forget_pause_objects();
        self.paused = Some(Paused {
            call_frames: params["callFrames"].as_array().cloned().unwrap_or_default(),
            reason,
            data: params["data"].clone(),
        });
        let mut body = json!({
            "reason": dap_reason,
            "threadId": THREAD_ID,
            "allThreadsStopped": true,
        });
        if let Some(description) = description {
            body["description"] = json!(description);
        }
        if let Some(text) = text {
            body["text"] = json!(text);
        }
        if !dap_ids.is_empty() {
            body["hitBreakpointIds"] = json!(dap_ids);
        }
        self.out.event("stopped", body).await;
    }

    async fn resume_silently(&mut self) {
        if let Some(cdp) = &self.cdp {
            let _ = cdp.call("Debugger.resume", json!({})).await;
        }
    }

    // ---- breakpoints --------------------------------------------------------------------

    async fn set_breakpoints(&mut self, arguments: &Value) -> Answer {
        let path = arguments["source"]["path"]
            .as_str()
            .ok_or("setBreakpoints needs source.path")?;
        let requested = arguments["breakpoints"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let cdp = self.cdp()?.clone();
        let answer = self
            .breakpoints
            .set_lines(&cdp, &self.scripts, &PathBuf::from(path), &requested)
            .await;
        Ok(json!({ "breakpoints": answer }))
    }

    async fn set_function_breakpoints(&mut self, arguments: &Value) -> Answer {
        let requested = arguments["breakpoints"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let cdp = self.cdp()?.clone();
        let answer = self
            .breakpoints
            .set_functions(&cdp, &self.scripts, &requested)
            .await;
        Ok(json!({ "breakpoints": answer }))
    }

    async fn set_exception_breakpoints(&mut self, arguments: &Value) -> Answer {
        let filters: Vec<&str> = arguments["filters"]
            .as_array()
            .map(|f| f.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let state = if filters.contains(&"all") {
            "all"
        } else if filters.contains(&"uncaught") {
            "uncaught"
        } else {
            "none"
        };
        self.cdp()?
            .call("Debugger.setPauseOnExceptions", json!({ "state": state }))
            .await?;
        Ok(Value::Null)
    }

    // ---- execution ----------------------------------------------------------------------

    async fn resume(&mut self, method: &str, expecting: Expecting) -> Answer {
        if self.paused.is_none() {
            return Err("the program is not paused".into());
        }
        self.expecting = expecting;
        self.cdp()?.call(method, json!({})).await?;
        self.paused = None;
        self.forget_pause_objects();
        Ok(Value::Null)
    }

    fn paused(&self) -> Result<&Paused, String> {
        self.paused
            .as_ref()
            .ok_or_else(|| "the program is not paused".to_string())
    }

    /// The frames shown: Node's own internals below the user's code are left out.
    fn shown_frames(&self) -> Result<Vec<(usize, &Value)>, String> {
        let paused = self.paused()?;
        Ok(paused
            .call_frames
            .iter()
            .enumerate()
            .filter(|(index, frame)| *index == 0 || !self.is_internal(frame))
            .collect())
    }

    /// Whether a frame is in Node's own JavaScript (`node:internal/...`).
    fn is_internal(&self, frame: &Value) -> bool {
        let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
        let url = self
            .scripts
            .get(script)
            .map(|s| s.url.as_str())
            .or_else(|| frame["url"].as_str())
            .unwrap_or_default();
        url.starts_with("node:")
    }

    fn stack_trace(&self, arguments: &Value) -> Answer {
        let frames = self.shown_frames()?;
        let start = arguments["startFrame"].as_u64().unwrap_or(0) as usize;
        let levels = arguments["levels"]
            .as_u64()
            .filter(|l| *l > 0)
            .map_or(usize::MAX, |l| l as usize);
        let total = frames.len();
        let stack: Vec<Value> = frames
            .into_iter()
            .skip(start)
            .take(levels)
            .map(|(index, frame)| {
                let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
                let url = self
                    .scripts
                    .get(script)
                    .map(|s| s.url.clone())
                    .or_else(|| frame["url"].as_str().map(str::to_string))
                    .unwrap_or_default();
                let name = match frame["functionName"].as_str() {
                    Some(name) if !name.is_empty() => name.to_string(),
                    _ => "(anonymous)".to_string(),
                };
                let mut shown = json!({
                    "id": index + 1,
                    "name": name,
                    "line": frame["location"]["lineNumber"].as_u64().unwrap_or(0) + 1,
                    "column": frame["location"]["columnNumber"].as_u64().unwrap_or(0) + 1,
                });
                match path_of_url(&url) {
                    Some(path) => {
                        let file = path.file_name().map(|n| n.to_string_lossy().to_string());
                        shown["source"] = json!({ "name": file, "path": path });
                    }
                    None if !url.is_empty() => shown["source"] = json!({ "name": url }),
                    None => {}
                }
                shown
            })
            .collect();
        Ok(json!({ "stackFrames": stack, "totalFrames": total }))
    }

    fn frame(&self, frame_id: &Value) -> Result<(usize, &Value), String> {
        let index = frame_id
            .as_u64()
            .and_then(|id| (id as usize).checked_sub(1))
            .ok_or("no such frame")?;
        let frame = self
            .paused()?
            .call_frames
            .get(index)
            .ok_or("no such frame (the program has moved on)")?;
        Ok((index, frame))
    }

    /// Handles and overrides belong to one pause: the program moved on.
    fn forget_pause_objects(&mut self) {
        self.handles.clear();
        self.overrides.clear();
    }

    fn add_handle(&mut self, handle: Handle) -> i64 {
        self.handles.push(handle);
        self.handles.len() as i64
    }

    fn scopes(&mut self, arguments: &Value) -> Answer {
        let (index, frame) = self.frame(&arguments["frameId"])?;
        let chain = frame["scopeChain"].as_array().cloned().unwrap_or_default();
        let this = frame
            .get("this")
            .filter(|t| t["type"] == "object" && t["subtype"] != "null")
            .filter(|t| !matches!(t["className"].as_str(), Some("global" | "Window")))
            .cloned();
        let object_id = |scope: &Value| scope["object"]["objectId"].as_str().map(str::to_string);
        // The innermost scopes up to and including the function's own (or the module's).
        let mut locals = Vec::new();
        let mut rest_from = 0;
        for (number, scope) in chain.iter().enumerate() {
            let kind = scope["type"].as_str().unwrap_or_default();
            if !matches!(
                kind,
                "block" | "catch" | "with" | "local" | "module" | "eval"
            ) {
                break;
            }
            if let Some(id) = object_id(scope) {
                locals.push((number, id));
            }
            rest_from = number + 1;
            if matches!(kind, "local" | "module") {
                break;
            }
        }
        let mut scopes = Vec::new();
        let reference = self.add_handle(Handle::Locals {
            frame: index,
            scopes: locals,
            this,
        });
        scopes.push(json!({
            "name": "Locals",
            "presentationHint": "locals",
            "variablesReference": reference,
            "expensive": false,
        }));
        for (number, scope) in chain.iter().enumerate().skip(rest_from) {
            let Some(id) = object_id(scope) else {
                continue;
            };
            let kind = scope["type"].as_str().unwrap_or_default();
            let name = match (kind, scope["name"].as_str()) {
                ("closure", Some(of)) if !of.is_empty() => format!("Closure ({of})"),
                ("closure", _) => "Closure".into(),
                ("script", _) => "Script".into(),
                ("module", _) => "Module".into(),
                ("global", _) => "Global".into(),
                ("block", _) => "Block".into(),
                (other, _) => other.to_string(),
            };
            let reference = self.add_handle(Handle::Scope {
                frame: index,
                number,
                object_id: id,
            });
            scopes.push(json!({
                "name": name,
                "variablesReference": reference,
                "expensive": kind == "global",
            }));
        }
        Ok(json!({ "scopes": scopes }))
    }

    fn handle_of(&self, reference: &Value) -> Result<&Handle, String> {
        reference
            .as_u64()
            .and_then(|r| (r as usize).checked_sub(1))
            .and_then(|index| self.handles.get(index))
            .ok_or_else(|| "no such variable (the program has moved on)".to_string())
    }

    async fn variables(&mut self, arguments: &Value) -> Answer {
        let cdp = self.cdp()?.clone();
        let (frame, objects, this, length, is_scope) =
            match self.handle_of(&arguments["variablesReference"])? {
                Handle::Locals {
                    frame,
                    scopes,
                    this,
                } => (
                    Some(*frame),
                    scopes.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>(),
                    this.clone(),
                    None,
                    true,
                ),
                Handle::Scope {
                    frame, object_id, ..
                } => (Some(*frame), vec![object_id.clone()], None, None, true),
                Handle::Object {
                    frame,
                    object_id,
                    length,
                } => (*frame, vec![object_id.clone()], None, *length, false),
            };
        let properties = match length {
            Some(length) => {
                let start = arguments["start"].as_u64().unwrap_or(0);
                let count = arguments["count"]
                    .as_u64()
                    .unwrap_or_else(|| length.min(UNPAGED_ARRAY_LIMIT));
                array_page(&cdp, &objects[0], start, count).await?
            }
            None => {
                let mut all = Vec::new();
                for object in &objects {
                    all.extend(own_properties(&cdp, object).await?);
                }
                all
            }
        };
        let mut seen = std::collections::HashSet::new();
        let mut shown = Vec::new();
        let wrapper = MODULE_WRAPPER
            .iter()
            .all(|name| properties.iter().any(|(n, _)| n == name));
        for (name, value) in properties {
            if !seen.insert(name.clone()) || (wrapper && MODULE_WRAPPER.contains(&name.as_str())) {
                continue;
            }
            let value = match frame.filter(|_| is_scope) {
                Some(frame) => self
                    .overrides
                    .get(&(frame, name.clone()))
                    .cloned()
                    .unwrap_or(value),
                None => value,
            };
            shown.push(self.variable(frame, &name, &value));
        }
        // At a CommonJS module's top level `this` is `module.exports`: noise too.
        if let Some(this) = this.filter(|_| !wrapper) {
            let this = with_preview(&cdp, this).await;
            shown.push(self.variable(frame, "this", &this));
        }
        Ok(json!({ "variables": shown }))
    }

    /// A DAP variable for a value, with a handle when it has children.
    fn variable(&mut self, frame: Option<usize>, name: &str, value: &Value) -> Value {
        let mut variable = json!({
            "name": name,
            "value": values::display(value),
            "type": values::type_name(value),
            "variablesReference": 0,
        });
        self.attach_children(frame, value, &mut variable);
        variable
    }

    fn attach_children(&mut self, frame: Option<usize>, value: &Value, target: &mut Value) {
        if !values::has_children(value) {
            return;
        }
        let Some(object_id) = value["objectId"].as_str() else {
            return;
        };
        let length = values::array_length(value);
        let reference = self.add_handle(Handle::Object {
            frame,
            object_id: object_id.to_string(),
            length,
        });
        target["variablesReference"] = json!(reference);
        if let Some(length) = length {
            target["indexedVariables"] = json!(length);
        }
    }

    /// `Debugger.evaluateOnCallFrame` when paused, `Runtime.evaluate` otherwise.
    async fn evaluate_raw(
        &self,
        expression: &str,
        frame_id: &Value,
    ) -> Result<(Option<usize>, Value), String> {
        let cdp = self.cdp()?.clone();
        let (frame, answer) = match self.paused {
            Some(_) => {
                let frame_id = if frame_id.is_null() {
                    json!(1)
                } else {
                    frame_id.clone()
                };
                let (index, frame) = self.frame(&frame_id)?;
                let call_frame = frame["callFrameId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let answer = cdp
                    .call(
                        "Debugger.evaluateOnCallFrame",
                        json!({
                            "callFrameId": call_frame,
                            "expression": expression,
                            "generatePreview": true,
                            "silent": true,
                            "timeout": EVALUATION_TIMEOUT_MS,
                        }),
                    )
                    .await
                    .map_err(timed_out)?;
                (Some(index), answer)
            }
            None => {
                let answer = cdp
                    .call(
                        "Runtime.evaluate",
                        json!({
                            "expression": expression,
                            "generatePreview": true,
                            "silent": true,
                            "replMode": true,
                            "timeout": EVALUATION_TIMEOUT_MS,
                        }),
                    )
                    .await
                    .map_err(timed_out)?;
                (None, answer)
            }
        };
        if let Some(details) = answer.get("exceptionDetails") {
            return Err(exception_message(details));
        }
        Ok((frame, answer["result"].clone()))
    }

    async fn evaluate(&mut self, arguments: &Value) -> Answer {
        let expression = arguments["expression"]
            .as_str()
            .ok_or("evaluate needs an expression")?;
        let (frame, value) = self.evaluate_raw(expression, &arguments["frameId"]).await?;
        let mut answer = json!({
            "result": values::display(&value),
            "type": values::type_name(&value),
            "variablesReference": 0,
        });
        self.attach_children(frame, &value, &mut answer);
        Ok(answer)
    }

    async fn set_variable(&mut self, arguments: &Value) -> Answer {
        let name = arguments["name"]
            .as_str()
            .ok_or("setVariable needs a name")?;
        let expression = arguments["value"]
            .as_str()
            .ok_or("setVariable needs a value")?;
        let cdp = self.cdp()?.clone();
        // Where the variable lives: a scope of a frame, or an object.
        enum Target {
            Scopes(usize, Vec<(usize, String)>),
            Object(Option<usize>, String),
        }
        let target = match self.handle_of(&arguments["variablesReference"])? {
            Handle::Locals { frame, scopes, .. } => Target::Scopes(*frame, scopes.clone()),
            Handle::Scope {
                frame,
                number,
                object_id,
            } => Target::Scopes(*frame, vec![(*number, object_id.clone())]),
            Handle::Object {
                frame, object_id, ..
            } => Target::Object(*frame, object_id.clone()),
        };
        let frame_of = |frame: Option<usize>| json!(frame.map_or(1, |f| f + 1));
        let new_value = match &target {
            Target::Scopes(frame, _) => {
                self.evaluate_raw(expression, &frame_of(Some(*frame))).await
            }
            Target::Object(frame, _) => self.evaluate_raw(expression, &frame_of(*frame)).await,
        }?
        .1;
        let argument = call_argument(&new_value);
        let (frame, stored) = match target {
            Target::Scopes(frame, scopes) => {
                let mut number = None;
                for (n, object) in &scopes {
                    if own_properties(&cdp, object)
                        .await?
                        .iter()
                        .any(|(p, _)| p == name)
                    {
                        number = Some(*n);
                        break;
                    }
                }
                let number = number.ok_or_else(|| format!("no variable '{name}' in this scope"))?;
                let call_frame = self.frame(&json!(frame + 1))?.1["callFrameId"].clone();
                cdp.call(
                    "Debugger.setVariableValue",
                    json!({
                        "scopeNumber": number,
                        "variableName": name,
                        "newValue": argument,
                        "callFrameId": call_frame,
                    }),
                )
                .await?;
                self.overrides
                    .insert((frame, name.to_string()), new_value.clone());
                (Some(frame), new_value)
            }
            Target::Object(frame, object_id) => {
                let answer = cdp
                    .call(
                        "Runtime.callFunctionOn",
                        json!({
                            "objectId": object_id,
                            "functionDeclaration": SET_PROPERTY,
                            "arguments": [{ "value": name }, argument],
                            "generatePreview": true,
                            "silent": true,
                        }),
                    )
                    .await?;
                if let Some(details) = answer.get("exceptionDetails") {
                    return Err(exception_message(details));
                }
                (frame, answer["result"].clone())
            }
        };
        let mut answer = json!({
            "value": values::display(&stored),
            "type": values::type_name(&stored),
            "variablesReference": 0,
        });
        self.attach_children(frame, &stored, &mut answer);
        Ok(answer)
    }

    fn exception_info(&self) -> Answer {
        let paused = self.paused()?;
        if !matches!(paused.reason.as_str(), "exception" | "promiseRejection") {
            return Err("the program did not stop on an exception".into());
        }
        let error = &paused.data;
        let description = error["description"].as_str().map(str::to_string);
        let type_name = match error["subtype"].as_str() {
            Some("error") => error["className"].as_str().unwrap_or("Error").to_string(),
            _ => values::type_name(error),
        };
        let message = match error["subtype"].as_str() {
            // "TypeError: x is not a function\n    at ..." → "x is not a function"
            Some("error") => {
                let line = values::error_line(
                    description.as_deref().unwrap_or_default(),
                    error["className"].as_str(),
                );
                line.split_once(": ")
                    .map_or(line.as_str(), |(_, message)| message)
                    .to_string()
            }
            _ => values::display(error),
        };
        Ok(json!({
            "exceptionId": type_name,
            "description": message,
            "breakMode": "unhandled",
            "details": {
                "message": message,
                "typeName": type_name,
                "stackTrace": description,
            },
        }))
    }
}

fn step_or_pause(expecting: Expecting) -> &'static str {
    match expecting {
        Expecting::Pause => "pause",
        _ => "step",
    }
}

/// What a DAP client learns in `initialize`.
fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsEvaluateForHovers": true,
        "supportsSetVariable": true,
        "supportsExceptionInfoRequest": true,
        "supportsTerminateRequest": false,
        "exceptionBreakpointFilters": [
            { "filter": "uncaught", "label": "Uncaught exceptions", "default": true },
            { "filter": "all", "label": "All exceptions", "default": false },
        ],
    })
}

/// V8's words for an evaluation stopped by its `timeout`, said plainly.
fn timed_out(error: String) -> String {
    if error.contains("Execution was terminated") {
        format!(
            "the expression did not finish within {} s and was stopped",
            EVALUATION_TIMEOUT_MS / 1000
        )
    } else {
        error
    }
}
