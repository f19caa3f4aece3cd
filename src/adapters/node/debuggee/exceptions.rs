//! Which exceptions stop, beyond what V8's own states (`uncaught`, `all`) can say.
//!
//! - An ES module's top-level exception is caught by Node's module loader, which awaits the
//!   module's evaluation and then ends the process with the error (nodejs/node#50430), so V8
//!   calls it caught and never pauses on it as uncaught. For an ES module program asked to stop
//!   on uncaught exceptions, V8 pauses on caught ones too, and a caught one stops when nothing
//!   but the loader catches it: the frames from the throw down are the program's own, then the
//!   loader's (`node:internal/modules/esm/...`), and no frame of the program's is inside a `try`
//!   block. The rest are let go at once.
//! - A test run that stops on failures pauses on every exception (the runner catches a failed
//!   assertion): one is kept only when a frame of the program's own code is on the stack, so
//!   the runner's own exceptions (vitest's start-up throws and catches many) are let go.

use super::*;

/// What the user's exception filters ask for, beyond V8's state.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub(super) enum CaughtRule {
    /// V8's state says it all.
    #[default]
    AsV8Says,
    /// Uncaught exceptions in an ES module program: V8 pauses on all, see the module docs.
    LoaderCaught,
    /// A test's failure: caught exceptions with the program's code on the stack.
    InProgramCode,
}

impl Debuggee {
    /// V8's pause-on-exceptions state for DAP `filters`, and the rule applied to its pauses.
    pub(super) fn exception_state(&self, filters: &[&str]) -> (&'static str, CaughtRule) {
        if filters.contains(&"all") {
            let rule = if self.pause_in_assertions {
                CaughtRule::InProgramCode
            } else {
                CaughtRule::AsV8Says
            };
            ("all", rule)
        } else if filters.contains(&"uncaught") {
            if self.es_module && self.focus.thread == MAIN_THREAD {
                ("all", CaughtRule::LoaderCaught)
            } else {
                ("uncaught", CaughtRule::AsV8Says)
            }
        } else {
            ("none", CaughtRule::AsV8Says)
        }
    }

    /// Whether a pause on an exception is one the user did not ask for.
    pub(super) async fn exception_to_skip(&self, params: &Value) -> bool {
        if params["reason"] != "exception" || params["data"]["uncaught"] == true {
            return false;
        }
        let frames = params["callFrames"].as_array().cloned().unwrap_or_default();
        match self.focus.caught_rule {
            CaughtRule::AsV8Says => false,
            CaughtRule::InProgramCode => !frames.iter().any(|f| self.is_programs(f)),
            CaughtRule::LoaderCaught => !self.only_the_loader_catches(&frames).await,
        }
    }

    /// Whether a frame is in the program's own code: not Node's, not an installed package's.
    fn is_programs(&self, frame: &Value) -> bool {
        let url = self.frame_url(frame);
        !url.is_empty()
            && !url.starts_with("node:")
            && !url.contains("/node_modules/")
            && !url.contains("\\node_modules\\")
    }

    fn frame_url(&self, frame: &Value) -> String {
        let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
        self.focus
            .scripts
            .get(script)
            .map(|s| s.url.clone())
            .or_else(|| frame["url"].as_str().map(str::to_string))
            .unwrap_or_default()
    }

    async fn only_the_loader_catches(&self, frames: &[Value]) -> bool {
        let own = frames.iter().take_while(|f| self.is_programs(f)).count();
        let loader = frames
            .get(own)
            .is_some_and(|f| self.frame_url(f).starts_with("node:internal/modules/esm/"));
        if own == 0 || !loader {
            return false;
        }
        let Ok(cdp) = self.cdp() else {
            return false;
        };
        for frame in &frames[..own] {
            let location = &frame["location"];
            let script = location["scriptId"].as_str().unwrap_or_default();
            let Ok(source) = cdp
                .call("Debugger.getScriptSource", json!({ "scriptId": script }))
                .await
            else {
                return false;
            };
            let text = source["scriptSource"].as_str().unwrap_or_default();
            let line = location["lineNumber"].as_u64().unwrap_or(0) as usize;
            let column = location["columnNumber"].as_u64().unwrap_or(0) as usize;
            if in_try_block(text, line, column) {
                return false;
            }
        }
        true
    }
}

/// Whether 0-based `line`:`column` of JavaScript `source` is inside the block of a `try`: a
/// scan of braces that skips strings, template literals and comments (a regular expression
/// literal with a brace in it can mislead it; then an exception is let go, never a stop made).
pub(super) fn in_try_block(source: &str, line: usize, column: usize) -> bool {
    let Some(at) = offset_of(source, line, column) else {
        return false;
    };
    let bytes = source.as_bytes();
    // For each open brace: whether it opened a `try` block.
    let mut open: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < bytes.len() && i < at {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            quote @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' => {
                let before = source[..i].trim_end();
                let is_try = before.ends_with("try")
                    && !before[..before.len() - 3]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
                open.push(is_try);
            }
            b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    open.contains(&true)
}

/// The byte offset of 0-based `line`:`column` (V8 counts columns in UTF-16 units; code near a
/// throw is ASCII often enough that bytes do).
fn offset_of(source: &str, line: usize, column: usize) -> Option<usize> {
    let mut offset = 0;
    for (number, text) in source.split_inclusive('\n').enumerate() {
        if number == line {
            return Some(offset + column.min(text.len()));
        }
        offset += text.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throw_inside_a_try_block_is_told_from_one_outside() {
        let source = "const a = '{ try {';\n\
                      try {\n\
                      \x20 risky(); // } \n\
                      } catch (e) {\n\
                      \x20 handle(e);\n\
                      }\n\
                      retry { x }\n\
                      boom();\n";
        assert!(in_try_block(source, 2, 2), "inside the try");
        assert!(!in_try_block(source, 4, 2), "in the catch");
        assert!(
            !in_try_block(source, 7, 0),
            "after it, past a `retry {{` block"
        );
        assert!(!in_try_block(source, 0, 12), "in a string");
    }
}
