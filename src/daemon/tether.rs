//! A client whose end ends the session: MCP's `end_with_client` (`Command::Tether`).
//!
//! The daemon watches a connection the client holds, not the client's own goodbye: the kernel
//! closes it however the client ends, a SIGKILL included, and its end is seen at once, with
//! nothing polled. A server that exits in its own time still stops its sessions first.
//!
//! Apart from dispatch because the connection is taken over: after its one answer it is only
//! watched.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::io::{AsyncRead, AsyncWrite};

use super::Daemon;
use super::server::hung_up;
use super::slot::Slot;
use crate::common::error::ErrorBody;
use crate::ipc::framing::write_frame_async;
use crate::ipc::protocol::{MessageResult, Response};

impl Daemon {
    /// Serves `Command::Tether` on a connection: ties the session begun last to it, answers, and
    /// when the client's end closes, ends that session as `stop` (or `detach`) does, unless
    /// another has begun since.
    pub(super) async fn tether<R, W>(
        self: &Arc<Self>,
        id: u64,
        detach: bool,
        mut reader: R,
        mut writer: W,
    ) where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let tied = self.starts.load(Ordering::SeqCst);
        let result = match &*self.slot() {
            Slot::Active(_) => Ok(MessageResult {
                message: "the session ends when this connection closes".into(),
            }),
            _ => Err(self.no_session()),
        };
        let result = result.and_then(|message| {
            serde_json::to_value(message).map_err(|e| ErrorBody::internal(e.to_string()))
        });
        let tethered = result.is_ok();
        // A client gone before its answer is written has hung up as surely as one gone later.
        let _ = write_frame_async(&mut writer, &Response { id, result }).await;
        if !tethered {
            return;
        }
        hung_up(&mut reader).await;
        if self.starts.load(Ordering::SeqCst) != tied || !matches!(&*self.slot(), Slot::Active(_)) {
            return;
        }
        tracing::info!("the client the session was tied to is gone; ending the session");
        if self.end(detach).await.is_ok() && !self.spare.is_held() {
            self.shutdown();
        }
    }
}
