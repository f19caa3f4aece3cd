//! A session run inside the calling process for the life of one command, with no daemon: what
//! `probe` uses. It is the daemon's own session, opened as the daemon opens one
//! ([`open_session`]), so a probe launches, places breakpoints and reports stops exactly as
//! `start` does; this type is the whole of what such a caller may do with it (the calls an agent
//! makes over the socket: await, continue, backtrace, locals, print), so the session's internals
//! stay the daemon's.

use std::sync::Arc;
use std::time::Duration;

use super::borrow::Borrower;
use super::open_session;
use super::reaper::Reaper;
use super::session::{AskedBy, Carried, Origin, Session, StopAsk};
use super::warm::WarmSource;
use crate::common::config::Config;
use crate::common::error::ErrorBody;
use crate::ipc::protocol::{
    AllBacktraces, BacktraceResult, BreakpointInfo, ContextResult, EvaluateResult, FrameSelection,
    LaunchSpec, LocalsResult, OutputQuery, ProbeOutput, ResumeAction, StopReport, ThreadsResult,
};

pub struct InProcessSession {
    session: Arc<Session>,
    /// Where its warm adapter came from, or was asked for (see `borrow.rs`).
    borrower: Option<Borrower>,
    /// How many locals, and children of each value, are read (`probe --children`; `None`: 32).
    children: Option<u64>,
}

impl InProcessSession {
    /// Launches the program as `start` would. A reaper is started first and never disarmed:
    /// when this process ends, however it ends, the reaper kills the program if it still runs,
    /// and every process the program started (they carry the reaper's tree tag).
    pub async fn launch(config: &Config, spec: LaunchSpec) -> Result<InProcessSession, ErrorBody> {
        InProcessSession::launch_warm(config, spec, None).await
    }

    /// [`InProcessSession::launch`], on the warm adapter of the daemon of session `warm_from`
    /// when it has one that fits (else asking it to keep one for the next time), unless the
    /// config keeps none (`[daemon] warm_adapter_secs = 0`).
    pub async fn launch_warm(
        config: &Config,
        spec: LaunchSpec,
        warm_from: Option<&str>,
    ) -> Result<InProcessSession, ErrorBody> {
        let borrower = warm_from
            .filter(|_| !config.daemon.warm_adapter().is_zero())
            .map(Borrower::new);
        // The program's tree carries a tag of its own, so what it starts ends with the probe,
        // and with the reaper should the probe be killed.
        let tag = crate::platform::new_tree_tag();
        let reaper = Reaper::start(false, Some(&tag)).map(Arc::new);
        let carried = Carried::fresh(
            &spec.breakpoints,
            &spec.failure_functions(),
            config.output.buffer_bytes,
            reaper,
        );
        let requested = spec.adapter.clone();
        let opened = open_session(
            config,
            Origin::Launch(Box::new(spec)),
            requested.as_deref(),
            carried,
            borrower.as_ref().map(|b| b as &dyn WarmSource),
        )
        .await;
        Ok(InProcessSession {
            session: opened?,
            borrower,
            children: None,
        })
    }

    /// This session reading `children` locals, and children of each value (`None`: 32).
    pub fn showing_children(self, children: Option<u64>) -> InProcessSession {
        InProcessSession { children, ..self }
    }

    /// Whether the program runs on a daemon's warm adapter.
    pub fn warm_start(&self) -> bool {
        self.session.warm_start()
    }

    /// The next stop (or the one that came before the call), as `await` reports it but without
    /// the frame's values: a probe reads those its own way.
    pub async fn await_stop(&self, timeout: Duration) -> Result<StopReport, ErrorBody> {
        self.session.await_stop(timeout, &StopAsk::bare()).await
    }

    /// `continue --wait`: runs to the next stop (or the end) within `timeout`.
    pub async fn continue_to_stop(&self, timeout: Duration) -> Result<StopReport, ErrorBody> {
        let (_, report) = self
            .session
            .resume(ResumeAction::Continue, Some(timeout), &StopAsk::bare())
            .await?;
        report.ok_or_else(|| ErrorBody::internal("a continue with a wait gave no stop"))
    }

    /// Selects a frame of the stopped thread (`frame N`): later locals and prints read it.
    pub async fn select_frame(&self, index: u32) -> Result<ContextResult, ErrorBody> {
        self.session
            .select_frame(FrameSelection::Index { index })
            .await
    }

    /// The stopped thread's innermost `limit` frames.
    pub async fn backtrace(&self, limit: u32) -> Result<BacktraceResult, ErrorBody> {
        self.session.backtrace(limit, None).await
    }

    /// Every thread's innermost `limit` frames, the selected thread's first.
    pub async fn all_backtraces(&self, limit: u32) -> Result<AllBacktraces, ErrorBody> {
        self.session.all_backtraces(limit).await
    }

    pub async fn threads(&self) -> Result<ThreadsResult, ErrorBody> {
        self.session.threads().await
    }

    /// Where the selection points: the selected frame and its source.
    pub async fn context(&self) -> Result<ContextResult, ErrorBody> {
        self.session.context(false).await
    }

    /// Selects the crashing frame of the stopped thread (the innermost of the program's own).
    pub async fn select_crash_frame(&self) -> Result<u32, ErrorBody> {
        self.session.select_crash_frame().await
    }

    /// Writes a core of the stopped program into `dir` through the adapter.
    pub async fn save_core(&self, dir: &std::path::Path) -> Result<std::path::PathBuf, ErrorBody> {
        self.session.save_core(dir).await
    }

    pub async fn locals(&self, depth: u32) -> Result<LocalsResult, ErrorBody> {
        self.session.plain_locals(depth, self.children).await
    }

    pub async fn evaluate(
        &self,
        expression: &str,
        depth: u32,
    ) -> Result<EvaluateResult, ErrorBody> {
        self.session
            .evaluate(expression, depth, self.children, AskedBy::Probe, None)
            .await
    }

    /// Whether the program has exited or the adapter has gone.
    pub fn has_ended(&self) -> bool {
        self.session.run_state().phase.is_ended()
    }

    /// Ends the program (if it still runs) and the adapter (a borrowed one goes back to its
    /// daemon, which ends it and warms another). What the program started is ended in the
    /// background, and by the reaper when this process exits: the caller is about to report
    /// and exit.
    pub async fn end(&self) {
        // When a daemon is about to be started to keep a warm adapter, the end of the program's
        // tree comes first, or its later rounds would take that daemon, not yet known to be
        // spared, for one of the program's processes (debugpy's launcher and program make those
        // rounds long enough: 1 probe in 6 left no warm adapter).
        if self.borrower.as_ref().is_some_and(|b| b.will_ask()) {
            self.session.end(false).await;
        } else {
            self.session.end_before_exit().await;
        }
        if let Some(borrower) = &self.borrower {
            borrower.finish().await;
        }
    }

    pub fn breakpoints(&self) -> Vec<BreakpointInfo> {
        self.session.breakpoints().list()
    }

    pub fn adapter_name(&self) -> &'static str {
        self.session.adapter_name()
    }

    /// The last `lines` lines of the program's output, cut to the last `bytes` bytes when they
    /// are longer.
    pub async fn output_tail(&self, lines: u32, bytes: u64) -> ProbeOutput {
        let output = self.session.output();
        let query = |from, tail_lines| OutputQuery {
            from,
            tail_lines,
            max_bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
            clear: false,
            wait: false,
        };
        let lines_start = output.read(&query(None, Some(lines))).await.start;
        let from = lines_start.max(output.end().saturating_sub(bytes));
        let chunk = output.read(&query(Some(from), None)).await;
        ProbeOutput {
            tail: chunk.text(),
            omitted_bytes: chunk.start,
        }
    }
}
