//! `probe` against real adapters: lldb-dap on the C fixtures and our pdb adapter on the Python
//! ones. A probe runs the program with no daemon, records each breakpoint hit, and prints one report
//! whose exit status says whether anything was hit; afterwards no daemon, adapter or program may
//! be left. Signals (Ctrl-C, SIGTERM, SIGKILL) ending the program too are `probe_signals.rs`.
//!
//! Every test fails (never skips) when its adapter is missing: `.ci/run` installs them.
//!
//! Unix only: it reads /proc for what a probe leaves behind.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::probe::{nothing_left, private_copy};
use common::{Run, Session, fixture_path, line_of, require_lldb_dap, require_python, variable};
use serde_json::{Value, json};

const LEDGER: &str = "c/ledger.c";
const APP: &str = "python/app.py";
const RAISES: &str = "python/raises.py";

/// `FILE:LINE` of `marker` in the Python fixture copied to `copy`.
fn at_copy(copy: &Path, fixture: &str, marker: &str) -> String {
    format!("{}:{}", copy.display(), line_of(fixture, marker))
}

/// Runs `debugger probe PROGRAM ARGS...`.
fn probe(s: &Session, program: &Path, args: &[&str]) -> Run {
    let mut all = vec!["probe", program.to_str().expect("utf-8 path")];
    all.extend_from_slice(args);
    s.run(&all)
}

/// Runs `debugger --json probe ...` and returns the run and its JSON object.
fn probe_json(s: &Session, program: &Path, args: &[&str]) -> (Run, Value) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let run = probe(s, program, &all);
    let value = run.json();
    (run, value)
}

fn strings(values: &[Value], pointer: &str) -> Vec<String> {
    values
        .iter()
        .map(|v| match v.pointer(pointer) {
            Some(Value::String(text)) => text.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

// ---- C, lldb-dap ------------------------------------------------------------------------

/// The "done when": what is `i` each time a line runs, in one call, with the location
/// written as a person would (a file name relative to nothing, and a line).
#[test]
fn one_probe_says_what_a_variable_is_each_time_a_line_runs() {
    require_lldb_dap();
    let s = Session::new();
    let ledger = private_copy(&s, LEDGER);
    let location = format!("ledger.c:{}", line_of(LEDGER, "@loop_call"));
    let run = probe(
        &s,
        &ledger,
        &["--break", &location, "--print", "i", "--hits", "5"],
    );
    let out = run.ok();
    assert!(out.starts_with("ledger: 5 hits; --hits 5 reached"), "{out}");
    assert!(out.contains("\n  i: 0 | 1 | 2 | 3 | 4\n"), "{out}");
    nothing_left(&s);
}

#[test]
fn c_text_report_shows_each_hit_with_prints_locals_stack_and_output() {
    require_lldb_dap();
    let s = Session::new();
    let ledger = private_copy(&s, LEDGER);
    let line = line_of(LEDGER, "@apply_body");
    let location = format!("{}:{line}", fixture_path(LEDGER).display());
    let run = probe(
        &s,
        &ledger,
        &[
            "--break",
            &location,
            "--print",
            "amount",
            "-p",
            "acct->balance",
            "--hits",
            "3",
        ],
    );
    let out = run.ok();
    assert!(
        out.starts_with("ledger: 3 hits; --hits 3 reached; the probe ended the program\n"),
        "{out}"
    );
    assert!(out.contains("  amount: 0 | 1 | 2\n"), "{out}");
    assert!(out.contains("  acct->balance: 100 | 100 | 101\n"), "{out}");
    for n in 1..=3 {
        assert!(
            out.contains(&format!(
                "Hit {n}: breakpoint 1 in apply (ledger.c:{line}), thread "
            )),
            "{out}"
        );
    }
    // The source once (every hit is on the same line), with the arrow on it.
    assert_eq!(out.matches(&format!("->  {line} |")).count(), 1, "{out}");
    assert!(
        out.contains("  print:  amount        (long) = 2\n"),
        "{out}"
    );
    assert!(out.contains("  locals: acct"), "{out}");
    // Later hits at the same place show what changed, and name the rest.
    let second = &out[out.find("Hit 2:").expect("hit 2")..out.find("Hit 3:").expect("hit 3")];
    // (`before` is not set yet on the breakpoint's line: whatever the stack held.)
    assert!(second.contains("  locals: amount (long) = 1\n"), "{out}");
    assert!(second.contains("          (unchanged: acct"), "{out}");
    assert!(second.contains("  stack:  as at hit 1\n"), "{out}");
    assert!(
        out.contains(&format!(
            "  stack:  apply (ledger.c:{line}) < main (ledger.c:{})",
            line_of(LEDGER, "@loop_call")
        )),
        "{out}"
    );
    assert!(
        // The file as placed: below the caller's directory it would be relative; this one is not.
        out.contains(&format!("Breakpoints:\n  1   {location}  verified\n")),
        "{out}"
    );
    // The output up to the third hit: two steps done.
    assert!(
        out.contains("Output:\n  square: 9\n  step 0: amount=0 balance=100 total=0\n  step 1:"),
        "{out}"
    );
    assert!(!out.contains("step 2:"), "{out}");
    nothing_left(&s);
}

#[test]
fn c_json_report_has_one_entry_per_hit_and_records_a_failing_print_per_hit() {
    require_lldb_dap();
    let s = Session::new();
    let ledger = private_copy(&s, LEDGER);
    let (run, value) = probe_json(
        &s,
        &ledger,
        &[
            "--break",
            "apply",
            "--print",
            "amount",
            "--print",
            "nosuch",
            "--print",
            "acct->balance + amount",
            "--hits",
            "3",
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(value["ok"], true, "{value}");
    let data = &value["data"];
    assert_eq!(data["adapter"], "lldb", "{data}");
    assert_eq!(data["hits_wanted"], 3, "{data}");
    assert_eq!(data["ended"]["reason"], "hits_reached", "{data}");
    let hits = data["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 3, "{data}");
    assert_eq!(strings(hits, "/prints/0/value"), ["0", "1", "2"]);
    assert_eq!(strings(hits, "/prints/2/value"), ["100", "101", "103"]);
    for hit in hits {
        assert_eq!(hit["stop"]["reason"], "breakpoint", "{hit}");
        assert_eq!(hit["stop"]["breakpoint_ids"], json!([1]), "{hit}");
        assert_eq!(hit["stop"]["frame"]["function"], "apply", "{hit}");
        assert_eq!(
            hit["stop"]["frame"]["line"],
            line_of(LEDGER, "@apply_body"),
            "{hit}"
        );
        // The failing expression is recorded at each hit, and the others still evaluate.
        let failed = &hit["prints"][1];
        assert_eq!(failed["expression"], "nosuch", "{hit}");
        assert_eq!(failed["value"], Value::Null, "{hit}");
        assert!(
            failed["error"]
                .as_str()
                .is_some_and(|e| e.contains("undeclared identifier 'nosuch'")),
            "{hit}"
        );
        assert_eq!(hit["prints"][0]["type"], "long", "{hit}");
        let frames = hit["frames"].as_array().expect("frames");
        assert_eq!(strings(&frames[..2], "/function"), ["apply", "main"]);
        assert!(frames.len() <= 5, "{hit}");
        assert_eq!(hit["errors"], json!([]), "{hit}");
    }
    let acct = variable(&hits[2]["locals"], "acct");
    assert_eq!(variable(&acct["children"], "balance")["value"], "101");
    assert_eq!(variable(&hits[2]["locals"], "amount")["value"], "2");
    let bp = &data["breakpoints"][0];
    assert_eq!(
        (&bp["id"], &bp["verified"], &bp["function"]),
        (&json!(1), &json!(true), &json!("apply")),
        "{data}"
    );
    let tail = data["output"]["tail"].as_str().expect("output tail");
    assert!(tail.starts_with("square: 9\n"), "{data}");
    assert_eq!(data["output"]["omitted_bytes"], 0, "{data}");
    nothing_left(&s);
}

#[test]
fn c_probe_that_outlives_the_program_reports_its_hits_and_exit_code() {
    require_lldb_dap();
    let s = Session::new();
    let ledger = private_copy(&s, LEDGER);
    let (run, value) = probe_json(&s, &ledger, &["--break", "apply", "--hits", "10"]);
    assert_eq!(run.code, 0, "{run:?}");
    let data = &value["data"];
    assert_eq!(data["hits"].as_array().map(Vec::len), Some(5), "{data}");
    assert_eq!(
        data["ended"],
        json!({"reason": "exited", "exit_code": 3, "signal": null, "message": "the program exited with code 3"})
    );
    let tail = data["output"]["tail"].as_str().unwrap_or("");
    assert!(
        tail.ends_with("total: 10 counter: 5\nledger: done\n"),
        "{data}"
    );
    nothing_left(&s);
}

#[test]
fn c_breakpoint_never_hit_exits_1_and_says_why() {
    require_lldb_dap();
    let s = Session::new();
    let ledger = private_copy(&s, LEDGER);

    // JSON: a failure that carries the report.
    let (run, value) = probe_json(&s, &ledger, &["--break", "nosuch_function"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(value["ok"], false, "{value}");
    let error = run.failure();
    assert_eq!(error["code"], "not_hit", "{value}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("no breakpoint was hit (the program exited with code 3)")
            && message.contains("breakpoint 1 (nosuch_function) never resolved"),
        "{value}"
    );
    let data = &value["data"];
    assert_eq!(data["hits"], json!([]), "{data}");
    assert_eq!(data["ended"]["reason"], "exited", "{data}");
    assert_eq!(data["ended"]["exit_code"], 3, "{data}");
    let bp = &data["breakpoints"][0];
    assert_eq!(bp["verified"], false, "{data}");
    assert!(
        bp["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{data}"
    );
    assert!(
        data["output"]["tail"]
            .as_str()
            .is_some_and(|t| t.contains("total: 10 counter: 5")),
        "{data}"
    );

    // Text: the report on stdout, the error and its hint on stderr.
    let run = probe(&s, &ledger, &["--break", "nosuch_function"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .starts_with("ledger: no breakpoint was hit; the program exited with code 3\n"),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("1   nosuch_function  pending: never found in the program's code"),
        "{run:?}"
    );
    assert!(
        run.stderr.starts_with("error: no breakpoint was hit") && run.stderr.contains("\nhint: "),
        "{run:?}"
    );
    nothing_left(&s);
}

#[test]
fn c_timeout_before_any_hit_exits_3_and_ends_the_program() {
    require_lldb_dap();
    let s = Session::new();
    let spin = private_copy(&s, "c/spin.c");
    let began = Instant::now();
    let (run, value) = probe_json(&s, &spin, &["--break", "nosuch_function", "--timeout", "2"]);
    assert!(began.elapsed() < Duration::from_secs(30), "{run:?}");
    assert_eq!(run.code, 3, "{run:?}");
    assert_eq!(run.failure()["code"], "timeout", "{value}");
    let ended = &value["data"]["ended"];
    assert_eq!(ended["reason"], "timeout", "{value}");
    assert!(
        ended["message"]
            .as_str()
            .is_some_and(|m| m.contains("--timeout 2 s") && m.contains("ended the program")),
        "{value}"
    );
    // Ticks printed while it ran.
    assert!(
        value["data"]["output"]["tail"]
            .as_str()
            .is_some_and(|t| t.contains("tick: 1\n")),
        "{value}"
    );
    nothing_left(&s);
}

// ---- Python, on the pdb adapter (probe's own for Python) ---------------------------------

#[test]
fn python_text_and_json_reports_record_several_hits() {
    require_python();
    let s = Session::new();
    let app = private_copy(&s, APP);
    let location = at_copy(&app, APP, "@loop_call");
    let args = [
        "--break", &location, "--print", "i", "--print", "total", "--print", "nosuch", "--hits",
        "3",
    ];

    let run = probe(&s, &app, &args);
    let out = run.ok();
    assert!(
        out.starts_with("app.py: 3 hits; --hits 3 reached; the probe ended the program\n"),
        "{out}"
    );
    assert!(
        out.contains("\n  i: 0 | 1 | 2\n  total: 0 | 1 | 3\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Hit 2: breakpoint 1 in main (app.py:{}), thread 1",
            line_of(APP, "@loop_call")
        )),
        "{out}"
    );
    assert!(
        out.contains("nosuch error: NameError: name 'nosuch' is not defined"),
        "{out}"
    );
    assert!(out.contains("  stack:  main (app.py:"), "{out}");
    nothing_left(&s);

    let (run, value) = probe_json(&s, &app, &args);
    assert_eq!(run.code, 0, "{run:?}");
    let data = &value["data"];
    assert_eq!(data["adapter"], "pdb", "{data}");
    let hits = data["hits"].as_array().expect("hits");
    assert_eq!(strings(hits, "/prints/0/value"), ["0", "1", "2"]);
    assert_eq!(strings(hits, "/prints/1/value"), ["0", "1", "3"]);
    for hit in hits {
        assert!(
            hit["prints"][2]["error"]
                .as_str()
                .is_some_and(|e| e.contains("NameError")),
            "{hit}"
        );
        assert_eq!(hit["stop"]["frame"]["function"], "main", "{hit}");
    }
    let acct = variable(&hits[2]["locals"], "acct");
    assert_eq!(acct["type"], "Account", "{data}");
    assert_eq!(data["ended"]["reason"], "hits_reached", "{data}");
    assert!(
        data["output"]["tail"]
            .as_str()
            .is_some_and(|t| t.ends_with("step 1: balance=101 total=1\n")),
        "{data}"
    );
    nothing_left(&s);
}

/// A long value in the summary line keeps its whole members and says how many it left out
/// (not a cut in the middle of one); the hit's own `print:` line has all of it.
#[test]
fn python_summary_values_are_cut_after_whole_members() {
    require_python();
    let s = Session::new();
    let app = private_copy(&s, APP);
    let location = at_copy(&app, APP, "@loop_call");
    let expression = "[('account', n, 'x' * 5) for n in range(i, i + 12)]";
    let run = probe(
        &s,
        &app,
        &["--break", &location, "--print", expression, "--hits", "2"],
    );
    let out = run.ok();
    let tuples = |from: u32| {
        (from..from + 4)
            .map(|n| format!("('account', {n}, 'xxxxx')"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let summary = format!(
        "\n  {expression}: [{}, … 8 more] | [{}, … 8 more]\n",
        tuples(0),
        tuples(1)
    );
    assert!(out.contains(&summary), "{out}");
    assert!(
        out.contains("('account', 10, 'xxxxx'), ('account', 11, 'xxxxx')]\n"),
        "{out}"
    );
}

#[test]
fn python_breakpoint_never_hit_exits_1_after_recording_the_exception_that_ended_it() {
    require_python();
    let s = Session::new();
    let raises = private_copy(&s, RAISES);
    // The line after the call that raises: the program never gets there.
    let location = at_copy(&raises, RAISES, "\"not reached\"");
    let (run, value) = probe_json(&s, &raises, &["--break", &location]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "not_hit", "{value}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("the program exited with code 1")),
        "{value}"
    );
    let data = &value["data"];
    assert_eq!(data["breakpoints"][0]["verified"], true, "{data}");
    // The uncaught exception stopped the program: recorded, then continued to its end.
    let others = data["other_stops"].as_array().expect("other_stops");
    assert_eq!(others.len(), 1, "{data}");
    assert_eq!(others[0]["after_hits"], 0, "{data}");
    assert_eq!(others[0]["stop"]["reason"], "exception", "{data}");
    assert_eq!(
        others[0]["stop"]["exception"]["type"], "ZeroDivisionError",
        "{data}"
    );
    assert_eq!(variable(&others[0]["locals"], "b")["value"], "0", "{data}");
    assert!(
        data["output"]["tail"]
            .as_str()
            .is_some_and(|t| t.contains("ZeroDivisionError: division by zero")),
        "{data}"
    );
    nothing_left(&s);
}

#[test]
fn python_stop_on_an_exception_after_a_hit_is_shown_and_the_probe_continues() {
    require_python();
    let s = Session::new();
    let raises = private_copy(&s, RAISES);
    let location = at_copy(&raises, RAISES, "@check_call");
    let run = probe(
        &s,
        &raises,
        &["--break", &location, "--print", "value", "--hits", "2"],
    );
    let out = run.ok();
    assert!(
        out.starts_with("raises.py: 1 hit; the program exited with code 1\n"),
        "{out}"
    );
    let hit = out.find("Hit 1: breakpoint 1 in check").expect("the hit");
    let exception = out
        .find("Stopped on exception in ratio (raises.py:")
        .expect("the exception stop");
    assert!(hit < exception, "{out}");
    assert!(
        out.contains("ZeroDivisionError: division by zero (not a breakpoint; the probe continued)"),
        "{out}"
    );
    assert!(out.contains("  print:  value (int) = 0\n"), "{out}");
    nothing_left(&s);
}

// ---- stops at no breakpoint --------------------------------------------------------------

#[test]
fn a_program_that_keeps_stopping_elsewhere_is_recorded_up_to_a_bound_and_continued() {
    // The mock stops at entry, then on an exception at each of 15 continues, then exits 0.
    let s = Session::with_mock(
        &json!({ "exceptions_on_continue": 15, "exit_code_on_continue": 0 }),
        "",
    );
    let args = ["probe", "/bin/true", "--adapter", "mock", "--break", "main"];
    let mut all = vec!["--json"];
    all.extend_from_slice(&args);
    let run = s.run(&all);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.failure()["code"], "not_hit", "{run:?}");
    let data = &run.json()["data"];
    let others = data["other_stops"].as_array().expect("other_stops");
    assert_eq!(others.len(), 10, "{data}");
    assert_eq!(
        strings(&others[..2], "/stop/reason"),
        ["entry", "exception"]
    );
    assert_eq!(data["other_stops_omitted"], 6, "{data}");
    assert_eq!(data["ended"]["exit_code"], 0, "{data}");

    let run = s.run(&args);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stdout
            .matches("(not a breakpoint; the probe continued)")
            .count(),
        10,
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("\n… 6 more stops at no breakpoint, continued without being recorded\n"),
        "{run:?}"
    );
}

// ---- usage --------------------------------------------------------------------------------

#[test]
fn usage_errors_exit_2_before_anything_runs() {
    let s = Session::new();
    let missing = s.run(&["--json", "probe", "/bin/true"]);
    assert_eq!(missing.code, 2, "{missing:?}");
    assert!(
        missing.failure()["message"]
            .as_str()
            .is_some_and(|m| m.contains("--break")),
        "{missing:?}"
    );
    for args in [["--hits", "0"], ["--timeout", "-1"], ["--env", "NOEQUALS"]] {
        let mut all = vec!["--json", "probe", "/bin/true", "--break", "main"];
        all.extend_from_slice(&args);
        let run = s.run(&all);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert_eq!(run.failure()["code"], "usage", "{args:?}: {run:?}");
    }
    let run = s.run(&["--json", "probe", "./no-such-program", "--break", "main"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.failure()["message"]
            .as_str()
            .is_some_and(|m| m.contains("program not found")),
        "{run:?}"
    );
    nothing_left(&s);
}
