//! Expanding DAP's lazy variable trees to a bounded depth and breadth.
//!
//! A variable with children carries a `variablesReference`; its children cost one more request.
//! We expand at most `depth` levels, at most `max_children` children per level (asking the adapter
//! for just that many when it tells us the count, so a million-element array costs one small
//! request), and at most `max_nodes` in all, and record how many were left out so the user is told.

use std::future::Future;
use std::pin::Pin;

use crate::adapters::value_reading::ValueReading;
use crate::dap::types::{Scope, Variable};
use crate::dap::{DapClient, DapError};
use crate::ipc::protocol::VariableNode;

mod fetch;
mod text;

pub(in crate::daemon) use fetch::fetch_children;
pub use text::{cap_value, is_char_array_value, readable_value};
use text::{is_char_array_string, is_unreadable, not_readable};

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub depth: u32,
    pub max_children: u64,
    /// The characters of a value's text shown before the rest is cut, with its length said.
    pub max_value_chars: usize,
    pub max_nodes: usize,
}

/// A value's text in `locals`: a line's worth. A 4 KB string in every local of every probe hit
/// is what made a 3-hit probe print 36 KB; `locals --full` or `print` show all of it.
pub const LOCALS_VALUE_CHARS: usize = 200;

/// A value's text in `print` and `locals --full`: all of it, short of what could not cross the
/// IPC in one frame.
pub const FULL_VALUE_CHARS: usize = 1_000_000;

pub use crate::ipc::protocol::CHILDREN_SHOWN;

/// The values one command shows in all, unless `--children` asks for more than this of one.
const NODES_SHOWN: usize = 2000;

impl Limits {
    /// What `print` and `eval` show: the whole value, `depth` levels of children.
    pub fn with_depth(depth: u32) -> Limits {
        Limits {
            depth,
            max_children: CHILDREN_SHOWN,
            max_value_chars: FULL_VALUE_CHARS,
            max_nodes: NODES_SHOWN,
        }
    }

    /// These limits with `children` children of each value shown (`--children N`), and room
    /// for all of one value's.
    pub fn with_children(self, children: Option<u64>) -> Limits {
        match children {
            Some(n) => Limits {
                max_children: n,
                max_nodes: self.max_nodes.max(usize::try_from(n).unwrap_or(usize::MAX)),
                ..self
            },
            None => self,
        }
    }

    /// What `locals` shows: values cut at [`LOCALS_VALUE_CHARS`] unless `full`.
    pub fn for_locals(depth: u32, full: bool) -> Limits {
        Limits {
            max_value_chars: if full {
                FULL_VALUE_CHARS
            } else {
                LOCALS_VALUE_CHARS
            },
            ..Limits::with_depth(depth)
        }
    }
}

/// A variable list and how many of its entries were left out.
pub struct Expanded {
    pub nodes: Vec<VariableNode>,
    pub omitted: u64,
    /// Whether a value's methods were left out of its members (`print obj.method` reads one):
    /// not counted in `omitted`, since no `--children` shows them.
    pub methods: bool,
}

/// What [`expand`] lists the children of: a scope, or a value `print` evaluated.
pub struct Root<'a> {
    pub reference: i64,
    /// How many children the adapter says it has.
    pub known_count: Option<u64>,
    /// The value's type; `None` for a scope.
    pub type_name: Option<&'a str>,
    /// The value's name (the expression `print` was given); `None` for a scope. A value's
    /// children are its members: a child the adapter leaves unnamed is what it points at
    /// (`*d`), and a group of its methods is left out, where a scope's groups are listed.
    pub name: Option<&'a str>,
    /// The type names of members that are methods though the adapter lists them among the
    /// data ([`crate::adapters::Profile::method_types`]): left out of a value's members
    /// like a group of its methods.
    pub method_types: &'a [&'a str],
    /// How the adapter's values are shown ([`ValueReading::reword`],
    /// [`ValueReading::hidden_local`]).
    pub reading: ValueReading,
}

/// Fetches the children of `root` and expands them `limits.depth` levels further.
pub async fn expand(dap: &DapClient, root: Root<'_>, limits: Limits) -> Result<Expanded, DapError> {
    let mut budget = limits.max_nodes;
    expand_level(
        dap,
        Parent {
            reference: root.reference,
            known_count: root.known_count,
            pointer: is_pointer(root.type_name),
            name: root.name.map(str::to_string),
        },
        limits.depth,
        limits,
        Shown {
            method_types: root.method_types,
            reading: root.reading,
        },
        &mut budget,
    )
    .await
}

/// What the adapter says of how its values are shown, for every level.
#[derive(Clone, Copy)]
struct Shown<'a> {
    method_types: &'a [&'a str],
    reading: ValueReading,
}

/// The value whose children a level lists.
struct Parent {
    reference: i64,
    known_count: Option<u64>,
    /// A C or C++ pointer: GDB gives it one child, `value`, what it points at.
    pointer: bool,
    /// Its name, for a child the adapter leaves unnamed (`None` for a scope).
    name: Option<String>,
}

/// Whether a child is a group of others rather than a value: no value text and no type, only
/// children (debugpy's "function variables", "special variables" and "class variables").
fn is_group(v: &Variable) -> bool {
    v.value.is_empty()
        && v.type_name.as_deref().is_none_or(str::is_empty)
        && v.variables_reference > 0
}

/// Whether a member is a method by its type, one of `method_types`.
fn is_method(v: &Variable, method_types: &[&str]) -> bool {
    v.type_name
        .as_deref()
        .is_some_and(|t| method_types.contains(&t))
}

/// [`is_group`] for a node already built.
fn is_group_node(node: &VariableNode) -> bool {
    node.value.is_empty() && node.type_name.is_none() && node.expandable
}

/// A scope's variables with its groups' members in the groups' places: a local holding a
/// function (debugpy files those under "function variables") is a local like any other.
async fn ungroup(
    dap: &DapClient,
    variables: Vec<Variable>,
    total: u64,
    max: u64,
) -> Result<(Vec<Variable>, u64), DapError> {
    if !variables.iter().any(is_group) {
        return Ok((variables, total));
    }
    let mut total = total;
    let mut flat = Vec::with_capacity(variables.len());
    for v in variables {
        if is_group(&v) {
            let (members, count) =
                fetch_children(dap, v.variables_reference, known_child_count(&v), max).await?;
            total = total - 1 + count;
            flat.extend(members);
        } else {
            flat.push(v);
        }
    }
    flat.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((flat, total))
}

/// A child's name: an unnamed one is what its parent points at (Delve gives a pointer's target
/// an empty name), so it is called `*parent` as the language writes it.
fn child_name(name: &str, parent: Option<&str>) -> String {
    match parent {
        Some(parent) if name.is_empty() => format!("*{parent}"),
        _ => name.to_string(),
    }
}

/// Whether a value of this type is a C or C++ pointer (`struct account *`).
fn is_pointer(type_name: Option<&str>) -> bool {
    type_name.is_some_and(|t| t.trim_end().ends_with('*'))
}

/// The scopes `locals` shows: the frame's arguments and its locals, and the value a `finish` just
/// returned. Most adapters put all in one "Locals" scope; GDB gives the arguments and the return
/// value scopes of their own. Without either, the
/// first cheap scope stands in, but never the registers or the globals (GDB offers only those
/// for a frame without debug information, where `locals` has nothing to show).
pub fn locals_scopes(scopes: &[Scope]) -> Vec<&Scope> {
    let shown: Vec<&Scope> = scopes
        .iter()
        .filter(|s| scope_is(s, &["locals", "arguments", "returnValue"]))
        .collect();
    if !shown.is_empty() {
        return shown;
    }
    scopes
        .iter()
        .filter(|s| !scope_is(s, &["registers", "globals"]))
        .find(|s| !s.expensive)
        .into_iter()
        .collect()
}

/// Whether a scope is one of `kinds` (DAP presentation hints, plural): by its hint, or by a name
/// that starts with the kind in the singular ("Local", "Locals", "Registers").
fn scope_is(scope: &Scope, kinds: &[&str]) -> bool {
    let name = scope.name.to_ascii_lowercase();
    kinds.iter().any(|kind| {
        scope.presentation_hint.as_deref() == Some(kind)
            || name.starts_with(kind.trim_end_matches('s'))
    })
}

/// Builds a node for a value that has already been fetched (an `evaluate` result).
pub fn node_for(
    name: &str,
    value: &str,
    type_name: Option<String>,
    limits: Limits,
) -> VariableNode {
    VariableNode {
        name: name.to_string(),
        value: cap_value(
            &readable_value(value, type_name.as_deref()),
            limits.max_value_chars,
        ),
        type_name,
        children: Vec::new(),
        expandable: false,
        omitted_children: 0,
        methods_omitted: false,
        children_count: None,
        changed: false,
        old_value: None,
    }
}

fn known_child_count(v: &Variable) -> Option<u64> {
    child_count(v.named_variables, v.indexed_variables)
}

/// How many children the adapter says a value has (`None` when it does not say).
pub fn child_count(named: Option<u64>, indexed: Option<u64>) -> Option<u64> {
    match (named, indexed) {
        (None, None) => None,
        (named, indexed) => Some(named.unwrap_or(0).saturating_add(indexed.unwrap_or(0))),
    }
}

fn expand_level<'a>(
    dap: &'a DapClient,
    parent: Parent,
    depth: u32,
    limits: Limits,
    shown: Shown<'a>,
    budget: &'a mut usize,
) -> Pin<Box<dyn Future<Output = Result<Expanded, DapError>> + Send + 'a>> {
    Box::pin(async move {
        let mut methods = false;
        let (mut variables, mut total) = fetch_children(
            dap,
            parent.reference,
            parent.known_count,
            limits.max_children,
        )
        .await?;
        // GDB shows what a pointer points at as its one child, `value`, a struct with no value
        // text of its own: its members stand in its place, as lldb-dap gives them.
        if parent.pointer
            && total == 1
            && let [target] = variables.as_slice()
            && target.value.is_empty()
            && target.variables_reference > 0
        {
            let (reference, known) = (target.variables_reference, known_child_count(target));
            (variables, total) = fetch_children(dap, reference, known, limits.max_children).await?;
        }
        if parent.name.is_none() {
            (variables, total) = ungroup(dap, variables, total, limits.max_children).await?;
            let before = variables.len();
            variables.retain(|v| !(shown.reading.hidden_local)(&v.name));
            total = total.saturating_sub((before - variables.len()) as u64);
        } else {
            // An object's methods, grouped or not, are left out of the listing, and counted on
            // their own (`print obj.method` reads one).
            let before = variables.len();
            variables.retain(|v| !is_group(v) && !is_method(v, shown.method_types));
            let left_out = (before - variables.len()) as u64;
            methods = left_out > 0;
            total = total.saturating_sub(left_out);
        }
        let returned = variables.len() as u64;
        let keep = (returned.min(limits.max_children) as usize).min(*budget);
        *budget -= keep;
        let omitted = total.saturating_sub(keep as u64);

        let variables: Vec<Variable> = variables.into_iter().take(keep).collect();
        let mut nodes = Vec::with_capacity(variables.len());
        let mut to_expand = Vec::new();
        for (index, v) in variables.iter().enumerate() {
            let value = (shown.reading.reword)(&v.value, v.type_name.as_deref())
                .unwrap_or_else(|| readable_value(&v.value, v.type_name.as_deref()));
            // A character array read as a string is that string: its characters one per line
            // say nothing more.
            let expandable = v.variables_reference > 0 && !is_char_array_string(v);
            if expandable && depth > 0 && *budget > 0 {
                to_expand.push(index);
            }
            nodes.push(VariableNode {
                name: child_name(&v.name, parent.name.as_deref()),
                value: cap_value(&value, limits.max_value_chars),
                type_name: v.type_name.clone().filter(|t| !t.is_empty()),
                children: Vec::new(),
                expandable,
                omitted_children: 0,
                methods_omitted: false,
                children_count: if expandable {
                    known_child_count(v)
                } else {
                    None
                },
                changed: false,
                old_value: None,
            });
        }
        for index in to_expand {
            let v = &variables[index];
            if *budget == 0 {
                break;
            }
            let child = expand_level(
                dap,
                Parent {
                    reference: v.variables_reference,
                    known_count: known_child_count(v),
                    pointer: is_pointer(v.type_name.as_deref()),
                    name: Some(nodes[index].name.clone()),
                },
                depth - 1,
                limits,
                shown,
                budget,
            )
            .await;
            let node = &mut nodes[index];
            node.expandable = false;
            match child {
                Ok(child) if !child.nodes.is_empty() && child.nodes.iter().all(is_unreadable) => {
                    // A NULL or wild pointer's members, every one an error: one line says it.
                    node.value = not_readable(&node.value);
                    node.children_count = None;
                }
                Ok(child) if child.nodes.iter().all(is_group_node) && child.omitted == 0 => {
                    // Only groups (a Python function's "special variables"): nothing a reader
                    // looks for, so the value stays collapsed.
                    node.expandable = !child.nodes.is_empty();
                    node.children_count = Some(child.nodes.len() as u64).filter(|n| *n > 0);
                }
                Ok(child) => {
                    node.children_count = None;
                    node.children = child.nodes;
                    node.omitted_children = child.omitted;
                    node.methods_omitted = child.methods;
                }
                // One value whose members cannot be read (GDB, on a NULL pointer: "Cannot
                // access memory at address 0x0") leaves the rest of the listing whole.
                Err(DapError::Adapter { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Expanded {
            nodes,
            omitted,
            methods,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(name: &str, hint: Option<&str>, expensive: bool) -> Scope {
        Scope {
            name: name.to_string(),
            variables_reference: 1,
            expensive,
            presentation_hint: hint.map(str::to_string),
            named_variables: None,
            indexed_variables: None,
        }
    }

    fn names(scopes: Vec<&Scope>) -> Vec<&str> {
        scopes.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn locals_shows_arguments_and_locals_scopes() {
        let gdb = [
            scope("Arguments", Some("arguments"), false),
            scope("Locals", Some("locals"), false),
            scope("Registers", Some("registers"), false),
            scope("Globals", Some("globals"), false),
        ];
        assert_eq!(names(locals_scopes(&gdb)), ["Arguments", "Locals"]);
        let lldb = [scope("Locals", None, false), scope("Globals", None, false)];
        assert_eq!(names(locals_scopes(&lldb)), ["Locals"]);
        let other = [scope("Heap", None, true), scope("Frame", None, false)];
        assert_eq!(names(locals_scopes(&other)), ["Frame"]);
        let no_debug_info = [
            scope("Registers", Some("registers"), false),
            scope("Globals", Some("globals"), false),
        ];
        assert!(locals_scopes(&no_debug_info).is_empty());
        assert!(locals_scopes(&[]).is_empty());
    }

    #[test]
    fn an_unnamed_child_is_what_its_parent_points_at() {
        assert_eq!(child_name("", Some("req")), "*req");
        assert_eq!(child_name("Method", Some("req")), "Method");
        assert_eq!(child_name("", None), "");
    }
}
