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
    ExceptionBreakMode, ExceptionBreakpointsBody, ExceptionOptions, ExceptionPathSegment,
    SetExceptionBreakpoints, SetExceptionBreakpointsArguments,
};
use crate::dap::types::Capabilities;
use crate::ipc::protocol::{CatchResult, ExceptionFilter};

/// The exception filters in force, and what the adapter made of them.
#[derive(Default)]
pub(super) struct ExceptionFilters {
    names: Vec<String>,
    /// Exceptions caught by their class's name (`catch CLASS`).
    classes: Vec<String>,
    /// The ids the adapter gave their exception breakpoints, with each filter's label: GDB
    /// reports an exception caught this way as a plain `breakpoint` stop on such an id.
    breakpoints: Vec<(i64, String)>,
}

/// What `setExceptionBreakpoints` sends for the names `wanted` (filters and classes alike, as
/// `catch` takes them): the ones among the adapter's `offered` filters as filters, and, for an
/// adapter that takes exceptions by class ([`adapters::Profile::exception_classes`]), the rest
/// as classes, each caught or not. Returns the arguments, the filters and the classes.
pub(super) fn exception_arguments(
    category: Option<&str>,
    offered: &[&str],
    wanted: Vec<String>,
) -> (SetExceptionBreakpointsArguments, Vec<String>, Vec<String>) {
    let (filters, others): (Vec<String>, Vec<String>) = wanted
        .into_iter()
        .partition(|name| offered.contains(&name.as_str()));
    let classes = match category {
        Some(_) => others,
        // Only filters the adapter offers: lldb-dap, for one, dies on what it does not know.
        None => Vec::new(),
    };
    let exception_options = classes
        .iter()
        .map(|class| ExceptionOptions {
            path: category
                .into_iter()
                .chain([class.as_str()])
                .map(|name| ExceptionPathSegment {
                    negate: false,
                    names: vec![name.to_string()],
                })
                .collect(),
            break_mode: ExceptionBreakMode::Always,
        })
        .collect();
    let arguments = SetExceptionBreakpointsArguments {
        filters: filters.clone(),
        exception_options,
    };
    (arguments, filters, classes)
}

/// Whether `name` can be a class's name as Java and its kin write it (`IllegalStateException`,
/// `java.lang.IllegalStateException`, `Till$Closed`), or as Ruby does (`Minitest::Assertion`).
fn is_class_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .split("::")
            .flat_map(|part| part.split('.'))
            .all(|part| {
                part.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                    && part
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            })
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
        classes: Vec<String>,
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
            classes,
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
        let category = self.adapter().profile().exception_classes;
        if let Some(wanted) = filters {
            // A name that is no filter is a class's, for an adapter that takes them.
            let unknown: Vec<&String> = wanted
                .iter()
                .filter(|f| !names.contains(&f.as_str()))
                .filter(|f| category.is_none() || !is_class_name(f))
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
                    match category {
                        Some(category) => format!(
                            "its filters are: {}; any other name is an exception class \
                             ({category})",
                            names.join(", ")
                        ),
                        None => format!("its filters are: {}", names.join(", ")),
                    },
                ));
            }
            if self.shared.run.get().phase.is_ended() {
                return Err(self.not_running_error(&self.shared.run.get().phase));
            }
            let (arguments, chosen, classes) =
                exception_arguments(category, &names, wanted.clone());
            let answer = brief_stop::request_at_a_stop::<SetExceptionBreakpoints>(
                self.dap(),
                &self.shared,
                &arguments,
            )
            .await?;
            self.shared.caught.choose(wanted);
            self.shared
                .set_exception_filters(chosen, classes, self.capabilities(), &answer);
        }
        let enabled = self.shared.exception_filters().names.clone();
        let classes = self.shared.exception_filters().classes.clone();
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
            classes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_no_filter_are_classes_where_the_adapter_takes_them() {
        let wanted = vec!["uncaught".to_string(), "java.io.IOException".to_string()];
        let (arguments, filters, classes) = exception_arguments(
            Some("Java Exceptions"),
            &["caught", "uncaught"],
            wanted.clone(),
        );
        assert_eq!(filters, ["uncaught"]);
        assert_eq!(classes, ["java.io.IOException"]);
        assert_eq!(
            arguments.exception_options[0].path[1].names,
            ["java.io.IOException"]
        );
        let (arguments, _, classes) = exception_arguments(None, &["uncaught"], wanted);
        assert!(classes.is_empty() && arguments.exception_options.is_empty());
        assert!(is_class_name("Till$Closed") && is_class_name("java.lang.Error"));
        assert!(is_class_name("Minitest::Assertion") && !is_class_name("Minitest::"));
        assert!(!is_class_name("a b") && !is_class_name("java..Error") && !is_class_name("9x"));
    }
}
