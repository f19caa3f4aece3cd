//! CDP events become DAP events: scripts parsed (breakpoints re-bound as code loads), pauses
//! told as `stopped` with their reason (or stepped past, out of Node's internals), console
//! output, the end of the program.

use super::*;

impl Debuggee {
    pub async fn on_event(&mut self, event: CdpEvent) {
        let params = event.params;
        match event.method.as_str() {
            "Debugger.scriptParsed" => self.script_parsed(&params).await,
            "Debugger.breakpointResolved" => {
                let script = params["location"]["scriptId"].as_str().unwrap_or_default();
                let script = self.focus.scripts.get(script).cloned();
                let line = params["location"]["lineNumber"].as_u64().unwrap_or(0) + 1;
                let column = params["location"]["columnNumber"].as_u64().unwrap_or(0) + 1;
                let id = params["breakpointId"].as_str().unwrap_or_default();
                let Some(cdp) = self.focus.cdp.clone() else {
                    return;
                };
                if let Some(breakpoint) = self
                    .focus
                    .breakpoints
                    .resolved(&cdp, id, script.as_ref(), (line as u32, column as u32))
                    .await
                {
                    self.out
                        .event(
                            "breakpoint",
                            json!({ "reason": "changed", "breakpoint": breakpoint }),
                        )
                        .await;
                }
            }
            "Debugger.paused" => self.on_paused(params).await,
            "Debugger.resumed" => {
                self.focus.paused = None;
                self.forget_pause_objects();
            }
            DROPPED_CONSOLE_EVENT => {
                let count = params["count"].as_u64().unwrap_or(0);
                self.out
                    .output(
                        "stderr",
                        &format!("[debugger: {count} console messages dropped: the program logged faster than they could be read]\n"),
                    )
                    .await;
            }
            "Runtime.consoleAPICalled" if !self.launched => {
                // An attached program's stdout is not ours to read: its console calls are.
                let (category, text) = output::console_line(&params);
                self.out
                    .event("output", json!({ "category": category, "output": text }))
                    .await;
            }
            _ => {}
        }
    }

    pub(super) async fn script_parsed(&mut self, params: &Value) {
        let id = params["scriptId"].as_str().unwrap_or_default();
        let url = params["url"].as_str().unwrap_or_default();
        let Some(script) = self.focus.scripts.add(id, url).cloned() else {
            return;
        };
        let map_url = params["sourceMapURL"].as_str().filter(|u| !u.is_empty());
        let script = match (map_url, script.path.clone()) {
            (Some(map_url), Some(path)) => {
                let map_url = map_url.to_string();
                let read = tokio::task::spawn_blocking(move || {
                    let (text, folder) = source_maps::read_map(&map_url, &path)?;
                    source_maps::ScriptMap::parse(&text, folder.as_deref())
                })
                .await;
                match read {
                    Ok(Ok(map)) => self.focus.scripts.set_map(id, std::sync::Arc::new(map)),
                    Ok(Err(e)) => tracing::info!(url, "source map not used: {e}"),
                    Err(e) => tracing::warn!(url, "source map not read: {e}"),
                }
                self.focus.scripts.get(id).cloned().unwrap_or(script)
            }
            _ => script,
        };
        self.tell_loaded(&script).await;
        let Some(cdp) = self.focus.cdp.clone() else {
            return;
        };
        if let Some(folder) = script.path.as_deref().and_then(|p| p.parent()) {
            // Attached: the first of the program's files names its folder.
            self.focus.breakpoints.adopt_source_root(&cdp, folder).await;
        }
        for breakpoint in self
            .focus
            .breakpoints
            .script_loaded(&cdp, id, &script)
            .await
        {
            self.out
                .event(
                    "breakpoint",
                    json!({ "reason": "changed", "breakpoint": breakpoint }),
                )
                .await;
        }
    }

    /// Tells the session a script's file as loaded, and with a source map the files its code
    /// was written in (`loadedSource`, see `LoadedSources::Events`).
    async fn tell_loaded(&self, script: &Script) {
        let originals = script
            .map
            .iter()
            .flat_map(|map| map.sources.iter())
            .filter_map(|source| source.path.as_ref());
        for path in script.path.iter().chain(originals) {
            let name = path.file_name().map(|n| n.to_string_lossy());
            let source = json!({ "name": name, "path": path });
            self.out
                .event("loadedSource", json!({ "reason": "new", "source": source }))
                .await;
        }
    }

    pub(super) async fn on_paused(&mut self, params: Value) {
        let reason = params["reason"].as_str().unwrap_or("other").to_string();
        let hit_ids: Vec<String> = params["hitBreakpoints"]
            .as_array()
            .map(|ids| {
                ids.iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let expecting = self.focus.expecting;
        if expecting == Expecting::Step
            && hit_ids.is_empty()
            && reason == "other"
            && self.focus.internal_steps < MAX_INTERNAL_STEPS
            && params["callFrames"]
                .get(0)
                .is_some_and(|frame| self.is_internal(frame))
        {
            // A step that lands in Node's own JavaScript (into `require`, or off the end of the
            // main module) goes on out of it: V8 accepts the blackbox pattern but still stops
            // there.
            self.focus.internal_steps += 1;
            if let Some(cdp) = &self.focus.cdp {
                let _ = cdp.call("Debugger.stepOut", json!({})).await;
            }
            return;
        }
        self.focus.internal_steps = 0;
        if expecting == Expecting::Step && self.at_finish_return(&params, &hit_ids).await {
            return;
        }
        if reason == "exception" && self.exception_to_skip(&params).await {
            self.resume_silently().await;
            return;
        }
        if expecting == Expecting::Step
            && hit_ids.is_empty()
            && reason == "other"
            && let Some(frames) = params["callFrames"].as_array()
            && self.step_again(frames).await
        {
            // Not a line the user wrote, or the one the step began on (see `smart_step`).
            return;
        }
        if reason == "instrumentation" || self.focus.breakpoints.only_guards(&hit_ids) {
            // Before a script with a source map runs (or one compiled from a file with
            // breakpoints): its `scriptParsed`, read before this, placed its breakpoints.
            self.resume_silently().await;
            return;
        }
        let (dap_reason, description, text, dap_ids) = match reason.as_str() {
            // A launched program, or an attached one started with --inspect-brk, waiting at its
            // first line: it goes on unless the user asked to stop there.
            "Break on start" if !self.focus.entry_seen => {
                self.focus.entry_seen = true;
                if !self.stop_on_entry {
                    self.resume_silently().await;
                    return;
                }
                if let Some(frames) = params["callFrames"].as_array()
                    && self.step_to_mapped_entry(frames).await
                {
                    return;
                }
                ("entry", None, None, Vec::new())
            }
            "exception" | "promiseRejection" => {
                let text = values::display(&params["data"]);
                let what = if reason == "exception" {
                    "exception"
                } else {
                    "unhandled promise rejection"
                };
                (
                    "exception",
                    Some(format!("Paused on {what}")),
                    Some(text),
                    Vec::new(),
                )
            }
            _ if !hit_ids.is_empty() => {
                let hit = self.focus.breakpoints.hit(&hit_ids);
                if !hit.stop && expecting == Expecting::Nothing {
                    self.resume_silently().await;
                    return;
                }
                if hit.dap_ids.is_empty() {
                    (step_or_pause(expecting), None, None, Vec::new())
                } else {
                    ("breakpoint", None, None, hit.dap_ids)
                }
            }
            _ if expecting != Expecting::Nothing => {
                (step_or_pause(expecting), None, None, Vec::new())
            }
            _ => (
                "breakpoint",
                Some("debugger statement".to_string()),
                None,
                Vec::new(),
            ),
        };
        // Stepped on from the entry to the first line the user wrote: still the entry stop.
        let dap_reason = match self.end_step().await {
            true if dap_reason == "step" => "entry",
            _ => dap_reason,
        };
        let returned = self.end_finish().await;
        self.focus.expecting = Expecting::Nothing;
        self.forget_pause_objects();
        self.focus.paused = Some(Paused {
            call_frames: params["callFrames"].as_array().cloned().unwrap_or_default(),
            reason,
            data: params["data"].clone(),
            returned: returned.filter(|_| dap_reason == "step"),
        });
        let mut body = json!({
            "reason": dap_reason,
            "threadId": self.focus.thread,
            "allThreadsStopped": self.others.is_empty(),
        });
        if let Some(description) = description {
            body["description"] = json!(description);
        }
        if let Some(text) = text {
            body["text"] = json!(text);
        }
        if !dap_ids.is_empty() {
            body["hitBreakpointIds"] = json!(dap_ids);
        }
        self.out.event("stopped", body).await;
    }

    pub(super) async fn resume_silently(&mut self) {
        if let Some(cdp) = &self.focus.cdp {
            let _ = cdp.call("Debugger.resume", json!({})).await;
        }
    }
}
