//! What a step changed follows what the code changes: a stop report says what a changed value
//! was (`* i (int) = 0 -> 1`) and, for a member of a local (`this`, `self`, a receiver), what
//! it was and is on a line of its own (`this.total: 0 -> 720`); `locals --changed` says the
//! same inline (`{total = 0 -> 720}`), and JSON gives `old_value`. A JavaScript arrow function shows the
//! `this` it was written with, as DevTools does. Per adapter, each session run from a folder
//! that is not the program's.

mod common;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_lldb_dap,
    require_node, require_python,
};
use serde_json::Value;

const CART_JS: &str = "javascript/cart.js";
const CART_PY: &str = "python/cart.py";

/// Starts `program` with a breakpoint at `marker` of `fixture` and the `extra` arguments,
/// answering with the first stop.
#[track_caller]
fn start_at(s: &Session, program: &std::path::Path, fixture: &str, marker: &str, extra: &[&str]) {
    let location = at(fixture, marker);
    let mut args = vec![
        "start",
        program.to_str().expect("utf-8 path"),
        "--break",
        &location,
        "--wait",
        "60",
    ];
    args.extend_from_slice(extra);
    let data = s.data(&args);
    assert_eq!(data["stop"]["reason"], "breakpoint", "{data}");
}

/// `next --wait` in text.
#[track_caller]
fn next_text(s: &Session) -> String {
    s.run(&["next", "--wait", "--timeout", "30"])
        .ok()
        .to_string()
}

/// The local `name` of a stop report or a `locals` answer.
#[track_caller]
fn local<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .and_then(|all| all.iter().find(|v| v["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

#[track_caller]
fn member<'a>(node: &'a Value, name: &str) -> &'a Value {
    local(&node["children"], name)
}

#[test]
fn node_a_method_that_changes_this_reports_the_member() {
    require_node();
    let s = Session::new();
    start_at(&s, &fixture_path(CART_JS), CART_JS, "@add_total", &[]);
    let text = next_text(&s);
    assert!(text.lines().any(|l| l.starts_with("* this ")), "{text}");
    assert!(text.contains("\n    this.total: 0 -> 720\n"), "{text}");
    let locals = s.data(&["locals"]);
    let total = member(local(&locals["variables"], "this"), "total");
    assert_eq!(total["old_value"], "0", "{locals}");
    assert_eq!(total["changed"], true, "{locals}");
    let changed = s.run(&["locals", "--changed"]).ok().to_string();
    assert!(changed.contains("total = 0 -> 720"), "{changed}");
    s.run(&["stop"]);
}

#[test]
fn node_an_arrow_function_shows_and_tracks_the_this_it_was_written_with() {
    require_node();
    let s = Session::new();
    let program = fixture_path(CART_JS);
    // An arrow function directly in a method: V8 gives its `this`.
    start_at(&s, &program, CART_JS, "@arrow_total", &[]);
    let text = next_text(&s);
    assert!(text.contains("\n    this.total: 720 -> 740\n"), "{text}");
    // One inside another: V8 gives none; the one it was written with is shown all the same.
    s.data(&["break", &at(CART_JS, "@nested_arrow")]);
    let hit = s.data(&["continue", "--wait", "--timeout", "30"]);
    let this = local(&hit["stop"]["locals"], "this");
    assert_eq!(this["type"], "Cart", "{hit}");
    let locals = s.data(&["locals"]);
    assert_eq!(
        local(&locals["variables"], "this")["type"],
        "Cart",
        "{locals}"
    );
    let text = next_text(&s);
    assert!(text.contains("\n    this.count: 1 -> 2\n"), "{text}");
    s.run(&["stop"]);
}

/// The Python cart's `add` under `adapter`: a step that changes `self.total` reports it.
fn python_self_is_tracked(adapter: &str) {
    let s = Session::new();
    start_at(
        &s,
        &fixture_path(CART_PY),
        CART_PY,
        "@add_total",
        &["--adapter", adapter],
    );
    let text = next_text(&s);
    assert!(text.lines().any(|l| l.starts_with("* self ")), "{text}");
    assert!(text.contains("\n    self.total: 0 -> 720\n"), "{text}");
    let changed = s.run(&["locals", "--changed"]).ok().to_string();
    assert!(changed.contains("total = 0 -> 720"), "{changed}");
    s.run(&["stop"]);
}

#[test]
fn debugpy_a_method_that_changes_self_reports_the_member() {
    require_debugpy();
    python_self_is_tracked("debugpy");
}

#[test]
fn pdb_a_method_that_changes_self_reports_the_member() {
    require_python();
    python_self_is_tracked("pdb");
}

#[test]
fn lldb_a_cpp_method_that_changes_this_reports_the_member() {
    require_lldb_dap();
    let s = Session::new();
    start_at(
        &s,
        &build("cpp/shapes.cpp"),
        "cpp/shapes.cpp",
        "@widen_body",
        &[],
    );
    let text = next_text(&s);
    assert!(text.contains("\n    this.width: 6 -> 16\n"), "{text}");
    s.run(&["stop"]);
}

#[test]
fn lldb_a_local_that_changed_says_what_it_was() {
    require_lldb_dap();
    let s = Session::new();
    start_at(&s, &build("c/ledger.c"), "c/ledger.c", "@loop_call", &[]);
    let text = s
        .run(&["continue", "--wait", "--timeout", "30"])
        .ok()
        .to_string();
    assert!(
        text.lines()
            .any(|l| l.starts_with("* i ") && l.ends_with("= 0 -> 1")),
        "{text}"
    );
    let locals = s.data(&["locals"]);
    assert_eq!(
        local(&locals["variables"], "i")["old_value"],
        "0",
        "{locals}"
    );
    s.run(&["stop"]);
}

#[test]
fn delve_a_method_that_changes_its_receiver_reports_it() {
    require_delve();
    let s = Session::new();
    let program = build_go("go/results/main.go");
    start_at(&s, &program, "go/results/main.go", "@ledger_add", &[]);
    let text = next_text(&s);
    assert!(text.lines().any(|l| l.starts_with("* l ")), "{text}");
    assert!(
        text.contains(
            "\n    *l: main.Ledger {Owner: \"ada\", Total: 0} -> main.Ledger {Owner: \"ada\", \
             Total: 720}\n"
        ),
        "{text}"
    );
    s.run(&["stop"]);
}
