//! JavaScript values as a terminal shows them: a CDP `RemoteObject` (and its `preview`) becomes
//! the one-line value and the type of a DAP variable, close to what Node's own console prints.

use serde_json::Value;

use super::collection_sizes;

/// The longest one-line value shown for a function's source signature.
const SIGNATURE_LIMIT: usize = 80;

/// The one-line text of a value.
pub fn display(object: &Value) -> String {
    let kind = object["type"].as_str().unwrap_or("undefined");
    match kind {
        "undefined" => "undefined".into(),
        "string" => quote(object["value"].as_str().unwrap_or_default()),
        "number" | "boolean" | "bigint" => object
            .get("unserializableValue")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| object.get("value").map(Value::to_string))
            .or_else(|| description(object))
            .unwrap_or_default(),
        "symbol" => description(object).unwrap_or_else(|| "Symbol()".into()),
        "function" => signature(&description(object).unwrap_or_default()),
        _ => display_object(object),
    }
}

/// The type shown beside a value: a class name for objects, the JavaScript type otherwise.
pub fn type_name(object: &Value) -> String {
    match (object["type"].as_str(), object["subtype"].as_str()) {
        (Some("object"), Some("null")) => "null".into(),
        (Some("object"), _) => object["className"].as_str().unwrap_or("Object").to_string(),
        (Some(kind), _) => kind.to_string(),
        (None, _) => String::new(),
    }
}

/// Whether the value has children worth expanding (objects; functions are left closed, their
/// properties are noise).
pub fn has_children(object: &Value) -> bool {
    object["type"] == "object"
        && object["subtype"] != "null"
        && object.get("objectId").and_then(Value::as_str).is_some()
}

/// The length of an array or typed array, read from its description ("Array(3)").
pub fn array_length(object: &Value) -> Option<u64> {
    if !matches!(object["subtype"].as_str(), Some("array" | "typedarray")) {
        return None;
    }
    let description = object["description"].as_str()?;
    let inner = description.split_once('(')?.1.split_once(')')?.0;
    inner.parse().ok()
}

fn description(object: &Value) -> Option<String> {
    object["description"].as_str().map(str::to_string)
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

/// "function add(a, b)", "class Point", "(x) => …": a function's source cut at its body.
fn signature(source: &str) -> String {
    let first = source.lines().next().unwrap_or_default().trim();
    let head = match first.find('{') {
        Some(at) => first[..at].trim_end(),
        None => first,
    };
    let head = match head.find("=>") {
        Some(at) if !head.starts_with("function") => format!("{} => …", head[..at].trim_end()),
        _ => head.to_string(),
    };
    if head.chars().count() > SIGNATURE_LIMIT {
        let cut: String = head.chars().take(SIGNATURE_LIMIT).collect();
        format!("{cut}…")
    } else {
        head
    }
}

/// The "TypeError: message" line of an error's description. It is usually the first, but a
/// SyntaxError from loading a file starts with the file, the code and a caret.
pub fn error_line(description: &str, class_name: Option<&str>) -> String {
    let lines: Vec<&str> = description.lines().collect();
    lines
        .get(error_line_index(&lines, class_name))
        .copied()
        .unwrap_or_default()
        .to_string()
}

/// Where the "TypeError: message" line is among an error's description's lines.
fn error_line_index(lines: &[&str], class_name: Option<&str>) -> usize {
    let class = class_name.unwrap_or("Error");
    lines
        .iter()
        .position(|line| {
            line.starts_with(&format!("{class}: ")) || line.starts_with(&format!("{class} ["))
        })
        .unwrap_or(0)
}

/// The most lines of an error's message an exception's report shows (an assertion's diff can
/// run to hundreds).
const MESSAGE_LINES: usize = 12;

/// An error's whole message, from its "TypeError: message" line to the stack's first frame: an
/// assertion's message goes on after its first line ("Expected values to be strictly
/// equal:", then "6 !== 7"). Blank lines are left out, and a long message is cut after
/// [`MESSAGE_LINES`] lines, saying how many more it had.
pub fn error_message(description: &str, class_name: Option<&str>) -> String {
    let lines: Vec<&str> = description.lines().collect();
    let start = error_line_index(&lines, class_name);
    let message: Vec<&str> = lines
        .iter()
        .skip(start)
        .take_while(|line| !is_stack_frame(line))
        .copied()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let mut shown: Vec<String> = message
        .iter()
        .take(MESSAGE_LINES)
        .map(|l| l.to_string())
        .collect();
    if message.len() > MESSAGE_LINES {
        shown.push(format!("… ({} more lines)", message.len() - MESSAGE_LINES));
    }
    shown.join("\n")
}

/// "    at f (/a.js:1:1)": a line of V8's stack trace.
fn is_stack_frame(line: &str) -> bool {
    line.starts_with(char::is_whitespace) && line.trim_start().starts_with("at ")
}

fn display_object(object: &Value) -> String {
    let subtype = object["subtype"].as_str().unwrap_or_default();
    let describe = || description(object).unwrap_or_else(|| "Object".into());
    match subtype {
        "null" => "null".into(),
        "error" => error_line(&describe(), object["className"].as_str()),
        "regexp" | "date" | "node" | "proxy" | "generator" | "iterator" => describe(),
        _ => {
            let shown = match object.get("preview") {
                Some(preview) => display_preview(preview, object["className"].as_str()),
                None => describe(),
            };
            match object[collection_sizes::SIZE_NOTE].as_str() {
                Some(note) => format!("{shown} ({note})"),
                None => shown,
            }
        }
    }
}

/// `[1, 2, 3]`, `Point {x: 1, y: 2}`, `Map(1) {"a" => 1}`, `Promise {<pending>}`.
fn display_preview(preview: &Value, class_name: Option<&str>) -> String {
    let subtype = preview["subtype"].as_str().unwrap_or_default();
    let mut overflow = preview["overflow"].as_bool().unwrap_or(false);
    let properties = preview["properties"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let description = preview["description"].as_str().unwrap_or("Object");
    let mut items: Vec<String> = Vec::new();
    if let Some(entries) = preview["entries"].as_array() {
        for entry in entries {
            let value = entry.get("value").map(display_property).unwrap_or_default();
            match entry.get("key") {
                Some(key) => items.push(format!("{} => {value}", display_property(key))),
                None => items.push(value),
            }
        }
    } else if matches!(subtype, "map" | "set" | "weakmap" | "weakset") {
        // No entries: an empty one. V8 previews it by its `size` (`Map(0) {size: 0}`, as
        // Chrome's console shows it); Node's console shows `Map(0) {}`.
    } else if subtype == "promise" {
        let state = properties
            .iter()
            .find(|p| p["name"] == "[[PromiseState]]")
            .and_then(|p| p["value"].as_str())
            .unwrap_or("pending");
        let result = properties
            .iter()
            .find(|p| p["name"] == "[[PromiseResult]]")
            .map(display_property_value);
        return match (state, result) {
            ("pending", _) | (_, None) => format!("Promise {{<{state}>}}"),
            ("rejected", Some(result)) => format!("Promise {{<rejected> {result}}}"),
            (_, Some(result)) => format!("Promise {{{result}}}"),
        };
    } else if matches!(subtype, "array" | "typedarray") {
        let (elements, complete) = array_items(preview, &properties);
        items = elements;
        if complete {
            overflow = false;
        }
    } else {
        for property in &properties {
            let name = property["name"].as_str().unwrap_or_default();
            items.push(format!("{name}: {}", display_property_value(property)));
        }
    }
    if overflow {
        items.push("…".into());
    }
    let body = items.join(", ");
    match subtype {
        "array" if description.starts_with("Array(") => format!("[{body}]"),
        "array" | "typedarray" => format!("{description} [{body}]"),
        "map" | "set" | "weakmap" | "weakset" => format!("{description} {{{body}}}"),
        _ => match class_name.unwrap_or(description) {
            "Object" => format!("{{{body}}}"),
            class => format!("{class} {{{body}}}"),
        },
    }
}

/// What V8's preview of a typed array lists after its own properties: getters of its prototype,
/// which Node's console leaves out (`Uint8Array(3) [0, 0, 0]`).
const TYPED_ARRAY_GETTERS: &[&str] = &[
    "buffer",
    "byteLength",
    "byteOffset",
    "length",
    "Symbol(Symbol.toStringTag)",
];

/// An array's (or typed array's) preview as Node's console shows it: the elements, a run of holes
/// as `<2 empty items>` (the preview lists only the indices that hold something), then its other
/// own properties. Also whether the preview held everything despite its `overflow`: a typed
/// array's preview overflows on its prototype's getters alone.
fn array_items(preview: &Value, properties: &[Value]) -> (Vec<String>, bool) {
    let typed = preview["subtype"] == "typedarray";
    let length = array_length(preview);
    let mut elements = Vec::new();
    let mut named = Vec::new();
    let mut next: u64 = 0;
    let mut getters_reached = false;
    for property in properties {
        let name = property["name"].as_str().unwrap_or_default();
        if let Ok(index) = name.parse::<u64>() {
            if index > next {
                elements.push(empty_items(index - next));
            }
            next = index + 1;
            elements.push(display_property_value(property));
        } else if typed && TYPED_ARRAY_GETTERS.contains(&name) {
            getters_reached = true;
        } else {
            named.push(format!("{name}: {}", display_property_value(property)));
        }
    }
    let overflow = preview["overflow"].as_bool().unwrap_or(false);
    // The holes at the end, when the preview reached the end (it stops early on a long array).
    if let Some(length) = length.filter(|l| *l > next && !overflow) {
        elements.push(empty_items(length - next));
    }
    let complete = getters_reached && length == Some(next);
    elements.extend(named);
    (elements, complete)
}

/// Node's word for a run of holes in an array.
fn empty_items(count: u64) -> String {
    match count {
        1 => "<1 empty item>".to_string(),
        n => format!("<{n} empty items>"),
    }
}

/// A preview entry's key or value (an `ObjectPreview`).
fn display_property(preview: &Value) -> String {
    match preview["type"].as_str() {
        Some("function") => "ƒ".into(),
        Some("object") if preview["subtype"] == "null" => "null".into(),
        Some("object") if preview.get("properties").is_some() => display_preview(preview, None),
        Some("object") => format!(
            "{} {{…}}",
            preview["description"].as_str().unwrap_or("Object")
        ),
        Some("string") => quote(preview["description"].as_str().unwrap_or_default()),
        _ => preview["description"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

/// A preview property's value (a `PropertyPreview`: strings are unquoted in `value`).
fn display_property_value(property: &Value) -> String {
    let value = property["value"].as_str().unwrap_or_default();
    match (property["type"].as_str(), property["subtype"].as_str()) {
        (Some("string"), _) => quote(value),
        (Some("function"), _) => "ƒ".into(),
        // Nested objects are elided as Node's console does, with a mark that says so; an empty
        // one (its description says so) has nothing to elide, and no mark says it has.
        (Some("object"), Some("null")) => "null".into(),
        (Some("object"), Some("array")) if value == "Array(0)" => "[]".into(),
        (Some("object"), Some("array")) => "[…]".into(),
        (Some("object"), Some("map" | "set")) if value.ends_with("(0)") => {
            match value.split_once('(') {
                Some(("Map" | "Set", _)) => format!("{value} {{}}"),
                // A subclass's count is of the entries the Map itself holds: the class may keep
                // its own elsewhere (immer's `DraftMap`).
                Some((class, _)) => format!("{class} {{…}}"),
                None => value.to_string(),
            }
        }
        (Some("object"), Some("regexp" | "date" | "error")) => value.to_string(),
        (Some("object"), _) => match value {
            "Object" => "{…}".into(),
            other => format!("{other} {{…}}"),
        },
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn primitives_read_like_javascript() {
        assert_eq!(
            display(&json!({"type": "number", "value": 3, "description": "3"})),
            "3"
        );
        assert_eq!(
            display(&json!({"type": "number", "unserializableValue": "NaN"})),
            "NaN"
        );
        assert_eq!(
            display(&json!({"type": "string", "value": "a\"b"})),
            "\"a\\\"b\""
        );
        assert_eq!(display(&json!({"type": "undefined"})), "undefined");
        assert_eq!(
            display(&json!({"type": "bigint", "unserializableValue": "10n"})),
            "10n"
        );
        assert_eq!(
            display(&json!({"type": "object", "subtype": "null", "value": null})),
            "null"
        );
    }

    #[test]
    fn functions_show_their_signature_only() {
        let f =
            json!({"type": "function", "description": "function add(a, b) {\n  return a + b;\n}"});
        assert_eq!(display(&f), "function add(a, b)");
        let arrow = json!({"type": "function", "description": "(x) => x * 2"});
        assert_eq!(display(&arrow), "(x) => …");
        let class = json!({"type": "function", "description": "class Point {\n}"});
        assert_eq!(display(&class), "class Point");
    }

    #[test]
    fn objects_and_arrays_show_a_preview() {
        let point = json!({
            "type": "object", "className": "Point", "description": "Point", "objectId": "1",
            "preview": {"type": "object", "description": "Point", "overflow": false, "properties": [
                {"name": "x", "type": "number", "value": "1"},
                {"name": "label", "type": "string", "value": "p"},
            ]},
        });
        assert_eq!(display(&point), "Point {x: 1, label: \"p\"}");
        assert_eq!(type_name(&point), "Point");
        let array = json!({
            "type": "object", "subtype": "array", "className": "Array", "description": "Array(3)",
            "objectId": "2",
            "preview": {"type": "object", "subtype": "array", "description": "Array(3)",
                "overflow": false, "properties": [
                {"name": "0", "type": "number", "value": "1"},
                {"name": "1", "type": "number", "value": "2"},
                {"name": "2", "type": "object", "value": "Object"},
            ]},
        });
        assert_eq!(display(&array), "[1, 2, {…}]");
        let sparse = json!({
            "type": "object", "subtype": "array", "className": "Array", "description": "Array(6)",
            "objectId": "5",
            "preview": {"type": "object", "subtype": "array", "description": "Array(6)",
                "overflow": false, "properties": [
                {"name": "1", "type": "number", "value": "1"},
                {"name": "3", "type": "number", "value": "3"},
                {"name": "foo", "type": "number", "value": "9"},
            ]},
        });
        assert_eq!(
            display(&sparse),
            "[<1 empty item>, 1, <1 empty item>, 3, <2 empty items>, foo: 9]"
        );
        let holes = json!({
            "type": "object", "subtype": "array", "className": "Array", "description": "Array(5)",
            "objectId": "6",
            "preview": {"type": "object", "subtype": "array", "description": "Array(5)",
                "overflow": false, "properties": []},
        });
        assert_eq!(display(&holes), "[<5 empty items>]");
        // V8 lists the prototype's getters after a typed array's own properties, and may
        // overflow on them alone.
        let bytes = json!({
            "type": "object", "subtype": "typedarray", "className": "Uint8Array",
            "description": "Uint8Array(2)", "objectId": "7",
            "preview": {"type": "object", "subtype": "typedarray", "description": "Uint8Array(2)",
                "overflow": true, "properties": [
                {"name": "0", "type": "number", "value": "0"},
                {"name": "1", "type": "number", "value": "7"},
                {"name": "foo", "type": "number", "value": "1"},
                {"name": "buffer", "type": "object", "value": "ArrayBuffer(2)", "subtype": "arraybuffer"},
                {"name": "byteLength", "type": "number", "value": "2"},
            ]},
        });
        assert_eq!(display(&bytes), "Uint8Array(2) [0, 7, foo: 1]");
        assert_eq!(array_length(&array), Some(3));
        let map = json!({
            "type": "object", "subtype": "map", "className": "Map", "description": "Map(1)",
            "objectId": "3",
            "preview": {"type": "object", "subtype": "map", "description": "Map(1)",
                "overflow": false, "properties": [], "entries": [
                {"key": {"type": "string", "description": "a"}, "value": {"type": "number", "description": "1"}},
            ]},
        });
        assert_eq!(display(&map), "Map(1) {\"a\" => 1}");
        let empty = json!({
            "type": "object", "subtype": "map", "className": "Map", "description": "Map(0)",
            "objectId": "6",
            "preview": {"type": "object", "subtype": "map", "description": "Map(0)",
                "overflow": false, "properties": [{"name": "size", "type": "number", "value": "0"}]},
        });
        assert_eq!(display(&empty), "Map(0) {}");
        // A subclass's count is of the Map's own entries, which it may keep elsewhere.
        let holder = json!({
            "type": "object", "className": "Object", "description": "Object",
            "preview": {"type": "object", "description": "Object", "overflow": false,
                "properties": [
                    {"name": "draft", "type": "object", "value": "DraftMap(0)", "subtype": "map"},
                ]},
        });
        assert_eq!(display(&holder), "{draft: DraftMap {…}}");
        let unread = json!({
            "type": "object", "subtype": "set", "className": "CountingSet",
            "description": "CountingSet",
            "sizeNote": "size not read: its own size getter may change the program",
            "preview": {"type": "object", "subtype": "set", "description": "CountingSet",
                "overflow": true, "properties": [], "entries": []},
        });
        assert_eq!(
            display(&unread),
            "CountingSet {…} (size not read: its own size getter may change the program)"
        );
        let holder = json!({
            "type": "object", "className": "Cart", "description": "Cart", "objectId": "7",
            "preview": {"type": "object", "description": "Cart", "overflow": false, "properties": [
                {"name": "items", "type": "object", "value": "Map(0)", "subtype": "map"},
                {"name": "tags", "type": "object", "value": "Set(1)", "subtype": "set"},
                {"name": "list", "type": "object", "value": "Array(0)", "subtype": "array"},
                {"name": "full", "type": "object", "value": "Array(1)", "subtype": "array"},
            ]},
        });
        assert_eq!(
            display(&holder),
            "Cart {items: Map(0) {}, tags: Set(1) {…}, list: [], full: […]}"
        );
        let error = json!({"type": "object", "subtype": "error", "className": "Error",
            "description": "Error: boom\n    at f (/a.js:1:1)", "objectId": "4"});
        assert_eq!(display(&error), "Error: boom");
        let syntax = json!({"type": "object", "subtype": "error", "className": "SyntaxError",
            "description": "/a.js:1\nsyntax error here(\n^^^^^\n\nSyntaxError: Unexpected identifier 'error'\n    at wrapSafe",
            "objectId": "5"});
        assert_eq!(
            display(&syntax),
            "SyntaxError: Unexpected identifier 'error'"
        );
    }

    #[test]
    fn an_errors_message_runs_to_its_stack_and_a_long_one_is_cut() {
        let assertion = "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n\
                         6 !== 7\n\n    at TestContext.<anonymous> (/t.test.js:12:10)\n    at Test.run";
        assert_eq!(
            error_message(assertion, Some("AssertionError")),
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n6 !== 7"
        );
        assert_eq!(
            error_line(assertion, Some("AssertionError")),
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:"
        );
        let diff: Vec<String> = (0..30).map(|i| format!("+   {i},")).collect();
        let long = format!(
            "AssertionError: differ:\n{}\n    at f (/a.js:1:1)",
            diff.join("\n")
        );
        let message = error_message(&long, Some("AssertionError"));
        assert_eq!(message.lines().count(), MESSAGE_LINES + 1, "{message}");
        assert!(message.ends_with("… (19 more lines)"), "{message}");
    }
}
