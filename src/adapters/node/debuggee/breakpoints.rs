//! `setBreakpoints`, `setFunctionBreakpoints` and `setExceptionBreakpoints`, answered from the
//! breakpoint table (`node/breakpoints.rs`) and V8's pause-on-exceptions state.

use super::*;

impl Debuggee {
    /// A breakpoint request applied to every process, the launched one (in focus) first. A
    /// breakpoint is reported as one process places it: verified where any process has it.
    pub(super) async fn set_everywhere(&mut self, request: &BreakpointRequest) -> Answer {
        let mut answer = self.set_in_focus(request).await?;
        let threads: Vec<i64> = self.other_threads();
        let home = self.focus.thread;
        for thread in threads {
            self.focus(thread);
            let Ok(theirs) = self.set_in_focus(request).await else {
                continue;
            };
            merge_placed(&mut answer, &theirs);
        }
        self.focus(home);
        Ok(answer)
    }

    pub(super) async fn set_in_focus(&mut self, request: &BreakpointRequest) -> Answer {
        match request {
            BreakpointRequest::Lines(arguments) => self.set_breakpoints(arguments).await,
            BreakpointRequest::Functions(arguments) => {
                self.set_function_breakpoints(arguments).await
            }
            BreakpointRequest::Exceptions(arguments) => {
                self.set_exception_breakpoints(arguments).await
            }
        }
    }

    pub(super) async fn set_breakpoints(&mut self, arguments: &SetBreakpointsArguments) -> Answer {
        let cdp = self.cdp()?.clone();
        let path = &arguments.source.path;
        let answer = self
            .focus
            .breakpoints
            .set_lines(&cdp, &self.focus.scripts, path, &arguments.breakpoints)
            .await;
        if Breakpoints::goes_through_source_maps(path) {
            self.wait_for_mapped_scripts(&cdp).await;
        }
        Ok(json!({ "breakpoints": answer }))
    }

    /// An ES module (what `tsx` compiles, a bundle) runs the moment it is parsed: V8 is to wait
    /// before each script with a source map runs, so the breakpoints its map calls for are
    /// placed first (`on_paused` resumes it).
    async fn wait_for_mapped_scripts(&mut self, cdp: &Cdp) {
        if !self.focus.instrumented {
            self.focus.instrumented = cdp
                .call(
                    "Debugger.setInstrumentationBreakpoint",
                    json!({ "instrumentation": "beforeScriptWithSourceMapExecution" }),
                )
                .await
                .is_ok();
        }
    }

    pub(super) async fn set_function_breakpoints(
        &mut self,
        arguments: &SetFunctionBreakpointsArguments,
    ) -> Answer {
        let cdp = self.cdp()?.clone();
        let answer = self
            .focus
            .breakpoints
            .set_functions(&cdp, &self.focus.scripts, &arguments.breakpoints)
            .await;
        if answer.iter().any(|b| b["verified"] != true) {
            // A bundle that loads later may define it, and call it as it loads (see `mapped_functions`).
            self.wait_for_mapped_scripts(&cdp).await;
        }
        Ok(json!({ "breakpoints": answer }))
    }

    pub(super) async fn set_exception_breakpoints(
        &mut self,
        arguments: &SetExceptionBreakpointsArguments,
    ) -> Answer {
        let filters: Vec<&str> = arguments.filters.iter().map(String::as_str).collect();
        let (state, rule) = self.exception_state(&filters);
        self.focus.caught_rule = rule;
        self.cdp()?
            .call("Debugger.setPauseOnExceptions", json!({ "state": state }))
            .await?;
        Ok(Value::Null)
    }
}

/// Takes each breakpoint of `theirs` that is verified where `answer`'s is not.
fn merge_placed(answer: &mut Value, theirs: &Value) {
    let (Some(ours), Some(theirs)) = (
        answer["breakpoints"].as_array_mut(),
        theirs["breakpoints"].as_array(),
    ) else {
        return;
    };
    for (mine, other) in ours.iter_mut().zip(theirs) {
        if mine["verified"] != true && other["verified"] == true {
            *mine = other.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breakpoint_placed_in_any_process_is_verified() {
        let mut answer = json!({"breakpoints": [{"id": 1, "verified": false}, {"id": 2, "verified": true, "line": 3}]});
        let theirs = json!({"breakpoints": [{"id": 1, "verified": true, "line": 9}, {"id": 2, "verified": false}]});
        merge_placed(&mut answer, &theirs);
        assert_eq!(answer["breakpoints"][0]["line"], 9);
        assert_eq!(answer["breakpoints"][1]["line"], 3);
    }
}
