//! A stack as a reader wants it: the program's frames each on a line, and a run of the runtime's
//! own machinery (frames the adapter marked, `FrameInfo::machinery`) folded into one line
//! (`… 6 frames in core/std`), unless every frame is asked for.

use crate::adapters::runtime_frames;
use crate::ipc::protocol::{FrameInfo, Machinery};

/// One line of a stack's text.
#[derive(Debug)]
pub enum StackLine<'a> {
    Frame(&'a FrameInfo),
    /// A run of the runtime's frames: how many, and whose (each kind once, in order).
    Folded {
        count: usize,
        kinds: Vec<Machinery>,
    },
}

impl StackLine<'_> {
    /// `6 frames in core/std` (`in core/std and the C runtime` for a mixed run).
    pub fn folded_text(count: usize, kinds: &[Machinery]) -> String {
        let labels: Vec<&str> = kinds
            .iter()
            .map(|kind| runtime_frames::label(*kind))
            .collect();
        format!("{count} frames in {}", labels.join(" and "))
    }
}

/// `frames` as lines, runs of two or more machinery frames folded unless `all_frames`. The
/// first frame shown (where the thread is) and the selected frame are never folded.
pub fn stack_lines(
    frames: &[FrameInfo],
    selected: Option<u32>,
    all_frames: bool,
) -> Vec<StackLine<'_>> {
    let foldable = |position: usize, frame: &FrameInfo| {
        !all_frames && position > 0 && frame.machinery.is_some() && selected != Some(frame.index)
    };
    let mut lines = Vec::new();
    let mut run: Vec<&FrameInfo> = Vec::new();
    for (position, frame) in frames.iter().enumerate() {
        if foldable(position, frame) {
            run.push(frame);
        } else {
            flush(&mut run, &mut lines);
            lines.push(StackLine::Frame(frame));
        }
    }
    flush(&mut run, &mut lines);
    lines
}

/// Ends a run of machinery frames: two or more as one folded line, a lone one as itself.
fn flush<'a>(run: &mut Vec<&'a FrameInfo>, lines: &mut Vec<StackLine<'a>>) {
    if run.len() >= 2 {
        let mut kinds: Vec<Machinery> = Vec::new();
        for kind in run.iter().filter_map(|frame| frame.machinery) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        lines.push(StackLine::Folded {
            count: run.len(),
            kinds,
        });
    } else {
        lines.extend(run.iter().map(|frame| StackLine::Frame(frame)));
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(index: u32, function: &str, machinery: Option<Machinery>) -> FrameInfo {
        FrameInfo {
            index,
            function: function.to_string(),
            file: None,
            line: None,
            column: None,
            address: None,
            generated: None,
            machinery,
        }
    }

    #[test]
    fn runs_of_two_or_more_fold_and_the_first_and_selected_frames_never_do() {
        let std = Some(Machinery::RustStd);
        let libc = Some(Machinery::CRuntime);
        let frames = vec![
            frame(0, "std::panicking::begin_panic", std),
            frame(1, "app::run", None),
            frame(2, "core::ops::function::FnOnce::call_once", std),
            frame(3, "std::rt::lang_start", std),
            frame(4, "main", None),
            frame(5, "__libc_start_call_main", libc),
            frame(6, "app::alone", None),
            frame(7, "std::rt::lang_start", std),
            frame(8, "_start", libc),
            frame(9, "__libc_start_main", libc),
        ];
        let lines = stack_lines(&frames, Some(9), false);
        let shown: Vec<String> = lines
            .iter()
            .map(|line| match line {
                StackLine::Frame(frame) => frame.function.clone(),
                StackLine::Folded { count, kinds } => StackLine::folded_text(*count, kinds),
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                "std::panicking::begin_panic",
                "app::run",
                "2 frames in core/std",
                "main",
                "__libc_start_call_main",
                "app::alone",
                "2 frames in core/std and the C runtime",
                "__libc_start_main",
            ]
        );
        assert_eq!(stack_lines(&frames, None, true).len(), frames.len());
    }
}
