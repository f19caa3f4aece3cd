//! What the CLI writes: a command's outcome (text for people, or the one `--json` envelope), its
//! error, clap's usage errors, and the text a command shows while it runs. Every byte that
//! comes from the program or the adapter passes through `render::terminal_safe` first.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use crate::commands::render::terminal_safe;
use crate::commands::{Outcome, Sink};
use crate::common::error::ErrorBody;

/// The CLI's sink: a command's text goes to stdout as it comes, its notes to stderr.
pub struct Terminal;

impl Sink for Terminal {
    fn text(&mut self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(terminal_safe(text).as_bytes());
        let _ = stdout.flush();
    }

    fn note(&mut self, text: &str) {
        let _ = std::io::stderr().write_all(terminal_safe(text).as_bytes());
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

/// Prints clap's refusal (or its help and version, which are not errors) and returns the exit
/// status.
pub fn usage_error(e: &clap::Error, json: bool) -> i32 {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return 0;
    }
    if json {
        // Clap's message spans lines (the missing argument comes on the next one); keep every
        // line before the usage block, joined, but its tips, which are the hint.
        let rendered = e.to_string();
        let lines: Vec<&str> = rendered
            .lines()
            .take_while(|l| !l.starts_with("Usage:"))
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
            .collect();
        let (tips, words): (Vec<&str>, Vec<&str>) =
            lines.into_iter().partition(|l| l.starts_with("tip: "));
        let message = words.join(" ").trim_start_matches("error: ").to_string();
        let tips: Vec<&str> = tips.iter().map(|t| t.trim_start_matches("tip: ")).collect();
        let hint = if tips.is_empty() {
            "run 'debugger --help' for the commands and their flags".to_string()
        } else {
            tips.join("; ")
        };
        let err = ErrorBody::usage(message, hint);
        error(true, &err);
        return 2;
    }
    let _ = e.print();
    2
}

pub fn outcome(json: bool, outcome: Outcome) {
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
        let _ = stdout.write_all(terminal_safe(&outcome.text).as_bytes());
        if !outcome.text.ends_with('\n') {
            let _ = stdout.write_all(b"\n");
        }
    }
    let _ = stdout.flush();
    drop(stdout);
    if let Some(err) = &outcome.error {
        error(false, err);
    }
}

pub fn error(json: bool, err: &ErrorBody) {
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
        let _ = writeln!(stderr, "error: {}", terminal_safe(&err.message));
        if !err.hint.is_empty() {
            let _ = writeln!(stderr, "hint: {}", terminal_safe(&err.hint));
        }
    }
}
