//! One DAP thread per Node process: the launched one is thread 1, and each child process the
//! program starts (see `children`) is another, with its own inspector connection, scripts,
//! breakpoints and pause.
//!
//! The rest of the adapter works on one process at a time, the one in focus, whose state is in
//! the `Debuggee`'s own fields; the others wait in [`Target`]s and are swapped in when a request
//! names their thread or an event of theirs comes. A new child gets the breakpoint requests
//! made so far, replayed in order, so its breakpoints have the same DAP ids as everyone's.

use super::super::children::ChildEvent;
use super::*;

/// The launched process's thread.
pub const MAIN_THREAD: i64 = 1;

/// A Node process out of focus: the fields of `Debuggee` that are per process.
#[derive(Default)]
pub(super) struct Target {
    thread: i64,
    name: String,
    cdp: Option<Cdp>,
    scripts: Scripts,
    breakpoints: Breakpoints,
    paused: Option<Paused>,
    handles: Vec<Handle>,
    overrides: HashMap<(usize, String), Value>,
    instrumented: bool,
    entry_seen: bool,
    expecting: Expecting,
    internal_steps: u32,
    caught_rule: CaughtRule,
}

impl Debuggee {
    fn swap_with(&mut self, target: &mut Target) {
        std::mem::swap(&mut self.thread, &mut target.thread);
        std::mem::swap(&mut self.thread_name, &mut target.name);
        std::mem::swap(&mut self.cdp, &mut target.cdp);
        std::mem::swap(&mut self.scripts, &mut target.scripts);
        std::mem::swap(&mut self.breakpoints, &mut target.breakpoints);
        std::mem::swap(&mut self.paused, &mut target.paused);
        std::mem::swap(&mut self.handles, &mut target.handles);
        std::mem::swap(&mut self.overrides, &mut target.overrides);
        std::mem::swap(&mut self.instrumented, &mut target.instrumented);
        std::mem::swap(&mut self.entry_seen, &mut target.entry_seen);
        std::mem::swap(&mut self.expecting, &mut target.expecting);
        std::mem::swap(&mut self.internal_steps, &mut target.internal_steps);
        std::mem::swap(&mut self.caught_rule, &mut target.caught_rule);
    }

    /// Brings `thread`'s process into focus; false when there is no such thread.
    pub(super) fn focus(&mut self, thread: i64) -> bool {
        if thread == self.thread {
            return true;
        }
        let Some(at) = self.others.iter().position(|t| t.thread == thread) else {
            return false;
        };
        let mut target = self.others.swap_remove(at);
        self.swap_with(&mut target);
        self.others.push(target);
        true
    }

    /// DAP `threads`: every process.
    pub(super) fn threads(&self) -> Value {
        let mut threads = vec![json!({ "id": self.thread, "name": self.thread_name })];
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
    pub(super) fn remember(&mut self, command: &str, arguments: &Value) {
        self.breakpoint_requests
            .push((command.to_string(), arguments.clone()));
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
        let before = self.thread;
        if !self.focus(thread) {
            return;
        }
        if thread != MAIN_THREAD && event.method == "Runtime.executionContextDestroyed" {
            // The child has finished and waits for its debugger to leave: leave.
            if let Some(cdp) = &self.cdp {
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
        let before = self.thread;
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
            return Err(e);
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

    async fn set_up_child(&mut self, cdp: &Cdp) -> Result<(), String> {
        // Its console output reaches the program's output through its stdio; the Runtime domain
        // is on for `executionContextDestroyed`, which says when it has finished.
        cdp.call("Runtime.enable", json!({})).await?;
        self.enable(cdp, self.pause_in_assertions).await?;
        for (command, arguments) in self.breakpoint_requests.clone() {
            if let Err(e) = self.set_in_focus(&command, &arguments).await {
                tracing::info!("a child's {command} failed: {e}");
            }
        }
        cdp.call("Runtime.runIfWaitingForDebugger", json!({}))
            .await?;
        Ok(())
    }

    async fn child_closed(&mut self, thread: i64) {
        let Some(at) = self.others.iter().position(|t| t.thread == thread) else {
            if thread == self.thread && thread != MAIN_THREAD {
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
