//! How an adapter's values are read whole and shown: the `evaluate` context that gives a value's
//! whole text, the parts of a text it left unloaded with how to read them, the text it writes
//! in its own internals' words where the language has words of its own, and the locals that are
//! no variables of the program.
//!
//! An adapter may shorten a value's text in the usual contexts (Delve cuts a compound value's at
//! 256 bytes, in the middle of a member, but for a value to copy). And it may load a variable's
//! members only to a nesting limit and write what lies past it as an address (Delve:
//! `*(*main.Account)(0xc0000a6228)` for a map's value three levels below a local), where `print`
//! of the nearer value shows the members. Each such part is read with an expression of its own
//! and put in its place, so `locals` shows what `print` does.

use crate::dap::requests::EvaluateContext;

/// How one adapter's values are read whole.
#[derive(Debug, Clone, Copy)]
pub struct ValueReading {
    /// The context of `print`'s `evaluate`: `watch`, unless the adapter shortens values there.
    pub context: EvaluateContext,
    /// The parts of a value's text the adapter left unloaded.
    pub unloaded_parts: fn(&str) -> Vec<UnloadedPart>,
    /// A value's text (of the type given) in the language's words, where the adapter's differ.
    pub reword: fn(&str, Option<&str>) -> Option<String>,
    /// Whether a frame's variable of this name is the adapter's, not the program's, and is
    /// left out of `locals` (Delve's `~r0` result slots, garbage until the function returns).
    pub hidden_local: fn(&str) -> bool,
}

impl Default for ValueReading {
    fn default() -> ValueReading {
        ValueReading {
            context: EvaluateContext::Watch,
            unloaded_parts: |_| Vec::new(),
            reword: |_, _| None,
            hidden_local: |_| false,
        }
    }
}

/// One unloaded part of a value's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnloadedPart {
    /// The text the adapter wrote for it.
    pub text: String,
    /// The expression that reads it.
    pub expression: String,
    /// What begins the answer and is left out in its place (the type, which the text around it
    /// already says): `main.Account ` of `main.Account {ID: 1}`.
    pub answer_prefix: String,
}

impl UnloadedPart {
    /// The text that takes the part's place, from the answer to its expression.
    pub fn loaded_text<'a>(&self, answer: &'a str) -> &'a str {
        answer.strip_prefix(&self.answer_prefix).unwrap_or(answer)
    }
}
