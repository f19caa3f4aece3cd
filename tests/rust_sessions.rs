//! Rust values outside a launched session's `locals`: a probe's per-hit summary (each hit shows
//! what a `&Path`, a `Box` and an `Rc` hold, never an address that is the same at every hit), an
//! attached process (which gets the toolchain's formatters as a launched one does), and the
//! breakpoint list and stop reports, which name Rust functions as Rust writes them. On lldb-dap
//! and GDB 16.
//!
//! Every session runs from its own working directory, never the fixture's folder.

mod common;

use std::process::{Child, Command, Stdio};

use common::{Session, build, require_lldb_dap, variable};
use serde_json::Value;

const PATHS: &str = "rust/paths.rs";
const VISIT: &str = "paths::visit";
const WAIT: &str = "60";

fn gdb_session() -> Session {
    Session::with_gdb()
}

/// The text report of a three-hit probe of `visit` under `adapter`.
fn probed(s: &Session, adapter: &str) -> String {
    let program = build(PATHS);
    let run = s.run(&[
        "probe",
        program.to_str().expect("utf-8 path"),
        "--adapter",
        adapter,
        "--break",
        VISIT,
        "--hits",
        "3",
    ]);
    run.ok().to_string()
}

/// Hit N's `locals:` block.
fn hit(report: &str, number: usize) -> &str {
    let start = report
        .find(&format!("Hit {number}:"))
        .unwrap_or_else(|| panic!("no hit {number} in:\n{report}"));
    let rest = &report[start..];
    let end = rest.find("  stack:").unwrap_or(rest.len());
    &rest[..end]
}

/// Each hit shows the path it was given and the boxed depth, and `owner`, the same `Rc` each
/// time, is named unchanged after the first.
#[track_caller]
fn assert_each_hit_shows_its_values(report: &str, pointer: &str) {
    for (number, path) in [(1, "a.txt"), (2, "src/b.rs"), (3, "c")] {
        let locals = hit(report, number);
        let depth = number - 1;
        assert!(
            locals.contains(&format!("path  (&std::path::Path) = \"{path}\"\n")),
            "hit {number}:\n{report}"
        );
        let boxed = format!("depth ({pointer}) = 0x");
        let line = locals
            .lines()
            .find(|l| l.contains(&boxed))
            .unwrap_or_else(|| panic!("no {boxed} at hit {number}:\n{report}"));
        // The text says the boxed value after the address; no inline copy of it follows.
        assert!(line.ends_with(&format!(" {depth}")), "hit {number}: {line}");
        if number == 1 {
            assert!(
                locals.contains(
                    "(alloc::rc::Rc<alloc::string::String, alloc::alloc::Global>) = Rc(\"me\") strong=2 weak=0"
                ),
                "{report}"
            );
        } else {
            assert!(locals.contains("(unchanged: owner)"), "{report}");
        }
    }
}

#[test]
fn lldb_probe_shows_each_hits_path_and_box_not_the_same_address() {
    require_lldb_dap();
    let s = Session::new();
    let report = probed(&s, "lldb");
    assert!(
        report.starts_with("paths: 3 hits; --hits 3 reached"),
        "{report}"
    );
    assert_each_hit_shows_its_values(&report, "alloc::boxed::Box<i32, alloc::alloc::Global>");
    assert!(!report.contains("&std::path::Path @"), "{report}");
}

#[test]
fn gdb_probe_shows_each_hits_path_and_box_not_the_same_address() {
    let s = gdb_session();
    let report = probed(&s, "gdb");
    assert!(
        report.starts_with("paths: 3 hits; --hits 3 reached"),
        "{report}"
    );
    assert_each_hit_shows_its_values(&report, "*mut i32");
    assert!(!report.contains("std::path::Path {inner"), "{report}");
}

/// `paths spin`, killed when dropped.
struct Spinner(Child);

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spinner() -> Spinner {
    Spinner(
        Command::new(build(PATHS))
            .arg("spin")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn paths spin"),
    )
}

/// Attaches to a spinning Rust program, breaks in `visit`, and returns its locals.
fn attached_locals(s: &Session, spin: &Spinner, adapter: &str) -> Value {
    let pid = spin.0.id().to_string();
    let attached = s.data(&["attach", &pid, "--adapter", adapter]);
    assert_eq!(attached["adapter"], adapter, "{attached}");
    let added = s.data(&["breakpoint", "add", VISIT]);
    assert_eq!(added["verified"], true, "{added}");
    let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
    assert_eq!(stop["frame"]["function"], VISIT, "{stop}");
    let locals = s.data(&["locals"]);
    s.data(&["detach"]);
    locals
}

/// An attached Rust program gets the formatters too: its values read as Rust writes them.
#[test]
fn lldb_attach_to_a_rust_program_loads_the_formatters() {
    require_lldb_dap();
    // Declared first, dropped last: the session detaches before the process is killed.
    let spin = spinner();
    let s = Session::new();
    let locals = attached_locals(&s, &spin, "lldb");
    let owner = variable(&locals["variables"], "owner");
    assert_eq!(owner["value"], "Rc(\"me\") strong=2 weak=0", "{locals}");
    let path = variable(&locals["variables"], "path");
    assert!(
        path["value"].as_str().unwrap_or("").starts_with('"'),
        "{locals}"
    );
}

#[test]
fn gdb_attach_to_a_rust_program_loads_the_pretty_printers() {
    let spin = spinner();
    let s = gdb_session();
    let locals = attached_locals(&s, &spin, "gdb");
    let owner = variable(&locals["variables"], "owner");
    assert_eq!(owner["value"], "Rc(\"me\") strong=2 weak=0", "{locals}");
    let path = variable(&locals["variables"], "path");
    assert!(
        path["value"].as_str().unwrap_or("").starts_with('"'),
        "{locals}"
    );
}

/// The breakpoint list and the stop name Rust functions by their Rust path, without rustc's
/// hash or its `$LT$`-style escapes, on both adapters.
#[test]
fn breakpoint_lists_and_stops_name_rust_functions_demangled() {
    require_lldb_dap();
    for (s, adapter) in [(Session::new(), "lldb"), (gdb_session(), "gdb")] {
        let program = build(PATHS);
        s.start(
            &program,
            &["--adapter", adapter, "-b", VISIT, "-b", "paths::walk"],
        );
        let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
        assert_eq!(
            stop["frame"]["function"], "paths::walk",
            "{adapter}: {stop}"
        );
        let list = s.run(&["breakpoint", "list"]).ok().to_string();
        let names: Vec<&str> = list
            .lines()
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        assert_eq!(names, [VISIT, "paths::walk"], "{adapter}:\n{list}");
        assert!(!list.contains('$') && !list.contains("::h"), "{list}");
        let stop = s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone();
        assert_eq!(stop["frame"]["function"], VISIT, "{adapter}: {stop}");
        let backtrace = s.data(&["backtrace"]);
        let functions: Vec<&str> = backtrace["frames"]
            .as_array()
            .expect("frames")
            .iter()
            .filter_map(|f| f["function"].as_str())
            .take(3)
            .collect();
        assert_eq!(
            functions[..2],
            [VISIT, "paths::walk"],
            "{adapter}: {backtrace}"
        );
        s.run(&["stop"]);
    }
}
