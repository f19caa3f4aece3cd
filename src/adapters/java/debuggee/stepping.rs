//! `next`, `step` and `finish` as JDWP line steps, taken as justMyCode does: the JDK's own
//! classes (`java.*`, `jdk.*`, `sun.*`) are stepped over, and a step that lands in code the
//! compiler made (a bridge method, an accessor; not a lambda's body, which the user wrote) or
//! in a method without line numbers is taken on from there. So is a step that lands on a line
//! Kotlin inlined from another file (numbered past the end of the class's own file, see
//! `smap`): it goes on over those lines to one of the file's own.

use super::types::Types;
use crate::adapters::java::jdwp::commands::{Modifier, StepDepth, modifiers};
use crate::adapters::java::jdwp::events::{EventKind, SuspendPolicy};
use crate::adapters::java::jdwp::wire::Location;
use crate::adapters::java::jdwp::{Connection, JdwpError};

/// The classes a step never stops in.
const EXCLUDED: &[&str] = &["java.*", "jdk.*", "sun.*", "com.sun.*"];

/// How many times a step is taken on from code the user did not write before it stops anyway.
const MAX_AGAIN: u32 = 20;

/// What a step's arrival means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// It ended: the program stops here.
    Stop,
    /// It goes on (landed in code the user did not write).
    Again,
    /// Not the step under way (one cancelled since).
    NotOurs,
}

#[derive(Default)]
pub struct Stepping {
    /// The request under way, its thread and depth.
    current: Option<(i32, u64, StepDepth)>,
    again: u32,
}

impl Stepping {
    pub async fn start(
        &mut self,
        jvm: &Connection,
        thread: u64,
        depth: StepDepth,
    ) -> Result<(), JdwpError> {
        self.cancel(jvm).await;
        self.again = 0;
        self.request(jvm, thread, depth).await
    }

    async fn request(
        &mut self,
        jvm: &Connection,
        thread: u64,
        depth: StepDepth,
    ) -> Result<(), JdwpError> {
        let mut filters = vec![Modifier::Step { thread, depth }];
        filters.extend(
            EXCLUDED
                .iter()
                .map(|pattern| Modifier::ClassExclude((*pattern).to_string())),
        );
        let request = jvm
            .set_event(EventKind::SingleStep, SuspendPolicy::All, &filters)
            .await?;
        self.current = Some((request, thread, depth));
        Ok(())
    }

    /// Clears the step under way, if any (a breakpoint ended it, or the program ran on).
    pub async fn cancel(&mut self, jvm: &Connection) {
        if let Some((request, _, _)) = self.current.take() {
            let _ = jvm.clear_event(EventKind::SingleStep, request).await;
        }
    }

    /// A step arrived at `location`: stop there, or take it on.
    pub async fn arrived(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        request: i32,
        thread: u64,
        location: &Location,
    ) -> StepOutcome {
        let Some((current, _, depth)) = self.current else {
            return StepOutcome::NotOurs;
        };
        if current != request {
            return StepOutcome::NotOurs;
        }
        self.cancel(jvm).await;
        if self.again >= MAX_AGAIN {
            return StepOutcome::Stop;
        }
        let method = types
            .method(jvm, location.class, location.method)
            .await
            .ok()
            .flatten();
        let made_by_compiler = method.as_ref().is_some_and(|m| {
            (modifiers::is_synthetic(m.modifiers) || m.modifiers & modifiers::BRIDGE != 0)
                && !m.name.starts_with("lambda$")
        });
        let line = types.line_of(jvm, location).await.ok().flatten();
        let inlined = match line {
            Some(line) => types
                .last_own_line(jvm, location.class)
                .await
                .ok()
                .flatten()
                .is_some_and(|last| line > last),
            None => false,
        };
        let next = match (made_by_compiler, line.is_some(), inlined) {
            // Through a bridge or accessor to the method it calls.
            (true, _, _) => Some(StepDepth::Into),
            (false, false, _) => Some(StepDepth::Out),
            // Over the inlined function's lines, in this frame, to the file's own next line
            // (a lambda's body passed to it is one).
            (false, true, true) => Some(StepDepth::Over),
            (false, true, false) => None,
        };
        match next {
            Some(next) => {
                self.again += 1;
                let depth = if depth == StepDepth::Out && !inlined {
                    depth
                } else {
                    next
                };
                match self.request(jvm, thread, depth).await {
                    Ok(()) => StepOutcome::Again,
                    Err(_) => StepOutcome::Stop,
                }
            }
            None => StepOutcome::Stop,
        }
    }
}
