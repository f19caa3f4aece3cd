//! debugpy, Microsoft's adapter for Python: `python -m debugpy.adapter` over stdio.
//!
//! The Python is the config's (`adapters.debugpy.path`), else the active virtual environment's,
//! else the private one `debugger setup debugpy` creates, else `python3` on PATH; it must be able
//! to import debugpy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::process::{BoxFuture, SpawnedAdapter, spawn_stdio};
use super::{DebugAdapter, SourceLookup, launch_with};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;
use crate::ipc::protocol::{AttachSpec, LaunchSpec};

pub struct Debugpy {
    python: PathBuf,
    extra_args: Vec<String>,
}

/// How to get debugpy when it is missing.
pub const INSTALL_HINT: &str = "run 'debugger setup debugpy' (a private virtual environment), or 'python3 -m pip install debugpy'";

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
        candidates.push(PathBuf::from(venv).join("bin").join("python"));
    }
    candidates.push(private_venv().join("bin").join("python"));
    if let Ok(python) = which::which("python3") {
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

impl Debugpy {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> Debugpy {
        Debugpy {
            python: PathBuf::from("python3"),
            extra_args: Vec::new(),
        }
    }

    pub fn locate(config: &AdapterConfig) -> Result<Debugpy, ErrorBody> {
        let candidates = candidate_pythons(config);
        let python = candidates
            .iter()
            .find(|python| python.is_file() && debugpy_version(python).is_some())
            .cloned()
            .ok_or_else(|| {
                let tried: Vec<String> =
                    candidates.iter().map(|p| p.display().to_string()).collect();
                ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!("debugpy not found (tried: {})", tried.join(", ")),
                    INSTALL_HINT,
                )
            })?;
        Ok(Debugpy {
            python,
            extra_args: config.args.clone(),
        })
    }
}

/// Settings sent in both `launch` and `attach` so a Python program reads like any other.
///
/// - `variablePresentation`: debugpy groups an object's dunder attributes under a synthetic
///   "special variables" child, its methods under "function variables" and attributes holding
///   classes under "class variables" (children with an empty value and type; no DAP
///   `presentationHint` marks them). In a terminal the groups are noise on every `locals` line:
///   dunders and functions are hidden (`print obj.__dict__` or `print func` still reach them), and
///   classes are shown inline like any other value.
/// - `breakOnSystemExit: []`: with the `uncaught` exception filter, debugpy stops on
///   `sys.exit(N)` for any N other than 0 as if it were a crash. Here the program simply exits and
///   the exit code is reported, as it is for C. (A `sys.exit("message")` still stops. A debugpy
///   too old to know the key ignores it and keeps stopping on non-zero exits; 1.8.22 knows it.)
fn presentation_options() -> Map<String, Value> {
    let options = json!({
        "variablePresentation": {
            "special": "hide",
            "function": "hide",
            "class": "inline",
            "protected": "inline",
        },
        "breakOnSystemExit": [],
    });
    match options {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn with_presentation_options(mut arguments: Value) -> Value {
    if let Value::Object(map) = &mut arguments {
        map.extend(presentation_options());
    }
    arguments
}

impl DebugAdapter for Debugpy {
    fn name(&self) -> &'static str {
        "debugpy"
    }

    fn executable(&self) -> &Path {
        &self.python
    }

    fn spawn(&self) -> BoxFuture<'_, Result<SpawnedAdapter, ErrorBody>> {
        let mut args: Vec<OsString> = vec!["-m".into(), "debugpy.adapter".into()];
        args.extend(self.extra_args.iter().map(OsString::from));
        Box::pin(async move { spawn_stdio("debugpy", &self.python, &args) })
    }

    fn adapter_id(&self) -> &'static str {
        "debugpy"
    }

    fn launch_arguments(&self, spec: &LaunchSpec) -> Value {
        with_presentation_options(launch_with(
            spec,
            json!({
                "type": "python",
                "request": "launch",
                "justMyCode": spec.just_my_code,
                // Output comes to us as output events, not through a terminal.
                "console": "internalConsole",
                "redirectOutput": true,
                "python": self.python,
            }),
        ))
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        let mut arguments = json!({ "type": "python", "request": "attach", "justMyCode": true });
        if let Some(pid) = spec.pid {
            arguments["processId"] = json!(pid);
        }
        with_presentation_options(arguments)
    }

    /// Stop on exceptions nothing catches, as a Python user expects.
    fn exception_filters(&self) -> Vec<&'static str> {
        vec!["uncaught"]
    }

    /// debugpy wants the exact path, so a relative name is placed by us: a Python program is
    /// the `.py` files of its folder tree.
    fn source_lookup(&self) -> SourceLookup {
        SourceLookup {
            tree_extensions: &["py"],
            ..SourceLookup::default()
        }
    }

    /// The program's `sys.path` (less its own folder, which the session tries first): what the
    /// interpreter that runs it reports with the program's environment, so `PYTHONPATH` and the
    /// virtual environment count, and `json/decoder.py` names the standard library's.
    fn source_roots(&self, spec: &LaunchSpec) -> Vec<PathBuf> {
        let output = std::process::Command::new(&self.python)
            .args(["-c", "import sys\nfor p in sys.path[1:]: print(p)"])
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&spec.cwd)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        match output {
            Ok(output) if output.status.success() => String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter(|line| !line.is_empty())
                .map(PathBuf::from)
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter() -> Debugpy {
        Debugpy {
            python: PathBuf::from("/usr/bin/python3"),
            extra_args: Vec::new(),
        }
    }

    #[test]
    fn launch_hides_debugpy_groups_and_does_not_stop_on_sys_exit() {
        let spec = LaunchSpec {
            program: PathBuf::from("/tmp/app.py"),
            args: vec!["x".into()],
            cwd: PathBuf::from("/tmp"),
            env: vec![("K".into(), "V".into())],
            adapter: None,
            stop_on_entry: false,
            breakpoints: Vec::new(),
            connect: None,
            just_my_code: false,
        };
        let arguments = adapter().launch_arguments(&spec);
        assert_eq!(arguments["program"], "/tmp/app.py");
        assert_eq!(arguments["justMyCode"], false);
        assert_eq!(arguments["console"], "internalConsole");
        assert_eq!(arguments["env"]["K"], "V");
        assert_eq!(arguments["variablePresentation"]["special"], "hide");
        assert_eq!(arguments["variablePresentation"]["function"], "hide");
        assert_eq!(arguments["variablePresentation"]["class"], "inline");
        assert_eq!(arguments["breakOnSystemExit"], json!([]));
    }

    #[test]
    fn attach_gets_the_same_presentation() {
        let spec = AttachSpec {
            pid: None,
            adapter: None,
            breakpoints: Vec::new(),
            connect: Some("127.0.0.1:5678".into()),
        };
        let arguments = adapter().attach_arguments(&spec);
        assert_eq!(arguments["request"], "attach");
        assert!(arguments.get("processId").is_none());
        assert_eq!(arguments["variablePresentation"]["special"], "hide");
        assert_eq!(arguments["breakOnSystemExit"], json!([]));
    }
}
