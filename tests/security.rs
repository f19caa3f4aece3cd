//! Whoever reaches a session's socket can run code as the user, so nobody else may reach it:
//! the runtime directory is created 0700 and refused (never chmod-ed) when it is open to others
//! or owned by someone else, the socket and the daemon's files are private, frames are capped at
//! the documented 16 MiB both ways, and nothing the debuggee prints reaches the terminal as a raw
//! escape sequence.

//! Unix only: file modes, owners and Unix sockets are what is checked.
#![cfg(unix)]

mod common;

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Session, repo_root};
use debugger::ipc::framing::{FrameError, MAX_FRAME_BYTES, read_frame, write_frame};
use serde_json::{Value, json};

/// The uid the "other user" checks run as when the tests run as root.
const OTHER_UID: u32 = 65534;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("stat {}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Runs the CLI of session `s` with its runtime directory at `runtime`.
fn run_in(s: &Session, runtime: &Path, args: &[&str]) -> Run {
    let output = s
        .command()
        .env("DEBUGGER_RUNTIME_DIR", runtime)
        .args(args)
        .output()
        .expect("run debugger");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Stops the session in `runtime` when dropped (the harness only stops the default one).
struct StopIn<'a>(&'a Session, PathBuf);

impl Drop for StopIn<'_> {
    fn drop(&mut self) {
        let _ = run_in(self.0, &self.1, &["stop"]);
    }
}

fn mock() -> Session {
    Session::with_mock(&json!({"debuggee": true}), "")
}

fn socket_of(s: &Session, runtime: &Path) -> PathBuf {
    runtime.join(format!("{}.sock", s.name))
}

fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// A refusal because the runtime directory is not private: exit 1, `ipc`, and a message naming
/// the directory and the reason.
#[track_caller]
fn assert_refused(run: &Run, dir: &Path, reason: &str) {
    assert_eq!(run.code, 1, "{run:?}");
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(
        text.contains(reason),
        "the refusal should say '{reason}': {run:?}"
    );
    assert!(
        text.contains(&dir.display().to_string()),
        "the refusal should name {}: {run:?}",
        dir.display()
    );
}

// ---- the runtime directory --------------------------------------------------------------------

#[test]
fn the_runtime_dir_is_created_private() {
    let s = mock();
    // A path that does not exist yet, two levels deep.
    let fresh = s.dir.path().join("fresh").join("run");
    let none = run_in(&s, &fresh, &["status"]);
    assert_eq!(none.code, 4, "{none:?}");
    assert_eq!(mode(&fresh), 0o700, "created {}", fresh.display());

    let _stop = StopIn(&s, fresh.clone());
    let started = run_in(
        &s,
        &fresh,
        &["--json", "start", "--adapter", "mock", "/bin/true"],
    );
    assert_eq!(started.json()["ok"], true, "{started:?}");
    assert_eq!(mode(&fresh), 0o700, "after start");

    // The default location under XDG_RUNTIME_DIR, when no override is set.
    let xdg = s.dir.path().join("xdg");
    std::fs::create_dir(&xdg).expect("mkdir");
    chmod(&xdg, 0o700);
    let output = s
        .command()
        .env_remove("DEBUGGER_RUNTIME_DIR")
        .env("XDG_RUNTIME_DIR", &xdg)
        .arg("status")
        .output()
        .expect("run debugger");
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    assert_eq!(mode(&xdg.join("debugger")), 0o700);
}

#[test]
fn an_open_runtime_dir_is_refused_at_start_and_not_chmoded() {
    let s = mock();
    for (i, open) in [0o755, 0o750, 0o705, 0o701, 0o770, 0o777, 0o1777]
        .into_iter()
        .enumerate()
    {
        let dir = s.dir.path().join(format!("open{i}"));
        std::fs::create_dir(&dir).expect("mkdir");
        chmod(&dir, open);
        let _stop = StopIn(&s, dir.clone());
        let run = run_in(&s, &dir, &["start", "--adapter", "mock", "/bin/true"]);
        assert_refused(&run, &dir, "open to other users");
        let json = run_in(
            &s,
            &dir,
            &["--json", "start", "--adapter", "mock", "/bin/true"],
        );
        assert_eq!(json.code, 1, "{json:?}");
        assert_eq!(json.failure()["code"], "ipc", "{json:?}");
        assert_eq!(mode(&dir), open, "the directory's mode was changed");
        let entries: Vec<_> = std::fs::read_dir(&dir).expect("readdir").collect();
        assert!(
            entries.is_empty(),
            "files were created in a refused directory: {entries:?}"
        );
    }
}

#[test]
fn an_open_runtime_dir_is_refused_at_connect_and_not_chmoded() {
    let s = mock();
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let daemon = started["data"]["daemon_pid"].as_u64().expect("daemon_pid");
    let runtime = s.runtime_dir();
    for open in [0o750, 0o705, 0o701, 0o777] {
        chmod(&runtime, open);
        for args in [&["status"][..], &["backtrace"], &["output"], &["stop"]] {
            let run = s.run(args);
            assert_refused(&run, &runtime, "open to other users");
            assert_eq!(
                mode(&runtime),
                open,
                "{args:?} changed the directory's mode"
            );
        }
        let json = s.run(&["--json", "status"]);
        assert_eq!(json.failure()["code"], "ipc", "{json:?}");
    }
    // Refusing touched nothing: closed again, the same daemon answers.
    chmod(&runtime, 0o700);
    assert!(
        alive(daemon),
        "the daemon died while its directory was open"
    );
    let status = s.data(&["status"]);
    assert_eq!(status["daemon_pid"], daemon, "{status}");
}

#[test]
fn a_runtime_dir_owned_by_another_user_is_refused() {
    if !is_root() {
        eprintln!("skipped: changing a directory's owner needs root");
        return;
    }
    let s = mock();
    // At start.
    let foreign = s.dir.path().join("foreign");
    std::fs::create_dir(&foreign).expect("mkdir");
    chmod(&foreign, 0o700);
    std::os::unix::fs::chown(&foreign, Some(OTHER_UID), Some(OTHER_UID)).expect("chown");
    let _stop = StopIn(&s, foreign.clone());
    let run = run_in(&s, &foreign, &["start", "--adapter", "mock", "/bin/true"]);
    assert_refused(&run, &foreign, &format!("owned by uid {OTHER_UID}"));
    assert_eq!(
        std::fs::metadata(&foreign).expect("stat").uid(),
        OTHER_UID,
        "the directory's owner was changed"
    );

    // At connect.
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let runtime = s.runtime_dir();
    std::os::unix::fs::chown(&runtime, Some(OTHER_UID), None).expect("chown");
    let run = s.run(&["status"]);
    std::os::unix::fs::chown(&runtime, Some(0), None).expect("chown back");
    assert_refused(&run, &runtime, &format!("owned by uid {OTHER_UID}"));
    assert_eq!(s.data(&["status"])["state"], "stopped");
}

// ---- the socket and the daemon's files --------------------------------------------------------

/// Whether `uid` can connect to the Unix socket at `path` (a system Python, run as that user).
fn can_connect_as(uid: u32, path: &Path) -> (bool, String) {
    let output = Command::new("/usr/bin/python3")
        .env_clear()
        .args([
            "-c",
            "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint('connected')",
        ])
        .arg(path)
        .uid(uid)
        .gid(uid)
        .output()
        .expect("run /usr/bin/python3");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn the_socket_and_the_daemons_files_are_private() {
    let s = mock();
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let socket = socket_of(&s, &s.runtime_dir());
    let socket_mode = mode(&socket);
    assert_eq!(
        socket_mode & 0o077,
        0,
        "the socket is open to others: {socket_mode:o}"
    );
    assert_eq!(mode(&s.runtime_dir()), 0o700);
    let lock = s.runtime_dir().join(format!("{}.lock", s.name));
    assert_eq!(mode(&lock) & 0o077, 0, "lock file {:o}", mode(&lock));
    // The log holds program output and expressions: the user's alone too.
    for entry in std::fs::read_dir(s.state_dir()).expect("state dir") {
        let path = entry.expect("entry").path();
        assert_eq!(
            mode(&path) & 0o077,
            0,
            "{} is {:o}",
            path.display(),
            mode(&path)
        );
    }
    assert_eq!(mode(&s.state_dir()) & 0o077, 0, "the state dir is open");

    if !is_root() {
        eprintln!("skipped the other-user connect: running as another user needs root");
        return;
    }
    assert!(
        Path::new("/usr/bin/python3").is_file(),
        "/usr/bin/python3 is needed to connect as another user"
    );
    // Let the other user walk up to the runtime directory, so only its own mode stands between.
    chmod(s.dir.path(), 0o711);
    let (connected, said) = can_connect_as(OTHER_UID, &socket);
    assert!(
        !connected,
        "uid {OTHER_UID} connected to the session socket: {said}"
    );
    assert!(said.contains("PermissionError"), "{said}");

    // The probe can tell: a socket left open in an open directory is reachable.
    let control_dir = s.dir.path().join("control");
    std::fs::create_dir(&control_dir).expect("mkdir");
    chmod(&control_dir, 0o711);
    let control = control_dir.join("open.sock");
    let _listener = UnixListener::bind(&control).expect("bind");
    chmod(&control, 0o777);
    let (connected, said) = can_connect_as(OTHER_UID, &control);
    assert!(
        connected,
        "the probe cannot connect even to an open socket: {said}"
    );
    chmod(s.dir.path(), 0o700);
    assert_eq!(s.data(&["status"])["state"], "stopped");
}

// ---- frame caps -------------------------------------------------------------------------------

#[test]
fn the_daemon_refuses_a_frame_over_16_mib_and_accepts_one_at_the_cap() {
    assert_eq!(MAX_FRAME_BYTES, 16 * 1024 * 1024);
    let docs = std::fs::read_to_string(repo_root().join("docs/architecture.md")).expect("docs");
    assert!(
        docs.contains("16 MiB"),
        "docs/architecture.md should document the frame cap"
    );

    let s = mock();
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let socket = socket_of(&s, &s.runtime_dir());

    // One byte over: an error naming the limit, then the connection closes.
    let mut stream = UnixStream::connect(&socket).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    stream
        .write_all(&(MAX_FRAME_BYTES + 1).to_le_bytes())
        .expect("write");
    let reply: Value = read_frame(&mut stream).expect("an error answer");
    assert_eq!(reply["id"], 0, "{reply}");
    assert_eq!(reply["result"]["Err"]["code"], "ipc", "{reply}");
    let message = reply["result"]["Err"]["message"].as_str().unwrap_or("");
    assert!(message.contains("16777216"), "{message}");
    assert!(matches!(
        read_frame::<Value>(&mut stream),
        Err(FrameError::Closed) | Err(FrameError::Io(_))
    ));

    // Exactly at the cap: a valid request padded with whitespace is served.
    let request = br#"{"id": 1, "command": {"command": "status"}}"#;
    let mut body = request.to_vec();
    body.resize(MAX_FRAME_BYTES as usize, b' ');
    let mut stream = UnixStream::connect(&socket).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    stream
        .write_all(&MAX_FRAME_BYTES.to_le_bytes())
        .and_then(|_| stream.write_all(&body))
        .expect("write");
    let reply: Value = read_frame(&mut stream).expect("an answer");
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["result"]["Ok"]["state"], "stopped", "{reply}");
}

/// A fake daemon on the session's socket that answers the first request with `answer` bytes and
/// then holds the connection open until the client leaves.
fn fake_daemon(socket: &Path, answer: Vec<u8>) -> std::thread::JoinHandle<()> {
    let listener = UnixListener::bind(socket).expect("bind fake daemon");
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let _request: Result<Value, _> = read_frame(&mut stream);
        let _ = stream.write_all(&answer);
        let mut rest = Vec::new();
        let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
        let _ = stream.read_to_end(&mut rest);
    })
}

#[test]
fn the_cli_refuses_an_oversized_answer_without_waiting_for_it() {
    let s = Session::new();
    let socket = socket_of(&s, &s.runtime_dir());
    for prefix in [u32::MAX, MAX_FRAME_BYTES + 1] {
        let fake = fake_daemon(&socket, prefix.to_le_bytes().to_vec());
        let began = Instant::now();
        let run = s.run(&["--json", "status"]);
        let took = began.elapsed();
        let error = run.failure();
        assert_eq!(run.code, 1, "{run:?}");
        assert_eq!(error["code"], "ipc", "{error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap_or("")
                .contains("more than the 16777216-byte limit"),
            "{error}"
        );
        assert!(
            took < Duration::from_secs(10),
            "the CLI waited {took:?} for a body it should have refused"
        );
        fake.join().expect("fake daemon");
        std::fs::remove_file(&socket).expect("remove fake socket");
    }
    // Garbage that is not a response at all.
    let mut garbage = Vec::new();
    write_frame(&mut garbage, &json!({"not": "a response"})).expect("encode");
    let fake = fake_daemon(&socket, garbage);
    let run = s.run(&["--json", "status"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.failure()["code"], "ipc", "{run:?}");
    fake.join().expect("fake daemon");
    std::fs::remove_file(&socket).expect("remove fake socket");
}

// ---- terminal escapes -------------------------------------------------------------------------

/// Prints escape sequences, names its thread with one, and stops (at `@escapes_done`) on a line
/// whose comment holds a raw OSC sequence, so output, thread names and source lines are all
/// debuggee-controlled text.
const ESCAPES_C: &str = r#"#define _GNU_SOURCE
#include <stdio.h>
#include <sys/prctl.h>
int main(void)
{
    prctl(PR_SET_NAME, "\x1b[7mINV", 0, 0, 0);
    printf("\x1b[31mRED\x1b[0m\r\n");
    printf("\x1b]0;owned\x07title\n");
    printf("c1:\xc2\x9b" "2J\n");
    fflush(stdout);
    fprintf(stderr, "\x1b[2Jcleared\n");
    fflush(stderr);
    return 0; /* RAW_OSC @escapes_done */
}
"#;

/// What stands for `RAW_OSC` in the source: a raw window-title sequence (ESC ] 0 ; ... BEL).
const RAW_OSC: &str = "\u{1b}]0;src\u{7}";

/// Builds the escape-printing program in the session's temp dir.
fn escapes_program(s: &Session) -> PathBuf {
    let source = s.dir.path().join("escapes.c");
    std::fs::write(&source, ESCAPES_C.replace("RAW_OSC", RAW_OSC)).expect("write escapes.c");
    let program = s.dir.path().join("escapes");
    let status = Command::new("cc")
        .args(["-g", "-O0", "-o"])
        .arg(&program)
        .arg(&source)
        .stdout(Stdio::null())
        .status()
        .expect("run cc");
    assert!(status.success(), "building escapes.c failed");
    program
}

#[test]
fn escape_sequences_from_the_debuggee_are_shown_escaped_in_text_and_raw_in_json() {
    common::require_lldb_dap();
    let s = Session::new();
    let program = escapes_program(&s);
    let line = ESCAPES_C
        .lines()
        .position(|l| l.contains("@escapes_done"))
        .expect("marker")
        + 1;
    let at = format!("{}:{line}", s.dir.path().join("escapes.c").display());
    s.start(&program, &["--break", &at]);

    // A stop report and the thread list show the thread's name and the source line escaped.
    let stop = s.run(&["continue", "--wait", "--timeout", "60"]);
    let threads = s.run(&["threads"]);
    for (what, run) in [("stop report", &stop), ("threads", &threads)] {
        let text = run.ok();
        assert!(
            !text.contains('\u{1b}'),
            "{what} printed a raw ESC: {text:?}"
        );
        assert!(
            text.contains(r"\x1b[7mINV"),
            "{what} lacks the thread name: {text:?}"
        );
    }
    let text = stop.ok();
    assert!(
        !text.contains('\u{7}'),
        "a raw BEL in the stop report: {text:?}"
    );
    assert!(text.contains(r"\x1b]0;src\x07"), "{text:?}");
    let exit = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(exit["stop"]["reason"], "exited", "{exit}");

    // Text: every control character is visible, none is raw.
    for args in [
        &["output"][..],
        &["output", "--tail", "10"],
        &["output", "--follow"],
    ] {
        let run = s.run(args);
        let text = run.ok();
        for raw in ['\u{1b}', '\r', '\u{7}', '\u{9b}'] {
            assert!(
                !text.contains(raw),
                "{args:?} printed a raw {:?}: {text:?}",
                raw
            );
        }
        for shown in [
            r"\x1b[31mRED\x1b[0m\x0d",
            r"\x1b]0;owned\x07title",
            r"c1:\x9b2J",
            r"\x1b[2Jcleared",
        ] {
            assert!(
                text.contains(shown),
                "{args:?} should show {shown}: {text:?}"
            );
        }
    }

    // JSON: the exact bytes, JSON-escaped on the wire.
    let run = s.run(&["--json", "output"]);
    assert!(
        !run.stdout.contains('\u{1b}') && !run.stdout.contains('\r'),
        "raw control characters in JSON output: {:?}",
        run.stdout
    );
    assert!(run.stdout.contains(r"\u001b[31mRED"), "{:?}", run.stdout);
    let text = run.json()["data"]["text"]
        .as_str()
        .expect("text")
        .to_string();
    for exact in [
        "\u{1b}[31mRED\u{1b}[0m\r\n",
        "\u{1b}]0;owned\u{7}title\n",
        "c1:\u{9b}2J\n",
        "\u{1b}[2Jcleared\n",
    ] {
        assert!(text.contains(exact), "JSON text lacks {exact:?}: {text:?}");
    }
}
