//! The language runtimes `debugger test` runs a project's test runner with (listing tests,
//! asking whether pytest is installed, a JVM for JUnit's launcher, PHP for PHPUnit's listing): the ones the adapters would launch the tests in, so a
//! listing and a debugged run see the same packages.

use std::path::PathBuf;

use super::{DebugAdapter, debugpy, java, node, php, ruby};
use crate::common::config::Config;
use crate::common::error::ErrorBody;

/// The Python the Python adapter runs programs in.
pub fn python(config: &Config) -> Result<PathBuf, ErrorBody> {
    Ok(debugpy::Debugpy::locate(
        &config.adapter(debugpy::PROFILE.name),
        super::CallerEnv::this_process(),
    )?
    .python)
}

/// The Node.js the JavaScript adapter runs programs in.
pub fn node(config: &Config) -> Result<PathBuf, ErrorBody> {
    Ok(node::Node::locate(&config.adapter(node::PROFILE.name))?
        .runtime()
        .to_path_buf())
}

/// The `java` the JVM adapter runs programs in (JAVA_HOME's, else PATH's).
pub fn java(config: &Config) -> Result<PathBuf, ErrorBody> {
    Ok(java::Java::locate(
        &config.adapter(java::PROFILE.name),
        super::CallerEnv::this_process(),
    )?
    .executable()
    .to_path_buf())
}

/// The PHP the PHP adapter runs scripts in.
pub fn php(config: &Config) -> Result<PathBuf, ErrorBody> {
    Ok(php::Php::locate(
        &config.adapter(php::PROFILE.name),
        super::CallerEnv::this_process(),
    )?
    .executable()
    .to_path_buf())
}

/// The Ruby the Ruby adapter runs programs in (its debugger runs inside the program's Ruby).
pub fn ruby(config: &Config) -> Result<PathBuf, ErrorBody> {
    Ok(ruby::Rdbg::locate(&config.adapter(ruby::PROFILE.name))?
        .executable()
        .to_path_buf())
}
