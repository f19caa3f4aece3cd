//! GDB's own DAP interpreter (`gdb -i=dap`), which GDB has had since version 14. An older GDB is
//! reported as lacking DAP, never half-used.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::core_dump::gdb_argument;
use super::line_tables::{CodeLines, LineTableQuery, gather};
use super::process::{BoxFuture, EnvChange, SpawnedAdapter, spawn_stdio};
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::rust_expressions::RustReading;
use super::rust_formatters::{self, Formatters};
use super::{
    AttachStop, BreakpointHooks, ConditionHandling, ConsoleUse, CoreOpening, CoreSaving, Cores,
    DebugAdapter, Profile, Requests, SignalReporting, Start, StdioSupport, WarmPolicy, launch_with,
};
use crate::common::config::{AdapterConfig, RustConfig};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::requests::{SetFunctionBreakpoints, SetFunctionBreakpointsArguments};
use crate::dap::types::{BreakpointsBody, UnverifiedReason};
use crate::ipc::protocol::{AttachSpec, CoreSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;

/// The first GDB with a DAP interpreter.
pub const MIN_DAP_VERSION: u32 = 14;

pub struct Gdb {
    executable: PathBuf,
    extra_args: Vec<String>,
    /// Whose Rust pretty printers a Rust program gets (see [`DebugAdapter::program_setup`]).
    rust: RustConfig,
    /// A GDB at the far end of `--connect`: not ours to run, so its failures are its own.
    remote: bool,
}

/// What to do for GDB on `os`, which `setup` cannot fix: DAP needs GDB 14 with Python. A Linux
/// distribution ships the GDB it ships; Homebrew's runs on Intel Macs only; on Windows the
/// package managers' GDB is old (Scoop's is 7.9), and MSYS2's is current and has Python.
pub fn advice(os: Os) -> String {
    let how = match os {
        Os::Linux => {
            "install GDB 14 or newer from your distribution ('apt-get install gdb' \
on Debian 13 or Ubuntu 24.04 and later, 'dnf install gdb' on Fedora)"
        }
        Os::MacOs => {
            "install GDB 14 or newer with 'brew install gdb' (Intel Macs only: GDB does \
not run on Apple silicon)"
        }
        Os::Windows => {
            "install GDB 14 or newer from MSYS2 ('pacman -S mingw-w64-ucrt-x86_64-gdb' \
in its shell) and put its ucrt64\\bin on PATH"
        }
    };
    format!("{how}; meanwhile 'debugger setup lldb' covers C, C++ and Rust")
}

/// GDB's path: the config's, else `gdb` on PATH.
pub fn find(config: &AdapterConfig) -> Option<PathBuf> {
    match &config.path {
        Some(path) => path.is_file().then(|| path.clone()),
        None => which::which("gdb").ok(),
    }
}

/// GDB's version line and major version ("GNU gdb (Debian 13.1-3) 13.1" → 13).
pub fn version(executable: &Path) -> Option<(String, u32)> {
    let output = std::process::Command::new(executable)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().next()?.trim().to_string();
    let major = line
        .split_whitespace()
        .last()?
        .split('.')
        .next()?
        .parse()
        .ok()?;
    Some((line, major))
}

/// True when a GDB with DAP (14+) is available.
pub fn has_dap(config: &AdapterConfig) -> bool {
    find(config).is_some_and(|path| speaks_dap(&path))
}

/// Whether the GDB at `executable` is one with DAP (14+).
pub fn speaks_dap(executable: &Path) -> bool {
    version(executable).is_some_and(|(_, major)| major >= MIN_DAP_VERSION)
}

impl Gdb {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> Gdb {
        Gdb {
            executable: PathBuf::from("gdb"),
            extra_args: Vec::new(),
            rust: RustConfig::default(),
            remote: true,
        }
    }

    /// The adapter with the config's `[rust]` settings.
    pub fn with_rust(self, rust: &RustConfig) -> Gdb {
        Gdb {
            rust: rust.clone(),
            ..self
        }
    }

    /// Finds GDB. Its version is not checked here: `gdb --version` is a whole GDB start
    /// (100-500 ms on the bench's machine) before the one that debugs, on every `start` and
    /// `probe`. A GDB without DAP refuses `--interpreter=dap` at once and exits, and only then
    /// is its version read, to say why ([`DebugAdapter::explain_start_failure`]).
    pub fn locate(config: &AdapterConfig) -> Result<Gdb, ErrorBody> {
        let executable = find(config).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "gdb not found",
                "install GDB 14 or newer ('apt-get install gdb' on a recent Debian/Ubuntu)",
            )
        })?;
        Ok(Gdb {
            executable,
            extra_args: config.args.clone(),
            rust: RustConfig::default(),
            remote: false,
        })
    }
}

/// Reads `maint info line-table` (see [`line_table_query`]).
fn read_line_tables(answer: &str) -> Vec<CodeLines> {
    let mut file: Option<PathBuf> = None;
    let mut pairs = Vec::new();
    for line in answer.lines() {
        if let Some(rest) = line.strip_prefix("symtab: ") {
            file = rest.split(" ((struct symtab").next().map(PathBuf::from);
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(index), Some(number)) = (words.next(), words.next()) else {
            continue;
        };
        if let (Some(file), true, Ok(number)) = (
            &file,
            index.bytes().all(|b| b.is_ascii_digit()),
            number.parse::<u32>(),
        ) {
            pairs.push((file.clone(), number));
        }
    }
    gather(pairs)
}

/// GDB's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "gdb",
    adapter_id: "gdb",
    stdio: Some(StdioSupport::TOLD_ALWAYS),
    // Its spawn and `initialize` take nothing of the program: the target comes in `launch`.
    // The C library is read ahead into a second inferior (see [`c_library_read_ahead`]).
    warm: WarmPolicy::Spare {
        commands: c_library_read_ahead,
    },
    // GDB's `exited` event says code 0 for a death by a signal, and its `signal` stop does not
    // name the signal: `$_exitsignal` and the stopped thread's siginfo tell.
    signals: SignalReporting {
        exit_signal_expression: Some("$_exitsignal"),
        stop_signal_expression: Some("$_siginfo.si_signo"),
        ..SignalReporting::DEFAULT
    },
    // GDB stops where a condition fails to evaluate, and answers a condition that does not
    // compile where its breakpoint binds as `failed`, with GDB's words (`No symbol "x" in
    // current context.`); the program's locations fail otherwise only as pending. Its DAP takes
    // a `hitCondition` as the hits to ignore (`bp.ignore_count = int(hitCondition)`).
    conditions: ConditionHandling {
        hit_condition: |hits| hits.saturating_sub(1).to_string(),
        refusal: |answer| {
            (!answer.verified && answer.reason == Some(UnverifiedReason::Failed))
                .then(|| answer.message.clone())
                .flatten()
        },
        ..ConditionHandling::DEFAULT
    },
    attach_stop: AttachStop::Stopped,
    return_value: ReturnValueSource::Scope {
        missing: "this GDB's DAP does not give it (GDB 14 and later do)",
    },
    rust_reading: Some(RustReading {
        escaped_strings: true,
        c_pointer_names: false,
    }),
    runtime_frames: runtime_frames::native,
    cores: Cores {
        opening: core_opening,
        saving: core_saving,
    },
    console: ConsoleUse {
        quits: quits_console,
        line_tables: line_table_query,
        ..ConsoleUse::NONE
    },
    clean_program_output,
    ..Profile::PLAIN
};

impl DebugAdapter for Gdb {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        let mut args: Vec<OsString> = vec!["--interpreter=dap".into(), "-q".into()];
        args.extend(self.extra_args.iter().map(OsString::from));
        let env = bytecode_cache_env();
        Box::pin(async move {
            start.one_way()?;
            spawn_stdio("gdb", &self.executable, &args, &env)
        })
    }

    /// A GDB older than 14 has no DAP interpreter: it says "Interpreter `dap' unrecognized" and
    /// exits, which is told as what it means.
    fn explain_start_failure(&self, error: ErrorBody) -> ErrorBody {
        if self.remote {
            return error;
        }
        match self.check_usable() {
            Ok(()) => error,
            Err(mut why) => {
                if why.message.starts_with("cannot read") {
                    why.message = format!("{}: {}", why.message, error.message);
                }
                why
            }
        }
    }

    /// GDB 14 or newer: the first with a DAP interpreter.
    fn check_usable(&self) -> Result<(), ErrorBody> {
        match version(&self.executable) {
            Some((_, major)) if major >= MIN_DAP_VERSION => Ok(()),
            Some((line, _)) => Err(ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("{line} has no DAP interpreter (GDB {MIN_DAP_VERSION} or newer has)"),
                "install a newer GDB, or use --adapter lldb",
            )),
            None => Err(ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("cannot read the version of {}", self.executable.display()),
                "check the gdb installation",
            )),
        }
    }

    /// GDB stops at `main` rather than at the program's first instruction (its `starti`), which
    /// is inside the dynamic loader. The program's streams go where the session says (`stdio`)
    /// by redirections in its command line (see [`shell_arguments`]).
    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value {
        let mut extra = json!({
            "stopOnEntry": false,
            "stopAtBeginningOfMainSubprogram": spec.stop_on_entry,
        });
        if let Some(stdio) = stdio {
            extra["args"] = Value::String(shell_arguments(&spec.args, stdio));
        }
        launch_with(spec, extra)
    }

    /// The program read (`file`), then Rust's GDB pretty printers for a Rust program: GDB's DAP
    /// takes CLI commands in the console, and its `launch` has no field for commands of its own.
    /// GDB's `launch` reads the program only at `configurationDone`, after the breakpoints: read
    /// before them, each breakpoint binds as it is set, and a condition that does not compile in
    /// its place is refused then (see [`Profile::conditions`]). Left pending, such a
    /// condition would disable its breakpoint when the program loads, with no word.
    fn program_setup(&self, program: &Path) -> BoxFuture<'static, Vec<String>> {
        let read = format!("file {}", gdb_argument(program));
        let formatters =
            rust_formatters::setup_in_background(program, &self.rust, Formatters::gdb_commands);
        Box::pin(async move {
            let mut commands = vec![read];
            commands.extend(formatters.await);
            commands
        })
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "pid": spec.pid })
    }

    fn breakpoints(&self) -> &dyn BreakpointHooks {
        self
    }
}

impl BreakpointHooks for Gdb {
    /// GDB says nothing of why a function breakpoint stays pending, and the likeliest reason in
    /// Rust is one GDB users do not expect: it knows a Rust function by its full path alone
    /// (`shapes::geometry::kind`, never `kind` or `geometry::kind`). A pending breakpoint
    /// without a message of GDB's own gets that said; it goes once GDB binds it.
    fn set_function_breakpoints<'a>(
        &'a self,
        requests: &'a dyn Requests,
        arguments: SetFunctionBreakpointsArguments,
    ) -> BoxFuture<'a, Result<BreakpointsBody, ErrorBody>> {
        Box::pin(async move {
            let mut body = requests
                .request::<SetFunctionBreakpoints>(&arguments)
                .await?;
            // GDB answers in the order asked.
            for (answer, sent) in body.breakpoints.iter_mut().zip(&arguments.breakpoints) {
                let silent = answer.message.as_deref().is_none_or(str::is_empty);
                if !answer.verified && silent && !sent.name.is_empty() {
                    answer.message = Some(PENDING_FUNCTION.to_string());
                }
            }
            Ok(body)
        })
    }
}

/// GDB's `quit` (`q`, `qui`, `exit`, `exi`) under its DAP interpreter never answers the
/// request that ran it, nor any after.
fn quits_console(text: &str) -> bool {
    text.split_whitespace()
        .next()
        .is_some_and(|word| ["q", "qui", "quit", "exi", "exit"].contains(&word))
}

/// GDB sends its own messages ("Breakpoint 2 at 0x…: file f.c, line 9.") down the same pipe as
/// the program's stdout and stderr, all as category `stdout`, a line per event; they are
/// dropped here so that `output` holds only what the program printed.
fn clean_program_output<'a>(text: &'a str) -> Cow<'a, str> {
    if !text.lines().any(is_gdb_message) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split_inclusive('\n')
            .filter(|line| !is_gdb_message(line.trim_end_matches(['\n', '\r'])))
            .collect(),
    )
}

/// GDB 16's DAP `attach` takes a pid or a remote target, never a core, so the core is
/// opened in its console. Its DAP side then counts the program as running (a new thread
/// seen, no stop after it) and refuses every request with `notStopped`; the same Python
/// command that loads the core says otherwise, before any request can be refused.
fn core_opening(spec: &CoreSpec) -> Option<CoreOpening> {
    let program = gdb_argument(&spec.program);
    let core = gdb_argument(&spec.core);
    let load = format!(
        "python import gdb.dap.events; gdb.execute({}, to_string=True); \
         gdb.execute({}, to_string=True); gdb.dap.events.inferior_running = False",
        python_string(&format!("file {program}")),
        python_string(&format!("core-file {core}")),
    );
    Some(CoreOpening::Console {
        commands: vec![load],
        thread_expression: "$_gthread",
    })
}

/// `maint info line-table REGEXP`: the line tables of the files whose names match, each
/// under a `symtab: PATH ((struct symtab *) 0x...)` line, a row per entry (`INDEX LINE
/// ADDRESS ...`, `END` for the last). GDB expands a file's tables when a breakpoint names
/// it, so those of a pending breakpoint's file are there to read.
fn line_table_query(file: &Path) -> Option<LineTableQuery> {
    let name = file.file_name()?.to_str()?;
    let mut pattern: String = name
        .chars()
        .flat_map(|c| {
            let special = "\\.^$*+?()[]{}|".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect();
    pattern.push('$');
    Some(LineTableQuery {
        command: format!("maint info line-table {pattern}"),
        read: read_line_tables,
    })
}

fn core_saving(dir: &Path, pid: Option<u32>) -> Option<CoreSaving> {
    let stem = format!("core.{}", pid.unwrap_or(0));
    let path = super::core_dump::saved_core_path(dir, &stem, "core");
    let command = format!("gcore {}", gdb_argument(&path));
    Some(CoreSaving { command, path })
}

/// Where GDB's Python keeps the modules it compiled, in our cache directory.
const BYTECODE_DIR: &str = "gdb-python";

/// GDB's environment changes that let its Python keep what it compiles, so that a GDB start reads
/// the compiled modules of the previous one. GDB's DAP is Python: before it answers `initialize`
/// it imports its `gdb` and `gdb.dap` packages and the standard library modules they use (about
/// 150), and a Python that cannot write `__pycache__` beside them (a GDB installed by root, run by
/// a user; or `PYTHONDONTWRITEBYTECODE` set, which GDB follows) compiles each from its source at
/// every start. On the bench's machine that was 460-600 ms of CPU in GDB's start against 185-200
/// ms with the modules kept: `PYTHONPYCACHEPREFIX` sends them to a private directory of ours,
/// and `PYTHONDONTWRITEBYTECODE` is taken out of GDB's own environment (a Python setting asked
/// there can turn writing off again: `-eiex "set python dont-write-bytecode on"` in
/// `[adapters.gdb] args`). Only GDB's own: the program's environment is the whole one the CLI
/// sends in `launch`, which GDB's DAP sets in place of its own. A `PYTHONPYCACHEPREFIX` of the
/// user's is left as it is, with everything else; so is the lot when no private directory can
/// be made.
fn bytecode_cache_env() -> Vec<EnvChange> {
    if std::env::var_os("PYTHONPYCACHEPREFIX").is_some_and(|prefix| !prefix.is_empty()) {
        return Vec::new();
    }
    let Some(dir) = crate::common::paths::private_cache_dir(BYTECODE_DIR) else {
        return Vec::new();
    };
    vec![
        ("PYTHONPYCACHEPREFIX", Some(dir.into_os_string())),
        ("PYTHONDONTWRITEBYTECODE", None),
    ]
}

/// `text` as a Python string literal (JSON's escapes are Python's too).
fn python_string(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// The program's arguments as one line for the shell GDB starts it with, each quoted, followed by
/// the redirections of its standard streams. GDB's DAP takes a string for `args` as it is (a list
/// it quotes itself), and starts the program through `/bin/sh` (`startup-with-shell`, on by
/// default), so the shell opens the daemon's FIFOs for the program: GDB 16 has no other way to
/// give the program's stdout and stderr each their own file (`set inferior-tty` takes one
/// terminal for all three).
fn shell_arguments(args: &[String], stdio: &StdioPaths) -> String {
    let quote = |text: &str| format!("'{}'", text.replace('\'', "'\\''"));
    let mut line: Vec<String> = args.iter().map(|a| quote(a)).collect();
    line.push(format!("<{}", quote(&stdio.stdin.to_string_lossy())));
    line.push(format!(">{}", quote(&stdio.stdout.to_string_lossy())));
    line.push(format!("2>{}", quote(&stdio.stderr.to_string_lossy())));
    line.join(" ")
}

/// Why a function breakpoint GDB left pending may stay so (see
/// `BreakpointHooks::set_function_breakpoints` for GDB).
const PENDING_FUNCTION: &str = "GDB knows no function of this name yet; it knows a Rust function \
only by its full path (crate::module::function, crate::module::Type::method, \
<crate::Type as crate::Trait>::method)";

/// Whether a line is one of the messages GDB prints as it sets breakpoints, which reach us mixed
/// with the program's output. Matched on their exact shapes, so that a program's own line is
/// dropped only if it reads like GDB's.
fn is_gdb_message(line: &str) -> bool {
    // A breakpoint set before GDB has read the program (it reads it at `configurationDone`)
    // is pending, with one of these first.
    if line == "No symbol table is loaded.  Use the \"file\" command."
        || (line.starts_with("No source file named ") && line.ends_with('.'))
        || (line.starts_with("Function \"") && line.ends_with("\" not defined."))
    {
        return true;
    }
    let rest = [
        "Temporary breakpoint ",
        "Breakpoint ",
        "Hardware breakpoint ",
        "Catchpoint ",
    ]
    .iter()
    .find_map(|prefix| line.strip_prefix(prefix));
    let Some(rest) = rest else {
        return false;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    // "Breakpoint 2 at 0x1149: file f.c, line 9.", "Breakpoint 3 at 0x1149", "Breakpoint 1
    // (-function apply) pending.", "Catchpoint 4 (throw)".
    rest.starts_with(" at 0x")
        || (rest.starts_with(" (") && rest.ends_with(") pending."))
        || (line.starts_with("Catchpoint ") && rest.starts_with(" (") && rest.ends_with(')'))
}

/// What a warm GDB does before its program is known: it reads the C library, in an inferior of
/// its own that never runs (inferior 2; the program is inferior 1's, selected again after).
///
/// GDB shares what it reads of a file's debug information among every object file opened on the
/// same file (`maint set bfd-sharing`, on by default), while one of them is open. The C library
/// (its symbols and, with Debian's libc6-dbg, its separate debug file) is most of GDB's time from
/// `run` to a first breakpoint: fixtures/c/ledger.c's `run` to `apply` took 181-216 ms, and
/// 44-48 ms with the library read before (GDB 16, `gdb -batch`, 3 runs each; the reading,
/// 145-149 ms, is done while the warm adapter waits). Inferior 2 holds the library for that:
/// `info inferiors` lists it, and a breakpoint on a C library function set before the program
/// has loaded the library is placed in inferior 2's copy too (and then in the program's, where
/// it stops), rather than left pending. The session's first events (GDB sends `initialized`
/// right after `initialize`) are read past by these commands and handed on to it. Nothing where there is no C library to name, or when
/// its path would need quoting.
fn c_library_read_ahead() -> Vec<String> {
    let Some(library) = crate::platform::c_library_path() else {
        return Vec::new();
    };
    let Some(path) = library.to_str() else {
        return Vec::new();
    };
    if path.contains(['"', '\\', '`', '$', ' ', '\'']) {
        return Vec::new();
    }
    vec![
        "add-inferior -no-connection".to_string(),
        "inferior 2".to_string(),
        format!("file {path}"),
        "inferior 1".to_string(),
    ]
}

#[cfg(test)]
mod tests;
