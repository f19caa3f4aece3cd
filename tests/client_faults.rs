//! Faults from the client side of the session socket: a client that connects and says nothing, a
//! length prefix of 4 GiB, a truncated frame, invalid JSON, an unknown command, a client that
//! vanishes mid-request. Each gets an error answer or a closed connection; the daemon keeps
//! serving everyone else, and the session (ledger.c stopped in `apply`, or a mock one) is intact.
//!
//! The tests talk to `<runtime_dir>/<session>.sock` directly with a `UnixStream`, since the CLI
//! cannot be made to misbehave.

//! Unix only: the faults are sent through raw Unix sockets and resource limits.
#![cfg(unix)]

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Session, build, require_lldb_dap};
use debugger::ipc::framing::{FrameError, read_frame, write_frame};
use serde_json::{Value, json};

/// How long any one answer may take before the test calls the daemon stuck.
const ANSWER_LIMIT: Duration = Duration::from_secs(20);

fn socket_path(s: &Session) -> PathBuf {
    s.runtime_dir().join(format!("{}.sock", s.name))
}

fn connect(s: &Session) -> UnixStream {
    let stream = UnixStream::connect(socket_path(s)).expect("connect to the session socket");
    stream
        .set_read_timeout(Some(ANSWER_LIMIT))
        .expect("read timeout");
    stream
}

/// Writes one frame with `body` as its bytes, whatever they are.
fn send_body(stream: &mut UnixStream, body: &[u8]) {
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(body);
    stream.write_all(&frame).expect("write frame");
}

/// The daemon's next answer, or `None` when it closed the connection.
fn answer(stream: &mut UnixStream) -> Option<Value> {
    match read_frame::<Value>(stream) {
        Ok(value) => Some(value),
        Err(FrameError::Closed) => None,
        Err(FrameError::Io(e)) if e.kind() == ErrorKind::ConnectionReset => None,
        Err(FrameError::Io(e))
            if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
        {
            panic!("the daemon neither answered nor closed within {ANSWER_LIMIT:?}")
        }
        Err(e) => panic!("reading the daemon's answer: {e}"),
    }
}

/// The `Err` body of an answer with id `id`, checked to carry a code, message and hint.
#[track_caller]
fn error_of(answer: &Value, id: u64) -> Value {
    assert_eq!(answer["id"], id, "{answer}");
    let error = answer["result"]["Err"].clone();
    for field in ["code", "message", "hint"] {
        assert!(
            !error[field].as_str().unwrap_or("").is_empty(),
            "an error answer without {field}: {answer}"
        );
    }
    error
}

/// Sends a well-formed `status` request on `stream` and returns its data.
#[track_caller]
fn raw_status(stream: &mut UnixStream, id: u64) -> Value {
    write_frame(stream, &json!({"id": id, "command": {"command": "status"}})).expect("write");
    let reply = answer(stream).expect("an answer to status");
    assert_eq!(reply["id"], id, "{reply}");
    let data = reply["result"]["Ok"].clone();
    assert!(data.is_object(), "status failed: {reply}");
    data
}

/// Runs the CLI, failing the test (instead of hanging it) when it takes longer than `limit`.
#[track_caller]
fn run_within(s: &Session, args: &[&str], limit: Duration) -> Run {
    let mut child = s
        .command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn debugger");
    let began = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return collect(child);
        }
        if began.elapsed() > limit {
            let _ = child.kill();
            let run = collect(child);
            panic!("`debugger {args:?}` did not finish within {limit:?}: {run:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn collect(child: Child) -> Run {
    let output = child.wait_with_output().expect("collect output");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A session whose program is stopped: `status` as it was then, and the function it stopped in.
struct Stopped {
    s: Session,
    status: Value,
    function: &'static str,
}

/// ledger.c under lldb-dap, stopped at the breakpoint in `apply`.
fn ledger_stopped_in_apply() -> Stopped {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
    Stopped {
        s,
        status,
        function: "apply",
    }
}

/// The scripted mock adapter, stopped at entry in `main`.
fn mock_stopped_at_entry() -> Stopped {
    let s = Session::with_mock(&json!({}), "");
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
    Stopped {
        s,
        status,
        function: "main",
    }
}

impl Stopped {
    fn daemon_pid(&self) -> u64 {
        self.status["daemon_pid"].as_u64().expect("daemon_pid")
    }

    /// The CLI still answers, from the same daemon, about the same stopped program.
    #[track_caller]
    fn assert_intact(&self) {
        let run = run_within(&self.s, &["--json", "status"], ANSWER_LIMIT);
        let status = run.json();
        assert_eq!(status["ok"], true, "{status}");
        let status = &status["data"];
        assert_eq!(status["state"], "stopped", "{status}");
        for field in ["daemon_pid", "debuggee_pid", "adapter_pid"] {
            assert_eq!(status[field], self.status[field], "{field}: {status}");
        }
        let run = run_within(&self.s, &["--json", "backtrace"], ANSWER_LIMIT);
        let backtrace = run.json();
        assert_eq!(
            backtrace["data"]["frames"][0]["function"], self.function,
            "{backtrace}"
        );
    }
}

fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

fn open_fds(pid: u64) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

/// True when the peer has closed `stream` (EOF or reset) within `limit`.
fn closed_within(stream: &mut UnixStream, limit: Duration) -> bool {
    stream.set_read_timeout(Some(limit)).expect("read timeout");
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() == ErrorKind::ConnectionReset,
    }
}

// ---- the tests ---------------------------------------------------------------------------------

#[test]
fn clients_that_connect_and_say_nothing_do_not_block_others() {
    let t = ledger_stopped_in_apply();
    // Silent clients, and clients stuck part-way through a prefix or a body: all stay connected.
    let mut silent: Vec<UnixStream> = (0..3).map(|_| connect(&t.s)).collect();
    let mut half_prefix = connect(&t.s);
    half_prefix.write_all(&[10, 0]).expect("write");
    let mut half_body = connect(&t.s);
    half_body
        .write_all(&100u32.to_le_bytes())
        .and_then(|_| half_body.write_all(b"{\"id\":1,"))
        .expect("write");

    let began = Instant::now();
    t.assert_intact();
    let printed = run_within(&t.s, &["--json", "print", "amount"], ANSWER_LIMIT).json();
    assert_eq!(printed["ok"], true, "{printed}");
    let mut fresh = connect(&t.s);
    assert_eq!(raw_status(&mut fresh, 42)["state"], "stopped");
    eprintln!(
        "status, backtrace and print with 5 idle clients connected: {:?}",
        began.elapsed()
    );

    // The idle clients are still connected and keep nobody from ending the session.
    let stop = run_within(&t.s, &["stop"], ANSWER_LIMIT);
    assert_eq!(stop.code, 0, "{stop:?}");
    let daemon = t.daemon_pid();
    let deadline = Instant::now() + Duration::from_secs(15);
    while alive(daemon) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !alive(daemon),
        "the daemon {daemon} outlived `stop` while idle clients were connected"
    );
    silent.push(half_prefix);
    silent.push(half_body);
    for (i, stream) in silent.iter_mut().enumerate() {
        assert!(
            closed_within(stream, Duration::from_secs(5)),
            "idle client {i} was not disconnected when the daemon ended"
        );
    }
}

#[test]
fn a_length_prefix_of_4_gib_gets_an_error_and_a_closed_connection() {
    let t = ledger_stopped_in_apply();
    let mut stream = connect(&t.s);
    stream.write_all(&u32::MAX.to_le_bytes()).expect("write");
    let reply = answer(&mut stream).expect("an error answer before the close");
    let error = error_of(&reply, 0);
    assert_eq!(error["code"], "ipc", "{reply}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(
        message.contains("4294967295") && message.contains("16777216"),
        "the error should name the size and the limit: {message}"
    );
    assert!(
        answer(&mut stream).is_none(),
        "the connection should be closed after a bad prefix"
    );
    t.assert_intact();
}

#[test]
fn a_truncated_frame_then_a_close_leaves_the_session_intact() {
    let t = ledger_stopped_in_apply();
    // A body shorter than its prefix announced.
    let mut stream = connect(&t.s);
    stream.write_all(&100u32.to_le_bytes()).expect("write");
    stream
        .write_all(br#"{"id":1,"comm"#)
        .and_then(|_| stream.shutdown(Shutdown::Write))
        .expect("write");
    if let Some(reply) = answer(&mut stream) {
        // An error answer is as good as a close; a success is not.
        error_of(&reply, 0);
    }
    // A prefix cut short.
    let mut stream = connect(&t.s);
    stream.write_all(&[7, 0]).expect("write");
    stream.shutdown(Shutdown::Write).expect("shutdown");
    if let Some(reply) = answer(&mut stream) {
        error_of(&reply, 0);
    }
    // A request whose sender disappears before reading the answer.
    let mut stream = connect(&t.s);
    write_frame(
        &mut stream,
        &json!({"id": 3, "command": {"command": "status"}}),
    )
    .expect("write");
    drop(stream);
    t.assert_intact();
}

#[test]
fn invalid_json_gets_a_usage_error_and_the_connection_stays_usable() {
    let t = ledger_stopped_in_apply();
    let deep = "[".repeat(100_000);
    // Each body, and the id the answer carries: the request's own when it can be read.
    let bodies: Vec<(&[u8], u64)> = vec![
        (b"{not json", 0),
        (b"", 0),
        (b"\xff\xfe\x00\x01 binary", 0),
        (b"null", 0),
        (b"[1, 2, 3]", 0),
        (b"\"status\"", 0),
        (b"{\"id\": 5}", 5),
        (b"{\"command\": {\"command\": \"status\"}}", 0),
        (b"{\"id\": -1, \"command\": {\"command\": \"status\"}}", 0),
        (
            b"{\"id\": \"one\", \"command\": {\"command\": \"status\"}}",
            0,
        ),
        (b"{\"id\": 6, \"command\": {\"command\": \"status\"}", 0),
        (deep.as_bytes(), 0),
    ];
    let mut stream = connect(&t.s);
    for (body, id) in &bodies {
        send_body(&mut stream, body);
        let shown = String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned();
        let reply = answer(&mut stream)
            .unwrap_or_else(|| panic!("the daemon closed the connection on {shown:?}"));
        let error = error_of(&reply, *id);
        assert_eq!(error["code"], "usage", "{shown:?}: {reply}");
        assert!(
            error["message"]
                .as_str()
                .unwrap_or("")
                .contains("malformed or unknown request"),
            "{shown:?}: {reply}"
        );
    }
    // The same connection still serves a good request.
    assert_eq!(raw_status(&mut stream, 99)["state"], "stopped");
    t.assert_intact();
}

#[test]
fn an_unknown_command_is_answered_with_its_id_and_an_error() {
    let t = ledger_stopped_in_apply();
    let mut stream = connect(&t.s);
    let requests = [
        (7, json!({"command": "format_disk"}), Some("format_disk")),
        (8, json!({"command": "evaluate"}), Some("expression")),
        (
            9,
            json!({"command": "backtrace", "limit": -1, "thread": null}),
            None,
        ),
        (
            10,
            json!({"command": "select_frame", "to": "sideways"}),
            None,
        ),
        (11, json!({"verb": "status"}), None),
    ];
    for (id, command, named) in requests {
        write_frame(&mut stream, &json!({"id": id, "command": command})).expect("write");
        let reply = answer(&mut stream).expect("an answer");
        let error = error_of(&reply, id);
        assert_eq!(error["code"], "usage", "{reply}");
        if let Some(named) = named {
            assert!(
                error["message"].as_str().unwrap_or("").contains(named),
                "the error should name {named}: {reply}"
            );
        }
    }
    assert_eq!(raw_status(&mut stream, 12)["state"], "stopped");
    t.assert_intact();
}

#[test]
fn pipelined_requests_on_one_connection_are_answered_in_order() {
    let t = mock_stopped_at_entry();
    let mut stream = connect(&t.s);
    let mut burst = Vec::new();
    for id in 1..=200u64 {
        let command = if id % 2 == 0 {
            json!({"command": "status"})
        } else {
            json!({"command": "backtrace", "limit": 5, "thread": null})
        };
        write_frame(&mut burst, &json!({"id": id, "command": command})).expect("encode");
    }
    stream.write_all(&burst).expect("write burst");
    for id in 1..=200u64 {
        let reply = answer(&mut stream).expect("an answer");
        assert_eq!(reply["id"], id, "{reply}");
        assert!(reply["result"]["Ok"].is_object(), "{reply}");
    }
    t.assert_intact();
}

#[test]
fn clients_that_vanish_leak_nothing() {
    let t = mock_stopped_at_entry();
    let daemon = t.daemon_pid();
    // Settle, then count the daemon's descriptors.
    t.assert_intact();
    let baseline = open_fds(daemon);
    assert!(baseline > 0, "cannot read /proc/{daemon}/fd");
    for round in 0..300u32 {
        let mut stream = connect(&t.s);
        match round % 6 {
            0 => {}
            1 => stream.write_all(&[1, 0]).expect("write"),
            2 => stream.write_all(&u32::MAX.to_le_bytes()).expect("write"),
            3 => send_body(&mut stream, b"{oops"),
            4 => write_frame(
                &mut stream,
                &json!({"id": 1, "command": {"command": "status"}}),
            )
            .expect("write"),
            _ => stream
                .write_all(&50u32.to_le_bytes())
                .and_then(|_| stream.write_all(b"{\"id\""))
                .expect("write"),
        }
        drop(stream);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut now = open_fds(daemon);
    while now > baseline + 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        now = open_fds(daemon);
    }
    assert!(
        now <= baseline + 2,
        "the daemon holds {now} descriptors after 300 vanished clients (baseline {baseline})"
    );
    t.assert_intact();
}

/// CPU time (user + system) the process has used so far.
fn cpu_time(pid: u64) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read stat");
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime are fields 14 and 15 of stat; `fields` starts at field 3.
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / per_second)
}

#[test]
fn clients_that_exhaust_the_daemons_descriptors_do_not_make_it_spin_and_it_recovers() {
    let s = Session::with_mock(&json!({}), "");
    // The daemon inherits a small descriptor limit from the `start` that spawns it.
    let mut start = s.command();
    start.args(["--json", "start", "--adapter", "mock", "/bin/true"]);
    // SAFETY: setrlimit is async-signal-safe and runs in the child between fork and exec.
    unsafe {
        start.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = start.output().expect("start");
    let started: Value = serde_json::from_slice(&output.stdout).expect("start JSON");
    assert_eq!(started["ok"], true, "{started}");
    let daemon = started["data"]["daemon_pid"].as_u64().expect("daemon_pid");

    // More idle clients than the daemon has descriptors left (the rest wait in the backlog).
    let idle: Vec<UnixStream> = (0..80).map(|_| connect(&s)).collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while open_fds(daemon) < 64 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        open_fds(daemon) >= 60,
        "the daemon never filled its descriptor table"
    );

    // With no descriptor free, the daemon waits; it must not spin on failing accepts.
    let window = Duration::from_secs(2);
    let before = cpu_time(daemon);
    std::thread::sleep(window);
    let used = cpu_time(daemon) - before;
    eprintln!("daemon CPU with its descriptor table full: {used:?} in {window:?}");

    // When the idle clients leave, the daemon serves again.
    drop(idle);
    let status = run_within(&s, &["--json", "status"], ANSWER_LIMIT).json();
    assert_eq!(status["ok"], true, "{status}");
    assert_eq!(status["data"]["daemon_pid"], daemon, "{status}");
    assert!(
        used < window / 2,
        "the daemon used {used:?} of CPU in {window:?} while its descriptors were exhausted (a busy accept loop)"
    );
}
