//! Whether a crash here leaves a core for `debugger core`: the core size limit (`ulimit -c`),
//! where the kernel puts cores (`kernel.core_pattern`), and systemd-coredump's store.

use std::fmt::Write as _;

use serde::Serialize;

use crate::platform::{self, Limit};

/// The state of core dumps on this machine, as `doctor` reports it.
#[derive(Debug, Serialize)]
pub(super) struct CoreReport {
    /// Whether a crashing program started from here writes a core; null when unknown (Windows).
    writes_cores: Option<bool>,
    /// The core size limit in force (`ulimit -c`): "unlimited" or a number of bytes.
    limit: Option<String>,
    /// The hard limit the soft one may be raised to.
    hard_limit: Option<String>,
    /// `kernel.core_pattern`, on Linux.
    pattern: Option<String>,
    /// Cores go to systemd-coredump, and `coredumpctl` (which `debugger core` asks for the
    /// newest when no core file is named) is installed.
    systemd_coredump: bool,
    detail: String,
    fix: Option<String>,
}

pub(super) fn check() -> CoreReport {
    let limits = platform::core_size_limit();
    let pattern = platform::core_pattern();
    let coredumpctl = which::which("coredumpctl").is_ok();
    judge(limits, pattern, coredumpctl)
}

fn words(limit: Limit) -> String {
    match limit {
        Limit::Unlimited => "unlimited".into(),
        Limit::Bytes(n) => n.to_string(),
    }
}

fn judge(limits: Option<(Limit, Limit)>, pattern: Option<String>, coredumpctl: bool) -> CoreReport {
    let piped_to = pattern.as_deref().and_then(|p| p.strip_prefix('|'));
    let systemd = piped_to.is_some_and(|p| p.contains("systemd-coredump"));
    let mut report = CoreReport {
        writes_cores: None,
        limit: limits.map(|(soft, _)| words(soft)),
        hard_limit: limits.map(|(_, hard)| words(hard)),
        pattern: pattern.clone(),
        systemd_coredump: systemd && coredumpctl,
        detail: String::new(),
        fix: None,
    };
    let Some((soft, hard)) = limits else {
        report.detail = "this OS's crash dumps (Windows Error Reporting's) are not checked; \
            'debugger probe PROGRAM --on-crash --core-dir DIR' writes one through the adapter"
            .into();
        return report;
    };
    let where_to = match (&pattern, piped_to) {
        (_, Some(_)) if systemd => {
            "to systemd-coredump ('coredumpctl list'; 'debugger core PROGRAM' opens the newest)"
                .to_string()
        }
        (_, Some(handler)) => format!(
            "to the handler '{}' (kernel.core_pattern)",
            handler.split_whitespace().next().unwrap_or(handler)
        ),
        (Some(pattern), None) if pattern.starts_with('/') => {
            format!("to {pattern} (kernel.core_pattern)")
        }
        (Some(pattern), None) => format!(
            "as '{pattern}' in the crashing program's working directory (kernel.core_pattern)"
        ),
        (None, None) => "where this OS puts them".to_string(),
    };
    if soft == Limit::Bytes(0) {
        report.writes_cores = Some(false);
        report.detail = format!(
            "the core size limit is 0 (ulimit -c): a crash writes no core; with a limit it would go {where_to}"
        );
        report.fix = Some(if hard == Limit::Bytes(0) {
            "the hard limit is 0 too: raise it in /etc/security/limits.conf ('* soft core unlimited', '* hard core unlimited') or the service's LimitCORE=, then 'ulimit -c unlimited'".into()
        } else {
            "run 'ulimit -c unlimited' in the shell or CI step that starts the program; or 'debugger probe PROGRAM --on-crash --core-dir DIR' writes one through the adapter".into()
        });
    } else {
        report.writes_cores = Some(true);
        report.detail = format!(
            "core size limit {}: a crash writes a core {where_to}",
            words(soft)
        );
        if systemd && !coredumpctl {
            report.fix = Some(
                "install coredumpctl (package systemd-coredump) to list and extract them".into(),
            );
        }
    }
    report
}

/// The report's line (and fix) in doctor's text, with its marker and label padded to `width`.
pub(super) fn text(report: &CoreReport, width: usize) -> String {
    let mut out = String::new();
    let marker = if report.writes_cores == Some(false) {
        "problem"
    } else {
        "ok"
    };
    let _ = writeln!(out, "{marker:<8} {:<width$}  {}", "cores", report.detail);
    if let Some(fix) = &report.fix {
        let _ = writeln!(out, "{:<8} {:<width$}  fix: {fix}", "", "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_limit_writes_no_core_and_says_how_to_raise_it() {
        let report = judge(
            Some((Limit::Bytes(0), Limit::Unlimited)),
            Some("core".into()),
            false,
        );
        assert_eq!(report.writes_cores, Some(false));
        assert!(
            report
                .fix
                .as_deref()
                .is_some_and(|f| f.contains("ulimit -c unlimited"))
        );
        let hard = judge(Some((Limit::Bytes(0), Limit::Bytes(0))), None, false);
        assert!(
            hard.fix
                .as_deref()
                .is_some_and(|f| f.contains("limits.conf"))
        );
    }

    #[test]
    fn where_cores_go_is_told_by_the_pattern() {
        let plain = judge(
            Some((Limit::Unlimited, Limit::Unlimited)),
            Some("core".into()),
            false,
        );
        assert_eq!(plain.writes_cores, Some(true));
        assert!(
            plain.detail.contains("working directory"),
            "{}",
            plain.detail
        );
        let systemd = judge(
            Some((Limit::Unlimited, Limit::Unlimited)),
            Some("|/usr/lib/systemd/systemd-coredump %P %u".into()),
            true,
        );
        assert!(systemd.systemd_coredump);
        assert!(systemd.detail.contains("coredumpctl"), "{}", systemd.detail);
        let windows = judge(None, None, false);
        assert_eq!(windows.writes_cores, None);
    }
}
