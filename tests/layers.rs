//! The layering rules of docs/architecture.md, checked on the source text.
//!
//! - **One direction**: `cli → commands → ipc`, `mcp → commands → ipc`, and `daemon → ipc`. The CLI is one front door;
//!   `commands` is what every front door calls, so it never reaches back into `cli`; `ipc` is the
//!   protocol both sides speak, so it knows neither. The daemon serves the protocol and knows no
//!   front door. A command that runs a session in its own process (`probe`) reaches the daemon
//!   through `daemon::in_process` alone.
//! - **Commands never print**: text a command shows while it runs goes through the call's sink,
//!   so a server that answers on its own stdout can run any command.
//! - **Only the CLI reads the process's arguments.**
//! - **The platform layer stands alone**: every layer may use `platform`, which uses none.
//!
//! A `use` or path names a layer as `crate::NAME`; `super::` stays inside the file's own layer.
//! Comments are skipped.

mod common;

use common::code_lines;

/// The layer of a source file: the folder (or file) under `src/` it is in.
fn layer(name: &str) -> &str {
    let rest = name.trim_start_matches("src/");
    rest.split(['/', '.']).next().unwrap_or(rest)
}

/// What `from` may not name, and the one path into a forbidden layer it may use.
fn forbidden(from: &str) -> (&'static [&'static str], Option<&'static str>) {
    match from {
        "commands" => (&["cli", "daemon", "mcp"], Some("crate::daemon::in_process")),
        "mcp" => (&["cli", "daemon"], None),
        "ipc" => (&["cli", "commands", "daemon", "mcp"], None),
        "daemon" | "adapters" | "dap" | "common" => (&["cli", "commands", "mcp"], None),
        "platform" => (
            &[
                "cli", "commands", "ipc", "daemon", "adapters", "dap", "common", "mcp",
            ],
            None,
        ),
        _ => (&[], None),
    }
}

/// Every code line (`file:line: code`) of the files whose names `in_scope` takes, on which
/// `breaks` finds something, given the file's layer and the line.
fn breaches(in_scope: impl Fn(&str) -> bool, breaks: impl Fn(&str, &str) -> bool) -> String {
    let mut found = Vec::new();
    for (name, path) in common::source_files() {
        if !in_scope(&name) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (number, code) in code_lines(&text) {
            if breaks(layer(&name), code) {
                found.push(format!("{name}:{number}: {}", code.trim()));
            }
        }
    }
    found.join("\n")
}

#[test]
fn layers_depend_one_way() {
    let wrong = breaches(
        |_| true,
        |layer, code| {
            let (banned, door) = forbidden(layer);
            let through_door = door.is_some_and(|d| code.contains(d));
            banned
                .iter()
                .any(|target| code.contains(&format!("crate::{target}")) && !through_door)
        },
    );
    assert!(
        wrong.is_empty(),
        "these lines reach against the layering (docs/architecture.md, 'Layers'):\n{wrong}"
    );
}

#[test]
fn commands_never_print() {
    const PRINTING: &[&str] = &[
        "print!(",
        "println!(",
        "eprint!(",
        "eprintln!(",
        "dbg!(",
        "io::stdout(",
        "io::stderr(",
    ];
    let wrong = breaches(
        |name| layer(name) == "commands",
        |_, code| PRINTING.iter().any(|p| code.contains(p)),
    );
    assert!(
        wrong.is_empty(),
        "commands write through the call's sink, never to the process's streams:\n{wrong}"
    );
}

#[test]
fn only_the_cli_reads_the_process_arguments() {
    let wrong = breaches(
        |name| name != "src/cli/mod.rs",
        |_, code| code.contains("env::args"),
    );
    assert!(
        wrong.is_empty(),
        "only src/cli/mod.rs reads argv; a command takes its arguments as values:\n{wrong}"
    );
}

#[test]
fn the_rules_see_a_breach() {
    let (banned, door) = forbidden("commands");
    assert!(banned.contains(&"cli") && door.is_some());
    assert!(forbidden("mcp").0.contains(&"daemon"));
    assert!(forbidden("commands").0.contains(&"cli") && !forbidden("mcp").0.contains(&"commands"));
    assert_eq!(layer("src/commands/probe/text.rs"), "commands");
    assert_eq!(layer("src/lib.rs"), "lib");
    let lines: Vec<_> = code_lines("use crate::cli::x; // crate::daemon\n// crate::cli").collect();
    assert_eq!(lines, vec![(1, "use crate::cli::x; ")]);
}
