//! Where the adapter's DAP responses and events go, in order, to the task that frames them for
//! the session (see `server`).

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::error::RequestError;
use super::requests::{Answer, Envelope};
use crate::dap::types::Breakpoint;

/// Where the adapter's responses and events go, in order; `seq` is numbered by the writer.
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

    /// A breakpoint placed anew: bound as its script loaded, or moved where V8 resolved it.
    pub async fn breakpoint_changed(&self, breakpoint: Breakpoint) {
        self.event(
            "breakpoint",
            json!({ "reason": "changed", "breakpoint": breakpoint }),
        )
        .await;
    }

    pub async fn respond(&self, request: &Envelope, answer: Result<Answer, RequestError>) {
        let answer = answer.and_then(|answer| match answer {
            Answer::Done => Ok(None),
            body => serde_json::to_value(body)
                .map(Some)
                .map_err(|e| RequestError::Failed(format!("the answer could not be written: {e}"))),
        });
        let mut response = json!({
            "type": "response",
            "request_seq": request.seq,
            "command": request.command,
            "success": answer.is_ok(),
        });
        match answer {
            Ok(None) => {}
            Ok(Some(body)) => response["body"] = body,
            Err(error) => response["message"] = json!(error.to_string()),
        }
        let _ = self.tx.send(response).await;
    }
}
