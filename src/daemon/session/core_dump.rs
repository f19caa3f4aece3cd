//! A session on a core dump: the checks before any adapter is started (a dump at all, whole, of
//! this program), the opening by an adapter that takes a core only in its console, the one stop
//! such a session has (why the process died, in which thread and frame), and the rule that
//! nothing may run it.
//!
//! Apart from the lifecycle because a core's session has no program to launch, resume or end:
//! everything particular to it is here, and the rest of the session treats it as a stop that
//! never ends.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{Session, Shared, killed_by};
use crate::adapters::{CORE_OPENING_HINT, CORE_SAVING_HINT, CoreOpening, DebugAdapter};
use crate::common::elf::{self, CoreFacts, Dump, DumpError};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::user_files::{self, Role};
use crate::daemon::run_state::{Phase, StopInfo};
use crate::dap::DapClient;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::dap::types::StackFrame;
use crate::ipc::protocol::{CoreSpec, StopReason};

/// glibc keeps the message of a failed `assert` (and of its other aborts) in `__abort_msg`, a
/// pointer to `struct abort_msg_s { unsigned int size; char msg[]; }`: the text is 4 bytes in.
/// Written without the struct's type, which a program without glibc's debug info lacks.
const GLIBC_ABORT_MESSAGE: &str = "(char *)(*(char **)&__abort_msg + 4)";

/// SIGABRT's number on Linux, the one system whose C library keeps an abort message.
const SIGABRT: i32 = 6;

/// Frames looked through for the crashing frame (the innermost with source of the program's).
const CRASH_FRAME_SEARCH: u32 = 32;

/// The error of every command that would run a core dump's program.
pub(crate) fn cannot_run(program: &Path) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::NotRunning,
        "a core dump cannot run",
        format!(
            "it is the memory of a process that has died; to run the program, start it: 'debugger start {}'",
            program.display()
        ),
    )
}

/// Checks the dump before an adapter sees it (an adapter may hang on a cut file, or show a
/// mismatched program's symbols over the core's memory as if they fitted), and returns what the
/// core says of the crash: `None` for a minidump, of which nothing is read here.
pub(super) fn inspect(spec: &CoreSpec) -> Result<Option<CoreFacts>, ErrorBody> {
    let core = spec.core.display();
    // A core file that is not there, or cannot be read, is a bad argument: a usage error, as
    // a missing program is; so is one of another kind, which is never opened.
    user_files::refuse_other_kinds(&spec.core, Role::CoreFile)?;
    user_files::refuse_other_kinds(&spec.program, Role::Program)?;
    if !spec.core.is_file() {
        return Err(ErrorBody::new(
            ErrorCode::Usage,
            format!("no core file at {core}"),
            "give the path of the core dump; 'debugger doctor' tells where this machine writes them",
        ));
    }
    let facts = match elf::read_dump(&spec.core) {
        Ok(Dump::Minidump) => return Ok(None),
        Ok(Dump::Elf(facts)) => facts,
        Err(DumpError::Unreadable(why)) => {
            return Err(ErrorBody::new(
                ErrorCode::Usage,
                format!("cannot read the core file {core}: {why}"),
                "check the path and its permissions",
            ));
        }
        Err(DumpError::NotADump) => {
            return Err(ErrorBody::usage(
                format!("{core} is not a core dump (neither ELF nor a minidump)"),
                "give the core file first written by the crash: 'debugger core PROGRAM COREFILE'",
            ));
        }
        Err(DumpError::NotACore) => {
            return Err(ErrorBody::usage(
                format!("{core} is an executable or a library, not a core dump"),
                "the program comes first, then its core: 'debugger core PROGRAM COREFILE'",
            ));
        }
        Err(DumpError::Truncated { size, needed }) => {
            return Err(ErrorBody::new(
                ErrorCode::Usage,
                format!(
                    "the core file {core} is truncated: it has {size} bytes, its headers describe {needed}"
                ),
                "the dump was cut short (a core size limit, a full disk, an unfinished copy); take a whole one",
            ));
        }
    };
    check_build_id(spec, &facts)?;
    Ok(Some(facts))
}

/// Refuses a core whose program is not `spec.program`, by their build ids, when both have one.
fn check_build_id(spec: &CoreSpec, facts: &CoreFacts) -> Result<(), ErrorBody> {
    let Some(in_core) = &facts.program_build_id else {
        return Ok(());
    };
    let program = match elf::build_id(&spec.program) {
        Ok(Some(id)) => id,
        Ok(None) | Err(_) => return Ok(()),
    };
    if &program == in_core {
        return Ok(());
    }
    let crashed = facts
        .program_path
        .as_deref()
        .map(|path| format!(" ({path})"))
        .unwrap_or_default();
    Err(ErrorBody::new(
        ErrorCode::Usage,
        format!(
            "the core does not match the program: the core's program{crashed} has build id {in_core}, {} has build id {program}",
            spec.program.display()
        ),
        "give the very executable that crashed (a rebuild has another build id)",
    ))
}

/// The error for an adapter that cannot open core dumps.
pub(super) fn unsupported(adapter: &dyn DebugAdapter) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Unsupported,
        format!("the {} adapter cannot open core dumps", adapter.name()),
        CORE_OPENING_HINT,
    )
}

/// An adapter's refusal of the core, said as one (its words kept), with what to check.
pub(super) fn opening_failed(adapter: &dyn DebugAdapter, err: ErrorBody) -> ErrorBody {
    ErrorBody::new(
        err.code,
        format!(
            "the {} adapter could not open the core: {}",
            adapter.name(),
            err.message
        ),
        "check that COREFILE is a whole core of PROGRAM, in a format the adapter reads (ELF cores: every native adapter; a minidump: the adapter that wrote it)",
    )
}

/// Opens the core through the adapter's console (see [`CoreOpening::Console`]), once the adapter
/// is initialised. A command the console refuses fails the opening with its words.
pub(super) async fn open_by_console(
    dap: &DapClient,
    shared: &Shared,
    commands: &[String],
    limit: Duration,
) -> Result<(), ErrorBody> {
    tokio::time::timeout(limit, shared.initialized.notified())
        .await
        .map_err(|_| {
            ErrorBody::new(
                ErrorCode::AdapterTimeout,
                "the debug adapter never finished initialising",
                "the adapter may be broken or too old; the daemon log ('debugger status' names it) has its output",
            )
        })?;
    for command in commands {
        // A refusal is said by `opening_failed`, as every adapter's is.
        let answer = dap
            .request_typed::<Evaluate>(&EvaluateArguments::repl(command, None))
            .await?;
        tracing::debug!(command, answer = answer.result, "core opening command");
    }
    Ok(())
}

impl Session {
    /// Whether this session is on a core dump.
    pub fn is_core(&self) -> bool {
        matches!(self.origin, super::Origin::Core(_))
    }

    /// Makes the core's one stop: the crashed thread (as the adapter reports it, or as its
    /// expression names it), the signal and faulting address the core holds, and the crashing
    /// frame selected: the innermost with source the program's own, not the C library's or the
    /// runtime's frames that took the signal on its behalf.
    pub(super) async fn settle_core_stop(
        self: &Arc<Self>,
        facts: Option<CoreFacts>,
        limit: Duration,
    ) -> Result<(), ErrorBody> {
        let spec = match &self.origin {
            super::Origin::Core(spec) => spec.clone(),
            _ => return Ok(()),
        };
        let (adapter_stop, thread_expression) =
            match (self.adapter().profile().cores.opening)(&spec) {
                Some(CoreOpening::Console {
                    thread_expression, ..
                }) => (None, Some(thread_expression)),
                _ => match self.shared.run.wait_settled_after(0, limit).await {
                    Some(state) => match state.phase {
                        Phase::Stopped(stop) => (Some(stop), None),
                        _ => return Err(self.not_running_error(&state.phase)),
                    },
                    None => {
                        return Err(ErrorBody::new(
                            ErrorCode::AdapterTimeout,
                            "the adapter opened the core but never showed the crashed thread",
                            "the core may not be this program's, or the adapter cannot read it",
                        ));
                    }
                },
            };
        let mut thread_id = adapter_stop.as_ref().and_then(|s| s.thread_id);
        if let Some(expression) = thread_expression {
            let answer = self
                .dap()
                .request_typed::<Evaluate>(&EvaluateArguments::watch(expression, None))
                .await;
            thread_id = answer.ok().and_then(|a| a.result.trim().parse().ok());
        }
        let facts = facts.unwrap_or_default();
        let signal = facts
            .signal
            .or(adapter_stop.as_ref().and_then(|s| s.signal));
        let description = match signal {
            Some(signal) => format!("the program was {}", killed_by(signal)),
            None => "the program died".to_string(),
        };
        {
            let mut view = self.shared.view();
            view.selection.thread = thread_id;
            view.selection.frame = 0;
            view.caches.frames = None;
            view.caches.thread_names.clear();
        }
        self.shared.program.facts().core_fault_address = facts.fault_address;
        self.shared.run.set(Phase::Stopped(StopInfo {
            reason: StopReason::Core,
            description: Some(description),
            text: None,
            thread_id,
            hit_breakpoint_ids: Vec::new(),
            signal,
            condition_failure: None,
        }));
        let thread_id = match thread_id {
            Some(id) => id,
            None => {
                let id = self.first_thread_id().await?;
                self.shared.view().selection.thread = Some(id);
                id
            }
        };
        let frame_id = self
            .select_crash_frame_of(thread_id)
            .await
            .map(|(_, id)| id);
        if signal == Some(SIGABRT) {
            let message = self.abort_message(frame_id).await;
            self.shared.program.facts().core_abort_message = message;
        }
        Ok(())
    }

    /// Selects the crashing frame of the stopped thread (see [`crash_frame`]) and returns its
    /// index: what a crash report shows, rather than the C library's or the runtime's frames
    /// that took the signal on the program's behalf.
    pub async fn select_crash_frame(&self) -> Result<u32, ErrorBody> {
        let thread_id = self.current_thread().await?;
        Ok(self
            .select_crash_frame_of(thread_id)
            .await
            .map_or(0, |(index, _)| index))
    }

    /// Selects `thread_id`'s crashing frame; its index and DAP id, `None` when the stack cannot
    /// be read.
    async fn select_crash_frame_of(&self, thread_id: i64) -> Option<(u32, i64)> {
        let (frames, _) = self.frames(thread_id, CRASH_FRAME_SEARCH).await.ok()?;
        let index = crash_frame(&frames);
        self.shared.view().selection.frame = index;
        Some((index, frames.get(index as usize)?.id))
    }

    /// Writes a core of the stopped program into `dir` through the adapter (lldb's
    /// `process save-core`, GDB's `gcore`) and returns its path.
    pub async fn save_core(&self, dir: &Path) -> Result<std::path::PathBuf, ErrorBody> {
        let pid = self.shared.program.facts().pid;
        let saving = (self.adapter().profile().cores.saving)(dir, pid).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter cannot write core files",
                    self.adapter().name()
                ),
                CORE_SAVING_HINT,
            )
        })?;
        // Writing a large program's core takes what it takes, not an expression's limit.
        let answer = self
            .raw(&saving.command, Some(self.dap().request_timeout()))
            .await?;
        if !saving.path.is_file() {
            return Err(ErrorBody::new(
                ErrorCode::Adapter,
                format!(
                    "the adapter wrote no core at {}: {}",
                    saving.path.display(),
                    answer.output.trim()
                ),
                "check that the directory is writable and has room",
            ));
        }
        Ok(saving.path)
    }

    /// The C library's message of the abort, where the core has one (see
    /// [`GLIBC_ABORT_MESSAGE`]); `None` for a program without it (Go, musl) or a plain abort().
    /// lldb-dap evaluates only in a frame (`frame_id`), GDB anywhere.
    async fn abort_message(&self, frame_id: Option<i64>) -> Option<String> {
        let answer = self
            .dap()
            .request_typed::<Evaluate>(&EvaluateArguments::watch(GLIBC_ABORT_MESSAGE, frame_id))
            .await
            .ok()?;
        quoted_text(&answer.result).filter(|text| !text.is_empty())
    }
}

/// The text of a C string as an adapter shows it (`0x7f… "text"` from lldb, `"text"` from GDB),
/// its escapes undone and its trailing newline dropped.
fn quoted_text(value: &str) -> Option<String> {
    let start = value.find('"')?;
    let end = value.rfind('"').filter(|end| *end > start)?;
    let mut text = String::new();
    let mut chars = value[start + 1..end].chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => text.push('\n'),
                Some('t') => text.push('\t'),
                Some(other) => text.push(other),
                None => {}
            },
            (c, false) => text.push(c),
        }
    }
    Some(text.trim_end().to_string())
}

/// The innermost frame of the program's own: one with a source file that is on this machine and
/// that the adapter does not mark as of little interest (Delve's runtime frames are "subtle").
/// Frame 0 when there is none.
fn crash_frame(frames: &[StackFrame]) -> u32 {
    frames
        .iter()
        .position(|frame| {
            let hint = frame.presentation_hint.as_deref();
            let own = !matches!(hint, Some("subtle" | "deemphasize" | "label"));
            let on_disk = frame
                .source
                .as_ref()
                .and_then(|s| s.path.as_deref())
                .is_some_and(|path| Path::new(path).is_file());
            own && on_disk && frame.line > 0
        })
        .map_or(0, |i| i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(name: &str, path: Option<&str>, hint: Option<&str>) -> StackFrame {
        serde_json::from_value(serde_json::json!({
            "id": 1,
            "name": name,
            "line": 3,
            "source": path.map(|p| serde_json::json!({ "path": p })),
            "presentationHint": hint,
        }))
        .expect("a frame")
    }

    #[test]
    fn the_crash_frame_is_the_innermost_of_the_programs_own() {
        let here = file!();
        let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(here);
        let own = own.to_string_lossy();
        let frames = [
            frame("raise", None, None),
            frame("runtime.sigpanic", Some(&own), Some("subtle")),
            frame(
                "core::panicking",
                Some("/rustc/abc/library/core/src/panicking.rs"),
                None,
            ),
            frame("divide", Some(&own), None),
        ];
        assert_eq!(crash_frame(&frames), 3);
        assert_eq!(crash_frame(&frames[..2]), 0);
    }

    #[test]
    fn abort_messages_are_read_from_either_adapters_string() {
        let lldb = r#"0x00007eff75f19004 "a.c:14: f: Assertion `x >= 0' failed.\n" {*$0 = 'a'}"#;
        let gdb = r#""say \"no\"\n""#;
        assert_eq!(
            quoted_text(lldb).as_deref(),
            Some("a.c:14: f: Assertion `x >= 0' failed.")
        );
        assert_eq!(quoted_text(gdb).as_deref(), Some("say \"no\""));
        assert_eq!(quoted_text("0x0"), None);
    }
}
