//! `start -m MODULE` and `probe -m MODULE`: a Python module run as `python -m` runs it, under
//! debugpy without `--adapter`, with breakpoints placed in the module's files.

mod common;

use common::{Session, at, fixture_path, require_debugpy, require_lldb_dap};

const TOOL: &str = "python/modpkg/tool.py";

#[test]
fn start_runs_a_module_under_debugpy() {
    require_debugpy();
    let s = Session::new();
    let package_root = fixture_path("python");
    let root = package_root.to_str().expect("utf-8");
    let started = s.data(&[
        "start",
        "--no-wait",
        "-m",
        "modpkg.tool",
        "--cwd",
        root,
        "-b",
        &at(TOOL, "@tool_body"),
        "--",
        "a",
        "b",
        "c",
    ]);
    assert_eq!(started["adapter"], "debugpy", "{started}");
    assert_eq!(started["program"], "python -m modpkg.tool", "{started}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "run", "{stop}");
    assert_eq!(s.value_of("args"), "['a', 'b', 'c']");
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(end["stop"]["exit_code"], 3, "{end}");
    let output = s.output_containing(&["args: a b c"], std::time::Duration::from_secs(30));
    assert!(output.contains("args: a b c\n"), "{output}");
}

#[test]
fn probe_runs_a_module_and_names_it() {
    require_debugpy();
    let s = Session::new();
    let package_root = fixture_path("python");
    let run = s.run(&[
        "probe",
        "-m",
        "modpkg.tool",
        "--cwd",
        package_root.to_str().expect("utf-8"),
        "-b",
        &at(TOOL, "@tool_body"),
        "-p",
        "len(args)",
        "--",
        "x",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with("python -m modpkg.tool: 1 hit"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_module_is_refused_by_an_adapter_that_cannot_run_one_and_checked_as_a_name() {
    require_lldb_dap();
    let s = Session::new();
    let error = s
        .run(&["--json", "start", "-m", "modpkg.tool", "--adapter", "lldb"])
        .failure();
    assert_eq!(error["code"], "usage", "{error}");
    assert_eq!(
        error["message"],
        "-m modpkg.tool runs a Python module, which the lldb adapter cannot"
    );
    let error = s.run(&["--json", "start", "-m", "no such"]).failure();
    assert_eq!(error["code"], "usage", "{error}");
    let both = s.run(&["start", "-m", "x", "./prog"]);
    assert_eq!(both.code, 2, "{both:?}");
}
