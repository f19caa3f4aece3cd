//! The event loop: adapter events applied to the shared state the moment they arrive, one
//! function per event.
//!
//! Apart because it runs as its own task, apart from every command: it must keep draining
//! events (the adapter's reader stops when they back up), so nothing here awaits the adapter.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::breakpoints::hit_breakpoints;
use super::{Shared, brief_stop, failure_stops, liveness, loaded_sources};
use crate::daemon::breakpoints as registry;
use crate::daemon::logpoints;
use crate::daemon::run_state::{Phase, StopInfo};
use crate::dap::DapClient;
use crate::dap::events::{Event, OutputEvent};
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::dap::types::{BreakpointEventBody, ExitedEventBody, ProcessEventBody, StoppedEventBody};
use crate::ipc::protocol::StopReason;
use crate::platform;

/// Lines of the adapter's own console/stderr output kept for the report of its death.
const ADAPTER_LOG_TAIL: usize = 20;

/// Applies adapter events to the shared state the moment they arrive.
pub(super) async fn handle_events(mut events: mpsc::Receiver<Event>, shared: Arc<Shared>) {
    let dap = shared.link.dap();
    while let Some(event) = events.recv().await {
        // Their own tasks: this one must keep draining events while they wait for the
        // adapter's answers (the adapter's reader stops when events back up).
        match apply_event(&shared, event) {
            Some(FollowUp::Logpoints(hit)) => {
                tokio::spawn(logpoints::emulate(dap.clone(), shared.clone(), hit));
            }
            Some(FollowUp::Failure(stop, thread)) => {
                let (dap, shared) = (dap.clone(), shared.clone());
                tokio::spawn(async move {
                    if !failure_stops::ran_on(&dap, &stop, thread).await {
                        let reason = stop.reason.clone();
                        publish(&shared, stop, reason, thread);
                    }
                });
            }
            Some(FollowUp::AskExitSignal(expression)) => {
                tokio::spawn(ask_exit_signal(dap.clone(), shared.clone(), expression));
            }
            Some(FollowUp::WatchProgram(pid)) => {
                tokio::spawn(liveness::watch(Arc::downgrade(&shared), pid));
            }
            None => {}
        }
    }
    // No more messages will be read: an adapter still running (it broke the protocol) goes.
    shared.link.process().kill();
    // Nothing can use the program's channels and build now; a dead adapter's session may yet
    // wait a grace period for a `stop`.
    shared.program.release();
    if shared.program.is_ending() {
        // We ended the session: `end()` settled the output, which a restart may already have
        // reopened for the next run.
        return;
    }
    shared.output.finish();
    // The adapter is gone. Unless the program had already ended, that is a death to report.
    let mut detail = dap
        .closed_reason()
        .unwrap_or_else(|| "the debug adapter closed its connection".into());
    let log = shared.adapter_log.lock().unwrap_or_else(|p| p.into_inner());
    if !log.is_empty() && !detail.contains("stderr") {
        let lines: Vec<&str> = log.iter().map(String::as_str).collect();
        detail.push_str("; its last output:\n  ");
        detail.push_str(&lines.join("\n  "));
    }
    drop(log);
    shared
        .run
        .set_if(Phase::AdapterDied { detail }, |s| !s.phase.is_ended());
}

/// What an event leaves to do that needs the adapter's answers.
enum FollowUp {
    /// Logpoint hits to emulate (the program is stopped, and nobody is told).
    Logpoints(logpoints::Hit),
    /// A stop at a test's failure function, told once judged (the program is stopped, and
    /// nobody is told yet), with the thread the event named.
    Failure(StopInfo, Option<i64>),
    /// The program ended, and this expression tells whether a signal killed it.
    AskExitSignal(&'static str),
    /// The launched program has this pid: watch for a death its adapter may not tell.
    WatchProgram(u32),
}

/// Applies one event; returns what is left to do that needs the adapter.
fn apply_event(shared: &Shared, event: Event) -> Option<FollowUp> {
    if matches!(
        event,
        Event::Initialized | Event::Stopped(_) | Event::Process(_) | Event::Exited(_)
    ) {
        crate::common::timeline::mark(format_args!("event {}", event.name()));
    }
    match event {
        Event::Initialized => shared.initialized.notify_one(),
        Event::Stopped(body) => return on_stopped(shared, body),
        Event::Continued => on_continued(shared),
        Event::Exited(body) => return on_exited(shared, body),
        Event::Terminated => on_terminated(shared),
        Event::Output(output) => on_output(shared, output),
        Event::Breakpoint(body) => on_breakpoint(shared, body),
        Event::LoadedSource(body) => loaded_sources::on_loaded_source(shared, body),
        Event::Process(body) => {
            let launched = body.and_then(|body| on_process(shared, body));
            shared.process_reported.notify_one();
            return launched.map(FollowUp::WatchProgram);
        }
        Event::Other { event, .. } => tracing::debug!(event, "event ignored"),
    }
    None
}

/// A stop: told as the user's, or absorbed (a secondary thread's event, a brief pause nobody
/// sees), or a logpoint to emulate or a failure function's stop to judge, which is returned.
fn on_stopped(shared: &Shared, body: StoppedEventBody) -> Option<FollowUp> {
    // What the program printed up to the stop is all there is for now: show it.
    shared.program.take_output();
    shared.output.flush_partial();
    if body.preserve_focus_hint {
        // One stop of the process comes as one event per thread that has a reason; the
        // adapter marks all but the focus thread's "preserve focus". Treating those as
        // stops of their own would move the selection, and one arriving late (after our
        // next resume) would pass for a new stop.
        tracing::debug!(thread = ?body.thread_id, "secondary stopped event ignored");
        return None;
    }
    if brief_stop::absorbs(shared, &body) {
        return None;
    }
    // A stop on a condition that failed is the breakpoint's (Delve calls it a runtime error).
    let condition_failure = (shared.link.adapter().profile().conditions.failure_in_stop)(&body);
    let body = match condition_failure {
        Some(_) => StoppedEventBody {
            reason: "breakpoint".into(),
            description: None,
            text: None,
            ..body
        },
        None => body,
    };
    // DAP's "function breakpoint" is a breakpoint to the user, as lldb-dap reports it,
    // and a "data breakpoint" is a watchpoint.
    let mut reason = match body.reason.as_str() {
        "function breakpoint" => StopReason::Breakpoint,
        "data breakpoint" => StopReason::Watchpoint,
        // lldb-dap 19 calls a watchpoint hit a breakpoint, "watchpoint N" in its
        // description.
        "breakpoint"
            if body
                .description
                .as_deref()
                .is_some_and(|d| d.starts_with("watchpoint ")) =>
        {
            StopReason::Watchpoint
        }
        reason => StopReason::from(reason),
    };
    // GDB reports a caught exception as a breakpoint stop on its exception breakpoint.
    let exception = (reason == StopReason::Breakpoint)
        .then(|| shared.exception_breakpoint_hit(&body.hit_breakpoint_ids))
        .flatten();
    let description = match exception {
        Some(label) => {
            reason = StopReason::Exception;
            Some(label)
        }
        None if (shared.link.adapter().profile().is_exec_stop)(
            reason.as_str(),
            body.description.as_deref(),
        ) =>
        {
            // The process now runs another program: the report names it, as the adapter's
            // "entry" would say the program started over.
            reason = StopReason::Exec;
            let pid = shared.program.facts().pid;
            pid.and_then(platform::executable_of)
                .map(|program| program.display().to_string())
        }
        None => body.description,
    };
    let stop = StopInfo {
        reason: reason.clone(),
        description,
        text: body.text,
        thread_id: body.thread_id,
        hit_breakpoint_ids: body.hit_breakpoint_ids,
        signal: None,
        condition_failure,
    };
    let ends_a_step = shared.run.step_ended();
    let mut logged = None;
    if reason == StopReason::Breakpoint
        && let Some(thread_id) = stop.thread_id
    {
        let hit = hit_breakpoints(shared, &stop);
        shared.breakpoints.registry().mark_hit(&hit);
        if let Some(messages) = shared.breakpoints.registry().emulated_logpoints(&hit) {
            let hit = logpoints::Hit {
                thread_id,
                messages,
                resume: !ends_a_step,
            };
            if hit.resume {
                return Some(FollowUp::Logpoints(hit));
            }
            // The user's step ended on a logpoint's line: it logs, and the stop is the
            // step's.
            reason = StopReason::Step;
            logged = Some(hit);
        }
    }
    let hit = hit_breakpoints(shared, &stop);
    if reason == StopReason::Breakpoint && shared.breakpoints.registry().all_internal(&hit) {
        // The session's own breakpoint, on a test's failure function: told as the failure,
        // once it is judged one (see `failure_stops`).
        let stop = StopInfo {
            reason: StopReason::Failure,
            description: None,
            hit_breakpoint_ids: Vec::new(),
            ..stop
        };
        return Some(FollowUp::Failure(stop, body.thread_id));
    }
    let stop = if logged.is_some() {
        StopInfo {
            description: None,
            hit_breakpoint_ids: Vec::new(),
            ..stop
        }
    } else {
        stop
    };
    publish(shared, stop, reason, body.thread_id);
    logged.map(FollowUp::Logpoints)
}

/// Makes `stop` the session's: the state every command sees and waits for.
fn publish(shared: &Shared, stop: StopInfo, reason: StopReason, thread: Option<i64>) {
    // GDB stops on entry at a temporary breakpoint of its own (`start`), which is none
    // of the user's.
    let entry_expected = shared.run.entry_expected();
    let unclaimed_breakpoint = entry_expected
        && reason == StopReason::Breakpoint
        && hit_breakpoints(shared, &stop).is_empty();
    let interrupt = unclaimed_breakpoint
        || (shared.link.adapter().profile().is_interrupt_stop)(
            reason.as_str(),
            stop.description.as_deref(),
        );
    let mut reason = shared.run.interrupt_answered(interrupt, reason);
    shared.view().stopped(thread);
    // lldb-dap tells a signal as an exception, "signal SIGSEGV: address not mapped...".
    let signal = stop
        .description
        .as_deref()
        .and_then(signal_in_description)
        .filter(|_| matches!(reason, StopReason::Exception | StopReason::Signal));
    if signal.is_some() {
        reason = StopReason::Signal;
    }
    shared.program.facts().stopped_on_signal = signal;
    shared.run.set(Phase::Stopped(StopInfo {
        reason,
        signal,
        ..stop
    }));
}

/// The program runs again: the stack cached for the last stop is stale.
fn on_continued(shared: &Shared) {
    shared.view().caches.frames = None;
    shared
        .run
        .set_if(Phase::Running, |s| matches!(s.phase, Phase::Stopped(_)));
}

/// The signal a stop's description names first ("signal SIGSEGV: address not mapped").
fn signal_in_description(description: &str) -> Option<i32> {
    let name = description.strip_prefix("signal ")?;
    let end = name
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(name.len());
    crate::platform::signal_number(&name[..end])
}

/// The program exited, with its code; or a signal killed it, which the adapter may have to be
/// asked about (returned as the follow-up). An end the adapter's dead helper made up is told as
/// the adapter's death instead (see `Shared::lost_by_adapter`).
fn on_exited(shared: &Shared, body: Option<ExitedEventBody>) -> Option<FollowUp> {
    shared.program.take_output();
    // The adapter's death was seen first (the program watch found its helper gone): the exit
    // it reports after is that death's echo, not news.
    if matches!(shared.run.get().phase, Phase::AdapterDied { .. })
        || shared.lost_by_adapter(body.as_ref().map(|body| body.exit_code))
    {
        return None;
    }
    shared.run.forget_brief_stop();
    shared.program.facts().gone = true;
    if shared.program.is_ending() {
        // The session's own end killed the program (`stop`, `restart`, the daemon's end): the
        // code the adapter gives that kill (lldb-dap: the signal's number, 9) is no exit of the
        // program's own.
        shared.run.set_if(
            Phase::Exited {
                exit_code: None,
                signal: None,
            },
            |s| !s.phase.is_ended(),
        );
        shared.program_ended();
        return None;
    }
    let mut follow_up = None;
    if let Some(body) = body {
        let code = body.exit_code;
        let mut facts = shared.program.facts();
        // An adapter that gives a signal's number as the code, after a stop on that signal:
        // the death by it.
        let reporting = shared.link.adapter().profile().signals;
        let signal = body
            .signal
            .or_else(|| {
                facts
                    .stopped_on_signal
                    .filter(|signal| reporting.signal_as_exit_code && i64::from(*signal) == code)
            })
            .or_else(|| {
                (reporting.signal_as_negative_code && (-64..0).contains(&code))
                    .then(|| i32::try_from(-code).ok())
                    .flatten()
            })
            .or_else(|| match facts.logged_end {
                Some(crate::adapters::LoggedEnd::Signal(signal)) => Some(signal),
                _ => None,
            })
            .or_else(|| {
                let stopped = matches!(shared.run.get().phase, Phase::Stopped(_));
                (stopped
                    && crate::platform::Os::CURRENT == crate::platform::Os::Linux
                    && reporting.death_while_stopped_code == Some(code))
                .then(|| crate::platform::signal_number("SIGKILL"))
                .flatten()
            });
        match shared
            .link
            .adapter()
            .profile()
            .signals
            .exit_signal_expression
        {
            Some(expression) if signal.is_none() => {
                facts.exit_code = Some(code);
                facts.end_pending = true;
                follow_up = Some(FollowUp::AskExitSignal(expression));
            }
            _ => {
                let exit_code = signal.is_none().then_some(code);
                facts.exit_code = exit_code;
                facts.signal = signal;
                drop(facts);
                shared.run.set(Phase::Exited { exit_code, signal });
            }
        }
    }
    if follow_up.is_none() {
        shared.program_ended();
    }
    follow_up
}

/// Asks the adapter whether a signal killed the program (see
/// [`crate::adapters::SignalReporting::exit_signal_expression`]), then reports the end. An adapter
/// that does not answer within a second leaves the code it sent.
async fn ask_exit_signal(dap: DapClient, shared: Arc<Shared>, expression: &'static str) {
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        dap.request_typed::<Evaluate>(&EvaluateArguments::watch(expression, None)),
    )
    .await;
    let signal = match answer {
        Ok(Ok(body)) => body.result.trim().parse::<i32>().ok(),
        _ => None,
    };
    let exit_code = {
        let mut facts = shared.program.facts();
        facts.end_pending = false;
        if signal.is_some() {
            facts.exit_code = None;
        }
        facts.signal = signal;
        facts.exit_code
    };
    shared
        .run
        .set_if(Phase::Exited { exit_code, signal }, |s| !s.phase.is_ended());
    shared.program_ended();
}

/// The debug session of the program ended (after `exited`, or without one).
fn on_terminated(shared: &Shared) {
    shared.program.take_output();
    if shared.lost_by_adapter(None) {
        return;
    }
    shared.run.forget_brief_stop();
    shared.program.facts().gone = true;
    let (exit_code, signal, pending) = {
        let facts = shared.program.facts();
        (facts.exit_code, facts.signal, facts.end_pending)
    };
    if pending {
        // The adapter is being asked how the program ended; its answer reports the end.
        return;
    }
    shared
        .run
        .set_if(Phase::Exited { exit_code, signal }, |s| !s.phase.is_ended());
    shared.program_ended();
}

/// Output: a logpoint's line, the program's own output, or the adapter's (kept for the report
/// of its death).
fn on_output(shared: &Shared, OutputEvent { body, bytes }: OutputEvent) {
    let category = body.category.as_deref();
    if let Some((id, message)) = registry::logpoint_line(&body.output) {
        logpoints::record(&shared.output, id, message);
    } else if (shared.link.adapter().profile().is_program_output)(category)
        && !shared
            .program
            .io()
            .as_ref()
            .is_some_and(|io| io.carries(category))
    {
        let stream = category.unwrap_or("stdout");
        match bytes {
            Some(bytes) => shared.output.push_stream(stream, bytes),
            None => shared.output.push_stream(
                stream,
                &*(shared.link.adapter().profile().clean_program_output)(&body.output),
            ),
        }
    } else if category != Some("telemetry") {
        let text = body.output.trim_end();
        let reporting = shared.link.adapter().profile().signals;
        if let Some(end) = reporting.end_in_console.and_then(|read| read(text)) {
            shared.program.facts().logged_end = Some(end);
        }
        if (reporting.is_log_line)(text) {
            tracing::debug!("adapter log: {text}");
            return;
        }
        tracing::info!("adapter {}: {text}", category.unwrap_or("console"));
        let mut log = shared.adapter_log.lock().unwrap_or_else(|p| p.into_inner());
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if log.len() == ADAPTER_LOG_TAIL {
                log.pop_front();
            }
            log.push_back(line.to_string());
        }
    }
}

/// The adapter changed a breakpoint (bound it, moved it, removed it).
fn on_breakpoint(shared: &Shared, body: BreakpointEventBody) {
    shared
        .breakpoints
        .registry()
        .apply_event(&body.reason, &body.breakpoint);
}

/// The debuggee's process: its pid, for `status` and, when we launched it, for the reaper and
/// the watch on its end (the pid returned).
fn on_process(shared: &Shared, body: ProcessEventBody) -> Option<u32> {
    shared.program.reported(body.system_process_id)
}
