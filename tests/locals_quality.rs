//! `locals` spends its lines on what matters, in every language: unreadable members in one line,
//! a character buffer as its string, long values cut with their length said, a function held in
//! a local listed, a pointer's target named after the pointer, and the values that changed since
//! the frame's previous stop marked (and listed at the end of a step's report).

mod common;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_lldb_dap,
    variable,
};
use serde_json::Value;

const VALUES: &str = "c/values.c";
const KINDS: &str = "python/locals_kinds.py";
const GO_LEDGER: &str = "go/ledger/main.go";

/// Runs to the session's breakpoint and returns the locals' data.
fn locals_at_breakpoint(s: &Session) -> Value {
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    s.data(&["locals"])
}

#[test]
fn c_locals_collapse_unreadable_members_and_show_a_buffer_as_its_string() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(VALUES), &["-b", &at(VALUES, "@values_ready")]);
    let locals = locals_at_breakpoint(&s);
    let variables = &locals["variables"];

    for name in ["null_file", "nil"] {
        let pointer = variable(variables, name);
        assert_eq!(pointer["value"], "<not readable: 0x0>", "{pointer}");
        assert_eq!(pointer["children"], serde_json::json!([]), "{pointer}");
    }
    let path = variable(variables, "path");
    assert_eq!(path["value"], "\"/tmp/some/path\"", "{path}");
    assert_eq!(path["children"], serde_json::json!([]), "{path}");
    assert_eq!(path["expandable"], false, "{path}");
    let big = variable(variables, "big");
    let expected = format!("\"{}… (101 more characters)", "a".repeat(199));
    assert_eq!(big["value"], expected.as_str(), "{big}");

    let text = s.run(&["locals"]);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines.contains(&"null_file (FILE *) = <not readable: 0x0>"),
        "{}",
        text.stdout
    );
    assert!(
        lines.contains(&"nil       (node *) = <not readable: 0x0>"),
        "{}",
        text.stdout
    );
    assert!(
        lines.contains(&"path      (char[1034]) = \"/tmp/some/path\""),
        "{}",
        text.stdout
    );
    // Seven locals, a line each: no member lists, no characters one per line.
    assert_eq!(lines.len(), 7, "{}", text.stdout);

    // `--full` and `print` show the whole value.
    let full = s.data(&["locals", "--full"]);
    let whole = format!("\"{}\"", "a".repeat(299));
    assert_eq!(variable(&full["variables"], "big")["value"], whole.as_str());
    assert_eq!(s.data(&["print", "big"])["value"], whole.as_str());
    assert_eq!(
        s.data(&["print", "path"])["children"],
        serde_json::json!([])
    );
}

/// The names a step's report lists as changed.
fn changed_names(stepped: &Value) -> Vec<String> {
    stepped["stop"]["changed"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|v| v["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_recursive_call_is_a_frame_of_its_own_for_what_changed() {
    require_lldb_dap();
    const RECURSE: &str = "c/recurse.c";
    let s = Session::new();
    s.start(&build(RECURSE), &["-b", &at(RECURSE, "@recurse_call")]);
    locals_at_breakpoint(&s);
    assert_eq!(s.value_of("n"), "3");
    s.data(&["breakpoint", "remove", "--all"]);

    // Into depth_sum(2): a frame never seen, with nothing to compare (n = 3 was its caller's).
    let stepped = s.data(&["step", "--wait", "--timeout", "60"]);
    assert_eq!(s.value_of("n"), "2", "{stepped}");
    assert!(changed_names(&stepped).is_empty(), "{stepped}");
    s.data(&["next", "--wait", "--timeout", "60"]);

    // Back in depth_sum(3), compared with its own last stop, not with depth_sum(2)'s: n is 3 still.
    let finished = s.data(&["finish", "--wait", "--timeout", "60"]);
    assert_eq!(s.value_of("n"), "3", "{finished}");
    assert!(
        !changed_names(&finished).contains(&"n".to_string()),
        "{finished}"
    );
}

#[test]
fn changed_locals_are_marked_and_end_a_steps_report() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(VALUES), &["-b", &at(VALUES, "@values_ready")]);
    locals_at_breakpoint(&s);

    // `n += ...` runs: n changed, nothing else did.
    let stepped = s.data(&["next", "--wait", "--timeout", "60"]);
    let changed = &stepped["stop"]["changed"];
    let names: Vec<&str> = changed
        .as_array()
        .map(|list| list.iter().filter_map(|v| v["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["n"], "{stepped}");
    assert_eq!(changed[0]["value"], "5", "{stepped}");
    let text = s.run(&["next", "--wait", "--timeout", "60"]);
    // `one.id = n`: a member changed, and the report's locals mark it, with no second list.
    assert!(
        text.stdout
            .lines()
            .any(|l| l.starts_with("* one ") && l.contains("(node) = ") && l.contains("id = 5")),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("Changed:"), "{}", text.stdout);

    let locals = s.data(&["locals"]);
    let marked: Vec<&str> = locals["variables"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter(|v| v["changed"] == true)
                .filter_map(|v| v["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    // `p` points at `one`: its member changed as well.
    assert_eq!(marked, ["one", "p"], "{locals}");
    let listing = s.run(&["locals"]).stdout;
    assert!(
        listing.lines().any(|l| l.starts_with("* one ")),
        "{listing}"
    );
    assert!(listing.lines().any(|l| l.starts_with("  n ")), "{listing}");
    let only = s.data(&["locals", "--changed"]);
    assert_eq!(
        only["variables"].as_array().map(Vec::len),
        Some(2),
        "{only}"
    );
    assert_eq!(only["variables"][0]["name"], "one", "{only}");
    assert_eq!(
        only["variables"][0]["children"].as_array().map(Vec::len),
        Some(1),
        "only the changed member: {only}"
    );
}

#[test]
fn python_locals_list_functions_and_cut_long_strings() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(KINDS), &["-b", &at(KINDS, "@kinds_ready")]);
    let locals = locals_at_breakpoint(&s);
    let variables = &locals["variables"];
    let names: Vec<&str> = variables
        .as_array()
        .map(|list| list.iter().filter_map(|v| v["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        ["action", "big", "cart", "n", "rexmatch", "table"],
        "{locals}"
    );
    assert_eq!(locals["omitted"], 0);
    let action = variable(variables, "action");
    assert!(
        action["value"]
            .as_str()
            .is_some_and(|v| v.starts_with("<function helper at ")),
        "{action}"
    );
    assert_eq!(action["children"], serde_json::json!([]), "{action}");
    let big = variable(variables, "big");
    let expected = format!("'{}… (3898 more characters)", "x".repeat(199));
    assert_eq!(big["value"], expected.as_str(), "{big}");
    // A collection whose text was cut says only part of what it holds: its elements follow it,
    // a line each.
    let text = s.run(&["locals"]).stdout;
    let lines: Vec<&str> = text.lines().collect();
    let table = lines
        .iter()
        .position(|l| l.starts_with("table "))
        .unwrap_or_else(|| panic!("no table line: {text}"));
    assert!(lines[table].ends_with(" more characters)"), "{text}");
    assert!(
        lines.get(table + 1).is_some_and(|l| l.starts_with("  00 ")),
        "{text}"
    );
    // An object's data members are listed; its methods are said to be left out, apart from the
    // count of what `--children` would show.
    let cart = variable(variables, "cart");
    let members: Vec<&str> = cart["children"]
        .as_array()
        .map(|list| list.iter().filter_map(|v| v["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(members, ["items"], "{cart}");
    assert_eq!(cart["omitted_children"], 0, "{cart}");
    assert_eq!(cart["methods_omitted"], true, "{cart}");
}

#[test]
fn a_go_pointers_target_is_named_after_the_pointer() {
    require_delve();
    let s = Session::new();
    s.start(
        &build_go(GO_LEDGER),
        &["-b", &at(GO_LEDGER, "@deposit_body")],
    );
    let locals = locals_at_breakpoint(&s);
    let pointer = variable(&locals["variables"], "a");
    assert_eq!(pointer["children"][0]["name"], "*a", "{pointer}");
    assert_eq!(pointer["children"][0]["type"], "main.Account", "{pointer}");
}
