//! The value a `finish` returned. V8 tells a function's return value only while paused at the
//! return itself (the top call frame's `returnValue`), and a step out pauses after it, in the
//! caller. So a finish sets one-time breakpoints at the function's returns (V8's break locations
//! of type `return`); paused at one in the call it began in, it takes the value and steps on
//! out. The caller's frame then shows the value as a scope of its own, `Return value`, as the
//! other adapters that know it do.

use serde_json::{Value, json};

use super::super::cdp::Cdp;
use super::super::objects::with_preview;

/// A finish under way: the call it leaves and what it has seen of its return.
pub struct Finishing {
    /// The call: the number of frames and the top one's function.
    depth: usize,
    function: Value,
    /// The one-time V8 breakpoints at the function's returns.
    catches: Vec<String>,
    returned: Option<Returned>,
}

/// What a function returned: its name and the value (a CDP remote object).
#[derive(Debug, Clone)]
pub struct Returned {
    pub function: String,
    pub value: Value,
}

/// The function's name as V8 gives it in a call frame.
fn function_name(frame: &Value) -> String {
    match frame["functionName"].as_str() {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => "(anonymous)".to_string(),
    }
}

/// What the function of `frame` returns: `value`, an object with its preview (V8 gives a
/// return value none, so it would read as its class name alone) and held past the resume, so
/// its members can be listed in the caller.
async fn returned(cdp: &Cdp, frame: &Value, value: &Value) -> Returned {
    Returned {
        function: function_name(frame),
        value: with_preview(cdp, value.clone()).await,
    }
}

impl Finishing {
    /// Before a finish's step out from the pause with `frames`: takes the value at once when
    /// paused at the return already, else sets breakpoints at every return of the top frame's
    /// function. None without a frame.
    pub async fn begin(cdp: Option<&Cdp>, frames: &[Value]) -> Option<Finishing> {
        let top = frames.first()?;
        let returned = match (top.get("returnValue"), cdp) {
            (Some(value), Some(cdp)) => Some(returned(cdp, top, value).await),
            _ => None,
        };
        let catches = match (&returned, cdp) {
            (None, Some(cdp)) => catch_returns(cdp, &top["functionLocation"]).await,
            _ => Vec::new(),
        };
        Some(Finishing {
            depth: frames.len(),
            function: top["functionLocation"].clone(),
            catches,
            returned,
        })
    }

    /// A pause at the finish's own breakpoints, which is no stop: at a return of the call it
    /// began in, the value is kept and the step out goes on; at one of a deeper call of the same
    /// function (a recursion), the program goes on to the call's own return. Returns whether
    /// the pause was one of these.
    pub async fn at_return(
        &mut self,
        cdp: Option<&Cdp>,
        params: &Value,
        hit_ids: &[String],
    ) -> bool {
        if hit_ids.is_empty() || !hit_ids.iter().all(|id| self.catches.contains(id)) {
            return false;
        }
        let Some(cdp) = cdp else {
            return false;
        };
        let frames = params["callFrames"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let own_call = frames.len() == self.depth
            && frames
                .first()
                .is_some_and(|top| top["functionLocation"] == self.function);
        match frames.first().filter(|_| own_call) {
            Some(top) => {
                self.returned = match top.get("returnValue") {
                    Some(value) => Some(returned(cdp, top, value).await),
                    None => None,
                };
                // Returned: a later call of the function (a callback's next) is another's.
                for id in std::mem::take(&mut self.catches) {
                    let _ = cdp
                        .call("Debugger.removeBreakpoint", json!({ "breakpointId": id }))
                        .await;
                }
                cdp.call("Debugger.stepOut", json!({})).await.is_ok()
            }
            None => cdp.call("Debugger.resume", json!({})).await.is_ok(),
        }
    }

    /// At a stop or a resume: the finish is over and its breakpoints go. Returns what the
    /// function returned, when the finish saw it.
    pub async fn end(self, cdp: Option<&Cdp>) -> Option<Returned> {
        if let Some(cdp) = cdp {
            for id in &self.catches {
                let _ = cdp
                    .call("Debugger.removeBreakpoint", json!({ "breakpointId": id }))
                    .await;
            }
        }
        self.returned
    }
}

/// One-time breakpoints at the returns of the function at `function` (a CDP location); none
/// when V8 lists none (the program's top level).
async fn catch_returns(cdp: &Cdp, function: &Value) -> Vec<String> {
    if function.is_null() {
        return Vec::new();
    }
    let Ok(possible) = cdp
        .call(
            "Debugger.getPossibleBreakpoints",
            json!({ "start": function, "restrictToFunction": true }),
        )
        .await
    else {
        return Vec::new();
    };
    let mut catches = Vec::new();
    let returns = possible["locations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["type"] == "return");
    for at in returns {
        let location = json!({
            "scriptId": at["scriptId"],
            "lineNumber": at["lineNumber"],
            "columnNumber": at["columnNumber"],
        });
        if let Ok(set) = cdp
            .call("Debugger.setBreakpoint", json!({ "location": location }))
            .await
            && let Some(id) = set["breakpointId"].as_str()
        {
            catches.push(id.to_string());
        }
    }
    catches
}
