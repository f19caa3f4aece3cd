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
use crate::daemon::variables::cap_value;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::ipc::protocol::VariableNode;

/// Parts read per listing; past these the adapter's text stays as it is.
const PARTS_READ: usize = 32;

impl Session {
    /// Puts the unloaded parts of `nodes`' values (their members' too) in place, read in the
    /// frame `frame_id`. A part whose reading fails keeps the adapter's text.
    pub(super) async fn load_unloaded(&self, nodes: &mut [VariableNode], frame_id: i64) {
        let mut parts = Vec::new();
        collect(nodes, &mut |value| {
            for part in (self.adapter.value_reading().unloaded_parts)(value) {
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
                    context: self.adapter.value_reading().context,
                    ..EvaluateArguments::watch(part.expression.as_str(), Some(frame_id))
                };
                self.dap.send_typed::<Evaluate>(&arguments)
            })
            .collect();
        let mut loaded = HashMap::new();
        for (part, pending) in parts.iter().zip(pending) {
            match pending.response().await {
                Ok(answer) => {
                    loaded.insert(
                        part.text.clone(),
                        part.loaded_text(&answer.result).to_string(),
                    );
                }
                Err(e) => tracing::debug!(part = %part.text, error = %e, "an unloaded value stays"),
            }
        }
        replace(nodes, &loaded);
    }
}

/// Calls `each` on every value of `nodes` and their members.
fn collect(nodes: &[VariableNode], each: &mut impl FnMut(&str)) {
    for node in nodes {
        each(&node.value);
        collect(&node.children, each);
    }
}

fn replace(nodes: &mut [VariableNode], loaded: &HashMap<String, String>) {
    for node in nodes {
        for (text, value) in loaded {
            if node.value.contains(text.as_str()) {
                node.value = node.value.replace(text.as_str(), value);
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
