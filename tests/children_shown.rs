//! A value with more children than a listing shows (32 by default), against real adapters, from
//! a directory that is not the program's: the line that counts what was left out names the
//! command and `--children N` that shows the rest, and that command shows it. An object's
//! methods, which no flag lists, are said apart from that count (`… methods not listed`).

mod common;

use common::{
    Session, at, build, fixture_path, require_debugpy, require_lldb_dap, require_node, variable,
};
use serde_json::Value;

const C_HUNDRED: &str = "c/hundred.c";
const PY_HUNDRED: &str = "python/hundred.py";
const JS_HUNDRED: &str = "javascript/hundred.js";

/// Starts `program` with a breakpoint on `fixture`'s `@numbers_ready` line and runs to it.
fn stopped(s: &Session, program: &std::path::Path, fixture: &str) {
    s.start(program, &["-b", &at(fixture, "@numbers_ready")]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
}

/// The text output of `debugger ARGS...`, which must succeed.
#[track_caller]
fn text(s: &Session, args: &[&str]) -> String {
    s.run(args).ok().to_string()
}

/// The names of a value's children, as `--json` gives them.
fn child_names(value: &Value) -> Vec<&str> {
    value["children"]
        .as_array()
        .map(|c| c.iter().filter_map(|v| v["name"].as_str()).collect())
        .unwrap_or_default()
}

/// The command the last line naming `--children` gives, without its backquotes.
#[track_caller]
fn named_command(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.contains("more not shown: `"))
        .unwrap_or_else(|| panic!("no line names a command: {text}"));
    let command = line
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("no command in {line}"));
    let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    assert_eq!(
        words.first().map(String::as_str),
        Some("debugger"),
        "{line}"
    );
    words[1..].to_vec()
}

/// Whether `text` has the line of element `name` (its name padded to its list's widest) with
/// `value`.
fn has_element(text: &str, name: &str, value: &str) -> bool {
    text.lines().any(|l| {
        l.trim_start()
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with(' ') && rest.ends_with(&format!(" = {value}")))
    })
}

/// Runs the command a cut names, and checks that it leaves nothing out.
#[track_caller]
fn the_named_command_shows_all(s: &Session, cut: &str) -> String {
    let command = named_command(cut);
    let args: Vec<&str> = command.iter().map(String::as_str).collect();
    let whole = text(s, &args);
    assert!(!whole.contains("more not shown"), "{whole}");
    whole
}

#[test]
fn a_c_array_of_100_says_which_print_and_locals_show_all_of_it() {
    require_lldb_dap();
    let s = Session::new();
    stopped(&s, &build(C_HUNDRED), C_HUNDRED);

    let printed = text(&s, &["print", "numbers"]);
    assert!(
        printed.contains("… 68 more not shown: `debugger print numbers --children 100`"),
        "{printed}"
    );
    let whole = the_named_command_shows_all(&s, &printed);
    assert!(whole.contains("[99] (int) = 990"), "{whole}");
    let json = s.data(&["print", "numbers", "--children", "100"]);
    assert_eq!(child_names(&json).len(), 100, "{json}");
    assert_eq!(json["omitted_children"], 0, "{json}");

    let locals = text(&s, &["locals"]);
    assert!(
        locals.contains("… 68 more not shown: `debugger locals --children 100`"),
        "{locals}"
    );
    let whole = the_named_command_shows_all(&s, &locals);
    assert!(whole.contains("[99] (int) = 990"), "{whole}");
    let json = s.data(&["locals", "--children", "100"]);
    assert_eq!(
        variable(&json["variables"], "numbers")["omitted_children"],
        0
    );
}

#[test]
fn a_python_list_of_100_names_its_command_and_an_objects_methods_are_not_counted_with_it() {
    require_debugpy();
    let s = Session::new();
    stopped(&s, &fixture_path(PY_HUNDRED), PY_HUNDRED);

    let printed = text(&s, &["print", "numbers"]);
    let command = named_command(&printed);
    assert_eq!(
        command[..3],
        ["print", "numbers", "--children"],
        "{printed}"
    );
    let whole = the_named_command_shows_all(&s, &printed);
    assert!(has_element(&whole, "99", "990"), "{whole}");

    // The object's one method is no child `--children` would show: said apart, and not counted.
    let point = s.data(&["print", "point"]);
    assert_eq!(point["omitted_children"], 0, "{point}");
    assert_eq!(point["methods_omitted"], true, "{point}");
    assert_eq!(child_names(&point), ["x", "y"], "{point}");
    let printed = text(&s, &["print", "point"]);
    assert!(
        printed.ends_with("{x = 3, y = 4, … methods not listed}\n"),
        "{printed}"
    );
    assert!(!printed.contains("more"), "{printed}");
}

#[test]
fn a_javascript_array_of_100_in_locals_names_the_locals_that_show_all_of_it() {
    require_node();
    let s = Session::new();
    stopped(&s, &fixture_path(JS_HUNDRED), JS_HUNDRED);

    // `locals` cuts the array's text at a line's worth: its children follow, cut in turn.
    let locals = text(&s, &["locals"]);
    assert!(
        locals.contains("… 68 more not shown: `debugger locals --children 100`"),
        "{locals}"
    );
    let whole = the_named_command_shows_all(&s, &locals);
    assert!(has_element(&whole, "99", "990"), "{whole}");

    let json = s.data(&["print", "numbers", "--children", "100"]);
    assert_eq!(child_names(&json).len(), 100, "{json}");
    assert_eq!(json["omitted_children"], 0, "{json}");
    let json = s.data(&["print", "numbers"]);
    assert_eq!(json["omitted_children"], 68, "{json}");
}

#[test]
fn a_probe_says_its_own_children_flag_shows_what_it_left_out() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(C_HUNDRED);
    let program = program.to_str().expect("utf-8 path");
    let location = at(C_HUNDRED, "@numbers_ready");
    let probe = ["probe", program, "-b", &location, "-p", "numbers"];

    let cut = text(&s, &probe);
    assert!(
        cut.contains("… 68 more not shown: `probe … --children 100`"),
        "{cut}"
    );
    let whole = text(&s, &[&probe[..], &["--children", "100"]].concat());
    assert!(!whole.contains("more not shown"), "{whole}");
    assert!(whole.contains("[99] (int) = 990"), "{whole}");
    let json = s.data(&[&probe[..], &["--children", "100"]].concat());
    let printed = &json["hits"][0]["prints"][0];
    assert_eq!(child_names(printed).len(), 100, "{printed}");
    assert_eq!(printed["omitted_children"], 0, "{printed}");
}
