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
use crate::ipc::protocol::{Command, OutputChunk, OutputQuery};

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
    let mut collected = String::new();
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
            collected.push_str(&chunk.text);
        } else if !chunk.text.is_empty() {
            call.sink.text(&chunk.text);
        }
        from = Some(chunk.next);
        if chunk.more {
            continue;
        }
        if !follow || chunk.finished {
            break;
        }
    }
    Ok(Outcome::new(
        json!({
            "text": collected,
            "next": from,
            "skipped": skipped,
            "dropped_total": dropped_total,
        }),
        String::new(),
    ))
}
