//! `disassemble`: instructions around the selected frame's pc, or from an address or expression,
//! through DAP `disassemble`.
//!
//! Showing instructions *before* the pc takes care: DAP's `instructionOffset` counts
//! instructions, but some adapters add it to the address as bytes (lldb-dap 19), and on a
//! variable-length instruction set a byte offset can land inside an instruction. So the listing
//! is asked for from well before the pc, the pc is looked up in the answer, and only the few
//! instructions just before it are kept: under either reading of the offset there are enough of
//! them, and a decode that began mid-instruction has usually fallen back into step by then. One
//! that stepped over the pc instead is asked again a byte further back. An adapter that ignores a
//! negative `instructionOffset` (GDB 16 answers from the pc) is asked with DAP's byte `offset`
//! instead. Should the pc never be in the answer, the listing starts at the pc, with a note.

use super::Session;
use super::frames::frame_info;
use super::memory::{Place, Purpose, check_count, parse_number, unsupported};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::DapError;
use crate::dap::requests::{Disassemble, DisassembleArguments};
use crate::dap::types::DisassembledInstruction;
use crate::ipc::protocol::{DISASSEMBLE_MAX, DisassemblyResult, InstructionInfo};

/// At most this many instructions are shown before the pc (a quarter of the count below that).
const MAX_BEFORE_PC: u32 = 16;
/// Room asked for before the pc per instruction kept: the longest x86 instruction is 15 bytes,
/// so even an adapter that reads the offset as bytes returns enough whole instructions.
const WINDOW_PER_INSTRUCTION: u32 = 16;
/// Extra room before the pc, for a decode that started mid-instruction to fall back into step.
const WINDOW_SLACK: u32 = 32;
/// Start bytes tried, one further back each time, while the decode misses the pc: 15 (the longest
/// x86 instruction) consecutive bytes always hold the start of an instruction, and a decode that
/// starts on one steps onto the pc.
const START_ATTEMPTS: u32 = 15;

impl Session {
    /// `count` instructions: around the selected frame's pc (with `target` `None`), else from
    /// the address `target` is or evaluates to.
    pub async fn disassemble(
        &self,
        target: Option<&str>,
        count: u32,
    ) -> Result<DisassemblyResult, ErrorBody> {
        check_count(count, DISASSEMBLE_MAX, "instructions")?;
        if !self.capabilities().supports_disassemble_request {
            return Err(unsupported(
                self.adapter_name(),
                "disassemble",
                "it offers no DAP disassemble; 'debugger context' shows the source instead",
            ));
        }
        let (_, index, frame) = self.selected_frame().await?;
        let pc = frame.instruction_pointer_reference.clone();
        let pc_address = pc.as_deref().and_then(parse_number);
        let result = match target {
            None => {
                let pc = pc.ok_or_else(|| {
                    ErrorBody::new(
                        ErrorCode::NotFound,
                        format!(
                            "the {} adapter gives no instruction address for frame {index}",
                            self.adapter_name()
                        ),
                        "give an address or a function: 'debugger disassemble 0x…'",
                    )
                })?;
                let (instructions, note) = self.around_pc(&pc, count).await?;
                DisassemblyResult {
                    expression: None,
                    address: display_address(&pc),
                    frame: Some(frame_info(index, &frame)),
                    instructions: convert(&instructions, pc_address),
                    note,
                }
            }
            Some(target) => {
                let place = self
                    .resolve_place(target, frame.id, Purpose::Code)
                    .await??;
                let instructions = self
                    .fetch(&place.reference, Offset::Instructions(0), count)
                    .await?;
                DisassemblyResult {
                    expression: Some(target.to_string()),
                    address: start_address(&place, &instructions),
                    frame: None,
                    instructions: convert(&instructions, pc_address),
                    note: None,
                }
            }
        };
        self.mark_seen();
        Ok(result)
    }

    /// `count` instructions with up to a quarter of them before the pc, and a note when none
    /// could be shown before it.
    async fn around_pc(
        &self,
        pc: &str,
        count: u32,
    ) -> Result<(Vec<DisassembledInstruction>, Option<String>), ErrorBody> {
        let before = (count / 4).min(MAX_BEFORE_PC);
        let from_pc = count - before;
        if before > 0 {
            let pc_address = parse_number(pc);
            let window = before * WINDOW_PER_INSTRUCTION + WINDOW_SLACK;
            let mut in_bytes = false;
            let mut shift = 0;
            while shift < START_ATTEMPTS {
                let back = -i64::from(window + shift);
                let offset = if in_bytes {
                    Offset::Bytes(back)
                } else {
                    Offset::Instructions(back)
                };
                // An error (nothing mapped that far back, say) will not go away a byte further;
                // an empty or short answer (a decode that met an invalid instruction) may.
                let Ok(wide) = self.request(pc, offset, window + shift + from_pc).await else {
                    break;
                };
                let at = wide
                    .iter()
                    .position(|i| same_address(&i.address, pc, pc_address));
                match at {
                    Some(at) if at >= before as usize => {
                        let start = at - before as usize;
                        let end = (at + from_pc as usize).min(wide.len());
                        return Ok((wide[start..end].to_vec(), None));
                    }
                    // The answer began at the pc: the adapter ignored the instruction offset.
                    // Ask the same in bytes.
                    Some(0) if !in_bytes => {
                        in_bytes = true;
                        continue;
                    }
                    Some(_) => break,
                    // The decode began inside an instruction and stepped over the pc: begin a
                    // byte earlier.
                    None => shift += 1,
                }
            }
        }
        let listing = self.fetch(pc, Offset::Instructions(0), count).await?;
        let note = (before > 0).then(|| {
            "the adapter could not disassemble before the pc; the listing starts at it".to_string()
        });
        Ok((listing, note))
    }

    /// The instructions at `reference`; none is an error.
    async fn fetch(
        &self,
        reference: &str,
        offset: Offset,
        count: u32,
    ) -> Result<Vec<DisassembledInstruction>, ErrorBody> {
        let instructions = self.request(reference, offset, count).await?;
        if instructions.is_empty() {
            return Err(ErrorBody::new(
                ErrorCode::Adapter,
                format!(
                    "cannot disassemble at {}: the adapter found no instructions there",
                    display_address(reference)
                ),
                "the address must be in the program's code; 'debugger backtrace' shows the frames' addresses",
            ));
        }
        Ok(instructions)
    }

    /// One `disassemble` request.
    async fn request(
        &self,
        reference: &str,
        offset: Offset,
        count: u32,
    ) -> Result<Vec<DisassembledInstruction>, ErrorBody> {
        let (offset, instruction_offset) = match offset {
            Offset::Instructions(n) => (None, n),
            Offset::Bytes(n) => (Some(n), 0),
        };
        let arguments = DisassembleArguments {
            memory_reference: reference.to_string(),
            offset,
            instruction_offset,
            instruction_count: count,
            resolve_symbols: true,
        };
        let body = self
            .dap()
            .request_typed::<Disassemble>(&arguments)
            .await
            .map_err(|e| {
                if matches!(e, DapError::Unreadable { .. }) {
                    return e.reading("a disassembly");
                }
                let e: ErrorBody = e.into();
                if e.code == ErrorCode::Adapter {
                    ErrorBody::new(
                        ErrorCode::Adapter,
                        format!("cannot disassemble at {}: {}", display_address(reference), e.message),
                        "the address must be in the program's code; 'debugger backtrace' shows the frames' addresses",
                    )
                } else {
                    e
                }
            })?;
        Ok(body.instructions)
    }
}

/// Where a listing starts, relative to the reference: DAP's `instructionOffset` (which lldb-dap 19
/// reads as bytes) or its byte `offset` (all GDB 16 reads).
#[derive(Debug, Clone, Copy)]
enum Offset {
    Instructions(i64),
    Bytes(i64),
}

/// Whether an instruction's address is the pc (numerically, where both are numbers: adapters
/// differ in case and zero padding).
fn same_address(address: &str, pc: &str, pc_address: Option<u64>) -> bool {
    match (parse_number(address), pc_address) {
        (Some(a), Some(b)) => a == b,
        _ => address.eq_ignore_ascii_case(pc),
    }
}

/// `0x` and lower-case hex for a number; anything else as it is.
fn display_address(reference: &str) -> String {
    parse_number(reference)
        .map(|a| format!("{a:#x}"))
        .unwrap_or_else(|| reference.to_string())
}

fn start_address(place: &Place, instructions: &[DisassembledInstruction]) -> String {
    match (place.address, instructions.first()) {
        (Some(address), _) => format!("{address:#x}"),
        (None, Some(first)) => display_address(&first.address),
        (None, None) => place.reference.clone(),
    }
}

fn convert(instructions: &[DisassembledInstruction], pc: Option<u64>) -> Vec<InstructionInfo> {
    instructions
        .iter()
        .map(|i| {
            let address = parse_number(&i.address);
            let (label, instruction) = split_label(&i.instruction);
            InstructionInfo {
                address: display_address(&i.address),
                instruction,
                bytes: i.instruction_bytes.as_deref().and_then(normalise_bytes),
                symbol: i
                    .symbol
                    .clone()
                    .filter(|s| !s.is_empty())
                    .or(label.map(str::to_string)),
                file: i
                    .location
                    .as_ref()
                    .and_then(|l| l.path.clone().or_else(|| l.name.clone())),
                line: i.line.filter(|l| *l > 0),
                current: address.is_some() && address == pc,
            }
        })
        .collect()
}

/// The instruction without the label some adapters put before a function's first one
/// (lldb-dap: `main:   pushq         %rbp`), and with the code's runs of spaces made one (lldb-dap
/// pads mnemonic and operands to fixed columns). A comment after ` ; ` is kept as it is.
fn split_label(text: &str) -> (Option<&str>, String) {
    let text = text.trim();
    let (code, comment) = match text.split_once(" ; ") {
        Some((code, comment)) => (code, Some(comment)),
        None => (text, None),
    };
    let mut words: Vec<&str> = code.split_whitespace().collect();
    let label = match words.first() {
        Some(first) if first.len() > 1 && first.ends_with(':') && words.len() > 1 => {
            Some(&first[..first.len() - 1])
        }
        _ => None,
    };
    if label.is_some() {
        words.remove(0);
    }
    let mut tidy = words.join(" ");
    if let Some(comment) = comment {
        tidy.push_str(" ; ");
        tidy.push_str(comment.trim());
    }
    (label, tidy)
}

/// `48 8b 45 e8` (lldb) and `488b45e8` (Delve) both become `488b45e8`.
fn normalise_bytes(bytes: &str) -> Option<String> {
    let joined: String = bytes.chars().filter(|c| !c.is_whitespace()).collect();
    if joined.is_empty() {
        return None;
    }
    if joined.chars().all(|c| c.is_ascii_hexdigit()) {
        Some(joined.to_ascii_lowercase())
    } else {
        Some(bytes.trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::types::Source;

    fn instruction(address: &str, bytes: &str) -> DisassembledInstruction {
        DisassembledInstruction {
            address: address.into(),
            instruction_bytes: Some(bytes.into()),
            instruction: "   movq -0x18(%rbp), %rax".into(),
            symbol: None,
            location: Some(Source {
                name: Some("ledger.c".into()),
                path: None,
                source_reference: None,
            }),
            line: Some(32),
        }
    }

    #[test]
    fn instructions_are_normalised_and_the_pc_marked() {
        let list = [
            instruction("0x555555555176", "48 89 75 e0"),
            instruction("0x55555555517A", "488B45E8"),
        ];
        let converted = convert(&list, Some(0x5555_5555_517a));
        assert_eq!(converted[0].address, "0x555555555176");
        assert!(!converted[0].current);
        assert_eq!(converted[0].bytes.as_deref(), Some("488975e0"));
        assert_eq!(converted[1].address, "0x55555555517a");
        assert!(converted[1].current);
        assert_eq!(converted[1].bytes.as_deref(), Some("488b45e8"));
        assert_eq!(converted[1].instruction, "movq -0x18(%rbp), %rax");
        assert_eq!(converted[1].file.as_deref(), Some("ledger.c"));
    }

    #[test]
    fn labels_and_column_padding_are_taken_out_of_the_instruction() {
        assert_eq!(
            split_label("main:   pushq         %rbp"),
            (Some("main"), "pushq %rbp".to_string())
        );
        assert_eq!(
            split_label("   movq   %rsp, %rbp"),
            (None, "movq %rsp, %rbp".to_string())
        );
        assert_eq!(
            split_label("   leaq 0xe59(%rip), %rax ; g_greeting  \"a  b\""),
            (
                None,
                "leaq 0xe59(%rip), %rax ; g_greeting  \"a  b\"".to_string()
            )
        );
        assert_eq!(
            split_label("SUBQ $0x18, SP"),
            (None, "SUBQ $0x18, SP".to_string())
        );
        let list = [DisassembledInstruction {
            symbol: None,
            instruction: "_Z4areav:  pushq %rbp".into(),
            ..instruction("0x1000", "55")
        }];
        assert_eq!(convert(&list, None)[0].symbol.as_deref(), Some("_Z4areav"));
    }

    #[test]
    fn the_pc_is_found_whatever_the_spelling() {
        assert!(same_address(
            "0x55555555517A",
            "0x55555555517a",
            Some(0x5555_5555_517a)
        ));
        assert!(same_address("0x0049ce00", "0x49ce00", Some(0x49_ce00)));
        assert!(!same_address("0x49ce04", "0x49ce00", Some(0x49_ce00)));
        assert!(same_address("opaque:1", "OPAQUE:1", None));
    }
}
