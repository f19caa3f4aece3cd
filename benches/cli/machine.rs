//! What the bench reads about the machine and the daemon from /proc: the daemon's peak memory for
//! the RSS rows, and the load and core count that say how far to trust a run's timings (other
//! work on a shared machine skews every figure).

use std::fs;

use crate::BenchResult;

/// The process's peak resident set (VmHWM), in MiB.
pub fn vm_hwm_mib(pid: u32) -> BenchResult<f64> {
    let path = format!("/proc/{pid}/status");
    let status = fs::read_to_string(&path).map_err(|e| format!("read {path}: {e}"))?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .ok_or_else(|| format!("no VmHWM in {path}"))?;
    Ok(kib / 1024.0)
}

/// The first three fields of /proc/loadavg.
pub fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}

/// How many cores the sessions share: 20 launches at once are bound by it.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
