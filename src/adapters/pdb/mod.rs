//! pdb: our own Python adapter, a DAP server that runs inside the program's interpreter on bdb,
//! the engine of Python's pdb (the server is `tracing.py`, `adapter.py` and `requests.py`).
//!
//! Why it exists beside debugpy: debugpy starts three Pythons for one program (its adapter, its
//! launcher, the program) and imports pydevd into the program, 0.6–1 s before the first line
//! runs, where `python -m pdb` answers the same question in a fifth of that. Here the program's
//! own interpreter is the adapter: the daemon starts `python -c BOOT` in the program's folder,
//! with its environment and on its channels, exactly as the program would be started; BOOT dials
//! back, reads the server's source from that connection and runs the program under it. Nothing
//! needs installing beyond Python itself.
//!
//! What it does not do (debugpy does): attach to a running process, follow child processes,
//! stop in threads started before it was (none: it is there from the first line). `probe` uses
//! it for Python by default; `start` uses it when asked (`--adapter pdb`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::conditions::refused_with_prefix;
use super::debugpy::{
    PYTHON_SOURCES, active_venv_python, is_pytest_temporary, python_path_of, system_python,
};
use super::dial_in::{dial_in, random_token};
use super::process::{BoxFuture, SpawnedAdapter, adapter_program_streams, command_for};
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::value_reading::ValueReading;
use super::{
    CallerEnv, ConditionHandling, DebugAdapter, LoadedSources, Profile, SourceRoots, Start,
    StdioRoute, StdioSupport, WarmPolicy, launch_with,
};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec, ProcessContext, StdioPaths};
use crate::platform::{Os, TREE_TAG_VARIABLE};

/// The server, in the order its parts build one module.
const SERVER_PARTS: [&str; 5] = [
    include_str!("../watched_paths.py"),
    include_str!("../loaded_files.py"),
    include_str!("tracing.py"),
    include_str!("adapter.py"),
    include_str!("requests.py"),
];

/// How long the program's Python has to dial in (its start, through a version manager's shim).
const DIAL_IN_TIMEOUT: Duration = Duration::from_secs(20);

/// What `python -c` runs: take out the folder `-c` put first on `sys.path` (the program's own is
/// put there before it runs: a `queue.py` in the working folder must not stand in for the
/// standard library's in the server), connect to the daemon at `{host}:{port}`, say the token
/// it was given in its environment (then forget it), read the server (its length on a line,
/// then the source) and hand it the connection, saying whether it was started ahead of its
/// launch (`{prepared}`: a warm one, see [`Start::Prepared`]). Its names are left in
/// `__main__`, which the server empties before the program runs.
const BOOT: &str = "import sys;sys.path[:1]=[p for p in sys.path[:1] if p];\
import os,socket,types;s=socket.create_connection(({host},{port}));\
s.sendall(os.environ.pop('DEBUGGER_ADAPTER_TOKEN','').encode()+b'\\n');\
f=s.makefile('rb');n=int(f.readline());m=types.ModuleType('debugger_adapter');\
exec(compile(f.read(n),'<debugger adapter>','exec'),m.__dict__);m.main(s,f,{prepared})";

/// The environment variable that carries the connection's token to BOOT.
const TOKEN_VARIABLE: &str = "DEBUGGER_ADAPTER_TOKEN";

/// The environment variable that names, to a warm one, the variables it takes from its launch
/// (the rest of its environment is the one it was started in, which the launch's matches).
const LAUNCH_VARIABLES_VARIABLE: &str = "DEBUGGER_LAUNCH_VARIABLES";

pub struct Pdb {
    python: PathBuf,
}

/// What to do when no Python is found.
pub fn install_hint(os: Os) -> String {
    match os {
        Os::Windows => "install Python 3 ('winget install -e --id Python.Python.3.12'), or set adapters.pdb.path to a python.exe".into(),
        Os::MacOs => "install Python 3 ('brew install python'), or set adapters.pdb.path to a python3".into(),
        _ => "install Python 3 ('apt-get install python3' on Debian/Ubuntu, 'dnf install python3' on Fedora), or set adapters.pdb.path to a python3".into(),
    }
}

/// Python's version (`3.11.7`), for `doctor`.
pub fn version(python: &Path) -> Option<String> {
    let output = std::process::Command::new(python)
        .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !text.is_empty()).then_some(text)
}

impl Pdb {
    /// The Python that runs the program: the config's, else the active virtual environment's,
    /// else the system's `python3` (as the user's shell would find it).
    pub fn locate(config: &AdapterConfig, caller: CallerEnv<'_>) -> Result<Pdb, ErrorBody> {
        let from_venv = active_venv_python(caller).filter(|python| python.is_file());
        let python = match &config.path {
            Some(path) => Some(path.clone()),
            None => from_venv.or_else(|| system_python(caller)),
        };
        match python {
            Some(python) => Ok(Pdb { python }),
            None => Err(ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "no Python 3 found to run the program",
                install_hint(Os::CURRENT),
            )),
        }
    }

    fn boot_command(address: std::net::SocketAddr, prepared: bool) -> OsString {
        BOOT.replace("{host}", &format!("'{}'", address.ip()))
            .replace("{port}", &address.port().to_string())
            .replace("{prepared}", if prepared { "True" } else { "False" })
            .into()
    }

    /// Starts Python in `context` on `streams`, waits for it to dial in and sends it the server.
    /// `prepared`: it is started ahead of its launch, on no channels of the program's.
    async fn start_python(
        &self,
        context: &ProcessContext,
        streams: [Stdio; 3],
        prepared: bool,
    ) -> Result<SpawnedAdapter, ErrorBody> {
        let token = random_token();
        let (process, mut stream) = dial_in(
            "python",
            &self.python,
            |address| {
                let args = [OsString::from("-c"), Pdb::boot_command(address, prepared)];
                let mut command = command_for(&self.python, &args);
                command
                    .current_dir(&context.cwd)
                    .env_clear()
                    .envs(context.env.iter().map(|(k, v)| (k, v)))
                    .env(TOKEN_VARIABLE, &token);
                if prepared {
                    command.env(LAUNCH_VARIABLES_VARIABLE, TREE_TAG_VARIABLE);
                }
                command
            },
            streams,
            DIAL_IN_TIMEOUT,
            Some(&token),
        )
        .await?;
        if let Err(e) = stream.write_all(&framed_server()).await {
            process.kill();
            return Err(ErrorBody::new(
                ErrorCode::AdapterDied,
                format!("the program's Python closed its connection: {e}"),
                "run the program with python to see why it ends",
            ));
        }
        Ok(super::process::over_tcp(process, stream, None))
    }
}

/// The server's source as BOOT reads it: its length in bytes on a line, then the text.
fn framed_server() -> Vec<u8> {
    let source = SERVER_PARTS.join("\n");
    let mut framed = format!("{}\n", source.len()).into_bytes();
    framed.extend_from_slice(source.as_bytes());
    framed
}

/// pdb's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "pdb",
    adapter_id: "python",
    stdio: Some(StdioSupport {
        route: StdioRoute::AdapterStreams,
        by_default: true,
        stderr: true,
    }),
    // A warm pdb is the next program's Python, started and its server loaded: everything of a
    // launch but the program itself, which is what `python -m pdb` spends its time on before
    // the first line. Nothing of a program has run in it.
    warm: WarmPolicy::AsProgram {
        start_inputs: super::debugpy::version_manager_files,
    },
    // The adapter compiles a condition as it is set (`Breakpoint.error_in_settings` in
    // `tracing.py`), and a condition that raises stops the program (`takes_hit`).
    conditions: ConditionHandling {
        refusal: |answer| {
            refused_with_prefix(answer, "the condition does not parse: ").map(str::to_string)
        },
        ..ConditionHandling::DEFAULT
    },
    source_lookup: PYTHON_SOURCES,
    exception_filters: &["uncaught"],
    // A failed assertion is caught by the test runner: `userUnhandled` stops where it leaves
    // the test's frame for the runner's, at the failing line (adapter.py's tracer).
    failure_exception_filters: &["userUnhandled"],
    // A step that leaves a function by its `return` shows the value in the caller's frame, as
    // a scope of its own (`adapter.py`).
    return_value: ReturnValueSource::Scope {
        missing: "the function did not return: an exception left it",
    },
    // The server tells the program's loaded files as `loadedSource` events as it exits
    // (`announce_exit` in `requests.py`).
    loaded_sources: LoadedSources::Events,
    // pytest's rewritten asserts keep their temporaries in the test's frame (`@py_assert1`).
    value_reading: ValueReading {
        hidden_local: is_pytest_temporary,
        ..ValueReading::DEFAULT
    },
    runtime_frames: runtime_frames::python,
    ..Profile::PLAIN
};

impl DebugAdapter for Pdb {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.python
    }

    /// Started as the program (its folder, its environment, its channels), or ahead of it: in
    /// the last launch's folder and environment (what its start-up reads: `PYTHONPATH`, the
    /// locale, `site`'s folders), until its `launch` names the program's channels: stdin on the
    /// null device, stdout and stderr on pipes, which Python's streams take for what the
    /// launch's are (not seekable, not a terminal), as they decide it once. It runs inside the
    /// program, so it cannot be started on its own.
    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        Box::pin(async move {
            match start {
                Start::OnChannels { stdio, spec } => {
                    let streams = adapter_program_streams(stdio)?;
                    self.start_python(&ProcessContext::of(spec), streams, false)
                        .await
                }
                Start::Prepared(context) => {
                    let streams = [Stdio::null(), Stdio::piped(), Stdio::piped()];
                    self.start_python(context, streams, true).await
                }
                Start::Plain => Err(ErrorBody::new(
                    ErrorCode::Unsupported,
                    "the pdb adapter runs inside the program it launches; it cannot attach or be reached at an address",
                    "use '--adapter debugpy' to attach to a Python process",
                )),
            }
        })
    }

    /// The environment and the channels' paths are what the program's process was started
    /// with; a warm one, started before them, takes them from here (`stdio`, `env`).
    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value {
        let mut arguments = launch_with(
            spec,
            json!({ "request": "launch", "justMyCode": spec.options.python.just_my_code }),
        );
        if let Some(module) = &spec.options.python.module {
            arguments["module"] = json!(module);
        }
        if let Some(stdio) = stdio {
            arguments["stdio"] = json!([stdio.stdin, stdio.stdout, stdio.stderr]);
        }
        arguments
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "request": "attach", "processId": spec.pid })
    }

    fn source_roots(&self, spec: &LaunchSpec) -> SourceRoots {
        python_path_of(&self.python, spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_sent_whole_and_compiles_as_one_module() {
        let framed = framed_server();
        let newline = framed
            .iter()
            .position(|b| *b == b'\n')
            .expect("a length line");
        let length: usize = String::from_utf8_lossy(&framed[..newline])
            .parse()
            .expect("a number");
        assert_eq!(framed.len() - newline - 1, length);
        let source = String::from_utf8_lossy(&framed[newline + 1..]);
        assert!(source.contains("def main(sock, reader, prepared=False):"));
    }

    #[test]
    fn the_boot_line_names_the_address() {
        let boot = Pdb::boot_command("127.0.0.1:4711".parse().expect("address"), true);
        let boot = boot.to_string_lossy();
        assert!(
            boot.contains("create_connection(('127.0.0.1',4711))"),
            "{boot}"
        );
        assert!(boot.contains("m.main(s,f,True)"), "{boot}");
        assert!(!boot.contains('{'), "{boot}");
    }
}
