//! How each adapter bounds an evaluation that does not return (a call of a function that loops,
//! or that waits on what the stopped program cannot do), and its words for one it stopped.
//!
//! An evaluation runs the program's own code, so only the adapter can stop it and put the
//! program back where it was: GDB's call timeouts, pydevd's interrupt timer, V8's `timeout`, our
//! pdb adapter's timer. lldb-dap stops every expression it runs at half a second, a limit of its
//! own that no request changes; Delve runs a call to its end and reads no request meanwhile. The
//! session sets the limit, waits for it, and tells what the answer means (`bounded_evaluation.rs`
//! in the daemon's session); the adapters' own words for each ending are read here.

use std::time::Duration;

/// What stops an evaluation that runs too long, in one adapter.
#[derive(Clone, Copy)]
pub enum EvaluationLimit {
    /// The `evaluate` request carries the limit (`timeoutMs`), and the adapter interrupts an
    /// evaluation that reaches it (our node and pdb adapters).
    InRequest,
    /// Console commands (DAP `evaluate` in the `repl` context, in the evaluation's frame) set
    /// the limit for the evaluations that follow: GDB's call timeouts, pydevd's interrupt timer.
    Console(fn(Duration) -> Vec<String>),
    /// The adapter stops every evaluation at a limit of its own, which no request changes.
    Own(Duration),
    /// Nothing stops an evaluation before it returns.
    Unbounded,
}

/// lldb-dap evaluates through `SBFrame::EvaluateExpression`, whose options give an expression
/// 500 ms (LLDB's `EvaluateExpressionOptions::default_timeout`).
const LLDB_EXPRESSION_LIMIT: Duration = Duration::from_millis(500);

/// The words our node and pdb adapters answer an evaluation they interrupted with.
pub const INTERRUPTED_WORDS: &str = "evaluation interrupted: it ran past its limit";

/// What stops a runaway evaluation under `adapter`. An adapter we do not know (one defined in
/// the config) is taken to have no limit: the session waits for it and then says so.
pub fn limit(adapter: &str) -> EvaluationLimit {
    match adapter {
        "lldb" => EvaluationLimit::Own(LLDB_EXPRESSION_LIMIT),
        "gdb" => EvaluationLimit::Console(gdb_call_limit),
        "debugpy" => EvaluationLimit::Console(pydevd_interrupt_limit),
        "pdb" | "node" => EvaluationLimit::InRequest,
        _ => EvaluationLimit::Unbounded,
    }
}

/// GDB interrupts a function it calls after `direct-call-timeout` seconds (whole ones; GDB 15
/// and later), and with the two `unwind` settings puts the program back where it was when the
/// call times out or dies of a signal, rather than leaving it in the called function's frame.
fn gdb_call_limit(limit: Duration) -> Vec<String> {
    let secs = limit.as_secs_f64().ceil().max(1.0) as u64;
    vec![
        format!("set direct-call-timeout {secs}"),
        format!("set indirect-call-timeout {secs}"),
        "set unwind-on-timeout on".to_string(),
        "set unwind-on-signal on".to_string(),
    ]
}

/// pydevd interrupts an evaluation with `KeyboardInterrupt` after
/// `PYDEVD_INTERRUPT_THREAD_TIMEOUT` seconds (SIGINT on the main thread, an asynchronous
/// exception on another), a setting it reads from its constants module at each evaluation. An
/// attribute assignment binds no name in the frame it runs in.
fn pydevd_interrupt_limit(limit: Duration) -> Vec<String> {
    vec![format!(
        "__import__('sys').modules['_pydevd_bundle.pydevd_constants']\
         .PYDEVD_INTERRUPT_THREAD_TIMEOUT = {:.3}",
        limit.as_secs_f64()
    )]
}

/// How an adapter said it stopped an evaluation before it returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// It ran as long as its limit and was interrupted; the program is where it was.
    TimeLimit,
    /// A signal stopped it (the adapter's words for the signal); the program is where it was.
    Signal(String),
    /// It stopped at a breakpoint in a function it called, where the adapter holds the program.
    Breakpoint,
}

/// What `message` (the adapter's error for an evaluation, cleaned to its first line) says of how
/// the evaluation stopped, if it was stopped; `ran_out`: whether it ran as long as the limit set.
pub fn stopped(adapter: &str, message: &str, ran_out: bool) -> Option<Stopped> {
    match adapter {
        "lldb" => lldb_stopped(message),
        "gdb" => gdb_stopped(message),
        // pydevd's interrupt is a KeyboardInterrupt, which the expression could raise itself.
        "debugpy" => {
            (ran_out && message.starts_with("KeyboardInterrupt")).then_some(Stopped::TimeLimit)
        }
        "pdb" | "node" => message
            .starts_with(INTERRUPTED_WORDS)
            .then_some(Stopped::TimeLimit),
        _ => None,
    }
}

/// lldb-dap: `Execution was interrupted, reason: R.` When LLDB halts an expression at its limit,
/// R is whatever the thread last stopped for (`breakpoint 1.1`, `step over`, even a breakpoint
/// deleted since), as lldb-dap's expressions ignore breakpoints: only a signal is news.
fn lldb_stopped(message: &str) -> Option<Stopped> {
    let reason = message.strip_prefix("Execution was interrupted, reason: ")?;
    let reason = reason.trim_end_matches('.');
    match reason.strip_prefix("signal ") {
        Some(signal) if !is_interrupt_signal(signal) => Some(Stopped::Signal(signal.to_string())),
        _ => Some(Stopped::TimeLimit),
    }
}

/// The signals LLDB halts a process with, which are no fault of the expression.
fn is_interrupt_signal(words: &str) -> bool {
    ["SIGSTOP", "SIGINT", "SIGTRAP"]
        .iter()
        .any(|name| words.starts_with(name))
}

/// GDB: `The program being debugged timed out while in a function called from GDB.`, `... was
/// signaled while ...`, `... received signal SIGSEGV, Segmentation fault` (with
/// `unwind-on-signal`), `... stopped while in a function called from GDB.` (a breakpoint).
fn gdb_stopped(message: &str) -> Option<Stopped> {
    let rest = message.strip_prefix("The program being debugged ")?;
    if rest.starts_with("timed out") {
        Some(Stopped::TimeLimit)
    } else if let Some(signal) = rest.strip_prefix("received signal ") {
        Some(Stopped::Signal(signal.trim_end_matches('.').to_string()))
    } else if rest.starts_with("was signaled") {
        Some(Stopped::Signal("a signal".to_string()))
    } else if rest.starts_with("stopped while in a function called") {
        Some(Stopped::Breakpoint)
    } else {
        None
    }
}

/// Why `adapter` may answer no evaluation at all, for the error that says it dropped one.
pub fn dropped_because(adapter: &str) -> Option<&'static str> {
    match adapter {
        "debugpy" => Some("it drops one that raises SystemExit"),
        _ => None,
    }
}

/// What `adapter`, which interrupts evaluations, cannot interrupt: for the error of one that
/// outran its limit anyway.
pub fn uninterruptible(adapter: &str) -> Option<&'static str> {
    match adapter {
        // Only the main thread runs Python's signal handlers, which end a blocking call; in
        // another thread the interruption waits for the call to return.
        "pdb" => Some("it interrupts a call blocked in a sleep or a read only in the main thread"),
        _ => None,
    }
}

/// How an adapter holds the program after an evaluation stopped at a breakpoint in a function
/// it called, and how to get back.
pub fn held_in_call(adapter: &str) -> &'static str {
    match adapter {
        "gdb" => {
            "GDB keeps the program stopped in that call, below the frames it shows: 'debugger \
             finish' ends the call and returns to where the program was"
        }
        _ => "'debugger backtrace' shows where the program is",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lldb_tells_a_signal_from_its_own_limit() {
        assert_eq!(
            stopped(
                "lldb",
                "Execution was interrupted, reason: signal SIGSEGV: address not mapped to object (fault address: 0x0).",
                false
            ),
            Some(Stopped::Signal(
                "SIGSEGV: address not mapped to object (fault address: 0x0)".into()
            ))
        );
        for stale in [
            "breakpoint 1.1.",
            "breakpoint 1 which has been deleted.",
            "step over.",
            "signal SIGSTOP.",
        ] {
            let message = format!("Execution was interrupted, reason: {stale}");
            assert_eq!(
                stopped("lldb", &message, false),
                Some(Stopped::TimeLimit),
                "{stale}"
            );
        }
        assert_eq!(
            stopped("lldb", "use of undeclared identifier 'x'", true),
            None
        );
    }

    #[test]
    fn gdb_words_are_read() {
        for (message, expected) in [
            (
                "The program being debugged timed out while in a function called from GDB.",
                Some(Stopped::TimeLimit),
            ),
            (
                "The program being debugged received signal SIGSEGV, Segmentation fault",
                Some(Stopped::Signal("SIGSEGV, Segmentation fault".into())),
            ),
            (
                "The program being debugged stopped while in a function called from GDB.",
                Some(Stopped::Breakpoint),
            ),
            ("No symbol \"x\" in current context.", None),
        ] {
            assert_eq!(stopped("gdb", message, false), expected, "{message}");
        }
    }

    #[test]
    fn a_keyboard_interrupt_is_the_limit_only_once_it_ran_out() {
        assert_eq!(
            stopped("debugpy", "KeyboardInterrupt: ", true),
            Some(Stopped::TimeLimit)
        );
        assert_eq!(stopped("debugpy", "KeyboardInterrupt: ", false), None);
    }

    #[test]
    fn limits_are_set_in_each_adapters_terms() {
        let EvaluationLimit::Console(gdb) = limit("gdb") else {
            panic!("GDB's limit is set by console commands");
        };
        assert!(gdb(Duration::from_millis(2500)).contains(&"set direct-call-timeout 3".into()));
        let EvaluationLimit::Console(pydevd) = limit("debugpy") else {
            panic!("pydevd's limit is set by console commands");
        };
        assert!(
            pydevd(Duration::from_secs(10))[0]
                .ends_with("PYDEVD_INTERRUPT_THREAD_TIMEOUT = 10.000")
        );
        assert!(matches!(limit("delve"), EvaluationLimit::Unbounded));
    }
}
