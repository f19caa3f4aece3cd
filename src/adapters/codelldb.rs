//! CodeLLDB, the VS Code extension's LLDB adapter, run from a configured path over TCP.
//!
//! It ships inside the extension rather than any package registry, so it is only used when
//! `adapters.codelldb.path` names its `adapter/codelldb` executable.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::process::{BoxFuture, SpawnedAdapter, spawn_tcp};
use super::runtime_frames;
use super::{DebugAdapter, Profile, Start, launch_with};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};

pub struct CodeLldb {
    executable: PathBuf,
    extra_args: Vec<String>,
}

pub const INSTALL_HINT: &str = "install the CodeLLDB extension (vadimcn.vscode-lldb) and set \
adapters.codelldb.path to its adapter/codelldb executable in the config";

impl CodeLldb {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> CodeLldb {
        CodeLldb {
            executable: PathBuf::from("codelldb"),
            extra_args: Vec::new(),
        }
    }

    pub fn locate(config: &AdapterConfig) -> Result<CodeLldb, ErrorBody> {
        let executable = config.path.clone().filter(|p| p.is_file()).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "CodeLLDB not configured",
                INSTALL_HINT,
            )
        })?;
        Ok(CodeLldb {
            executable,
            extra_args: config.args.clone(),
        })
    }
}

/// Reads "Listening on port 40321".
fn listening_address(line: &str) -> Option<SocketAddr> {
    let port: u16 = line
        .strip_prefix("Listening on port")?
        .trim()
        .parse()
        .ok()?;
    Some(SocketAddr::from(([127, 0, 0, 1], port)))
}

/// CodeLLDB's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "codelldb",
    adapter_id: "lldb",
    runtime_frames: runtime_frames::native,
    ..Profile::PLAIN
};

impl DebugAdapter for CodeLldb {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        let mut args: Vec<OsString> = vec!["--port".into(), "0".into()];
        args.extend(self.extra_args.iter().map(OsString::from));
        Box::pin(async move {
            start.one_way()?;
            spawn_tcp(
                "codelldb",
                &self.executable,
                &args,
                listening_address,
                Duration::from_secs(20),
            )
            .await
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, _stdio: Option<&StdioPaths>) -> Value {
        launch_with(spec, json!({ "type": "lldb", "request": "launch" }))
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "type": "lldb", "request": "attach", "pid": spec.pid })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_listening_line() {
        assert_eq!(
            listening_address("Listening on port 40321"),
            "127.0.0.1:40321".parse().ok()
        );
        assert_eq!(listening_address("hello"), None);
    }
}
