//! A test's failure, told from the stops a run makes: which stop is the failure, which frame is
//! the test's own, and what the failure said. Plain judgements on the reports, shared by `test`
//! (over the socket) and `probe --test` (in process).

use std::path::{Component, Path};

use crate::ipc::protocol::{BreakpointInfo, FrameInfo, StopReport};

/// Folders under a project that hold code other than its own: build output, installed packages.
const NOT_THE_PROJECTS: &[&str] = &[
    "target",
    "node_modules",
    ".venv",
    "venv",
    "site-packages",
    "vendor",
];

/// The ids of the breakpoints set on the toolchain's failure functions.
pub fn failure_ids(breakpoints: &[BreakpointInfo], functions: &[&str]) -> Vec<u32> {
    breakpoints
        .iter()
        .filter(|bp| {
            bp.requested
                .as_deref()
                .is_some_and(|r| functions.contains(&r))
        })
        .map(|bp| bp.id)
        .collect()
}

/// Whether a stop is a failure: an exception or a signal (a failed C `assert` aborts), or a
/// failure function's breakpoint.
pub fn is_failure(stop: &StopReport, failure_ids: &[u32]) -> bool {
    matches!(stop.reason.as_str(), "exception" | "signal" | "panic")
        || stop
            .breakpoint_ids
            .iter()
            .any(|id| failure_ids.contains(id))
}

/// Whether a stop ends the run.
pub fn is_end(stop: &StopReport) -> bool {
    matches!(
        stop.reason.as_str(),
        "exited" | "terminated" | "adapter_died"
    )
}

/// The test's frame: the innermost whose file is the project's own (under `root`, outside its
/// build output and installed packages). `None` when no frame is.
pub fn test_frame(frames: &[FrameInfo], root: &Path) -> Option<u32> {
    frames
        .iter()
        .find(|frame| {
            frame
                .file
                .as_deref()
                .is_some_and(|file| is_projects(Path::new(file), root))
        })
        .map(|frame| frame.index)
}

fn is_projects(file: &Path, root: &Path) -> bool {
    let Ok(inside) = file.strip_prefix(root) else {
        return false;
    };
    !inside.components().any(|part| match part {
        Component::Normal(name) => NOT_THE_PROJECTS.iter().any(|n| name == *n),
        _ => false,
    })
}

/// The message of the last Rust panic in the program's output: the text after the panic
/// hook's `thread '…' panicked at FILE:LINE:COL:` line, up to its `note:` or backtrace lines.
pub fn panic_message(output: &str) -> Option<String> {
    let start = output.rfind(" panicked at ")? + " panicked at ".len();
    let after_header = &output[start..];
    let (header, rest) = after_header.split_once('\n').unwrap_or((after_header, ""));
    if let Some(old) = header.strip_prefix('\'') {
        // Before Rust 1.73 the message was on the header line: `panicked at 'MESSAGE', FILE`.
        return Some(old.rsplit_once("', ").map_or(old, |(m, _)| m).to_string());
    }
    let mut lines: Vec<&str> = rest
        .lines()
        .take_while(|line| !line.starts_with("note:") && !line.starts_with("stack backtrace:"))
        .collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(index: u32, file: Option<&str>) -> FrameInfo {
        FrameInfo {
            index,
            function: format!("f{index}"),
            file: file.map(str::to_string),
            line: Some(1),
            column: None,
            address: None,
            generated: None,
        }
    }

    #[test]
    fn the_test_frame_is_the_innermost_in_the_projects_own_files() {
        let frames = [
            frame(0, None),
            frame(1, Some("/rustc/abc/library/core/src/panicking.rs")),
            frame(2, Some("/p/target/debug/build/x.rs")),
            frame(3, Some("/p/src/lib.rs")),
            frame(4, Some("/p/src/main.rs")),
        ];
        assert_eq!(test_frame(&frames, Path::new("/p")), Some(3));
        assert_eq!(test_frame(&frames[..3], Path::new("/p")), None);
    }

    #[test]
    fn a_panic_message_is_read_from_the_hooks_output() {
        let output = "running 1 test\nthread 'tests::t' (42) panicked at src/lib.rs:24:9:\n\
                      assertion `left == right` failed: 10% off\n  left: 360\n right: 400\n\
                      note: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            panic_message(output).as_deref(),
            Some("assertion `left == right` failed: 10% off\n  left: 360\n right: 400")
        );
        assert_eq!(
            panic_message("thread 'main' panicked at 'boom', src/main.rs:2:5\n").as_deref(),
            Some("boom")
        );
        assert_eq!(panic_message("no panic here"), None);
    }
}
