//! How `debugger setup` installs each adapter with the platform's own tools: one file per recipe
//! (`lldb`, `delve`, `debugpy`, `node`), the package managers they share (`packages`), and what
//! setup does for an adapter without a recipe. The adapter table points at the recipes.
//!
//! What the installers print goes to stderr, so stdout keeps only the result (or the one
//! `--json` object).

pub mod debugpy;
pub mod delve;
pub mod lldb;
pub mod node;
mod packages;
pub mod php;
pub mod ruby;

pub use packages::{Software, install_hint};

use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;

use crate::common::config::Config;
use crate::common::error::ErrorBody;

/// An adapter's install recipe: makes it ready, or says why it could not and what to do.
pub type Recipe = fn(&Config) -> Result<SetupResult, ErrorBody>;

/// One adapter that is ready after `setup`.
#[derive(Debug, Serialize)]
pub struct SetupResult {
    pub name: &'static str,
    pub status: SetupStatus,
    /// The adapter's executable (for debugpy, the Python that runs it).
    pub path: String,
    pub version: Option<String>,
}

/// Whether `setup` found the adapter or installed it, written in `--json` by its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SetupStatus {
    AlreadyInstalled,
    Installed,
}

/// What `setup` reports of an adapter that was there before it ran.
pub(crate) fn already(name: &'static str, path: &Path, version: Option<String>) -> SetupResult {
    SetupResult {
        name,
        status: SetupStatus::AlreadyInstalled,
        path: path.display().to_string(),
        version,
    }
}

fn installed(name: &'static str, path: &Path, version: Option<String>) -> SetupResult {
    SetupResult {
        name,
        status: SetupStatus::Installed,
        ..already(name, path, version)
    }
}

/// A configured path wins over anything `setup` installs, so a broken one must be fixed first.
fn configured_path_error(name: &str, err: ErrorBody) -> ErrorBody {
    ErrorBody::new(
        err.code,
        err.message,
        format!(
            "the config's adapters.{name}.path is used instead of anything setup installs: \
fix it or remove it, then run 'debugger setup {name}' again"
        ),
    )
}

/// Runs an installer step with its stdout sent to our stderr (stdout is for the result), saying
/// first what runs. True when it succeeded.
fn run_logged(command: &[String], env: &[(String, String)]) -> bool {
    let Some((program, args)) = command.split_first() else {
        return false;
    };
    eprintln!("running: {}", command.join(" "));
    // Found as a shell would (PATHEXT on Windows): Scoop is `scoop.cmd`, which std's own search,
    // looking for `.exe` alone, would miss.
    let resolved = which::which(program).unwrap_or_else(|_| program.into());
    match Command::new(resolved)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
    {
        Ok(status) => status.success(),
        Err(e) => {
            eprintln!("cannot run {program}: {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_status_is_written_by_its_name() {
        let written = |status| serde_json::to_string(&status).unwrap_or_default();
        assert_eq!(
            written(SetupStatus::AlreadyInstalled),
            "\"already_installed\""
        );
        assert_eq!(written(SetupStatus::Installed), "\"installed\"");
    }
}
