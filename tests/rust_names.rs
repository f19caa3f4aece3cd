//! Function breakpoints given as Rust paths, through the real binary: a generic function (every
//! instance), `Type::method` for an inherent method, a trait method and a generic type's method,
//! `<Type as Trait>::method`, a bare name and a `crate::` path. lldb-dap's lookup by name misses
//! most of these, which the lldb adapter then binds by a pattern on the demangled name; each stop
//! must still name the breakpoint's own id. GDB takes the full paths it knows.
//!
//! Every session runs from its own working directory, never the fixture's folder.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Session, build, line_of, require_lldb_dap, variable};
use serde_json::{Value, json};

const SHAPES: &str = "rust/shapes_generic.rs";
const WAIT: &str = "60";

/// `continue --wait` and the stop it reports.
#[track_caller]
fn continue_to_stop(s: &Session) -> Value {
    s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone()
}

/// Asserts a stop is a hit of breakpoint `id` alone, in a function whose name holds `function`,
/// on the line of `marker`.
/// Runs to each next stop in turn and checks it is the hit of `(id, function, marker)`.
#[track_caller]
fn assert_hits(s: &Session, hits: &[(u64, &str, &str)]) {
    for (id, function, marker) in hits {
        assert_hit(&continue_to_stop(s), *id, function, marker);
    }
}

#[track_caller]
fn assert_hit(stop: &Value, id: u64, function: &str, marker: &str) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!([id]), "{stop}");
    let name = stop["frame"]["function"].as_str().unwrap_or("");
    assert!(name.contains(function), "expected {function}: {stop}");
    assert_eq!(stop["frame"]["line"], line_of(SHAPES, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with("shapes_generic.rs"), "{stop}");
}

/// Starts `program` with a `--break` for each of `names` and returns our ids, in order, after
/// checking that every one of them is verified.
#[track_caller]
fn start_with_breaks(s: &Session, program: &Path, adapter: &str, names: &[&str]) -> Vec<u64> {
    let mut args = vec!["--adapter", adapter];
    for name in names {
        args.extend_from_slice(&["--break", name]);
    }
    s.start(program, &args);
    let listed = s.data(&["breakpoint", "list"]);
    let breakpoints = listed["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(breakpoints.len(), names.len(), "{listed}");
    for (bp, name) in breakpoints.iter().zip(names) {
        assert_eq!(bp["function"], *name, "{listed}");
        assert_eq!(bp["verified"], true, "{name} is not bound: {listed}");
    }
    breakpoints
        .iter()
        .map(|bp| bp["id"].as_u64().expect("id"))
        .collect()
}

/// The fixture built with rustc's v0 symbol mangling (names such as `<m::Wrapper<u32>>::get`)
/// rather than the legacy default, once per test process.
fn build_v0() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fixtures");
            std::fs::create_dir_all(&out_dir).expect("create fixture dir");
            let tmp = out_dir.join(format!("shapes_generic_v0.{}.tmp", std::process::id()));
            let output = out_dir.join("shapes_generic_v0");
            let status = Command::new("rustc")
                .args([
                    "-g",
                    "-C",
                    "opt-level=0",
                    "-C",
                    "symbol-mangling-version=v0",
                ])
                .arg("-o")
                .arg(&tmp)
                .arg(common::fixture_path(SHAPES))
                .status()
                .expect("run rustc");
            assert!(
                status.success(),
                "building {SHAPES} with v0 mangling failed"
            );
            std::fs::rename(&tmp, &output).expect("rename fixture");
            output
        })
        .clone()
}

/// Every form, set before the program runs, stops where it should, in the order main calls them,
/// and each stop names only its own breakpoint: `Rect::describe` never stops in `Wrapper`'s
/// `describe`, nor `<Wrapper as Describe>::describe` in `Rect`'s.
#[test]
fn lldb_binds_rust_paths_of_every_form_and_each_stop_names_its_breakpoint() {
    require_lldb_dap();
    let s = Session::new();
    let ids = start_with_breaks(
        &s,
        &build(SHAPES),
        "lldb",
        &[
            "shapes_generic::geometry::Rect::area",
            "geometry::total",
            "Rect::describe",
            "kind",
            "Wrapper::get",
            "<Wrapper as Describe>::describe",
            "crate::scaled",
        ],
    );
    let [area, total, describe, kind, get, wrapper_describe, scaled] = ids[..] else {
        panic!("ids: {ids:?}");
    };
    assert_hits(
        &s,
        &[
            (area, "area", "@area_body"),
            // Both instances of the generic function: total::<u8>, then total::<u32>.
            (total, "total", "@total_body"),
            (total, "total", "@total_body"),
            (describe, "describe", "@describe_body"),
            (kind, "kind", "@kind_body"),
            (get, "get", "@get_body"),
            (get, "get", "@get_body"),
            (wrapper_describe, "describe", "@wrapper_describe_body"),
            (scaled, "scaled", "@scaled_body"),
            // `scaled` calls `area` once more.
            (area, "area", "@area_body"),
        ],
    );
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
}

/// Added while the program is stopped, with a hit count and conditions (one true, one never);
/// removed at a stop, a pattern-bound breakpoint no longer stops the program.
#[test]
fn lldb_rust_paths_added_at_a_stop_keep_hit_counts_conditions_and_removal() {
    require_lldb_dap();
    let s = Session::new();
    let started = s.start(&build(SHAPES), &["--adapter", "lldb", "--stop-on-entry"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");

    let total = s.data(&["break", "total"]);
    assert_eq!(total["verified"], true, "{total}");
    // The second call of `get` is the one on a Wrapper<String>.
    let get = s.data(&["break", "Wrapper<T>::get", "--hit-count", "2"]);
    assert_eq!(get["verified"], true, "{get}");
    let describe = s.data(&[
        "break",
        "<shapes_generic::geometry::Rect as shapes_generic::geometry::Describe>::describe",
        "--condition",
        "self->width == 3",
    ]);
    assert_eq!(describe["verified"], true, "{describe}");
    // Never true (`inner` is 7): a condition that failed to reach LLDB would stop here, and so
    // would one LLDB cannot evaluate.
    let never = s.data(&[
        "break",
        "<Wrapper as Describe>::describe",
        "--condition",
        "self->inner == 8",
    ]);
    assert_eq!(never["verified"], true, "{never}");
    let id = |data: &Value| data["id"].as_u64().expect("id");

    assert_hit(&continue_to_stop(&s), id(&total), "total", "@total_body");
    let removed = s.data(&["breakpoint", "remove", &id(&total).to_string()]);
    assert_eq!(removed["removed"], json!([id(&total)]), "{removed}");
    // The second instance of `total` no longer stops the program.
    assert_hit(
        &continue_to_stop(&s),
        id(&describe),
        "describe",
        "@describe_body",
    );
    let stop = continue_to_stop(&s);
    assert_hit(&stop, id(&get), "get", "@get_body");
    let locals = s.data(&["locals"]);
    let this = variable(&locals["variables"], "self");
    let type_name = this["type"].as_str().unwrap_or("");
    assert!(type_name.contains("String"), "{locals}");

    let listed = s.data(&["breakpoint", "list"]);
    assert_eq!(
        listed["breakpoints"].as_array().map(Vec::len),
        Some(3),
        "{listed}"
    );
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
}

/// The same forms on a program built with v0 mangling, whose names LLDB demangles differently.
#[test]
fn lldb_binds_rust_paths_in_a_program_with_v0_mangling() {
    require_lldb_dap();
    let s = Session::new();
    let ids = start_with_breaks(
        &s,
        &build_v0(),
        "lldb",
        &[
            "Rect::area",
            "shapes_generic::geometry::total",
            "Rect::describe",
            "geometry::Wrapper::get",
            "<Wrapper<T> as Describe>::describe",
        ],
    );
    let [area, total, describe, get, wrapper_describe] = ids[..] else {
        panic!("ids: {ids:?}");
    };
    assert_hits(
        &s,
        &[
            (area, "area", "@area_body"),
            (total, "total", "@total_body"),
            (total, "total", "@total_body"),
            (describe, "describe", "@describe_body"),
            (get, "get", "@get_body"),
            (get, "get", "@get_body"),
            (wrapper_describe, "describe", "@wrapper_describe_body"),
            (area, "area", "@area_body"),
        ],
    );
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
}

/// A session whose config points the gdb adapter at a GDB with DAP.
fn gdb_session() -> Session {
    Session::with_gdb()
}

/// GDB knows a Rust function by its full path only (`kind` or `Rect::area` alone stay pending): a
/// generic function's stops at every instance, a generic type's method is named with the impl's
/// own parameters (`Wrapper<T>::get`), and a trait method by its full `<Type as Trait>::method`.
#[test]
fn gdb_binds_full_rust_paths() {
    let s = gdb_session();
    let ids = start_with_breaks(
        &s,
        &build(SHAPES),
        "gdb",
        &[
            "shapes_generic::geometry::Rect::area",
            "shapes_generic::geometry::total",
            "<shapes_generic::geometry::Rect as shapes_generic::geometry::Describe>::describe",
            "shapes_generic::geometry::Wrapper<T>::get",
        ],
    );
    let [area, total, describe, get] = ids[..] else {
        panic!("ids: {ids:?}");
    };
    assert_hit(&continue_to_stop(&s), area, "area", "@area_body");
    // A short path stays pending, and says why.
    let short = s.data(&["break", "geometry::kind"]);
    assert_eq!(short["verified"], false, "{short}");
    let message = short["message"].as_str().unwrap_or("");
    assert!(message.contains("full path"), "{short}");
    assert_hits(
        &s,
        &[
            (total, "total", "@total_body"),
            (total, "total", "@total_body"),
            (describe, "describe", "@describe_body"),
            (get, "get", "@get_body"),
            (get, "get", "@get_body"),
            (area, "area", "@area_body"),
        ],
    );
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
}
