//! A Map or Set subclass that keeps its entries elsewhere (immer's `DraftMap`): V8 describes it
//! by what the Map itself holds, `DraftMap(0) {}`, where the class's own `size` says 3. Such a
//! value is read through its class: the `size` getter, and the entries its iterator gives, each
//! run with V8's side-effect check so that showing a value never changes the program. A getter
//! that would write is not run, and the value says so instead of showing a size it does not have.

use serde_json::{Value, json};

use super::cdp::Cdp;

/// The class's own `size` getter, run on the object (`undefined` when no class between it and
/// Map or Set defines one: V8's count is then the true one).
const OWN_SIZE: &str = "function () { for (let p = Object.getPrototypeOf(this); p && p !== Map.prototype && p !== Set.prototype; p = Object.getPrototypeOf(p)) { const d = Object.getOwnPropertyDescriptor(p, 'size'); if (d && d.get) return d.get.call(this); } return undefined; }";

/// A plain Map or Set of what the object's iterator gives, for V8 to preview.
const ENTRIES_COPY: &str =
    "function () { return this instanceof Map ? new Map(this) : new Set(this); }";

/// The field of a value that says why its size is not shown, which `values::display` appends.
pub const SIZE_NOTE: &str = "sizeNote";

/// `value` as its class reads it, when it is a Map or Set subclass with a `size` getter of its
/// own; any other value as it is.
pub async fn read_through_class(cdp: &Cdp, value: Value) -> Value {
    let Some(object_id) = subclass_object(&value) else {
        return value;
    };
    let class = value["className"].as_str().unwrap_or("Object").to_string();
    let size = match call(cdp, &object_id, OWN_SIZE, false).await {
        Ok(size) if size["type"] == "number" => size["value"].as_u64().ok_or_else(String::new),
        Ok(_) => return value,
        Err(error) => Err(error),
    };
    let size = match size {
        Ok(size) => size,
        Err(error) => {
            let why = if error.contains("side-effect") || error.is_empty() {
                "may change the program".to_string()
            } else {
                format!("threw {error}")
            };
            let mut value = value;
            described(&mut value, &class, None);
            value[SIZE_NOTE] = json!(format!("size not read: its own size getter {why}"));
            return value;
        }
    };
    let mut shown = value.clone();
    if let Ok(copy) = call(cdp, &object_id, ENTRIES_COPY, true).await
        && let Some(preview) = copy.get("preview")
    {
        shown["preview"] = preview.clone();
        if let Some(copy_id) = copy["objectId"].as_str() {
            let _ = cdp
                .call("Runtime.releaseObject", json!({ "objectId": copy_id }))
                .await;
        }
    }
    described(&mut shown, &class, Some(size));
    shown
}

/// The object id of a Map or Set whose class is not Map or Set itself.
fn subclass_object(value: &Value) -> Option<String> {
    let subtype = value["subtype"].as_str()?;
    let class = value["className"].as_str()?;
    let builtin = matches!(class, "Map" | "Set" | "WeakMap" | "WeakSet");
    (matches!(subtype, "map" | "set") && !builtin)
        .then(|| value["objectId"].as_str().map(str::to_string))
        .flatten()
}

/// Describes the value as `DraftMap(3)`, or `CountingSet` when its size is unknown; a preview
/// whose entries were not read (the Map's own, none) says it left them out rather than that
/// there are none.
fn described(value: &mut Value, class: &str, size: Option<u64>) {
    let description = match size {
        Some(size) => format!("{class}({size})"),
        None => class.to_string(),
    };
    value["description"] = json!(description);
    if let Some(preview) = value.get_mut("preview") {
        preview["description"] = json!(description);
        let listed = preview["entries"].as_array().map_or(0, Vec::len) as u64;
        if size.is_none_or(|size| size > listed) {
            preview["overflow"] = json!(true);
        }
    }
}

/// Runs `function` on the object with V8's side-effect check: an error when it would change
/// the program (or throws).
async fn call(cdp: &Cdp, object_id: &str, function: &str, preview: bool) -> Result<Value, String> {
    let answer = cdp
        .call(
            "Runtime.callFunctionOn",
            json!({
                "objectId": object_id,
                "functionDeclaration": function,
                "throwOnSideEffect": true,
                "generatePreview": preview,
                "silent": true,
            }),
        )
        .await?;
    if answer.get("exceptionDetails").is_some() {
        return Err(super::objects::exception_message(
            &answer["exceptionDetails"],
        ));
    }
    Ok(answer["result"].clone())
}
