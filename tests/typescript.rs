//! TypeScript on the node adapter, through source maps: the fixture in `fixtures/typescript`
//! compiled by its own `tsc` (a `.js.map` beside each file) and bundled and minified by its own
//! esbuild (one file, its map inline), both at the versions its package-lock pins
//! (`scripts/install-test-deps.sh` installs them). Breakpoints are given by `.ts` line, and
//! every location the user sees is a `.ts` one.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::typescript_build::{self, run, tool};
use common::{Session, at, fixture_path, frame_lines, line_of, require_node};
use serde_json::Value;

const UTIL: &str = "typescript/src/util.ts";
const APP: &str = "typescript/src/app.ts";

/// `dist/app.js`, compiled by `tsc` with a map beside each file.
fn compiled() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| typescript_build::compile("typescript", "app.js"))
        .clone()
}

/// `bundle/app.js`: the program in one minified file, its map inline.
fn bundled() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| typescript_build::bundle("typescript", APP, "app.js"))
        .clone()
}

/// Starts `program` with a breakpoint at `location` and returns the first stop.
#[track_caller]
fn stop_at(s: &Session, program: &Path, location: &str) -> Value {
    s.start(program, &["--break", location]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    let stop = stop.get("stop").cloned().unwrap_or(stop);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
    stop
}

#[test]
fn a_ts_line_stops_in_tsc_output_by_bare_name_suffix_and_path() {
    let add = line_of(UTIL, "@add");
    for location in [
        format!("util.ts:{add}"),
        format!("src/util.ts:{add}"),
        at(UTIL, "@add"),
    ] {
        let s = Session::new();
        let stop = stop_at(&s, &compiled(), &location);
        assert_eq!(stop["frame"]["line"], add, "{location}: {stop}");
        assert!(
            stop["frame"]["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("src/util.ts")),
            "{location}: {stop}"
        );
        let breakpoints = s.data(&["breakpoint", "list"]);
        let first = &breakpoints["breakpoints"][0];
        assert_eq!(first["verified"], true, "{location}: {breakpoints}");
        assert_eq!(first["line"], add, "{location}: {breakpoints}");
        s.run(&["stop"]);
    }
}

#[test]
fn stops_backtraces_locals_and_steps_read_in_typescript() {
    let s = Session::new();
    stop_at(
        &s,
        &compiled(),
        &format!("util.ts:{}", line_of(UTIL, "@add")),
    );
    let backtrace = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&backtrace)[..2],
        [
            ("total", u64::from(line_of(UTIL, "@add"))),
            ("main", u64::from(line_of(APP, "@call")))
        ],
        "{backtrace}"
    );
    assert!(
        backtrace["frames"][1]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("src/app.ts")),
        "{backtrace}"
    );
    assert_eq!(s.value_of("price"), "3");
    // A step goes by TypeScript lines: from the addition back to the loop's head.
    let step = s.data(&["next", "--wait"]);
    assert_eq!(
        step["stop"]["frame"]["line"],
        line_of(UTIL, "@loop"),
        "{step}"
    );
    let context = s.run(&["context"]).ok().to_string();
    assert!(
        context.contains("for (const price of prices)"),
        "the source shown is not the TypeScript: {context}"
    );
}

#[test]
fn a_minified_bundle_reads_as_its_sources_with_their_names() {
    let s = Session::new();
    stop_at(&s, &bundled(), &at(UTIL, "@add"));
    let backtrace = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&backtrace)[..2],
        [
            ("total", u64::from(line_of(UTIL, "@add"))),
            ("main", u64::from(line_of(APP, "@call")))
        ],
        "esbuild renamed them n and m; the map names them: {backtrace}"
    );
    // Where V8 runs it: the bundle's one line.
    let generated = &backtrace["frames"][0]["generated"];
    assert_eq!(generated["line"], 1, "{backtrace}");
    assert!(
        generated["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("bundle/app.js")),
        "{backtrace}"
    );
    assert!(
        generated["column"].as_u64().is_some_and(|c| c > 1),
        "{backtrace}"
    );
}

#[test]
fn a_ts_line_no_script_maps_stays_pending_and_says_why() {
    let s = Session::new();
    let program = fixture_path("javascript/app.js");
    let started = s.start(&program, &["--break", "nowhere.ts:3"]);
    let breakpoint = &started["breakpoints"][0];
    assert_eq!(breakpoint["verified"], false, "{started}");
    assert!(
        breakpoint["message"]
            .as_str()
            .is_some_and(|m| m.contains("source map names nowhere.ts")),
        "{started}"
    );
}

#[test]
fn a_ts_file_starts_with_the_projects_tsx_and_stops_at_its_lines() {
    tool("tsx");
    let s = Session::new();
    // From another folder, by the file's bare name: the session finds the file on disk.
    let stop = stop_at(
        &s,
        &fixture_path(APP),
        &format!("util.ts:{}", line_of(UTIL, "@add")),
    );
    assert_eq!(stop["frame"]["line"], line_of(UTIL, "@add"), "{stop}");
    assert_eq!(s.value_of("price"), "3");
    let backtrace = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&backtrace)[1],
        ("main", u64::from(line_of(APP, "@call"))),
        "{backtrace}"
    );
}

#[test]
fn a_ts_file_with_nothing_to_run_it_names_the_ways() {
    require_node();
    let s = Session::new();
    let program = s.cwd.join("alone.ts");
    std::fs::write(&program, "const n: number = 1;\nconsole.log(n);\n").expect("write");
    let version = Command::new("node")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("node --version");
    let strips_types = version
        .trim_start_matches('v')
        .split('.')
        .take(2)
        .map(|p| p.parse::<u32>().unwrap_or(0))
        .collect::<Vec<_>>()
        >= vec![22, 6];
    let run = s.run(&["--json", "start", program.to_str().expect("path")]);
    if strips_types {
        assert_eq!(run.code, 0, "{run:?}");
    } else {
        let failure = run.failure();
        let message = failure["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("tsx or ts-node") && message.contains("Node 22.6"),
            "{failure}"
        );
    }
}

#[test]
fn a_source_only_the_map_holds_is_shown_from_it() {
    // A bundle whose sources are gone from the disk (a package ships its bundle and its map,
    // with the sources' text inside, not the sources): the stop still shows the TypeScript.
    require_node();
    let s = Session::new();
    let project = s.cwd.join("shipped");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    for file in ["src/app.ts", "src/util.ts"] {
        std::fs::copy(
            fixture_path(&format!("typescript/{file}")),
            project.join(file),
        )
        .expect("copy");
    }
    let bundle = project.join("dist").join("app.js");
    let mut esbuild = Command::new(tool("esbuild"));
    esbuild
        .arg(project.join("src/app.ts"))
        .args([
            "--bundle",
            "--sourcemap",
            "--platform=node",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", bundle.display()));
    run(esbuild, "esbuild");
    std::fs::remove_dir_all(project.join("src")).expect("remove the sources");
    let add = line_of(UTIL, "@add");
    let stop = stop_at(&s, &bundle, &format!("util.ts:{add}"));
    let lines = stop["source"]["lines"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        lines
            .iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains("sum += price"))),
        "{stop}"
    );
    let context = s.run(&["context"]).ok().to_string();
    assert!(context.contains("sum += price"), "{context}");
}

#[test]
fn a_module_tsx_loads_late_stops_at_a_bare_named_line() {
    // `late.ts` is in a folder the session does not search, so the name goes to the adapter as
    // typed: the script of that name is held at its start until its breakpoints are placed.
    tool("tsx");
    let line = line_of("typescript/src/lib/late.ts", "@score");
    for _ in 0..3 {
        let s = Session::new();
        let stop = stop_at(
            &s,
            &fixture_path("typescript/src/dynamic.ts"),
            &format!("late.ts:{line}"),
        );
        assert_eq!(stop["frame"]["line"], line, "{stop}");
        assert_eq!(s.value_of("weight"), "3");
    }
}
