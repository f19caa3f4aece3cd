//! What `print` says when an expression fails, on every adapter: the hint fits the failure (an
//! unknown name sends you to `locals`; a syntax error, an exception the expression raised, a Go
//! call made without `call` or a JavaScript loop that never ends say so), and `set` errors read
//! as `print` errors do.

mod common;

use std::path::Path;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_lldb_dap,
    require_node, with_go_env,
};
use serde_json::Value;

const LOCALS_HINT: &str = "`debugger locals` lists the names in scope here";
const SYNTAX_HINT: &str = "check the expression's syntax (it is the program's language)";

/// `print EXPRESSION`'s error, as (message, hint); the command must fail with exit 1.
#[track_caller]
fn print_error(s: &Session, expression: &str) -> (String, String) {
    let run = s.run(&["--json", "print", "--", expression]);
    assert_eq!(run.code, 1, "print {expression}: {run:?}");
    let value = run.json();
    assert_eq!(value["ok"], false, "print {expression}: {value}");
    let text = |field: &str| value["error"][field].as_str().unwrap_or("").to_string();
    (text("message"), text("hint"))
}

/// Starts `program` with `extra` start arguments, continues to the first breakpoint and checks
/// the stop is one.
#[track_caller]
fn stopped(s: &Session, program: &Path, extra: &[&str]) {
    let program = program.to_str().expect("utf-8 path");
    let mut args = vec!["--json", "start", "--no-wait", program];
    args.extend_from_slice(extra);
    let started = with_go_env(&mut s.command())
        .args(&args)
        .output()
        .expect("run debugger");
    let started = common::Run::from(started).json();
    assert_eq!(started["ok"], true, "{started}\n{}", s.log());
    let stop = s.data(&["continue", "--wait", "--timeout", "60"])["stop"].clone();
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
}

/// `set NAME VALUE`'s error, as (message, hint); the command must fail with exit 1.
#[track_caller]
fn set_error(s: &Session, name: &str, value: &str) -> (String, String) {
    let run = s.run(&["--json", "set", "--", name, value]);
    assert_eq!(run.code, 1, "set {name} {value}: {run:?}");
    let error = run.failure();
    let text = |field: &str| error[field].as_str().unwrap_or("").to_string();
    (text("message"), text("hint"))
}

#[track_caller]
fn assert_hint(found: &(String, String), hint: &str) {
    assert_eq!(found.1, hint, "{found:?}");
}

#[test]
fn lldb_gives_the_locals_hint_only_for_an_unknown_name() {
    require_lldb_dap();
    let s = Session::new();
    stopped(
        &s,
        &build("c/ledger.c"),
        &["-b", &at("c/ledger.c", "@apply_body")],
    );

    let unknown = print_error(&s, "nosuch");
    assert_eq!(unknown.0, "use of undeclared identifier 'nosuch'");
    assert_hint(&unknown, LOCALS_HINT);
    assert_hint(&print_error(&s, "acct->"), SYNTAX_HINT);
    let member = print_error(&s, "acct->nosuch");
    assert!(member.0.contains("no member named 'nosuch'"), "{member:?}");
    assert_hint(&member, "`debugger print acct` shows the members it has");
}

#[test]
fn lldb_set_errors_are_cleaned_as_print_errors_are() {
    require_lldb_dap();
    let s = Session::new();
    stopped(
        &s,
        &build("c/ledger.c"),
        &["-b", &at("c/ledger.c", "@apply_body")],
    );

    // LLDB's "error: <user expression 0>:1:1: ..." and its caret lines, said once and plainly.
    let (message, hint) = set_error(&s, "nosuch.x", "5");
    assert_eq!(message, "use of undeclared identifier 'nosuch'");
    assert_eq!(hint, LOCALS_HINT);
    let text = s.run(&["set", "nosuch.x", "5"]);
    assert_eq!(
        text.stderr,
        format!("error: use of undeclared identifier 'nosuch'\nhint: {LOCALS_HINT}\n")
    );
}

#[test]
fn lldb_set_failures_name_what_could_not_be_set() {
    require_lldb_dap();
    let s = Session::new();
    let values = "rust/values.rs";
    stopped(&s, &build(values), &["-b", &at(values, "@main_after")]);

    // A &str member: lldb-dap's only word is "Invalid encoding.", in its answer's body.
    let (message, hint) = set_error(&s, "pair.1", "\"y\"");
    assert_eq!(
        message,
        "lldb could not set pair.1 to \"y\": Invalid encoding."
    );
    assert!(
        hint.contains("lldb cannot assign every kind of value"),
        "{hint}"
    );
    assert!(hint.contains("`debugger raw`"), "{hint}");
    // No word at all from lldb-dap: what failed is said in ours.
    let (message, _) = set_error(&s, "points[0].nosuch", "5");
    assert_eq!(message, "lldb could not set points[0].nosuch to 5");
    // What it can assign, it does.
    assert_eq!(s.data(&["set", "points[0].x", "5"])["value"], "5");
}

#[test]
fn gdb_gives_the_locals_hint_only_for_an_unknown_name() {
    let s = Session::with_gdb();
    stopped(
        &s,
        &build("c/ledger.c"),
        &["--adapter", "gdb", "-b", &at("c/ledger.c", "@apply_body")],
    );

    assert_hint(&print_error(&s, "nosuch"), LOCALS_HINT);
    assert_hint(&print_error(&s, "acct->"), SYNTAX_HINT);
    let division = print_error(&s, "1/0");
    assert_eq!(division, ("Division by zero".to_string(), String::new()));

    // `set` names what it could not set, and its reason gets print's hint.
    let (message, hint) = set_error(&s, "acct->balance", "nosuch");
    assert_eq!(
        message,
        "gdb could not set acct->balance to nosuch: No symbol \"nosuch\" in current context."
    );
    assert_eq!(hint, LOCALS_HINT);
}

#[test]
fn python_errors_say_what_the_expression_did() {
    require_debugpy();
    let s = Session::new();
    let app = "python/app.py";
    stopped(&s, &fixture_path(app), &["-b", &at(app, "@deposit_update")]);

    assert_hint(&print_error(&s, "nosuch"), LOCALS_HINT);
    assert_hint(&print_error(&s, "self.owner["), SYNTAX_HINT);
    let raised = print_error(&s, "1/0");
    assert_eq!(
        raised,
        (
            "the expression raised ZeroDivisionError: division by zero".to_string(),
            String::new()
        )
    );
    let key = print_error(&s, "{}['k']");
    assert_eq!(key.0, "the expression raised KeyError: 'k'", "{key:?}");
    let statement = print_error(&s, "x = 5");
    assert!(statement.0.starts_with("SyntaxError"), "{statement:?}");
    assert!(
        statement.1.contains("`debugger raw` runs a statement"),
        "{statement:?}"
    );
    assert_hint(
        &print_error(&s, "self.nosuch"),
        "`debugger print self` shows the members it has",
    );
}

#[test]
fn go_errors_say_what_to_do_next() {
    require_delve();
    let s = Session::new();
    let ledger = "go/ledger/main.go";
    stopped(&s, &build_go(ledger), &["-b", &at(ledger, "@deposit_body")]);

    assert_hint(&print_error(&s, "nosuch"), LOCALS_HINT);
    assert_hint(&print_error(&s, "1 +"), SYNTAX_HINT);
    let call = print_error(&s, "add(1, 2)");
    assert!(
        call.1.contains("`debugger print 'call add(1, 2)'`"),
        "{call:?}"
    );
    // What the hint says works.
    assert_eq!(s.value_of("call add(1, 2)"), "3");
}

#[test]
fn javascript_errors_say_what_the_expression_did() {
    require_node();
    let s = Session::new();
    let app = "javascript/app.js";
    stopped(&s, &fixture_path(app), &["-b", &at(app, "@deposit_update")]);

    assert_hint(&print_error(&s, "nosuch"), LOCALS_HINT);
    assert_hint(&print_error(&s, "this.owner["), SYNTAX_HINT);
    let thrown = print_error(&s, "(() => { throw new Error('x') })()");
    assert_eq!(
        thrown,
        ("the expression raised Error: x".to_string(), String::new())
    );
    let endless = print_error(&s, "while (true) {}");
    assert_eq!(
        endless.0,
        "the evaluation of 'while (true) {}' did not return within 10 s and was interrupted; \
         the program is stopped where it was",
        "{endless:?}"
    );
    assert!(endless.1.contains("--timeout SECS"), "{endless:?}");
    let value: Value = s.data(&["print", "this.balance"]);
    assert_eq!(value["value"], "100", "{value}");
}
