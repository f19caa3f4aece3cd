//! The platform layer on Windows.
//!
//! Processes are reached through their handles (`OpenProcess`), a pid's children through a
//! Toolhelp snapshot, and the daemon's whole tree is held in a Job Object that kills every
//! process in it when the daemon's handle closes, however the daemon ends. A session's socket is
//! a named pipe. Who may reach the session (the runtime dir's owner and DACL, the pipe's DACL)
//! is `windows/security.rs`'s.

use std::fs::{Metadata, OpenOptions};
use std::io;
use std::os::windows::io::IntoRawHandle;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use interprocess::local_socket::{GenericNamespaced, Name, ToNsName};
use tokio::signal::windows::{CtrlBreak, CtrlC, CtrlClose, ctrl_break, ctrl_c, ctrl_close};
use windows_sys::Win32::Foundation::{
    CloseHandle, ERROR_INSUFFICIENT_BUFFER, FILETIME, HANDLE, HANDLE_FLAG_INHERIT,
    INVALID_HANDLE_VALUE, NO_ERROR, SetHandleInformation,
};
use windows_sys::Win32::NetworkManagement::IpHelper::{
    GetExtendedTcpTable, MIB_TCP6ROW_OWNER_PID, MIB_TCPROW_OWNER_PID, TCP_TABLE_OWNER_PID_LISTENER,
};
use windows_sys::Win32::Networking::WinSock::{AF_INET, AF_INET6};
use windows_sys::Win32::System::Console::{
    GetStdHandle, STD_ERROR_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS, GetCurrentProcess, GetExitCodeProcess,
    GetProcessTimes, OpenProcess, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_TERMINATE, QueryFullProcessImageNameW, TerminateProcess,
};

mod security;

pub use security::{create_private_dir, privacy_problem, private_listener};

/// The file that reads as empty and swallows writes.
pub const NULL_DEVICE: &str = "NUL";

// ---- this process ------------------------------------------------------------------------

/// Nothing to do: Windows has no SIGPIPE, and a missing standard handle stays missing.
///
/// # Safety
///
/// None needed; `unsafe` to match the Unix side.
pub unsafe fn prepare_process() {}

/// Nothing to do: files created in the private runtime dir inherit its ACL.
pub fn restrict_new_files() {}

/// Nothing to give: Windows has no file-creation mask.
pub fn give_users_file_mask(command: &mut tokio::process::Command) {
    let _ = command;
}

/// Points the standard handles at `NUL`: the daemon, once it has said it is ready, must never
/// write to a pipe its starter may have closed.
pub fn detach_standard_streams() {
    let Ok(null) = OpenOptions::new().read(true).write(true).open(NULL_DEVICE) else {
        return;
    };
    // The handle stays open for the process's life, as a standard handle must.
    let handle = null.into_raw_handle() as HANDLE;
    let mut closed: Vec<HANDLE> = Vec::new();
    for which in [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
        // SAFETY: a valid, open handle for a standard-handle slot. The handle it replaces (the
        // starter's pipe) is closed once, so the starter sees its end.
        unsafe {
            let old = GetStdHandle(which);
            SetStdHandle(which, handle);
            if !old.is_null() && old != INVALID_HANDLE_VALUE && !closed.contains(&old) {
                CloseHandle(old);
                closed.push(old);
            }
        }
    }
}

/// Our standard handles, inherited from whoever started us (a shell's pipe, say), would pass
/// to every process we start, since std starts children with handle inheritance on; a daemon
/// holding that pipe keeps its reader waiting for an end that never comes, so
/// `out=$(debugger start …)` would never return. They are made not inheritable; a child's own
/// standard handles are std's explicit duplicates, which this does not touch.
fn keep_standard_handles_from_children() {
    for which in [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
        // SAFETY: GetStdHandle has no preconditions; the flag is cleared only on a real handle.
        unsafe {
            let handle = GetStdHandle(which);
            if !handle.is_null() && handle != INVALID_HANDLE_VALUE {
                SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0);
            }
        }
    }
}

/// Whether this process runs elevated (as an administrator), which Chocolatey needs to install;
/// winget and Scoop install for the user without it.
pub fn is_superuser() -> bool {
    security::is_elevated()
}

/// What names this user in a shared place: the user name.
pub fn user_tag() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "user".to_string())
}

// ---- starting processes ------------------------------------------------------------------

/// Starts `command` with no console and in a process group of its own, so a console's Ctrl-C
/// never reaches the daemon it starts.
pub fn detach_from_terminal(command: &mut std::process::Command) {
    command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
    keep_standard_handles_from_children();
}

/// Nothing per process: the daemon holds its whole tree in a Job Object ([`contain_children`]).
pub fn die_with_parent(command: &mut tokio::process::Command) {
    let _ = command;
}

/// The daemon's Job Object, kept for [`release_children`] (as an address: a `HANDLE` is a
/// pointer, which a static cannot hold).
static JOB: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// Puts this process, and so every process it starts, in a Job Object that kills them all when
/// its last handle closes: when the daemon ends, however it ends, nothing it started lives on.
pub fn contain_children() {
    // SAFETY: plain Win32 calls with valid arguments; the job handle is kept open on purpose
    // for the process's life (closing it would kill the job).
    unsafe {
        let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
        if job.is_null() {
            return;
        }
        if set_kill_on_close(job, true) && AssignProcessToJobObject(job, GetCurrentProcess()) != 0 {
            let _ = JOB.set(job as usize);
        } else {
            CloseHandle(job);
        }
    }
}

/// After `detach`: the job no longer kills its processes when the daemon exits, so the program
/// and all it started run on.
pub fn release_children() {
    if let Some(job) = JOB.get() {
        // SAFETY: the handle was stored by `contain_children` and is never closed.
        unsafe {
            set_kill_on_close(*job as HANDLE, false);
        }
    }
}

/// Sets or clears the job's kill-on-close limit; false when Windows refused.
///
/// # Safety
///
/// `job` must be an open Job Object handle.
unsafe fn set_kill_on_close(job: HANDLE, on: bool) -> bool {
    // SAFETY: a zeroed plain-data struct, its size, and a valid handle.
    unsafe {
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
        if on {
            limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        }
        SetInformationJobObject(
            job,
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        ) != 0
    }
}

/// Windows reports no signal: a process killed by another ends with the code it was given.
pub fn exit_signal(status: &ExitStatus) -> Option<i32> {
    let _ = status;
    None
}

// ---- other processes ---------------------------------------------------------------------

/// An open process handle, closed when dropped.
struct Process(HANDLE);

impl Process {
    fn open(pid: u32, access: u32) -> Option<Process> {
        // SAFETY: OpenProcess with a pid and access rights; a null handle means failure.
        let handle = unsafe { OpenProcess(access, 0, pid) };
        (!handle.is_null()).then_some(Process(handle))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and open.
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// Kills process `pid` outright.
pub fn kill(pid: u32) -> io::Result<()> {
    let process = Process::open(pid, PROCESS_TERMINATE).ok_or_else(io::Error::last_os_error)?;
    // SAFETY: a valid handle with PROCESS_TERMINATE access.
    if unsafe { TerminateProcess(process.0, 1) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// No process groups to lead: the Job Object holds the daemon's tree.
pub fn own_process_group() -> Option<i32> {
    None
}

/// A Windows process leaves no zombie to collect: its handle's holders keep only its exit code.
pub fn reap(_pid: u32) -> bool {
    false
}

/// No process groups: see [`own_process_group`].
pub fn kill_process_group(group: i32) {
    let _ = group;
}

/// Starts a child in a process group of its own, so a console's Ctrl-C does not reach it.
pub fn own_group(command: &mut std::process::Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

/// A process's creation time, which tells a pid from its reuse.
pub fn start_time(pid: u32) -> Option<u64> {
    let process = Process::open(pid, PROCESS_QUERY_LIMITED_INFORMATION)?;
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: a valid handle and four FILETIMEs to write.
    let ok =
        unsafe { GetProcessTimes(process.0, &mut created, &mut exited, &mut kernel, &mut user) };
    (ok != 0).then(|| (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
}

/// The executable process `pid` runs.
pub fn executable_of(pid: u32) -> Option<PathBuf> {
    let process = Process::open(pid, PROCESS_QUERY_LIMITED_INFORMATION)?;
    let mut buffer = vec![0u16; 32 * 1024];
    let mut size = buffer.len() as u32;
    // SAFETY: a valid handle, a buffer of `size` UTF-16 units, and its size to update.
    let ok = unsafe {
        QueryFullProcessImageNameW(
            process.0,
            PROCESS_NAME_WIN32,
            buffer.as_mut_ptr(),
            &mut size,
        )
    };
    if ok == 0 {
        return None;
    }
    use std::os::windows::ffi::OsStringExt;
    let name = std::ffi::OsString::from_wide(&buffer[..size as usize]);
    Some(PathBuf::from(name))
}

/// Whether a process `pid` exists.
pub fn process_exists(pid: u32) -> bool {
    Process::open(pid, PROCESS_QUERY_LIMITED_INFORMATION).is_some()
}

/// Whether `pid` is a live process: not one that ended and is kept only by an open handle.
pub fn is_running(pid: u32) -> bool {
    /// `STILL_ACTIVE`: the exit code of a process that has not ended.
    const STILL_ACTIVE: u32 = 0x103;
    let Some(process) = Process::open(pid, PROCESS_QUERY_LIMITED_INFORMATION) else {
        return false;
    };
    let mut code = 0u32;
    // SAFETY: a valid handle with query access, and a u32 to write.
    let ok = unsafe { GetExitCodeProcess(process.0, &mut code) };
    ok != 0 && code == STILL_ACTIVE
}

/// The processes carrying `variable=tag` in their environment: not read on Windows (it takes
/// reading another process's memory), and not needed there: the daemon's Job Object ends its
/// whole tree when the daemon ends, however it ends.
pub fn tagged_processes(variable: &str, tag: &str) -> Vec<u32> {
    let _ = (variable, tag);
    Vec::new()
}

/// The parent of process `pid`, from a snapshot of every process (Windows keeps the pid of a
/// parent that has ended).
pub fn parent_pid(pid: u32) -> Option<u32> {
    let mut parent = None;
    // SAFETY: a snapshot handle, checked, walked with a correctly sized entry, then closed.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        if snapshot == INVALID_HANDLE_VALUE {
            return None;
        }
        let mut entry: PROCESSENTRY32W = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut more = Process32FirstW(snapshot, &mut entry) != 0;
        while more {
            if entry.th32ProcessID == pid {
                parent = Some(entry.th32ParentProcessID);
                break;
            }
            more = Process32NextW(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
    }
    parent
}

/// The child processes of `parent`, from a snapshot of every process.
pub fn children_of(parent: u32) -> Vec<u32> {
    let mut children = Vec::new();
    // SAFETY: a snapshot handle, checked, walked with a correctly sized entry, then closed.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        if snapshot == INVALID_HANDLE_VALUE {
            return children;
        }
        let mut entry: PROCESSENTRY32W = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut more = Process32FirstW(snapshot, &mut entry) != 0;
        while more {
            if entry.th32ParentProcessID == parent {
                children.push(entry.th32ProcessID);
            }
            more = Process32NextW(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
    }
    children
}

/// The TCP ports process `pid` listens on, IPv4 and IPv6, from the system's tables of listening
/// sockets and their owners (`GetExtendedTcpTable`, `TCP_TABLE_OWNER_PID_LISTENER`).
pub fn listening_ports(pid: u32) -> Vec<u16> {
    let mut ports: Vec<u16> = listeners()
        .into_iter()
        .filter(|(owner, _)| *owner == pid)
        .map(|(_, port)| port)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// Every listening TCP socket, IPv4 and IPv6, as (owner's pid, port).
fn listeners() -> Vec<(u32, u16)> {
    let mut found = Vec::new();
    for family in [AF_INET, AF_INET6] {
        let Some(table) = listener_table(family) else {
            continue;
        };
        // A table is a row count, then its rows: both row types hold u32s only, so they start
        // at the next u32 and the buffer (of u32s) keeps them aligned.
        let count = table.first().copied().unwrap_or(0) as usize;
        let bytes = table.len() * 4;
        let rows = |row_size: usize| {
            (0..count)
                .map(move |i| 4 + i * row_size)
                .take_while(move |at| at + row_size <= bytes)
                .map(|at| table.as_ptr().cast::<u8>().wrapping_add(at))
        };
        if family == AF_INET {
            for row in rows(std::mem::size_of::<MIB_TCPROW_OWNER_PID>()) {
                // SAFETY: a whole row inside the table, aligned (see above).
                let row = unsafe { &*row.cast::<MIB_TCPROW_OWNER_PID>() };
                found.push((row.dwOwningPid, port_of(row.dwLocalPort)));
            }
        } else {
            for row in rows(std::mem::size_of::<MIB_TCP6ROW_OWNER_PID>()) {
                // SAFETY: as above.
                let row = unsafe { &*row.cast::<MIB_TCP6ROW_OWNER_PID>() };
                found.push((row.dwOwningPid, port_of(row.dwLocalPort)));
            }
        }
    }
    found
}

/// A port as the TCP tables hold it: in network byte order, in the low 16 bits.
fn port_of(raw: u32) -> u16 {
    u16::from_be(raw as u16)
}

/// The table of listening TCP sockets of one address family, with their owners' pids, as u32s
/// (the alignment of its rows), or `None` when it cannot be read.
fn listener_table(family: u16) -> Option<Vec<u32>> {
    let mut size = 0u32;
    for _ in 0..4 {
        let mut buffer = vec![0u32; (size as usize).div_ceil(4).max(1)];
        size = (buffer.len() * 4) as u32;
        // SAFETY: a writable buffer of `size` bytes, and its size to update.
        let status = unsafe {
            GetExtendedTcpTable(
                buffer.as_mut_ptr().cast(),
                &mut size,
                0,
                u32::from(family),
                TCP_TABLE_OWNER_PID_LISTENER,
                0,
            )
        };
        match status {
            NO_ERROR => return Some(buffer),
            // The table grew between the calls: try again with the size it gave.
            ERROR_INSUFFICIENT_BUFFER => continue,
            _ => return None,
        }
    }
    None
}

/// Asks a running Node to open its inspector. Windows has no SIGUSR1, so Node's own route is
/// taken, the one `node inspect -p PID` takes there: another Node runs
/// `process._debugProcess(PID)`, which opens the target's inspector through a remote thread.
/// That Node is the target's own executable, so its version knows how.
pub fn open_node_inspector(pid: u32) -> Result<(), String> {
    let node =
        executable_of(pid).ok_or_else(|| format!("cannot find the executable of process {pid}"))?;
    let output = std::process::Command::new(&node)
        .args(["-e", &format!("process._debugProcess({pid})")])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", node.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let said = said
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message");
    Err(format!(
        "process {pid} could not be asked to open its inspector ({}: {said}): start it with --inspect=127.0.0.1:PORT and use 'debugger attach --connect 127.0.0.1:PORT'",
        node.display()
    ))
}

// ---- files and privacy -------------------------------------------------------------------

/// Windows has neither permission bits nor uids: an ACL instead.
pub fn mode_and_owner(meta: &Metadata) -> (Option<String>, Option<u32>) {
    let _ = meta;
    (None, None)
}

/// Nothing to add: a file inherits its directory's ACL.
pub fn private_file(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Whether a file is a program: any file, as Windows has no execute bit (what runs is decided
/// by the name's extension, which callers do not check yet).
pub fn is_executable(meta: &Metadata) -> bool {
    meta.is_file()
}

/// Whether two metadata describe the same file: by size and modification time, as Windows gives
/// no stable file id through std.
pub fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

// ---- signals -----------------------------------------------------------------------------

/// The console events that ask this process to end: Ctrl-C, Ctrl-Break and, for the daemon,
/// the console closing.
pub struct Interrupts {
    c: CtrlC,
    brk: CtrlBreak,
    close: Option<CtrlClose>,
}

impl Interrupts {
    pub fn install(with_hangup: bool) -> io::Result<Interrupts> {
        Ok(Interrupts {
            c: ctrl_c()?,
            brk: ctrl_break()?,
            close: if with_hangup {
                Some(ctrl_close()?)
            } else {
                None
            },
        })
    }

    /// The name of the next event to arrive.
    pub async fn next(&mut self) -> &'static str {
        let close = async {
            match self.close.as_mut() {
                Some(close) => close.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = self.c.recv() => "Ctrl-C",
            _ = self.brk.recv() => "Ctrl-Break",
            _ = close => "the console closing",
        }
    }
}

// ---- network -----------------------------------------------------------------------------

/// Nothing to do: Windows has no TCP_QUICKACK.
pub fn acknowledge_now(stream: &tokio::net::TcpStream) {
    let _ = stream;
}

// ---- the session socket ------------------------------------------------------------------

/// The local socket for the session whose socket path (in the runtime dir) is `path`: a named
/// pipe, `\\.\pipe\debugger-…`, named after the path so that two runtime dirs (two users,
/// or a test's own) never share one.
/// The longest runtime path a session's pipe can be named after: a pipe name holds 256
/// characters, of which `\\.\pipe\` and our `debugger` prefix take 17.
pub const SOCKET_PATH_LIMIT: usize = 239;

pub fn local_socket_name(path: &Path) -> io::Result<Name<'static>> {
    let flat: String = path
        .to_string_lossy()
        .chars()
        .map(|c| {
            if matches!(c, '\\' | '/' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("debugger{flat}").to_ns_name::<GenericNamespaced>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_seen_with_its_start_time_and_executable() {
        let me = std::process::id();
        assert!(process_exists(me));
        let started = start_time(me);
        assert!(started.is_some());
        assert_eq!(start_time(me), started, "stable");
        let exe = executable_of(me).expect("our executable");
        assert_eq!(
            exe.file_name(),
            std::env::current_exe()
                .ok()
                .as_deref()
                .and_then(Path::file_name)
        );
    }

    #[test]
    fn the_listener_tables_hold_a_listening_socket() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        assert!(listeners().iter().any(|(_, p)| *p == port));
        assert_eq!(port_of(u32::from(0x2405u16.to_be())), 0x2405);
    }

    /// Left out under Wine (scripts/check-cross.sh says why): Wine 8 gives every socket the
    /// owner pid 0.
    #[test]
    fn a_listening_socket_of_this_process_is_found_by_its_port() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        assert!(listening_ports(std::process::id()).contains(&port));
        assert!(!listening_ports(u32::MAX - 3).contains(&port));
    }

    #[test]
    fn a_node_inspector_is_not_asked_of_a_process_that_is_gone() {
        let err = open_node_inspector(u32::MAX - 3).expect_err("no such process");
        assert!(err.contains("cannot find the executable"), "{err}");
    }
}
