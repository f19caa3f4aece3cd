//! Whether a crash on this machine leaves a core file: the core size limit this process (and so
//! the programs it starts) runs under, and where the kernel writes cores. For `doctor`.

/// A resource limit: a number of bytes, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Bytes(u64),
    Unlimited,
}

/// The core size limit (`ulimit -c`): the soft limit in force and the hard limit it may be
/// raised to. `None` where the OS has no such limit (Windows).
pub fn core_size_limit() -> Option<(Limit, Limit)> {
    imp::core_size_limit()
}

/// Linux's `kernel.core_pattern`: a file name (relative to the crashing program's working
/// directory, or absolute) or `|program` for a handler such as systemd-coredump. `None` where
/// there is none to read (macOS, Windows).
pub fn core_pattern() -> Option<String> {
    std::fs::read_to_string(imp::CORE_PATTERN_FILE?)
        .ok()
        .map(|p| p.trim().to_string())
}

#[cfg(unix)]
mod imp {
    use super::Limit;

    /// Where Linux shows the pattern; other Unixes keep it in a sysctl of their own.
    pub const CORE_PATTERN_FILE: Option<&str> = if cfg!(target_os = "linux") {
        Some("/proc/sys/kernel/core_pattern")
    } else {
        None
    };

    pub fn core_size_limit() -> Option<(Limit, Limit)> {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given and has no other effect.
        if unsafe { libc::getrlimit(libc::RLIMIT_CORE, &mut limit) } != 0 {
            return None;
        }
        // rlim_t is 32 bits wide on 32-bit Linux, 64 elsewhere.
        #[allow(clippy::unnecessary_cast)]
        let read = |value: libc::rlim_t| {
            if value == libc::RLIM_INFINITY {
                Limit::Unlimited
            } else {
                Limit::Bytes(value as u64)
            }
        };
        Some((read(limit.rlim_cur), read(limit.rlim_max)))
    }
}

/// Windows has no core size limit; its crash dumps are Windows Error Reporting's (LocalDumps in
/// the registry), which doctor does not read.
#[cfg(windows)]
mod imp {
    use super::Limit;

    pub const CORE_PATTERN_FILE: Option<&str> = None;

    pub fn core_size_limit() -> Option<(Limit, Limit)> {
        None
    }
}
