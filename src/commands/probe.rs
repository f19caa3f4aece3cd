//! `probe`: run a program with no daemon, record what each breakpoint hit shows, print one report.
//!
//! A probe is a session like the daemon's, run in this process for the life of the command: the
//! launch is the one `start` builds ([`launch_spec`]), the session is the daemon's own, reached
//! through [`InProcessSession`], and each stop is taken through the calls an agent makes
//! (`await`, `backtrace`, `locals`, `print`, `continue --wait`). So a continue never runs past a
//! stop the probe has not recorded, and nothing here talks DAP itself.

mod on_crash;
mod summary;
mod test;
mod text;
mod verdict;

use std::time::Duration;

use tokio::time::Instant;

use clap::Args;

use super::breakpoint::give_flags;
use super::session::{LaunchArgs, launch_spec};
use super::{Outcome, data, render};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::frame_prefix;
use crate::daemon::in_process::InProcessSession;
use crate::ipc::protocol::{
    EvaluateResult, LaunchSpec, ProbeEnd, ProbeEndReason, ProbeOtherStop, ProbePrint, ProbeReport,
    ProbeStop, StopReason, StopReport,
};
use crate::platform;
use verdict::verdict;

/// Frames of the stopped thread's stack recorded at each stop.
const STACK_FRAMES: u32 = 5;
/// Stops at no breakpoint that are recorded; later ones are only counted. A program that takes a
/// signal in a loop would otherwise fill the report until the timeout.
const OTHER_STOPS_RECORDED: usize = 10;
/// The program's output in the report: at most its last this many lines...
const OUTPUT_LINES: u32 = 20;
/// ... and this many bytes.
const OUTPUT_BYTES: u64 = 4096;

/// How a `--print` in a caller's frame is written.
const PRINT_FORM_HINT: &str =
    "-p '@1:i' prints i in the caller of the hit's frame, -p '@main:i' in main's";

/// How long a failure waits to learn whether a signal caused it.
const SIGNAL_DELIVERY: Duration = Duration::from_millis(100);

// `probe`'s flags.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// A breakpoint to record at each hit (FILE:LINE or FUNCTION); repeatable, at least one
    /// (unless --on-crash; with --test, --break-on-failure may stand for them). gdb's
    /// 'LOC if COND', quoted as one argument, records only the hits where COND holds:
    /// -b 'table.c:35 if key == 51285'.
    #[arg(short = 'b', long = "break", value_name = "LOC",
          required_unless_present_any = ["test", "break_on_failure", "on_crash"])]
    pub breakpoints: Vec<String>,
    /// Record a hit of the --break breakpoints only when this expression is true; for all of
    /// them (one breakpoint's own condition is -b 'LOC if COND', and the two cannot be mixed).
    #[arg(long, value_name = "EXPR", conflicts_with = "on_crash")]
    pub condition: Option<String>,
    /// Record the --break breakpoints only from their Nth hit on (hits 1 to N-1 run past
    /// unrecorded), for all of them. Apart from --hits, which counts the recorded hits that end
    /// the probe.
    #[arg(long, value_name = "N", allow_negative_numbers = true, conflicts_with = "on_crash",
          value_parser = super::numbers::whole::<1, { u32::MAX }>)]
    pub hit_count: Option<u32>,
    /// Run one test of the project in the current directory, found as `debugger test` finds it
    /// (the runner's arguments after '--'), instead of a program.
    #[arg(long, value_name = "SELECTOR", conflicts_with_all = ["program", "module", "on_crash"])]
    pub test: Option<String>,
    /// With --test: record the test's failure at its failing line. Exits 0 when the failure was
    /// caught, 1 when the test passed.
    #[arg(long, requires = "test")]
    pub break_on_failure: bool,
    /// Record the crash instead of breakpoints: run until the program dies by a signal or an
    /// uncaught exception or panic, and report why, every thread's stack, the crashing frame's
    /// locals and each --print there. Exit 0 on a crash, 1 when the program exited normally.
    #[arg(long, conflicts_with = "breakpoints")]
    pub on_crash: bool,
    /// With --on-crash: also write a core of the crashed program into DIR (lldb, gdb), for a
    /// later 'debugger core'.
    #[arg(long, value_name = "DIR")]
    pub core_dir: Option<std::path::PathBuf>,
    /// An expression to evaluate at each hit; repeatable. One that fails records its error.
    /// '@FRAME:EXPR' evaluates it in a caller's frame, the same on every adapter: FRAME is a
    /// frame number counted from the hit's (-p '@1:i': i in the caller) or a function's name,
    /// whole or its last part, nearest first (-p '@main:i', also for Go's main.main).
    #[arg(short = 'p', long = "print", value_name = "EXPR")]
    pub prints: Vec<String>,
    /// How many locals, and children of each value, to record at each hit (default 32; the
    /// line that counts what was left out names the number that shows it all).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = super::numbers::whole::<1, { super::inspect::MAX_CHILDREN }>)]
    pub children: Option<u32>,
    /// End the probe after this many hits.
    #[arg(long, value_name = "N", default_value_t = 1,
          allow_negative_numbers = true, value_parser = super::numbers::whole::<1, { u32::MAX }>)]
    pub hits: u32,
    /// Seconds the program may run before the probe ends it (exit code 3 if nothing was hit).
    #[arg(long, value_name = "S", default_value_t = 60.0, allow_negative_numbers = true,
          value_parser = super::numbers::seconds)]
    pub timeout: f64,
}

/// What to record, and when to stop recording.
struct Plan {
    prints: Vec<String>,
    hits_wanted: u32,
    timeout: Duration,
    children: Option<u64>,
}

/// Runs the probe; `session` names the daemon whose warm adapter it may borrow (see
/// `[daemon] warm_adapter_secs`).
pub fn run(session: &str, args: ProbeArgs) -> Result<Outcome, ErrorBody> {
    if args.test.is_some() {
        check_prints(&args.prints)?;
        return test::run(args);
    }
    if args.on_crash {
        check_prints(&args.prints)?;
        return on_crash::run(args);
    }
    if args.core_dir.is_some() {
        // Checked here: clap takes an unset flag's default for "present" in `requires`.
        return Err(ErrorBody::usage(
            "--core-dir needs --on-crash",
            "'debugger probe PROGRAM --on-crash --core-dir DIR'",
        ));
    }
    let timeout =
        Duration::from_secs_f64(super::numbers::checked_seconds("--timeout", args.timeout)?);
    let mut spec = launch_spec(args.launch, &args.breakpoints, false, None)?;
    give_flags(
        &mut spec.breakpoints,
        args.condition.as_deref(),
        args.hit_count,
    )?;
    let config = Config::load()?;
    // A language whose own names begin with `@` (Ruby's `@name`) reads any text that is not a
    // plain `@FRAME:EXPR` as its own expression, as `print` does.
    if !crate::adapters::writes_at_sign_names(&spec, &config) {
        check_prints(&args.prints)?;
    }
    if let Some(adapter) = crate::adapters::for_one_shot(&spec, &config) {
        spec.adapter = Some(adapter.to_string());
    }
    let plan = Plan {
        prints: args.prints,
        hits_wanted: args.hits,
        timeout,
        children: args.children.map(u64::from),
    };
    let report = run_to_end(probe(&config, spec, &plan, session))?;
    let outcome = Outcome::new(data(&report), text::report(&report));
    Ok(match verdict(&report) {
        Some(err) => outcome.failed(err),
        None => outcome,
    })
}

/// Refuses, before anything runs, a `--print` that begins with `@` but is no `@FRAME:EXPR`.
fn check_prints(prints: &[String]) -> Result<(), ErrorBody> {
    for print in prints {
        frame_prefix::parse(print).map_err(|e| ErrorBody::usage(e, PRINT_FORM_HINT))?;
    }
    Ok(())
}

/// Launches the program, records until the plan says stop, ends the program, and reports.
async fn probe(
    config: &Config,
    spec: LaunchSpec,
    plan: &Plan,
    warm_from: &str,
) -> Result<ProbeReport, ErrorBody> {
    let program = spec.label();
    let (session, mut interrupts) = launch(config, spec, Some(warm_from), plan.children).await?;
    let mut recorded = Recorded::default();
    let mut ended = tokio::select! {
        biased;
        name = interrupts.next() => interrupted(name),
        ended = recorded.run(&session, plan) => ended,
    };
    if ended.reason.is_failure()
        && let Some(name) = interrupts.arrived().await
    {
        // Ctrl-C reaches the whole process group, the adapter too, which may die of it first.
        ended = interrupted(name);
    }
    if !session.has_ended() {
        ended.message.push_str("; the probe ended the program");
    }
    session.end().await;
    let mut breakpoints = session.breakpoints();
    for bp in breakpoints.iter_mut().filter(|b| !b.verified) {
        // The adapter says nothing of a breakpoint it never placed (lldb-dap): say it for good,
        // as the program has ended.
        bp.message
            .get_or_insert_with(|| "never found in the program's code".into());
    }
    Ok(ProbeReport {
        program,
        adapter: session.adapter_name().to_string(),
        hits_wanted: plan.hits_wanted,
        hits: recorded.hits,
        other_stops: recorded.other_stops,
        other_stops_omitted: recorded.other_stops_omitted,
        ended,
        failure: None,
        at_failure: false,
        breakpoints,
        output: session.output_tail(OUTPUT_LINES, OUTPUT_BYTES).await,
        warm: session.warm_start(),
    })
}

/// Runs a probe's work to its end on a runtime of its own. The session has ended by then: what
/// its tasks still hold is nothing to wait for.
fn run_to_end<T>(
    work: impl std::future::Future<Output = Result<T, ErrorBody>>,
) -> Result<T, ErrorBody> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ErrorBody::internal(format!("cannot start the async runtime: {e}")))?;
    let result = runtime.block_on(work);
    runtime.shutdown_background();
    result
}

/// Launches the program for a probe, with the interrupts caught from before the launch: a
/// signal that comes while the adapter starts ends the program once it is launched, or, if the
/// signal killed the adapter too, explains why the launch failed.
///
/// With `warm_from`, the program may run on the warm adapter of that session's daemon. The
/// session reads `children` locals, and children of each value (`--children`).
async fn launch(
    config: &Config,
    spec: LaunchSpec,
    warm_from: Option<&str>,
    children: Option<u64>,
) -> Result<(InProcessSession, Interrupts), ErrorBody> {
    let mut interrupts = Interrupts::install()?;
    match InProcessSession::launch_warm(config, spec, warm_from).await {
        Ok(session) => Ok((session.showing_children(children), interrupts)),
        Err(err) => Err(match interrupts.arrived().await {
            Some(name) => ErrorBody::new(
                ErrorCode::Interrupted,
                format!("the probe was interrupted by {name} while the program started"),
                "nothing had run to record",
            ),
            None => err,
        }),
    }
}

/// SIGINT and SIGTERM (Ctrl-C and Ctrl-Break on Windows), which end the probe (and so the
/// program) instead of this process alone.
struct Interrupts(platform::Interrupts);

impl Interrupts {
    fn install() -> Result<Interrupts, ErrorBody> {
        platform::Interrupts::install(false)
            .map(Interrupts)
            .map_err(|e| ErrorBody::internal(format!("cannot handle signals: {e}")))
    }

    /// The name of the next signal to arrive.
    async fn next(&mut self) -> &'static str {
        self.0.next().await
    }

    /// The signal that came with a failure, if one did. A signal sent to the process group is
    /// pending here before the adapter it killed can be seen to die; this allows for its
    /// delivery through the runtime.
    async fn arrived(&mut self) -> Option<&'static str> {
        tokio::time::timeout(SIGNAL_DELIVERY, self.next())
            .await
            .ok()
    }
}

fn interrupted(name: &str) -> ProbeEnd {
    ProbeEnd {
        reason: ProbeEndReason::Interrupted,
        exit_code: None,
        signal: None,
        message: format!("interrupted by {name}"),
        unloaded_breakpoints: Vec::new(),
    }
}

/// The stops recorded so far; kept outside the recording loop so an interrupt keeps them.
#[derive(Default)]
struct Recorded {
    hits: Vec<ProbeStop>,
    other_stops: Vec<ProbeOtherStop>,
    other_stops_omitted: u32,
}

impl Recorded {
    /// Records each stop and continues, until the hits are in, the program ends, or time is up.
    async fn run(&mut self, session: &InProcessSession, plan: &Plan) -> ProbeEnd {
        let deadline = Instant::now() + plan.timeout;
        // The first stop may have come before we look (a breakpoint at the program's start):
        // `await` reports it rather than waiting for another.
        let mut next = session.await_stop(plan.timeout).await;
        loop {
            let report = match next {
                Ok(report) => report,
                Err(err) => return ended_by(err, plan.timeout),
            };
            match report.reason {
                StopReason::Exited | StopReason::Terminated => return ended_with(&report),
                StopReason::Breakpoint => {
                    let stop = record(session, report, &plan.prints).await;
                    self.hits.push(stop);
                    if self.hits.len() >= plan.hits_wanted as usize {
                        return ProbeEnd {
                            reason: ProbeEndReason::HitsReached,
                            exit_code: None,
                            signal: None,
                            message: format!("--hits {} reached", plan.hits_wanted),
                            unloaded_breakpoints: Vec::new(),
                        };
                    }
                }
                // An exception, a signal: recorded, then continued, as the program would go on
                // without a debugger (an uncaught exception or a crash then ends it).
                _ if self.other_stops.len() < OTHER_STOPS_RECORDED => {
                    let recorded = record(session, report, &plan.prints).await;
                    self.other_stops.push(ProbeOtherStop {
                        after_hits: self.hits.len() as u32,
                        recorded,
                    });
                }
                _ => self.other_stops_omitted += 1,
            }
            let left = deadline.saturating_duration_since(Instant::now());
            next = session.continue_to_stop(left).await;
        }
    }
}

fn ended_with(report: &StopReport) -> ProbeEnd {
    if let Some(signal) = &report.signal {
        return ProbeEnd {
            reason: ProbeEndReason::Exited,
            exit_code: None,
            signal: Some(signal.clone()),
            message: format!("the program was {}", render::killed_by(signal)),
            unloaded_breakpoints: report.unloaded_breakpoints.clone(),
        };
    }
    match report.exit_code {
        Some(code) => ProbeEnd {
            reason: ProbeEndReason::Exited,
            exit_code: Some(code),
            signal: None,
            message: format!("the program exited with code {code}"),
            unloaded_breakpoints: report.unloaded_breakpoints.clone(),
        },
        None => ProbeEnd {
            reason: ProbeEndReason::Terminated,
            exit_code: None,
            signal: None,
            message: "the program terminated".into(),
            unloaded_breakpoints: report.unloaded_breakpoints.clone(),
        },
    }
}

/// How a failed wait ends the probe: the timeout, the adapter's death, or another error.
fn ended_by(err: ErrorBody, timeout: Duration) -> ProbeEnd {
    let (reason, message) = match err.code {
        ErrorCode::Timeout => (
            ProbeEndReason::Timeout,
            format!(
                "the program still ran after --timeout {} s",
                timeout.as_secs_f64()
            ),
        ),
        ErrorCode::AdapterDied => (ProbeEndReason::AdapterDied, err.message),
        _ => (ProbeEndReason::Error, err.message),
    };
    ProbeEnd {
        reason,
        exit_code: None,
        signal: None,
        message,
        unloaded_breakpoints: Vec::new(),
    }
}

/// What the program shows at this stop: the top of the stack, the locals, each `--print`.
async fn record(session: &InProcessSession, stop: StopReport, prints: &[String]) -> ProbeStop {
    let mut errors = Vec::new();
    let (frames, total_frames) = match session.backtrace(STACK_FRAMES).await {
        Ok(trace) => (trace.frames, trace.total_frames),
        Err(e) => {
            errors.push(format!("stack: {}", e.message));
            (Vec::new(), None)
        }
    };
    let (locals, locals_omitted) = match session.locals(1).await {
        Ok(locals) => (locals.variables, locals.omitted),
        Err(e) => {
            errors.push(format!("locals: {}", e.message));
            (Vec::new(), 0)
        }
    };
    let mut values = Vec::with_capacity(prints.len());
    for expression in prints {
        values.push(print(session, expression).await);
    }
    ProbeStop {
        stop,
        frames,
        total_frames,
        locals,
        locals_omitted,
        prints: values,
        errors,
    }
}

/// `expression` evaluated in the selected frame, or its error, as the report records it.
async fn print(session: &InProcessSession, expression: &str) -> ProbePrint {
    match session.evaluate(expression, 1).await {
        Ok(result) => printed(result),
        Err(e) => ProbePrint {
            expression: expression.to_string(),
            value: None,
            type_name: None,
            children: Vec::new(),
            omitted_children: 0,
            methods_omitted: false,
            error: Some(e.message),
        },
    }
}

fn printed(result: EvaluateResult) -> ProbePrint {
    ProbePrint {
        expression: result.expression,
        value: Some(result.value),
        type_name: result.type_name,
        children: result.children,
        omitted_children: result.omitted_children,
        methods_omitted: result.methods_omitted,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::protocol::{BreakpointInfo, BreakpointKind, ProbeOutput};

    fn report(ended: ProbeEndReason, hits: usize, verified: bool) -> ProbeReport {
        let stop = ProbeStop {
            stop: StopReport {
                thread_id: Some(1),
                breakpoint_ids: vec![1],
                ..StopReport::empty(StopReason::Breakpoint)
            },
            frames: Vec::new(),
            total_frames: None,
            locals: Vec::new(),
            locals_omitted: 0,
            prints: Vec::new(),
            errors: Vec::new(),
        };
        ProbeReport {
            program: "/src/prog".into(),
            adapter: "lldb".into(),
            hits_wanted: 3,
            hits: vec![stop; hits],
            other_stops: Vec::new(),
            other_stops_omitted: 0,
            ended: ProbeEnd {
                reason: ended,
                exit_code: None,
                signal: None,
                message: format!("ended by {ended}"),
                unloaded_breakpoints: Vec::new(),
            },
            failure: None,
            at_failure: false,
            breakpoints: vec![BreakpointInfo {
                id: 1,
                kind: BreakpointKind::Function,
                location: "f".into(),
                requested: Some("f".into()),
                file: None,
                line: None,
                function: Some("f".into()),
                condition: None,
                hit_count: None,
                enabled: true,
                verified,
                message: (!verified).then(|| "no such function".into()),
                resolved_line: None,
                log_message: None,
                access: None,
                watching: None,
            }],
            output: ProbeOutput {
                tail: String::new(),
                omitted_bytes: 0,
            },
            warm: false,
        }
    }

    fn exit_status(report: &ProbeReport) -> i32 {
        verdict(report).map_or(0, |e| e.code.exit_code())
    }

    #[test]
    fn a_hit_is_success_whatever_ended_the_probe() {
        for ended in [
            ProbeEndReason::HitsReached,
            ProbeEndReason::Exited,
            ProbeEndReason::Timeout,
            ProbeEndReason::AdapterDied,
            ProbeEndReason::Error,
        ] {
            assert_eq!(exit_status(&report(ended, 1, true)), 0, "{ended}");
        }
    }

    #[test]
    fn no_hit_is_1_or_3_when_the_timeout_came_first_and_names_the_unresolved() {
        assert_eq!(exit_status(&report(ProbeEndReason::Exited, 0, true)), 1);
        assert_eq!(
            exit_status(&report(ProbeEndReason::AdapterDied, 0, true)),
            1
        );
        assert_eq!(exit_status(&report(ProbeEndReason::Timeout, 0, true)), 3);
        let pending = verdict(&report(ProbeEndReason::Exited, 0, false)).expect("a failure");
        assert_eq!(
            pending.message,
            "no breakpoint was hit (ended by exited); breakpoint 1 (f) never resolved: no such function"
        );
    }

    #[test]
    fn a_tests_failure_is_told_under_the_verdict_line_by_line() {
        let mut failed = report(ProbeEndReason::HitsReached, 1, true);
        failed.failure = Some("assertion `left == right` failed: 10% off\n  left: 360".into());
        let text = text::report(&failed);
        assert!(
            text.starts_with(
                "prog: 1 hit; ended by hits_reached\n  \
                 failed: assertion `left == right` failed: 10% off\n            left: 360\n\n"
            ),
            "{text}"
        );
        let without = text::report(&report(ProbeEndReason::HitsReached, 1, true));
        assert!(!without.contains("failed:"), "{without}");
    }

    #[test]
    fn an_interrupt_is_130_even_after_hits() {
        assert_eq!(
            exit_status(&report(ProbeEndReason::Interrupted, 2, true)),
            130
        );
        assert_eq!(
            exit_status(&report(ProbeEndReason::Interrupted, 0, true)),
            130
        );
    }
}
