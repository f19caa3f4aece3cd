//! Rust's names of a Rust frame's pointer types (`&m::V`, `&mut m::V`, `*const m::V`) where the
//! adapter gives C's (`m::V *`, `RustReading::c_pointer_names`): read from the program's DWARF by
//! the session's [`PointerNames`](crate::adapters::rust_dwarf::PointerNames), at the frame's
//! address in the module that holds it.

use std::path::Path;

use super::Session;
use super::rust_evaluation::is_rust_frame;
use crate::adapters::rust_dwarf::{Module, PointerNames};
use crate::dap::requests::{Modules, NoArguments};
use crate::dap::types::StackFrame;
use crate::ipc::protocol::VariableNode;

/// Where one of `frame`'s values is, for its pointer types' names.
pub(super) enum Named<'a> {
    /// The frame's variables.
    Variables,
    /// A value `print` read, by its expression.
    Value(&'a str),
}

impl Session {
    /// Gives the pointer types among `nodes`, read in `frame`, rustc's names, where the
    /// adapter names them as C pointers in a Rust frame.
    pub(super) async fn name_rust_pointers(
        &self,
        frame: &StackFrame,
        named: Named<'_>,
        nodes: &mut [VariableNode],
    ) {
        let Some(names) = self.shared.inspection.pointer_names() else {
            return;
        };
        if !is_rust_frame(frame) || !nodes.iter().any(has_c_pointer) {
            return;
        }
        let Some(pc) = frame
            .instruction_pointer_reference
            .as_deref()
            .and_then(address)
        else {
            return;
        };
        let Some((path, load_address)) = self.module_at(pc).await else {
            return;
        };
        let module = Module {
            path: Path::new(&path),
            load_address,
        };
        name_in(names, module, pc, named, nodes);
    }

    /// The loaded file whose image holds `pc`: the one loaded last below it.
    async fn module_at(&self, pc: u64) -> Option<(String, u64)> {
        let modules = self
            .dap()
            .request_typed::<Modules>(&NoArguments {})
            .await
            .ok()?
            .modules;
        modules
            .into_iter()
            .filter_map(|m| {
                let start = address(m.address_range.as_deref()?.split('-').next()?)?;
                Some((m.path?, start))
            })
            .filter(|(_, start)| *start <= pc)
            .max_by_key(|(_, start)| *start)
    }
}

fn name_in(
    names: &PointerNames,
    module: Module<'_>,
    pc: u64,
    named: Named<'_>,
    nodes: &mut [VariableNode],
) {
    match named {
        Named::Variables => names.name_variables(module, pc, nodes),
        Named::Value(expression) => {
            let path: Vec<&str> = expression.trim().split('.').collect();
            let plain = path.iter().all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
            if let (true, [node]) = (plain, nodes) {
                names.name_value(module, pc, &path, node);
            }
        }
    }
}

/// Whether a value or one of its members has a type named as a C pointer.
fn has_c_pointer(node: &VariableNode) -> bool {
    node.type_name
        .as_deref()
        .is_some_and(|t| t.trim_end().ends_with('*'))
        || node.children.iter().any(has_c_pointer)
}

/// An address as DAP writes one: `0x` hexadecimal, or decimal.
fn address(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_in_either_base() {
        assert_eq!(address("0x5555555685C7"), Some(0x5555_5556_85c7));
        assert_eq!(address("93824992231424"), Some(0x5555_5555_4000));
        assert_eq!(address("lib"), None);
    }
}
