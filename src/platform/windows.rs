//! The platform layer on Windows.
//!
//! Processes are reached through their handles (`OpenProcess`), a pid's children through a
//! Toolhelp snapshot, and the daemon's whole tree is held in a Job Object that kills every
//! process in it when the daemon's handle closes, however the daemon ends. A session's socket is
//! a named pipe; the runtime dir lives under the user's local application data, whose ACL
//! admits the user alone.

use std::fs::{self, Metadata, OpenOptions};
use std::io;
use std::os::windows::io::IntoRawHandle;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use interprocess::local_socket::ListenerOptions;
use interprocess::local_socket::{GenericNamespaced, Name, ToNsName};
use interprocess::os::windows::local_socket::ListenerOptionsExt;
use interprocess::os::windows::security_descriptor::SecurityDescriptor;
use tokio::signal::windows::{CtrlBreak, CtrlC, CtrlClose, ctrl_break, ctrl_c, ctrl_close};
use widestring::U16CString;
use windows_sys::Win32::Foundation::{
    CloseHandle, FILETIME, HANDLE, HANDLE_FLAG_INHERIT, INVALID_HANDLE_VALUE, LocalFree,
    SetHandleInformation,
};
use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
use windows_sys::Win32::Security::{GetTokenInformation, TOKEN_QUERY, TOKEN_USER, TokenUser};
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
    GetProcessTimes, OpenProcess, OpenProcessToken, PROCESS_NAME_WIN32,
    PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_TERMINATE, QueryFullProcessImageNameW,
    TerminateProcess,
};

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

/// Whether this process runs as the superuser. Windows package managers install for the user
/// without one, so this is never assumed.
pub fn is_superuser() -> bool {
    false
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

/// The TCP ports process `pid` listens on: not read on Windows yet, so an attach by pid finds
/// an inspector only where the caller says (`--connect`).
pub fn listening_ports(pid: u32) -> Vec<u16> {
    let _ = pid;
    Vec::new()
}

/// Node opens its inspector on SIGUSR1, which Windows does not have.
pub fn open_node_inspector(pid: u32) -> Result<(), String> {
    Err(format!(
        "a running Node cannot be asked to open its inspector on Windows (process {pid}): start it with --inspect=127.0.0.1:PORT and use 'debugger attach --connect 127.0.0.1:PORT'"
    ))
}

// ---- files and privacy -------------------------------------------------------------------

/// Creates `dir` and its parents. Under the user's local application data (where the runtime
/// dir is), a new directory inherits an ACL that admits the user, SYSTEM and administrators.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// Not checked yet on Windows: the runtime dir's ACL is the one inherited from the user's
/// profile. The socket itself admits this user alone ([`private_listener`]).
pub fn privacy_problem(dir: &Path, meta: &Metadata) -> Option<(String, String)> {
    let _ = (dir, meta);
    None
}

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

/// Listener options that admit this user alone. A named pipe's default DACL lets everyone read
/// it, and the pipe lets whoever writes to it run code as the user, so the session's pipe gets a
/// protected DACL with one entry: full access for this process's user SID
/// (`D:P(A;;GA;;;S-1-5-21-…)`).
pub fn private_listener(options: ListenerOptions<'_>) -> io::Result<ListenerOptions<'_>> {
    let sddl = format!("D:P(A;;GA;;;{})", current_user_sid()?);
    let sddl = U16CString::from_str(&sddl)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let descriptor = SecurityDescriptor::deserialize(&sddl)?;
    Ok(options.security_descriptor(descriptor))
}

/// This process's user, as an SID string (`S-1-5-21-…`).
fn current_user_sid() -> io::Result<String> {
    // SAFETY: the token handle is checked and closed; the buffer is sized by the first call and
    // holds a TOKEN_USER after the second; the SID string is read up to its NUL and freed with
    // LocalFree, as ConvertSidToStringSidW requires.
    unsafe {
        let mut token: HANDLE = std::ptr::null_mut();
        if OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut needed = 0u32;
        GetTokenInformation(token, TokenUser, std::ptr::null_mut(), 0, &mut needed);
        // u64 elements keep the buffer aligned for TOKEN_USER.
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8).max(1)];
        let read = GetTokenInformation(
            token,
            TokenUser,
            buffer.as_mut_ptr().cast(),
            (buffer.len() * 8) as u32,
            &mut needed,
        );
        CloseHandle(token);
        if read == 0 {
            return Err(io::Error::last_os_error());
        }
        let user = &*(buffer.as_ptr() as *const TOKEN_USER);
        let mut text: *mut u16 = std::ptr::null_mut();
        if ConvertSidToStringSidW(user.User.Sid, &mut text) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut length = 0;
        while *text.add(length) != 0 {
            length += 1;
        }
        let sid = String::from_utf16_lossy(std::slice::from_raw_parts(text, length));
        LocalFree(text.cast());
        Ok(sid)
    }
}

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
    fn this_users_sid_makes_a_pipe_descriptor() {
        let sid = current_user_sid().expect("the user's SID");
        assert!(sid.starts_with("S-1-"), "{sid}");
        let sddl = U16CString::from_str(format!("D:P(A;;GA;;;{sid})")).expect("sddl");
        SecurityDescriptor::deserialize(&sddl).expect("a descriptor from the SDDL");
    }

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
}
