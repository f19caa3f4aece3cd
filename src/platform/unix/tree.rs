//! A session's process tree on Linux and macOS: keeping it, finding it, letting it go.
//!
//! What the program starts may leave its process group (`setsid`) and its parent (a double
//! fork), so neither the group nor the parent links find it all. Two marks do:
//!
//! - On Linux the daemon is a child subreaper: an orphan among its descendants is re-parented
//!   to the daemon instead of init, so while the daemon lives its descendants are the tree.
//! - Every process the daemon starts inherits its environment, which holds a per-session tag
//!   variable. After the daemon is killed outright its orphans go to init, and the reaper finds
//!   them by that tag (`/proc/PID/environ` on Linux, `KERN_PROCARGS2` on macOS). A program that
//!   clears its environment escapes the tag; the subreaper still holds it while the daemon lives.

/// Makes this process (the daemon) the reaper of its orphaned descendants (Linux's
/// `PR_SET_CHILD_SUBREAPER`), so a double-forked child of the program stays in its tree and is
/// found on `stop`. Elsewhere nothing: the tag and the reaper's process group do what they can.
pub fn contain_children() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
        if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
            tracing::warn!(
                "cannot become a child subreaper: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// Nothing to undo on Unix: when the daemon exits after a `detach`, its adopted orphans pass to
/// init and run on.
pub fn release_children() {}

/// Whether `pid` is a live process: it exists and is not a zombie waiting for its parent (a
/// killed orphan of the subreaper daemon stays one until the daemon exits).
pub fn is_running(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // The state is the first field after the command name, which may hold ')'.
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    }
    #[cfg(target_os = "macos")]
    {
        /// `SZOMB` of <sys/proc.h>: a process that exited and was not waited for.
        const ZOMBIE: u32 = 5;
        super::bsd_info(pid).is_some_and(|info| info.pbi_status != ZOMBIE)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        super::process_exists(pid)
    }
}

/// The parent of process `pid`, as the kernel has it now.
pub fn parent_pid(pid: u32) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        super::parent_of(&stat)
    }
    #[cfg(target_os = "macos")]
    {
        super::bsd_info(pid).map(|info| info.pbi_ppid)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// The processes of this user whose environment holds `variable=tag`: a session's tree, found
/// after its daemon is gone. Processes of other users cannot be read, and are never listed.
pub fn tagged_processes(variable: &str, tag: &str) -> Vec<u32> {
    let wanted = format!("{variable}={tag}");
    all_pids()
        .into_iter()
        .filter(|pid| environment_of(*pid).is_some_and(|env| holds(&env, wanted.as_bytes())))
        .collect()
}

/// Whether a NUL-separated environment block holds the entry `wanted` exactly.
fn holds(environment: &[u8], wanted: &[u8]) -> bool {
    environment.split(|b| *b == 0).any(|entry| entry == wanted)
}

/// Every pid on the system.
fn all_pids() -> Vec<u32> {
    #[cfg(target_os = "linux")]
    {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
            .collect()
    }
    #[cfg(target_os = "macos")]
    {
        let mut pids = vec![0 as libc::c_int; 16384];
        let size = (pids.len() * std::mem::size_of::<libc::c_int>()) as libc::c_int;
        // SAFETY: the buffer and its size in bytes are valid for the call, which returns the
        // number of pids it wrote.
        let count = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), size) };
        let count = usize::try_from(count).unwrap_or(0).min(pids.len());
        pids[..count]
            .iter()
            .filter_map(|pid| u32::try_from(*pid).ok())
            .filter(|pid| *pid > 0)
            .collect()
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        Vec::new()
    }
}

/// The environment process `pid` started with, NUL-separated: `None` when it cannot be read
/// (another user's process, one that is gone).
fn environment_of(pid: u32) -> Option<Vec<u8>> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read(format!("/proc/{pid}/environ")).ok()
    }
    #[cfg(target_os = "macos")]
    {
        let mut mib = [
            libc::CTL_KERN,
            libc::KERN_PROCARGS2,
            libc::c_int::try_from(pid).ok()?,
        ];
        let mut buffer = vec![0u8; 256 * 1024];
        let mut size = buffer.len();
        // SAFETY: a valid name of three ints, and a buffer with its size for sysctl to fill.
        let status = unsafe {
            libc::sysctl(
                mib.as_mut_ptr(),
                3,
                buffer.as_mut_ptr().cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        if status != 0 {
            return None;
        }
        buffer.truncate(size);
        environment_in_procargs(&buffer)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// The environment in a `KERN_PROCARGS2` block: argc (a native int), the executable path, NUL
/// padding, argc arguments, then the environment's entries.
#[cfg(any(target_os = "macos", test))]
fn environment_in_procargs(block: &[u8]) -> Option<Vec<u8>> {
    let argc = i32::from_ne_bytes(block.get(..4)?.try_into().ok()?);
    let mut rest = &block[4..];
    // The executable path, then the padding after it.
    let path_end = rest.iter().position(|b| *b == 0)?;
    rest = &rest[path_end..];
    let first = rest.iter().position(|b| *b != 0)?;
    rest = &rest[first..];
    for _ in 0..argc.max(0) {
        let end = rest.iter().position(|b| *b == 0)?;
        rest = rest.get(end + 1..)?;
    }
    Some(rest.to_vec())
}

/// Waits until every one of `pids` has ended (exited or killed: a zombie, or gone), for at
/// most `limit`; false when it cannot tell (no pidfds: a kernel before 5.3), and the caller
/// looks for itself. Woken by the deaths themselves, through a pidfd per process, so a killed
/// tree is known dead the moment it is, not at the next tick of a timer.
#[cfg(target_os = "linux")]
pub fn wait_exits(pids: &[u32], limit: std::time::Duration) -> bool {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds: Vec<OwnedFd> = Vec::with_capacity(pids.len());
    for pid in pids {
        let Ok(pid) = libc::pid_t::try_from(*pid) else {
            continue;
        };
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd < 0 {
            match std::io::Error::last_os_error().raw_os_error() {
                // Gone already (and collected).
                Some(libc::ESRCH) => continue,
                _ => return false,
            }
        }
        let Ok(fd) = i32::try_from(fd) else {
            return false;
        };
        // SAFETY: the descriptor was just opened, and is owned by nothing else.
        fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    let deadline = std::time::Instant::now() + limit;
    while !fds.is_empty() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return true;
        }
        let mut polled: Vec<libc::pollfd> = fds
            .iter()
            .map(|fd| libc::pollfd {
                fd: std::os::fd::AsRawFd::as_raw_fd(fd),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let millis = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        let Ok(count) = libc::nfds_t::try_from(polled.len()) else {
            return false;
        };
        // SAFETY: `polled` is a live array of `count` pollfd structs for the call's duration.
        let ready = unsafe { libc::poll(polled.as_mut_ptr(), count, millis) };
        if ready < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return false;
        }
        // A pidfd is readable once its process has ended.
        let mut still = polled.iter().map(|p| p.revents == 0);
        fds.retain(|_| still.next().unwrap_or(false));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_matched_whole() {
        let env = b"A=1\0DEBUGGER_SESSION_TAG=ab\0B=2\0";
        assert!(holds(env, b"DEBUGGER_SESSION_TAG=ab"));
        assert!(!holds(env, b"DEBUGGER_SESSION_TAG=a"));
        assert!(!holds(
            b"X_DEBUGGER_SESSION_TAG=ab\0",
            b"DEBUGGER_SESSION_TAG=ab"
        ));
    }

    #[test]
    fn the_environment_is_read_past_the_arguments_of_procargs() {
        let mut block = 2i32.to_ne_bytes().to_vec();
        block.extend_from_slice(b"/bin/prog\0\0\0prog\0-x\0K=V\0T=1\0");
        assert_eq!(
            environment_in_procargs(&block).as_deref(),
            Some(&b"K=V\0T=1\0"[..])
        );
    }

    #[test]
    fn this_process_runs_and_a_tag_finds_only_its_holders() {
        assert!(is_running(std::process::id()));
        assert_eq!(
            parent_pid(std::process::id()),
            Some(std::os::unix::process::parent_id())
        );
        assert!(!is_running(u32::MAX));
        // Until the child's exec, /proc shows the parent's environment, and during an exec it
        // can show none: the shell says "ready" once it runs with the tag, then waits on its
        // input without another exec.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "echo ready; read line"])
            .env("DEBUGGER_TREE_TEST", "t-4711")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn sh");
        let mut ready = String::new();
        if let Some(out) = child.stdout.take() {
            use std::io::BufRead;
            let _ = std::io::BufReader::new(out).read_line(&mut ready);
        }
        assert_eq!(ready.trim(), "ready");
        let found = tagged_processes("DEBUGGER_TREE_TEST", "t-4711");
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found, vec![child.id()]);
    }

    /// `wait_exits` returns once the killed process has died, not when its limit runs out: the
    /// limit here is a minute, and the test ends as soon as the death is seen.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_killed_process_is_seen_dead_at_once() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        assert!(is_running(child.id()));
        let began = std::time::Instant::now();
        let _ = child.kill();
        assert!(wait_exits(
            &[child.id()],
            std::time::Duration::from_secs(60)
        ));
        let waited = began.elapsed();
        // A zombie now, not yet collected.
        assert!(!is_running(child.id()));
        let _ = child.wait();
        assert!(waited < std::time::Duration::from_secs(30), "{waited:?}");
        // A process already collected is simply not waited for.
        assert!(wait_exits(
            &[child.id()],
            std::time::Duration::from_secs(60)
        ));
    }
}
