//! The stopped frame's values in a stop report: read once per stop, alongside the report's
//! source lines rather than after them, marked against the frame's previous stop as `locals`
//! marks them, and bounded so a report stays a screenful.
//!
//! Apart from the report because it is the one part of it that reads values, and from
//! `changes.rs` because that remembers values across stops while this chooses what a report
//! shows of one stop's. The read is remembered by `changes.rs` too, so a `next` after the report
//! compares with it and does not read the locals again before it resumes.

use super::Session;
use super::changes::{FrameKey, STEP_DEPTH, only_changed};
use crate::daemon::variables::Limits;
use crate::dap::types::StackFrame;
use crate::ipc::protocol::{StopLocals, StopReport, VariableNode};

/// The most locals a report lists; the rest are counted ("N more: `debugger locals`").
pub const STOP_LOCALS_SHOWN: usize = 12;

/// The locals read at one stop, every one the read returned, marked.
#[derive(Debug, Clone)]
pub(super) struct StopValues {
    nodes: Vec<VariableNode>,
    /// Left out by the read's own cap on a scope's children.
    omitted: u64,
    /// Whether an earlier stop of the frame was there to compare with.
    compared: bool,
}

impl StopValues {
    /// Puts into `report` what `mode` asks for of these values.
    pub(super) fn fill(&self, report: &mut StopReport, mode: StopLocals) {
        report.changed = None;
        report.locals = Vec::new();
        report.locals_omitted = 0;
        let nodes = match mode {
            StopLocals::None => return,
            StopLocals::Changed => only_changed(self.nodes.clone()),
            StopLocals::All => self.nodes.clone(),
        };
        if self.compared {
            report.changed = Some(only_changed(self.nodes.clone()));
        }
        let extra = if mode == StopLocals::All {
            self.omitted
        } else {
            0
        };
        let (shown, left_out) = bound(nodes, STOP_LOCALS_SHOWN);
        report.locals = shown;
        report.locals_omitted = left_out + extra;
    }
}

/// At most `max` of `nodes`, in their order: the changed ones first to be kept, then the rest
/// from the top. Also how many were left out.
fn bound(nodes: Vec<VariableNode>, max: usize) -> (Vec<VariableNode>, u64) {
    if nodes.len() <= max {
        return (nodes, 0);
    }
    let left_out = (nodes.len() - max) as u64;
    let mut keep = vec![false; nodes.len()];
    let mut room = max;
    for pass_changed in [true, false] {
        for (index, node) in nodes.iter().enumerate() {
            if room > 0 && !keep[index] && node.changed == pass_changed {
                keep[index] = true;
                room -= 1;
            }
        }
    }
    let shown = nodes
        .into_iter()
        .zip(keep)
        .filter_map(|(node, kept)| kept.then_some(node))
        .collect();
    (shown, left_out)
}

impl Session {
    /// Reads the locals of `frames[index]` of `thread_id` at stop `generation`, as `locals`
    /// does, and remembers them for what changes next. `None` when they cannot be read: the
    /// report goes out without them.
    pub(super) async fn read_stop_values(
        &self,
        thread_id: i64,
        index: usize,
        frames: &[StackFrame],
        generation: u64,
    ) -> Option<StopValues> {
        let frame = frames.get(index)?;
        let result = self
            .frame_locals(frame, Limits::for_locals(STEP_DEPTH, false))
            .await
            .ok()?;
        let mut nodes = result.variables;
        let compared = match FrameKey::at(thread_id, frames, index) {
            Some(key) => self.remember_locals(key, generation, &mut nodes),
            None => false,
        };
        Some(StopValues {
            nodes,
            omitted: result.omitted,
            compared,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::protocol::StopReason;

    fn node(name: &str, changed: bool) -> VariableNode {
        VariableNode {
            name: name.into(),
            value: "1".into(),
            type_name: None,
            children: Vec::new(),
            expandable: false,
            omitted_children: 0,
            methods_omitted: false,
            children_count: None,
            changed,
            old_value: None,
        }
    }

    #[test]
    fn the_bound_keeps_changed_locals_and_the_order() {
        let nodes: Vec<_> = (0..5).map(|i| node(&format!("v{i}"), i == 4)).collect();
        let (shown, left_out) = bound(nodes, 3);
        let names: Vec<_> = shown.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["v0", "v1", "v4"]);
        assert_eq!(left_out, 2);
        let (all, none) = bound(vec![node("a", false)], 3);
        assert_eq!((all.len(), none), (1, 0));
    }

    #[test]
    fn the_mode_chooses_what_the_report_carries() {
        let values = StopValues {
            nodes: vec![node("a", false), node("b", true)],
            omitted: 3,
            compared: true,
        };
        let mut report = StopReport::empty(StopReason::Breakpoint);
        values.fill(&mut report, StopLocals::All);
        assert_eq!(report.locals.len(), 2);
        assert_eq!(report.locals_omitted, 3);
        assert_eq!(report.changed.as_ref().map(Vec::len), Some(1));
        values.fill(&mut report, StopLocals::Changed);
        assert_eq!(report.locals.len(), 1);
        assert_eq!(report.locals_omitted, 0);
        values.fill(&mut report, StopLocals::None);
        assert!(report.locals.is_empty() && report.changed.is_none());
    }
}
