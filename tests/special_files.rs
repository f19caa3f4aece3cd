//! Paths the user names that are no regular files: a FIFO as the program of `start` or `probe`,
//! as a breakpoint's file under pdb and debugpy, as a core or `--stdin`; a directory as a
//! breakpoint's file. Each is refused with its kind as a usage error, at once, and the session
//! it was asked of goes on serving. (A FIFO's `open` waits for a writer: before, the daemon, or
//! the adapter, blocked in it for good.)
//!
//! Every command runs as a child with a generous limit, so a regression fails here instead of
//! hanging the suite; no timing is asserted.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Run, Session, fixture_path, require_debugpy, require_python, run_within};

/// Far beyond what any of these commands needs: a command still running then is hung.
const HUNG: Duration = Duration::from_secs(60);

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Runs `debugger ARGS...` for `s`, failed if it is still running after [`HUNG`].
#[track_caller]
fn run_bounded(s: &Session, args: &[&str]) -> Run {
    let mut command = s.command();
    command.args(args);
    run_within(command, HUNG)
}

/// Asserts `run` is a usage error (exit 2) whose message is `message`.
#[track_caller]
fn assert_refused(run: &Run, message: &str) {
    assert_eq!(run.code, 2, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "usage", "{error}");
    assert_eq!(error["message"], message, "{error}");
    assert!(
        error["hint"].as_str().is_some_and(|h| !h.is_empty()),
        "{error}"
    );
}

fn shown(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn a_fifo_as_the_program_of_start_or_probe_is_refused_at_once() {
    let s = Session::new();
    let fifo = s.dir.path().join("program");
    mkfifo(&fifo);
    let start = run_bounded(&s, &["--json", "start", shown(&fifo)]);
    assert_refused(
        &start,
        &format!("{} is a FIFO, not a program", fifo.display()),
    );
    let probe = run_bounded(
        &s,
        &[
            "--json",
            "probe",
            "--timeout",
            "5",
            "-b",
            "main",
            shown(&fifo),
        ],
    );
    assert_refused(
        &probe,
        &format!("{} is a FIFO, not a program", fifo.display()),
    );
    // Named relative to the caller's directory, and in text: the same words.
    let relative = run_bounded(&s, &["start", "../program"]);
    assert_eq!(relative.code, 2, "{relative:?}");
    assert!(
        relative.stderr.starts_with(&format!(
            "error: {} is a FIFO, not a program\nhint: ",
            fifo.display()
        )),
        "{relative:?}"
    );
}

#[test]
fn a_fifo_as_a_core_or_as_stdin_is_refused() {
    require_python();
    let s = Session::new();
    let fifo = s.dir.path().join("pipe");
    mkfifo(&fifo);
    let core = run_bounded(&s, &["--json", "core", "/bin/true", shown(&fifo)]);
    assert_refused(
        &core,
        &format!("{} is a FIFO, not a core file", fifo.display()),
    );
    let program = fixture_path("python/app.py");
    let stdin = run_bounded(
        &s,
        &["--json", "start", shown(&program), "--stdin", shown(&fifo)],
    );
    assert_refused(
        &stdin,
        &format!(
            "--stdin {} is a FIFO, not a file to read as the program's stdin",
            fifo.display()
        ),
    );
}

/// A copy of the Python fixture in a project folder of its own, beside a FIFO named `feed.py`
/// and a folder `lib`: names the daemon resolves against the program's folder, not the CLI
/// against its own (the commands run elsewhere).
fn project_with_a_fifo(s: &Session) -> (PathBuf, PathBuf) {
    let project = s.dir.path().join("project");
    std::fs::create_dir(&project).expect("project dir");
    let program = project.join("app.py");
    std::fs::copy(fixture_path("python/app.py"), &program).expect("copy the fixture");
    let fifo = project.join("feed.py");
    mkfifo(&fifo);
    std::fs::create_dir(project.join("lib")).expect("lib dir");
    (program, fifo)
}

/// Under `adapter`, a breakpoint on the FIFO (by the name the daemon resolves, and by its whole
/// path) and on a folder is refused naming its kind, and the session still answers.
fn breakpoints_on_special_files_are_refused(adapter: &str) {
    let s = Session::new();
    let (program, fifo) = project_with_a_fifo(&s);
    s.start(&program, &["--adapter", adapter, "--stop-on-entry"]);
    let message = format!("{} is a FIFO, not a source file", fifo.display());
    assert_refused(
        &run_bounded(&s, &["--json", "break", "feed.py:3"]),
        &message,
    );
    let whole = format!("{}:3", fifo.display());
    assert_refused(&run_bounded(&s, &["--json", "break", &whole]), &message);
    let folder = program.with_file_name("lib");
    assert_refused(
        &run_bounded(&s, &["--json", "break", "lib:3"]),
        &format!("{} is a directory, not a source file", folder.display()),
    );
    let status = run_bounded(&s, &["--json", "status"]).json();
    assert_eq!(status["data"]["state"], "stopped", "{status}");
    let listed = run_bounded(&s, &["--json", "break", "list"]).json();
    assert_eq!(
        listed["data"]["breakpoints"].as_array().map(Vec::len),
        Some(0),
        "{listed}"
    );
}

#[test]
fn a_breakpoint_on_a_fifo_under_pdb_is_refused_and_the_session_goes_on() {
    require_python();
    breakpoints_on_special_files_are_refused("pdb");
}

#[test]
fn a_breakpoint_on_a_fifo_under_debugpy_is_refused_and_the_session_goes_on() {
    require_debugpy();
    breakpoints_on_special_files_are_refused("debugpy");
}
