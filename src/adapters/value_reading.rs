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

use std::borrow::Cow;

use crate::dap::requests::EvaluateContext;

/// How one adapter's values are read whole.
#[derive(Debug, Clone, Copy)]
pub struct ValueReading {
    /// The context of `print`'s `evaluate`: `watch`, unless the adapter shortens values there.
    pub context: EvaluateContext,
    /// The context of a logpoint's `{expression}`: `watch`, unless the adapter writes a value
    /// as text there as the adapters that print logpoints themselves do (a string unquoted).
    pub logpoint_context: EvaluateContext,
    /// The parts of a value's text the adapter left unloaded.
    pub unloaded_parts: fn(&str) -> Vec<UnloadedPart>,
    /// A value that holds another, read as what it holds: Go's `reflect.Value`, whose `typ_`,
    /// `ptr` and `flag` members say where and what, where its text (cut in a listing) may not.
    pub held_value: fn(&HeldValue) -> Option<UnloadedPart>,
    /// A value's text (of the type given) in the language's words, where the adapter's differ.
    pub reword: fn(&str, Option<&str>) -> Option<String>,
    /// Whether a frame's variable of this name is the adapter's, not the program's, and is
    /// left out of `locals` (Delve's `~r0` result slots, garbage until the function returns).
    pub hidden_local: fn(&str) -> bool,
}

impl ValueReading {
    /// An adapter's with no quirk of this kind.
    pub const DEFAULT: ValueReading = ValueReading {
        context: EvaluateContext::Watch,
        logpoint_context: EvaluateContext::Watch,
        unloaded_parts: |_| Vec::new(),
        held_value: |_| None,
        reword: |_, _| None,
        hidden_local: |_| false,
    };
}

/// A value as a listing or `print` has it, for [`ValueReading::held_value`].
#[derive(Debug)]
pub struct HeldValue<'a> {
    pub type_name: &'a str,
    pub text: &'a str,
    /// Its members' names and texts.
    pub members: &'a [(&'a str, &'a str)],
    /// The expression that names it, where one does: a local's name, `print`'s expression, a
    /// field of either.
    pub expression: Option<&'a str>,
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
    /// The answer is `WRAPPER(T) V`, a value read as an interface that holds it, shown as `T V`:
    /// Delve's `interface {}(main.Point) {X: 1}`.
    pub answer_wrapper: Option<&'static str>,
    /// The part is a value that holds another (a `reflect.Value`): read, a value that was only
    /// this part shows what it holds, without its own members (its representation's).
    pub holder: bool,
}

impl UnloadedPart {
    /// The text that takes the part's place, from the answer to its expression.
    pub fn loaded_text<'a>(&self, answer: &'a str) -> Cow<'a, str> {
        if let Some(unwrapped) = self.answer_wrapper.and_then(|w| unwrap(answer, w)) {
            return Cow::Owned(unwrapped);
        }
        Cow::Borrowed(answer.strip_prefix(&self.answer_prefix).unwrap_or(answer))
    }
}

/// `T V` of `WRAPPER(T) V`, where `T` may hold parentheses of its own.
fn unwrap(answer: &str, wrapper: &str) -> Option<String> {
    let inner = answer.strip_prefix(wrapper)?.strip_prefix('(')?;
    let mut depth = 1usize;
    for (at, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let rest = inner[at + 1..].trim_start();
                    return Some(format!("{} {rest}", &inner[..at]).trim_end().to_string());
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_through_an_interface_names_the_type_it_holds() {
        let part = UnloadedPart {
            text: String::new(),
            expression: String::new(),
            answer_prefix: String::new(),
            answer_wrapper: Some("interface {}"),
            holder: true,
        };
        let answer = "interface {}(main.Point) {X: 1, Y: 2}";
        assert_eq!(part.loaded_text(answer), "main.Point {X: 1, Y: 2}");
        let nested = "interface {}(func(int) (string, error)) main.f";
        assert_eq!(part.loaded_text(nested), "func(int) (string, error) main.f");
        assert_eq!(part.loaded_text("7"), "7");
    }
}
