//! `debugger setup delve`: Delve from apt, dnf or Homebrew (`delve`), else `go install` when Go
//! is there (which needs no rights). No Windows package manager holds Delve: there it is `go
//! install` alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::packages::{PackageManager, Software};
use super::{SetupResult, already, configured_path_error, installed, run_logged};
use crate::adapters::delve::{self, DELVE_MODULE};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter("delve");
    match delve::Delve::locate(&adapter_config) {
        Ok(_) => {
            let path = delve::find(&adapter_config).unwrap_or_default();
            let version = delve::version(&path);
            return Ok(already("delve", &path, version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("delve", err));
        }
        Err(_) => {}
    }
    let go = which::which("go").ok();
    // A manager that holds Delve: none on Windows.
    let manager = PackageManager::detect().filter(|m| !m.packages(Software::Delve).is_empty());
    // The package manager when it can run (brew needs no root); else `go install`, which needs no
    // rights; else the command for the user.
    let package_error = match manager {
        Some(manager) if go.is_none() || manager.may_run() => {
            match manager.install("Delve", manager.packages(Software::Delve)) {
                Ok(_) => match delve::find(&adapter_config) {
                    Some(path) => {
                        let version = delve::version(&path);
                        return Ok(installed("delve", &path, version));
                    }
                    None => {
                        return Err(ErrorBody::new(
                            ErrorCode::AdapterNotFound,
                            "installed delve, but dlv is still not found on PATH",
                            "find where the package put dlv and set adapters.delve.path to it in the config",
                        ));
                    }
                },
                Err(err) => Some(err),
            }
        }
        _ => None,
    };
    let Some(go) = go else {
        return Err(package_error.unwrap_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!(
                    "Delve is not installed, and neither a package manager that holds it ({}) nor Go is here",
                    PackageManager::names(Os::CURRENT)
                ),
                delve::install_hint(Os::CURRENT),
            )
        }));
    };
    let command = vec![
        go.display().to_string(),
        "install".to_string(),
        DELVE_MODULE.to_string(),
    ];
    if !run_logged(&command, &[]) {
        let otherwise = match manager {
            Some(manager) => format!("or run: {}", manager.user_command("delve", false)),
            None => delve::install_hint(Os::CURRENT)
                .trim_end_matches("; or run 'debugger setup delve'")
                .to_string(),
        };
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("'go install {DELVE_MODULE}' failed (its output is above)"),
            format!(
                "check the network and the Go version, then run 'debugger setup delve' again; {otherwise}"
            ),
        ));
    }
    if let Some(path) = delve::find(&adapter_config) {
        let version = delve::version(&path);
        return Ok(installed("delve", &path, version));
    }
    match go_installed_binary(&go, &Os::CURRENT.executable("dlv")) {
        Some(path) => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "installed Delve at {}, which is not on PATH",
                path.display()
            ),
            format!(
                "add {} to PATH, or set it in the config: [adapters.delve] path = \"{}\"",
                path.parent().unwrap_or(Path::new("/")).display(),
                path.display()
            ),
        )),
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "'go install' finished, but dlv is not found",
            delve::install_hint(Os::CURRENT),
        )),
    }
}

/// Where `go install` put `binary`: `$(go env GOBIN)`, else `$(go env GOPATH)/bin`.
fn go_installed_binary(go: &Path, binary: &str) -> Option<PathBuf> {
    let env = |key: &str| {
        Command::new(go)
            .args(["env", key])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let dir = env("GOBIN").map(PathBuf::from).or_else(|| {
        // GOPATH may list several directories; `go install` uses the first.
        let gopath = env("GOPATH")?;
        let first = std::env::split_paths(&gopath).next()?;
        Some(first.join("bin"))
    })?;
    let path = dir.join(binary);
    path.is_file().then_some(path)
}
