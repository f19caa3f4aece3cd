//! A stop at a failure function's breakpoint (Go's `testing.(*common).Fail`, Rust's
//! `rust_panic`), judged from its stack: the test's failure, with the frame to select, or a stop
//! to run on from, because the test does not fail there (a panic the test's code recovers or
//! catches, a `#[should_panic]` test's expected panic, a parent test's `Fail` a subtest's calls).

use std::path::Path;

use super::failure::test_frame;
use super::{MessageSource, TestPlan};
use crate::common::source_snippet;
use crate::common::user_files::read_regular;
use crate::ipc::protocol::{ContextResult, FrameInfo};

/// Go's failure function: every failure passes through it, a panicking test's too (see
/// [`judge`]).
pub(super) const GO_FAIL: &str = "testing.(*common).Fail";
/// Where a Go panic starts; its frame holds the panic's value.
const GO_PANIC: &str = "runtime.gopanic";
/// Frames of Rust's `catch_unwind` (`std::panic::catch_unwind`, `std::panicking::try` before
/// Rust 1.86, `std::panicking::catch_unwind` after, and the intrinsic under both).
const RUST_CATCHES: &[&str] = &["catch_unwind", "panicking::try", "__rust_try"];
/// Lines shown either side of the failing one, as a stop's source shows them.
const SOURCE_AROUND: u32 = 5;

/// What a failure function's stop is.
#[derive(Debug, PartialEq, Eq)]
pub enum FailureStop {
    /// Not the test's failure: run on, unseen.
    PassOver,
    /// The test's failure: `frame` is the frame to select (`None`: none of the project's);
    /// `go_panic_frame` is `runtime.gopanic`'s, in which a Go panic's value is read.
    Failure {
        frame: Option<u32>,
        go_panic_frame: Option<u32>,
    },
}

/// Judges a stop at one of `plan`'s failure functions from its stack (`frames`, innermost
/// first). `panic_site` is where a Rust panic's message says it panicked (`src/lib.rs`, line).
pub fn judge(
    plan: &TestPlan,
    frames: &[FrameInfo],
    panic_site: Option<(&str, u32)>,
) -> FailureStop {
    match plan.message_source() {
        MessageSource::GoLog => judge_go(frames, &plan.root),
        MessageSource::RustPanic => judge_rust(frames, &plan.root, &plan.test, panic_site),
        MessageSource::None => FailureStop::Failure {
            frame: test_frame(frames, &plan.root),
            go_panic_frame: None,
        },
    }
}

/// Go: a subtest's `Fail` calls its parent's, which is no failure of its own. A test that
/// panics fails from the test runner's deferred recovery (`tRunner`'s `doPanic` calls `Fail`)
/// while the panicking frames are still on the stack, under `runtime.gopanic`: the failure is
/// the panic, at the nearest of the project's frames that called it. A panic the test's code
/// recovers never reaches `Fail`.
fn judge_go(frames: &[FrameInfo], root: &Path) -> FailureStop {
    if frames
        .get(1)
        .is_some_and(|caller| caller.function == GO_FAIL)
    {
        return FailureStop::PassOver;
    }
    let go_panic_frame = frames.iter().position(|f| f.function == GO_PANIC);
    let frame = match go_panic_frame {
        Some(at) => test_frame(&frames[at..], root),
        None => test_frame(frames, root),
    };
    FailureStop::Failure {
        frame,
        go_panic_frame: go_panic_frame
            .and_then(|at| frames.get(at))
            .map(|f| f.index),
    }
}

/// Rust: a panic that a `catch_unwind` between it and the test's own function catches, or the
/// panic of a test marked `#[should_panic]`, does not fail the test. A failure's frame is the
/// one at the place the panic's message names, else the project's innermost.
fn judge_rust(
    frames: &[FrameInfo],
    root: &Path,
    test: &str,
    panic_site: Option<(&str, u32)>,
) -> FailureStop {
    let test_function = frames
        .iter()
        .position(|f| is_test_function(&f.function, test));
    if let Some(at) = test_function {
        let caught = frames[..at]
            .iter()
            .any(|f| RUST_CATCHES.iter().any(|c| f.function.contains(c)));
        let expected = frames[at]
            .file
            .as_deref()
            .and_then(|file| read_regular(Path::new(file)).ok())
            .is_some_and(|source| should_panic(&String::from_utf8_lossy(&source), test));
        if caught || expected {
            return FailureStop::PassOver;
        }
    }
    let at_site = panic_site.and_then(|(file, line)| {
        frames.iter().find(|f| {
            f.line == Some(line) && f.file.as_deref().is_some_and(|path| ends_with(path, file))
        })
    });
    FailureStop::Failure {
        frame: at_site
            .map(|f| f.index)
            .or_else(|| test_frame(frames, root)),
        go_panic_frame: None,
    }
}

/// Moves the selected failure frame `context` to the place a Rust panic's message names, when
/// that is in the frame's own file at another line: a panic raised in a `macro_rules!` macro's
/// body (an assertion macro of the project's) is at the macro's line in the frame that expanded
/// it, while the message names the line that called the macro.
pub fn at_panic_site(context: &mut ContextResult, panic_site: Option<(&str, u32)>) {
    let Some((file, line)) = panic_site else {
        return;
    };
    let Some(path) = context.frame.file.clone() else {
        return;
    };
    if !ends_with(&path, file) || context.frame.line == Some(line) {
        return;
    }
    context.frame.line = Some(line);
    context.frame.column = None;
    context.source = source_snippet::snippet(&path, line, SOURCE_AROUND);
}

/// Whether `function` (`tally::tests::parses`) is the test `test` (`tests::parses`) names.
fn is_test_function(function: &str, test: &str) -> bool {
    function == test || function.ends_with(&format!("::{test}"))
}

/// Whether `path` ends with the relative path `tail`, part by part.
fn ends_with(path: &str, tail: &str) -> bool {
    Path::new(path).ends_with(tail)
}

/// Whether the function the test `test` names is marked `#[should_panic]` in `source`: an
/// attribute among those just above its `fn` line.
fn should_panic(source: &str, test: &str) -> bool {
    let name = test.rsplit("::").next().unwrap_or(test);
    let lines: Vec<&str> = source.lines().collect();
    lines.iter().enumerate().any(|(at, line)| {
        declares(line, name)
            && lines[..at]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("#[") || l.starts_with("//") || l.ends_with(")]"))
                .any(|l| l.starts_with("#[should_panic"))
    })
}

/// Whether a source line declares the function `name`.
fn declares(line: &str, name: &str) -> bool {
    let Some(after) = line.split("fn ").nth(1) else {
        return false;
    };
    after
        .strip_prefix(name)
        .is_some_and(|rest| rest.starts_with('(') || rest.starts_with('<'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(index: u32, function: &str, file: Option<&str>, line: u32) -> FrameInfo {
        FrameInfo {
            index,
            function: function.to_string(),
            file: file.map(str::to_string),
            line: Some(line),
            column: None,
            address: None,
            generated: None,
            machinery: None,
        }
    }

    #[test]
    fn a_go_panic_fails_at_its_site_and_a_parents_fail_is_passed_over() {
        let root = Path::new("/p");
        let panicking = [
            frame(0, GO_FAIL, Some("/go/testing.go"), 961),
            frame(1, "testing.tRunner.func1.2", Some("/go/testing.go"), 1955),
            frame(2, GO_PANIC, Some("/go/panic.go"), 860),
            frame(3, "runtime.mapassign_faststr", Some("/go/map.go"), 265),
            frame(4, "p.(*Ledger).Add", Some("/p/ledger.go"), 10),
            frame(5, "p.TestPanics", Some("/p/ledger_test.go"), 16),
        ];
        assert_eq!(
            judge_go(&panicking, root),
            FailureStop::Failure {
                frame: Some(4),
                go_panic_frame: Some(2)
            }
        );
        let nested = [
            frame(0, GO_FAIL, Some("/go/testing.go"), 961),
            frame(1, GO_FAIL, Some("/go/testing.go"), 963),
        ];
        assert_eq!(judge_go(&nested, root), FailureStop::PassOver);
    }

    #[test]
    fn a_caught_rust_panic_is_passed_over_and_a_failure_is_at_its_messages_site() {
        let root = Path::new("/nowhere");
        let caught = [
            frame(0, "__rustc::rust_panic", None, 886),
            frame(1, "tally::parse::{{closure}}", Some("/p/src/lib.rs"), 5),
            frame(2, "std::panicking::catch_unwind::do_call", None, 581),
            frame(3, "tally::parse", Some("/p/src/lib.rs"), 5),
            frame(4, "tally::tests::passes", Some("/nowhere/lib.rs"), 23),
        ];
        assert_eq!(
            judge_rust(&caught, root, "tests::passes", None),
            FailureStop::PassOver
        );
        let failing = [
            frame(0, "__rustc::rust_panic", None, 886),
            frame(1, "tally::tests::fails", Some("/p/src/lib.rs"), 14),
            frame(
                2,
                "tally::tests::fails::{{closure}}",
                Some("/p/src/lib.rs"),
                33,
            ),
        ];
        assert_eq!(
            judge_rust(&failing, root, "tests::fails", Some(("src/lib.rs", 33))),
            FailureStop::Failure {
                frame: Some(2),
                go_panic_frame: None
            }
        );
    }

    #[test]
    fn should_panic_is_read_from_the_attributes_above_the_tests_fn() {
        let source = "#[test]\nfn plain() {}\n\n#[test]\n#[should_panic(expected = \"boom\")]\n\
                      fn boom() { panic!(\"boom\") }\n";
        assert!(should_panic(source, "tests::boom"));
        assert!(!should_panic(source, "tests::plain"));
        assert!(!should_panic(source, "tests::bo"));
    }
}
