//! `memory read` under Delve, through its console: `dlv x` (examinemem) in the `repl` context.
//!
//! Delve advertises DAP `readMemory`, but it reads only inside a variable it listed, by the
//! reference it handed out with it; an expression's answer carries none, and it writes a pointer
//! as its target's value (`*30`), so neither an address nor a reference comes from `print`. Its
//! console reads any address (`x -fmt hex -count N -size 1 0x…`) and finds where an expression
//! points (`-x &acct.Balance`, `-x acct`: a pointer's target, or an integer taken as an address).

use crate::adapters::process::BoxFuture;
use crate::adapters::{Console, ConsoleMemory};
use crate::common::error::{ErrorBody, ErrorCode};

/// Delve's console as a memory reader.
pub struct ConsoleRead;

impl ConsoleMemory for ConsoleRead {
    fn instead_of_read_memory(&self) -> bool {
        true
    }

    fn read<'a>(
        &'a self,
        console: &'a dyn Console,
        address: u64,
        count: u32,
    ) -> BoxFuture<'a, Result<Vec<u8>, ErrorBody>> {
        Box::pin(async move {
            // Delve reads all or nothing: halve the count until a read succeeds, so the bytes
            // before an unmapped page are still shown.
            let mut want = count.max(1);
            loop {
                let reply = console
                    .run(&format!(
                        "dlv x -fmt hex -count {want} -size 1 {address:#x}"
                    ))
                    .await?;
                match parse_examined(&reply) {
                    Ok((_, bytes)) => return Ok(bytes),
                    Err(error) if want == 1 => {
                        return Err(ErrorBody::new(ErrorCode::Adapter, error, ""));
                    }
                    Err(_) => want /= 2,
                }
            }
        })
    }

    fn place_of<'a>(
        &'a self,
        console: &'a dyn Console,
        expression: &'a str,
    ) -> Option<BoxFuture<'a, Result<u64, ErrorBody>>> {
        Some(Box::pin(async move {
            let reply = console
                .run(&format!("dlv x -fmt hex -count 1 -size 1 -x {expression}"))
                .await?;
            parse_examined(&reply)
                .map(|(address, _)| address)
                .map_err(|error| ErrorBody::new(ErrorCode::NotFound, error, ""))
        }))
    }
}

/// Reads what `x -fmt hex -size 1` prints, rows of `0xc000012345:   0x1e   0x00 …`: the first
/// row's address and every byte. Delve answers a failure in words (`examine memory error: …`,
/// `bad arguments: …`), which become the error.
fn parse_examined(reply: &str) -> Result<(u64, Vec<u8>), String> {
    let mut first = None;
    let mut bytes = Vec::new();
    for line in reply.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((address, row)) = line
            .split_once(':')
            .filter(|(a, _)| a.starts_with("0x"))
            .and_then(|(a, row)| Some((u64::from_str_radix(&a[2..], 16).ok()?, row)))
        else {
            return Err(line.to_string());
        };
        first.get_or_insert(address);
        for cell in row.split_whitespace() {
            let byte = cell
                .strip_prefix("0x")
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .ok_or_else(|| format!("Delve printed {cell:?} where a byte was expected"))?;
            bytes.push(byte);
        }
    }
    match first {
        Some(address) => Ok((address, bytes)),
        None => Err("Delve printed no memory".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_rows_delve_prints() {
        let reply = "0xc00001a0b8:   0x1e   0x00   0x00   0x00   0x00   0x00   0x00   0x00   \n\
                     0xc00001a0c0:   0x07   \n";
        assert_eq!(
            parse_examined(reply),
            Ok((0xc00001a0b8, vec![0x1e, 0, 0, 0, 0, 0, 0, 0, 7]))
        );
        assert_eq!(
            parse_examined("examine memory error: input/output error\n"),
            Err("examine memory error: input/output error".to_string())
        );
        assert_eq!(
            parse_examined(""),
            Err("Delve printed no memory".to_string())
        );
    }
}
