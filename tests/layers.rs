//! The layering rules of docs/architecture.md, checked on the source text.
//!
//! - **One direction**: `cli → commands → ipc`, and `daemon → ipc`. The CLI is one front door;
//!   `commands` is what every front door calls, so it never reaches back into `cli`; `ipc` is the
//!   protocol both sides speak, so it knows neither. The daemon serves the protocol and knows no
//!   front door. A command that runs a session in its own process (`probe`) reaches the daemon
//!   through `daemon::in_process` alone.
//! - **Commands never print**: text a command shows while it runs goes through the call's sink,
//!   so a server that answers on its own stdout can run any command.
//! - **Only the CLI reads the process's arguments.**
//!
//! A `use` or path names a layer as `crate::NAME`; `super::` stays inside the file's own layer.
//! Comments are skipped.

mod common;

/// The layer of a source file: the folder (or file) under `src/` it is in.
fn layer(name: &str) -> &str {
    let rest = name.trim_start_matches("src/");
    rest.split(['/', '.']).next().unwrap_or(rest)
}

/// Each line of a file with its number, comments left out.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let code = line.split("//").next().unwrap_or("");
        (!code.trim().is_empty()).then_some((i + 1, code))
    })
}

/// What `from` may not name, and the one path into a forbidden layer it may use.
fn forbidden(from: &str) -> (&'static [&'static str], Option<&'static str>) {
    match from {
        "commands" => (&["cli", "daemon"], Some("crate::daemon::in_process")),
        "ipc" => (&["cli", "commands", "daemon"], None),
        "daemon" | "adapters" | "dap" | "common" => (&["cli", "commands"], None),
        _ => (&[], None),
    }
}

#[test]
fn layers_depend_one_way() {
    let mut wrong = Vec::new();
    for (name, path) in common::source_files() {
        let text = std::fs::read_to_string(&path).expect("a source file");
        let (banned, door) = forbidden(layer(&name));
        for (number, code) in code_lines(&text) {
            for target in banned {
                let named = format!("crate::{target}");
                let through_door = door.is_some_and(|d| code.contains(d));
                if code.contains(&named) && !through_door {
                    wrong.push(format!("{name}:{number}: {}", code.trim()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "these lines reach against the layering (docs/architecture.md, 'Layers'):\n{}",
        wrong.join("\n")
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
    let mut wrong = Vec::new();
    for (name, path) in common::source_files() {
        if layer(&name) != "commands" {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (number, code) in code_lines(&text) {
            if PRINTING.iter().any(|p| code.contains(p)) {
                wrong.push(format!("{name}:{number}: {}", code.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "commands write through the call's sink, never to the process's streams:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn only_the_cli_reads_the_process_arguments() {
    let mut wrong = Vec::new();
    for (name, path) in common::source_files() {
        if name == "src/cli/mod.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (number, code) in code_lines(&text) {
            if code.contains("env::args") {
                wrong.push(format!("{name}:{number}: {}", code.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "only src/cli/mod.rs reads argv; a command takes its arguments as values:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_rules_see_a_breach() {
    let (banned, door) = forbidden("commands");
    assert!(banned.contains(&"cli") && door.is_some());
    assert_eq!(layer("src/commands/probe/text.rs"), "commands");
    assert_eq!(layer("src/lib.rs"), "lib");
    let lines: Vec<_> = code_lines("use crate::cli::x; // crate::daemon\n// crate::cli").collect();
    assert_eq!(lines, vec![(1, "use crate::cli::x; ")]);
}
