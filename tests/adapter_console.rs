//! `set`, `raw` and `catch` on real adapters: changing a running program's state, the adapter's
//! own console, and stops on exceptions the program catches.

mod common;

use common::{Session, at, build, fixture_path, line_of, require_debugpy, require_lldb_dap};

#[test]
fn set_changes_what_a_c_program_computes() {
    require_lldb_dap();
    let s = Session::new();
    s.start(
        &build("c/ledger.c"),
        &["--break", &at("c/ledger.c", "@apply_update")],
    );
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let set = s.data(&["set", "amount", "50"]);
    assert_eq!(set["value"], "50", "{set}");
    let set = s.data(&["set", "acct->id", "9"]);
    assert_eq!(set["value"], "9", "{set}");
    assert_eq!(s.value_of("acct->id"), "9");
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
    let output = s.data(&["output"]);
    let text = output["text"].as_str().unwrap_or("");
    // The first deposit was 50 instead of 0: every later balance is 50 higher.
    assert!(text.contains("step 0: amount=0 balance=150"), "{text}");
    let missing = s.run(&["--json", "set", "nosuch", "1"]);
    // The program has ended: no frame to set anything in.
    assert_eq!(missing.code, 1, "{missing:?}");
}

#[test]
fn set_names_an_unknown_variable() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let run = s.run(&["--json", "set", "nosuch", "1"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert!(
        error["message"].as_str().unwrap_or("").contains("nosuch"),
        "{error}"
    );
}

#[test]
fn set_changes_what_a_python_program_prints() {
    require_debugpy();
    let s = Session::new();
    s.start(
        &fixture_path("python/app.py"),
        &["--break", &at("python/app.py", "@loop_call")],
    );
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let set = s.data(&["set", "total", "1000"]);
    assert_eq!(set["value"], "1000", "{set}");
    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let text = s.data(&["output"])["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(text.contains("step 0: balance=100 total=1000"), "{text}");
}

#[test]
fn raw_runs_an_lldb_command() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let out = s.run(&["raw", "bt", "1"]);
    let text = out.ok();
    assert!(
        text.contains("frame #0") && text.contains("apply"),
        "{text}"
    );
    let json = s.data(&["raw", "frame variable amount"]);
    assert!(
        json["output"].as_str().unwrap_or("").contains("amount = 0"),
        "{json}"
    );
    // In the selected frame, as `print` is: after `up`, main's.
    s.data(&["up"]);
    let json = s.data(&["raw", "frame variable i"]);
    assert!(
        json["output"].as_str().unwrap_or("").contains("i = 0"),
        "{json}"
    );
}

/// `raw quit` would have the adapter's debugger ask, on the DAP stream, whether to kill the
/// program: the adapter answered nothing for 30 s and took the next request for the reply. It
/// is refused, and the session goes on.
#[track_caller]
fn quit_is_refused_and_the_session_goes_on(s: &Session, adapter: &str) {
    s.start(
        &build("c/ledger.c"),
        &["--adapter", adapter, "--break", "apply"],
    );
    s.data(&["continue", "--wait", "--timeout", "30"]);
    for quit in ["quit", "q", "exit 3"] {
        let run = s.run(&["--json", "raw", quit]);
        assert_eq!(run.code, 2, "{quit}: {run:?}");
        let error = run.failure();
        let message = error["message"].as_str().unwrap_or("");
        assert!(
            message.contains(adapter) && message.contains(quit),
            "{error}"
        );
        assert!(
            error["hint"]
                .as_str()
                .unwrap_or("")
                .contains("debugger stop"),
            "{error}"
        );
    }
    assert_eq!(s.value_of("amount"), "0");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");
}

#[test]
fn raw_quit_is_refused_under_lldb() {
    require_lldb_dap();
    quit_is_refused_and_the_session_goes_on(&Session::new(), "lldb");
}

#[test]
fn raw_quit_is_refused_under_gdb() {
    quit_is_refused_and_the_session_goes_on(&Session::with_gdb(), "gdb");
}

#[test]
fn catch_cpp_throw_stops_where_the_exception_is_thrown() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("cpp/throws.cpp"), &["--stop-on-entry"]);
    let listed = s.data(&["catch"]);
    let names: Vec<&str> = listed["filters"]
        .as_array()
        .expect("filters")
        .iter()
        .filter_map(|f| f["filter"].as_str())
        .collect();
    assert!(names.contains(&"cpp_throw"), "{listed}");
    let set = s.data(&["catch", "cpp_throw"]);
    let on: Vec<&str> = set["filters"]
        .as_array()
        .expect("filters")
        .iter()
        .filter(|f| f["enabled"] == true)
        .filter_map(|f| f["filter"].as_str())
        .collect();
    assert_eq!(on, vec!["cpp_throw"], "{set}");
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "exception", "{stop}");
    let bt = s.data(&["backtrace"]);
    let functions: Vec<&str> = bt["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["function"].as_str())
        .collect();
    assert!(functions.iter().any(|f| f.contains("check")), "{bt}");
    let bad = s.run(&["--json", "catch", "nosuch"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(
        bad.failure()["hint"]
            .as_str()
            .unwrap_or("")
            .contains("cpp_throw")
    );
}

#[test]
fn catch_raised_stops_on_an_exception_python_catches() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path("python/caught.py"), &["--stop-on-entry"]);
    // By default only uncaught exceptions stop: this program would run to its end.
    s.data(&["catch", "raised"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "exception", "{stop}");
    assert_eq!(stop["stop"]["exception"]["type"], "ValueError", "{stop}");
    assert_eq!(
        stop["stop"]["frame"]["line"],
        line_of("python/caught.py", "@raise_site")
    );
    s.data(&["catch", "--none"]);
    let end = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
}

#[test]
fn a_catch_choice_outlives_restart_as_breakpoints_do() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path("python/caught.py"), &["--stop-on-entry"]);
    s.data(&["catch", "raised"]);
    s.data(&["restart"]);
    let listed = s.data(&["catch"]);
    let on: Vec<&str> = listed["filters"]
        .as_array()
        .expect("filters")
        .iter()
        .filter(|f| f["enabled"] == true)
        .filter_map(|f| f["filter"].as_str())
        .collect();
    assert_eq!(on, vec!["raised"], "{listed}");
    if s.data(&["status"])["state"] != "stopped" {
        s.data(&["await", "--timeout", "30"]);
    }
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "exception", "{stop}");
    assert_eq!(stop["stop"]["exception"]["type"], "ValueError", "{stop}");
}
