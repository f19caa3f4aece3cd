//! A runner's helper process (a build, a listing) run in the project, and what its failure is
//! shown as: the line that says why (`TypeError: …`, `error[E0425]: …`, `INTERNALERROR> …`),
//! with the lines around it, where the end of the output alone is often a stack trace that
//! never says what went wrong.

use std::process::Command as Process;

use crate::common::error::{ErrorBody, ErrorCode};

/// How many lines of a failed run's output are shown.
const SHOWN_LINES: usize = 12;

/// How many lines before the first one that says why are shown with it (vitest's `failed to
/// load config from …` comes just before its `TypeError`).
const LINES_BEFORE: usize = 3;

/// Runs `command` and returns its stdout; a failure is an error showing why (see
/// [`tool_failed`]).
pub(crate) fn run_tool(mut command: Process, what: &str) -> Result<String, ErrorBody> {
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| cannot_run(what, &e))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        return Err(tool_failed(what, &stderr, &stdout));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The error for a helper that could not be started.
pub(crate) fn cannot_run(what: &str, error: &std::io::Error) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Usage,
        format!("cannot run {what}: {error}"),
        "check that the project's toolchain is installed and on PATH",
    )
}

/// The error for a helper that failed: its first line that says why on the message's first
/// line, then its output from a little before that line (its stderr, else its stdout when only
/// that says why), else the end of its stderr.
pub(crate) fn tool_failed(what: &str, stderr: &str, stdout: &str) -> ErrorBody {
    let said = [stderr, stdout]
        .into_iter()
        .find(|text| text.lines().any(says_why))
        .unwrap_or(stderr);
    let lines: Vec<String> = said.lines().map(without_colours).collect();
    let why = lines.iter().position(|line| says_why(line));
    let shown = match why {
        Some(at) => {
            let first = at.saturating_sub(LINES_BEFORE);
            &lines[first..lines.len().min(first + SHOWN_LINES)]
        }
        None => &lines[lines.len().saturating_sub(SHOWN_LINES)..],
    };
    let headline = match why {
        Some(at) => format!("{what} failed: {}", reason(&lines[at])),
        None => format!("{what} failed:"),
    };
    ErrorBody::new(
        ErrorCode::Usage,
        format!("{headline}\n{}", shown.join("\n").trim_end()),
        "fix what it names, then run 'debugger test' again",
    )
}

/// A line without the terminal's colour codes (`ESC [ … m`), which a runner writes even to a
/// pipe when its environment says it may.
pub(crate) fn without_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What a line that says why says, without the runner's prefix (pytest's `E   `,
/// `INTERNALERROR> `).
pub(crate) fn reason(line: &str) -> String {
    let line = line.trim();
    let line = line.strip_prefix("INTERNALERROR>").unwrap_or(line).trim();
    let line = line.strip_prefix("E ").unwrap_or(line).trim();
    line.to_string()
}

/// Whether a line says why a run failed: an exception's `Name: message` (`TypeError`,
/// `ModuleNotFoundError`, `SyntaxError`, a Java-style `…Exception`), a compiler's `error:` or
/// `error[E0425]:`, `FILE:LINE:COL: message` (Go's compiler), or a `panic:`/`fatal error:`.
pub(crate) fn says_why(line: &str) -> bool {
    let line = reason(&without_colours(line));
    if line.starts_with("panic: ") || line.starts_with("fatal error: ") {
        return true;
    }
    let Some((head, rest)) = line.split_once(':') else {
        return false;
    };
    if head.contains(char::is_whitespace) || head.is_empty() {
        return false;
    }
    let name = head.rsplit('.').next().unwrap_or(head);
    // `Error` and `Exception` alone too (JavaScript's `Error: …`); a `Warning` only by its kind
    // (pytest turns a `DeprecationWarning` into an error).
    let exception = name.starts_with(|c: char| c.is_ascii_uppercase())
        && (name.ends_with("Error")
            || name.ends_with("Exception")
            || (name.ends_with("Warning") && name != "Warning"));
    let compiler = head == "error" || head.starts_with("error[");
    exception || compiler || is_position(head, rest)
}

/// Whether `head:rest` begins `FILE:LINE:COL: ` or `FILE:LINE: ` (a compiler's message).
fn is_position(head: &str, rest: &str) -> bool {
    let looks_like_file = head.contains('.') && !head.contains("//");
    let mut parts = rest.splitn(3, ':');
    let line = parts.next().unwrap_or("");
    let numbered = !line.is_empty() && line.chars().all(|c| c.is_ascii_digit());
    looks_like_file && numbered && parts.next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_that_says_why_is_shown_though_a_stack_trace_follows() {
        let mut stderr = String::from(
            "failed to load config from /p/vitest.config.mjs\n\n\
             \u{1b}[31m⎯⎯ Collect Error ⎯⎯\u{1b}[39m\n\
             TypeError: Cannot read properties of undefined (reading 'map')\n",
        );
        for n in 0..20 {
            stderr.push_str(&format!("    at frame{n} (file:///p/x.js:{n}:1)\n"));
        }
        let error = tool_failed("vitest", &stderr, "");
        let mut lines = error.message.lines();
        assert_eq!(
            lines.next(),
            Some("vitest failed: TypeError: Cannot read properties of undefined (reading 'map')")
        );
        assert_eq!(
            lines.next(),
            Some("failed to load config from /p/vitest.config.mjs")
        );
        assert!(!error.message.contains('\u{1b}'), "{}", error.message);
        assert!(!error.message.contains("frame19"), "{}", error.message);
    }

    #[test]
    fn without_a_reason_the_end_of_stderr_is_shown() {
        let stderr: String = (0..30).map(|n| format!("line {n}\n")).collect();
        let error = tool_failed("ctest", &stderr, "");
        assert!(error.message.starts_with("ctest failed:\nline 18\n"));
        assert!(error.message.ends_with("line 29"));
    }

    #[test]
    fn reasons_are_exceptions_compiler_errors_and_panics() {
        for line in [
            "TypeError: x is not a function",
            "E   ModuleNotFoundError: No module named 'ledger'",
            "INTERNALERROR> ValueError: bad option",
            "error[E0425]: cannot find value `x` in this scope",
            "error: could not compile `cart`",
            "pricing/broken.go:2:22: syntax error: unexpected }",
            "panic: runtime error: index out of range",
            "java.lang.IllegalStateException: closed",
            "Error: Cannot find module './cart'",
        ] {
            assert!(says_why(line), "{line}");
        }
        for line in [
            "    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)",
            "Error handling is hard",
            "ok  \texample.com/shop\t0.01s",
            "see https://example.com:443/x for more",
            "collected 3 items",
            "Warning: a deprecated option",
        ] {
            assert!(!says_why(line), "{line}");
        }
    }
}
