//! Stop reports: what a client is told of a stop or an end (reason, thread, frame, source
//! lines, the exception, the frame's values), built once per stop and cached.
//!
//! Apart from run control because every command that shows a stop (`await`, `--wait`, `status`,
//! `context`) asks for the same report, and its lookups are bounded so a hung adapter costs a
//! second per stop rather than a request timeout per call.

use std::time::Duration;

use super::Session;
use super::breakpoints::hit_breakpoints;
use super::displays::StopAsk;
use super::frames::frame_info;
use super::stop_values::StopValues;
use crate::daemon::run_state::{Phase, RunState};
use crate::dap::requests::{self, ThreadArguments};
use crate::ipc::protocol::{
    DisplayValue, ExceptionInfo, SignalInfo, StopLocals, StopReason, StopReport,
};

/// Source lines shown either side of a stop.
const STOP_CONTEXT_LINES: u32 = 2;

use crate::daemon::last_words::last_words;

/// The note of an end the session made itself.
const ENDED_BY_SESSION: &str =
    "the debugger ended the program ('debugger stop', 'restart', or its daemon's end)";

/// How many of its last stderr lines an exit report with a failing code carries.
const STDERR_TAIL_LINES: usize = 6;

/// How long a stop report may spend asking the adapter for the thread name and the exception.
const REPORT_LOOKUP_TIMEOUT: Duration = Duration::from_secs(1);

/// How long it may wait for the top frame, without which it cannot say where the program is:
/// lldb-dap counts every frame of the stack before it answers, a second or more for the 30,000
/// of an overflowed one.
const FRAME_LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a stop report may spend reading the frame's locals, or evaluating the displays;
/// past it, the report goes out without them (`debugger locals` still reads them, with a
/// request's full timeout), and a display says it had no answer.
const VALUES_LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// What a report read at the stop besides where it is.
#[derive(Default)]
struct StopRead {
    values: Option<StopValues>,
    displays: Vec<DisplayValue>,
}

impl Session {
    /// Builds the report of a settled state and marks it as seen, without the frame's values.
    pub async fn report(&self, state: &RunState) -> StopReport {
        self.report_with(state, &StopAsk::bare()).await
    }

    /// Builds the report of a settled state, with what `ask` wants read at the stop (the
    /// frame's locals, the displays, one-off prints), and marks it as seen.
    pub async fn report_with(&self, state: &RunState, ask: &StopAsk) -> StopReport {
        let mut report = StopReport::empty(StopReason::of_state(state.phase.state()));
        match &state.phase {
            Phase::Stopped(stop) => {
                let cached = {
                    let mut view = self.shared.view();
                    view.selection.seen_generation = state.generation;
                    view.caches
                        .report
                        .as_ref()
                        .filter(|(generation, _, _)| *generation == state.generation)
                        .map(|(_, report, values)| (report.clone(), values.clone()))
                };
                if let Some((mut cached, values)) = cached {
                    let (values, displays) = tokio::join!(
                        async {
                            match values {
                                None if ask.locals != StopLocals::None => {
                                    self.values_of_reported_stop(&cached, state.generation)
                                        .await
                                }
                                values => values,
                            }
                        },
                        self.displays_of_reported_stop(&cached, state.generation, ask)
                    );
                    if let Some(values) = values {
                        values.fill(&mut cached, ask.locals);
                    }
                    cached.displays = displays;
                    return cached;
                }
                report.reason = stop.reason.clone();
                report.description = stop
                    .description
                    .clone()
                    .or_else(|| stop.text.clone())
                    .filter(|d| !d.is_empty());
                let thread_id = stop.thread_id.or(self.shared.view().selection.thread);
                report.thread_id = thread_id;
                report.breakpoint_ids = hit_breakpoints(&self.shared, stop);
                if report.reason == StopReason::Signal {
                    self.name_signal(stop.signal, &mut report).await;
                }
                if report.reason == StopReason::Core {
                    report.signal = stop.signal.map(SignalInfo::of);
                    let facts = self.shared.program.facts();
                    report.fault_address = facts.core_fault_address.map(|a| format!("{a:#x}"));
                    report.abort_message = facts.core_abort_message.clone();
                }
                let mut read = StopRead::default();
                if let Some(thread_id) = thread_id {
                    read = self
                        .locate_stop(thread_id, &mut report, state.generation, ask)
                        .await;
                    if report.reason == StopReason::Watchpoint {
                        self.explain_watchpoint_stop(thread_id, &mut report).await;
                    }
                    self.explain_condition(stop, &mut report).await;
                }
                self.shared.view().caches.report =
                    Some((state.generation, report.clone(), read.values.clone()));
                if let Some(values) = read.values {
                    values.fill(&mut report, ask.locals);
                }
                report.displays = read.displays;
            }
            Phase::Exited { exit_code, signal } => {
                report.exit_code = *exit_code;
                report.signal = signal.map(SignalInfo::of);
                report.note = exit_code.and_then(self.adapter().profile().signals.exit_code_note);
                if exit_code.is_none() && signal.is_none() && self.shared.program.is_ending() {
                    report.note = Some(ENDED_BY_SESSION.into());
                } else {
                    // The program ran to its own end: a breakpoint it never reached may be
                    // in a file it never loaded.
                    report.unloaded_breakpoints = self.unloaded_breakpoints();
                }
                if exit_code.is_some_and(|code| code != 0) {
                    self.shared.program.take_output();
                    // Enough lines that the message survives the stack frames left out.
                    report.stderr_tail = self
                        .shared
                        .output
                        .last_lines_of("stderr", STDERR_TAIL_LINES * 20)
                        .and_then(|text| last_words(&text, STDERR_TAIL_LINES));
                }
                let mut view = self.shared.view();
                view.selection.seen_generation =
                    view.selection.seen_generation.max(state.generation);
            }
            Phase::AdapterDied { detail } => report.description = Some(detail.clone()),
            Phase::Evaluating(evaluation) => {
                report.description = Some(format!(
                    "running the evaluation of '{}'",
                    evaluation.expression
                ))
            }
            Phase::Running | Phase::Starting => {}
        }
        report
    }

    /// Names the signal of a `signal` stop: the one the adapter named, else the one it answers
    /// for its expression (GDB's `$_siginfo.si_signo`); the description says it where the
    /// adapter gave none ("signal SIGSEGV").
    async fn name_signal(&self, known: Option<i32>, report: &mut StopReport) {
        let signal = match (
            known,
            self.adapter().profile().signals.stop_signal_expression,
        ) {
            (Some(signal), _) => Some(signal),
            (None, Some(expression)) => {
                let answer = tokio::time::timeout(
                    REPORT_LOOKUP_TIMEOUT,
                    self.dap().request_typed::<requests::Evaluate>(
                        &requests::EvaluateArguments::watch(expression, None),
                    ),
                )
                .await;
                match answer {
                    Ok(Ok(body)) => body.result.trim().parse::<i32>().ok(),
                    _ => None,
                }
            }
            (None, None) => None,
        };
        let Some(signal) = signal else {
            return;
        };
        let info = SignalInfo::of(signal);
        if report.description.is_none() {
            report.description = Some(match &info.name {
                Some(name) => format!("signal {name}"),
                None => format!("signal {signal}"),
            });
        }
        report.signal = Some(info);
    }

    /// The values of the stop a report was built for without them: read now and kept with the
    /// cached report.
    async fn values_of_reported_stop(
        &self,
        report: &StopReport,
        generation: u64,
    ) -> Option<StopValues> {
        let thread_id = report.thread_id?;
        let index = report.frame.as_ref()?.index;
        let (frames, _) = self.frames(thread_id, index + 1).await.ok()?;
        let values = tokio::time::timeout(
            VALUES_LOOKUP_TIMEOUT,
            self.read_stop_values(thread_id, index as usize, &frames, generation),
        )
        .await
        .ok()
        .flatten()?;
        let mut view = self.shared.view();
        if let Some((cached, _, kept)) = view.caches.report.as_mut()
            && *cached == generation
        {
            *kept = Some(values.clone());
        }
        Some(values)
    }

    /// The displays and prints `ask` wants of the stop a report was built for, evaluated in
    /// its frame (a display evaluated at this stop before is shown as it was then).
    async fn displays_of_reported_stop(
        &self,
        report: &StopReport,
        generation: u64,
        ask: &StopAsk,
    ) -> Vec<DisplayValue> {
        if !self.evaluates_at_stop(ask) {
            return Vec::new();
        }
        let (Some(thread_id), Some(frame)) = (report.thread_id, report.frame.as_ref()) else {
            return Vec::new();
        };
        let Ok((frames, _)) = self.frames(thread_id, frame.index + 1).await else {
            return Vec::new();
        };
        let Some(frame) = frames.get(frame.index as usize) else {
            return Vec::new();
        };
        self.stop_displays(ask, frame, generation).await
    }

    /// Fills in the stop's thread name, frame and source, and reads what `ask` wants at stop
    /// `generation`: the frame's locals, the displays and prints. The thread names, the stack
    /// and the exception go out at once; the names and the exception get
    /// [`REPORT_LOOKUP_TIMEOUT`], the stack [`FRAME_LOOKUP_TIMEOUT`]: a hung adapter costs
    /// `status` a few seconds once per stop (the report is cached), not a request timeout per
    /// call. The source lines, the locals and the evaluations, which all need the
    /// frame, then go out together.
    async fn locate_stop(
        &self,
        thread_id: i64,
        report: &mut StopReport,
        generation: u64,
        ask: &StopAsk,
    ) -> StopRead {
        let known = self
            .shared
            .view()
            .caches
            .thread_names
            .contains_key(&thread_id);
        let names = async {
            if !known {
                // Names are fetched once per new thread, so every report carries one.
                let _ = self.fetch_threads().await;
            }
        };
        // A core's stop shows the crashing frame it selected, not the C library's that raised.
        let index = if report.reason == StopReason::Core {
            self.shared.view().selection.frame
        } else {
            0
        };
        let top = async { self.frames(thread_id, index + 1).await.ok() };
        let on_exception = report.reason == StopReason::Exception;
        let exception = async {
            if on_exception {
                self.exception_info(thread_id).await
            } else {
                None
            }
        };
        let beside = tokio::time::timeout(REPORT_LOOKUP_TIMEOUT, async {
            tokio::join!(names, exception).1
        });
        let (exception, looked_up) =
            tokio::join!(beside, tokio::time::timeout(FRAME_LOOKUP_TIMEOUT, top));
        report.exception = exception.ok().flatten();
        report.thread_name = self
            .shared
            .view()
            .caches
            .thread_names
            .get(&thread_id)
            .cloned();
        let Ok(Some((frames, _))) = looked_up else {
            return StopRead::default();
        };
        let Some(top) = frames.get(index as usize) else {
            return StopRead::default();
        };
        let info = frame_info(index, top);
        let values = async {
            if ask.locals == StopLocals::None {
                return None;
            }
            tokio::time::timeout(
                VALUES_LOOKUP_TIMEOUT,
                self.read_stop_values(thread_id, index as usize, &frames, generation),
            )
            .await
            .ok()
            .flatten()
        };
        let displays = async {
            if !self.evaluates_at_stop(ask) {
                return Vec::new();
            }
            self.stop_displays(ask, top, generation).await
        };
        let (source, values, displays) = tokio::join!(
            self.frame_snippet(top, &info, STOP_CONTEXT_LINES),
            values,
            displays
        );
        report.source = source;
        report.frame = Some(info);
        StopRead { values, displays }
    }

    /// What the program raised, for a stop on an exception (when the adapter can tell).
    async fn exception_info(&self, thread_id: i64) -> Option<ExceptionInfo> {
        if !self.capabilities().supports_exception_info_request {
            return None;
        }
        let body = self
            .dap()
            .request_typed::<requests::ExceptionInfo>(&ThreadArguments { thread_id })
            .await
            .ok()?;
        let details = body.details.unwrap_or_default();
        let type_name = details
            .type_name
            .or(body.exception_id)
            .filter(|t| !t.is_empty())?;
        let message = details
            .message
            .or(body.description)
            .filter(|m| !m.is_empty());
        Some(ExceptionInfo { type_name, message })
    }
}
