//! `context`, `backtrace`, `threads`, `thread`, `frame`, `up`, `down`, `locals`, `print`, `eval`.

use std::fmt::Write as _;

use clap::Args;

use super::render::Reveal;
use super::{Outcome, data, numbers, render};
use crate::common::error::ErrorBody;
use crate::common::frame_prefix::shell_word;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{
    AllBacktraces, BacktraceResult, Command, ContextResult, EvaluateResult, FrameSelection,
    LocalsResult, ThreadBacktrace, ThreadsResult, VariableNode,
};

// `backtrace`'s flags. (Plain comments on the flag sets: a doc comment would replace the
// command's help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct BacktraceArgs {
    /// The most frames to show (1 to 100000).
    #[arg(long, value_name = "N", default_value_t = 20, allow_negative_numbers = true,
          value_parser = numbers::whole::<1, 100_000>)]
    pub limit: u32,
    /// A thread other than the selected one.
    #[arg(long, value_name = "ID", allow_negative_numbers = true, value_parser = numbers::thread_id)]
    pub thread: Option<i64>,
    /// Every thread's stack, the selected thread's first.
    #[arg(long, conflicts_with = "thread")]
    pub all: bool,
    /// Every frame on its own line: runs of the runtime's own machinery (Rust's
    /// `core::ops::function` shims and `std::rt`, Python's `runpy`, node's module loader) are
    /// otherwise folded into one line.
    #[arg(long)]
    pub all_frames: bool,
}

// `thread`'s argument.
#[derive(Debug, Args)]
pub struct ThreadArgs {
    /// The thread id, as 'debugger threads' shows it.
    #[arg(allow_negative_numbers = true, value_parser = numbers::thread_id)]
    pub id: i64,
}

// `frame`'s argument.
#[derive(Debug, Args)]
pub struct FrameArgs {
    /// The frame number, as 'debugger backtrace' shows it.
    #[arg(allow_negative_numbers = true, value_parser = numbers::whole::<0, 100_000>)]
    pub index: u32,
}

impl From<FrameArgs> for FrameSelection {
    fn from(args: FrameArgs) -> FrameSelection {
        FrameSelection::Index { index: args.index }
    }
}

// `up`'s and `down`'s argument.
#[derive(Debug, Args)]
pub struct MoveArgs {
    /// How many frames to move.
    #[arg(default_value_t = 1, allow_negative_numbers = true,
          value_parser = numbers::whole::<1, 100_000>)]
    pub count: u32,
}

impl MoveArgs {
    pub fn up(self) -> FrameSelection {
        FrameSelection::Up { count: self.count }
    }

    pub fn down(self) -> FrameSelection {
        FrameSelection::Down { count: self.count }
    }
}

/// The most children `--children` shows of one value: a screenful is 32, and a listing past
/// this many is better read by `memory read` or a slice of it.
pub(super) const MAX_CHILDREN: u32 = 10_000;

// `locals`' flags.
#[derive(Debug, Args)]
pub struct LocalsArgs {
    /// How many levels of children to expand (0 to 32).
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true,
          value_parser = numbers::whole::<0, 32>)]
    pub depth: u32,
    /// Show each value whole (by default a value's text is cut at 200 characters, saying how
    /// many more there are; `print` always shows all of it).
    #[arg(long)]
    pub full: bool,
    /// Only the values that changed since this frame's previous stop (marked `*` in the list),
    /// each saying what it was (`0 -> 1`).
    #[arg(long)]
    pub changed: bool,
    /// How many locals, and children of each value, to show (default 32; the line that counts
    /// what was left out names the number that shows it all).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = numbers::whole::<1, MAX_CHILDREN>)]
    pub children: Option<u32>,
}

// `print`'s arguments.
#[derive(Debug, Args)]
pub struct PrintArgs {
    /// The expression (several words are joined with spaces; put `--` before one that
    /// starts with '-', unless it is a negative number). '@FRAME:EXPR' evaluates it in another
    /// frame of the thread, without selecting it: FRAME is its number as `backtrace` counts
    /// them, or a function's name, nearest first ('@1:i', '@main:i').
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub expression: Vec<String>,
    /// How many levels of children to expand (0 to 32).
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true,
          value_parser = numbers::whole::<0, 32>)]
    pub depth: u32,
    /// How many children of each value to show (default 32; the line that counts what was
    /// left out names the number that shows it all).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = numbers::whole::<1, MAX_CHILDREN>)]
    pub children: Option<u32>,
    /// Seconds the evaluation may run (a function it calls may never return) before it is
    /// interrupted, where the adapter can (default: the config's `[timeouts] evaluate_secs`,
    /// 10).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true,
          value_parser = numbers::evaluation_seconds)]
    pub timeout: Option<f64>,
}

// `eval`'s arguments.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The expression (several words are joined with spaces; put `--` before one that
    /// starts with '-', unless it is a negative number).
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub expression: Vec<String>,
    /// Seconds the evaluation may run before it is interrupted, as `print --timeout`.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true,
          value_parser = numbers::evaluation_seconds)]
    pub timeout: Option<f64>,
}

pub fn context(session: &str) -> Result<Outcome, ErrorBody> {
    let result: ContextResult = DaemonClient::connect(session)?.request_as(Command::Context)?;
    Ok(Outcome::new(data(&result), context_text(&result)))
}

fn context_text(result: &ContextResult) -> String {
    let mut text = String::new();
    let reason = result
        .reason
        .as_ref()
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    let thread = match &result.thread_name {
        Some(name) => format!("thread {} ({name})", result.thread_id),
        None => format!("thread {}", result.thread_id),
    };
    let _ = writeln!(
        text,
        "Stopped{reason} in {}, {thread}, frame {}",
        render::frame_location(&result.frame),
        result.frame.index
    );
    if let Some(exception) = &result.exception {
        let _ = writeln!(text, "Exception: {}", render::exception_text(exception));
    }
    if let Some(source) = &result.source {
        text.push_str(&render::source_lines(source));
    }
    if let Some(error) = &result.locals_error {
        let _ = writeln!(text, "Locals not readable: {error}");
    }
    if let Some(vars) = &result.variables {
        if vars.is_empty() {
            text.push_str("No locals\n");
        } else {
            text.push_str("Locals:\n");
            for line in render::variables(vars, 0, Reveal(Some("debugger locals"))).lines() {
                let _ = writeln!(text, "  {line}");
            }
        }
    }
    text
}

pub fn backtrace(session: &str, args: BacktraceArgs) -> Result<Outcome, ErrorBody> {
    let mut client = DaemonClient::connect(session)?;
    if args.all {
        return all_backtraces(&mut client, args.limit, args.all_frames);
    }
    let result: BacktraceResult = client.request_as(Command::Backtrace {
        limit: args.limit,
        thread: args.thread,
    })?;
    Ok(Outcome::new(
        data(&result),
        stack_text(&result, args.all_frames),
    ))
}

/// `backtrace --all`: the selected thread's stack, then every other thread's, in the order the
/// adapter lists them. Threads whose stacks are the same (a pool of workers waiting on one
/// queue) are shown once, under all their ids: a program of thousands of threads reads as its
/// few kinds of thread. A thread whose stack cannot be read says why in its place.
fn all_backtraces(
    client: &mut DaemonClient,
    limit: u32,
    all_frames: bool,
) -> Result<Outcome, ErrorBody> {
    let all: AllBacktraces = client.request_as(Command::BacktraceAll { limit })?;
    Ok(Outcome::new(data(&all), all_stacks_text(&all, all_frames)))
}

/// The text of `backtrace --all`, with same stacks grouped.
fn all_stacks_text(all: &AllBacktraces, all_frames: bool) -> String {
    // (the stack's text without its header, the ids that have it), in first-seen order.
    let mut groups: Vec<(String, Vec<i64>)> = Vec::new();
    let mut text = String::new();
    for (position, thread) in all.threads.iter().enumerate() {
        match thread {
            ThreadBacktrace::Read(stack) if position == 0 => {
                // The selected thread, first and alone: its selected frame is marked.
                text.push_str(&stack_text(stack, all_frames));
            }
            ThreadBacktrace::Read(stack) => {
                let body = frames_text(stack, all_frames);
                match groups.iter_mut().find(|(shown, _)| *shown == body) {
                    Some((_, ids)) => ids.push(stack.thread_id),
                    None => groups.push((body, vec![stack.thread_id])),
                }
            }
            ThreadBacktrace::Unreadable { thread_id, error } => {
                groups.push((format!("  {error}\n"), vec![*thread_id]));
            }
        }
    }
    for (body, ids) in &groups {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&group_header(ids));
        text.push_str(body);
    }
    text
}

/// The ids shown by name in a group's header; the rest are counted.
const GROUP_IDS_SHOWN: usize = 8;

/// `Thread 5:`, or `Threads 5, 6, 7 (3 threads, the same stack):`, or with more than
/// [`GROUP_IDS_SHOWN`] ids, `Threads 5, 6, … and 192 more (200 threads, the same stack):`.
fn group_header(ids: &[i64]) -> String {
    if let [id] = ids {
        return format!("Thread {id}:\n");
    }
    let shown: Vec<String> = ids
        .iter()
        .take(GROUP_IDS_SHOWN)
        .map(ToString::to_string)
        .collect();
    let rest = ids.len().saturating_sub(GROUP_IDS_SHOWN);
    let more = if rest > 0 {
        format!(" and {rest} more")
    } else {
        String::new()
    };
    format!(
        "Threads {}{more} ({} threads, the same stack):\n",
        shown.join(", "),
        ids.len()
    )
}

/// One thread's stack, a frame a line, the selected frame marked.
fn stack_text(result: &BacktraceResult, all_frames: bool) -> String {
    format!(
        "Thread {}:\n{}",
        result.thread_id,
        frames_text(result, all_frames)
    )
}

/// A stack's frames, a line each (runs of the runtime's machinery folded into one unless
/// `all_frames`), and how many more it has.
fn frames_text(result: &BacktraceResult, all_frames: bool) -> String {
    let mut text = String::new();
    for line in render::stack_lines(&result.frames, result.selected_frame, all_frames) {
        match line {
            render::StackLine::Frame(frame) => {
                let marker = if result.selected_frame == Some(frame.index) {
                    "*"
                } else {
                    " "
                };
                let _ = writeln!(
                    text,
                    "{marker} #{:<3} {}",
                    frame.index,
                    render::frame_location(frame)
                );
            }
            render::StackLine::Folded { count, kinds } => {
                let _ = writeln!(
                    text,
                    "  … {} (--all-frames shows them)",
                    render::StackLine::folded_text(count, &kinds)
                );
            }
        }
    }
    if let Some(total) = result.total_frames
        && total as usize > result.frames.len()
    {
        let _ = writeln!(
            text,
            "… {} more frames (use --limit {total})",
            total as usize - result.frames.len()
        );
    }
    text
}

pub fn threads(session: &str) -> Result<Outcome, ErrorBody> {
    let result: ThreadsResult = DaemonClient::connect(session)?.request_as(Command::Threads)?;
    let width = result
        .threads
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for t in &result.threads {
        let marker = if t.selected { "*" } else { " " };
        let place = t
            .frame
            .as_ref()
            .map(render::frame_location)
            .unwrap_or_default();
        let _ = writeln!(text, "{marker} {:<8} {:<width$}  {place}", t.id, t.name);
    }
    Ok(Outcome::new(data(&result), text))
}

pub fn select_thread(session: &str, args: ThreadArgs) -> Result<Outcome, ErrorBody> {
    let result: ContextResult =
        DaemonClient::connect(session)?.request_as(Command::SelectThread { id: args.id })?;
    Ok(Outcome::new(data(&result), context_text(&result)))
}

pub fn select_frame(session: &str, selection: FrameSelection) -> Result<Outcome, ErrorBody> {
    let result: ContextResult =
        DaemonClient::connect(session)?.request_as(Command::SelectFrame(selection))?;
    Ok(Outcome::new(data(&result), context_text(&result)))
}

pub fn locals(session: &str, args: LocalsArgs) -> Result<Outcome, ErrorBody> {
    let result: LocalsResult = DaemonClient::connect(session)?.request_as(Command::Locals {
        depth: args.depth,
        full: args.full,
        changed: args.changed,
        children: args.children.map(u64::from),
    })?;
    let command = locals_command(&args);
    let reveal = Reveal(Some(&command));
    let text = if result.compared == Some(false) {
        "No earlier stop of this frame to compare with: 'debugger locals' lists them all\n"
            .to_string()
    } else if result.variables.is_empty() && result.compared == Some(true) {
        "No locals changed since this frame's previous stop\n".to_string()
    } else if result.variables.is_empty() && result.omitted == 0 {
        "No locals in this frame\n".to_string()
    } else if args.changed {
        render::changed_variables(&result.variables, result.omitted, reveal)
    } else {
        render::variables(&result.variables, result.omitted, reveal)
    };
    Ok(Outcome::new(data(&result), text))
}

/// `debugger locals` with the flags of `args` that shape the listing, for the line that says
/// which `--children` shows what it left out.
fn locals_command(args: &LocalsArgs) -> String {
    let mut command = "debugger locals".to_string();
    if args.depth != 1 {
        let _ = write!(command, " --depth {}", args.depth);
    }
    if args.full {
        command.push_str(" --full");
    }
    command
}

fn evaluate(
    session: &str,
    expression: &str,
    depth: u32,
    children: Option<u32>,
    timeout_secs: Option<f64>,
) -> Result<EvaluateResult, ErrorBody> {
    DaemonClient::connect(session)?.request_as(Command::Evaluate {
        expression: expression.to_string(),
        depth,
        children: children.map(u64::from),
        timeout_secs,
    })
}

pub fn print(session: &str, args: PrintArgs) -> Result<Outcome, ErrorBody> {
    let result = evaluate(
        session,
        &args.expression.join(" "),
        args.depth,
        args.children,
        args.timeout,
    )?;
    let node = VariableNode {
        name: result.expression.clone(),
        value: result.value.clone(),
        type_name: result.type_name.clone(),
        children: result.children.clone(),
        expandable: false,
        omitted_children: result.omitted_children,
        methods_omitted: result.methods_omitted,
        children_count: None,
        changed: false,
        old_value: None,
    };
    let mut command = format!("debugger print {}", command_word(&result.expression));
    if args.depth != 1 {
        let _ = write!(command, " --depth {}", args.depth);
    }
    let text = render::variables(&[node], 0, Reveal(Some(&command)));
    Ok(Outcome::new(data(&result), text))
}

/// An expression as a command line gives it: as it is when no shell reads anything in it (`arr`,
/// `self.items`), else quoted.
fn command_word(expression: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.');
    if !expression.is_empty() && expression.chars().all(plain) {
        expression.to_string()
    } else {
        shell_word(expression)
    }
}

pub fn eval(session: &str, args: EvalArgs) -> Result<Outcome, ErrorBody> {
    let result = evaluate(session, &args.expression.join(" "), 0, None, args.timeout)?;
    let text = format!("{}\n", result.value);
    Ok(Outcome::new(data(&result), text))
}
