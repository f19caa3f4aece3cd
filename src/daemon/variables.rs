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

impl Limits {
    /// What `print` and `eval` show: the whole value, `depth` levels of children.
    pub fn with_depth(depth: u32) -> Limits {
        Limits {
            depth,
            max_children: 32,
            max_value_chars: FULL_VALUE_CHARS,
            max_nodes: 2000,
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
            name: None,
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

/// Whether a value's text is an adapter's "could not read this" (lldb: `<error: parent is
/// NULL>`, `<error: read memory from 0x… failed>`; or one already collapsed below).
fn is_unreadable(node: &VariableNode) -> bool {
    let value = node.value.trim();
    node.children.is_empty() && (value.starts_with("<error:") || value.starts_with("<not readable"))
}

/// The one line a value with no readable member shows: `<not readable: 0x0>` for a pointer (its
/// address short), `<not readable>` else.
fn not_readable(value: &str) -> String {
    let address = value
        .split_whitespace()
        .next()
        .and_then(|word| word.strip_prefix("0x"))
        .and_then(|hex| u64::from_str_radix(hex, 16).ok());
    match address {
        Some(address) => format!("<not readable: {address:#x}>"),
        None => "<not readable>".to_string(),
    }
}

/// Whether `type_name` is a C character array (`char[1034]`, `unsigned char [8]`).
fn is_char_array(type_name: Option<&str>) -> bool {
    type_name.is_some_and(|t| {
        let t = t.trim();
        let Some((element, rest)) = t.split_once('[') else {
            return false;
        };
        rest.ends_with(']')
            && matches!(
                element.trim(),
                "char" | "signed char" | "unsigned char" | "const char"
            )
    })
}

fn is_char_array_string(v: &Variable) -> bool {
    is_char_array_value(&v.value, v.type_name.as_deref())
}

/// Whether a value is a character array the adapter read as a string: that string is all it
/// shows, its characters one per line say nothing more.
pub fn is_char_array_value(value: &str, type_name: Option<&str>) -> bool {
    is_char_array(type_name) && value.trim_start().starts_with('"')
}

/// A value as a reader wants it: a character array's string ends at its terminating NUL (the
/// adapters print the whole buffer, stale bytes and all: lldb `"/tmp/x\0\0\U00000002…"`, GDB
/// `"/tmp/x", '\000' <repeats 1019 times>`).
pub fn readable_value(value: &str, type_name: Option<&str>) -> String {
    if !is_char_array(type_name) {
        return value.to_string();
    }
    c_string_prefix(value).unwrap_or_else(|| value.to_string())
}

/// The first quoted string of `value`, up to a NUL escape (`\0`, `\000`) or its closing
/// quote, when what follows it is only padding; `None` when it is not such a string.
fn c_string_prefix(value: &str) -> Option<String> {
    let body = value.trim_start().strip_prefix('"')?;
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                let rest = body[at + 1..].trim_start();
                let padding =
                    rest.is_empty() || rest == "..." || rest.starts_with(", '\\000' <repeats");
                return padding.then(|| format!("\"{}\"", &body[..at]));
            }
            '\\' => {
                let mut octal = String::new();
                while let Some((_, digit)) = chars.peek().copied().filter(|(_, d)| d.is_digit(8)) {
                    if octal.len() == 3 {
                        break;
                    }
                    octal.push(digit);
                    chars.next();
                }
                if octal.is_empty() {
                    chars.next();
                } else if u32::from_str_radix(&octal, 8) == Ok(0) {
                    return Some(format!("\"{}\"", &body[..at]));
                }
            }
            _ => {}
        }
    }
    None
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
        children_count: None,
        changed: false,
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
        if parent.name.is_none() {
            (variables, total) = ungroup(dap, variables, total, limits.max_children).await?;
        } else {
            // A group of an object's members that are not data (its methods) is left out of the
            // listing, and counted with what else was left out: `print obj` at a greater depth
            // shows it.
            variables.retain(|v| !is_group(v));
        }
        let returned = variables.len() as u64;
        let keep = (returned.min(limits.max_children) as usize).min(*budget);
        *budget -= keep;
        let omitted = total - keep as u64;

        let variables: Vec<Variable> = variables.into_iter().take(keep).collect();
        let mut nodes = Vec::with_capacity(variables.len());
        let mut to_expand = Vec::new();
        for (index, v) in variables.iter().enumerate() {
            let value = readable_value(&v.value, v.type_name.as_deref());
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
                children_count: if expandable {
                    known_child_count(v)
                } else {
                    None
                },
                changed: false,
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

/// Shortens a value longer than `max` characters, saying how many were cut.
pub fn cap_value(value: &str, max: usize) -> String {
    match value.char_indices().nth(max) {
        None => value.to_string(),
        Some((cut, _)) => {
            let left_out = value[cut..].chars().count();
            format!("{}… ({left_out} more characters)", &value[..cut])
        }
    }
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
        assert_eq!(cap_value(&"x".repeat(10), 10), "x".repeat(10));
        let capped = cap_value(&"x".repeat(100), 10);
        assert_eq!(capped, format!("{}… (90 more characters)", "x".repeat(10)));
        assert_eq!(cap_value("ééééé", 3), "ééé… (2 more characters)");
    }

    #[test]
    fn a_char_array_reads_as_its_string_up_to_the_nul() {
        let lldb = r#""/tmp/some/path\0\0\U00000002\0@\v\xfc"..."#;
        let array = Some("char[1034]");
        assert_eq!(readable_value(lldb, array), r#""/tmp/some/path""#);
        let gdb = r#""/tmp/x", '\000' <repeats 1019 times>"#;
        assert_eq!(readable_value(gdb, Some("char [1024]")), r#""/tmp/x""#);
        assert_eq!(readable_value(r#""full""#, array), r#""full""#);
        // Escapes that are not NUL stay, and so does a string with more after it.
        assert_eq!(
            readable_value(r#""a\"b\n\012c\0z""#, array),
            r#""a\"b\n\012c""#
        );
        let runs = r#""ab", 'x' <repeats 20 times>, "cd""#;
        assert_eq!(readable_value(runs, array), runs);
        // Only character arrays: a `char *` is the adapter's as it is.
        assert_eq!(readable_value(lldb, Some("char *")), lldb);
        assert!(is_char_array(Some("unsigned char [8]")));
        assert!(!is_char_array(Some("int[4]")));
    }

    #[test]
    fn unreadable_members_collapse_into_one_line() {
        assert_eq!(not_readable("0x0000000000000000"), "<not readable: 0x0>");
        assert_eq!(
            not_readable("0x00007ffff7e1b6a0 {...}"),
            "<not readable: 0x7ffff7e1b6a0>"
        );
        assert_eq!(not_readable("node @ 0x10"), "<not readable>");
        let node = |value: &str| VariableNode {
            name: "m".into(),
            value: value.into(),
            type_name: None,
            children: Vec::new(),
            expandable: false,
            omitted_children: 0,
            children_count: None,
            changed: false,
        };
        assert!(is_unreadable(&node("<error: parent is NULL>")));
        assert!(is_unreadable(&node(
            "<error: read memory from 0x10 failed (0 of 4 bytes read)>"
        )));
        assert!(!is_unreadable(&node("3")));
    }

    #[test]
    fn an_unnamed_child_is_what_its_parent_points_at() {
        assert_eq!(child_name("", Some("req")), "*req");
        assert_eq!(child_name("Method", Some("req")), "Method");
        assert_eq!(child_name("", None), "");
    }
}
