//! `debugger setup delve`: `go install` of Delve's latest release where a Go is here, as Go users
//! do (it needs no rights, and a Delve as new as the Go); else Delve from apt, dnf or Homebrew
//! (`delve`). No Windows package manager holds Delve: there it is `go install` alone.
//!
//! A Delve that is found but too old for the Go here (Debian 12's 1.20 beside Go 1.26) is
//! replaced the same way: `go install` puts the new one where the lookup prefers it.

use super::packages::{PackageManager, Software};
use super::{SetupResult, already, configured_path_error, installed, run_logged};
use crate::adapters::delve::toolchain::{DelveVersion, GoToolchain};
use crate::adapters::delve::{self, DELVE_MODULE};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter(delve::PROFILE.name);
    let go = GoToolchain::find();
    match delve::Delve::locate(&adapter_config) {
        Ok(found) => {
            let path = crate::adapters::DebugAdapter::executable(&found);
            let version = delve::version(path);
            let too_old = match (
                version.as_deref().and_then(DelveVersion::parse),
                go.as_ref().and_then(|go| go.version),
            ) {
                (Some(delve), Some(go)) if delve.too_old_for(go) => Some((delve, go)),
                _ => None,
            };
            match too_old {
                None => return Ok(already("delve", path, version)),
                Some((delve, go)) if adapter_config.path.is_some() => {
                    return Err(ErrorBody::new(
                        ErrorCode::AdapterNotFound,
                        format!(
                            "the config's Delve ({delve}, at {}) is too old for Go {go}",
                            path.display()
                        ),
                        "point adapters.delve.path at a newer dlv, or remove it and run 'debugger setup delve' again",
                    ));
                }
                Some((delve, go)) => eprintln!(
                    "Delve {delve} at {} is too old for Go {go}; installing a newer one",
                    path.display()
                ),
            }
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("delve", err));
        }
        Err(_) => {}
    }
    match go {
        Some(go) => go_install(&go, &adapter_config),
        None => from_packages(&adapter_config),
    }
}

/// `go install` of Delve's latest release, into `$(go env GOBIN)` or `$(go env GOPATH)/bin`,
/// where the lookup finds it whether or not that folder is on PATH.
fn go_install(
    go: &GoToolchain,
    adapter_config: &crate::common::config::AdapterConfig,
) -> Result<SetupResult, ErrorBody> {
    let command = vec![
        go.executable.display().to_string(),
        "install".to_string(),
        DELVE_MODULE.to_string(),
    ];
    if !run_logged(&command, &[]) {
        let otherwise = match delve_manager() {
            Some(manager) => format!(
                "or install your system's Delve (it may be too old for your Go): {}",
                manager.user_command("delve", false)
            ),
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
    found_after_install(
        adapter_config,
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "'go install' finished, but dlv is not found where it puts commands",
            match &go.install_dir {
                Some(dir) => format!(
                    "look for dlv in {}, and set it in the config: [adapters.delve] path = \"…\"",
                    dir.display()
                ),
                None => delve::install_hint(Os::CURRENT),
            },
        ),
    )
}

/// Delve from the system's package manager, where no Go is here to build it.
fn from_packages(
    adapter_config: &crate::common::config::AdapterConfig,
) -> Result<SetupResult, ErrorBody> {
    let Some(manager) = delve_manager() else {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "Delve is not installed, and neither Go nor a package manager that holds Delve ({}) is here",
                PackageManager::names(Os::CURRENT)
            ),
            delve::install_hint(Os::CURRENT),
        ));
    };
    manager.install("Delve", manager.packages(Software::Delve))?;
    found_after_install(
        adapter_config,
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "installed delve, but dlv is still not found on PATH",
            "find where the package put dlv and set adapters.delve.path to it in the config",
        ),
    )
}

/// The Delve an install just put in place, as the lookup finds it; `lost` when it does not.
fn found_after_install(
    adapter_config: &crate::common::config::AdapterConfig,
    lost: ErrorBody,
) -> Result<SetupResult, ErrorBody> {
    let path = delve::find(adapter_config).ok_or(lost)?;
    let version = delve::version(&path);
    Ok(installed("delve", &path, version))
}

/// The system's package manager, where it holds Delve (none on Windows does).
fn delve_manager() -> Option<PackageManager> {
    PackageManager::detect().filter(|m| !m.packages(Software::Delve).is_empty())
}
