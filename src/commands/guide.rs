//! `guide`: the agents' guide, docs/agents.md, built into the binary so that the copy an agent
//! reads always matches the binary it runs (the MCP server sends the same text as its
//! `instructions`).

use serde_json::json;

use super::Outcome;

/// docs/agents.md, as written.
pub const TEXT: &str = include_str!("../../docs/agents.md");

/// The guide as a command's outcome: the text, and in the data the same text under `guide`.
pub fn outcome() -> Outcome {
    Outcome::new(json!({ "guide": TEXT }), TEXT)
}
