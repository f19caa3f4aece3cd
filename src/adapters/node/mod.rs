//! Node.js through its own debugger protocol: an adapter that runs inside the daemon, speaks DAP
//! to the session and the Chrome DevTools Protocol (over a WebSocket) to Node's V8 inspector, so a
//! machine with `node` needs nothing else to debug JavaScript.
//!
//! - `inspector`: starting `node --inspect-brk`, or finding a running Node's inspector.
//! - `cdp`: the CDP connection.
//! - `server`: the DAP side (the in-memory stream the session talks over), reading each request
//!   into its typed arguments (`requests`) and answering through the `outbox`, failures as a
//!   typed `error`.
//! - `debuggee`: the translation, request by request and event by event.
//! - `breakpoints`, `functions`, `sources`, `objects`, `scripts`, `urls`, `values`, `output`:
//!   its parts.

mod breakpoints;
mod cdp;
mod children;
mod collection_sizes;
mod debuggee;
mod functions;
pub mod inspector;
mod objects;
mod output;
mod requests;
mod scripts;
mod server;
mod source_maps;
mod sources;
mod try_blocks;
mod typescript;
mod urls;
mod values;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::install::{self, Software};
use super::process::{BoxFuture, SpawnedAdapter};
use super::return_value::ReturnValueSource;
use super::runtime_frames;
use super::{
    ConditionHandling, DebugAdapter, LoadedSources, Profile, SourceLookup, Start, StdioRoute,
    StdioSupport, env_var, first_file, launch_with,
};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;

pub use inspector::version;

/// How to get Node on `os` when it is missing.
pub fn install_hint(os: Os) -> String {
    format!(
        "install Node.js ({}), or set adapters.node.path in the config",
        install::install_hint(Software::Node, os)
    )
}

/// How long Node may take to open its inspector, or a running process to open it on SIGUSR1.
const INSPECTOR_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Node {
    node: PathBuf,
    runtime_args: Vec<String>,
}

/// The `node` executable: the config's, else the first `node` (`node.exe` on Windows, or
/// Debian's `nodejs`) on PATH, else where Node's Windows installer puts it (winget's and
/// Chocolatey's packages run that installer), which a shell started before the install does
/// not have on its PATH.
pub fn find(config: &AdapterConfig) -> Option<PathBuf> {
    if let Some(path) = &config.path {
        return Some(path.clone());
    }
    which::which("node")
        .or_else(|_| which::which("nodejs"))
        .ok()
        .or_else(|| first_file(install_locations(Os::CURRENT, env_var)))
}

/// Where Node's installer puts `node` off PATH on `os`: `%ProgramFiles%\nodejs` on Windows.
fn install_locations(os: Os, env: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    match os {
        Os::Windows => env("ProgramFiles")
            .map(|dir| {
                PathBuf::from(dir)
                    .join("nodejs")
                    .join(os.executable("node"))
            })
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

impl Node {
    /// The `node` the program runs in: the one a test file (`debugger test`) is run with.
    pub fn runtime(&self) -> &Path {
        &self.node
    }

    pub fn locate(config: &AdapterConfig) -> Result<Node, ErrorBody> {
        let node = find(config).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "node not found on PATH",
                install_hint(Os::CURRENT),
            )
        })?;
        if !node.is_file() {
            return Err(ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("node not found at {}", node.display()),
                install_hint(Os::CURRENT),
            ));
        }
        Ok(Node {
            node,
            runtime_args: config.args.clone(),
        })
    }

    /// For `attach --connect`: the inspector is elsewhere, nothing is started here.
    pub fn remote() -> Node {
        Node {
            node: PathBuf::from("node"),
            runtime_args: Vec::new(),
        }
    }
}

/// Whether `program` is the `node` executable itself (`node`, `nodejs`, `node.exe`): `start --
/// node --test x.test.js` runs Node with its own command line.
pub fn is_node_runtime(program: &Path) -> bool {
    program
        .file_stem()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n, "node" | "nodejs"))
        && program.extension().is_none_or(|e| e == "exe")
}

/// Whether a V8 inspector answers at `address` (`attach --connect` without `--adapter`).
pub fn serves_inspector(address: &str) -> BoxFuture<'_, bool> {
    Box::pin(inspector::is_inspector(address))
}

/// Node's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "node",
    adapter_id: "node",
    // Node is started by this adapter, on the channels when they are given: stdin and stdout
    // (a terminal with `--tty`). Its stderr stays a pipe: the inspector says there where it
    // listens, and its chatter is kept out of the program's stderr.
    stdio: Some(StdioSupport {
        route: StdioRoute::Told,
        by_default: false,
        stderr: false,
    }),
    // A condition that throws stops the program, and one that does not compile is refused
    // (`breakpoints/conditions.rs`).
    conditions: ConditionHandling {
        refusal: |answer| {
            super::conditions::refused_with_prefix(answer, breakpoints::conditions::REFUSED)
                .map(str::to_string)
        },
        ..ConditionHandling::DEFAULT
    },
    // A script program is the scripts of its folder tree, searched first so two files of one
    // name are caught; a name found nowhere is matched against script URLs as they load.
    source_lookup: SourceLookup {
        tree_extensions: &["js", "mjs", "cjs"],
        listing_command: None,
        listing_grows: false,
        adapter_matches_names: true,
        roots_are_trees: false,
        dependency_folders: &["node_modules"],
    },
    exception_filters: &["uncaught"],
    // `node:test` catches a failed assertion, so only the filter for every exception sees it;
    // the stop is at the throw, with the test's frame below it.
    failure_exception_filters: &["all"],
    connects_itself: true,
    // A finish catches it at the function's return and shows it in the caller's frame, as a
    // scope of its own (`debuggee/returns.rs`).
    return_value: ReturnValueSource::Scope {
        missing: "the function did not return: an exception left it",
    },
    // Every script V8 parses from a file, and the sources its map names, are told as
    // `loadedSource` events as they load (`debuggee/mod.rs`).
    loaded_sources: LoadedSources::Events,
    runtime_frames: runtime_frames::node,
    ..Profile::PLAIN
};

impl DebugAdapter for Node {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.node
    }

    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        let settings = debuggee::Settings {
            node: self.node.clone(),
            launch_timeout: INSPECTOR_TIMEOUT,
        };
        Box::pin(async move {
            start.one_way()?;
            Ok(server::start(settings))
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value {
        let mut runtime_args = self.runtime_args.clone();
        runtime_args.extend(spec.options.node.runtime_args.iter().cloned());
        launch_with(
            spec,
            json!({
            "type": "node",
            "request": "launch",
            "runtimeExecutable": self.node,
            "runtimeArgs": runtime_args,
            "connect": spec.connect,
            // The session's channels, given only for `--tty` and `--stdin`.
            "stdio": stdio,
            // A test's failed assertion is thrown in `node:assert`: pause there too.
            "pauseInAssertions": spec.test.as_ref().is_some_and(|t| t.break_on_failure),
            }),
        )
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        let mut arguments = json!({ "type": "node", "request": "attach" });
        if let Some(pid) = spec.pid {
            arguments["processId"] = json!(pid);
        }
        if let Some(address) = &spec.connect {
            arguments["address"] = json!(address);
        }
        arguments
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_looked_for_and_installed_as_each_os_does() {
        let env =
            |name: &str| (name == "ProgramFiles").then(|| OsString::from(r"C:\Program Files"));
        let windows = install_locations(Os::Windows, env);
        assert_eq!(windows.len(), 1);
        assert!(
            windows[0].ends_with(Path::new("nodejs").join("node.exe")),
            "{windows:?}"
        );
        assert!(install_locations(Os::Linux, env).is_empty());
        assert_eq!(
            install_hint(Os::Linux),
            "install Node.js ('apt-get install nodejs' (Debian/Ubuntu), 'dnf install nodejs' (Fedora)), or set adapters.node.path in the config"
        );
        assert!(install_hint(Os::MacOs).contains("'brew install node'"));
        assert!(install_hint(Os::Windows).contains("'winget install -e --id OpenJS.NodeJS.LTS'"));
    }

    #[test]
    fn launch_runs_the_program_under_the_located_node() {
        let adapter = Node {
            node: PathBuf::from("/usr/bin/node"),
            runtime_args: vec!["--enable-source-maps".into()],
        };
        let spec = LaunchSpec {
            program: PathBuf::from("/tmp/app.js"),
            args: vec!["x".into()],
            cwd: PathBuf::from("/tmp"),
            env: vec![("K".into(), "V".into())],
            adapter: None,
            stop_on_entry: true,
            breakpoints: Vec::new(),
            connect: None,
            tty: false,
            stdin: None,
            options: Default::default(),
            test: None,
        };
        let arguments = adapter.launch_arguments(&spec, None);
        assert_eq!(arguments["program"], "/tmp/app.js");
        assert_eq!(arguments["runtimeExecutable"], "/usr/bin/node");
        assert_eq!(arguments["runtimeArgs"], json!(["--enable-source-maps"]));
        assert_eq!(arguments["env"]["K"], "V");
        assert_eq!(arguments["stopOnEntry"], true);
    }

    #[test]
    fn attach_names_the_process_or_the_inspector() {
        let spec = AttachSpec {
            pid: None,
            adapter: None,
            breakpoints: Vec::new(),
            connect: Some("127.0.0.1:9229".into()),
        };
        let arguments = Node::remote().attach_arguments(&spec);
        assert_eq!(arguments["address"], "127.0.0.1:9229");
        assert!(arguments.get("processId").is_none());
    }
}
