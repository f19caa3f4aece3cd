//! Scripts' text as V8 runs it (what `tsx` compiled is not the file), fetched once per script
//! when something must read it: a step's `return`, a minifier's names, a class's name, the `try`
//! blocks an exception is thrown in.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use super::super::cdp::Cdp;

#[derive(Default)]
pub struct ScriptTexts {
    texts: HashMap<String, Arc<str>>,
}

impl ScriptTexts {
    /// Script `id`'s text, fetched through `cdp` the first time.
    pub async fn get(&mut self, cdp: Option<&Cdp>, id: &str) -> Option<Arc<str>> {
        if let Some(text) = self.texts.get(id) {
            return Some(text.clone());
        }
        let answer = cdp?
            .call("Debugger.getScriptSource", json!({ "scriptId": id }))
            .await
            .ok()?;
        let text: Arc<str> = Arc::from(answer["scriptSource"].as_str()?);
        self.texts.insert(id.to_string(), text.clone());
        Some(text)
    }
}
