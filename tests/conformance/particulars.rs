//! What each adapter shows beyond the suite's table, on the ledger programs the per-adapter tests
//! share (`fixtures/c/ledger.c`, `fixtures/go/ledger`, `fixtures/python/app.py`): the values
//! and shapes particular to the adapter, checked exactly.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::delve;
use crate::common::{
    Session, assert_stop_at, at, build, build_go, fixture_path, frame_lines, line_of,
    require_delve, require_python, selected_threads, variable,
};

const LEDGER: &str = "c/ledger.c";
const APP: &str = "python/app.py";

/// Asserts a stop is in `function` at the line of `marker` in ledger.c.
#[track_caller]
fn assert_in_ledger(stop: &Value, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(LEDGER, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with("ledger.c"), "{stop}");
}

/// GDB on `c/ledger.c`: its arguments in a scope of their own, the value `finish` returned
/// among the locals, a pointer shown by the struct it points to, and its own messages kept out
/// of the output.
pub fn gdb_on_c() {
    let s = Session::with_gdb();
    let program = build(LEDGER);
    let started = s.start_on(
        "gdb",
        &program,
        &["-b", &at(LEDGER, "@square_body"), "-b", "apply"],
    );
    let breakpoints = started["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(breakpoints.len(), 2, "{started}");
    for bp in breakpoints {
        assert_eq!(bp["verified"], true, "{started}");
    }

    // Break by line; the argument comes from GDB's "Arguments" scope, beside the locals.
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!([1]), "{stop}");
    assert_in_ledger(&stop, "square", "@square_body");
    let locals = s.data(&["locals"]);
    let x = variable(&locals["variables"], "x");
    assert_eq!(
        (&x["value"], &x["type"]),
        (&json!("3"), &json!("int")),
        "{locals}"
    );
    variable(&locals["variables"], "result");

    // finish: back in main, at the call, with the value square returned among the locals.
    let stop = s.stop_after("finish");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_eq!(stop["frame"]["function"], "main", "{stop}");
    let locals = s.data(&["locals"]);
    assert_eq!(
        variable(&locals["variables"], "(return)")["value"],
        "9",
        "{locals}"
    );

    // Break by function.
    let stop = s.stop_after("continue");
    assert_eq!(stop["breakpoint_ids"], json!([2]), "{stop}");
    assert_in_ledger(&stop, "apply", "@apply_body");
    assert_eq!(s.value_of("amount"), "0");
    assert_eq!(s.value_of("acct->balance + 1"), "101");
    assert_eq!(s.value_of("acct->owner"), "\"alice\"");
    let missing = s.run(&["--json", "print", "nosuch"]).failure();
    assert!(
        missing["message"].as_str().unwrap_or("").contains("nosuch"),
        "{missing}"
    );
    // GDB's pointer has one child, `value`, the struct: its members show in its place.
    let text = s.run(&["locals"]);
    let text = text.ok();
    assert!(text.contains("amount (long) = 0"), "{text}");
    assert!(text.contains("acct   (struct account *) = 0x"), "{text}");
    assert!(
        text.contains("{id = 7, balance = 100, owner = \"alice\"}"),
        "{text}"
    );
    let printed = s.data(&["print", "acct"]);
    let members: Vec<&str> = printed["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(members, ["id", "balance", "owner"], "{printed}");

    // backtrace, innermost first.
    let bt = s.data(&["backtrace"]);
    let seen = frame_lines(&bt);
    assert_eq!(
        seen,
        vec![
            ("apply", u64::from(line_of(LEDGER, "@apply_body"))),
            ("main", u64::from(line_of(LEDGER, "@loop_call"))),
        ],
        "{bt}"
    );

    // threads: the one thread, selected.
    let threads = s.data(&["threads"]);
    let list = threads["threads"].as_array().expect("threads");
    assert_eq!(list.len(), 1, "{threads}");
    assert_eq!(list[0]["selected"], true, "{threads}");

    // next, twice; step into nothing new.
    let stop = s.stop_after("next");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(LEDGER, "@apply_body") + 1);
    let stop = s.stop_after("step");
    assert_in_ledger(&stop, "apply", "@apply_update");

    // A condition: only the fourth call stops; `set` changes what it adds.
    s.data(&["breakpoint", "remove", "--all"]);
    let added = s.data(&[
        "breakpoint",
        "add",
        &at(LEDGER, "@apply_update"),
        "--condition",
        "amount == 3",
    ]);
    assert_eq!(added["verified"], true, "{added}");
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_in_ledger(&stop, "apply", "@apply_update");
    assert_eq!(s.value_of("amount"), "3");
    s.data(&["set", "amount", "10"]);
    assert_eq!(s.value_of("amount"), "10");

    // A logpoint GDB prints itself, marked as ours, then the run to the end.
    s.data(&["breakpoint", "remove", "--all"]);
    let log_line = line_of(LEDGER, "@loop_call") + 2;
    let logpoint = s.data(&[
        "breakpoint",
        "add",
        &format!(
            "{}:{log_line}",
            crate::common::fixture_path(LEDGER).display()
        ),
        "--log",
        "i={i} total={total}",
    ]);
    assert_eq!(logpoint["verified"], true, "{logpoint}");
    let end = s.stop_after("continue");
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");

    // The output holds the program's lines and the logpoint's, and none of GDB's own
    // ("Breakpoint 5 at 0x…: file …, line …."), which GDB sends down the same pipe.
    let text = s.output_containing(&["ledger: done\n"], Duration::from_secs(10));
    let program_lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("[logpoint"))
        .collect();
    assert_eq!(
        program_lines,
        [
            "square: 9",
            "step 0: amount=0 balance=100 total=0",
            "step 1: amount=1 balance=101 total=1",
            "step 2: amount=2 balance=103 total=3",
            "step 3: amount=3 balance=113 total=13",
            "step 4: amount=4 balance=117 total=17",
            "total: 17 counter: 5",
            "ledger: done",
        ],
        "{text}"
    );
    let logged: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("[logpoint"))
        .collect();
    let id = &logpoint["id"];
    assert_eq!(
        logged,
        [
            format!("[logpoint {id}] i=3 total=13"),
            format!("[logpoint {id}] i=4 total=17"),
        ],
        "{text}"
    );
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], 3, "{status}");
}

/// Delve on `go/ledger`, picked by the binary's Go build info: the program's pid though Delve
/// sends no `process` event, a struct's fields, the `func` line a step enters on, and the
/// output printed between two stops.
pub fn delve_on_go() {
    require_delve();
    let program = build_go(delve::LEDGER);
    let s = Session::new();
    let loop_call = line_of(delve::LEDGER, "@loop_call");
    let started = delve::start(&s, &program, &["--break", &at(delve::LEDGER, "@loop_call")]);
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");

    // Break by line.
    let stop = s.stop_after("continue");
    delve::assert_stop(&stop, "breakpoint", "main.main", loop_call);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");

    // Delve sends no `process` event; the program's pid is known all the same (for `status`,
    // and to end the program should Delve die).
    let status = s.data(&["status"]);
    let pid = status["debuggee_pid"].as_u64().expect("debuggee_pid");
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the program runs");
    let parent = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1))
        .and_then(|p| p.parse::<u64>().ok());
    assert_eq!(parent, status["adapter_pid"].as_u64(), "{status}\n{stat}");

    // Locals, with the struct's fields.
    let vars = delve::locals(&s, "3");
    assert_eq!(vars["i"]["value"], "0", "{vars:?}");
    assert_eq!(vars["total"]["value"], "0", "{vars:?}");
    let acct = &vars["acct"];
    assert_eq!(acct["type"], "*main.Account", "{acct}");
    assert!(
        acct["value"]
            .as_str()
            .is_some_and(|v| v.contains("Owner: \"ada\"") && v.contains("Balance: 100")),
        "{acct}"
    );
    let mut fields = Vec::new();
    delve::child_names(acct, &mut fields);
    for field in ["ID", "Owner", "Balance"] {
        assert!(fields.iter().any(|f| f == field), "no {field}: {acct}");
    }

    // Print a field and an expression.
    assert_eq!(s.value_of("acct.Balance"), "100");
    assert_eq!(s.value_of("acct.Owner"), "\"ada\"");
    let printed = s.data(&["print", "acct.Balance*2 + acct.ID"]);
    assert_eq!(printed["value"], "207", "{printed}");
    assert_eq!(printed["type"], "int", "{printed}");
    let missing = s.json(&["print", "nosuch"]);
    assert_eq!(missing["ok"], false, "{missing}");

    // Step into add, see the stack, and finish back out.
    let add = line_of(delve::LEDGER, "@add_body");
    // Delve enters a function on its `func` line, the line above the body's first.
    let stop = s.stop_after("step");
    delve::assert_stop(&stop, "step", "main.add", add - 1);
    let frames = s.data(&["backtrace"])["frames"].clone();
    assert_eq!(frames[0]["function"], "main.add", "{frames}");
    assert_eq!(frames[1]["function"], "main.main", "{frames}");
    assert_eq!(frames[1]["line"], loop_call, "{frames}");
    assert_eq!(s.value_of("a"), "0");
    // Back on the call's line: the assignment of add's result is still to run.
    let stop = s.stop_after("finish");
    delve::assert_stop(&stop, "step", "main.main", loop_call);

    // Next to the Deposit call's line, then break by function on the method.
    let stop = s.stop_after("next");
    delve::assert_stop(&stop, "step", "main.main", loop_call + 1);
    let added = s.data(&["breakpoint", "add", "main.(*Account).Deposit"]);
    assert_eq!(added["verified"], true, "{added}");
    let deposit = line_of(delve::LEDGER, "@deposit_body");
    // Delve says "function breakpoint"; every adapter's breakpoint stop reads "breakpoint".
    let stop = s.stop_after("continue");
    delve::assert_stop(&stop, "breakpoint", "main.(*Account).Deposit", deposit - 1);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_eq!(s.value_of("a.Balance"), "100");
    assert_eq!(s.value_of("amount"), "0");

    // A condition: only the fourth time round the loop.
    s.data(&["breakpoint", "remove", "--all"]);
    let conditional = s.data(&[
        "breakpoint",
        "add",
        &at(delve::LEDGER, "@loop_call"),
        "--condition",
        "i == 3",
    ]);
    assert_eq!(conditional["verified"], true, "{conditional}");
    let stop = s.stop_after("continue");
    delve::assert_stop(&stop, "breakpoint", "main.main", loop_call);
    assert_eq!(s.value_of("i"), "3");
    assert_eq!(s.value_of("total"), "3");
    // What the program printed between two stops is captured while it is stopped.
    let text = delve::output_with(&s, &["step 2: total=3 balance=103"]);
    assert!(!text.contains("step 3:"), "{text:?}");

    // Threads: the stopped goroutine is listed, selected, in main.main.
    let threads = s.data(&["threads"]);
    let selected = selected_threads(&threads);
    assert_eq!(selected.len(), 1, "{threads}");
    assert_eq!(selected[0]["id"], stop["thread_id"], "{threads}");
    assert_eq!(selected[0]["frame"]["function"], "main.main", "{threads}");

    // The exit code (total % 7) and every line printed after the last stop, stdout and stderr.
    delve::run_to_exit(&s, 3);
    delve::assert_ledger_output(&s);
}

/// pdb on `python/app.py`: the thread named `MainThread`, Python's own error for an unknown
/// name, and a `set` that holds after other requests read the frame again.
pub fn pdb_on_python() {
    require_python();
    let s = Session::new();
    let started = s.start_on(
        "pdb",
        &fixture_path(APP),
        &["-b", &at(APP, "@square_call"), "-b", "deposit"],
    );
    for bp in started["breakpoints"].as_array().expect("breakpoints") {
        assert_eq!(bp["verified"], true, "{started}");
    }

    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!([1]), "{stop}");
    assert_eq!(stop["thread_name"], "MainThread", "{stop}");
    assert_stop_at(&stop, APP, "main", "@square_call");

    // Into a function and out: `finish` stops in the caller as the call returns.
    let stop = s.stop_after("step");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_stop_at(&stop, APP, "square", "@square_body");
    assert_eq!(s.value_of("n"), "3");
    let stop = s.stop_after("finish");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_stop_at(&stop, APP, "main", "@square_call");

    // By function: the stop is on the function's first line of code.
    let stop = s.stop_after("continue");
    assert_eq!(stop["breakpoint_ids"], json!([2]), "{stop}");
    assert_stop_at(&stop, APP, "Account.deposit", "@deposit_body");
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
    assert_eq!(added["verified"], true, "{added}");
    let stop = s.stop_after("continue");
    assert_eq!(stop["breakpoint_ids"], json!([3]), "{stop}");
    let locals = s.run(&["locals"]);
    let text = locals.ok();
    assert!(text.contains("amount (int) = 3"), "{text}");
    assert!(text.contains("balance = 103"), "{text}");
    assert!(text.contains("owner = 'ada'"), "{text}");
    assert_eq!(s.value_of("amount * 10 + self.balance"), "133");
    let missing = s.run(&["--json", "print", "nosuch"]).failure();
    assert!(
        missing["message"]
            .as_str()
            .is_some_and(|m| m.contains("NameError: name 'nosuch' is not defined")),
        "{missing}"
    );
    let bt = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&bt),
        vec![
            ("Account.deposit", u64::from(line_of(APP, "@deposit_body"))),
            ("main", u64::from(line_of(APP, "@loop_call"))),
            ("<module>", u64::from(line_of(APP, "@exit_call"))),
        ],
        "{bt}"
    );
    let threads = s.data(&["threads"]);
    assert_eq!(threads["threads"][0]["name"], "MainThread", "{threads}");

    let stop = s.stop_after("next");
    assert_stop_at(&stop, APP, "Account.deposit", "@deposit_update");
    assert_eq!(s.value_of("before"), "103");
    // `set` holds when the program runs on, even after other requests read the frame again.
    s.data(&["set", "before", "200"]);
    s.data(&["backtrace"]);
    s.data(&["locals"]);
    s.stop_after("next");
    assert_eq!(s.value_of("self.balance"), "203");

    // The program's own streams, in order, and its exit code.
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.stop_after("continue");
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    let output = s.output_containing(&["app: done\n"], Duration::from_secs(30));
    assert!(
        output.starts_with("square: 9\nstep 0: balance=100"),
        "{output}"
    );
}
