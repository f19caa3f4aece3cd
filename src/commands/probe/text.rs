//! The text form of a probe report: the answer first (how many hits, how it ended, each
//! `--print` across the hits), then each hit, the breakpoints, and the end of the output.

use std::fmt::Write as _;
use std::path::Path;

use super::summary;
use crate::commands::render::{self, Reveal};
use crate::ipc::protocol::{ProbePrint, ProbeReport, ProbeStop, VariableNode};

/// Width of the labels (`print:`, `locals:`, `stack:`) that head each part of a stop.
const LABEL_WIDTH: usize = 8;

pub fn report(report: &ProbeReport) -> String {
    let mut out = String::new();
    let program = program_name(&report.program);
    let _ = match report.hits.len() {
        0 => writeln!(
            out,
            "{program}: no breakpoint was hit; {}",
            report.ended.message
        ),
        1 => writeln!(out, "{program}: 1 hit; {}", report.ended.message),
        n => writeln!(out, "{program}: {n} hits; {}", report.ended.message),
    };
    if let Some(failure) = &report.failure {
        // What the test's failure said, as `test` shows it: under the verdict.
        for (index, line) in failure.lines().enumerate() {
            let label = if index == 0 { "failed: " } else { "        " };
            let _ = writeln!(out, "  {label}{}", render::terminal_safe(line));
        }
    }
    if !report.hits.is_empty() {
        // Without hits, the probe's error names them.
        out.push_str(&render::unloaded_lines(&report.ended.unloaded_breakpoints));
    }
    if report.hits.len() > 1 {
        out.push_str(&summary::values_across_hits(&report.hits));
    }

    let mut previous: Option<&ProbeStop> = None;
    for (index, hit) in report.hits.iter().enumerate() {
        other_stops_before(&mut out, report, index as u32);
        let stop = &hit.stop;
        let place = stop
            .frame
            .as_ref()
            .map(render::frame_location)
            .unwrap_or_else(|| "an unknown location".into());
        let breakpoint = match stop.breakpoint_ids.as_slice() {
            _ if report.at_failure => "the failure".to_string(),
            [] => "a breakpoint".to_string(),
            [id] => format!("breakpoint {id}"),
            ids => format!(
                "breakpoints {}",
                ids.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let thread = stop
            .thread_id
            .map(|id| format!(", thread {id}"))
            .unwrap_or_default();
        let _ = writeln!(out, "\nHit {}: {breakpoint} in {place}{thread}", index + 1);
        if let Some(error) = &stop.condition_error {
            // The program stops where a condition fails, so that the failure is seen.
            let _ = writeln!(out, "  {}", render::terminal_safe(error));
        }
        // Later hits at the same place show only what changed: the source, the stack and most
        // locals would repeat the hit before.
        let same_place = previous.filter(|p| same_frames(p, hit));
        if same_place.is_none()
            && let Some(source) = &stop.source
        {
            out.push_str(&render::source_lines(source));
        }
        stop_details(&mut out, hit, same_place.map(|p| (p, index)));
        previous = Some(hit);
    }
    other_stops_before(&mut out, report, report.hits.len() as u32);
    if report.other_stops_omitted > 0 {
        let _ = writeln!(
            out,
            "\n… {} more stops at no breakpoint, continued without being recorded",
            report.other_stops_omitted
        );
    }

    // None to show: `probe --test --break-on-failure` without -b sets none of its own (Python's
    // failure is an exception filter).
    if !report.breakpoints.is_empty() {
        out.push_str("\nBreakpoints:\n");
        for bp in &report.breakpoints {
            let _ = writeln!(out, "  {}", render::breakpoint_line(bp));
        }
    }
    output_tail(&mut out, report);
    out
}

fn other_stops_before(out: &mut String, report: &ProbeReport, hits_before: u32) {
    for other in report
        .other_stops
        .iter()
        .filter(|o| o.after_hits == hits_before)
    {
        let stop = &other.recorded.stop;
        let _ = writeln!(
            out,
            "\n{} (not a breakpoint; the probe continued)",
            render::stop_headline(stop)
        );
        if let Some(source) = &stop.source {
            out.push_str(&render::source_lines(source));
        }
        stop_details(out, &other.recorded, None);
    }
}

/// Whether two stops have the same stack (as far as it was recorded).
fn same_frames(a: &ProbeStop, b: &ProbeStop) -> bool {
    let place = |s: &ProbeStop| -> Vec<(String, Option<u32>)> {
        s.frames
            .iter()
            .map(|f| (f.function.clone(), f.line))
            .collect()
    };
    !a.frames.is_empty() && place(a) == place(b)
}

/// The `--print` values, the locals, the stack and what could not be read, each under a label.
/// With `previous` (the hit before, at the same place, and its number), the locals that did not
/// change are only named and the stack is not repeated.
fn stop_details(out: &mut String, stop: &ProbeStop, previous: Option<(&ProbeStop, usize)>) {
    if !stop.prints.is_empty() {
        labelled(out, "print:", &prints(&stop.prints));
    }
    labelled(out, "locals:", &locals(stop, previous.map(|(p, _)| p)));
    if let Some((_, number)) = previous {
        labelled(out, "stack:", &format!("as at hit {number}\n"));
    } else if !stop.frames.is_empty() {
        let mut stack: Vec<String> = render::stack_lines(&stop.frames, None, false)
            .into_iter()
            .map(|line| match line {
                render::StackLine::Frame(f) => match (&f.file, f.line) {
                    (Some(file), Some(line)) => {
                        format!("{} ({}:{line})", f.function, render::short_file(file))
                    }
                    _ => f.function.clone(),
                },
                render::StackLine::Folded { count, kinds } => {
                    format!("… {}", render::StackLine::folded_text(count, &kinds))
                }
            })
            .collect();
        if let Some(total) = stop.total_frames
            && total as usize > stop.frames.len()
        {
            stack.push(format!("… {} more", total as usize - stop.frames.len()));
        }
        labelled(out, "stack:", &format!("{}\n", stack.join(" < ")));
    }
    for error in &stop.errors {
        labelled(out, "error:", &format!("{error}\n"));
    }
}

/// The `--print` values, each as `locals` shows a variable (its children below it), names
/// aligned; an expression that failed with its error.
pub(super) fn prints(prints: &[ProbePrint]) -> String {
    let width = prints
        .iter()
        .map(|p| p.expression.chars().count())
        .max()
        .unwrap_or(0);
    let mut printed = String::new();
    for print in prints {
        match (as_node(print), &print.error) {
            (Some(node), _) => {
                printed.push_str(&render::variable(&node, width, PROBE));
            }
            (None, error) => {
                let error = error.as_deref().unwrap_or("no value");
                let _ = writeln!(printed, "{:<width$} error: {error}", print.expression);
            }
        }
    }
    printed
}

/// What shows the locals and children a probe left out: the probe again, with `--children`.
const PROBE: Reveal = Reveal(Some("probe …"));

/// The locals, or, after a hit at the same place, those that changed and the names of the rest.
fn locals(stop: &ProbeStop, previous: Option<&ProbeStop>) -> String {
    if stop.locals.is_empty() && stop.locals_omitted == 0 {
        return "(none)\n".into();
    }
    let Some(previous) = previous else {
        return render::variables(&stop.locals, stop.locals_omitted, PROBE);
    };
    let (same, changed): (Vec<&VariableNode>, Vec<&VariableNode>) = stop
        .locals
        .iter()
        .partition(|v| previous.locals.contains(v));
    let changed: Vec<VariableNode> = changed.into_iter().cloned().collect();
    let mut text = render::variables(&changed, stop.locals_omitted, PROBE);
    if !same.is_empty() {
        let names: Vec<&str> = same.iter().map(|v| v.name.as_str()).collect();
        let _ = writeln!(text, "(unchanged: {})", names.join(", "));
    }
    text
}

fn as_node(print: &ProbePrint) -> Option<VariableNode> {
    Some(VariableNode {
        name: print.expression.clone(),
        value: print.value.clone()?,
        type_name: print.type_name.clone(),
        children: print.children.clone(),
        expandable: false,
        omitted_children: print.omitted_children,
        methods_omitted: print.methods_omitted,
        children_count: None,
        changed: false,
        old_value: None,
    })
}

/// `text`'s lines under `label`: the first beside it, the rest aligned below.
fn labelled(out: &mut String, label: &str, text: &str) {
    for (i, line) in text.lines().enumerate() {
        let head = if i == 0 { label } else { "" };
        let _ = writeln!(out, "  {head:<LABEL_WIDTH$}{line}");
    }
}

fn output_tail(out: &mut String, report: &ProbeReport) {
    let output = &report.output;
    if output.tail.is_empty() {
        out.push_str("\nOutput: none\n");
        return;
    }
    if output.omitted_bytes > 0 {
        let _ = writeln!(
            out,
            "\nOutput (the end; {} bytes before it not shown):",
            output.omitted_bytes
        );
    } else {
        out.push_str("\nOutput:\n");
    }
    for line in output.tail.lines() {
        let _ = writeln!(out, "  {line}");
    }
}

/// `ledger` for `/src/ledger`: what the report's headline calls the program.
fn program_name(program: &str) -> &str {
    Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program)
}
