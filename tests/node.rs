//! JavaScript under the built-in `node` adapter (Node's V8 inspector): the shared per-language
//! scenario (break by line and by function, conditions, hit counts, continue, next, step, finish,
//! locals, print, set, backtrace, output, exit code) with the adapter picked from the `.js`
//! extension alone, plus what is particular to Node: breakpoints in a module `require`d later
//! (pending at start, then hit), an ES module whose `next` steps over an `await`, an uncaught
//! `TypeError`, `--stop-on-entry`, `restart`, attaching to a running Node by pid (its inspector
//! opened with SIGUSR1) and `attach --connect` to an inspector that is already listening.
//!
//! Every test fails (never skips) when `node` is missing: `.ci/run` installs it with apt.

mod common;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Session, at, fixture_path, line_of, require_node, variable};
use serde_json::{Value, json};

const APP: &str = "javascript/app.js";
const FORMAT: &str = "javascript/lib/format.js";
const TIMER: &str = "javascript/timer.mjs";
const RAISES: &str = "javascript/raises.js";
const SERVER: &str = "javascript/server.js";
const CHATTY: &str = "javascript/chatty.js";
const LOADER: &str = "javascript/loader/main.js";
const GREET_EN: &str = "javascript/plugins/en/greet.js";
const GREET_FR: &str = "javascript/plugins/fr/greet.js";
const BUNDLE_APP: &str = "javascript/bundle/main.js";
const BUNDLE: &str = "javascript/bundle/node_modules/tiny-lexer/lexer.min.js";

/// How long a `--wait` may take: generous, the machine running the suite may be busy.
const WAIT: &str = "60";

/// The stdout app.js prints, in order.
const APP_STDOUT: &str = "step 0: balance=100 total=0\n\
step 1: balance=101 total=1\n\
step 2: balance=103 total=3\n\
step 3: balance=106 total=6\n\
step 4: balance=110 total=10\n\
summary: total=10\n";

/// What the V8 inspector prints on the program's stderr: never part of `output`.
const INSPECTOR_LINES: [&str; 4] = [
    "Debugger listening on",
    "Debugger attached.",
    "Waiting for the debugger to disconnect...",
    "For help, see: https://nodejs.org",
];

/// The message of the TypeError raises.js throws.
const TYPE_ERROR: &str = "Cannot read properties of undefined (reading 'toUpperCase')";

/// The `node` the adapter would run.
fn node() -> std::path::PathBuf {
    debugger::adapters::node::find(&Default::default()).expect("node (see require_node)")
}

/// `continue --wait` and the stop it reports.
#[track_caller]
fn continue_to_stop(s: &Session) -> Value {
    step_with(s, "continue")
}

/// Runs an execution command (`continue`, `next`, `step`, `finish`) with `--wait` and returns the
/// stop.
#[track_caller]
fn step_with(s: &Session, command: &str) -> Value {
    let value = s.json(&[command, "--wait", "--timeout", WAIT]);
    assert_eq!(
        value["ok"],
        true,
        "{command} failed: {value}\nlog:\n{}",
        s.log()
    );
    value["data"]["stop"].clone()
}

/// Asserts the stop is in `function` at the line of `marker` in `fixture`.
#[track_caller]
fn assert_at(stop: &Value, fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert_eq!(Path::new(file), fixture_path(fixture), "{stop}");
}

/// Asserts a breakpoint stop at `marker` by the breakpoints `ids`.
#[track_caller]
fn assert_breakpoint(stop: &Value, ids: &[u64], fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!(ids), "{stop}");
    assert_at(stop, fixture, function, marker);
}

/// `locals` of the selected frame: its variables.
#[track_caller]
fn locals(s: &Session) -> Value {
    s.data(&["locals"])["variables"].clone()
}

/// The (function, line) of the program's frames of `backtrace`, asserting that every other
/// frame is Node's own and marked as such (`machinery`), for the text to fold.
#[track_caller]
fn backtrace(s: &Session) -> Vec<(String, u64)> {
    let bt = s.data(&["backtrace"]);
    let frames = bt["frames"].as_array().expect("frames");
    let mut programs = Vec::new();
    for frame in frames {
        let file = frame["file"].as_str().unwrap_or("");
        if frame["machinery"] == "node_internals" {
            assert!(file.starts_with("node:"), "marked but no Node frame: {bt}");
            continue;
        }
        assert!(
            file.starts_with('/') && !file.contains("node:"),
            "a frame outside the program, unmarked: {bt}"
        );
        programs.push((
            frame["function"].as_str().unwrap_or("").to_string(),
            frame["line"].as_u64().unwrap_or(0),
        ));
    }
    programs
}

/// (function, line of `marker` in `fixture`), for comparing with [`backtrace`].
fn frame(function: &str, fixture: &str, marker: &str) -> (String, u64) {
    (function.to_string(), u64::from(line_of(fixture, marker)))
}

/// The breakpoint `id` in `breakpoint list`.
#[track_caller]
fn listed(s: &Session, id: u64) -> Value {
    let list = s.data(&["breakpoint", "list"]);
    list["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("no breakpoint {id}: {list}"))
        .clone()
}

/// Polls `output` until its text contains `needle` (output may trail a stop a little), and
/// returns the text, checked to hold none of the inspector's own lines.
#[track_caller]
fn output_containing(s: &Session, needle: &str) -> String {
    let text = s.output_containing(&[needle], Duration::from_secs(30));
    for line in INSPECTOR_LINES {
        assert!(
            !text.contains(line),
            "inspector chatter in output: {text:?}"
        );
    }
    text
}

/// Runs to the end with no breakpoints left and asserts the exit code, in the stop and in
/// `status`.
#[track_caller]
fn run_to_exit(s: &Session, code: i64) {
    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(s);
    assert_eq!(end["reason"], "exited", "{end}\nlog:\n{}", s.log());
    assert_eq!(end["exit_code"], code, "{end}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], code, "{status}");
}

/// Runs `debugger ARGS...` in `dir` instead of the session's working directory.
fn run_in(s: &Session, dir: &Path, args: &[&str]) -> Run {
    let output = s
        .command()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run debugger");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Whether process `pid` is gone (or a zombie).
fn gone(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}

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

/// A `node` process the test started, killed when dropped.
struct NodeProcess {
    child: Child,
}

impl NodeProcess {
    /// Starts `node ARGS... FIXTURE` and waits for its first stdout line (server.js prints its
    /// pid once it runs, so its SIGUSR1 handler is in place by then); the rest of stdout is
    /// drained in the background.
    fn start(args: &[&str], fixture: &str) -> NodeProcess {
        let mut child = Command::new(node())
            .args(args)
            .arg(fixture_path(fixture))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn node");
        let stdout = child.stdout.take().expect("node's stdout");
        let mut process = NodeProcess { child };
        let mut reader = BufReader::new(stdout);
        let mut first = String::new();
        let read = reader.read_line(&mut first);
        assert!(
            matches!(read, Ok(n) if n > 0) && first.starts_with("pid: "),
            "node {fixture} did not start: {read:?} {first:?} (exit: {:?})",
            process.child.try_wait()
        );
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        process
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nobody listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

/// Waits until 127.0.0.1:`port` is in LISTEN state (read from /proc/net/tcp, so no probe
/// connection is made).
fn wait_until_listening(process: &mut NodeProcess, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let wanted = format!("0100007F:{port:04X}");
    loop {
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
        let listening = table.lines().skip(1).any(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.get(1) == Some(&wanted.as_str()) && fields.get(3) == Some(&"0A")
        });
        if listening {
            return;
        }
        assert!(
            process.running(),
            "node ended before its inspector listened"
        );
        assert!(
            Instant::now() < deadline,
            "node's inspector did not listen on 127.0.0.1:{port} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn attach_by_pid_breaks_in_a_running_program_and_detach_leaves_it_running() {
    require_node();
    // `--inspect-port=0`: the inspector SIGUSR1 opens takes a free port rather than 9229, which
    // something else on the machine may hold; it is found in /proc all the same.
    let mut server = NodeProcess::start(&["--inspect-port=0"], SERVER);
    let pid = server.pid().to_string();
    let s = Session::new();
    // No --adapter: /proc says the process is node.
    let attached = s.data(&["attach", &pid, "-b", "beat"]);
    assert_eq!(attached["adapter"], "node", "{attached}");
    assert_eq!(attached["debuggee_pid"], server.pid(), "{attached}");
    assert_eq!(attached["breakpoints"][0]["verified"], true, "{attached}");
    assert_eq!(
        attached["breakpoints"][0]["resolved_line"],
        line_of(SERVER, "@beat_body"),
        "{attached}"
    );

    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], SERVER, "beat", "@beat_body");
    // Only the program's frame: the timer machinery below it is Node's.
    assert_eq!(backtrace(&s), vec![frame("beat", SERVER, "@beat_body")]);
    let count: u64 = s.value_of("count").parse().expect("count is a number");
    // 0 when the stop is the first beat since node started.
    assert_eq!(s.value_of("count + 1000"), (count + 1000).to_string());
    let this = variable(&locals(&s), "this").clone();
    assert_eq!(this["type"], "Timeout", "{this}");

    // One step: count has gone up by one.
    let stop = step_with(&s, "next");
    assert_at(&stop, SERVER, "beat", "@beat_print");
    assert_eq!(s.value_of("count"), (count + 1).to_string());
    // The next beat: what this one logged while attached is in `output` (an attached
    // program's console calls are its output).
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], SERVER, "beat", "@beat_body");
    assert_eq!(s.value_of("count"), (count + 1).to_string());
    output_containing(&s, &format!("beat {}\n", count + 1));

    let detached = s.run(&["detach"]);
    detached.ok();
    std::thread::sleep(Duration::from_millis(500));
    assert!(server.running(), "node ended after detach");
    let gone = s.run(&["--json", "status"]).failure();
    assert_eq!(gone["code"], "no_session", "{gone}");
}

#[test]
fn attach_connect_to_an_inspector_without_naming_the_adapter() {
    require_node();
    let port = free_port();
    let mut server = NodeProcess::start(&[&format!("--inspect=127.0.0.1:{port}")], SERVER);
    wait_until_listening(&mut server, port);
    let s = Session::new();
    let address = format!("127.0.0.1:{port}");
    // No --adapter: the address answers as a Node inspector.
    let attached = s.data(&["attach", "--connect", &address, "-b", "beat"]);
    assert_eq!(attached["adapter"], "node", "{attached}");
    assert_eq!(attached["breakpoints"][0]["verified"], true, "{attached}");

    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], SERVER, "beat", "@beat_body");
    let count: u64 = s.value_of("count").parse().expect("count is a number");
    assert_eq!(s.value_of("count * 2"), (count * 2).to_string());

    // `stop` on an attached program releases it.
    s.run(&["stop"]).ok();
    std::thread::sleep(Duration::from_millis(500));
    assert!(server.running(), "node ended after stop");
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

/// A program started with `--inspect-brk` waits for its debugger: attaching lets it run, it does
/// not stop at its first line unasked, and a function breakpoint in a file it loads later (found
/// in the folder of its first file) stops it.
#[test]
fn attach_to_a_program_waiting_at_inspect_brk_lets_it_run_to_a_breakpoint() {
    require_node();
    let port = free_port();
    let child = Command::new(node())
        .arg(format!("--inspect-brk=127.0.0.1:{port}"))
        .arg(fixture_path(APP))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn node");
    let mut waiting = NodeProcess { child };
    wait_until_listening(&mut waiting, port);
    let s = Session::new();
    let address = format!("127.0.0.1:{port}");
    s.data(&["attach", "--connect", &address, "-b", "formatStep"]);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], FORMAT, "formatStep", "@format_body");
    s.run(&["stop"]).ok();
}

// ---- file names as typed, and functions in bundles ----------------------------------------

/// `debugger --json ARGS...` run in `dir`: its one JSON object, checked to be a success.
#[track_caller]
fn data_in(s: &Session, dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let value = run_in(s, dir, &all).json();
    assert_eq!(
        value["ok"],
        true,
        "{args:?} failed: {value}\nlog:\n{}",
        s.log()
    );
    value["data"].clone()
}

/// A fixture's path as Node names its script (symlinks resolved).
fn real_path(fixture: &str) -> String {
    let path = fixture_path(fixture);
    std::fs::canonicalize(&path)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `start javascript/app.js --break app.js:12`, typed in the folder above the program's: the bare
/// name is found among the program's scripts.
#[test]
fn a_bare_file_name_binds_from_another_folder() {
    require_node();
    let s = Session::new();
    let location = format!("app.js:{}", line_of(APP, "@deposit_update"));
    let started = data_in(
        &s,
        &fixture_path(""),
        &["start", "--no-wait", APP, "--break", &location],
    );
    assert_eq!(started["breakpoints"].as_array().map(Vec::len), Some(1));
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], APP, "deposit", "@deposit_update");
    assert_eq!(s.value_of("before"), "100");
    assert_eq!(listed(&s, 1)["verified"], true);
}

/// `--break lib/format.js:LINE` from the folder above the program's: a relative path is a suffix
/// of the script's path, bound when the module is required.
#[test]
fn a_relative_path_binds_as_a_suffix_when_its_module_loads() {
    require_node();
    let s = Session::new();
    let location = format!("lib/format.js:{}", line_of(FORMAT, "@format_return"));
    let started = data_in(
        &s,
        &fixture_path(""),
        &["start", "--no-wait", APP, "--break", &location],
    );
    let bp = &started["breakpoints"][0];
    assert_eq!(bp["verified"], false, "not required yet: {started}");
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], FORMAT, "formatStep", "@format_return");
    assert_eq!(s.value_of("label"), "\"step 0\"");
    assert_eq!(listed(&s, 1)["verified"], true);
}

/// A module `require`d from a path computed at run time, outside the program's folder: no file
/// of the name is known at start, and the breakpoint says so, then binds when the module loads.
#[test]
fn a_file_required_from_a_computed_path_binds_when_it_loads() {
    require_node();
    let s = Session::new();
    let location = format!("en/greet.js:{}", line_of(GREET_EN, "@welcome_body"));
    // As the user reads it (the program runs on at once: later, the module may have loaded).
    let started = run_in(
        &s,
        &fixture_path(""),
        &[
            "start",
            "--no-wait",
            LOADER,
            "--break",
            &location,
            "--",
            "en",
            "fr",
        ],
    );
    let line = started
        .ok()
        .lines()
        .find(|l| l.starts_with("Breakpoint 1 "))
        .unwrap_or_default();
    assert!(
        line.ends_with(
            "  pending: no script named en/greet.js has loaded yet; it binds when one does"
        ),
        "{started:?}"
    );

    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], GREET_EN, "welcome", "@welcome_body");
    assert_eq!(s.value_of("name"), "\"ada\"");
    assert_eq!(listed(&s, 1)["verified"], true);
    // fr/greet.js is another file: the program runs on to its end.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    output_containing(&s, "bonjour, ada");
}

/// A name no script had when it was set binds in the first script of that name to load, and in
/// that one only: the second greet.js, loaded just after, never stops.
#[test]
fn a_pending_name_binds_in_the_first_script_of_that_name_only() {
    require_node();
    let s = Session::new();
    let location = format!("greet.js:{}", line_of(GREET_EN, "@welcome_return"));
    data_in(
        &s,
        &fixture_path(""),
        &[
            "start",
            "--no-wait",
            LOADER,
            "--break",
            &location,
            "--",
            "en",
            "fr",
        ],
    );
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], GREET_EN, "welcome", "@welcome_return");
    assert_eq!(s.value_of("word"), "\"hello\"");
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    output_containing(&s, "bonjour, ada");
}

/// Two loaded scripts named greet.js: `greet.js:LINE` picks neither and names both; more of the
/// path picks one.
#[test]
fn a_name_two_loaded_scripts_share_names_both_and_binds_neither() {
    require_node();
    let s = Session::new();
    let loaded = format!("main.js:{}", line_of(LOADER, "@loaded"));
    data_in(
        &s,
        &fixture_path(""),
        &[
            "start",
            "--no-wait",
            LOADER,
            "--break",
            &loaded,
            "--",
            "en",
            "fr",
        ],
    );
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], LOADER, "(anonymous)", "@loaded");

    let line = line_of(GREET_EN, "@welcome_return");
    assert_eq!(line, line_of(GREET_FR, "@welcome_return"));
    let ambiguous = data_in(
        &s,
        &fixture_path(""),
        &["break", &format!("greet.js:{line}")],
    );
    assert_eq!(ambiguous["verified"], false, "{ambiguous}");
    let message = ambiguous["message"].as_str().unwrap_or("");
    let (en, fr) = (real_path(GREET_EN), real_path(GREET_FR));
    assert_eq!(
        message,
        format!(
            "2 loaded scripts are named greet.js: {en}, {fr}; give more of the path, e.g. en/greet.js"
        ),
        "{ambiguous}"
    );

    let chosen = data_in(
        &s,
        &fixture_path(""),
        &["break", &format!("fr/greet.js:{line}")],
    );
    assert_eq!(chosen["verified"], true, "{chosen}");
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[3], GREET_FR, "welcome", "@welcome_return");
    assert_eq!(s.value_of("word"), "\"bonjour\"");
    run_to_exit(&s, 0);
    let text = output_containing(&s, "bonjour, ada");
    assert!(text.contains("hello, ada"), "{text}");
}

/// Methods of a class and of an object literal, a prototype assignment and an arrow property,
/// all on the one line of a minified bundle in the program's `node_modules`, found by `break NAME`
/// before the bundle loads (the program calls into it at once), and stopped in at their bodies.
#[test]
fn methods_in_a_minified_bundle_are_found_by_name() {
    require_node();
    let s = Session::new();
    let started = data_in(
        &s,
        &fixture_path(""),
        &[
            "start",
            "--no-wait",
            BUNDLE_APP,
            "-b",
            "blockTokens",
            "-b",
            "inlineTokens",
            "-b",
            "lex",
            "-b",
            "count",
        ],
    );
    for bp in started["breakpoints"].as_array().expect("breakpoints") {
        assert!(
            bp["message"]
                .as_str()
                .is_none_or(|m| !m.contains("no function")),
            "{started}"
        );
    }
    // (breakpoint id, the function as V8 names it, an expression and its value there), in the
    // order of the calls. The prototype assignment's function is anonymous: V8 names it after
    // the minified class `n`.
    let expected = [
        (3, "n.lex", "t", "\"a b\\nc d e\""),
        (1, "blockTokens", "t.length", "9"),
        (2, "inlineTokens", "t", "\"c d e\""),
        (4, "count", "t", "\"abcd\""),
    ];
    for (id, function, expression, value) in expected {
        let stop = continue_to_stop(&s);
        assert_eq!(stop["reason"], "breakpoint", "{stop}");
        assert_eq!(stop["breakpoint_ids"], json!([id]), "{stop}");
        assert_at(&stop, BUNDLE, function, "@bundle_code");
        assert_eq!(s.value_of(expression), value, "breakpoint {id}: {stop}");
        if function == "blockTokens" {
            assert_eq!(
                backtrace(&s),
                vec![
                    frame("blockTokens", BUNDLE, "@bundle_code"),
                    frame("n.lex", BUNDLE, "@bundle_code"),
                    frame("(anonymous)", BUNDLE_APP, "@lex_call"),
                ]
            );
        }
    }
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "exited", "{stop}");
    output_containing(&s, "blocks: 2, words: 3, chars: 4");
}
