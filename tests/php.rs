//! PHP under the built-in Xdebug adapter (our DBGp server, which PHP dials in to): the account
//! fixture started from a folder that is not the program's, as a script and as a `php` command
//! line of the user's own; breakpoints by a bare file name, by function and `Class::method`,
//! with conditions and hit counts; next, step and finish; locals with `$this` and its
//! properties, superglobals in a scope of their own; `print` through Xdebug's `eval`, `set`;
//! `catch` on exceptions by class; the program's output and exit code.
//!
//! Every test fails (never skips) when PHP with Xdebug is missing.

mod common;

use std::time::Duration;

use serde_json::Value;

use common::{Session, at, fixture_path, line_of, require_php, variable};

const FIXTURE: &str = "php/account.php";

fn bare(marker: &str) -> String {
    format!("account.php:{}", line_of(FIXTURE, marker))
}

fn line(stop: &Value) -> u64 {
    stop["frame"]["line"].as_u64().unwrap_or(0)
}

fn function(stop: &Value) -> &str {
    stop["frame"]["function"].as_str().unwrap_or("")
}

#[test]
fn a_bare_file_name_breaks_and_the_stop_shows_locals_this_stack_output_and_exit_code() {
    require_php();
    let s = Session::new();
    let started = s.start(&fixture_path(FIXTURE), &["--break", &bare("@apply_body")]);
    assert_eq!(started["adapter"], "xdebug", "{started}");

    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(function(&stop), "Account->apply", "{stop}");
    assert_eq!(line(&stop), u64::from(line_of(FIXTURE, "@apply_body")));

    let locals = s.data(&["locals"])["variables"].clone();
    assert_eq!(variable(&locals, "$amount")["value"], "5", "{locals}");
    let this = variable(&locals, "$this");
    assert_eq!(this["type"], "Account", "{locals}");
    let owner = variable(&this["children"], "owner");
    assert_eq!(
        owner["value"], "\"ann\"",
        "a private property is shown: {locals}"
    );
    assert!(
        !locals.to_string().contains("_SERVER"),
        "superglobals are not locals: {locals}"
    );
    assert_eq!(s.value_of("$this->balance"), "10");
    assert_eq!(s.value_of("$this->balance * 2 + $amount"), "25");
    assert_eq!(s.value_of("strtoupper('ok')"), "\"OK\"");

    let backtrace = s.data(&["backtrace"]);
    let frames: Vec<(&str, u64)> = backtrace["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| {
            (
                f["function"].as_str().unwrap_or(""),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        frames.first(),
        Some(&("Account->apply", u64::from(line_of(FIXTURE, "@apply_body")))),
        "{backtrace}"
    );
    assert_eq!(frames.last().map(|f| f.0), Some("{main}"), "{backtrace}");

    let stepped = s.stop_after("next");
    assert_eq!(line(&stepped), u64::from(line_of(FIXTURE, "@apply_update")));
    assert_eq!(s.value_of("$before"), "10");
    s.data(&["set", "$before", "100"]);
    assert_eq!(s.value_of("$before"), "100");
    let back = s.stop_after("finish");
    assert_eq!(function(&back), "{main}", "{back}");

    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.stop_after("continue");
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    let text = s.output_containing(
        &["balance: 105", "account: warning", "account: done"],
        Duration::from_secs(30),
    );
    assert!(text.contains("square: 9"), "{text}");
}

/// `start -- php -d… script args`: the user's flags and arguments stay, ours are added; step
/// into a function and read the superglobals' scope.
#[test]
fn a_php_command_line_of_the_users_own_keeps_its_flags_and_arguments() {
    require_php();
    let s = Session::new();
    let script = fixture_path(FIXTURE);
    let script = script.to_str().expect("utf-8 path");
    let brk = at(FIXTURE, "@square_call");
    s.data(&[
        "start",
        "--no-wait",
        "--break",
        &brk,
        "--",
        "php",
        "-d",
        "precision=5",
        script,
        "overdraw",
    ]);
    let stop = s.stop_after("continue");
    assert_eq!(line(&stop), u64::from(line_of(FIXTURE, "@square_call")));
    assert_eq!(s.value_of("ini_get('precision')"), "\"5\"");
    assert_eq!(s.value_of("$argv[1]"), "\"overdraw\"");
    let inside = s.stop_after("step");
    assert_eq!(function(&inside), "square", "{inside}");
    assert_eq!(line(&inside), u64::from(line_of(FIXTURE, "@square_body")));
    let end = s.stop_after("continue");
    assert_eq!(end["exit_code"], 3, "{end}");
    s.output_containing(&["caught: overdrawn by 78"], Duration::from_secs(30));
}

/// Function and method breakpoints, a condition, a hit count, and `catch CLASS`.
#[test]
fn functions_methods_conditions_hit_counts_and_exceptions_by_class_stop() {
    require_php();
    let s = Session::new();
    s.start(
        &fixture_path(FIXTURE),
        &["--break", "square", "--", "overdraw"],
    );
    let stop = s.stop_after("continue");
    assert_eq!(function(&stop), "square", "{stop}");
    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["break", "Account::apply"]);
    let method = s.stop_after("continue");
    assert_eq!(function(&method), "Account->apply", "{method}");
    assert_eq!(s.value_of("$amount"), "5");
    s.data(&["breakpoint", "remove", "--all"]);
    let conditional = format!("{} if $amount < 0", bare("@apply_update"));
    s.data(&["break", &conditional]);
    let stop = s.stop_after("continue");
    assert_eq!(s.value_of("$amount"), "-100", "{stop}");
    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["catch", "DomainException"]);
    let thrown = s.stop_after("continue");
    assert_eq!(thrown["reason"], "exception", "{thrown}");
    assert_eq!(
        line(&thrown),
        u64::from(line_of(FIXTURE, "@throw")),
        "{thrown}"
    );
}

/// A PHP without Xdebug: the start fails, naming the package and the ini line. The PHP is a
/// shell script's, so the test is Unix's.
#[cfg(unix)]
#[test]
fn a_php_without_xdebug_is_refused_with_the_package_and_the_ini_line() {
    require_php();
    let dir = tempfile::tempdir().expect("tempdir");
    let wrapper = dir.path().join("php");
    // `php -n` reads no ini file, so no extension is loaded.
    std::fs::write(&wrapper, "#!/bin/sh\nexec php -n \"$@\"\n").expect("write");
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let s = Session::with_config(&format!(
        "[adapters.xdebug]\npath = {:?}\n",
        wrapper.display().to_string()
    ));
    let program = fixture_path(FIXTURE);
    let failed = s.json(&["start", program.to_str().expect("utf-8 path")]);
    let error = failed["error"].to_string();
    assert!(
        error.contains("php-xdebug") && error.contains("zend_extension=xdebug"),
        "{failed}"
    );
}

/// Xdebug reads no command while the script runs: a breakpoint set then is answered at once,
/// unverified, with the way to set it, never left waiting.
#[test]
fn a_breakpoint_while_the_script_runs_is_refused_with_the_way_to_set_it() {
    require_php();
    let s = Session::new();
    let program = common::repo_root().join("tests/fixtures/conformance/php/conformance.php");
    s.start(&program, &["--", "wait"]);
    s.output_containing(&["tick: 1"], Duration::from_secs(30));
    let refused = s.data(&["break", "conformance.php:31"]);
    assert_eq!(refused["verified"], false, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("only while the script is stopped")),
        "{refused}"
    );
    s.data(&["stop"]);
}
