//! A request as an in-process adapter receives it, and the reading of its arguments into the
//! typed arguments the client side sends them with (`crate::dap::requests`).

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::RequestError;
use crate::dap::requests::Request as DapRequest;

/// A request as it arrives: its envelope, the arguments still to be read.
#[derive(Debug, Clone, Deserialize)]
pub struct Envelope {
    pub seq: i64,
    pub command: String,
    #[serde(default)]
    pub arguments: Value,
}

/// `R`'s arguments; a request sent without any reads as one with none.
pub fn typed_arguments<R: DapRequest>(arguments: Value) -> Result<R::Arguments, RequestError>
where
    R::Arguments: DeserializeOwned,
{
    read_arguments(R::COMMAND, arguments)
}

/// `command`'s arguments as `T`; none read as an empty object.
pub fn read_arguments<T: DeserializeOwned>(
    command: &str,
    arguments: Value,
) -> Result<T, RequestError> {
    let arguments = match arguments {
        Value::Null => Value::Object(serde_json::Map::new()),
        arguments => arguments,
    };
    serde_json::from_value(arguments).map_err(|e| RequestError::Unreadable {
        command: command.to_string(),
        detail: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dap::requests::Next;

    #[test]
    fn missing_arguments_read_as_none_and_odd_ones_say_which_command() {
        assert!(read_arguments::<serde_json::Map<String, Value>>("threads", Value::Null).is_ok());
        let odd = typed_arguments::<Next>(json!({ "threadId": "three" }));
        assert!(
            matches!(&odd, Err(RequestError::Unreadable { command, .. }) if command == "next"),
            "{odd:?}"
        );
    }
}
