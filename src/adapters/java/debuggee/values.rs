//! Java values as DAP shows them: primitives as Java prints them, strings quoted, boxed
//! primitives by their value, arrays by their type and length with their elements as children,
//! other objects by their class with their fields as children.

use serde_json::{Value as Json, json};

use super::types::Types;
use crate::adapters::java::jdwp::signatures::{simple_name, type_name};
use crate::adapters::java::jdwp::wire::{Tag, Value};
use crate::adapters::java::jdwp::{Connection, JdwpError};

/// What a value's children are read from, once asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Children {
    Object { id: u64, type_id: u64 },
    Array { id: u64, length: usize },
}

/// A value ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub text: String,
    pub type_name: String,
    pub children: Option<Children>,
}

/// The boxes of the primitives, whose `value` field is the value.
const BOXES: &[&str] = &[
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Short",
    "java.lang.Byte",
    "java.lang.Character",
    "java.lang.Boolean",
    "java.lang.Float",
    "java.lang.Double",
];

/// A primitive as Java prints it; `None` for a reference.
pub fn primitive_text(value: &Value) -> Option<String> {
    Some(match *value {
        Value::Void => "void".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Byte(b) => b.to_string(),
        Value::Short(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Long(l) => l.to_string(),
        Value::Char(c) => match char::from_u32(u32::from(c)) {
            Some(c) => format!("'{}'", c.escape_debug()),
            None => format!("'\\u{c:04x}'"),
        },
        Value::Float(f) => java_decimal(f64::from(f)),
        Value::Double(d) => java_decimal(d),
        Value::Object { .. } => return None,
    })
}

/// A floating-point number as Java writes it: `1.0`, not `1`.
fn java_decimal(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if value.fract() == 0.0 && value.abs() < 1e7 {
        format!("{value:.1}")
    } else {
        format!("{value}")
    }
}

/// The name of a primitive's type.
pub fn primitive_type(value: &Value) -> &'static str {
    match value.tag() {
        Tag::Boolean => "boolean",
        Tag::Byte => "byte",
        Tag::Char => "char",
        Tag::Short => "short",
        Tag::Int => "int",
        Tag::Long => "long",
        Tag::Float => "float",
        Tag::Double => "double",
        Tag::Void => "void",
        _ => "java.lang.Object",
    }
}

/// A Java string literal of `text`.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads what a value shows as. `declared` is the declared type's name, for `null`.
pub async fn show(
    jvm: &Connection,
    types: &mut Types,
    value: &Value,
    declared: &str,
) -> Result<Shown, JdwpError> {
    if let Some(text) = primitive_text(value) {
        return Ok(Shown {
            text,
            type_name: primitive_type(value).into(),
            children: None,
        });
    }
    let Value::Object { tag, id } = *value else {
        return Ok(Shown {
            text: String::new(),
            type_name: declared.into(),
            children: None,
        });
    };
    if id == 0 {
        return Ok(Shown {
            text: "null".into(),
            type_name: declared.into(),
            children: None,
        });
    }
    if tag == Tag::String {
        return Ok(Shown {
            text: quoted(&jvm.string_value(id).await?),
            type_name: "java.lang.String".into(),
            children: None,
        });
    }
    let (_, type_id) = jvm.reference_type(id).await?;
    let name = type_name(&types.signature(jvm, type_id).await?);
    if tag == Tag::Array {
        let length = jvm.array_length(id).await?;
        let element = name.strip_suffix("[]").unwrap_or(&name);
        return Ok(Shown {
            text: format!("{element}[{length}]"),
            type_name: name.clone(),
            children: (length > 0).then_some(Children::Array { id, length }),
        });
    }
    if BOXES.contains(&name.as_str())
        && let Some(field) = jvm
            .fields(type_id)
            .await?
            .into_iter()
            .find(|f| f.name == "value")
        && let Some(inner) = jvm.field_values(id, &[field.id]).await?.first()
        && let Some(text) = primitive_text(inner)
    {
        return Ok(Shown {
            text,
            type_name: name,
            children: None,
        });
    }
    Ok(Shown {
        text: format!("{} (id={id})", simple_name(&name)),
        type_name: name,
        children: Some(Children::Object { id, type_id }),
    })
}

/// An object's instance fields, its class's first, then each superclass's: (name, declared
/// type, value).
pub async fn instance_fields(
    jvm: &Connection,
    object: u64,
    type_id: u64,
) -> Result<Vec<(String, String, Value)>, JdwpError> {
    let mut out = Vec::new();
    let mut class = type_id;
    while class != 0 {
        let fields: Vec<_> = jvm
            .fields(class)
            .await?
            .into_iter()
            .filter(|f| f.modifiers & crate::adapters::java::jdwp::commands::modifiers::STATIC == 0)
            .collect();
        if !fields.is_empty() {
            let ids: Vec<u64> = fields.iter().map(|f| f.id).collect();
            let values = jvm.field_values(object, &ids).await?;
            for (field, value) in fields.into_iter().zip(values) {
                out.push((field.name, type_name(&field.signature), value));
            }
        }
        class = match jvm.superclass(class).await {
            Ok(superclass) => superclass,
            // An interface or array type has none to ask.
            Err(JdwpError::Jvm(_)) => 0,
            Err(e) => return Err(e),
        };
    }
    Ok(out)
}

/// A DAP variable of a shown value, with the reference its children are read by (0: none).
pub fn variable(name: &str, shown: &Shown, reference: i64) -> Json {
    let mut variable = json!({
        "name": name,
        "value": shown.text,
        "type": shown.type_name,
        "variablesReference": reference,
    });
    if let Some(Children::Array { length, .. }) = shown.children {
        variable["indexedVariables"] = json!(length);
    }
    variable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_read_as_java_prints_them() {
        assert_eq!(primitive_text(&Value::Double(1.0)).as_deref(), Some("1.0"));
        assert_eq!(primitive_text(&Value::Float(2.5)).as_deref(), Some("2.5"));
        assert_eq!(
            primitive_text(&Value::Char(u16::from(b'x'))).as_deref(),
            Some("'x'")
        );
        assert_eq!(
            primitive_text(&Value::Boolean(true)).as_deref(),
            Some("true")
        );
        assert_eq!(primitive_text(&Value::Long(-4)).as_deref(), Some("-4"));
        assert_eq!(
            primitive_text(&Value::Object {
                tag: Tag::Object,
                id: 1
            }),
            None
        );
    }

    #[test]
    fn strings_are_quoted_as_literals() {
        assert_eq!(quoted("a\"b\\c\n"), r#""a\"b\\c\n""#);
    }
}
