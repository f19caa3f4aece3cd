//! The command-line side: parse, run one command against the daemon, print, exit.

pub mod args;
pub mod client;
mod parse;
pub mod render;
pub mod spawn;
pub mod startup;

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use crate::common::error::ErrorBody;
use args::CommandLine;

/// What a command produced: the `--json` data and the text for people, and, for a command whose
/// result is also a failure (a `probe` that hit nothing), the error that sets the exit status.
pub struct Outcome {
    pub data: Value,
    pub text: String,
    pub error: Option<ErrorBody>,
}

impl Outcome {
    pub fn new(data: Value, text: impl Into<String>) -> Outcome {
        Outcome {
            data,
            text: text.into(),
            error: None,
        }
    }

    /// A result that is also a failure: both are printed, and the error sets the exit status.
    pub fn failed(self, error: ErrorBody) -> Outcome {
        Outcome {
            error: Some(error),
            ..self
        }
    }
}

/// The `--json` envelope: `ok` first, then `data` or `error`.
#[derive(Serialize)]
struct Envelope<'a> {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorBody>,
}

fn envelope_line(envelope: &Envelope<'_>) -> String {
    serde_json::to_string(envelope).unwrap_or_else(|_| r#"{"ok":false}"#.to_string())
}

/// Runs the CLI and returns the process exit status.
pub fn main() -> i32 {
    let cli = match parse::parse_arguments() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match cli.command {
        CommandLine::Daemon => return crate::daemon::run(&cli.session),
        CommandLine::Reaper { group } => return crate::daemon::reaper::run(group),
        _ => {}
    }
    let json = cli.json;
    match crate::commands::run(cli) {
        Ok(outcome) => {
            let code = outcome.error.as_ref().map_or(0, |e| e.code.exit_code());
            print_outcome(json, outcome);
            code
        }
        Err(err) => {
            print_error(json, &err);
            err.code.exit_code()
        }
    }
}

fn usage_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return 0;
    }
    if std::env::args().any(|a| a == "--json") {
        // Clap's message spans lines (the missing argument comes on the next one); keep every
        // line before the usage block, joined.
        let rendered = e.to_string();
        let message = rendered
            .lines()
            .take_while(|l| !l.starts_with("Usage:"))
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
            .collect::<Vec<_>>()
            .join(" ")
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

fn print_outcome(json: bool, outcome: Outcome) {
    let mut stdout = std::io::stdout().lock();
    if json {
        let line = envelope_line(&Envelope {
            ok: outcome.error.is_none(),
            data: Some(&outcome.data),
            error: outcome.error.as_ref(),
        });
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
        return;
    }
    if !outcome.text.is_empty() {
        let _ = stdout.write_all(render::terminal_safe(&outcome.text).as_bytes());
        if !outcome.text.ends_with('\n') {
            let _ = stdout.write_all(b"\n");
        }
    }
    let _ = stdout.flush();
    drop(stdout);
    if let Some(err) = &outcome.error {
        print_error(false, err);
    }
}

pub fn print_error(json: bool, err: &ErrorBody) {
    if json {
        let mut stdout = std::io::stdout().lock();
        let line = envelope_line(&Envelope {
            ok: false,
            data: None,
            error: Some(err),
        });
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    } else {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "error: {}", render::terminal_safe(&err.message));
        if !err.hint.is_empty() {
            let _ = writeln!(stderr, "hint: {}", render::terminal_safe(&err.hint));
        }
    }
}
