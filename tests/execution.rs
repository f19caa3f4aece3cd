//! Execution control against real lldb-dap: stepping (over, into, out) with `--wait` and the
//! aliases, `continue` with and without waiting, `await` (at once when stopped, timeouts, another
//! client's pause), `pause`, the errors for a running or finished program or no session, and the
//! one-JSON-object rule of `--json`.

mod common;

use std::process::Stdio;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{Run, Session, build, eventually, fixture_path, line_of, require_lldb_dap};
use serde_json::Value;

const LEDGER: &str = "c/ledger.c";

/// `/abs/path/fixtures/c/ledger.c:LINE` for the line carrying `marker`.
fn ledger_at(marker: &str) -> String {
    format!(
        "{}:{}",
        fixture_path(LEDGER).display(),
        line_of(LEDGER, marker)
    )
}

/// A ledger session stopped at the first hit of a breakpoint at `location`.
fn ledger_stopped_at(location: &str) -> Session {
    let s = Session::new();
    s.start(&build(LEDGER), &["--break", location]);
    let stop = s.data(&["continue", "--wait", "--timeout", "10"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    s
}

/// A session running c/spin.c (which loops for two minutes) with no breakpoints, past its
/// start-up: it has printed its first tick, so it is in main's loop.
fn spinning() -> Session {
    let s = Session::new();
    let started = s.start(&build("c/spin.c"), &[]);
    assert_eq!(started["state"], "running", "{started}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !s.data(&["output"])["text"]
        .as_str()
        .is_some_and(|t| t.contains("tick: "))
    {
        assert!(Instant::now() < deadline, "spin never ticked:\n{}", s.log());
        sleep(Duration::from_millis(20));
    }
    s
}

/// Runs an execution command with `--json` and returns the stop it reports.
#[track_caller]
fn stopped_after(s: &Session, args: &[&str]) -> Value {
    let data = s.data(args);
    assert_eq!(data["state"], "stopped", "{args:?}: {data}");
    data["stop"].clone()
}

/// Asserts a stop is in `function` at `line` for `reason`.
#[track_caller]
fn assert_stop(stop: &Value, reason: &str, function: &str, line: u32) {
    assert_eq!(stop["reason"], reason, "{stop}");
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
}

/// The `error` object of a failed `--json` run, after checking its exit code.
#[track_caller]
fn error_of(run: &Run, exit_code: i32) -> Value {
    assert_eq!(run.code, exit_code, "{}", run.stdout);
    run.failure()
}

#[test]
fn next_steps_over_a_line_with_next_and_n() {
    require_lldb_dap();
    let call = line_of(LEDGER, "@loop_call");
    let s = ledger_stopped_at(&ledger_at("@loop_call"));

    // Over the call to apply: it runs, but we stay in main.
    let stop = stopped_after(&s, &["next", "--wait"]);
    assert_stop(&stop, "step", "main", call + 1);
    assert_eq!(s.value_of("delta"), "0");
    let stop = stopped_after(&s, &["n", "--wait"]);
    assert_stop(&stop, "step", "main", call + 2);

    let text = s.run(&["n", "-w"]);
    assert!(
        text.ok()
            .starts_with(&format!("Stepped to main (ledger.c:{})", call + 3)),
        "{}",
        text.stdout
    );
}

#[test]
fn step_enters_the_called_function_with_step_and_s() {
    require_lldb_dap();
    let s = ledger_stopped_at(&format!(
        "{}:{}",
        fixture_path(LEDGER).display(),
        line_of(LEDGER, "square(3)")
    ));
    let stop = stopped_after(&s, &["step", "--wait"]);
    assert_stop(&stop, "step", "square", line_of(LEDGER, "@square_body"));
    assert_eq!(s.value_of("x"), "3");

    // Out again, down the loop to the call of apply, and into it with the alias.
    s.data(&["breakpoint", "add", &ledger_at("@loop_call")]);
    let stop = stopped_after(&s, &["continue", "--wait"]);
    assert_eq!(
        stop["frame"]["line"],
        line_of(LEDGER, "@loop_call"),
        "{stop}"
    );
    let stop = stopped_after(&s, &["s", "--wait"]);
    assert_stop(&stop, "step", "apply", line_of(LEDGER, "@apply_body"));
}

#[test]
fn finish_returns_to_the_caller_with_finish_and_out() {
    require_lldb_dap();
    let call = line_of(LEDGER, "@loop_call");
    let s = ledger_stopped_at("apply");

    // Back in main on the line that called apply, before the result is stored.
    let stop = stopped_after(&s, &["finish", "--wait"]);
    assert_stop(&stop, "step", "main", call);
    assert_eq!(s.value_of("i"), "0");

    let stop = stopped_after(&s, &["continue", "--wait"]);
    assert_stop(&stop, "breakpoint", "apply", line_of(LEDGER, "@apply_body"));
    let stop = stopped_after(&s, &["out", "--wait"]);
    assert_stop(&stop, "step", "main", call);
    assert_eq!(s.value_of("i"), "1");
}

#[test]
fn continue_runs_to_the_next_breakpoint_with_continue_and_c() {
    require_lldb_dap();
    let body = line_of(LEDGER, "@apply_body");
    let s = ledger_stopped_at("apply");
    assert_eq!(s.value_of("amount"), "0");
    let stop = stopped_after(&s, &["continue", "--wait"]);
    assert_stop(&stop, "breakpoint", "apply", body);
    assert_eq!(s.value_of("amount"), "1");
    let stop = stopped_after(&s, &["c", "--wait"]);
    assert_stop(&stop, "breakpoint", "apply", body);
    assert_eq!(s.value_of("amount"), "2");
}

#[test]
fn continue_without_wait_returns_running_and_await_reports_the_stop() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["--stop-on-entry"]);
    s.data(&["breakpoint", "add", "apply"]);

    let resumed = s.data(&["continue"]);
    assert_eq!(resumed["action"], "continue", "{resumed}");
    assert_eq!(resumed["state"], "running", "{resumed}");
    assert_eq!(resumed["stop"], Value::Null, "{resumed}");

    let stop = s.data(&["await", "--timeout", "10"]);
    assert_stop(&stop, "breakpoint", "apply", line_of(LEDGER, "@apply_body"));
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");

    // The text form says it is running and how to wait.
    let text = s.run(&["continue"]);
    assert!(text.ok().starts_with("Running"), "{}", text.stdout);
}

#[test]
fn await_when_already_stopped_returns_that_stop_at_once() {
    require_lldb_dap();
    let s = ledger_stopped_at("apply");
    // A short timeout: a wait for a new stop would run out, since nothing resumes the program.
    let first = s.data(&["await", "--timeout", "1"]);
    assert_stop(
        &first,
        "breakpoint",
        "apply",
        line_of(LEDGER, "@apply_body"),
    );
    let second = s.data(&["await", "--timeout", "1"]);
    assert_eq!(first["frame"], second["frame"]);
    assert_eq!(first["thread_id"], second["thread_id"]);
    assert_eq!(second["breakpoint_ids"], serde_json::json!([1]));
    assert_eq!(s.value_of("amount"), "0", "await did not resume");

    let text = s.run(&["await"]);
    assert!(
        text.ok().starts_with("Stopped at breakpoint 1 in apply"),
        "{}",
        text.stdout
    );
}

#[test]
fn await_times_out_with_exit_3_while_the_program_runs() {
    require_lldb_dap();
    let s = spinning();
    let run = s.run(&["--json", "await", "--timeout", "1"]);
    let error = error_of(&run, 3);
    assert_eq!(error["code"], "timeout", "{error}");

    // `--wait --timeout` on an already running program times out the same way.
    let run = s.run(&["continue", "--wait", "--timeout", "1"]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(run.stderr.contains("\nhint: "), "{}", run.stderr);
    assert_eq!(s.data(&["status"])["state"], "running");
}

#[test]
fn await_timeout_message_states_the_time_waited() {
    require_lldb_dap();
    let s = spinning();
    let run = s.run(&["--json", "await", "--timeout", "0.5"]);
    let error = error_of(&run, 3);
    // "still running after 0 s" would misstate a half-second wait.
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("0.5"), "{error}");
}

#[test]
fn pause_stops_a_running_program() {
    require_lldb_dap();
    let s = spinning();

    // Without --wait: the request is sent and `await` reports the stop.
    let paused = s.data(&["pause"]);
    assert_eq!(paused["action"], "pause", "{paused}");
    let stop = s.data(&["await", "--timeout", "10"]);
    assert_eq!(stop["reason"], "pause", "{stop}");
    assert!(stop["thread_id"].is_i64(), "{stop}");
    assert!(stop["frame"]["function"].is_string(), "{stop}");
    // Stopped for real: stack commands work now.
    let bt = s.data(&["backtrace"]);
    assert!(
        bt["frames"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["function"] == "main")),
        "{bt}"
    );

    // With --wait: the pause stop comes back in the answer.
    assert_eq!(s.data(&["continue"])["state"], "running");
    let stop = stopped_after(&s, &["pause", "--wait", "--timeout", "10"]);
    assert_eq!(stop["reason"], "pause", "{stop}");

    s.data(&["continue"]);
    let text = s.run(&["pause", "--wait"]);
    assert!(text.ok().starts_with("Paused in "), "{}", text.stdout);
}

#[test]
fn await_in_one_client_sees_another_clients_pause() {
    require_lldb_dap();
    let s = spinning();
    let waits = s.waits_seen();
    let mut waiter = s
        .command()
        .args(["--json", "await", "--timeout", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn await");
    // Once the waiter blocks, `status` must still be answered meanwhile.
    s.wait_for_waits(waits + 1);
    assert_eq!(s.data(&["status"])["state"], "running");
    assert!(
        waiter.try_wait().expect("try_wait").is_none(),
        "await returned early"
    );

    s.data(&["pause"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while waiter.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = waiter.kill();
            panic!("await did not see the pause:\n{}", s.log());
        }
        sleep(Duration::from_millis(20));
    }
    let output = waiter.wait_with_output().expect("await output");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let value: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(value["ok"], true, "{value}");
    assert_eq!(value["data"]["reason"], "pause", "{value}");
}

#[test]
fn stack_and_variable_commands_while_running_say_so() {
    require_lldb_dap();
    let s = spinning();
    let commands: &[&[&str]] = &[
        &["locals"],
        &["backtrace"],
        &["bt"],
        &["context"],
        &["where"],
        &["print", "g_ticks"],
        &["eval", "g_ticks"],
        &["frame", "0"],
        &["up"],
        &["down"],
        &["next"],
        &["step"],
        &["finish"],
    ];
    for args in commands {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let error = error_of(&s.run(&all), 1);
        assert_eq!(error["code"], "running", "{args:?}: {error}");
        assert_eq!(error["message"], "the program is running", "{args:?}");
        let hint = error["hint"].as_str().unwrap_or("");
        assert!(
            hint.contains("pause") && hint.contains("await"),
            "{args:?}: {error}"
        );
    }
    let text = s.run(&["locals"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stderr
            .starts_with("error: the program is running\nhint: "),
        "{}",
        text.stderr
    );
}

#[test]
fn continuing_to_the_end_reports_the_exit_code() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["--stop-on-entry"]);
    let data = s.data(&["continue", "--wait", "--timeout", "10"]);
    assert_eq!(data["state"], "exited", "{data}");
    assert_eq!(data["stop"]["reason"], "exited", "{data}");
    assert_eq!(data["stop"]["exit_code"], 3, "{data}");

    // `await` after the end returns that exit at once, in both formats.
    let again = s.data(&["await", "--timeout", "1"]);
    assert_eq!(again["reason"], "exited", "{again}");
    assert_eq!(again["exit_code"], 3, "{again}");
    let text = s.run(&["await", "--timeout", "1"]);
    assert_eq!(
        text.ok(),
        "Program exited with code 3\nIts stderr ended with:\n    ledger: done\n"
    );
    assert_eq!(s.data(&["status"])["exit_code"], 3);
}

/// Starts ledger with a breakpoint that never binds, so it runs to its end with nobody shown
/// that end, and waits until `status` (which does not count as showing it) says it exited.
fn ledger_exited_unseen() -> Session {
    let s = Session::new();
    s.start(&build(LEDGER), &["--break", "no_such_function"]);
    let exited = eventually(Duration::from_secs(30), || {
        s.data(&["status"])["state"] == "exited"
    });
    assert!(exited, "ledger did not exit: {}", s.data(&["status"]));
    s
}

#[test]
fn an_exit_nobody_was_shown_answers_the_next_continue_once() {
    require_lldb_dap();
    let s = ledger_exited_unseen();
    let data = s.data(&["continue", "--wait", "--timeout", "10"]);
    assert_eq!(data["state"], "exited", "{data}");
    assert_eq!(data["stop"]["reason"], "exited", "{data}");
    assert_eq!(data["stop"]["exit_code"], 3, "{data}");
    assert_eq!(
        data["stop"]["note"], "the program had already ended before this continue",
        "{data}"
    );
    // The end has been shown: a further continue is an error, as on any ended program.
    let error = error_of(&s.run(&["--json", "continue", "--wait"]), 1);
    assert_eq!(error["code"], "not_running", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("exited with code 3"),
        "{error}"
    );
}

#[test]
fn an_unseen_exit_answers_next_step_and_finish_in_text_too() {
    require_lldb_dap();
    for command in ["next", "step", "finish", "c"] {
        let s = ledger_exited_unseen();
        let verb = if command == "c" { "continue" } else { command };
        let text = s.run(&[command]);
        assert_eq!(
            text.ok(),
            format!(
                "Program exited with code 3\nIts stderr ended with:\n    ledger: done\nnote: the program had already ended before this {verb}\n"
            ),
            "{command}"
        );
        let again = s.run(&[command, "--wait"]);
        assert_eq!(again.code, 1, "{command}: {again:?}");
        assert!(
            again
                .stderr
                .starts_with("error: the program has exited with code 3\nhint: "),
            "{command}: {}",
            again.stderr
        );
    }
}

#[test]
fn an_exit_shown_by_await_is_not_shown_again() {
    require_lldb_dap();
    let s = ledger_exited_unseen();
    let end = s.data(&["await", "--timeout", "10"]);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    let error = error_of(&s.run(&["--json", "next"]), 1);
    assert_eq!(error["code"], "not_running", "{error}");
}

#[test]
fn execution_commands_after_the_exit_fail_clearly() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["--stop-on-entry"]);
    let end = s.data(&["continue", "--wait", "--timeout", "10"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");

    for command in ["next", "step", "finish", "continue", "pause"] {
        let error = error_of(&s.run(&["--json", command, "--wait"]), 1);
        assert_eq!(error["code"], "not_running", "{command}: {error}");
        assert!(
            error["message"].as_str().unwrap_or("").contains("exited"),
            "{command}: {error}"
        );
    }
    let text = s.run(&["next"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stderr.starts_with("error: the program has exited"),
        "{}",
        text.stderr
    );
    assert!(text.stderr.contains("\nhint: "), "{}", text.stderr);
}

#[test]
fn start_with_stop_on_entry_reports_an_entry_stop() {
    require_lldb_dap();
    let s = Session::new();
    let started = s.start(&build(LEDGER), &["--stop-on-entry"]);
    assert_eq!(started["state"], "stopped", "{started}");
    assert_eq!(started["stop"]["reason"], "entry", "{started}");
    assert!(started["stop"]["thread_id"].is_i64(), "{started}");

    let stop = s.data(&["await", "--timeout", "1"]);
    assert_eq!(stop["reason"], "entry", "{stop}");
    assert_eq!(s.data(&["status"])["state"], "stopped");
    // No code of main has run yet: the first breakpoint in main is still ahead.
    s.data(&["breakpoint", "add", "main"]);
    let stop = stopped_after(&s, &["continue", "--wait", "--timeout", "10"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "main", "{stop}");
}

#[test]
fn continue_wait_after_start_break_reports_the_first_hit() {
    require_lldb_dap();
    let body = line_of(LEDGER, "@apply_body");

    // Straight away: the stop may or may not have happened when `continue` arrives.
    let s = Session::new();
    s.start(&build(LEDGER), &["--break", "apply"]);
    let stop = stopped_after(&s, &["continue", "--wait", "--timeout", "10"]);
    assert_stop(&stop, "breakpoint", "apply", body);
    assert_eq!(s.value_of("amount"), "0");

    // Once the program has certainly stopped first, that unseen stop is reported, not skipped;
    // the next continue goes on to the second call.
    let s = Session::new();
    s.start(&build(LEDGER), &["--break", "apply"]);
    wait_until_stopped_in_apply(&s);
    let stop = stopped_after(&s, &["continue", "--wait", "--timeout", "10"]);
    assert_stop(&stop, "breakpoint", "apply", body);
    assert_eq!(s.value_of("amount"), "0");
    assert!(stop["note"].is_string(), "the report says why: {stop}");
    let stop = stopped_after(&s, &["continue", "--wait", "--timeout", "10"]);
    assert_stop(&stop, "breakpoint", "apply", body);
    assert_eq!(s.value_of("amount"), "1");
}

/// Waits, without telling the daemon anything (a `status` would count as showing the stop),
/// until the daemon has heard of ledger's stop at its breakpoint: its log (at debug level, as the
/// tests run it) records each DAP event as it arrives.
fn wait_until_stopped_in_apply(s: &Session) {
    let heard = common::eventually(Duration::from_secs(20), || {
        s.log().contains("<- event event=\"stopped\"")
    });
    assert!(
        heard,
        "ledger never stopped at its breakpoint:\n{}",
        s.log()
    );
}

#[test]
fn commands_without_a_session_exit_4() {
    require_lldb_dap();
    let s = Session::new();
    let commands: &[&[&str]] = &[
        &["status"],
        &["continue"],
        &["next", "--wait"],
        &["step"],
        &["finish"],
        &["pause"],
        &["await"],
        &["locals"],
        &["backtrace"],
        &["breakpoint", "list"],
        &["breakpoint", "add", "main"],
        &["print", "x"],
        &["stop"],
    ];
    for args in commands {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let error = error_of(&s.run(&all), 4);
        assert_eq!(error["code"], "no_session", "{args:?}: {error}");
        let expected = format!("no session '{}' is running", s.name);
        assert_eq!(error["message"], expected.as_str(), "{args:?}");
    }
    let text = s.run(&["next"]);
    assert_eq!(text.code, 4);
    assert_eq!(
        text.stderr,
        format!(
            "error: no session '{}' is running\nhint: start one with 'debugger start <program>'\n",
            s.name
        )
    );
}

#[test]
fn every_command_with_json_prints_exactly_one_object() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(LEDGER).display().to_string();
    let commands: &[&[&str]] = &[
        &["start", &program, "--stop-on-entry"],
        &["status"],
        &["breakpoint", "add", "apply"],
        &["breakpoint", "add", "file.c:"],
        &["breakpoint", "list"],
        &["breakpoint", "disable", "1"],
        &["breakpoint", "enable", "1"],
        &["breakpoint", "remove", "9"],
        &["continue", "--wait"],
        &["await"],
        &["context"],
        &["backtrace"],
        &["threads"],
        &["locals"],
        &["print", "amount"],
        &["print", "nosuch"],
        &["eval", "amount"],
        &["frame", "1"],
        &["down"],
        &["frame", "99"],
        &["next", "--wait"],
        &["step", "--wait"],
        &["finish", "--wait"],
        &["breakpoint", "remove", "--all"],
        &["continue"],
        &["await", "--timeout", "10"],
        &["output"],
        &["next"],
        &["stop"],
        &["status"],
    ];
    for args in commands {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let run = s.run(&all);
        let value = run.json();
        assert!(value.is_object(), "{args:?}: {}", run.stdout);
        assert_eq!(
            run.stdout.trim().lines().count(),
            1,
            "{args:?}: {}",
            run.stdout
        );
        match value["ok"].as_bool() {
            Some(true) => {
                assert_eq!(run.code, 0, "{args:?}: {value}");
                assert!(value.get("data").is_some(), "{args:?}: {value}");
            }
            Some(false) => {
                assert_ne!(run.code, 0, "{args:?}: {value}");
                for field in ["code", "message", "hint"] {
                    assert!(
                        value["error"][field].is_string(),
                        "{args:?}: no {field}: {value}"
                    );
                }
            }
            None => panic!("{args:?}: no boolean ok: {value}"),
        }
    }
}

#[test]
fn a_pause_right_after_a_continue_always_stops_the_program() {
    // lldb-dap answers a pause that lands before a just-answered continue really runs with
    // "success" and no stop; the daemon must ask again rather than leave the program running.
    require_lldb_dap();
    let s = spinning();
    s.data(&["pause", "--wait", "--timeout", "10"]);
    for round in 0..15 {
        assert_eq!(s.data(&["continue"])["state"], "running", "round {round}");
        let paused = s.data(&["pause", "--wait", "--timeout", "10"]);
        assert_eq!(paused["stop"]["reason"], "pause", "round {round}: {paused}");
    }
}

#[test]
fn a_stop_after_exec_names_the_new_program() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/exec_echo.c"), &[]);
    let stop = stopped_after(&s, &["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["reason"], "exec", "{stop}");
    let echo = std::fs::canonicalize("/bin/echo").expect("/bin/echo");
    assert_eq!(stop["description"], echo.to_str().expect("utf-8"), "{stop}");
    let text = s.run(&["status"]);
    assert!(
        text.stdout
            .contains(&format!("Stopped after exec of {}", echo.display())),
        "{text:?}"
    );
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
}
