//! Run control: `continue`, `next`, `step`, `finish`, `pause`, `await`, and waiting for the stop
//! a resume or pause leads to.
//!
//! Apart from the reports and the inspection because its discipline is the run state's: a
//! resume marks the program running before it sends the request (so the stop it causes is
//! always newer), and a stop nobody has been shown is answered rather than skipped.

use std::time::Duration;

use super::Session;
use super::displays::StopAsk;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::run_state::{Phase, RunState};
use crate::dap::requests::{Pause, Resume, ThreadArguments};
use crate::ipc::protocol::{ResumeAction, SessionState, StopLocals, StopReport};

/// How many times, and how often, a pause that has not stopped the program is sent again.
const PAUSE_RETRIES: u32 = 5;
const PAUSE_RETRY_AFTER: Duration = Duration::from_millis(300);
/// How long a resume of a program found dead waits for its end to be told (lldb-dap tells
/// within about half a second, the program watch within two of its rounds).
const END_TOLD_WITHIN: Duration = Duration::from_secs(5);

impl Session {
    /// `continue`, `next`, `step`, `finish`, optionally waiting for the next stop, whose report
    /// carries what `ask` wants read there.
    pub async fn resume(
        &self,
        action: ResumeAction,
        wait: Option<Duration>,
        ask: &StopAsk,
    ) -> Result<(SessionState, Option<StopReport>), ErrorBody> {
        let state = self.shared.run.get();
        match &state.phase {
            Phase::Running | Phase::Starting => {
                if action != ResumeAction::Continue {
                    return Err(ErrorBody::running());
                }
                // Already running: `continue --wait` just waits for the next stop.
                return match wait {
                    Some(timeout) => self.wait_after(state.generation, timeout, ask).await,
                    None => Ok((SessionState::Running, None)),
                };
            }
            Phase::Stopped(_) => {}
            Phase::Exited { .. } if self.claim_unseen(&state) => {
                // The program ended before anyone was shown it (e.g. it exited before the first
                // `continue` because its only breakpoint never bound). Like an unseen stop, that
                // end is the answer, once; the next resume is the "has exited" error.
                let mut report = self.report(&state).await;
                let already = format!(
                    "the program had already ended before this {}",
                    action.verb()
                );
                report.note = Some(match report.note.take() {
                    Some(note) => format!("{already}; {note}"),
                    None => already,
                });
                return Ok((state.phase.state(), Some(report)));
            }
            _ => return Err(self.not_running_error(&state.phase)),
        }
        if action == ResumeAction::Continue
            && self.shared.view().selection.seen_generation < state.generation
        {
            // The program stopped after the caller last looked (e.g. `start --break f` ran
            // straight into `f`). Resuming would skip a stop nobody has seen: report it instead.
            let mut report = self.report_with(&state, ask).await;
            report.note = Some(
                "the program had already stopped here before this continue; it was not resumed"
                    .into(),
            );
            return Ok((SessionState::Stopped, Some(report)));
        }
        if self.shared.program.launched_died() {
            // Killed while stopped (SIGKILL): its adapter will tell of the end, or the program
            // watch will. Resuming first would have lldb-dap 19 write to its helper, gone with
            // the program, and die of SIGPIPE: the end is the answer.
            return self
                .wait_after(state.generation, END_TOLD_WITHIN, ask)
                .await;
        }
        let thread_id = self.current_thread().await?;
        let step = action != ResumeAction::Continue;
        if step && wait.is_some() && ask.locals != StopLocals::None {
            // The step's report marks what changed: the locals before it are the baseline, read
            // here only when the report of this stop did not read them. Unreadable locals only
            // cost the report its marks.
            let _ = self.note_locals_before_step().await;
        }
        // How a finish's results are read, where they are read after the return (Delve).
        let planned = match (action, wait) {
            (ResumeAction::Finish, Some(_)) => self.plan_return_value(thread_id).await,
            _ => None,
        };
        let request = match action {
            ResumeAction::Continue => Resume::Continue,
            ResumeAction::Next => Resume::Next,
            ResumeAction::Step => Resume::StepIn,
            ResumeAction::Finish => Resume::StepOut,
        };
        // Commands reading the stop finish first (see `RunControl::take_stop`); until the request is sent,
        // none starts.
        let held = self.shared.run.take_stop().await;
        // Mark the program running before sending, so the stop the request causes (which may
        // overtake the response) is always newer than this generation.
        // Only from the stop we looked at: if the program moved on meanwhile (it exited), say so.
        let Some(running) = self.shared.run.advance_if(Phase::Running, state.generation) else {
            let now = self.shared.run.get();
            let report = self.report(&now).await;
            return Ok((now.phase.state(), Some(report)));
        };
        self.shared.view().caches.frames = None;
        self.shared.run.step_sent(action != ResumeAction::Continue);
        if let Err(err) = request.send(self.dap(), thread_id).await {
            // Nothing moved: put the stop back as it was (same generation, so it is not "new").
            self.shared.run.step_sent(false);
            self.shared.run.restore(&state, running);
            return Err(err.into());
        }
        drop(held);
        let Some(timeout) = wait else {
            return Ok((SessionState::Running, None));
        };
        if action == ResumeAction::Finish {
            let state = self.settled_after(running, timeout).await?;
            let report = self.finish_report(&state, ask, planned).await;
            return Ok((state.phase.state(), Some(report)));
        }
        self.wait_after(running, timeout, ask).await
    }

    /// Interrupts the program; with `wait`, reports the resulting stop.
    pub async fn pause(
        &self,
        wait: Option<Duration>,
        ask: &StopAsk,
    ) -> Result<(SessionState, Option<StopReport>), ErrorBody> {
        let state = self.shared.run.get();
        match &state.phase {
            Phase::Stopped(_) => {
                let report = self.report_with(&state, ask).await;
                return Ok((SessionState::Stopped, Some(report)));
            }
            Phase::Running | Phase::Starting => {}
            other => return Err(self.not_running_error(other)),
        }
        let selected = self.shared.view().selection.thread;
        let thread_id = match selected {
            Some(id) => id,
            None => self.first_thread_id().await.unwrap_or(0),
        };
        self.shared.run.pause_sent(true);
        if let Err(e) = self
            .dap()
            .request_typed::<Pause>(&ThreadArguments { thread_id })
            .await
        {
            self.shared.run.pause_sent(false);
            return Err(e.into());
        }
        self.insist_on_pause(state.generation, thread_id);
        match wait {
            Some(timeout) => self.wait_after(state.generation, timeout, ask).await,
            None => Ok((SessionState::Pausing, None)),
        }
    }

    /// Asks again while a pause has not stopped the program. A pause that reaches lldb-dap just
    /// after a `continue` was answered, but before the process really runs, is answered
    /// "success" with no stop at all, and the program then runs on; so the daemon asks again a
    /// few times, until a stop comes or the state moves on (another client resumed it).
    fn insist_on_pause(&self, generation: u64, thread_id: i64) {
        let shared = self.shared.clone();
        let dap = self.dap().clone();
        tokio::spawn(async move {
            for _ in 0..PAUSE_RETRIES {
                if shared
                    .run
                    .wait_settled_after(generation, PAUSE_RETRY_AFTER)
                    .await
                    .is_some()
                    || shared.run.get().generation != generation
                {
                    return;
                }
                tracing::info!("the pause has not stopped the program yet; asking again");
                let _ = dap
                    .request_typed::<Pause>(&ThreadArguments { thread_id })
                    .await;
            }
        });
    }

    /// `await`: the current stop or end at once, else the next one.
    pub async fn await_stop(
        &self,
        timeout: Duration,
        ask: &StopAsk,
    ) -> Result<StopReport, ErrorBody> {
        let state = self.shared.run.get();
        if let Phase::AdapterDied { .. } = state.phase {
            return Err(self.not_running_error(&state.phase));
        }
        if state.phase.is_settled() {
            return Ok(self.report_with(&state, ask).await);
        }
        self.wait_after(state.generation, timeout, ask)
            .await
            .and_then(|(_, report)| report.ok_or_else(|| ErrorBody::internal("no stop report")))
    }

    /// The first stop or end of a program just started, waited for up to `timeout`: its report
    /// with what `ask` wants read there (which then counts as shown), or `None`
    /// while it still runs. Unlike `await`, running
    /// past the wait is an answer, not an error: a server may never stop.
    pub async fn first_stop(
        &self,
        timeout: Duration,
        ask: &StopAsk,
    ) -> Result<Option<StopReport>, ErrorBody> {
        let state = self.shared.run.get();
        if let Phase::AdapterDied { .. } = state.phase {
            return Err(self.not_running_error(&state.phase));
        }
        if state.phase.is_settled() {
            return Ok(Some(self.report_with(&state, ask).await));
        }
        match self
            .shared
            .run
            .wait_settled_after(state.generation, timeout)
            .await
        {
            Some(state) if matches!(state.phase, Phase::AdapterDied { .. }) => {
                Err(self.not_running_error(&state.phase))
            }
            Some(state) => Ok(Some(self.report_with(&state, ask).await)),
            None => Ok(None),
        }
    }

    async fn wait_after(
        &self,
        generation: u64,
        timeout: Duration,
        ask: &StopAsk,
    ) -> Result<(SessionState, Option<StopReport>), ErrorBody> {
        let state = self.settled_after(generation, timeout).await?;
        let report = self.report_with(&state, ask).await;
        Ok((state.phase.state(), Some(report)))
    }

    /// The first settled state newer than `generation`, waited for up to `timeout`; the
    /// adapter's death and the time running out are errors.
    async fn settled_after(
        &self,
        generation: u64,
        timeout: Duration,
    ) -> Result<RunState, ErrorBody> {
        match self
            .shared
            .run
            .wait_settled_after(generation, timeout)
            .await
        {
            Some(state) if matches!(state.phase, Phase::AdapterDied { .. }) => {
                Err(self.not_running_error(&state.phase))
            }
            Some(state) => Ok(state),
            None => match self.shared.run.get().phase {
                Phase::Evaluating(evaluation) => Err(ErrorBody::new(
                    ErrorCode::Timeout,
                    format!(
                        "the program is still running the evaluation of '{}' after {} s",
                        evaluation.expression,
                        timeout.as_secs_f64()
                    ),
                    "wait longer with 'debugger await --timeout S', or end the session with \
                     'debugger stop'",
                )),
                _ => Err(ErrorBody::new(
                    ErrorCode::Timeout,
                    format!(
                        "the program is still running after {} s",
                        timeout.as_secs_f64()
                    ),
                    "wait longer with 'debugger await --timeout S', or stop it with 'debugger pause'",
                )),
            },
        }
    }

    /// Whether `state` has not been shown to any client yet; it counts as shown from now on. One
    /// check under one lock, so of two clients resuming at once only one is given the report.
    fn claim_unseen(&self, state: &RunState) -> bool {
        let mut view = self.shared.view();
        let unseen = view.selection.seen_generation < state.generation;
        view.selection.seen_generation = view.selection.seen_generation.max(state.generation);
        unseen
    }
}
