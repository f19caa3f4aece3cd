//! `disassemble`: instructions, one a line, the pc marked `->`, source lines beside the
//! instructions that begin them.

use std::fmt::Write as _;

use clap::Args;

use super::{Outcome, data, numbers, render};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{
    Command, DISASSEMBLE_DEFAULT, DISASSEMBLE_MAX, DisassemblyResult, InstructionInfo,
};

/// Instructions are padded to this width at most when a source note follows them.
const INSTRUCTION_COLUMN: usize = 40;

// `disassemble`'s arguments. (Plain comments on the flag sets: a doc comment would replace the
// command's help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct DisassembleArgs {
    /// Where to start: an address (0x…, or decimal) or an expression such as a function name
    /// (several words are joined with spaces); default: around the selected frame's pc.
    pub target: Vec<String>,
    /// How many instructions to show (1 to 1000).
    #[arg(long, value_name = "N", default_value_t = DISASSEMBLE_DEFAULT,
          allow_negative_numbers = true,
          value_parser = numbers::whole::<1, DISASSEMBLE_MAX>)]
    pub count: u32,
}

pub fn run(session: &str, args: DisassembleArgs) -> Result<Outcome, ErrorBody> {
    let target = Some(args.target.join(" ")).filter(|t| !t.is_empty());
    let result: DisassemblyResult =
        DaemonClient::connect(session)?.request_as(Command::Disassemble {
            target,
            count: args.count,
        })?;
    let text = disassembly_text(&result);
    Ok(Outcome::new(data(&result), text))
}

fn disassembly_text(result: &DisassemblyResult) -> String {
    let mut text = match (&result.frame, &result.expression) {
        (Some(frame), _) => format!(
            "Around the pc of {}, frame {}:\n",
            render::frame_location(frame),
            frame.index
        ),
        (None, Some(expression)) if expression.trim() != result.address => {
            format!("From {} ({}):\n", result.address, expression.trim())
        }
        (None, _) => format!("From {}:\n", result.address),
    };
    let address_width = result
        .instructions
        .iter()
        .map(|i| i.address.len())
        .max()
        .unwrap_or(0);
    let instruction_width = result
        .instructions
        .iter()
        .map(|i| i.instruction.chars().count())
        .max()
        .unwrap_or(0)
        .min(INSTRUCTION_COLUMN);
    for instruction in &result.instructions {
        text.push_str(&line(instruction, address_width, instruction_width));
    }
    if let Some(note) = &result.note {
        let _ = writeln!(text, "note: {note}");
    }
    text
}

/// `->  0x55555555517a  movq -0x18(%rbp), %rax   ; memory.c:22`
fn line(instruction: &InstructionInfo, address_width: usize, instruction_width: usize) -> String {
    let marker = if instruction.current { "->" } else { "  " };
    let mut out = format!("{marker}  {:<address_width$}  ", instruction.address);
    if let Some(symbol) = &instruction.symbol {
        let _ = write!(out, "<{symbol}>  ");
    }
    let source = match (&instruction.file, instruction.line) {
        (Some(file), Some(line)) => Some(format!("{}:{line}", render::short_file(file))),
        (None, Some(line)) => Some(format!("line {line}")),
        _ => None,
    };
    match source {
        Some(source) => {
            let _ = write!(
                out,
                "{:<instruction_width$}  ; {source}",
                instruction.instruction
            );
        }
        None => out.push_str(&instruction.instruction),
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::protocol::FrameInfo;

    fn instruction(address: &str, text: &str, line: Option<u32>, current: bool) -> InstructionInfo {
        InstructionInfo {
            address: address.into(),
            instruction: text.into(),
            bytes: None,
            symbol: None,
            file: line.map(|_| "/src/memory.c".into()),
            line,
            current,
        }
    }

    #[test]
    fn the_pc_is_marked_and_lines_are_noted() {
        let result = DisassemblyResult {
            expression: None,
            address: "0x55555555517a".into(),
            frame: Some(FrameInfo {
                index: 0,
                function: "checksum".into(),
                file: Some("/src/memory.c".into()),
                line: Some(22),
                column: None,
                address: Some("0x55555555517A".into()),
                generated: None,
                machinery: None,
            }),
            instructions: vec![
                instruction("0x555555555176", "movq %rsi, -0x20(%rbp)", None, false),
                instruction("0x55555555517a", "movl $0x0, -0x4(%rbp)", Some(22), true),
            ],
            note: None,
        };
        assert_eq!(
            disassembly_text(&result),
            "Around the pc of checksum (memory.c:22), frame 0:\n\
             \x20\x20  0x555555555176  movq %rsi, -0x20(%rbp)\n\
             ->  0x55555555517a  movl $0x0, -0x4(%rbp)   ; memory.c:22\n"
        );
    }

    #[test]
    fn a_listing_from_an_expression_names_it_and_keeps_the_note() {
        let mut first = instruction("0x49ce00", "SUBQ $0x18, SP", None, false);
        first.symbol = Some("main.add".into());
        let result = DisassemblyResult {
            expression: Some("main.add".into()),
            address: "0x49ce00".into(),
            frame: None,
            instructions: vec![first],
            note: Some("a remark".into()),
        };
        assert_eq!(
            disassembly_text(&result),
            "From 0x49ce00 (main.add):\n  \x20 0x49ce00  <main.add>  SUBQ $0x18, SP\nnote: a remark\n"
        );
    }
}
