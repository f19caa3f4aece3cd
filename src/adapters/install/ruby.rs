//! `debugger setup rdbg`: Ruby from apt (`ruby`), dnf (`rubygem-debug`), Homebrew, Scoop or
//! Chocolatey (`ruby`) or winget; the adapter is the debug gem that Ruby bundles.

use super::packages::{PackageManager, Software};
use super::{SetupResult, already, configured_path_error, installed};
use crate::adapters::{DebugAdapter, ruby};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

/// Ruby from the package manager: the debug gem it bundles is the adapter, run inside the
/// program's own Ruby.
pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter(ruby::PROFILE.name);
    match ruby::Rdbg::locate(&adapter_config) {
        Ok(adapter) => {
            let version = ruby::version(adapter.executable());
            return Ok(already("rdbg", adapter.executable(), version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("rdbg", err));
        }
        Err(_) => {}
    }
    let Some(manager) = PackageManager::detect() else {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "Ruby is not installed, and no package manager this knows ({}) is here",
                PackageManager::names(Os::CURRENT)
            ),
            ruby::install_hint(Os::CURRENT),
        ));
    };
    let package = manager.install("Ruby", manager.packages(Software::Ruby))?;
    match ruby::find(&adapter_config) {
        Some(path) => {
            let version = ruby::version(&path);
            Ok(installed("rdbg", &path, version))
        }
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("installed {package}, but ruby is still not found on PATH"),
            "find where the package put ruby and set adapters.rdbg.path to it in the config",
        )),
    }
}
