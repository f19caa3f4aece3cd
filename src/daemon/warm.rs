//! The daemon's warm adapter: when a session ends, a fresh adapter of its kind is spawned and
//! initialised and kept for `[daemon] warm_adapter_secs`, so the next `start` (or `restart`) in
//! this session name skips the adapter's own start-up. The daemon lives on while it holds one;
//! `sessions` lists it, `stop` on a daemon that holds only it ends it, and so does its time
//! running out.
//!
//! Apart from `dispatch.rs` because this is the daemon's second piece of state besides the
//! session slot, with its own timer; what a warm adapter is, and why nothing of the previous
//! program survives in it, is `session/warm_adapter.rs`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Daemon;
use super::session::{Session, WarmAdapter, end_with_its_program, kept_launch};
use super::slot::Slot;
use serde_json::Value;

use crate::adapters::process::{BoxFuture, SpawnedAdapter};
use crate::adapters::{DebugAdapter, RequestExtras};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::framing::write_frame_async;
use crate::ipc::protocol::{
    MessageResult, ProcessContext, Response, SessionState, StatusResult, WarmAdapterInfo,
};

/// Where a session opening may find a warm adapter for the adapter it resolved to: the daemon's
/// own ([`Spare`]), or, for a `probe`, a daemon's lent over its socket (`borrow.rs`).
pub trait WarmSource: Send + Sync {
    /// A warm adapter fit for `adapter`, for a launch whose program starts in `context` (none
    /// for an attach or a core), if one is to be had.
    fn take_for<'a>(
        &'a self,
        adapter: &'a Arc<dyn DebugAdapter>,
        context: Option<&'a ProcessContext>,
    ) -> BoxFuture<'a, Option<WarmAdapter>>;
}

impl WarmSource for Spare {
    fn take_for<'a>(
        &'a self,
        adapter: &'a Arc<dyn DebugAdapter>,
        context: Option<&'a ProcessContext>,
    ) -> BoxFuture<'a, Option<WarmAdapter>> {
        Box::pin(self.take_matching(adapter.name(), adapter.executable(), context))
    }
}

/// The daemon's one warm adapter, or none.
#[derive(Default)]
pub struct Spare {
    /// The adapter; an async lock, held while one is being spawned, so that a `start` coming
    /// meanwhile waits for it rather than spawning a second.
    adapter: Arc<tokio::sync::Mutex<Option<WarmAdapter>>>,
    /// What `sessions` shows, set the moment warming begins; `None`: no warm adapter.
    shown: Mutex<Option<Shown>>,
    /// Counts the warm adapters asked for, so a timer ends only its own.
    generation: AtomicU64,
    /// Warm adapters lent to probes and still in their use: they keep the daemon alive too.
    lent: AtomicUsize,
}

#[derive(Clone)]
struct Shown {
    adapter: &'static str,
    pid: Option<u32>,
    /// A kept launch's program, and its process (see `session/kept_launch.rs`).
    program: Option<(String, Option<u32>)>,
    /// The launch it is kept for, known from the moment warming begins.
    launch: Option<Value>,
    until: Instant,
    generation: u64,
}

impl Spare {
    fn shown(&self) -> std::sync::MutexGuard<'_, Option<Shown>> {
        self.shown.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a warm adapter is held or being spawned.
    pub fn is_held(&self) -> bool {
        self.shown().is_some()
    }

    /// Whether the warm adapter of `generation` is still the one shown (not taken, ended or
    /// replaced).
    fn is_current(&self, generation: u64) -> bool {
        self.shown()
            .as_ref()
            .is_some_and(|shown| shown.generation == generation)
    }

    /// Whether a warm adapter is held, being spawned, or lent to a probe.
    fn in_use(&self) -> bool {
        self.is_held() || self.lent.load(Ordering::SeqCst) > 0
    }

    /// The warm adapter for a session of the adapter `name` run from `executable`, launching in
    /// `context`, if it fits ([`WarmAdapter::fits`]). Either way it leaves the spare: one that
    /// does not fit is ended.
    async fn take_matching(
        &self,
        name: &str,
        executable: &std::path::Path,
        context: Option<&ProcessContext>,
    ) -> Option<WarmAdapter> {
        if !self.is_held() {
            return None;
        }
        if self.cannot_fit(name, context) {
            // Ended without being waited for, should it still be being made (a kept launch
            // takes a second).
            tracing::info!(wanted = name, "the warm adapter does not fit; ending it");
            self.forget(None);
            let held = self.adapter.clone();
            tokio::spawn(async move {
                if let Some(unfit) = held.lock().await.take() {
                    unfit.end();
                }
            });
            return None;
        }
        let taken = self.adapter.lock().await.take();
        self.forget(None);
        let warm = taken?;
        if warm.fits(name, executable, context) {
            tracing::info!(pid = ?warm.pid(), "the session takes the warm adapter");
            Some(warm)
        } else {
            tracing::info!(
                warm = warm.adapter_name(),
                wanted = name,
                "the warm adapter does not fit; ending it"
            );
            warm.end();
            None
        }
    }

    /// Whether what is held or on its way is known not to fit a session of the adapter `name`
    /// launching in `context`: another kind, or a kept launch of another launch.
    fn cannot_fit(&self, name: &str, context: Option<&ProcessContext>) -> bool {
        let wanted = context.and_then(|c| c.launch.as_ref());
        self.shown().as_ref().is_some_and(|shown| {
            shown.adapter != name || (shown.launch.is_some() && shown.launch.as_ref() != wanted)
        })
    }

    /// Ends the warm adapter; returns its name, or `None` when there was none.
    pub async fn end(&self) -> Option<&'static str> {
        let name = self.shown().as_ref().map(|shown| shown.adapter)?;
        // Still shown while one on its way is awaited, which keeps the daemon alive meanwhile.
        let taken = self.adapter.lock().await.take();
        self.forget(None);
        if let Some(warm) = taken {
            warm.end();
        }
        Some(name)
    }

    /// Clears what `sessions` shows, if it still shows `generation` (any, for `None`).
    fn forget(&self, generation: Option<u64>) {
        let mut shown = self.shown();
        if generation.is_none_or(|g| shown.as_ref().is_some_and(|s| s.generation == g)) {
            *shown = None;
        }
    }

    /// What `sessions` lists of it.
    pub fn info(&self) -> Option<WarmAdapterInfo> {
        let shown = self.shown().clone()?;
        let (program, debuggee_pid) = match shown.program {
            Some((program, pid)) => (Some(program), pid),
            None => (None, None),
        };
        Some(WarmAdapterInfo {
            adapter: shown.adapter.to_string(),
            adapter_pid: shown.pid,
            program,
            debuggee_pid,
            secs_left: shown
                .until
                .saturating_duration_since(Instant::now())
                .as_secs_f64(),
        })
    }
}

impl Daemon {
    /// How long a warm adapter is kept (zero: none is).
    fn warm_time(&self) -> Duration {
        self.config.daemon.warm_adapter()
    }

    /// Starts spawning a warm adapter to follow `session` (once per session), if the config keeps
    /// one and the adapter can be so kept. Returns whether one is held or on its way, which keeps
    /// the daemon alive.
    pub(super) fn keep_warm(self: &Arc<Self>, session: &Session) -> bool {
        let time = self.warm_time();
        if time.is_zero() {
            return false;
        }
        let Some(adapter) = session.claim_warm_successor() else {
            return self.spare.is_held();
        };
        let extras = RequestExtras::from_config(&self.config.adapter(adapter.name()));
        let context = kept_launch::warm_context(&*adapter, session.origin(), &extras);
        self.warm_up(adapter, context, time)
    }

    /// Starts spawning a warm adapter of `adapter`'s kind (in `context`, for one that is the
    /// program's own process), kept for `time`.
    fn warm_up(
        self: &Arc<Self>,
        adapter: Arc<dyn DebugAdapter>,
        context: Option<ProcessContext>,
        time: Duration,
    ) -> bool {
        if adapter.profile().warm.as_program() && context.is_none() {
            return self.spare.is_held();
        }
        // Taken here, not in the task: a `start` that comes before the task runs waits for it.
        let held = match self.spare.adapter.clone().try_lock_owned() {
            Ok(held) => Some(held),
            // Another is being spawned, and still wanted: that one follows.
            Err(_) if self.spare.is_held() => return true,
            // One being spawned that a session could not use (see `take_matching`) is ended
            // once made; this one is spawned after that.
            Err(_) => None,
        };
        let generation = self.spare.generation.fetch_add(1, Ordering::SeqCst) + 1;
        *self.spare.shown() = Some(Shown {
            adapter: adapter.name(),
            pid: None,
            program: None,
            launch: context.as_ref().and_then(|c| c.launch.clone()),
            until: Instant::now() + time,
            generation,
        });
        let daemon = self.clone();
        tokio::spawn(async move {
            let mut held = match held {
                Some(held) => held,
                None => daemon.spare.adapter.clone().lock_owned().await,
            };
            if let Some(old) = held.take() {
                old.end();
            }
            let reaper = daemon.reaper.clone();
            match WarmAdapter::open(adapter, context, &daemon.config.timeouts, reaper).await {
                Ok(warm) if !daemon.spare.is_current(generation) => {
                    tracing::info!("the warm adapter was given up as it was made; ending it");
                    warm.end();
                    drop(held);
                    daemon.exit_if_unused();
                    return;
                }
                Ok(warm) => {
                    tracing::info!(pid = ?warm.pid(), "a warm adapter is ready");
                    if let Some(shown) = daemon.spare.shown().as_mut() {
                        shown.pid = warm.pid();
                        shown.program = warm.kept_program();
                    }
                    *held = Some(warm);
                }
                Err(err) => {
                    tracing::warn!("cannot keep a warm adapter: {}", err.message);
                    daemon.spare.forget(Some(generation));
                    drop(held);
                    daemon.exit_if_unused();
                    return;
                }
            }
            drop(held);
            tokio::time::sleep(time).await;
            daemon.expire_warm(generation).await;
        });
        true
    }

    /// Ends the warm adapter of `generation` when its time is up (unless a session took it, or a
    /// later one replaced it), and the daemon with it when it has no session.
    async fn expire_warm(&self, generation: u64) {
        if self.spare.is_current(generation) {
            tracing::info!("the warm adapter's time is up");
            self.spare.end().await;
        }
        self.exit_if_unused();
    }

    /// Shuts the daemon down when it holds neither a session nor a warm adapter.
    pub(super) fn exit_if_unused(&self) {
        if matches!(*self.slot(), Slot::Empty) && !self.spare.in_use() {
            tracing::info!("no session and no warm adapter; exiting");
            self.shutdown();
        }
    }
}

impl Daemon {
    /// "No session", as a command with no daemon for the name is told it (see
    /// [`OtherSessions::no_session_named`](crate::ipc::listing::OtherSessions::no_session_named)),
    /// with a word on the warm adapter when one is kept.
    pub(super) fn no_session(&self) -> ErrorBody {
        let others = crate::ipc::listing::other_sessions(
            &crate::common::paths::runtime_dir_path(),
            &self.name,
        );
        let mut err = others.no_session_named(&self.name);
        if let Some(info) = self.spare.info() {
            err.hint = format!(
                "{}; the {} adapter is kept warm for it ({:.0} s left; 'debugger stop' ends it)",
                err.hint, info.adapter, info.secs_left
            );
        }
        err
    }

    /// `stop` on a daemon with no session: ends its warm adapter, if it has one (the daemon then
    /// exits, see `server.rs`); else the error `no_session`. `detach` has nothing to detach.
    pub(super) async fn end_warm_only(
        &self,
        detach: bool,
        no_session: ErrorBody,
    ) -> Result<Value, ErrorBody> {
        if detach || !matches!(*self.slot(), Slot::Empty) {
            return Err(no_session);
        }
        match self.spare.end().await {
            Some(adapter) => {
                self.release_name();
                let message = format!("the warm {adapter} adapter was ended");
                serde_json::to_value(MessageResult { message })
                    .map_err(|e| ErrorBody::internal(format!("cannot encode a result: {e}")))
            }
            None => Err(no_session),
        }
    }

    /// A `stop` answer's `message`, saying that a warm adapter is kept.
    pub(super) fn warm_note(&self, message: String) -> String {
        match self.spare.info() {
            Some(info) => format!(
                "{message}; a warm {} adapter is kept for {:.0} s to make the next start \
                 faster ('debugger stop' again ends it)",
                info.adapter, info.secs_left
            ),
            None => message,
        }
    }

    /// What `sessions` shows of this daemon: its status, or, with no session but a warm
    /// adapter, that adapter (state `warm`).
    pub(super) async fn listing(&self) -> Result<Value, ErrorBody> {
        let warm = match &*self.slot() {
            Slot::Empty => self.spare.info(),
            _ => None,
        };
        let Some(info) = warm else {
            return self.status().await;
        };
        serde_json::to_value(StatusResult {
            session: self.name.clone(),
            state: SessionState::Warm,
            program: info.program.clone(),
            adapter: Some(info.adapter.clone()),
            daemon_pid: std::process::id(),
            adapter_pid: info.adapter_pid,
            debuggee_pid: info.debuggee_pid,
            stop: None,
            exit_code: None,
            signal: None,
            exit_note: None,
            detail: None,
            log_file: crate::common::paths::log_path(&self.name)
                .display()
                .to_string(),
            warm: Some(info),
            evaluating: None,
        })
        .map_err(|e| ErrorBody::internal(format!("cannot encode a result: {e}")))
    }
}

impl Daemon {
    /// `Command::Warm`: keeps a warm adapter of the kind named, for a `probe` that found none:
    /// run from the probe's `executable` (as if the config named it: the daemon's own search
    /// may find another, one the next probe could never take), started in `context`, the
    /// probe's program's, for one that is the program's process.
    pub(super) fn warm_for(
        self: &Arc<Self>,
        name: &str,
        executable: Option<PathBuf>,
        context: Option<ProcessContext>,
    ) -> Result<Value, ErrorBody> {
        let time = self.warm_time();
        let adapter = match executable {
            Some(path) => {
                let mut config = self.config.clone();
                config.adapters.entry(name.to_string()).or_default().path = Some(path);
                crate::adapters::resolve(Some(name), &config, None, false)?
            }
            None => crate::adapters::resolve(Some(name), &self.config, None, false)?,
        };
        let kept = !time.is_zero()
            && adapter.profile().warm.keeps_warm()
            && self.warm_up(adapter, context, time);
        if !kept {
            self.exit_if_unused();
        }
        let message = if kept {
            format!("a warm {name} adapter is kept")
        } else {
            format!("no warm {name} adapter is kept")
        };
        to_value(MessageResult { message })
    }

    /// `Command::Lend` (see its doc): answers on `writer`, then relays the warm adapter's
    /// streams to the client's until either side closes; then ends that adapter, and what the
    /// probe's program left of the daemon's tree, and warms another.
    pub(super) async fn lend<R, W>(
        self: &Arc<Self>,
        id: u64,
        (name, executable, context): (&str, &std::path::Path, Option<&ProcessContext>),
        mut reader: R,
        mut writer: W,
    ) where
        R: tokio::io::AsyncRead + Unpin,
        W: tokio::io::AsyncWrite + Unpin,
    {
        self.spare.lent.fetch_add(1, Ordering::SeqCst);
        let warm = self.spare.take_matching(name, executable, context).await;
        let answer = |result| Response { id, result };
        let Some(warm) = warm else {
            let none = ErrorBody::new(
                ErrorCode::NoSession,
                format!("no warm {name} adapter is kept"),
                "",
            );
            let _ = write_frame_async(&mut writer, &answer(Err(none))).await;
            self.spare.lent.fetch_sub(1, Ordering::SeqCst);
            self.exit_if_unused();
            return;
        };
        let adapter = warm.adapter();
        let context = warm.context().cloned();
        let (spawned, lent) = warm.into_raw();
        let launched = lent.kept.is_some();
        tracing::info!(pid = ?lent.adapter_pid, "lending the warm adapter to a probe");
        let SpawnedAdapter {
            process,
            reader: mut from_adapter,
            writer: mut to_adapter,
            ..
        } = spawned;
        // The next one is made while this one is lent, not once it is given back: probes asked
        // back to back (an agent's loop) found the next one still being made, and waited about as
        // long as a cold start. It is started apart from the clean-up below.
        let time = self.warm_time();
        if !time.is_zero() {
            self.warm_up(adapter, context, time);
        }
        if write_frame_async(&mut writer, &answer(to_value(lent)))
            .await
            .is_ok()
        {
            tokio::select! {
                _ = tokio::io::copy(&mut reader, &mut to_adapter) => {}
                _ = tokio::io::copy(&mut from_adapter, &mut writer) => {}
            }
        }
        tracing::info!("the probe is done with the warm adapter");
        // A kept launch's launcher and program are the daemon's, not the probe's: they end
        // with their adapter, whatever the daemon's own session is doing.
        if launched {
            end_with_its_program(&process);
        } else {
            process.kill();
        }
        // What the adapter started for the probe's program (lldb-server) is of the daemon's
        // tree; it is ended unless a session of the daemon's own still runs in that tree.
        let idle = match &*self.slot() {
            Slot::Empty => true,
            Slot::Active(session) => session.run_state().phase.is_ended(),
            _ => false,
        };
        if idle && let Some(reaper) = self.reaper.clone() {
            let _ = tokio::task::spawn_blocking(move || reaper.end_tree()).await;
        }
        self.spare.lent.fetch_sub(1, Ordering::SeqCst);
        self.exit_if_unused();
    }
}

fn to_value<T: serde::Serialize>(value: T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value)
        .map_err(|e| ErrorBody::internal(format!("cannot encode a result: {e}")))
}
