//! JavaScript values under the built-in `node` adapter read as Node's own console shows them
//! (`util.inspect`): an array's holes as `<N empty items>` rather than left out, and a typed array
//! as its elements rather than its prototype's getters; a Map subclass that keeps its entries
//! elsewhere (immer's `DraftMap`) by its class's own `size` and entries, read without side effects;
//! a class a bundler renamed (`Store2`) by the name its source map gives it.
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

const DRAFT_MAP: &str = "javascript/draft_map.js";

#[test]
fn a_map_subclass_that_keeps_its_entries_elsewhere_shows_its_own_size_and_entries() {
    require_node();
    let s = Session::new();
    s.start(
        &fixture_path(DRAFT_MAP),
        &["-b", &common::at(DRAFT_MAP, "@drafts_ready")],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");

    // immer's DraftMap: the Map itself is empty; its class's `size` and iterator read the entries.
    let draft = s.data(&["print", "draft"]);
    assert_eq!(
        draft["value"], "DraftMap(3) {\"a\" => 1, \"b\" => 2, \"c\" => 3}",
        "{draft}"
    );
    let locals = s.data(&["locals"]);
    let listed = common::variable(&locals["variables"], "draft");
    assert_eq!(listed["value"], draft["value"], "{listed}");
    // Inside another value, its size unread there, no `(0)` is shown.
    let nested = s.data(&["print", "[draft]"]);
    assert_eq!(nested["value"], "[DraftMap {…}]", "{nested}");

    // A `size` getter that writes is not run: the value says why it shows no size, and the
    // program is as it was.
    let counting = s.data(&["print", "counting"]);
    let value = counting["value"].as_str().unwrap_or_default();
    assert!(
        value.starts_with("CountingSet {…} (size not read: its own size getter may change"),
        "{counting}"
    );
    assert_eq!(s.data(&["print", "counting.reads"])["value"], "0");
    // A Map itself is as V8 counts it.
    assert_eq!(
        s.data(&["print", "plain"])["value"],
        "Map(1) {\"k\" => \"v\"}"
    );
}

const RENAMED_BUNDLE: &str = "javascript/renamed_class/bundle.js";
const RENAMED_SOURCE: &str = "javascript/renamed_class/main.ts";

#[test]
fn a_class_a_bundler_renamed_is_named_as_its_source_map_says() {
    require_node();
    let s = Session::new();
    s.start(
        &fixture_path(RENAMED_BUNDLE),
        &["-b", &common::at(RENAMED_SOURCE, "@read")],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");

    // esbuild runs main.ts's `Store` as `Store2`; the map names it `Store` where it stands.
    let locals = s.data(&["locals"]);
    let this = common::variable(&locals["variables"], "this");
    assert_eq!(this["type"], "Store", "{this}");
    assert_eq!(this["value"], "Store {count: 1}", "{this}");
    let printed = s.data(&["print", "@1:store"]);
    assert_eq!(printed["type"], "Store", "{printed}");
    assert_eq!(printed["value"], "Store {count: 1}", "{printed}");
}
