//! Delve, the Go debugger: `dlv dap` listening on a loopback port it announces on stdout.
//!
//! A Go binary launches in `exec` mode; a `.go` file or a package directory in `debug` mode, where
//! Delve builds it first. Goroutines show as threads. The debuggee writes to Delve's own stdout
//! and stderr, which are read for Delve's whole life into the program's output.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::DebugAdapter;
use super::process::{BoxFuture, SpawnedAdapter, spawn_tcp};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec};

pub struct Delve {
    executable: PathBuf,
    extra_args: Vec<String>,
}

pub const INSTALL_HINT: &str = "install Delve: 'apt-get install delve' (Debian/Ubuntu), \
'brew install delve' (macOS), or 'go install github.com/go-delve/delve/cmd/dlv@latest'; or run 'debugger setup delve'";

/// Where Delve is: the config's path, else `dlv` on PATH, else `~/go/bin/dlv`.
pub fn find(config: &AdapterConfig) -> Option<PathBuf> {
    if let Some(path) = &config.path {
        return path.is_file().then(|| path.clone());
    }
    which::which("dlv").ok().or_else(|| {
        let home = std::env::var_os("HOME")?;
        let path = PathBuf::from(home).join("go").join("bin").join("dlv");
        path.is_file().then_some(path)
    })
}

impl Delve {
    pub fn locate(config: &AdapterConfig) -> Result<Delve, ErrorBody> {
        let executable = find(config).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "Delve (dlv) not found",
                INSTALL_HINT,
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

fn env_object(env: &[(String, String)]) -> Map<String, Value> {
    env.iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect()
}

impl DebugAdapter for Delve {
    fn name(&self) -> &'static str {
        "delve"
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    fn spawn(&self) -> BoxFuture<'_, Result<SpawnedAdapter, ErrorBody>> {
        let mut args: Vec<OsString> = vec!["dap".into(), "--listen=127.0.0.1:0".into()];
        args.extend(self.extra_args.iter().map(OsString::from));
        Box::pin(async move {
            spawn_tcp(
                "dlv",
                &self.executable,
                &args,
                listening_address,
                Duration::from_secs(20),
            )
            .await
        })
    }

    fn adapter_id(&self) -> &'static str {
        "go"
    }

    fn launch_arguments(&self, spec: &LaunchSpec) -> Value {
        let mut arguments = json!({
            "request": "launch",
            "mode": if is_go_source(&spec.program) { "debug" } else { "exec" },
            "program": spec.program,
            "args": spec.args,
            "cwd": spec.cwd,
            "env": env_object(&spec.env),
            "stopOnEntry": spec.stop_on_entry,
        });
        if is_go_source(&spec.program) {
            // Build into the temp dir, not as __debug_bin in the user's source tree.
            let output = std::env::temp_dir().join(format!("debugger-dlv-{}", std::process::id()));
            arguments["output"] = json!(output);
        }
        arguments
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        match spec.pid {
            Some(pid) => json!({ "request": "attach", "mode": "local", "processId": pid }),
            None => json!({ "request": "attach", "mode": "remote" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_listening_line() {
        assert_eq!(
            listening_address("DAP server listening at: 127.0.0.1:40321"),
            "127.0.0.1:40321".parse().ok()
        );
        assert_eq!(listening_address("something else"), None);
    }
}
