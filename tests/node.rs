//! JavaScript under the built-in `node` adapter (Node's V8 inspector): the shared per-language
//! scenario (break by line and by function, conditions, hit counts, continue, next, step, finish,
//! locals, print, set, backtrace, output, exit code) with the adapter picked from the `.js`
//! extension alone, plus what is particular to Node: breakpoints in a module `require`d later
//! (pending at start, then hit), an ES module whose `next` steps over an `await`, an uncaught
//! `TypeError`, `--stop-on-entry`, `restart`, and a flood of console output. Attaching is
//! `node_attach.rs`, file names as typed and functions in bundles `node_locations.rs`.
//!
//! Every test fails (never skips) when `node` is missing: `.ci/run` installs it with apt.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::node::*;
use common::{Session, at, fixture_path, line_of, require_node, variable};

/// The "done when": `debugger start app.js --break app.js:12 && debugger continue --wait
/// && debugger locals`, typed in the program's folder.
#[test]
fn start_break_continue_locals_in_the_programs_folder() {
    require_node();
    let s = Session::new();
    let folder = fixture_path("javascript");
    // The command line a user types in the program's folder, with relative paths.
    assert_eq!(
        line_of(APP, "@deposit_update"),
        12,
        "app.js:12 is deposit's second line"
    );
    let location = "app.js:12";
    let started = run_in(
        &s,
        &folder,
        &["start", "--no-wait", "app.js", "--break", location],
    );
    let text = started.ok();
    assert!(text.contains("with node"), "{text}");
    let stopped = run_in(&s, &folder, &["continue", "--wait", "--timeout", WAIT]);
    let text = stopped.ok();
    assert!(
        text.contains(&format!("Stopped at breakpoint 1 in deposit ({location})")),
        "{text}"
    );
    let locals = run_in(&s, &folder, &["locals"]);
    let text = locals.ok();
    assert!(text.contains("amount (number) = 0"), "{text}");
    assert!(text.contains("before (number) = 100"), "{text}");
    assert!(text.contains("this   (Account) = "), "{text}");
}

#[test]
fn javascript_scenario_breaks_steps_inspects_and_exits() {
    require_node();
    let s = Session::new();
    // No --adapter: the .js extension picks node.
    let started = s.start(
        &fixture_path(APP),
        &["-b", &at(APP, "@loop_call"), "-b", "Account.deposit"],
    );
    assert_eq!(started["adapter"], "node", "{started}");
    assert_eq!(started["breakpoints"].as_array().map(Vec::len), Some(2));

    // Break by line. (`status` comes after: shown a stop, it counts as seen, and `continue`
    // would run past it.)
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "run", "@loop_call");
    assert_eq!(s.data(&["status"])["adapter"], "node");
    assert_eq!(stop["thread_name"], "main", "{stop}");
    assert_eq!(listed(&s, 1)["verified"], true);

    // locals: the block-scoped loop variable, the function's own, an object with its fields.
    let variables = locals(&s);
    let i = variable(&variables, "i");
    assert_eq!(
        (i["value"].as_str(), i["type"].as_str()),
        (Some("0"), Some("number"))
    );
    assert_eq!(variable(&variables, "total")["value"], "0", "{variables}");
    let acct = variable(&variables, "acct");
    assert_eq!(acct["type"], "Account", "{variables}");
    assert_eq!(
        acct["value"], "Account {owner: \"ada\", balance: 100}",
        "{variables}"
    );
    let text = s.run(&["locals"]);
    let text = text.ok();
    assert!(
        text.contains("(Account) = Account {owner: \"ada\", balance: 100}"),
        "{text}"
    );
    // CommonJS's module wrapper parameters are not locals.
    assert!(!text.contains("__dirname"), "{text}");

    // step into the helper, next over a line, finish back out to the caller.
    let stop = step_with(&s, "step");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "accumulate", "@accumulate_body");
    let variables = locals(&s);
    assert_eq!(variable(&variables, "n")["value"], "0", "{variables}");
    assert_eq!(variable(&variables, "total")["value"], "0", "{variables}");
    assert_eq!(
        backtrace(&s),
        vec![
            frame("accumulate", APP, "@accumulate_body"),
            frame("run", APP, "@loop_call"),
            frame("(anonymous)", APP, "@run_call"),
        ]
    );
    let stop = step_with(&s, "next");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "accumulate", "@accumulate_return");
    assert_eq!(s.value_of("sum"), "0");
    let stop = step_with(&s, "finish");
    assert_eq!(stop["reason"], "step", "{stop}");
    // The assignment of the result has no stop of its own in V8: the next statement is where
    // the caller resumes.
    assert_at(&stop, APP, "run", "@deposit_call");

    // Break by function: a class's method, named `Class.method`.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[2], APP, "deposit", "@deposit_body");
    let deposit = listed(&s, 2);
    assert_eq!(deposit["verified"], true, "{deposit}");
    assert_eq!(
        deposit["resolved_line"],
        line_of(APP, "@deposit_body"),
        "{deposit}"
    );
    assert_eq!(s.value_of("amount"), "0");

    // print: a field, an expression, and a name that does not exist.
    let printed = s.data(&["print", "this.balance"]);
    assert_eq!(printed["value"], "100", "{printed}");
    assert_eq!(printed["type"], "number", "{printed}");
    assert_eq!(s.value_of("this.owner"), "\"ada\"");
    assert_eq!(s.value_of("this.balance * 2 + amount + 1"), "201");
    let missing = s.run(&["--json", "print", "nosuch"]);
    assert_eq!(missing.code, 1, "{missing:?}");
    let error = missing.failure();
    assert_eq!(
        error["message"], "ReferenceError: nosuch is not defined",
        "{error}"
    );
    let missing = s.run(&["print", "nosuch"]);
    assert_eq!(missing.code, 1, "{missing:?}");
    assert!(
        missing
            .stderr
            .contains("error: ReferenceError: nosuch is not defined"),
        "{missing:?}"
    );

    // backtrace: the program's frames only, innermost first.
    assert_eq!(
        backtrace(&s),
        vec![
            frame("deposit", APP, "@deposit_body"),
            frame("run", APP, "@deposit_call"),
            frame("(anonymous)", APP, "@run_call"),
        ]
    );

    let stop = step_with(&s, "next");
    assert_at(&stop, APP, "deposit", "@deposit_update");
    assert_eq!(s.value_of("before"), "100");
    let stop = step_with(&s, "finish");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "run", "@print_step");

    // A condition: only the fourth time round the loop.
    s.data(&["breakpoint", "remove", "--all"]);
    let added = s.data(&[
        "breakpoint",
        "add",
        &at(APP, "@loop_call"),
        "--condition",
        "i === 3",
    ]);
    assert_eq!(added["id"], 3, "{added}");
    assert_eq!(added["verified"], true, "{added}");
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[3], APP, "run", "@loop_call");
    assert_eq!(s.value_of("i"), "3");
    assert_eq!(s.value_of("total"), "3");
    // What the program printed so far, in order, and nothing it has not printed yet.
    let text = output_containing(&s, "step 2:");
    assert_eq!(text, APP_STDOUT.split("step 3").next().unwrap_or(""));

    // process.exitCode = 3 is the exit code; the output is all the program's stdout.
    run_to_exit(&s, 3);
    let text = output_containing(&s, "summary: total=10\n");
    assert_eq!(text, APP_STDOUT);
    let status = s.json(&["status"]);
    assert_eq!(status["data"]["exit_code"], 3, "{status}");
}

#[test]
fn conditions_and_hit_counts_on_function_and_line_breakpoints() {
    require_node();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["--stop-on-entry"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");

    // accumulate from its 3rd call on; the deposit line from its 5th hit on; a condition on a
    // method breakpoint.
    let by_count = s.data(&["breakpoint", "add", "accumulate", "--hit-count", "3"]);
    assert_eq!(by_count["id"], 1, "{by_count}");
    assert_eq!(by_count["hit_count"], 3, "{by_count}");
    let line = s.data(&[
        "breakpoint",
        "add",
        &at(APP, "@deposit_update"),
        "--hit-count",
        "5",
    ]);
    assert_eq!(line["id"], 2, "{line}");
    let conditional = s.data(&[
        "breakpoint",
        "add",
        "Account.deposit",
        "--condition",
        "amount === 1",
    ]);
    assert_eq!(conditional["id"], 3, "{conditional}");
    assert_eq!(conditional["condition"], "amount === 1", "{conditional}");

    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[3], APP, "deposit", "@deposit_body");
    assert_eq!(s.value_of("amount"), "1");
    // From the Nth hit on: the 3rd call, then every later one.
    for n in ["2", "3", "4"] {
        let stop = continue_to_stop(&s);
        assert_breakpoint(&stop, &[1], APP, "accumulate", "@accumulate_body");
        assert_eq!(s.value_of("n"), n);
    }
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[2], APP, "deposit", "@deposit_update");
    assert_eq!(s.value_of("amount"), "4");
    run_to_exit(&s, 3);
}

#[test]
fn breakpoints_in_a_module_required_later_are_pending_then_hit() {
    require_node();
    let s = Session::new();
    let started = s.start(
        &fixture_path(APP),
        &[
            "-b",
            &at(FORMAT, "@format_return"),
            "-b",
            "formatStep",
            "-b",
            &at(APP, "@require_format"),
        ],
    );
    let breakpoints = started["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(breakpoints.len(), 3, "{started}");
    for bp in &breakpoints[..2] {
        assert_eq!(
            bp["verified"], false,
            "lib/format.js is not loaded: {started}"
        );
        assert!(
            !bp["message"].as_str().unwrap_or("").is_empty(),
            "{started}"
        );
    }

    // Just before the require: still pending.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[3], APP, "run", "@require_format");
    for id in [1, 2] {
        let bp = listed(&s, id);
        assert_eq!(bp["verified"], false, "{bp}");
    }

    // Once required, the function breakpoint stops at the first call already, and the line
    // breakpoint after it.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[2], FORMAT, "formatStep", "@format_body");
    assert_eq!(s.value_of("step"), "0");
    assert_eq!(
        backtrace(&s),
        vec![
            frame("formatStep", FORMAT, "@format_body"),
            frame("run", APP, "@print_step"),
            frame("(anonymous)", APP, "@run_call"),
        ]
    );
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], FORMAT, "formatStep", "@format_return");
    assert_eq!(s.value_of("label"), "\"step 0\"");
    let line = listed(&s, 1);
    assert_eq!(line["verified"], true, "{line}");
    let function = listed(&s, 2);
    assert_eq!(function["verified"], true, "{function}");
    assert_eq!(
        function["resolved_line"],
        line_of(FORMAT, "@format_body"),
        "{function}"
    );

    // And again on the next call.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[2], FORMAT, "formatStep", "@format_body");
    assert_eq!(s.value_of("step"), "1");

    run_to_exit(&s, 3);
    assert_eq!(output_containing(&s, "summary:"), APP_STDOUT);
}

#[test]
fn function_breakpoint_added_once_the_module_is_loaded() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP), &["-b", &at(APP, "@print_step")]);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "run", "@print_step");
    s.data(&["breakpoint", "remove", "1"]);
    let added = s.data(&["breakpoint", "add", "formatStep"]);
    assert_eq!(added["verified"], true, "{added}");
    assert_eq!(added["resolved_line"], line_of(FORMAT, "@format_body"));
    let stop = step_with(&s, "continue");
    assert_breakpoint(&stop, &[2], FORMAT, "formatStep", "@format_body");
    assert_eq!(s.value_of("step"), "0");
    assert_eq!(s.value_of("balance"), "100");
}

#[test]
fn set_changes_a_local_that_the_program_then_uses() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP), &["-b", &at(APP, "@deposit_call")]);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "run", "@deposit_call");
    assert_eq!(s.value_of("total"), "0");

    let set = s.data(&["set", "total", "50"]);
    assert_eq!(set["value"], "50", "{set}");
    assert_eq!(set["type"], "number", "{set}");
    assert_eq!(s.value_of("total"), "50");
    // A field of an object, through an expression.
    s.data(&["set", "acct.owner", "\"bob\""]);
    assert_eq!(s.value_of("acct.owner"), "\"bob\"");

    run_to_exit(&s, 3);
    let text = output_containing(&s, "summary:");
    assert_eq!(
        text,
        "step 0: balance=100 total=50\n\
         step 1: balance=101 total=51\n\
         step 2: balance=103 total=53\n\
         step 3: balance=106 total=56\n\
         step 4: balance=110 total=60\n\
         summary: total=60\n"
    );
}

/// `locals` right after `set` shows the new value, although V8's scope objects are snapshots
/// taken at the pause.
#[test]
fn locals_show_a_value_set_while_stopped() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP), &["-b", &at(APP, "@deposit_call")]);
    continue_to_stop(&s);
    s.data(&["set", "total", "50"]);
    assert_eq!(s.value_of("total"), "50");
    let variables = locals(&s);
    assert_eq!(variable(&variables, "total")["value"], "50", "{variables}");
}

/// `step` into `require(...)` and `next` off the end of the main module never stop in Node's own
/// `node:internal` JavaScript (V8 pauses there although `^node:` is blackboxed; the adapter steps
/// on out).
#[test]
fn stepping_never_stops_in_nodes_own_javascript() {
    require_node();
    let s = Session::new();
    s.start(
        &fixture_path(APP),
        &[
            "-b",
            &at(APP, "@require_format"),
            "-b",
            &at(APP, "@exit_code"),
        ],
    );
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "run", "@require_format");
    // Into the require: through Node's loader to the program's own JavaScript (lib/format.js's
    // top level, or back in `run` should the step skip it).
    let stop = step_with(&s, "step");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(
        Path::new(file).starts_with(fixture_path("javascript")),
        "{stop}"
    );

    s.data(&["breakpoint", "remove", "1"]);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[2], APP, "(anonymous)", "@exit_code");
    // Off the end of the main module: the program ends, it does not stop in Node's loader.
    for _ in 0..3 {
        let stop = step_with(&s, "next");
        if stop["reason"] == "exited" {
            assert_eq!(stop["exit_code"], 3, "{stop}");
            return;
        }
        let file = stop["frame"]["file"].as_str().unwrap_or("");
        assert_eq!(Path::new(file), fixture_path(APP), "{stop}");
    }
    panic!("three `next`s did not end the program");
}

#[test]
fn logpoints_are_emulated_the_program_never_stops_there() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP), &["--stop-on-entry"]);
    let added = s.data(&[
        "break",
        &at(APP, "@deposit_update"),
        "--log",
        "amount={amount} before={before} bad={nosuch}",
    ]);
    let id = added["id"].as_u64().expect("id");
    // A real breakpoint after the loop still stops.
    s.data(&["break", &at(APP, "@print_step"), "--hit-count", "5"]);
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(s.value_of("i"), "4");
    let text = output_containing(&s, "step 3:");
    let logged: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("[logpoint"))
        .collect();
    let expected: Vec<String> = [100, 100, 101, 103, 106]
        .iter()
        .enumerate()
        .map(|(i, before)| {
            format!(
                "[logpoint {id}] amount={i} before={before} bad=<error: ReferenceError: nosuch is not defined>"
            )
        })
        .collect();
    assert_eq!(logged, expected, "{text}");
    // Each logged line comes before the step line the program prints for that deposit.
    let log = text.find(&expected[1]).expect("second log line");
    let step = text.find("step 1:").expect("step 1");
    assert!(log < step, "{text}");
}

#[test]
fn a_step_onto_an_emulated_logpoint_stops_there_and_logs() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP), &["-b", &at(APP, "@deposit_body")]);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "deposit", "@deposit_body");
    let added = s.data(&["break", &at(APP, "@deposit_update"), "--log", "x={amount}"]);
    let id = added["id"].as_u64().expect("id");
    // The step is the user's: it ends on the logpoint's line instead of running past it.
    let stop = step_with(&s, "next");
    assert_at(&stop, APP, "deposit", "@deposit_update");
    assert_eq!(stop["reason"], "step", "{stop}");
    output_containing(&s, &format!("[logpoint {id}] x=0"));
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "deposit", "@deposit_body");
    assert_eq!(s.value_of("amount"), "1");
}

#[test]
fn stop_on_entry_then_continue_reaches_the_breakpoint() {
    require_node();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["--stop-on-entry", "-b", "accumulate"]);
    assert_eq!(started["adapter"], "node", "{started}");
    let entry = &started["stop"];
    assert_eq!(entry["reason"], "entry", "{started}");
    assert_eq!(entry["frame"]["function"], "(anonymous)", "{started}");
    let file = entry["frame"]["file"].as_str().unwrap_or("");
    assert_eq!(Path::new(file), fixture_path(APP), "{started}");
    // Node's loader frames below the module are not shown.
    assert_eq!(backtrace(&s).len(), 1);

    // At once, with no look at the entry stop first.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "accumulate", "@accumulate_body");
    assert_eq!(s.value_of("n"), "0");
}

#[test]
fn es_module_async_function_steps_over_await() {
    require_node();
    let s = Session::new();
    let started = s.start(
        &fixture_path(TIMER),
        &["-b", "tick", "-b", &at(TIMER, "@tick_await")],
    );
    assert_eq!(started["adapter"], "node", "{started}");

    // Break by function in an ES module, then by line.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], TIMER, "tick", "@tick_body");
    assert_eq!(s.value_of("label"), "\"one\"");
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[2], TIMER, "tick", "@tick_await");
    let variables = locals(&s);
    assert_eq!(variable(&variables, "size")["value"], "3", "{variables}");
    assert_eq!(variable(&variables, "ms")["value"], "50", "{variables}");
    assert_eq!(
        backtrace(&s),
        vec![
            frame("tick", TIMER, "@tick_await"),
            frame("(anonymous)", TIMER, "@first_call"),
        ]
    );

    // `next` over the await: the timer fires, and the same call of tick goes on.
    let stop = step_with(&s, "next");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, TIMER, "tick", "@tick_after");
    let variables = locals(&s);
    assert_eq!(variable(&variables, "value")["value"], "\"one-done\"");
    assert_eq!(variable(&variables, "label")["value"], "\"one\"");
    assert_eq!(s.value_of("value.toUpperCase()"), "\"ONE-DONE\"");

    // The second call stops at the function breakpoint again.
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], TIMER, "tick", "@tick_body");
    assert_eq!(s.value_of("label"), "\"three\"");
    let text = output_containing(&s, "first:");
    assert_eq!(text, "first: one-done/3\n");

    run_to_exit(&s, 0);
    let text = output_containing(&s, "timer: done\n");
    assert_eq!(
        text,
        "first: one-done/3\nsecond: three-done/5\ntimer: done\n"
    );
}

#[test]
fn uncaught_type_error_stops_with_its_message_then_exits_1() {
    require_node();
    let s = Session::new();
    let started = s.start(&fixture_path(RAISES), &[]);
    assert_eq!(started["adapter"], "node", "{started}");

    // The caught SyntaxError does not stop; the uncaught TypeError does, where it is thrown.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_at(&stop, RAISES, "shout", "@throw_site");
    assert_eq!(stop["exception"]["type"], "TypeError", "{stop}");
    assert_eq!(stop["exception"]["message"], TYPE_ERROR, "{stop}");
    let text = s.run(&["await"]);
    assert!(
        text.ok().contains(&format!("TypeError: {TYPE_ERROR}")),
        "{}",
        text.stdout
    );
    let context = s.data(&["context"]);
    assert_eq!(context["reason"], "exception", "{context}");
    assert_eq!(context["exception"]["type"], "TypeError", "{context}");
    assert_eq!(
        backtrace(&s),
        vec![
            frame("shout", RAISES, "@throw_site"),
            frame("greet", RAISES, "@greet_call"),
            frame("main", RAISES, "@main_call"),
            frame("(anonymous)", RAISES, "@main_run"),
        ]
    );
    assert_eq!(s.value_of("record.id"), "7");
    let text = output_containing(&s, "before\n");
    assert_eq!(text, "caught: SyntaxError\nbefore\n");

    // Going on lets the error end the program, as Node does: exit code 1 and its stack trace.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 1, "{end}");
    let text = output_containing(&s, &format!("TypeError: {TYPE_ERROR}"));
    assert!(
        text.contains(&format!(
            "at shout ({}:{}",
            fixture_path(RAISES).display(),
            line_of(RAISES, "@throw_site")
        )),
        "{text}"
    );
    assert!(!text.contains("not reached"), "{text}");
    let status = s.data(&["status"]);
    assert_eq!(status["exit_code"], 1, "{status}");
}

#[test]
fn restart_runs_the_program_again_with_its_breakpoints() {
    require_node();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["-b", "accumulate"]);
    let first_pid = started["debuggee_pid"].as_u64().expect("debuggee_pid");
    continue_to_stop(&s);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "accumulate", "@accumulate_body");
    assert_eq!(s.value_of("n"), "1");

    let restarted = s.data(&["restart"]);
    assert_eq!(restarted["adapter"], "node", "{restarted}");
    assert_eq!(restarted["breakpoints"][0]["id"], 1, "{restarted}");
    let second_pid = restarted["debuggee_pid"].as_u64().expect("debuggee_pid");
    assert_ne!(first_pid, second_pid);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !gone(first_pid) {
        assert!(
            Instant::now() < deadline,
            "the first run's node {first_pid} outlived the restart"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // From the start: the first call again, which the restart answers with.
    let stop = restarted["stop"].clone();
    assert_breakpoint(&stop, &[1], APP, "accumulate", "@accumulate_body");
    assert_eq!(s.value_of("n"), "0");
    run_to_exit(&s, 3);
}

/// A program that prints 200,000 lines runs to its end with all of them in `output`: a launched
/// program's stdout is read from its pipe, and its console calls are not sent over the inspector
/// as well (which doubled them and slowed Node to a few hundred lines a second).
#[test]
fn a_flood_of_console_output_arrives_whole_and_in_order() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(CHATTY), &[]);
    let ended = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(ended["reason"], "exited", "{ended}");
    assert_eq!(ended["exit_code"], 0, "{ended}");
    let tail = s.data(&["output", "--tail", "3"])["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert_eq!(tail, "line 199998\nline 199999\nchatty: done\n", "{tail:?}");
}
