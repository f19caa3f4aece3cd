//! Debug adapters: one file each, knowing how to find the adapter, start it, and phrase its
//! `launch` and `attach` arguments; the table of them (`table.rs`) with what `doctor` and `setup`
//! need of each, and their install recipes (`install/`). Nothing outside this folder knows an
//! adapter's name (`tests/adapter_names.rs` holds that).

mod caller_env;
mod choice;
pub mod codelldb;
pub mod conditions;
mod core_dump;
pub mod custom;
mod dap_server;
pub mod debugpy;
pub mod delve;
pub mod dial_in;
pub mod evaluation_limits;
pub mod expression_errors;
pub mod expression_names;
pub mod gdb;
mod hit_rule;
pub mod install;
pub mod java;
mod launch_arguments;
pub mod line_tables;
pub mod lldb;
pub mod loaded_sources;
pub mod node;
pub mod pdb;
pub mod php;
pub mod process;
mod profile;
pub mod return_value;
mod row;
pub mod ruby;
pub mod runtime_frames;
pub mod rust_dwarf;
pub mod rust_expressions;
pub mod rust_formatters;
pub mod search;
mod signals;
mod source_roots;
mod table;
pub mod test_runtimes;
pub mod value_reading;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::error::ErrorBody;
use crate::common::location::Location;
use crate::dap::DapError;
use crate::dap::requests::{
    self, BreakpointList, Encoded, Request, SetFunctionBreakpoints, SetFunctionBreakpointsArguments,
};
use crate::dap::types::{Breakpoint, BreakpointsBody, EvaluateBody};
use crate::ipc::protocol::{AttachSpec, LaunchSpec, ProcessContext, StdioPaths};
pub use caller_env::CallerEnv;
pub use choice::{
    attach_detection_hint, detect, detect_attach_target, for_one_shot, resolve, resolve_for_core,
    writes_at_sign_names,
};
pub use conditions::ConditionHandling;
pub use core_dump::{CORE_OPENING_HINT, CORE_SAVING_HINT, CoreOpening, CoreSaving};
pub use launch_arguments::RequestExtras;
pub(crate) use launch_arguments::launch_with;
pub use loaded_sources::LoadedSources;
use process::{BoxFuture, SpawnedAdapter};
pub use profile::{AttachStop, Attaching, ConsoleUse, Cores, LeavingCall, Profile, WarmPolicy};
pub use row::{AdapterRow, Advice, Detection, ToolchainCheck};
pub use search::{env_var, first_file, highest_versioned_in, highest_versioned_on_path};
pub use signals::{LoggedEnd, SignalReporting};
pub use table::{ADAPTERS, adapter_names_hint, exception_filters_hint, kind};

/// How the program's channels (stdin from a file or nothing, stdout and stderr the daemon reads)
/// reach a program its adapter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdioRoute {
    /// The adapter is told their paths in `launch` (`launch_arguments`' `stdio`) and the
    /// program opens them (LLDB's target settings, GDB's shell redirection, Node's spawn).
    Told,
    /// The adapter asks the daemon to start the program (`runInTerminal`), and the daemon starts
    /// it on them (debugpy's launcher).
    StartedByDaemon,
    /// The program inherits the adapter's own streams, so the adapter is started on them
    /// (Delve, whose DAP launch takes no redirection).
    AdapterStreams,
}

/// An adapter's way with the program's channels.
#[derive(Clone, Copy, Debug)]
pub struct StdioSupport {
    pub route: StdioRoute,
    /// Used for every launch; else only for `--tty` and `--stdin`, the adapter's own pipes
    /// (and `output` events) serving otherwise.
    pub by_default: bool,
    /// The program's stderr goes to the channels too; else it still comes in `output` events
    /// (Node's, which carries the inspector's greeting).
    pub stderr: bool,
}

impl StdioSupport {
    /// A native adapter's: told the paths for every launch, both streams (LLDB, GDB).
    pub const TOLD_ALWAYS: StdioSupport = StdioSupport {
        route: StdioRoute::Told,
        by_default: true,
        stderr: true,
    };
}

/// What the session needs from an adapter that takes its own state or async code; the rest is
/// its [`Profile`].
pub trait DebugAdapter: Send + Sync {
    /// What the adapter is and does the same in every session.
    fn profile(&self) -> &Profile;

    /// The adapter's canonical name (`lldb`).
    fn name(&self) -> &'static str {
        self.profile().name
    }

    /// The executable that will be run.
    fn executable(&self) -> &Path;

    /// Starts the adapter, as `start` says, and connects to it.
    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>>;

    /// The `launch` request's arguments. `stdio`: the session's channels for the program's
    /// streams, when it has them ([`Profile::stdio`]), which an adapter told their paths
    /// ([`StdioRoute::Told`]) has the program open; `None`: the adapter's own pipes serve.
    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value;

    /// The `attach` request's arguments.
    fn attach_arguments(&self, spec: &AttachSpec) -> Value;

    /// How the adapter's breakpoints are readied, set and read, where the adapter's own requests
    /// are not enough.
    fn breakpoints(&self) -> &dyn BreakpointHooks {
        &AsWritten
    }

    /// Console commands (DAP `evaluate`, `repl` context) to run once the adapter has read
    /// `program` and before the program runs (after `initialized`, before `configurationDone`):
    /// Rust's value formatters for a Rust program (see [`rust_formatters`]). Called before
    /// `initialize`, so that whatever the look-up costs overlaps the adapter's start.
    fn program_setup(&self, _program: &Path) -> BoxFuture<'static, Vec<String>> {
        Box::pin(async { Vec::new() })
    }

    /// Folders besides the program's own and its working directory that a relative breakpoint
    /// file is taken relative to (Go's module root, Python's `sys.path`), and where the
    /// runtime's own library lies. May run a process, so the session calls it off the async
    /// threads, and only when the program's folders do not hold the file.
    fn source_roots(&self, _spec: &LaunchSpec) -> SourceRoots {
        SourceRoots::default()
    }

    /// Why the adapter failed to start a session, when the adapter can say better than `error`
    /// (what the session saw: an exit, a refused request). A check that costs a process run is
    /// made here, after a failure, rather than before every start (see `gdb::Gdb::locate`).
    fn explain_start_failure(&self, error: ErrorBody) -> ErrorBody {
        error
    }

    /// Checks up front what a session's start would only learn by failing (GDB's DAP
    /// interpreter): `doctor` and `setup` ask it of the adapter they found; a session does not,
    /// as the check costs a process run.
    fn check_usable(&self) -> Result<(), ErrorBody> {
        Ok(())
    }
}

/// How an adapter is started (see [`DebugAdapter::spawn`]).
#[derive(Clone, Copy)]
pub enum Start<'a> {
    /// On pipes or a port of its own.
    Plain,
    /// With the program's channels (`stdio`) as its own standard streams, for an adapter whose
    /// program inherits them ([`StdioRoute::AdapterStreams`]), to launch `spec` (an adapter that
    /// is the program's own process starts in its folder, with its environment).
    OnChannels {
        stdio: &'a StdioPaths,
        spec: &'a LaunchSpec,
    },
    /// Ahead of its program, in the folder and environment of the launch before, for an adapter
    /// warmed as the program's own process ([`WarmPolicy::AsProgram`]).
    Prepared(&'a ProcessContext),
}

impl Start<'_> {
    /// For an adapter that starts one way whatever the session: it cannot take the program's
    /// channels as its own, and a start ahead of its program is a plain one.
    pub fn one_way(self) -> Result<(), ErrorBody> {
        match self {
            Start::OnChannels { .. } => Err(ErrorBody::internal(
                "this adapter cannot be started on the program's channels",
            )),
            Start::Plain | Start::Prepared(_) => Ok(()),
        }
    }
}

/// An adapter's ways with breakpoints where its own requests are not enough (see
/// [`DebugAdapter::breakpoints`]).
pub trait BreakpointHooks: Send + Sync {
    /// Readies a breakpoint the adapter has not been sent yet, for an adapter that would accept
    /// it as written and then never stop there (debugpy: a function breakpoint on a generator, a
    /// line in library code under justMyCode). Returns where to set it instead (`None`: as
    /// written), and may first tell the running adapter what it needs through `requests`.
    /// Called just before the breakpoint is first sent in a session, with the breakpoint lock
    /// held.
    fn prepare<'a>(
        &'a self,
        _location: &'a Location,
        _requests: &'a dyn Requests,
    ) -> BoxFuture<'a, Option<Location>> {
        Box::pin(async { None })
    }

    /// Corrects the adapter's answer to a breakpoints request (the list `sent`) where the
    /// adapter is known to mislead: a breakpoint it calls verified that cannot stop (debugpy
    /// verifies any function name), or a message naming another tool's settings.
    fn review(&self, _sent: &BreakpointList, _answer: &mut [Breakpoint]) {}

    /// Sets the function breakpoints `arguments` lists and returns the answer: one breakpoint
    /// per name asked for, in any order, each with the id that stops will name. The adapter's
    /// own request is enough for most; an adapter whose name lookup misses names users write
    /// (lldb-dap and Rust paths) binds those by its own means here.
    fn set_function_breakpoints<'a>(
        &'a self,
        requests: &'a dyn Requests,
        arguments: SetFunctionBreakpointsArguments,
    ) -> BoxFuture<'a, Result<BreakpointsBody, ErrorBody>> {
        Box::pin(async move {
            Ok(requests
                .request::<SetFunctionBreakpoints>(&arguments)
                .await?)
        })
    }
}

/// Breakpoints sent as written, and the adapter's answers taken as they are.
pub struct AsWritten;

impl BreakpointHooks for AsWritten {}

/// How an adapter's program files are found for a breakpoint given by a relative file name.
#[derive(Debug, Clone, Copy)]
pub struct SourceLookup {
    /// The extensions of source files in the program's folder tree, which for a script language
    /// is the program itself (`py`; `js`, `mjs`...). Empty: the tree is not searched.
    pub tree_extensions: &'static [&'static str],
    /// A console command (DAP `evaluate`, `repl` context) that lists every source file of the
    /// program, one path per line: Delve's `dlv sources`, which covers GOROOT too.
    pub listing_command: Option<&'static str>,
    /// The listing grows as the program runs (Python's loaded modules), so it is asked for anew
    /// each time; else it is asked for once (Delve's file table is the binary's).
    pub listing_grows: bool,
    /// The adapter places a relative name itself (lldb and GDB by their line tables, node by
    /// script URL suffix): a name we cannot place is sent as typed, and binds when code from
    /// such a file loads.
    pub adapter_matches_names: bool,
    /// The adapter's roots ([`DebugAdapter::source_roots`]) are searched as trees for a name
    /// found nowhere else: Python's `sys.path`, whose modules may not be imported yet when the
    /// breakpoint is set (`isoparser.py:60` of an installed package the program imports later).
    pub roots_are_trees: bool,
    /// The names of folders that hold installed dependencies (`site-packages`, `node_modules`):
    /// a file under one is a dependency's, even inside the program's folder or the runtime's.
    pub dependency_folders: &'static [&'static str],
}

impl SourceLookup {
    /// No way: the program's tree is not searched, nor a listing read, nor the names left to the
    /// adapter.
    pub const NONE: SourceLookup = SourceLookup {
        tree_extensions: &[],
        listing_command: None,
        listing_grows: false,
        adapter_matches_names: false,
        roots_are_trees: false,
        dependency_folders: &[],
    };
}

/// The folders an adapter knows of beyond the program's own folder and working directory, for a
/// breakpoint given by a relative file name.
#[derive(Debug, Clone, Default)]
pub struct SourceRoots {
    /// Folders that hold the program's own files (Go's module root): a relative name is joined
    /// to each, and a file under one is the program's.
    pub program: Vec<PathBuf>,
    /// Folders the program's libraries are found in (Python's `sys.path`): a relative name is
    /// joined to each, and with `roots_are_trees` their trees are searched, but a file found
    /// there is a dependency's or the runtime's.
    pub libraries: Vec<PathBuf>,
    /// Where the runtime's own library lies (Python's standard library, GOROOT): a file there
    /// (outside a dependency folder) is chosen for a bare name only when neither the program
    /// nor a dependency has a file of that name.
    pub runtime: Vec<PathBuf>,
}

/// The session's line to the adapter, lent to an adapter's hooks.
///
/// A trait object cannot have generic methods, so a typed request crosses it encoded
/// ([`Encoded`], which only a typed request makes); hooks call `request::<R>` on the
/// `dyn Requests`, which encodes the request and reads the answer on their side.
pub trait Requests: Send + Sync {
    /// Sends one encoded request and returns the answer's body unread. A request the adapter
    /// takes only while the program is stopped is sent inside a pause nobody sees.
    fn send_encoded(&self, request: Encoded) -> BoxFuture<'_, Result<Value, DapError>>;
}

impl dyn Requests + '_ {
    /// Sends the typed request `R` and reads its answer.
    pub async fn request<R: Request>(
        &self,
        arguments: &R::Arguments,
    ) -> Result<R::Response, DapError> {
        let body = self.send_encoded(Encoded::new::<R>(arguments)?).await?;
        requests::decode::<R>(body)
    }
}

/// What a console `evaluate` answered: its `result` text. The console's answer is text to show,
/// so a success whose body we cannot read (no `result`) is an empty answer, not a failure.
pub fn console_answer(answer: Result<EvaluateBody, DapError>) -> Result<String, DapError> {
    match answer {
        Ok(body) => Ok(body.result),
        Err(DapError::Unreadable { .. }) => Ok(String::new()),
        Err(e) => Err(e),
    }
}

/// A console answer that is JSON in hexadecimal digits (what an expression of ours run in a
/// Python program returns, so that no adapter's quoting of a string can change it), in
/// whatever quotes the adapter shows a string.
pub fn hex_json(answer: &str) -> Option<Value> {
    let digits = answer.trim().trim_matches(|c| c == '\'' || c == '"');
    if digits.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect();
    serde_json::from_slice(&bytes?).ok()
}

/// The adapter's own console (DAP `evaluate` in the `repl` context, in the selected frame), as
/// the session lends it to an adapter's hooks.
pub trait Console: Send + Sync {
    /// Runs `text` and returns what the console answered.
    fn run<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, ErrorBody>>;
}

/// Reads memory by the adapter's own means (see [`ConsoleUse::memory`]).
pub trait ConsoleMemory: Send + Sync {
    /// Used even where the adapter advertises `readMemory`: Delve's reads only within a variable
    /// it listed, by the reference it gave with it, and no expression's answer carries one.
    fn instead_of_read_memory(&self) -> bool {
        false
    }

    /// Where `expression` points, by the console's own evaluation, for an expression whose value
    /// shows no address (Delve writes a pointer as `*30`). `None`: no such way.
    fn place_of<'a>(
        &'a self,
        _console: &'a dyn Console,
        _expression: &'a str,
    ) -> Option<BoxFuture<'a, Result<u64, ErrorBody>>> {
        None
    }

    /// Reads up to `count` bytes at `address`. Fewer bytes mean the rest could not be read; an
    /// error means not even the first byte could.
    fn read<'a>(
        &'a self,
        console: &'a dyn Console,
        address: u64,
        count: u32,
    ) -> BoxFuture<'a, Result<Vec<u8>, ErrorBody>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexadecimal_json_is_read_whatever_the_quotes() {
        let list = serde_json::json!([["/p", 12], ["/q", null]]);
        let hex: String = list
            .to_string()
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex_json(&format!("'{hex}'")), Some(list.clone()));
        assert_eq!(hex_json(&format!("\"{hex}\"")), Some(list));
        assert_eq!(hex_json("'7b'"), None);
        assert_eq!(hex_json("'xyz'"), None);
        assert_eq!(hex_json(""), None);
    }
}
