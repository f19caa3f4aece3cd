//! Python under debugpy: the shared per-language scenario (break by line and by function,
//! conditions, continue, next, step, finish, locals, print, backtrace, threads, output, exit code)
//! with the adapter picked from the `.py` extension alone, plus what is particular to debugpy:
//! uncaught exceptions, `--stop-on-entry` followed at once by `continue`, `--no-just-my-code`, and
//! a Python without debugpy. The same adapter defined by the config alone and `--connect` to a
//! listening debugpy are `python_attach.rs`; breakpoints debugpy would accept and never stop at
//! are `python_breakpoints.rs`.
//!
//! Every test fails (never skips) when debugpy is missing: `.ci/run` installs it with pip.

mod common;

use std::time::Duration;

use common::{
    Session, at, eventually, fixture_path, frame_lines, line_of, require_debugpy, variable,
};

use common::python::*;

#[test]
fn python_scenario_breaks_steps_inspects_and_exits() {
    require_debugpy();
    let s = Session::new();
    let square_call = at(APP, "@square_call");
    // No --adapter: the .py extension picks debugpy.
    let started = s.start(&fixture_path(APP), &["-b", &square_call, "-b", "deposit"]);
    assert_eq!(started["adapter"], "debugpy", "{started}");
    for bp in started["breakpoints"].as_array().expect("breakpoints") {
        assert_eq!(bp["verified"], true, "{started}");
    }

    // Break by line.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_eq!(stop["thread_name"], "MainThread", "{stop}");
    assert_at(&stop, APP, "main", "@square_call");

    // Step into a function, and out again.
    let stop = step_with(&s, "step");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "square", "@square_body");
    let n = variable(&s.data(&["locals"])["variables"], "n").clone();
    assert_eq!(
        (n["value"].as_str(), n["type"].as_str()),
        (Some("3"), Some("int"))
    );
    let stop = step_with(&s, "finish");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "main", "@square_call");

    // Break by function: debugpy stops on the `def` line, as the function is entered.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_def");
    assert_eq!(s.value_of("amount"), "0");

    // A condition: only the fourth deposit stops.
    s.data(&["breakpoint", "remove", "2"]);
    let added = s.data(&[
        "breakpoint",
        "add",
        &at(APP, "@deposit_body"),
        "--condition",
        "amount == 3",
    ]);
    assert_eq!(added["id"], 3, "{added}");
    assert_eq!(added["verified"], true, "{added}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([3]), "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_body");

    // locals: values and types, without debugpy's "special variables" groups.
    let locals = s.data(&["locals"]);
    let variables = &locals["variables"];
    let amount = variable(variables, "amount");
    assert_eq!(amount["value"], "3", "{locals}");
    assert_eq!(amount["type"], "int", "{locals}");
    let this = variable(variables, "self");
    assert_eq!(this["type"], "Account", "{locals}");
    let text = s.run(&["locals"]);
    let text = text.ok();
    assert!(text.contains("amount (int) = 3"), "{text}");
    assert!(text.contains("balance = 103"), "{text}");
    assert!(text.contains("owner = 'ada'"), "{text}");
    assert!(!text.contains("special variables"), "{text}");
    assert!(!text.contains("function variables"), "{text}");

    // print: a name, an attribute, an expression.
    let printed = s.data(&["print", "self.balance"]);
    assert_eq!(printed["value"], "103", "{printed}");
    assert_eq!(printed["type"], "int", "{printed}");
    assert_eq!(s.value_of("self.owner"), "'ada'");
    assert_eq!(s.value_of("amount * 10 + self.balance"), "133");
    let missing = s.run(&["--json", "print", "nosuch"]).failure();
    assert!(
        missing["message"].as_str().unwrap_or("").contains("nosuch"),
        "{missing}"
    );

    // backtrace: function names and lines, innermost first.
    let bt = s.data(&["backtrace"]);
    let seen = frame_lines(&bt);
    assert_eq!(
        seen,
        vec![
            ("deposit", u64::from(line_of(APP, "@deposit_body"))),
            ("main", u64::from(line_of(APP, "@loop_call"))),
            ("<module>", u64::from(line_of(APP, "@exit_call"))),
        ],
        "{bt}"
    );

    // threads: the main thread, selected.
    let threads = s.data(&["threads"]);
    let main = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .find(|t| t["name"] == "MainThread")
        .unwrap_or_else(|| panic!("no MainThread: {threads}"));
    assert_eq!(main["selected"], true, "{threads}");
    assert_eq!(main["frame"]["function"], "deposit", "{threads}");

    // next: over one line.
    let stop = step_with(&s, "next");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_update");
    assert_eq!(s.value_of("before"), "103");

    // Output: stdout so far, then stderr after it, in order.
    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["breakpoint", "add", &at(APP, "@stderr_print")]);
    let stop = continue_to_stop(&s);
    assert_at(&stop, APP, "main", "@stderr_print");
    let text = output_containing(&s, "summary: {\"total\": 10}\n");
    assert_eq!(text, APP_STDOUT, "stdout before the stderr line");

    // sys.exit(3) is an exit, not an exception stop.
    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    let text = output_containing(&s, "app: done\n");
    assert_eq!(text, format!("{APP_STDOUT}app: done\n"));
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], 3, "{status}");
}

#[test]
fn an_exit_nobody_was_shown_answers_the_next_continue_once() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(APP), &[]);
    // `status` shows the state without showing the exit's report.
    let exited = eventually(Duration::from_secs(60), || {
        s.data(&["status"])["state"] == "exited"
    });
    assert!(exited, "app.py did not exit: {}", s.data(&["status"]));

    let data = s.data(&["continue", "--wait", "--timeout", WAIT]);
    assert_eq!(data["state"], "exited", "{data}");
    assert_eq!(data["stop"]["reason"], "exited", "{data}");
    assert_eq!(data["stop"]["exit_code"], 3, "{data}");
    let again = s.run(&["--json", "step"]);
    assert_eq!(again.code, 1, "{again:?}");
    assert_eq!(again.failure()["code"], "not_running");
}

#[test]
fn a_child_python_runs_to_its_end_under_a_debugpy_session() {
    require_debugpy();
    let s = Session::new();
    let program = "python/child_python.py";
    // debugpy tells the program's pid just after answering `launch`: the start waits for it.
    let started = s.start(
        &fixture_path(program),
        &["-b", &at(program, "@child_answered")],
    );
    assert!(started["debuggee_pid"].is_u64(), "{started}");
    // debugpy held each child Python for a client to attach, and the parent waited for it.
    let stop = continue_to_stop(&s);
    assert_at(&stop, program, "ask_child", "@child_answered");
    assert_eq!(s.value_of("answer.stdout.strip()"), "'42'");
    let data = s.data(&["continue", "--wait", "--timeout", WAIT]);
    assert_eq!(data["stop"]["exit_code"], 0, "{data}");
    let output = s.data(&["output"]);
    assert!(
        output["text"]
            .as_str()
            .unwrap_or("")
            .contains("child said 42"),
        "{output}"
    );
}

#[test]
fn uncaught_exception_stops_with_its_type_and_message() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(RAISES), &[]);
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_at(&stop, RAISES, "ratio", "@divide");
    assert_eq!(stop["exception"]["type"], "ZeroDivisionError", "{stop}");
    assert_eq!(stop["exception"]["message"], "division by zero", "{stop}");

    let context = s.data(&["context"]);
    assert_eq!(context["reason"], "exception", "{context}");
    assert_eq!(
        context["exception"]["type"], "ZeroDivisionError",
        "{context}"
    );
    assert_eq!(context["exception"]["message"], "division by zero");
    let b = variable(&context["variables"], "b");
    assert_eq!(b["value"], "0", "{context}");
    let text = s.run(&["context"]);
    assert!(
        text.ok().contains("ZeroDivisionError: division by zero"),
        "{}",
        text.stdout
    );
    let stop_text = s.run(&["await"]);
    assert!(
        stop_text
            .ok()
            .contains("ZeroDivisionError: division by zero"),
        "{}",
        stop_text.stdout
    );

    // The frames of the raise are all there.
    let bt = s.data(&["backtrace"]);
    let names: Vec<&str> = bt["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["function"].as_str())
        .collect();
    assert_eq!(names, ["ratio", "check", "main", "<module>"], "{bt}");

    // Going on lets the exception end the program, as Python does.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 1, "{end}");
    output_containing(&s, "ZeroDivisionError: division by zero");
}

#[test]
fn uncaught_custom_exception_message_is_reported() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(RAISES), &["--", "negative"]);
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_at(&stop, RAISES, "check", "@raise_value");
    assert_eq!(stop["exception"]["type"], "ValueError", "{stop}");
    assert_eq!(stop["exception"]["message"], "negative value: -5", "{stop}");
    let text = s.run(&["context"]);
    assert!(
        text.ok().contains("ValueError: negative value: -5"),
        "{}",
        text.stdout
    );
}

#[test]
fn stop_on_entry_stops_at_the_programs_first_line() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["--stop-on-entry"]);
    // Not in a function the debugger put in the program's process before it ran.
    let stop = &started["stop"];
    assert_eq!(stop["reason"], "entry", "{started}");
    assert_eq!(stop["frame"]["function"], "<module>", "{started}");
    assert_eq!(stop["frame"]["line"], 1, "{started}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with(APP), "{started}");
}

#[test]
fn continue_right_after_stop_on_entry_is_not_lost() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["--stop-on-entry", "-b", "square"]);
    assert_eq!(started["adapter"], "debugpy", "{started}");
    // At once, with no look at the entry stop first.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "square", "@square_def");
}

#[test]
fn continue_without_wait_after_stop_on_entry_then_await() {
    require_debugpy();
    let s = Session::new();
    s.start(
        &fixture_path(APP),
        &["--stop-on-entry", "-b", &at(APP, "@square_body")],
    );
    let resumed = s.data(&["continue"]);
    assert_eq!(resumed["action"], "continue", "{resumed}");
    let stop = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "square", "@square_body");

    // The module's frame: its globals, without debugpy's synthetic groups; functions are listed
    // like any value, and so is a class.
    let frame = s.data(&["frame", "2"]);
    assert_eq!(frame["frame"]["function"], "<module>", "{frame}");
    let locals = s.data(&["locals"]);
    let names: Vec<&str> = locals["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["Account", "json", "main", "square", "sys"],
        "{locals}"
    );
    assert_eq!(variable(&locals["variables"], "Account")["type"], "type");
}

#[test]
fn no_just_my_code_steps_into_the_standard_library() {
    require_debugpy();
    let library_call = at(APP, "@library_call");

    // Default: justMyCode, so `step` over json.dumps stays in the program.
    let mine = Session::new();
    mine.start(&fixture_path(APP), &["-b", &library_call]);
    let stop = continue_to_stop(&mine);
    assert_at(&stop, APP, "main", "@library_call");
    let stop = step_with(&mine, "step");
    assert_eq!(stop["frame"]["function"], "main", "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(APP, "@library_call") + 1);

    // --no-just-my-code: the same step enters json/__init__.py.
    let all = Session::new();
    all.start(
        &fixture_path(APP),
        &["--no-just-my-code", "-b", &library_call],
    );
    let stop = continue_to_stop(&all);
    assert_at(&stop, APP, "main", "@library_call");
    let stop = step_with(&all, "step");
    assert_eq!(stop["frame"]["function"], "dumps", "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with("json/__init__.py"), "{stop}");
}

#[test]
fn threads_are_listed_by_name() {
    require_debugpy();
    let s = Session::new();
    s.start(
        &fixture_path(THREADS),
        &["-b", &at(THREADS, "@worker_body")],
    );
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, THREADS, "worker", "@worker_body");
    let stopped_in = stop["thread_name"].as_str().unwrap_or("").to_string();
    assert!(stopped_in.starts_with("worker-"), "{stop}");

    let threads = s.data(&["threads"]);
    let names: Vec<&str> = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in ["MainThread", "worker-1", "worker-2"] {
        assert!(names.contains(&name), "no {name}: {threads}");
    }

    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    let text = output_containing(&s, "threads: done\n");
    assert_eq!(
        text,
        "worker-1 result=10\nworker-2 result=20\nthreads: done\n"
    );
}

/// A Python that cannot import debugpy is told as debugpy missing, though a lone Python is no
/// longer run to import it before every start: a stand-in refuses `-m debugpy.adapter` as such a
/// Python does (a shell script, hence Unix only).
#[cfg(unix)]
#[test]
fn a_python_without_debugpy_is_named_when_the_start_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let python = dir.path().join("python3");
    std::fs::write(
        &python,
        "#!/bin/sh\necho \"No module named debugpy\" >&2\nexit 1\n",
    )
    .expect("write the stand-in");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the stand-in");
    }
    let s = Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.debugpy]\npath = {:?}\n",
        python.display().to_string()
    ));
    let app = common::fixture_path("python/app.py");
    let out = s.run(&["--json", "start", app.to_str().expect("utf-8")]);
    let error = out.failure();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("debugpy not found (tried: ") && message.contains("python3"),
        "{error}"
    );
    assert_eq!(error["code"], "adapter_not_found", "{error}");
}
