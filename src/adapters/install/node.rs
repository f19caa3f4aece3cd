//! `debugger setup node`: Node.js from apt or dnf (`nodejs`), Homebrew (`node`), winget
//! (`OpenJS.NodeJS.LTS`), Scoop or Chocolatey (`nodejs-lts`); the adapter itself is built in.

use super::packages::{PackageManager, Software};
use super::{SetupResult, already, configured_path_error, installed};
use crate::adapters::{DebugAdapter, node};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

/// Node.js from the package manager: the node adapter runs inside the daemon and needs only the
/// `node` executable.
pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter(node::PROFILE.name);
    match node::Node::locate(&adapter_config) {
        Ok(adapter) => {
            let version = node::version(adapter.executable());
            return Ok(already("node", adapter.executable(), version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("node", err));
        }
        Err(_) => {}
    }
    let Some(manager) = PackageManager::detect() else {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "Node.js is not installed, and no package manager this knows ({}) is here",
                PackageManager::names(Os::CURRENT)
            ),
            node::install_hint(Os::CURRENT),
        ));
    };
    let package = manager.install("Node.js", manager.packages(Software::Node))?;
    match node::find(&adapter_config) {
        Some(path) => {
            let version = node::version(&path);
            Ok(installed("node", &path, version))
        }
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("installed {package}, but node is still not found on PATH"),
            "find where the package put node and set adapters.node.path to it in the config",
        )),
    }
}
