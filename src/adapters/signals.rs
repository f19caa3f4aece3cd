//! How an adapter tells the signals a program stops on or dies of, which each does its own way:
//! lldb-dap names a stop's signal in its description and gives a death by one as an exit with
//! its number; GDB names neither, but answers for them in expressions; debugpy gives 256 − N.
//! The session reads [`SignalReporting`] to tell an end truly (see `session::events`).

/// How an adapter's own log said the program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoggedEnd {
    /// It exited (with the code the `exited` event gives).
    Exited,
    /// A signal killed it.
    Signal(i32),
}

/// What the session needs to know of an adapter's way with signals.
#[derive(Clone, Copy)]
pub struct SignalReporting {
    /// A death by a signal is reported as an exit with the signal's number (lldb-dap): such an
    /// exit after a stop on that signal is the death by it.
    pub signal_as_exit_code: bool,
    /// A death by signal N is reported as an exit with code −N (Delve: "has exited with status
    /// -9" after a SIGKILL), which no program can exit with on Unix.
    pub signal_as_negative_code: bool,
    /// An expression that evaluates, once the program has ended, to the number of the signal
    /// that killed it, or to something else after an exit (GDB's `$_exitsignal`), for an adapter
    /// whose `exited` event cannot tell (GDB says code 0 for both).
    pub exit_signal_expression: Option<&'static str>,
    /// An expression giving the number of the signal the program stopped on, for an adapter
    /// whose `signal` stop does not name it (GDB's `$_siginfo.si_signo`).
    pub stop_signal_expression: Option<&'static str>,
    /// Reads a line of the adapter's console output that records how the program ended, sent
    /// before its `exited` event; `None`: not such a line. (LLDB's gdb-remote log, which its launch turns on, holds
    /// lldb-server's exit packet: `X09` for SIGKILL, where the `exited` event says only 9.)
    pub end_in_console: Option<fn(&str) -> Option<LoggedEnd>>,
    /// Whether a console line is the adapter's own log (kept out of the daemon's log at `info`,
    /// and out of the adapter's last words), as opposed to what it means to tell.
    pub is_log_line: fn(&str) -> bool,
    /// The code the adapter gives a program that died while it held it stopped (lldb-dap: -1,
    /// its helper exiting without a word). On Linux a process stopped under a debugger (in
    /// ptrace-stop) can be ended by SIGKILL alone, every other signal waiting until it runs
    /// again: such an end is a death by SIGKILL.
    pub death_while_stopped_code: Option<i64>,
    /// What an exit code may mean besides an exit with it, for the report's note.
    pub exit_code_note: fn(i64) -> Option<String>,
}

impl SignalReporting {
    /// An adapter's with no quirk of this kind.
    pub const DEFAULT: SignalReporting = SignalReporting {
        signal_as_exit_code: false,
        signal_as_negative_code: false,
        exit_signal_expression: None,
        stop_signal_expression: None,
        end_in_console: None,
        is_log_line: |_| false,
        death_while_stopped_code: None,
        exit_code_note: |_| None,
    };
}
