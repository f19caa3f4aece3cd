//! `debugger setup php`: PHP's command-line interpreter and Xdebug from apt or dnf (`php-cli`,
//! `php-xdebug`); Xdebug alone where PHP is there without it.

use super::packages::{PackageManager, Software};
use super::{SetupResult, already, configured_path_error, installed};
use crate::adapters::CallerEnv;
use crate::adapters::php;
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter(php::PROFILE.name);
    let caller = CallerEnv::this_process();
    let found = php::find(&adapter_config, &caller).filter(|p| p.is_file());
    if let Some(path) = &found {
        let version = php::version(path);
        if version.as_deref().is_some_and(|v| v.contains("Xdebug")) {
            return Ok(already("xdebug", path, version));
        }
        if adapter_config.path.is_some() {
            return Err(configured_path_error(
                "xdebug",
                ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!("the config's php ({}) has no Xdebug", path.display()),
                    php::install_hint(Os::CURRENT),
                ),
            ));
        }
    }
    let manager = PackageManager::detect().ok_or_else(|| {
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "no package manager that holds PHP and Xdebug ({}) is here",
                PackageManager::names(Os::CURRENT)
            ),
            php::install_hint(Os::CURRENT),
        )
    })?;
    if found.is_none() {
        manager.install("PHP", manager.packages(Software::Php))?;
    }
    let xdebug = manager.packages(Software::Xdebug);
    if xdebug.is_empty() {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "no package of Xdebug for this system's PHP",
            "install it with 'pecl install xdebug' and load it with the ini line 'zend_extension=xdebug'",
        ));
    }
    manager.install("Xdebug", xdebug)?;
    let path = php::find(&adapter_config, &CallerEnv::this_process()).ok_or_else(|| {
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "installed PHP, but php is still not found on PATH",
            "find where the package put php and set adapters.xdebug.path to it in the config",
        )
    })?;
    let version = php::version(&path);
    Ok(installed("xdebug", &path, version))
}
