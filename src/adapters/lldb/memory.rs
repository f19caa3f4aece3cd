//! `memory read` under lldb-dap 19, which has no DAP `readMemory`: LLDB's own command through
//! its console.

use std::path::Path;

use super::{COMMAND_ESCAPE, console_error};
use crate::adapters::process::BoxFuture;
use crate::adapters::{Console, ConsoleMemory};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::scratch::ScratchFile;

/// Reads memory with LLDB's `memory read --binary`, which writes the raw bytes to a file: a
/// scratch file of ours (new, 0600, removed after), so the bytes travel without a text format to
/// parse. Only a number and our own path reach LLDB's command line, never the user's text.
/// `--force` lifts LLDB's 1 KiB `target.max-memory-read-size`; the session caps the count.
pub struct ConsoleRead;

impl ConsoleMemory for ConsoleRead {
    fn read<'a>(
        &'a self,
        console: &'a dyn Console,
        address: u64,
        count: u32,
    ) -> BoxFuture<'a, Result<Vec<u8>, ErrorBody>> {
        Box::pin(async move {
            let file = ScratchFile::create("lldb-memory")?;
            let command = memory_read_command(file.path(), address, count)?;
            let reply = console.run(&command).await?;
            if let Some(error) = console_error(&reply) {
                return Err(ErrorBody::new(ErrorCode::Adapter, error, ""));
            }
            let mut bytes = tokio::fs::read(file.path()).await.map_err(|e| {
                ErrorBody::internal(format!(
                    "cannot read back what lldb wrote to {}: {e}",
                    file.path().display()
                ))
            })?;
            if bytes.is_empty() && count > 0 {
                // A remote lldb-dap (--connect) writes to its own machine's file system.
                return Err(ErrorBody::new(
                    ErrorCode::Adapter,
                    format!(
                        "lldb wrote nothing to {}; it answered: {}",
                        file.path().display(),
                        reply.trim()
                    ),
                    "lldb-dap must run on this machine to read memory",
                ));
            }
            bytes.truncate(count as usize);
            Ok(bytes)
        })
    }
}

/// `memory read` of `count` bytes at `address` into `file`.
fn memory_read_command(file: &Path, address: u64, count: u32) -> Result<String, ErrorBody> {
    let path = file.to_str().filter(|p| {
        // Inside LLDB's double quotes a backslash escapes and a backtick runs an expression.
        !p.chars()
            .any(|c| matches!(c, '"' | '\\' | '`') || c.is_control())
    });
    let Some(path) = path else {
        return Err(ErrorBody::new(
            ErrorCode::Unsupported,
            format!(
                "lldb cannot be given the scratch file path {}",
                file.display()
            ),
            "set DEBUGGER_RUNTIME_DIR to a directory whose path has no quotes, backslashes or backticks",
        ));
    };
    Ok(format!(
        "{COMMAND_ESCAPE}memory read --binary --force --count {count} --outfile \"{path}\" {address:#x}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_read_command_quotes_our_path_and_refuses_what_lldb_would_interpret() {
        let command = memory_read_command(Path::new("/run/user 1/m-1"), 0x5555_0000, 64)
            .expect("a plain path");
        assert_eq!(
            command,
            "`memory read --binary --force --count 64 --outfile \"/run/user 1/m-1\" 0x55550000"
        );
        for bad in ["/tmp/a\"b", "/tmp/a`b`", "/tmp/a\\b", "/tmp/a\nb"] {
            let err = memory_read_command(Path::new(bad), 0, 1).expect_err(bad);
            assert_eq!(err.code, ErrorCode::Unsupported);
        }
    }
}
