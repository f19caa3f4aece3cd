//! debugpy, Microsoft's adapter for Python: `python -m debugpy.adapter` over stdio.
//!
//! The Python is the config's (`adapters.debugpy.path`), else the active virtual environment's,
//! else the private one `debugger setup debugpy` creates, else the system's Python 3 (`python3`,
//! `python`; on Windows the `py` launcher's); it must be able to import debugpy.
//!
//! Breakpoints debugpy accepts, calls verified or merely pending, and then never stops at are set
//! differently here (see its `BreakpointHooks` below):
//!
//! - A function breakpoint on a generator or a coroutine. pydevd (under `sys.settrace`, Python
//!   3.11 and older) checks function breakpoints on the `call` event only for code without the
//!   `CO_GENERATOR`/`CO_COROUTINE` flags: for those, a `call` is every resumption, so it ignores
//!   them all. And it matches the bare `co_name`, so `Class.method` or `json.loads` never matches
//!   anything. Such a function, when its one definition is found (in the program's folder, or
//!   with its module on `sys.path`), becomes a line breakpoint on the first line of its body,
//!   where it stops when it first runs. A plain function by its bare name stays a function
//!   breakpoint, which stops on the `def` line.
//! - A line in library code (the standard library, site-packages) under justMyCode: pydevd does
//!   not trace such files at all. A file the user puts a breakpoint in is made the user's code:
//!   by the launch's `rules` for the breakpoints given at start, and for those added later by
//!   adding the same rule to the running debugger (pydevd has no request for it, so a frameless
//!   `evaluate` does it). Stepping may then enter that file too, as it would the program's own.
//! - What still cannot stop says so, with the way out: a bare function name defined nowhere in
//!   the program's folder under justMyCode, which debugpy calls verified (`--no-just-my-code`);
//!   a `Class.method` (or a generator) defined more than once, which cannot be moved to one
//!   line (FILE:LINE, or the name with its module); and a file debugpy could not be told to
//!   trace.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Map, Value, json};

mod breakpoints;
mod frame_names;
mod loaded_files;
mod members;
pub(crate) use members::is_pytest_temporary;
mod python;
mod start;

use super::conditions::SettingRequest;
use super::process::{BoxFuture, EnvChange, SpawnedAdapter, spawn_stdio};
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::value_reading::ValueReading;
use super::{
    BreakpointHooks, CallerEnv, ConditionHandling, DebugAdapter, Detection, LoadedSources, Profile,
    Requests, SignalReporting, SourceLookup, SourceRoots, Start, StdioRoute, StdioSupport,
    WarmPolicy, launch_with,
};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::Location;
use crate::dap::requests::BreakpointList;
use crate::dap::types::Breakpoint as DapBreakpoint;
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;
use breakpoints::{EXCLUDED_FILE, breakpoint_files, include_rules};
use python::leave_out_the_adapters_version;
pub use python::{
    active_venv_python, candidate_pythons, debugpy_version, install_hint, private_venv,
    python_path_of, system_python, venv_python, version_manager_files,
};
use start::{ADAPTER_MAIN, NO_DELAY, kept_program_facts, quiet_debuggee};

pub struct Debugpy {
    pub(super) python: PathBuf,
    extra_args: Vec<String>,
    /// What the launch or attach asked for, which [`BreakpointHooks::prepare`] needs.
    run: Mutex<RunFacts>,
    /// The Pythons that were there to try, when `python` was taken without being asked to
    /// import debugpy ([`Debugpy::for_session`]): what a failed start names.
    unchecked: Option<Vec<PathBuf>>,
    /// The GDB the config names (`adapters.gdb.path`), first on the adapter's PATH: debugpy
    /// attaches to a pid by having the `gdb` it finds there inject its server, and an old GDB
    /// cannot on every kernel (Debian 12's 13.1 fails on Linux 6.18: "Couldn't write extended
    /// state status"), so the attach would hang until its time ran out.
    injector: Option<PathBuf>,
}

/// What the session's launch or attach told debugpy.
#[derive(Debug, Default)]
struct RunFacts {
    /// The launched program; its folder is where function definitions are looked for. `None`
    /// when attached: the program's files are then unknown here.
    program: Option<PathBuf>,
    just_my_code: bool,
    /// Files debugpy has been told are the user's code, so that breakpoints there stop.
    included: HashSet<PathBuf>,
    /// Function names debugpy would call verified and may never stop at, each with the message
    /// that says why: defined nowhere in the program's folder (nor, with their module, in the
    /// library), which under justMyCode stops only if it is the user's code after all; or a
    /// `Class.method` (or a generator) defined more than once, which pydevd never matches by
    /// that name and which cannot be moved to one definition's line.
    unplaced: HashMap<String, String>,
    /// The definition look-ups started with the launch, by function name, not yet read (see
    /// `Debugpy::start_lookups`); dropping one ends its Python.
    lookups: HashMap<String, tokio::process::Child>,
}

impl Debugpy {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> Debugpy {
        Debugpy::with("python3".into(), Vec::new())
    }

    fn with(python: PathBuf, extra_args: Vec<String>) -> Debugpy {
        Debugpy {
            python,
            extra_args,
            run: Mutex::default(),
            unchecked: None,
            injector: None,
        }
    }

    /// Attaches to a pid through the GDB at `gdb` when one is given (see [`Debugpy::injector`]).
    pub fn injecting_with(mut self, gdb: Option<PathBuf>) -> Debugpy {
        self.injector = gdb;
        self
    }

    /// The adapter's PATH with the injecting GDB's folder first, when there is one.
    fn path_with_injector(&self) -> Option<std::ffi::OsString> {
        let folder = self.injector.as_deref()?.parent()?.to_path_buf();
        let rest = std::env::var_os("PATH").unwrap_or_default();
        std::env::join_paths(std::iter::once(folder).chain(std::env::split_paths(&rest))).ok()
    }

    fn run(&self) -> std::sync::MutexGuard<'_, RunFacts> {
        self.run.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The first Python that imports debugpy, in the caller's environment.
    pub fn locate(config: &AdapterConfig, caller: CallerEnv<'_>) -> Result<Debugpy, ErrorBody> {
        let candidates = candidate_pythons(config, caller);
        let python = candidates
            .iter()
            .find(|python| python.is_file() && debugpy_version(python).is_some())
            .cloned()
            .ok_or_else(|| not_found(&candidates))?;
        Ok(Debugpy::with(python, config.args.clone()))
    }

    /// The adapter a session starts: [`Debugpy::locate`]'s, but when only one Python is there
    /// to try, it is taken without first being run to import debugpy (350-400 ms before every
    /// `start` and `probe` on the bench's machine, through pyenv's shim). One without debugpy
    /// fails `-m debugpy.adapter` at once, and the failure is then told as debugpy missing
    /// ([`DebugAdapter::explain_start_failure`]). Among several, the check still picks.
    pub fn for_session(
        config: &AdapterConfig,
        caller: CallerEnv<'_>,
    ) -> Result<Debugpy, ErrorBody> {
        let candidates = candidate_pythons(config, caller);
        let present: Vec<&PathBuf> = candidates.iter().filter(|p| p.is_file()).collect();
        match present.as_slice() {
            [only] => {
                let mut adapter = Debugpy::with((*only).clone(), config.args.clone());
                adapter.unchecked = Some(candidates.clone());
                Ok(adapter)
            }
            _ => Debugpy::locate(config, caller),
        }
    }
}

/// The error for Pythons none of which imports debugpy.
fn not_found(candidates: &[PathBuf]) -> ErrorBody {
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!("debugpy not found (tried: {})", tried.join(", ")),
        format!(
            "{}; or use our own Python adapter, which needs only Python: '--adapter pdb'",
            install_hint(Os::CURRENT)
        ),
    )
}

/// The files of the modules the program has loaded so far, one per line (debugpy's own left
/// out): with the program's tree and `sys.path`, what a relative breakpoint file is matched
/// against, so `lexer.py` names the loaded library's once it is imported.
const LOADED_MODULE_FILES: &str = "\"\\n\".join(sorted({f for f in (getattr(m, '__file__', None) \
    for m in list(__import__('sys').modules.values())) if f and '/debugpy/' not in f}))";

/// How a Python program's files are found for a relative breakpoint file, under either Python
/// adapter: the `.py` files of its folder tree, and the modules it has loaded so far.
pub const PYTHON_SOURCES: SourceLookup = SourceLookup {
    tree_extensions: &["py"],
    listing_command: Some(LOADED_MODULE_FILES),
    listing_grows: true,
    adapter_matches_names: false,
    roots_are_trees: true,
    dependency_folders: &["site-packages", "dist-packages"],
};

/// What a Python program looks like to either Python adapter's detection: a `.py` or `.pyw`
/// file, or a script whose `#!` line names python.
pub const PYTHON_PROGRAMS: Detection = Detection {
    extensions: &["py", "pyw"],
    interpreters: &["python"],
    ..Detection::NONE
};

/// Settings sent in both `launch` and `attach` so a Python program reads like any other.
///
/// - `variablePresentation`: debugpy groups an object's dunder attributes under a synthetic
///   "special variables" child, its methods under "function variables" and attributes holding
///   classes under "class variables" (children with an empty value and type; no DAP
///   `presentationHint` marks them). Dunders are Python's machinery, not the program's values:
///   hidden (`print obj.__dict__` still reaches them). Functions stay grouped: the session lists a
///   frame's grouped locals among the others (a local holding a function is a local) and counts
///   an object's methods among what its listing left out (`daemon::variables`). Classes are
///   shown inline like any other value.
/// - `breakOnSystemExit: []`: with the `uncaught` exception filter, debugpy stops on
///   `sys.exit(N)` for any N other than 0 as if it were a crash. Here the program simply exits and
///   the exit code is reported, as it is for C. (A `sys.exit("message")` still stops. A debugpy
///   too old to know the key ignores it and keeps stopping on non-zero exits; 1.8.22 knows it.)
fn presentation_options() -> Map<String, Value> {
    let options = json!({
        "variablePresentation": {
            "special": "hide",
            "function": "group",
            "class": "inline",
            "protected": "inline",
        },
        "breakOnSystemExit": [],
    });
    match options {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn with_presentation_options(mut arguments: Value) -> Value {
    if let Value::Object(map) = &mut arguments {
        map.extend(presentation_options());
    }
    arguments
}

/// debugpy reports a Python killed by signal N as code 256 - N (the negative return code
/// Python's `subprocess` gives, as a byte): say what it may have been.
fn exit_code_note(code: i64) -> Option<String> {
    let signal = i32::try_from(256 - code)
        .ok()
        .filter(|n| (1..64).contains(n))?;
    let name = crate::platform::signal_name(signal)?;
    Some(format!(
        "debugpy reports a death by signal N as 256-N: this may have been {name} ({signal})"
    ))
}

/// debugpy's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "debugpy",
    adapter_id: "debugpy",
    stdio: Some(StdioSupport {
        route: StdioRoute::StartedByDaemon,
        by_default: false,
        stderr: true,
    }),
    // `python -m debugpy.adapter` and its `initialize` take nothing of the program: the launch
    // names the program, its interpreter (`python`), folder and environment, and debugpy starts
    // a new launcher and a new Python for it, so a spare is kept. (The adapter's own environment
    // is the daemon's, as it is for a `start` without one; the launch's `env`, the whole of the
    // caller's, is laid over it.) Its launch costs most of its first stop (its launcher and the
    // program's Python, each through a version manager's shim here, and pydevd imported into the
    // program), and it holds the program at `initialized` until `configurationDone`, before
    // `runpy` has read the program's file: kept so, it serves the next identical launch
    // (`kept_launch.rs`).
    warm: WarmPolicy::KeptLaunch {
        facts: kept_program_facts,
        start_inputs: version_manager_files,
    },
    signals: SignalReporting {
        exit_code_note,
        ..SignalReporting::DEFAULT
    },
    // pydevd takes a condition that raises as false, and tells of it only in an `important`
    // output event, which leaves out a `NameError` (a misspelt name, the likeliest failure):
    // asked to suspend on every exception a condition raises (its `setDebuggerProperty`), it
    // stops there, and the session learns why by evaluating the condition again.
    conditions: ConditionHandling {
        stop_on_failure_request: Some(SettingRequest {
            command: "setDebuggerProperty",
            arguments: || json!({ "skipSuspendOnBreakpointException": [] }),
        }),
        ..ConditionHandling::DEFAULT
    },
    // debugpy wants the exact path, so a relative name is placed by us: a Python program is
    // the `.py` files of its folder tree.
    source_lookup: PYTHON_SOURCES,
    // Stop on exceptions nothing catches, as a Python user expects.
    exception_filters: &["uncaught"],
    // A failed assertion is caught by the test runner, so it is never uncaught: `userUnhandled`
    // stops where it leaves the user's code for the runner's, at the test's failing line.
    failure_exception_filters: &["userUnhandled"],
    exception_stops: Some("raised/uncaught"),
    // debugpy's adapter holds the `process` event back until `launch` is answered (it is
    // among the events it defers until `configurationDone`), then sends it at once.
    reports_process_after_launch: true,
    // Python's routines, which pydevd lists among the data when their names start with `_`
    // (see `members.rs`).
    method_types: members::METHOD_TYPES,
    // Launched with `showReturnValue`, debugpy shows it as a local of the caller.
    return_value: ReturnValueSource::LocalNamed("(return) "),
    // The program writes its loaded files as it exits ([`loaded_files::write_at_exit`]).
    loaded_sources: LoadedSources::WrittenAtExit(loaded_files::write_at_exit),
    // pytest's rewritten asserts keep their temporaries in the test's frame (`@py_assert1`):
    // no names of the program's.
    value_reading: ValueReading {
        hidden_local: members::is_pytest_temporary,
        ..ValueReading::DEFAULT
    },
    runtime_frames: runtime_frames::python,
    // Without pydevd's ` (Current frame)` label (see `frame_names.rs`).
    frame_name: |name| Cow::Borrowed(frame_names::function_of(name)),
    ..Profile::PLAIN
};

impl DebugAdapter for Debugpy {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    /// A Python taken unchecked ([`Debugpy::for_session`]) that cannot import debugpy.
    fn explain_start_failure(&self, error: ErrorBody) -> ErrorBody {
        self.check_usable().err().unwrap_or(error)
    }

    fn check_usable(&self) -> Result<(), ErrorBody> {
        match &self.unchecked {
            Some(tried) if debugpy_version(&self.python).is_none() => Err(not_found(tried)),
            _ => Ok(()),
        }
    }

    fn executable(&self) -> &Path {
        &self.python
    }

    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        let mut args: Vec<OsString> = vec!["-c".into(), ADAPTER_MAIN.into()];
        args.extend(self.extra_args.iter().map(OsString::from));
        Box::pin(async move {
            start.one_way()?;
            let env: Vec<EnvChange> = match self.path_with_injector() {
                Some(path) => vec![("PATH", Some(path))],
                None => Vec::new(),
            };
            spawn_stdio("debugpy", &self.python, &args, &env)
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value {
        let python = &spec.options.python;
        let program = if spec.program.is_absolute() {
            spec.program.clone()
        } else {
            spec.cwd.join(&spec.program)
        };
        let mut arguments = json!({
            "type": "python",
            "request": "launch",
            "justMyCode": python.just_my_code,
            // Output comes to us as output events, not through a terminal.
            "console": "internalConsole",
            "redirectOutput": true,
            "python": self.python,
            // debugpy would start every child Python the program runs under debugpy too, each
            // waiting for a client to attach (its `debugpyAttach` event) before running a line:
            // a program that runs `subprocess.run([sys.executable, ...])` waited forever.
            // Children run as they would without the debugger.
            "subProcess": false,
            // The value a function returned shows as a `(return) NAME` local of the frame a
            // `finish` or `next` comes back to: `finish` reports it.
            "showReturnValue": true,
        });
        if stdio.is_some() {
            // `--tty`/`--stdin`: debugpy's launch takes no stdin; asked to run its launcher "in
            // a terminal", it leaves the program the launcher's streams, which are ours.
            arguments["console"] = json!("integratedTerminal");
            arguments["redirectOutput"] = json!(false);
        }
        if let Some(module) = &python.module {
            // `python -m MODULE`: the program stands only for where the user's code is.
            arguments["module"] = json!(module);
        }
        {
            let mut run = self.run();
            *run = RunFacts {
                program: Some(program),
                just_my_code: python.just_my_code,
                ..RunFacts::default()
            };
            if python.just_my_code {
                run.included = breakpoint_files(&spec.breakpoints);
                if !run.included.is_empty() {
                    arguments["rules"] = include_rules(&run.included);
                }
            }
        }
        self.start_lookups(&spec.breakpoints);
        let mut arguments = launch_with(spec, arguments);
        if python.module.is_some()
            && let Some(fields) = arguments.as_object_mut()
        {
            // debugpy takes one of program, module and code.
            fields.remove("program");
        }
        leave_out_the_adapters_version(spec, &mut arguments);
        with_presentation_options(arguments)
    }

    /// pydevd's socket to the adapter without Nagle's delay ([`start::NO_DELAY`]), debugpy's
    /// environment report skipped when no log keeps it ([`start::quiet_debuggee`]), and the
    /// class constants of built-in types left out of their values' members
    /// ([`members::hide_class_constants`]).
    fn program_setup(&self, _program: &Path) -> BoxFuture<'static, Vec<String>> {
        Box::pin(async {
            vec![
                NO_DELAY.to_string(),
                quiet_debuggee(),
                members::hide_class_constants(),
            ]
        })
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        let mut arguments = json!({ "type": "python", "request": "attach", "justMyCode": true });
        if let Some(pid) = spec.pid {
            arguments["processId"] = json!(pid);
        }
        let included = breakpoint_files(&spec.breakpoints);
        if !included.is_empty() {
            arguments["rules"] = include_rules(&included);
        }
        *self.run() = RunFacts {
            program: None,
            just_my_code: true,
            included,
            ..RunFacts::default()
        };
        with_presentation_options(arguments)
    }

    /// The program's `sys.path` (less its own folder, which the session tries first): what the
    /// interpreter that runs it reports with the program's environment, so `PYTHONPATH` and the
    /// virtual environment count, and `json/decoder.py` names the standard library's.
    fn source_roots(&self, spec: &LaunchSpec) -> SourceRoots {
        python_path_of(&self.python, spec)
    }

    fn breakpoints(&self) -> &dyn BreakpointHooks {
        self
    }
}

impl BreakpointHooks for Debugpy {
    fn prepare<'a>(
        &'a self,
        location: &'a Location,
        requests: &'a dyn Requests,
    ) -> BoxFuture<'a, Option<Location>> {
        Box::pin(async move {
            match location {
                Location::Function { name } => self.function_as_line(name, requests).await,
                Location::Line { file, .. } => {
                    self.include_file(file, requests).await;
                    None
                }
                Location::Data { .. } => None,
            }
        })
    }

    fn review(&self, sent: &BreakpointList, answer: &mut [DapBreakpoint]) {
        let run = self.run();
        for (name, bp) in sent.names().into_iter().zip(answer.iter_mut()) {
            let unplaced = name.and_then(|n| run.unplaced.get(n));
            if let Some(message) = unplaced {
                bp.verified = false;
                bp.message = Some(message.clone());
            } else if bp
                .message
                .as_deref()
                .is_some_and(|m| m.contains("excluded by filters"))
            {
                bp.message = Some(EXCLUDED_FILE.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests;
