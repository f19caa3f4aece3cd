//! JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line, UTF-8, no embedded
//! newlines. Only what the server needs: telling requests from notifications and from junk, and
//! writing responses, errors and notifications, one whole line at a time, from any thread.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The standard error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// One line read from the client, classified.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A call that wants an answer.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A message that wants none.
    Notification { method: String, params: Value },
    /// The client's answer to a request of ours: the server sends none, so these are dropped.
    Response,
    /// Not JSON-RPC: the error to answer with (`id` is null when it could not be read).
    Invalid {
        id: Value,
        code: i64,
        message: String,
    },
}

/// Reads one line as a JSON-RPC message.
pub fn classify(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                code: PARSE_ERROR,
                message: format!("not JSON: {e}"),
            };
        }
    };
    let Value::Object(mut message) = value else {
        return invalid(
            Value::Null,
            "a message is a JSON object (batches are not supported)",
        );
    };
    let id = message.remove("id");
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id.unwrap_or(Value::Null), "\"jsonrpc\": \"2.0\" is missing");
    }
    let params = message.remove("params").unwrap_or(Value::Null);
    match (message.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) if id.is_string() || id.is_number() => {
            Incoming::Request { id, method, params }
        }
        (Some(Value::String(_)), Some(id)) => invalid(Value::Null, &format!("bad id {id}")),
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(_), id) => invalid(id.unwrap_or(Value::Null), "\"method\" must be a string"),
        (None, Some(_)) if message.contains_key("result") || message.contains_key("error") => {
            Incoming::Response
        }
        (None, id) => invalid(id.unwrap_or(Value::Null), "\"method\" is missing"),
    }
}

fn invalid(id: Value, message: &str) -> Incoming {
    Incoming::Invalid {
        id,
        code: INVALID_REQUEST,
        message: message.to_string(),
    }
}

/// The server's side of the stream: writes whole lines, so the answers of calls running on
/// several threads never interleave.
#[derive(Clone)]
pub struct Outgoing {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Outgoing {
    pub fn new(out: Box<dyn Write + Send>) -> Outgoing {
        Outgoing {
            out: Arc::new(Mutex::new(out)),
        }
    }

    pub fn result(&self, id: &Value, result: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": result }));
    }

    pub fn error(&self, id: &Value, code: i64, message: &str) {
        self.error_with(id, code, message, None);
    }

    /// An error with the `data` member some errors carry (the versions to retry with, say).
    pub fn error_with(&self, id: &Value, code: i64, message: &str, data: Option<Value>) {
        let mut error = json!({ "code": code, "message": message });
        if let Some(data) = data {
            error["data"] = data;
        }
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "error": error }));
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// A client that went away cannot be told anything: write errors end nothing here; the
    /// reader sees the end of its input and ends the server.
    fn send(&self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let mut out = match self.out.lock() {
            Ok(out) => out,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = out.write_all(line.as_bytes());
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_told_apart() {
        let request = classify(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(
            request,
            Incoming::Request {
                id: json!(1),
                method: "ping".into(),
                params: Value::Null
            }
        );
        let note = classify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(matches!(note, Incoming::Notification { .. }));
        let answer = classify(r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#);
        assert_eq!(answer, Incoming::Response);
        for (line, code) in [
            ("{not json", PARSE_ERROR),
            ("[1,2]", INVALID_REQUEST),
            (r#"{"id":1,"method":"ping"}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, INVALID_REQUEST),
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                INVALID_REQUEST,
            ),
        ] {
            let got = classify(line);
            assert!(
                matches!(got, Incoming::Invalid { code: c, .. } if c == code),
                "{line}: {got:?}"
            );
        }
    }
}
