//! Rust references and raw pointers named as Rust writes them under lldb-dap, which by itself
//! calls all three `references::Item *`: `&references::Item`, `&mut references::Item`,
//! `*const references::Item`, in `locals`, `print`, the stop report and a struct's field of
//! type `&T`. A C program's pointers keep the names LLDB gives them.
//!
//! Every session runs from its own working directory, never the fixture's folder.

mod common;

use common::{Session, at, build, require_lldb_dap, variable};
use serde_json::Value;

const FIXTURE: &str = "rust/references.rs";
const WAIT: &str = "60";

/// The types of `weigh`'s parameters, and of `holder`'s field `item`.
const TYPES: &[(&str, &str)] = &[
    ("shared", "&references::Item"),
    ("unique", "&mut references::Item"),
    ("raw", "*const references::Item"),
    ("holder", "&references::Holder"),
];

/// Starts the fixture under `adapter`, stopped in `weigh`; returns the stop.
#[track_caller]
fn stopped_in_weigh(s: &Session, adapter: &str) -> Value {
    let program = build(FIXTURE);
    s.start(
        &program,
        &["--adapter", adapter, "-b", &at(FIXTURE, "@weigh_body")],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
    assert_eq!(stop["frame"]["function"], "references::weigh", "{stop}");
    stop
}

#[track_caller]
fn type_of<'a>(variables: &'a Value, name: &str) -> &'a Value {
    &variable(variables, name)["type"]
}

/// `locals`, `print` and the stop report agree, and a field `&T` is named too.
#[track_caller]
fn assert_rust_names(s: &Session, stop: &Value) {
    let locals = s.data(&["locals"]);
    for (name, ty) in TYPES {
        assert_eq!(type_of(&locals["variables"], name), ty, "{locals}");
        assert_eq!(type_of(&stop["locals"], name), ty, "{stop}");
        assert_eq!(s.data(&["print", name])["type"], *ty, "print {name}");
    }
    let holder = variable(&locals["variables"], "holder");
    assert_eq!(
        type_of(&holder["children"], "item"),
        "&references::Item",
        "{holder}"
    );
    let printed = s.data(&["print", "holder"]);
    assert_eq!(
        type_of(&printed["children"], "item"),
        "&references::Item",
        "{printed}"
    );
    let item = s.data(&["print", "holder.item"]);
    assert_eq!(item["type"], "&references::Item", "{item}");
    // Rust expressions still read through the references.
    assert_eq!(s.value_of("shared.parts.len()"), "2");
    assert_eq!(s.value_of("holder.item.parts[1]"), "2");
}

#[test]
fn lldb_names_rust_references_as_rust_writes_them() {
    require_lldb_dap();
    let s = Session::new();
    let stop = stopped_in_weigh(&s, "lldb");
    assert_rust_names(&s, &stop);
    let text = s.run(&["locals"]).ok().to_string();
    assert!(
        text.contains("unique (&mut references::Item) = 0x"),
        "{text}"
    );
}

/// A C program's pointers are LLDB's `account *` and `const char *`, its members' too.
#[test]
fn c_pointers_keep_their_c_names() {
    require_lldb_dap();
    let s = Session::new();
    let fixture = "c/ledger.c";
    s.start(&build(fixture), &["-b", &at(fixture, "@apply_body")]);
    let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
    assert_eq!(type_of(&stop["locals"], "acct"), "account *", "{stop}");
    let locals = s.data(&["locals"]);
    let acct = variable(&locals["variables"], "acct");
    assert_eq!(acct["type"], "account *", "{locals}");
    assert_eq!(
        type_of(&acct["children"], "owner"),
        "const char *",
        "{acct}"
    );
    assert_eq!(s.data(&["print", "acct"])["type"], "account *");
}
