//! How a CLI call meets the pipes it is given: a reader that has gone (as in
//! `debugger --help | head -1` once head has exited) and output read whole through a pipe.
//!
//! `src/main.rs` does not use Rust std's `main`, so what std's runtime did there is done (or not)
//! by `debugger::cli::startup`; these tests hold the parts a user sees. No adapter is needed.
//! Pipes without readers and SIGPIPE are Unix's: on Windows a closed pipe is only an error.
#![cfg(unix)]

mod common;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use common::{Session, bin};

/// A pipe whose read end is already closed: writing to it fails with EPIPE, or raises SIGPIPE.
fn pipe_without_reader() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    writer
}

/// The child starts with SIGPIPE at its default (std's `Command` resets it), as from a shell, so
/// only the binary's own set-up keeps a write to a gone reader from killing it.
#[test]
fn a_reader_that_has_gone_ends_no_call_with_a_signal_or_a_panic() {
    let s = Session::new();
    let cases: [&[&str]; 4] = [
        &["--help"],
        &["--version"],
        &["status"],
        &["--json", "status"],
    ];
    for args in cases {
        let output = s
            .command()
            .args(args)
            .stdout(Stdio::from(pipe_without_reader()))
            .stderr(Stdio::piped())
            .output()
            .expect("run debugger");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.signal(),
            None,
            "debugger {args:?} was killed by a signal (SIGPIPE is {}); stderr: {stderr}",
            libc::SIGPIPE
        );
        assert!(
            !stderr.contains("panicked"),
            "debugger {args:?} panicked: {stderr}"
        );
        // Help and version succeed whether anyone reads them; `status` reports no session.
        let expected = if args.contains(&"status") { 4 } else { 0 };
        assert_eq!(
            output.status.code(),
            Some(expected),
            "debugger {args:?}: {stderr}"
        );
    }
}

/// Everything a call prints reaches a pipe, up to its last line, before the process exits.
#[test]
fn output_read_through_a_pipe_is_whole() {
    let mut child = Command::new(bin())
        .arg("--help")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run debugger");
    let mut help = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut help)
        .expect("read the help");
    assert!(child.wait().expect("wait").success());
    assert!(help.starts_with("A debugger for agents"), "{help}");
    assert!(
        help.ends_with("Print version\n"),
        "the help's last line is missing: {help}"
    );

    let s = Session::new();
    let run = s.run(&["--json", "status"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stdout.ends_with("}\n"), "{}", run.stdout);
    assert_eq!(run.json()["error"]["code"], "no_session", "{}", run.stdout);
}
