//! A bare file name that several files have: the program's own first, then its dependencies',
//! then the runtime's library; a file too short for the line is never the one chosen. The
//! fixtures are of the shape a real program showed (dateutil's `parser/_parser.py`, longer than
//! Python's own `re/_parser.py`): an installed package's `_strptime.py`, longer than the
//! standard library's, which the program loads first; and a Go module's `format.go` beside
//! GOROOT's.

mod common;

use std::path::{Path, PathBuf};

use common::{
    Run, Session, build_go, fixture_path, line_of, require_debugpy, require_delve, require_python,
    with_go_env,
};
use serde_json::Value;

const DRIVE: &str = "python/namesakes/app/drive.py";
const PARSER: &str = "python/namesakes/site-packages/textparse/_strptime.py";
const GO_MAIN: &str = "go/namesake/main.go";
const GO_FORMAT: &str = "go/namesake/format.go";
const WAIT: &str = "60";

fn run(s: &Session, args: &[&str]) -> Run {
    let output = with_go_env(&mut s.command())
        .arg("--json")
        .args(args)
        .output()
        .expect("run debugger");
    Run::from(output)
}

#[track_caller]
fn data(s: &Session, args: &[&str]) -> Value {
    let value = run(s, args).json();
    assert_eq!(value["ok"], true, "{args:?} failed: {value}\n{}", s.log());
    value["data"].clone()
}

/// The installed package's folder, put on the program's `PYTHONPATH`.
fn site_packages() -> PathBuf {
    fixture_path("python/namesakes/site-packages")
}

fn python_path() -> String {
    format!("PYTHONPATH={}", site_packages().display())
}

/// The lines of the standard library's `_strptime.py` under the Python that runs the tests.
fn standard_library_lines() -> usize {
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import _strptime as p; print(open(p.__file__).read().count('\\n'))",
        ])
        .output()
        .expect("run python3");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a line count")
}

/// `start drive.py --break _strptime.py:LINE` (LINE past the end of the standard library's)
/// places the installed package's file and stops there; a line both files have means the
/// package's too; a line neither has is refused with the longer file's length.
fn a_dependency_beats_the_standard_library(adapter: &[&str]) {
    let s = Session::new();
    let line = line_of(PARSER, "@parse_body");
    assert!(
        line as usize > standard_library_lines(),
        "the fixture must be longer than _strptime.py"
    );
    let program = fixture_path(DRIVE);
    let at = format!("_strptime.py:{line}");
    let env = python_path();
    let mut args = vec!["start", program.to_str().expect("utf-8"), "--env", &env];
    args.extend_from_slice(adapter);
    args.extend_from_slice(&["--break", &at, "--wait", WAIT]);
    let started = data(&s, &args);
    let bp = &started["breakpoints"][0];
    assert_eq!(
        bp["file"],
        fixture_path(PARSER).display().to_string(),
        "{started}"
    );
    let stop = &started["stop"];
    assert_eq!(stop["reason"], "breakpoint", "{started}\n{}", s.log());
    assert_eq!(stop["frame"]["line"], line, "{stop}");
    assert!(
        stop["frame"]["file"]
            .as_str()
            .unwrap_or("")
            .ends_with("textparse/_strptime.py"),
        "{stop}"
    );

    // A line both have: the dependency's, not an ambiguity.
    let added = data(&s, &["break", "_strptime.py:4"]);
    assert_eq!(added["file"], fixture_path(PARSER).display().to_string());

    // Past the end of both: said of the package's file, the longer.
    let refused = run(&s, &["break", "_strptime.py:5000"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    let message = refused.failure()["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let length = std::fs::read_to_string(fixture_path(PARSER))
        .expect("read fixture")
        .lines()
        .count();
    assert!(
        message.contains(&format!("which has {length} lines")),
        "{message}"
    );
}

#[test]
fn debugpy_places_a_bare_name_in_the_dependency_not_the_standard_library() {
    require_debugpy();
    a_dependency_beats_the_standard_library(&[]);
}

#[test]
fn pdb_places_a_bare_name_in_the_dependency_not_the_standard_library() {
    require_python();
    a_dependency_beats_the_standard_library(&["--adapter", "pdb"]);
}

#[test]
fn go_places_a_bare_name_in_the_module_not_goroot() {
    require_delve();
    let s = Session::new();
    let line = line_of(GO_FORMAT, "@describe_body");
    let at = format!("format.go:{line}");
    let program = build_go(GO_MAIN);
    let started = data(
        &s,
        &[
            "start",
            program.to_str().expect("utf-8"),
            "--break",
            &at,
            "--wait",
            WAIT,
        ],
    );
    let bp = &started["breakpoints"][0];
    assert_eq!(
        bp["file"],
        fixture_path(GO_FORMAT).display().to_string(),
        "{started}"
    );
    let stop = &started["stop"];
    assert_eq!(stop["reason"], "breakpoint", "{started}\n{}", s.log());
    assert_eq!(stop["frame"]["line"], line, "{stop}");
    assert!(
        Path::new(stop["frame"]["file"].as_str().unwrap_or("")).ends_with("namesake/format.go"),
        "{stop}"
    );
    // Two of GOROOT's files of one name stay an ambiguity: neither is the program's.
    let refused = run(&s, &["break", "print.go:1"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
}
