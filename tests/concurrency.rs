//! Many clients at once: 50 CLI calls (`status`, `backtrace`, `output`) while another client waits
//! in `await` and another follows the output, all answered; racing `start`s on one session name,
//! exactly one winning; a waiting client killed mid-wait, harmless.
//!
//! Every CLI call runs with a time limit, so a daemon that serialises clients fails the test
//! instead of hanging it.

mod common;

use std::io::Read;
use std::process::{Child, Stdio};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use common::{Run, Session, build, require_lldb_dap};
use serde_json::{Value, json};

/// How long one CLI call may take, even with 50 others running on a 2-core machine.
const CALL_LIMIT: Duration = Duration::from_secs(60);

/// Runs the CLI, failing the test (instead of hanging it) when it takes longer than `limit`.
#[track_caller]
fn run_within(s: &Session, args: &[&str], limit: Duration) -> Run {
    let child = s
        .command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn debugger");
    wait_within(child, limit).unwrap_or_else(|run| {
        panic!("`debugger {args:?}` did not finish within {limit:?}: {run:?}")
    })
}

/// Waits for `child`; `Err` (after killing it) when it outlives `limit`.
fn wait_within(mut child: Child, limit: Duration) -> Result<Run, Run> {
    let began = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return Ok(collect(child));
        }
        if began.elapsed() > limit {
            let _ = child.kill();
            return Err(collect(child));
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

fn spawn_cli(s: &Session, args: &[&str]) -> Child {
    s.command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn debugger")
}

/// A child process of ours, killed if the test ends before it does.
struct Guard(Option<Child>);

impl Guard {
    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("child")
    }

    fn take(&mut self) -> Child {
        self.0.take().expect("child")
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs `count` CLI calls at once (released together by a barrier), cycling through `commands`,
/// and returns each call's command and result.
fn storm(s: &Session, count: usize, commands: &[&[&str]]) -> Vec<(Vec<String>, Run, Duration)> {
    let barrier = Barrier::new(count);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..count)
            .map(|i| {
                let args: Vec<&str> = commands[i % commands.len()].to_vec();
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let began = Instant::now();
                    let run = run_within(s, &args, CALL_LIMIT);
                    (
                        args.iter().map(|a| a.to_string()).collect(),
                        run,
                        began.elapsed(),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("client thread"))
            .collect()
    })
}

/// The `(ok, data-or-error)` of a `--json` run, checking that it printed one JSON object.
#[track_caller]
fn outcome(args: &[String], run: &Run) -> (bool, Value) {
    let value: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{args:?} printed no JSON object ({e}): {run:?}"));
    let ok = value["ok"] == true;
    (
        ok,
        if ok {
            value["data"].clone()
        } else {
            value["error"].clone()
        },
    )
}

/// Collects a child's stdout as it arrives, so a long-running `--follow` can be checked.
fn tee_stdout(child: &mut Child) -> Arc<Mutex<String>> {
    let seen = Arc::new(Mutex::new(String::new()));
    let mut stdout = child.stdout.take().expect("stdout");
    let sink = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    seen
}

fn ticks(seen: &Arc<Mutex<String>>) -> usize {
    seen.lock()
        .unwrap_or_else(|p| p.into_inner())
        .matches("tick: ")
        .count()
}

/// Polls until `check` holds or `limit` passes.
fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

const STORM: &[&[&str]] = &[
    &["--json", "status"],
    &["--json", "backtrace"],
    &["--json", "output", "--tail", "5"],
];

#[test]
fn fifty_clients_with_an_await_and_a_follow_are_all_answered() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/spin.c"), &[]);
    assert!(
        eventually(Duration::from_secs(20), || {
            s.data(&["output"])["text"]
                .as_str()
                .is_some_and(|t| t.contains("tick: "))
        }),
        "spin.c printed no tick"
    );

    // One client waits for a stop that only a later `pause` brings; one follows the output.
    let mut waiter = Guard(Some(spawn_cli(
        &s,
        &["--json", "await", "--timeout", "120"],
    )));
    let mut follower = Guard(Some(spawn_cli(&s, &["output", "--follow"])));
    let followed = tee_stdout(follower.child());
    assert!(
        eventually(Duration::from_secs(20), || ticks(&followed) > 0),
        "output --follow printed no tick"
    );

    // 50 clients at once while the program runs.
    let began = Instant::now();
    let results = storm(&s, 50, STORM);
    let slowest = results.iter().map(|r| r.2).max().unwrap_or_default();
    eprintln!(
        "50 clients while running: all done in {:?}, slowest call {slowest:?}",
        began.elapsed()
    );
    assert_eq!(results.len(), 50);
    for (args, run, _) in &results {
        let (ok, body) = outcome(args, run);
        match args[1].as_str() {
            "status" => {
                assert!(ok, "{args:?}: {run:?}");
                assert_eq!(body["state"], "running", "{body}");
            }
            // A running program has no stack to show: a clear error is the answer.
            "backtrace" => {
                assert!(!ok, "{args:?}: {run:?}");
                assert_eq!(body["code"], "running", "{body}");
                assert_eq!(run.code, 1, "{run:?}");
            }
            _ => {
                assert!(ok, "{args:?}: {run:?}");
                assert!(
                    body["text"].as_str().is_some_and(|t| t.contains("tick: ")),
                    "{body}"
                );
            }
        }
    }

    // The waiter is still waiting, and the follower is still printing.
    assert!(
        waiter.child().try_wait().expect("try_wait").is_none(),
        "await returned while the program was running"
    );
    let before = ticks(&followed);
    assert!(
        eventually(Duration::from_secs(10), || ticks(&followed) > before),
        "output --follow stopped printing ({before} ticks seen)"
    );

    // A pause from yet another client releases the waiter with the pause.
    let paused = run_within(&s, &["--json", "pause"], CALL_LIMIT);
    assert_eq!(paused.code, 0, "{paused:?}");
    let awaited = wait_within(waiter.take(), Duration::from_secs(20))
        .unwrap_or_else(|run| panic!("await did not return after pause: {run:?}"));
    assert_eq!(awaited.code, 0, "{awaited:?}");
    let report = awaited.json();
    assert_eq!(report["data"]["reason"], "pause", "{report}");

    // 50 clients at once while it is stopped: now every call succeeds.
    let results = storm(&s, 50, STORM);
    for (args, run, _) in &results {
        let (ok, body) = outcome(args, run);
        assert!(ok, "{args:?} while stopped: {run:?}");
        match args[1].as_str() {
            "status" => assert_eq!(body["state"], "stopped", "{body}"),
            "backtrace" => assert!(
                body["frames"].as_array().is_some_and(|f| !f.is_empty()),
                "{body}"
            ),
            _ => assert!(body["text"].is_string(), "{body}"),
        }
    }

    // Ending the session ends the follower too.
    let stopped = run_within(&s, &["stop"], CALL_LIMIT);
    assert_eq!(stopped.code, 0, "{stopped:?}");
    let ended = wait_within(follower.take(), Duration::from_secs(20));
    assert!(
        ended.is_ok(),
        "output --follow kept running after the session ended: {ended:?}"
    );
}

#[test]
fn a_client_killed_while_waiting_disturbs_nobody() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/spin.c"), &[]);
    let waits = s.waits_seen();
    let mut waiters: Vec<Guard> = (0..5)
        .map(|_| {
            Guard(Some(spawn_cli(
                &s,
                &["--json", "await", "--timeout", "120"],
            )))
        })
        .collect();
    s.wait_for_waits(waits + 5);
    for waiter in &mut waiters {
        assert!(
            waiter.child().try_wait().expect("try_wait").is_none(),
            "await returned while the program was running"
        );
        let _ = waiter.child().kill();
    }
    drop(waiters);

    let status = run_within(&s, &["--json", "status"], CALL_LIMIT).json();
    assert_eq!(status["data"]["state"], "running", "{status}");
    // A new wait still times out as asked (exit 3), and a pause still reaches a new waiter.
    let timed_out = run_within(&s, &["--json", "await", "--timeout", "0.5"], CALL_LIMIT);
    assert_eq!(timed_out.code, 3, "{timed_out:?}");
    let waits = s.waits_seen();
    let waiter = spawn_cli(&s, &["--json", "await", "--timeout", "60"]);
    s.wait_for_waits(waits + 1);
    let paused = run_within(&s, &["--json", "pause"], CALL_LIMIT);
    assert_eq!(paused.code, 0, "{paused:?}");
    let awaited = wait_within(waiter, Duration::from_secs(20))
        .unwrap_or_else(|run| panic!("await did not return after pause: {run:?}"));
    assert_eq!(awaited.json()["data"]["reason"], "pause", "{awaited:?}");
}

#[test]
fn racing_pauses_are_all_answered_and_stop_the_program_once() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/spin.c"), &[]);
    // Past the dynamic loader (a pause during start-up is its own test below).
    assert!(
        eventually(Duration::from_secs(20), || {
            s.data(&["output"])["text"]
                .as_str()
                .is_some_and(|t| t.contains("tick: "))
        }),
        "spin.c printed no tick"
    );
    let results = storm(&s, 10, &[&["--json", "pause"]]);
    for (args, run, _) in &results {
        let (ok, body) = outcome(args, run);
        // A pause that finds the program already stopped may say so; either way it answers.
        assert!(
            ok || body["code"].is_string(),
            "{args:?} gave no answer: {run:?}"
        );
    }
    let report = s.data(&["await", "--timeout", "20"]);
    assert_eq!(report["reason"], "pause", "{report}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
    // The program continues and pauses normally afterwards.
    s.data(&["continue"]);
    let paused = s.data(&["pause", "--wait", "--timeout", "20"]);
    assert_eq!(paused["stop"]["reason"], "pause", "{paused}");
}

/// Runs `racers` `start`s on one fresh mock session at once and checks exactly one won.
fn race_starts(racers: usize, json_mode: bool) {
    let s = Session::with_mock(&json!({"debuggee": true}), "");
    let mut args = vec!["start", "--adapter", "mock", "/bin/true"];
    if json_mode {
        args.insert(0, "--json");
    }
    let results = storm(&s, racers, &[args.as_slice()]);
    let winners: Vec<&Run> = results
        .iter()
        .filter(|r| r.1.code == 0)
        .map(|r| &r.1)
        .collect();
    assert_eq!(winners.len(), 1, "{results:#?}");
    for (_, run, _) in results.iter().filter(|r| r.1.code != 0) {
        assert_eq!(run.code, 1, "{run:?}");
        if json_mode {
            let error = run.failure();
            assert_eq!(error["code"], "session_exists", "{error}");
            assert!(
                error["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains("already running"),
                "{error}"
            );
        } else {
            assert!(run.stderr.contains("already running"), "{run:?}");
        }
    }
    let status = s.data(&["status"]);
    if json_mode {
        let won = winners[0].json();
        assert_eq!(status["daemon_pid"], won["data"]["daemon_pid"], "{status}");
        assert_eq!(
            status["debuggee_pid"], won["data"]["debuggee_pid"],
            "{status}"
        );
    }
    let sessions = s.data(&["sessions"]);
    assert_eq!(
        sessions["sessions"].as_array().map(Vec::len),
        Some(1),
        "{sessions}"
    );
}

#[test]
fn two_racing_starts_exactly_one_wins() {
    // The losing side's window is short (the winner's daemon between taking the session lock and
    // listening), so race many times.
    for round in 0..20 {
        eprintln!("round {round}");
        race_starts(2, round % 2 == 0);
    }
}

#[test]
fn eight_racing_starts_exactly_one_wins() {
    for round in 0..5 {
        eprintln!("round {round}");
        race_starts(8, true);
    }
}

fn open_fds(pid: u64) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

#[test]
fn killed_waiters_release_their_connections_while_the_program_runs() {
    require_lldb_dap();
    let s = Session::new();
    let started = s.start(&build("c/spin.c"), &[]);
    let daemon = started["daemon_pid"].as_u64().expect("daemon_pid");
    assert_eq!(s.data(&["status"])["state"], "running");
    let baseline = open_fds(daemon);

    // Agents kill a waiting command on their own timeouts; the daemon must not keep each one's
    // connection (a descriptor and a task) until the program next stops.
    let mut waiters: Vec<Guard> = (0..20)
        .map(|_| {
            Guard(Some(spawn_cli(
                &s,
                &["--json", "await", "--timeout", "300"],
            )))
        })
        .collect();
    // (The baseline may still count the `status` connection just made: allow for it.)
    assert!(
        eventually(Duration::from_secs(10), || open_fds(daemon)
            >= baseline + 19),
        "the waiters never connected ({} descriptors, baseline {baseline})",
        open_fds(daemon)
    );
    for waiter in &mut waiters {
        let _ = waiter.child().kill();
    }
    drop(waiters);
    let released = eventually(Duration::from_secs(10), || open_fds(daemon) <= baseline + 2);
    let held = open_fds(daemon);
    assert_eq!(
        s.data(&["status"])["state"],
        "running",
        "the program should still run"
    );
    assert!(
        released,
        "20 killed `await`s still hold {} descriptors in the daemon 10 s later (baseline {baseline})",
        held - baseline.min(held)
    );
}

#[test]
fn a_start_that_finds_a_daemon_still_starting_says_a_session_is_already_running() {
    // The state a racing `start` can meet: another daemon holds the session's lock but does not
    // listen yet. Holding the lock here makes that moment last.
    let s = Session::with_mock(&json!({}), "");
    let lock_path = s.runtime_dir().join(format!("{}.lock", s.name));
    let lock = debugger::ipc::socket::SessionLock::try_acquire(&lock_path)
        .expect("lock")
        .expect("the lock is free");
    let run = run_within(
        &s,
        &["--json", "start", "--adapter", "mock", "/bin/true"],
        CALL_LIMIT,
    );
    drop(lock);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(
        error["code"], "session_exists",
        "a start that lost the race must not say that no session is running: {error}"
    );
}

#[test]
fn a_pause_racing_the_programs_start_up_is_reported_as_a_pause() {
    require_lldb_dap();
    // A pause sent right after `start` lands while the program is still in the dynamic loader,
    // where lldb may be stepping over its own internal breakpoint. Whatever lldb calls that
    // stop, the user asked for a pause and must be told of a pause.
    let program = build("c/spin.c");
    let mut seen = Vec::new();
    for _ in 0..10 {
        let s = Session::new();
        s.start(&program, &[]);
        let paused = s.data(&["pause", "--wait", "--timeout", "20"]);
        let stop = &paused["stop"];
        seen.push(format!(
            "{} ({}) in {}",
            stop["reason"], stop["description"], stop["frame"]["function"]
        ));
    }
    let wrong: Vec<&String> = seen
        .iter()
        .filter(|r| !r.starts_with("\"pause\""))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} pauses right after start were reported otherwise: {seen:#?}",
        wrong.len(),
        seen.len()
    );
}
