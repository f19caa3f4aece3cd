//! Where a `node` breakpoint binds: file names as typed (a bare name, a relative path, a file
//! required from a computed path, names two scripts share) and functions in a minified bundle.
//!
//! Every test fails (never skips) when `node` is missing: `.ci/run` installs it with apt.

mod common;

use std::path::Path;

use common::node::*;
use common::{Session, fixture_path, line_of, require_node};
use serde_json::{Value, json};

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
