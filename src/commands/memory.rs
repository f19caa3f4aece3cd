//! `memory read`: the program's bytes as a hexdump (`--json`: the bytes as hex).

use std::fmt::Write as _;

use clap::{Args, Subcommand};

use super::{Outcome, data, numbers};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{Command, MEMORY_READ_DEFAULT, MEMORY_READ_MAX, MemoryResult};

/// Bytes per hexdump line.
const LINE_BYTES: usize = 16;

// `memory`'s subcommands. (Plain comments on the flag sets: a doc comment would replace the
// command's help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct MemoryArgs {
    #[command(subcommand)]
    pub action: MemoryAction,
}

#[derive(Debug, Subcommand)]
pub enum MemoryAction {
    /// Show bytes at an address (0x…, or decimal), or where an expression's value points (a
    /// pointer such as `acct->owner`, or `&g_counter`).
    Read {
        /// The address or expression (several words are joined with spaces; put `--` before one
        /// that starts with '-').
        #[arg(required = true, num_args = 1..)]
        target: Vec<String>,
        /// How many bytes to read (1 to 65536).
        #[arg(long, value_name = "N", default_value_t = MEMORY_READ_DEFAULT,
              allow_negative_numbers = true,
              value_parser = numbers::whole::<1, MEMORY_READ_MAX>)]
        count: u32,
    },
}

pub fn run(session: &str, args: MemoryArgs) -> Result<Outcome, ErrorBody> {
    match args.action {
        MemoryAction::Read { target, count } => read(session, &target.join(" "), count),
    }
}

fn read(session: &str, target: &str, count: u32) -> Result<Outcome, ErrorBody> {
    let result: MemoryResult = DaemonClient::connect(session)?.request_as(Command::MemoryRead {
        target: target.to_string(),
        count,
    })?;
    let text = hexdump_text(&result);
    Ok(Outcome::new(data(&result), text))
}

/// A headline, then `hexdump -C`-style lines: address, 16 bytes in two groups of 8, and the
/// printable ASCII between bars (anything else shown as `.`).
fn hexdump_text(result: &MemoryResult) -> String {
    let bytes = from_hex(&result.bytes);
    let start = u64::from_str_radix(result.address.trim_start_matches("0x"), 16).unwrap_or(0);
    let mut text = String::new();
    let plural = if bytes.len() == 1 { "" } else { "s" };
    let _ = write!(text, "{} byte{plural} at {}", bytes.len(), result.address);
    if result.expression.trim() != result.address {
        let _ = write!(text, " ({})", result.expression.trim());
    }
    text.push('\n');
    let last = start.saturating_add(bytes.len().saturating_sub(1) as u64);
    let width = format!("{last:x}").len();
    for (i, chunk) in bytes.chunks(LINE_BYTES).enumerate() {
        let address = start.saturating_add((i * LINE_BYTES) as u64);
        let _ = write!(text, "0x{address:0width$x} ");
        for column in 0..LINE_BYTES {
            if column == LINE_BYTES / 2 {
                text.push(' ');
            }
            match chunk.get(column) {
                Some(b) => {
                    let _ = write!(text, " {b:02x}");
                }
                None => text.push_str("   "),
            }
        }
        let ascii: String = chunk
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        let _ = writeln!(text, "  |{ascii}|");
    }
    if result.unreadable > 0 {
        let from = start.saturating_add(bytes.len() as u64);
        let _ = writeln!(
            text,
            "… {} more byte{} from {from:#x} could not be read",
            result.unreadable,
            if result.unreadable == 1 { "" } else { "s" }
        );
    }
    text
}

/// The bytes of a hex string (pairs of digits); a malformed pair ends the list.
fn from_hex(hex: &str) -> Vec<u8> {
    hex.as_bytes()
        .chunks(2)
        .map_while(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(expression: &str, bytes: &[u8], unreadable: u64) -> MemoryResult {
        MemoryResult {
            expression: expression.into(),
            address: "0x555555556008".into(),
            count: bytes.len() as u64,
            bytes: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            unreadable,
        }
    }

    #[test]
    fn a_hexdump_has_address_hex_and_ascii_columns() {
        let text = hexdump_text(&result("acct->owner", b"alice\0square: %d\x01", 0));
        assert_eq!(
            text,
            "17 bytes at 0x555555556008 (acct->owner)\n\
             0x555555556008  61 6c 69 63 65 00 73 71  75 61 72 65 3a 20 25 64  |alice.square: %d|\n\
             0x555555556018  01                                                |.|\n"
        );
    }

    #[test]
    fn an_address_is_not_repeated_and_unreadable_bytes_are_told() {
        let text = hexdump_text(&result("0x555555556008", b"a", 15));
        assert_eq!(
            text,
            "1 byte at 0x555555556008\n\
             0x555555556008  61                                                |a|\n\
             … 15 more bytes from 0x555555556009 could not be read\n"
        );
    }
}
