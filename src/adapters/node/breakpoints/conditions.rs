//! Conditions as V8 gets them. V8 takes a condition that throws, or that does not parse, as
//! false, and says nothing. So a condition is compiled when its breakpoint is set (one that does
//! not parse is refused, with V8's `SyntaxError`), and is sent wrapped, so that one that throws
//! stops the program instead: the session then evaluates the condition again in the paused frame
//! and reports the error (see `adapters/conditions.rs`).

use serde_json::{Value, json};

use super::super::cdp::Cdp;

/// What the answer of a breakpoint whose condition V8 cannot compile says first; the syntax
/// error follows.
pub(crate) const REFUSED: &str = "the condition does not compile: ";

/// `condition` as V8 evaluates it at each hit: a script whose completion value is the
/// condition's, or `true` when it throws. Each part on its own lines, so that a `//` comment
/// ending the condition ends there.
pub(super) fn v8_condition(condition: &str) -> String {
    format!("try {{\n{condition}\n}} catch (_) {{\ntrue\n}}")
}

/// Why V8 cannot compile `condition`, in V8's words (`SyntaxError: Unexpected identifier 'b'`);
/// `None` when it compiles, or when V8 could not be asked (a hit then tells).
///
/// The condition is compiled as the body of a method that is never called (so that `this`,
/// `arguments`, `super` and `new.target` are allowed, as in the frame where it runs), by an
/// evaluation that may have no side effects: nothing of it runs, and the Runtime domain, which
/// a launched program's adapter leaves off, is not needed. An error past the condition's last
/// line is V8 reaching the method's end: the condition ends too soon.
pub(super) async fn refusal(cdp: &Cdp, condition: &str) -> Option<String> {
    let answer = cdp
        .call(
            "Runtime.evaluate",
            json!({
                "expression": format!("({{ check() {{\n{condition}\n}} }})"),
                "throwOnSideEffect": true,
                "silent": true,
            }),
        )
        .await
        .ok()?;
    let lines = condition.lines().count().max(1);
    syntax_error(&answer, lines).map(|error| format!("{REFUSED}{error}"))
}

/// The syntax error of the evaluation of a condition of `lines` lines wrapped as [`refusal`]
/// wraps it.
fn syntax_error(answer: &Value, lines: usize) -> Option<String> {
    let details = answer.get("exceptionDetails")?;
    let exception = &details["exception"];
    if exception["className"] != "SyntaxError" {
        return None;
    }
    if details["lineNumber"]
        .as_u64()
        .is_some_and(|line| line > lines as u64)
    {
        return Some("SyntaxError: Unexpected end of input".to_string());
    }
    Some(
        exception["description"]
            .as_str()
            .and_then(|d| d.lines().next())
            .unwrap_or("SyntaxError")
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_is_sent_so_that_a_throw_makes_it_true() {
        assert_eq!(
            v8_condition("n > 2 // big"),
            "try {\nn > 2 // big\n} catch (_) {\ntrue\n}"
        );
    }

    #[test]
    fn the_syntax_error_is_told_in_v8s_words() {
        let error = |line: u64, class: &str, description: &str| {
            json!({"exceptionDetails": {
                "lineNumber": line,
                "exception": {"className": class, "description": description}
            }})
        };
        assert_eq!(
            syntax_error(
                &error(
                    1,
                    "SyntaxError",
                    "SyntaxError: Unexpected identifier 'b'\n    at x"
                ),
                1
            )
            .as_deref(),
            Some("SyntaxError: Unexpected identifier 'b'")
        );
        assert_eq!(
            syntax_error(
                &error(2, "SyntaxError", "SyntaxError: Unexpected token '}'"),
                1
            )
            .as_deref(),
            Some("SyntaxError: Unexpected end of input")
        );
        assert_eq!(
            syntax_error(&error(1, "EvalError", "EvalError: side effect"), 1),
            None
        );
        assert_eq!(
            syntax_error(&json!({"result": {"type": "object"}}), 1),
            None
        );
    }
}
