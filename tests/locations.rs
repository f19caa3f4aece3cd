//! Breakpoint files as people type them, on every adapter: a bare or relative name typed from a
//! directory that is not the program's, a path suffix, Go's standard library, Python's
//! `sys.path`, two files of one name, a file nobody has, a line past the end. One resolver
//! (`common::location::resolve`) places them all; these tests hold each rule on the adapters it
//! applies to.

mod common;

use std::path::Path;

use common::{
    Run, Session, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node, with_go_env,
};
use serde_json::Value;

const LAYOUT: &str = "python/layout/main.py";
const DOUBLE: &str = "python/layout/pkg/util.py";
const GO_LEDGER: &str = "go/ledger/main.go";
/// Seconds a `--wait` may take: a first stop under Delve or debugpy is slower than lldb's.
const WAIT: &str = "60";

/// `debugger --json ARGS` in the session's working directory (never the program's folder), with
/// the Go environment a Delve build needs.
fn run(s: &Session, args: &[&str]) -> Run {
    let output = with_go_env(&mut s.command())
        .arg("--json")
        .args(args)
        .output()
        .expect("run debugger");
    Run::from(output)
}

/// `data` of a successful run.
#[track_caller]
fn data(s: &Session, args: &[&str]) -> Value {
    let value = run(s, args).json();
    assert_eq!(value["ok"], true, "{args:?} failed: {value}\n{}", s.log());
    value["data"].clone()
}

/// Starts `program` with `extra` and returns its breakpoints as `start` reported them.
#[track_caller]
fn start_breakpoints(s: &Session, program: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["start", "--no-wait", program.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    data(s, &args)["breakpoints"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Runs to the next stop (or the exit) and returns its report.
#[track_caller]
fn next_stop(s: &Session) -> Value {
    data(s, &["continue", "--wait", "--timeout", WAIT])["stop"].clone()
}

#[track_caller]
fn assert_stopped_at(stop: &Value, file: &Path, line: u32) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let at = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(
        Path::new(at).ends_with(file.file_name().expect("file name")),
        "expected {}: {stop}",
        file.display()
    );
    assert_eq!(stop["frame"]["line"], line, "{stop}");
}

/// A copy of a fixture's folder in a fresh directory, so a test owns the whole tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

// ---- rule 2: relative to the program's folder ----------------------------------------------

#[test]
fn python_bare_name_binds_from_the_parent_directory() {
    require_debugpy();
    let s = Session::new();
    // The user stands in the repository; the program is tools/app.py.
    let tools = s.cwd.join("tools");
    copy_tree(&fixture_path("python/layout"), &tools);
    let line = line_of(LAYOUT, "@layout_call");
    let breakpoints = start_breakpoints(
        &s,
        Path::new("tools/main.py"),
        &["--break", &format!("main.py:{line}")],
    );
    let bp = &breakpoints[0];
    assert_eq!(bp["verified"], true, "{bp}");
    assert_eq!(bp["requested"], format!("main.py:{line}"), "{bp}");
    assert_eq!(
        bp["file"],
        tools.join("main.py").display().to_string(),
        "{bp}"
    );
    assert_stopped_at(&next_stop(&s), Path::new("main.py"), line);
    // The text answer names the file as the user can find it from where they stand.
    let listed = s.run(&["breakpoint", "list"]);
    assert!(
        listed.ok().contains(&format!("tools/main.py:{line}")),
        "{}",
        listed.stdout
    );
}

#[test]
fn go_bare_name_binds_from_another_directory() {
    require_delve();
    let s = Session::new();
    let line = line_of(GO_LEDGER, "@deposit_body");
    let breakpoints = start_breakpoints(
        &s,
        &build_go(GO_LEDGER),
        &["--break", &format!("main.go:{line}")],
    );
    assert_eq!(breakpoints[0]["verified"], true, "{}", breakpoints[0]);
    assert_eq!(
        breakpoints[0]["file"],
        fixture_path(GO_LEDGER).display().to_string()
    );
    assert_stopped_at(&next_stop(&s), Path::new("main.go"), line);
}

// ---- rule 3: by path suffix among the program's files ---------------------------------------

#[test]
fn python_path_suffix_finds_a_module_in_the_program_tree() {
    require_debugpy();
    let s = Session::new();
    let line = line_of(DOUBLE, "@double_body");
    let breakpoints = start_breakpoints(
        &s,
        &fixture_path(LAYOUT),
        &["--break", &format!("pkg/util.py:{line}")],
    );
    assert_eq!(
        breakpoints[0]["file"],
        fixture_path(DOUBLE).display().to_string()
    );
    assert_stopped_at(&next_stop(&s), Path::new("util.py"), line);
    assert_eq!(next_stop_function(&s), "double");
}

/// The function of the frame the program is stopped in.
fn next_stop_function(s: &Session) -> String {
    data(s, &["backtrace", "--limit", "1"])["frames"][0]["function"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn go_standard_library_by_suffix_and_an_ambiguous_name() {
    require_delve();
    let s = Session::new();
    start_breakpoints(&s, &build_go(GO_LEDGER), &["--stop-on-entry"]);
    // fmt/print.go is in the binary's file table, under GOROOT.
    let added = data(&s, &["break", "fmt/print.go:1"]);
    let file = added["file"].as_str().unwrap_or("");
    assert!(file.ends_with("/src/fmt/print.go"), "{added}");
    assert!(Path::new(file).is_absolute(), "{added}");
    // print.go alone is fmt's and runtime's: refused, naming both, and nothing is added.
    let refused = run(&s, &["break", "print.go:1"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    let error = refused.failure();
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("fmt/print.go"), "{message}");
    assert!(message.contains("runtime/print.go"), "{message}");
    let listed = data(&s, &["breakpoint", "list"]);
    assert_eq!(listed["breakpoints"].as_array().map(Vec::len), Some(1));
}

#[test]
fn two_python_files_of_one_name_are_an_error_listing_both() {
    require_debugpy();
    let s = Session::new();
    start_breakpoints(&s, &fixture_path(LAYOUT), &["--stop-on-entry"]);
    let refused = run(&s, &["break", "util.py:5"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    let error = refused.failure();
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("matches 2 files"), "{message}");
    assert!(message.contains("pkg/util.py"), "{message}");
    assert!(message.contains("other/util.py"), "{message}");
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or("")
            .contains("more of the path"),
        "{error}"
    );
    let listed = data(&s, &["breakpoint", "list"]);
    assert_eq!(listed["breakpoints"], Value::Array(Vec::new()));
    // More of the path picks one.
    let line = line_of("python/layout/other/util.py", "@triple_body");
    let added = data(&s, &["break", &format!("other/util.py:{line}")]);
    assert_eq!(added["verified"], true, "{added}");
}

#[test]
fn python_sys_path_places_a_standard_library_module() {
    require_debugpy();
    let s = Session::new();
    start_breakpoints(&s, &fixture_path(LAYOUT), &["--stop-on-entry"]);
    let added = data(&s, &["break", "json/decoder.py:1"]);
    let file = added["file"].as_str().unwrap_or("");
    assert!(file.ends_with("/json/decoder.py"), "{added}");
    assert!(Path::new(file).is_absolute(), "{added}");
}

#[test]
fn python_bare_name_of_a_loaded_library_module_is_placed() {
    require_debugpy();
    let s = Session::new();
    // drive.py loads late_hook.py from a folder it adds to sys.path as it runs: by the stop at
    // @drive_print only the loaded modules know that file.
    let drive = "python/namesakes/app/drive.py";
    let line = line_of(drive, "@drive_print");
    let env = format!(
        "PYTHONPATH={}",
        fixture_path("python/namesakes/site-packages").display()
    );
    start_breakpoints(
        &s,
        &fixture_path(drive),
        &["--env", &env, "--break", &format!("drive.py:{line}")],
    );
    next_stop(&s);
    let hook = "python/namesakes/plugins/late_hook.py";
    let added = data(
        &s,
        &[
            "break",
            &format!("late_hook.py:{}", line_of(hook, "@hook_body")),
        ],
    );
    assert_eq!(
        added["file"],
        fixture_path(hook).display().to_string(),
        "{added}"
    );
}

#[test]
fn node_bare_name_in_a_subfolder_binds_and_stops() {
    require_node();
    let s = Session::new();
    let line = line_of("javascript/lib/format.js", "@format_body");
    let breakpoints = start_breakpoints(
        &s,
        &fixture_path("javascript/app.js"),
        &["--break", &format!("format.js:{line}")],
    );
    assert_eq!(
        breakpoints[0]["file"],
        fixture_path("javascript/lib/format.js")
            .display()
            .to_string()
    );
    assert_stopped_at(&next_stop(&s), Path::new("format.js"), line);
}

#[test]
fn an_ambiguous_name_at_start_is_held_back_from_an_adapter_that_places_names() {
    require_node();
    let s = Session::new();
    let line = line_of("javascript/twins/a/util.js", "@twin_a_body");
    let breakpoints = start_breakpoints(
        &s,
        &fixture_path("javascript/twins/main.js"),
        &["--break", &format!("util.js:{line}")],
    );
    let message = breakpoints[0]["message"].as_str().unwrap_or("");
    assert!(message.contains("matches 2 files"), "{message}");
    assert!(message.contains("e.g. a/util.js:"), "{message}");
    // Node would have bound the name in whichever util.js loaded first: it never hears of it.
    let ended = next_stop(&s);
    assert_eq!(ended["reason"], "exited", "{ended}");
}

// ---- adapters that place names themselves -------------------------------------------------

#[test]
fn lldb_and_gdb_bind_a_bare_name_the_program_was_built_from() {
    require_lldb_dap();
    let line = line_of("c/ledger.c", "@apply_update");
    for adapter in ["lldb", "gdb"] {
        let s = Session::with_gdb();
        let program = build("c/ledger.c");
        start_breakpoints(
            &s,
            &program,
            &["--adapter", adapter, "--break", &format!("ledger.c:{line}")],
        );
        // The adapter may verify it a moment after `start` answers (a `breakpoint` event): the
        // stop is what proves it bound.
        assert_stopped_at(&next_stop(&s), Path::new("ledger.c"), line);
        let listed = data(&s, &["breakpoint", "list"]);
        assert_eq!(
            listed["breakpoints"][0]["verified"], true,
            "{adapter}: {listed}"
        );
        assert_eq!(
            listed["breakpoints"][0]["requested"],
            format!("ledger.c:{line}")
        );
    }
}

// ---- nothing found, and lines past the end ------------------------------------------------

#[test]
fn a_file_found_nowhere_stays_pending_and_says_where_it_looked() {
    require_debugpy();
    let s = Session::new();
    start_breakpoints(&s, &fixture_path(LAYOUT), &["--stop-on-entry"]);
    let added = data(&s, &["break", "nosuch.py:3"]);
    assert_eq!(added["verified"], false, "{added}");
    let message = added["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("no file named nosuch.py is known yet (looked in "),
        "{message}"
    );
    assert!(message.contains("the program's folder tree"), "{message}");
}

#[test]
fn a_go_file_found_nowhere_names_each_folder_looked_in_once() {
    require_delve();
    let s = Session::new();
    // A package folder: its own folder is also its module's root, where Delve's names are
    // looked for too.
    let package = fixture_path("go/ledger");
    start_breakpoints(&s, &package, &["--stop-on-entry"]);
    let added = data(&s, &["break", "nosuch.go:3"]);
    assert_eq!(added["verified"], false, "{added}");
    let message = added["message"].as_str().unwrap_or("");
    let folder = package.display().to_string();
    let places = message
        .split_once("(looked in ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or("", |(places, _)| places);
    let listed: Vec<&str> = places.split(", ").collect();
    assert_eq!(
        listed.iter().filter(|p| **p == folder).count(),
        1,
        "{message}"
    );
    let mut unique = listed.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), listed.len(), "{message}");
}

#[test]
fn a_line_past_the_end_is_refused_with_the_files_length() {
    require_debugpy();
    let s = Session::new();
    let lines = std::fs::read_to_string(fixture_path(DOUBLE))
        .expect("read")
        .lines()
        .count();
    // Found by the daemon (the program's tree), while the program runs.
    start_breakpoints(&s, &fixture_path(LAYOUT), &["--stop-on-entry"]);
    let refused = run(&s, &["break", "pkg/util.py:999"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(
        refused.failure()["message"],
        format!("line 999 is beyond the end of util.py, which has {lines} lines")
    );
    // Found by the CLI (relative to the caller), before anything starts.
    let other = Session::new();
    let local = other.cwd.join("util.py");
    std::fs::copy(fixture_path(DOUBLE), &local).expect("copy");
    let refused = run(
        &other,
        &[
            "start",
            &fixture_path(LAYOUT).display().to_string(),
            "--break",
            "util.py:999",
        ],
    );
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(run(&other, &["status"]).code, 4, "no session was started");
}

#[test]
fn a_node_start_break_past_the_end_fails_from_your_folder_and_is_pending_from_another() {
    require_node();
    let app = fixture_path("javascript/app.js");
    let lines = std::fs::read_to_string(&app).expect("read").lines().count();
    let reason = format!("line 9999 is beyond the end of app.js, which has {lines} lines");
    // app.js found from the caller's folder (rule 1): the start fails, as on every adapter.
    let s = Session::new();
    std::fs::copy(&app, s.cwd.join("app.js")).expect("copy");
    let refused = run(&s, &["start", "app.js", "--break", "app.js:9999"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(refused.failure()["message"], reason);
    assert_eq!(run(&s, &["status"]).code, 4, "no session was started");
    // Found only beside the program, once it is loaded: pending with that reason.
    let other = Session::new();
    let breakpoints = start_breakpoints(&other, &app, &["--break", "app.js:9999"]);
    assert_eq!(breakpoints[0]["verified"], false, "{}", breakpoints[0]);
    let message = breakpoints[0]["message"].as_str().unwrap_or("");
    assert!(message.starts_with(&reason), "{message}");
}

#[test]
fn a_line_without_code_moves_and_the_answer_says_so() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/ledger.c");
    // A blank line in `main` a little above the loop: lldb moves such a breakpoint down to the
    // next line with code.
    let line = line_of("c/ledger.c", "@loop_call");
    start_breakpoints(&s, &program, &["--stop-on-entry"]);
    let source = fixture_path("c/ledger.c");
    let blank = blank_line_before(&source, line);
    let added = s.run(&["break", &format!("{}:{blank}", source.display())]);
    assert!(
        added.ok().contains(&format!("line {blank} → ")),
        "{}",
        added.stdout
    );
}

/// A blank line shortly before `line` in `file`, inside the same function.
fn blank_line_before(file: &Path, line: u32) -> u32 {
    let text = std::fs::read_to_string(file).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    (1..line)
        .rev()
        .take(5)
        .find(|n| lines[*n as usize - 1].trim().is_empty())
        .unwrap_or_else(|| panic!("no blank line just above line {line} of {}", file.display()))
}
