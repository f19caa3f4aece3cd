//! Evaluations that do not return, and evaluations that end the program, on every adapter: a
//! call of a function that spins comes back within its limit (`print --timeout`, `[timeouts]
//! evaluate_secs`) plus a bound, said in our words, and the session goes on (`print`, `locals`,
//! `next --wait` answer at once); where the adapter cannot interrupt it (Delve), the session is
//! `evaluating`, and `pause`, `await` and `stop` answer. Also the other layers' words for an
//! evaluation that ended otherwise: lldb's stale "interrupted, reason: breakpoint 1.1", GDB's
//! call that stopped at a breakpoint, a program that exited or crashed during the evaluation
//! (V8's "WebSocket protocol error", debugpy's "No more messages" and exit code 245), and the
//! evaluation debugpy drops without an answer (`raise SystemExit`); pdb interrupts calls that
//! block in the system (`time.sleep`, a read of a pipe) as well as ones that spin.
//!
//! Against real adapters and the `runaway` fixtures (C, Python, Go, JavaScript), run from the
//! test's own folder. Every test fails (never skips) when its adapter is missing.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_gdb,
    require_lldb_dap, require_node, require_python, run_within, variable, with_go_env,
};
use serde_json::Value;

const RUNAWAY_C: &str = "c/runaway.c";
const RUNAWAY_PY: &str = "python/runaway.py";
const RUNAWAY_GO: &str = "go/runaway/main.go";
const RUNAWAY_JS: &str = "javascript/runaway.js";

/// How long any one command may take beyond its evaluation's limit, on a loaded machine.
const SLACK: Duration = Duration::from_secs(25);

/// The limit the tests give an evaluation.
const LIMIT: &str = "2";

/// `debugger --json ARGS...`, which must end within `limit`, as JSON (with the Go environment,
/// for Delve's sake).
#[track_caller]
fn json_within(s: &Session, args: &[&str], limit: Duration) -> Value {
    let mut command = s.command();
    with_go_env(&mut command);
    command.arg("--json").args(args);
    run_within(command, limit).json()
}

/// A command that answers at once: it must end within [`SLACK`].
#[track_caller]
fn json(s: &Session, args: &[&str]) -> Value {
    json_within(s, args, SLACK)
}

/// `print --timeout 2 EXPRESSION`, which must end within its limit and [`SLACK`]: its error.
#[track_caller]
fn runaway_print(s: &Session, expression: &str) -> Value {
    let limit = Duration::from_secs(2) + SLACK;
    let answer = json_within(s, &["print", "--timeout", LIMIT, expression], limit);
    assert_eq!(answer["ok"], false, "{answer}");
    answer["error"].clone()
}

/// Starts `program` (with `extra` start arguments) stopped at the ready marker of `fixture`, x
/// being 21 there.
#[track_caller]
fn start_at_ready(s: &Session, program: &Path, fixture: &str, extra: &[&str]) {
    let ready = at(fixture, "@ready");
    let mut args = vec!["start", "--no-wait"];
    let program = program.to_str().expect("utf-8 path");
    args.push(program);
    args.extend(["-b", &ready]);
    args.extend_from_slice(extra);
    let started = json(s, &args);
    assert_eq!(started["ok"], true, "{started}\nlog:\n{}", s.log());
    let stop = json(s, &["await", "--timeout", "60"]);
    assert_eq!(stop["data"]["reason"], "breakpoint", "{stop}");
    assert_x(s, "21");
}

#[track_caller]
fn assert_x(s: &Session, value: &str) {
    let printed = json(s, &["print", "x"]);
    assert_eq!(printed["data"]["value"], value, "{printed}");
}

/// The error of an evaluation the adapter interrupted at `limit`.
#[track_caller]
fn assert_interrupted(error: &Value, expression: &str, limit: &str) {
    assert_eq!(error["code"], "evaluation_timeout", "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert_eq!(
        message,
        format!(
            "the evaluation of '{expression}' did not return within {limit} and was \
             interrupted; the program is stopped where it was"
        ),
        "{error}"
    );
}

/// The session goes on after an evaluation that ended badly: the stop reads at once, and the
/// program steps on from it.
#[track_caller]
fn assert_goes_on(s: &Session) {
    let status = json(s, &["status"]);
    assert_eq!(status["data"]["state"], "stopped", "{status}");
    assert_eq!(status["data"]["stop"]["reason"], "breakpoint", "{status}");
    assert_x(s, "21");
    let locals = json(s, &["locals"]);
    assert_eq!(
        variable(&locals["data"]["variables"], "x")["value"],
        "21",
        "{locals}"
    );
    let step = json(s, &["next", "--wait", "--timeout", "60"]);
    assert_eq!(step["data"]["stop"]["reason"], "step", "{step}");
}

// ---- lldb-dap --------------------------------------------------------------------------------

#[test]
fn lldb_says_its_own_half_second_limit_not_a_stale_breakpoint() {
    require_lldb_dap();
    let s = Session::new();
    start_at_ready(&s, &build(RUNAWAY_C), RUNAWAY_C, &[]);
    // LLDB halts the call at its limit and names the thread's last stop as the reason
    // ("Execution was interrupted, reason: breakpoint 1.1.").
    let error = runaway_print(&s, "spin()");
    assert_interrupted(&error, "spin()", "0.5 s");
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or("")
            .contains("whatever --timeout asks"),
        "{error}"
    );
    let crashed = runaway_print(&s, "boom()");
    assert_eq!(
        crashed["message"],
        "the evaluation of 'boom()' was stopped by signal SIGSEGV: address not mapped to object \
         (fault address: 0x0), and abandoned; the program is stopped where it was",
        "{crashed}"
    );
    assert_goes_on(&s);
}

// ---- GDB -------------------------------------------------------------------------------------

fn gdb_session() -> Session {
    Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.gdb]\npath = {:?}\n",
        require_gdb().display().to_string()
    ))
}

#[test]
fn gdb_interrupts_a_call_at_its_limit_and_puts_the_stop_back() {
    let s = gdb_session();
    start_at_ready(&s, &build(RUNAWAY_C), RUNAWAY_C, &["--adapter", "gdb"]);
    let error = runaway_print(&s, "spin()");
    assert_interrupted(&error, "spin()", "2 s");
    let crashed = runaway_print(&s, "boom()");
    assert_eq!(
        crashed["message"],
        "the evaluation of 'boom()' was stopped by signal SIGSEGV, Segmentation fault, and \
         abandoned; the program is stopped where it was",
        "{crashed}"
    );
    // GDB tells the end of every call it makes as a stop of its own ("function call"); the
    // program is back at its breakpoint, and the session says so.
    assert_eq!(json(&s, &["print", "twice(4)"])["data"]["value"], "8");
    assert_goes_on(&s);
}

#[test]
fn gdb_says_a_call_stopped_at_a_breakpoint_and_how_to_get_back() {
    let s = gdb_session();
    start_at_ready(&s, &build(RUNAWAY_C), RUNAWAY_C, &["--adapter", "gdb"]);
    let added = json(&s, &["break", &at(RUNAWAY_C, "@twice_body")]);
    assert_eq!(added["ok"], true, "{added}");
    let error = runaway_print(&s, "twice(3)");
    assert_eq!(
        error["message"],
        "the evaluation of 'twice(3)' stopped at a breakpoint in a function it called, and was \
         abandoned",
        "{error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or("")
            .contains("'debugger finish'"),
        "{error}"
    );
    let back = json(&s, &["finish", "--wait", "--timeout", "60"]);
    assert_eq!(back["data"]["stop"]["return_value"], "6", "{back}");
    assert_x(&s, "21");
}

// ---- debugpy ---------------------------------------------------------------------------------

#[test]
fn debugpy_interrupts_a_spinning_call_and_the_session_goes_on() {
    require_debugpy();
    let s = Session::new();
    start_at_ready(&s, &fixture_path(RUNAWAY_PY), RUNAWAY_PY, &[]);
    let error = runaway_print(&s, "spin()");
    assert_interrupted(&error, "spin()", "2 s");
    assert_goes_on(&s);
}

#[test]
fn debugpy_tells_an_evaluation_it_dropped_and_one_the_program_died_in() {
    require_debugpy();
    let s = Session::new();
    start_at_ready(&s, &fixture_path(RUNAWAY_PY), RUNAWAY_PY, &[]);
    // pydevd never answers an evaluation that raises SystemExit: the request after it is
    // answered first.
    let dropped = json(&s, &["raw", "raise SystemExit(4)"]);
    assert_eq!(
        dropped["error"]["message"],
        "debugpy dropped the evaluation of 'raise SystemExit(4)' without an answer (it drops \
         one that raises SystemExit); the program is stopped where it was",
        "{dropped}"
    );
    assert_x(&s, "21");
    // boom() reads address 0: the interpreter dies of SIGSEGV, which debugpy tells as the
    // adapter's "No more messages", then exit code 245 (256 - 11).
    let died = json(&s, &["print", "boom()"]);
    assert_eq!(died["error"]["code"], "not_running", "{died}");
    assert_eq!(
        died["error"]["message"],
        "the program exited with code 245 during the evaluation of 'boom()' (debugpy reports a \
         death by signal N as 256-N: this may have been SIGSEGV (11))",
        "{died}"
    );
    // `status` says what the code may mean, as the exit report does.
    let status = json(&s, &["status"]);
    assert_eq!(status["data"]["exit_code"], 245, "{status}");
    assert_eq!(
        status["data"]["exit_note"],
        "debugpy reports a death by signal N as 256-N: this may have been SIGSEGV (11)",
        "{status}"
    );
    let text = s.run(&["status"]).ok().to_string();
    assert!(
        text.contains("Exit code: 245 (debugpy reports a death by signal N as 256-N"),
        "{text}"
    );
}

#[test]
fn a_display_that_never_returns_holds_no_report_longer_than_its_limit() {
    require_debugpy();
    let s =
        Session::with_config("[daemon]\ngrace_period_secs = 60\n[timeouts]\nevaluate_secs = 2\n");
    start_at_ready(&s, &fixture_path(RUNAWAY_PY), RUNAWAY_PY, &[]);
    assert_eq!(json(&s, &["display", "spin()"])["ok"], true);
    let step = json_within(
        &s,
        &["next", "--wait", "--timeout", "60", "-p", "x"],
        Duration::from_secs(2) + SLACK,
    );
    let stop = &step["data"]["stop"];
    assert_eq!(stop["reason"], "step", "{step}");
    let shown = &stop["displays"];
    let error = shown[0]["error"].as_str().unwrap_or("");
    assert!(
        error.starts_with(
            "the evaluation of 'spin()' did not return within 2 s and was interrupted"
        ),
        "{step}"
    );
    assert_eq!(shown[1]["expression"], "x", "{step}");
    assert_eq!(shown[1]["value"], "42", "{step}");
    assert_x(&s, "42");
}

// ---- pdb -------------------------------------------------------------------------------------

#[test]
fn pdb_interrupts_a_spinning_call_and_the_session_goes_on() {
    require_python();
    let s = Session::new();
    start_at_ready(
        &s,
        &fixture_path(RUNAWAY_PY),
        RUNAWAY_PY,
        &["--adapter", "pdb"],
    );
    let error = runaway_print(&s, "spin()");
    assert_interrupted(&error, "spin()", "2 s");
    // Calls that block in the system (a sleep, a read of a pipe nobody writes to) are
    // interrupted too: in the main thread, by a signal whose handler raises.
    for blocking in ["nap()", "drain()"] {
        let error = runaway_print(&s, blocking);
        assert_interrupted(&error, blocking, "2 s");
        assert_x(&s, "21");
    }
    let raised = json(&s, &["raw", "raise SystemExit(4)"]);
    assert_eq!(
        raised["error"]["message"], "the expression raised SystemExit: 4",
        "{raised}"
    );
    assert_goes_on(&s);
}

// ---- Delve -----------------------------------------------------------------------------------

#[test]
fn delve_leaves_the_session_evaluating_and_pause_await_and_stop_answer() {
    require_delve();
    let s = Session::new();
    let program = build_go(RUNAWAY_GO);
    start_at_ready(&s, &program, RUNAWAY_GO, &[]);
    // Delve runs a call to its end and reads no request meanwhile.
    let error = runaway_print(&s, "call nap(8000)");
    assert_eq!(error["code"], "evaluation_timeout", "{error}");
    assert_eq!(
        error["message"],
        "the evaluation of 'call nap(8000)' did not return within 2 s, and delve cannot \
         interrupt it: the program runs it still (the session is 'evaluating' until it returns)",
        "{error}"
    );
    let status = json(&s, &["status"]);
    assert_eq!(status["data"]["state"], "evaluating", "{status}");
    assert_eq!(
        status["data"]["evaluating"]["expression"], "call nap(8000)",
        "{status}"
    );
    for args in [&["pause"][..], &["print", "x"], &["locals"], &["next"]] {
        let refused = json(&s, args);
        assert_eq!(refused["error"]["code"], "running", "{args:?}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.starts_with("the program is running the evaluation of 'call nap(8000)'"),
            "{args:?}: {refused}"
        );
    }
    // `await` waits for the call to return, and reports the stop it ran at.
    let back = json(&s, &["await", "--timeout", "60"]);
    assert_eq!(back["data"]["reason"], "breakpoint", "{back}");
    assert_x(&s, "21");

    // A call that never returns: `stop` ends the program (whose end frees Delve) at once.
    let error = runaway_print(&s, "call spin()");
    assert_eq!(error["code"], "evaluation_timeout", "{error}");
    let pid = json(&s, &["status"])["data"]["debuggee_pid"]
        .as_u64()
        .expect("pid");
    let stopped = json(&s, &["stop"]);
    assert_eq!(stopped["ok"], true, "{stopped}");
    assert!(
        common::eventually(SLACK, || !common::alive(pid)),
        "the program (pid {pid}) outlived stop"
    );
}

// ---- node ------------------------------------------------------------------------------------

#[test]
fn node_interrupts_a_spinning_call_and_tells_an_exit_during_an_evaluation() {
    require_node();
    let s = Session::new();
    start_at_ready(&s, &fixture_path(RUNAWAY_JS), RUNAWAY_JS, &[]);
    let error = runaway_print(&s, "spin()");
    assert_interrupted(&error, "spin()", "2 s");
    assert_goes_on(&s);
    // The program's exit cuts V8's inspector connection under the evaluation ("WebSocket
    // protocol error").
    let exited = json(&s, &["print", "process.exit(5)"]);
    assert_eq!(
        exited["error"]["message"],
        "the program exited with code 5 during the evaluation of 'process.exit(5)'",
        "{exited}"
    );
    let status = json(&s, &["status"]);
    assert_eq!(status["data"]["exit_code"], 5, "{status}");
}
