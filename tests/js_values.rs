//! JavaScript values a reader looks for where V8 keeps them apart: the closure variables a
//! function uses are among its locals (a CommonJS module's top level is not), and a Proxy shows
//! its target. Run from a folder that is not the program's.

mod common;

use common::{Session, at, fixture_path, require_node, variable};
use serde_json::Value;

const CLOSURES: &str = "javascript/closures.js";

fn stopped_at(marker: &str) -> Session {
    require_node();
    let s = Session::new();
    let program = fixture_path(CLOSURES);
    let started = s.data(&[
        "start",
        program.to_str().expect("utf-8 path"),
        "--break",
        &at(CLOSURES, marker),
        "--wait",
        "60",
    ]);
    assert_eq!(started["state"], "stopped", "{started}");
    s
}

fn names(locals: &Value) -> Vec<String> {
    locals["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter_map(|v| v["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_closures_variables_are_locals_of_the_function_that_uses_them() {
    let s = stopped_at("@bump_body");
    let locals = s.data(&["locals"]);
    let names = names(&locals);
    for name in ["extra", "step", "count", "label"] {
        assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
    }
    let variables = &locals["variables"];
    assert_eq!(
        variable(variables, "label")["value"],
        "\"counter\"",
        "{locals}"
    );
    // The module's top level (its wrapper's closure) is no local of `bump`.
    for name in ["makeCounter", "reg", "proxied"] {
        assert!(!names.iter().any(|n| n == name), "{name} listed: {names:?}");
    }
    let stepped = s.data(&["next", "--wait"]);
    let changed = stepped["stop"]["locals"].to_string();
    assert!(changed.contains("\"next\""), "{stepped}");
    s.run(&["stop"]);
}

#[test]
fn a_proxy_shows_its_target() {
    let s = stopped_at("@report");
    let printed = s.data(&["print", "proxied"]);
    assert_eq!(printed["value"], "Proxy(Object)", "{printed}");
    let target = variable(&printed["children"], "[[Target]]");
    assert_eq!(target["value"], "{kind: \"retag\", n: 1}", "{printed}");
    let text = s.run(&["print", "proxied"]).ok().to_string();
    assert!(
        text.contains("[[Target]] = {kind: \"retag\", n: 1}"),
        "{text}"
    );
    let registry = s.data(&["print", "reg"]);
    assert_eq!(
        registry["value"], "Registry(3) {\"a\" => 1, \"b\" => 2, \"c\" => 3}",
        "{registry}"
    );
    s.run(&["stop"]);
}

/// V8's preview of `order` is `{id: 7, lines: […]}`; its members hold the rest, so the whole
/// value is shown once in the preview's words, not the preview and then its members again.
#[test]
fn a_preview_its_members_complete_is_shown_whole_once() {
    let s = stopped_at("@report");
    let text = s.run(&["print", "order"]).ok().to_string();
    assert_eq!(text.trim_end(), "order (Object) = {id: 7, lines: [1, 2]}");
    s.run(&["stop"]);
}
