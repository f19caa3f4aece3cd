//! Threads and frames: `backtrace`, `threads`, `thread N`, `frame N`, `up`, `down`, the
//! selection they move, and the stack cached per stop.
//!
//! Apart because every inspection command starts from here (the selected thread and frame,
//! checked against the stack), and the frame cache's rule (per stop, per thread, deep enough)
//! belongs with the requests it saves.

use super::Session;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::run_state::Phase;
use crate::dap::requests::{NoArguments, StackTrace, StackTraceArguments, Threads};
use crate::dap::types::StackFrame;
use crate::ipc::protocol::{
    AllBacktraces, BacktraceResult, ContextResult, FrameInfo, FrameSelection, SourceSnippet,
    ThreadBacktrace, ThreadInfo, ThreadsResult,
};

/// Frames fetched per `stackTrace` when the caller needs fewer: enough for `bt`, `up`, `frame N`.
const FRAME_BATCH: u32 = 32;

/// Stack traces `backtrace --all` keeps asked for at once.
const STACKS_IN_FLIGHT: usize = 16;

/// Threads whose top frame `threads` fetches (more are listed without it).
const THREADS_WITH_FRAMES: usize = 64;

#[derive(Clone)]
pub(super) struct FrameCache {
    generation: u64,
    thread_id: i64,
    /// How many levels were asked for: fewer frames than that means the stack is complete.
    requested: u32,
    frames: Vec<StackFrame>,
    total: Option<u32>,
}

impl FrameCache {
    fn covers(&self, generation: u64, thread_id: i64, min_levels: u32) -> bool {
        let complete = (self.frames.len() as u32) < self.requested
            || self.total.is_some_and(|t| t as usize <= self.frames.len());
        self.generation == generation
            && self.thread_id == thread_id
            && (self.frames.len() as u32 >= min_levels || complete)
    }
}

impl Session {
    /// The stop generation, or the error for a program that is not stopped.
    fn require_stopped(&self) -> Result<u64, ErrorBody> {
        let state = self.shared.run.get();
        match state.phase {
            Phase::Stopped(_) => Ok(state.generation),
            other => Err(self.not_running_error(&other)),
        }
    }

    pub(super) async fn first_thread_id(&self) -> Result<i64, ErrorBody> {
        let threads = self.fetch_threads().await?;
        threads
            .first()
            .map(|t| t.id)
            .ok_or_else(|| ErrorBody::new(ErrorCode::NotFound, "the program has no threads", ""))
    }

    /// The selected thread, else the one that stopped, else the first.
    pub(super) async fn current_thread(&self) -> Result<i64, ErrorBody> {
        if let Some(id) = self.shared.view().selection.thread {
            return Ok(id);
        }
        let id = self.first_thread_id().await?;
        self.shared.view().selection.thread = Some(id);
        Ok(id)
    }

    pub(super) async fn fetch_threads(&self) -> Result<Vec<crate::dap::types::Thread>, ErrorBody> {
        let threads = self
            .dap()
            .request_typed::<Threads>(&NoArguments {})
            .await?
            .threads;
        // Names can change with the program (Delve names a goroutine after its current function),
        // and a list taken while it runs may hold placeholders: only keep names read at a stop.
        if matches!(self.shared.run.get().phase, Phase::Stopped(_)) {
            let mut view = self.shared.view();
            // A nameless thread (GDB's in a core) has no name to show, rather than an empty one.
            for t in threads.iter().filter(|t| !t.name.is_empty()) {
                let label = (self.adapter().profile().thread_label)(&t.name).into_owned();
                view.caches.thread_names.insert(t.id, label);
            }
        }
        Ok(threads)
    }

    /// At least `min_levels` frames of `thread_id` (fewer if the stack is shallower), cached per stop.
    pub(super) async fn frames(
        &self,
        thread_id: i64,
        min_levels: u32,
    ) -> Result<(Vec<StackFrame>, Option<u32>), ErrorBody> {
        let generation = self.require_stopped()?;
        if let Some(cache) = &self.shared.view().caches.frames
            && cache.covers(generation, thread_id, min_levels)
        {
            return Ok((cache.frames.clone(), cache.total));
        }
        let levels = min_levels.max(FRAME_BATCH);
        let arguments = StackTraceArguments {
            thread_id,
            start_frame: 0,
            levels,
        };
        let mut body = self
            .dap()
            .request_typed::<StackTrace>(&arguments)
            .await
            .map_err(|e| e.reading("a stack trace"))?;
        self.name_functions(&mut body.stack_frames);
        let mut view = self.shared.view();
        if self.shared.run.get().generation == generation {
            view.caches.frames = Some(FrameCache {
                generation,
                thread_id,
                requested: levels,
                frames: body.stack_frames.clone(),
                total: body.total_frames,
            });
        }
        Ok((body.stack_frames, body.total_frames))
    }

    /// The selected thread and frame, checked against the stack.
    pub(super) async fn selected_frame(&self) -> Result<(i64, u32, StackFrame), ErrorBody> {
        self.require_stopped()?;
        let thread_id = self.current_thread().await?;
        let index = self.shared.view().selection.frame;
        let (frames, _) = self.frames(thread_id, index.saturating_add(1)).await?;
        let frame = frames.get(index as usize).cloned().ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::NotFound,
                format!("thread {thread_id} has no frame {index}"),
                "`debugger backtrace` lists the frames",
            )
        })?;
        Ok((thread_id, index, frame))
    }

    pub async fn backtrace(
        &self,
        limit: u32,
        thread: Option<i64>,
    ) -> Result<BacktraceResult, ErrorBody> {
        self.require_stopped()?;
        let selected_thread = self.current_thread().await?;
        let thread_id = thread.unwrap_or(selected_thread);
        if thread.is_some_and(|t| t != selected_thread) {
            self.check_thread(thread_id).await?;
        }
        let (frames, total) = self.frames(thread_id, limit.max(1)).await.map_err(|e| {
            if thread.is_some() && e.code == ErrorCode::Adapter {
                ErrorBody::new(
                    ErrorCode::NotFound,
                    format!("no thread {thread_id}: {}", e.message),
                    "`debugger threads` lists the threads",
                )
            } else {
                e
            }
        })?;
        self.mark_seen();
        let frames = self.marked(
            frames
                .iter()
                .take(limit.max(1) as usize)
                .enumerate()
                .map(|(i, f)| frame_info(i as u32, f))
                .collect(),
        );
        let selected_frame =
            (thread_id == selected_thread).then(|| self.shared.view().selection.frame);
        Ok(BacktraceResult {
            thread_id,
            frames,
            total_frames: total,
            selected_frame,
        })
    }

    /// Every thread's stack: one `threads` request, then the stacks asked for
    /// [`STACKS_IN_FLIGHT`] at a time rather than one after another, so a program of thousands
    /// of threads answers in a few round trips' time per batch, not thousands of round trips.
    pub async fn all_backtraces(&self, limit: u32) -> Result<AllBacktraces, ErrorBody> {
        self.require_stopped()?;
        let selected_thread = self.current_thread().await?;
        let listed = self.fetch_threads().await?;
        let ids: Vec<i64> = std::iter::once(selected_thread)
            .chain(
                listed
                    .iter()
                    .map(|t| t.id)
                    .filter(|id| *id != selected_thread),
            )
            .collect();
        let mut threads = Vec::with_capacity(ids.len());
        for batch in ids.chunks(STACKS_IN_FLIGHT) {
            let stacks = batch
                .iter()
                .map(|id| self.one_stack(*id, limit.max(1), *id == selected_thread));
            threads.extend(futures_util::future::join_all(stacks).await);
        }
        self.mark_seen();
        Ok(AllBacktraces { threads })
    }

    /// `levels` frames of one thread's stack, read past the frame cache (which keeps one
    /// thread's).
    async fn one_stack(&self, thread_id: i64, levels: u32, selected: bool) -> ThreadBacktrace {
        let arguments = StackTraceArguments {
            thread_id,
            start_frame: 0,
            levels,
        };
        match self.dap().request_typed::<StackTrace>(&arguments).await {
            Ok(mut body) => {
                self.name_functions(&mut body.stack_frames);
                let selected_frame = selected.then(|| self.shared.view().selection.frame);
                ThreadBacktrace::Read(BacktraceResult {
                    thread_id,
                    frames: self.marked(
                        body.stack_frames
                            .iter()
                            .take(levels as usize)
                            .enumerate()
                            .map(|(i, f)| frame_info(i as u32, f))
                            .collect(),
                    ),
                    total_frames: body.total_frames,
                    selected_frame,
                })
            }
            Err(e) => ThreadBacktrace::Unreadable {
                thread_id,
                error: e.reading("a stack trace").message,
            },
        }
    }

    pub async fn threads(&self) -> Result<ThreadsResult, ErrorBody> {
        let state = self.shared.run.get();
        if state.phase.is_ended() {
            return Err(self.not_running_error(&state.phase));
        }
        let threads = self.fetch_threads().await?;
        let stopped = matches!(state.phase, Phase::Stopped(_));
        let selected = self.shared.view().selection.thread;
        // Ask for every thread's top frame at once, then collect the answers.
        let pending: Vec<_> = threads
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (stopped && i < THREADS_WITH_FRAMES).then(|| {
                    self.dap().send_typed::<StackTrace>(&StackTraceArguments {
                        thread_id: t.id,
                        start_frame: 0,
                        levels: 1,
                    })
                })
            })
            .collect();
        let mut out = Vec::with_capacity(threads.len());
        // One deadline for all the top frames: a hung adapter costs one request timeout, not
        // one per thread.
        let deadline = tokio::time::Instant::now() + self.dap().request_timeout();
        for (thread, pending) in threads.into_iter().zip(pending) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let frame = match pending {
                Some(p) => p.response_within(left).await.ok().and_then(|mut b| {
                    self.name_functions(&mut b.stack_frames);
                    b.stack_frames.first().map(|f| frame_info(0, f))
                }),
                None => None,
            };
            out.push(ThreadInfo {
                selected: Some(thread.id) == selected,
                id: thread.id,
                name: thread.name,
                frame,
            });
        }
        if stopped {
            self.mark_seen();
        }
        Ok(ThreadsResult { threads: out })
    }

    /// Fails unless the program has a thread `id`.
    async fn check_thread(&self, id: i64) -> Result<(), ErrorBody> {
        let threads = self.fetch_threads().await?;
        if threads.iter().any(|t| t.id == id) {
            return Ok(());
        }
        let ids: Vec<String> = threads.iter().map(|t| t.id.to_string()).collect();
        Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!("no thread {id}"),
            format!("the threads are: {}", ids.join(", ")),
        ))
    }

    pub async fn select_thread(&self, id: i64) -> Result<ContextResult, ErrorBody> {
        self.require_stopped()?;
        self.check_thread(id).await?;
        {
            let mut view = self.shared.view();
            view.selection.thread = Some(id);
            view.selection.frame = 0;
        }
        self.context(false).await
    }

    pub async fn select_frame(
        &self,
        selection: FrameSelection,
    ) -> Result<ContextResult, ErrorBody> {
        self.require_stopped()?;
        let thread_id = self.current_thread().await?;
        let current = self.shared.view().selection.frame;
        let target = match selection {
            FrameSelection::Index { index } => index,
            FrameSelection::Up { count } => {
                let wanted = current.saturating_add(count.max(1));
                let (frames, _) = self.frames(thread_id, wanted.saturating_add(1)).await?;
                let outermost = frames.len().saturating_sub(1) as u32;
                if current >= outermost {
                    return Err(ErrorBody::new(
                        ErrorCode::NotFound,
                        format!("already at the outermost frame ({outermost})"),
                        "`debugger down` moves toward the innermost frame",
                    ));
                }
                wanted.min(outermost)
            }
            FrameSelection::Down { count } => {
                if current == 0 {
                    return Err(ErrorBody::new(
                        ErrorCode::NotFound,
                        "already at the innermost frame (0)",
                        "`debugger up` moves toward the callers",
                    ));
                }
                current.saturating_sub(count.max(1))
            }
        };
        let (frames, _) = self.frames(thread_id, target.saturating_add(1)).await?;
        if target as usize >= frames.len() {
            let outermost = frames.len().saturating_sub(1);
            return Err(ErrorBody::new(
                ErrorCode::NotFound,
                if matches!(selection, FrameSelection::Up { .. }) {
                    format!("already at the outermost frame ({outermost})")
                } else {
                    format!("no frame {target}; the stack has {} frames", frames.len())
                },
                "`debugger backtrace` lists the frames",
            ));
        }
        self.shared.view().selection.frame = target;
        self.context(false).await
    }
}

impl Session {
    /// The frames' names made their functions' own, as the adapter knows to
    /// (`Profile::frame_name`), before anything reads or caches them.
    fn name_functions(&self, frames: &mut [StackFrame]) {
        for frame in frames {
            let name = (self.adapter().profile().frame_name)(&frame.name);
            if name != frame.name.as_str() {
                frame.name = name.into_owned();
            }
        }
    }

    /// The source lines around `frame`'s line: from its file, or, for a source the adapter
    /// holds and the disk does not (a source map's `sourcesContent`), through DAP's `source`.
    pub(super) async fn frame_snippet(
        &self,
        frame: &StackFrame,
        info: &FrameInfo,
        context: u32,
    ) -> Option<SourceSnippet> {
        let (file, line) = (info.file.as_deref()?, info.line?);
        if let Some(snippet) = crate::common::source_snippet::snippet(file, line, context) {
            return Some(snippet);
        }
        let reference = frame.source.as_ref()?.source_reference.filter(|r| *r > 0)?;
        let answer = self
            .dap()
            .send(
                "source",
                serde_json::json!({ "sourceReference": reference, "source": frame.source }),
            )
            .response_within(std::time::Duration::from_secs(5))
            .await
            .ok()?;
        let text = answer.get("content")?.as_str()?;
        crate::common::source_snippet::snippet_of_text(file, text, line, context)
    }
}

impl Session {
    /// `frames` with the runtime's own machinery marked, as the adapter's language tells it.
    fn marked(&self, mut frames: Vec<FrameInfo>) -> Vec<FrameInfo> {
        let machinery = self.adapter().profile().runtime_frames;
        for frame in &mut frames {
            frame.machinery = machinery(&frame.function, frame.file.as_deref());
        }
        frames
    }
}

pub(super) fn frame_info(index: u32, frame: &StackFrame) -> FrameInfo {
    let file = frame
        .source
        .as_ref()
        .and_then(|s| s.path.clone().or_else(|| s.name.clone()));
    FrameInfo {
        index,
        function: super::symbol_names::readable(&frame.name).into_owned(),
        line: file.as_ref().and(Some(frame.line)).filter(|l| *l > 0),
        column: Some(frame.column).filter(|c| *c > 0),
        file,
        address: frame.instruction_pointer_reference.clone(),
        generated: frame
            .generated
            .as_ref()
            .map(|g| crate::ipc::protocol::GeneratedPosition {
                file: g.file.clone(),
                line: g.line,
                column: g.column,
            }),
        machinery: None,
    }
}
