//! Go values in Go's words, not Delve's internals: a byte slice that holds text shows the text
//! (a binary one keeps its bytes), a rune its character, a `reflect.Value` what it holds, and a
//! function's unnamed results (`~r0`, garbage until it returns) are no locals. Run from a folder
//! that is not the program's.

mod common;

use common::{Session, at, build_go, require_delve};
use serde_json::Value;

const VALUES: &str = "go/values/main.go";

/// A session stopped at the first line of `describe`'s body.
fn stopped_in_describe() -> Session {
    require_delve();
    let program = build_go(VALUES);
    let s = Session::new();
    let line = at(VALUES, "@describe_body");
    let started = s.data(&[
        "start",
        program.to_str().expect("utf-8 path"),
        "--break",
        &line,
        "--wait",
        "60",
    ]);
    assert_eq!(started["state"], "stopped", "{started}");
    s
}

fn printed(s: &Session, expression: &str) -> String {
    let value: Value = s.data(&["print", expression]);
    value["value"].as_str().unwrap_or_default().to_string()
}

#[test]
fn byte_slices_of_text_runes_and_reflect_values_read_as_go_writes_them() {
    let s = stopped_in_describe();
    assert_eq!(
        printed(&s, "r.Raw"),
        "[]uint8 len: 9, cap: 9, \"say \\\"hi\\\"\\n\""
    );
    assert_eq!(printed(&s, "r.Blob"), "[]uint8 len: 3, cap: 3, [0,1,255]");
    assert_eq!(printed(&s, "ch"), "113 'q'");
    assert_eq!(printed(&s, "v"), "42");
    let record = printed(&s, "r");
    assert!(
        record.contains("Raw: []uint8 len: 9, cap: 9, \"say \\\"hi\\\"\\n\""),
        "{record}"
    );
    assert_eq!(printed(&s, "at"), "main.Point {X: 1, Y: 2}");
    let text = s.run(&["locals"]).ok().to_string();
    assert!(text.contains("(int32) = 113 'q'"), "{text}");
    // A listing's text of a reflect.Value stops before its pointer: read from its members, and
    // shown without them (its typ_, ptr and flag).
    assert!(text.contains("(reflect.Value) = 42\n"), "{text}");
    assert!(
        text.contains("(reflect.Value) = main.Point {X: 1, Y: 2}"),
        "{text}"
    );
    let locals: Value = s.data(&["locals"]);
    let v = locals["variables"]
        .as_array()
        .and_then(|all| all.iter().find(|each| each["name"] == "v"))
        .expect("v among the locals");
    assert_eq!(v["children"], serde_json::json!([]), "{v}");
    s.run(&["stop"]);
}

#[test]
fn unnamed_results_are_not_locals_before_the_function_returns() {
    let s = stopped_in_describe();
    let locals: Value = s.data(&["locals"]);
    let names: Vec<&str> = locals["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert!(names.contains(&"r") && names.contains(&"ch"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("~r")), "{names:?}");
    let stepped = s.run(&["next", "--wait"]).ok().to_string();
    assert!(!stepped.contains("~r0"), "{stepped}");
    let finished: Value = s.data(&["finish", "--wait", "--timeout", "30"]);
    assert_eq!(finished["stop"]["return_value"], "122, nil", "{finished}");
    s.run(&["stop"]);
}
