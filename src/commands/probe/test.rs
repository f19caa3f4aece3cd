//! `probe --test SELECTOR [--break-on-failure]`: "why does this test fail?" in one call, for
//! CI. The test is found as `debugger test` finds it; the probe runs it in process, and at the
//! failure (or at a `-b` breakpoint) records the test's frame (selected at the failing line),
//! the stack, the locals and each `--print`. It exits 0 when it recorded a stop, and 1 when the
//! test ran to its end without one (it passed, or failed where nothing stopped it).

use std::time::Duration;

use super::{OUTPUT_BYTES, OUTPUT_LINES, ProbeArgs, record, run_to_end};
use crate::commands::breakpoint::give_flags;
use crate::commands::test::failure::{
    at_failure_function, is_end, is_failure, panic_site, test_frame,
};
use crate::commands::test::failure_stop::{FailureStop, at_panic_site, judge};
use crate::commands::test::message::{
    GO_PANIC_VALUE, GO_PANIC_WARM_UP, MESSAGE_LAG, MessageSite, OutputFinder, message_site,
};
use crate::commands::test::{self, MessageSource, TestArgs, TestPlan};
use crate::commands::{Outcome, data};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::in_process::InProcessSession;
use crate::ipc::protocol::{ProbeEnd, ProbeEndReason, ProbeReport, StopReason};

/// Frames looked through for the test's own.
const FRAMES_SEARCHED: u32 = 64;
/// Stops on exceptions outside the project's code passed over before the failure.
const FOREIGN_STOPS: usize = 50;
/// The output looked through for the failure's message: the end of it, as `test` reads it.
const MESSAGE_LINES: u32 = 60;
const MESSAGE_BYTES: u64 = 16 * 1024;
/// How often the output is looked at again while the message may still be on its way.
const MESSAGE_LOOK_EVERY: Duration = Duration::from_millis(20);

pub(super) fn run(args: ProbeArgs) -> Result<Outcome, ErrorBody> {
    let timeout = Duration::from_secs_f64(super::super::numbers::checked_seconds(
        "--timeout",
        args.timeout,
    )?);
    let config = Config::load()?;
    let root = test::current_dir()?;
    let test_args = TestArgs {
        selector: args.test.clone(),
        adapter: args.launch.adapter.clone(),
        breakpoints: args.breakpoints.clone(),
        break_on_failure: args.break_on_failure,
        list: false,
        timeout: args.timeout,
        runner_args: args.launch.args.clone(),
    };
    let mut plan = test::plan(&test_args, &root, &config, args.break_on_failure)?;
    give_flags(
        &mut plan.spec.breakpoints,
        args.condition.as_deref(),
        args.hit_count,
    )?;
    let children = args.children.map(u64::from);
    let report = run_to_end(probe(
        &config,
        plan.clone(),
        &args.prints,
        timeout,
        children,
    ))?;
    let outcome = Outcome::new(data(&report), super::text::report(&report));
    let ran_no_test = report
        .hits
        .is_empty()
        .then(|| plan.ran_no_test(report.ended.exit_code, || report.output.tail.clone()))
        .flatten();
    Ok(if let Some(error) = ran_no_test {
        outcome.failed(error)
    } else if report.hits.is_empty() {
        let passed = report.ended.exit_code == Some(0);
        outcome.failed(ErrorBody::new(
            ErrorCode::NotHit,
            if passed {
                "the test passed: there was no failure to record".to_string()
            } else {
                format!(
                    "the test ended with no stop to record ({})",
                    report.ended.message
                )
            },
            if passed {
                "check the selector names the failing test"
            } else {
                "add --break-on-failure, or a -b breakpoint inside the test"
            },
        ))
    } else {
        outcome
    })
}

async fn probe(
    config: &Config,
    plan: TestPlan,
    prints: &[String],
    timeout: Duration,
    children: Option<u64>,
) -> Result<ProbeReport, ErrorBody> {
    let session = InProcessSession::launch(config, plan.spec.clone())
        .await?
        .showing_children(children);
    let mut next = session.await_stop(timeout).await;
    let mut hits = Vec::new();
    let mut passed_over = 0;
    let mut failure = None;
    let mut at_failure = false;
    let ended = loop {
        let mut stop = match next {
            Ok(stop) => stop,
            Err(err) => break super::ended_by(err, timeout),
        };
        if is_end(&stop) {
            break super::ended_with(&stop);
        }
        if is_failure(&stop) && plan.passes_over(&stop) {
            next = session.continue_to_stop(timeout).await;
            continue;
        }
        if is_failure(&stop) {
            at_failure = true;
            let frames = match session.backtrace(FRAMES_SEARCHED).await {
                Ok(trace) => trace.frames,
                Err(_) => Vec::new(),
            };
            let mut panic_output = None;
            let mut panic_site_read = None;
            let mut go_panic = None;
            let frame = if at_failure_function(&stop) {
                if plan.message_source() == MessageSource::RustPanic
                    && from_output(&session, &OutputFinder::RustPanic)
                        .await
                        .is_some()
                {
                    panic_output =
                        Some(session.output_tail(MESSAGE_LINES, MESSAGE_BYTES).await.tail);
                }
                panic_site_read = panic_output.as_deref().and_then(panic_site);
                match judge(&plan, &frames, site_of(&panic_site_read)) {
                    FailureStop::PassOver => {
                        at_failure = false;
                        next = session.continue_to_stop(timeout).await;
                        continue;
                    }
                    FailureStop::Failure {
                        frame,
                        go_panic_frame,
                    } => {
                        if let Some(index) = go_panic_frame
                            && session.select_frame(index).await.is_ok()
                        {
                            let _ = session.evaluate(GO_PANIC_WARM_UP, 0).await;
                            go_panic = session
                                .evaluate(GO_PANIC_VALUE, 0)
                                .await
                                .ok()
                                .map(|v| v.value);
                        }
                        frame
                    }
                }
            } else {
                let frame = test_frame(&frames, &plan.root);
                if frame.is_none()
                    && stop.reason == StopReason::Exception
                    && passed_over < FOREIGN_STOPS
                {
                    passed_over += 1;
                    next = session.continue_to_stop(timeout).await;
                    continue;
                }
                frame
            };
            let mut test_frame = None;
            if let Some(index) = frame
                && let Ok(mut context) = session.select_frame(index).await
            {
                at_panic_site(&mut context, site_of(&panic_site_read));
                test_frame = Some(context.frame.clone());
                // The report shows the test's line, where the frame is now selected, not the
                // failure machinery's innermost frame.
                stop.source = context.source;
            }
            failure = match message_site(&plan, &stop, test_frame.as_ref(), go_panic.as_deref()) {
                MessageSite::Known(message) => Some(message),
                MessageSite::Output(finder) => {
                    match panic_output.as_deref().and_then(|o| finder.find(o)) {
                        Some(message) => Some(message),
                        None => from_output(&session, &finder).await,
                    }
                }
                MessageSite::Nowhere => None,
            };
            if let Some(frame) = test_frame {
                stop.frame = Some(frame);
            }
        }
        hits.push(record(&session, stop, prints).await);
        break ProbeEnd {
            reason: ProbeEndReason::HitsReached,
            exit_code: None,
            signal: None,
            message: format!("stopped in test {}", plan.test),
            unloaded_breakpoints: Vec::new(),
        };
    };
    if !session.has_ended() {
        session.end().await;
    }
    Ok(ProbeReport {
        program: format!("{} ({})", plan.test, plan.runner),
        adapter: session.adapter_name().to_string(),
        hits_wanted: 1,
        hits,
        other_stops: Vec::new(),
        other_stops_omitted: 0,
        ended,
        failure,
        at_failure,
        breakpoints: session.breakpoints(),
        output: session.output_tail(OUTPUT_LINES, OUTPUT_BYTES).await,
        warm: false,
    })
}

/// A panic's site as [`judge`] takes it.
fn site_of(site: &Option<(String, u32)>) -> Option<(&str, u32)> {
    site.as_ref().map(|(file, line)| (file.as_str(), *line))
}

/// The failure's message in the program's output, waited for a moment (see [`MESSAGE_LAG`]):
/// the hook that writes it may be read a little after the stop.
async fn from_output(session: &InProcessSession, finder: &OutputFinder) -> Option<String> {
    let until = tokio::time::Instant::now() + MESSAGE_LAG;
    loop {
        let output = session.output_tail(MESSAGE_LINES, MESSAGE_BYTES).await;
        if let Some(message) = finder.find(&output.tail) {
            return Some(message);
        }
        if tokio::time::Instant::now() >= until {
            return None;
        }
        tokio::time::sleep(MESSAGE_LOOK_EVERY).await;
    }
}
