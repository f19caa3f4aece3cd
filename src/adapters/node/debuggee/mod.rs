//! The node adapter's state and its answers: DAP requests become CDP commands, and CDP events
//! become DAP events. This file holds the state and the dispatch; each family of requests is a
//! file of its own (lifecycle, events, breakpoints, execution, inspection). One task owns this (see `server`), so no locking is needed; a request is
//! answered completely before the next one or the next CDP event is looked at, which keeps the
//! order DAP clients expect (the answer to `next` before the `stopped` it causes).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::breakpoints::Breakpoints;
use super::cdp::{Cdp, CdpEvent, DROPPED_CONSOLE_EVENT, Events};
use super::collection_sizes;
use super::error::RequestError;
use super::inspector::{self, LaunchPlan};
use super::objects::{array_page, call_argument, exception_message, own_properties, with_preview};
use super::outbox::Outbox;
use super::output;
use super::requests::{AttachArguments, LaunchArguments};
use super::requests::{BreakpointRequest, Envelope, Request, RunCommand};
use super::scripts::{Script, Scripts};
use super::source_maps;
use super::typescript;
use super::urls::path_of_url;
use super::values;
use crate::dap::requests::{
    DisconnectArguments, EvaluateArguments, ScopesArguments, SetBreakpointsArguments,
    SetExceptionBreakpointsArguments, SetFunctionBreakpointsArguments, SetVariableArguments,
    SourceArguments, StackTraceArguments, VariablesArguments,
};

mod breakpoints;
mod class_names;
mod events;
mod exceptions;
mod execution;
mod inspection;
mod lifecycle;
mod original_names;
mod returns;
mod smart_step;
mod targets;

use super::children::ChildEvent;
use exceptions::CaughtRule;
pub use targets::MAIN_THREAD;
use targets::Target;

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
        exit: Option<oneshot::Receiver<Option<super::output::ProcessEnd>>>,
    },
    /// The client disconnected: the adapter ends.
    Finish,
}

/// Why the program last stopped, as V8 told it.
struct Paused {
    call_frames: Vec<Value>,
    reason: String,
    data: Value,
    /// What the function a finish left returned (see `returns`).
    returned: Option<returns::Returned>,
}

/// What a DAP `variablesReference` stands for while the program is paused.
enum Handle {
    /// The innermost scopes of a frame shown as one (block scopes and the function's own).
    Locals {
        frame: usize,
        scopes: Vec<(usize, String)>,
        this: Option<This>,
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
    /// The value a finish's function returned, the one variable of the top frame's `Return
    /// value` scope.
    Returned(returns::Returned),
}

/// The `this` a frame's locals show.
#[derive(Clone)]
enum This {
    /// The call frame's own.
    Given(Value),
    /// V8 gave none (`undefined`): an arrow function's is the one where it was written, which
    /// V8 leaves out of a nested arrow's call frame but resolves when `this` is evaluated there,
    /// as DevTools' console does.
    Lexical,
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Expecting {
    #[default]
    Nothing,
    Step,
    Pause,
}

pub struct Debuggee {
    out: Outbox,
    settings: Settings,
    /// The Node process in focus: its thread, inspector connection, scripts, breakpoints and
    /// pause (see `targets`; the others wait in `others`).
    focus: Target,
    /// Ends the Node process we launched.
    kill_node: Option<oneshot::Sender<()>>,
    launched: bool,
    stop_on_entry: bool,
    /// Where the step under way began, to take it again by original lines (see `smart_step`).
    step_origin: Option<smart_step::StepOrigin>,
    /// The finish under way, catching the value its function returns (see `returns`).
    finishing: Option<returns::Finishing>,
    /// Scripts' text as V8 runs it, by id, fetched when a step needs to read it.
    script_texts: HashMap<String, std::sync::Arc<str>>,
    /// The class names a bundler's map says were written, by the name V8 gives (see
    /// `class_names`); `None` where it says no other.
    written_classes: HashMap<String, Option<String>>,
    /// The program's other Node processes (its children), out of focus.
    others: Vec<Target>,
    /// The last thread id given to a child.
    next_thread: i64,
    /// Where a child's announcement and events go (None once the program is left).
    children: Option<tokio::sync::mpsc::UnboundedSender<ChildEvent>>,
    /// The breakpoint requests so far, in order, replayed in each child.
    breakpoint_requests: Vec<BreakpointRequest>,
    /// Whether `node:assert` is left out of the blackboxed scripts (a test's failed assertion).
    pause_in_assertions: bool,
    /// Whether the launched program is an ES module (see `exceptions`).
    es_module: bool,
}

type Answer = Result<Value, RequestError>;

impl Debuggee {
    /// `children` is where the events of the program's child processes go (see `targets`).
    pub fn new(
        out: Outbox,
        settings: Settings,
        children: tokio::sync::mpsc::UnboundedSender<ChildEvent>,
    ) -> Debuggee {
        Debuggee {
            out,
            settings,
            focus: Target {
                thread: MAIN_THREAD,
                name: "main".into(),
                ..Target::default()
            },
            kill_node: None,
            launched: false,
            stop_on_entry: false,
            step_origin: None,
            finishing: None,
            script_texts: HashMap::new(),
            written_classes: HashMap::new(),
            others: Vec::new(),
            next_thread: MAIN_THREAD,
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
        self.out.respond(envelope, answer).await;
        if matches!(flow, Flow::Connected { .. }) {
            self.out.event("initialized", json!({})).await;
        }
        flow
    }

    /// The answer to `request`; `flow` is set when the server loop has something to do.
    async fn answer(&mut self, request: Request, flow: &mut Flow) -> Answer {
        if let Some(thread) = request.thread()
            && !self.focus(thread)
        {
            return Err(RequestError::NoThread(thread));
        }
        match request {
            Request::Breakpoints(request) => {
                // Every process gets them (see `targets`).
                self.remember(&request);
                let focus = self.focus.thread;
                self.focus(MAIN_THREAD);
                let answer = self.set_everywhere(&request).await;
                self.focus(focus);
                answer
            }
            Request::ConfigurationDone => {
                // A launched program waits at --inspect-brk, and so does an attached one started
                // with it; for any other this does nothing.
                self.cdp()?
                    .call("Runtime.runIfWaitingForDebugger", json!({}))
                    .await?;
                Ok(Value::Null)
            }
            Request::Threads => Ok(self.threads()),
            Request::Run(RunCommand::Continue, _) => self
                .resume("Debugger.resume", Expecting::Nothing)
                .await
                .map(|_| json!({ "allThreadsContinued": !self.others_paused() })),
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
                if self.focus.paused.is_some() {
                    return Ok(Value::Null);
                }
                self.focus.expecting = Expecting::Pause;
                self.cdp()?.call("Debugger.pause", json!({})).await?;
                Ok(Value::Null)
            }
            Request::StackTrace(arguments) => self.stack_trace(&arguments),
            Request::Scopes(arguments) => self.scopes(&arguments),
            Request::Variables(arguments) => self.variables(&arguments).await,
            Request::Evaluate(arguments) => self.evaluate(&arguments).await,
            Request::SetVariable(arguments) => self.set_variable(&arguments).await,
            Request::ExceptionInfo(_) => self.exception_info(),
            Request::Source(arguments) => self.source(&arguments),
            Request::Initialize => Ok(capabilities()),
            Request::Launch(arguments) => {
                *flow = self.launch(&arguments).await?;
                Ok(Value::Null)
            }
            Request::Attach(arguments) => {
                *flow = self.attach(&arguments).await?;
                Ok(Value::Null)
            }
            Request::Disconnect(arguments) => {
                self.disconnect(&arguments).await;
                *flow = Flow::Finish;
                Ok(Value::Null)
            }
        }
    }

    fn cdp(&self) -> Result<&Cdp, RequestError> {
        self.focus.cdp.as_ref().ok_or(RequestError::NotRunning)
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

/// V8's words for an evaluation stopped by its `timeout` (`timeout_ms`), said in the words the
/// session reads (`evaluation_limits::INTERRUPTED_WORDS`).
fn timed_out(error: String, timeout_ms: u64) -> RequestError {
    if error.contains("Execution was terminated") {
        RequestError::Failed(format!(
            "{} of {} ms",
            crate::adapters::evaluation_limits::INTERRUPTED_WORDS,
            timeout_ms
        ))
    } else {
        RequestError::Failed(error)
    }
}
