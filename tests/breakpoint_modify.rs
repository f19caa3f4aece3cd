//! `breakpoint modify` against real adapters: lldb-dap (C), debugpy (Python), Delve (Go) and the
//! node adapter (JavaScript). On each, one session changes breakpoints in place and the program's
//! next stops show the adapter got the change: a condition changed (the id kept, the next
//! `continue --wait` honouring it), a condition removed, a hit count changed, a logpoint's
//! message changed. Function breakpoints (C, Go) and line breakpoints (Python, JavaScript) both.
//! And the usage errors: an unknown id, a condition and its removal at once, nothing to change.
//!
//! Every test fails (never skips) when its adapter is missing: `.ci/run` installs them.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{
    Run, Session, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node, with_go_env,
};
use serde_json::{Value, json};

/// One fixture's names for the scenario: a function called with 0, 1, 2, 3, 4 in turn from a
/// loop in the program's main function.
struct Fixture {
    /// The fixture's file under fixtures/.
    file: &'static str,
    /// Where the first breakpoint goes: the function's name, or `None` for its first line.
    function: Option<&'static str>,
    /// The function's parameter that takes 0..4.
    parameter: &'static str,
    /// Where the first breakpoint stops (Delve stops at a function's `func` line), and a line
    /// after it in the function.
    body: Line,
    later: Line,
    /// The marker of the loop's line that calls the function, and its counter.
    loop_call: &'static str,
    counter: &'static str,
}

/// A line by its marker: the marker's, or the line before or after it.
enum Line {
    At(&'static str),
    Before(&'static str),
    After(&'static str),
}

impl Line {
    fn of(&self, file: &str) -> u32 {
        match self {
            Line::At(marker) => line_of(file, marker),
            Line::Before(marker) => line_of(file, marker) - 1,
            Line::After(marker) => line_of(file, marker) + 1,
        }
    }
}

impl Fixture {
    fn name(&self) -> &str {
        Path::new(self.file)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }

    /// `NAME:LINE`, the file named by its name alone, as a user names it.
    fn at(&self, line: u32) -> String {
        format!("{}:{line}", self.name())
    }

    fn body_line(&self) -> u32 {
        self.body.of(self.file)
    }

    fn later_line(&self) -> u32 {
        self.later.of(self.file)
    }

    fn first_breakpoint(&self) -> String {
        self.function
            .map_or_else(|| self.at(self.body_line()), str::to_string)
    }
}

/// `debugger --json ARGS` in the Go environment (for Delve's sake).
fn run(s: &Session, args: &[&str]) -> Run {
    let mut command = s.command();
    with_go_env(&mut command);
    Run::from(
        command
            .arg("--json")
            .args(args)
            .output()
            .expect("run debugger"),
    )
}

#[track_caller]
fn data(s: &Session, args: &[&str]) -> Value {
    let answer = run(s, args).json();
    assert_eq!(answer["ok"], true, "{args:?}: {answer}");
    answer["data"].clone()
}

/// `continue --wait`'s stop, checked to be breakpoint `id`'s at `line` with the parameter at
/// `value`.
#[track_caller]
fn continue_to(s: &Session, fixture: &Fixture, id: u32, line: u32, value: &str) {
    let stop = data(s, &["continue", "--wait", "--timeout", "60"])["stop"].clone();
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!([id]), "{stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
    assert_eq!(s.value_of(fixture.parameter), value, "{stop}");
}

/// The scenario, on `program` (built from `fixture`).
fn modify_in_place(program: &Path, fixture: &Fixture) {
    let s = Session::new();
    let p = fixture.parameter;
    let first = format!("{} if {p} == 1", fixture.first_breakpoint());
    let started = run(&s, &["start", path(program), "-b", &first]).json();
    assert_eq!(started["ok"], true, "{started}");
    let stop = data(&s, &["await", "--timeout", "60"]);
    assert_eq!(stop["frame"]["line"], fixture.body_line(), "{stop}");
    assert_eq!(s.value_of(p), "1");

    // The condition, changed in place: the id and the location stay.
    let changed = data(
        &s,
        &["break", "modify", "1", "--condition", &format!("{p} == 3")],
    );
    assert_eq!(changed["id"], 1, "{changed}");
    assert_eq!(changed["condition"], format!("{p} == 3"), "{changed}");
    assert_eq!(
        changed["requested"], started["data"]["breakpoints"][0]["requested"],
        "{changed}"
    );

    // A hit count, changed from one never reached to the second hit.
    let later = fixture.at(fixture.later_line());
    let added = data(&s, &["break", &later, "--hit-count", "9"]);
    assert_eq!(added["id"], 2, "{added}");
    let counted = data(&s, &["break", "modify", "2", "--hit-count", "2"]);
    assert_eq!(
        (counted["id"].clone(), counted["hit_count"].clone()),
        (json!(2), json!(2))
    );

    // A logpoint's message, changed before it logs anything.
    let counter = fixture.counter;
    let loop_line = fixture.at(line_of(fixture.file, fixture.loop_call));
    let logged = data(
        &s,
        &[
            "break",
            &loop_line,
            "--log",
            &format!("first {{{counter}}}"),
        ],
    );
    assert_eq!(logged["id"], 3, "{logged}");
    let relogged = data(
        &s,
        &[
            "break",
            "modify",
            "3",
            "--log",
            &format!("second {{{counter}}}"),
        ],
    );
    assert_eq!(
        relogged["log_message"],
        format!("second {{{counter}}}"),
        "{relogged}"
    );

    // The later line's first hit is in this call (p == 1), its second in the next.
    continue_to(&s, fixture, 2, fixture.later_line(), "2");
    data(&s, &["break", "remove", "2"]);
    // p == 2 was passed over by the changed condition.
    continue_to(&s, fixture, 1, fixture.body_line(), "3");

    // The condition removed: the next call stops.
    let cleared = data(&s, &["break", "modify", "1", "--no-condition"]);
    assert!(cleared["condition"].is_null(), "{cleared}");
    continue_to(&s, fixture, 1, fixture.body_line(), "4");

    let listed = data(&s, &["break", "list"]);
    let ids: Vec<&Value> = listed["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .map(|b| &b["id"])
        .collect();
    assert_eq!(ids, [&json!(1), &json!(3)], "{listed}");
    let output = s.output_containing(&["second 3"], Duration::from_secs(10));
    assert!(
        !output.contains("first "),
        "the old message was logged: {output}"
    );
}

fn path(program: &Path) -> &str {
    program.to_str().expect("a UTF-8 path")
}

const C: Fixture = Fixture {
    file: "c/ledger.c",
    function: Some("apply"),
    parameter: "amount",
    body: Line::At("@apply_body"),
    later: Line::At("@apply_update"),
    loop_call: "@loop_call",
    counter: "i",
};

#[test]
fn lldb_breakpoints_are_modified_in_place() {
    require_lldb_dap();
    modify_in_place(&build(C.file), &C);
}

#[test]
fn debugpy_breakpoints_are_modified_in_place() {
    require_debugpy();
    let fixture = Fixture {
        file: "python/app.py",
        function: None,
        parameter: "amount",
        body: Line::At("@deposit_body"),
        later: Line::At("@deposit_update"),
        loop_call: "@loop_call",
        counter: "i",
    };
    modify_in_place(&fixture_path(fixture.file), &fixture);
}

#[test]
fn delve_breakpoints_are_modified_in_place() {
    require_delve();
    let fixture = Fixture {
        file: "go/ledger/main.go",
        function: Some("main.add"),
        parameter: "b",
        body: Line::Before("@add_body"),
        later: Line::After("@add_body"),
        loop_call: "@loop_call",
        counter: "i",
    };
    modify_in_place(&build_go(fixture.file), &fixture);
}

#[test]
fn node_breakpoints_are_modified_in_place() {
    require_node();
    let fixture = Fixture {
        file: "javascript/app.js",
        function: None,
        parameter: "n",
        body: Line::At("@accumulate_body"),
        later: Line::At("@accumulate_return"),
        loop_call: "@loop_call",
        counter: "i",
    };
    modify_in_place(&fixture_path(fixture.file), &fixture);
}

#[test]
fn unknown_ids_both_forms_of_a_setting_and_nothing_to_change_are_refused() {
    require_lldb_dap();
    let s = Session::new();
    let started = s.start(&build(C.file), &["--stop-on-entry", "-b", "apply"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");

    let unknown = s.run(&[
        "--json",
        "break",
        "modify",
        "1",
        "7",
        "--condition",
        "amount > 1",
    ]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    let error = unknown.failure();
    assert_eq!(error["code"], "not_found", "{error}");
    assert!(
        error["message"].as_str().is_some_and(|m| m.contains('7')),
        "{error}"
    );

    for (set, clear) in [
        (["--condition", "amount > 1"], "--no-condition"),
        (["--hit-count", "2"], "--no-hit-count"),
        (["--log", "x"], "--no-log"),
    ] {
        let both = s.run(&["break", "modify", "1", set[0], set[1], clear]);
        assert_eq!(both.code, 2, "{both:?}");
        assert!(
            both.stderr.contains(set[0]) && both.stderr.contains(clear),
            "{}",
            both.stderr
        );
    }
    let nothing = s.run(&["--json", "break", "modify", "1"]);
    assert_eq!(nothing.code, 2, "{nothing:?}");
    assert!(
        nothing.failure()["message"]
            .as_str()
            .is_some_and(|m| m.contains("nothing to change")),
        "{nothing:?}"
    );
    let empty = s.run(&["--json", "break", "modify", "1", "--condition", " "]);
    assert_eq!(empty.failure()["hint"], "--no-condition removes it");

    // None of it changed breakpoint 1; the change that was refused for 7 was not made to 1.
    let listed = s.data(&["break", "list"]);
    assert_eq!(listed["breakpoints"][0]["id"], 1, "{listed}");
    assert!(listed["breakpoints"][0]["condition"].is_null(), "{listed}");
    assert_eq!(listed["breakpoints"].as_array().map(Vec::len), Some(1));

    // A watchpoint takes a condition but no log message.
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    let watch = s.data(&["watch", "g_counter"]);
    let id = watch["id"].to_string();
    let logged = s.run(&["--json", "break", "modify", &id, "--log", "x"]);
    assert_eq!(logged.code, 2, "{logged:?}");
    let conditioned = s.data(&["break", "modify", &id, "--condition", "g_counter > 3"]);
    assert_eq!(conditioned["condition"], "g_counter > 3", "{conditioned}");
}
