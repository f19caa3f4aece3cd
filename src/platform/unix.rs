//! The platform layer on Linux and macOS. What the kernel tells of another process is read from
//! `/proc` on Linux and asked of libproc (`proc_pidinfo`, `proc_pidpath`, `proc_listchildpids`)
//! on macOS; a pid's listening ports are read from `/proc` on Linux and asked of `lsof` on
//! macOS.

use std::fs::{self, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use interprocess::local_socket::{GenericFilePath, ListenerOptions, Name, ToFsName};
use tokio::signal::unix::{Signal, SignalKind, signal};

mod tree;
#[cfg(target_os = "linux")]
pub use tree::wait_exits;
pub use tree::{contain_children, is_running, parent_pid, release_children, tagged_processes};
mod network;

pub use network::listening_ports;

/// The file that reads as empty and swallows writes.
pub const NULL_DEVICE: &str = "/dev/null";

/// The longest path, in bytes, a Unix socket can be bound or reached by: `sun_path` holds 108
/// bytes on Linux and 104 on macOS, one of them the terminating NUL.
#[cfg(target_os = "linux")]
pub const SOCKET_PATH_LIMIT: usize = 107;
#[cfg(not(target_os = "linux"))]
pub const SOCKET_PATH_LIMIT: usize = 103;

// ---- this process ------------------------------------------------------------------------

/// What std's runtime would set up before `main` and `cli/startup.rs` keeps: a closed stdin,
/// stdout or stderr reopened on `/dev/null` (so a socket opened later can never land on
/// descriptor 1 and receive our output), and SIGPIPE ignored (a write to a closed pipe returns
/// `EPIPE` instead of killing the process).
///
/// # Safety
///
/// Must run first thing, on the only thread, before anything opens a descriptor.
pub unsafe fn prepare_process() {
    // SAFETY: the caller's contract is these functions' own.
    unsafe {
        reopen_closed_standard_fds();
        ignore_sigpipe();
    }
}

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, as std's runtime does:
/// `open` returns the lowest free descriptor, so each fills the lowest closed one.
///
/// # Safety
///
/// As [`prepare_process`].
unsafe fn reopen_closed_standard_fds() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfd; a zero timeout does not block.
    while unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } == -1 {
        match io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            // poll itself cannot run (descriptor limit, memory): fall back to asking one by one.
            _ => {
                for fd in 0..3 {
                    // SAFETY: F_GETFD on any descriptor number is harmless.
                    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
                        && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
                    {
                        // SAFETY: as below.
                        unsafe { open_dev_null() };
                    }
                }
                return;
            }
        }
    }
    for pfd in fds {
        if pfd.revents & libc::POLLNVAL != 0 {
            // SAFETY: the descriptor is closed, so the open takes its number.
            unsafe { open_dev_null() };
        }
    }
}

/// Opens `/dev/null` read-write on the lowest free descriptor; aborts when it cannot, as std
/// does: printing to a standard stream that is not open would be unsound for std's handles.
///
/// # Safety
///
/// As [`prepare_process`].
unsafe fn open_dev_null() {
    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
        std::process::abort();
    }
}

/// Sets SIGPIPE to ignored, as std's runtime does by default.
///
/// # Safety
///
/// Must run while the process has one thread.
unsafe fn ignore_sigpipe() {
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE.
    if unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) } == libc::SIG_ERR {
        std::process::abort();
    }
}

/// The file-creation mask this process had before [`restrict_new_files`] (the user's, from the
/// command that started the daemon); unset: it was never restricted.
static USERS_FILE_MASK: std::sync::OnceLock<libc::mode_t> = std::sync::OnceLock::new();

/// Makes every file this process creates from now on the user's alone (umask 077), keeping the
/// mask it had for the programs it starts ([`give_users_file_mask`]).
pub fn restrict_new_files() {
    // SAFETY: umask only sets the process's file-creation mask.
    let before = unsafe { libc::umask(0o077) };
    let _ = USERS_FILE_MASK.set(before);
}

/// Gives a process this one starts the file-creation mask the user had ([`restrict_new_files`]
/// keeps the daemon's own files private, not the debugged program's: a program under
/// `debugger start` makes its files as it would from the user's shell).
pub fn give_users_file_mask(command: &mut tokio::process::Command) {
    let Some(&mask) = USERS_FILE_MASK.get() else {
        return; // never restricted: the child inherits the user's
    };
    // SAFETY: the closure runs in the forked child before exec and only calls umask, which is
    // async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            libc::umask(mask);
            Ok(())
        });
    }
}

/// Points stdin, stdout and stderr at `/dev/null`: the daemon, once it has said it is ready,
/// must never write to a terminal or a pipe its starter may have closed.
pub fn detach_standard_streams() {
    // SAFETY: plain descriptor calls on descriptors we own; failures leave stdio as it was.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            libc::dup2(null, 2);
            if null > 2 {
                libc::close(null);
            }
        }
    }
}

/// Whether this process runs as the superuser (package managers need no `sudo` then).
pub fn is_superuser() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// What names this user in a shared place (the runtime dir under the temp dir): the uid.
pub fn user_tag() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }.to_string()
}

// ---- starting processes ------------------------------------------------------------------

/// Starts `command` in a session of its own: its own process group, no controlling terminal,
/// so a terminal's Ctrl-C or hang-up never reaches the daemon it starts.
pub fn detach_from_terminal(command: &mut std::process::Command) {
    // SAFETY: setsid is async-signal-safe and runs in the child between fork and exec.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes a process we start receive SIGKILL when the daemon dies (Linux), so a daemon killed
/// outright leaves no adapter or debuggee behind. Elsewhere the reaper does that alone.
pub fn die_with_parent(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the forked child before exec and only calls prctl, which is
    // async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// The signal that ended a process, if one did.
pub fn exit_signal(status: &ExitStatus) -> Option<i32> {
    status.signal()
}

// ---- other processes ---------------------------------------------------------------------

/// Kills process `pid` outright (SIGKILL).
pub fn kill(pid: u32) -> io::Result<()> {
    let pid = libc::pid_t::try_from(pid)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pid out of range"))?;
    // SAFETY: kill has no memory-safety preconditions; a stale pid only yields ESRCH.
    if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Collects the exit of `pid` if it is a child of this process that has ended (a zombie), so it
/// leaves the process table; true when it did. A process the daemon adopted as a subreaper and
/// killed would otherwise stay a zombie until the daemon exits.
pub fn reap(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    let mut status = 0;
    // SAFETY: waitpid with WNOHANG only reads our own children's state into `status`.
    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) == pid }
}

/// This process's group, when this process leads it (a daemon started in a session of its own).
pub fn own_process_group() -> Option<i32> {
    // SAFETY: getpgrp and getpid have no preconditions.
    let (group, pid) = unsafe { (libc::getpgrp(), libc::getpid()) };
    (group == pid).then_some(group)
}

/// Kills every process of `group` (SIGKILL), the daemon's helpers among them.
pub fn kill_process_group(group: i32) {
    if group > 1 {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names the group.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

/// Starts a child in a process group of its own, so a signal to ours (a terminal's Ctrl-C)
/// does not reach it.
pub fn own_group(command: &mut std::process::Command) {
    command.process_group(0);
}

/// A process's start time, which tells a pid from its reuse: field 22 of /proc/PID/stat on
/// Linux, the BSD info's start time on macOS.
pub fn start_time(pid: u32) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.split_whitespace().nth(19)?.parse().ok()
    }
    #[cfg(target_os = "macos")]
    {
        bsd_info(pid).map(|info| info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// macOS's BSD facts of process `pid` (start time, parent, status), from libproc.
#[cfg(target_os = "macos")]
fn bsd_info(pid: u32) -> Option<libc::proc_bsdinfo> {
    let pid = libc::c_int::try_from(pid).ok()?;
    // SAFETY: a zeroed plain-data struct, and its size, for proc_pidinfo to fill.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: the buffer and its size are valid for the call.
    let filled = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            (&mut info as *mut libc::proc_bsdinfo).cast(),
            size,
        )
    };
    (filled == size).then_some(info)
}

/// The executable process `pid` runs.
pub fn executable_of(pid: u32) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        fs::read_link(format!("/proc/{pid}/exe")).ok()
    }
    #[cfg(target_os = "macos")]
    {
        use std::os::unix::ffi::OsStrExt;
        let pid = libc::c_int::try_from(pid).ok()?;
        let mut buffer = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
        // SAFETY: the buffer and its size are valid for the call.
        let length =
            unsafe { libc::proc_pidpath(pid, buffer.as_mut_ptr().cast(), buffer.len() as u32) };
        let length = usize::try_from(length).ok().filter(|n| *n > 0)?;
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(
            &buffer[..length],
        )))
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// The child processes of `parent`.
pub fn children_of(parent: u32) -> Vec<u32> {
    #[cfg(target_os = "linux")]
    {
        let Ok(entries) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| {
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                let stat = fs::read_to_string(entry.path().join("stat")).ok()?;
                (parent_of(&stat)? == parent).then_some(pid)
            })
            .collect()
    }
    #[cfg(target_os = "macos")]
    {
        let Ok(parent) = libc::pid_t::try_from(parent) else {
            return Vec::new();
        };
        let mut pids = vec![0 as libc::pid_t; 4096];
        let size = (pids.len() * std::mem::size_of::<libc::pid_t>()) as libc::c_int;
        // SAFETY: the buffer and its size in bytes are valid for the call, which returns the
        // number of pids it wrote.
        let count = unsafe { libc::proc_listchildpids(parent, pids.as_mut_ptr().cast(), size) };
        let count = usize::try_from(count).unwrap_or(0).min(pids.len());
        pids[..count]
            .iter()
            .filter_map(|pid| u32::try_from(*pid).ok())
            .collect()
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = parent;
        Vec::new()
    }
}

/// Whether a process `pid` exists (signal 0 checks without sending; EPERM means it exists but is
/// another user's).
pub fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 sends nothing and has no memory-safety preconditions.
    let sent = unsafe { libc::kill(pid, 0) } == 0;
    sent || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The parent pid in a `/proc/PID/stat` line: "PID (COMM) STATE PPID ...", where COMM may hold
/// spaces and parentheses, so the fields are counted from the last ')'.
#[cfg(any(target_os = "linux", test))]
fn parent_of(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Asks a running Node to open its inspector, as `node inspect -p PID` does: SIGUSR1.
pub fn open_node_inspector(pid: u32) -> Result<(), String> {
    let raw = libc::pid_t::try_from(pid).map_err(|_| format!("pid {pid} is out of range"))?;
    // SAFETY: kill(2) with a valid signal number has no memory-safety preconditions.
    if unsafe { libc::kill(raw, libc::SIGUSR1) } != 0 {
        return Err(format!(
            "cannot signal process {pid} to open its inspector: {}",
            io::Error::last_os_error()
        ));
    }
    Ok(())
}

// ---- files and privacy -------------------------------------------------------------------

/// Creates `dir` (and its parents) readable by this user alone (0700).
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Why a directory is not private to this user, as (what is wrong, what to do), or `None`
/// when it is: owned by this user, and closed to group and others.
pub fn privacy_problem(dir: &Path, meta: &Metadata) -> Option<(String, String)> {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    if meta.uid() != uid {
        return Some((
            format!("is owned by uid {}, not by you (uid {uid})", meta.uid()),
            "remove it".to_string(),
        ));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Some((
            format!("is open to other users (mode {mode:o})"),
            format!("run 'chmod 700 {}' if that is safe", dir.display()),
        ));
    }
    None
}

/// A file's permission bits (octal, as `ls` shows them) and its owner's uid, for `doctor`.
pub fn mode_and_owner(meta: &Metadata) -> (Option<String>, Option<u32>) {
    (
        Some(format!("{:o}", meta.permissions().mode() & 0o777)),
        Some(meta.uid()),
    )
}

/// Opens files readable and writable by this user alone (0600).
pub fn private_file(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o600)
}

/// Whether a file is a program this user may run.
pub fn is_executable(meta: &Metadata) -> bool {
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

/// Whether two metadata describe the same file (a handle still at its path, not renamed away).
pub fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.ino() == b.ino() && a.dev() == b.dev()
}

// ---- signals -----------------------------------------------------------------------------

/// The signals that ask this process to end: SIGINT and SIGTERM, and, for a process with no
/// terminal of its own to lose (the daemon), SIGHUP.
pub struct Interrupts {
    int: Signal,
    term: Signal,
    hup: Option<Signal>,
}

impl Interrupts {
    pub fn install(with_hangup: bool) -> io::Result<Interrupts> {
        Ok(Interrupts {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: if with_hangup {
                Some(signal(SignalKind::hangup())?)
            } else {
                None
            },
        })
    }

    /// The name of the next signal to arrive.
    pub async fn next(&mut self) -> &'static str {
        let hup = async {
            match self.hup.as_mut() {
                Some(hup) => hup.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = self.int.recv() => "SIGINT",
            _ = self.term.recv() => "SIGTERM",
            _ = hup => "SIGHUP",
        }
    }
}

// ---- network -----------------------------------------------------------------------------

/// Asks the kernel to acknowledge what was read at once (Linux's TCP_QUICKACK, which is not
/// sticky); elsewhere nothing.
pub fn acknowledge_now(stream: &tokio::net::TcpStream) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: a valid socket descriptor, and a c_int option value of the size given.
        unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_QUICKACK,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stream;
}

// ---- the session socket ------------------------------------------------------------------

/// Listener options as they are: the socket file is in the private runtime dir, whose
/// permissions keep others out, and the daemon's umask makes the file the user's alone.
pub fn private_listener(options: ListenerOptions<'_>) -> io::Result<ListenerOptions<'_>> {
    Ok(options)
}

/// The local socket at `path` in the runtime dir: a Unix domain socket, a file whose directory's
/// permissions keep others out.
pub fn local_socket_name(path: &Path) -> io::Result<Name<'static>> {
    path.to_path_buf().to_fs_name::<GenericFilePath>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_parent_from_proc_stat() {
        assert_eq!(parent_of("4242 (go-ledger) t 4200 4242 1 0 -1"), Some(4200));
        assert_eq!(parent_of("7 (a (b) c) S 1 7 7 0"), Some(1));
        assert_eq!(parent_of("garbage"), None);
    }

    #[test]
    fn this_process_is_seen_with_its_start_time_and_executable() {
        let me = std::process::id();
        assert!(process_exists(me));
        let started = start_time(me);
        assert!(started.is_some());
        assert_eq!(start_time(me), started, "stable");
        assert_eq!(start_time(u32::MAX), None);
        let exe = executable_of(me).expect("our executable");
        assert_eq!(Some(exe), std::env::current_exe().ok());
        assert_eq!(own_process_group().is_some(), {
            // SAFETY: getpgrp and getpid have no preconditions.
            unsafe { libc::getpgrp() == libc::getpid() }
        });
    }

    #[test]
    fn a_private_dir_is_made_private_and_an_open_one_is_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("private");
        create_private_dir(&dir).expect("create");
        let meta = fs::metadata(&dir).expect("metadata");
        assert_eq!(privacy_problem(&dir, &meta), None);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        let meta = fs::metadata(&dir).expect("metadata");
        let (what, fix) = privacy_problem(&dir, &meta).expect("refused");
        assert!(what.contains("mode 755"), "{what}");
        assert!(fix.contains("chmod 700"), "{fix}");
    }

    #[test]
    fn a_killed_child_is_told_by_its_signal() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        assert!(children_of(std::process::id()).contains(&child.id()));
        kill(child.id()).expect("kill");
        let status = child.wait().expect("wait");
        assert_eq!(exit_signal(&status), Some(libc::SIGKILL));
    }
}
