//! ES modules on the node adapter: an exception thrown at the top level of an `.mjs` program,
//! or of a `.js` one whose package.json says `"type": "module"`, is caught by Node's module
//! loader (nodejs/node#50430), yet it stops as an uncaught exception does in CommonJS: at the
//! throw, with the error's type and message and the locals readable. Exceptions the program
//! catches itself do not stop.

mod common;

use common::{Session, fixture_path, line_of, require_node};

#[test]
fn an_uncaught_exception_at_an_mjs_programs_top_level_stops_at_the_throw() {
    require_node();
    let s = Session::new();
    let fixture = "javascript/esm/throws.mjs";
    s.start(&fixture_path(fixture), &[]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "exception", "{stop}\n{}", s.log());
    // Not at the exception the module catches itself, which comes first.
    assert_eq!(
        stop["frame"]["line"].as_u64(),
        Some(u64::from(line_of(fixture, "@esm_throw"))),
        "{stop}"
    );
    assert_eq!(stop["exception"]["type"], "TypeError", "{stop}");
    assert_eq!(stop["exception"]["message"], "limit 3 of 2 is missing");
    assert_eq!(s.value_of("wanted"), "3");
    assert_eq!(s.value_of("fallback"), "10");
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
    assert_eq!(end["stop"]["exit_code"], 1);
}

#[test]
fn a_type_module_programs_exception_stops_in_the_function_that_threw() {
    require_node();
    let s = Session::new();
    let fixture = "javascript/esm/typed/app.js";
    s.start(&fixture_path(fixture), &[]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "exception", "{stop}\n{}", s.log());
    assert_eq!(stop["frame"]["function"], "check");
    assert_eq!(
        stop["frame"]["line"].as_u64(),
        Some(u64::from(line_of(fixture, "@esm_typed_throw")))
    );
    assert_eq!(stop["exception"]["type"], "RangeError", "{stop}");
    assert_eq!(s.value_of("config.retries"), "-1");
    s.run(&["stop"]);
}

#[test]
fn an_exception_an_es_module_catches_itself_does_not_stop() {
    require_node();
    let s = Session::new();
    let fixture = "javascript/esm/throws.mjs";
    // The first stop is the breakpoint: the exception caught before it did not stop.
    let at = format!(
        "{}:{}",
        fixture_path(fixture).display(),
        line_of(fixture, "@esm_throw")
    );
    s.start(&fixture_path(fixture), &["-b", &at]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
    s.run(&["stop"]);
}

#[test]
fn a_typescript_es_module_run_by_tsx_stops_at_its_top_level_throw() {
    require_node();
    let tsx = fixture_path("typescript/node_modules/tsx/package.json");
    assert!(
        tsx.is_file(),
        "{} is missing: run scripts/install-test-deps.sh (npm ci in fixtures/typescript)",
        tsx.display()
    );
    let s = Session::new();
    let fixture = "typescript/src/throws.mts";
    s.start(&fixture_path(fixture), &[]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "exception", "{stop}\n{}", s.log());
    assert_eq!(
        stop["frame"]["file"],
        fixture_path(fixture).display().to_string()
    );
    assert_eq!(
        stop["frame"]["line"].as_u64(),
        Some(u64::from(line_of(fixture, "@mts_throw")))
    );
    assert_eq!(stop["exception"]["message"], "order 7 has no lines");
    assert_eq!(s.value_of("order.id"), "7");
    s.run(&["stop"]);
}
