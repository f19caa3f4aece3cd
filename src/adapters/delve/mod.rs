//! Delve, the Go debugger: `dlv dap` listening on a loopback port it announces on stdout.
//!
//! A Go binary launches in `exec` mode; a `.go` file or a package directory in `debug` mode, where
//! Delve builds it first, in the package's own directory (so its `go.mod` applies). Goroutines
//! show as threads. The debuggee writes to Delve's own stdout and stderr, which are read for
//! Delve's whole life into the program's output; Delve's `output` events are its own messages
//! (build errors, notices), which go to the log.
//!
//! The relay between Delve and the session is in [`relay`]: Delve never sends `exited`, hides a
//! failed build's reason in an `output` event, and sends no `process` event; it makes up for
//! all three.

mod conditions;
pub mod go_programs;
mod memory;
mod relay;
mod return_value;
pub mod toolchain;
mod unloaded;
mod values;

use std::borrow::Cow;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::dial_in::spawn_dialing_in;
use super::install::{self, Software};
use super::process::{BoxFuture, SpawnedAdapter, open_program_streams, spawn_tcp};
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::value_reading::ValueReading;
use super::{
    ConsoleUse, CoreOpening, Cores, DebugAdapter, Profile, SignalReporting, SourceLookup,
    SourceRoots, Start, StdioRoute, StdioSupport, env_var, launch_with,
};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::scratch;
use crate::dap::requests::EvaluateContext;
use crate::ipc::protocol::{AttachSpec, CoreSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;
use relay::relay;
use toolchain::DelveVersion;

pub struct Delve {
    executable: PathBuf,
    extra_args: Vec<String>,
}

/// How to get Delve on `os`: Go's `go install`, which builds one as new as the Go (a system's
/// package may be too old for it: Debian 12's reads Go 1.20 at most), else the packages where
/// there are some (none on Windows, where Go's packages come first).
pub fn install_hint(os: Os) -> String {
    let go_install = format!("'go install {DELVE_MODULE}'");
    let how = match os {
        Os::Windows => format!(
            "install Go ({}) and run {go_install}",
            install::install_hint(Software::Go, os)
        ),
        _ => format!(
            "install Delve with Go: {go_install} (a Delve as new as your Go), or your system's, \
             which may be too old for your Go: {}",
            install::install_hint(Software::Delve, os)
        ),
    };
    format!("{how}; or run 'debugger setup delve'")
}

/// What `go install` builds: the dlv command, at its latest release.
pub const DELVE_MODULE: &str = "github.com/go-delve/delve/cmd/dlv@latest";

/// Where Delve is: the config's path, else the first of `dlv` on PATH (`dlv.exe` on Windows),
/// where `go install` puts it (`$(go env GOBIN)`, else `$(go env GOPATH)/bin`) and Go's default
/// GOPATH (`~/go/bin`) that reads the programs of the Go here (see [`toolchain`]).
pub fn find(config: &AdapterConfig) -> Option<PathBuf> {
    if let Some(path) = &config.path {
        return path.is_file().then(|| path.clone());
    }
    let go = toolchain::GoToolchain::find();
    let dlv = Os::CURRENT.executable("dlv");
    let candidates = [
        which::which("dlv").ok(),
        go.as_ref()
            .and_then(|go| go.install_dir.as_ref())
            .map(|dir| dir.join(&dlv)),
        default_go_bin(Os::CURRENT, env_var),
    ];
    toolchain::choose(
        candidates.into_iter().flatten().collect(),
        go.and_then(|go| go.version),
        |path| version(path).as_deref().and_then(DelveVersion::parse),
    )
}

/// `dlv` in Go's default GOPATH, `~/go/bin` (`HOME`; `USERPROFILE` on Windows).
fn default_go_bin(os: Os, env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let home = env(if os == Os::Windows {
        "USERPROFILE"
    } else {
        "HOME"
    })?;
    Some(
        PathBuf::from(home)
            .join("go")
            .join("bin")
            .join(os.executable("dlv")),
    )
}

/// Delve's version ("1.20.2"), from the "Version: 1.20.2" line of `dlv version`, for `doctor`.
pub fn version(executable: &Path) -> Option<String> {
    let output = std::process::Command::new(executable)
        .arg("version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.trim().strip_prefix("Version:"))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

impl Delve {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> Delve {
        Delve {
            executable: PathBuf::from("dlv"),
            extra_args: Vec::new(),
        }
    }

    pub fn locate(config: &AdapterConfig) -> Result<Delve, ErrorBody> {
        let executable = find(config).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "Delve (dlv) not found",
                install_hint(Os::CURRENT),
            )
        })?;
        Ok(Delve {
            executable,
            extra_args: config.args.clone(),
        })
    }
}

/// Reads "DAP server listening at: 127.0.0.1:40321".
fn listening_address(line: &str) -> Option<SocketAddr> {
    let (_, address) = line.split_once("listening at:")?;
    address.trim().parse().ok()
}

fn is_go_source(program: &Path) -> bool {
    program.extension().is_some_and(|e| e == "go") || program.is_dir()
}

/// Where Delve runs `go build` for a source program: the package directory itself, so the
/// module around it (its `go.mod`) is the main module whatever directory the daemon runs in.
fn build_dir(program: &Path) -> Option<&Path> {
    if program.is_dir() {
        Some(program)
    } else {
        program.parent().filter(|p| !p.as_os_str().is_empty())
    }
}

/// The hint for a launch that Delve refused: its version check (a Go newer, or older, than this
/// Delve reads), a library package (which builds nothing to run), or a failed `go build` (the
/// relay puts go's own words in the message, after "Build Error:"): what to do about that, not
/// about the program path.
fn build_failure_hint(message: &str) -> Option<&'static str> {
    if message.contains("Version of Delve is too old") {
        return Some(
            "this Delve cannot read what this Go builds: run 'debugger setup delve', which runs \
             'go install github.com/go-delve/delve/cmd/dlv@latest' ('debugger doctor' shows which \
             Delve and Go are used)",
        );
    }
    if message.contains("is too old for this version of Delve") {
        return Some(
            "the program was built by a Go older than this Delve reads: build it with a newer Go, \
             or use a Delve as old as that Go (Delve's releases follow Go's: Delve 1.22 reads Go \
             1.22)",
        );
    }
    if message.contains("not an executable file") {
        // Delve builds a package folder or a .go file and runs what `go build` made: for a
        // package that is not `package main` that is no program.
        return Some(
            "this is not a main package (a library builds no program to run): run its tests \
             with 'debugger test' in its folder ('debugger test --list' names them), or start a \
             package main or an executable",
        );
    }
    if !message.contains("Build Error:") {
        return None;
    }
    Some(if message.contains("go.mod file not found") {
        "the folder is in no Go module: run 'go mod init <name>' in it, or start its .go file \
         instead (a file builds without a module)"
    } else {
        "go build failed: fix what it reports, then start again"
    })
}

/// Delve's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "delve",
    adapter_id: "go",
    stdio: Some(StdioSupport {
        route: StdioRoute::AdapterStreams,
        by_default: false,
        stderr: true,
    }),
    // Delve tells a death by signal N as an exit with status −N.
    signals: SignalReporting {
        signal_as_negative_code: true,
        ..SignalReporting::DEFAULT
    },
    conditions: conditions::HANDLING,
    // Delve wants the exact path; the binary's own file table (`dlv sources`, GOROOT's files
    // included) is what a relative name is matched against.
    source_lookup: SourceLookup {
        listing_command: Some("dlv sources"),
        dependency_folders: &["vendor"],
        ..SourceLookup::NONE
    },
    // Delve's own stops on a panic nothing recovers and on a fatal runtime error. Delve 1.27
    // offers them as filters, on by default, and turns off any that `setExceptionBreakpoints`
    // leaves out; Delve 1.20 offers none and always stops there.
    exception_filters: EXCEPTION_FILTERS,
    failure_exception_filters: EXCEPTION_FILTERS,
    // Delve's DAP does not give it: it is read from the registers (`return_value.rs`).
    return_value: ReturnValueSource::Evaluated {
        plan: return_value::plan,
    },
    // Delve cuts the text of a compound value at 256 bytes (`...`, in the middle of a member)
    // but for a value to copy, and reads a long string whole only for one; past one level
    // below the value asked for, it leaves values unloaded (`unloaded.rs`). Its byte slices,
    // runes, `reflect.Value`s and result slots are shown in Go's words (`values.rs`).
    value_reading: ValueReading {
        context: EvaluateContext::Clipboard,
        logpoint_context: EvaluateContext::Watch,
        unloaded_parts: |value| {
            let mut parts = unloaded::parts(value);
            parts.extend(values::reflect_values(value));
            parts
        },
        held_value: values::reflect_value_of_members,
        reword: values::reword,
        hidden_local: values::is_result_slot,
    },
    runtime_frames: runtime_frames::go,
    cores: Cores {
        opening: core_opening,
        ..Cores::NONE
    },
    console: ConsoleUse {
        memory: Some(&memory::ConsoleRead),
        ..ConsoleUse::NONE
    },
    is_program_output,
    thread_label,
    build_products,
    ..Profile::PLAIN
};

/// See [`Profile::exception_filters`] in [`PROFILE`].
const EXCEPTION_FILTERS: &[&str] = &["unrecovered-panic", "runtime-fatal-throw"];

impl DebugAdapter for Delve {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    /// A failed build gets a hint about the build (see [`build_failure_hint`]).
    fn explain_start_failure(&self, error: ErrorBody) -> ErrorBody {
        match build_failure_hint(&error.message) {
            Some(hint) => ErrorBody {
                hint: hint.to_string(),
                ..error
            },
            None => error,
        }
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    /// Delve listens on a loopback port it announces on stdout. Its DAP launch takes no
    /// redirection (`-r` is ignored by `dlv dap`): the program inherits dlv's own streams, so for
    /// `--tty` and `--stdin` dlv is started on the session's channels, and dials in to us since
    /// its stdout can no longer say where it listens.
    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        Box::pin(async move {
            let spawned = match start {
                Start::OnChannels { stdio, .. } => {
                    let mut args: Vec<OsString> = vec!["dap".into()];
                    args.extend(self.extra_args.iter().map(OsString::from));
                    let streams = open_program_streams(stdio).map_err(|e| {
                        ErrorBody::usage(
                            format!("the program's channels cannot be opened: {e}"),
                            "start the program without --tty and --stdin",
                        )
                    })?;
                    spawn_dialing_in(
                        "dlv",
                        &self.executable,
                        &args,
                        streams,
                        Duration::from_secs(20),
                    )
                    .await?
                }
                Start::Plain | Start::Prepared(_) => {
                    let mut args: Vec<OsString> = vec!["dap".into(), "--listen=127.0.0.1:0".into()];
                    args.extend(self.extra_args.iter().map(OsString::from));
                    spawn_tcp(
                        "dlv",
                        &self.executable,
                        &args,
                        listening_address,
                        Duration::from_secs(20),
                    )
                    .await?
                }
            };
            Ok(relay(spawned))
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, _stdio: Option<&StdioPaths>) -> Value {
        let tests = spec.options.go.test_package;
        let mode = match (tests, is_go_source(&spec.program)) {
            (true, _) => "test",
            (false, true) => "debug",
            (false, false) => "exec",
        };
        let mut arguments = launch_with(spec, json!({ "request": "launch", "mode": mode }));
        if is_go_source(&spec.program) {
            // Build into our private scratch folder: not as __debug_bin in the user's source
            // tree, nor at a guessable path in the shared temp dir. A name per launch, since one
            // process may run several (the probes of an MCP server).
            static BUILDS: AtomicU32 = AtomicU32::new(0);
            let dir = scratch::ensure_own_dir().unwrap_or_else(|e| {
                tracing::warn!("{}", e.message);
                scratch::own_dir()
            });
            let output = dir.join(format!(
                "dlv-build-{}",
                BUILDS.fetch_add(1, Ordering::Relaxed)
            ));
            arguments["output"] = json!(output);
            if let Some(dir) = build_dir(&spec.program) {
                arguments["dlvCwd"] = json!(dir);
            }
        }
        arguments
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        match spec.pid {
            Some(pid) => json!({ "request": "attach", "mode": "local", "processId": pid }),
            None => json!({ "request": "attach", "mode": "remote" }),
        }
    }

    /// The module root around the program (the folder with `go.mod`), so `cmd/x/main.go` means
    /// the module's file from any directory; and GOROOT, whose files (`fmt/format.go`) lose to
    /// the module's and its dependencies' of the same name.
    fn source_roots(&self, spec: &LaunchSpec) -> SourceRoots {
        let start = if spec.program.is_dir() {
            Some(spec.program.as_path())
        } else {
            spec.program.parent()
        };
        let module_root = start
            .into_iter()
            .flat_map(Path::ancestors)
            .find(|dir| dir.join("go.mod").is_file())
            .map(Path::to_path_buf);
        SourceRoots {
            program: module_root.into_iter().collect(),
            libraries: Vec::new(),
            runtime: toolchain::goroot(spec).into_iter().collect(),
        }
    }
}

/// `* [Go 20 k:v] main.worker (Thread 13519)` is goroutine 20 (with its pprof labels),
/// selected by Delve, in `main.worker`, on an OS thread: its header label is `goroutine 20
/// k:v`.
fn thread_label<'a>(name: &'a str) -> Cow<'a, str> {
    goroutine_label(name).map_or(Cow::Borrowed(name), Cow::Owned)
}

/// The program Delve built for a launch from source (`output`, set above).
fn build_products(arguments: &Value) -> Vec<PathBuf> {
    arguments["output"]
        .as_str()
        .map(PathBuf::from)
        .into_iter()
        .collect()
}

/// The debuggee's output reaches us through Delve's stdio; Delve's `output` events, whatever
/// their category, are its own (a build error comes as `stderr`).
fn is_program_output(_category: Option<&str>) -> bool {
    false
}

fn core_opening(spec: &CoreSpec) -> Option<CoreOpening> {
    Some(CoreOpening::Request {
        command: "launch",
        arguments: json!({
            "request": "launch",
            "mode": "core",
            "program": spec.program,
            "coreFilePath": spec.core,
            "cwd": spec.cwd,
        }),
    })
}

/// The goroutine part of Delve's name for a goroutine (see [`Profile::thread_label`]).
fn goroutine_label(name: &str) -> Option<String> {
    let inside = name.trim_start_matches("* ").strip_prefix("[Go ")?;
    let (goroutine, _) = inside.split_once(']')?;
    Some(format!("goroutine {goroutine}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goroutines_header_label_is_its_own_part_of_delves_name() {
        assert_eq!(
            goroutine_label("* [Go 1] main.(*Ledger).apply (Thread 5378)").as_deref(),
            Some("goroutine 1")
        );
        assert_eq!(
            goroutine_label("[Go 20 worker:3] main.worker").as_deref(),
            Some("goroutine 20 worker:3")
        );
        assert_eq!(goroutine_label("Dummy"), None);
    }

    #[test]
    fn a_failed_build_hints_at_the_build() {
        let no_module = "Failed to launch: Build Error: go build -o /run/dlv-build-1 -gcflags all=-N -l /src/quick\n\
             go: go.mod file not found in current directory or any parent directory; see 'go help modules' (exit status 1)";
        assert!(build_failure_hint(no_module).is_some_and(|h| h.contains("go mod init")));
        let compile = "Failed to launch: Build Error: go build -o /tmp/x main.go\n./main.go:2:15: x declared but not used (exit status 1)";
        assert!(build_failure_hint(compile).is_some_and(|h| h.contains("fix what it reports")));
        assert!(
            build_failure_hint("could not launch process: not an executable file")
                .is_some_and(|h| h.contains("not a main package") && h.contains("debugger test"))
        );
        let delve_too_old = "Failed to launch: Version of Delve is too old for Go version 1.26.8 \
             (maximum supported version 1.20, suppress this error with --check-go-version=false)";
        assert!(
            build_failure_hint(delve_too_old).is_some_and(|h| h.contains("debugger setup delve"))
        );
        let go_too_old = "Failed to launch: Go version 1.19.8 is too old for this version of Delve \
             (minimum supported version 1.25, suppress this error with --check-go-version=false)";
        assert!(build_failure_hint(go_too_old).is_some_and(|h| h.contains("newer Go")));
    }

    #[test]
    fn delve_is_looked_for_and_installed_as_each_os_does() {
        let env = |name: &str| match name {
            "HOME" => Some(OsString::from("/home/ada")),
            "USERPROFILE" => Some(OsString::from(r"C:\Users\ada")),
            _ => None,
        };
        assert_eq!(
            default_go_bin(Os::Linux, env),
            Some(PathBuf::from("/home/ada/go/bin/dlv"))
        );
        let windows = default_go_bin(Os::Windows, env).expect("a path");
        assert!(windows.starts_with(r"C:\Users\ada"), "{windows:?}");
        assert!(windows.ends_with(Path::new("go").join("bin").join("dlv.exe")));
        assert_eq!(
            install_hint(Os::Linux),
            format!(
                "install Delve with Go: 'go install {DELVE_MODULE}' (a Delve as new as your Go), or your system's, which may be too old for your Go: 'apt-get install delve' (Debian/Ubuntu), 'dnf install delve' (Fedora); or run 'debugger setup delve'"
            )
        );
        assert!(
            install_hint(Os::MacOs).starts_with("install Delve with Go: 'go install")
                && install_hint(Os::MacOs).contains("'brew install delve'")
        );
        assert_eq!(
            install_hint(Os::Windows),
            format!(
                "install Go ('winget install -e --id GoLang.Go', 'scoop install go', 'choco install -y golang' (as administrator)) and run 'go install {DELVE_MODULE}'; or run 'debugger setup delve'"
            )
        );
    }

    #[test]
    fn source_programs_build_in_their_own_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("main.go");
        std::fs::write(&file, "package main\n").expect("write");
        let delve = Delve {
            executable: PathBuf::from("dlv"),
            extra_args: Vec::new(),
        };
        let spec = |program: &Path| -> LaunchSpec {
            serde_json::from_value(json!({
                "program": program, "args": [], "cwd": "/", "env": [], "adapter": null,
                "stop_on_entry": false, "breakpoints": [],
            }))
            .expect("launch spec")
        };
        let from_file = delve.launch_arguments(&spec(&file), None);
        assert_eq!(from_file["mode"], "debug");
        assert_eq!(from_file["dlvCwd"], json!(dir.path()));
        let from_dir = delve.launch_arguments(&spec(dir.path()), None);
        assert_eq!(from_dir["mode"], "debug");
        assert_eq!(from_dir["dlvCwd"], json!(dir.path()));
        let mut tests = spec(dir.path());
        tests.test = Some(Box::default());
        tests.options.go.test_package = true;
        let tests = delve.launch_arguments(&tests, None);
        assert_eq!(tests["mode"], "test");
        assert_eq!(tests["dlvCwd"], json!(dir.path()));
        let binary = delve.launch_arguments(&spec(&dir.path().join("app")), None);
        assert_eq!(binary["mode"], "exec");
        assert!(binary.get("dlvCwd").is_none());
    }

    #[test]
    fn reads_the_listening_line() {
        assert_eq!(
            listening_address("DAP server listening at: 127.0.0.1:40321"),
            "127.0.0.1:40321".parse().ok()
        );
        assert_eq!(listening_address("something else"), None);
    }
}
