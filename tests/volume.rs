//! Volume: a debuggee printing 2 million lines (fixtures/c/flood.c) against a 1 MiB output
//! buffer, and values too big to show (fixtures/c/million.c). The daemon keeps answering, its
//! memory and its log stay bounded, the newest output is kept and the dropped bytes are counted,
//! and huge values come back capped with a note of what was left out.
//!
//! The timing bounds here are deliberately generous (they catch starvation, not slowness); the
//! measured figures are printed for the record.

//! Unix only: raw Unix sockets and resource limits.
#![cfg(unix)]

mod common;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{Session, build, fixture_path, line_of, require_lldb_dap};
use debugger::daemon::logging::RotatingLog;
use debugger::ipc::framing::{read_frame, write_frame};
use serde_json::{Value, json};

const BUFFER_BYTES: u64 = 1024 * 1024;
const FLOOD_LINES: u64 = 2_000_000;
/// What flood.c prints: "line 0\n" .. "line 1999999\n".
const FLOOD_BYTES: u64 = 24_888_890;
/// The daemon's memory may exceed its output buffer by this much.
const MEMORY_SLACK: u64 = 48 * 1024 * 1024;
/// A `status` slower than this under the flood means the daemon is starved.
const STATUS_BOUND: Duration = Duration::from_secs(2);
/// The whole flood, start to exit, must fit in this.
const FLOOD_LIMIT: Duration = Duration::from_secs(60);
/// Where the daemon log rotates (src/daemon/logging.rs), and the most kept on disk.
const LOG_ROTATE_BYTES: u64 = 4 * 1024 * 1024;
const FEW_SECONDS: Duration = Duration::from_secs(5);

/// The floods run one at a time, so one does not starve the other's latency figures.
static FLOOD: Mutex<()> = Mutex::new(());

fn flood_config() -> String {
    format!("[daemon]\ngrace_period_secs = 60\n[output]\nbuffer_bytes = {BUFFER_BYTES}\n")
}

/// A `/proc/<pid>/status` field in bytes (`VmHWM`, `VmRSS`).
fn proc_kib(pid: u64, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// One `status` over a fresh connection, as the CLI does it, without the CLI's process start-up.
fn raw_status(socket: &Path) -> (Value, Duration) {
    let began = Instant::now();
    let mut stream = UnixStream::connect(socket).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write_frame(
        &mut stream,
        &json!({"id": 1, "command": {"command": "status"}}),
    )
    .expect("write");
    let reply: Value = read_frame(&mut stream).expect("status answer");
    let took = began.elapsed();
    let data = reply["result"]["Ok"].clone();
    assert!(data.is_object(), "status failed: {reply}");
    (data, took)
}

/// What a flood run measured.
struct Flood {
    s: Session,
    daemon_pid: u64,
    status_calls: u32,
    max_status: Duration,
    max_cli_status: Duration,
    max_rss: u64,
    took: Duration,
    last_state: Value,
}

/// Starts flood.c and polls `status` until it has exited, timing every answer.
fn run_flood(s: Session) -> Flood {
    let started = s.start(&build("c/flood.c"), &[]);
    let daemon_pid = started["daemon_pid"].as_u64().expect("daemon_pid");
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    let began = Instant::now();
    let mut flood = Flood {
        s,
        daemon_pid,
        status_calls: 0,
        max_status: Duration::ZERO,
        max_cli_status: Duration::ZERO,
        max_rss: 0,
        took: Duration::ZERO,
        last_state: Value::Null,
    };
    loop {
        let (status, took) = raw_status(&socket);
        flood.status_calls += 1;
        flood.max_status = flood.max_status.max(took);
        flood.max_rss = flood
            .max_rss
            .max(proc_kib(daemon_pid, "VmRSS").unwrap_or(0));
        if flood.status_calls.is_multiple_of(10) {
            let cli = Instant::now();
            let run = flood.s.run(&["--json", "status"]);
            flood.max_cli_status = flood.max_cli_status.max(cli.elapsed());
            assert_eq!(run.json()["ok"], true, "{run:?}");
        }
        let state = status["state"].as_str().unwrap_or("").to_string();
        if state == "exited" || state == "terminated" {
            flood.last_state = status;
            break;
        }
        assert_eq!(state, "running", "{status}");
        assert!(
            began.elapsed() < FLOOD_LIMIT,
            "flood.c did not finish within {FLOOD_LIMIT:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    flood.took = began.elapsed();
    flood
}

#[test]
fn a_flood_of_two_million_lines_keeps_status_fast_memory_bounded_and_the_tail_right() {
    require_lldb_dap();
    let _one_at_a_time = FLOOD.lock().unwrap_or_else(|p| p.into_inner());
    let flood = run_flood(Session::with_config(&flood_config()));
    let s = &flood.s;
    let peak = proc_kib(flood.daemon_pid, "VmHWM").expect("VmHWM of the daemon");
    eprintln!(
        "flood: {} lines in {:?}; {} status calls, slowest {:?} over the socket, slowest {:?} via the CLI; \
         daemon VmHWM {:.1} MiB, largest VmRSS seen {:.1} MiB (buffer {} MiB)",
        FLOOD_LINES,
        flood.took,
        flood.status_calls,
        flood.max_status,
        flood.max_cli_status,
        peak as f64 / 1048576.0,
        flood.max_rss as f64 / 1048576.0,
        BUFFER_BYTES / 1048576,
    );
    assert_eq!(flood.last_state["exit_code"], 0, "{}", flood.last_state);
    assert!(
        flood.status_calls >= 3,
        "the flood ended before status could be measured ({} calls)",
        flood.status_calls
    );
    assert!(
        flood.max_status < STATUS_BOUND,
        "status took {:?} during the flood",
        flood.max_status
    );
    assert!(
        peak < BUFFER_BYTES + MEMORY_SLACK,
        "the daemon peaked at {peak} bytes for a {BUFFER_BYTES}-byte buffer"
    );

    // The last line is kept, in JSON and in text.
    let tail = s.data(&["output", "--tail", "1"]);
    assert_eq!(tail["text"], "line 1999999\n", "{tail}");
    let text_tail = s.run(&["output", "--tail", "1"]);
    assert_eq!(text_tail.ok(), "line 1999999\n");

    // What is held is the newest megabyte, whole lines in order, and the rest is counted.
    let all = s.data(&["output"]);
    let dropped = all["dropped_total"].as_u64().expect("dropped_total");
    let held = all["text"].as_str().expect("text");
    assert!(
        held.len() as u64 <= BUFFER_BYTES,
        "{} bytes held for a {BUFFER_BYTES}-byte buffer",
        held.len()
    );
    assert!(
        dropped >= FLOOD_BYTES - BUFFER_BYTES,
        "only {dropped} bytes reported dropped of {FLOOD_BYTES}"
    );
    let numbers: Vec<u64> = held
        .lines()
        .filter_map(|l| l.strip_prefix("line "))
        .filter_map(|n| n.parse().ok())
        .collect();
    assert!(numbers.len() > 50_000, "only {} lines held", numbers.len());
    let first = numbers[1];
    for (i, n) in numbers[1..].iter().enumerate() {
        assert_eq!(
            *n,
            first + i as u64,
            "a line is missing inside the held output"
        );
    }
    assert_eq!(numbers.last(), Some(&(FLOOD_LINES - 1)));
    let text = s.run(&["output"]);
    assert!(
        text.stderr
            .contains(&format!("note: {dropped} earlier bytes were dropped")),
        "text output should say how much was dropped: {}",
        text.stderr
    );
}

/// The daemon's log files for session `s`: `daemon-<name>.log` and its rotations.
fn log_files(s: &Session) -> Vec<(String, u64)> {
    let prefix = format!("daemon-{}.log", s.name);
    let mut files: Vec<(String, u64)> = std::fs::read_dir(s.state_dir())
        .expect("state dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix)
                .then(|| (name, e.metadata().map(|m| m.len()).unwrap_or(0)))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_daemon_log_stays_bounded_under_a_flood_at_debug_level() {
    require_lldb_dap();
    let _one_at_a_time = FLOOD.lock().unwrap_or_else(|p| p.into_inner());
    // lldb-dap told to leave the program's streams alone (its `initCommands` laid over ours):
    // it then runs the program on its own pty and sends the flood as output events, which the
    // daemon logs at debug (the daemon's own pipes log nothing per read).
    let s = Session::with_config(&format!(
        "{}[adapters.lldb.launch]\ninitCommands = [\"settings set target.inherit-env false\"]\n",
        flood_config()
    ));
    // Start near the limit, with an old rotation in place, so the flood's log must rotate (how
    // much a flood logs depends on how the adapter chunks output) and the old one must go.
    let log = s.state_dir().join(format!("daemon-{}.log", s.name));
    let old = s.state_dir().join(format!("daemon-{}.log.1", s.name));
    debugger::platform::create_private_dir(&s.state_dir()).expect("state dir");
    let filler = "filler line written by the test before the daemon started\n";
    let lines = (LOG_ROTATE_BYTES as usize - 64 * 1024) / filler.len();
    std::fs::write(&log, filler.repeat(lines)).expect("prefill log");
    let stale = "stale rotation\n";
    std::fs::write(&old, stale.repeat(LOG_ROTATE_BYTES as usize / stale.len())).expect("old log");

    // The harness runs every command (and so the daemon) with DEBUGGER_LOG=debug.
    let flood = run_flood(s);
    let files = log_files(&flood.s);
    let total: u64 = files.iter().map(|f| f.1).sum();
    eprintln!("log files after the flood at debug level: {files:?} ({total} bytes)");
    let slack = 256 * 1024;
    for (name, size) in &files {
        assert!(
            *size <= LOG_ROTATE_BYTES + slack,
            "{name} is {size} bytes, over the {LOG_ROTATE_BYTES}-byte rotation size"
        );
    }
    assert!(
        total <= 2 * LOG_ROTATE_BYTES + slack,
        "the logs hold {total} bytes: {files:?}"
    );
    assert!(
        files.len() <= 2,
        "more than the log and one rotation: {files:?}"
    );
    // The bound was exercised: the log rotated, replacing the old rotation.
    let rotated = std::fs::read_to_string(&old).unwrap_or_default();
    assert!(
        !rotated.starts_with(stale),
        "the debug log never rotated during a 2-million-line flood: {files:?}"
    );
    // And the daemon still logs to its own file after rotating.
    assert!(
        std::fs::metadata(&log).is_ok_and(|m| m.len() > 0),
        "no {} after the rotation",
        log.display()
    );
}

#[test]
fn the_daemon_logs_at_info_by_default() {
    let s = Session::with_mock(&json!({}), "");
    let started = s
        .command()
        .env_remove("DEBUGGER_LOG")
        .args(["--json", "start", "--adapter", "mock", "/bin/true"])
        .stdout(Stdio::piped())
        .output()
        .expect("start");
    assert!(started.status.success(), "{started:?}");
    for args in [&["status"][..], &["backtrace"], &["locals"], &["output"]] {
        let value = s.json(args);
        assert_eq!(value["ok"], true, "{args:?}: {value}");
    }
    let log = s.log();
    assert!(
        log.contains("INFO"),
        "no info lines in the log: {log:.2000}"
    );
    assert!(
        !log.contains("DEBUG") && !log.contains("TRACE"),
        "debug lines at the default level: {log:.2000}"
    );
    assert!(
        log.len() < 64 * 1024,
        "{} bytes of log at info level for a short session",
        log.len()
    );
}

/// Sets the descriptor limit of the process a command starts (and so of its children).
fn with_fd_limit(command: &mut Command, limit: u64) {
    // SAFETY: setrlimit is async-signal-safe and runs in the child between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[test]
fn the_daemon_log_stays_bounded_while_clients_exhaust_its_descriptors() {
    let s = Session::with_mock(&json!({}), "");
    let mut start = s.command();
    start.args(["--json", "start", "--adapter", "mock", "/bin/true"]);
    with_fd_limit(&mut start, 64);
    let output = start.output().expect("start");
    let started: Value = serde_json::from_slice(&output.stdout).expect("start JSON");
    assert_eq!(started["ok"], true, "{started}");

    // Idle clients fill the daemon's descriptor table for a few seconds, then leave.
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    let idle: Vec<UnixStream> = (0..80)
        .map(|_| UnixStream::connect(&socket).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    drop(idle);
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");

    let files = log_files(&s);
    let total: u64 = files.iter().map(|f| f.1).sum();
    eprintln!("log files after descriptor exhaustion: {files:?}");
    assert!(
        total <= 2 * LOG_ROTATE_BYTES + 256 * 1024,
        "the daemon's logs grew to {total} bytes while its descriptors were exhausted: {files:?}"
    );
    assert!(
        files
            .iter()
            .any(|f| f.0 == format!("daemon-{}.log", s.name)),
        "the daemon no longer logs to its log file: {files:?}"
    );
}

/// Set in the child process that runs the rotation check with a small descriptor table.
const ROTATION_CHILD_ENV: &str = "DEBUGGER_TEST_ROTATION_CHILD_DIR";

#[test]
fn log_rotation_stays_bounded_when_the_new_file_cannot_be_opened() {
    if let Some(dir) = std::env::var_os(ROTATION_CHILD_ENV) {
        rotate_with_descriptors_exhausted(Path::new(&dir));
        return;
    }
    // Exhausting descriptors would disturb the other tests of this process: use a child.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(std::env::current_exe().expect("test binary"));
    child
        .args([
            "--exact",
            "log_rotation_stays_bounded_when_the_new_file_cannot_be_opened",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .env(ROTATION_CHILD_ENV, dir.path());
    with_fd_limit(&mut child, 256);
    let output = child.output().expect("run the child test");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Writes through a rotating log whose rotation falls while no descriptor is free, then after
/// descriptors are free again; at no point may the files hold more than twice the limit.
fn rotate_with_descriptors_exhausted(dir: &Path) {
    let path = dir.join("d.log");
    let rotated = dir.join("d.log.1");
    let limit = 1000u64;
    let line = [b'x'; 100];
    let on_disk = || {
        [&path, &rotated]
            .iter()
            .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .sum::<u64>()
    };
    let mut log = RotatingLog::open(&path, limit).expect("open log");
    for _ in 0..5 {
        log.write_all(&line).expect("write");
    }
    let mut held = Vec::new();
    while let Ok(file) = std::fs::File::open("/dev/null") {
        held.push(file);
    }
    for _ in 0..100 {
        let _ = log.write_all(&line);
    }
    let during = on_disk();
    drop(held);
    for _ in 0..100 {
        let _ = log.write_all(&line);
    }
    let _ = log.flush();
    let after = on_disk();
    let bound = 2 * limit + line.len() as u64;
    assert!(
        during <= bound,
        "{during} bytes on disk for a {limit}-byte log while no descriptor was free"
    );
    assert!(
        after <= bound,
        "{after} bytes on disk for a {limit}-byte log after descriptors were free again \
         (d.log exists: {})",
        path.exists()
    );
    assert!(
        path.exists(),
        "logging never returned to {}",
        path.display()
    );
}

// ---- huge values ------------------------------------------------------------------------------

fn stopped_in_million(s: &Session) {
    let at = format!(
        "{}:{}",
        fixture_path("c/million.c").display(),
        line_of("c/million.c", "@million_ready")
    );
    s.start(&build("c/million.c"), &["--break", &at]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
}

fn var<'a>(vars: &'a Value, name: &str) -> &'a Value {
    vars.as_array()
        .expect("a variable list")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variable {name} in {vars}"))
}

/// A million-element value: a few children shown, the rest counted.
#[track_caller]
fn assert_capped_array(children: &Value, omitted: &Value) {
    let shown = children.as_array().expect("children").len() as u64;
    let omitted = omitted.as_u64().expect("omitted_children");
    assert!(shown > 0 && shown <= 1000, "{shown} children shown");
    assert_eq!(shown + omitted, 1_000_000, "every element shown or counted");
}

/// The 10 MiB string: a readable prefix with a mark that it goes on.
#[track_caller]
fn assert_capped_string(value: &str) {
    assert!(value.contains("xxxxxxxx"), "{value:.200}");
    assert!(
        value.len() < 64 * 1024,
        "the string came back with {} bytes",
        value.len()
    );
    assert!(
        value.ends_with("...") || value.contains('…'),
        "no mark that the string was cut: {}",
        &value[value.len().saturating_sub(80)..]
    );
}

#[test]
fn locals_and_print_of_a_million_elements_and_a_10_mib_string_are_capped_and_quick() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_million(&s);

    let began = Instant::now();
    let locals = s.data(&["locals"]);
    let locals_took = began.elapsed();
    let million = var(&locals["variables"], "million");
    assert_capped_array(&million["children"], &million["omitted_children"]);
    assert_capped_string(
        var(&locals["variables"], "huge")["value"]
            .as_str()
            .expect("value"),
    );

    let began = Instant::now();
    let printed = s.data(&["print", "million"]);
    let print_took = began.elapsed();
    assert_capped_array(&printed["children"], &printed["omitted_children"]);
    let omitted = printed["omitted_children"].as_u64().unwrap_or(0);

    let began = Instant::now();
    let huge = s.data(&["print", "huge"]);
    let huge_took = began.elapsed();
    assert_capped_string(huge["value"].as_str().expect("value"));

    let began = Instant::now();
    let context = s.data(&["context"]);
    let context_took = began.elapsed();
    assert!(context["variables"].is_array(), "{context:.500}");

    eprintln!(
        "locals {locals_took:?}, print million {print_took:?}, print huge {huge_took:?}, context {context_took:?}"
    );
    for (what, took) in [
        ("locals", locals_took),
        ("print million", print_took),
        ("print huge", huge_took),
        ("context", context_took),
    ] {
        assert!(took < FEW_SECONDS, "{what} took {took:?}");
    }

    // Text: a screenful or so, and a line saying what was left out.
    let context = s.run(&["context"]);
    assert!(
        context.ok().len() < 64 * 1024,
        "context printed {} bytes",
        context.stdout.len()
    );
    for args in [&["locals"][..], &["print", "million"]] {
        let run = s.run(args);
        let out = run.ok();
        assert!(
            out.contains(&format!("{omitted} more not shown")),
            "{args:?} does not say what it left out: {out:.2000}"
        );
        assert!(
            out.len() < 64 * 1024,
            "{args:?} printed {} bytes",
            out.len()
        );
    }
}
