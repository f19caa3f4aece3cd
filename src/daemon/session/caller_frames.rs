//! Expressions evaluated in a caller's frame: the frame an `@FRAME:EXPR` prefix names
//! (`common::frame_prefix`), and, when an expression fails for a name its frame lacks, the
//! caller that has one, named in the error with the form that reads it there.
//!
//! Apart from inspection because it walks the stack: it finds frames by number or function, and
//! reads the callers' locals, a few frames and only after an evaluation failed, so a successful
//! `print` costs nothing more.

use super::frames::frame_info;
use super::{Session, clean_evaluate_error};
use crate::adapters::expression_errors::{self, Fault};
use crate::adapters::expression_names::root_names;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::frame_prefix::{self, AtFrame, FrameRef};
use crate::daemon::variables::Limits;
use crate::dap::DapError;
use crate::dap::types::StackFrame;

/// Frames searched for a function an `@FRAME:` prefix names.
const FRAMES_SEARCHED: u32 = 64;

/// Callers whose locals are read for a name the frame lacks.
const CALLERS_SEARCHED: usize = 6;

/// Locals of a frame whose names are read.
const NAMES_READ: u64 = 256;

/// Who asked for an evaluation: the form an error suggests is theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskedBy {
    /// `print` or `eval` in a session.
    Print,
    /// A probe's `--print`.
    Probe,
}

impl AskedBy {
    /// How this asker writes `expression` (an `@FRAME:EXPR`).
    fn form(self, expression: &str) -> String {
        let word = frame_prefix::shell_word(expression);
        match self {
            AskedBy::Print => format!("debugger print {word}"),
            AskedBy::Probe => format!("--print {word}"),
        }
    }
}

/// A frame found for an evaluation: its thread, number and frame.
pub(super) struct FoundFrame {
    pub thread_id: i64,
    pub index: u32,
    pub frame: StackFrame,
}

impl Session {
    /// `expression`'s `@FRAME:` prefix, read as the adapter's language allows: where its own
    /// expressions may begin with `@` (Ruby's `@name`), text that is no prefix is one of them.
    pub(super) fn frame_prefix<'a>(
        &self,
        expression: &'a str,
    ) -> Result<Option<AtFrame<'a>>, String> {
        if self.adapter().profile().at_sign_names {
            Ok(frame_prefix::parse_with_at_names(expression))
        } else {
            frame_prefix::parse(expression)
        }
    }

    /// The frame an expression is evaluated in: the one `at` names, else the selected one.
    pub(super) async fn evaluation_frame(
        &self,
        at: Option<FrameRef<'_>>,
    ) -> Result<FoundFrame, ErrorBody> {
        let (thread_id, index, frame) = self.selected_frame().await?;
        let Some(at) = at else {
            return Ok(FoundFrame {
                thread_id,
                index,
                frame,
            });
        };
        let wanted = match at {
            FrameRef::Index(index) => index.saturating_add(1),
            FrameRef::Function(_) => FRAMES_SEARCHED,
        };
        let (frames, _) = self.frames(thread_id, wanted).await?;
        let found = match at {
            FrameRef::Index(index) => frames.get(index as usize).map(|f| (index, f)),
            FrameRef::Function(name) => frames
                .iter()
                .enumerate()
                .find(|(_, f)| frame_prefix::names_function(&function_of(f), name))
                .map(|(i, f)| (i as u32, f)),
        };
        let Some((index, frame)) = found else {
            return Err(no_such_frame(at, &frames));
        };
        Ok(FoundFrame {
            thread_id,
            index,
            frame: frame.clone(),
        })
    }

    /// The error for `expression` (as given: `written`, its `@FRAME:` prefix included), which
    /// the adapter refused in `place`: for a name the frame does not have, the caller that has
    /// one where there is such a caller, else the adapter's words as `print` says them.
    pub(super) async fn evaluation_error(
        &self,
        written: &str,
        expression: &str,
        error: DapError,
        place: &FoundFrame,
        asked_by: AskedBy,
    ) -> ErrorBody {
        let unknown_name = match &error {
            DapError::Adapter { message, .. } if !error.is_not_stopped() => {
                expression_errors::classify(
                    self.adapter().name(),
                    expression,
                    &clean_evaluate_error(message),
                    true,
                ) == Some(Fault::UnknownName)
            }
            _ => false,
        };
        if unknown_name
            && let Some(found) = self.name_in_a_caller(expression, place, asked_by).await
        {
            return found;
        }
        self.expression_error(written, error, true)
    }

    /// When a caller of `place` (a few up) has a variable `expression` names and `place` does
    /// not, the error that says so and how to read it there.
    async fn name_in_a_caller(
        &self,
        expression: &str,
        place: &FoundFrame,
        asked_by: AskedBy,
    ) -> Option<ErrorBody> {
        let names = root_names(expression);
        if names.is_empty() {
            return None;
        }
        let own = self.local_names(&place.frame).await?;
        let missing: Vec<&str> = names
            .into_iter()
            .filter(|n| !own.iter().any(|o| o == n))
            .collect();
        if missing.is_empty() {
            return None;
        }
        let levels = place.index as usize + CALLERS_SEARCHED + 1;
        let (frames, _) = self.frames(place.thread_id, levels as u32).await.ok()?;
        for (index, caller) in frames
            .iter()
            .enumerate()
            .skip(place.index as usize + 1)
            .take(CALLERS_SEARCHED)
        {
            let Some(theirs) = self.local_names(caller).await else {
                continue;
            };
            let Some(name) = missing.iter().find(|n| theirs.iter().any(|t| t == *n)) else {
                continue;
            };
            let prefix = frame_prefix_for(&frames, index);
            let suggested = asked_by.form(&format!("@{prefix}:{expression}"));
            let message = format!(
                "{name} is not a variable of {} (frame {}); {} (frame {index}) has one: {suggested}",
                function_of(&place.frame),
                place.index,
                function_of(caller),
            );
            return Some(ErrorBody::new(
                ErrorCode::Adapter,
                message,
                "'@FRAME:EXPR' evaluates EXPR in another frame: FRAME is its number, as \
                 `backtrace` counts them, or its function's name",
            ));
        }
        None
    }

    /// The names of `frame`'s locals (its arguments among them), or `None` when they cannot be
    /// read.
    async fn local_names(&self, frame: &StackFrame) -> Option<Vec<String>> {
        let names_only = Limits {
            max_children: NAMES_READ,
            ..Limits::for_locals(0, false)
        };
        let locals = self.expand_locals(frame, names_only).await.ok()?;
        Some(locals.variables.into_iter().map(|v| v.name).collect())
    }
}

/// A frame's function as the stack shows it (a Rust symbol demangled, its hash dropped).
fn function_of(frame: &StackFrame) -> String {
    frame_info(0, frame).function
}

/// What names `frames[index]` in an `@FRAME:` prefix: its function's plain name when that finds
/// this frame first, else its number.
fn frame_prefix_for(frames: &[StackFrame], index: usize) -> String {
    let function = function_of(&frames[index]);
    frame_prefix::short_name(&function)
        .filter(|short| {
            frames
                .iter()
                .position(|f| frame_prefix::names_function(&function_of(f), short))
                == Some(index)
        })
        .map_or_else(|| index.to_string(), str::to_string)
}

fn no_such_frame(at: FrameRef<'_>, frames: &[StackFrame]) -> ErrorBody {
    let stack: Vec<String> = frames.iter().take(8).map(function_of).collect();
    let mut shown = stack.join(" < ");
    if frames.len() > stack.len() {
        shown.push_str(" < …");
    }
    let message = match at {
        FrameRef::Index(index) => format!(
            "no frame {index}: the stack has {} frames ({shown})",
            frames.len()
        ),
        FrameRef::Function(name) => {
            format!("no frame runs a function named {name} (the stack: {shown})")
        }
    };
    ErrorBody::new(
        ErrorCode::NotFound,
        message,
        "`debugger backtrace` lists the frames; '@N:EXPR' or '@FUNCTION:EXPR' names one",
    )
}
