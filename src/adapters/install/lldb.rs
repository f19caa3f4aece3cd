//! `debugger setup lldb`: lldb-dap from apt (`lldb-19`, else `lldb`), dnf (`lldb`), Homebrew
//! (`llvm`, whose keg-only lldb-dap is not put on PATH), winget (`LLVM.LLVM`), Scoop or
//! Chocolatey (`llvm`), and the same for `debugger demo`. Where a package leaves lldb-dap off
//! PATH, the adapter's own search looks in its folder.

use std::path::PathBuf;

use super::packages::{PackageManager, Software};
use super::{SetupResult, already, configured_path_error, installed};
use crate::adapters::{DebugAdapter, lldb};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

/// Makes sure lldb-dap is there for `debugger demo`: the one already found (or configured), else
/// installed as `debugger setup lldb` would.
pub fn ensure() -> Result<PathBuf, ErrorBody> {
    let config = Config::load().unwrap_or_default();
    if let Ok(adapter) = lldb::LldbDap::locate(&config.adapter(lldb::PROFILE.name)) {
        return Ok(adapter.executable().to_path_buf());
    }
    eprintln!("lldb-dap is missing: installing it as 'debugger setup lldb' does");
    install(&config).map(|result| PathBuf::from(result.path))
}

pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter(lldb::PROFILE.name);
    match lldb::LldbDap::locate(&adapter_config) {
        Ok(adapter) => {
            let path = adapter.executable().to_path_buf();
            let version = lldb::version(&path);
            return Ok(already("lldb", &path, version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("lldb", err));
        }
        Err(_) => {}
    }
    let Some(manager) = PackageManager::detect() else {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "lldb-dap is not installed, and no package manager this knows ({}) is here",
                PackageManager::names(Os::CURRENT)
            ),
            lldb::install_hint(Os::CURRENT),
        ));
    };
    let package = manager.install("lldb-dap", manager.packages(Software::Lldb))?;
    if let Some(path) = lldb::find_on_system() {
        let version = lldb::version(&path);
        return Ok(installed("lldb", &path, version));
    }
    // Homebrew's LLVM is keg-only: its lldb-dap is not put on PATH.
    if let Some(path) = manager.keg_binary("llvm", "lldb-dap") {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "installed {package}, but its lldb-dap ({}) is not on PATH",
                path.display()
            ),
            format!(
                "set it in the config: [adapters.lldb] path = \"{}\"",
                path.display()
            ),
        ));
    }
    Err(ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!("installed {package}, but lldb-dap is still not found on PATH"),
        "find where the package put lldb-dap (or lldb-vscode) and set adapters.lldb.path to it in the config",
    ))
}
