//! Where an in-process adapter's DAP responses and events go, in order, to the task that numbers
//! and frames them for the session (see `connection`).

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::error::RequestError;
use super::requests::Envelope;

#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Value>,
}

impl Outbox {
    pub fn new(tx: mpsc::Sender<Value>) -> Outbox {
        Outbox { tx }
    }

    pub async fn event(&self, event: &str, body: Value) {
        let _ = self
            .tx
            .send(json!({ "type": "event", "event": event, "body": body }))
            .await;
    }

    pub async fn output(&self, category: &str, text: &str) {
        self.event("output", json!({ "category": category, "output": text }))
            .await;
    }

    /// A breakpoint placed anew: bound as its code loaded, or moved where the runtime put it.
    pub async fn breakpoint_changed(&self, breakpoint: impl Serialize) {
        let breakpoint = serde_json::to_value(breakpoint).unwrap_or_default();
        self.event(
            "breakpoint",
            json!({ "reason": "changed", "breakpoint": breakpoint }),
        )
        .await;
    }

    /// The response to `request`: its body (none when `Null`), or why it failed.
    pub async fn respond(&self, request: &Envelope, answer: Result<Value, RequestError>) {
        let mut response = json!({
            "type": "response",
            "request_seq": request.seq,
            "command": request.command,
            "success": answer.is_ok(),
        });
        match answer {
            Ok(Value::Null) => {}
            Ok(body) => response["body"] = body,
            Err(error) => response["message"] = json!(error.to_string()),
        }
        let _ = self.tx.send(response).await;
    }
}
