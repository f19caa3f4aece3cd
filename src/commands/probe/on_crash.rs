//! `probe --on-crash`: run the program until it crashes, and turn the crash into one report:
//! why (the signal, the exception, the panic), every thread's stack, the crashing frame's locals
//! and each `--print` there, and with `--core-dir` a core file for a later `debugger core`.
//!
//! Apart from the breakpoint probe because what it waits for and records differs; it shares the
//! launch, the interrupts and the ending rules with it (the parent module).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

use super::{
    OUTPUT_BYTES, OUTPUT_LINES, ProbeArgs, ended_by, ended_with, interrupted, launch, print,
    run_to_end,
};
use crate::commands::session::launch_spec;
use crate::commands::{Outcome, data, render};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::resolve::absolute;
use crate::common::user_files;
use crate::daemon::in_process::InProcessSession;
use crate::ipc::protocol::{
    CrashReport, LaunchSpec, ProbeEnd, ProbeEndReason, ProbeOutput, StopReason, StopReport,
    ThreadBacktrace,
};

/// Frames of each thread's stack in the report.
const STACK_FRAMES: u32 = 20;

/// Threads whose stacks the text shows (the crashed one first); `--json` has them all.
const THREADS_SHOWN: usize = 8;

/// The signals that are a crash when the program stops on one; others (a `SIGUSR1` the program
/// handles, a `SIGPIPE` it ignores) are let through, as the program would get them anyway.
const CRASH_SIGNALS: [&str; 6] = ["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGSYS"];

struct Plan {
    prints: Vec<String>,
    timeout: Duration,
    core_dir: Option<PathBuf>,
    children: Option<u64>,
}

pub fn run(args: ProbeArgs) -> Result<Outcome, ErrorBody> {
    let timeout = Duration::from_secs_f64(super::super::numbers::checked_seconds(
        "--timeout",
        args.timeout,
    )?);
    let core_dir = match &args.core_dir {
        Some(dir) => Some(core_dir(dir)?),
        None => None,
    };
    // A Rust panic unwinds (exit 101) with no signal to stop on: a breakpoint on the function
    // every panic passes through makes it a stop.
    let panic_breakpoint: Vec<String> = args
        .launch
        .program
        .as_deref()
        .and_then(rust_panic_function)
        .map(|f| vec![f.to_string()])
        .unwrap_or_default();
    let mut spec = launch_spec(args.launch, &panic_breakpoint, false, None)?;
    let config = Config::load()?;
    if let Some(adapter) = crate::adapters::for_one_shot(&spec, &config) {
        spec.adapter = Some(adapter.to_string());
    }
    let plan = Plan {
        prints: args.prints,
        timeout,
        core_dir,
        children: args.children.map(u64::from),
    };
    let report = run_to_end(watch(&config, spec, &plan))?;
    let outcome = Outcome::new(data(&report), text(&report));
    Ok(match verdict(&report) {
        Some(err) => outcome.failed(err),
        None => outcome,
    })
}

/// `--core-dir` as an absolute directory, made if missing (before the program runs, so a bad
/// directory costs nothing).
fn core_dir(dir: &Path) -> Result<PathBuf, ErrorBody> {
    let cwd = std::env::current_dir()
        .map_err(|e| ErrorBody::internal(format!("cannot read the current directory: {e}")))?;
    let dir = absolute(&cwd, dir);
    std::fs::create_dir_all(&dir).map_err(|e| {
        ErrorBody::usage(
            format!("--core-dir {}: {e}", dir.display()),
            "give a directory this user can write to",
        )
    })?;
    Ok(dir)
}

impl CrashReport {
    /// The report before anything is recorded: no crash, no stacks, no output.
    fn nothing_yet(program: String, adapter: &str) -> CrashReport {
        CrashReport {
            program,
            adapter: adapter.to_string(),
            crashed: false,
            ended: interrupted("nothing"),
            stop: None,
            crash_frame: None,
            crash_source: None,
            threads: Vec::new(),
            locals: Vec::new(),
            locals_omitted: 0,
            prints: Vec::new(),
            core_file: None,
            errors: Vec::new(),
            output: ProbeOutput {
                tail: String::new(),
                omitted_bytes: 0,
            },
        }
    }
}

/// Launches the program, waits for its crash or its end, records the crash, and ends it.
async fn watch(config: &Config, spec: LaunchSpec, plan: &Plan) -> Result<CrashReport, ErrorBody> {
    let program = spec.label();
    let (session, mut interrupts) = launch(config, spec, None, plan.children).await?;
    let mut report = CrashReport::nothing_yet(program, session.adapter_name());
    let mut ended = tokio::select! {
        biased;
        name = interrupts.next() => interrupted(name),
        ended = until_crash(&session, plan, &mut report) => ended,
    };
    if ended.reason.is_failure()
        && let Some(name) = interrupts.arrived().await
    {
        ended = interrupted(name);
    }
    session.end().await;
    report.ended = ended;
    report.output = session.output_tail(OUTPUT_LINES, OUTPUT_BYTES).await;
    Ok(report)
}

/// How far back the program's output is searched for a panic's message.
const PANIC_LINES: u32 = 400;
const PANIC_BYTES: u64 = 64 * 1024;

/// The most bytes of a program read to tell whether it is Rust's.
const PROGRAM_SCAN_LIMIT: u64 = 512 << 20;

/// The function every Rust panic of `program` passes through, by the name the adapters bind:
/// `__rustc::rust_panic` since Rust mangles std's internal symbols, plain `rust_panic` before.
/// `None` for a program that is not Rust (or too big to scan).
fn rust_panic_function(program: &Path) -> Option<&'static str> {
    let size = std::fs::metadata(program).ok()?.len();
    if size > PROGRAM_SCAN_LIMIT {
        return None;
    }
    let bytes = user_files::read_regular(program).ok()?;
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    if has(b"7___rustc10rust_panic") {
        Some("__rustc::rust_panic")
    } else if has(b"rust_panic\0") && has(b"rust_begin_unwind") {
        Some("rust_panic")
    } else {
        None
    }
}

/// The message of a Rust panic, from the program's stderr: the lines after
/// "thread 'main' panicked at FILE:LINE:COL:" (newer Rust: "thread 'main' (42) panicked at"), up
/// to the `note:` or the backtrace that follows. The last panic's, should there be several.
fn panic_message(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.starts_with("thread '") && l.contains(" panicked at "))?;
    let lines = lines[start + 1..].iter().copied();
    let message: Vec<&str> = lines
        .take_while(|l| !l.starts_with("note: ") && !l.starts_with("stack backtrace:"))
        .collect();
    Some(message.join("\n")).filter(|m| !m.trim().is_empty())
}

/// What a stop means to a crash probe.
enum Meaning {
    Crash,
    End,
    /// Neither (an entry stop, a signal the program handles): the program goes on.
    Other,
}

fn meaning(stop: &StopReport) -> Meaning {
    match stop.reason {
        StopReason::Exited | StopReason::Terminated => Meaning::End,
        // A signal whose name the adapter did not give is taken for the worst.
        StopReason::Signal => match stop.signal.as_ref().and_then(|s| s.name.as_deref()) {
            Some(name) if !CRASH_SIGNALS.contains(&name) => Meaning::Other,
            _ => Meaning::Crash,
        },
        // Uncaught exceptions (debugpy, node, C++ where asked), Go's panics (Delve), and a
        // Rust panic's breakpoint, the only breakpoint a crash probe sets.
        StopReason::Exception | StopReason::Panic | StopReason::Breakpoint => Meaning::Crash,
        _ => Meaning::Other,
    }
}

/// Continues through stops that are no crash until the program crashes or ends, or time is up.
async fn until_crash(
    session: &InProcessSession,
    plan: &Plan,
    report: &mut CrashReport,
) -> ProbeEnd {
    let deadline = Instant::now() + plan.timeout;
    let mut next = session.await_stop(plan.timeout).await;
    loop {
        let stop = match next {
            Ok(stop) => stop,
            Err(err) => return ended_by(err, plan.timeout),
        };
        match meaning(&stop) {
            Meaning::End => {
                let mut end = ended_with(&stop);
                if end.signal.is_some() {
                    // Killed by a signal the adapter let through without a stop: a crash, if
                    // one nothing could be read of.
                    report.crashed = true;
                    report.errors.push(
                        "the adapter did not stop on the signal: no stack was recorded".into(),
                    );
                    end.reason = ProbeEndReason::Crashed;
                }
                return end;
            }
            Meaning::Crash => {
                let words = if stop.reason == StopReason::Breakpoint {
                    // Far enough back to pass a backtrace the panic printed (RUST_BACKTRACE).
                    let output = session.output_tail(PANIC_LINES, PANIC_BYTES).await;
                    match panic_message(&output.tail) {
                        Some(message) => format!("a Rust panic: {message}"),
                        None => "a Rust panic".into(),
                    }
                } else {
                    crash_words(&stop)
                };
                let message = format!("the program crashed: {words}");
                let signal = stop.signal.clone();
                record(session, stop, plan, report).await;
                return ProbeEnd {
                    reason: ProbeEndReason::Crashed,
                    exit_code: None,
                    signal,
                    message,
                    unloaded_breakpoints: Vec::new(),
                };
            }
            Meaning::Other => {}
        }
        let left = deadline.saturating_duration_since(Instant::now());
        next = session.continue_to_stop(left).await;
    }
}

/// "signal SIGSEGV: address not mapped to object", "uncaught ValueError: bad", "panic".
fn crash_words(stop: &StopReport) -> String {
    if let Some(exception) = &stop.exception {
        return render::exception_text(exception);
    }
    match (&stop.description, &stop.signal) {
        (Some(description), _) => description.clone(),
        (None, Some(signal)) => render::killed_by(signal),
        (None, None) => stop.reason.to_string(),
    }
}

/// Everything of the crash: the stop, every thread's stack (the crashed one's first), the
/// crashing frame with its locals and the prints, and the core when asked for.
async fn record(
    session: &InProcessSession,
    stop: StopReport,
    plan: &Plan,
    report: &mut CrashReport,
) {
    report.crashed = true;
    report.stop = Some(stop);
    if let Err(e) = session.select_crash_frame().await {
        report.errors.push(format!("crash frame: {}", e.message));
    }
    match session.context().await {
        Ok(context) => {
            report.crash_frame = Some(context.frame);
            report.crash_source = context.source;
        }
        Err(e) => report.errors.push(format!("crash frame: {}", e.message)),
    }
    // The crashed thread is the selected one, so it comes first.
    match session.all_backtraces(STACK_FRAMES).await {
        Ok(all) => {
            for thread in all.threads {
                match thread {
                    ThreadBacktrace::Read(stack) => report.threads.push(stack),
                    ThreadBacktrace::Unreadable { thread_id, error } => report
                        .errors
                        .push(format!("stack of thread {thread_id}: {error}")),
                }
            }
        }
        Err(e) => report.errors.push(format!("stack: {}", e.message)),
    }
    match session.locals(1).await {
        Ok(locals) => {
            report.locals = locals.variables;
            report.locals_omitted = locals.omitted;
        }
        Err(e) => report.errors.push(format!("locals: {}", e.message)),
    }
    for expression in &plan.prints {
        report.prints.push(print(session, expression).await);
    }
    if let Some(dir) = &plan.core_dir {
        match session.save_core(dir).await {
            Ok(path) => report.core_file = Some(path.display().to_string()),
            Err(e) => report.errors.push(format!("core: {}", e.message)),
        }
    }
}

/// The probe's exit status: a crash caught is the answer asked for (0); a program that exited
/// normally is not (1, its code in the report); a timeout is 3, an interrupt 130.
fn verdict(report: &CrashReport) -> Option<ErrorBody> {
    if report.crashed {
        return None;
    }
    let (code, hint) = match report.ended.reason {
        ProbeEndReason::Interrupted => (
            ErrorCode::Interrupted,
            "the report shows what was seen before the interrupt",
        ),
        ProbeEndReason::Timeout => (
            ErrorCode::Timeout,
            "give the program longer with --timeout S",
        ),
        ProbeEndReason::Exited | ProbeEndReason::Terminated => (
            ErrorCode::NoCrash,
            "the report ends with the program's output",
        ),
        ProbeEndReason::HitsReached
        | ProbeEndReason::Crashed
        | ProbeEndReason::AdapterDied
        | ProbeEndReason::Error => (
            ErrorCode::Adapter,
            "the report ends with the program's output",
        ),
    };
    Some(ErrorBody::new(
        code,
        format!("no crash: {}", report.ended.message),
        hint,
    ))
}

/// The report for people: the answer first, then where, the locals and prints, every stack.
fn text(report: &CrashReport) -> String {
    let mut out = String::new();
    let program = Path::new(&report.program)
        .file_name()
        .map_or(report.program.clone(), |n| n.to_string_lossy().into_owned());
    let _ = writeln!(out, "{program}: {}", report.ended.message);
    if let Some(frame) = &report.crash_frame {
        let thread = report
            .stop
            .as_ref()
            .and_then(|s| s.thread_id)
            .map(|id| format!(", thread {id}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "Crashed in {} (frame {}){thread}",
            render::frame_location(frame),
            frame.index
        );
        if let Some(source) = &report.crash_source {
            out.push_str(&render::source_lines(source));
        }
    }
    if !report.prints.is_empty() {
        out.push_str("Print:\n");
        for line in super::text::prints(&report.prints).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    if report.crashed && report.stop.is_some() {
        out.push_str("Locals:\n");
        let reveal = render::Reveal(Some("probe --on-crash …"));
        for line in render::variables(&report.locals, report.locals_omitted, reveal).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    for stack in report.threads.iter().take(THREADS_SHOWN) {
        let _ = writeln!(out, "Thread {}:", stack.thread_id);
        for line in render::stack_lines(&stack.frames, stack.selected_frame, false) {
            match line {
                render::StackLine::Frame(frame) => {
                    let marker = if stack.selected_frame == Some(frame.index) {
                        "*"
                    } else {
                        " "
                    };
                    let _ = writeln!(
                        out,
                        "{marker} #{:<3} {}",
                        frame.index,
                        render::frame_location(frame)
                    );
                }
                render::StackLine::Folded { count, kinds } => {
                    let _ = writeln!(
                        out,
                        "  … {} (--json has every frame)",
                        render::StackLine::folded_text(count, &kinds)
                    );
                }
            }
        }
    }
    if report.threads.len() > THREADS_SHOWN {
        let _ = writeln!(
            out,
            "… {} more threads (--json has every stack)",
            report.threads.len() - THREADS_SHOWN
        );
    }
    if let Some(core) = &report.core_file {
        let _ = writeln!(out, "Core written to {core}");
    }
    for error in &report.errors {
        let _ = writeln!(out, "note: {error}");
    }
    if !report.output.tail.is_empty() {
        out.push_str("Output (last lines):\n");
        for line in report.output.tail.lines() {
            let _ = writeln!(out, "  {}", render::terminal_safe(line));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::protocol::{BacktraceResult, FrameInfo};

    fn report(crashed: bool, ended: ProbeEndReason, threads: usize) -> CrashReport {
        let stack = |id: i64| BacktraceResult {
            thread_id: id,
            frames: vec![FrameInfo {
                index: 0,
                function: "work".into(),
                file: None,
                line: None,
                column: None,
                address: None,
                generated: None,
                machinery: None,
            }],
            total_frames: None,
            selected_frame: None,
        };
        CrashReport {
            crashed,
            ended: ProbeEnd {
                reason: ended,
                exit_code: (ended == ProbeEndReason::Exited).then_some(4),
                signal: None,
                message: format!("ended: {ended}"),
                unloaded_breakpoints: Vec::new(),
            },
            threads: (1..=threads as i64).map(stack).collect(),
            ..CrashReport::nothing_yet("/src/app".into(), "an adapter")
        }
    }

    #[test]
    fn a_panics_message_is_read_from_the_programs_stderr() {
        let output = "panics: planning\n\nthread 'main' (4242) panicked at src/main.rs:16:9:\ncannot split 10\ninto parts\nnote: run with `RUST_BACKTRACE=1`\n";
        let traced = "thread 'main' panicked at a.rs:1:1:\nboom\nstack backtrace:\n   0: x\n";
        assert_eq!(panic_message(traced).as_deref(), Some("boom"));
        assert_eq!(
            panic_message(output).as_deref(),
            Some("cannot split 10\ninto parts")
        );
        assert_eq!(panic_message("no panic here\n"), None);
    }

    #[test]
    fn the_text_shows_eight_stacks_and_counts_the_rest() {
        let text = text(&report(true, ProbeEndReason::Crashed, 10));
        assert_eq!(text.matches("Thread ").count(), THREADS_SHOWN);
        assert!(
            text.contains("… 2 more threads (--json has every stack)"),
            "{text}"
        );
        assert!(text.starts_with("app: ended: crashed"), "{text}");
    }

    #[test]
    fn a_crash_is_success_a_normal_exit_is_no_crash_and_a_timeout_is_3() {
        let status = |r: &CrashReport| verdict(r).map_or(0, |e| e.code.exit_code());
        assert_eq!(status(&report(true, ProbeEndReason::Crashed, 1)), 0);
        let exited = verdict(&report(false, ProbeEndReason::Exited, 0)).expect("a failure");
        assert_eq!(
            (exited.code, exited.code.exit_code()),
            (ErrorCode::NoCrash, 1)
        );
        assert_eq!(status(&report(false, ProbeEndReason::Timeout, 0)), 3);
        assert_eq!(status(&report(false, ProbeEndReason::Interrupted, 0)), 130);
    }
}
