//! The program's objects through CDP: their properties (pages of an array built in the program),
//! previews, values as call arguments, and what a thrown exception says.

use serde_json::{Value, json};

use super::cdp::Cdp;

/// A page of an array is built in the program by this function (`this` is the array), so a
/// million-element array costs what the page costs.
const ARRAY_PAGE: &str = "function (start, count) { const page = {}; const end = Math.min(this.length, start + count); for (let i = start; i < end; i++) page[i] = this[i]; return page; }";

/// "ReferenceError: nosuch is not defined" from a CDP `exceptionDetails`.
pub fn exception_message(details: &Value) -> String {
    details["exception"]["description"]
        .as_str()
        .and_then(|d| d.lines().next())
        .map(str::to_string)
        .or_else(|| {
            details["exception"]
                .get("value")
                .map(|v| format!("Uncaught {v}"))
        })
        .or_else(|| details["text"].as_str().map(str::to_string))
        .unwrap_or_else(|| "the expression threw".into())
}

/// A value as an argument of a CDP call.
pub fn call_argument(value: &Value) -> Value {
    if let Some(id) = value.get("objectId") {
        return json!({ "objectId": id });
    }
    if let Some(unserializable) = value.get("unserializableValue") {
        return json!({ "unserializableValue": unserializable });
    }
    match value.get("value") {
        Some(v) => json!({ "value": v }),
        None => json!({}),
    }
}

/// An object's own properties (and the internal ones worth seeing: `[[Entries]]` of a Map,
/// `[[PrimitiveValue]]`, a promise's state, a Proxy's `[[Target]]`, which holds what the proxy
/// stands for and has no own properties of its own to list), as name and value.
pub async fn own_properties(cdp: &Cdp, object_id: &str) -> Result<Vec<(String, Value)>, String> {
    let answer = cdp
        .call(
            "Runtime.getProperties",
            json!({
                "objectId": object_id,
                "ownProperties": true,
                "generatePreview": true,
            }),
        )
        .await?;
    let mut properties = Vec::new();
    for property in answer["result"].as_array().into_iter().flatten() {
        let name = property["name"].as_str().unwrap_or_default();
        if name == "__proto__" {
            continue;
        }
        match property.get("value") {
            Some(value) => properties.push((name.to_string(), value.clone())),
            None if property.get("get").is_some_and(|g| g["type"] == "function") => {
                properties.push((
                    name.to_string(),
                    json!({ "type": "accessor", "description": "(getter)" }),
                ));
            }
            None => {}
        }
    }
    for property in answer["privateProperties"].as_array().into_iter().flatten() {
        if let (Some(name), Some(value)) = (property["name"].as_str(), property.get("value")) {
            properties.push((name.to_string(), value.clone()));
        }
    }
    for property in answer["internalProperties"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let name = property["name"].as_str().unwrap_or_default();
        if matches!(
            name,
            "[[Entries]]"
                | "[[PrimitiveValue]]"
                | "[[PromiseState]]"
                | "[[PromiseResult]]"
                | "[[Target]]"
        ) && let Some(value) = property.get("value")
        {
            // V8 previews no internal property's object.
            let value = with_preview(cdp, value.clone()).await;
            properties.push((name.to_string(), value));
        }
    }
    Ok(properties)
}

/// The object with a preview (`this` at a stop comes without one, and would read "Account"
/// where every other object reads `Account {owner: "ada", ...}`).
pub async fn with_preview(cdp: &Cdp, object: Value) -> Value {
    let Some(object_id) = object["objectId"]
        .as_str()
        .filter(|_| object.get("preview").is_none())
    else {
        return object;
    };
    let answer = cdp
        .call(
            "Runtime.callFunctionOn",
            json!({
                "objectId": object_id,
                "functionDeclaration": "function () { return this; }",
                "generatePreview": true,
                "silent": true,
            }),
        )
        .await;
    match answer {
        Ok(answer) if answer["result"].get("objectId").is_some() => answer["result"].clone(),
        _ => object,
    }
}

/// Elements `start..start+count` of an array.
pub async fn array_page(
    cdp: &Cdp,
    object_id: &str,
    start: u64,
    count: u64,
) -> Result<Vec<(String, Value)>, String> {
    let page = cdp
        .call(
            "Runtime.callFunctionOn",
            json!({
                "objectId": object_id,
                "functionDeclaration": ARRAY_PAGE,
                "arguments": [{ "value": start }, { "value": count }],
                "silent": true,
            }),
        )
        .await?;
    let Some(page_id) = page["result"]["objectId"].as_str() else {
        return Ok(Vec::new());
    };
    let elements = own_properties(cdp, page_id).await;
    let _ = cdp
        .call("Runtime.releaseObject", json!({ "objectId": page_id }))
        .await;
    elements
}
