//! The end, told truly: a program killed by a signal reads `killed by signal SIGSEGV (11)`
//! (JSON: `exit_code` null, `signal` {`number`, `name`}), never `exited with code 11`; a fatal
//! signal the adapter stops on first is a stop of reason `signal` at the faulting line; where an
//! adapter gives only a number that may be a signal's, the report says so. On lldb-dap and GDB,
//! with debugpy and Node for the adapters that report codes.

mod common;

use std::process::Command;
use std::time::Duration;

use common::{
    Session, build, line_of, require_debugpy, require_delve, require_lldb_dap, require_node,
};
use serde_json::Value;

const STREAMS: &str = "c/streams.c";

fn lldb_session() -> Session {
    require_lldb_dap();
    Session::new()
}

fn gdb_session() -> Session {
    Session::with_gdb()
}

fn native_sessions() -> Vec<(&'static str, Session)> {
    vec![("lldb", lldb_session()), ("gdb", gdb_session())]
}

/// Starts `streams MODE` under `adapter` with `extra` flags.
#[track_caller]
fn start_streams(s: &Session, adapter: &str, mode: &str, extra: &[&str]) {
    let program = build(STREAMS);
    let mut args = vec!["--adapter", adapter];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", mode]);
    s.start(&program, &args);
}

#[track_caller]
fn assert_killed_by(end: &Value, number: i64, name: &str, context: &str) {
    assert_eq!(end["reason"], "exited", "{context}: {end}");
    assert_eq!(end["exit_code"], Value::Null, "{context}: {end}");
    assert_eq!(end["signal"]["number"], number, "{context}: {end}");
    assert_eq!(end["signal"]["name"], name, "{context}: {end}");
}

/// Kills the running debuggee of `s` outright, as the OS or a user would.
fn kill_debuggee(s: &Session) {
    let status = s.data(&["status"]);
    let pid = status["debuggee_pid"].as_u64().expect("a debuggee pid");
    let killed = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
}

#[test]
fn a_segfault_stops_on_the_signal_at_its_line_then_kills() {
    for (adapter, s) in native_sessions() {
        start_streams(&s, adapter, "segv", &[]);
        let stop = s.data(&["await", "--timeout", "60"]);
        assert_eq!(stop["reason"], "signal", "{adapter}: {stop}");
        assert_eq!(stop["signal"]["name"], "SIGSEGV", "{adapter}: {stop}");
        assert_eq!(stop["signal"]["number"], 11, "{adapter}: {stop}");
        assert_eq!(
            stop["frame"]["line"],
            line_of(STREAMS, "@segv_write"),
            "{adapter}: {stop}"
        );
        let text = s.run(&["status"]).ok().to_string();
        assert!(
            text.contains("Stopped on signal SIGSEGV"),
            "{adapter}: {text}"
        );
        let end = s.data(&["continue", "--wait", "--timeout", "60"]);
        assert_killed_by(&end["stop"], 11, "SIGSEGV", adapter);
        let again = s.run(&["continue"]);
        assert!(
            again.stderr.contains("killed by signal SIGSEGV (11)"),
            "{adapter}: {}",
            again.stderr
        );
        s.run(&["stop"]);
    }
}

#[test]
fn an_abort_is_a_sigabrt_stop_then_a_death_by_it() {
    for (adapter, s) in native_sessions() {
        start_streams(&s, adapter, "abrt", &[]);
        let stop = s.data(&["await", "--timeout", "60"]);
        assert_eq!(stop["reason"], "signal", "{adapter}: {stop}");
        assert_eq!(stop["signal"]["name"], "SIGABRT", "{adapter}: {stop}");
        let end = s.run(&["continue", "--wait", "--timeout", "60"]);
        assert!(
            end.ok().contains("Program killed by signal SIGABRT (6)"),
            "{adapter}: {}",
            end.stdout
        );
        let status = s.data(&["status"]);
        assert_eq!(status["signal"]["name"], "SIGABRT", "{adapter}: {status}");
        assert_eq!(status["exit_code"], Value::Null, "{adapter}: {status}");
        s.run(&["stop"]);
    }
}

#[test]
fn sigkill_while_running_is_a_death_by_sigkill() {
    // GDB knows the signal; lldb-dap's `exited` gives only its number, and lldb-server's exit
    // packet (in LLDB's gdb-remote log) the rest.
    for (adapter, s) in native_sessions() {
        start_streams(&s, adapter, "wait", &[]);
        s.output_containing(&["waiting"], Duration::from_secs(60));
        kill_debuggee(&s);
        let end = s.data(&["await", "--timeout", "60"]);
        assert_killed_by(&end, 9, "SIGKILL", adapter);
        let text = s.run(&["status"]).ok().to_string();
        assert!(
            text.contains("killed by signal SIGKILL (9)"),
            "{adapter}: {text}"
        );
        s.run(&["stop"]);
    }
}

#[test]
fn sigkill_while_stopped_is_a_death_by_sigkill() {
    for (adapter, s) in native_sessions() {
        start_streams(
            &s,
            adapter,
            "wait",
            &["-b", &common::at(STREAMS, "@wait_loop")],
        );
        let stop = s.data(&["await", "--timeout", "60"]);
        assert_eq!(stop["reason"], "breakpoint", "{adapter}: {stop}");
        kill_debuggee(&s);
        // At once, before the adapter has told of the end: lldb-dap tells of it by itself
        // within about half a second (resumed before then, lldb-dap 19 dies of a SIGPIPE, so the
        // daemon does not resume a dead program); GDB 16 never notices, and the daemon sees
        // the program's end itself. Either way the continue answers with the end.
        let end = s.data(&["continue", "--wait", "--timeout", "60"]);
        let end = &end["stop"];
        // lldb-dap says -1 (lldb-server exits without a word); a stopped process can be ended
        // by SIGKILL alone, and the report says so.
        assert_killed_by(end, 9, "SIGKILL", adapter);
        s.run(&["stop"]);
    }
}

#[test]
fn an_exit_with_a_code_stays_an_exit() {
    // Code 9 is SIGKILL's number: an exit with it is still an exit, with nothing to explain.
    for (adapter, s) in native_sessions() {
        start_streams(&s, adapter, "exit9", &[]);
        let end = s.data(&["await", "--timeout", "60"]);
        assert_eq!(end["exit_code"], 9, "{adapter}: {end}");
        assert_eq!(end["signal"], Value::Null, "{adapter}: {end}");
        assert_eq!(end["note"], Value::Null, "{adapter}: {end}");
        s.run(&["stop"]);
    }
}

#[test]
fn debugpy_and_node_deaths_by_signal() {
    require_debugpy();
    let s = Session::new();
    let script = s.cwd.join("die.py");
    std::fs::write(
        &script,
        "import os, signal\nprint('going', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n",
    )
    .expect("write script");
    s.start(&script, &[]);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["exit_code"], 247, "{end}");
    assert!(
        end["note"].as_str().is_some_and(|n| n.contains("SIGKILL")),
        "{end}"
    );
    drop(s);

    require_node();
    let s = Session::new();
    let script = s.cwd.join("die.js");
    std::fs::write(
        &script,
        "console.log('going');\nprocess.kill(process.pid, 'SIGSEGV');\n",
    )
    .expect("write script");
    s.start(&script, &[]);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_killed_by(&end, 11, "SIGSEGV", "node");
}

/// Delve tells a death by signal N as an exit with status −N: the report says the signal.
#[test]
fn delve_death_by_signal() {
    require_delve();
    let s = Session::new();
    let source = s.cwd.join("die.go");
    std::fs::write(
        &source,
        "package main\n\nimport \"syscall\"\n\nfunc main() {\n\tprintln(\"going\")\n\tsyscall.Kill(syscall.Getpid(), syscall.SIGKILL)\n}\n",
    )
    .expect("write program");
    s.start(&source, &[]);
    let end = s.data(&["await", "--timeout", "120"]);
    assert_killed_by(&end, 9, "SIGKILL", "delve");
}

#[test]
fn an_exit_with_a_failing_code_reports_the_end_of_its_stderr() {
    // ledger exits with 3 after `ledger: done` on stderr.
    let s = lldb_session();
    s.start(&build("c/ledger.c"), &[]);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["exit_code"], 3, "{end}");
    assert_eq!(end["stderr_tail"], "ledger: done", "{end}");
    s.run(&["stop"]);

    // A Python program that cannot even be compiled: why is in the report, not just its code.
    require_debugpy();
    let script = s.cwd.join("broken.py");
    std::fs::write(&script, "def f(:\n    pass\n").expect("write script");
    s.start(&script, &[]);
    let text = s.run(&["await", "--timeout", "60"]).ok().to_string();
    assert!(
        text.contains("Program exited with code 1\nIts stderr ended with:\n")
            && text.contains("SyntaxError"),
        "{text}"
    );
    s.run(&["stop"]);

    // An exit with 0 carries none.
    start_streams(&s, "lldb", "tty", &[]);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["exit_code"], 0, "{end}");
    assert!(end.get("stderr_tail").is_none(), "{end}");
}

#[test]
fn a_run_the_debugger_ends_is_no_exit_with_the_code_of_its_kill() {
    // lldb-dap tells the SIGKILL that ends a run as an exit with code 9.
    for (adapter, s) in native_sessions() {
        start_streams(&s, adapter, "wait", &[]);
        s.output_containing(&["waiting"], Duration::from_secs(60));
        let end = await_across_restarts(&s, adapter);
        assert_eq!(end["reason"], "terminated", "{adapter}: {end}");
        assert_eq!(end["exit_code"], Value::Null, "{adapter}: {end}");
        assert_eq!(end["signal"], Value::Null, "{adapter}: {end}");
        assert!(
            end["note"]
                .as_str()
                .is_some_and(|note| note.starts_with("the debugger ended the program")),
            "{adapter}: {end}"
        );
        s.run(&["stop"]);
    }
}

/// What an `await` waiting on a running program is told when `restart` ends the run. A restart
/// ends the run the waiter waits on once it waits; a waiter that came while a restart was under
/// way is told so at once, and another takes its place.
fn await_across_restarts(s: &Session, adapter: &str) -> Value {
    let mut answers = Vec::new();
    let mut waiter = None;
    for _ in 0..10 {
        let mut child = waiter.take().unwrap_or_else(|| {
            s.command()
                .args(["--json", "await", "--timeout", "300"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn await")
        });
        let restarted = s.json(&["restart", "--no-wait"]);
        assert_eq!(restarted["ok"], true, "{adapter}: {restarted}");
        if !common::eventually(Duration::from_secs(5), || {
            child.try_wait().ok().flatten().is_some()
        }) {
            // It came after that restart: the next one ends its run.
            waiter = Some(child);
            continue;
        }
        let output = child.wait_with_output().expect("await's answer");
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        if answer["ok"] == true {
            return answer["data"].clone();
        }
        answers.push(answer);
    }
    if let Some(mut child) = waiter {
        let _ = child.kill();
    }
    panic!("{adapter}: no await was told of a run's end across 10 restarts: {answers:?}");
}
