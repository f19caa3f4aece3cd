//! Breakpoints against real lldb-dap: every kind of location, conditions and hit counts, the
//! registry's stable ids across the re-sends that removal needs, enable/disable, the aliases, and
//! the errors users see for bad ids and bad location text.

mod common;

use std::path::Path;

use common::{Session, build, fixture_path, line_of, require_lldb_dap};
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

/// Starts ledger stopped at its entry point, so breakpoints can be added before any code runs.
fn ledger_at_entry() -> Session {
    let s = Session::new();
    let started = s.start(&build(LEDGER), &["--stop-on-entry"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");
    s
}

/// `continue --wait` and the stop it reports.
#[track_caller]
fn continue_to_stop(s: &Session) -> Value {
    let data = s.data(&["continue", "--wait", "--timeout", "10"]);
    data["stop"].clone()
}

/// Asserts a stop is a breakpoint hit of `ids` at `function`, `line`.
#[track_caller]
fn assert_breakpoint_stop(stop: &Value, ids: &[u32], function: &str, line: u32) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!(ids), "{stop}");
    let name = stop["frame"]["function"].as_str().unwrap_or("");
    assert!(name.contains(function), "expected {function}: {stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
}

/// Runs `debugger --json ARGS` from `dir` (the caller's working directory) and parses stdout.
fn json_in(s: &Session, dir: &Path, args: &[&str]) -> Value {
    let output = s
        .command()
        .current_dir(dir)
        .arg("--json")
        .args(args)
        .output()
        .expect("run debugger");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON object ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The ids `breakpoint list` shows, in order.
fn listed_ids(s: &Session) -> Vec<u64> {
    s.data(&["breakpoint", "list"])["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .map(|bp| bp["id"].as_u64().expect("id"))
        .collect()
}

#[test]
fn line_breakpoint_with_an_absolute_path_stops_on_that_line() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let line = line_of(LEDGER, "@apply_update");
    let added = s.data(&["breakpoint", "add", &ledger_at("@apply_update")]);
    assert_eq!(added["id"], 1, "{added}");
    assert_eq!(added["verified"], true, "{added}");
    assert_eq!(added["line"], line, "{added}");

    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[1], "apply", line);
    assert!(
        stop["frame"]["file"]
            .as_str()
            .unwrap_or("")
            .ends_with("ledger.c"),
        "{stop}"
    );
    assert_eq!(s.value_of("amount"), "0");
}

#[test]
fn line_breakpoint_relative_to_the_callers_directory() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let source = fixture_path(LEDGER);
    let square = line_of(LEDGER, "@square_body");
    let update = line_of(LEDGER, "@apply_update");

    // `ledger.c:N` from fixtures/c, and `c/ledger.c:N` from fixtures: both name the same file,
    // which the CLI makes absolute against its own directory, not the daemon's.
    let from_c = json_in(
        &s,
        &fixture_path("c"),
        &["breakpoint", "add", &format!("ledger.c:{square}")],
    );
    assert_eq!(from_c["ok"], true, "{from_c}");
    assert_eq!(from_c["data"]["verified"], true, "{from_c}");
    assert_eq!(
        from_c["data"]["file"],
        source.display().to_string(),
        "{from_c}"
    );

    let from_fixtures = json_in(
        &s,
        &fixture_path(""),
        &["breakpoint", "add", &format!("c/ledger.c:{update}")],
    );
    assert_eq!(from_fixtures["ok"], true, "{from_fixtures}");
    assert_eq!(from_fixtures["data"]["verified"], true, "{from_fixtures}");
    assert_eq!(
        from_fixtures["data"]["file"],
        source.display().to_string(),
        "{from_fixtures}"
    );

    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "square", square);
    assert_breakpoint_stop(&continue_to_stop(&s), &[2], "apply", update);
}

#[test]
fn function_breakpoint_on_a_c_function() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let body = line_of(LEDGER, "@apply_body");
    let added = s.data(&["breakpoint", "add", "apply"]);
    assert_eq!(added["verified"], true, "{added}");
    assert_eq!(added["function"], "apply", "{added}");

    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "apply", body);
    assert_eq!(s.value_of("amount"), "0");
    // A function breakpoint stops on every call.
    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "apply", body);
    assert_eq!(s.value_of("amount"), "1");
}

#[test]
fn function_breakpoints_on_a_cpp_namespace_function_and_a_method() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("cpp/shapes.cpp"), &["--stop-on-entry"]);
    let scale = s.data(&["breakpoint", "add", "geo::scale"]);
    assert_eq!(scale["verified"], true, "{scale}");
    let area = s.data(&["breakpoint", "add", "Rectangle::area"]);
    assert_eq!(area["verified"], true, "{area}");

    let area_line = line_of("cpp/shapes.cpp", "@area_body");
    let scale_line = line_of("cpp/shapes.cpp", "@scale_body");
    // main calls area(), then geo::scale(), then area() again.
    assert_breakpoint_stop(&continue_to_stop(&s), &[2], "Rectangle::area", area_line);
    assert_eq!(s.value_of("width"), "3");
    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "geo::scale", scale_line);
    assert_eq!(s.value_of("factor"), "2");
    assert_breakpoint_stop(&continue_to_stop(&s), &[2], "Rectangle::area", area_line);
    assert_eq!(s.value_of("width"), "6");
}

#[test]
fn function_breakpoint_on_a_rust_method() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("rust/counter.rs"), &["--stop-on-entry"]);
    let added = s.data(&["breakpoint", "add", "counter::Counter::bump"]);
    assert_eq!(added["verified"], true, "{added}");

    let line = line_of("rust/counter.rs", "@bump_body");
    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "Counter::bump", line);
    assert_eq!(s.value_of("by"), "1");
    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "Counter::bump", line);
    assert_eq!(s.value_of("by"), "2");
}

#[test]
fn condition_stops_only_when_it_holds() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let added = s.data(&["breakpoint", "add", "apply", "--condition", "amount == 3"]);
    assert_eq!(added["condition"], "amount == 3", "{added}");

    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[1], "apply", line_of(LEDGER, "@apply_body"));
    assert_eq!(s.value_of("amount"), "3");
    // amount 4 does not satisfy it: the program runs to its end.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
}

#[test]
fn hit_count_stops_first_on_the_nth_hit() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let added = s.data(&[
        "breakpoint",
        "add",
        &ledger_at("@apply_update"),
        "--hit-count",
        "3",
    ]);
    assert_eq!(added["hit_count"], 3, "{added}");

    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[1], "apply", line_of(LEDGER, "@apply_update"));
    // Hits are amount 0, 1, 2: the third is amount 2.
    assert_eq!(s.value_of("amount"), "2");
}

#[test]
fn list_shows_location_condition_hit_count_enabled_and_verified() {
    require_lldb_dap();
    let s = ledger_at_entry();
    s.data(&["breakpoint", "add", "apply", "--condition", "amount == 3"]);
    s.data(&[
        "breakpoint",
        "add",
        &ledger_at("@square_body"),
        "--hit-count",
        "2",
    ]);
    let pending = s.data(&["breakpoint", "add", "nosuch.c:5"]);
    assert_eq!(pending["verified"], false, "{pending}");
    s.data(&["breakpoint", "disable", "2"]);

    let list = s.data(&["breakpoint", "list"]);
    let bps = list["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(bps.len(), 3, "{list}");

    assert_eq!(bps[0]["id"], 1);
    assert_eq!(bps[0]["location"], "apply");
    assert_eq!(bps[0]["function"], "apply");
    assert_eq!(bps[0]["condition"], "amount == 3");
    assert_eq!(bps[0]["hit_count"], Value::Null);
    assert_eq!(bps[0]["enabled"], true);
    assert_eq!(bps[0]["verified"], true);

    assert_eq!(bps[1]["id"], 2);
    assert_eq!(bps[1]["line"], line_of(LEDGER, "@square_body"));
    assert_eq!(bps[1]["condition"], Value::Null);
    assert_eq!(bps[1]["hit_count"], 2);
    assert_eq!(bps[1]["enabled"], false);

    assert_eq!(bps[2]["id"], 3);
    assert_eq!(bps[2]["location"], "nosuch.c:5");
    assert_eq!(bps[2]["enabled"], true);
    assert_eq!(bps[2]["verified"], false, "{list}");

    // The text list: one line each, naming the state, the condition and the hit count.
    let text = s.run(&["breakpoint", "list"]);
    let lines: Vec<&str> = text.ok().lines().collect();
    assert_eq!(lines.len(), 3, "{}", text.stdout);
    assert!(
        lines[0].contains("apply")
            && lines[0].contains("verified")
            && lines[0].contains("amount == 3"),
        "{}",
        text.stdout
    );
    assert!(
        lines[1].contains("ledger.c")
            && lines[1].contains("disabled")
            && lines[1].contains("hit 2"),
        "{}",
        text.stdout
    );
    assert!(
        lines[2].contains("nosuch.c:5") && lines[2].contains("pending"),
        "{}",
        text.stdout
    );
}

#[test]
fn ids_stay_stable_when_another_breakpoint_is_removed() {
    require_lldb_dap();
    let s = ledger_at_entry();
    for marker in ["@square_body", "@apply_body", "@apply_update"] {
        s.data(&["breakpoint", "add", &ledger_at(marker)]);
    }
    // Removing 2 re-sends the file's other breakpoints to the adapter; ours keep their ids.
    let removed = s.data(&["breakpoint", "remove", "2"]);
    assert_eq!(removed["removed"], serde_json::json!([2]), "{removed}");
    assert_eq!(listed_ids(&s), vec![1, 3]);
    // A new breakpoint gets a fresh id, never a removed one.
    let added = s.data(&["breakpoint", "add", &ledger_at("@after_loop")]);
    assert_eq!(added["id"], 4, "{added}");

    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[1],
        "square",
        line_of(LEDGER, "@square_body"),
    );
    // Not at @apply_body (removed), but at 3, still reported as 3.
    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[3],
        "apply",
        line_of(LEDGER, "@apply_update"),
    );
}

#[test]
fn remove_all_clears_every_breakpoint() {
    require_lldb_dap();
    let s = ledger_at_entry();
    s.data(&["breakpoint", "add", "apply"]);
    s.data(&["breakpoint", "add", &ledger_at("@square_body")]);
    let removed = s.data(&["breakpoint", "remove", "--all"]);
    assert_eq!(removed["removed"], serde_json::json!([1, 2]), "{removed}");
    assert!(listed_ids(&s).is_empty());
    assert_eq!(s.run(&["breakpoint", "list"]).ok(), "No breakpoints\n");

    // Nothing stops the program any more.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
}

#[test]
fn disabled_breakpoint_does_not_stop_and_reenabled_one_does() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let update = line_of(LEDGER, "@apply_update");
    let call = line_of(LEDGER, "@loop_call");
    s.data(&["breakpoint", "add", &ledger_at("@apply_update")]);
    s.data(&["breakpoint", "add", &ledger_at("@loop_call")]);

    let disabled = s.data(&["breakpoint", "disable", "1"]);
    assert_eq!(disabled["breakpoints"][0]["enabled"], false, "{disabled}");
    // Two laps of the loop pass @apply_update without stopping there.
    assert_breakpoint_stop(&continue_to_stop(&s), &[2], "main", call);
    assert_breakpoint_stop(&continue_to_stop(&s), &[2], "main", call);
    assert_eq!(s.value_of("i"), "1");

    let enabled = s.data(&["breakpoint", "enable", "1"]);
    assert_eq!(enabled["breakpoints"][0]["enabled"], true, "{enabled}");
    assert_breakpoint_stop(&continue_to_stop(&s), &[1], "apply", update);
    assert_eq!(s.value_of("amount"), "1");
    let listed = s.data(&["breakpoint", "list"]);
    assert_eq!(listed["breakpoints"][0]["verified"], true, "{listed}");
}

#[test]
fn removing_an_unknown_id_fails_naming_it() {
    require_lldb_dap();
    let s = ledger_at_entry();
    s.data(&["breakpoint", "add", "apply"]);

    let run = s.run(&["--json", "breakpoint", "remove", "7"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "not_found", "{error}");
    assert!(
        error["message"].as_str().unwrap_or("").contains('7'),
        "{error}"
    );
    assert!(!error["hint"].as_str().unwrap_or("").is_empty(), "{error}");

    let text = s.run(&["breakpoint", "remove", "7"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stderr.contains("error: no breakpoint 7"),
        "{}",
        text.stderr
    );
    assert!(text.stderr.contains("hint: "), "{}", text.stderr);
    // The existing breakpoint is untouched.
    assert_eq!(listed_ids(&s), vec![1]);
}

#[test]
fn break_and_b_aliases_and_the_shorthand_add_breakpoints() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let a = s.data(&["break", "add", &ledger_at("@square_body")]);
    let b = s.data(&["b", "add", "apply", "--condition", "amount == 2"]);
    // `debugger break FILE:LINE` and `debugger b LOC` add without the `add` word.
    let c = s.data(&["break", &ledger_at("@after_loop")]);
    let d = s.data(&["b", "main"]);
    let ids: Vec<&Value> = vec![&a["id"], &b["id"], &c["id"], &d["id"]];
    assert_eq!(ids, vec![1, 2, 3, 4], "{a} {b} {c} {d}");
    assert_eq!(b["condition"], "amount == 2", "{b}");
    assert_eq!(c["line"], line_of(LEDGER, "@after_loop"), "{c}");
    assert_eq!(d["function"], "main", "{d}");

    // `b` alone lists, as does `b list`.
    let listed = s.data(&["b"]);
    assert_eq!(listed["breakpoints"].as_array().map(Vec::len), Some(4));
    s.data(&["b", "remove", "4"]);
    assert_eq!(listed_ids(&s), vec![1, 2, 3]);

    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[1],
        "square",
        line_of(LEDGER, "@square_body"),
    );
    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[2],
        "apply",
        line_of(LEDGER, "@apply_body"),
    );
    assert_eq!(s.value_of("amount"), "2");
}

#[test]
fn start_breakpoints_are_applied_before_the_program_runs() {
    require_lldb_dap();
    let s = Session::new();
    let square = ledger_at("@square_body");
    let started = s.start(&build(LEDGER), &["--break", "apply", "-b", &square]);
    let bps = started["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(bps.len(), 2, "{started}");
    assert!(bps.iter().all(|bp| bp["verified"] == true), "{started}");

    // square runs first thing in main: it is only caught if the breakpoint was there already.
    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[2],
        "square",
        line_of(LEDGER, "@square_body"),
    );
    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[1],
        "apply",
        line_of(LEDGER, "@apply_body"),
    );
    assert_eq!(s.value_of("amount"), "0");
}

#[test]
fn breakpoint_added_while_stopped_applies_at_once() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["--break", "apply"]);
    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[1],
        "apply",
        line_of(LEDGER, "@apply_body"),
    );

    let added = s.data(&["breakpoint", "add", &ledger_at("@after_loop")]);
    assert_eq!(added["verified"], true, "{added}");
    s.data(&["breakpoint", "remove", "1"]);
    assert_breakpoint_stop(
        &continue_to_stop(&s),
        &[2],
        "main",
        line_of(LEDGER, "@after_loop"),
    );
    assert_eq!(s.value_of("total"), "10");
}

#[test]
fn invalid_location_text_is_a_usage_error() {
    require_lldb_dap();
    let s = ledger_at_entry();
    for bad in ["file.c:", ":10", "ledger.c:0"] {
        let run = s.run(&["--json", "breakpoint", "add", bad]);
        assert_eq!(run.code, 2, "{bad}: {run:?}");
        let error = run.failure();
        assert_eq!(error["code"], "usage", "{bad}: {error}");
        assert!(
            !error["hint"].as_str().unwrap_or("").is_empty(),
            "{bad}: {error}"
        );
    }
    let text = s.run(&["b", "file.c:"]);
    assert_eq!(text.code, 2);
    assert!(
        text.stderr.contains("error: invalid breakpoint location"),
        "{}",
        text.stderr
    );
    assert!(listed_ids(&s).is_empty(), "nothing was added");
}

/// Location texts that name a file but no usable line, or a line but no file.
const BAD_FORMS: [&str; 8] = [
    "ledger.c:-3",
    "ledger.c:abc",
    "ledger.c:0",
    "ledger.c:1.5",
    "c/ledger.c:x",
    "ledger.c:",
    ":5",
    ":abc",
];

/// Asserts `run` is the usage error for a bad location, in `--json` or text form.
#[track_caller]
fn assert_bad_location(bad: &str, json: bool, run: &common::Run) {
    assert_eq!(run.code, 2, "{bad}: {run:?}");
    if json {
        let error = run.failure();
        assert_eq!(error["code"], "usage", "{bad}: {error}");
        let message = error["message"].as_str().unwrap_or("");
        assert!(
            message.contains(bad.trim_end_matches(':')),
            "{bad}: {error}"
        );
    } else {
        assert!(
            run.stderr
                .starts_with("error: invalid breakpoint location: "),
            "{bad}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("\nhint: "), "{bad}: {}", run.stderr);
    }
}

#[test]
fn bad_lines_and_empty_files_are_usage_errors_that_add_nothing() {
    require_lldb_dap();
    let s = ledger_at_entry();
    s.data(&["break", "apply"]);
    for bad in BAD_FORMS {
        assert_bad_location(bad, true, &s.run(&["--json", "break", bad]));
        assert_bad_location(bad, false, &s.run(&["break", bad]));
        assert_bad_location(bad, true, &s.run(&["--json", "breakpoint", "add", bad]));
    }
    let run = s.run(&["--json", "break", "ledger.c:-3"]);
    let message = run.failure()["message"].as_str().unwrap_or("").to_string();
    assert!(
        message.contains("must be a positive whole number, not '-3'"),
        "{message}"
    );
    // Nothing reached the adapter: the one good breakpoint is all there is.
    let listed = s.data(&["breakpoint", "list"]);
    let breakpoints = listed["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(breakpoints.len(), 1, "{listed}");
    assert_eq!(breakpoints[0]["function"], "apply", "{listed}");
    // Names with `::` and `.` are still functions.
    for name in ["ns::apply", "<T as Trait>::apply", "main.apply"] {
        let added = s.data(&["break", name]);
        assert_eq!(added["function"], name, "{added}");
    }
}

#[test]
fn start_with_a_bad_break_location_is_a_usage_error_and_starts_nothing() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(LEDGER);
    let program = program.to_str().expect("utf-8 path");
    for bad in BAD_FORMS {
        let json = s.run(&[
            "--json", "start", program, "--break", "apply", "--break", bad,
        ]);
        assert_bad_location(bad, true, &json);
        assert_bad_location(bad, false, &s.run(&["start", program, "-b", bad]));
    }
    // No daemon was ever asked: there is no session, so no breakpoint either.
    assert_eq!(s.run(&["status"]).code, 4);
    assert_eq!(s.run(&["breakpoint", "list"]).code, 4);
}

#[test]
fn a_subcommand_word_alone_is_a_function_of_that_name() {
    require_lldb_dap();
    const VERBS: &str = "c/verbs.c";
    let s = Session::new();
    let started = s.start(&build(VERBS), &["--stop-on-entry"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");

    // `break add` breaks on the program's `add`, as `break add add` (the explicit form) does;
    // `b disable` on `disable`, in text too.
    let add = s.data(&["break", "add"]);
    assert_eq!(add["function"], "add", "{add}");
    assert_eq!(add["verified"], true, "{add}");
    let again = s.data(&["breakpoint", "add", "add"]);
    assert_eq!(again["function"], "add", "{again}");
    let text = s.run(&["b", "disable"]);
    assert!(text.ok().starts_with("Breakpoint 3 "), "{text:?}");
    assert!(text.stdout.contains("disable"), "{text:?}");
    // `list` alone still lists, and an id after `remove` still removes.
    let listed = s.data(&["b", "list"]);
    assert_eq!(
        listed["breakpoints"].as_array().map(Vec::len),
        Some(3),
        "{listed}"
    );
    s.data(&["break", "remove", "2"]);
    assert_eq!(listed_ids(&s), vec![1, 3]);

    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[1], "add", line_of(VERBS, "@add_body"));
    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[3], "disable", line_of(VERBS, "@disable_body"));
}

#[test]
fn text_output_of_a_breakpoint_stop_has_a_headline_and_a_source_arrow() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let added = s.run(&["breakpoint", "add", "apply"]);
    assert!(added.ok().starts_with("Breakpoint 1 "), "{}", added.stdout);

    let line = line_of(LEDGER, "@apply_body");
    let run = s.run(&["continue", "--wait"]);
    let text = run.ok();
    let headline = text.lines().next().unwrap_or("");
    assert!(
        headline.starts_with(&format!(
            "Stopped at breakpoint 1 in apply (ledger.c:{line})"
        )),
        "{text}"
    );
    // The current line is marked with an arrow and shown with its number and text.
    let arrow = text
        .lines()
        .find(|l| l.starts_with("->"))
        .unwrap_or_else(|| panic!("no arrow line: {text}"));
    assert!(arrow.contains(&format!("{line} |")), "{text}");
    assert!(arrow.contains("@apply_body"), "{text}");
    assert!(
        text.lines().count() >= 4,
        "source context around it: {text}"
    );
}

#[test]
fn a_function_breakpoint_set_twice_leaves_the_others_intact() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    let twin = s.data(&["break", "apply"]);
    assert_eq!(twin["verified"], true, "{twin}");
    for name in ["main", "square"] {
        let added = s.data(&["break", name]);
        assert_eq!(added["verified"], true, "{added}");
    }
    let list = s.data(&["breakpoint", "list"]);
    let all_verified = list["breakpoints"]
        .as_array()
        .is_some_and(|bps| bps.len() == 4 && bps.iter().all(|b| b["verified"] == true));
    assert!(all_verified, "{list}");
}

#[test]
fn several_locations_in_one_add_go_to_the_adapter_together() {
    require_lldb_dap();
    let s = ledger_at_entry();
    let requests_before = s.log().matches("command=\"setBreakpoints\"").count();
    let added = s.data(&[
        "breakpoint",
        "add",
        &ledger_at("@apply_body"),
        &ledger_at("@apply_update"),
        &ledger_at("@loop_call"),
        "square",
        "--condition",
        "1",
    ]);
    let breakpoints = added["breakpoints"].as_array().expect("a list");
    let ids: Vec<u64> = breakpoints
        .iter()
        .filter_map(|b| b["id"].as_u64())
        .collect();
    assert_eq!(ids, vec![1, 2, 3, 4], "{added}");
    for bp in breakpoints {
        assert_eq!(bp["verified"], true, "{bp}");
        assert_eq!(bp["condition"], "1", "{bp}");
    }
    // The three lines of one file went in one setBreakpoints.
    let requests = s.log().matches("command=\"setBreakpoints\"").count() - requests_before;
    assert_eq!(
        requests,
        2,
        "a request and its response in the log:\n{}",
        s.log()
    );
    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[4], "square", line_of(LEDGER, "@square_body"));
    let stop = continue_to_stop(&s);
    assert_breakpoint_stop(&stop, &[3], "main", line_of(LEDGER, "@loop_call"));

    // In text, a line per breakpoint; one bad location adds none.
    let text = s.run(&[
        "break",
        &ledger_at("@after_loop"),
        &ledger_at("@return_main"),
    ]);
    assert_eq!(text.ok().lines().count(), 2, "{text:?}");
    let bad = s.run(&["--json", "break", &ledger_at("@after_loop"), "ledger.c:"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert_eq!(listed_ids(&s), vec![1, 2, 3, 4, 5, 6]);
}
