//! A session's process tree, the part every OS shares: the tag that marks it, the walk down its
//! parent links, and the kill that ends it. The OS-specific pieces (the subreaper, reading
//! another process's environment, the Job Object) are in `unix/tree.rs` and `windows.rs`.
//!
//! Everything the launched program starts must end with the session, whether it stayed in the
//! program's process group or not. While the daemon lives its descendants are that tree (on
//! Linux the daemon is a subreaper, so orphans stay its descendants); once it is killed outright
//! the reaper finds the tree by the tag every process of it inherited.

use std::collections::HashSet;
use std::time::Duration;

use super::{children_of, is_running, kill, parent_pid, reap, start_time, tagged_processes};

/// The environment variable that marks every process a daemon starts, and so every process
/// the program starts that keeps its environment (as Jenkins' ProcessTreeKiller marks builds).
pub const TREE_TAG_VARIABLE: &str = "DEBUGGER_SESSION_TAG";

/// How many times [`end_tree`] looks again for processes started while it was killing.
const KILL_ROUNDS: usize = 5;

/// How long [`end_tree`] waits at most for the processes it killed in one round to die (the
/// kernel's teardown of a large process can take a while) before it looks again.
const DEATH_LIMIT: Duration = Duration::from_millis(100);

/// How often processes are looked at for their death, where the OS cannot tell us of it.
const LOOK_EVERY: Duration = Duration::from_millis(1);

/// A tag no other session has: 128 random bits, from std's randomly keyed hasher (no crate is
/// needed for a value that only has to be unguessable by accident, not by an adversary).
pub fn new_tree_tag() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut halves = [0u64; 2];
    for (i, half) in halves.iter_mut().enumerate() {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.write_usize(i);
        if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            hasher.write_u128(now.as_nanos());
        }
        *half = hasher.finish();
    }
    format!("{:016x}{:016x}", halves[0], halves[1])
}

/// Puts `tag` in this process's environment, so every process started from now on carries it.
///
/// # Safety
///
/// The process must have one thread: the environment is not guarded against a concurrent read.
pub unsafe fn tag_this_tree(tag: &str) {
    // SAFETY: the caller's contract is set_var's own.
    unsafe { std::env::set_var(TREE_TAG_VARIABLE, tag) };
}

/// Every process below `root` by parent links, children before nothing in particular. A child
/// that started before its supposed parent is a reused pid's, not a descendant, and is left out.
pub fn descendants_of(root: u32) -> Vec<u32> {
    descendants_sparing(root, &[])
}

/// [`descendants_of`], leaving out each of `spare` and everything below it.
fn descendants_sparing(root: u32, spare: &[u32]) -> Vec<u32> {
    let mut found = Vec::new();
    let mut seen = HashSet::from([root]);
    let mut queue = vec![root];
    while let Some(parent) = queue.pop() {
        let parent_started = start_time(parent);
        for child in children_of(parent) {
            let plausible = match (parent_started, start_time(child)) {
                (Some(parent), Some(child)) => child >= parent,
                _ => true,
            };
            if plausible && !spare.contains(&child) && seen.insert(child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found
}

/// Kills a session's tree: every live descendant of this process and, with `tag`, every process
/// carrying it that started no earlier than `since`, sparing this process and `spare` (the
/// reaper; a daemon this process started, with everything below it). It looks again after each
/// round, so a child forked while the kill ran goes too.
/// Returns how many processes it killed.
pub fn end_tree(tag: Option<&str>, since: Option<u64>, spare: &[u32]) -> usize {
    let me = std::process::id();
    let mut killed = HashSet::new();
    for _ in 0..KILL_ROUNDS {
        let mut targets = descendants_sparing(me, spare);
        // Those whose parents die first come to this process; their exits are its to collect.
        super::may_adopt(&targets);
        if let Some(tag) = tag {
            targets.extend(
                tagged_processes(TREE_TAG_VARIABLE, tag)
                    .into_iter()
                    .filter(|pid| {
                        since.is_none_or(|since| start_time(*pid).is_some_and(|t| t >= since))
                    })
                    .filter(|pid| !below_spared(*pid, spare, me)),
            );
        }
        targets.retain(|pid| *pid != me && !spare.contains(pid) && is_running(*pid));
        if targets.is_empty() {
            break;
        }
        let round: Vec<u32> = targets
            .into_iter()
            .filter(|pid| kill(*pid).is_ok())
            .collect();
        killed.extend(round.iter().copied());
        // Once they are dead, whatever they forked before dying is in the process table for the
        // next round to find. Their deaths are waited for, not a fixed pause, which would cost
        // every probe its length.
        wait_gone(&round, DEATH_LIMIT);
    }
    collect_zombies(&killed, me);
    super::reap_adopted();
    killed.len()
}

/// Ends `below`, the processes `root` started (listed while it lived), once `root` has died:
/// killed, and, those left to this process (a subreaper on Linux, which adopts them), collected,
/// so none stays a zombie for the daemon's life. Blocks, up to [`REAP_PATIENCE`]: call it off the
/// runtime's threads. Patient because on a loaded machine a killed process can take longer than
/// a round's limit to die and come to us, and one not collected then never was.
pub fn end_below(root: u32, below: &[u32]) {
    wait_gone(&[root], DEATH_LIMIT * 10);
    for pid in below {
        if is_running(*pid) {
            let _ = kill(*pid);
        }
    }
    // Also those that died by themselves as `root` did (a launcher ends its program).
    let me = std::process::id();
    let family: HashSet<u32> = below.iter().copied().chain([root]).collect();
    let mut left: HashSet<u32> = below.iter().copied().collect();
    let deadline = std::time::Instant::now() + REAP_PATIENCE;
    while !left.is_empty() && std::time::Instant::now() < deadline {
        left.retain(|pid| match parent_pid(*pid) {
            // Gone from the process table.
            None => false,
            Some(parent) if parent == me => !reap(*pid),
            // Still its dying parent's, to come to us; anyone else's is theirs to collect.
            Some(parent) => family.contains(&parent),
        });
        if !left.is_empty() {
            std::thread::sleep(LOOK_EVERY * 10);
        }
    }
}

/// How long [`end_below`] goes on collecting what it killed.
const REAP_PATIENCE: Duration = Duration::from_secs(10);

/// How far up [`below_spared`] looks for a spared ancestor.
const ANCESTORS_LOOKED_AT: usize = 64;

/// Whether `pid` is below one of `spare` (its child, grandchild, ...), looking up its parents as
/// far as `me`. A spared process's own children carry the tag too: a warm debugpy adapter started
/// through pyenv's shim is a shell for its first 50-100 ms, running `pyenv` commands whose death
/// makes the shell fail, so a session's end in that time killed the warm adapter with them.
fn below_spared(pid: u32, spare: &[u32], me: u32) -> bool {
    let mut current = pid;
    for _ in 0..ANCESTORS_LOOKED_AT {
        match parent_pid(current) {
            Some(parent) if spare.contains(&parent) => return true,
            Some(parent) if parent != me && parent > 1 => current = parent,
            _ => return false,
        }
    }
    false
}

/// Waits until `pid` has died (is a zombie or gone), for at most `limit`: whether it has.
pub fn wait_for_death(pid: u32, limit: Duration) -> bool {
    wait_gone(&[pid], limit);
    !is_running(pid)
}

/// Waits until each of `pids` has died (is a zombie or gone), for at most `limit`: told of the
/// deaths where the OS can (Linux's pidfds), else looking every [`LOOK_EVERY`].
fn wait_gone(pids: &[u32], limit: Duration) {
    #[cfg(target_os = "linux")]
    if super::wait_exits(pids, limit) {
        return;
    }
    let deadline = std::time::Instant::now() + limit;
    while pids.iter().any(|pid| is_running(*pid)) && std::time::Instant::now() < deadline {
        std::thread::sleep(LOOK_EVERY);
    }
}

/// Collects the exits of the killed processes that are this process's children now (orphans it
/// adopted as a subreaper), once they have died, so none stays a zombie for the daemon's life (a
/// `restart` keeps the daemon).
fn collect_zombies(killed: &HashSet<u32>, me: u32) {
    let waiting: Vec<u32> = killed
        .iter()
        .copied()
        .filter(|pid| parent_pid(*pid) == Some(me))
        .collect();
    wait_gone(&waiting, DEATH_LIMIT);
    for pid in waiting {
        reap(pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_differ() {
        let (a, b) = (new_tree_tag(), new_tree_tag());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
