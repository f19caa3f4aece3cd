//! doctor's `attach` check: whether this user may attach to processes (Linux's Yama
//! `ptrace_scope`, and `CAP_SYS_PTRACE`).

use serde::Serialize;

#[derive(Debug, Serialize)]
pub(super) struct PtraceReport {
    /// `kernel.yama.ptrace_scope` (0–3), or null where there is none (no Yama, not Linux).
    pub(super) scope: Option<u8>,
    /// Whether `debugger attach PID` may attach to another process of this user; null when
    /// unknown.
    pub(super) may_attach: Option<bool>,
    pub(super) detail: String,
    pub(super) fix: Option<String>,
}

/// CAP_SYS_PTRACE, which lets a process attach regardless of the Yama scope (below 3).
const CAP_SYS_PTRACE: u32 = 19;

pub(super) fn check() -> PtraceReport {
    if !cfg!(target_os = "linux") {
        return PtraceReport {
            scope: None,
            may_attach: None,
            detail: "not checked on this platform (macOS asks for the developer tools' permission on the first attach)".into(),
            fix: None,
        };
    }
    let scope = match std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope") {
        Ok(text) => text.trim().parse::<u8>().ok(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return PtraceReport {
                scope: None,
                may_attach: None,
                detail: format!("cannot read /proc/sys/kernel/yama/ptrace_scope: {e}"),
                fix: None,
            };
        }
    };
    let privileged = has_cap_sys_ptrace();
    let sysctl_fix = |to: u8| {
        Some(format!(
            "allow it with 'sudo sysctl kernel.yama.ptrace_scope={to}' (until reboot; a file in /etc/sysctl.d keeps it), or run as root with CAP_SYS_PTRACE; 'debugger start' works meanwhile"
        ))
    };
    let whose = if privileged {
        "any process (it has CAP_SYS_PTRACE)"
    } else {
        "its own processes"
    };
    let (may_attach, detail, fix) = match scope {
        None => (
            true,
            format!("no Yama ptrace restriction: this user may attach to {whose}"),
            None,
        ),
        Some(0) => (
            true,
            format!("ptrace_scope 0: this user may attach to {whose}"),
            None,
        ),
        Some(1 | 2) if privileged => (
            true,
            format!(
                "ptrace_scope {}, but this process has CAP_SYS_PTRACE: it may attach to processes",
                scope.unwrap_or_default()
            ),
            None,
        ),
        Some(1) => (
            false,
            "ptrace_scope 1: only programs the debugger starts can be debugged; 'debugger attach PID' to another process is refused".to_string(),
            sysctl_fix(0),
        ),
        Some(2) => (
            false,
            "ptrace_scope 2: only root with CAP_SYS_PTRACE may attach; 'debugger start' still works".to_string(),
            sysctl_fix(1),
        ),
        Some(other) => (
            false,
            format!(
                "ptrace_scope {other}: no process may be traced, so neither attach nor start can debug anything"
            ),
            Some("the kernel refuses to lower this setting: reboot with kernel.yama.ptrace_scope set to 0 or 1".into()),
        ),
    };
    PtraceReport {
        scope,
        may_attach: Some(may_attach),
        detail,
        fix,
    }
}

/// Reads the effective capability set from /proc/self/status.
fn has_cap_sys_ptrace() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << CAP_SYS_PTRACE) != 0)
}
