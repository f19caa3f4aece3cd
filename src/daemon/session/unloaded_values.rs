//! The parts of values an adapter left unloaded (`adapters::value_reading`: Delve's
//! `(*main.Account)(0xc0000a6228)` for a map's value below a local), read and put in their
//! place, so `locals`, a probe's locals and `print` show the members `print` of the nearer value
//! shows.
//!
//! Apart from the expansion in `variables/` because it evaluates: the parts of a whole listing
//! are read at once, each once, only where the adapter says it left some, and in the frame the
//! values belong to.

use std::collections::HashMap;

use super::Session;
use crate::adapters::value_reading::HeldValue;
use crate::daemon::variables::cap_value;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::ipc::protocol::VariableNode;

/// Parts read per listing; past these the adapter's text stays as it is.
const PARTS_READ: usize = 32;

impl Session {
    /// Puts the unloaded parts of `nodes`' values (their members' too) in place, read in the
    /// frame `frame_id`. A part whose reading fails keeps the adapter's text.
    pub(super) async fn load_unloaded(&self, nodes: &mut [VariableNode], frame_id: i64) {
        let reading = self.adapter().profile().value_reading;
        let mut parts = Vec::new();
        collect(nodes, None, &mut |node, expression| {
            let members: Vec<(&str, &str)> = node
                .children
                .iter()
                .map(|member| (member.name.as_str(), member.value.as_str()))
                .collect();
            let held = node.type_name.as_deref().and_then(|type_name| {
                (reading.held_value)(&HeldValue {
                    type_name,
                    text: &node.value,
                    members: &members,
                    expression,
                })
            });
            for part in held
                .into_iter()
                .chain((reading.unloaded_parts)(&node.value))
            {
                if parts.len() < PARTS_READ && !parts.contains(&part) {
                    parts.push(part);
                }
            }
        });
        if parts.is_empty() {
            return;
        }
        let pending: Vec<_> = parts
            .iter()
            .map(|part| {
                let arguments = EvaluateArguments {
                    context: reading.context,
                    ..EvaluateArguments::watch(part.expression.as_str(), Some(frame_id))
                };
                self.dap().send_typed::<Evaluate>(&arguments)
            })
            .collect();
        let mut loaded = HashMap::new();
        for (part, pending) in parts.iter().zip(pending) {
            match pending.response().await {
                Ok(answer) => {
                    let text = part.loaded_text(&answer.result).to_string();
                    loaded.insert(
                        part.text.clone(),
                        Loaded {
                            text,
                            holder: part.holder,
                        },
                    );
                }
                Err(e) => tracing::debug!(part = %part.text, error = %e, "an unloaded value stays"),
            }
        }
        replace(nodes, &loaded);
    }
}

/// A part's text once read.
struct Loaded {
    text: String,
    /// From [`UnloadedPart::holder`](crate::adapters::value_reading::UnloadedPart::holder).
    holder: bool,
}

/// Calls `each` on every node of `nodes` and their members, with the expression that names it
/// where one does: a top node's name (a local's, or `print`'s expression), and a field's
/// below it. An element's (`[0]`, a map's key) is not named.
fn collect(
    nodes: &[VariableNode],
    parent: Option<&str>,
    each: &mut impl FnMut(&VariableNode, Option<&str>),
) {
    for node in nodes {
        let expression = match parent {
            None => Some(node.name.clone()),
            Some(parent) if is_field_name(&node.name) => Some(format!("{parent}.{}", node.name)),
            Some(_) => None,
        };
        each(node, expression.as_deref());
        match expression {
            Some(expression) => collect(&node.children, Some(&expression), each),
            None => collect_unnamed(&node.children, each),
        }
    }
}

/// [`collect`] below a value no expression names.
fn collect_unnamed(nodes: &[VariableNode], each: &mut impl FnMut(&VariableNode, Option<&str>)) {
    for node in nodes {
        each(node, None);
        collect_unnamed(&node.children, each);
    }
}

fn is_field_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn replace(nodes: &mut [VariableNode], loaded: &HashMap<String, Loaded>) {
    for node in nodes {
        if let Some(held) = loaded.get(&node.value).filter(|held| held.holder) {
            // What it holds, read, is the value: its members were only how it holds it.
            node.value = held.text.clone();
            node.children.clear();
            node.expandable = false;
            node.omitted_children = 0;
            node.children_count = None;
            continue;
        }
        for (text, value) in loaded {
            if node.value.contains(text.as_str()) {
                node.value = node.value.replace(text.as_str(), &value.text);
            }
        }
        replace(&mut node.children, loaded);
    }
}

/// Cuts every value of `nodes` (members too) at `max` characters, saying how many were left out.
pub(super) fn cap_values(nodes: &mut [VariableNode], max: usize) {
    for node in nodes {
        node.value = cap_value(&node.value, max);
        cap_values(&mut node.children, max);
    }
}
