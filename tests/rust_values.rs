//! Rust values as a Rust programmer writes them, through the formatters of the toolchain that
//! built the program, which the session loads into lldb-dap and into GDB before the program runs:
//! `String`, `&str`, `Vec`, `VecDeque`, slices, `Option`, `Result`, `Box`, `Rc`, `Arc`,
//! `RefCell`, `HashMap`, `BTreeMap`, `PathBuf`, `OsString`, `Cow`, structs, enums with data and
//! tuples; an `Option` whose `None` hides in a capacity (which LLDB 19 misreads by itself). `print` of a plain
//! path is answered from the frame's variables, through a reference too (`args.paths.paths`,
//! where lldb's expression parser read another vector); stacks are demangled.
//!
//! Every session runs from its own working directory, never the fixture's folder.

mod common;

use common::{Session, at, build, require_lldb_dap, variable};
use serde_json::{Value, json};

const VALUES: &str = "rust/values.rs";
const WAIT: &str = "60";

/// Starts the fixture under `adapter`, stopped at the end of `main`'s set-up (`@main_after`),
/// with a second breakpoint in `inspect`.
#[track_caller]
fn stopped_in_main(s: &Session, adapter: &str) {
    let program = build(VALUES);
    s.start(
        &program,
        &[
            "--adapter",
            adapter,
            "-b",
            &at(VALUES, "@main_after"),
            "-b",
            &at(VALUES, "@inspect_body"),
        ],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
    assert_eq!(stop["frame"]["function"], "values::main", "{stop}");
}

/// The `(value, children as [name, value])` of each local in `names`.
#[track_caller]
fn shown(locals: &Value, names: &[&str]) -> Value {
    names
        .iter()
        .map(|name| {
            let v = variable(&locals["variables"], name);
            let children: Vec<Value> = v["children"]
                .as_array()
                .expect("children")
                .iter()
                .map(|c| json!([c["name"], c["value"]]))
                .collect();
            (name.to_string(), json!([v["value"], children]))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// A `Box<i32>`, which both debuggers read as a plain pointer (rustc's name for the pointer type
/// is dropped): its address, then the value it holds, and that value as its one child (`child`).
#[track_caller]
fn assert_boxed(locals: &Value, child: &str) {
    let boxed = variable(&locals["variables"], "boxed");
    let value = boxed["value"].as_str().unwrap_or_default();
    let (address, rest) = value.split_once(' ').unwrap_or_default();
    assert!(address.starts_with("0x") && rest == "7", "{boxed}");
    assert_eq!(
        shown(locals, &["boxed"])["boxed"][1],
        json!([[child, "7"]]),
        "{boxed}"
    );
}

/// The `print` answers at `inspect`, where `args` and `shapes` are references, then in `main`.
#[track_caller]
fn assert_path_prints(s: &Session, expected: &[(&str, &str)]) {
    for (expression, value) in expected {
        assert_eq!(s.value_of(expression), *value, "print {expression}");
    }
}

#[test]
fn lldb_shows_rust_values_through_the_toolchains_formatters() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_main(&s, "lldb");
    let locals = s.data(&["locals"]);
    let names = [
        "text", "word", "names", "queue", "numbers", "slice", "some", "none", "ok", "err",
        "shared", "atomic", "cell", "map", "tree", "path", "circle", "square", "empty", "shapes",
        "pair", "args", "unset", "blank", "borrowed", "nested", "failed",
    ];
    assert_eq!(
        shown(&locals, &names),
        json!({
            "text": ["\"hello\"", []],
            "word": ["\"x\"", []],
            "names": ["[\"a\", \"b\"]", [["[0]", "\"a\""], ["[1]", "\"b\""]]],
            "queue": ["[1, 2]", [["[0]", "1"], ["[1]", "2"]]],
            "numbers": ["[10, 20, 30]", [["[0]", "10"], ["[1]", "20"], ["[2]", "30"]]],
            "slice": ["[10, 20]", [["[0]", "10"], ["[1]", "20"]]],
            "some": ["Some(3)", [["0", "3"]]],
            "none": ["None", []],
            "ok": ["Ok(\"x\")", [["0", "\"x\""]]],
            "err": ["Err(\"bad\")", [["0", "\"bad\""]]],
            "shared": ["Rc(\"rc\") strong=1 weak=0", [["value", "\"rc\""]]],
            "atomic": ["Arc(5) strong=1 weak=0", [["data", "5"]]],
            "cell": ["RefCell(4)", [["value", "4"]]],
            "map": ["{\"k\": 1}", [["\"k\"", "1"]]],
            "tree": ["{1: \"one\", 2: \"two\"}", [["1", "\"one\""], ["2", "\"two\""]]],
            "path": ["\"./a.txt\"", []],
            "circle": ["Circle { radius: 2 }", [["radius", "2"]]],
            "square": ["Square(3)", [["0", "3"]]],
            "empty": ["Empty", []],
            "shapes": ["[Square(1), Empty]", [["[0]", "Square(1)"], ["[1]", "Empty"]]],
            "pair": ["(1, \"two\")", [["0", "1"], ["1", "\"two\""]]],
            "args": [
                "Args { paths: Paths { paths: [\".\", \"src\"] }, verbose: true }",
                [["paths", "Paths { paths: [\".\", \"src\"] }"], ["verbose", "true"]]
            ],
            "unset": ["None", []],
            "blank": ["Some(\"\")", [["0", "\"\""]]],
            "borrowed": ["Borrowed(\"b\")", [["0", "\"b\""]]],
            "nested": ["None", []],
            "failed": ["Err(4)", [["0", "4"]]],
        })
    );
    assert_boxed(&locals, "*boxed");
    assert_eq!(variable(&locals["variables"], "os")["value"], "\"os\"");
    // A struct inside a collection reads as Rust's `{:?}` writes it.
    assert_eq!(
        variable(&locals["variables"], "points")["value"],
        "[Point { x: 1, y: 2 }, Point { x: 3, y: 4 }]"
    );
    // The text reads the same.
    let text = s.run(&["locals"]).ok().to_string();
    for line in [
        "(core::option::Option<u32>) = Some(3)",
        "(core::result::Result<&str, i32>) = Ok(\"x\")",
        "(alloc::vec::Vec<alloc::string::String, alloc::alloc::Global>) = [\"a\", \"b\"]",
        "(std::collections::hash::map::HashMap<alloc::string::String, int, std::hash::random::RandomState, alloc::alloc::Global>) = {\"k\": 1}",
        "(std::path::PathBuf) = \"./a.txt\"",
        "(alloc::string::String) = \"hello\"\n",
    ] {
        assert!(text.contains(line), "{line} not in:\n{text}");
    }

    // Demangled, without hashes or rustc's `$LT$`-style escapes.
    let backtrace = s.data(&["backtrace"]);
    let functions: Vec<&str> = backtrace["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["function"].as_str())
        .collect();
    assert_eq!(functions[0], "values::main", "{backtrace}");
    assert!(
        functions.contains(&"std::rt::lang_start::{{closure}}"),
        "{functions:?}"
    );
    assert!(
        functions
            .iter()
            .all(|f| !f.contains('$') && !f.contains("::h")),
        "{functions:?}"
    );

    assert_path_prints(
        &s,
        &[
            ("*boxed", "7"),
            ("points[1].y", "4"),
            ("pair.1", "\"two\""),
            ("some", "Some(3)"),
        ],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
    assert_eq!(stop["frame"]["function"], "values::inspect", "{stop}");
    // Through the reference `args`: the frame's variables, never the expression parser.
    let printed = s.data(&["print", "args.paths.paths"]);
    assert_eq!(printed["value"], "[\".\", \"src\"]", "{printed}");
    let elements: Vec<&Value> = printed["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|c| &c["value"])
        .collect();
    assert_eq!(elements, [&json!("\".\""), &json!("\"src\"")], "{printed}");
    assert_path_prints(
        &s,
        &[
            ("args.paths.paths[1]", "\"src\""),
            ("args.verbose", "true"),
            ("shapes[0]", "Square(1)"),
        ],
    );
}

#[test]
fn gdb_shows_rust_values_through_the_toolchains_pretty_printers() {
    let s = Session::with_gdb();
    stopped_in_main(&s, "gdb");
    let locals = s.data(&["locals"]);
    let names = [
        "text", "word", "names", "queue", "numbers", "slice", "some", "none", "ok", "err",
        "shared", "atomic", "cell", "map", "tree", "os", "path", "circle", "square", "empty",
        "pair", "shapes", "args", "unset", "blank", "borrowed", "nested", "failed",
    ];
    // Rust's printers for the standard collections, and ours for what they leave to GDB (enums,
    // tuples, arrays), which GDB's DAP would show empty.
    assert_eq!(
        shown(&locals, &names),
        json!({
            "text": ["\"hello\"", []],
            "word": ["\"x\"", []],
            "names": ["[\"a\", \"b\"]", [["[0]", "\"a\""], ["[1]", "\"b\""]]],
            "queue": ["[1, 2]", [["[0]", "1"], ["[1]", "2"]]],
            "numbers": ["[10, 20, 30]", [["[0]", "10"], ["[1]", "20"], ["[2]", "30"]]],
            "slice": ["[10, 20]", [["[0]", "10"], ["[1]", "20"]]],
            "some": ["Some(3)", [["__0", "3"]]],
            "none": ["None", []],
            "ok": ["Ok(\"x\")", [["__0", "\"x\""]]],
            "err": ["Err(\"bad\")", [["__0", "\"bad\""]]],
            "shared": [
                "Rc(\"rc\") strong=1 weak=0",
                [["value", "\"rc\""], ["strong", "1"], ["weak", "0"]]
            ],
            "atomic": ["Arc(5) strong=1 weak=0", [["value", "5"], ["strong", "1"], ["weak", "0"]]],
            "cell": ["RefCell(4)", [["value", "4"], ["borrow", "0"]]],
            "map": ["{\"k\": 1}", [["\"k\"", "1"]]],
            "tree": ["{1: \"one\", 2: \"two\"}", [["1", "\"one\""], ["2", "\"two\""]]],
            "os": ["\"os\"", []],
            "path": ["\"./a.txt\"", []],
            "circle": ["Circle { radius: 2 }", [["radius", "2"]]],
            "square": ["Square(3)", [["__0", "3"]]],
            "empty": ["Empty", []],
            "pair": ["(1, \"two\")", [["__0", "1"], ["__1", "\"two\""]]],
            "shapes": ["[Square(1), Empty]", [["[0]", "Square(1)"], ["[1]", "Empty"]]],
            "args": [
                "Args { paths: Paths { paths: [\".\", \"src\"] }, verbose: true }",
                [["paths", "Paths { paths: [\".\", \"src\"] }"], ["verbose", "true"]]
            ],
            "unset": ["None", []],
            "blank": ["Some(\"\")", [["__0", "\"\""]]],
            "borrowed": ["Borrowed(\"b\")", [["__0", "\"b\""]]],
            "nested": ["None", []],
            "failed": ["Err(4)", [["__0", "4"]]],
        })
    );
    assert_boxed(&locals, "value");
    // Without the types' module paths, as Rust's `{:?}` writes a struct.
    assert_eq!(
        variable(&locals["variables"], "points")["value"],
        "[Point { x: 1, y: 2 }, Point { x: 3, y: 4 }]"
    );
    let backtrace = s.data(&["backtrace"]);
    assert_eq!(
        backtrace["frames"][0]["function"], "values::main",
        "{backtrace}"
    );
    assert_path_prints(
        &s,
        &[
            ("*boxed", "7"),
            ("points[1].y", "4"),
            ("pair.1", "\"two\""),
            ("some", "Some(3)"),
        ],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
    assert_eq!(stop["frame"]["function"], "values::inspect", "{stop}");
    // GDB shows the reference's pointee as its one child; the path steps through it, and GDB's
    // evaluator, which cannot index a Vec, is not asked.
    assert_path_prints(
        &s,
        &[
            ("args.paths.paths", "[\".\", \"src\"]"),
            ("args.paths.paths[1]", "\"src\""),
            ("args.verbose", "true"),
            ("shapes[0]", "Square(1)"),
        ],
    );
}

/// Only a program with Rust code gets the formatters: a C program is never one, so its session
/// neither runs rustc nor loads any Python.
#[test]
fn only_rust_programs_are_taken_for_rust() {
    use debugger::adapters::rust_formatters::is_rust_program;
    assert!(is_rust_program(&build(VALUES)));
    assert!(!is_rust_program(&build("c/ledger.c")));
}

/// A sysroot without formatters: `doctor` says so and how to fix it, and a Rust session still
/// runs, its values raw.
#[test]
fn a_configured_sysroot_without_formatters_is_reported_and_values_stay_raw() {
    require_lldb_dap();
    let s = Session::with_config(
        "[daemon]\ngrace_period_secs = 60\n[rust]\nsysroot = \"/nonexistent-sysroot\"\n",
    );
    let doctor = s.json(&["doctor"]);
    let rust = &doctor["data"]["rust"];
    assert_eq!(rust["found"], false, "{doctor}");
    assert!(
        rust["detail"]
            .as_str()
            .unwrap_or("")
            .contains("/nonexistent-sysroot/lib/rustlib/etc/lldb_lookup.py is missing"),
        "{doctor}"
    );
    assert!(
        rust["fix"].as_str().unwrap_or("").contains("rust.sysroot"),
        "{doctor}"
    );
    stopped_in_main(&s, "lldb");
    let locals = s.data(&["locals"]);
    assert_ne!(
        variable(&locals["variables"], "some")["value"],
        "Some(3)",
        "{locals}"
    );
}
