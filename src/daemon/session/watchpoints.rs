//! Watchpoints (DAP data breakpoints): `watch EXPR` stops the program where the data changes.
//!
//! Setting one takes two requests: `dataBreakpointInfo` turns the expression into the adapter's
//! handle for its memory, then `setDataBreakpoints` sends every watchpoint at once (like function
//! breakpoints, the list replaces the adapter's). Adapters report a hit without the values, so
//! the session keeps the value it last saw and reads the new one at the stop.

use super::Session;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::Location;
use crate::daemon::breakpoints::{DataHandle, Target};
use crate::dap::requests::{DataBreakpointInfo, DataBreakpointInfoArguments};
use crate::ipc::protocol::{BreakpointInfo, BreakpointSpec, StopReport, WatchChange};

impl Session {
    /// Adds a watchpoint on `spec`'s expression, in the selected frame of the stopped program.
    pub(super) async fn add_watchpoint(
        &self,
        spec: BreakpointSpec,
    ) -> Result<BreakpointInfo, ErrorBody> {
        let Location::Data { expression, .. } = &spec.location else {
            return Err(ErrorBody::internal("a watchpoint without an expression"));
        };
        if !self.capabilities().supports_data_breakpoints {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter has no watchpoints (DAP data breakpoints)",
                    self.adapter().name()
                ),
                "a breakpoint with --condition on the lines that change it can stand in",
            ));
        }
        if spec.log_message.is_some() {
            return Err(ErrorBody::usage(
                "a watchpoint cannot log",
                "use a logpoint on the line that changes it: 'debugger break FILE:LINE --log MSG'",
            ));
        }
        let (_, _, frame) = self.selected_frame().await.map_err(|e| {
            if e.code == ErrorCode::Running || e.code == ErrorCode::NotRunning {
                ErrorBody::new(
                    e.code,
                    format!(
                        "a watchpoint is set where the program is stopped: {}",
                        e.message
                    ),
                    "stop it first ('debugger pause', or a breakpoint in the variable's scope)",
                )
            } else {
                e
            }
        })?;
        let handle = self.data_handle(expression, frame.id, &frame.name).await?;
        let _sync = self.shared.breakpoints.sync.lock().await;
        let id = self
            .shared
            .breakpoints
            .registry()
            .add_with_data(spec, Some(handle));
        self.sync_target(&Target::Data).await;
        self.shared
            .breakpoints
            .registry()
            .get(id)
            .map(|e| e.info())
            .ok_or_else(|| ErrorBody::internal("a new watchpoint vanished"))
    }

    /// Asks the adapter for the handle of `expression`'s memory: as a variable of the frame (or
    /// a member of one) where it is one, else as an expression.
    async fn data_handle(
        &self,
        expression: &str,
        frame_id: i64,
        function: &str,
    ) -> Result<DataHandle, ErrorBody> {
        let arguments = match self.container_of(expression, frame_id).await {
            Ok((container, name)) => DataBreakpointInfoArguments {
                variables_reference: Some(container),
                name,
                frame_id,
            },
            Err(_) => DataBreakpointInfoArguments {
                variables_reference: None,
                name: expression.to_string(),
                frame_id,
            },
        };
        let body = self
            .dap()
            .request_typed::<DataBreakpointInfo>(&arguments)
            .await
            .map_err(|e| cannot_watch(expression, &e.to_string()))?;
        let description = body.description.unwrap_or_else(|| expression.to_string());
        let Some(data_id) = body.data_id else {
            return Err(cannot_watch(expression, &description));
        };
        Ok(DataHandle {
            data_id,
            description,
            last_value: self.value_of(expression, frame_id).await,
            function: function.to_string(),
        })
    }

    /// The value of `expression` in a frame, or `None` when it cannot be read there.
    async fn value_of(&self, expression: &str, frame_id: i64) -> Option<String> {
        let body = self.evaluate_in(expression, frame_id).await.ok()?;
        Some(body.result)
    }

    /// Fills in which watchpoints stopped the program and what they saw change. Where the
    /// adapter does not say which (lldb-dap 19 gives its watchpoints no ids), the ones whose
    /// value changed are named; failing that, every enabled one.
    pub(super) async fn explain_watchpoint_stop(&self, thread_id: i64, report: &mut StopReport) {
        let Ok((frames, _)) = self.frames(thread_id, 1).await else {
            return;
        };
        let Some(top) = frames.first() else {
            return;
        };
        let named = !report.breakpoint_ids.is_empty();
        let ids = if named {
            report.breakpoint_ids.clone()
        } else {
            self.shared
                .breakpoints
                .registry()
                .entries()
                .iter()
                .filter(|e| e.is_watchpoint() && e.enabled && e.verified)
                .map(|e| e.id)
                .collect()
        };
        let mut changes = self.watch_changes(&ids, thread_id, top.id).await;
        // A value that cannot be read from here (a local of another frame) is no sign of change.
        let changed = |c: &WatchChange| c.new_value.is_some() && c.old_value != c.new_value;
        if !named && changes.len() > 1 && changes.iter().any(changed) {
            changes.retain(changed);
        }
        report.breakpoint_ids = changes.iter().map(|c| c.breakpoint_id).collect();
        report.watch = changes;
    }

    /// What the watchpoints that caused a stop saw: the value before (when last seen) and now,
    /// read in the stopped thread's top frame, else in the nearest frame of the function it was
    /// set in.
    async fn watch_changes(&self, ids: &[u32], thread_id: i64, top_frame: i64) -> Vec<WatchChange> {
        let watched: Vec<(u32, String, Option<String>, String)> = {
            let registry = self.shared.breakpoints.registry();
            ids.iter()
                .filter_map(|id| {
                    let entry = registry.get(*id)?;
                    let Location::Data { expression, .. } = &entry.spec.location else {
                        return None;
                    };
                    let data = entry.data.as_ref();
                    let last = data.and_then(|d| d.last_value.clone());
                    let function = data.map(|d| d.function.clone()).unwrap_or_default();
                    Some((*id, expression.clone(), last, function))
                })
                .collect()
        };
        let mut changes = Vec::with_capacity(watched.len());
        for (id, expression, old_value, function) in watched {
            let mut new_value = self.value_of(&expression, top_frame).await;
            if new_value.is_none()
                && let Some(frame) = self.frame_of_function(thread_id, &function).await
            {
                new_value = self.value_of(&expression, frame).await;
            }
            if let Some(handle) = self
                .shared
                .breakpoints
                .registry()
                .get_mut(id)
                .and_then(|e| e.data.as_mut())
                && new_value.is_some()
            {
                handle.last_value = new_value.clone();
            }
            changes.push(WatchChange {
                breakpoint_id: id,
                expression,
                old_value,
                new_value,
            });
        }
        changes
    }
}

impl Session {
    /// The nearest frame of `thread_id` (below the top) running `function`.
    async fn frame_of_function(&self, thread_id: i64, function: &str) -> Option<i64> {
        let (frames, _) = self.frames(thread_id, CALLERS_SEARCHED).await.ok()?;
        frames
            .iter()
            .skip(1)
            .find(|f| f.name == function)
            .map(|f| f.id)
    }
}

/// How many frames a watchpoint's own function is looked for in.
const CALLERS_SEARCHED: u32 = 64;

fn cannot_watch(expression: &str, why: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Adapter,
        format!("cannot watch '{expression}': {why}"),
        "watch a variable or an lvalue in scope here (`debugger locals` lists them), e.g. 'g_counter' or 'acct->balance'",
    )
}
