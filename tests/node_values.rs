//! JavaScript values under the built-in `node` adapter read as Node's own console shows them
//! (`util.inspect`): an array's holes as `<N empty items>` rather than left out, and a typed array
//! as its elements rather than its prototype's getters.
//!
//! Every test fails (never skips) when `node` is missing: `.ci/run` installs it with apt.

mod common;

use common::{Session, fixture_path, require_node};

const APP: &str = "javascript/app.js";

#[test]
fn sparse_and_typed_arrays_read_as_nodes_console_shows_them() {
    require_node();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["--stop-on-entry"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");
    let cases = [
        ("[1,,3]", "[1, <1 empty item>, 3]"),
        ("new Array(5)", "[<5 empty items>]"),
        (
            "[, 1, , , 4, ,]",
            "[<1 empty item>, 1, <2 empty items>, 4, <1 empty item>]",
        ),
        (
            "Object.assign([1, , ], {tag: 'x'})",
            "[1, <1 empty item>, tag: \"x\"]",
        ),
        ("new Uint8Array(3)", "Uint8Array(3) [0, 0, 0]"),
        (
            "Object.assign(new Float64Array([1.5, 2]), {unit: 'm'})",
            "Float64Array(2) [1.5, 2, unit: \"m\"]",
        ),
    ];
    for (expression, shown) in cases {
        let printed = s.data(&["print", expression]);
        assert_eq!(printed["value"], shown, "{expression}: {printed}");
    }
    // A typed array's children are its elements too.
    let printed = s.data(&["print", "new Uint8Array(3)"]);
    let names: Vec<&str> = printed["children"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["0", "1", "2"], "{printed}");
}
