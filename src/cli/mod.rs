//! The command-line side: parse, run one command against the daemon, print, exit.

pub mod args;
pub mod client;
pub mod render;
pub mod spawn;

use std::io::Write;

use clap::Parser;
use serde_json::{Value, json};

use crate::common::error::ErrorBody;
use args::{Cli, CommandLine};

/// What a command produced: the `--json` data and the text for people.
pub struct Outcome {
    pub data: Value,
    pub text: String,
}

impl Outcome {
    pub fn new(data: Value, text: impl Into<String>) -> Outcome {
        Outcome {
            data,
            text: text.into(),
        }
    }
}

/// Runs the CLI and returns the process exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    if let CommandLine::Daemon = cli.command {
        return crate::daemon::run(&cli.session);
    }
    let json = cli.json;
    match crate::commands::run(cli) {
        Ok(outcome) => {
            print_success(json, outcome);
            0
        }
        Err(err) => {
            print_error(json, &err);
            err.code.exit_code()
        }
    }
}

fn usage_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return 0;
    }
    if std::env::args().any(|a| a == "--json") {
        let message = e
            .to_string()
            .lines()
            .next()
            .unwrap_or("invalid command line")
            .trim_start_matches("error: ")
            .to_string();
        let err = ErrorBody::usage(
            message,
            "run 'debugger --help' for the commands and their flags",
        );
        print_error(true, &err);
        return 2;
    }
    let _ = e.print();
    2
}

fn print_success(json: bool, outcome: Outcome) {
    let mut stdout = std::io::stdout().lock();
    if json {
        let _ = writeln!(stdout, "{}", json!({ "ok": true, "data": outcome.data }));
    } else if !outcome.text.is_empty() {
        let _ = stdout.write_all(outcome.text.as_bytes());
        if !outcome.text.ends_with('\n') {
            let _ = stdout.write_all(b"\n");
        }
    }
    let _ = stdout.flush();
}

pub fn print_error(json: bool, err: &ErrorBody) {
    if json {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{}", json!({ "ok": false, "error": err }));
        let _ = stdout.flush();
    } else {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "error: {}", err.message);
        if !err.hint.is_empty() {
            let _ = writeln!(stderr, "hint: {}", err.hint);
        }
    }
}
