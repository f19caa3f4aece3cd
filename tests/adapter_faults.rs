//! Faults only a scripted adapter can produce on demand: crashes, garbage, silence, slowness,
//! floods and reverse requests. The daemon must report each clearly and keep serving.
//!
//! Each test scripts examples/mock_adapter.rs (see its doc comment for the script format). The
//! time bounds below are generous ceilings that only tell "at once" from "after a timeout"
//! (default request timeout 30 s, launch timeout 60 s); they are not benchmarks.

mod common;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Session, alive, eventually};
use serde_json::{Value, json};

/// A session on the scripted mock, after checking the mock binary is not older than its source:
/// `cargo test --test adapter_faults` alone does not rebuild examples, and a stale mock would
/// silently ignore script keys added since.
fn mock_session(script: &Value, extra: &str) -> Session {
    let binary = common::mock_adapter();
    let source = common::repo_root().join("examples").join("mock_adapter.rs");
    let modified = |p: &std::path::Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .unwrap_or_else(|e| panic!("stat {}: {e}", p.display()))
    };
    assert!(
        modified(&binary) >= modified(&source),
        "the mock adapter at {} is older than examples/mock_adapter.rs; run 'cargo build --examples' (or plain 'cargo test')",
        binary.display()
    );
    Session::with_mock(script, extra)
}

/// Waits until the mock adapter says it holds a `command` request (see its `holding`).
#[track_caller]
fn held_by_the_adapter(s: &Session, command: &str) {
    let said = format!("mock adapter: holding {command}");
    assert!(
        eventually(Duration::from_secs(20), || s.log().contains(&said)),
        "the adapter never got the {command} request: {}",
        s.log()
    );
}

/// Kills a process the test made the mock launch, should the product leave it behind, so a
/// failing test does not leak a `sleep 600`.
struct Reap(u64);

impl Drop for Reap {
    fn drop(&mut self) {
        if alive(self.0) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &self.0.to_string()])
                .status();
        }
    }
}

/// "At once": far below any configured timeout, with room for a loaded CI machine.
const AT_ONCE: Duration = Duration::from_secs(5);

/// Runs `debugger ARGS...` in the background, e.g. a request the adapter will not answer soon.
fn spawn(s: &Session, args: &[&str]) -> Child {
    s.command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn debugger")
}

fn finish(child: Child) -> Run {
    let output = child.wait_with_output().expect("wait for debugger");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs a command and returns it with how long it took.
fn timed(s: &Session, args: &[&str]) -> (Run, Duration) {
    let began = Instant::now();
    let run = s.run(args);
    (run, began.elapsed())
}

/// Waits up to `limit` for `pid` to be gone; true when it is.
fn gone_within(pid: u64, limit: Duration) -> bool {
    let began = Instant::now();
    while began.elapsed() < limit {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    !alive(pid)
}

/// A `kB` field of /proc/PID/status (e.g. VmHWM), in bytes.
fn proc_status_bytes(pid: u64, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("read /proc/{pid}/status: {e}"));
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unreadable {line}"));
    kib * 1024
}

/// Starts the mock session and asserts it started.
#[track_caller]
fn start_ok(s: &Session) -> Value {
    let started = s.start_mock().json();
    assert_eq!(
        started["ok"],
        true,
        "start failed: {started}\nlog:\n{}",
        s.log()
    );
    started["data"].clone()
}

/// Waits for the entry stop the mock reports after `configurationDone` (so every event it sent
/// before, such as a flood of output, has been applied).
#[track_caller]
fn await_entry(s: &Session) {
    let stop = s.data(&["await", "--timeout", "10"]);
    assert_eq!(stop["reason"], "entry", "{stop}");
}

/// The session's program output as `output --json` returns it.
fn output_text(s: &Session, extra: &[&str]) -> (String, Value) {
    let mut args = vec!["output"];
    args.extend_from_slice(extra);
    let data = s.data(&args);
    (data["text"].as_str().unwrap_or_default().to_string(), data)
}

/// After a fault ended the adapter, `start` on the same session name works again.
#[track_caller]
fn restart_works(s: &Session) {
    let again = start_ok(s);
    assert_ne!(again["state"], "adapter_died", "{again}");
    let status = s.data(&["status"]);
    assert_ne!(status["state"], "adapter_died", "{status}");
    // `bt` is a request no test scripts a fault for: the new adapter answers it.
    await_entry(s);
    let frames = s.data(&["bt"]);
    assert_eq!(
        frames["frames"][0]["function"], "main",
        "bt after restart: {frames}"
    );
}

/// The status of a session whose adapter died: `adapter_died` with a detail, never an exit.
#[track_caller]
fn assert_died_status(s: &Session, detail_contains: &str) -> Value {
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "adapter_died", "{status}");
    assert_ne!(
        status["exit_code"], 0,
        "a dead adapter is not an exit 0: {status}"
    );
    let detail = status["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains(detail_contains),
        "status detail lacks {detail_contains:?}: {status}"
    );
    status
}

#[test]
fn an_adapter_that_exits_mid_request_fails_it_with_the_exit_status_and_stderr() {
    let s = mock_session(
        &json!({"on": {"threads": {"action": "exit", "code": 7, "stderr": "mock: fatal error in threads"}}}),
        "",
    );
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let run = s.run(&["--json", "threads"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let error = run.failure();
    assert_eq!(error["code"], "adapter_died", "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("exited with status 7"), "{message}");
    assert!(
        message.contains("mock: fatal error in threads"),
        "{message}"
    );
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "adapter_died", "{status}");
}

/// Crashes the mock while it handles `print x` and checks what the user sees: the request fails
/// at once with the exit status and stderr, `status` says the adapter died, the launched
/// debuggee is reaped, and a new `start` works.
fn crash_mid_request(debuggee_stdio: &str) {
    let s = mock_session(
        &json!({
            "debuggee": true,
            "debuggee_stdio": debuggee_stdio,
            "on": {"evaluate": {"action": "exit", "code": 9, "stderr": "mock: segfault in evaluate"}},
        }),
        // Short enough that a missed death costs the suite little, long enough to tell apart.
        "[timeouts]\nrequest_secs = 10\n",
    );
    start_ok(&s);
    await_entry(&s);
    let before = s.data(&["status"]);
    let debuggee = before["debuggee_pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("status has no debuggee_pid: {before}"));
    let _reap = Reap(debuggee);
    assert!(
        alive(debuggee),
        "the mock's debuggee {debuggee} is not running"
    );

    let (run, took) = timed(&s, &["--json", "print", "x"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter_died", "{error}\nafter {took:?}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("exited with status 9"), "{message}");
    assert!(message.contains("mock: segfault in evaluate"), "{message}");
    assert!(
        took < AT_ONCE,
        "the request failed only after {took:?}, not at once"
    );

    let status = assert_died_status(&s, "exited with status 9");
    assert!(
        status["detail"]
            .as_str()
            .unwrap_or("")
            .contains("mock: segfault in evaluate"),
        "{status}"
    );
    assert!(
        gone_within(debuggee, Duration::from_secs(3)),
        "the launched debuggee {debuggee} outlived its dead adapter\nlog:\n{}",
        s.log()
    );

    restart_works(&s);
}

#[test]
fn a_crash_mid_request_fails_at_once_reaps_the_debuggee_and_allows_a_new_start() {
    crash_mid_request("null");
}

/// The same crash, but the debuggee shares the adapter's stdout and stderr (as a launched program
/// often does): the protocol pipe stays open after the adapter exits, so the death must be seen
/// from the process, not from the end of its output.
#[test]
fn a_crash_is_seen_at_once_even_when_the_debuggee_holds_the_adapters_pipes() {
    crash_mid_request("inherit");
}

#[test]
fn garbage_from_the_adapter_is_a_clear_protocol_error_and_the_daemon_keeps_serving() {
    let s = mock_session(&json!({"on": {"evaluate": {"action": "garbage"}}}), "");
    let adapter = start_ok(&s)["adapter_pid"].as_u64().expect("adapter_pid");
    await_entry(&s);

    let (run, took) = timed(&s, &["--json", "print", "x"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter_died", "{error}");
    let message = error["message"].as_str().unwrap_or("").to_lowercase();
    assert!(
        message.contains("protocol") || message.contains("malformed"),
        "{message}"
    );
    assert!(took < AT_ONCE, "took {took:?}");
    assert!(
        !s.log().contains("panicked"),
        "the daemon panicked:\n{}",
        s.log()
    );

    assert_died_status(&s, "protocol");
    assert!(
        gone_within(adapter, Duration::from_secs(3)),
        "the adapter {adapter} that broke the protocol still runs"
    );
    restart_works(&s);
}

#[test]
fn an_answer_that_cannot_be_read_fails_its_request_alone_and_the_session_goes_on() {
    let s = mock_session(
        &json!({"on": {"evaluate": {"action": "broken_answer"}}}),
        "",
    );
    start_ok(&s);
    await_entry(&s);

    let (run, took) = timed(&s, &["--json", "print", "x"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter", "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("cannot read"), "{message}");
    // Failed by the answer itself, not by the request's timeout.
    assert!(took < AT_ONCE, "took {took:?}");

    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
    let frames = s.data(&["bt"]);
    assert_eq!(frames["frames"][0]["function"], "main", "{frames}");
}

#[test]
fn a_4_gib_content_length_is_refused_without_allocating_it() {
    let s = mock_session(&json!({"on": {"evaluate": {"action": "huge_length"}}}), "");
    let adapter = start_ok(&s)["adapter_pid"].as_u64().expect("adapter_pid");
    await_entry(&s);

    let (run, took) = timed(&s, &["--json", "print", "x"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter_died", "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(
        message.contains("limit") && message.contains("4294967296"),
        "{message}"
    );
    assert!(took < AT_ONCE, "took {took:?}");

    let status = assert_died_status(&s, "limit");
    let daemon = status["daemon_pid"].as_u64().expect("daemon_pid");
    let peak = proc_status_bytes(daemon, "VmHWM");
    assert!(
        peak < 64 * 1024 * 1024,
        "the daemon's peak RSS is {peak} bytes after a 4 GiB Content-Length"
    );
    assert!(!s.log().contains("panicked"), "{}", s.log());
    assert!(
        gone_within(adapter, Duration::from_secs(3)),
        "the adapter {adapter} that broke the protocol still runs"
    );
    restart_works(&s);
}

#[test]
fn an_unanswered_request_times_out_while_the_daemon_keeps_serving() {
    let s = mock_session(
        // Not `evaluate`: an evaluation has its own bound (`evaluate_secs`, its own error).
        &json!({"on": {"scopes": {"action": "hang"}}}),
        "[timeouts]\nrequest_secs = 1\n",
    );
    start_ok(&s);
    await_entry(&s);

    let began = Instant::now();
    let mut hanging = spawn(&s, &["--json", "locals"]);
    held_by_the_adapter(&s, "scopes");
    // Another client is served while the request waits.
    let (status, status_took) = timed(&s, &["--json", "status"]);
    assert_eq!(status.json()["ok"], true, "{status:?}");
    assert!(
        hanging.try_wait().expect("poll print").is_none(),
        "status answered only after the hanging request ended ({status_took:?})"
    );

    let run = finish(hanging);
    let took = began.elapsed();
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter_timeout", "{error}");
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or("")
            .contains("timeouts.request_secs"),
        "{error}"
    );
    assert!(
        took >= Duration::from_millis(900) && took < AT_ONCE,
        "the request timed out after {took:?}, not about 1 s"
    );

    // The daemon keeps serving, and the adapter (which still reads) answers other requests.
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
    let threads = s.data(&["threads"]);
    assert!(threads.to_string().contains("main"), "{threads}");
}

/// `status` must not wait on an adapter that does not answer: it reports what the daemon knows.
#[test]
fn status_answers_without_waiting_on_a_hung_adapter() {
    let s = mock_session(
        &json!({"on": {"threads": {"action": "hang"}}}),
        "[timeouts]\nrequest_secs = 5\n",
    );
    start_ok(&s);
    // The entry stop follows `configurationDone` at once; `status` is asked until it shows it,
    // and no answer may wait on the hung `threads`.
    let mut last = Value::Null;
    let stopped = eventually(Duration::from_secs(20), || {
        let (status, took) = timed(&s, &["--json", "status"]);
        assert!(
            took < Duration::from_millis(2500),
            "status took {took:?}: it waited on the adapter's answer to `threads` (request timeout 5 s)\nlog:\n{}",
            s.log()
        );
        last = status.json();
        assert_eq!(last["ok"], true, "{last}");
        last["data"]["state"] == "stopped"
    });
    assert!(stopped, "the entry stop never showed: {last}");
}

#[test]
fn a_slow_answer_arrives_while_other_clients_are_served() {
    let s = mock_session(
        &json!({"on": {"evaluate": {"action": "slow", "ms": 1500}}}),
        "",
    );
    start_ok(&s);
    await_entry(&s);
    // Thread names and frames are fetched now, so `status` below needs nothing from the adapter
    // (which answers one request at a time and is busy with the slow one).
    s.data(&["context"]);

    let began = Instant::now();
    let mut slow = spawn(&s, &["--json", "print", "x"]);
    held_by_the_adapter(&s, "evaluate");
    let (status, status_took) = timed(&s, &["--json", "status"]);
    assert_eq!(status.json()["ok"], true, "{status:?}");
    assert!(
        slow.try_wait().expect("poll print").is_none(),
        "status answered only after the slow request ended ({status_took:?})"
    );

    let run = finish(slow);
    let took = began.elapsed();
    assert_eq!(run.code, 0, "{run:?}");
    let value = run.json();
    assert_eq!(value["data"]["value"], "x", "{value}");
    assert!(took >= Duration::from_millis(1400), "took only {took:?}");
}

#[test]
fn a_continue_from_another_client_waits_for_a_locals_reading_the_stop() {
    // Stop reports read no values here, so the one `variables` the adapter holds is the
    // reading's own.
    let s = mock_session(
        &json!({"on": {"variables": {"action": "slow", "ms": 1000}}}),
        "[defaults]\nstop_locals = \"none\"\n",
    );
    start_ok(&s);
    await_entry(&s);

    let reading = spawn(&s, &["--json", "locals"]);
    held_by_the_adapter(&s, "variables");
    let resumed = s.run(&["--json", "continue"]);
    assert_eq!(resumed.json()["ok"], true, "{resumed:?}");
    let locals = finish(reading);
    assert_eq!(locals.code, 0, "{locals:?}");
    assert_eq!(
        locals.json()["data"]["variables"][0]["name"],
        "x",
        "{locals:?}"
    );

    // The program was resumed only once the reading was answered: moved under it, a real
    // adapter answers the rest of its requests with nothing.
    let log = s.log();
    let answered = log.find(r#"command="variables" success=true"#);
    let continued = log.find(r#"command="continue""#);
    assert!(
        matches!((answered, continued), (Some(a), Some(c)) if a < c),
        "continue was sent before the locals' variables were answered:\n{log}"
    );
}

#[test]
fn a_launch_error_fails_start_at_once_with_the_adapters_message() {
    let message = "mock: cannot launch /bin/true: permission denied (scripted)";
    let s = mock_session(
        &json!({"on": {"launch": {"action": "error", "message": message}}}),
        "",
    );
    let began = Instant::now();
    let run = s.start_mock();
    let took = began.elapsed();
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter", "{error}");
    assert_eq!(error["message"], message, "{error}");
    assert!(took < AT_ONCE, "took {took:?}");

    // The text form says the same words.
    let text = s.run(&["start", "--adapter", "mock", "/bin/true"]);
    assert_eq!(text.code, 1, "{text:?}");
    assert!(text.stderr.contains(message), "{text:?}");
}

#[test]
fn a_flood_of_output_events_is_kept_in_order() {
    const LINES: usize = 20_000;
    let s = mock_session(&json!({"flood": LINES}), "");
    start_ok(&s);
    await_entry(&s);

    let (text, data) = output_text(&s, &[]);
    assert_eq!(data["dropped_total"], 0, "{}", data["dropped_total"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), LINES, "got {} lines", lines.len());
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(*line, format!("flood line {i}"), "line {i} out of order");
    }
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
}

#[test]
fn a_flood_over_the_buffer_reports_what_was_dropped_and_keeps_the_last_line() {
    let s = mock_session(&json!({"flood": 20_000}), "[output]\nbuffer_bytes = 4096\n");
    start_ok(&s);
    await_entry(&s);

    let (text, data) = output_text(&s, &[]);
    let dropped = data["dropped_total"].as_u64().unwrap_or(0);
    assert!(dropped > 0, "nothing reported dropped: {data}");
    assert!(
        text.len() <= 4096,
        "kept {} bytes over the bound",
        text.len()
    );
    let (tail, _) = output_text(&s, &["--tail", "1"]);
    assert_eq!(tail.trim_end(), "flood line 19999", "{tail:?}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
}

#[test]
fn a_reverse_request_from_the_adapter_is_answered() {
    let s = mock_session(&json!({"reverse_request": "runInTerminal"}), "");
    start_ok(&s);
    await_entry(&s);
    // The mock reports our answer as program output once it reads it.
    let began = Instant::now();
    let text = loop {
        let (text, _) = output_text(&s, &[]);
        if text.contains("reverse request answered") || began.elapsed() > Duration::from_secs(3) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        text.contains("reverse request answered: success=false"),
        "{text:?}\nlog:\n{}",
        s.log()
    );
}

#[test]
fn an_adapter_that_exits_at_initialize_fails_start_and_the_daemon_exits() {
    let s = mock_session(
        &json!({"on": {"initialize": {"action": "exit", "code": 3, "stderr": "mock: no licence to debug"}}}),
        "",
    );
    let began = Instant::now();
    let run = s.start_mock();
    let took = began.elapsed();
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "adapter_died", "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("mock: no licence to debug"), "{message}");
    assert!(message.contains("exited with status 3"), "{message}");
    assert!(took < AT_ONCE, "took {took:?}");

    // The daemon had no session to keep: it exits and removes its socket; no session runs.
    let status = s.run(&["--json", "status"]);
    assert_eq!(status.code, 4, "{status:?}");
    assert_eq!(status.failure()["code"], "no_session");
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    let began = Instant::now();
    while socket.exists() && began.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !socket.exists(),
        "the daemon still serves {} after a failed start",
        socket.display()
    );
}
