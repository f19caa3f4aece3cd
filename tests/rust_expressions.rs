//! Rust expressions as an agent writes them (`req.comparators.len()`, `v[i]`, `m.get(&k)`,
//! `o.unwrap()`, `s.as_str()`, fields through `&`, `&mut`, `Box`, `Rc` and `Arc`), read by the
//! debugger over the adapter's variables, on lldb-dap and GDB alike, in `print`, `display`,
//! `-p` and a probe's `--print`; what fails says so in Rust's words, never clang's C++ advice.
//!
//! Every session runs from its own working directory, never the fixture's folder.

mod common;

use common::{Session, at, build, require_lldb_dap};
use serde_json::Value;

const FIXTURE: &str = "rust/expressions.rs";
const WAIT: &str = "60";

/// Starts the fixture under `adapter`, stopped in `check`, where `req` is a `&Request` and
/// `counts` a `&mut Vec<u32>`.
#[track_caller]
fn stopped_in_check(s: &Session, adapter: &str) {
    let program = build(FIXTURE);
    s.start(
        &program,
        &["--adapter", adapter, "-b", &at(FIXTURE, "@check_body")],
    );
    let stop = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(stop["frame"]["function"], "expressions::check", "{stop}");
}

/// Each form, and what it reads on either adapter.
const FORMS: &[(&str, &str)] = &[
    ("req.comparators.len()", "2"),
    ("req->comparators.len()", "2"),
    ("req.comparators[1].major", "2"),
    ("req.comparators.get(5)", "None"),
    ("req.comparators.is_empty()", "false"),
    ("counts.len()", "4"),
    ("counts[0]", "7"),
    ("counts.last()", "Some(2)"),
    ("window.len()", "2"),
    ("window[1]", "30"),
    ("window.first()", "Some(20)"),
    ("label.len()", "6"),
    ("label.is_empty()", "false"),
    ("req.name.len()", "6"),
    ("req.name.as_str()", "\"semver\""),
    ("req.tags.get(&\"beta\")", "Some(2)"),
    ("req.tags[\"stable\"]", "1"),
    ("req.tags.len()", "2"),
    ("req.tags.contains_key(\"x\")", "false"),
    ("req.ranks.get(&2)", "Some(\"second\")"),
    ("req.ranks[&1]", "\"first\""),
    ("req.owner.as_ref().unwrap().len()", "3"),
    ("*req.owner.as_ref().unwrap()", "\"ada\""),
    ("req.parent.unwrap().name", "\"root\""),
    ("req.parent.unwrap().comparators.is_empty()", "true"),
    ("@main:found.unwrap()", "5"),
    ("@main:missing.is_none()", "true"),
    ("@main:parsed.unwrap()", "42"),
    ("@main:failed.is_err()", "true"),
    ("@main:failed.unwrap_err().len()", "9"),
    ("@main:boxed.major", "3"),
    ("@main:shared.len()", "3"),
    ("@main:shared[2]", "3"),
    ("@main:atomic.len()", "3"),
    ("@main:atomic.as_str()", "\"arc\""),
    ("@main:numbers[at]", "20"),
    ("@main:req.tags.get(&key)", "Some(2)"),
    ("@main:empty.first()", "None"),
    ("req.comparators.last().unwrap().major", "2"),
    ("@main:text.clone().len()", "5"),
];

/// Each failure, and words its message holds.
const FAILURES: &[(&str, &[&str])] = &[
    (
        "@main:missing.unwrap()",
        &["`missing` is None: called `Option::unwrap()` on a `None` value"],
    ),
    (
        "@main:failed.expect(\"parse\")",
        &["`failed` is Err(\"bad digit\"): parse: \"bad digit\""],
    ),
    (
        "req.comparators[9]",
        &["index out of bounds: the len is 2 but the index is 9"],
    ),
    ("req.tags[\"nope\"]", &["has no entry for the key \"nope\""]),
    (
        "req.nosuch",
        &["has no field `nosuch`", "its fields: name, comparators"],
    ),
    (
        "req.comparators.iter()",
        &["`.iter()` would run the program's code"],
    ),
    (
        "req.comparators.len() + 1",
        &["is more than print reads in Rust by itself"],
    ),
    ("req.name[0]", &["Rust does not index a string by position"]),
    ("label.unwrap()", &["reads an Option or a Result", "a &str"]),
    (
        "req.comparators[0].is_empty()",
        &["(expressions::Comparator) is no type of the standard library"],
    ),
];

#[track_caller]
fn assert_forms(s: &Session, adapter: &str) {
    for (expression, value) in FORMS {
        let data = s.data(&["print", expression]);
        assert_eq!(
            data["value"], *value,
            "{adapter}: print {expression}: {data}"
        );
    }
    for (expression, words) in FAILURES {
        let error = s.run(&["--json", "print", expression]).failure();
        let message = error["message"].as_str().unwrap_or_default();
        for word in *words {
            assert!(
                message.contains(word),
                "{adapter}: print {expression}: {error}"
            );
        }
        for cpp in [
            "->",
            "did you mean",
            "function pointer",
            "Could not find function",
        ] {
            assert!(
                !message.contains(cpp),
                "{adapter}: print {expression}: {error}"
            );
        }
    }
    // A name that is nowhere is the adapter's unknown name, with its hint.
    let error = s.run(&["--json", "print", "nosuch.len()"]).failure();
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("debugger locals"),
        "{adapter}: {error}"
    );
}

#[test]
fn lldb_reads_rust_expressions_over_the_variables() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_check(&s, "lldb");
    assert_forms(&s, "lldb");
    // `get` answers Some with the element's members as its children.
    let got = s.data(&["print", "req.comparators.get(0)"]);
    let children: Vec<&Value> = got["children"]
        .as_array()
        .expect("children")
        .iter()
        .collect();
    assert!(
        children
            .iter()
            .any(|c| c["name"] == "major" && c["value"] == "1"),
        "{got}"
    );
    s.run(&["stop"]);
}

#[test]
fn gdb_reads_rust_expressions_over_the_variables() {
    let s = Session::with_gdb();
    stopped_in_check(&s, "gdb");
    assert_forms(&s, "gdb");
    s.run(&["stop"]);
}

#[test]
fn displays_and_one_off_prints_read_rust_expressions() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_check(&s, "lldb");
    let shown = s.data(&["display", "req.comparators.len()"]);
    assert_eq!(shown["value"], "2", "{shown}");
    let failing = s.data(&["display", "@main:missing.unwrap()"]);
    assert!(
        failing["error"]
            .as_str()
            .is_some_and(|e| e.contains("called `Option::unwrap()` on a `None` value")),
        "{failing}"
    );
    // A condition that calls a method the adapter cannot call is refused when set.
    let refused = s
        .run(&[
            "--json",
            "break",
            &at(FIXTURE, "@check_body"),
            "--condition",
            "counts.len() > 3",
        ])
        .failure();
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("calls `.len()`")),
        "{refused}"
    );
    assert_eq!(refused["code"], "usage", "{refused}");
    s.run(&["stop"]);
}

#[test]
fn a_probe_prints_rust_expressions_at_each_hit() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(FIXTURE);
    let run = s.run(&[
        "--json",
        "probe",
        program.to_str().expect("utf-8 path"),
        "--break",
        &at(FIXTURE, "@check_body"),
        "-p",
        "req.tags.get(&\"beta\")",
        "-p",
        "counts[3]",
        "-p",
        "@main:failed.unwrap()",
    ]);
    let data = run.json()["data"].clone();
    let hit = &data["hits"][0];
    assert_eq!(hit["prints"][0]["value"], "Some(2)", "{data}");
    assert_eq!(hit["prints"][1]["value"], "2", "{data}");
    assert!(
        hit["prints"][2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("called `Result::unwrap()` on an `Err` value")),
        "{data}"
    );
}
