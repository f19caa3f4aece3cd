//! Logpoints: a breakpoint that logs a message (`{expr}` parts interpolated) instead of stopping.
//!
//! Adapters with `supportsLogPoints` print the message themselves; the registry marks it so the
//! session can tell it from the adapter's other output. For the others the session emulates the
//! logpoint: the adapter stops as at any breakpoint, the session evaluates the message in the top
//! frame, records the line and continues, and no client ever sees that stop. Either way the user
//! reads the same line in `debugger output`.

use std::sync::Arc;

use super::output::OutputBuffer;
use super::session::{Shared, clean_evaluate_error};
use crate::adapters::console_answer;
use crate::dap::DapClient;
use crate::dap::requests::{
    Continue, Evaluate, EvaluateArguments, EvaluateContext, StackTrace, StackTraceArguments,
    ThreadArguments,
};

/// The stream logpoint lines are written as, so they never splice into a program's line.
const LOG_STREAM: &str = "log";

/// A stop at logpoints the session emulates.
pub struct Hit {
    pub thread_id: i64,
    /// Our id and the message of each logpoint hit.
    pub messages: Vec<(u32, String)>,
    /// Let the program run on once logged; not when the stop ends the user's own step.
    pub resume: bool,
}

/// Writes one logpoint line to the program's output, marked as the logpoint's.
pub fn record(output: &OutputBuffer, id: u32, message: &str) {
    output.push_stream(
        LOG_STREAM,
        format!("[logpoint {id}] {}\n", tidy_errors(message)),
    );
}

/// Shortens the expression errors an adapter put in a message (lldb-dap writes its compiler
/// diagnostic, caret diagram and all, as `<error: ...>`) to one line each.
fn tidy_errors(message: &str) -> String {
    const OPEN: &str = "<error: ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let inner = &rest[at + OPEN.len()..];
        // The diagnostic ends at a '>' that starts a line, or at the first '>' of a short one.
        let end = inner
            .find("\n>")
            .map(|e| (e, e + 2))
            .or_else(|| inner.find('>').map(|e| (e, e + 1)));
        let Some((text_end, next)) = end else {
            out.push_str(&rest[at..]);
            return out;
        };
        out.push_str(&format!(
            "<error: {}>",
            clean_evaluate_error(&inner[..text_end])
        ));
        rest = &inner[next..];
    }
    out.push_str(rest);
    out
}

/// Evaluates and records each message of `hit`, then lets the program run on (unless the stop
/// is the user's).
pub(super) async fn emulate(dap: DapClient, shared: Arc<Shared>, hit: Hit) {
    let frame_id = top_frame(&dap, hit.thread_id).await;
    let context = shared.logpoint_context();
    for (id, message) in &hit.messages {
        let mut line = String::new();
        for part in parts(message) {
            match part {
                Part::Text(text) => line.push_str(text),
                Part::Expression(expression) => {
                    line.push_str(&evaluate(&dap, frame_id, context, expression).await)
                }
            }
        }
        record(shared.output(), *id, &line);
    }
    if !hit.resume {
        return;
    }
    if let Err(e) = dap
        .request_typed::<Continue>(&ThreadArguments {
            thread_id: hit.thread_id,
        })
        .await
    {
        // The program may have ended meanwhile; anything else leaves it stopped unseen.
        tracing::warn!("continuing after a logpoint failed: {e}");
        shared.logpoint_stuck(hit.thread_id, &e.to_string());
    }
}

async fn top_frame(dap: &DapClient, thread_id: i64) -> Option<i64> {
    let arguments = StackTraceArguments {
        thread_id,
        start_frame: 0,
        levels: 1,
    };
    let body = dap.request_typed::<StackTrace>(&arguments).await.ok()?;
    body.stack_frames.first().map(|frame| frame.id)
}

/// The value of one `{expression}`, or its error in angle brackets: a logpoint never fails.
async fn evaluate(
    dap: &DapClient,
    frame_id: Option<i64>,
    context: EvaluateContext,
    expression: &str,
) -> String {
    let arguments = EvaluateArguments {
        context,
        ..EvaluateArguments::watch(expression, frame_id)
    };
    let answer = dap.request_typed::<Evaluate>(&arguments).await;
    // Read as the console's answers are: a part is text, and an answer without any is empty.
    match console_answer(answer) {
        Ok(text) => text,
        Err(e) => format!("<error: {}>", clean_evaluate_error(&e.to_string())),
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Part<'a> {
    Text(&'a str),
    Expression(&'a str),
}

/// Splits a message into text and `{expression}` parts. Braces nest inside an expression (a
/// dict or block literal); an unclosed `{` is text.
fn parts(message: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut text_start = 0;
    let mut depth = 0usize;
    let mut open_at = 0;
    for (at, c) in message.char_indices() {
        match c {
            '{' => {
                if depth == 0 {
                    if text_start < at {
                        parts.push(Part::Text(&message[text_start..at]));
                    }
                    open_at = at;
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let expression = message[open_at + 1..at].trim();
                    if expression.is_empty() {
                        parts.push(Part::Text(&message[open_at..=at]));
                    } else {
                        parts.push(Part::Expression(expression));
                    }
                    text_start = at + 1;
                }
            }
            _ => {}
        }
    }
    let rest = if depth > 0 { open_at } else { text_start };
    if rest < message.len() {
        parts.push(Part::Text(&message[rest..]));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::Part::{Expression, Text};
    use super::*;

    #[test]
    fn lldb_diagnostics_in_a_message_become_one_line() {
        let native = "x=<error: error: <user expression 1>:1:1: use of undeclared identifier 'nosuch'\n    1 | nosuch\n      | ^\n> amount=3";
        assert_eq!(
            tidy_errors(native),
            "x=<error: use of undeclared identifier 'nosuch'> amount=3"
        );
        assert_eq!(tidy_errors("plain i=3"), "plain i=3");
        assert_eq!(
            tidy_errors("<error: short> and <error: two>"),
            "<error: short> and <error: two>"
        );
    }

    #[test]
    fn messages_split_into_text_and_expressions() {
        assert_eq!(
            parts("i={i} total={total}"),
            vec![
                Text("i="),
                Expression("i"),
                Text(" total="),
                Expression("total")
            ]
        );
        assert_eq!(parts("{x}"), vec![Expression("x")]);
        assert_eq!(parts("no braces"), vec![Text("no braces")]);
    }

    #[test]
    fn nested_braces_stay_in_the_expression() {
        assert_eq!(
            parts("d={ {'a': 1}['a'] }!"),
            vec![Text("d="), Expression("{'a': 1}['a']"), Text("!")]
        );
    }

    #[test]
    fn unclosed_and_empty_braces_are_text() {
        assert_eq!(parts("a {b"), vec![Text("a "), Text("{b")]);
        assert_eq!(
            parts("set {} x"),
            vec![Text("set "), Text("{}"), Text(" x")]
        );
    }
}
