//! `memory read`: the program's bytes at an address, or where an expression's value points.
//!
//! DAP `readMemory` where the adapter advertises it; otherwise the adapter's own way through its
//! console, when it has one (see `ConsoleUse::memory`). Addresses come from the user
//! (`0x7ffd…`, decimal) or from evaluating an expression in the selected frame: the answer's
//! `memoryReference` when the adapter gives one, else the address its value starts with
//! (lldb: `0x0000555555556008 "alice"`), else its value if that is a whole number (as gdb's `x`
//! and lldb's `memory read` take `base + 16`, or an `int` holding an address).

use super::Session;
use crate::adapters::Console;
use crate::adapters::process::BoxFuture;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::DapError;
use crate::dap::requests::{Evaluate, EvaluateArguments, ReadMemory, ReadMemoryArguments};
use crate::dap::{DapClient, base64};
use crate::ipc::protocol::{MEMORY_READ_MAX, MemoryResult};

/// Where a command should look: the reference to hand the adapter, and the address it stands
/// for when that is known.
pub(super) struct Place {
    /// A DAP `memoryReference`: opaque to us, meaningful to the adapter.
    pub reference: String,
    pub address: Option<u64>,
    /// What to suggest should nothing be readable there.
    pub hint: Option<String>,
}

impl Place {
    fn at(address: u64) -> Place {
        Place {
            reference: format!("{address:#x}"),
            address: Some(address),
            hint: None,
        }
    }

    fn shown(&self) -> String {
        self.address
            .map(|a| format!("{a:#x}"))
            .unwrap_or_else(|| self.reference.clone())
    }

    /// An adapter's refusal to read here, put in the user's terms.
    fn unreadable(&self, err: ErrorBody) -> ErrorBody {
        if err.code != ErrorCode::Adapter {
            return err;
        }
        let hint = match (&self.hint, err.hint.is_empty()) {
            (Some(hint), _) => hint.clone(),
            (None, false) => err.hint,
            (None, true) => "the address is not mapped in the program; 'debugger print EXPR' shows where a pointer points".to_string(),
        };
        ErrorBody::new(
            ErrorCode::Adapter,
            format!("cannot read memory at {}: {}", self.shown(), err.message),
            hint,
        )
    }
}

impl Session {
    /// Reads `count` bytes at `target` (an address or an expression) in the selected frame.
    pub async fn read_memory(&self, target: &str, count: u32) -> Result<MemoryResult, ErrorBody> {
        check_count(count, MEMORY_READ_MAX, "bytes")?;
        let console_reader = self.adapter().profile().console.memory;
        let native = self.capabilities().supports_read_memory_request
            && !console_reader.is_some_and(|reader| reader.instead_of_read_memory());
        if !native && console_reader.is_none() {
            return Err(unsupported(
                self.adapter_name(),
                "read memory",
                NO_MEMORY_HINT,
            ));
        }
        let (_, _, frame) = self.selected_frame().await?;
        let place = match self.resolve_place(target, frame.id, Purpose::Data).await? {
            Ok(place) => place,
            Err(no_address) => self.place_by_console(target, frame.id, no_address).await?,
        };
        let (address, bytes, unreadable) = if native {
            self.read_by_dap(&place, count).await?
        } else {
            self.read_by_console(&place, frame.id, count).await?
        };
        self.mark_seen();
        Ok(MemoryResult {
            expression: target.to_string(),
            address: format!("{address:#x}"),
            count: bytes.len() as u64,
            bytes: hex(&bytes),
            unreadable,
        })
    }

    /// DAP `readMemory`: returns the address of the first byte, the bytes, and how many after
    /// them could not be read.
    async fn read_by_dap(
        &self,
        place: &Place,
        count: u32,
    ) -> Result<(u64, Vec<u8>, u64), ErrorBody> {
        let arguments = ReadMemoryArguments {
            memory_reference: place.reference.clone(),
            offset: 0,
            count,
        };
        let body = self
            .dap()
            .request_typed::<ReadMemory>(&arguments)
            .await
            .map_err(|e| match e {
                unreadable @ DapError::Unreadable { .. } => unreadable.reading("a memory read"),
                e => place.unreadable(e.into()),
            })?;
        let address = parse_number(&body.address)
            .or(place.address)
            .ok_or_else(|| {
                ErrorBody::new(
                    ErrorCode::Adapter,
                    format!(
                        "the adapter read memory at '{}', not an address",
                        body.address
                    ),
                    "",
                )
            })?;
        let mut bytes = match body.data.as_deref() {
            Some(data) => base64::decode(data).ok_or_else(|| {
                ErrorBody::new(
                    ErrorCode::Adapter,
                    "the adapter sent memory that is not base64",
                    "",
                )
            })?,
            None => Vec::new(),
        };
        bytes.truncate(count as usize);
        let unreadable = body
            .unreadable_bytes
            .unwrap_or(u64::from(count) - bytes.len() as u64);
        if bytes.is_empty() {
            return Err(place.unreadable(ErrorBody::new(
                ErrorCode::Adapter,
                format!("none of the {count} bytes could be read"),
                "",
            )));
        }
        Ok((address, bytes, unreadable))
    }

    /// The adapter's own way (its console), for an adapter without `readMemory`.
    async fn read_by_console(
        &self,
        place: &Place,
        frame_id: i64,
        count: u32,
    ) -> Result<(u64, Vec<u8>, u64), ErrorBody> {
        let Some(reader) = self.adapter().profile().console.memory else {
            return Err(unsupported(
                self.adapter_name(),
                "read memory",
                NO_MEMORY_HINT,
            ));
        };
        let Some(address) = place.address else {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter named the memory '{}', which is not an address",
                    self.adapter_name(),
                    place.reference
                ),
                "give the address as a number: 'debugger memory read 0x…'",
            ));
        };
        let console = ReplConsole {
            dap: self.dap().clone(),
            frame_id,
        };
        let bytes = reader
            .read(&console, address, count)
            .await
            .map_err(|e| place.unreadable(e))?;
        let unreadable = u64::from(count) - bytes.len() as u64;
        Ok((address, bytes, unreadable))
    }

    /// Where `target` points by the adapter's console, for an expression whose value showed no
    /// address; `unresolved` (why the value did not do) when the console has no way either.
    async fn place_by_console(
        &self,
        target: &str,
        frame_id: i64,
        unresolved: ErrorBody,
    ) -> Result<Place, ErrorBody> {
        let console = ReplConsole {
            dap: self.dap().clone(),
            frame_id,
        };
        let Some(finding) = self
            .adapter()
            .profile()
            .console
            .memory
            .and_then(|reader| reader.place_of(&console, target))
        else {
            return Err(unresolved);
        };
        match finding.await {
            Ok(address) => Ok(Place::at(address)),
            Err(err) => Err(ErrorBody {
                message: format!(
                    "{}; the adapter's console says: {}",
                    unresolved.message, err.message
                ),
                ..unresolved
            }),
        }
    }

    /// What `target` points at: a number is an address; anything else is evaluated in the
    /// selected frame. The outer error is the evaluation's; the inner one says that the value
    /// it gave holds no address.
    pub(super) async fn resolve_place(
        &self,
        target: &str,
        frame_id: i64,
        purpose: Purpose,
    ) -> Result<Result<Place, ErrorBody>, ErrorBody> {
        if let Some(address) = parse_number(target) {
            return Ok(Ok(Place::at(address)));
        }
        let body = self.evaluate_in(target, frame_id).await?;
        Ok(place_in_answer(target, body, purpose))
    }
}

/// The place an evaluation's answer names: its memory reference, else the address its value
/// starts with, else its value as a number; else why it names none.
fn place_in_answer(
    target: &str,
    body: crate::dap::types::EvaluateBody,
    purpose: Purpose,
) -> Result<Place, ErrorBody> {
    let value = body.result.trim();
    let from_value = address_in_value(value);
    if let Some(reference) = body.memory_reference.filter(|r| !r.is_empty()) {
        let address = parse_number(&reference).or(from_value);
        return Ok(Place {
            reference,
            address,
            hint: None,
        });
    }
    if let Some(address) = from_value {
        return Ok(Place::at(address));
    }
    if let Some(address) = parse_number(value) {
        // A plain number is taken as an address; should that fail, the user most likely
        // meant the variable itself.
        return Ok(Place {
            hint: Some(format!(
                "'{target}' is the number {value}, read as an address; '&{target}' is where it is stored"
            )),
            ..Place::at(address)
        });
    }
    // GDB shows a struct's value as nothing at all: name its type instead.
    let what = match (value.is_empty(), body.type_name.as_deref()) {
        (false, _) => format!("its value is {value}"),
        (true, Some(type_name)) if !type_name.is_empty() => format!("it is a {type_name}"),
        (true, _) => "its value has no text".to_string(),
    };
    Err({
        ErrorBody::new(
            ErrorCode::NotFound,
            format!("'{target}' is not an address: {what}"),
            match purpose {
                Purpose::Data => format!(
                    "give a pointer, an address (0x…), or a variable's address ('&{target}')"
                ),
                Purpose::Code => "give an address (0x…), or a function the adapter gives an address for; 'debugger backtrace --json' shows the frames' addresses".to_string(),
            },
        )
    })
}

/// The adapter's console in one frame, lent to the adapter's [`crate::adapters::ConsoleMemory`].
struct ReplConsole {
    dap: DapClient,
    frame_id: i64,
}

impl Console for ReplConsole {
    fn run<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, ErrorBody>> {
        Box::pin(async move {
            let answer = self
                .dap
                .request_typed::<Evaluate>(&EvaluateArguments::repl(text, Some(self.frame_id)))
                .await;
            Ok(crate::adapters::console_answer(answer)?)
        })
    }
}

/// A usage error unless `1 <= count <= max`.
pub(super) fn check_count(count: u32, max: u32, unit: &str) -> Result<(), ErrorBody> {
    if (1..=max).contains(&count) {
        return Ok(());
    }
    Err(ErrorBody::usage(
        format!("--count must be between 1 and {max} {unit}, not {count}"),
        format!("read more than {max} {unit} in several calls, each at a later address"),
    ))
}

/// "the debugpy adapter cannot read memory", and what to do instead.
pub(super) fn unsupported(adapter: &str, what: &str, instead: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Unsupported,
        format!("the {adapter} adapter cannot {what}"),
        instead,
    )
}

/// The hint when an adapter cannot read memory.
const NO_MEMORY_HINT: &str =
    "it offers no DAP readMemory; 'debugger print EXPR' shows values instead";

/// What a place is wanted for: the hint for an expression without an address differs.
#[derive(Clone, Copy)]
pub(super) enum Purpose {
    Data,
    Code,
}

/// A number the user or the adapter wrote: `0x…` hex or decimal.
pub(super) fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

/// The address a pointer's value starts with: `0x0000555555556008 "alice"`, `(char *)
/// 0x5555…`, `0x5555… (ledger`main at ledger.c:39:1)`, `(*int)(0xc000012345)`. A value that is
/// not a pointer (`0`, `{...}`, `"text"`) has none.
pub(super) fn address_in_value(value: &str) -> Option<u64> {
    let mut rest = value.trim();
    if rest.starts_with('(') {
        // A type in parentheses, then perhaps the address in parentheses too.
        let mut depth = 0usize;
        let close = rest.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        rest = rest[close + 1..].trim_start();
        rest = rest.strip_prefix('(').unwrap_or(rest);
    }
    let hex = rest
        .strip_prefix("0x")
        .or_else(|| rest.strip_prefix("0X"))?;
    let end = hex
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(hex.len());
    let after = hex[end..].chars().next();
    if end == 0 || !matches!(after, None | Some(' ' | ')' | '"')) {
        return None;
    }
    u64::from_str_radix(&hex[..end], 16).ok()
}

/// Two lower-case hex digits per byte.
pub(super) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_hex_or_decimal() {
        assert_eq!(parse_number("0x7ffd1000"), Some(0x7ffd_1000));
        assert_eq!(parse_number(" 0X55555555517A "), Some(0x5555_5555_517a));
        assert_eq!(parse_number("4096"), Some(4096));
        assert_eq!(parse_number("g_counter"), None);
        assert_eq!(parse_number("0x"), None);
        assert_eq!(parse_number("-4"), None);
        assert_eq!(parse_number("12abc"), None);
        assert_eq!(parse_number(""), None);
    }

    #[test]
    fn pointer_values_give_their_address() {
        assert_eq!(
            address_in_value("0x0000555555556008 \"alice\""),
            Some(0x5555_5555_6008)
        );
        assert_eq!(
            address_in_value("(char *) 0x0000555555556004 \"alice\""),
            Some(0x5555_5555_6004)
        );
        assert_eq!(
            address_in_value("0x00005555555551ba (ledger`main at ledger.c:39:1)"),
            Some(0x5555_5555_51ba)
        );
        assert_eq!(
            address_in_value("(*int)(0xc000012345)"),
            Some(0xc0_0001_2345)
        );
        assert_eq!(
            address_in_value("0x000055555555806c"),
            Some(0x5555_5555_806c)
        );
    }

    #[test]
    fn other_values_have_no_address() {
        for value in [
            "0",
            "42",
            "{id = 7}",
            "\"hello\"",
            "0xzz",
            "0x12g",
            "main.add",
            "",
        ] {
            assert_eq!(address_in_value(value), None, "{value}");
        }
    }

    #[test]
    fn counts_outside_the_cap_are_usage_errors() {
        assert!(check_count(1, 10, "bytes").is_ok());
        assert!(check_count(10, 10, "bytes").is_ok());
        for bad in [0, 11] {
            let err = check_count(bad, 10, "bytes").expect_err("out of range");
            assert_eq!(err.code, ErrorCode::Usage);
        }
    }

    #[test]
    fn bytes_are_hex_pairs() {
        assert_eq!(hex(b"alice\0"), "616c69636500");
        assert_eq!(hex(&[]), "");
    }
}
