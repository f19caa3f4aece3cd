//! Marks on the way from a command's start to its answer, for the bench's per-adapter timeline
//! (issue 22): where the time to a first stop goes (the adapter's start, `initialize`, `launch`,
//! `initialized`, the breakpoints, `configurationDone`, the program's `process` event, the first
//! `stopped`, the report, the adapter's end, our exit).
//!
//! Off unless `DEBUGGER_TIMELINE` names a file; then each mark appends one line,
//! `<µs since the Unix epoch> <pid> <label>`, to it. Wall-clock time, because the marks come from
//! several processes (the CLI, the daemon) and the bench that reads them: one clock they all
//! share. Off, a mark costs one atomic load (the file is looked up once per process), so the
//! marks stay in the release build. The daemon and the adapters it starts inherit the variable,
//! so one setting covers a whole session; the adapters ignore it.

use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

/// The environment variable naming the file marks are appended to.
pub const TIMELINE_ENV: &str = "DEBUGGER_TIMELINE";

static SINK: OnceLock<Option<Mutex<File>>> = OnceLock::new();

fn open() -> Option<Mutex<File>> {
    let path = std::env::var_os(TIMELINE_ENV).filter(|p| !p.is_empty())?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .ok()
        .map(Mutex::new)
}

/// Records that `label` happened now, when the timeline is on. A label built from parts is
/// passed as `format_args!`, so nothing is formatted when the timeline is off.
pub fn mark(label: impl std::fmt::Display) {
    let Some(file) = SINK.get_or_init(open) else {
        return;
    };
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    // One write per line on a file opened for appending: lines from several processes never
    // interleave within a line.
    let line = format!("{micros} {} {label}\n", std::process::id());
    let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
    let _ = file.write_all(line.as_bytes());
}

/// One line of a timeline file: when, which process, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub micros: u128,
    pub pid: u32,
    pub label: String,
}

/// The marks in a timeline file's text, in the order written; lines that are not marks are
/// skipped.
pub fn parse(text: &str) -> Vec<Mark> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            Some(Mark {
                micros: parts.next()?.parse().ok()?,
                pid: parts.next()?.parse().ok()?,
                label: parts.next()?.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_mark_writes() {
        let marks = parse("17 4 initialize answered\nnoise\n20 5 stopped\n");
        assert_eq!(
            marks,
            vec![
                Mark {
                    micros: 17,
                    pid: 4,
                    label: "initialize answered".into()
                },
                Mark {
                    micros: 20,
                    pid: 5,
                    label: "stopped".into()
                },
            ]
        );
    }
}
