//! Which Python runs debugpy: the config's, the active virtual environment's, the private one
//! `debugger setup debugpy` creates, or the system's; and how to get debugpy where it is missing.

use std::path::{Path, PathBuf};

use crate::common::config::AdapterConfig;
use crate::common::paths;
use crate::platform::Os;

/// How to get debugpy on `os` when it is missing.
pub fn install_hint(os: Os) -> String {
    let python = python_commands(os)[0].join(" ");
    format!(
        "run 'debugger setup debugpy' (a private virtual environment), or '{python} -m pip install debugpy'"
    )
}

/// The Python of a virtual environment: `bin/python`, `Scripts\python.exe` on Windows.
pub fn venv_python(os: Os, venv: &Path) -> PathBuf {
    match os {
        Os::Windows => venv.join("Scripts").join(os.executable("python")),
        _ => venv.join("bin").join("python"),
    }
}

/// The commands that may run the system's Python 3, best first: `python3`, else `python`; on
/// Windows the `py` launcher's newest Python 3, else `python` (`python3.exe` there is most often
/// the Microsoft Store's stand-in, which opens the Store instead of running).
pub(super) fn python_commands(os: Os) -> &'static [&'static [&'static str]] {
    match os {
        Os::Windows => &[&["py", "-3"], &["python"]],
        _ => &[&["python3"], &["python"]],
    }
}

/// The system's Python 3 interpreter, as a path (the `py` launcher asked for the one it runs).
pub fn system_python() -> Option<PathBuf> {
    python_commands(Os::CURRENT)
        .iter()
        .find_map(|command| match command {
            [program] => which::which(program).ok(),
            [program, args @ ..] => {
                let output = std::process::Command::new(which::which(program).ok()?)
                    .args(args)
                    .args(["-c", "import sys; print(sys.executable)"])
                    .stdin(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .output()
                    .ok()?;
                let path = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
                (output.status.success() && path.is_file()).then_some(path)
            }
            [] => None,
        })
}

/// The private virtual environment `debugger setup debugpy` creates.
pub fn private_venv() -> PathBuf {
    paths::data_dir().join("venvs").join("debugpy")
}

/// The Pythons to try, in order.
pub fn candidate_pythons(config: &AdapterConfig) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(path) = &config.path {
        candidates.push(path.clone());
        return candidates;
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        candidates.push(venv_python(Os::CURRENT, Path::new(&venv)));
    }
    candidates.push(venv_python(Os::CURRENT, &private_venv()));
    if let Some(python) = system_python() {
        candidates.push(python);
    }
    candidates
}

/// Whether `python` can import debugpy (its version when it can).
pub fn debugpy_version(python: &Path) -> Option<String> {
    let output = std::process::Command::new(python)
        .args(["-c", "import debugpy; print(debugpy.__version__)"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}
