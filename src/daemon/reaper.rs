//! The reaper: a tiny companion process that ends what the daemon (or a `probe`) launched if it is
//! killed outright (SIGKILL, OOM killer), when it can run no clean-up itself.
//!
//! The adapter dies with the daemon through the parent-death signal, but what the adapter started
//! (lldb-server, the debuggee) is not our child and would live on. So the daemon starts the reaper
//! with a pipe on its stdin and tells it each launched debuggee's pid. The kernel closes the pipe
//! when the daemon dies, however it dies; on that end-of-file, unless the daemon said "disarm" on a
//! clean exit, the reaper kills the recorded processes (checking each one's start time, so a reused
//! pid is never hit) and the daemon's process group, which holds the adapter and its helpers. An
//! attached process is never recorded: it is not ours to kill.
//!
//! What the program started may have left both its group and its parent (`setsid`, a double
//! fork). The daemon tags its environment (`platform::TREE_TAG_VARIABLE`), which every process
//! it starts inherits; the reaper, told the tag, also kills every process that carries it and
//! started after the daemon did. The same tree is what the daemon ends on `stop`
//! ([`Reaper::end_tree`]).

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use crate::common::scratch;
use crate::platform;

/// The daemon's side: a pipe to the reaper.
pub struct Reaper {
    child: Child,
    stdin: Mutex<Option<ChildStdin>>,
    /// The tag of the daemon's tree, and when the daemon started: no process of the tree is
    /// older.
    tree: Option<(String, Option<u64>)>,
    /// Processes of the tree that belong to no session (the warm adapter, see
    /// `daemon/warm.rs`): [`Reaper::end_tree`] leaves them be.
    apart: Mutex<Vec<u32>>,
    /// Held while such a process is being started, until its pid is in `apart`, and by
    /// [`Reaper::end_tree`]: a session's end never catches it between its start and its record.
    starting_apart: tokio::sync::Mutex<()>,
}

impl Reaper {
    /// Starts the reaper. `None` when it cannot be started (the caller runs on without it).
    ///
    /// With `kill_group`, the caller's process group dies with it too, adapter helpers and all:
    /// right for the daemon, which leads a group of its own. `probe` runs in its caller's group
    /// (a shell pipeline's, say), which is not ours to kill: its reaper kills only the debuggee.
    ///
    /// With `tree_tag` (the daemon's, see [`crate::platform::tag_this_tree`]), every process
    /// carrying the tag is killed too.
    pub fn start(kill_group: bool, tree_tag: Option<&str>) -> Option<Reaper> {
        let exe = std::env::current_exe().ok()?;
        // Only a daemon that leads its own process group may have the group killed: never the
        // group of a shell the daemon was started from by hand.
        let group = platform::own_process_group().filter(|_| kill_group);
        let mut command = Command::new(exe);
        command.arg("reaper");
        if let Some(group) = group {
            command.args(["--group", &group.to_string()]);
        }
        let since = platform::start_time(std::process::id());
        if let Some(tag) = tree_tag {
            command.args(["--tree-tag", tag]);
            if let Some(since) = since {
                command.args(["--since", &since.to_string()]);
            }
        }
        command.arg("--scratch").arg(scratch::own_dir());
        platform::own_group(&mut command);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| tracing::warn!("cannot start the reaper: {e}"))
            .ok()?;
        let stdin = child.stdin.take();
        Some(Reaper {
            child,
            stdin: Mutex::new(stdin),
            tree: tree_tag.map(|tag| (tag.to_string(), since)),
            apart: Mutex::default(),
            starting_apart: tokio::sync::Mutex::new(()),
        })
    }

    /// The tag of the daemon's process tree, which the launched program's environment carries.
    pub fn tree_tag(&self) -> Option<&str> {
        self.tree.as_ref().map(|(tag, _)| tag.as_str())
    }

    /// Starts a process that belongs to no session (by `start`), and keeps [`Reaper::end_tree`]
    /// off it until [`Reaper::rejoin`]: it is still killed should the daemon die.
    pub async fn start_apart<T, E>(
        &self,
        start: impl Future<Output = Result<T, E>>,
        pid: impl FnOnce(&T) -> Option<u32>,
    ) -> Result<T, E> {
        let _gate = self.starting_apart.lock().await;
        let started = start.await?;
        if let Some(pid) = pid(&started) {
            self.apart().push(pid);
        }
        Ok(started)
    }

    /// Makes `pid`, started by [`Reaper::start_apart`], part of the tree again (a session took it,
    /// or it has ended).
    pub fn rejoin(&self, pid: u32) {
        self.apart().retain(|p| *p != pid);
    }

    fn apart(&self) -> std::sync::MutexGuard<'_, Vec<u32>> {
        self.apart.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Kills what is left of the session's process tree (see the module's doc): the program's
    /// children and grandchildren, wherever they went. Never the reaper, nor the daemon, nor what
    /// was started apart, nor a daemon this process started (nor anything below it). Blocks:
    /// call it off the runtime's threads.
    pub fn end_tree(&self) {
        let (tag, since) = match &self.tree {
            Some((tag, since)) => (Some(tag.as_str()), *since),
            None => (None, None),
        };
        let _gate = self.starting_apart.blocking_lock();
        let mut spared = self.apart().clone();
        spared.push(self.child.id());
        // Daemons this process started (a probe run by `debugger mcp`) and their sessions.
        let killed = crate::ipc::spawn::with_spawned_daemons(|daemons| {
            spared.extend(daemons);
            platform::end_tree(tag, since, &spared)
        });
        if killed > 0 {
            tracing::info!(killed, "ended what was left of the program's process tree");
        }
    }

    fn send(&self, line: &str) {
        let mut stdin = self.stdin.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pipe) = stdin.as_mut()
            && writeln!(pipe, "{line}").and_then(|_| pipe.flush()).is_err()
        {
            tracing::warn!("the reaper is gone");
            *stdin = None;
        }
    }

    /// Records a process to kill should the daemon die.
    pub fn watch(&self, pid: u32) {
        self.send(&format!("watch {pid}"));
    }

    /// Tells the reaper the daemon is exiting cleanly: it kills nothing.
    pub fn disarm(&self) {
        self.send("disarm");
        self.stdin.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// How long the reaper waits for its daemon to die once the pipe has closed, before it removes
/// the daemon's scratch folder: a `probe` of an MCP server closes the pipe while the server runs on.
const OWNER_DEATH_LIMIT: Duration = Duration::from_secs(5);

/// Entry point of `debugger reaper`: reads the daemon's pipe until it ends. `scratch` is the
/// daemon's scratch folder, removed once the daemon is gone, however it went.
pub fn run(
    group: Option<i32>,
    tree_tag: Option<&str>,
    since: Option<u64>,
    scratch: Option<&Path>,
) -> i32 {
    let owner = platform::parent_pid(std::process::id());
    let mut watched: Vec<(u32, Option<u64>)> = Vec::new();
    let mut disarmed = false;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match line.split_once(' ') {
            Some(("watch", pid)) => {
                if let Ok(pid) = pid.trim().parse::<u32>() {
                    watched.push((pid, platform::start_time(pid)));
                }
            }
            _ if line.trim() == "disarm" => disarmed = true,
            _ => {}
        }
    }
    if !disarmed {
        end_what_was_left(watched, group, tree_tag, since);
    }
    if let (Some(scratch), Some(owner)) = (scratch, owner)
        && platform::wait_for_death(owner, OWNER_DEATH_LIMIT)
    {
        scratch::remove(scratch);
    }
    0
}

/// Ends what a daemon killed outright left running: the debuggees it told of, its process
/// group, and its tree by the tag.
fn end_what_was_left(
    watched: Vec<(u32, Option<u64>)>,
    group: Option<i32>,
    tree_tag: Option<&str>,
    since: Option<u64>,
) {
    for (pid, started) in watched {
        if started.is_some() && platform::start_time(pid) == started {
            let _ = platform::kill(pid);
        }
    }
    if let Some(group) = group {
        platform::kill_process_group(group);
    }
    if tree_tag.is_some() {
        platform::end_tree(tree_tag, since, &[]);
    }
}
