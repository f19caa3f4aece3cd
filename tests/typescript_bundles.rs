//! TypeScript bundled and compiled, on the node adapter: function breakpoints by the names the
//! user wrote (a minifier renamed them), steps by the lines the user wrote, and a file name two
//! sources share. The fixture's `src/shop.ts` is compiled by its own `tsc`, bundled and minified
//! by its own esbuild, and run by its own `tsx` (`scripts/install-test-deps.sh` installs them).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::typescript_build::{self, run, tool};
use common::{Session, fixture_path, line_of, require_node};
use serde_json::Value;

const SHOP: &str = "typescript/src/shop.ts";
const STORE: &str = "typescript/src/store.ts";
const HTML: &str = "typescript/src/html.ts";

/// `dist/shop.js`, compiled by `tsc` with a map beside each file.
fn compiled() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| typescript_build::compile("typescript-bundles", "shop.js"))
        .clone()
}

/// `bundle/shop.js`: the program in one minified file, its map inline.
fn bundled() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| typescript_build::bundle("typescript-bundles", SHOP, "shop.js"))
        .clone()
}

/// The stop a `--json` execution command reported.
#[track_caller]
fn stop_of(answer: &Value) -> Value {
    answer
        .get("stop")
        .cloned()
        .unwrap_or_else(|| answer.clone())
}

/// The stop's file name and line.
fn place(stop: &Value) -> (String, u64) {
    let file = stop["frame"]["file"].as_str().unwrap_or_default();
    let name = Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    (name, stop["frame"]["line"].as_u64().unwrap_or(0))
}

/// Asserts `stop` is on `Store.add`'s first line in store.ts (`@store_set`).
#[track_caller]
fn assert_at_store_set(stop: &Value) {
    assert_eq!(
        place(stop),
        (
            "store.ts".to_string(),
            u64::from(line_of(STORE, "@store_set"))
        ),
        "{stop}"
    );
}

/// Continues to the next stop, which must be a breakpoint's.
#[track_caller]
fn continue_to_breakpoint(s: &Session) -> Value {
    let stop = stop_of(&s.data(&["continue", "--wait", "--timeout", "60"]));
    assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
    stop
}

#[test]
fn function_breakpoints_find_renamed_functions_in_a_minified_bundle_by_their_names() {
    let s = Session::new();
    let started = s.start(
        &bundled(),
        &["--break", "escapeHtmlEntities", "--break", "Store.add"],
    );
    // Set before the bundle loads: found through its map on disk, bound as it loads.
    for breakpoint in started["breakpoints"].as_array().into_iter().flatten() {
        assert_eq!(breakpoint["verified"], false, "{started}");
        assert_eq!(breakpoint["message"], "not loaded yet", "{started}");
    }
    let add = continue_to_breakpoint(&s);
    assert_at_store_set(&add);
    assert_eq!(add["frame"]["function"], "add", "{add}");
    // The second call, of the pear.
    assert_eq!(place(&continue_to_breakpoint(&s)), place(&add));
    let escape = continue_to_breakpoint(&s);
    assert_eq!(
        place(&escape),
        ("html.ts".to_string(), u64::from(line_of(HTML, "@escape"))),
        "{escape}"
    );
    assert_eq!(
        escape["frame"]["function"], "escapeHtmlEntities",
        "{escape}"
    );
    let listed = s.data(&["breakpoint", "list"]);
    let lines: Vec<(&str, u64, bool)> = listed["breakpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            (
                b["function"].as_str().unwrap_or_default(),
                b["resolved_line"].as_u64().unwrap_or(0),
                b["verified"] == true,
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            (
                "escapeHtmlEntities",
                u64::from(line_of(HTML, "@escape")),
                true
            ),
            ("Store.add", u64::from(line_of(STORE, "@store_set")), true),
        ],
        "{listed}"
    );
    let text = s.run(&["breakpoint", "list"]).ok().to_string();
    println!("{text}");
}

#[test]
fn a_method_breakpoint_in_tsc_output_reads_as_its_typescript_line() {
    let s = Session::new();
    s.start(&compiled(), &["--break", "Store.add"]);
    let add = continue_to_breakpoint(&s);
    assert_at_store_set(&add);
    let listed = s.data(&["breakpoint", "list"]);
    let first = &listed["breakpoints"][0];
    assert_eq!(
        first["resolved_line"],
        line_of(STORE, "@store_set"),
        "{listed}"
    );
    assert_eq!(first["verified"], true, "{listed}");
}

/// The file names and lines of `count` steps of `command` (`next`, `step`) from where `s` is.
fn steps(s: &Session, command: &str, count: usize) -> Vec<(String, u64)> {
    (0..count)
        .map(|_| {
            let stop = stop_of(&s.data(&[command, "--wait", "--timeout", "60"]));
            // A step that comes to a breakpoint stops as the breakpoint's.
            assert!(
                ["step", "breakpoint"].contains(&stop["reason"].as_str().unwrap_or_default()),
                "{stop}\n{}",
                s.log()
            );
            place(&stop)
        })
        .collect()
}

fn at(file: &str, marker: &str) -> (String, u64) {
    let name = Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    (name, u64::from(line_of(file, marker)))
}

#[test]
fn next_under_tsx_goes_by_typescript_lines_each_once() {
    // tsx's code has two statements for a `for...of` head and several for a template literal
    // with calls: V8 stopped twice and more on each.
    tool("tsx");
    let s = Session::new();
    let util = "typescript/src/util.ts";
    // `let sum = 0;`, the line before the loop.
    let first = line_of(util, "@loop") - 1;
    s.start(
        &fixture_path("typescript/src/app.ts"),
        &["--break", &format!("util.ts:{first}")],
    );
    continue_to_breakpoint(&s);
    assert_eq!(
        steps(&s, "next", 6),
        [
            at(util, "@loop"),
            at(util, "@add"),
            at(util, "@loop"),
            at(util, "@add"),
            at(util, "@loop"),
            at(util, "@return"),
        ]
    );
    s.run(&["stop"]);
    s.start(
        &fixture_path(SHOP),
        &["--break", &common::at(SHOP, "@shop_over")],
    );
    continue_to_breakpoint(&s);
    assert_eq!(
        steps(&s, "next", 2),
        [at(SHOP, "@shop_title"), at(SHOP, "@shop_print")]
    );
}

#[test]
fn step_under_tsx_goes_into_the_function_not_its_export_getter() {
    tool("tsx");
    let s = Session::new();
    s.start(
        &fixture_path(SHOP),
        &["--break", &common::at(SHOP, "@shop_over")],
    );
    continue_to_breakpoint(&s);
    let stop = stop_of(&s.data(&["step", "--wait", "--timeout", "60"]));
    assert_eq!(place(&stop), at(STORE, "@first_over_loop"), "{stop}");
    assert_eq!(stop["frame"]["function"], "firstOver", "{stop}");
}

#[test]
fn step_in_a_minified_bundle_goes_into_the_next_original_function() {
    let s = Session::new();
    s.start(&bundled(), &["--break", &common::at(SHOP, "@shop_title")]);
    continue_to_breakpoint(&s);
    let stop = stop_of(&s.data(&["step", "--wait", "--timeout", "60"]));
    assert_eq!(
        place(&stop),
        at("typescript/src/a/index.ts", "@label_a"),
        "{stop}"
    );
    assert_eq!(stop["frame"]["function"], "label", "{stop}");
}

#[test]
fn stop_on_entry_skips_the_generated_preamble_to_the_first_typescript_line() {
    let s = Session::new();
    s.start(&compiled(), &["--stop-on-entry"]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "entry", "{stop}");
    assert_eq!(place(&stop), at(SHOP, "@shop_import"), "{stop}");
}

#[test]
fn a_file_name_two_sources_share_binds_in_neither_and_names_both() {
    let label = line_of("typescript/src/a/index.ts", "@label_a");
    let expected = |root: &Path| {
        format!(
            "2 source files are named index.ts: {}, {}; give more of the path, e.g. {}",
            root.join("a").join("index.ts").display(),
            root.join("b").join("index.ts").display(),
            Path::new("a").join("index.ts").display()
        )
    };
    let sources = fixture_path("typescript/src");
    for program in [bundled(), compiled(), fixture_path(SHOP)] {
        let s = Session::new();
        let started = s.start(&program, &["--break", &format!("index.ts:{label}")]);
        let breakpoint = &started["breakpoints"][0];
        assert_eq!(
            breakpoint["verified"],
            false,
            "{}: {started}",
            program.display()
        );
        assert_eq!(
            breakpoint["message"],
            expected(&sources),
            "{}: {started}",
            program.display()
        );
        let end = stop_of(&s.data(&["continue", "--wait", "--timeout", "60"]));
        assert_eq!(end["reason"], "exited", "{}: {end}", program.display());
        let listed = s.data(&["breakpoint", "list"]);
        assert_eq!(listed["breakpoints"][0]["verified"], false, "{listed}");
        assert_eq!(
            listed["breakpoints"][0]["message"],
            expected(&sources),
            "{listed}"
        );
    }
}

#[test]
fn next_and_finish_from_a_return_inside_for_of_stop_in_the_caller() {
    // V8 loses these steps (the loop's iterator-closing `finally`) and runs to the end.
    for command in ["next", "finish"] {
        let s = Session::new();
        s.start(
            &compiled(),
            &["--break", &common::at(STORE, "@first_over_return")],
        );
        continue_to_breakpoint(&s);
        let stop = stop_of(&s.data(&[command, "--wait", "--timeout", "60"]));
        assert_eq!(stop["reason"], "step", "{command}: {stop}");
        assert_eq!(place(&stop), at(SHOP, "@shop_title"), "{command}: {stop}");
        assert_eq!(s.value_of("over"), "5", "{command}");
    }
}

#[test]
fn a_function_breakpoint_binds_when_an_es_module_bundle_from_elsewhere_loads_and_calls_it() {
    // An ES module bundle outside the program's folder and its package, found only as it
    // loads, which calls the function as it runs: V8 waits before it runs.
    require_node();
    let s = Session::new();
    let bundle = s.cwd.join("vendor").join("shop.mjs");
    let mut esbuild = Command::new(tool("esbuild"));
    esbuild
        .arg(fixture_path(SHOP))
        .args([
            "--bundle",
            "--minify",
            "--format=esm",
            "--sourcemap=inline",
            "--platform=node",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", bundle.display()));
    run(esbuild, "esbuild");
    let program = s.cwd.join("app").join("main.mjs");
    std::fs::create_dir_all(program.parent().expect("folder")).expect("mkdir");
    std::fs::write(&program, "await import(\"../vendor/shop.mjs\");\n").expect("write");
    let started = s.start(&program, &["--break", "escapeHtmlEntities"]);
    assert_eq!(
        started["breakpoints"][0]["message"],
        "no function of this name in the program's files, its package or its node_modules yet; \
         it binds when a script that defines it loads",
        "{started}"
    );
    let stop = continue_to_breakpoint(&s);
    assert_eq!(place(&stop), at(HTML, "@escape"), "{stop}");
    assert_eq!(stop["frame"]["function"], "escapeHtmlEntities", "{stop}");
}

#[test]
fn a_minifiers_locals_read_and_print_by_their_written_names() {
    let s = Session::new();
    s.start(&bundled(), &["--break", "Store.add"]);
    continue_to_breakpoint(&s);
    // esbuild made `add(name, price)` `add(t,r)`.
    let locals = s.data(&["locals"]);
    let mut names: Vec<&str> = locals["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["name", "price", "this"], "{locals}");
    assert_eq!(s.value_of("name"), "\"apple\"");
    assert_eq!(s.value_of("price * 2"), "6");
    assert_eq!(s.value_of("'name'.length"), "4");
}
