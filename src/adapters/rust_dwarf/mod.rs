//! rustc's names of pointer types (`&m::V`, `&mut m::V`, `*const m::V`, `Box<..>`), read from
//! the program's own DWARF for a debugger that loses them: LLDB reads a Rust pointer as a C
//! one and names it `m::V *`, whatever rustc called it.
//!
//! The program's file is opened once per session (again if it changes), and only the parts a
//! lookup needs are read; a function's variables are looked up once per address the program
//! stops at.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use gimli::DebugInfoOffset;

use crate::ipc::protocol::VariableNode;

mod program;
mod scopes;

use program::Program;
use scopes::{TypeAt, Types, Variables};

/// Addresses whose variables are kept; past this the kept ones are dropped.
const ADDRESSES_KEPT: usize = 4096;

/// A loaded file of the program, as the debugger tells it.
#[derive(Debug, Clone, Copy)]
pub struct Module<'a> {
    pub path: &'a Path,
    /// Where the file's first byte was loaded.
    pub load_address: u64,
}

/// The names, for one session: the DWARF of the last file read, and the variables found at
/// each address.
#[derive(Default)]
pub struct PointerNames {
    opened: Mutex<Option<Opened>>,
}

struct Opened {
    path: PathBuf,
    modified: Option<SystemTime>,
    program: Option<Arc<Program>>,
    /// By the file's address.
    variables: HashMap<u64, Option<Arc<Variables>>>,
    /// The unit read last, by its offset.
    unit: Option<(DebugInfoOffset, Arc<Vec<u8>>)>,
}

impl PointerNames {
    /// Gives `nodes`, the variables of the frame at `pc` in `module`, and their members, the
    /// pointer types' names rustc wrote where the debugger's end in `*`.
    pub fn name_variables(&self, module: Module<'_>, pc: u64, nodes: &mut [VariableNode]) {
        self.with_variables(module, pc, |types, variables| {
            for node in nodes {
                if let Some(ty) = variables.types.get(&node.name) {
                    name_node(types, *ty, node);
                }
            }
        });
    }

    /// Gives `node`, the value at `path` (a variable and its members' names: `h.v` is
    /// `["h", "v"]`) in the frame at `pc`, and its members, their pointer types' names.
    pub fn name_value(&self, module: Module<'_>, pc: u64, path: &[&str], node: &mut VariableNode) {
        let Some((first, members)) = path.split_first() else {
            return;
        };
        self.with_variables(module, pc, |types, variables| {
            let Some(mut ty) = variables.types.get(*first).copied() else {
                return;
            };
            for member in members {
                let Some(next) = types
                    .facts(ty)
                    .and_then(|facts| facts.shown)
                    .and_then(|shown| types.member(shown, member))
                else {
                    return;
                };
                ty = next;
            }
            name_node(types, ty, node);
        });
    }

    /// Runs `name` over the variables at `pc`, where the module's DWARF has a Rust function
    /// there.
    fn with_variables(
        &self,
        module: Module<'_>,
        pc: u64,
        name: impl FnOnce(&Types<'_, '_>, &Variables),
    ) {
        let mut opened = self.opened.lock().unwrap_or_else(|p| p.into_inner());
        let Some(opened) = open(&mut opened, module.path) else {
            return;
        };
        let Some(program) = opened.program.clone() else {
            return;
        };
        let bias = module.load_address.wrapping_sub(program.image_address);
        let address = pc.wrapping_sub(bias);
        if opened.variables.len() >= ADDRESSES_KEPT {
            opened.variables.clear();
        }
        let variables = match opened.variables.get(&address) {
            Some(variables) => variables.clone(),
            None => {
                let found = program.unit_at(address).and_then(|offset| {
                    let unit = opened.unit(&program, offset)?;
                    scopes::variables_at(&program, offset, &unit, address).map(Arc::new)
                });
                opened.variables.insert(address, found.clone());
                found
            }
        };
        let Some(variables) = variables else {
            return;
        };
        let Some(unit) = opened.unit(&program, variables.unit) else {
            return;
        };
        let dwarf = program.dwarf();
        if let Some(types) = Types::open(&program, &dwarf, &unit) {
            name(&types, &variables);
        }
    }
}

/// The file at `path` as last opened, opened again if it is another or has changed since.
fn open<'a>(opened: &'a mut Option<Opened>, path: &Path) -> Option<&'a mut Opened> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let current = opened
        .as_ref()
        .is_some_and(|o| o.path == path && o.modified == modified);
    if !current {
        *opened = Some(Opened {
            path: path.to_path_buf(),
            modified,
            program: Program::open(path).map(Arc::new),
            variables: HashMap::new(),
            unit: None,
        });
    }
    opened.as_mut()
}

impl Opened {
    /// The bytes of the unit at `offset`, kept for the next lookup, most often in the same unit.
    fn unit(&mut self, program: &Program, offset: DebugInfoOffset) -> Option<Arc<Vec<u8>>> {
        if let Some((kept, bytes)) = &self.unit
            && *kept == offset
        {
            return Some(bytes.clone());
        }
        let bytes = Arc::new(program.unit_bytes(offset)?);
        self.unit = Some((offset, bytes.clone()));
        Some(bytes)
    }
}

/// Names `node`, of type `ty`, and its members, as far as they are a struct's fields.
fn name_node(types: &Types<'_, '_>, ty: TypeAt, node: &mut VariableNode) {
    let Some(facts) = types.facts(ty) else {
        return;
    };
    if let Some(name) = facts.pointer_name
        && node
            .type_name
            .as_deref()
            .is_some_and(|t| t.trim_end().ends_with('*'))
    {
        node.type_name = Some(name);
    }
    let Some(shown) = facts.shown else {
        return;
    };
    for child in &mut node.children {
        if let Some(member) = types.member(shown, &child.name) {
            name_node(types, member, child);
        }
    }
}
