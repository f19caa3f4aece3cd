//! `setBreakpoints`, `setFunctionBreakpoints` and `setExceptionBreakpoints`, answered from the
//! breakpoint table (`node/breakpoints.rs`) and V8's pause-on-exceptions state.

use super::*;

impl Debuggee {
    pub(super) async fn set_breakpoints(&mut self, arguments: &Value) -> Answer {
        let path = arguments["source"]["path"]
            .as_str()
            .ok_or("setBreakpoints needs source.path")?;
        let requested = arguments["breakpoints"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let cdp = self.cdp()?.clone();
        let path = PathBuf::from(path);
        let answer = self
            .breakpoints
            .set_lines(&cdp, &self.scripts, &path, &requested)
            .await;
        if Breakpoints::goes_through_source_maps(&path) {
            self.wait_for_mapped_scripts(&cdp).await;
        }
        Ok(json!({ "breakpoints": answer }))
    }

    /// An ES module (what `tsx` compiles, a bundle) runs the moment it is parsed: V8 is to wait
    /// before each script with a source map runs, so the breakpoints its map calls for are
    /// placed first (`on_paused` resumes it).
    async fn wait_for_mapped_scripts(&mut self, cdp: &Cdp) {
        if !self.instrumented {
            self.instrumented = cdp
                .call(
                    "Debugger.setInstrumentationBreakpoint",
                    json!({ "instrumentation": "beforeScriptWithSourceMapExecution" }),
                )
                .await
                .is_ok();
        }
    }

    pub(super) async fn set_function_breakpoints(&mut self, arguments: &Value) -> Answer {
        let requested = arguments["breakpoints"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let cdp = self.cdp()?.clone();
        let answer = self
            .breakpoints
            .set_functions(&cdp, &self.scripts, &requested)
            .await;
        if answer.iter().any(|b| b["verified"] != true) {
            // A bundle that loads later may define it, and call it as it loads (see `mapped_functions`).
            self.wait_for_mapped_scripts(&cdp).await;
        }
        Ok(json!({ "breakpoints": answer }))
    }

    pub(super) async fn set_exception_breakpoints(&mut self, arguments: &Value) -> Answer {
        let filters: Vec<&str> = arguments["filters"]
            .as_array()
            .map(|f| f.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let state = if filters.contains(&"all") {
            "all"
        } else if filters.contains(&"uncaught") {
            "uncaught"
        } else {
            "none"
        };
        self.cdp()?
            .call("Debugger.setPauseOnExceptions", json!({ "state": state }))
            .await?;
        Ok(Value::Null)
    }
}
