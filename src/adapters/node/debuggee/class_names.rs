//! The class names the user wrote, where a bundler renamed a class: two modules' `Immer` become
//! `Immer` and `Immer2` in one bundle, and V8 names an object by the class it runs, `Immer2 {…}`.
//! The map names the renamed identifier where it stands (`var Immer2 = class {` maps `Immer2`
//! to `Immer`): an object of a class whose name ends in digits is named by the map at the
//! class's own name, found through its constructor's location. Read once per class name.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::super::cdp::Cdp;
use super::super::scripts::Scripts;
use super::script_texts::ScriptTexts;

/// The constructor of the object (`this`).
const CONSTRUCTOR: &str = "function () { return this.constructor; }";

/// Whether a class name may be a bundler's rename of another: its own name and a number.
fn may_be_renamed(class: &str) -> bool {
    class.ends_with(|c: char| c.is_ascii_digit())
        && class.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
}

/// The UTF-16 column of the last whole-word `name` in `line` before UTF-16 `column`: the
/// class's own name before its `class` keyword (`var Immer2 = class`, `class Immer2 {`).
fn name_before(line: &str, name: &str, column: u32) -> Option<u32> {
    let units: Vec<u16> = line.encode_utf16().collect();
    let wanted: Vec<u16> = name.encode_utf16().collect();
    let end = (column as usize).min(units.len());
    let is_word = |u: u16| {
        char::from_u32(u32::from(u)).is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    (0..end.saturating_sub(wanted.len() - 1))
        .rev()
        .find(|&at| {
            units[at..].starts_with(&wanted)
                && (at == 0 || !is_word(units[at - 1]))
                && units.get(at + wanted.len()).is_none_or(|u| !is_word(*u))
        })
        .and_then(|at| u32::try_from(at).ok())
}

/// A description that is the class's name alone, given the written one.
fn renamed(description: Option<&mut Value>, class: &str, written: &str) {
    if let Some(description) = description.filter(|d| d.as_str() == Some(class)) {
        *description = json!(written);
    }
}

/// The class names written, by the name V8 gives; `None` where the map says no other. Read once
/// per class name.
#[derive(Default)]
pub struct WrittenClasses {
    known: HashMap<String, Option<String>>,
}

impl WrittenClasses {
    /// `value` named by the class the user wrote, where a bundler renamed it and its script's
    /// map says so; any other value as it is.
    pub async fn name(
        &mut self,
        cdp: Option<&Cdp>,
        scripts: &Scripts,
        texts: &mut ScriptTexts,
        mut value: Value,
    ) -> Value {
        let Some(class) = value["className"]
            .as_str()
            .filter(|c| may_be_renamed(c))
            .map(str::to_string)
        else {
            return value;
        };
        let written = match self.known.get(&class) {
            Some(known) => known.clone(),
            None => {
                let found = read_written_class(cdp, scripts, texts, &value, &class).await;
                self.known.insert(class.clone(), found.clone());
                found
            }
        };
        if let Some(written) = written {
            value["className"] = json!(written);
            renamed(value.get_mut("description"), &class, &written);
            let preview = value.get_mut("preview");
            renamed(
                preview.and_then(|p| p.get_mut("description")),
                &class,
                &written,
            );
        }
        value
    }
}

/// The name the map gives class `class` of `value` where its script names it.
async fn read_written_class(
    cdp: Option<&Cdp>,
    scripts: &Scripts,
    texts: &mut ScriptTexts,
    value: &Value,
    class: &str,
) -> Option<String> {
    let cdp = cdp?;
    let object_id = value["objectId"].as_str()?;
    let constructor = cdp
        .call(
            "Runtime.callFunctionOn",
            json!({
                "objectId": object_id,
                "functionDeclaration": CONSTRUCTOR,
                "silent": true,
            }),
        )
        .await
        .ok()?;
    let function_id = constructor["result"]["objectId"].as_str()?.to_string();
    let properties = cdp
        .call(
            "Runtime.getProperties",
            json!({ "objectId": function_id, "ownProperties": true }),
        )
        .await;
    let _ = cdp
        .call("Runtime.releaseObject", json!({ "objectId": function_id }))
        .await;
    let properties = properties.ok()?;
    let location = properties["internalProperties"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == "[[FunctionLocation]]")?["value"]["value"]
        .clone();
    let script = location["scriptId"].as_str()?;
    let line = u32::try_from(location["lineNumber"].as_u64()?).ok()?;
    let column = u32::try_from(location["columnNumber"].as_u64()?).ok()?;
    let map = scripts.get(script).and_then(|s| s.map.clone())?;
    let text = texts.get(Some(cdp), script).await?;
    let at = name_before(text.lines().nth(line as usize)?, class, column)?;
    let end = at + u32::try_from(class.encode_utf16().count()).ok()?;
    map.named_between((line, at), (line, end))
        .find(|(place, _)| *place == (line, at))
        .map(|(_, name)| name.to_string())
        .filter(|name| name != class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_name_with_a_number_may_be_a_bundlers_rename() {
        assert!(may_be_renamed("Immer2"));
        assert!(!may_be_renamed("Immer"));
        assert!(!may_be_renamed("2"));
    }

    #[test]
    fn the_class_name_is_found_before_its_class_keyword() {
        assert_eq!(name_before("var Immer2 = class {", "Immer2", 13), Some(4));
        assert_eq!(name_before("  class Immer2 {", "Immer2", 2), None);
        assert_eq!(name_before("class Immer2 {", "Immer2", 14), Some(6));
        assert_eq!(name_before("var XImmer2 = class {", "Immer2", 14), None);
    }
}
