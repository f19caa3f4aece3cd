//! Ruby, through the debug gem's DAP server (rdbg's, debug 1.4.0 as Debian's `ruby` bundles it
//! and later): the server runs inside the program's own Ruby, so the adapter is the program's
//! process. We start the program's Ruby with our `dap_extensions.rb` loaded first (RUBYOPT),
//! which opens the server on a UNIX socket in our private scratch folder and completes what
//! 1.4.0 leaves undone (see that file); we connect once it listens. The program writes to the
//! session's channels itself.

mod attach;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::install::{self, Software};
use super::process::{
    BoxFuture, SpawnedAdapter, adapter_program_streams, command_for, monitor_child, new_tail,
    spawn_error,
};
use super::return_value::ReturnValueSource;
use super::row::{Detection, ServerProbe};
use super::{
    AttachStop, DebugAdapter, LeavingCall, Profile, SourceLookup, SourceRoots, Start, StdioRoute,
    StdioSupport, launch_with, source_roots,
};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::scratch;
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;

/// What runs in the program's Ruby before the program (see the module docs).
const DAP_EXTENSIONS: &str = include_str!("dap_extensions.rb");
/// How long the program's Ruby may take to open the debugger's socket.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(20);

pub struct Rdbg {
    ruby: PathBuf,
}

/// What a Ruby program looks like: a `.rb` file, or a script whose `#!` line names ruby; a
/// running one, a `ruby` process or the socket its debugger opened.
pub const RUBY_PROGRAMS: Detection = Detection {
    extensions: &["rb"],
    runtime: Some(is_ruby_runtime),
    interpreters: &["ruby"],
    process_names: &["ruby"],
    server: Some(ServerProbe::Asks(serves_rdbg)),
    ..Detection::NONE
};

/// Whether `program` is Ruby itself (`ruby`, `ruby3.1`): `start -- ruby -Ilib app.rb` runs it
/// with its own command line.
pub fn is_ruby_runtime(program: &Path) -> bool {
    program
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.strip_suffix(".exe").unwrap_or(n))
        .is_some_and(|n| {
            n == "ruby"
                || n.strip_prefix("ruby")
                    .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        })
}

/// Whether `address` is a socket the debug gem opened (`attach --connect PATH`).
pub fn serves_rdbg(address: &str) -> BoxFuture<'_, bool> {
    Box::pin(std::future::ready(attach::is_rdbg_socket(address)))
}

/// How to get Ruby, whose bundled debug gem is the adapter.
pub fn install_hint(os: Os) -> String {
    let packages = install::install_hint(Software::Ruby, os);
    format!("install Ruby (2.7 or later, which bundles the debug gem): {packages}")
}

/// The Ruby the config names, else `ruby` on PATH.
pub fn find(config: &AdapterConfig) -> Option<PathBuf> {
    match &config.path {
        Some(path) => path.is_file().then(|| path.clone()),
        None => which::which(Os::CURRENT.executable("ruby")).ok(),
    }
}

/// The debug gem's version ("1.4.0") in the Ruby at `ruby`, for `doctor`.
pub fn version(ruby: &Path) -> Option<String> {
    let output = std::process::Command::new(ruby)
        .args(["-e", "require 'debug/version'; print DEBUGGER__::VERSION"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !version.is_empty()).then_some(version)
}

impl Rdbg {
    /// The adapter at the far end of `--connect` (a program started with `rdbg --open
    /// --port`): nothing is started here.
    pub fn remote() -> Rdbg {
        Rdbg {
            ruby: PathBuf::from("ruby"),
        }
    }

    pub fn locate(config: &AdapterConfig) -> Result<Rdbg, ErrorBody> {
        let ruby = find(config).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "Ruby (ruby) not found",
                install_hint(Os::CURRENT),
            )
        })?;
        Ok(Rdbg { ruby })
    }

    /// The program's command line: Ruby's own when the program is Ruby, else Ruby running the
    /// script.
    fn command_line(&self, spec: &LaunchSpec) -> (PathBuf, Vec<OsString>) {
        if is_ruby_runtime(&spec.program) {
            let args = spec.args.iter().map(OsString::from).collect();
            return (spec.program.clone(), args);
        }
        let mut args = vec![spec.program.clone().into_os_string()];
        args.extend(spec.args.iter().map(OsString::from));
        (self.ruby.clone(), args)
    }

    /// Starts the program's Ruby on `streams` with the debugger's server loaded first, and
    /// connects to that server's socket once it listens.
    async fn start_program(
        &self,
        spec: &LaunchSpec,
        streams: [Stdio; 3],
    ) -> Result<SpawnedAdapter, ErrorBody> {
        static STARTS: AtomicU32 = AtomicU32::new(0);
        let dir = scratch::ensure_own_dir()?;
        let start = STARTS.fetch_add(1, Ordering::Relaxed);
        let extensions = dir.join("rdbg-dap-extensions.rb");
        std::fs::write(&extensions, DAP_EXTENSIONS).map_err(|e| {
            ErrorBody::internal(format!("cannot write {}: {e}", extensions.display()))
        })?;
        let socket = dir.join(format!("rdbg-{start}.sock"));
        scratch::remove(&socket);
        let (program, args) = self.command_line(spec);
        let user_options = spec
            .env
            .iter()
            .find(|(k, _)| k == "RUBYOPT")
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        let mut command = command_for(&program, &args);
        command
            .current_dir(&spec.cwd)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .env(
                "RUBYOPT",
                format!("-r{} {user_options}", extensions.display()),
            )
            .env("RUBY_DEBUG_SOCK_PATH", &socket)
            // rdbg's notices (where it listens, "Connected.") would land in the program's stderr.
            .env("RUBY_DEBUG_LOG_LEVEL", "ERROR")
            .env("RUBY_DEBUG_NO_COLOR", "true")
            .env("RUBY_DEBUG_NO_RC", "true");
        let [stdin, stdout, stderr] = streams;
        command.stdin(stdin).stdout(stdout).stderr(stderr);
        let child = command
            .spawn()
            .map_err(|e| spawn_error("ruby", &program, e))?;
        let process = monitor_child("ruby", child, new_tail(), tokio::spawn(async {}));
        let deadline = tokio::time::Instant::now() + LISTEN_TIMEOUT;
        let stream = loop {
            match crate::ipc::socket::connect_async(&socket).await {
                Ok(stream) => break stream,
                Err(_) if process.has_exited() => {
                    let detail = process.exit_detail().await;
                    return Err(ErrorBody::new(
                        ErrorCode::AdapterDied,
                        format!("the program's Ruby ended before its debugger listened: {detail}"),
                        "run the program with ruby to see why it ends, and check 'debugger doctor' \
                         (the debug gem must be installed for that Ruby; under `bundle exec`, \
                         listed in the Gemfile)",
                    ));
                }
                Err(e) if tokio::time::Instant::now() >= deadline => {
                    process.kill();
                    return Err(ErrorBody::new(
                        ErrorCode::AdapterTimeout,
                        format!(
                            "the program's Ruby did not open its debugger within {} s: {e}",
                            LISTEN_TIMEOUT.as_secs()
                        ),
                        "check 'debugger doctor': the debug gem must be installed for that Ruby",
                    ));
                }
                // The program's Ruby is still loading the debugger: look again shortly.
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        let (reader, writer) = tokio::io::split(stream);
        Ok(SpawnedAdapter {
            process,
            reader: Box::new(reader),
            writer: Box::new(writer),
            program_output: None,
        })
    }
}

/// rdbg's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "rdbg",
    adapter_id: "rdbg",
    stdio: Some(StdioSupport {
        route: StdioRoute::AdapterStreams,
        by_default: true,
        stderr: true,
    }),
    source_lookup: SourceLookup {
        tree_extensions: &["rb"],
        // A gem the program requires later (`query_parser.rb:104` of Rack) is found in the
        // load path and the installed gems' folders (`source_roots`).
        roots_are_trees: true,
        dependency_folders: &["gems", "vendor"],
        ..SourceLookup::NONE
    },
    // Stop on exceptions nothing rescues, as the program ends with them.
    exception_filters: &["uncaught"],
    // A test runner rescues its failures: the test's runner names their classes
    // (`TestLaunch::failure_exceptions`); this catches what ends the run (a test file that
    // does not load).
    failure_exception_filters: &["uncaught"],
    exception_stops: Some("raised/uncaught"),
    exception_classes: Some("Ruby Exceptions"),
    // A program attached to is paused by the server (SIGURG), twice.
    attach_stop: AttachStop::StoppedTwice,
    // `attach PID` connects to the socket the program's debugger opened.
    server_of_process: Some(attach::server_of_process),
    done_configuring_attach: false,
    // debug 1.4.0 keeps its breakpoints once its client has gone, and one hit then ends the
    // program (a NoMethodError as it tells the client that is not there): they go first.
    // Attached, debug 1.4.0 runs without our extension, which makes these failures: in a frame
    // of C code it answers its reason as the value, a String.
    failing_results: &["\"Error: Can not evaluate on this frame\""],
    before_leaving: Some(LeavingCall {
        expression: "DEBUGGER__::SESSION.delete_bp; :debugger_breakpoints_deleted",
        answer: "debugger_breakpoints_deleted",
    }),
    // `finish` stops as the method returns, its value the frame's `_return`.
    return_value: ReturnValueSource::LocalNamed("_return"),
    // `@name` is an instance variable, `@@count` a class variable.
    at_sign_names: true,
    ..Profile::PLAIN
};

impl DebugAdapter for Rdbg {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.ruby
    }

    /// The server runs inside the program, so it starts as the program does (its folder, its
    /// environment, its channels); it cannot be started on its own.
    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        Box::pin(async move {
            match start {
                Start::OnChannels { stdio, spec } => {
                    let streams = adapter_program_streams(stdio)?;
                    self.start_program(spec, streams).await
                }
                Start::Plain | Start::Prepared(_) => Err(ErrorBody::new(
                    ErrorCode::Unsupported,
                    "rdbg's server runs inside the Ruby program; there is no adapter to start on its own",
                    "start the program with 'rdbg --open --port PORT app.rb' and attach with 'debugger attach --connect 127.0.0.1:PORT'",
                )),
            }
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, _stdio: Option<&StdioPaths>) -> Value {
        launch_with(spec, json!({ "request": "launch" }))
    }

    fn attach_arguments(&self, _spec: &AttachSpec) -> Value {
        json!({ "request": "attach" })
    }

    /// Where the program's Ruby loads code from, as that Ruby says with the program's
    /// environment: its own library, then the load path and every installed gem's `require`
    /// folders (a gem is in the load path only once required). A program run as Ruby's own
    /// command line is asked of that Ruby.
    fn source_roots(&self, spec: &LaunchSpec) -> SourceRoots {
        const SCRIPT: &str = "puts RbConfig::CONFIG['rubylibdir'], RbConfig::CONFIG['archdir'], ''; \
            puts $LOAD_PATH; Gem::Specification.each { |s| puts s.full_require_paths }";
        let ruby = match is_ruby_runtime(&spec.program) {
            true => &spec.program,
            false => &self.ruby,
        };
        source_roots::printed_by(ruby, &["-e", SCRIPT], spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_itself_is_told_from_a_script() {
        assert!(is_ruby_runtime(Path::new("/usr/bin/ruby")));
        assert!(is_ruby_runtime(Path::new("ruby3.1")));
        assert!(is_ruby_runtime(Path::new("ruby.exe")));
        assert!(!is_ruby_runtime(Path::new("app.rb")));
        assert!(!is_ruby_runtime(Path::new("rubocop")));
    }
}
