//! Which Python runs debugpy: the config's, the active virtual environment's, the private one
//! `debugger setup debugpy` creates, or the system's; how to get debugpy where it is missing; and
//! which Python runs the program.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::adapters::{CallerEnv, SourceRoots, source_roots};
use crate::common::config::AdapterConfig;
use crate::common::paths;
use crate::ipc::protocol::{LaunchSpec, ProcessContext};
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

/// The system's Python 3 interpreter, as a path (the `py` launcher asked for the one it runs), as
/// the caller's `PATH` finds it.
pub fn system_python(caller: CallerEnv<'_>) -> Option<PathBuf> {
    python_commands(Os::CURRENT)
        .iter()
        .find_map(|command| match command {
            [program] => caller.which(program),
            [program, args @ ..] => {
                let output = std::process::Command::new(caller.which(program)?)
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

/// The program's `sys.path` less its first entry (the program's own folder, which the session
/// tries first), as `python` reports it with the program's environment and folder: so
/// `PYTHONPATH` and a virtual environment count, and `json/decoder.py` names the standard
/// library's; and where that standard library lies (`sysconfig`'s `stdlib` and `platstdlib`),
/// so that a file of the program's dependencies wins over its namesake there. One short process.
pub fn python_path_of(python: &Path, spec: &LaunchSpec) -> SourceRoots {
    const SCRIPT: &str = "import sys, sysconfig\n\
        p = sysconfig.get_paths()\n\
        print(p['stdlib']); print(p['platstdlib']); print('')\n\
        for e in sys.path[1:]: print(e)";
    source_roots::printed_by(python, &["-c", SCRIPT], spec)
}

/// The private virtual environment `debugger setup debugpy` creates.
pub fn private_venv() -> PathBuf {
    paths::data_dir().join("venvs").join("debugpy")
}

/// The Python of the virtual environment the caller has activated (`VIRTUAL_ENV`), if any.
pub fn active_venv_python(caller: CallerEnv<'_>) -> Option<PathBuf> {
    caller
        .var("VIRTUAL_ENV")
        .filter(|v| !v.is_empty())
        .map(|venv| venv_python(Os::CURRENT, Path::new(&venv)))
}

/// The Pythons to try, in order, in the caller's environment.
pub fn candidate_pythons(config: &AdapterConfig, caller: CallerEnv<'_>) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(path) = &config.path {
        candidates.push(path.clone());
        return candidates;
    }
    candidates.extend(active_venv_python(caller));
    candidates.push(venv_python(Os::CURRENT, &private_venv()));
    if let Some(python) = system_python(caller) {
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

/// The variable through which pyenv's shim hands the version it chose to what it runs.
const PYENV_VERSION: &str = "PYENV_VERSION";

/// Takes `PYENV_VERSION` out of the program's environment when the caller has none, so the
/// program's Python is the one `python` gives in the program's folder with the caller's
/// environment. debugpy's launcher hands the program the adapter's environment with the launch's
/// `env` laid over it; run through pyenv's shim, the adapter's holds the version pyenv chose for
/// the adapter, where the adapter was started: the daemon's folder (`/`) for a `start` or a warm
/// adapter, the caller's for a cold `probe`. So a program whose folder names another version
/// (`.python-version`) ran on the global one under `start`, and a `probe` ran it on one or the
/// other depending on whether a warm adapter was there. (A `null` in `env` removes the variable.)
pub(super) fn leave_out_the_adapters_version(spec: &LaunchSpec, arguments: &mut Value) {
    if spec.env.iter().any(|(key, _)| key == PYENV_VERSION) {
        return;
    }
    if let Some(env) = arguments.get_mut("env").and_then(Value::as_object_mut) {
        env.insert(PYENV_VERSION.to_string(), Value::Null);
    }
}

/// The files a version manager's shim picks the Python by, for a Python started in `context`:
/// `.python-version` and `.tool-versions` in its folder and every folder above, and pyenv's
/// global `version` (under `PYENV_ROOT`, else `~/.pyenv`). What the shim reads happens as a
/// warm Python starts, before it can say what it read, so the daemon notes these itself first
/// ([`crate::adapters::WarmPolicy::start_inputs`]).
pub fn version_manager_files(context: &ProcessContext) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = context
        .cwd
        .ancestors()
        .flat_map(|folder| {
            [
                folder.join(".python-version"),
                folder.join(".tool-versions"),
            ]
        })
        .collect();
    let variable = |name: &str| {
        context
            .env
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| PathBuf::from(value))
    };
    let pyenv_root = variable("PYENV_ROOT").or_else(|| variable("HOME").map(|h| h.join(".pyenv")));
    if let Some(root) = pyenv_root {
        files.push(root.join("version"));
    }
    files
}
