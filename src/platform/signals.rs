//! Signal names and numbers, for telling a program's death by a signal (`killed by signal SIGSEGV
//! (11)`): the numbers differ between Linux and macOS, so the table comes from the C library's
//! constants. Windows has no signals a program dies of; its table is empty.

/// The signals a program is commonly stopped or killed by, as (number, name).
#[cfg(unix)]
const SIGNALS: &[(i32, &str)] = &[
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGQUIT, "SIGQUIT"),
    (libc::SIGILL, "SIGILL"),
    (libc::SIGTRAP, "SIGTRAP"),
    (libc::SIGABRT, "SIGABRT"),
    (libc::SIGBUS, "SIGBUS"),
    (libc::SIGFPE, "SIGFPE"),
    (libc::SIGKILL, "SIGKILL"),
    (libc::SIGUSR1, "SIGUSR1"),
    (libc::SIGSEGV, "SIGSEGV"),
    (libc::SIGUSR2, "SIGUSR2"),
    (libc::SIGPIPE, "SIGPIPE"),
    (libc::SIGALRM, "SIGALRM"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGCHLD, "SIGCHLD"),
    (libc::SIGCONT, "SIGCONT"),
    (libc::SIGSTOP, "SIGSTOP"),
    (libc::SIGTSTP, "SIGTSTP"),
    (libc::SIGTTIN, "SIGTTIN"),
    (libc::SIGTTOU, "SIGTTOU"),
    (libc::SIGURG, "SIGURG"),
    (libc::SIGXCPU, "SIGXCPU"),
    (libc::SIGXFSZ, "SIGXFSZ"),
    (libc::SIGVTALRM, "SIGVTALRM"),
    (libc::SIGPROF, "SIGPROF"),
    (libc::SIGWINCH, "SIGWINCH"),
    (libc::SIGSYS, "SIGSYS"),
];

#[cfg(windows)]
const SIGNALS: &[(i32, &str)] = &[];

/// The name of signal `number` (`SIGSEGV`), if it is one this OS has.
pub fn signal_name(number: i32) -> Option<&'static str> {
    SIGNALS
        .iter()
        .find(|(n, _)| *n == number)
        .map(|(_, name)| *name)
}

/// The number of the signal called `name` (`SIGSEGV`), if this OS has it.
pub fn signal_number(name: &str) -> Option<i32> {
    SIGNALS
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(number, _)| *number)
}

/// How a process ended, as its parent's wait would tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Code(i32),
    Signal(i32),
}

/// How process `pid` ended, while it has ended but its parent has not reaped it yet (a zombie):
/// Linux keeps the wait status in field 52 of `/proc/PID/stat` (since 3.5). `None` while it runs
/// (a process whose first thread alone has ended runs on), once it is reaped, and on other OSes.
/// For a program whose debugger is its parent and never hears of its death (GDB 16, of a SIGKILL
/// sent while the program was stopped).
#[cfg(target_os = "linux")]
pub fn unreaped_end(pid: u32) -> Option<Ended> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields 3 and on follow the command name's closing parenthesis.
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    let field = |number: usize| fields.get(number - 3).copied();
    if field(3)? != "Z" || field(20)?.parse::<u32>().ok()? > 1 {
        return None;
    }
    let status: i32 = field(52)?.parse().ok()?;
    Some(match status & 0x7f {
        0 => Ended::Code((status >> 8) & 0xff),
        signal => Ended::Signal(signal),
    })
}

#[cfg(not(target_os = "linux"))]
pub fn unreaped_end(_pid: u32) -> Option<Ended> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn an_unreaped_child_tells_how_it_ended() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "kill -KILL $$"])
            .spawn()
            .expect("spawn sh");
        let pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut end = None;
        while end.is_none() && std::time::Instant::now() < deadline {
            end = super::unreaped_end(pid);
            std::thread::yield_now();
        }
        assert_eq!(end, Some(super::Ended::Signal(libc::SIGKILL)));
        let _ = child.wait();
        assert_eq!(super::unreaped_end(pid), None);
        assert_eq!(super::unreaped_end(std::process::id()), None);
    }

    #[test]
    fn names_and_numbers_agree() {
        assert_eq!(super::signal_name(libc::SIGSEGV), Some("SIGSEGV"));
        assert_eq!(super::signal_number("SIGKILL"), Some(libc::SIGKILL));
        assert_eq!(super::signal_number("SIGNOPE"), None);
    }
}
