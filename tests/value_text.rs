//! Values as text, against real adapters: a value whose own text leaves something out (`…`,
//! `[...]`, a text cut at the line limit) is followed by its children, as `--json` has them
//! (docs/cli.md, "locals"), and one Delve did not load (`(*main.Item)(0xc000…)`) is read;
//! `print` lists a value's children as `locals` does (a pointer's target named `*p`, an object's methods left out); and a value whose
//! text already says what its children hold (`Some(3)`, `0x… "zzz"`) gets no inline copy of them.

mod common;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_lldb_dap,
    require_node, variable,
};

const GO_INVENTORY: &str = "go/inventory/main.go";
const JS_SHOP: &str = "javascript/esm/shop.mjs";
const PY_MEMBERS: &str = "python/members.py";

/// Starts `program` with a breakpoint on `marker` of `fixture` and runs to it.
fn stopped_at(s: &Session, program: &std::path::Path, fixture: &str, marker: &str) {
    s.start(program, &["-b", &at(fixture, marker)]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
}

/// The text output of `debugger ARGS...`, which must succeed.
#[track_caller]
fn text(s: &Session, args: &[&str]) -> String {
    s.run(args).ok().to_string()
}

/// Whether `text` has a line that starts (after its indentation) with `start`.
fn has_line(text: &str, indent: usize, start: &str) -> bool {
    let prefix = format!("{}{start}", " ".repeat(indent));
    text.lines().any(|l| l.starts_with(&prefix))
}

#[test]
fn go_values_delve_printed_in_part_are_read_whole_or_followed_by_their_children() {
    require_delve();
    let s = Session::new();
    let program = build_go(GO_INVENTORY);
    stopped_at(&s, &program, GO_INVENTORY, "@total_body");

    // Delve writes the items as `*(*main.Item)(0xc000…)`, values it did not load: each is read
    // and shown as `print` shows it. The line, cut at its limit, is followed by what it leaves
    // out.
    let locals = text(&s, &["locals", "--depth", "2"]);
    assert!(!locals.contains("(*main.Item)(0x"), "{locals}");
    assert!(
        locals.contains("[*{Name: \"widget\", Price: 2.5,"),
        "{locals}"
    );
    assert!(has_line(&locals, 2, "*inv (main.Inventory) = "), "{locals}");
    assert!(has_line(&locals, 4, "Items ([]*main.Item) = "), "{locals}");

    // `print` reads the value whole (Delve cuts a value's text at 256 bytes but for a value to
    // copy): the text says all the items hold, so the children are in the JSON alone.
    let printed = text(&s, &["print", "inv", "--depth", "3"]);
    assert!(
        printed.ends_with(
            "*{Name: \"bolt\", Price: 0.1, Tags: []string len: 1, cap: 1, [\"hw\"], \
                           Meta: map[string]string nil}]}\n"
        ),
        "{printed}"
    );
    let json = s.data(&["print", "inv", "--depth", "3"]);
    let items = &json["children"][0]["children"][1]["children"];
    assert_eq!(items.as_array().map(Vec::len), Some(3), "{json}");
}

#[test]
fn javascript_previews_that_leave_members_out_are_followed_by_them() {
    require_node();
    let s = Session::new();
    stopped_at(&s, &fixture_path(JS_SHOP), JS_SHOP, "@cart_add");

    let printed = text(&s, &["print", "pricing"]);
    assert!(
        printed.starts_with("pricing (Object) = {parse: ƒ, valid: ƒ,") && printed.contains(", …}"),
        "{printed}"
    );
    for name in ["parse", "valid", "cents", "format"] {
        assert!(
            has_line(&printed, 2, &format!("{name} ")),
            "no {name}: {printed}"
        );
    }
    let json = s.data(&["print", "pricing"]);
    assert_eq!(json["children"].as_array().map(Vec::len), Some(7), "{json}");
}

#[test]
fn python_values_debugpy_cut_down_are_followed_by_their_children() {
    require_debugpy();
    let s = Session::new();
    stopped_at(&s, &fixture_path(PY_MEMBERS), PY_MEMBERS, "@members_ready");

    let locals = s.data(&["locals", "--depth", "2"]);
    let data = variable(&locals["variables"], "data");
    assert_eq!(
        data["value"],
        "{'server': {'host': 'example.org', 'tags': [...]}, 'users': [{...}, {...}]}",
        "{data}"
    );
    let listing = text(&s, &["locals", "--depth", "2"]);
    let from_data: Vec<&str> = listing
        .lines()
        .skip_while(|l| !l.starts_with("data "))
        .collect();
    assert!(
        has_line(&from_data.join("\n"), 2, "'server' (dict) = "),
        "{listing}"
    );
    assert!(has_line(&from_data.join("\n"), 2, "'users' "), "{listing}");

    // Each child says all it holds: nothing further follows it.
    let printed = text(&s, &["print", "data", "--depth", "3"]);
    assert!(has_line(&printed, 2, "'server' "), "{printed}");
    assert!(has_line(&printed, 2, "'users' "), "{printed}");
    assert!(!has_line(&printed, 4, ""), "{printed}");
}

#[test]
fn print_names_a_go_pointers_target_after_the_expression() {
    require_delve();
    let s = Session::new();
    let program = build_go(GO_INVENTORY);
    stopped_at(&s, &program, GO_INVENTORY, "@total_body");

    // Delve leaves a pointer's target unnamed; `locals` calls it `*inv`, and so does `print`.
    let printed = s.data(&["print", "inv"]);
    assert_eq!(printed["children"][0]["name"], "*inv", "{printed}");
    // Read whole, the text says all the target holds: its line would repeat it.
    let whole = text(&s, &["print", "inv"]);
    assert!(
        whole.starts_with("inv (*main.Inventory) = *main.Inventory {Owner: \"ada\","),
        "{whole}"
    );
    assert_eq!(whole.lines().count(), 1, "{whole}");
    // `locals` cuts it at a line's worth, so the target's line follows, named the same.
    let locals = text(&s, &["locals"]);
    assert!(has_line(&locals, 2, "*inv (main.Inventory) = "), "{locals}");
}

/// The names of a `print` answer's children.
fn child_names(printed: &serde_json::Value) -> Vec<&str> {
    printed["children"]
        .as_array()
        .map(|list| list.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn print_says_an_objects_methods_were_left_out_apart_from_its_children() {
    require_debugpy();
    let s = Session::new();
    stopped_at(&s, &fixture_path(PY_MEMBERS), PY_MEMBERS, "@members_ready");

    // debugpy files methods under a "function variables" group: `print`, like `locals`, says
    // they were left out instead of listing them among the object's data, and does not count
    // them with the children `--children` would show.
    let user = s.data(&["print", "users[0]"]);
    assert_eq!(child_names(&user), ["age", "name"], "{user}");
    assert_eq!(user["omitted_children"], 0, "{user}");
    assert_eq!(user["methods_omitted"], true, "{user}");
    let generator = s.data(&["print", "gen"]);
    let names = child_names(&generator);
    for method in ["close", "send", "throw"] {
        assert!(!names.contains(&method), "{generator}");
    }
    assert!(names.contains(&"gi_frame"), "{generator}");
    let text = text(&s, &["print", "users[0]"]);
    assert!(!text.contains("older"), "{text}");
}

#[test]
fn python_methods_with_underscore_names_are_left_out_too() {
    require_debugpy();
    let s = Session::new();
    stopped_at(&s, &fixture_path(PY_MEMBERS), PY_MEMBERS, "@members_ready");

    // pydevd lists a method called `_callSetUp` among the data ("protected"), not in its group
    // of methods: a TestCase's `self` is still listed as its data alone.
    let locals = s.data(&["locals"]);
    let case = variable(&locals["variables"], "case");
    let names = child_names(case);
    assert!(names.contains(&"_testMethodName"), "{case}");
    assert!(names.contains(&"_outcome"), "{case}");
    assert!(!names.contains(&"_callSetUp"), "{case}");
    let methods: Vec<&serde_json::Value> = case["children"]
        .as_array()
        .map(|list| list.iter().filter(|c| c["type"] == "method").collect())
        .unwrap_or_default();
    assert!(methods.is_empty(), "{methods:?}");
    assert_eq!(
        case["methods_omitted"], true,
        "the methods are said to be left out: {case}"
    );
    let text = text(&s, &["print", "case"]);
    assert!(!text.contains("(method)"), "{text}");
}

/// The line of `text` that starts with `start`.
#[track_caller]
fn line_starting<'t>(text: &'t str, start: &str) -> &'t str {
    text.lines()
        .find(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{text}"))
}

#[test]
fn lldb_values_get_no_inline_copy_of_what_their_text_says() {
    require_lldb_dap();
    const RUST_VALUES: &str = "rust/values.rs";
    let s = Session::new();
    stopped_at(&s, &build(RUST_VALUES), RUST_VALUES, "@main_after");
    let locals = text(&s, &["locals"]);
    for (name, value) in [
        ("some ", "= Some(3)"),
        ("ok ", "= Ok(\"x\")"),
        ("borrowed ", "= Borrowed(\"b\")"),
        ("shared ", "= Rc(\"rc\") strong=1 weak=0"),
        ("square ", "= Square(3)"),
    ] {
        let line = line_starting(&locals, name);
        assert!(line.ends_with(value), "{line}");
    }
    // A Box's text is its address and its value: the value is not repeated as `{*boxed = 7}`.
    let boxed = line_starting(&locals, "boxed ");
    assert!(!boxed.contains('{'), "{boxed}");
    drop(s);

    // A `char *`'s one child is its first character, which its string already starts with.
    const LEDGER: &str = "c/ledger.c";
    let s = Session::new();
    stopped_at(&s, &build(LEDGER), LEDGER, "@apply_body");
    let printed = text(&s, &["print", "acct", "--depth", "2"]);
    let owner = line_starting(&printed, "owner ");
    assert!(owner.ends_with(" \"alice\""), "{owner}");
    // A pointer to a struct still shows its members: they say what its address does not.
    let locals = text(&s, &["locals"]);
    let acct = line_starting(&locals, "acct ");
    assert!(acct.contains("{id = 7, balance = 100,"), "{acct}");
}

#[test]
fn an_empty_javascript_map_reads_as_node_writes_it() {
    require_node();
    let s = Session::new();
    stopped_at(&s, &fixture_path(JS_SHOP), JS_SHOP, "@cart_add");
    // `Map(0) {…}` elided nothing and `Map(0) {size: 0}` is Chrome's way, not Node's: the
    // preview says all, so no inline copy of `this`'s members follows it.
    let locals = text(&s, &["locals"]);
    assert_eq!(
        line_starting(&locals, "this "),
        "this  (Cart) = Cart {owner: \"ada\", items: Map(0) {}}",
        "{locals}"
    );
    assert_eq!(s.value_of("this.items"), "Map(0) {}");
}
