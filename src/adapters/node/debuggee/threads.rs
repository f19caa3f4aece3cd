//! One DAP thread per Node process: the launched one is thread 1, and each child process the
//! program starts (see `children`) is another, with its own inspector connection, scripts,
//! breakpoints and pause.
//!
//! The adapter works on one process at a time, the one in focus; the others wait, and are
//! swapped in when a request names their thread or an event of theirs comes.

use super::super::breakpoints::Breakpoints;
use super::super::cdp::Cdp;
use super::super::scripts::Scripts;
use super::exceptions::CaughtExceptions;
use super::pause::Pause;
use crate::dap::types::{Thread, ThreadsBody};

/// The launched process's thread.
pub const MAIN_THREAD: i64 = 1;

/// What the process's next pause is expected to be.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub enum Expecting {
    #[default]
    Nothing,
    Step,
    Pause,
}

/// A Node process of the program.
#[derive(Default)]
pub struct Process {
    pub thread: i64,
    pub name: String,
    pub cdp: Option<Cdp>,
    pub scripts: Scripts,
    pub breakpoints: Breakpoints,
    pub pause: Pause,
    /// V8 pauses before each script with a source map runs (see `set_breakpoints`).
    pub instrumented: bool,
    pub entry_seen: bool,
    pub expecting: Expecting,
    /// Steps taken on our own to get out of Node's internals since the user's last step.
    pub internal_steps: u32,
    /// Which caught exceptions stop (see `exceptions`).
    pub exceptions: CaughtExceptions,
}

/// The program's processes: the one in focus, and the others.
pub struct Threads {
    pub focus: Process,
    others: Vec<Process>,
    /// The last thread id given to a child.
    next_thread: i64,
}

impl Threads {
    pub fn new() -> Threads {
        Threads {
            focus: Process {
                thread: MAIN_THREAD,
                name: "main".into(),
                ..Process::default()
            },
            others: Vec::new(),
            next_thread: MAIN_THREAD,
        }
    }

    /// Brings `thread`'s process into focus; false when there is no such thread.
    pub fn focus(&mut self, thread: i64) -> bool {
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
    pub fn list(&self) -> ThreadsBody {
        let mut threads: Vec<Thread> = std::iter::once(&self.focus)
            .chain(&self.others)
            .map(|process| Thread {
                id: process.thread,
                name: process.name.clone(),
            })
            .collect();
        threads.sort_by_key(|t| t.id);
        ThreadsBody { threads }
    }

    /// Whether a process other than the one in focus is paused.
    pub fn others_paused(&self) -> bool {
        self.others.iter().any(|t| t.pause.is_paused())
    }

    /// Whether the focus is the only process.
    pub fn alone(&self) -> bool {
        self.others.is_empty()
    }

    /// The threads out of focus.
    pub fn other_threads(&self) -> Vec<i64> {
        self.others.iter().map(|t| t.thread).collect()
    }

    /// A new child process, out of focus, with a thread id of its own.
    pub fn add(&mut self, process: Process) -> i64 {
        self.next_thread += 1;
        let thread = self.next_thread;
        self.others.push(Process { thread, ..process });
        thread
    }

    /// Forgets child `thread`'s process (the focus goes to the launched one if it had it).
    /// Returns whether there was one.
    pub fn remove(&mut self, thread: i64) -> bool {
        if let Some(at) = self.others.iter().position(|t| t.thread == thread) {
            self.others.remove(at);
            return true;
        }
        if thread == self.focus.thread && thread != MAIN_THREAD {
            self.focus(MAIN_THREAD);
            self.others.retain(|t| t.thread != thread);
            return true;
        }
        false
    }
}
