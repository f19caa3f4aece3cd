//! A test's failure, told from the stops a run makes: which stop is the failure, which frame is
//! the test's own, and what the failure said. Plain judgements on the reports, shared by `test`
//! (over the socket) and `probe --test` (in process).

use std::path::{Component, Path};

use crate::ipc::protocol::{FrameInfo, StopReason, StopReport};

/// Folders under a project that hold code other than its own: build output, installed packages.
const NOT_THE_PROJECTS: &[&str] = &[
    "target",
    "node_modules",
    ".venv",
    "venv",
    "site-packages",
    "vendor",
    // CMake's FetchContent: a build's fetched dependencies (Google Test...).
    "_deps",
];

/// Whether a stop is a failure: an exception or a signal (a failed C `assert` aborts), or a
/// failure function's.
pub fn is_failure(stop: &StopReport) -> bool {
    matches!(
        stop.reason,
        StopReason::Exception | StopReason::Signal | StopReason::Panic | StopReason::Failure
    )
}

/// Whether a stop is at a failure function (rather than an exception or a signal).
pub fn at_failure_function(stop: &StopReport) -> bool {
    stop.reason == StopReason::Failure
}

/// Whether a stop ends the run.
pub fn is_end(stop: &StopReport) -> bool {
    stop.reason.is_end()
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

/// Where the last Rust panic in the program's output says it panicked: the file (relative to
/// the package, as the panic hook writes it) and line of its `panicked at FILE:LINE:COL:` line.
pub fn panic_site(output: &str) -> Option<(String, u32)> {
    let start = output.rfind(" panicked at ")? + " panicked at ".len();
    let header = output[start..].lines().next()?;
    // Before Rust 1.73 the message came first: `panicked at 'MESSAGE', FILE:LINE:COL`.
    let header = header.rsplit("', ").next().unwrap_or(header);
    let place = header.strip_suffix(':').unwrap_or(header);
    let (place, _column) = place.rsplit_once(':')?;
    let (file, line) = place.rsplit_once(':')?;
    Some((file.to_string(), line.parse().ok()?))
}

/// The message of a Go test's failure (`t.Error`, `t.Fatal`...) in its output: `go test -v`
/// prints each log line as it is made, `    FILE.go:LINE: MESSAGE`, its further lines indented
/// by eight spaces, before the call to `Fail` the debugger stops in. The line logged from
/// `file:line` (the test's frame) is the failure's; without one (a helper marked `t.Helper()`
/// logs its caller's line), the last line logged.
pub fn go_failure_message(output: &str, file: Option<&str>, line: Option<u32>) -> Option<String> {
    let wanted = file
        .and_then(|f| Path::new(f).file_name())
        .zip(line)
        .map(|(name, line)| format!("{}:{line}", name.to_string_lossy()));
    let lines: Vec<&str> = output.lines().collect();
    let logged: Vec<(usize, &str, &str)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, text)| {
            let (place, message) = go_log_line(text)?;
            Some((i, place, message))
        })
        .collect();
    let (at, _, first) = logged
        .iter()
        .rev()
        .find(|(_, place, _)| wanted.as_deref() == Some(*place))
        .or(logged.last())?;
    let mut message = vec![*first];
    message.extend(
        lines[at + 1..]
            .iter()
            .map_while(|line| line.strip_prefix("        ")),
    );
    Some(message.join("\n"))
}

/// The message of a C or C++ test's failure in its output, the later of: Google Test's
/// (`FILE:LINE: Failure` and the lines after it, printed before its break-on-failure trap) and
/// the C library's failed `assert` (`prog: FILE:LINE: func: Assertion `x' failed.`, printed
/// before `abort`).
pub fn native_failure_message(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().collect();
    let at = lines
        .iter()
        .rposition(|line| line.ends_with(": Failure") || is_assert_line(line))?;
    let header = lines[at];
    if let Some(start) = header
        .find("Assertion `")
        .filter(|_| is_assert_line(header))
    {
        return Some(header[start..].to_string());
    }
    let mut message: Vec<&str> = lines[at + 1..]
        .iter()
        .take_while(|line| !line.starts_with('['))
        .copied()
        .collect();
    while message.last().is_some_and(|l| l.trim().is_empty()) {
        message.pop();
    }
    (!message.is_empty()).then(|| message.join("\n"))
}

fn is_assert_line(line: &str) -> bool {
    line.contains(": Assertion `") && line.ends_with("' failed.")
}

/// A Go panic's message from the value `runtime.gopanic` was given, as Delve shows it
/// (`interface {}(string) "boom"`): `panic: boom`, or `panic: TYPE VALUE` for a value that is not
/// a string (an error's `Error()` is not called: the debugger does not run the program's code).
pub fn go_panic_message(value: &str) -> String {
    let Some(inner) = value.strip_prefix("interface {}(") else {
        return format!("panic: {value}");
    };
    let Some((type_name, shown)) = inner.split_once(") ") else {
        return format!("panic: {value}");
    };
    if type_name == "string"
        && let Some(text) = shown.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
    {
        return format!("panic: {text}");
    }
    format!("panic: {type_name} {shown}")
}

/// A `go test` log line's `FILE.go:LINE` and message.
fn go_log_line(line: &str) -> Option<(&str, &str)> {
    let text = line.strip_prefix("    ")?.trim_start();
    let (place, message) = text.split_once(": ")?;
    let (file, number) = place.rsplit_once(':')?;
    let is_place = file.ends_with(".go")
        && !file.contains(char::is_whitespace)
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit());
    is_place.then_some((place, message))
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
            machinery: None,
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
        assert_eq!(panic_site(output), Some(("src/lib.rs".to_string(), 24)));
        assert_eq!(
            panic_site("thread 'main' panicked at 'boom', src/main.rs:2:5\n"),
            Some(("src/main.rs".to_string(), 2))
        );
    }

    #[test]
    fn a_c_failure_message_is_googletests_or_the_c_librarys() {
        let gtest = "[ RUN      ] Cart.AppliesDiscount\n/p/cart.cpp:18: Failure\n\
                     Expected equality of these values:\n  discounted\n    Which is: 360\n\
                     \x20 400\n10% off\n\n[  FAILED  ] Cart.AppliesDiscount (0 ms)\n";
        assert_eq!(
            native_failure_message(gtest).as_deref(),
            Some(
                "Expected equality of these values:\n  discounted\n    Which is: 360\n  400\n10% off"
            )
        );
        let assert =
            "test total\ncart: cart.c:26: test_total: Assertion `discounted == 400' failed.\n";
        assert_eq!(
            native_failure_message(assert).as_deref(),
            Some("Assertion `discounted == 400' failed.")
        );
        assert_eq!(native_failure_message("all good\n"), None);
    }

    #[test]
    fn a_go_panic_message_is_its_value() {
        assert_eq!(
            go_panic_message(r#"interface {}(string) "boom: bad total""#),
            "panic: boom: bad total"
        );
        assert_eq!(
            go_panic_message("interface {}(runtime.boundsError) {x: 5, y: 3}"),
            "panic: runtime.boundsError {x: 5, y: 3}"
        );
    }

    #[test]
    fn a_go_failure_message_is_the_line_logged_from_the_tests_frame() {
        let output = "=== RUN   TestTable\n    cart_test.go:20: a log\n\
                      === RUN   TestTable/tenth\n    cart_test.go:24: tenth: Total = 360,\n\
                      \x20       want 400\n    helper.go:3: later\n";
        assert_eq!(
            go_failure_message(output, Some("/p/cart_test.go"), Some(24)).as_deref(),
            Some("tenth: Total = 360,\nwant 400")
        );
        assert_eq!(
            go_failure_message(output, Some("/p/other.go"), Some(1)).as_deref(),
            Some("later")
        );
        assert_eq!(go_failure_message("PASS\n", None, None), None);
    }
}
