//! Text rendering shared by several commands: stop reports, frames, variables, breakpoints.
//!
//! Written for a reader with little context and little room: the answer first, one fact per line,
//! the source around the current line, and a note whenever something was left out.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use crate::common::escape::one_line;
use crate::ipc::protocol::{
    BreakpointInfo, ExceptionInfo, FrameInfo, SignalInfo, SourceSnippet, StopReason, StopReport,
    UnloadedBreakpoint,
};

mod changes;
mod displays;
mod more;
mod stack;
mod variables;

pub use displays::{display_line, stop_displays};
pub use more::Reveal;
pub use stack::{StackLine, stack_lines};
pub use variables::{changed_variables, stop_locals, variable, variables};

/// Text that is safe to write to a terminal: control characters other than newline and tab
/// (escape sequences, carriage returns, C1 controls) are shown as visible `\x1b`-style escapes,
/// so nothing a debuggee prints or holds in memory can drive the user's terminal.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    let unsafe_char =
        |c: char| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c);
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            let code = c as u32;
            if code <= 0xff {
                let _ = write!(out, "\\x{code:02x}");
            } else {
                let _ = write!(out, "\\u{{{code:x}}}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The last path component, which is what people call a source file.
pub fn short_file(file: &str) -> &str {
    // A runtime's own script named by a URL, not a path (`node:internal/modules/cjs/loader`):
    // its last part alone (`loader`) says nothing.
    let url_scheme = file.split_once(':').is_some_and(|(scheme, rest)| {
        scheme.len() > 1
            && scheme.chars().all(|c| c.is_ascii_alphabetic())
            && !rest.starts_with(['/', '\\'])
    });
    if url_scheme {
        return file;
    }
    Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(file)
}

/// A breakpoint's file as the caller can find it: relative to their directory when it lies
/// below it (`tools/inventory.py`), else whole, since the resolver may have found it anywhere
/// (`/usr/lib/go/src/encoding/json/stream.go`).
fn breakpoint_file(file: &str) -> String {
    let path = Path::new(file);
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(|p| p.display().to_string()))
        .filter(|relative| !relative.is_empty())
        .unwrap_or_else(|| file.to_string());
    one_line(&shown).into_owned()
}

/// `breakpoint 1 (src/pkg/mod.py:12): that file was never loaded; the program ran
/// /venv/site-packages/pkg/mod.py`: why a breakpoint never stopped a run that ended.
pub fn unloaded_line(bp: &UnloadedBreakpoint) -> String {
    let mut line = format!(
        "breakpoint {} ({}): that file was never loaded",
        bp.id,
        breakpoint_file(&bp.location)
    );
    if let Some(namesake) = &bp.loaded_namesake {
        let _ = write!(line, "; the program ran {}", breakpoint_file(namesake));
    }
    line
}

/// [`unloaded_line`] for each, one a line.
pub fn unloaded_lines(unloaded: &[UnloadedBreakpoint]) -> String {
    unloaded.iter().map(|bp| unloaded_line(bp) + "\n").collect()
}

/// `apply (ledger.c:10)`, or `_start at 0x7ffff7fe3290` without source.
pub fn frame_location(frame: &FrameInfo) -> String {
    match (&frame.file, frame.line) {
        (Some(file), Some(line)) => format!(
            "{} ({}:{line})",
            frame.function,
            one_line(short_file(file)).into_owned()
        ),
        _ => match &frame.address {
            Some(address) => format!("{} at {address}", frame.function),
            None => frame.function.clone(),
        },
    }
}

pub fn stop_report(report: &StopReport) -> String {
    let mut out = stop_headline(report);
    out.push('\n');
    out.push_str(&unloaded_lines(&report.unloaded_breakpoints));
    out.push_str(&condition_lines(report));
    out.push_str(&returned_line(report));
    out.push_str(&watch_lines(report));
    if let Some(source) = &report.source {
        out.push_str(&source_lines(source));
    }
    out.push_str(&stop_displays(&report.displays));
    out.push_str(&locals_lines(report));
    if let Some(tail) = &report.stderr_tail {
        out.push_str("Its stderr ended with:\n");
        for line in tail.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    if let Some(note) = &report.note {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// A breakpoint's condition that failed at this stop, and how to change it; nothing for other
/// stops.
pub fn condition_lines(report: &StopReport) -> String {
    let Some(error) = &report.condition_error else {
        return String::new();
    };
    let fix = match report.breakpoint_ids.as_slice() {
        [id] => format!("'debugger breakpoint modify {id} --condition EXPR'"),
        _ => "'debugger breakpoint modify ID --condition EXPR'".to_string(),
    };
    format!(
        "{}\n  it stops here at each hit until changed: {fix}\n",
        one_line(error)
    )
}

/// What a `finish` returned: `Returned: 9`, or why that is unknown; nothing for other stops.
fn returned_line(report: &StopReport) -> String {
    match (&report.return_value, &report.return_value_unknown) {
        (Some(value), _) => format!("Returned: {value}\n"),
        (None, Some(why)) => format!("Returned: (unknown: {why})\n"),
        (None, None) => String::new(),
    }
}

/// The stopped frame's locals, under `Locals:`, the changed ones marked `*` (with `--locals
/// changed` only those); when none changed since the frame's previous stop and none are listed,
/// a line that says so.
fn locals_lines(report: &StopReport) -> String {
    if report.locals.is_empty() {
        return match (&report.changed, report.locals_omitted) {
            (Some(changed), 0) if changed.is_empty() => {
                "Changed: nothing in this frame since its previous stop\n".to_string()
            }
            (_, 0) => String::new(),
            (_, omitted) => format!("Locals: {omitted}, not shown: `debugger locals`\n"),
        };
    }
    let header = match &report.changed {
        Some(changed) if changed.is_empty() => {
            "Locals (none changed since this frame's previous stop):\n"
        }
        _ => "Locals:\n",
    };
    format!(
        "{header}{}",
        stop_locals(&report.locals, report.locals_omitted)
    )
}

/// The first line of a stop report: what happened, where, on which thread.
pub fn stop_headline(report: &StopReport) -> String {
    let place = report
        .frame
        .as_ref()
        .map(frame_location)
        .unwrap_or_else(|| "an unknown location".into());
    let thread = report
        .thread_id
        .map(|id| match &report.thread_name {
            Some(name) => format!(", thread {id} ({name})"),
            None => format!(", thread {id}"),
        })
        .unwrap_or_default();
    match &report.reason {
        StopReason::Exited => match (&report.signal, report.exit_code) {
            (Some(signal), _) => format!("Program {}", killed_by(signal)),
            (None, Some(code)) => {
                format!("Program exited with code {code}{}", shell_code_note(code))
            }
            (None, None) => "Program exited".to_string(),
        },
        StopReason::Terminated => "Program terminated".to_string(),
        StopReason::AdapterDied => format!(
            "The debug adapter died: {}",
            report.description.as_deref().unwrap_or("no detail")
        ),
        StopReason::Breakpoint => match report.breakpoint_ids.as_slice() {
            [] => format!("Stopped at a breakpoint in {place}{thread}"),
            [id] => format!("Stopped at breakpoint {id} in {place}{thread}"),
            ids => format!(
                "Stopped at breakpoints {} in {place}{thread}",
                ids.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        StopReason::Watchpoint => match report.breakpoint_ids.as_slice() {
            [id] => format!("Stopped at watchpoint {id} in {place}{thread}"),
            _ => format!("Stopped at a watchpoint in {place}{thread}"),
        },
        // A test's failure function (the session's own breakpoint on it, unnumbered).
        StopReason::Failure => format!("Stopped at the test's failure in {place}{thread}"),
        StopReason::Step => format!("Stepped to {place}{thread}"),
        StopReason::Pause => format!("Paused in {place}{thread}"),
        StopReason::Entry => format!("Stopped at entry in {place}{thread}"),
        StopReason::Exec => format!(
            "Stopped after exec of {} in {place}{thread}",
            report.description.as_deref().unwrap_or("another program")
        ),
        StopReason::Signal => format!(
            "Stopped on {} in {place}{thread}",
            report.description.as_deref().unwrap_or("a signal")
        ),
        StopReason::Core => {
            let why = report.description.as_deref().unwrap_or("the program died");
            let fault = report
                .fault_address
                .as_deref()
                .map(|address| format!(" at address {address}"))
                .unwrap_or_default();
            let abort = report
                .abort_message
                .as_deref()
                .map(|message| format!("\nAbort message: {message}"))
                .unwrap_or_default();
            format!("Core dump: {why}{fault}, in {place}{thread}{abort}")
        }
        StopReason::Exception => format!(
            "Stopped on exception in {place}{thread}: {}",
            match &report.exception {
                Some(exception) => exception_text(exception),
                None => report
                    .description
                    .clone()
                    .unwrap_or_else(|| "(no detail)".into()),
            }
        ),
        other @ (StopReason::Panic | StopReason::Other(_)) => {
            format!("Stopped ({other}) in {place}{thread}")
        }
    }
}

/// "killed by signal SIGSEGV (11)".
pub fn killed_by(signal: &SignalInfo) -> String {
    match &signal.name {
        Some(name) => format!("killed by signal {name} ({})", signal.number),
        None => format!("killed by signal {}", signal.number),
    }
}

/// For an exit code a shell gives a program killed by a signal (128 + N), what it would mean
/// there; the adapter told a code, so that is all we know.
pub fn shell_code_note(code: i64) -> String {
    let signal = i32::try_from(code - 128).ok().filter(|n| *n > 0);
    match signal.and_then(crate::platform::signal_name) {
        Some(name) => format!(
            " (a shell reports a death by {name} so: 128+{})",
            code - 128
        ),
        None => String::new(),
    }
}

/// What the watchpoints of a stop saw, a line each: `    g_counter: 1 -> 2`.
pub fn watch_lines(report: &StopReport) -> String {
    let mut out = String::new();
    for change in &report.watch {
        let Some(old) = change.old_value.as_deref() else {
            match &change.new_value {
                Some(new) => {
                    let _ = writeln!(out, "    {} is now {new}", change.expression);
                }
                None => {
                    let _ = writeln!(out, "    {} (cannot be read from here)", change.expression);
                }
            }
            continue;
        };
        match &change.new_value {
            Some(new) if new == old => {
                let _ = writeln!(out, "    {} = {new} (unchanged)", change.expression);
            }
            Some(new) => {
                let _ = writeln!(out, "    {}: {old} -> {new}", change.expression);
            }
            None => {
                let _ = writeln!(
                    out,
                    "    {}: was {old}; cannot be read from here",
                    change.expression
                );
            }
        }
    }
    out
}

/// `ZeroDivisionError: division by zero`.
pub fn exception_text(exception: &ExceptionInfo) -> String {
    match &exception.message {
        Some(message) => format!("{}: {message}", exception.type_name),
        None => exception.type_name.clone(),
    }
}

/// The numbered source lines with an arrow on the current one.
pub fn source_lines(source: &SourceSnippet) -> String {
    let last = source.first_line as usize + source.lines.len().saturating_sub(1);
    let width = last.to_string().len().max(3);
    let mut out = String::new();
    for (i, line) in source.lines.iter().enumerate() {
        let number = source.first_line as usize + i;
        let marker = if number == source.current_line as usize {
            "->"
        } else {
            "  "
        };
        let _ = writeln!(out, "{marker} {number:>width$} | {line}");
    }
    out
}

/// One breakpoint per line: id, location, state, and its condition and hit count.
pub fn breakpoint_line(bp: &BreakpointInfo) -> String {
    let location = match (&bp.file, bp.line, &bp.access) {
        (Some(file), Some(line), _) => format!("{}:{line}", breakpoint_file(file)),
        (_, _, Some(access)) => format!("watch {} ({})", bp.location, access.as_str()),
        _ => bp.location.clone(),
    };
    let state = if !bp.enabled {
        "disabled".to_string()
    } else if bp.verified {
        match (bp.resolved_line, &bp.function) {
            (Some(line), Some(_)) => format!("verified (line {line})"),
            (Some(moved), None) => match bp.line {
                Some(asked) if moved > asked => {
                    format!("verified (line {asked} → {moved}: the next line with code)")
                }
                Some(asked) => {
                    format!("verified (line {asked} → {moved}: where the adapter put it)")
                }
                None => format!("verified (line {moved})"),
            },
            (None, _) => match (&bp.watching, &bp.function, &bp.message) {
                (Some(watching), _, _) => format!("set on {watching}"),
                // A function with no source line: why (a program without debug info).
                (None, Some(_), Some(message)) => format!("verified ({message})"),
                (None, _, _) => "verified".to_string(),
            },
        }
    } else {
        match &bp.message {
            Some(message) => format!("pending: {}", one_line(message)),
            None => "pending: not found in the program's code yet".to_string(),
        }
    };
    let mut line = format!("{:<3} {location}  {state}", bp.id);
    if let Some(condition) = &bp.condition {
        let _ = write!(line, "  if {}", one_line(condition));
    }
    if let Some(hits) = bp.hit_count {
        let _ = write!(line, "  from hit {hits}");
    }
    if let Some(message) = &bp.log_message {
        let _ = write!(line, "  logs \"{}\"", one_line(message));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::protocol::BreakpointKind;

    #[test]
    fn escape_sequences_are_made_visible() {
        assert_eq!(terminal_safe("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            terminal_safe("\u{1b}[31mred\u{1b}[0m"),
            "\\x1b[31mred\\x1b[0m"
        );
        assert_eq!(terminal_safe("over\rwrite"), "over\\x0dwrite");
        assert_eq!(terminal_safe("c1\u{9b}x"), "c1\\x9bx");
        assert_eq!(terminal_safe("é → ok"), "é → ok");
    }

    #[test]
    fn source_arrow_marks_the_current_line() {
        let s = SourceSnippet {
            file: "/a/ledger.c".into(),
            first_line: 9,
            current_line: 10,
            lines: vec!["a".into(), "b".into(), "c".into()],
        };
        assert_eq!(source_lines(&s), "     9 | a\n->  10 | b\n    11 | c\n");
    }

    fn moved_line_breakpoint(asked: u32, moved: u32) -> BreakpointInfo {
        BreakpointInfo {
            id: 1,
            kind: BreakpointKind::Line,
            location: "/src/w.py:4".into(),
            requested: Some("w.py:4".into()),
            file: Some("/src/w.py".into()),
            line: Some(asked),
            function: None,
            condition: None,
            hit_count: None,
            enabled: true,
            verified: true,
            message: None,
            resolved_line: Some(moved),
            log_message: None,
            access: None,
            watching: None,
        }
    }

    #[test]
    fn a_moved_line_says_which_way_it_went() {
        let down = breakpoint_line(&moved_line_breakpoint(44, 45));
        assert!(
            down.ends_with("verified (line 44 → 45: the next line with code)"),
            "{down}"
        );
        // debugpy may move a blank line up: that is no "next line".
        let up = breakpoint_line(&moved_line_breakpoint(4, 3));
        assert!(
            up.ends_with("verified (line 4 → 3: where the adapter put it)"),
            "{up}"
        );
    }
}
