//! A kept launch: a warm adapter that has been sent the last session's `launch` again and holds
//! its program at `initialized`, for an adapter whose warm policy keeps one launched (debugpy,
//! [`crate::adapters::WarmPolicy::KeptLaunch`]).
//!
//! Apart from `warm_adapter.rs` because this is a second kind of warm adapter, one that holds a
//! program, with its own key and its own hand-over. debugpy's launch is most of its first stop
//! (its launcher and the program's Python started, pydevd imported into it: about 1 s of a 1.2 s
//! probe on the bench's machine), and none of it depends on what a session asks once launched:
//! the program's code has not run (debugpy reads the program's file after `configurationDone`),
//! and breakpoints, exception filters and the rest come in the configuration. So when a session
//! of such an adapter ends, the daemon launches the same program again and keeps it waiting; the
//! next session whose launch is the same, argument for argument ([`launch_key`]), takes it: it
//! reads the events the adapter sent up to `initialized` as if they came to it, adopts the
//! pending `launch`, and goes on with the configuration as any session does.
//!
//! What differs from a fresh launch: the program's process is older than the session (its pid,
//! its start time); its interpreter's start-up (`site`, `.pth` files) ran when it was kept, so a
//! kept launch is given up when any folder that start-up read has changed since (the adapter's
//! facts, [`crate::adapters::WarmPolicy::KeptLaunch`]); the breakpoints of the session come as those of a
//! running program do (debugpy's launch-time `rules` for their files come as the same rules
//! added to the running debugger, `adapters/debugpy/breakpoints.rs`).

use serde_json::Value;
use tokio::sync::mpsc;

use super::Origin;
use crate::adapters::{DebugAdapter, RequestExtras};
use crate::dap::events::Event;
use crate::ipc::protocol::{LaunchSpec, ProcessContext};
use crate::platform::TREE_TAG_VARIABLE;

/// What a kept launch must have been sent to serve `spec`'s session: the `launch` arguments its
/// adapter and the config's extra fields make for it without its breakpoints (they come in the
/// configuration) and less the process tree's tag (whose clean-up ends the program: the one who
/// keeps it sets its own). `None`: `spec` cannot run on a kept launch (the adapter keeps none,
/// the program's channels are the daemon's, or the adapter is at the far end of `--connect`).
pub fn launch_key(
    adapter: &dyn DebugAdapter,
    spec: &LaunchSpec,
    extras: &RequestExtras,
) -> Option<Value> {
    let fits = adapter.profile().warm.keeps_launch()
        && spec.connect.is_none()
        && !spec.tty
        && spec.stdin.is_none();
    if !fits {
        return None;
    }
    let mut arguments = extras.apply("launch", arguments(adapter, spec));
    if let Some(env) = arguments.get_mut("env").and_then(Value::as_object_mut) {
        env.remove(TREE_TAG_VARIABLE);
    }
    Some(arguments)
}

/// `spec`'s `launch` arguments as a kept launch was sent them: no breakpoints (and so, for
/// debugpy, no launch-time rules and no definition look-ups), and the adapter's own pipes for
/// the program's streams.
pub(super) fn arguments(adapter: &dyn DebugAdapter, spec: &LaunchSpec) -> Value {
    let spec = LaunchSpec {
        breakpoints: Vec::new(),
        ..spec.clone()
    };
    adapter.launch_arguments(&spec, None)
}

/// Where `origin`'s program starts, with, for an adapter kept launched, its [`launch_key`]: what
/// a warm adapter must match to serve it.
pub fn warm_context(
    adapter: &dyn DebugAdapter,
    origin: &Origin,
    extras: &RequestExtras,
) -> Option<ProcessContext> {
    let context = origin.process_context()?;
    let launch = match origin {
        Origin::Launch(spec) => launch_key(adapter, spec, extras),
        _ => None,
    };
    Some(ProcessContext { launch, ..context })
}

/// Events on their way to the session at most (as the DAP client's own queue).
const REPLAY_QUEUE: usize = 1024;

/// The session's events: those a warm adapter sent before the session read its stream (while it
/// was made ready, and for a kept launch), then what comes on `rest`.
pub(super) fn replayed(
    earlier: Vec<Value>,
    mut rest: mpsc::Receiver<Event>,
) -> mpsc::Receiver<Event> {
    let earlier: Vec<Event> = earlier
        .into_iter()
        .filter_map(|message| serde_json::from_value(message).ok())
        .collect();
    let (tx, rx) = mpsc::channel(REPLAY_QUEUE);
    tokio::spawn(async move {
        for event in earlier {
            if tx.send(event).await.is_err() {
                return;
            }
        }
        while let Some(event) = rest.recv().await {
            if tx.send(event).await.is_err() {
                return;
            }
        }
    });
    rx
}
