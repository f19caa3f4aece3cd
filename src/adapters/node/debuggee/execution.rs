//! Run control and the stack: continue, steps and pause as CDP commands, and the paused call
//! frames as DAP frames (Node's internals left out of what is shown).

use super::*;

impl Debuggee {
    pub(super) async fn resume(&mut self, method: &str, expecting: Expecting) -> Answer {
        if self.paused.is_none() {
            return Err("the program is not paused".into());
        }
        self.expecting = expecting;
        self.cdp()?.call(method, json!({})).await?;
        self.paused = None;
        self.forget_pause_objects();
        Ok(Value::Null)
    }

    pub(super) fn paused(&self) -> Result<&Paused, String> {
        self.paused
            .as_ref()
            .ok_or_else(|| "the program is not paused".to_string())
    }

    /// The frames shown: Node's own internals below the user's code are left out.
    pub(super) fn shown_frames(&self) -> Result<Vec<(usize, &Value)>, String> {
        let paused = self.paused()?;
        Ok(paused
            .call_frames
            .iter()
            .enumerate()
            .filter(|(index, frame)| *index == 0 || !self.is_internal(frame))
            .collect())
    }

    /// Whether a frame is in Node's own JavaScript (`node:internal/...`).
    pub(super) fn is_internal(&self, frame: &Value) -> bool {
        let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
        let url = self
            .scripts
            .get(script)
            .map(|s| s.url.as_str())
            .or_else(|| frame["url"].as_str())
            .unwrap_or_default();
        url.starts_with("node:")
    }

    pub(super) fn stack_trace(&self, arguments: &Value) -> Answer {
        let frames = self.shown_frames()?;
        let start = arguments["startFrame"].as_u64().unwrap_or(0) as usize;
        let levels = arguments["levels"]
            .as_u64()
            .filter(|l| *l > 0)
            .map_or(usize::MAX, |l| l as usize);
        let total = frames.len();
        let stack: Vec<Value> = frames
            .into_iter()
            .skip(start)
            .take(levels)
            .map(|(index, frame)| {
                let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
                let url = self
                    .scripts
                    .get(script)
                    .map(|s| s.url.clone())
                    .or_else(|| frame["url"].as_str().map(str::to_string))
                    .unwrap_or_default();
                let name = match frame["functionName"].as_str() {
                    Some(name) if !name.is_empty() => name.to_string(),
                    _ => "(anonymous)".to_string(),
                };
                let mut shown = json!({
                    "id": index + 1,
                    "name": name,
                    "line": frame["location"]["lineNumber"].as_u64().unwrap_or(0) + 1,
                    "column": frame["location"]["columnNumber"].as_u64().unwrap_or(0) + 1,
                });
                match path_of_url(&url) {
                    Some(path) => {
                        let file = path.file_name().map(|n| n.to_string_lossy().to_string());
                        shown["source"] = json!({ "name": file, "path": path });
                    }
                    None if !url.is_empty() => shown["source"] = json!({ "name": url }),
                    None => {}
                }
                shown
            })
            .collect();
        Ok(json!({ "stackFrames": stack, "totalFrames": total }))
    }

    pub(super) fn frame(&self, frame_id: &Value) -> Result<(usize, &Value), String> {
        let index = frame_id
            .as_u64()
            .and_then(|id| (id as usize).checked_sub(1))
            .ok_or("no such frame")?;
        let frame = self
            .paused()?
            .call_frames
            .get(index)
            .ok_or("no such frame (the program has moved on)")?;
        Ok((index, frame))
    }
}
