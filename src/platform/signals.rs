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

#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn names_and_numbers_agree() {
        assert_eq!(super::signal_name(libc::SIGSEGV), Some("SIGSEGV"));
        assert_eq!(super::signal_number("SIGKILL"), Some(libc::SIGKILL));
        assert_eq!(super::signal_number("SIGNOPE"), None);
    }
}
