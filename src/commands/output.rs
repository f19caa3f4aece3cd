//! `output [--tail N] [--clear] [--follow]`: the program's captured stdout and stderr.
//!
//! The buffer can hold more than one IPC frame, so output is read in pages, each starting where
//! the last ended. `--follow` keeps asking with `wait` set until the program ends; in text mode
//! it shows each page through the call's sink as it arrives.

use clap::Args;
use serde_json::json;

use super::{Call, Outcome, numbers};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{Command, OutputChunk, OutputQuery, OutputSegment};

// `output`'s flags. (Plain comments on the flag sets: a doc comment would replace the command's
// help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Only the last N lines (1 to 1000000).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = numbers::whole::<1, 1_000_000>)]
    pub tail: Option<u32>,
    /// Discard what is shown from the buffer.
    #[arg(long)]
    pub clear: bool,
    /// Keep printing new output until the program ends.
    #[arg(long)]
    pub follow: bool,
}

/// Bytes asked for per page: well under the frame limit even if every byte needs escaping.
const PAGE_BYTES: u32 = 1024 * 1024;

pub fn run(args: OutputArgs, call: &mut Call<'_>) -> Result<Outcome, ErrorBody> {
    let OutputArgs {
        tail,
        clear,
        follow,
    } = args;
    let json_mode = call.data_only;
    let mut client = DaemonClient::connect(call.session)?;
    let mut collected: Vec<OutputSegment> = Vec::new();
    let mut lines = LineState::default();
    let mut skipped = 0;
    let mut dropped_total;
    let mut from: Option<u64> = None;
    let mut first = true;
    loop {
        let query = OutputQuery {
            from,
            tail_lines: if first { tail } else { None },
            max_bytes: PAGE_BYTES,
            clear,
            wait: follow && !first,
        };
        let chunk: OutputChunk = client.request_as(Command::OutputRead(query))?;
        if first && chunk.dropped_total > 0 && tail.is_none() && !json_mode {
            call.sink.note(&format!(
                "note: {} earlier bytes were dropped because the output buffer was full\n",
                chunk.dropped_total
            ));
        }
        if !first && chunk.skipped > 0 && !json_mode {
            call.sink.note(&format!(
                "note: {} bytes were dropped while reading (the program printed faster than the buffer holds)\n",
                chunk.skipped
            ));
        }
        first = false;
        skipped += chunk.skipped;
        dropped_total = chunk.dropped_total;
        if json_mode {
            for segment in chunk.segments {
                match collected.last_mut() {
                    Some(last) if last.stream == segment.stream => append(last, &segment),
                    _ => collected.push(segment),
                }
            }
        } else if !chunk.is_empty() {
            call.sink.text(&lines.render(&chunk.segments));
        }
        from = Some(chunk.next);
        if chunk.more {
            continue;
        }
        if !follow || chunk.finished {
            break;
        }
    }
    if lines.mid_line {
        // A line the program left unfinished (a prompt, `name? `) is ended here, so the shell's
        // next prompt or command does not run on from it; `--json` keeps the bytes as they are.
        call.sink.text("\n");
    }
    let text: String = collected.iter().map(|s| s.text.as_str()).collect();
    let bytes_b64 = collected.iter().any(|s| s.bytes_b64.is_some()).then(|| {
        let bytes: Vec<u8> = collected.iter().flat_map(raw_bytes).collect();
        base64_simd::STANDARD.encode_to_string(bytes)
    });
    let mut data = json!({
        "text": text,
        "segments": collected,
        "next": from,
        "skipped": skipped,
        "dropped_total": dropped_total,
    });
    if let Some(bytes) = bytes_b64 {
        data["bytes_b64"] = bytes.into();
    }
    Ok(Outcome::new(data, String::new()))
}

/// The bytes a segment stands for: its `bytes_b64` where the text is not them.
fn raw_bytes(segment: &OutputSegment) -> Vec<u8> {
    segment
        .bytes_b64
        .as_deref()
        .and_then(|b64| base64_simd::STANDARD.decode_to_vec(b64).ok())
        .unwrap_or_else(|| segment.text.as_bytes().to_vec())
}

/// `next` (the same stream's run on the next page) added to `last`, its bytes too.
fn append(last: &mut OutputSegment, next: &OutputSegment) {
    if last.bytes_b64.is_some() || next.bytes_b64.is_some() {
        let mut bytes = raw_bytes(last);
        bytes.extend(raw_bytes(next));
        last.bytes_b64 = Some(base64_simd::STANDARD.encode_to_string(bytes));
    }
    last.text.push_str(&next.text);
}

/// Where text output stands between pages: whether the last byte shown ended a line, and on
/// which stream.
#[derive(Debug, Default)]
struct LineState {
    mid_line: bool,
    stream: String,
    /// Another stream than stderr has been shown (on an earlier page, or this one).
    beside_other: bool,
}

impl LineState {
    /// The segments as text for a reader: a line the program's stderr wrote is marked
    /// `[stderr] ` where stdout is shown beside it (output of stderr alone needs no mark), and a
    /// line one stream left unfinished is ended before the other stream's bytes, so lines of the
    /// two are never spliced.
    fn render(&mut self, segments: &[OutputSegment]) -> String {
        self.beside_other |= segments.iter().any(|s| s.stream != "stderr");
        let mixed = self.beside_other;
        let mut out = String::new();
        for segment in segments {
            if self.mid_line && segment.stream != self.stream {
                out.push('\n');
                self.mid_line = false;
            }
            let mark = mixed && segment.stream == "stderr";
            for piece in segment.text.split_inclusive('\n') {
                if mark && !(self.mid_line && segment.stream == self.stream) {
                    out.push_str("[stderr] ");
                }
                out.push_str(piece);
                self.mid_line = !piece.ends_with('\n');
                self.stream.clone_from(&segment.stream);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(stream: &str, text: &str) -> OutputSegment {
        OutputSegment {
            stream: stream.into(),
            text: text.into(),
            bytes_b64: None,
        }
    }

    #[test]
    fn stderr_lines_are_marked_beside_stdout_and_never_spliced() {
        let mut lines = LineState::default();
        let text = lines.render(&[
            segment("stdout", "partial"),
            segment("stderr", "ERR\nmore"),
            segment("stderr", " of it\n"),
            segment("stdout", " rest\n"),
        ]);
        assert_eq!(text, "partial\n[stderr] ERR\n[stderr] more of it\n rest\n");
        let mut alone = LineState::default();
        assert_eq!(alone.render(&[segment("stderr", "a\nb\n")]), "a\nb\n");
    }
}
