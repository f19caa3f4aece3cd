//! A caller's values in one probe, the same way on every adapter: `--print '@FRAME:EXPR'`
//! evaluates EXPR in the frame FRAME names (a number counted from the hit's frame, or a
//! function's name), and a `--print` naming a variable the hit's frame lacks but a caller has
//! fails with that frame and the form to use, instead of the adapter's own words. Against real
//! adapters: lldb-dap (C, Rust), GDB (C, Rust), pdb and debugpy (Python), Delve (Go) and the
//! node adapter (JavaScript), each probe run from the test's own folder. Also the probe's
//! summary line cut at a member boundary, and Delve's unloaded values read (Go).
//!
//! Every test fails (never skips) when its adapter is missing: `.ci/run` installs them.

mod common;

use std::path::Path;

use common::{
    Run, Session, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node, require_python, with_go_env,
};
use serde_json::Value;

const LEDGER_C: &str = "c/ledger.c";
const CACHE_RS: &str = "rust/cache.rs";
const APP_PY: &str = "python/app.py";
const ACCOUNTS_GO: &str = "go/accounts/main.go";
const APP_JS: &str = "javascript/app.js";

/// `NAME:LINE` of `marker` in `fixture`, the file named as a user names it.
fn line_at(fixture: &str, marker: &str) -> String {
    let name = Path::new(fixture)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a file name");
    format!("{name}:{}", line_of(fixture, marker))
}

/// `debugger [--json] probe PROGRAM ARGS...` (with the Go environment, for Delve's sake).
fn probe(s: &Session, json: bool, program: &Path, args: &[&str]) -> Run {
    let mut command = s.command();
    with_go_env(&mut command);
    if json {
        command.arg("--json");
    }
    Run::from(
        command
            .arg("probe")
            .arg(program)
            .args(args)
            .output()
            .expect("run debugger"),
    )
}

/// The `n`th `--print` of each hit of a JSON probe report: its value, or `error: ...`.
fn printed(report: &Value, n: usize) -> Vec<String> {
    report["data"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits: {report}"))
        .iter()
        .map(|hit| {
            let print = &hit["prints"][n];
            match print["value"].as_str() {
                Some(value) => value.to_string(),
                None => format!("error: {}", print["error"].as_str().unwrap_or("?")),
            }
        })
        .collect()
}

/// Probes `program` at `location` with `prints` for `hits` hits, and checks that the first
/// print (a variable of the caller only) fails with `missing` at every hit, and that each other
/// print's values across the hits are `values[i]`.
#[track_caller]
fn assert_callers_read(
    s: &Session,
    program: &Path,
    location: &str,
    prints: &[&str],
    hits: usize,
    missing: &str,
    values: &[&[&str]],
) {
    let mut args = vec!["-b", location];
    for print in prints {
        args.extend(["-p", print]);
    }
    let count = hits.to_string();
    args.extend(["--hits", &count]);
    let report = probe(s, true, program, &args).json();
    assert_eq!(report["ok"], true, "{report}");
    let expected_errors = vec![format!("error: {missing}"); hits];
    assert_eq!(printed(&report, 0), expected_errors, "{report}");
    for (n, expected) in values.iter().enumerate() {
        assert_eq!(
            printed(&report, n + 1),
            *expected,
            "{}: {report}",
            prints[n + 1]
        );
    }
}

// ---- lldb-dap ------------------------------------------------------------------------------

#[test]
fn lldb_c_reads_mains_loop_variable_at_each_hit_in_apply() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(LEDGER_C);
    assert_callers_read(
        &s,
        &program,
        "apply",
        &["i", "@main:i", "@1:total", "@0:amount"],
        3,
        "i is not a variable of apply (frame 0); main (frame 1) has one: --print '@main:i'",
        &[&["0", "1", "2"], &["0", "0", "1"], &["0", "1", "2"]],
    );
    // The text report's summary answers "main's i at each hit" on one line.
    let run = probe(
        &s,
        false,
        &program,
        &["-b", "apply", "-p", "@main:i", "--hits", "3"],
    );
    assert!(run.ok().contains("\n  @main:i: 0 | 1 | 2\n"), "{run:?}");
}

#[test]
fn lldb_rust_names_the_caller_for_a_name_lldb_takes_for_a_module() {
    require_lldb_dap();
    let s = Session::new();
    // LLDB's words for `key` in `touch` were "unexpected namespace name 'key'": the standard
    // library has a module of that name.
    assert_callers_read(
        &s,
        &build(CACHE_RS),
        &line_at(CACHE_RS, "@touch_body"),
        &[
            "key",
            "@get:key",
            "@main:cache.hits",
            "@Cache::get:key",
            "@2:key",
        ],
        2,
        "key is not a variable of cache::Cache::touch (frame 0); cache::Cache::get (frame 1) \
         has one: --print '@get:key'",
        &[&["3", "5"], &["1", "2"], &["3", "5"], &["3", "5"]],
    );
}

// ---- GDB -----------------------------------------------------------------------------------

#[test]
fn gdb_reads_a_callers_variables_in_c_and_rust() {
    let s = Session::with_gdb();
    let args = |location: &'static str| ["--adapter", "gdb", "-b", location];
    let c = probe(
        &s,
        true,
        &build(LEDGER_C),
        &[
            &args("apply")[..],
            &["-p", "i", "-p", "@main:i", "--hits", "2"],
        ]
        .concat(),
    )
    .json();
    assert_eq!(
        printed(&c, 0),
        vec![
            "error: i is not a variable of apply (frame 0); main (frame 1) has one: --print '@main:i'";
            2
        ],
        "{c}"
    );
    assert_eq!(printed(&c, 1), ["0", "1"], "{c}");
    // GDB words an unknown Rust name `No symbol 'key' in current context`.
    let touch = line_at(CACHE_RS, "@touch_body");
    let rust = probe(
        &s,
        true,
        &build(CACHE_RS),
        &[
            "--adapter",
            "gdb",
            "-b",
            &touch,
            "-p",
            "key",
            "-p",
            "@main:key",
        ],
    )
    .json();
    assert_eq!(
        printed(&rust, 0),
        [
            "error: key is not a variable of cache::Cache::touch (frame 0); cache::Cache::get \
          (frame 1) has one: --print '@get:key'"
        ],
        "{rust}"
    );
    assert_eq!(printed(&rust, 1), ["3"], "{rust}");
}

// ---- Python: pdb and debugpy ---------------------------------------------------------------

#[test]
fn pdb_reads_mains_variables_at_each_hit_in_a_method() {
    require_python();
    let s = Session::new();
    assert_callers_read(
        &s,
        &fixture_path(APP_PY),
        &line_at(APP_PY, "@deposit_body"),
        &["i", "@main:i", "@1:total", "@main:acct.balance"],
        2,
        "i is not a variable of Account.deposit (frame 0); main (frame 1) has one: \
         --print '@main:i'",
        &[&["0", "1"], &["0", "1"], &["100", "100"]],
    );
}

#[test]
fn debugpy_reads_mains_variables_at_each_hit_in_a_method() {
    require_debugpy();
    let s = Session::new();
    let location = line_at(APP_PY, "@deposit_body");
    let report = probe(
        &s,
        true,
        &fixture_path(APP_PY),
        &[
            "--adapter",
            "debugpy",
            "-b",
            &location,
            "-p",
            "i",
            "-p",
            "@main:i",
            "-p",
            "@1:total",
            "--hits",
            "2",
        ],
    )
    .json();
    assert_eq!(
        printed(&report, 0),
        vec![
            "error: i is not a variable of deposit (frame 0); main (frame 1) has one: --print '@main:i'";
            2
        ],
        "{report}"
    );
    assert_eq!(printed(&report, 1), ["0", "1"], "{report}");
    assert_eq!(printed(&report, 2), ["0", "1"], "{report}");
}

// ---- Delve ---------------------------------------------------------------------------------

#[test]
fn delve_reads_mains_variables_at_each_hit_in_a_method() {
    require_delve();
    let s = Session::new();
    assert_callers_read(
        &s,
        &build_go(ACCOUNTS_GO),
        &line_at(ACCOUNTS_GO, "@apply_body"),
        &["i", "@main:i", "@1:key", "@main.main:i"],
        3,
        "i is not a variable of main.(*Ledger).apply (frame 0); main.main (frame 1) has one: \
         --print '@main:i'",
        &[
            &["0", "1", "2"],
            &["\"erin\"", "\"ada\"", "\"erin\""],
            &["0", "1", "2"],
        ],
    );
}

// ---- node ----------------------------------------------------------------------------------

#[test]
fn node_reads_the_callers_loop_variable_at_each_hit_in_a_method() {
    require_node();
    let s = Session::new();
    assert_callers_read(
        &s,
        &fixture_path(APP_JS),
        &line_at(APP_JS, "@deposit_body"),
        &["i", "@run:i", "@1:total"],
        2,
        "i is not a variable of deposit (frame 0); run (frame 1) has one: --print '@run:i'",
        &[&["0", "1"], &["0", "1"]],
    );
}

// ---- code nobody here wrote: the standard libraries ----------------------------------------

#[test]
fn pdb_reads_the_callers_of_a_stop_in_pythons_json_decoder() {
    require_python();
    let s = Session::new();
    let (decoder, line) = common::json_decoder_line();
    let location = format!("{}:{line}", decoder.display());
    let report = probe(
        &s,
        true,
        &fixture_path("python/generators.py"),
        &[
            "-b",
            &location,
            "-p",
            "kw",
            "-p",
            "@loads:s",
            "-p",
            "@main:totals",
        ],
    )
    .json();
    assert_eq!(
        printed(&report, 0),
        [
            "error: kw is not a variable of JSONDecoder.decode (frame 0); loads (frame 1) has one: \
          --print '@loads:kw'"
        ],
        "{report}"
    );
    assert_eq!(printed(&report, 1), ["'{\"total\": 6}'"], "{report}");
    assert_eq!(printed(&report, 2), ["[0, 1, 3, 6]"], "{report}");
}

#[test]
fn delve_reads_the_caller_of_a_stop_in_gos_encoding_json() {
    require_delve();
    let s = Session::new();
    let report = probe(
        &s,
        true,
        &build_go("go/inventory/main.go"),
        &[
            "-b",
            "encoding/json.Unmarshal",
            "-p",
            "inv",
            "-p",
            "@main:inv.Owner",
        ],
    )
    .json();
    assert_eq!(
        printed(&report, 0),
        [
            "error: inv is not a variable of json.Unmarshal (frame 0); main.main (frame 1) has one: \
          --print '@main:inv'"
        ],
        "{report}"
    );
    assert_eq!(printed(&report, 1), ["\"\""], "{report}");
}

// ---- the form itself -----------------------------------------------------------------------

#[test]
fn a_frame_that_is_not_there_is_recorded_and_a_malformed_one_is_a_usage_error() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(LEDGER_C);
    let report = probe(
        &s,
        true,
        &program,
        &["-b", "apply", "-p", "@nosuch:i", "-p", "@40:i"],
    )
    .json();
    let errors = printed(&report, 0);
    assert!(
        errors[0]
            .starts_with("error: no frame runs a function named nosuch (the stack: apply < main"),
        "{report}"
    );
    assert!(
        printed(&report, 1)[0].starts_with("error: no frame 40: the stack has "),
        "{report}"
    );
    // Begins with `@` but is not `@FRAME:EXPR`: refused before anything runs.
    for wrong in ["@main", "@:i", "@main:"] {
        let run = probe(&s, false, &program, &["-b", "apply", "-p", wrong]);
        assert_eq!(run.code, 2, "{wrong}: {run:?}");
        assert!(run.stderr.contains("@FRAME:EXPR"), "{wrong}: {run:?}");
    }
}

#[test]
fn print_in_a_session_takes_the_same_form_and_names_the_caller() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER_C), &["-b", "apply"]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(s.value_of("@main:i"), "0");
    assert_eq!(s.value_of("@1:total"), "0");
    let failed = s.run(&["print", "i"]);
    assert_eq!(failed.code, 1, "{failed:?}");
    assert!(
        failed.stderr.contains(
            "error: i is not a variable of apply (frame 0); main (frame 1) has one: \
             debugger print '@main:i'"
        ),
        "{failed:?}"
    );
    // The selection did not move: `locals` is still apply's.
    let locals = s.data(&["locals"]);
    common::variable(&locals["variables"], "amount");
    s.run(&["stop"]);
}

// ---- Delve's values: the summary line, and what it did not load ----------------------------

#[test]
fn delve_values_are_read_whole_and_the_summary_keeps_whole_members() {
    require_delve();
    let s = Session::new();
    let program = build_go(ACCOUNTS_GO);
    let location = line_at(ACCOUNTS_GO, "@apply_body");
    let args = ["-b", &location, "-p", "l.Accounts", "--hits", "2"];
    let report = probe(&s, true, &program, &args).json();
    // Whole: Delve cuts a value's text at 256 bytes (`..."`) but for a value to copy.
    let accounts = printed(&report, 0);
    for value in &accounts {
        assert!(value.starts_with("map[string]*main.Account ["), "{report}");
        assert!(value.ends_with(", ]"), "{report}");
        assert!(!value.contains("..."), "{report}");
        for owner in [
            "ada", "erin", "grace", "linus", "barbara", "dennis", "ken", "margaret",
        ] {
            assert!(
                value.contains(&format!("Owner: \"{owner}\"")),
                "{owner}: {report}"
            );
        }
    }
    // The locals show the map's values as `print` does, not as `(*main.Account)(0xc000…)`.
    let hit = &report["data"]["hits"][0];
    let ledger = common::variable(&hit["locals"], "l");
    let text = ledger["value"].as_str().unwrap_or_default();
    assert!(!text.contains("(*main.Account)(0x"), "{ledger}");
    assert!(text.contains("*{ID: "), "{ledger}");
    assert!(text.contains(", Balance: "), "{ledger}");

    // The summary line: each value cut after whole members, saying how many were left out.
    let run = probe(&s, false, &program, &args);
    let out = run.ok();
    let line = out
        .lines()
        .find(|l| l.starts_with("  l.Accounts: "))
        .unwrap_or_else(|| panic!("no summary line: {out}"));
    let values: Vec<&str> = line["  l.Accounts: ".len()..].split(" | ").collect();
    assert_eq!(values.len(), 2, "{out}");
    for value in values {
        assert!(value.starts_with("map[string]*main.Account [\""), "{out}");
        assert!(value.ends_with("}, … 7 more]"), "{out}");
        assert!(value.contains(", Balance: "), "{out}");
    }
}
