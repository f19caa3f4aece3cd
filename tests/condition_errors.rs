//! Breakpoint conditions that fail, on every built-in adapter: lldb-dap and GDB (C), debugpy and
//! our pdb (Python), Delve (Go) and our node adapter (JavaScript).
//!
//! - A condition the adapter cannot evaluate stops the program at that hit, and the report says
//!   why (`condition_error`), at every hit until `breakpoint modify` fixes it.
//! - A condition that does not compile is refused when it is set (`start -b`, `break`,
//!   `breakpoint modify`, `probe -b`), as a usage error naming the breakpoint and the adapter's
//!   words, where the adapter compiles it then (GDB, Delve, pdb, node); elsewhere (lldb,
//!   debugpy) it stops the program as a failing condition does.
//! - A breakpoint said to be pending is verified once the program stops there.
//!
//! Each runs from a folder that is not the program's, and fails (never skips) when its adapter
//! is missing: `.ci/run` installs them.

mod common;

use std::path::{Path, PathBuf};

use common::{
    Run, Session, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node, require_python, with_go_env,
};
use serde_json::{Value, json};

/// One adapter's case: a function called with 0, 1, 2, 3, 4 in turn, a line in it, and
/// conditions in the program's language.
struct Case {
    session: fn() -> Session,
    program: PathBuf,
    /// `--adapter NAME`, where the program's language would pick another.
    adapter: &'static [&'static str],
    /// The fixture file and the marker of the line in the function.
    file: &'static str,
    marker: &'static str,
    /// The function's parameter that takes 0..4.
    parameter: &'static str,
    /// A condition that compiles but cannot be evaluated, and a part of the adapter's error.
    raising: &'static str,
    raising_error: &'static str,
    /// A condition that does not compile, and a part of the adapter's error when it refuses it
    /// where it is set (`None`: it is evaluated only at the hit, and fails there).
    bad: &'static str,
    refused: Option<&'static str>,
}

impl Case {
    /// `NAME:LINE` of the line in the function, the file by its name alone, as a user names it.
    fn location(&self) -> String {
        self.line_of(self.marker)
    }

    /// `NAME:LINE` of the line that calls the function (`@loop_call` in each fixture): another
    /// place, as Delve takes one breakpoint per line.
    fn caller(&self) -> String {
        self.line_of("@loop_call")
    }

    fn line_of(&self, marker: &str) -> String {
        let name = Path::new(self.file)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a file name");
        format!("{name}:{}", line_of(self.file, marker))
    }

    fn with_condition(&self, condition: &str) -> String {
        format!("{} if {condition}", self.location())
    }

    fn program(&self) -> &str {
        self.program.to_str().expect("a UTF-8 path")
    }

    /// `debugger ARGS` in the Go environment (for Delve's sake), from the session's folder.
    fn run(&self, s: &Session, args: &[&str]) -> Run {
        let mut command = s.command();
        with_go_env(&mut command);
        Run::from(command.args(args).output().expect("run debugger"))
    }

    #[track_caller]
    fn data(&self, s: &Session, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let answer = self.run(s, &all).json();
        assert_eq!(answer["ok"], true, "{args:?}: {answer}");
        answer["data"].clone()
    }

    /// Starts the program with `breakpoints` (`-b` each), answering at once.
    #[track_caller]
    fn start(&self, s: &Session, breakpoints: &[&str]) -> Run {
        let mut args = vec!["--json", "start", "--no-wait", self.program()];
        args.extend_from_slice(self.adapter);
        for breakpoint in breakpoints {
            args.extend(["-b", breakpoint]);
        }
        self.run(s, &args)
    }

    /// `probe PROGRAM -b BREAKPOINT --hits 1`.
    fn probe(&self, s: &Session, breakpoint: &str) -> Run {
        let mut args = vec!["--json", "probe", self.program()];
        args.extend_from_slice(self.adapter);
        args.extend(["-b", breakpoint, "--hits", "1", "--timeout", "60"]);
        self.run(s, &args)
    }

    /// The stop of `continue --wait`, or of `await` for the first.
    #[track_caller]
    fn next_stop(&self, s: &Session, first: bool) -> Value {
        match first {
            true => self.data(s, &["await", "--timeout", "60"]),
            false => self.data(s, &["continue", "--wait", "--timeout", "60"])["stop"].clone(),
        }
    }
}

/// Checks that `stop` is breakpoint 1's, with `condition` failed for the adapter's `error`.
#[track_caller]
fn failed_at(stop: &Value, condition: &str, error: &str) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!([1]), "{stop}");
    let said = stop["condition_error"].as_str().unwrap_or_default();
    assert!(
        said.starts_with(&format!("condition '{condition}' failed: ")) && said.contains(error),
        "{stop}"
    );
}

/// Checks that `run` is the usage error refusing `condition` for the adapter's `error`, naming
/// the breakpoint as `which`.
#[track_caller]
fn refused(run: &Run, condition: &str, which: &str, error: &str) {
    assert_eq!(run.code, 2, "{run:?}");
    let failure = run.failure();
    assert_eq!(failure["code"], "usage", "{failure}");
    let message = failure["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "the condition '{condition}' of {which} does not compile: "
        )) && message.contains(error),
        "{failure}"
    );
}

/// The scenario on one adapter (see the module's doc).
fn conditions_fail_loudly(case: &Case) {
    let s = (case.session)();
    let parameter = case.parameter;

    // A condition that does not compile.
    let bad = case.with_condition(case.bad);
    match case.refused {
        Some(error) => {
            let which = format!("breakpoint 1 ({})", case.location());
            refused(&case.start(&s, &[&bad]), case.bad, &which, error);
            refused(&case.probe(&s, &bad), case.bad, &which, error);
        }
        None => {
            let started = case.start(&s, &[&bad]);
            assert_eq!(started.json()["ok"], true, "{started:?}");
            failed_at(&case.next_stop(&s, true), case.bad, "");
            case.run(&s, &["stop"]);
        }
    }

    // A condition that cannot be evaluated: it stops at each hit, and says why.
    let raising = case.with_condition(case.raising);
    let started = case.start(&s, &[&raising]);
    assert_eq!(started.json()["ok"], true, "{started:?}");
    let first = case.next_stop(&s, true);
    failed_at(&first, case.raising, case.raising_error);
    let text = case.run(&s, &["continue", "--wait", "--timeout", "60"]);
    assert!(
        text.ok()
            .contains(&format!("condition '{}' failed: ", case.raising))
            && text
                .ok()
                .contains("'debugger breakpoint modify 1 --condition EXPR'"),
        "{text:?}"
    );
    assert_eq!(s.value_of(parameter), "1", "the second hit stopped too");
    let listed = case.data(&s, &["break", "list"]);
    assert_eq!(listed["breakpoints"][0]["verified"], true, "{listed}");

    if let Some(error) = case.refused {
        // Refused at `break` and `breakpoint modify` too, which leave nothing changed.
        let added = case.run(
            &s,
            &["--json", "break", &case.caller(), "--condition", case.bad],
        );
        refused(&added, case.bad, &case.caller(), error);
        let modified = case.run(
            &s,
            &["--json", "break", "modify", "1", "--condition", case.bad],
        );
        let which = format!("breakpoint 1 ({})", case.location());
        refused(&modified, case.bad, &which, error);
        let listed = case.data(&s, &["break", "list"]);
        assert_eq!(listed["breakpoints"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            listed["breakpoints"][0]["condition"], case.raising,
            "{listed}"
        );
    }

    // Fixed in place: the next stop is where it holds, with no error.
    let fixed = format!("{parameter} == 3");
    case.data(&s, &["break", "modify", "1", "--condition", &fixed]);
    let stop = case.next_stop(&s, false);
    assert_eq!(stop["breakpoint_ids"], json!([1]), "{stop}");
    assert!(stop["condition_error"].is_null(), "{stop}");
    assert_eq!(s.value_of(parameter), "3");
    case.run(&s, &["stop"]);

    // A probe records the hit, with the error.
    let probed = case.probe(&s, &raising).json();
    assert_eq!(probed["ok"], true, "{probed}");
    failed_at(
        &probed["data"]["hits"][0]["stop"],
        case.raising,
        case.raising_error,
    );
}

#[test]
fn lldb_stops_where_a_condition_fails() {
    require_lldb_dap();
    conditions_fail_loudly(&Case {
        session: Session::new,
        program: build("c/ledger.c"),
        adapter: &[],
        file: "c/ledger.c",
        marker: "@apply_body",
        parameter: "amount",
        raising: "nosuch > 3",
        raising_error: "undeclared identifier 'nosuch'",
        bad: "amount ==",
        refused: None,
    });
}

#[test]
fn gdb_stops_where_a_condition_fails_and_refuses_one_that_does_not_compile() {
    conditions_fail_loudly(&Case {
        session: Session::with_gdb,
        program: build("c/ledger.c"),
        adapter: &["--adapter", "gdb"],
        file: "c/ledger.c",
        marker: "@apply_body",
        parameter: "amount",
        raising: "*(long *)0 == amount",
        raising_error: "Cannot access memory at address 0x0",
        bad: "nosuch == amount",
        refused: Some("No symbol \"nosuch\" in current context."),
    });
}

#[test]
fn debugpy_stops_where_a_condition_raises() {
    require_debugpy();
    conditions_fail_loudly(&Case {
        session: Session::new,
        program: fixture_path("python/app.py"),
        adapter: &[],
        file: "python/app.py",
        marker: "@deposit_body",
        parameter: "amount",
        raising: "retx > 3",
        raising_error: "NameError: name 'retx' is not defined",
        bad: "amount ==",
        refused: None,
    });
}

#[test]
fn pdb_stops_where_a_condition_raises_and_refuses_one_that_does_not_parse() {
    require_python();
    conditions_fail_loudly(&Case {
        session: Session::new,
        program: fixture_path("python/app.py"),
        adapter: &["--adapter", "pdb"],
        file: "python/app.py",
        marker: "@deposit_body",
        parameter: "amount",
        raising: "retx > 3",
        raising_error: "NameError: name 'retx' is not defined",
        bad: "amount ==",
        refused: Some("invalid syntax"),
    });
}

#[test]
fn delve_stops_where_a_condition_fails_and_refuses_one_that_does_not_parse() {
    require_delve();
    conditions_fail_loudly(&Case {
        session: Session::new,
        program: build_go("go/ledger/main.go"),
        adapter: &[],
        file: "go/ledger/main.go",
        marker: "@add_body",
        parameter: "b",
        raising: "nosuch == 1",
        raising_error: "could not find symbol value for nosuch",
        bad: "b ==",
        refused: Some("expected operand"),
    });
}

#[test]
fn node_stops_where_a_condition_throws_and_refuses_one_that_does_not_parse() {
    require_node();
    conditions_fail_loudly(&Case {
        session: Session::new,
        program: fixture_path("javascript/app.js"),
        adapter: &[],
        file: "javascript/app.js",
        marker: "@accumulate_body",
        parameter: "n",
        raising: "retx.length > 3",
        raising_error: "ReferenceError: retx is not defined",
        bad: "n ==",
        refused: Some("SyntaxError: Unexpected end of input"),
    });
}

/// debugpy's `break _parse` for a function outside the program's folder is said to be pending
/// (under justMyCode it might never stop); once the program stops there, it is verified.
#[test]
fn a_pending_breakpoint_that_stops_the_program_is_verified() {
    require_debugpy();
    let s = Session::new();
    let program = fixture_path("python/outside/app/main.py");
    s.start(&program, &["-b", "_parse"]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["breakpoint_ids"], json!([1]), "{stop}");
    assert_eq!(stop["frame"]["function"], "_parse", "{stop}");
    let listed = s.data(&["break", "list"]);
    let breakpoint = &listed["breakpoints"][0];
    assert_eq!(breakpoint["verified"], true, "{listed}");
    assert!(breakpoint["message"].is_null(), "{listed}");
    let text = s.run(&["break", "list"]);
    assert!(
        text.ok().contains("_parse  verified") && !text.ok().contains("pending"),
        "{text:?}"
    );
    // A later send of the function list (another function breakpoint) keeps it so.
    s.data(&["break", "parse_all"]);
    let listed = s.data(&["break", "list"]);
    assert_eq!(listed["breakpoints"][0]["verified"], true, "{listed}");
}
