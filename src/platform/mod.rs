//! Every OS-specific piece, behind one interface: no other file names `libc`, a Unix or Windows
//! extension trait, or `/proc` (`tests/platform_calls.rs` holds that). `unix.rs` serves Linux and
//! macOS, `windows.rs` Windows; both export the same names, and the cross check
//! (`scripts/check-cross.sh`) compiles each side for its target.
//!
//! What it covers, and the two forms:
//!
//! | concern | Unix | Windows |
//! | --- | --- | --- |
//! | process set-up before `main` | standard descriptors reopened, SIGPIPE ignored | nothing |
//! | starting the daemon detached | `setsid` | `DETACHED_PROCESS \| CREATE_NEW_PROCESS_GROUP` |
//! | the daemon's files | umask 077, files 0600 | the runtime dir's inherited ACL |
//! | the session socket | a Unix socket in the runtime dir | a named pipe named after that path |
//! | runtime dir privacy | 0700, owned by the user, checked | under the user's profile (not checked yet) |
//! | who may connect | the runtime dir's permissions | the pipe's DACL: this user's SID alone |
//! | children dying with the daemon | `PR_SET_PDEATHSIG` (Linux), the reaper, the process group | a kill-on-close Job Object |
//! | killing, start times, executables, children of a pid | signals and `/proc` (Linux) | process handles, Toolhelp |
//! | asking to end | SIGINT, SIGTERM, SIGHUP | Ctrl-C, Ctrl-Break, console close |
//! | a running Node's inspector | SIGUSR1 | not available: `--inspect` and `--connect` |
//! | the launched program's stdout and stderr | two FIFOs, or a pty (`--tty`) | not yet: the adapter's own output |
//! | signal names; how an unreaped process ended | the C library's numbers; `/proc` (Linux) | none |
//!
//! The session lock needs no platform code: `File::try_lock` is `flock` on Unix and
//! `LockFileEx` on Windows, and either is dropped by the OS when the process dies.

mod program_stdio;
mod signals;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

pub use os::{
    Interrupts, NULL_DEVICE, acknowledge_now, children_of, contain_children, create_private_dir,
    detach_from_terminal, detach_standard_streams, die_with_parent, executable_of, exit_signal,
    is_executable, is_superuser, kill, kill_process_group, listening_ports, local_socket_name,
    mode_and_owner, open_node_inspector, own_group, own_process_group, prepare_process,
    privacy_problem, private_file, private_listener, process_exists, restrict_new_files, same_file,
    start_time, user_tag,
};
pub use program_stdio::{ProgramStdio, StreamReader};
pub use signals::{Ended, signal_name, signal_number, unreaped_end};

/// The one child process of `parent`, or `None` when it has none or several.
pub fn only_child(parent: u32) -> Option<u32> {
    match children_of(parent).as_slice() {
        [child] => Some(*child),
        _ => None,
    }
}
