//! `output [--tail N] [--clear] [--follow]`: the program's captured stdout and stderr.
//!
//! The buffer can hold more than one IPC frame, so output is read in pages, each starting where
//! the last ended. `--follow` keeps asking with `wait` set until the program ends; in text mode
//! it prints each page as it arrives.

use std::io::Write;

use serde_json::json;

use crate::cli::Outcome;
use crate::cli::client::DaemonClient;
use crate::cli::render;
use crate::common::error::ErrorBody;
use crate::ipc::protocol::{Command, OutputChunk, OutputQuery};

/// Bytes asked for per page: well under the frame limit even if every byte needs escaping.
const PAGE_BYTES: u32 = 1024 * 1024;

pub fn run(
    session: &str,
    tail: Option<u32>,
    clear: bool,
    follow: bool,
    json_mode: bool,
) -> Result<Outcome, ErrorBody> {
    let mut client = DaemonClient::connect(session)?;
    let mut collected = String::new();
    let mut skipped = 0;
    let mut dropped_total;
    let mut from: Option<u64> = None;
    let mut first = true;
    let mut stdout = std::io::stdout();
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
            let _ = writeln!(
                std::io::stderr(),
                "note: {} earlier bytes were dropped because the output buffer was full",
                chunk.dropped_total
            );
        }
        if !first && chunk.skipped > 0 && !json_mode {
            let _ = writeln!(
                std::io::stderr(),
                "note: {} bytes were dropped while reading (the program printed faster than the buffer holds)",
                chunk.skipped
            );
        }
        first = false;
        skipped += chunk.skipped;
        dropped_total = chunk.dropped_total;
        if json_mode {
            collected.push_str(&chunk.text);
        } else if !chunk.text.is_empty() {
            let _ = stdout.write_all(render::terminal_safe(&chunk.text).as_bytes());
            let _ = stdout.flush();
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
