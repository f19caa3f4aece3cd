//! The JVM adapter's state and its answers: DAP requests become JDWP commands, and JDWP events
//! become DAP events. One task owns this (see `server`), so a request is answered completely
//! before the next request or event is looked at.
//!
//! Every event the adapter asks for suspends all threads (JDWP's `SUSPEND_ALL`), as jdb does:
//! a stop is then the whole program's, and one `VirtualMachine.Resume` lets it all go.

mod breakpoints;
pub(super) mod conditions;
mod exception_classes;
mod fields;
mod frame_names;
pub mod heap;
mod inspection;
mod returns;
mod smap;
mod sources;
mod stepping;
mod types;
mod watchpoints;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::attach;
use super::heap::JavaValue;
use super::jdwp::commands::Modifier;
use super::jdwp::events::{Event, EventKind, SuspendPolicy};
use super::jdwp::signatures::type_name;
use super::jdwp::{Connection, EventPacket, EventPackets};
use super::launch::{self, Plan, ProgramForm};
use super::requests::{AttachArguments, Envelope, LaunchArguments, Request, RunCommand};
use crate::adapters::dap_server::RequestError;
use crate::adapters::dap_server::{self, Outbox, ProcessEnd};
use crate::dap::requests::{DisconnectArguments, SetExceptionBreakpointsArguments};
use breakpoints::Breakpoints;
use exception_classes::ExceptionClasses;
use inspection::Stop;
use returns::{Finishing, Returned};
use sources::SourcePaths;
use stepping::{StepOutcome, Stepping};
use types::Types;
use watchpoints::{FieldHit, Watchpoints};

/// The exception filters `setExceptionBreakpoints` takes.
pub const EXCEPTION_FILTERS: [(&str, &str); 2] = [
    ("caught", "Caught exceptions"),
    ("uncaught", "Uncaught exceptions"),
];

/// What the adapter needs beyond a request's arguments.
pub struct Settings {
    /// The `java` run when the program does not name one.
    pub java: PathBuf,
    pub launch_timeout: Duration,
}

/// What happened that the server loop must act on.
pub enum Flow {
    Continue,
    /// Connected to a JVM: its events, and the launched process's end (none for a JVM
    /// attached to, whose end is its connection's).
    Connected {
        events: EventPackets,
        exit: Option<oneshot::Receiver<Option<ProcessEnd>>>,
    },
    /// The client disconnected: the adapter ends.
    Finish,
}

/// Why the program stopped, as the `stopped` event tells it.
enum StopReason {
    Entry,
    Breakpoint(Vec<i64>),
    Step,
    Pause,
    Exception {
        exception: u64,
    },
    /// A watched field was read or written.
    Watchpoint(i64),
}

pub struct Debuggee {
    out: Outbox,
    settings: Settings,
    jvm: Option<Connection>,
    kill: Option<oneshot::Sender<()>>,
    /// The JVM runs on its own: we attached to it, and leave it running.
    attached: bool,
    /// The client's configuration is done: a JVM attached to while it waits at its start
    /// (`suspend=y`) may go as soon as it says so.
    configured: bool,
    stop_on_entry: bool,
    /// The thread the program started in (`main`).
    main_thread: Option<u64>,
    types: Types,
    breakpoints: Breakpoints,
    sources: SourcePaths,
    stepping: Stepping,
    exception_requests: Vec<i32>,
    /// Exceptions caught by their class's name.
    exception_classes: ExceptionClasses,
    /// The request for exceptions caught, which stops only where the program's code throws or
    /// catches them (the runtime's own, caught by itself, are its business).
    caught_request: Option<i32>,
    /// The request for exceptions thrown in the program's code and caught, which stop only
    /// when the runtime catches them (see `set_exception_stops`).
    caught_by_runtime_request: Option<i32>,
    /// The last exception stopped at: the same object thrown on by the runtime (the source
    /// launcher rethrows it) does not stop again.
    last_exception: Option<u64>,
    stop: Option<Stop>,
    /// The exception of the last exception stop, for `exceptionInfo`.
    exception: Option<u64>,
    /// The `finish` under way, watching for its method's return.
    finishing: Option<Finishing>,
    watchpoints: Watchpoints,
    /// The object a finish returned, kept from the collector until the program runs on.
    held: Option<u64>,
}

type Answer = Result<Value, RequestError>;

impl Debuggee {
    pub fn new(out: Outbox, settings: Settings) -> Debuggee {
        Debuggee {
            out,
            settings,
            jvm: None,
            kill: None,
            attached: false,
            configured: false,
            stop_on_entry: false,
            main_thread: None,
            types: Types::default(),
            breakpoints: Breakpoints::default(),
            sources: SourcePaths::default(),
            stepping: Stepping::default(),
            exception_requests: Vec::new(),
            exception_classes: ExceptionClasses::default(),
            caught_request: None,
            caught_by_runtime_request: None,
            last_exception: None,
            stop: None,
            exception: None,
            finishing: None,
            held: None,
            watchpoints: Watchpoints::default(),
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

    fn jvm(&self) -> Result<Connection, RequestError> {
        self.jvm.clone().ok_or(RequestError::NotRunning)
    }

    async fn answer(&mut self, request: Request, flow: &mut Flow) -> Answer {
        match request {
            Request::Initialize => Ok(capabilities()),
            Request::Launch(arguments) => {
                *flow = self.launch(&arguments).await?;
                Ok(Value::Null)
            }
            Request::Attach(arguments) => {
                *flow = self.attach(&arguments).await?;
                Ok(Value::Null)
            }
            Request::Lines(arguments) => {
                let jvm = self.jvm()?;
                self.sources.add_named(&arguments.source.path);
                Ok(self
                    .breakpoints
                    .set(&jvm, &mut self.types, &arguments)
                    .await?)
            }
            Request::Functions(arguments) => {
                let jvm = self.jvm()?;
                Ok(self
                    .breakpoints
                    .set_functions(&jvm, &mut self.types, &arguments.breakpoints)
                    .await?)
            }
            Request::Exceptions(arguments) => self.set_exception_stops(&arguments).await,
            Request::FieldInfo(arguments) => {
                let jvm = self.jvm()?;
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                stop.field_info(&jvm, &arguments).await
            }
            Request::Fields(arguments) => {
                let jvm = self.jvm()?;
                Ok(self.watchpoints.set(&jvm, &arguments.breakpoints).await)
            }
            Request::ConfigurationDone => {
                let jvm = self.jvm()?;
                self.configured = true;
                if self.stop_on_entry
                    && let Some(thread) = self.main_thread
                {
                    self.stopped(thread, StopReason::Entry, None).await;
                } else if !self.attached || self.main_thread.is_some() {
                    // A JVM attached to while it runs is not held: a breakpoint it met
                    // meanwhile holds it, and must not be let go here.
                    jvm.resume_all().await?;
                }
                Ok(Value::Null)
            }
            Request::Threads => self.threads().await,
            Request::Run(RunCommand::Continue, _) => {
                self.resume().await?;
                Ok(json!({ "allThreadsContinued": true }))
            }
            Request::Run(RunCommand::Pause, _) => {
                if self.stop.is_some() {
                    return Ok(Value::Null);
                }
                let jvm = self.jvm()?;
                jvm.suspend_all().await?;
                let thread = match self.main_thread {
                    Some(thread) if jvm.frames(thread, 1).await.is_ok_and(|f| !f.is_empty()) => {
                        thread
                    }
                    _ => self.any_thread_with_frames(&jvm).await?,
                };
                self.stopped(thread, StopReason::Pause, None).await;
                Ok(Value::Null)
            }
            Request::Run(command, arguments) => {
                let jvm = self.jvm()?;
                if self.stop.is_none() {
                    return Err(RequestError::NotPaused);
                }
                let thread =
                    u64::try_from(arguments.thread_id).map_err(|_| RequestError::FrameGone)?;
                let depth = match command {
                    RunCommand::StepIn => super::jdwp::commands::StepDepth::Into,
                    RunCommand::StepOut => super::jdwp::commands::StepDepth::Out,
                    _ => super::jdwp::commands::StepDepth::Over,
                };
                if command == RunCommand::StepOut {
                    // Without the method's returns watched, the finish still steps out.
                    self.finishing = Finishing::begin(&jvm, thread).await.ok();
                }
                self.stepping.start(&jvm, thread, depth).await?;
                self.resume().await?;
                Ok(Value::Null)
            }
            Request::StackTrace(arguments) => {
                let jvm = self.jvm()?;
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                stop.stack_trace(&jvm, &mut self.types, &mut self.sources, &arguments)
                    .await
            }
            Request::Scopes(arguments) => self
                .stop
                .as_mut()
                .ok_or(RequestError::NotPaused)?
                .scopes(arguments.frame_id),
            Request::Variables(arguments) => {
                let jvm = self.jvm()?;
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                stop.variables(&jvm, &arguments).await
            }
            Request::Evaluate(arguments) => {
                let jvm = self.jvm()?;
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                stop.evaluate(&jvm, &arguments).await
            }
            Request::SetExpression(arguments) => {
                let jvm = self.jvm()?;
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                stop.set_expression(&jvm, &arguments).await
            }
            Request::SetVariable(arguments) => {
                let jvm = self.jvm()?;
                let stop = self.stop.as_mut().ok_or(RequestError::NotPaused)?;
                stop.set_variable(&jvm, &arguments).await
            }
            Request::ExceptionInfo => self.exception_info().await,
            Request::Disconnect(arguments) => {
                self.disconnect(&arguments).await;
                *flow = Flow::Finish;
                Ok(Value::Null)
            }
        }
    }

    async fn launch(&mut self, arguments: &LaunchArguments) -> Result<Flow, RequestError> {
        if let Some(address) = &arguments.connect {
            return Err(format!(
                "a JVM cannot be started through {address}: to debug one that runs there, use 'debugger attach --connect {address}'"
            )
            .into());
        }
        let program = arguments
            .program
            .as_deref()
            .ok_or("launch needs a program")?;
        // With a class path, the program is its main class's name, whatever it looks like.
        let form = match &arguments.classpath {
            Some(_) => ProgramForm::MainClass(program.to_string_lossy().into_owned()),
            None => ProgramForm::of(program),
        };
        let java = arguments
            .java
            .clone()
            .unwrap_or_else(|| self.settings.java.clone());
        let env = arguments.env_pairs();
        let cwd = arguments.cwd.clone();
        self.add_source_roots(
            &form,
            &arguments.args,
            arguments.classpath.as_deref(),
            cwd.as_deref(),
        );
        let launched = launch::launch(
            Plan {
                form,
                java: &java,
                classpath: arguments.classpath.as_deref(),
                args: &arguments.args,
                cwd: cwd.as_deref(),
                env: env.as_deref(),
                stdio: arguments.stdio.as_ref(),
            },
            self.settings.launch_timeout,
        )
        .await?;
        let pid = launched.child.id();
        let (jvm, events) = Connection::open(launched.stream).await?;
        let (kill, exit) = dap_server::watch_child(launched.child, self.out.clone());
        self.kill = Some(kill);
        self.stop_on_entry = arguments.stop_on_entry;
        self.jvm = Some(jvm);
        if let Some(pid) = pid {
            self.out
                .event(
                    "process",
                    json!({ "name": program, "systemProcessId": pid, "isLocalProcess": true, "startMethod": "launch" }),
                )
                .await;
        }
        Ok(Flow::Connected {
            events,
            exit: Some(exit),
        })
    }

    /// Connects to a JVM whose JDWP agent listens: at the address given, or where the agent
    /// of the process given listens.
    async fn attach(&mut self, arguments: &AttachArguments) -> Result<Flow, RequestError> {
        let timeout = self.settings.launch_timeout;
        let (address, stream) = match (&arguments.address, arguments.process_id) {
            (Some(address), _) => (address.clone(), attach::connect(address, timeout).await?),
            (None, Some(pid)) => attach::reach(pid, &self.settings.java, timeout).await?,
            (None, None) => return Err("attach needs a process id or a JVM's address".into()),
        };
        let (jvm, events) = Connection::shaken(stream)
            .await
            .map_err(|e| format!("no JDWP agent answered at {address}: {e}"))?;
        self.jvm = Some(jvm);
        self.attached = true;
        if let Some(pid) = arguments.process_id {
            self.out
                .event(
                    "process",
                    json!({ "name": format!("pid {pid}"), "systemProcessId": pid, "isLocalProcess": true, "startMethod": "attach" }),
                )
                .await;
        }
        Ok(Flow::Connected { events, exit: None })
    }

    /// The JVM's connection closed: a JVM attached to has ended (or dropped us), and the
    /// session with it; a launched one's end is its process's.
    pub async fn connection_closed(&mut self) {
        if self.attached && self.jvm.take().is_some() {
            self.stop = None;
            self.out.event("terminated", json!({})).await;
        }
    }

    /// Where the program's sources may be: its working directory, its own folder, and the
    /// folders of its class path (`classpath`, else the one in a `java` command line's `args`).
    fn add_source_roots(
        &mut self,
        form: &ProgramForm,
        args: &[String],
        classpath: Option<&str>,
        cwd: Option<&Path>,
    ) {
        let base = cwd.map(Path::to_path_buf).unwrap_or_default();
        if let Some(cwd) = cwd {
            self.sources.add_root(cwd);
        }
        if let ProgramForm::Source(file) | ProgramForm::Jar(file) = form
            && let Some(folder) = file.parent()
        {
            // A jar is built in the project's target/ or build/libs/: the project root is above.
            for up in base.join(folder).ancestors().take(3) {
                self.sources.add_root(up);
            }
        }
        let classpath = classpath.or_else(|| {
            args.iter()
                .zip(args.iter().skip(1))
                .find(|(flag, _)| matches!(flag.as_str(), "-cp" | "-classpath" | "--class-path"))
                .map(|(_, path)| path.as_str())
        });
        for entry in classpath.into_iter().flat_map(std::env::split_paths) {
            let entry = base.join(entry);
            self.sources.add_root(&entry);
            if let Some(parent) = entry.parent() {
                self.sources.add_root(parent);
                // Maven's target/classes, Gradle's build/classes/java/main: the project root.
                for up in parent.ancestors().take(3) {
                    self.sources.add_root(up);
                }
            }
        }
    }

    async fn set_exception_stops(
        &mut self,
        arguments: &SetExceptionBreakpointsArguments,
    ) -> Answer {
        let jvm = self.jvm()?;
        for request in self.exception_requests.drain(..) {
            let _ = jvm.clear_event(EventKind::Exception, request).await;
        }
        self.caught_by_runtime_request = None;
        self.caught_request = None;
        let caught = arguments.filters.iter().any(|f| f == "caught");
        let uncaught = arguments.filters.iter().any(|f| f == "uncaught");
        if caught || uncaught {
            let request = jvm
                .set_event(
                    EventKind::Exception,
                    SuspendPolicy::All,
                    &[Modifier::ExceptionOnly {
                        type_id: 0,
                        caught,
                        uncaught: true,
                    }],
                )
                .await?;
            self.exception_requests.push(request);
            if caught {
                self.caught_request = Some(request);
            }
        }
        if uncaught && !caught {
            // An exception the program does not catch may still be caught by the runtime that
            // called its code (the source launcher's reflective call of `main`, a thread
            // pool): leaving the program's code and caught only in the runtime's, it is
            // uncaught as far as the program goes. It may be thrown in the runtime's code the
            // program called (`Integer.parseInt`), so no thrower is excluded here.
            let filters = [Modifier::ExceptionOnly {
                type_id: 0,
                caught: true,
                uncaught: false,
            }];
            let request = jvm
                .set_event(EventKind::Exception, SuspendPolicy::All, &filters)
                .await?;
            self.exception_requests.push(request);
            self.caught_by_runtime_request = Some(request);
        }
        let classes = exception_classes::chosen(&arguments.exception_options);
        self.exception_classes.set(&jvm, &classes).await?;
        let verified: Vec<Value> = arguments
            .filters
            .iter()
            .chain(&classes)
            .map(|_| json!({ "verified": true }))
            .collect();
        Ok(json!({ "breakpoints": verified }))
    }

    async fn threads(&mut self) -> Answer {
        let jvm = self.jvm()?;
        let mut threads = Vec::new();
        for thread in jvm.all_threads().await? {
            // A thread that ended since the listing is left out.
            if let Ok(name) = jvm.thread_name(thread).await {
                threads.push(json!({ "id": thread, "name": name }));
            }
        }
        Ok(json!({ "threads": threads }))
    }

    async fn any_thread_with_frames(&self, jvm: &Connection) -> Result<u64, RequestError> {
        for thread in jvm.all_threads().await? {
            if jvm.frames(thread, 1).await.is_ok_and(|f| !f.is_empty()) {
                return Ok(thread);
            }
        }
        Err("no thread of the program runs Java code".into())
    }

    async fn resume(&mut self) -> Result<(), RequestError> {
        let jvm = self.jvm()?;
        self.stop = None;
        self.exception = None;
        if let Some(object) = self.held.take() {
            let _ = jvm.enable_collection(object).await;
        }
        jvm.resume_all().await?;
        Ok(())
    }

    /// The program stopped in `thread`; `returned` is what the method a finish left returned.
    async fn stopped(&mut self, thread: u64, reason: StopReason, returned: Option<Returned>) {
        self.stop = Some(Stop::new(thread, returned));
        let mut body = json!({ "threadId": thread, "allThreadsStopped": true });
        let (name, description) = match reason {
            StopReason::Entry => ("entry", None),
            StopReason::Pause => ("pause", None),
            StopReason::Step => ("step", None),
            StopReason::Breakpoint(ids) => {
                body["hitBreakpointIds"] = json!(ids);
                ("breakpoint", None)
            }
            StopReason::Watchpoint(id) => {
                body["hitBreakpointIds"] = json!([id]);
                ("data breakpoint", None)
            }
            StopReason::Exception { exception } => {
                self.exception = Some(exception);
                let text = match self.exception_text(exception).await {
                    Ok((type_name, Some(message))) => format!("{type_name}: {message}"),
                    Ok((type_name, None)) => type_name,
                    Err(_) => "an exception".to_string(),
                };
                body["text"] = json!(text);
                ("exception", Some("Paused on exception".to_string()))
            }
        };
        body["reason"] = json!(name);
        if let Some(description) = description {
            body["description"] = json!(description);
        }
        self.out.event("stopped", body).await;
    }

    /// An exception's class name and its message (`Throwable.detailMessage`), read without
    /// running code in the program.
    async fn exception_text(
        &mut self,
        exception: u64,
    ) -> Result<(String, Option<String>), RequestError> {
        let jvm = self.jvm()?;
        let (_, type_id) = jvm.reference_type(exception).await?;
        let name = type_name(&self.types.signature(&jvm, type_id).await?);
        let message = fields::instance_fields(&jvm, exception, type_id)
            .await?
            .into_iter()
            .find(|(field, _, _)| field == "detailMessage")
            .map(|(_, _, value)| value);
        let message = match message {
            Some(super::jdwp::wire::Value::Object { id, .. }) if id != 0 => {
                Some(jvm.string_value(id).await?)
            }
            _ => None,
        };
        Ok((name, message))
    }

    async fn exception_info(&mut self) -> Answer {
        let exception = self
            .exception
            .ok_or("the program did not stop on an exception")?;
        let (name, message) = self.exception_text(exception).await?;
        Ok(json!({
            "exceptionId": name,
            "description": message,
            "breakMode": "always",
            "details": { "typeName": name, "message": message },
        }))
    }

    /// One event packet from the JVM. One that came during a method's invocation (`print`,
    /// a condition) only binds breakpoints in the classes it loaded: the invoked code does
    /// not stop, and the connection resumed it already.
    pub async fn on_events(&mut self, packet: EventPacket) {
        let Some(jvm) = self.jvm.clone() else {
            return;
        };
        let composite = match jvm.read_events(&packet.data) {
            Ok(composite) => composite,
            Err(e) => {
                tracing::warn!("JDWP: an event packet not understood: {e}");
                return;
            }
        };
        let mut stop: Option<(u64, StopReason)> = None;
        for event in composite.events {
            if packet.during_invocation && !matches!(event, Event::ClassPrepare { .. }) {
                continue;
            }
            match event {
                Event::VmStart { thread } => {
                    self.main_thread = Some(thread);
                    // The JVM waits, suspended, for the configuration to be done; one
                    // attached to whose configuration is done already goes now.
                    if self.attached && self.configured {
                        let _ = jvm.resume_all().await;
                    }
                    return;
                }
                Event::ClassPrepare {
                    request,
                    type_id,
                    signature,
                    ..
                } => {
                    if let Err(e) = self
                        .exception_classes
                        .class_prepared(&jvm, request, type_id, &signature)
                        .await
                    {
                        tracing::warn!("exceptions of {signature} not caught: {e}");
                    }
                    match self
                        .breakpoints
                        .class_prepared(&jvm, &mut self.types, type_id, &signature)
                        .await
                    {
                        Ok(changed) => {
                            for breakpoint in changed {
                                self.out.breakpoint_changed(breakpoint).await;
                            }
                        }
                        Err(e) => tracing::warn!("breakpoints not bound in {signature}: {e}"),
                    }
                }
                Event::Breakpoint {
                    request, thread, ..
                } => {
                    let frame = heap::JdwpHeap::new(jvm.clone(), thread, 0, Default::default());
                    if let Some(id) = self.breakpoints.hit(request, &frame).await {
                        match &mut stop {
                            Some((_, StopReason::Breakpoint(ids))) => ids.push(id),
                            _ => stop = Some((thread, StopReason::Breakpoint(vec![id]))),
                        }
                    }
                }
                Event::SingleStep {
                    request, thread, ..
                } if let Some(id) = self.watchpoints.stepped(&jvm, request).await => {
                    if stop.is_none() {
                        stop = Some((thread, StopReason::Watchpoint(id)));
                    }
                }
                Event::Field {
                    request, thread, ..
                } => {
                    if let FieldHit::Stop(id) =
                        self.watchpoints.field_event(&jvm, request, thread).await
                        && stop.is_none()
                    {
                        stop = Some((thread, StopReason::Watchpoint(id)));
                    }
                }
                Event::SingleStep {
                    request,
                    thread,
                    location,
                } => {
                    let outcome = self
                        .stepping
                        .arrived(&jvm, &mut self.types, request, thread, &location)
                        .await;
                    if outcome == StepOutcome::Stop && stop.is_none() {
                        stop = Some((thread, StopReason::Step));
                    }
                }
                Event::Exception {
                    request,
                    thread,
                    location,
                    exception,
                    catch,
                } => {
                    let stops = self.last_exception != Some(exception)
                        && if Some(request) == self.caught_by_runtime_request {
                            self.catching(&jvm, thread, &location, catch.as_ref())
                                .await
                                .by_runtime_for_the_program()
                        } else if Some(request) == self.caught_request {
                            !self
                                .catching(&jvm, thread, &location, catch.as_ref())
                                .await
                                .runtime_business()
                        } else {
                            true
                        };
                    if stops && stop.is_none() {
                        self.last_exception = Some(exception);
                        stop = Some((thread, StopReason::Exception { exception }));
                    }
                }
                Event::MethodExitWithReturnValue {
                    request,
                    location,
                    value,
                    ..
                } => {
                    if let Some(finishing) = &mut self.finishing {
                        finishing
                            .exited(&jvm, &mut self.types, request, &location, value)
                            .await;
                    }
                }
                Event::VmDeath => return,
                Event::ThreadStart { .. } | Event::ThreadDeath { .. } | Event::Other { .. } => {}
            }
        }
        match stop {
            Some((thread, reason)) => {
                // A breakpoint met on the way ends the step there.
                self.stepping.cancel(&jvm).await;
                let returned = match self.finishing.take() {
                    Some(finishing) => finishing.end(&jvm).await,
                    None => None,
                };
                let object = match &returned {
                    Some(Returned {
                        value: JavaValue::Object(object),
                        ..
                    }) => Some(object.id),
                    _ => None,
                };
                // Only a finish's own stop, back in the caller, shows what it returned.
                let returned = returned.filter(|_| matches!(reason, StopReason::Step));
                match object {
                    Some(object) if returned.is_some() => self.held = Some(object),
                    Some(object) => {
                        let _ = jvm.enable_collection(object).await;
                    }
                    None => {}
                }
                self.stopped(thread, reason, returned).await;
            }
            // Nothing to show (a class loaded, a step goes on): the events suspended the
            // program, which goes on.
            None if composite.suspend != SuspendPolicy::None && !packet.during_invocation => {
                let _ = jvm.resume_all().await;
            }
            None => {}
        }
    }

    /// Where an exception thrown at `thrown` in `thread` is caught (`catch`), told by the
    /// classes of both, and whether it leaves the program's code on its way there.
    async fn catching(
        &mut self,
        jvm: &Connection,
        thread: u64,
        thrown: &super::jdwp::wire::Location,
        catch: Option<&super::jdwp::wire::Location>,
    ) -> Catching {
        let Some(catch) = catch else {
            return Catching::Uncaught;
        };
        let (Ok(thrower), Ok(catcher)) = (
            self.types.signature(jvm, thrown.class).await,
            self.types.signature(jvm, catch.class).await,
        ) else {
            return Catching::Unknown;
        };
        let catcher = type_name(&catcher);
        let leaves_program = if !is_runtime_class(&type_name(&thrower)) {
            true
        } else if is_runtime_class(&catcher) || TEST_CALLERS.contains(&catcher.as_str()) {
            // Thrown in the runtime's code (`Integer.parseInt`): the program's if the program's
            // code called it and does not catch it on the way to the runtime's catch.
            match self.program_frame_before(jvm, thread, catch).await {
                Some(leaves) => leaves,
                None => return Catching::Unknown,
            }
        } else {
            false
        };
        Catching::Caught {
            leaves_program,
            catcher,
        }
    }

    /// Whether one of `thread`'s frames above the one holding `catch` (the thrower's
    /// included) runs the program's code; `None` when the stack cannot be read.
    async fn program_frame_before(
        &mut self,
        jvm: &Connection,
        thread: u64,
        catch: &super::jdwp::wire::Location,
    ) -> Option<bool> {
        let frames = jvm.frames(thread, -1).await.ok()?;
        for frame in frames {
            let at = &frame.location;
            if at.class == catch.class && at.method == catch.method {
                return Some(false);
            }
            let class = self.types.signature(jvm, at.class).await.ok()?;
            if !is_runtime_class(&type_name(&class)) {
                return Some(true);
            }
        }
        Some(false)
    }

    async fn disconnect(&mut self, arguments: &DisconnectArguments) {
        // A JVM attached to is never ended by us: it ran before, and runs after.
        if arguments.terminate_debuggee && !self.attached {
            self.kill();
            return;
        }
        if let Some(jvm) = self.jvm.take() {
            // Leaving: the JVM clears our requests and lets every thread go.
            let _ = jvm.dispose().await;
            jvm.close().await;
        }
        // A program left running is no longer ours to end.
        drop(self.kill.take());
    }

    /// Ends the JVM we launched, if it still runs.
    pub fn kill(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
        self.jvm = None;
    }

    /// The launched JVM ended.
    pub async fn process_exited(&mut self, end: Option<ProcessEnd>) {
        self.jvm = None;
        self.stop = None;
        if let Some(end) = end {
            self.out
                .event(
                    "exited",
                    json!({ "exitCode": end.code, "signal": end.signal }),
                )
                .await;
        }
        self.out.event("terminated", json!({})).await;
    }
}

/// The runtime's own classes, as JDWP's class patterns name them.
const RUNTIME_CLASSES: &[&str] = &["java.*", "jdk.*", "sun.*", "com.sun.*"];

/// The classes through which a test framework calls a test and catches what it throws, so
/// an exception they catch is the test's failure, uncaught as far as the program goes: JUnit's
/// reflective call (on JDK 17 the catch is there; from JDK 18 the runtime's reflection
/// catches first). An exception a test expects (`assertThrows`) is caught elsewhere in JUnit.
const TEST_CALLERS: &[&str] = &["org.junit.platform.commons.util.ReflectionUtils"];

/// Whether a class (by its binary name) is the runtime's own.
fn is_runtime_class(name: &str) -> bool {
    RUNTIME_CLASSES
        .iter()
        .any(|pattern| name.starts_with(pattern.trim_end_matches('*')))
}

/// What the adapter does, told in `initialize`.
fn capabilities() -> Value {
    let filters: Vec<Value> = EXCEPTION_FILTERS
        .iter()
        .map(|(filter, label)| json!({ "filter": filter, "label": label, "default": false }))
        .collect();
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsExceptionInfoRequest": true,
        "supportsExceptionOptions": true,
        "supportsSetVariable": true,
        "supportsSetExpression": true,
        "supportsDataBreakpoints": true,
        "supportsTerminateRequest": false,
        "exceptionBreakpointFilters": filters,
    })
}

/// Where a thrown exception is caught, as the exception filters judge it.
enum Catching {
    Uncaught,
    /// The class of the thrower or of the catcher, or the stack between them, could not be read.
    Unknown,
    Caught {
        /// Thrown by the program's code, or by the runtime's called from the program's code,
        /// which it leaves uncaught on its way to `catcher`.
        leaves_program: bool,
        catcher: String,
    },
}

impl Catching {
    /// Left the program's code uncaught, to be caught by the runtime's (or by a test
    /// framework's call of the test): what the `uncaught` filter means on the JVM. An exception
    /// nobody catches is one too.
    fn by_runtime_for_the_program(&self) -> bool {
        match self {
            Catching::Uncaught => true,
            Catching::Unknown => false,
            Catching::Caught {
                leaves_program,
                catcher,
            } => {
                *leaves_program
                    && (is_runtime_class(catcher) || TEST_CALLERS.contains(&catcher.as_str()))
            }
        }
    }

    /// Thrown and caught in the runtime's code, the program's never between (a class
    /// loader's `ClassNotFoundException`): no business of the program's.
    fn runtime_business(&self) -> bool {
        match self {
            Catching::Caught {
                leaves_program,
                catcher,
            } => !*leaves_program && is_runtime_class(catcher),
            Catching::Uncaught | Catching::Unknown => false,
        }
    }
}
