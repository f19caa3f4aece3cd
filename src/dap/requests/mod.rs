//! Typed DAP requests: for each request the session sends, its command, the shape of its
//! arguments and the shape of its answer's body, in the manner of helix-dap's `Request` trait.
//!
//! A misspelt field is then a compile error rather than a request the adapter ignores (or, as
//! lldb-dap does with values it does not know, dies on), and each answer is parsed once, by the
//! client, into the body type every caller reads. The families live in files of their own:
//! [`session`] (configuration and run control), [`inspection`] (threads, frames, values, memory)
//! and [`breakpoints`].
//!
//! The arguments are serialised to a `serde_json::Value` before they are framed, the one form
//! every request takes on its way out (the requests sent as `Value`s too), so the bytes on the
//! wire do not depend on a struct's field order (a `Value` object writes its keys in sorted
//! order).

pub mod breakpoints;
pub mod inspection;
pub mod session;

#[cfg(test)]
mod wire_tests;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::DapError;

pub use breakpoints::*;
pub use inspection::*;
pub use session::*;

/// One DAP request: its command, its arguments, and the body of a successful answer.
pub trait Request {
    /// The `command` field of the request.
    const COMMAND: &'static str;
    /// The `arguments` field, as sent.
    type Arguments: Serialize;
    /// The answer's `body`, as read. Unknown fields are ignored, so an adapter that says more
    /// is fine.
    type Response: DeserializeOwned;
}

/// The body of an answer nobody reads (`continue`, `configurationDone`...): anything is
/// accepted, including none at all, since nothing in it decides what happens next.
pub type NoBody = IgnoredAny;

/// A request's command and arguments ready for the wire, made only from a typed [`Request`]:
/// the form in which a typed request crosses an object-safe boundary (an adapter's hooks get a
/// `&dyn Requests`, which cannot have generic methods).
#[derive(Debug, Clone)]
pub struct Encoded {
    command: &'static str,
    arguments: Value,
}

impl Encoded {
    /// Serialises `arguments` for `R`.
    pub fn new<R: Request>(arguments: &R::Arguments) -> Result<Encoded, DapError> {
        let arguments = serde_json::to_value(arguments).map_err(|e| DapError::Unwritable {
            command: R::COMMAND.to_string(),
            detail: e.to_string(),
        })?;
        Ok(Encoded {
            command: R::COMMAND,
            arguments,
        })
    }

    pub fn command(&self) -> &'static str {
        self.command
    }

    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    pub(super) fn into_parts(self) -> (&'static str, Value) {
        (self.command, self.arguments)
    }
}

/// Reads the body of `R`'s successful answer. An answer without a body reads as an empty one:
/// DAP makes `body` optional, and a body type whose fields all have defaults (`scopes`,
/// `setBreakpoints`) then reads as empty: an adapter that leaves out a list has nothing in it.
pub fn decode<R: Request>(body: Value) -> Result<R::Response, DapError> {
    let body = match body {
        Value::Null => Value::Object(serde_json::Map::new()),
        body => body,
    };
    serde_json::from_value(body).map_err(|e| DapError::Unreadable {
        command: R::COMMAND.to_string(),
        detail: e.to_string(),
    })
}

/// Reads a field, or its default when the value there is not of its type: for the fields an
/// adapter may fill oddly (a number as a string, a list as `null`) where a fallback serves, so
/// one odd value does not fail the whole answer.
pub(crate) fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).unwrap_or_default())
}

/// Reads a list whose entries stand alone (threads, scopes, variables) entry by entry: one we
/// cannot read is left out and the rest are kept, so one odd entry from an adapter costs that
/// entry, not the list. Anything but a list reads as none.
pub(crate) fn readable_entries<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let Value::Array(entries) = Value::deserialize(deserializer)? else {
        return Ok(Vec::new());
    };
    Ok(entries
        .into_iter()
        .filter_map(|entry| T::deserialize(entry).ok())
        .collect())
}

/// Reads a list whose entries answer, by position, the ones asked for (breakpoints) entry by
/// entry: one we cannot read becomes the default (an unverified breakpoint), so the others keep
/// their places. Anything but a list reads as none.
pub(crate) fn entries_in_place<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let Value::Array(entries) = Value::deserialize(deserializer)? else {
        return Ok(Vec::new());
    };
    Ok(entries
        .into_iter()
        .map(|entry| T::deserialize(entry).unwrap_or_default())
        .collect())
}

/// The arguments of a request that takes none: `{}` on the wire.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct NoArguments {}
