//! Breakpoints debugpy would accept and never stop at, made to stop: a function breakpoint on a
//! generator, a coroutine or a `Class.method`, and a line or a function in the standard library
//! under justMyCode.
//!
//! Every test fails (never skips) when debugpy is missing: `.ci/run` installs it with pip.

mod common;

use common::python::*;
use common::{Session, at, fixture_path, frame_lines, json_decoder_line, line_of, require_debugpy};
use serde_json::Value;

#[test]
fn function_breakpoint_on_a_generator_stops_on_its_first_line_when_first_iterated() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(GENERATORS), &["-b", "produce"]);
    let bp = &started["breakpoints"][0];
    assert_eq!(bp["verified"], true, "{started}");
    assert_eq!(
        bp["line"],
        line_of(GENERATORS, "@produce_body"),
        "{started}"
    );

    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_at(&stop, GENERATORS, "produce", "@produce_body");
    assert_eq!(s.value_of("count"), "4");
    let bt = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&bt)[..2],
        [
            ("produce", u64::from(line_of(GENERATORS, "@produce_body"))),
            ("main", u64::from(line_of(GENERATORS, "@produce_call"))),
        ],
        "{bt}"
    );

    // A coroutine's breakpoint added while stopped stops too; the generator's later resumptions
    // on the way there do not.
    let added = s.data(&["breakpoint", "add", "fetch"]);
    assert_eq!(added["verified"], true, "{added}");
    assert_eq!(added["line"], line_of(GENERATORS, "@fetch_body"), "{added}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_at(&stop, GENERATORS, "fetch", "@fetch_body");
    let text = output_containing(&s, "totals: [0, 1, 3, 6]\n");
    assert_eq!(text, "totals: [0, 1, 3, 6]\n");
}

#[test]
fn function_breakpoint_on_a_coroutine_stops_on_its_first_line_once() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(GENERATORS), &["-b", "fetch"]);
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, GENERATORS, "fetch", "@fetch_body");
    assert_eq!(s.value_of("key"), "21");

    // Resuming after the `await` is not a new call: the program runs to its end.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    output_containing(&s, "fetched: 42\n");
}

#[test]
fn function_breakpoint_on_a_class_method_by_its_qualified_name_stops() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["-b", "Account.deposit"]);
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_body");
    assert_eq!(s.value_of("amount"), "0");
}

/// Asserts the stop is at `line` of the standard library's json/decoder.py, called from the
/// fixture's `main`.
#[track_caller]
fn assert_in_json_decoder(s: &Session, stop: &Value, line: u32) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "decode", "{stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with("json/decoder.py"), "{stop}");
    assert_eq!(stop["thread_name"], "MainThread", "{stop}");
    let bt = s.data(&["backtrace"]);
    let main = ("main", u64::from(line_of(GENERATORS, "@library_call")));
    assert!(frame_lines(&bt).contains(&main), "{bt}");
}

#[test]
fn breakpoint_in_the_standard_library_stops_under_just_my_code() {
    require_debugpy();
    let (decoder, line) = json_decoder_line();
    let location = format!("{}:{line}", decoder.display());
    let s = Session::new();
    // No --no-just-my-code: the default, under which debugpy skips library code.
    let started = s.start(&fixture_path(GENERATORS), &["-b", &location]);
    let bp = &started["breakpoints"][0];
    assert_eq!(bp["verified"], true, "{started}");
    assert!(bp["message"].is_null(), "{started}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_in_json_decoder(&s, &stop, line);
}

#[test]
fn breakpoint_added_in_the_standard_library_while_stopped_stops_under_just_my_code() {
    require_debugpy();
    let (decoder, line) = json_decoder_line();
    let s = Session::new();
    s.start(
        &fixture_path(GENERATORS),
        &["-b", &at(GENERATORS, "@fetch_call")],
    );
    let stop = continue_to_stop(&s);
    assert_at(&stop, GENERATORS, "main", "@fetch_call");

    let added = s.data(&[
        "breakpoint",
        "add",
        &format!("{}:{line}", decoder.display()),
    ]);
    assert_eq!(added["verified"], true, "{added}");
    assert!(added["message"].is_null(), "{added}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_in_json_decoder(&s, &stop, line);
}

#[test]
fn library_function_breakpoints_under_just_my_code_stop_or_say_why_not() {
    require_debugpy();
    let (_, line) = json_decoder_line();
    let s = Session::new();
    let started = s.start(
        &fixture_path(GENERATORS),
        &["-b", "raw_decode", "-b", "json.decoder.JSONDecoder.decode"],
    );
    // A bare name defined only in the library: debugpy would call it verified and never stop.
    let bare = &started["breakpoints"][0];
    assert_eq!(bare["verified"], false, "{started}");
    let message = bare["message"].as_str().unwrap_or("");
    assert!(message.contains("--no-just-my-code"), "{started}");
    assert!(message.contains("json.loads"), "{started}");
    // With its module it is found, and stops on the first line of its body.
    let qualified = &started["breakpoints"][1];
    assert_eq!(qualified["verified"], true, "{started}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_in_json_decoder(&s, &stop, line);
}

/// A program that imports a package from its `PYTHONPATH` only once it runs; the package's
/// folder is neither the program's nor the working directory.
fn lazily_importing_program(s: &Session) -> (std::path::PathBuf, std::path::PathBuf) {
    let library = s.dir.path().join("lib");
    let package = library.join("lazylib");
    std::fs::create_dir_all(&package).expect("package folder");
    std::fs::write(package.join("__init__.py"), "").expect("__init__.py");
    std::fs::write(
        package.join("deep_module.py"),
        "def deep(x):\n    y = x * 3\n    return y\n",
    )
    .expect("deep_module.py");
    let program_dir = s.dir.path().join("prog");
    std::fs::create_dir_all(&program_dir).expect("program folder");
    let program = program_dir.join("lazy_app.py");
    std::fs::write(
        &program,
        "def main():\n    from lazylib import deep_module\n    print(deep_module.deep(14))\n\n\nmain()\n",
    )
    .expect("lazy_app.py");
    (program, library)
}

#[test]
fn a_bare_file_name_of_a_module_not_imported_yet_is_found_on_the_search_path() {
    require_debugpy();
    let s = Session::new();
    let (program, library) = lazily_importing_program(&s);
    for adapter in ["debugpy", "pdb"] {
        let run = common::Run::from(
            s.command()
                .env("PYTHONPATH", &library)
                .args([
                    "--json",
                    "start",
                    "--no-wait",
                    program.to_str().expect("utf-8"),
                ])
                .args(["--adapter", adapter, "-b", "deep_module.py:2"])
                .output()
                .expect("run debugger"),
        );
        let started = run.json();
        let bp = &started["data"]["breakpoints"][0];
        let file = bp["file"].as_str().unwrap_or_default();
        assert!(
            file.ends_with("lib/lazylib/deep_module.py"),
            "{adapter}: {started}"
        );
        let stop = continue_to_stop(&s);
        assert_eq!(stop["frame"]["function"], "deep", "{adapter}: {stop}");
        assert_eq!(s.value_of("x"), "14", "{adapter}");
        s.data(&["stop"]);
    }
}

/// A program whose class `Parser` comes from a module of its folder's `lib/`, beside a script
/// that defines a class of the same name: `Parser.parse_number` is defined in two files.
fn program_with_namesake_classes(s: &Session) -> std::path::PathBuf {
    let folder = s.dir.path().join("prog");
    std::fs::create_dir_all(folder.join("lib")).expect("program folders");
    let class = "class Parser:\n    def parse_number(self, raw):\n        return int(raw)\n";
    std::fs::write(folder.join("lib/parsemod.py"), class).expect("parsemod.py");
    std::fs::write(
        folder.join("cls.py"),
        format!("{class}\nprint(Parser().parse_number('1'))\n"),
    )
    .expect("cls.py");
    let program = folder.join("usecls.py");
    std::fs::write(
        &program,
        "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))\n\
         from parsemod import Parser\nprint(Parser().parse_number('7'))\n",
    )
    .expect("usecls.py");
    program
}

#[test]
fn a_class_method_defined_in_two_files_is_pending_with_where_and_stops_with_its_module() {
    require_debugpy();
    let s = Session::new();
    let program = program_with_namesake_classes(&s);
    let started = s.start(&program, &["-b", "Parser.parse_number"]);
    let bp = &started["breakpoints"][0];
    // debugpy would call it verified and never stop: it says which definitions there are.
    assert_eq!(bp["verified"], false, "{started}");
    let message = bp["message"].as_str().unwrap_or("");
    assert!(message.contains("lib/parsemod.py:3"), "{started}");
    assert!(message.contains("cls.py:3"), "{started}");
    assert!(message.contains("FILE:LINE"), "{started}");
    s.data(&["stop"]);

    // With its module it is the imported class's, and stops in it.
    s.start(&program, &["-b", "parsemod.Parser.parse_number"]);
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "parse_number", "{stop}");
    assert_eq!(stop["frame"]["line"], 3, "{stop}");
    assert_eq!(s.value_of("raw"), "'7'");
}
