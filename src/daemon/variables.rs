//! Expanding DAP's lazy variable trees to a bounded depth and breadth.
//!
//! A variable with children carries a `variablesReference`; its children cost one more request.
//! We expand at most `depth` levels, at most `max_children` children per level (asking the adapter
//! for just that many when it tells us the count, so a million-element array costs one small
//! request), and at most `max_nodes` in all, and record how many were left out so the user is told.

use std::future::Future;
use std::pin::Pin;

use crate::dap::requests::{Variables, VariablesArguments};
use crate::dap::types::{Scope, Variable};
use crate::dap::{DapClient, DapError};
use crate::ipc::protocol::VariableNode;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub depth: u32,
    pub max_children: u64,
    pub max_value_bytes: usize,
    pub max_nodes: usize,
}

impl Limits {
    pub fn with_depth(depth: u32) -> Limits {
        Limits {
            depth,
            max_children: 32,
            max_value_bytes: 4096,
            max_nodes: 2000,
        }
    }
}

/// A variable list and how many of its entries were left out.
pub struct Expanded {
    pub nodes: Vec<VariableNode>,
    pub omitted: u64,
}

/// Fetches the children of `reference` (a value of type `type_name`, or a scope with none) and
/// expands them `limits.depth` levels further.
pub async fn expand(
    dap: &DapClient,
    reference: i64,
    known_count: Option<u64>,
    type_name: Option<&str>,
    limits: Limits,
) -> Result<Expanded, DapError> {
    let mut budget = limits.max_nodes;
    expand_level(
        dap,
        Parent {
            reference,
            known_count,
            pointer: is_pointer(type_name),
        },
        limits.depth,
        limits,
        &mut budget,
    )
    .await
}

/// The value whose children a level lists.
struct Parent {
    reference: i64,
    known_count: Option<u64>,
    /// A C or C++ pointer: GDB gives it one child, `value`, what it points at.
    pointer: bool,
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
        value: cap_value(value, limits.max_value_bytes),
        type_name,
        children: Vec::new(),
        expandable: false,
        omitted_children: 0,
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
    budget: &'a mut usize,
) -> Pin<Box<dyn Future<Output = Result<Expanded, DapError>> + Send + 'a>> {
    Box::pin(async move {
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
        let returned = variables.len() as u64;
        let keep = (returned.min(limits.max_children) as usize).min(*budget);
        *budget -= keep;
        let omitted = total - keep as u64;

        let variables: Vec<Variable> = variables.into_iter().take(keep).collect();
        let mut nodes = Vec::with_capacity(variables.len());
        let mut to_expand = Vec::new();
        for (index, v) in variables.iter().enumerate() {
            let expandable = v.variables_reference > 0;
            if expandable && depth > 0 && *budget > 0 {
                to_expand.push(index);
            }
            nodes.push(VariableNode {
                name: v.name.clone(),
                value: cap_value(&v.value, limits.max_value_bytes),
                type_name: v.type_name.clone().filter(|t| !t.is_empty()),
                children: Vec::new(),
                expandable,
                omitted_children: 0,
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
                },
                depth - 1,
                limits,
                budget,
            )
            .await;
            let node = &mut nodes[index];
            node.expandable = false;
            match child {
                Ok(child) => {
                    node.children = child.nodes;
                    node.omitted_children = child.omitted;
                }
                // One value whose members cannot be read (GDB, on a NULL pointer: "Cannot
                // access memory at address 0x0") leaves the rest of the listing whole.
                Err(DapError::Adapter { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Expanded { nodes, omitted })
    })
}

async fn children_page(
    dap: &DapClient,
    reference: i64,
    page: Option<(u64, u64)>,
) -> Result<Vec<Variable>, DapError> {
    let arguments = VariablesArguments {
        variables_reference: reference,
        start: page.map(|(start, _)| start),
        count: page.map(|(_, count)| count),
    };
    Ok(dap.request_typed::<Variables>(&arguments).await?.variables)
}

/// Fetches at most about `max` children and says how many there are in all.
///
/// When the adapter gave no count (lldb-dap's `evaluate` answers, for one), asking for everything
/// could mean a million children; so we ask for one page, and if it is full, find the count by
/// probing single indices (a doubling, then a bisection: some forty one-child requests at most).
async fn fetch_children(
    dap: &DapClient,
    reference: i64,
    known: Option<u64>,
    max: u64,
) -> Result<(Vec<Variable>, u64), DapError> {
    if let Some(total) = known {
        let page = (total > max).then_some((0, max));
        let children = children_page(dap, reference, page).await?;
        let returned = children.len() as u64;
        return Ok((children, total.max(returned)));
    }
    let children = children_page(dap, reference, Some((0, max + 1))).await?;
    let returned = children.len() as u64;
    if returned != max + 1 {
        // Fewer: that is all of them. More: the adapter ignores paging and sent all of them.
        return Ok((children, returned));
    }
    let total = count_children(dap, reference, max).await;
    Ok((children, total))
}

/// The number of children, given that index `present` exists.
async fn count_children(dap: &DapClient, reference: i64, present: u64) -> u64 {
    let exists = |index: u64| async move {
        children_page(dap, reference, Some((index, 1)))
            .await
            .is_ok_and(|c| !c.is_empty())
    };
    let mut low = present; // known to exist
    let mut high = present.saturating_mul(2).max(1); // to be tested
    let mut probes = 0;
    while probes < 40 && exists(high).await {
        low = high;
        high = high.saturating_mul(2);
        probes += 1;
    }
    // Children exist up to `low`; `high` is past the end (or the probe budget ran out).
    while probes < 80 && high - low > 1 {
        let mid = low + (high - low) / 2;
        if exists(mid).await {
            low = mid;
        } else {
            high = mid;
        }
        probes += 1;
    }
    low + 1
}

/// Shortens a value longer than `max` bytes, saying how much was cut.
pub fn cap_value(value: &str, max: usize) -> String {
    if value.len() <= max {
        return value.to_string();
    }
    let mut cut = max;
    while !value.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} more bytes)", &value[..cut], value.len() - cut)
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
    fn long_values_are_capped_with_a_note() {
        assert_eq!(cap_value("short", 10), "short");
        let capped = cap_value(&"x".repeat(100), 10);
        assert_eq!(capped, format!("{}… (90 more bytes)", "x".repeat(10)));
        let capped = cap_value("ééééé", 3);
        assert!(capped.starts_with('é'));
    }
}
