//! A breakpoint whose file the program never loads is named at the end of the run, with the
//! file of that name the program did load (issue 35: in a python-dateutil checkout, a breakpoint
//! bound in `src/dateutil/relativedelta.py` while the tests imported the installed copy, and the
//! run ended "passed … nothing stopped it"). The fixtures are of that shape: a checkout whose
//! `src/shapes/area.py` is on no path while the program imports an installed copy, and a node
//! script that requires a vendored copy of `greet.js`, never the one in `src/`. A breakpoint in a
//! file that did load but whose line was never reached gets no such line, also when it is named
//! through a link to the loaded file, or when only a loaded script's source map names it. Each
//! runs from a folder that is not the program's.
//!
//! Unix only: the loaded copy is also named through a symbolic link.
#![cfg(unix)]

mod common;

use std::path::PathBuf;

use common::test_project::{command, copy_dir};
use common::{
    Run, Session, at, fixture_path, line_of, require_debugpy, require_node, require_python,
};
use serde_json::{Value, json};

const DRIVE: &str = "python/unloaded/project/drive.py";
const SRC_AREA: &str = "python/unloaded/project/src/shapes/area.py";
const SRC_EXTRA: &str = "python/unloaded/project/src/shapes/extra.py";
const INSTALLED: &str = "python/unloaded/installed";
const INSTALLED_AREA: &str = "python/unloaded/installed/shapes/area.py";
const MAIN_JS: &str = "javascript/unloaded/main.js";
const SRC_GREET: &str = "javascript/unloaded/src/greet.js";
const VENDOR_GREET: &str = "javascript/unloaded/vendor/greet.js";
const WAIT: &str = "60";

fn real(fixture: &str) -> String {
    std::fs::canonicalize(fixture_path(fixture))
        .expect("the fixture is there")
        .display()
        .to_string()
}

/// A link in the session's folder to the installed copy's folder: a breakpoint named through it
/// is in a file the program loaded.
fn linked_installed(s: &Session) -> PathBuf {
    let link = s.cwd.join("linked");
    std::os::unix::fs::symlink(fixture_path(INSTALLED), &link).expect("make the link");
    link
}

/// The end of a run of drive.py (on `adapter`, none for the default) with a breakpoint in the
/// checkout's `area.py` (a copy of it loaded), one in its `extra.py` (nothing of that name
/// loaded), and one in the installed `area.py`, named through a link, on a line never reached.
fn python_end(adapter: &[&str]) -> (Session, Value) {
    let s = Session::new();
    let link = linked_installed(&s);
    let unreached = format!(
        "{}:{}",
        link.join("shapes/area.py").display(),
        line_of(INSTALLED_AREA, "@installed_circle")
    );
    let env = format!("PYTHONPATH={}", fixture_path(INSTALLED).display());
    let mut args = vec!["--env", &env];
    args.extend_from_slice(adapter);
    let src_square = at(SRC_AREA, "@src_square");
    let src_unused = at(SRC_EXTRA, "@src_unused");
    args.extend_from_slice(&["-b", &src_square, "-b", &src_unused, "-b", &unreached]);
    s.start(&fixture_path(DRIVE), &args);
    let end = s.data(&["await", "--timeout", WAIT]);
    (s, end)
}

/// What a Python end must say: breakpoints 1 and 2 unloaded, 1 with the installed copy.
#[track_caller]
fn assert_python_end(s: &Session, end: &Value) {
    assert_eq!(end["reason"], "exited", "{end}\n{}", s.log());
    assert_eq!(end["exit_code"], 0, "{end}");
    assert_eq!(
        end["unloaded_breakpoints"],
        json!([
            {"id": 1, "location": at(SRC_AREA, "@src_square"), "loaded_namesake": real(INSTALLED_AREA)},
            {"id": 2, "location": at(SRC_EXTRA, "@src_unused")},
        ]),
        "{end}\n{}",
        s.log()
    );
    let text = s.run(&["await"]).ok().to_string();
    let src = fixture_path(SRC_AREA).display().to_string();
    assert!(
        text.contains(&format!(
            "breakpoint 1 ({src}:{}): that file was never loaded; the program ran {}\n",
            line_of(SRC_AREA, "@src_square"),
            real(INSTALLED_AREA)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "breakpoint 2 ({}): that file was never loaded\n",
            at(SRC_EXTRA, "@src_unused")
        )),
        "{text}"
    );
    assert!(!text.contains("breakpoint 3"), "{text}");
}

#[test]
fn debugpy_names_the_breakpoints_whose_file_never_loaded_and_the_copy_it_ran() {
    require_debugpy();
    let (s, end) = python_end(&["--adapter", "debugpy"]);
    assert_python_end(&s, &end);
}

#[test]
fn pdb_names_the_breakpoints_whose_file_never_loaded_and_the_copy_it_ran() {
    require_python();
    let (s, end) = python_end(&["--adapter", "pdb"]);
    assert_python_end(&s, &end);
}

/// `debugger test` on the checkout's pytest test, with the installed copy on `PYTHONPATH`: the
/// test passes, and the report says why the breakpoint never stopped it.
#[test]
fn a_passing_test_names_the_breakpoint_in_the_copy_it_never_imported() {
    require_debugpy();
    let s = Session::new();
    let project = s.cwd.join("project");
    copy_dir(&fixture_path("python/unloaded/project"), &project);
    let installed = fixture_path(INSTALLED);
    let line = line_of(SRC_AREA, "@src_square");
    let at_line = format!("project/src/shapes/area.py:{line}");
    let args = [
        "test",
        "project/tests/test_area.py::test_square",
        "-b",
        &at_line,
    ];
    let run = |json: bool| {
        let mut command = command(&s, &[]);
        if !json {
            command = s.command();
        }
        Run::from(
            command
                .env("PYTHONPATH", &installed)
                .args(args)
                .output()
                .expect("run debugger"),
        )
    };
    let answer = run(true).json();
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["outcome"], "passed", "{data}");
    let src = std::fs::canonicalize(project.join("src/shapes/area.py")).expect("copied");
    assert_eq!(
        data["stop"]["unloaded_breakpoints"],
        json!([{
            "id": 1,
            "location": format!("{}:{line}", src.display()),
            "loaded_namesake": real(INSTALLED_AREA),
        }]),
        "{data}"
    );
    let text = run(false);
    assert!(
        text.ok().contains(&format!(
            "breakpoint 1 (project/src/shapes/area.py:{line}): that file was never loaded; the program ran {}",
            real(INSTALLED_AREA)
        )),
        "{}",
        text.ok()
    );
}

#[test]
fn node_names_the_breakpoint_in_the_copy_it_never_required() {
    require_node();
    let s = Session::new();
    let src_hello = at(SRC_GREET, "@src_hello");
    let vendor_bye = at(VENDOR_GREET, "@vendor_bye");
    s.start(
        &fixture_path(MAIN_JS),
        &["-b", &src_hello, "-b", &vendor_bye],
    );
    let end = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(end["reason"], "exited", "{end}\n{}", s.log());
    assert_eq!(
        end["unloaded_breakpoints"],
        json!([{"id": 1, "location": src_hello, "loaded_namesake": real(VENDOR_GREET)}]),
        "{end}\n{}",
        s.log()
    );
}

/// A run that reached its breakpoint's file but not the line, on each runtime that tells: no
/// word of an unloaded file.
#[test]
fn a_file_that_loaded_gets_no_note_though_its_line_was_never_reached() {
    require_python();
    require_node();
    for (program, breakpoint, extra) in [
        (DRIVE, at(INSTALLED_AREA, "@installed_circle"), "pdb"),
        (MAIN_JS, at(VENDOR_GREET, "@vendor_bye"), "node"),
    ] {
        let s = Session::new();
        let env = format!("PYTHONPATH={}", fixture_path(INSTALLED).display());
        s.start(
            &fixture_path(program),
            &["--adapter", extra, "--env", &env, "-b", &breakpoint],
        );
        let end = s.data(&["await", "--timeout", WAIT]);
        assert_eq!(end["reason"], "exited", "{end}\n{}", s.log());
        assert!(end.get("unloaded_breakpoints").is_none(), "{end}");
        assert!(
            !s.run(&["await"]).ok().contains("never loaded"),
            "{program}"
        );
    }
}

/// `probe` (pdb, its default for Python) with no hit: its end names the breakpoint, and its
/// error says why nothing was hit.
#[test]
fn a_probe_without_hits_says_the_breakpoints_file_never_loaded() {
    require_python();
    let s = Session::new();
    let env = format!("PYTHONPATH={}", fixture_path(INSTALLED).display());
    let program = fixture_path(DRIVE);
    let src_square = at(SRC_AREA, "@src_square");
    let args = [
        "probe",
        program.to_str().expect("utf-8"),
        "--env",
        &env,
        "-b",
        &src_square,
    ];
    let answer = s.json(&args);
    assert_eq!(answer["ok"], false, "{answer}");
    assert_eq!(
        answer["data"]["ended"]["unloaded_breakpoints"],
        json!([{"id": 1, "location": src_square, "loaded_namesake": real(INSTALLED_AREA)}]),
        "{answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "breakpoint 1 ({src_square}): that file was never loaded; the program ran {}",
            real(INSTALLED_AREA)
        )),
        "{message}"
    );
    let run = s.run(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

/// A TypeScript source counts as loaded when a script its map names ran: a breakpoint there
/// whose condition never holds gets no note.
#[test]
fn a_source_a_loaded_scripts_map_names_gets_no_note() {
    require_node();
    let program = common::typescript_build::compile("typescript", "app.js");
    let s = Session::new();
    let never = format!("{} if price > 100", at("typescript/src/util.ts", "@add"));
    s.start(&program, &["-b", &never]);
    let end = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(end["reason"], "exited", "{end}\n{}", s.log());
    assert!(end.get("unloaded_breakpoints").is_none(), "{end}");
}
