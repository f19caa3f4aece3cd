//! PHP values as Xdebug gives them (`<property>` elements) made into DAP variables: each value
//! written as PHP's `var_export` would begin it, and arrays and objects given a reference that
//! reads their members, a page at a time, when asked for.

use serde_json::{Value, json};

use crate::adapters::php::dbgp::Element;

/// How many members Xdebug sends in one page (`max_children`).
pub const PAGE_SIZE: u64 = 100;

/// What a `variablesReference` reads.
#[derive(Debug, Clone)]
pub enum Reference {
    /// A context of a frame (0: locals, 1: superglobals).
    Context { depth: u32, context: u32 },
    /// A value's members, read by its full name in a frame's context.
    Members {
        depth: u32,
        context: u32,
        fullname: String,
        count: u64,
        /// The value is an array (its members are elements), else an object (properties).
        array: bool,
    },
    /// Members given with their value, which has no name to read them by again (the result
    /// of an `eval`).
    Given(Vec<Element>),
}

/// The references of one stop, numbered from 1; the program's next run makes them stale.
#[derive(Debug, Default)]
pub struct References {
    references: Vec<Reference>,
}

impl References {
    pub fn add(&mut self, reference: Reference) -> i64 {
        self.references.push(reference);
        i64::try_from(self.references.len()).unwrap_or(i64::MAX)
    }

    pub fn get(&self, id: i64) -> Option<&Reference> {
        let index = usize::try_from(id).ok()?.checked_sub(1)?;
        self.references.get(index)
    }
}

/// A property's DAP variable; its members become a reference in `references`.
pub fn variable(
    property: &Element,
    depth: u32,
    context: u32,
    references: &mut References,
) -> Value {
    let name = property
        .attr("name")
        .map(str::to_string)
        .unwrap_or_default();
    let mut variable = json!({
        "name": name,
        "value": written(property),
        "type": type_name(property),
        "variablesReference": members(property, depth, context, references),
    });
    if let Some(fullname) = property.attr("fullname") {
        variable["evaluateName"] = json!(fullname);
    }
    variable
}

/// The reference that reads a property's members, 0 for a value without any.
pub fn members(property: &Element, depth: u32, context: u32, references: &mut References) -> i64 {
    if property.attr("children") != Some("1") {
        return 0;
    }
    let count = property
        .attr("numchildren")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    match property.attr("fullname") {
        Some(fullname) => references.add(Reference::Members {
            depth,
            context,
            fullname: fullname.to_string(),
            count,
            array: property.attr("type") == Some("array"),
        }),
        None => references.add(Reference::Given(
            property.children_named("property").cloned().collect(),
        )),
    }
}

/// The type's name: an object's class, else PHP's name of the type.
pub fn type_name(property: &Element) -> String {
    match (property.attr("type"), property.attr("classname")) {
        (Some("object"), Some(class)) => class.to_string(),
        (Some(kind), _) => kind.to_string(),
        (None, _) => String::new(),
    }
}

/// A value as PHP writes it: `42`, `true`, `null`, `"text"`, `array(3)`, and an object by its
/// class (`Greeter`).
pub fn written(property: &Element) -> String {
    let text = property.value();
    match property.attr("type").unwrap_or("") {
        "bool" => if text.trim() == "1" { "true" } else { "false" }.to_string(),
        "null" => "null".to_string(),
        "string" => quoted(&text),
        "array" => format!("array({})", property.attr("numchildren").unwrap_or("0")),
        "object" => property.attr("classname").unwrap_or("object").to_string(),
        "uninitialized" => "uninitialized".to_string(),
        _ => text,
    }
}

/// A string in double quotes, its quotes, backslashes and control characters escaped.
fn quoted(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            '$' => quoted.push_str("\\$"),
            c if c.is_control() => quoted.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Whether an expression names a variable, a property or an element (`$a`, `$this->name`,
/// `$list[0]`, `$map['k']`): Xdebug reads those by name, so their members can be read again.
pub fn is_variable_path(expression: &str) -> bool {
    let expression = expression.trim();
    let Some(rest) = expression.strip_prefix('$') else {
        return false;
    };
    let identifier = |s: &str| -> usize {
        s.char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(s.len(), |(i, _)| i)
    };
    let first = identifier(rest);
    if first == 0 {
        return false;
    }
    let mut rest = &rest[first..];
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("->") {
            let length = identifier(after);
            if length == 0 {
                return false;
            }
            rest = &after[length..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return false;
            };
            let key = &after[..end];
            let simple = key.chars().all(|c| c.is_ascii_digit())
                || (key.len() >= 2
                    && (key.starts_with('\'') && key.ends_with('\'')
                        || key.starts_with('"') && key.ends_with('"'))
                    && !key[1..key.len() - 1].contains(['\'', '"', '$', '\\']));
            if key.is_empty() || !simple {
                return false;
            }
            rest = &after[end + 1..];
        } else {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::php::dbgp::xml::parse;

    #[test]
    fn values_are_written_as_php_writes_them() {
        let property = |xml: &str| parse(xml).expect("parsed");
        assert_eq!(
            written(&property(r#"<property type="int">42</property>"#)),
            "42"
        );
        assert_eq!(
            written(&property(r#"<property type="bool">1</property>"#)),
            "true"
        );
        assert_eq!(written(&property(r#"<property type="null"/>"#)), "null");
        assert_eq!(
            written(&property(
                r#"<property type="string" encoding="base64">YSJi</property>"#
            )),
            r#""a\"b""#
        );
        assert_eq!(
            written(&property(
                r#"<property type="array" children="1" numchildren="3"/>"#
            )),
            "array(3)"
        );
        let object = property(r#"<property type="object" classname="Account" children="1"/>"#);
        assert_eq!(written(&object), "Account");
        assert_eq!(type_name(&object), "Account");
    }

    #[test]
    fn variable_paths_are_told_from_other_expressions() {
        for path in [
            "$a",
            "$this->balance",
            "$list[0]",
            "$map['k']->v",
            "$m[\"k\"]",
        ] {
            assert!(is_variable_path(path), "{path}");
        }
        for other in ["$a + 1", "count($a)", "$a[$i]", "$", "a", "$a->", "$a[f()]"] {
            assert!(!is_variable_path(other), "{other}");
        }
    }
}
