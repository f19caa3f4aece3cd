//! The PHP adapter's state and its answers: DAP requests become DBGp commands, and Xdebug's
//! answers to `run` and the steps become DAP stops. One task owns this (see `server`), so a
//! request is answered completely before the next request or answer is looked at.
//!
//! Xdebug reads no command while the script runs: a command that lets it run is answered when
//! it stops again, and that answer is awaited by the server's loop (`Flow::Running`).

mod breakpoints;
mod values;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::dbgp::connection::CANNOT_EVALUATE;
use super::dbgp::wire::uri_path;
use super::dbgp::{Connection, DbgpError, Element};
use super::launch::{self, Plan};
use super::requests::{Envelope, LaunchArguments, Request, RunCommand};
use crate::adapters::dap_server::RequestError;
use crate::adapters::dap_server::{self, Outbox, ProcessEnd};
use crate::dap::requests::{
    EvaluateArguments, SetExpressionArguments, SetVariableArguments, StackTraceArguments,
    VariablesArguments,
};
use breakpoints::Breakpoints;
use values::{PAGE_SIZE, Reference, References};

/// The one thread of a PHP script: a request is one thread of execution.
const THREAD: i64 = 1;

/// DBGp's contexts: a frame's variables, and the superglobals.
const LOCALS: u32 = 0;
const SUPERGLOBALS: u32 = 1;

/// What the adapter needs beyond a request's arguments.
pub struct Settings {
    /// The `php` run when the program is a script.
    pub php: PathBuf,
    pub launch_timeout: Duration,
}

/// What happened that the server loop must act on.
pub enum Flow {
    Continue,
    /// Connected to Xdebug: its unasked packets (the end of the channel is the connection's),
    /// and PHP's end.
    Connected {
        events: mpsc::Receiver<Element>,
        exit: oneshot::Receiver<Option<ProcessEnd>>,
    },
    /// The script runs until this answer comes.
    Running(oneshot::Receiver<Element>),
    /// The client disconnected: the adapter ends.
    Finish,
}

/// The state of one stop: its frames and the references handed out.
#[derive(Default)]
struct Stop {
    frames: Option<Vec<Element>>,
    references: References,
    /// The exception stopped at, for `exceptionInfo`.
    exception: Option<Thrown>,
}

/// An exception as Xdebug tells it at its stop.
struct Thrown {
    class: String,
    message: String,
}

pub struct Debuggee {
    out: Outbox,
    settings: Settings,
    dbgp: Option<Connection>,
    kill: Option<oneshot::Sender<()>>,
    stop_on_entry: bool,
    breakpoints: Breakpoints,
    stop: Option<Stop>,
    /// What let the script run last, to tell a breakpoint from a step when it stops.
    running: Option<RunCommand>,
}

type Answer = Result<Value, RequestError>;

impl Debuggee {
    pub fn new(out: Outbox, settings: Settings) -> Debuggee {
        Debuggee {
            out,
            settings,
            dbgp: None,
            kill: None,
            stop_on_entry: false,
            breakpoints: Breakpoints::default(),
            stop: None,
            running: None,
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

    fn dbgp(&self) -> Result<Connection, RequestError> {
        self.dbgp.clone().ok_or(RequestError::NotRunning)
    }

    /// The connection, while Xdebug reads commands: before the script's first run, or at a
    /// stop. While it runs, Xdebug would answer nothing until it stops.
    fn stopped_dbgp(&self) -> Result<Connection, RequestError> {
        if self.running.is_some() {
            return Err(RequestError::Failed(
                "Xdebug takes breakpoints only while the script is stopped: set them at a stop, or with 'start -b'".into(),
            ));
        }
        self.dbgp()
    }

    async fn answer(&mut self, request: Request, flow: &mut Flow) -> Answer {
        match request {
            Request::Initialize => Ok(capabilities()),
            Request::Launch(arguments) => {
                *flow = self.launch(&arguments).await?;
                Ok(Value::Null)
            }
            Request::Lines(arguments) => {
                let dbgp = self.stopped_dbgp()?;
                Ok(self.breakpoints.set_lines(&dbgp, &arguments).await?)
            }
            Request::Functions(arguments) => {
                let dbgp = self.stopped_dbgp()?;
                Ok(self
                    .breakpoints
                    .set_functions(&dbgp, &arguments.breakpoints)
                    .await?)
            }
            Request::Exceptions(arguments) => {
                let dbgp = self.stopped_dbgp()?;
                Ok(self.breakpoints.set_exceptions(&dbgp, &arguments).await?)
            }
            Request::ConfigurationDone => {
                let command = if self.stop_on_entry {
                    RunCommand::StepIn
                } else {
                    RunCommand::Continue
                };
                *flow = self.run(command).await?;
                Ok(Value::Null)
            }
            Request::Threads => Ok(json!({ "threads": [{ "id": THREAD, "name": "main" }] })),
            Request::Run(RunCommand::Pause) => Err(RequestError::Failed(
                "Xdebug cannot pause a running script: set a breakpoint instead".into(),
            )),
            Request::Run(command) => {
                if self.stop.is_none() {
                    return Err(RequestError::NotPaused);
                }
                *flow = self.run(command).await?;
                Ok(match command {
                    RunCommand::Continue => json!({ "allThreadsContinued": true }),
                    _ => Value::Null,
                })
            }
            Request::StackTrace(arguments) => self.stack_trace(&arguments).await,
            Request::Scopes(arguments) => {
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                let depth = depth_of(arguments.frame_id)?;
                let locals = stop.references.add(Reference::Context {
                    depth,
                    context: LOCALS,
                });
                let superglobals = stop.references.add(Reference::Context {
                    depth,
                    context: SUPERGLOBALS,
                });
                Ok(json!({ "scopes": [
                    { "name": "Locals", "presentationHint": "locals", "variablesReference": locals, "expensive": false },
                    { "name": "Superglobals", "variablesReference": superglobals, "expensive": true },
                ] }))
            }
            Request::Variables(arguments) => self.variables(&arguments).await,
            Request::Evaluate(arguments) => self.evaluate(&arguments).await,
            Request::SetVariable(arguments) => self.set_variable(&arguments).await,
            Request::SetExpression(arguments) => self.set_expression(&arguments).await,
            Request::ExceptionInfo => {
                let stop = self.stop.as_ref().ok_or(RequestError::NotPaused)?;
                let thrown = stop
                    .exception
                    .as_ref()
                    .ok_or_else(|| RequestError::Failed("no exception at this stop".into()))?;
                Ok(json!({
                    "exceptionId": thrown.class,
                    "description": thrown.message,
                    "breakMode": "always",
                    "details": { "typeName": thrown.class, "message": thrown.message },
                }))
            }
            Request::Disconnect => {
                self.kill();
                *flow = Flow::Finish;
                Ok(Value::Null)
            }
        }
    }

    async fn launch(&mut self, arguments: &LaunchArguments) -> Result<Flow, RequestError> {
        if let Some(address) = &arguments.connect {
            return Err(format!("a PHP script cannot be started through {address}").into());
        }
        let program = arguments
            .program
            .as_deref()
            .ok_or("launch needs a program")?;
        let php_itself = super::is_php_runtime(program);
        let php = match (&arguments.php, php_itself) {
            (_, true) => program.to_path_buf(),
            (Some(php), false) => php.clone(),
            (None, false) => self.settings.php.clone(),
        };
        let env = arguments.env_pairs();
        let launched = launch::launch(
            Plan {
                script: (!php_itself).then_some(program),
                php: &php,
                args: &arguments.args,
                cwd: arguments.cwd.as_deref(),
                env: env.as_deref(),
            },
            self.settings.launch_timeout,
        )
        .await?;
        let pid = launched.child.id();
        let (dbgp, _init, events) = Connection::open(launched.stream).await?;
        let (kill, exit) = dap_server::watch_child(launched.child, self.out.clone());
        self.kill = Some(kill);
        for (feature, value) in [
            ("max_depth", "1".to_string()),
            ("max_children", PAGE_SIZE.to_string()),
            ("max_data", "4096".to_string()),
        ] {
            dbgp.command(
                "feature_set",
                &[("n", feature.to_string()), ("v", value)],
                None,
            )
            .await?;
        }
        self.stop_on_entry = arguments.stop_on_entry;
        self.dbgp = Some(dbgp);
        if let Some(pid) = pid {
            self.out
                .event(
                    "process",
                    json!({ "name": program, "systemProcessId": pid, "isLocalProcess": true, "startMethod": "launch" }),
                )
                .await;
        }
        Ok(Flow::Connected { events, exit })
    }

    /// Lets the script run by `command`, whose answer the server's loop awaits.
    async fn run(&mut self, command: RunCommand) -> Result<Flow, RequestError> {
        let dbgp = self.dbgp()?;
        let Some(name) = command.dbgp() else {
            return Err(RequestError::Unsupported("pause".into()));
        };
        let answer = dbgp.start(name, &[], None).await?;
        self.stop = None;
        self.running = Some(command);
        self.out
            .event(
                "continued",
                json!({ "threadId": THREAD, "allThreadsContinued": true }),
            )
            .await;
        Ok(Flow::Running(answer))
    }

    /// Xdebug answered the command that let the script run: it stopped, or the script has
    /// ended (`stopping`), which is let go so PHP exits.
    pub async fn run_answered(&mut self, answer: Element) -> Option<oneshot::Receiver<Element>> {
        let command = self.running.take();
        if answer.attr("status") != Some("break") {
            let dbgp = self.dbgp.as_ref()?;
            return dbgp.start("run", &[], None).await.ok();
        }
        let mut stop = Stop::default();
        let message = answer.child("message");
        let mut frames = self.frames().await.unwrap_or_default();
        if frames.is_empty()
            && let Some(message) = message
        {
            // An exception nothing caught stops once PHP has left every frame: where it was
            // thrown is the message's.
            frames.push(Element {
                name: "stack".into(),
                attributes: ["filename", "lineno"]
                    .iter()
                    .filter_map(|key| Some((key.to_string(), message.attr(key)?.to_string())))
                    .chain([("where".to_string(), "{main}".to_string())])
                    .collect(),
                ..Element::default()
            });
        }
        let top = frames.first();
        let (reason, ids, text) = match (command, message.and_then(|m| m.attr("exception"))) {
            (_, Some(class)) => {
                let text = message.map(|m| m.text.trim()).unwrap_or_default();
                // PHP's message of an uncaught exception goes on with its trace.
                let text = text.split("\nStack trace:").next().unwrap_or(text);
                let (text, message) = match text.strip_prefix(class) {
                    Some(rest) => (text.to_string(), rest.trim_start_matches(':').trim()),
                    None => (format!("{class}: {text}"), text),
                };
                stop.exception = Some(Thrown {
                    class: class.to_string(),
                    message: message.to_string(),
                });
                ("exception", Vec::new(), Some(text))
            }
            (Some(RunCommand::Continue), None) => {
                let line_hits = top
                    .and_then(|f| {
                        Some((
                            uri_path(f.attr("filename")?)?,
                            f.attr("lineno")?.parse().ok()?,
                        ))
                    })
                    .map(|(file, line)| self.breakpoints.at_line(&file, line))
                    .unwrap_or_default();
                if !line_hits.is_empty() {
                    ("breakpoint", line_hits, None)
                } else {
                    let function_hits = top
                        .and_then(|f| f.attr("where"))
                        .map(|name| self.breakpoints.at_function(name))
                        .unwrap_or_default();
                    ("function breakpoint", function_hits, None)
                }
            }
            (Some(RunCommand::StepIn), None) if self.stop_on_entry => {
                self.stop_on_entry = false;
                ("entry", Vec::new(), None)
            }
            _ => ("step", Vec::new(), None),
        };
        stop.frames = Some(frames);
        self.stop = Some(stop);
        let mut body = json!({
            "reason": reason,
            "threadId": THREAD,
            "allThreadsStopped": true,
        });
        if !ids.is_empty() {
            body["hitBreakpointIds"] = json!(ids);
        }
        if let Some(text) = text {
            body["text"] = json!(text);
        }
        self.out.event("stopped", body).await;
        None
    }

    async fn frames(&self) -> Result<Vec<Element>, RequestError> {
        let stack = self.dbgp()?.command("stack_get", &[], None).await?;
        Ok(stack.children_named("stack").cloned().collect())
    }

    async fn stack_trace(&mut self, arguments: &StackTraceArguments) -> Answer {
        let stop = self.stop.as_ref().ok_or(RequestError::NotPaused)?;
        let frames = match &stop.frames {
            Some(frames) => frames.clone(),
            None => self.frames().await?,
        };
        let start = arguments.start_frame as usize;
        let count = match arguments.levels {
            0 => frames.len(),
            levels => levels as usize,
        };
        let shown: Vec<Value> = frames
            .iter()
            .enumerate()
            .skip(start)
            .take(count)
            .map(|(level, frame)| {
                let mut shown = json!({
                    "id": level + 1,
                    "name": frame.attr("where").unwrap_or("?"),
                    "line": frame.attr("lineno").and_then(|l| l.parse::<u32>().ok()).unwrap_or(0),
                    "column": 1,
                });
                if let Some(path) = frame.attr("filename").and_then(uri_path) {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    shown["source"] = json!({ "name": name, "path": path });
                }
                shown
            })
            .collect();
        Ok(json!({ "stackFrames": shown, "totalFrames": frames.len() }))
    }

    async fn variables(&mut self, arguments: &VariablesArguments) -> Answer {
        let dbgp = self.dbgp()?;
        let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
        let reference = stop
            .references
            .get(arguments.variables_reference)
            .cloned()
            .ok_or(RequestError::VariableGone)?;
        let (properties, depth, context) = match reference {
            Reference::Context { depth, context } => {
                let answer = dbgp
                    .command(
                        "context_get",
                        &[("d", depth.to_string()), ("c", context.to_string())],
                        None,
                    )
                    .await?;
                (
                    answer
                        .children_named("property")
                        .cloned()
                        .collect::<Vec<_>>(),
                    depth,
                    context,
                )
            }
            Reference::Members {
                depth,
                context,
                fullname,
                count,
                ..
            } => {
                let start = arguments.start.unwrap_or(0);
                let end = arguments
                    .count
                    .filter(|&c| c > 0)
                    .map_or(count, |c| (start + c).min(count));
                let mut members = Vec::new();
                let mut page = start / PAGE_SIZE;
                while page * PAGE_SIZE < end.max(1) {
                    let answer = dbgp
                        .command(
                            "property_get",
                            &[
                                ("d", depth.to_string()),
                                ("c", context.to_string()),
                                ("n", fullname.clone()),
                                ("p", page.to_string()),
                            ],
                            None,
                        )
                        .await?;
                    let Some(property) = answer.child("property") else {
                        break;
                    };
                    let before = members.len();
                    members.extend(property.children_named("property").cloned());
                    if members.len() == before {
                        break;
                    }
                    page += 1;
                }
                let skip = usize::try_from(start % PAGE_SIZE).unwrap_or(0);
                let take = usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX);
                (
                    members.into_iter().skip(skip).take(take.max(1)).collect(),
                    depth,
                    context,
                )
            }
            Reference::Given(members) => (members, 0, LOCALS),
        };
        let variables: Vec<Value> = properties
            .iter()
            .map(|p| values::variable(p, depth, context, &mut stop.references))
            .collect();
        Ok(json!({ "variables": variables }))
    }

    async fn evaluate(&mut self, arguments: &EvaluateArguments) -> Answer {
        let dbgp = self.dbgp()?;
        let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
        let depth = match arguments.frame_id {
            Some(frame) => depth_of(frame)?,
            None => 0,
        };
        let expression = arguments.expression.trim();
        let property = if values::is_variable_path(expression) {
            let answer = dbgp
                .command(
                    "property_get",
                    &[
                        ("d", depth.to_string()),
                        ("c", LOCALS.to_string()),
                        ("n", expression.to_string()),
                    ],
                    None,
                )
                .await;
            match answer {
                Ok(answer) => answer.child("property").cloned(),
                Err(DbgpError::Refused { .. }) => None,
                Err(e) => return Err(e.into()),
            }
        } else {
            None
        };
        let property = match property {
            Some(property) => property,
            None => {
                if depth != 0 {
                    return Err(RequestError::Failed(
                        "Xdebug evaluates expressions only in the innermost frame: name a variable (`$x`, `$o->f`, `$a[0]`) to read it in another".into(),
                    ));
                }
                let answer =
                    dbgp.command("eval", &[], Some(expression))
                        .await
                        .map_err(|e| match e {
                            DbgpError::Refused { code, message } if code == CANNOT_EVALUATE => {
                                RequestError::Failed(format!(
                                    "cannot evaluate '{expression}': {message}"
                                ))
                            }
                            other => other.into(),
                        })?;
                answer
                    .child("property")
                    .cloned()
                    .ok_or_else(|| RequestError::Failed(format!("'{expression}' has no value")))?
            }
        };
        let reference = values::members(&property, depth, LOCALS, &mut stop.references);
        Ok(json!({
            "result": values::written(&property),
            "type": values::type_name(&property),
            "variablesReference": reference,
        }))
    }

    async fn set_variable(&mut self, arguments: &SetVariableArguments) -> Answer {
        let stop = self.stop.as_ref().ok_or(RequestError::NotPaused)?;
        let (depth, context, fullname) = match stop.references.get(arguments.variables_reference) {
            Some(Reference::Context { depth, context }) => {
                (*depth, *context, arguments.name.clone())
            }
            Some(Reference::Members {
                depth,
                context,
                fullname,
                array,
                ..
            }) => (
                *depth,
                *context,
                member_path(fullname, *array, &arguments.name),
            ),
            Some(Reference::Given(_)) => {
                return Err("a member of an expression's value cannot be set".into());
            }
            None => return Err(RequestError::VariableGone),
        };
        self.assign(depth, context, &fullname, &arguments.value)
            .await
    }

    async fn set_expression(&mut self, arguments: &SetExpressionArguments) -> Answer {
        let depth = depth_of(arguments.frame_id)?;
        self.assign(depth, LOCALS, arguments.expression.trim(), &arguments.value)
            .await
    }

    /// Sets `fullname` to the PHP expression `value`, and reads it back.
    async fn assign(&mut self, depth: u32, context: u32, fullname: &str, value: &str) -> Answer {
        let dbgp = self.dbgp()?;
        let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
        let place = [
            ("d", depth.to_string()),
            ("c", context.to_string()),
            ("n", fullname.to_string()),
        ];
        let answer = dbgp.command("property_set", &place, Some(value)).await?;
        if answer.attr("success") == Some("0") {
            return Err(format!("cannot set {fullname} to {value}").into());
        }
        let read = dbgp.command("property_get", &place, None).await?;
        let property = read
            .child("property")
            .ok_or_else(|| RequestError::Failed(format!("{fullname} has no value")))?;
        let reference = values::members(property, depth, context, &mut stop.references);
        Ok(json!({
            "value": values::written(property),
            "type": values::type_name(property),
            "variablesReference": reference,
        }))
    }

    /// The script's connection closed: it has ended; PHP's exit follows.
    pub async fn connection_closed(&mut self) {
        self.dbgp = None;
        self.stop = None;
    }

    /// PHP ended: its exit code, and the session's end.
    pub async fn process_exited(&mut self, end: Option<ProcessEnd>) {
        self.dbgp = None;
        self.stop = None;
        self.kill = None;
        if let Some(end) = end {
            self.out
                .event("exited", json!({ "exitCode": end.code }))
                .await;
        }
        self.out.event("terminated", json!({})).await;
    }

    pub fn kill(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
    }
}

/// The DBGp depth of a DAP frame id (ids are depths from 1).
fn depth_of(frame_id: i64) -> Result<u32, RequestError> {
    u32::try_from(frame_id - 1).map_err(|_| RequestError::FrameGone)
}

/// A member's full name from its name in a listing: an array's element by its key, an
/// object's property by its name.
fn member_path(parent: &str, array: bool, name: &str) -> String {
    match array {
        true if !name.is_empty() && name.chars().all(|c| c.is_ascii_digit()) => {
            format!("{parent}[{name}]")
        }
        true => format!("{parent}['{}']", name.replace(['\\', '\''], "")),
        false => format!("{parent}->{name}"),
    }
}

fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsSetVariable": true,
        "supportsSetExpression": true,
        "supportsTerminateRequest": false,
        "supportsExceptionOptions": true,
        "supportsExceptionInfoRequest": true,
        "exceptionBreakpointFilters": [
            { "filter": "all", "label": "Every exception thrown", "default": false },
            { "filter": "uncaught", "label": "Uncaught exceptions", "default": true },
        ],
    })
}
