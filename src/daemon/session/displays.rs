//! Displays in a live session: the `display` command (add, list, remove), and the evaluation of
//! the displays and the one-off `-p` expressions a stop report shows.
//!
//! Apart from the report because it is the one part of it that runs the user's expressions, and
//! from the registry (`daemon/displays.rs`), which outlives the session. A report sends every
//! evaluation at once, beside its source lines and locals, so the displays cost it about one
//! `evaluate` round trip however many there are.

use super::Session;
use super::bounded_evaluation::EvaluationFailure;
use super::rust_evaluation::{RustFailure, RustForm, is_rust_frame};
use crate::common::error::ErrorBody;
use crate::daemon::displays::{self, AtStop, Outcome};
use crate::daemon::run_state::Phase;
use crate::daemon::variables::{self, Limits};
use crate::dap::requests::EvaluateArguments;
use crate::dap::types::{EvaluateBody, StackFrame};
use crate::ipc::protocol::{DisplayList, DisplayValue, RemovedDisplay, StopLocals};

/// What a stop report reads at the stop besides where it is.
#[derive(Debug, Clone)]
pub struct StopAsk {
    /// Which of the frame's locals.
    pub locals: StopLocals,
    /// Whether the session's displays are shown.
    pub displays: bool,
    /// Expressions shown in this report only (`-p EXPR`).
    pub prints: Vec<String>,
}

impl StopAsk {
    /// Where and why only: `status`'s report, a probe's (which reads values its own way).
    pub fn bare() -> StopAsk {
        StopAsk {
            locals: StopLocals::None,
            displays: false,
            prints: Vec::new(),
        }
    }

    /// What a waiting command's report carries: `locals`, the displays, and `prints`.
    pub fn waited(locals: StopLocals, prints: Vec<String>) -> StopAsk {
        StopAsk {
            locals,
            displays: true,
            prints,
        }
    }
}

/// Where a display is evaluated, and how.
struct DisplayTarget {
    frame_id: i64,
    /// The expression without its `@FRAME:` prefix.
    inner: String,
    rust: Option<RustForm>,
}

impl DisplayTarget {
    /// Whether the session reads it by walking the variables, not the adapter's evaluator.
    fn walks(&self) -> bool {
        matches!(self.rust, Some(RustForm::Walk(..)))
    }
}

/// A display's value, cut as `locals` cuts one.
fn display_text(expression: &str, body: EvaluateBody) -> String {
    let limits = Limits::for_locals(0, false);
    variables::node_for(expression, &body.result, body.type_name, limits).value
}

impl Session {
    /// Whether a report for `ask` has expressions to evaluate.
    pub(super) fn evaluates_at_stop(&self, ask: &StopAsk) -> bool {
        (ask.displays && !self.shared.displays.is_empty()) || !ask.prints.is_empty()
    }

    /// The displays (when `ask` wants them) and `ask`'s one-off prints at stop `generation`,
    /// evaluated in frame `frame_id`: every request sent at once, each bounded as `print`'s is
    /// (`bounded_evaluation.rs`), so one that never returns holds the report no longer than its
    /// limit. The displays come in id order, compared with their last values; those a report of
    /// this stop already evaluated are shown as they were.
    pub(super) async fn stop_displays(
        &self,
        ask: &StopAsk,
        frame: &StackFrame,
        generation: u64,
    ) -> Vec<DisplayValue> {
        let registry = &self.shared.displays;
        let AtStop { mut shown, due } = match ask.displays {
            true => registry.at_stop(generation),
            false => AtStop::default(),
        };
        let expressions: Vec<&str> = due
            .iter()
            .map(|(_, expression)| expression.as_str())
            .chain(ask.prints.iter().map(String::as_str))
            .collect();
        // Where each is evaluated: the stopped frame, or the one its `@FRAME:` names (the
        // report has read the stack, so that costs no request).
        let mut targets = Vec::with_capacity(expressions.len());
        for expression in &expressions {
            targets.push(self.display_target(expression, frame).await);
        }
        let limit = self.evaluation_limit(None);
        let mut sent = Vec::with_capacity(targets.len());
        for target in &targets {
            sent.push(match target {
                Ok(target) if !target.walks() => {
                    let arguments = EvaluateArguments::watch(&target.inner, Some(target.frame_id));
                    Some(self.send_bounded(arguments, limit).await)
                }
                _ => None,
            });
        }
        let mut outcomes = Vec::with_capacity(sent.len());
        for ((sent, target), expression) in sent.into_iter().zip(targets).zip(&expressions) {
            let outcome = match (sent, target) {
                (Some(sent), Ok(target)) => {
                    let answer = self.finish_bounded(sent, expression).await;
                    self.display_outcome(&target, answer)
                }
                (None, Ok(target)) => self.walked_display(&target).await,
                (_, Err(why)) => Err(why),
            };
            outcomes.push(outcome);
        }
        let mut outcomes = outcomes.into_iter();
        for ((id, expression), outcome) in due.iter().zip(outcomes.by_ref()) {
            shown.push(registry.record(*id, expression, generation, outcome));
        }
        shown.sort_by_key(|d| d.id);
        for (expression, outcome) in ask.prints.iter().zip(outcomes) {
            shown.push(displays::evaluated(None, expression, None, outcome));
        }
        shown
    }

    /// The frame `expression` is evaluated in and the expression to send there: `frame`, or
    /// the frame its `@FRAME:` prefix names (as `print` reads it); why not, as a display shows
    /// an error.
    async fn display_target(
        &self,
        expression: &str,
        frame: &StackFrame,
    ) -> Result<DisplayTarget, String> {
        let (frame_id, rust_frame, inner) = match self.frame_prefix(expression)? {
            None => (frame.id, is_rust_frame(frame), expression.to_string()),
            Some(at) => {
                let place = self
                    .evaluation_frame(Some(at.frame))
                    .await
                    .map_err(|e| e.message)?;
                let rust = is_rust_frame(&place.frame);
                (place.frame.id, rust, at.expression.to_string())
            }
        };
        Ok(DisplayTarget {
            frame_id,
            rust: self.rust_form(&inner, rust_frame),
            inner,
        })
    }

    /// A display of a Rust expression the session reads itself (`rust_evaluation`).
    async fn walked_display(&self, target: &DisplayTarget) -> Outcome {
        let Some(RustForm::Walk(chain, reading)) = &target.rust else {
            return Err(format!("'{}' was not sent", target.inner));
        };
        match self.rust_evaluate(chain, target.frame_id, *reading).await {
            Ok(body) => Ok(display_text(&target.inner, body)),
            Err(RustFailure::Told(e)) => Err(e.message),
            Err(RustFailure::Root(e)) => Err(self.expression_error(&target.inner, e, true).message),
        }
    }

    /// An evaluation's answer as a display shows it: the value cut as `locals` cuts one, or the
    /// adapter's reason in `print`'s words.
    fn display_outcome(
        &self,
        target: &DisplayTarget,
        answer: Result<EvaluateBody, EvaluationFailure>,
    ) -> Outcome {
        let expression = target.inner.as_str();
        match answer {
            Ok(body) => Ok(display_text(expression, body)),
            Err(EvaluationFailure::Told(e)) => Err(e.message),
            Err(EvaluationFailure::Adapter(e)) => {
                let error = self.expression_error(expression, e, true);
                Err(match &target.rust {
                    Some(form) => self.rust_error(expression, form, error).message,
                    None => error.message,
                })
            }
        }
    }

    /// `display EXPR`: adds a display and, when the program is stopped, evaluates it in the
    /// selected frame. That value is the one this stop's reports show (and the next stop
    /// compares with) only when the selected frame is the one the program stopped in.
    pub async fn display_add(&self, expression: &str) -> Result<DisplayValue, ErrorBody> {
        let expression = expression.trim();
        if expression.is_empty() {
            return Err(ErrorBody::usage(
                "no expression to display",
                "e.g. 'debugger display total' shows total at every stop",
            ));
        }
        let registry = &self.shared.displays;
        let id = registry.add(expression);
        let state = self.shared.run.get();
        let selected = match &state.phase {
            Phase::Stopped(_) => self.selected_frame().await.ok(),
            _ => None,
        };
        let Some((thread_id, index, frame)) = selected else {
            // Not stopped: it shows from the next stop on.
            return Ok(DisplayValue {
                id: Some(id),
                expression: expression.to_string(),
                value: None,
                old_value: None,
                changed: false,
                error: None,
            });
        };
        let outcome = match self.display_target(expression, &frame).await {
            Ok(target) if target.walks() => self.walked_display(&target).await,
            Ok(target) => {
                let arguments = EvaluateArguments::watch(&target.inner, Some(target.frame_id));
                let limit = self.evaluation_limit(None);
                let answer = self.evaluate_bounded(arguments, limit, expression).await;
                self.display_outcome(&target, answer)
            }
            Err(why) => Err(why),
        };
        if self.is_reported_frame(state.generation, thread_id, index) {
            Ok(registry.record(id, expression, state.generation, outcome))
        } else {
            Ok(displays::evaluated(Some(id), expression, None, outcome))
        }
    }

    /// Whether frame `index` of `thread_id` is the one stop `generation`'s report shows.
    fn is_reported_frame(&self, generation: u64, thread_id: i64, index: u32) -> bool {
        let view = self.shared.view();
        match &view.caches.report {
            Some((reported, report, _)) if *reported == generation => {
                report.thread_id == Some(thread_id)
                    && report.frame.as_ref().is_some_and(|f| f.index == index)
            }
            _ => index == 0,
        }
    }

    /// `display`: the session's displays, each with what it showed last.
    pub fn display_list(&self) -> DisplayList {
        DisplayList {
            displays: self.shared.displays.list(),
        }
    }

    /// `display --remove N`.
    pub fn display_remove(&self, id: u32) -> Result<RemovedDisplay, ErrorBody> {
        match self.shared.displays.remove(id) {
            Ok(()) => Ok(RemovedDisplay {
                removed: id,
                displays: self.shared.displays.list(),
            }),
            Err(ids) if ids.is_empty() => Err(ErrorBody::usage(
                format!("no display {id}: this session has no displays"),
                "'debugger display EXPR' adds one",
            )),
            Err(ids) => {
                let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
                Err(ErrorBody::usage(
                    format!("no display {id}: the displays are {}", ids.join(", ")),
                    "'debugger display' lists them",
                ))
            }
        }
    }
}
