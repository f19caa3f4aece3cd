//! What a command produced, in the form every front door turns into its own output: the CLI
//! prints the text (or, with `--json`, an envelope around the data); a server sends both.

use serde::Serialize;
use serde_json::Value;

use crate::common::error::ErrorBody;

/// What a command produced: the `--json` data and the text for people, and, for a command whose
/// result is also a failure (a `probe` that hit nothing), the error that sets the exit status.
pub struct Outcome {
    pub data: Value,
    pub text: String,
    pub error: Option<ErrorBody>,
}

impl Outcome {
    pub fn new(data: Value, text: impl Into<String>) -> Outcome {
        Outcome {
            data,
            text: text.into(),
            error: None,
        }
    }

    /// A result that is also a failure: both are shown, and the error sets the exit status.
    pub fn failed(self, error: ErrorBody) -> Outcome {
        Outcome {
            error: Some(error),
            ..self
        }
    }
}

/// Serialises a result for `data`.
pub fn data<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
