//! What rustc's DWARF says of a function's variables: which are in scope at an address, and
//! the types of their members, named as rustc names them (`&m::V`, `&mut m::V`, `*const m::V`).

use std::collections::HashMap;

use gimli::{AttributeValue, DebugInfoOffset, DebuggingInformationEntry, Unit, UnitOffset};

use super::program::{Program, Reader};

/// A type, by where its entry is in the unit of the function read: rustc refers to types
/// within a unit.
pub(super) type TypeAt = UnitOffset;

/// The variables in scope at one address: name → type, and the unit the types are in.
#[derive(Debug)]
pub(super) struct Variables {
    pub(super) unit: DebugInfoOffset,
    pub(super) types: HashMap<String, TypeAt>,
}

/// The variables of the function whose code holds `address` (the file's), with those of the
/// innermost lexical block taking a shadowed name; `None` outside the Rust units' code.
/// `unit` is the bytes of the unit at `unit_offset`, which holds the address.
pub(super) fn variables_at(
    program: &Program,
    unit_offset: DebugInfoOffset,
    unit: &[u8],
    address: u64,
) -> Option<Variables> {
    let dwarf = program.dwarf();
    let unit = program.unit(&dwarf, unit)?;
    if !Program::is_rust(&unit) {
        return None;
    }
    let mut tree = unit.entries_tree(None).ok()?;
    let root = tree.root().ok()?;
    let mut found = HashMap::new();
    let place = Place {
        program,
        dwarf: &dwarf,
        unit: &unit,
        address,
    };
    place.search(root, false, &mut found).ok()?;
    Some(Variables {
        unit: unit_offset,
        types: found,
    })
}

/// The unit being read, and the address looked for.
struct Place<'a, 'd> {
    program: &'a Program,
    dwarf: &'a gimli::Dwarf<Reader<'d>>,
    unit: &'a Unit<Reader<'d>>,
    address: u64,
}

impl Place<'_, '_> {
    /// Walks `node`'s children to the function holding the address, then into its blocks
    /// that hold it, collecting their variables in order, inner after outer. `inside`: `node`
    /// is that function or one of its blocks. Returns whether the function was found.
    fn search(
        &self,
        node: gimli::EntriesTreeNode<'_, '_, '_, Reader<'_>>,
        inside: bool,
        found: &mut HashMap<String, TypeAt>,
    ) -> Result<bool, gimli::Error> {
        let mut children = node.children();
        let mut blocks = Vec::new();
        while let Some(child) = children.next()? {
            let entry = child.entry();
            match entry.tag() {
                gimli::DW_TAG_subprogram if !inside && self.holds(entry)? => {
                    self.search(child, true, found)?;
                    return Ok(true);
                }
                // Functions nest in modules, and methods in their types' namespaces.
                gimli::DW_TAG_namespace
                | gimli::DW_TAG_structure_type
                | gimli::DW_TAG_union_type
                    if !inside =>
                {
                    let held = self.search(child, false, found)?;
                    if held {
                        return Ok(true);
                    }
                }
                gimli::DW_TAG_formal_parameter | gimli::DW_TAG_variable if inside => {
                    if let Some((name, ty)) = self.variable(entry)? {
                        found.insert(name, ty);
                    }
                }
                gimli::DW_TAG_lexical_block if inside && self.holds(entry)? => {
                    blocks.push(entry.offset());
                }
                _ => {}
            }
        }
        // A block's variables after all of its parent's, which they shadow.
        for block in blocks {
            let mut tree = self.unit.entries_tree(Some(block))?;
            self.search(tree.root()?, true, found)?;
        }
        Ok(false)
    }

    /// Whether `entry`'s code holds the address.
    fn holds(
        &self,
        entry: &DebuggingInformationEntry<'_, '_, Reader<'_>>,
    ) -> Result<bool, gimli::Error> {
        let mut ranges = self.dwarf.die_ranges(self.unit, entry)?;
        while let Some(range) = ranges.next()? {
            if (range.begin..range.end).contains(&self.address) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A variable's name and type, from its abstract origin where it has none of its own.
    fn variable(
        &self,
        entry: &DebuggingInformationEntry<'_, '_, Reader<'_>>,
    ) -> Result<Option<(String, TypeAt)>, gimli::Error> {
        let origin = match entry.attr_value(gimli::DW_AT_abstract_origin)? {
            Some(AttributeValue::UnitRef(offset)) => Some(self.unit.entry(offset)?),
            _ => None,
        };
        let attr = |at| -> Result<Option<AttributeValue<Reader<'_>>>, gimli::Error> {
            match entry.attr_value(at)? {
                Some(value) => Ok(Some(value)),
                None => match &origin {
                    Some(origin) => origin.attr_value(at),
                    None => Ok(None),
                },
            }
        };
        let (Some(name), Some(AttributeValue::UnitRef(ty))) =
            (attr(gimli::DW_AT_name)?, attr(gimli::DW_AT_type)?)
        else {
            return Ok(None);
        };
        Ok(self
            .program
            .string(self.dwarf, self.unit, name)
            .map(|name| (name, ty)))
    }
}

/// What one type entry says: rustc's name for a pointer (`&m::V`, `Box<..>`), where it is one,
/// and the type whose members a value of it shows (the pointee, for a pointer).
pub(super) struct TypeFacts {
    pub(super) pointer_name: Option<String>,
    pub(super) shown: Option<TypeAt>,
}

/// A unit opened to read its types.
pub(super) struct Types<'a, 'd> {
    program: &'a Program,
    dwarf: &'a gimli::Dwarf<Reader<'d>>,
    unit: Unit<Reader<'d>>,
}

impl<'a, 'd> Types<'a, 'd> {
    /// The unit whose bytes ([`Program::unit_bytes`]) are `unit`.
    pub(super) fn open(
        program: &'a Program,
        dwarf: &'a gimli::Dwarf<Reader<'d>>,
        unit: &'d [u8],
    ) -> Option<Self> {
        let unit = program.unit(dwarf, unit)?;
        Some(Types {
            program,
            dwarf,
            unit,
        })
    }

    fn name(&self, entry: &DebuggingInformationEntry<'_, '_, Reader<'_>>) -> Option<String> {
        let name = entry.attr_value(gimli::DW_AT_name).ok()??;
        self.program.string(self.dwarf, &self.unit, name)
    }

    /// What `ty` says (see [`TypeFacts`]).
    pub(super) fn facts(&self, ty: TypeAt) -> Option<TypeFacts> {
        let entry = self.unit.entry(ty).ok()?;
        match entry.tag() {
            gimli::DW_TAG_pointer_type | gimli::DW_TAG_reference_type => Some(TypeFacts {
                pointer_name: self.name(&entry),
                shown: match entry.attr_value(gimli::DW_AT_type).ok()? {
                    Some(AttributeValue::UnitRef(offset)) => Some(offset),
                    _ => None,
                },
            }),
            _ => Some(TypeFacts {
                pointer_name: None,
                shown: Some(ty),
            }),
        }
    }

    /// The type of `ty`'s member `name` (a struct's field; a tuple's `0` is rustc's `__0`).
    pub(super) fn member(&self, ty: TypeAt, name: &str) -> Option<TypeAt> {
        let mut tree = self.unit.entries_tree(Some(ty)).ok()?;
        let root = tree.root().ok()?;
        if !matches!(
            root.entry().tag(),
            gimli::DW_TAG_structure_type | gimli::DW_TAG_union_type
        ) {
            return None;
        }
        let tuple_name = name
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| format!("__{name}"));
        let mut children = root.children();
        while let Some(child) = children.next().ok()? {
            let entry = child.entry();
            if entry.tag() != gimli::DW_TAG_member {
                continue;
            }
            let Some(member_name) = self.name(entry) else {
                continue;
            };
            if member_name == name || tuple_name.as_deref() == Some(member_name.as_str()) {
                return match entry.attr_value(gimli::DW_AT_type).ok()? {
                    Some(AttributeValue::UnitRef(offset)) => Some(offset),
                    _ => None,
                };
            }
        }
        None
    }
}
