//! GDB's own DAP interpreter (`gdb -i=dap`), which GDB has had since version 14. An older GDB is
//! reported as lacking DAP, never half-used.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::process::{BoxFuture, SpawnedAdapter, spawn_stdio};
use super::{DebugAdapter, env_object};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec};

/// The first GDB with a DAP interpreter.
pub const MIN_DAP_VERSION: u32 = 14;

pub struct Gdb {
    executable: PathBuf,
    extra_args: Vec<String>,
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
    find(config)
        .and_then(|path| version(&path))
        .is_some_and(|(_, major)| major >= MIN_DAP_VERSION)
}

impl Gdb {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> Gdb {
        Gdb {
            executable: PathBuf::from("gdb"),
            extra_args: Vec::new(),
        }
    }

    pub fn locate(config: &AdapterConfig) -> Result<Gdb, ErrorBody> {
        let executable = find(config).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "gdb not found",
                "install GDB 14 or newer ('apt-get install gdb' on a recent Debian/Ubuntu)",
            )
        })?;
        match version(&executable) {
            Some((_, major)) if major >= MIN_DAP_VERSION => {}
            Some((line, _)) => {
                return Err(ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!("{line} has no DAP interpreter (GDB {MIN_DAP_VERSION} or newer has)"),
                    "install a newer GDB, or use --adapter lldb",
                ));
            }
            None => {
                return Err(ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!("cannot read the version of {}", executable.display()),
                    "check the gdb installation",
                ));
            }
        }
        Ok(Gdb {
            executable,
            extra_args: config.args.clone(),
        })
    }
}

impl DebugAdapter for Gdb {
    fn name(&self) -> &'static str {
        "gdb"
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    fn spawn(&self) -> BoxFuture<'_, Result<SpawnedAdapter, ErrorBody>> {
        let mut args: Vec<OsString> = vec!["--interpreter=dap".into(), "-q".into()];
        args.extend(self.extra_args.iter().map(OsString::from));
        Box::pin(async move { spawn_stdio("gdb", &self.executable, &args) })
    }

    fn adapter_id(&self) -> &'static str {
        "gdb"
    }

    fn launch_arguments(&self, spec: &LaunchSpec) -> Value {
        json!({
            "program": spec.program,
            "args": spec.args,
            "cwd": spec.cwd,
            "env": env_object(&spec.env),
            "stopAtBeginningOfMainSubprogram": spec.stop_on_entry,
        })
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "pid": spec.pid })
    }
}
