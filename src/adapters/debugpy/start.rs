//! What debugpy's start costs that no one asked for, left out (issue 22): the adapter started
//! without describing its environment and acknowledging its reads at once, and, in the program's
//! process once `initialized` has come, pydevd's socket without Nagle's delay and debugpy's last
//! description skipped.
//!
//! Apart from `mod.rs` because each of these reaches into debugpy's internals (its log module,
//! pydevd's socket), guarded so that a debugpy laid out otherwise runs as it would without them.

/// Python run in the debuggee (a frameless `evaluate`, once `initialized` has come) that turns
/// Nagle's algorithm off on pydevd's socket to the adapter. pydevd writes each message as two
/// `sendall`s, the header and then the body; with Nagle on, the body waits for the header's
/// acknowledgement, which the adapter's end delays by 40 ms: every answer and event of the
/// debuggee came 40-60 ms late on the bench's machine (5 requests after a stop cost 290 ms, 8 ms
/// without). Only pydevd's own connection changes; the program's code and state are untouched.
/// A pydevd laid out otherwise (no `writer.sock`) is left as it is.
pub(super) const NO_DELAY: &str = "(lambda socket, sock: sock and sock.setsockopt(socket.IPPROTO_TCP, \
    socket.TCP_NODELAY, 1))(__import__('socket'), getattr(getattr(\
    __import__('pydevd').get_global_debugger(), 'writer', None), 'sock', None))";

/// Python that keeps debugpy from describing its environment where no log keeps the
/// description: `debugpy.common.log.describe_environment` lists every installed package (through
/// `importlib.metadata`, reading each one's metadata) at every start of the adapter, the launcher
/// and the program, and again as the program is about to run, whether or not anything logs at
/// the `info` level. 0.4-0.6 s each on the bench's machine (102 packages, load 5-8); the last one
/// runs under pydevd's tracer, after `configurationDone`: 1.3 s of the 1.4 s from there to a
/// breakpoint on the program's first call. With a log asked for (`--log-dir`,
/// `DEBUGPY_LOG_DIR`), it describes the environment in that log, where it is wanted.
const QUIET_ENVIRONMENT: &str = include_str!("quiet_environment.py");

/// How the adapter is started: `python -m debugpy.adapter` (what runs, argument for argument,
/// with `runpy` as `-m` does and the locale set as its `__main__` does), after two changes of its
/// own process:
///
/// - debugpy's environment report left out ([`QUIET_ENVIRONMENT`]): the adapter answered
///   `initialize` in 329 ms instead of 725 ms (medians of 6, load 5-7);
/// - what it reads from its sockets acknowledged at once (`quick_ack.py`: Linux's
///   `TCP_QUICKACK`, set before each read as it does not stay set). pydevd writes each message
///   as a header and then a body with Nagle on, so the body waits for the header's
///   acknowledgement, which the adapter's end delayed by 40 ms: five such waits come before
///   `initialized`, before [`NO_DELAY`] can be set in the program's process (`launch` ->
///   `initialized` 1,104-1,360 ms against 1,010-1,121 ms with it, load 5.6).
pub(super) const ADAPTER_MAIN: &str = concat!(
    include_str!("quiet_environment.py"),
    include_str!("quick_ack.py"),
    "import locale, runpy
try:
    locale.setlocale(locale.LC_ALL, '')
except Exception:
    pass
runpy.run_module('debugpy.adapter', run_name='__main__', alter_sys=True)
"
);

/// [`QUIET_ENVIRONMENT`] in the program's process, as one console expression run in a namespace
/// of its own (debugpy's last description comes after `configurationDone`, as the program is
/// about to run; the ones before it cannot be reached). Told it runs there (`_IN_PROGRAM`): it
/// then puts no Python function of its own in the program's way.
pub(super) fn quiet_debuggee() -> String {
    let source = serde_json::to_string(QUIET_ENVIRONMENT).unwrap_or_default();
    format!("exec({source}, {{'_IN_PROGRAM': True}})")
}

/// [`crate::adapters::WarmPolicy::KeptLaunch`]: the program's pid, and
/// `watched_paths.py` run in the kept program's process in a namespace of its own, answered as
/// hexadecimal JSON.
pub(super) fn kept_program_facts() -> String {
    let source = serde_json::to_string(include_str!("../watched_paths.py")).unwrap_or_default();
    format!(
        "(lambda ns: (exec({source}, ns), __import__('json').dumps({{'pid': __import__('os').getpid(), \
         'watched': ns['watched_paths']()}}).encode().hex())[1])({{}})"
    )
}
