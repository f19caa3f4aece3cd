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
//! | the daemon's files | umask 077, files 0600 | the runtime dir's ACL, inherited |
//! | the programs it starts | the umask the daemon started with, restored before exec | nothing (no umask) |
//! | the session socket | a Unix socket in the runtime dir | a named pipe named after that path |
//! | runtime dir privacy | 0700, owned by the user, checked | made with a protected DACL for the user's SID; owner and DACL checked (`acl.rs`) |
//! | who may connect | the runtime dir's permissions | the pipe's DACL: this user's SID alone |
//! | children dying with the daemon | `PR_SET_PDEATHSIG` (Linux), the reaper, the process group | a kill-on-close Job Object |
//! | the program's whole tree (`tree.rs`) | a child subreaper (Linux), a tag in the environment | the Job Object |
//! | adopted orphans' exits (`adopted.rs`) | collected at SIGCHLD, only of processes seen with another parent | nothing (no zombies) |
//! | killing, start times, executables, children of a pid | signals and `/proc` (Linux) | process handles, Toolhelp |
//! | asking to end | SIGINT, SIGTERM, SIGHUP | Ctrl-C, Ctrl-Break, console close |
//! | a pid's listening ports | `/proc` (Linux), `lsof` (macOS) | `GetExtendedTcpTable` |
//! | a running Node's inspector | SIGUSR1 | `node -e "process._debugProcess(PID)"` |
//! | the launched program's stdout and stderr | two FIFOs, or a pty (`--tty`) | not yet: the adapter's own output |
//! | signal names; how an unreaped process ended | the C library's numbers; `/proc` (Linux) | none |
//! | the C library's path, for a warm adapter to load | the dynamic loader's list (Linux) | none |
//! | a path's kind; opening one to read without waiting (`file_kind.rs`) | FIFOs, sockets and devices told apart; `O_NONBLOCK` | neither file nor directory is `Other`; a plain open |
//!
//! The session lock needs no platform code: `File::try_lock` is `flock` on Unix and
//! `LockFileEx` on Windows, and either is dropped by the OS when the process dies.

#[cfg(any(windows, test))]
mod acl;
mod adopted;
mod c_library;
mod cores;
mod file_kind;
mod private_files;
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

pub use adopted::{ChildExits, may_adopt, may_adopt_line, reap_adopted, release_adopted};
pub use c_library::c_library_path;
pub use cores::{Limit, core_pattern, core_size_limit};
pub use file_kind::{FileKind, open_for_reading_at_once};
pub use os::{
    Interrupts, NULL_DEVICE, SOCKET_PATH_LIMIT, acknowledge_now, children_of, contain_children,
    create_private_dir, detach_from_terminal, detach_standard_streams, die_with_parent,
    executable_of, exit_signal, give_users_file_mask, is_executable, is_running, is_superuser,
    kill, kill_process_group, listening_ports, local_socket_name, mode_and_owner,
    open_node_inspector, own_group, own_process_group, parent_pid, prepare_process,
    privacy_problem, private_file, private_listener, process_exists, reap, release_children,
    restrict_new_files, same_file, start_time, tagged_processes, user_tag,
};
pub use private_files::{STATE_DIR_CHECKED, open_private_append};
pub use program_stdio::{ProgramStdio, StreamReader};
pub use signals::{Ended, signal_name, signal_number, unreaped_end};

#[cfg(target_os = "linux")]
use os::wait_exits;
mod tree;
pub use tree::{
    TREE_TAG_VARIABLE, descendants_of, end_below, end_tree, new_tree_tag, tag_this_tree,
    wait_for_death,
};

/// An OS family, for what differs by OS outside this layer and is only text or a search (package
/// managers, install hints, executable names): a value, not a `cfg`, so that Linux's test run
/// checks the Windows and macOS forms too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux, and any Unix other than macOS.
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The OS this runs on.
    pub const CURRENT: Os = if cfg!(windows) {
        Os::Windows
    } else if cfg!(target_os = "macos") {
        Os::MacOs
    } else {
        Os::Linux
    };

    /// Every family, for tests of text per OS.
    pub const ALL: [Os; 3] = [Os::Linux, Os::MacOs, Os::Windows];

    /// The file name of the program `stem`: `stem.exe` on Windows.
    pub fn executable(self, stem: &str) -> String {
        match self {
            Os::Windows => format!("{stem}.exe"),
            _ => stem.to_string(),
        }
    }

    /// The file name of the launcher script `stem` (Maven's `mvn`, `mvnw`): `stem.cmd` on
    /// Windows.
    pub fn script(self, stem: &str) -> String {
        match self {
            Os::Windows => format!("{stem}.cmd"),
            _ => stem.to_string(),
        }
    }

    /// The file name of the batch file `stem` (Gradle's `gradle`, `gradlew`): `stem.bat` on
    /// Windows.
    pub fn batch(self, stem: &str) -> String {
        match self {
            Os::Windows => format!("{stem}.bat"),
            _ => stem.to_string(),
        }
    }
}

/// The one child process of `parent`, or `None` when it has none or several.
pub fn only_child(parent: u32) -> Option<u32> {
    match children_of(parent).as_slice() {
        [child] => Some(*child),
        _ => None,
    }
}
