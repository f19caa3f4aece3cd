//! Exception filters: which exceptions stop the program (`catch`), set in the configuration
//! phase and changed while it runs.
//!
//! Apart because the filters outlive one request: the session keeps the ids the adapter gave
//! their exception breakpoints, so that a stop naming one (GDB's way) is told as an exception.

use std::sync::Mutex;

use super::{Session, Shared, brief_stop};
use crate::adapters;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::requests::{
    ExceptionBreakpointsBody, SetExceptionBreakpoints, SetExceptionBreakpointsArguments,
};
use crate::dap::types::Capabilities;
use crate::ipc::protocol::{CatchResult, ExceptionFilter};

/// The exception filters in force, and what the adapter made of them.
#[derive(Default)]
pub(super) struct ExceptionFilters {
    names: Vec<String>,
    /// The ids the adapter gave their exception breakpoints, with each filter's label: GDB
    /// reports an exception caught this way as a plain `breakpoint` stop on such an id.
    breakpoints: Vec<(i64, String)>,
}

/// The filters the user chose with `catch`: carried across `restart` with the breakpoints, so
/// a run started again stops on what the one before it did. None until one is chosen, when the
/// adapter's defaults apply.
#[derive(Default)]
pub struct CaughtChoice(Mutex<Option<Vec<String>>>);

impl CaughtChoice {
    pub(super) fn get(&self) -> Option<Vec<String>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn choose(&self, filters: Vec<String>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(filters);
    }
}

impl Shared {
    /// Records `filters` as in force, with the ids the adapter's `setExceptionBreakpoints`
    /// `answer` gave their exception breakpoints (in the same order), each with its label.
    pub(super) fn set_exception_filters(
        &self,
        filters: Vec<String>,
        caps: &Capabilities,
        answer: &ExceptionBreakpointsBody,
    ) {
        let label = |filter: &str| {
            caps.exception_breakpoint_filters
                .iter()
                .flatten()
                .find(|f| f.filter == filter)
                .and_then(|f| f.label.as_deref())
                .unwrap_or(filter)
                .to_string()
        };
        let breakpoints = filters
            .iter()
            .zip(&answer.breakpoints)
            .filter_map(|(filter, bp)| Some((bp.id?, label(filter))))
            .collect();
        *self.exception_filters() = ExceptionFilters {
            names: filters,
            breakpoints,
        };
    }

    fn exception_filters(&self) -> std::sync::MutexGuard<'_, ExceptionFilters> {
        self.exception_filters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The label of the exception filter whose breakpoint a stop names, if it names one.
    pub(super) fn exception_breakpoint_hit(&self, hit_ids: &[i64]) -> Option<String> {
        let known = self.exception_filters();
        hit_ids
            .iter()
            .find_map(|id| {
                known
                    .breakpoints
                    .iter()
                    .find(|(known_id, _)| known_id == id)
            })
            .map(|(_, label)| label.clone())
    }
}

impl Session {
    /// The adapter's exception filters and which are on; with `filters`, sets exactly those.
    pub async fn catch(&self, filters: Option<Vec<String>>) -> Result<CatchResult, ErrorBody> {
        let offered = self
            .capabilities()
            .exception_breakpoint_filters
            .clone()
            .unwrap_or_default();
        if offered.is_empty() {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter offers no exception filters",
                    self.adapter().name()
                ),
                adapters::exception_filters_hint(),
            ));
        }
        let names: Vec<&str> = offered.iter().map(|f| f.filter.as_str()).collect();
        if let Some(wanted) = filters {
            let unknown: Vec<&String> = wanted
                .iter()
                .filter(|f| !names.contains(&f.as_str()))
                .collect();
            if !unknown.is_empty() {
                return Err(ErrorBody::usage(
                    format!(
                        "the {} adapter has no exception filter {}",
                        self.adapter().name(),
                        unknown
                            .iter()
                            .map(|f| format!("'{f}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    format!("its filters are: {}", names.join(", ")),
                ));
            }
            if self.shared.run.get().phase.is_ended() {
                return Err(self.not_running_error(&self.shared.run.get().phase));
            }
            let answer = brief_stop::request_at_a_stop::<SetExceptionBreakpoints>(
                self.dap(),
                &self.shared,
                &SetExceptionBreakpointsArguments {
                    filters: wanted.clone(),
                },
            )
            .await?;
            self.shared.caught.choose(wanted.clone());
            self.shared
                .set_exception_filters(wanted, self.capabilities(), &answer);
        }
        let enabled = self.shared.exception_filters().names.clone();
        Ok(CatchResult {
            adapter: self.adapter().name().to_string(),
            filters: offered
                .into_iter()
                .map(|f| ExceptionFilter {
                    enabled: enabled.contains(&f.filter),
                    label: f.label.unwrap_or_else(|| f.filter.clone()),
                    description: f.description,
                    filter: f.filter,
                })
                .collect(),
        })
    }
}
