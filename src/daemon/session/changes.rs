//! What changed since the last stop: `locals` and every stop report mark the values that differ
//! from the previous stop of the same frame, so one call answers "what did that line do".
//!
//! Apart from inspection because it keeps memory across stops: for each frame (by thread,
//! function and the calls that led to it), the values seen at the last two stops where its locals were read. A value is
//! compared by its text as the adapter gave it, members included, so a struct whose member
//! changed is marked along with that member.

use std::collections::HashMap;

use super::Session;
use crate::common::error::ErrorBody;
use crate::daemon::variables::Limits;
use crate::dap::types::StackFrame;
use crate::ipc::protocol::VariableNode;

/// How deep a stop report reads the locals, as `locals` does by default: a member changed
/// through a pointer (`acct->balance`) shows.
pub(super) const STEP_DEPTH: u32 = 1;

/// Frames whose locals are remembered; past this, the memory starts again (a long session
/// through many functions must not grow without bound).
const FRAMES_REMEMBERED: usize = 256;

/// A frame across stops (DAP frame ids are new at every stop): its thread and function, and
/// where each of its callers stands (their functions and lines, which do not move while it
/// runs). By function alone, a recursive call's caller, or another function of the same name
/// (Python's `A.go` and `B.go`), was compared with a frame it is not, and a `finish` reported
/// changes nobody made.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct FrameKey {
    thread_id: i64,
    function: String,
    file: Option<String>,
    callers: Vec<(String, u32)>,
}

impl FrameKey {
    /// The key of `frames[index]`, whose callers are the frames after it (as far as read).
    pub(super) fn at(thread_id: i64, frames: &[StackFrame], index: usize) -> Option<FrameKey> {
        let frame = frames.get(index)?;
        Some(FrameKey {
            thread_id,
            function: frame.name.clone(),
            file: frame.source.as_ref().and_then(|s| s.path.clone()),
            callers: frames[index + 1..]
                .iter()
                .map(|caller| (caller.name.clone(), caller.line))
                .collect(),
        })
    }
}

/// Each value's text by its path (`acct`, `acct.balance`), at one stop.
#[derive(Debug, Clone, Default)]
struct Snapshot {
    generation: u64,
    values: HashMap<String, String>,
}

/// The last two stops' values of one frame: `current` is the newest stop's, `before` the one
/// it is compared with.
#[derive(Debug, Default)]
struct Seen {
    before: Option<Snapshot>,
    current: Option<Snapshot>,
}

/// Locals seen per frame, kept by the session.
#[derive(Debug, Default)]
pub(super) struct LocalsMemory {
    frames: HashMap<FrameKey, Seen>,
}

impl LocalsMemory {
    /// Records `nodes` as the frame's locals at stop `generation` and marks those that differ
    /// from the frame's previous stop (a name new since then counts as changed). Nothing is
    /// marked when the frame's locals were never read at an earlier stop.
    pub(super) fn observe(&mut self, key: FrameKey, generation: u64, nodes: &mut [VariableNode]) {
        if !self.frames.contains_key(&key) && self.frames.len() >= FRAMES_REMEMBERED {
            self.frames.clear();
        }
        let seen = self.frames.entry(key).or_default();
        let mut values = HashMap::new();
        collect(nodes, "", &mut values);
        let now = Snapshot { generation, values };
        match seen.current.take() {
            Some(current) if current.generation == generation => {
                // Read again at the same stop: compare with the same earlier stop as before,
                // and keep what this read saw (deeper or fuller) where it saw more.
                let mut merged = current;
                merged.values.extend(now.values);
                seen.current = Some(merged);
            }
            Some(current) if current.generation < generation => {
                seen.before = Some(current);
                seen.current = Some(now);
            }
            // A snapshot from the future: the session restarted its count. Start again.
            _ => {
                seen.before = None;
                seen.current = Some(now);
            }
        }
        if let Some(before) = &seen.before {
            mark(nodes, "", before);
        }
    }
}

fn path(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else if name.starts_with('[') {
        format!("{prefix}{name}")
    } else {
        format!("{prefix}.{name}")
    }
}

fn collect(nodes: &[VariableNode], prefix: &str, into: &mut HashMap<String, String>) {
    for node in nodes {
        let at = path(prefix, &node.name);
        collect(&node.children, &at, into);
        into.insert(at, node.value.clone());
    }
}

/// Marks the nodes that differ from `before`; a parent is marked when any member is. Returns
/// whether any was.
fn mark(nodes: &mut [VariableNode], prefix: &str, before: &Snapshot) -> bool {
    let mut any = false;
    for node in nodes.iter_mut() {
        let at = path(prefix, &node.name);
        let member_changed = mark(&mut node.children, &at, before);
        // A local new since then changed; a member not read then (not expanded) is unknown.
        let old = before.values.get(&at);
        let own_changed = match old {
            Some(old) => *old != node.value,
            None => prefix.is_empty(),
        };
        node.old_value = old.filter(|old| **old != node.value).cloned();
        node.changed = own_changed || member_changed;
        any |= node.changed;
    }
    any
}

/// Only the changed nodes, each with only its changed members.
pub fn only_changed(nodes: Vec<VariableNode>) -> Vec<VariableNode> {
    nodes
        .into_iter()
        .filter(|n| n.changed)
        .map(|mut n| {
            if n.children.iter().any(|c| c.changed) {
                n.children = only_changed(n.children);
                n.omitted_children = 0;
            }
            n
        })
        .collect()
}

impl Session {
    /// Reads the selected frame's locals now, so the stop a step leads to has something to be
    /// compared with (when nothing has read them at this stop yet).
    pub(super) async fn note_locals_before_step(&self) -> Result<(), ErrorBody> {
        let (thread_id, index, frame) = self.selected_frame().await?;
        let generation = self.shared.run.get().generation;
        let Some(key) = self.frame_key(thread_id, index).await else {
            return Ok(());
        };
        if self.shared.view().locals_memory.has(&key, generation) {
            return Ok(());
        }
        let mut nodes = self
            .frame_locals(&frame, Limits::for_locals(STEP_DEPTH, false))
            .await?
            .variables;
        self.remember_locals(key, generation, &mut nodes);
        Ok(())
    }

    /// The key of frame `index` of `thread_id` at this stop (its frames are cached by then).
    pub(super) async fn frame_key(&self, thread_id: i64, index: u32) -> Option<FrameKey> {
        let (frames, _) = self.frames(thread_id, index.saturating_add(1)).await.ok()?;
        FrameKey::at(thread_id, &frames, index as usize)
    }

    /// [`LocalsMemory::observe`] under the view's lock; whether an earlier stop was there to
    /// compare with.
    pub(super) fn remember_locals(
        &self,
        key: FrameKey,
        generation: u64,
        nodes: &mut [VariableNode],
    ) -> bool {
        let mut view = self.shared.view();
        view.locals_memory.observe(key.clone(), generation, nodes);
        view.locals_memory.compared(&key)
    }
}

impl LocalsMemory {
    /// Whether the frame's locals were read at stop `generation`.
    fn has(&self, key: &FrameKey, generation: u64) -> bool {
        self.frames
            .get(key)
            .and_then(|seen| seen.current.as_ref())
            .is_some_and(|current| current.generation == generation)
    }

    /// Whether the frame's newest locals have an earlier stop's to be compared with.
    fn compared(&self, key: &FrameKey) -> bool {
        self.frames
            .get(key)
            .is_some_and(|seen| seen.before.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, value: &str, children: Vec<VariableNode>) -> VariableNode {
        VariableNode {
            name: name.into(),
            value: value.into(),
            type_name: None,
            children,
            expandable: false,
            omitted_children: 0,
            methods_omitted: false,
            children_count: None,
            changed: false,
            old_value: None,
        }
    }

    fn key() -> FrameKey {
        FrameKey {
            thread_id: 1,
            function: "apply".into(),
            file: None,
            callers: vec![("main".into(), 48)],
        }
    }

    fn changed(nodes: &[VariableNode]) -> Vec<&str> {
        nodes
            .iter()
            .filter(|n| n.changed)
            .map(|n| n.name.as_str())
            .collect()
    }

    #[test]
    fn values_are_marked_against_the_frames_previous_stop() {
        let mut memory = LocalsMemory::default();
        let mut first = vec![node("a", "1", vec![]), node("b", "2", vec![])];
        memory.observe(key(), 1, &mut first);
        assert!(changed(&first).is_empty(), "nothing to compare with yet");

        let mut second = vec![node("a", "1", vec![]), node("b", "3", vec![])];
        memory.observe(key(), 2, &mut second);
        assert_eq!(changed(&second), ["b"]);
        // Read again at the same stop: the same answer.
        let mut again = vec![node("a", "1", vec![]), node("b", "3", vec![])];
        memory.observe(key(), 2, &mut again);
        assert_eq!(changed(&again), ["b"]);

        // A member not read at the earlier stop is not called changed.
        let mut deeper = vec![
            node("a", "1", vec![node("x", "5", vec![])]),
            node("b", "3", vec![]),
        ];
        memory.observe(key(), 2, &mut deeper);
        assert_eq!(changed(&deeper), ["b"]);
        // A new local counts as changed; another frame is compared with itself only.
        let mut third = vec![
            node("a", "1", vec![]),
            node("b", "3", vec![]),
            node("c", "0", vec![]),
        ];
        memory.observe(key(), 3, &mut third);
        assert_eq!(changed(&third), ["c"]);
        let other = FrameKey {
            function: "main".into(),
            ..key()
        };
        let mut elsewhere = vec![node("a", "9", vec![])];
        memory.observe(other, 3, &mut elsewhere);
        assert!(changed(&elsewhere).is_empty());
        // The same function called from elsewhere (a recursion's caller) is another frame.
        let deeper = FrameKey {
            callers: vec![("apply".into(), 40), ("main".into(), 48)],
            ..key()
        };
        let mut recursed = vec![node("a", "7", vec![])];
        memory.observe(deeper, 4, &mut recursed);
        assert!(changed(&recursed).is_empty());
    }

    #[test]
    fn a_changed_member_marks_its_parent_and_only_changes_are_kept() {
        let mut memory = LocalsMemory::default();
        let acct = |balance: &str| {
            node(
                "acct",
                "0x10",
                vec![node("id", "7", vec![]), node("balance", balance, vec![])],
            )
        };
        let mut first = vec![acct("100"), node("n", "1", vec![])];
        memory.observe(key(), 1, &mut first);
        let mut second = vec![acct("150"), node("n", "1", vec![])];
        memory.observe(key(), 2, &mut second);
        assert_eq!(changed(&second), ["acct"]);
        assert_eq!(changed(&second[0].children), ["balance"]);
        let kept = only_changed(second);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].children.len(), 1);
        assert_eq!(kept[0].children[0].name, "balance");
    }
}
