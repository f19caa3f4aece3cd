//! The node adapter's state and its answers: DAP requests become CDP commands, and CDP events
//! become DAP events. The `Debuggee` holds the program's processes (`threads`) and what spans
//! them (the launch, the step or finish under way, the scripts' text); each process owns its
//! pause (`pause`), breakpoints and scripts. One task owns this (see `server`), so no locking is
//! needed; a request is answered completely before the next one or the next CDP event is looked
//! at, which keeps the order DAP clients expect (the answer to `next` before the `stopped` it
//! causes).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::breakpoints::Breakpoints;
use super::cdp::{Cdp, CdpEvent, DROPPED_CONSOLE_EVENT, Events};
use super::children::ChildEvent;
use super::inspector::{self, LaunchPlan};
use super::output;
use super::requests::{
    Answer, AttachArguments, BreakpointRequest, Envelope, LaunchArguments, Request, RunCommand,
};
use super::scripts::Script;
use super::source_maps;
use super::typescript;
use super::values;
use crate::adapters::dap_server::Outbox;
use crate::adapters::dap_server::ProcessEnd;
use crate::adapters::dap_server::RequestError;
use crate::dap::requests::{
    ContinueBody, DisconnectArguments, SetBreakpointsArguments, SetExceptionBreakpointsArguments,
    SetFunctionBreakpointsArguments,
};
use crate::dap::types::{BreakpointsBody, Capabilities, ExceptionBreakpointsFilter};

mod class_names;
mod exceptions;
mod frames;
mod inspection;
mod original_names;
mod pause;
mod returns;
mod script_texts;
mod smart_step;
mod threads;

use class_names::WrittenClasses;
use exceptions::{Sources, exception_state};
use frames::is_internal;
use inspection::Inspection;
use pause::Paused;
use returns::{Finishing, Returned};
use script_texts::ScriptTexts;
use smart_step::{ENTRY_STEP, StepOrigin};
pub use threads::MAIN_THREAD;
use threads::{Expecting, Process, Threads};

/// How long a running Node may take to open its inspector after SIGUSR1 (it takes milliseconds;
/// when it cannot, e.g. its port is taken, it never will).
const SIGNALLED_INSPECTOR_TIMEOUT: Duration = Duration::from_secs(5);

/// How many times a step may step out of Node's internals before it stops where it is.
const MAX_INTERNAL_STEPS: u32 = 50;

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
        exit: Option<oneshot::Receiver<Option<ProcessEnd>>>,
    },
    /// The client disconnected: the adapter ends.
    Finish,
}

pub struct Debuggee {
    out: Outbox,
    settings: Settings,
    /// The program's Node processes, one in focus (see `threads`).
    threads: Threads,
    /// Ends the Node process we launched.
    kill_node: Option<oneshot::Sender<()>>,
    launched: bool,
    stop_on_entry: bool,
    /// Where the step under way began, to take it again by original lines (see `smart_step`).
    step_origin: Option<StepOrigin>,
    /// The finish under way, catching the value its function returns (see `returns`).
    finishing: Option<Finishing>,
    /// Scripts' text as V8 runs it, by id, fetched when a step needs to read it.
    texts: ScriptTexts,
    /// The class names a bundler's map says were written (see `class_names`).
    classes: WrittenClasses,
    /// Where a child's announcement and events go (None once the program is left).
    children: Option<tokio::sync::mpsc::UnboundedSender<ChildEvent>>,
    /// The breakpoint requests so far, in order, replayed in each child.
    breakpoint_requests: Vec<BreakpointRequest>,
    /// Whether `node:assert` is left out of the blackboxed scripts (a test's failed assertion).
    pause_in_assertions: bool,
    /// Whether the launched program is an ES module (see `exceptions`).
    es_module: bool,
}

type Answered = Result<Answer, RequestError>;

impl Debuggee {
    /// `children` is where the events of the program's child processes go (see `threads`).
    pub fn new(
        out: Outbox,
        settings: Settings,
        children: tokio::sync::mpsc::UnboundedSender<ChildEvent>,
    ) -> Debuggee {
        Debuggee {
            out,
            settings,
            threads: Threads::new(),
            kill_node: None,
            launched: false,
            stop_on_entry: false,
            step_origin: None,
            finishing: None,
            texts: ScriptTexts::default(),
            classes: WrittenClasses::default(),
            children: Some(children),
            breakpoint_requests: Vec::new(),
            pause_in_assertions: false,
            es_module: false,
        }
    }
    /// Answers one DAP request.
    pub async fn handle(&mut self, envelope: &Envelope) -> Flow {
        let mut flow = Flow::Continue;
        let answer = match Request::read(&envelope.command, envelope.arguments.clone()) {
            Ok(request) => self.answer(request, &mut flow).await,
            Err(e) => Err(e),
        };
        self.out
            .respond(envelope, answer.and_then(Answer::into_body))
            .await;
        if matches!(flow, Flow::Connected { .. }) {
            self.out.event("initialized", json!({})).await;
        }
        flow
    }

    /// The answer to `request`; `flow` is set when the server loop has something to do.
    async fn answer(&mut self, request: Request, flow: &mut Flow) -> Answered {
        if let Some(thread) = request.thread()
            && !self.threads.focus(thread)
        {
            return Err(RequestError::NoThread(thread));
        }
        match request {
            Request::Breakpoints(request) => {
                // Every process gets them (see `threads`).
                self.remember(&request);
                let focus = self.threads.focus.thread;
                self.threads.focus(MAIN_THREAD);
                let answer = self.set_everywhere(&request).await;
                self.threads.focus(focus);
                answer.map(|answer| match answer {
                    Some(body) => Answer::Breakpoints(body),
                    None => Answer::Done,
                })
            }
            Request::ConfigurationDone => {
                // A launched program waits at --inspect-brk, and so does an attached one started
                // with it; for any other this does nothing.
                self.cdp()?
                    .call("Runtime.runIfWaitingForDebugger", json!({}))
                    .await?;
                Ok(Answer::Done)
            }
            Request::Threads => Ok(Answer::Threads(self.threads.list())),
            Request::Run(RunCommand::Continue, _) => {
                self.resume("Debugger.resume", Expecting::Nothing).await?;
                Ok(Answer::Continue(ContinueBody {
                    all_threads_continued: Some(!self.threads.others_paused()),
                }))
            }
            Request::Run(RunCommand::Next, _) => {
                self.resume("Debugger.stepOver", Expecting::Step).await
            }
            Request::Run(RunCommand::StepIn, _) => {
                self.resume("Debugger.stepInto", Expecting::Step).await
            }
            Request::Run(RunCommand::StepOut, _) => {
                self.resume("Debugger.stepOut", Expecting::Step).await
            }
            Request::Run(RunCommand::Pause, _) => {
                if self.threads.focus.pause.is_paused() {
                    return Ok(Answer::Done);
                }
                self.threads.focus.expecting = Expecting::Pause;
                self.cdp()?.call("Debugger.pause", json!({})).await?;
                Ok(Answer::Done)
            }
            Request::StackTrace(arguments) => {
                let focus = &self.threads.focus;
                Ok(Answer::StackTrace(frames::stack_trace(
                    focus.pause.get()?,
                    &focus.scripts,
                    &arguments,
                )))
            }
            Request::Scopes(arguments) => self
                .threads
                .focus
                .pause
                .scopes(&arguments)
                .map(Answer::Scopes),
            Request::Variables(arguments) => self
                .inspection()?
                .variables(&arguments)
                .await
                .map(Answer::Variables),
            Request::Evaluate(arguments) => self
                .inspection()?
                .evaluate(&arguments)
                .await
                .map(Answer::Evaluate),
            Request::SetVariable(arguments) => self
                .inspection()?
                .set_variable(&arguments)
                .await
                .map(Answer::SetVariable),
            Request::ExceptionInfo(_) => self
                .threads
                .focus
                .pause
                .exception_info()
                .map(Answer::ExceptionInfo),
            Request::Source(arguments) => {
                frames::source(&self.threads.focus.scripts, &arguments).map(Answer::Source)
            }
            Request::Initialize => Ok(Answer::Capabilities(capabilities())),
            Request::Launch(arguments) => {
                *flow = self.launch(&arguments).await?;
                Ok(Answer::Done)
            }
            Request::Attach(arguments) => {
                *flow = self.attach(&arguments).await?;
                Ok(Answer::Done)
            }
            Request::Disconnect(arguments) => {
                self.disconnect(&arguments).await;
                *flow = Flow::Finish;
                Ok(Answer::Done)
            }
        }
    }

    fn cdp(&self) -> Result<&Cdp, RequestError> {
        self.threads
            .focus
            .cdp
            .as_ref()
            .ok_or(RequestError::NotRunning)
    }

    async fn launch(&mut self, arguments: &LaunchArguments) -> Result<Flow, RequestError> {
        if let Some(address) = &arguments.connect {
            return Err(format!(
                "a Node program cannot be started through {address}: to debug one that runs there, use 'debugger attach --connect {address}'"
            )
            .into());
        }
        let program = arguments
            .program
            .as_deref()
            .ok_or("launch needs a program")?;
        let args = arguments.args.clone();
        let mut runtime_args = arguments.runtime_args.clone();
        let program_path = std::path::Path::new(program);
        let node = arguments
            .runtime_executable
            .clone()
            .unwrap_or_else(|| self.settings.node.clone());
        if typescript::is_typescript(program_path) {
            // Ahead of the user's own runtime arguments, so theirs can still override it.
            let version = inspector::version(&node);
            let loader = typescript::loader_args(program_path, version.as_deref())?;
            runtime_args.splice(0..0, loader);
        }
        let env = arguments.env_pairs();
        let cwd = arguments.cwd.clone();
        let stdio = arguments.stdio.clone();
        let extra_env = self.children_environment(env.as_deref()).await;
        let launched = inspector::launch(
            LaunchPlan {
                node: &node,
                runtime_args: &runtime_args,
                program: std::path::Path::new(program),
                args: &args,
                cwd: cwd.as_deref(),
                env: env.as_deref(),
                extra_env: &extra_env,
                stdio: stdio.as_ref(),
            },
            self.settings.launch_timeout,
        )
        .await?;
        let pid = launched.child.id();
        let (cdp, events) = Cdp::connect(&launched.websocket).await?;
        let (kill_tx, exit) = output::watch_process(launched, self.out.clone(), cdp.clone());
        self.kill_node = Some(kill_tx);
        self.launched = true;
        // A script's folder holds the program's sources; a tool's (`npx`, `vitest`, `node`
        // itself: no script extension) does not, and the working directory is the project's.
        let is_script = program_path
            .extension()
            .is_some_and(|e| e != "exe" && !e.is_empty());
        let root = match (is_script, cwd.as_deref()) {
            (false, Some(cwd)) => Some(cwd),
            _ => program_path.parent(),
        };
        if let Some(folder) = root {
            self.threads.focus.breakpoints.set_source_root(folder);
        }
        self.stop_on_entry = arguments.stop_on_entry;
        self.pause_in_assertions = arguments.pause_in_assertions;
        self.es_module = typescript::is_es_module(program_path);
        self.enable(&cdp, self.pause_in_assertions).await?;
        self.threads.focus.cdp = Some(cdp);
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

    /// What the launched Node's environment gets so its child processes are debugged too (see
    /// `children`): nothing when that cannot be set up, and the program runs as it would.
    async fn children_environment(
        &self,
        env: Option<&[(String, String)]>,
    ) -> Vec<(String, String)> {
        let Some(children) = self.children.clone() else {
            return Vec::new();
        };
        let user_options = match env {
            Some(env) => env
                .iter()
                .find(|(k, _)| k == "NODE_OPTIONS")
                .map(|(_, v)| v.clone()),
            None => std::env::var("NODE_OPTIONS").ok(),
        };
        let folder = match crate::common::paths::ensure_runtime_dir() {
            Ok(folder) => folder,
            Err(e) => {
                tracing::warn!("child processes will not be debugged: {}", e.message);
                return Vec::new();
            }
        };
        match super::children::listen(&folder, user_options.as_deref(), children).await {
            Ok(hub) => hub.environment(),
            Err(e) => {
                tracing::warn!("child processes will not be debugged: {e}");
                Vec::new()
            }
        }
    }

    async fn attach(&mut self, arguments: &AttachArguments) -> Result<Flow, RequestError> {
        let timeout = self.settings.launch_timeout;
        let websocket = match (arguments.process_id, arguments.address.as_deref()) {
            (_, Some(address)) => inspector::websocket_at(address, timeout).await?,
            (Some(pid), None) => {
                let pid = u32::try_from(pid).map_err(|_| format!("no process has pid {pid}"))?;
                inspector::attach_to_pid(pid, SIGNALLED_INSPECTOR_TIMEOUT).await?
            }
            (None, None) => return Err("attach needs a process id or an inspector address".into()),
        };
        let (cdp, events) = Cdp::connect(&websocket).await?;
        self.enable(&cdp, false).await?;
        self.threads.focus.cdp = Some(cdp);
        if let Some(pid) = arguments.process_id {
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
    async fn enable(&mut self, cdp: &Cdp, assertions: bool) -> Result<(), RequestError> {
        if !self.launched {
            cdp.call("Runtime.enable", json!({})).await?;
        }
        cdp.call("Debugger.enable", json!({})).await?;
        // Stepping never stops in Node's own JavaScript (`step` into `require`, `finish` out of
        // the main module): it runs through it to the user's code. V8 never pauses on a caught
        // exception thrown there either, so a test's failed assertion (thrown in `node:assert`,
        // caught by the test runner) is seen only when `node:assert` is left out.
        let pattern = if assertions {
            "^node:(?!assert)"
        } else {
            "^node:"
        };
        let _ = cdp
            .call(
                "Debugger.setBlackboxPatterns",
                json!({ "patterns": [pattern] }),
            )
            .await;
        // Uncaught exceptions stop unless the client says otherwise in the configuration phase.
        let (state, rule) = self.exception_state(&["uncaught"]);
        self.threads.focus.exceptions.rule = rule;
        cdp.call("Debugger.setPauseOnExceptions", json!({ "state": state }))
            .await?;
        Ok(())
    }

    async fn disconnect(&mut self, arguments: &DisconnectArguments) {
        self.leave_children().await;
        if self.launched && arguments.terminate_debuggee {
            self.kill();
            return;
        }
        if let Some(cdp) = self.threads.focus.cdp.take() {
            // Leaving a paused program paused would hang it: let it go first.
            if self.threads.focus.pause.is_paused() {
                let _ = cdp.call("Debugger.resume", json!({})).await;
            }
            cdp.close();
        }
        // A launched program left running is no longer ours to end.
        if let Some(kill) = self.kill_node.take() {
            drop(kill);
        }
    }

    /// Lets every child process go on without its debugger (it ends with the launched one).
    async fn leave_children(&mut self) {
        for thread in self.threads.other_threads() {
            self.threads.focus(thread);
            if let Some(cdp) = self.threads.focus.cdp.take() {
                if self.threads.focus.pause.is_paused() {
                    self.threads.focus.pause.resumed();
                    let _ = cdp.call("Debugger.resume", json!({})).await;
                }
                cdp.close();
            }
        }
        self.threads.focus(MAIN_THREAD);
        self.children = None;
    }

    /// Ends the Node process we launched, if it still runs.
    pub fn kill(&mut self) {
        self.threads.focus(MAIN_THREAD);
        self.children = None;
        if let Some(kill) = self.kill_node.take() {
            let _ = kill.send(());
        }
        if let Some(cdp) = self.threads.focus.cdp.take() {
            cdp.close();
        }
    }

    /// The launched process ended with `code`.
    pub async fn process_exited(&mut self, end: Option<ProcessEnd>) {
        self.threads.focus(MAIN_THREAD);
        self.threads.focus.cdp = None;
        self.threads.focus.pause.resumed();
        if let Some(end) = end {
            // `signal` is ours, beside DAP's `exitCode`: the session reads it (see
            // `ExitedEventBody`).
            self.out
                .event(
                    "exited",
                    json!({ "exitCode": end.code, "signal": end.signal }),
                )
                .await;
        }
        self.out.event("terminated", json!({})).await;
    }

    /// The inspector connection closed: for an attached program, the session is over.
    pub async fn inspector_closed(&mut self) {
        self.threads.focus(MAIN_THREAD);
        self.threads.focus.cdp = None;
        self.threads.focus.pause.resumed();
        if !self.launched {
            self.out.event("terminated", json!({})).await;
        }
    }

    pub async fn on_event(&mut self, event: CdpEvent) {
        let params = event.params;
        match event.method.as_str() {
            "Debugger.scriptParsed" => self.script_parsed(&params).await,
            "Debugger.breakpointResolved" => {
                let script = params["location"]["scriptId"].as_str().unwrap_or_default();
                let script = self.threads.focus.scripts.get(script).cloned();
                let line = params["location"]["lineNumber"].as_u64().unwrap_or(0) + 1;
                let column = params["location"]["columnNumber"].as_u64().unwrap_or(0) + 1;
                let id = params["breakpointId"].as_str().unwrap_or_default();
                let Some(cdp) = self.threads.focus.cdp.clone() else {
                    return;
                };
                if let Some(breakpoint) = self
                    .threads
                    .focus
                    .breakpoints
                    .resolved(&cdp, id, script.as_ref(), (line as u32, column as u32))
                    .await
                {
                    self.out.breakpoint_changed(breakpoint).await;
                }
            }
            "Debugger.paused" => self.on_paused(params).await,
            "Debugger.resumed" => {
                self.threads.focus.pause.resumed();
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
        let Some(script) = self.threads.focus.scripts.add(id, url).cloned() else {
            return;
        };
        let map_url = params["sourceMapURL"].as_str().filter(|u| !u.is_empty());
        let script = match (map_url, script.path.clone()) {
            (Some(map_url), Some(path)) => {
                let map_url = map_url.to_string();
                let read = tokio::task::spawn_blocking(move || {
                    let (text, folder) = source_maps::read_map(&map_url, &path)?;
                    source_maps::ScriptMap::parse(&text, folder.as_deref())
                })
                .await;
                match read {
                    Ok(Ok(map)) => self
                        .threads
                        .focus
                        .scripts
                        .set_map(id, std::sync::Arc::new(map)),
                    Ok(Err(e)) => tracing::info!(url, "source map not used: {e}"),
                    Err(e) => tracing::warn!(url, "source map not read: {e}"),
                }
                self.threads
                    .focus
                    .scripts
                    .get(id)
                    .cloned()
                    .unwrap_or(script)
            }
            _ => script,
        };
        self.tell_loaded(&script).await;
        let Some(cdp) = self.threads.focus.cdp.clone() else {
            return;
        };
        if let Some(folder) = script.path.as_deref().and_then(|p| p.parent()) {
            // Attached: the first of the program's files names its folder.
            self.threads
                .focus
                .breakpoints
                .adopt_source_root(&cdp, folder)
                .await;
        }
        for breakpoint in self
            .threads
            .focus
            .breakpoints
            .script_loaded(&cdp, id, &script)
            .await
        {
            self.out.breakpoint_changed(breakpoint).await;
        }
    }

    /// Tells the session a script's file as loaded, and with a source map the files its code
    /// was written in (`loadedSource`, see `LoadedSources::Events`).
    async fn tell_loaded(&self, script: &Script) {
        let originals = script
            .map
            .iter()
            .flat_map(|map| map.sources.iter())
            .filter_map(|source| source.path.as_ref());
        for path in script.path.iter().chain(originals) {
            let name = path.file_name().map(|n| n.to_string_lossy());
            let source = json!({ "name": name, "path": path });
            self.out
                .event("loadedSource", json!({ "reason": "new", "source": source }))
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
        let expecting = self.threads.focus.expecting;
        if expecting == Expecting::Step
            && hit_ids.is_empty()
            && reason == "other"
            && self.threads.focus.internal_steps < MAX_INTERNAL_STEPS
            && params["callFrames"]
                .get(0)
                .is_some_and(|frame| is_internal(&self.threads.focus.scripts, frame))
        {
            // A step that lands in Node's own JavaScript (into `require`, or off the end of the
            // main module) goes on out of it: V8 accepts the blackbox pattern but still stops
            // there.
            self.threads.focus.internal_steps += 1;
            if let Some(cdp) = &self.threads.focus.cdp {
                let _ = cdp.call("Debugger.stepOut", json!({})).await;
            }
            return;
        }
        self.threads.focus.internal_steps = 0;
        if expecting == Expecting::Step
            && let Some(finishing) = &mut self.finishing
            && finishing
                .at_return(self.threads.focus.cdp.as_ref(), &params, &hit_ids)
                .await
        {
            return;
        }
        if reason == "exception" && self.exception_to_skip(&params).await {
            self.resume_silently().await;
            return;
        }
        if expecting == Expecting::Step
            && hit_ids.is_empty()
            && reason == "other"
            && let Some(frames) = params["callFrames"].as_array()
            && let Some(origin) = &mut self.step_origin
            && origin
                .again(
                    self.threads.focus.cdp.as_ref(),
                    &self.threads.focus.scripts,
                    frames,
                )
                .await
        {
            // Not a line the user wrote, or the one the step began on (see `smart_step`).
            return;
        }
        if reason == "instrumentation" || self.threads.focus.breakpoints.only_guards(&hit_ids) {
            // Before a script with a source map runs (or one compiled from a file with
            // breakpoints): its `scriptParsed`, read before this, placed its breakpoints.
            self.resume_silently().await;
            return;
        }
        let (dap_reason, description, text, dap_ids) = match reason.as_str() {
            // A launched program, or an attached one started with --inspect-brk, waiting at its
            // first line: it goes on unless the user asked to stop there.
            "Break on start" if !self.threads.focus.entry_seen => {
                self.threads.focus.entry_seen = true;
                if !self.stop_on_entry {
                    self.resume_silently().await;
                    return;
                }
                if let Some(frames) = params["callFrames"].as_array()
                    && self.step_to_mapped_entry(frames).await
                {
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
                let hit = self.threads.focus.breakpoints.hit(&hit_ids);
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
        // Stepped on from the entry to the first line the user wrote: still the entry stop.
        let dap_reason = match self.end_step().await {
            true if dap_reason == "step" => "entry",
            _ => dap_reason,
        };
        let returned = self.end_finish().await;
        self.threads.focus.expecting = Expecting::Nothing;
        self.threads.focus.pause.stopped(Paused {
            call_frames: params["callFrames"].as_array().cloned().unwrap_or_default(),
            reason,
            data: params["data"].clone(),
            returned: returned.filter(|_| dap_reason == "step"),
        });
        let mut body = json!({
            "reason": dap_reason,
            "threadId": self.threads.focus.thread,
            "allThreadsStopped": self.threads.alone(),
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
        if let Some(cdp) = &self.threads.focus.cdp {
            let _ = cdp.call("Debugger.resume", json!({})).await;
        }
    }

    /// A breakpoint request applied to every process, the launched one (in focus) first. A
    /// breakpoint is reported as one process places it: verified where any process has it.
    /// `setExceptionBreakpoints` is answered without a body.
    async fn set_everywhere(
        &mut self,
        request: &BreakpointRequest,
    ) -> Result<Option<BreakpointsBody>, RequestError> {
        let mut answer = self.set_in_focus(request).await?;
        let threads: Vec<i64> = self.threads.other_threads();
        let home = self.threads.focus.thread;
        for thread in threads {
            self.threads.focus(thread);
            let Ok(theirs) = self.set_in_focus(request).await else {
                continue;
            };
            if let (Some(answer), Some(theirs)) = (&mut answer, &theirs) {
                merge_placed(answer, theirs);
            }
        }
        self.threads.focus(home);
        Ok(answer)
    }

    async fn set_in_focus(
        &mut self,
        request: &BreakpointRequest,
    ) -> Result<Option<BreakpointsBody>, RequestError> {
        match request {
            BreakpointRequest::Lines(arguments) => self.set_breakpoints(arguments).await.map(Some),
            BreakpointRequest::Functions(arguments) => {
                self.set_function_breakpoints(arguments).await.map(Some)
            }
            BreakpointRequest::Exceptions(arguments) => {
                self.set_exception_breakpoints(arguments).await?;
                Ok(None)
            }
        }
    }

    async fn set_breakpoints(
        &mut self,
        arguments: &SetBreakpointsArguments,
    ) -> Result<BreakpointsBody, RequestError> {
        let cdp = self.cdp()?.clone();
        let path = &arguments.source.path;
        let answer = self
            .threads
            .focus
            .breakpoints
            .set_lines(
                &cdp,
                &self.threads.focus.scripts,
                path,
                &arguments.breakpoints,
            )
            .await;
        if Breakpoints::goes_through_source_maps(path) {
            self.wait_for_mapped_scripts(&cdp).await;
        }
        Ok(BreakpointsBody {
            breakpoints: answer,
        })
    }

    /// An ES module (what `tsx` compiles, a bundle) runs the moment it is parsed: V8 is to wait
    /// before each script with a source map runs, so the breakpoints its map calls for are
    /// placed first (`on_paused` resumes it).
    async fn wait_for_mapped_scripts(&mut self, cdp: &Cdp) {
        if !self.threads.focus.instrumented {
            self.threads.focus.instrumented = cdp
                .call(
                    "Debugger.setInstrumentationBreakpoint",
                    json!({ "instrumentation": "beforeScriptWithSourceMapExecution" }),
                )
                .await
                .is_ok();
        }
    }

    async fn set_function_breakpoints(
        &mut self,
        arguments: &SetFunctionBreakpointsArguments,
    ) -> Result<BreakpointsBody, RequestError> {
        let cdp = self.cdp()?.clone();
        let answer = self
            .threads
            .focus
            .breakpoints
            .set_functions(&cdp, &self.threads.focus.scripts, &arguments.breakpoints)
            .await;
        if answer.iter().any(|b| !b.verified) {
            // A bundle that loads later may define it, and call it as it loads (see `mapped_functions`).
            self.wait_for_mapped_scripts(&cdp).await;
        }
        Ok(BreakpointsBody {
            breakpoints: answer,
        })
    }

    async fn set_exception_breakpoints(
        &mut self,
        arguments: &SetExceptionBreakpointsArguments,
    ) -> Result<(), RequestError> {
        let filters: Vec<&str> = arguments.filters.iter().map(String::as_str).collect();
        let (state, rule) = self.exception_state(&filters);
        self.threads.focus.exceptions.rule = rule;
        self.cdp()?
            .call("Debugger.setPauseOnExceptions", json!({ "state": state }))
            .await?;
        Ok(())
    }

    /// A breakpoint request, kept to be replayed in the children that start later.
    fn remember(&mut self, request: &BreakpointRequest) {
        self.breakpoint_requests.push(request.clone());
    }

    /// Handles what the children's side says.
    pub async fn on_child(&mut self, event: ChildEvent) {
        match event {
            ChildEvent::Announced { pid, url, name } => {
                if let Err(e) = self.adopt(pid, &url, name).await {
                    tracing::warn!("child process {pid} not debugged: {e}");
                }
            }
            ChildEvent::Event { thread, event } => self.on_event_of(thread, event).await,
            ChildEvent::Closed { thread } => self.child_closed(thread).await,
        }
    }

    /// An event of `thread`'s process, handled with it in focus; the focus is given back.
    pub async fn on_event_of(&mut self, thread: i64, event: CdpEvent) {
        let before = self.threads.focus.thread;
        if !self.threads.focus(thread) {
            return;
        }
        if thread != MAIN_THREAD && event.method == "Runtime.executionContextDestroyed" {
            // The child has finished and waits for its debugger to leave: leave.
            if let Some(cdp) = &self.threads.focus.cdp {
                cdp.close_when_idle();
            }
        }
        self.on_event(event).await;
        self.threads.focus(before);
    }

    /// Connects to a child waiting for its debugger, gives it the breakpoints, and lets it run.
    async fn adopt(&mut self, pid: u32, url: &str, name: String) -> Result<(), String> {
        let Some(children) = self.children.clone() else {
            return Err("the program has ended".into());
        };
        let (cdp, mut events) = Cdp::connect(url).await?;
        let before = self.threads.focus.thread;
        let thread = self.threads.add(Process {
            name: format!("{name}, pid {pid}"),
            cdp: Some(cdp.clone()),
            entry_seen: true,
            ..Process::default()
        });
        self.threads.focus(thread);
        let set_up = self.set_up_child(&cdp).await;
        self.threads.focus(before);
        if let Err(e) = set_up {
            cdp.close();
            self.threads.remove(thread);
            return Err(e.to_string());
        }
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if children.send(ChildEvent::Event { thread, event }).is_err() {
                    return;
                }
            }
            let _ = children.send(ChildEvent::Closed { thread });
        });
        self.out
            .event("thread", json!({ "reason": "started", "threadId": thread }))
            .await;
        Ok(())
    }

    async fn set_up_child(&mut self, cdp: &Cdp) -> Result<(), RequestError> {
        // Its console output reaches the program's output through its stdio; the Runtime domain
        // is on for `executionContextDestroyed`, which says when it has finished.
        cdp.call("Runtime.enable", json!({})).await?;
        self.enable(cdp, self.pause_in_assertions).await?;
        for request in self.breakpoint_requests.clone() {
            if let Err(e) = self.set_in_focus(&request).await {
                tracing::info!("a child's {} failed: {e}", request.command());
            }
        }
        cdp.call("Runtime.runIfWaitingForDebugger", json!({}))
            .await?;
        Ok(())
    }

    async fn child_closed(&mut self, thread: i64) {
        if self.threads.remove(thread) {
            self.thread_gone(thread).await;
        }
    }

    async fn thread_gone(&self, thread: i64) {
        self.out
            .event("thread", json!({ "reason": "exited", "threadId": thread }))
            .await;
    }

    async fn resume(&mut self, method: &'static str, expecting: Expecting) -> Answered {
        if !self.threads.focus.pause.is_paused() {
            return Err(RequestError::NotPaused);
        }
        self.threads.focus.expecting = expecting;
        match expecting {
            Expecting::Step => {
                self.begin_step(method).await;
                if method == "Debugger.stepOut" {
                    self.begin_finish().await;
                }
            }
            _ => {
                self.end_step().await;
                self.end_finish().await;
            }
        }
        self.cdp()?.call(method, json!({})).await?;
        self.threads.focus.pause.resumed();
        Ok(Answer::Done)
    }

    /// The process in focus as its values are read.
    fn inspection(&mut self) -> Result<Inspection<'_>, RequestError> {
        let focus = &mut self.threads.focus;
        Ok(Inspection {
            cdp: focus.cdp.as_ref().ok_or(RequestError::NotRunning)?,
            pause: &mut focus.pause,
            scripts: &focus.scripts,
            texts: &mut self.texts,
            classes: &mut self.classes,
        })
    }

    /// V8's pause-on-exceptions state for DAP `filters` in the process in focus, and the rule
    /// applied to its pauses.
    fn exception_state(&self, filters: &[&str]) -> (&'static str, exceptions::CaughtRule) {
        let es_module_main = self.es_module && self.threads.focus.thread == MAIN_THREAD;
        exception_state(filters, self.pause_in_assertions, es_module_main)
    }

    /// Whether a pause on an exception is one the user did not ask for.
    async fn exception_to_skip(&mut self, params: &Value) -> bool {
        let focus = &mut self.threads.focus;
        let mut sources = Sources {
            cdp: focus.cdp.as_ref(),
            scripts: &focus.scripts,
            texts: &mut self.texts,
        };
        focus.exceptions.skips(&mut sources, params).await
    }

    /// Remembers where the step `method` begins (the program is paused there).
    async fn begin_step(&mut self, method: &'static str) {
        let focus = &self.threads.focus;
        self.step_origin = match focus.pause.current() {
            Some(paused) => Some(
                StepOrigin::begin(
                    focus.cdp.as_ref(),
                    &paused.call_frames,
                    &focus.scripts,
                    &mut self.texts,
                    method,
                )
                .await,
            ),
            None => None,
        };
    }

    /// Before a finish's step out: catches the value its function returns.
    async fn begin_finish(&mut self) {
        let focus = &self.threads.focus;
        let Some(paused) = focus.pause.current() else {
            return;
        };
        if let Some(finishing) = Finishing::begin(focus.cdp.as_ref(), &paused.call_frames).await {
            self.finishing = Some(finishing);
        }
    }

    /// At a stop: the step is over. Returns whether it was the one from the entry to the first
    /// mapped line.
    async fn end_step(&mut self) -> bool {
        match self.step_origin.take() {
            Some(origin) => origin.end(self.threads.focus.cdp.as_ref()).await,
            None => false,
        }
    }

    /// At a stop or a resume: the finish is over. Returns what the function returned, when the
    /// finish saw it.
    async fn end_finish(&mut self) -> Option<Returned> {
        let finishing = self.finishing.take()?;
        finishing.end(self.threads.focus.cdp.as_ref()).await
    }

    /// At the entry pause of `--stop-on-entry` in unmapped code of a script with a map: steps
    /// on to its first mapped line, which is then the entry stop. Returns whether it stepped.
    async fn step_to_mapped_entry(&mut self, frames: &[Value]) -> bool {
        let focus = &mut self.threads.focus;
        let Some(origin) = StepOrigin::to_mapped_entry(&focus.scripts, frames) else {
            return false;
        };
        let Some(cdp) = focus.cdp.clone() else {
            return false;
        };
        self.step_origin = Some(origin);
        focus.expecting = Expecting::Step;
        cdp.call(ENTRY_STEP, json!({})).await.is_ok()
    }
}

fn step_or_pause(expecting: Expecting) -> &'static str {
    match expecting {
        Expecting::Pause => "pause",
        _ => "step",
    }
}

/// What a DAP client learns in `initialize`.
fn capabilities() -> Capabilities {
    let filter = |filter: &str, label: &str, default: bool| ExceptionBreakpointsFilter {
        filter: filter.to_string(),
        label: Some(label.to_string()),
        description: None,
        default: Some(default),
    };
    Capabilities {
        supports_configuration_done_request: true,
        supports_function_breakpoints: true,
        supports_conditional_breakpoints: true,
        supports_hit_conditional_breakpoints: true,
        supports_evaluate_for_hovers: true,
        supports_set_variable: true,
        supports_exception_info_request: true,
        supports_terminate_request: Some(false),
        exception_breakpoint_filters: Some(vec![
            filter("uncaught", "Uncaught exceptions", true),
            filter("all", "All exceptions", false),
        ]),
        ..Capabilities::default()
    }
}

/// Takes each breakpoint of `theirs` that is verified where `answer`'s is not.
fn merge_placed(answer: &mut BreakpointsBody, theirs: &BreakpointsBody) {
    for (mine, other) in answer.breakpoints.iter_mut().zip(&theirs.breakpoints) {
        if !mine.verified && other.verified {
            *mine = other.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breakpoint_placed_in_any_process_is_verified() {
        let body =
            |value: Value| -> BreakpointsBody { serde_json::from_value(value).unwrap_or_default() };
        let mut answer = body(
            json!({"breakpoints": [{"id": 1, "verified": false}, {"id": 2, "verified": true, "line": 3}]}),
        );
        let theirs = body(
            json!({"breakpoints": [{"id": 1, "verified": true, "line": 9}, {"id": 2, "verified": false}]}),
        );
        merge_placed(&mut answer, &theirs);
        assert_eq!(answer.breakpoints[0].line, Some(9));
        assert_eq!(answer.breakpoints[1].line, Some(3));
    }

    fn written(answer: Answer) -> Value {
        serde_json::to_value(answer).unwrap_or_default()
    }

    /// The typed answers write the JSON the adapter wrote when it built them by hand: the
    /// same keys, none added, and `null` only where it was.
    #[test]
    fn answers_are_written_as_the_session_reads_them() {
        assert_eq!(
            written(Answer::Capabilities(capabilities())),
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
        );
        assert_eq!(
            written(Answer::Threads(Threads::new().list())),
            json!({ "threads": [{ "id": 1, "name": "main" }] })
        );
        assert_eq!(
            written(Answer::Continue(ContinueBody {
                all_threads_continued: Some(true)
            })),
            json!({ "allThreadsContinued": true })
        );
    }

    #[test]
    fn frames_are_written_as_the_session_reads_them() {
        let app = if cfg!(windows) {
            "file:///C:/app/app.js"
        } else {
            "file:///app/app.js"
        };
        let mut scripts = super::super::scripts::Scripts::default();
        scripts.add("9", app);
        scripts.add("3", "node:internal/main");
        let paused = Paused {
            call_frames: vec![
                json!({ "functionName": "accumulate", "location": { "scriptId": "9", "lineNumber": 16, "columnNumber": 4 } }),
                json!({ "functionName": "", "location": { "scriptId": "3", "lineNumber": 0, "columnNumber": 0 } }),
                json!({ "functionName": "f", "location": { "scriptId": "77", "lineNumber": 2, "columnNumber": 0 } }),
            ],
            reason: "other".into(),
            data: Value::Null,
            returned: None,
        };
        let arguments = crate::dap::requests::StackTraceArguments {
            thread_id: 1,
            start_frame: 0,
            levels: 0,
        };
        let path = super::super::urls::path_of_url(app);
        assert_eq!(
            written(Answer::StackTrace(frames::stack_trace(
                &paused, &scripts, &arguments
            ))),
            json!({
                "stackFrames": [
                    { "id": 1, "name": "accumulate", "line": 17, "column": 5,
                      "source": { "name": "app.js", "path": path } },
                    { "id": 2, "name": "(anonymous)", "line": 1, "column": 1,
                      "source": { "name": "node:internal/main" } },
                    { "id": 3, "name": "f", "line": 3, "column": 1 },
                ],
                "totalFrames": 3,
            })
        );
    }

    #[test]
    fn scopes_and_exceptions_are_written_as_the_session_reads_them() {
        let scope = |kind: &str, name: &str, id: &str| json!({ "type": kind, "name": name, "object": { "objectId": id } });
        let mut pause = pause::Pause::default();
        pause.stopped(Paused {
            call_frames: vec![json!({
                "callFrameId": "c0",
                "functionLocation": { "scriptId": "9", "lineNumber": 0, "columnNumber": 0 },
                "this": { "type": "undefined" },
                "scopeChain": [
                    scope("block", "", "B"),
                    scope("local", "f", "L"),
                    scope("closure", "outer", "C"),
                    scope("closure", "", "W"),
                    scope("global", "", "G"),
                ],
            })],
            reason: "exception".into(),
            data: json!({ "type": "object", "subtype": "error", "className": "TypeError" }),
            returned: None,
        });
        let scopes = pause.scopes(&crate::dap::requests::ScopesArguments { frame_id: 1 });
        assert_eq!(
            written(Answer::Scopes(scopes.unwrap_or_default())),
            json!({ "scopes": [
                { "name": "Locals", "presentationHint": "locals", "variablesReference": 1, "expensive": false },
                { "name": "Closure", "variablesReference": 2, "expensive": false },
                { "name": "Global", "variablesReference": 3, "expensive": true },
            ] })
        );
        // An error V8 gives no description of: its stack is `null`, not left out.
        let info = pause.exception_info().unwrap_or_default();
        let (id, message) = (info.exception_id.clone(), info.description.clone());
        assert_eq!(id.as_deref(), Some("TypeError"));
        assert_eq!(
            written(Answer::ExceptionInfo(info)),
            json!({
                "exceptionId": id,
                "description": message,
                "breakMode": "unhandled",
                "details": { "message": message, "typeName": id, "stackTrace": null },
            })
        );
    }
}
