//! `debugger setup debugpy`: pip into a private virtual environment under the data directory
//! (never the system Python), which the debugpy adapter looks in.

use std::path::Path;
use std::process::{Command, Stdio};

use super::packages::{Software, install_hint};
use super::{SetupResult, already, configured_path_error, installed, run_logged};
use crate::adapters::{DebugAdapter, debugpy};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

pub fn install(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter(debugpy::PROFILE.name);
    match debugpy::Debugpy::locate(&adapter_config, crate::adapters::CallerEnv::this_process()) {
        Ok(adapter) => {
            let python = adapter.executable().to_path_buf();
            let version = debugpy::debugpy_version(&python);
            return Ok(already("debugpy", &python, version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("debugpy", err));
        }
        Err(_) => {}
    }
    let venv = debugpy::private_venv();
    let python = debugpy::venv_python(Os::CURRENT, &venv);
    let base = debugpy::system_python(crate::adapters::CallerEnv::this_process());
    if !python.is_file() {
        create_venv(&venv, base.as_deref())?;
    }
    let pip = pip_install_command(&python, base.as_deref());
    if !run_logged(&pip, &[]) {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "pip could not install debugpy into {} (its output is above)",
                venv.display()
            ),
            format!(
                "check that pypi.org can be reached (or pip's proxy settings), then run 'debugger setup debugpy' again; or run: {}",
                pip.join(" ")
            ),
        ));
    }
    match debugpy::debugpy_version(&python) {
        Some(version) => Ok(installed("debugpy", &python, Some(version))),
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "pip installed debugpy, but {} cannot import it",
                python.display()
            ),
            format!(
                "remove {} and run 'debugger setup debugpy' again",
                venv.display()
            ),
        )),
    }
}

/// The error for a machine without Python 3, with the commands that install it on `os`.
fn no_python(os: Os) -> ErrorBody {
    let looked = match os {
        Os::Windows => "neither the py launcher nor python is on PATH",
        _ => "neither python3 nor python is on PATH",
    };
    ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!("debugpy needs Python 3, and {looked}"),
        format!(
            "install Python 3 ({}), then run 'debugger setup debugpy' again",
            install_hint(Software::Python, os)
        ),
    )
}

/// Whether `python -m MODULE` is there (`pip`, say).
fn has_module(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-m", module, "--version"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `VENV/bin/python -m pip install debugpy`; or, in an environment made without pip, the base
/// Python's pip pointed at it (`pip --python`, pip 22.3 and later).
fn pip_install_command(python: &Path, base: Option<&Path>) -> Vec<String> {
    let mut command = match base {
        Some(base) if !has_module(python, "pip") && has_module(base, "pip") => vec![
            base.display().to_string(),
            "-m".into(),
            "pip".into(),
            "--python".into(),
            python.display().to_string(),
        ],
        _ => vec![python.display().to_string(), "-m".into(), "pip".into()],
    };
    command.extend(["install", "--disable-pip-version-check", "debugpy"].map(String::from));
    command
}

/// Creates the private virtual environment with the Python 3 on PATH (a half-made one is
/// replaced). Where Python's `ensurepip` is missing (Debian and Ubuntu without python3-venv),
/// the environment is made without pip, and the base Python's pip installs into it.
fn create_venv(venv: &Path, base: Option<&Path>) -> Result<(), ErrorBody> {
    let base = base.ok_or_else(|| no_python(Os::CURRENT))?;
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot create {}: {e}", parent.display()),
                format!(
                    "set {} to a directory you can write",
                    crate::common::paths::DATA_DIR_ENV
                ),
            )
        })?;
    }
    let venv_command = |extra: &[&str]| {
        let mut command = vec![base.display().to_string(), "-m".into(), "venv".into()];
        command.extend(extra.iter().map(|a| a.to_string()));
        command.push("--clear".into());
        command.push(venv.display().to_string());
        command
    };
    let made = |command: &[String]| {
        run_logged(command, &[]) && debugpy::venv_python(Os::CURRENT, venv).is_file()
    };
    let command = venv_command(&[]);
    if made(&command) {
        return Ok(());
    }
    if has_module(base, "pip") && made(&venv_command(&["--without-pip"])) {
        eprintln!(
            "made the environment without pip; {}'s pip installs into it",
            base.display()
        );
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(venv);
    Err(ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!(
            "'{}' could not create a virtual environment (its output is above)",
            command.join(" ")
        ),
        "install Python's venv module ('apt-get install python3-venv' on Debian/Ubuntu), then run 'debugger setup debugpy' again",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_python_is_told_with_each_oss_commands() {
        let linux = no_python(Os::Linux);
        assert!(
            linux
                .message
                .ends_with("neither python3 nor python is on PATH")
        );
        assert_eq!(
            linux.hint,
            "install Python 3 ('apt-get install python3-venv' (Debian/Ubuntu), 'dnf install python3' (Fedora)), then run 'debugger setup debugpy' again"
        );
        let windows = no_python(Os::Windows);
        assert!(
            windows.message.contains("py launcher"),
            "{}",
            windows.message
        );
        assert!(
            windows
                .hint
                .contains("'winget install -e --id Python.Python.3.12'"),
            "{}",
            windows.hint
        );
        assert!(no_python(Os::MacOs).hint.contains("'brew install python'"));
    }
}
