//! One DAP thread per Node process: the launched one is thread 1, and each child process the
//! program starts (see `children`) is another, with its own inspector connection, scripts,
//! breakpoints and pause.
//!
//! The rest of the adapter works on one process at a time, the one in focus, whose state is the
//! `Debuggee`'s `focus`; the others wait in its `others` and are swapped in when a request names
//! their thread or an event of theirs comes. A new child gets the breakpoint requests
//! made so far, replayed in order, so its breakpoints have the same DAP ids as everyone's.

use super::super::children::ChildEvent;
use super::*;

/// The launched process's thread.
pub const MAIN_THREAD: i64 = 1;

/// A Node process: the one in focus is the `Debuggee`'s `focus`, the others wait in its
/// `others`.
#[derive(Default)]
pub(super) struct Target {
    pub(super) thread: i64,
    pub(super) name: String,
    pub(super) cdp: Option<Cdp>,
    pub(super) scripts: Scripts,
    pub(super) breakpoints: Breakpoints,
    pub(super) paused: Option<Paused>,
    pub(super) handles: Vec<Handle>,
    /// Values set in a frame's scopes while paused: V8's scope objects are snapshots taken at
    /// the stop, so a variable read back from them after `set` would show its old value.
    pub(super) overrides: HashMap<(usize, String), Value>,
    /// V8 pauses before each script with a source map runs (see `set_breakpoints`).
    pub(super) instrumented: bool,
    pub(super) entry_seen: bool,
    pub(super) expecting: Expecting,
    /// Steps taken on our own to get out of Node's internals since the user's last step.
    pub(super) internal_steps: u32,
    /// Which caught exceptions V8 pauses on stop (see `exceptions`).
    pub(super) caught_rule: CaughtRule,
    /// Each script's `try` blocks, scanned at the first exception that asks (see `exceptions`).
    pub(super) try_blocks: HashMap<String, std::sync::Arc<super::super::try_blocks::TryBlocks>>,
}

impl Debuggee {
    /// Brings `thread`'s process into focus; false when there is no such thread.
    pub(super) fn focus(&mut self, thread: i64) -> bool {
        if thread == self.focus.thread {
            return true;
        }
        let Some(at) = self.others.iter().position(|t| t.thread == thread) else {
            return false;
        };
        let mut target = self.others.swap_remove(at);
        std::mem::swap(&mut self.focus, &mut target);
        self.others.push(target);
        true
    }

    /// DAP `threads`: every process.
    pub(super) fn threads(&self) -> Value {
        let mut threads = vec![json!({ "id": self.focus.thread, "name": self.focus.name })];
        threads.extend(
            self.others
                .iter()
                .map(|t| json!({ "id": t.thread, "name": t.name })),
        );
        threads.sort_by_key(|t| t["id"].as_i64());
        json!({ "threads": threads })
    }

    /// Whether a process other than the one in focus is paused.
    pub(super) fn others_paused(&self) -> bool {
        self.others.iter().any(|t| t.paused.is_some())
    }

    /// The threads out of focus.
    pub(super) fn other_threads(&self) -> Vec<i64> {
        self.others.iter().map(|t| t.thread).collect()
    }

    /// A breakpoint request, kept to be replayed in the children that start later.
    pub(super) fn remember(&mut self, request: &BreakpointRequest) {
        self.breakpoint_requests.push(request.clone());
    }

    /// Handles what the children's side says.
    pub async fn on_child(&mut self, event: ChildEvent) {
        match event {
            ChildEvent::Announced { pid, url, name } => {
                if let Err(e) = self.adopt(pid, &url, name).await {
                    tracing::warn!("child process {pid} not debugged: {e}");
                }
            }
            ChildEvent::Event { thread, event } => self.on_event_of(thread, event).await,
            ChildEvent::Closed { thread } => self.child_closed(thread).await,
        }
    }

    /// An event of `thread`'s process, handled with it in focus; the focus is given back.
    pub async fn on_event_of(&mut self, thread: i64, event: CdpEvent) {
        let before = self.focus.thread;
        if !self.focus(thread) {
            return;
        }
        if thread != MAIN_THREAD && event.method == "Runtime.executionContextDestroyed" {
            // The child has finished and waits for its debugger to leave: leave.
            if let Some(cdp) = &self.focus.cdp {
                cdp.close_when_idle();
            }
        }
        self.on_event(event).await;
        self.focus(before);
    }

    /// Connects to a child waiting for its debugger, gives it the breakpoints, and lets it run.
    async fn adopt(&mut self, pid: u32, url: &str, name: String) -> Result<(), String> {
        let Some(children) = self.children.clone() else {
            return Err("the program has ended".into());
        };
        let (cdp, mut events) = Cdp::connect(url).await?;
        self.next_thread += 1;
        let thread = self.next_thread;
        let before = self.focus.thread;
        self.others.push(Target {
            thread,
            name: format!("{name}, pid {pid}"),
            cdp: Some(cdp.clone()),
            entry_seen: true,
            ..Target::default()
        });
        self.focus(thread);
        let set_up = self.set_up_child(&cdp).await;
        self.focus(before);
        if let Err(e) = set_up {
            cdp.close();
            self.others.retain(|t| t.thread != thread);
            return Err(e.to_string());
        }
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if children.send(ChildEvent::Event { thread, event }).is_err() {
                    return;
                }
            }
            let _ = children.send(ChildEvent::Closed { thread });
        });
        self.out
            .event("thread", json!({ "reason": "started", "threadId": thread }))
            .await;
        Ok(())
    }

    async fn set_up_child(&mut self, cdp: &Cdp) -> Result<(), RequestError> {
        // Its console output reaches the program's output through its stdio; the Runtime domain
        // is on for `executionContextDestroyed`, which says when it has finished.
        cdp.call("Runtime.enable", json!({})).await?;
        self.enable(cdp, self.pause_in_assertions).await?;
        for request in self.breakpoint_requests.clone() {
            if let Err(e) = self.set_in_focus(&request).await {
                tracing::info!("a child's {} failed: {e}", request.command());
            }
        }
        cdp.call("Runtime.runIfWaitingForDebugger", json!({}))
            .await?;
        Ok(())
    }

    async fn child_closed(&mut self, thread: i64) {
        let Some(at) = self.others.iter().position(|t| t.thread == thread) else {
            if thread == self.focus.thread && thread != MAIN_THREAD {
                // In focus: give the focus to the launched process, then forget it.
                self.focus(MAIN_THREAD);
                self.others.retain(|t| t.thread != thread);
                self.thread_gone(thread).await;
            }
            return;
        };
        self.others.remove(at);
        self.thread_gone(thread).await;
    }

    async fn thread_gone(&self, thread: i64) {
        self.out
            .event("thread", json!({ "reason": "exited", "threadId": thread }))
            .await;
    }
}
