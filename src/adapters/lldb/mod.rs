//! lldb-dap (formerly lldb-vscode), LLVM's adapter for C, C++, Rust and anything else LLDB reads.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

mod exits;
mod function_patterns;
mod index_cache;
mod line_table;
mod memory;
mod return_value;
mod warm;
use exits::{end_in_gdb_remote_log, exit_code_note, is_lldb_log_line};

use super::install::{self, Software};
use super::process::{BoxFuture, SpawnedAdapter, spawn_stdio};
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::rust_expressions::RustReading;
use super::rust_formatters::{self, Formatters};
use super::{
    BreakpointHooks, Console, ConsoleUse, CoreOpening, CoreSaving, Cores, DebugAdapter, Profile,
    Requests, SignalReporting, Start, StdioSupport, WarmPolicy, env_var, first_file,
    highest_versioned_on_path,
};
use crate::common::config::{AdapterConfig, RustConfig};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::requests::{
    Evaluate, EvaluateArguments, SetFunctionBreakpoints, SetFunctionBreakpointsArguments,
};
use crate::dap::types::BreakpointsBody;
use crate::ipc::protocol::{AttachSpec, CoreSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;
use function_patterns::{FunctionSpec, PatternBreakpoints};

pub struct LldbDap {
    executable: PathBuf,
    extra_args: Vec<String>,
    /// The function breakpoints this run binds by pattern (see [`PatternBreakpoints`]). Each
    /// run has an adapter of its own, so these never outlive the lldb-dap that holds them.
    patterns: tokio::sync::Mutex<PatternBreakpoints>,
    /// Whose Rust formatters a Rust program gets (see [`DebugAdapter::program_setup`]).
    rust: RustConfig,
}

/// How to get lldb-dap on `os`, for the "not found" hint: the packages that provide it.
pub fn install_hint(os: Os) -> String {
    let packages = install::install_hint(Software::Lldb, os);
    let how = match os {
        Os::Linux => packages,
        Os::MacOs => format!("'xcode-select --install' (Xcode's lldb-dap), {packages}"),
        Os::Windows => format!("{packages} (lldb-dap.exe lands in %ProgramFiles%\\LLVM\\bin)"),
    };
    format!("install LLDB: {how}, or set adapters.lldb.path in the config")
}

impl LldbDap {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> LldbDap {
        LldbDap {
            executable: PathBuf::from("lldb-dap"),
            extra_args: Vec::new(),
            patterns: Default::default(),
            rust: RustConfig::default(),
        }
    }

    /// The adapter with the config's `[rust]` settings.
    pub fn with_rust(self, rust: &RustConfig) -> LldbDap {
        LldbDap {
            rust: rust.clone(),
            ..self
        }
    }

    /// Finds lldb-dap: the config's path, else `lldb-dap` on PATH (`lldb-dap.exe` on Windows),
    /// else the highest `lldb-dap-NN`, else `lldb-vscode(-NN)`, else `xcrun --find lldb-dap` on
    /// macOS, else where an LLVM install puts it off PATH ([`install_locations`]).
    pub fn locate(config: &AdapterConfig) -> Result<LldbDap, ErrorBody> {
        let executable = match &config.path {
            Some(path) if path.is_file() => path.clone(),
            Some(path) => {
                return Err(ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!(
                        "lldb-dap not found at {} (adapters.lldb.path in the config)",
                        path.display()
                    ),
                    "fix the path in the config, or remove it to search PATH",
                ));
            }
            None => find_on_system().ok_or_else(|| {
                ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    "lldb-dap not found",
                    install_hint(Os::CURRENT),
                )
            })?,
        };
        Ok(LldbDap {
            executable,
            extra_args: config.args.clone(),
            patterns: Default::default(),
            rust: RustConfig::default(),
        })
    }
}

/// The search that runs when the config names no path.
pub fn find_on_system() -> Option<PathBuf> {
    which::which("lldb-dap")
        .ok()
        .or_else(|| highest_versioned_on_path("lldb-dap"))
        .or_else(|| which::which("lldb-vscode").ok())
        .or_else(|| highest_versioned_on_path("lldb-vscode"))
        .or_else(xcrun_lldb_dap)
        .or_else(|| first_file(install_locations(Os::CURRENT, env_var)))
}

/// Where an LLVM install keeps lldb-dap off PATH on `os` (`env` reads the environment):
/// Homebrew's keg-only `llvm` on macOS (the Apple-silicon prefix, then the Intel one), and on
/// Windows the LLVM installer's folder (winget's `LLVM.LLVM` and Chocolatey's `llvm` run that
/// installer), then Scoop's.
pub fn install_locations(os: Os, env: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    match os {
        Os::Linux => Vec::new(),
        Os::MacOs => ["/opt/homebrew/opt/llvm/bin", "/usr/local/opt/llvm/bin"]
            .iter()
            .map(|dir| Path::new(dir).join("lldb-dap"))
            .collect(),
        Os::Windows => {
            let exe = os.executable("lldb-dap");
            let under = |var: &str, dirs: &[&str]| {
                env(var).map(|root| dirs.iter().fold(PathBuf::from(root), |p, d| p.join(d)))
            };
            let installer = under("ProgramFiles", &["LLVM", "bin"]);
            let scoop = under("USERPROFILE", &["scoop", "apps", "llvm", "current", "bin"]);
            [installer, scoop]
                .into_iter()
                .flatten()
                .map(|dir| dir.join(&exe))
                .collect()
        }
    }
}

/// Xcode's lldb-dap, which is not on PATH: `xcrun` finds it (only macOS has `xcrun`).
fn xcrun_lldb_dap() -> Option<PathBuf> {
    let xcrun = which::which("xcrun").ok()?;
    let output = std::process::Command::new(xcrun)
        .args(["--find", "lldb-dap"])
        .output()
        .ok()?;
    let path = String::from_utf8(output.stdout).ok()?;
    let path = PathBuf::from(path.trim());
    (output.status.success() && path.is_file()).then_some(path)
}

/// LLDB's version for an lldb-dap executable ("19.1.7"), for `doctor`. lldb-dap 19 prints
/// nothing for `--version`, so the `lldb` installed beside it is asked (beside the resolved file,
/// e.g. /usr/lib/llvm-19/bin/lldb, or by name, lldb-dap-19 → lldb-19, lldb-dap.exe →
/// lldb.exe); failing that, the major version in the name (`lldb-dap-19` → "19").
pub fn version(executable: &Path) -> Option<String> {
    let name = executable.file_name()?.to_str()?;
    let mut siblings = Vec::new();
    if let Some(dir) = std::fs::canonicalize(executable)
        .ok()
        .and_then(|real| real.parent().map(Path::to_path_buf))
    {
        siblings.push(dir.join(Os::CURRENT.executable("lldb")));
    }
    if let Some(dir) = executable.parent() {
        let stem = name
            .strip_prefix("lldb-dap")
            .or_else(|| name.strip_prefix("lldb-vscode"));
        if let Some(suffix) = stem {
            siblings.push(dir.join(format!("lldb{suffix}")));
        }
    }
    siblings
        .iter()
        .filter(|lldb| lldb.is_file())
        .find_map(|lldb| lldb_version(lldb))
        .or_else(|| {
            let suffix = name.rsplit('-').next()?;
            (!suffix.is_empty() && suffix.chars().all(|c| c.is_ascii_digit()))
                .then(|| suffix.to_string())
        })
}

/// Reads `lldb --version`: "lldb version 19.1.7" → "19.1.7"; Apple's "lldb-1500.0.404.1" →
/// "1500.0.404.1".
fn lldb_version(lldb: &Path) -> Option<String> {
    let output = std::process::Command::new(lldb)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
        .or_else(|| line.split_whitespace().next()?.strip_prefix("lldb-"))
        .map(str::to_string)
}

/// LLDB settings that make the debuggee run as the user asked: only the environment we pass
/// (the caller's, not the daemon's), and its standard streams on the files the session made
/// (`stdio`): stdin from a file or the null device (a program that reads sees end-of-file
/// instead of waiting on a terminal nobody types into), stdout and stderr to the daemon's two
/// FIFOs, or its pty. Without them (an lldb-dap at `--connect`, whose machine has none of our
/// files) lldb-dap runs the program on a pty of its own and sends its output as events.
fn init_commands(stdio: Option<&StdioPaths>) -> Value {
    let mut commands = index_cache::commands();
    commands.extend([
        "settings set target.inherit-env false".to_string(),
        // The gdb-remote `process` log holds lldb-server's exit packet, the one place LLDB 19
        // keeps whether an end was a signal; lldb-dap sends its lines as console output
        // (about eight a resume), where the session reads it (`end_in_gdb_remote_log`).
        "log enable gdb-remote process".to_string(),
    ]);
    match stdio {
        Some(stdio) => {
            for (setting, path) in [
                ("input-path", &stdio.stdin),
                ("output-path", &stdio.stdout),
                ("error-path", &stdio.stderr),
            ] {
                commands.push(format!(
                    "settings set target.{setting} {}",
                    lldb_quoted(&path.to_string_lossy())
                ));
            }
        }
        None => commands.push(format!(
            "settings set target.input-path {}",
            crate::platform::NULL_DEVICE
        )),
    }
    json!(commands)
}

/// `text` as one argument of an LLDB command: in double quotes, with `\` and `"` escaped.
fn lldb_quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// lldb-dap's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "lldb",
    adapter_id: "lldb-dap",
    stdio: Some(StdioSupport::TOLD_ALWAYS),
    // Its spawn and `initialize` take nothing of the program: the target comes in `launch`.
    warm: WarmPolicy::Spare {
        commands: warm_commands,
    },
    // LLDB's exit status of a program killed by a signal is the signal's number.
    signals: SignalReporting {
        signal_as_exit_code: true,
        end_in_console: Some(end_in_gdb_remote_log),
        is_log_line: is_lldb_log_line,
        death_while_stopped_code: Some(-1),
        exit_code_note,
        ..SignalReporting::DEFAULT
    },
    exception_stops: Some("C++ throw/catch"),
    return_value: ReturnValueSource::Console {
        command: return_value::COMMAND,
        read: return_value::read,
        missing: "lldb tells none here (a function returning void has none)",
    },
    rust_reading: Some(RustReading {
        escaped_strings: false,
        c_pointer_names: true,
    }),
    runtime_frames: runtime_frames::native,
    cores: Cores {
        opening: core_opening,
        saving: core_saving,
    },
    console: ConsoleUse {
        quits: quits_console,
        frame_selection: console_frame_selection,
        // lldb-dap 19 has no `readMemory`, but LLDB itself reads memory.
        memory: Some(&memory::ConsoleRead),
        // LLDB's `source info -f NAME` through the console (`line_table.rs`).
        line_tables: line_table::query,
    },
    is_program_output,
    clean_program_output,
    is_interrupt_stop,
    is_exec_stop,
    ..Profile::PLAIN
};

/// The C library, read into LLDB's module cache (see `warm.rs`), indexed through the cache too.
fn warm_commands() -> Vec<String> {
    let mut commands = index_cache::commands();
    commands.extend(warm::commands());
    commands
}

/// A core opens as lldb-dap's `attach` with a `coreFile`.
fn core_opening(spec: &CoreSpec) -> Option<CoreOpening> {
    Some(CoreOpening::Request {
        command: "attach",
        arguments: json!({ "program": spec.program, "coreFile": spec.core }),
    })
}

/// LLDB 19 writes a minidump on Linux whatever the file is called, and reads it back. In
/// its full style: the default holds the stacks alone, and `modified-memory` leaves out what
/// the program never wrote (its string literals, its globals' first values), which a minidump
/// does not take from the executable either, so a later `debugger core` showed `""` and
/// unreadable memory for them.
fn core_saving(dir: &Path, pid: Option<u32>) -> Option<CoreSaving> {
    let stem = format!("core.{}", pid.unwrap_or(0));
    let path = super::core_dump::saved_core_path(dir, &stem, "dmp");
    let command = format!("process save-core --style full \"{}\"", path.display());
    Some(CoreSaving { command, path })
}

impl DebugAdapter for LldbDap {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        let args: Vec<OsString> = self.extra_args.iter().map(OsString::from).collect();
        Box::pin(async move {
            start.one_way()?;
            spawn_stdio("lldb-dap", &self.executable, &args, &[])
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value {
        let env: Vec<String> = spec.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // lldb-dap takes the environment as "KEY=VALUE" strings.
        super::launch_with(
            spec,
            json!({ "env": env, "initCommands": init_commands(stdio) }),
        )
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "pid": spec.pid })
    }

    /// Rust's LLDB formatters, for a Rust program, as LLDB commands through the console.
    fn program_setup(&self, program: &Path) -> BoxFuture<'static, Vec<String>> {
        rust_formatters::setup_in_background(program, &self.rust, rust_setup)
    }

    fn breakpoints(&self) -> &dyn BreakpointHooks {
        self
    }
}

impl BreakpointHooks for LldbDap {
    /// LLDB's lookup by name misses most Rust paths: a generic function (`m::total`, whose
    /// instances are `total<u8>` and `total<u32>`), a method of a generic type (`Wrapper::get`),
    /// a trait method (`Rect::describe`, `<Rect as Describe>::describe`). lldb-dap's own
    /// breakpoint comes first; one it leaves unbound, on a name that reads as a Rust path, is
    /// replaced by a breakpoint on a pattern of the demangled names that path means (see
    /// [`RustPath::lldb_patterns`]), if that pattern finds the function. Its LLDB id then answers
    /// for the name, so stops map to it like any other; it carries lldb-dap's label, so lldb-dap
    /// reports its changes as it does its own. A name no pattern finds either keeps lldb-dap's
    /// breakpoint, pending, which binds should a library bring that name later.
    fn set_function_breakpoints<'a>(
        &'a self,
        requests: &'a dyn Requests,
        arguments: SetFunctionBreakpointsArguments,
    ) -> BoxFuture<'a, Result<BreakpointsBody, ErrorBody>> {
        Box::pin(async move {
            let console = Repl(requests);
            let mut patterns = self.patterns.lock().await;
            let wanted = arguments.breakpoints;
            let mut answer = patterns.keep_only(&console, &wanted).await;
            let by_name = SetFunctionBreakpointsArguments {
                breakpoints: wanted
                    .iter()
                    .filter(|bp| patterns.find(FunctionSpec::of(bp).name).is_none())
                    .cloned()
                    .collect(),
            };
            let mut from_lldb_dap = requests
                .request::<SetFunctionBreakpoints>(&by_name)
                .await?
                .breakpoints;
            for slot in &mut from_lldb_dap {
                patterns.bind_if_unbound(&console, &wanted, slot).await;
            }
            answer.extend(from_lldb_dap);
            Ok(BreakpointsBody {
                breakpoints: answer,
            })
        })
    }
}

/// LLDB's `quit` (its abbreviations, and `exit`) asks whether to kill the process, on
/// lldb-dap's input, which is the DAP stream: lldb-dap stops answering, and takes the next
/// request for the reply. A leading backtick marks a command in lldb-dap's console.
fn quits_console(text: &str) -> bool {
    let command = text.trim_start().trim_start_matches('`');
    command
        .split_whitespace()
        .next()
        .is_some_and(|word| ["q", "qu", "qui", "quit", "exi", "exit"].contains(&word))
}

/// lldb-dap's console runs a command in LLDB's selected thread and frame, not the request's.
/// Its thread ids are the system's, which `thread select -t` takes.
fn console_frame_selection(thread_id: i64, frame_index: u32) -> Vec<String> {
    vec![
        format!("thread select -t {thread_id}"),
        format!("frame select {frame_index}"),
    ]
}

/// Program output comes as events only when lldb-dap runs the program on a pty of its own
/// (see [`init_commands`]): its stdout and stderr then both arrive as `stdout`; the `stderr`
/// category carries lldb-dap's own stderr (and its crash reports).
fn is_program_output(category: Option<&str>) -> bool {
    category == Some("stdout")
}

/// lldb-dap's own pty (see [`init_commands`]) turns each `\n` the program writes into
/// `\r\n`; give the user back their `\n`.
fn clean_program_output<'a>(text: &'a str) -> Cow<'a, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// lldb-dap reports both `pause` and the entry stop as an `exception` "signal SIGSTOP"; a
/// pause that lands while LLDB handles one of its internal breakpoints (negative ids, e.g.
/// the dynamic loader's "breakpoint -1.1") comes as a `breakpoint` stop, or as the `step`
/// "trace" of LLDB stepping over it (a user's step says "step over", "step in", ...).
fn is_interrupt_stop(reason: &str, description: Option<&str>) -> bool {
    matches!(reason, "pause" | "entry")
        || (reason == "exception" && description == Some("signal SIGSTOP"))
        || (reason == "breakpoint" && description.is_some_and(|d| d.starts_with("breakpoint -")))
        || (reason == "step" && description == Some("trace"))
}

/// lldb-dap reports an `exec` as an "entry" stop described "exec".
fn is_exec_stop(reason: &str, description: Option<&str>) -> bool {
    reason == "entry" && description == Some("exec")
}

/// lldb-dap's default `commandEscapePrefix`: console text that starts with it is always an LLDB
/// command, never an expression, whatever the repl mode and whatever variables are in scope.
const COMMAND_ESCAPE: &str = "`";

/// The LLDB commands that load Rust's formatters, escaped as commands for the console.
fn rust_setup(formatters: &Formatters) -> Option<Vec<String>> {
    Some(
        formatters
            .lldb_commands()?
            .into_iter()
            .map(|command| format!("{COMMAND_ESCAPE}{command}"))
            .collect(),
    )
}

/// The console as an adapter hook reaches it: `evaluate` in the `repl` context, with no frame
/// (LLDB commands need none).
struct Repl<'a>(&'a dyn Requests);

impl Console for Repl<'_> {
    fn run<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, ErrorBody>> {
        Box::pin(async move {
            let answer = self
                .0
                .request::<Evaluate>(&EvaluateArguments::repl(text, None))
                .await;
            Ok(super::console_answer(answer)?)
        })
    }
}

/// The first `error:` line of LLDB's answer ("memory read failed for 0x0"), without the prefix.
fn console_error(reply: &str) -> Option<String> {
    reply
        .lines()
        .find_map(|line| line.trim().strip_prefix("error:"))
        .map(|message| message.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lldb_dap_is_looked_for_where_each_oss_llvm_puts_it() {
        let env = |name: &str| match name {
            "ProgramFiles" => Some(OsString::from(r"C:\Program Files")),
            "USERPROFILE" => Some(OsString::from(r"C:\Users\ada")),
            _ => None,
        };
        let windows = install_locations(Os::Windows, env);
        assert_eq!(windows.len(), 2, "{windows:?}");
        assert!(windows[0].starts_with(r"C:\Program Files"), "{windows:?}");
        assert!(windows[0].ends_with(Path::new("LLVM").join("bin").join("lldb-dap.exe")));
        assert!(
            windows[1].ends_with(
                Path::new("llvm")
                    .join("current")
                    .join("bin")
                    .join("lldb-dap.exe")
            )
        );
        assert!(install_locations(Os::Windows, |_| None).is_empty());
        assert_eq!(
            install_locations(Os::MacOs, env),
            vec![
                PathBuf::from("/opt/homebrew/opt/llvm/bin/lldb-dap"),
                PathBuf::from("/usr/local/opt/llvm/bin/lldb-dap")
            ]
        );
        assert!(install_locations(Os::Linux, env).is_empty());
    }

    #[test]
    fn the_install_hint_names_each_oss_packages() {
        assert_eq!(
            install_hint(Os::Linux),
            "install LLDB: 'apt-get install lldb-19' (Debian/Ubuntu), 'dnf install lldb' (Fedora), or set adapters.lldb.path in the config"
        );
        let mac = install_hint(Os::MacOs);
        assert!(
            mac.contains("'xcode-select --install'") && mac.contains("'brew install llvm'"),
            "{mac}"
        );
        let windows = install_hint(Os::Windows);
        assert!(
            windows.contains("'winget install -e --id LLVM.LLVM'"),
            "{windows}"
        );
        assert!(windows.contains(r"%ProgramFiles%\LLVM\bin"), "{windows}");
    }
}
