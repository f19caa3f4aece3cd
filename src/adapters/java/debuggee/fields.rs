//! An object's instance fields read straight off the wire, without running any of its code:
//! what an exception stop's message is read from.

use crate::adapters::java::jdwp::signatures::type_name;
use crate::adapters::java::jdwp::wire::Value;
use crate::adapters::java::jdwp::{Connection, JdwpError};

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
