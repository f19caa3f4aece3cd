//! Which commands do what to the program, as the dispatcher and the server need to know before
//! they serve one: read it where it stopped, run it, or end the daemon.

use crate::ipc::protocol::Command;

/// Whether a command reads (or changes) the program where it is stopped: its answer would be
/// wrong, not just late, were the program resumed half-way through.
pub(super) fn reads_the_stop(command: &Command) -> bool {
    matches!(
        command,
        Command::Context
            | Command::Backtrace { .. }
            | Command::BacktraceAll { .. }
            | Command::Threads
            | Command::SelectThread { .. }
            | Command::SelectFrame(_)
            | Command::Locals { .. }
            | Command::Evaluate { .. }
            | Command::DisplayAdd { .. }
            | Command::Raw { .. }
            | Command::SetVariable { .. }
            | Command::MemoryRead { .. }
            | Command::Disassemble { .. }
    )
}

/// Whether a command would run the program, change it, or set it up to run (breakpoints,
/// exception stops): what a core dump cannot do. `restart` is refused by `restart` itself.
pub(super) fn would_run(command: &Command) -> bool {
    matches!(
        command,
        Command::Resume { .. }
            | Command::Pause { .. }
            | Command::SetVariable { .. }
            | Command::BreakpointAdd(_)
            | Command::BreakpointAddMany { .. }
            | Command::BreakpointEnable { .. }
            | Command::BreakpointModify { .. }
            | Command::Catch {
                filters: Some(_),
                ..
            }
    )
}

/// Whether a request needs the daemon to shut down after answering.
pub fn ends_daemon(command: &Command) -> bool {
    matches!(command, Command::Stop | Command::Detach)
}
