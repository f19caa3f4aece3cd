//! Evaluations that may not return: `print 'spin()'` calls the program's own code, which may
//! loop, wait on what the stopped program cannot do, exit or crash.
//!
//! Each evaluation gets a limit (`[timeouts] evaluate_secs`, or `--timeout`), which the adapter
//! is told in its own terms (`adapters::evaluation_limits`): it interrupts the evaluation and
//! puts the program back where it was, and the error says so. The wait for the answer also
//! ends when the program dies (the error tells how), and when the adapter answers a request sent
//! after the evaluation first: it dropped the evaluation and will never answer it. An
//! evaluation the adapter cannot interrupt (Delve's calls) is waited for as long as its limit;
//! then the session is `evaluating` (the program runs the expression's code, and a command that
//! needs the stop says so at once), until the answer comes, in the background, and the program
//! is back at its stop.
//!
//! Apart from inspection because every evaluation of the user's expressions goes through it:
//! `print`, `eval`, `raw`, the displays and `-p` expressions of a stop report, a probe's
//! `--print`.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use super::{Session, Shared, killed_by};
use crate::adapters::console_answer;
use crate::adapters::evaluation_limits::{self, EvaluationLimit, Stopped};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::run_state::{Evaluation, Phase, StopInfo};
use crate::dap::DapError;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::dap::types::EvaluateBody;

/// How long, past its limit, an evaluation the adapter interrupts may take to be answered: the
/// adapter's interruption, and its unwinding (GDB restores the caller's registers).
const ANSWER_AFTER_LIMIT: Duration = Duration::from_secs(3);

/// How long an evaluation runs before the session asks whether the adapter still holds it.
const DROP_CHECK_AFTER: Duration = Duration::from_secs(1);

/// How long the evaluation's answer may trail the answer to a request sent after it.
const ANSWER_BEHIND: Duration = Duration::from_millis(500);

/// How long the end of a program that died during an evaluation may take to be told.
const END_TOLD_WITHIN: Duration = Duration::from_secs(5);

/// The longest an evaluation that the adapter cannot interrupt is waited for in the background;
/// the session's end fails the wait sooner.
const BACKGROUND_WAIT: Duration = Duration::from_secs(86_400);

/// What a request sent after an evaluation asks: a constant every adapter's language reads.
const LATER_REQUEST: &str = "0";

/// The hint of an evaluation interrupted at its limit.
const LIMIT_HINT: &str = "it may never end (a loop, or a wait on something the stopped program \
                          cannot do); 'debugger print --timeout SECS EXPR' gives one evaluation \
                          longer, [timeouts] evaluate_secs every one";

/// What to do about an evaluation that runs on and cannot be interrupted.
const STILL_RUNNING_HINT: &str = "'debugger await' waits for it to return and shows the stop; \
                                  'debugger stop' ends the session";

type Answer = Pin<Box<dyn Future<Output = Result<EvaluateBody, DapError>> + Send>>;

/// What ended one round of the wait for an evaluation.
enum Event {
    Answered(Result<EvaluateBody, DapError>),
    /// The program ended, or the adapter died.
    Ended,
    /// Time to ask whether the adapter still holds the evaluation.
    CheckDue,
    /// The request sent after the evaluation was answered first.
    LaterAnswered,
    /// The wait ran out.
    Outran,
}

/// An evaluation sent with its limit, not yet answered.
pub(super) struct Sent {
    answer: Answer,
    facts: Facts,
    frame_id: Option<i64>,
    /// The stop it was sent at.
    stop: Option<StopInfo>,
}

/// What the outcome of an evaluation is judged by.
#[derive(Clone, Copy)]
struct Facts {
    since: Instant,
    limit: Duration,
    /// The run state's generation when it was sent.
    generation: u64,
    /// Whether it was sent at a stop a client had been shown.
    seen: bool,
}

/// Why an evaluation gave no value.
pub(super) enum EvaluationFailure {
    /// The adapter refused it or its expression failed: the adapter's words, to explain.
    Adapter(DapError),
    /// Something the session tells in its own words: the evaluation was interrupted, the
    /// program died, the adapter dropped it, or it still runs.
    Told(ErrorBody),
}

impl Session {
    /// The limit of one evaluation: the one asked for, else the config's.
    pub(super) fn evaluation_limit(&self, asked: Option<Duration>) -> Duration {
        asked.unwrap_or(self.shared.inspection.default_limit())
    }

    /// Sends an evaluation that the adapter is to stop after `limit`.
    pub(super) async fn send_bounded(
        &self,
        mut arguments: EvaluateArguments,
        limit: Duration,
    ) -> Sent {
        match evaluation_limits::limit(self.adapter().name()) {
            EvaluationLimit::InRequest => {
                arguments.timeout_ms = Some(u64::try_from(limit.as_millis()).unwrap_or(u64::MAX));
            }
            EvaluationLimit::Console(commands) => {
                self.tell_limit(commands, limit, arguments.frame_id).await;
            }
            EvaluationLimit::Own(_) | EvaluationLimit::Unbounded => {}
        }
        let state = self.shared.run.get();
        let seen = self.shared.view().selection.seen_generation >= state.generation;
        let stop = match state.phase {
            Phase::Stopped(stop) => Some(stop),
            _ => None,
        };
        let frame_id = arguments.frame_id;
        let pending = self.dap().send_typed::<Evaluate>(&arguments);
        Sent {
            answer: Box::pin(pending.response_within(BACKGROUND_WAIT)),
            facts: Facts {
                since: Instant::now(),
                limit,
                generation: state.generation,
                seen: seen && stop.is_some(),
            },
            frame_id,
            stop,
        }
    }

    /// Tells an adapter whose limit console commands set the limit, when it differs from the
    /// last one told. A command it refuses (an older GDB has no call timeouts) is logged: the
    /// evaluation is then waited for as one nothing stops.
    async fn tell_limit(
        &self,
        commands: fn(Duration) -> Vec<String>,
        limit: Duration,
        frame_id: Option<i64>,
    ) {
        if frame_id.is_none() || self.shared.view().evaluation_limit == Some(limit) {
            return;
        }
        for command in commands(limit) {
            let answer = self
                .dap()
                .request_typed::<Evaluate>(&EvaluateArguments::repl(&command, frame_id))
                .await;
            if let Err(e) = console_answer(answer) {
                tracing::info!(%command, error = %e, "the evaluation limit was not set");
            }
        }
        self.shared.view().evaluation_limit = Some(limit);
    }

    /// Sends `arguments` bounded by `limit` and waits for the outcome; `shown` is the
    /// expression as the user wrote it.
    pub(super) async fn evaluate_bounded(
        &self,
        arguments: EvaluateArguments,
        limit: Duration,
        shown: &str,
    ) -> Result<EvaluateBody, EvaluationFailure> {
        let sent = self.send_bounded(arguments, limit).await;
        self.finish_bounded(sent, shown).await
    }

    /// Waits for the outcome of an evaluation sent bounded (see the module's comment).
    pub(super) async fn finish_bounded(
        &self,
        mut sent: Sent,
        shown: &str,
    ) -> Result<EvaluateBody, EvaluationFailure> {
        let facts = sent.facts;
        let wait = match evaluation_limits::limit(self.adapter().name()) {
            EvaluationLimit::Unbounded => facts.limit,
            EvaluationLimit::Own(own) => facts.limit.max(own) + ANSWER_AFTER_LIMIT,
            EvaluationLimit::InRequest | EvaluationLimit::Console(_) => {
                facts.limit + ANSWER_AFTER_LIMIT
            }
        };
        let deadline = tokio::time::Instant::from_std(facts.since + wait);
        let check_at = tokio::time::Instant::from_std(facts.since + DROP_CHECK_AFTER);
        let mut run = self.shared.run.subscribe();
        let ended = async move {
            if run.wait_for(|s| s.phase.is_ended()).await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::pin!(ended);
        let mut later: Option<Answer> = None;
        loop {
            let checking = later.is_some();
            let later_answered = async {
                match later.as_mut() {
                    Some(answer) => {
                        let _ = answer.await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            let event = tokio::select! {
                reply = &mut sent.answer => Event::Answered(reply),
                () = &mut ended => Event::Ended,
                () = tokio::time::sleep_until(check_at), if !checking => Event::CheckDue,
                () = later_answered => Event::LaterAnswered,
                () = tokio::time::sleep_until(deadline) => Event::Outran,
            };
            match event {
                Event::Answered(reply) => {
                    return self.judge(reply, facts, sent.stop.as_ref(), shown).await;
                }
                Event::Ended => {
                    return Err(EvaluationFailure::Told(self.ended_during(shown).await));
                }
                Event::CheckDue => {
                    let check = EvaluateArguments::watch(LATER_REQUEST, sent.frame_id);
                    let pending = self.dap().send_typed::<Evaluate>(&check);
                    later = Some(Box::pin(pending.response_within(BACKGROUND_WAIT)));
                }
                Event::LaterAnswered => {
                    // Adapters answer one thread's requests in order: an answer to a later one
                    // first means the evaluation was dropped, unless its own is right behind.
                    return match tokio::time::timeout(ANSWER_BEHIND, &mut sent.answer).await {
                        Ok(reply) => self.judge(reply, facts, sent.stop.as_ref(), shown).await,
                        Err(_) => Err(EvaluationFailure::Told(self.dropped(shown))),
                    };
                }
                Event::Outran => {
                    return Err(EvaluationFailure::Told(self.keep_evaluating(sent, shown)));
                }
            }
        }
    }

    /// The outcome of an evaluation the adapter answered.
    async fn judge(
        &self,
        reply: Result<EvaluateBody, DapError>,
        facts: Facts,
        stop: Option<&StopInfo>,
        shown: &str,
    ) -> Result<EvaluateBody, EvaluationFailure> {
        let failing_results = self.adapter().profile().failing_results;
        let reply = match reply {
            // An adapter that answers a failure as the value (see `Profile::failing_results`).
            Ok(body)
                if failing_results
                    .iter()
                    .any(|start| body.result.starts_with(start)) =>
            {
                Err(DapError::Adapter {
                    command: "evaluate".to_string(),
                    message: body.result,
                })
            }
            reply => reply,
        };
        let error = match reply {
            Ok(body) => {
                self.back_at(stop, facts);
                return Ok(body);
            }
            Err(error) => error,
        };
        let adapter = self.adapter().name();
        if let DapError::Adapter { message, .. } = &error
            && !error.is_not_stopped()
        {
            let ran_out = facts.since.elapsed() >= facts.limit;
            let words = clean_evaluate_error(message);
            if let Some(how) = evaluation_limits::stopped(adapter, &words, ran_out) {
                if how != Stopped::Breakpoint {
                    self.back_at(stop, facts);
                }
                self.keep_seen(facts);
                return Err(EvaluationFailure::Told(
                    self.stopped_error(&how, facts, shown),
                ));
            }
        }
        if self.shared.run.get().phase.is_ended() || self.shared.program.launched_died() {
            return Err(EvaluationFailure::Told(self.ended_during(shown).await));
        }
        self.keep_seen(facts);
        Err(EvaluationFailure::Adapter(error))
    }

    /// Puts back the stop an evaluation was sent at, once the program returned from it or was
    /// put back where it was, when the adapter reported a resume and a stop of its own meanwhile
    /// (GDB runs a called function so, and tells its end as a stop of reason `function call`).
    fn back_at(&self, stop: Option<&StopInfo>, facts: Facts) {
        let Some(stop) = stop else {
            return;
        };
        let moved = self.shared.run.set_if(Phase::Stopped(stop.clone()), |s| {
            s.generation != facts.generation && matches!(s.phase, Phase::Stopped(_))
        });
        if moved {
            self.shared.view().caches.frames = None;
        }
        self.keep_seen(facts);
    }

    /// A stop the adapter reports after an evaluation it ran or stopped (GDB's calls resume
    /// and stop the program) is the one the user was shown, when they were.
    fn keep_seen(&self, facts: Facts) {
        if facts.seen {
            self.mark_seen();
        }
    }

    /// The error for an evaluation the adapter stopped before it returned.
    fn stopped_error(&self, how: &Stopped, facts: Facts, shown: &str) -> ErrorBody {
        let adapter = self.adapter().name();
        match how {
            Stopped::TimeLimit => {
                let (limit, hint) = match evaluation_limits::limit(adapter) {
                    EvaluationLimit::Own(own) => (
                        own,
                        format!(
                            "{adapter} stops every expression it runs at {}, whatever --timeout \
                             asks: a function that takes longer cannot be called from 'print'",
                            secs(own)
                        ),
                    ),
                    _ => (facts.limit, LIMIT_HINT.to_string()),
                };
                ErrorBody::new(
                    ErrorCode::EvaluationTimeout,
                    format!(
                        "the evaluation of '{shown}' did not return within {} and was \
                         interrupted; the program is stopped where it was",
                        secs(limit)
                    ),
                    hint,
                )
            }
            Stopped::Signal(signal) => ErrorBody::new(
                ErrorCode::Adapter,
                format!(
                    "the evaluation of '{shown}' was stopped by signal {signal}, and abandoned; \
                     the program is stopped where it was"
                ),
                "what the called code changed before the signal stays changed: 'debugger \
                 locals' shows the frame as it is now",
            ),
            Stopped::Breakpoint => ErrorBody::new(
                ErrorCode::Adapter,
                format!(
                    "the evaluation of '{shown}' stopped at a breakpoint in a function it called, \
                     and was abandoned"
                ),
                evaluation_limits::held_in_call(adapter),
            ),
        }
    }

    /// The error for an evaluation the adapter will never answer, having answered a later
    /// request.
    fn dropped(&self, shown: &str) -> ErrorBody {
        let adapter = self.adapter().name();
        let because = evaluation_limits::dropped_because(adapter)
            .map(|b| format!(" ({b})"))
            .unwrap_or_default();
        ErrorBody::new(
            ErrorCode::Adapter,
            format!(
                "{adapter} dropped the evaluation of '{shown}' without an answer{because}; the \
                 program is stopped where it was"
            ),
            "'debugger output' may show why: the adapter reports its own failures there",
        )
    }

    /// The error for an evaluation during which the program ended (or the adapter died), once
    /// the end is told (it may trail the evaluation's own failure).
    async fn ended_during(&self, shown: &str) -> ErrorBody {
        let mut run = self.shared.run.subscribe();
        let ended = async {
            let state = run.wait_for(|s| s.phase.is_ended()).await;
            state.map(|s| s.clone()).ok()
        };
        let state = tokio::time::timeout(END_TOLD_WITHIN, ended)
            .await
            .ok()
            .flatten()
            .unwrap_or_else(|| self.shared.run.get());
        // This error tells the end: it is shown, as a report of it would be.
        {
            let mut view = self.shared.view();
            view.selection.seen_generation = view.selection.seen_generation.max(state.generation);
        }
        let during = format!("during the evaluation of '{shown}'");
        let hint =
            "run it again with 'debugger restart', or read its output with 'debugger output'";
        let message = match &state.phase {
            Phase::Exited {
                signal: Some(signal),
                ..
            } => format!("the program was {} {during}", killed_by(*signal)),
            Phase::Exited {
                exit_code: Some(code),
                ..
            } => {
                let note = (self.adapter().profile().signals.exit_code_note)(*code)
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                format!("the program exited with code {code} {during}{note}")
            }
            Phase::AdapterDied { detail } => {
                return ErrorBody::new(
                    ErrorCode::AdapterDied,
                    format!("the debug adapter died {during}: {detail}"),
                    "start a new session with 'debugger start <program>'",
                );
            }
            _ => format!("the program ended {during}"),
        };
        ErrorBody::new(ErrorCode::NotRunning, message, hint)
    }

    /// An evaluation that ran past its wait with no answer: the program runs it still. The
    /// session is `evaluating` until the answer comes, when the program is back at its stop.
    fn keep_evaluating(&self, sent: Sent, shown: &str) -> ErrorBody {
        let adapter = self.adapter().name();
        let Some(stop) = sent.stop else {
            // Console text sent while the program runs: nothing to hold.
            return ErrorBody::new(
                ErrorCode::EvaluationTimeout,
                format!(
                    "{adapter} did not answer '{shown}' within {}",
                    secs(sent.facts.limit)
                ),
                "'debugger status' shows the session's state",
            );
        };
        let evaluation = Evaluation {
            expression: shown.to_string(),
            since: sent.facts.since,
            stop: stop.clone(),
        };
        let entered = self
            .shared
            .run
            .set_if(Phase::Evaluating(Box::new(evaluation.clone())), |s| {
                matches!(s.phase, Phase::Stopped(_) | Phase::Running)
            });
        if !entered {
            // Another evaluation got there first (a report's displays are sent together), and
            // this one waits behind it.
            return match self.shared.run.get().phase {
                Phase::Evaluating(first) => still_running(adapter, &first),
                phase => self.not_running_error(&phase),
            };
        }
        tokio::spawn(back_at_stop(
            self.shared.clone(),
            sent.answer,
            stop,
            sent.facts.seen,
        ));
        let why = evaluation_limits::uninterruptible(adapter)
            .map(|why| format!(" ({why})"))
            .unwrap_or_default();
        ErrorBody::new(
            ErrorCode::EvaluationTimeout,
            format!(
                "the evaluation of '{shown}' did not return within {}, and {adapter} cannot \
                 interrupt it{why}: the program runs it still (the session is 'evaluating' \
                 until it returns)",
                secs(sent.facts.limit)
            ),
            STILL_RUNNING_HINT,
        )
    }
}

/// Waits in the background for the answer to an evaluation that outran its wait, and puts the
/// program back at its stop once it comes (or the connection ends), unless something else has
/// happened to it since (GDB reports the stop itself; the program may have died).
async fn back_at_stop(shared: std::sync::Arc<Shared>, answer: Answer, stop: StopInfo, seen: bool) {
    let outcome = answer.await;
    tracing::info!(
        answered = outcome.is_ok(),
        "the evaluation that outran its limit has ended"
    );
    let restored = shared.run.set_if(Phase::Stopped(stop), |s| {
        matches!(s.phase, Phase::Evaluating(_))
    });
    if restored {
        let generation = shared.run.get().generation;
        let mut view = shared.view();
        view.caches.frames = None;
        if seen {
            view.selection.seen_generation = generation;
        }
    }
}

/// What a command that needs the stop is told while the program runs an evaluation that did
/// not return (and `print`, when its own evaluation is the one).
pub(super) fn still_running(adapter: &str, evaluation: &Evaluation) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Running,
        format!(
            "the program is running the evaluation of '{}' ({:.0} s so far), which {adapter} \
             cannot interrupt",
            evaluation.expression,
            evaluation.since.elapsed().as_secs_f64()
        ),
        STILL_RUNNING_HINT,
    )
}

/// "10 s", "0.5 s": seconds as a person writes them.
fn secs(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs >= 10.0 || secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.1} s")
    }
}

/// lldb's expression errors come as "error: <user expression 0>:1:1: msg" plus a caret diagram;
/// keep the message.
pub(in crate::daemon) fn clean_evaluate_error(message: &str) -> String {
    let first = message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or(message);
    let mut text = first.strip_prefix("error:").map(str::trim).unwrap_or(first);
    if text.starts_with("<user expression")
        && let Some((_, rest)) = text.split_once(">:")
    {
        // Skip "LINE:COLUMN: ".
        let mut rest = rest;
        for _ in 0..2 {
            if let Some((number, after)) = rest.split_once(':')
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
            {
                rest = after;
            }
        }
        text = rest.trim_start();
        text = text.strip_prefix("error:").map(str::trim).unwrap_or(text);
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lldb_expression_errors_are_trimmed_to_the_message() {
        assert_eq!(
            clean_evaluate_error(
                "error: <user expression 0>:1:1: use of undeclared identifier 'nosuch'\n    1 | nosuch\n      | ^\n"
            ),
            "use of undeclared identifier 'nosuch'"
        );
        assert_eq!(clean_evaluate_error("plain message"), "plain message");
    }
}
