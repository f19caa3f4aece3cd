//! Delve's words for a breakpoint condition that fails. It parses a condition as Go when the
//! breakpoint is set, and refuses one that does not parse with go/parser's message alone
//! (`1:5: expected operand, found 'EOF'`). A condition that parses but cannot be evaluated (an
//! unknown name, a nil pointer) stops the program, as a "runtime error" exception whose text is
//! the evaluation's error, with no breakpoint named.

use crate::adapters::ConditionHandling;
use crate::dap::types::{Breakpoint, StoppedEventBody};

/// What Delve's error for a condition it could not evaluate starts with.
const EVALUATION_ERROR: &str = "error evaluating expression: ";
/// Delve's error when conditions failed on two threads at once.
const SEVERAL_FAILED: &str = "multiple errors evaluating conditions";

pub(super) const HANDLING: ConditionHandling = ConditionHandling {
    failure_in_stop,
    refusal,
    ..ConditionHandling::DEFAULT
};

fn failure_in_stop(stop: &StoppedEventBody) -> Option<String> {
    if stop.reason != "exception" || stop.description.as_deref() != Some("runtime error") {
        return None;
    }
    let text = stop.text.as_deref()?;
    match text.strip_prefix(EVALUATION_ERROR) {
        Some(error) => Some(error.to_string()),
        None => (text == SEVERAL_FAILED).then(|| text.to_string()),
    }
}

/// A go/parser error: `LINE:COLUMN: message`, positions in the condition's text.
fn refusal(answer: &Breakpoint) -> Option<String> {
    let message = answer.message.as_deref().filter(|_| !answer.verified)?;
    let mut parts = message.splitn(3, ':');
    let is_number = |part: Option<&str>| {
        part.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    (is_number(parts.next()) && is_number(parts.next()) && parts.next().is_some())
        .then(|| message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(reason: &str, description: Option<&str>, text: Option<&str>) -> StoppedEventBody {
        serde_json::from_value(serde_json::json!({
            "reason": reason, "description": description, "text": text, "threadId": 1
        }))
        .expect("a stopped event")
    }

    #[test]
    fn a_condition_that_could_not_be_evaluated_is_told_from_other_runtime_errors() {
        let failed = stop(
            "exception",
            Some("runtime error"),
            Some("error evaluating expression: could not find symbol value for nosuch"),
        );
        assert_eq!(
            failure_in_stop(&failed).as_deref(),
            Some("could not find symbol value for nosuch")
        );
        let panic = stop(
            "exception",
            Some("panic"),
            Some("runtime error: index out of range"),
        );
        assert_eq!(failure_in_stop(&panic), None);
        let bad_access = stop("exception", Some("runtime error"), Some("bad access"));
        assert_eq!(failure_in_stop(&bad_access), None);
        assert_eq!(failure_in_stop(&stop("breakpoint", None, None)), None);
    }

    #[test]
    fn a_parse_error_is_a_refused_condition_and_a_missing_place_is_not() {
        let answer = |message: &str| Breakpoint {
            message: Some(message.to_string()),
            ..Breakpoint::default()
        };
        assert_eq!(
            refusal(&answer("1:5: expected operand, found 'EOF'")).as_deref(),
            Some("1:5: expected operand, found 'EOF'")
        );
        assert_eq!(refusal(&answer("could not find /src/main.go:100")), None);
        assert_eq!(refusal(&answer("location not found")), None);
    }
}
