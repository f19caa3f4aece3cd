//! Ruby under the built-in `rdbg` adapter (the debug gem's DAP server, running inside the
//! program's own Ruby): the program picked by its `.rb` extension and as `ruby`'s own command
//! line, from a folder that is not the program's; breakpoints by file:line, continue, next,
//! step, finish with the returned value, locals and `print` of Ruby expressions (a Struct, an
//! object's instance variables, a Hash, Symbols), a backtrace, the program's stdout and stderr
//! and its exit status.
//!
//! Every test fails (never skips) when Ruby is missing: `scripts/install-test-deps.sh`
//! installs it with apt.

mod common;

use common::node::step_with;
use common::{Session, at, fixture_path, line_of, require_ruby, variable};
use serde_json::Value;

const APP: &str = "ruby/app.rb";

#[track_caller]
fn assert_at(stop: &Value, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(APP, marker), "{stop}");
}

#[test]
fn a_ruby_script_breaks_steps_inspects_and_exits_with_its_status() {
    require_ruby();
    let s = Session::new();
    let started = s.start(
        &fixture_path(APP),
        &[
            "--break",
            &at(APP, "@main_greet"),
            "--break",
            &at(APP, "@greet_first"),
        ],
    );
    assert_eq!(started["adapter"], "rdbg", "{started}");

    let stop = step_with(&s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, "<main>", "@main_greet");
    let locals = s.data(&["locals"])["variables"].clone();
    assert_eq!(
        variable(&locals, "point")["value"],
        "#<struct Point x=3, y=4>"
    );
    assert_eq!(
        variable(&locals, "settings")["value"],
        r#"{:mode=>:fast, "tries"=>[1, 2]}"#
    );
    assert_eq!(
        variable(&locals, "greeter")["value"]
            .as_str()
            .map(|v| v.contains(r#"@name="ann", @tags=[:warm, :short]"#)),
        Some(true),
        "{locals}"
    );
    assert_eq!(s.value_of("point.x + point.y"), "7");
    assert_eq!(s.value_of("settings[:mode]"), ":fast");
    assert_eq!(
        s.value_of("greeter.instance_variable_get(:@tags).size"),
        "2"
    );
    let failed = s.json(&["print", "no_such_name"]);
    assert_eq!(failed["ok"], false, "{failed}");

    // Stepping in lands on the method's first line, where its breakpoint is too.
    let stop = step_with(&s, "step");
    assert_at(&stop, "Greeter#greet", "@greet_first");
    // `@name` is the instance variable, not an `@FRAME:` prefix; a frame number still is one.
    assert_eq!(s.value_of("@name"), r#""ann""#);
    assert_eq!(s.value_of("@1:settings[:mode]"), ":fast");
    let backtrace = s.run(&["backtrace"]);
    let text = backtrace.ok();
    assert!(text.contains("Greeter#greet (app.rb:"), "{text}");
    assert!(text.contains("<main> (app.rb:"), "{text}");
    let stop = step_with(&s, "next");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_eq!(s.value_of("text"), r#""hi ann""#);
    let finished = s.run(&["finish", "--wait", "--timeout", "30"]);
    let text = finished.ok();
    assert!(text.contains(r#""hi ann!!""#), "{text}");

    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(s.data(&["status"])["exit_code"], 4);
    let output = s.run(&["output"]);
    let text = output.ok();
    assert!(text.contains("message=hi ann!! count=6 2 3"), "{text}");
    assert!(text.contains("to stderr"), "{text}");
}

#[test]
fn ruby_with_its_own_command_line_breaks_by_a_bare_file_name() {
    require_ruby();
    let s = Session::new();
    let folder = fixture_path("ruby");
    let lib = folder.display().to_string();
    let program = fixture_path(APP).display().to_string();
    let location = format!("app.rb:{}", line_of(APP, "@total_add"));
    let started = s.data(&[
        "start",
        "--no-wait",
        "--break",
        &location,
        "--",
        "ruby",
        "-I",
        &lib,
        &program,
    ]);
    assert_eq!(started["adapter"], "rdbg", "{started}");
    let stop = step_with(&s, "continue");
    assert_at(&stop, "block in total", "@total_add");
    assert_eq!(s.value_of("item"), "1");
    let stop = step_with(&s, "continue");
    assert_eq!(s.value_of("item"), "2", "{stop}");
    s.run(&["stop"]).ok();
}

/// `probe --print @name` is Ruby's instance variable, as `print` reads it, not a malformed
/// `@FRAME:EXPR`; a frame number still makes one.
#[test]
fn probe_prints_an_instance_variable_by_its_at_sign_name() {
    require_ruby();
    let s = Session::new();
    let program = fixture_path(APP);
    let run = s.run(&[
        "--json",
        "probe",
        program.to_str().expect("a UTF-8 path"),
        "--break",
        &at(APP, "@greet_first"),
        "--print",
        "@name",
        "--print",
        "@1:settings[:mode]",
    ]);
    let report = run.json();
    assert_eq!(report["ok"], true, "{report}");
    let prints = &report["data"]["hits"][0]["prints"];
    assert_eq!(prints[0]["value"], r#""ann""#, "{report}");
    assert_eq!(prints[1]["value"], ":fast", "{report}");
}
