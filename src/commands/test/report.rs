//! `test`'s run through the daemon: start the test's session, wait for its first stop or its
//! end, and, when the stop is the failure, select the test's frame and report the failure there
//! (the message, the failing line in the test's source, the test's locals).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::failure::{at_failure_function, is_end, is_failure, panic_site, test_frame};
use super::failure_stop::{FailureStop, at_panic_site, judge};
use super::message::{
    GO_PANIC_VALUE, GO_PANIC_WARM_UP, MESSAGE_LAG, MessageSite, OutputFinder, message_site,
};
use super::{MessageSource, TestPlan};
use crate::commands::{Outcome, data, render};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{
    BacktraceResult, Command, ContextResult, EvaluateResult, ExecutionResult, FrameSelection,
    LocalsResult, OutputChunk, OutputQuery, ResumeAction, StartResult, StopReason, StopReport,
    VariableNode, WaitSpec,
};
use crate::ipc::spawn::open_session;

/// Frames looked through for the test's own.
const FRAMES_SEARCHED: u32 = 64;
/// Stops on exceptions outside the project's code passed over before the failure (a runtime
/// that throws and catches for itself while it starts); past this the stop is reported as it is.
const FOREIGN_STOPS: usize = 50;

/// What `test` reports.
#[derive(Debug, Serialize)]
pub struct TestReport {
    pub test: String,
    pub runner: &'static str,
    pub program: String,
    pub outcome: TestOutcome,
    /// What the failure said: a panic's message, an exception's, a Go test's log line.
    pub message: Option<String>,
    /// Why `--break-on-failure` did not stop a test that failed: it ended with a nonzero exit
    /// status and nothing on its way was a failure the debugger stops at.
    pub note: Option<String>,
    pub stop: StopReport,
    /// The test's frame, selected, at a failure.
    pub frame: Option<ContextResult>,
    pub locals: Vec<VariableNode>,
}

/// How a test's run came out, written in `--json` by its lowercase name (`failed`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TestOutcome {
    /// Stopped at the failure.
    Failed,
    /// Stopped elsewhere: at a `-b` breakpoint, or another stop that is no failure.
    Stopped,
    /// Ended with status 0.
    Passed,
    /// Ended otherwise, with no stop.
    Ended,
}

impl TestOutcome {
    /// The run stopped (at the failure or elsewhere), so the program is there to inspect.
    fn stopped(self) -> bool {
        matches!(self, TestOutcome::Failed | TestOutcome::Stopped)
    }
}

pub(super) fn start_and_report(
    session: &str,
    plan: TestPlan,
    timeout_secs: f64,
) -> Result<Outcome, ErrorBody> {
    let deadline = Instant::now() + Duration::from_secs_f64(timeout_secs);
    let left = || WaitSpec {
        timeout_secs: deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64(),
        locals: None,
        prints: Vec::new(),
    };
    let (mut client, started): (_, StartResult) = open_session(
        session,
        Command::Start {
            spec: Box::new(plan.spec.clone()),
            first_stop: None,
        },
    )?;
    let mut stop = match started.stop {
        Some(stop) => stop,
        None => client.request_as(Command::Await(left()))?,
    };
    let mut passed_over = 0;
    let mut go_panic = None;
    let mut panic_output = None;
    let (outcome, frame) = loop {
        if is_end(&stop) {
            let outcome = if stop.exit_code == Some(0) {
                TestOutcome::Passed
            } else {
                TestOutcome::Ended
            };
            break (outcome, None);
        }
        if plan.passes_over(&stop) {
            stop = run_on(&mut client, left())?;
            continue;
        }
        if !is_failure(&stop) {
            break (TestOutcome::Stopped, None);
        }
        if plan.passes_over(&stop) {
            stop = run_on(&mut client, left())?;
            continue;
        }
        let trace: BacktraceResult = client.request_as(Command::Backtrace {
            limit: FRAMES_SEARCHED,
            thread: None,
        })?;
        if at_failure_function(&stop) {
            if plan.message_source() == MessageSource::RustPanic {
                panic_output = from_output(&mut client, &OutputFinder::RustPanic)
                    .and(Some(output_tail(&mut client)));
            }
            let site = panic_output.as_deref().and_then(panic_site);
            let site = site.as_ref().map(|(file, line)| (file.as_str(), *line));
            match judge(&plan, &trace.frames, site) {
                FailureStop::PassOver => {
                    stop = run_on(&mut client, left())?;
                    continue;
                }
                FailureStop::Failure {
                    frame,
                    go_panic_frame,
                } => {
                    if let Some(index) = go_panic_frame {
                        go_panic = read_go_panic(&mut client, index);
                    }
                    let context = match frame {
                        Some(index) => {
                            let mut context: ContextResult =
                                client.request_as(Command::SelectFrame(FrameSelection::Index {
                                    index,
                                }))?;
                            at_panic_site(&mut context, site);
                            Some(context)
                        }
                        None => None,
                    };
                    break (TestOutcome::Failed, context);
                }
            }
        }
        match test_frame(&trace.frames, &plan.root) {
            Some(index) => {
                let context: ContextResult =
                    client.request_as(Command::SelectFrame(FrameSelection::Index { index }))?;
                break (TestOutcome::Failed, Some(context));
            }
            None if stop.reason == StopReason::Exception && passed_over < FOREIGN_STOPS => {
                passed_over += 1;
                stop = run_on(&mut client, left())?;
            }
            None => break (TestOutcome::Failed, None),
        }
    };
    let locals = if outcome.stopped() {
        client
            .request_as::<LocalsResult>(Command::Locals {
                depth: 1,
                full: false,
                changed: false,
                children: None,
            })
            .map(|l| l.variables)
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let message = if outcome == TestOutcome::Failed || stop.exception.is_some() {
        let frame_info = frame.as_ref().map(|context| &context.frame);
        match message_site(&plan, &stop, frame_info, go_panic.as_deref()) {
            MessageSite::Known(message) => Some(message),
            MessageSite::Output(finder) => panic_output
                .as_deref()
                .and_then(|output| finder.find(output))
                .or_else(|| from_output(&mut client, &finder)),
            MessageSite::Nowhere => None,
        }
    } else {
        None
    };
    let ran_no_test = if !outcome.stopped() {
        plan.ran_no_test(stop.exit_code, || output_tail(&mut client))
    } else {
        None
    };
    let breaks_on_failure = plan.spec.test.as_ref().is_some_and(|t| t.break_on_failure);
    let note = match stop.exit_code {
        Some(code)
            if outcome == TestOutcome::Ended
                && code != 0
                && breaks_on_failure
                && ran_no_test.is_none() =>
        {
            Some(plan.unstopped_failure_note(code))
        }
        _ => None,
    };
    let report = TestReport {
        test: plan.test,
        runner: plan.runner,
        program: plan.spec.label(),
        outcome,
        message,
        note,
        stop,
        frame,
        locals,
    };
    let outcome = Outcome::new(data(&report), text(&report));
    Ok(match ran_no_test {
        Some(error) => outcome.failed(error),
        None => outcome,
    })
}

/// Lets the program run on from a stop that is no failure, to its next stop.
fn run_on(client: &mut DaemonClient, wait: WaitSpec) -> Result<StopReport, ErrorBody> {
    let resumed: ExecutionResult = client.request_as(Command::Resume {
        action: ResumeAction::Continue,
        wait: Some(wait),
    })?;
    resumed
        .stop
        .ok_or_else(|| ErrorBody::internal("a continue with a wait gave no stop"))
}

/// A Go panic's value, read in `runtime.gopanic`'s frame (`index`), which is selected for it.
fn read_go_panic(client: &mut DaemonClient, index: u32) -> Option<String> {
    client
        .request_as::<ContextResult>(Command::SelectFrame(FrameSelection::Index { index }))
        .ok()?;
    let evaluate = |expression: &str| Command::Evaluate {
        expression: expression.into(),
        depth: 0,
        children: None,
        timeout_secs: None,
    };
    let _ = client.request_as::<EvaluateResult>(evaluate(GO_PANIC_WARM_UP));
    client
        .request_as::<EvaluateResult>(evaluate(GO_PANIC_VALUE))
        .ok()
        .map(|value| value.value)
}

/// The end of the program's output (what a runner said last).
fn output_tail(client: &mut DaemonClient) -> String {
    client
        .request_as::<OutputChunk>(Command::OutputRead(OutputQuery {
            from: None,
            tail_lines: Some(60),
            max_bytes: 16 * 1024,
            clear: false,
            wait: false,
        }))
        .map(|chunk| chunk.text())
        .unwrap_or_default()
}

/// A message found in the program's output by `finder`, waited for a moment (see
/// [`MESSAGE_LAG`]).
fn from_output(client: &mut DaemonClient, finder: &OutputFinder) -> Option<String> {
    let until = Instant::now() + MESSAGE_LAG;
    loop {
        let chunk: OutputChunk = client
            .request_as(Command::OutputRead(OutputQuery {
                from: None,
                tail_lines: Some(60),
                max_bytes: 16 * 1024,
                clear: false,
                wait: false,
            }))
            .ok()?;
        if let Some(message) = finder.find(&chunk.text()) {
            return Some(message);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The report as text: the verdict first, then where, the source, and the locals, once: a stop
/// report lists its frame's (as `continue` shows them), so the test frame's are listed only
/// after a failure that selected that frame, or a stop report that listed none.
pub fn text(report: &TestReport) -> String {
    let mut text = String::new();
    let stop_shown = report.frame.is_none() || report.outcome != TestOutcome::Failed;
    let stop_listed_them =
        stop_shown && (!report.stop.locals.is_empty() || report.stop.locals_omitted > 0);
    let test = &report.test;
    let runner = report.runner;
    match report.outcome {
        TestOutcome::Failed => {
            let _ = writeln!(text, "Test {test} failed ({runner})");
            if let Some(message) = &report.message {
                for line in message.lines() {
                    let _ = writeln!(text, "  {}", render::terminal_safe(line));
                }
            }
            match &report.frame {
                Some(context) => {
                    let _ = writeln!(
                        text,
                        "Stopped at the failure in {}, frame {} selected",
                        render::frame_location(&context.frame),
                        context.frame.index
                    );
                    if let Some(source) = &context.source {
                        text.push_str(&render::source_lines(source));
                    }
                }
                None => text.push_str(&render::stop_report(&report.stop)),
            }
        }
        TestOutcome::Stopped => {
            let _ = writeln!(text, "Test {test} ({runner}):");
            text.push_str(&render::stop_report(&report.stop));
        }
        TestOutcome::Passed => {
            let _ = writeln!(
                text,
                "Test {test} passed ({runner}): it ended with exit code 0 and nothing stopped it"
            );
            text.push_str(&render::unloaded_lines(&report.stop.unloaded_breakpoints));
        }
        TestOutcome::Ended => {
            let _ = writeln!(text, "Test {test} ended without a stop ({runner})");
            text.push_str(&render::stop_report(&report.stop));
            if let Some(note) = &report.note {
                let _ = writeln!(text, "note: {note}");
            }
        }
    }
    if !stop_listed_them && !report.locals.is_empty() {
        text.push_str("Locals:\n");
        let reveal = render::Reveal(Some("debugger locals"));
        text.push_str(&render::variables(&report.locals, 0, reveal));
    }
    text
}
