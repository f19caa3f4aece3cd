//! Steps by the lines the user wrote (js-debug's "smart step"): in a script with a source map,
//! V8 steps by the generated code's statements, and one original line may be several of them
//! (`tsx` splits a `for...of` head in two; a minifier joins statements with commas), while code
//! nobody wrote (a bundler's export getters and helpers, `tsc`'s `Object.defineProperty(exports,
//! ...)`) maps to no line at all. So a step that ends in unmapped code, or on the line it started
//! from in the same call, is taken again, a bounded number of times; and `--stop-on-entry` in a
//! script whose first code is unmapped steps on to the first line the user wrote.
//!
//! V8 (Node 20, as `node inspect` shows) also loses a step over or out of a `return` inside a
//! `for...of` loop (the loop's hidden iterator-closing `finally` drops it), and the program runs
//! to its end. So a step from a `return`, and every `finish`, also sets a one-time breakpoint at
//! the caller's next place: the step stops in the caller either way.

use serde_json::{Value, json};

use super::super::cdp::Cdp;
use super::super::scripts::Scripts;
use super::super::source_maps;
use super::frames::is_internal;
use super::script_texts::ScriptTexts;

/// How many times one step is taken again before it stops wherever it is.
const MAX_SMART_STEPS: u32 = 200;

/// Where a step began: what it repeats and what counts as not having moved.
#[derive(Debug, Clone)]
pub struct StepOrigin {
    /// The CDP step asked for (`Debugger.stepOver`, `stepInto`, `stepOut`).
    method: &'static str,
    /// The call it began in: the number of frames and the top one's function.
    depth: usize,
    function: Value,
    /// Its original source and 1-based line, when the step began on one.
    line: Option<(String, u32)>,
    /// Times taken again so far.
    repeats: u32,
    /// Stepping from the program's entry to its first mapped line: the stop is an `entry`.
    entry: bool,
    /// The one-time V8 breakpoint at the caller's next place, removed at the stop.
    caller_catch: Option<String>,
}

/// The original source (by the name its map writes) and line of a CDP call frame, when its
/// script has a map and the frame's position is mapped.
fn original_line(scripts: &Scripts, frame: &Value) -> Option<(String, u32)> {
    let map = mapped_script(scripts, frame)?;
    let (line, column) = position(frame)?;
    let original = map.original(line, column)?;
    Some((original.source.written.clone(), original.line))
}

/// The source map of a frame's script.
fn mapped_script<'a>(scripts: &'a Scripts, frame: &Value) -> Option<&'a source_maps::ScriptMap> {
    let id = frame["location"]["scriptId"].as_str()?;
    scripts.get(id)?.map.as_deref()
}

/// A frame's 0-based generated line and column.
fn position(frame: &Value) -> Option<(u32, u32)> {
    let location = &frame["location"];
    Some((
        u32::try_from(location["lineNumber"].as_u64()?).ok()?,
        u32::try_from(location["columnNumber"].as_u64()?).unwrap_or(0),
    ))
}

/// Whether `text` (a script's source) has a `return` statement at the 0-based `line` and
/// `column` (in UTF-16 units, as V8 counts).
fn return_at(text: &str, line: u64, column: u64) -> bool {
    let Some(line) = usize::try_from(line).ok().and_then(|l| text.lines().nth(l)) else {
        return false;
    };
    let units: Vec<u16> = line.encode_utf16().collect();
    let rest = units
        .get(usize::try_from(column).unwrap_or(usize::MAX)..)
        .map(String::from_utf16_lossy)
        .unwrap_or_default();
    rest.strip_prefix("return").is_some_and(|after| {
        !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
    })
}

/// Whether a frame is in a script with a source map, at code the map gives no source for.
fn unmapped(scripts: &Scripts, frame: &Value) -> bool {
    mapped_script(scripts, frame).is_some_and(|map| {
        position(frame).is_none_or(|(line, column)| !map.is_mapped(line, column))
    })
}

impl StepOrigin {
    /// Where the step `method` begins from the pause with `frames`; with a one-time breakpoint
    /// in the caller for a `finish`, or a step from a `return`.
    pub async fn begin(
        cdp: Option<&Cdp>,
        frames: &[Value],
        scripts: &Scripts,
        texts: &mut ScriptTexts,
        method: &'static str,
    ) -> StepOrigin {
        let caller_catch = match cdp {
            Some(cdp) => catch_in_caller(cdp, frames, scripts, texts, method).await,
            None => None,
        };
        StepOrigin {
            method,
            depth: frames.len(),
            function: frames
                .first()
                .map(|f| f["functionLocation"].clone())
                .unwrap_or(Value::Null),
            line: frames.first().and_then(|f| original_line(scripts, f)),
            repeats: 0,
            entry: false,
            caller_catch,
        }
    }

    /// At a stop: the step is over; its one-time breakpoint goes. Returns whether the step was
    /// the one from the entry to the first mapped line.
    pub async fn end(self, cdp: Option<&Cdp>) -> bool {
        if let (Some(id), Some(cdp)) = (&self.caller_catch, cdp) {
            let _ = cdp
                .call("Debugger.removeBreakpoint", json!({ "breakpointId": id }))
                .await;
        }
        self.entry
    }

    /// After a pause that ended a step (no breakpoint, no exception): takes the step again when
    /// it ended in unmapped code, or on its starting line in its starting call. Returns whether it
    /// did (the pause is then no stop).
    pub async fn again(&mut self, cdp: Option<&Cdp>, scripts: &Scripts, frames: &[Value]) -> bool {
        let Some(top) = frames.first() else {
            return false;
        };
        if self.repeats >= MAX_SMART_STEPS {
            return false;
        }
        let again = unmapped(scripts, top)
            || (self.method != "Debugger.stepOut"
                && self.line.is_some()
                && frames.len() == self.depth
                && top["functionLocation"] == self.function
                && original_line(scripts, top) == self.line);
        if !again {
            return false;
        }
        let Some(cdp) = cdp else {
            return false;
        };
        self.repeats += 1;
        cdp.call(self.method, json!({})).await.is_ok()
    }

    /// At the entry pause of `--stop-on-entry`: when it is in unmapped code of a script with a
    /// map (a bundle's helpers, `tsc`'s preamble), the step on to its first mapped line, which is
    /// then the entry stop (the caller takes it).
    pub fn to_mapped_entry(scripts: &Scripts, frames: &[Value]) -> Option<StepOrigin> {
        let top = frames.first()?;
        unmapped(scripts, top).then(|| StepOrigin {
            method: ENTRY_STEP,
            depth: frames.len(),
            function: top["functionLocation"].clone(),
            line: None,
            repeats: 0,
            entry: true,
            caller_catch: None,
        })
    }
}

/// The CDP step that goes from the entry to the first mapped line.
pub const ENTRY_STEP: &str = "Debugger.stepOver";

/// For a `finish`, or a step from a `return`: a one-time breakpoint at the first place after
/// the call in the caller's function (none when the caller is Node's own code).
async fn catch_in_caller(
    cdp: &Cdp,
    frames: &[Value],
    scripts: &Scripts,
    texts: &mut ScriptTexts,
    method: &str,
) -> Option<String> {
    let (top, caller) = (frames.first()?, frames.get(1)?);
    if is_internal(scripts, caller)
        || (method != "Debugger.stepOut" && !at_return(cdp, texts, &top["location"]).await)
    {
        return None;
    }
    let mut start = caller["location"].clone();
    start["columnNumber"] = json!(start["columnNumber"].as_u64()? + 1);
    let possible = cdp
        .call(
            "Debugger.getPossibleBreakpoints",
            json!({ "start": start, "restrictToFunction": true }),
        )
        .await
        .ok()?;
    let next = possible["locations"].as_array()?.first()?;
    let location = json!({
        "scriptId": next["scriptId"],
        "lineNumber": next["lineNumber"],
        "columnNumber": next["columnNumber"],
    });
    let set = cdp
        .call("Debugger.setBreakpoint", json!({ "location": location }))
        .await
        .ok()?;
    set["breakpointId"].as_str().map(str::to_string)
}

/// Whether the CDP `location` is at a `return` statement, read in its script's text (V8's
/// own text: what `tsx` compiled is not the file).
async fn at_return(cdp: &Cdp, texts: &mut ScriptTexts, location: &Value) -> bool {
    let Some(script) = location["scriptId"].as_str() else {
        return false;
    };
    texts.get(Some(cdp), script).await.is_some_and(|text| {
        return_at(
            &text,
            location["lineNumber"].as_u64().unwrap_or(0),
            location["columnNumber"].as_u64().unwrap_or(0),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_return_is_read_at_its_place_in_the_script() {
        let text = "function f(a){\n  for(const x of a)if(x)return x;return returned}";
        assert!(return_at(text, 1, 24));
        assert!(!return_at(text, 1, 2));
        assert!(return_at(text, 1, 33) && !return_at(text, 1, 40));
        assert!(!return_at(text, 9, 0));
        // Columns count UTF-16 units: "é" is one, "𝒳" two.
        assert!(return_at("'é𝒳';return 1", 0, 6));
    }
}
