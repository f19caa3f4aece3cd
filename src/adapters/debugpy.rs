//! debugpy, Microsoft's adapter for Python: `python -m debugpy.adapter` over stdio.
//!
//! The Python is the config's (`adapters.debugpy.path`), else the active virtual environment's,
//! else the private one `debugger setup debugpy` creates, else `python3` on PATH; it must be able
//! to import debugpy.
//!
//! Breakpoints debugpy accepts, calls verified or merely pending, and then never stops at are set
//! differently here (see `prepare_breakpoint` and `review_breakpoints` below):
//!
//! - A function breakpoint on a generator or a coroutine. pydevd (under `sys.settrace`, Python
//!   3.11 and older) checks function breakpoints on the `call` event only for code without the
//!   `CO_GENERATOR`/`CO_COROUTINE` flags: for those, a `call` is every resumption, so it ignores
//!   them all. And it matches the bare `co_name`, so `Class.method` or `json.loads` never matches
//!   anything. Such a function, when its one definition is found (in the program's folder, or
//!   with its module on `sys.path`), becomes a line breakpoint on the first line of its body,
//!   where it stops when it first runs. A plain function by its bare name stays a function
//!   breakpoint, which stops on the `def` line.
//! - A line in library code (the standard library, site-packages) under justMyCode: pydevd does
//!   not trace such files at all. A file the user puts a breakpoint in is made the user's code:
//!   by the launch's `rules` for the breakpoints given at start, and for those added later by
//!   adding the same rule to the running debugger (pydevd has no request for it, so a frameless
//!   `evaluate` does it). Stepping may then enter that file too, as it would the program's own.
//! - What still cannot stop says so, with the way out (`--no-just-my-code`): a bare function name
//!   defined nowhere in the program's folder under justMyCode, which debugpy calls verified, and
//!   a file debugpy could not be told to trace.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::process::{BoxFuture, SpawnedAdapter, spawn_stdio};
use super::{DebugAdapter, Requests, SourceLookup, launch_with};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::Location;
use crate::common::paths;
use crate::dap::types::Breakpoint as DapBreakpoint;
use crate::ipc::protocol::{AttachSpec, BreakpointSpec, LaunchSpec};

pub struct Debugpy {
    python: PathBuf,
    extra_args: Vec<String>,
    /// What the launch or attach asked for, which [`DebugAdapter::prepare_breakpoint`] needs.
    run: Mutex<RunFacts>,
}

/// What the session's launch or attach told debugpy.
#[derive(Debug, Default)]
struct RunFacts {
    /// The launched program; its folder is where function definitions are looked for. `None`
    /// when attached: the program's files are then unknown here.
    program: Option<PathBuf>,
    just_my_code: bool,
    /// Files debugpy has been told are the user's code, so that breakpoints there stop.
    included: HashSet<PathBuf>,
    /// Function names defined nowhere in the program's folder (nor, with their module, in the
    /// library): under justMyCode a breakpoint on one stops only if it is the user's code after
    /// all, which debugpy's `verified` does not tell. Each with the message that says so.
    unfound: HashMap<String, String>,
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
        Debugpy::with("python3".into(), Vec::new())
    }

    fn with(python: PathBuf, extra_args: Vec<String>) -> Debugpy {
        Debugpy {
            python,
            extra_args,
            run: Mutex::default(),
        }
    }

    fn run(&self) -> std::sync::MutexGuard<'_, RunFacts> {
        self.run.lock().unwrap_or_else(|p| p.into_inner())
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
        Ok(Debugpy::with(python, config.args.clone()))
    }
}

/// The files of the modules the program has loaded so far, one per line (debugpy's own left
/// out): with the program's tree and `sys.path`, what a relative breakpoint file is matched
/// against, so `lexer.py` names the loaded library's once it is imported.
const LOADED_MODULE_FILES: &str = "\"\\n\".join(sorted({f for f in (getattr(m, '__file__', None) \
    for m in list(__import__('sys').modules.values())) if f and '/debugpy/' not in f}))";

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
        let program = if spec.program.is_absolute() {
            spec.program.clone()
        } else {
            spec.cwd.join(&spec.program)
        };
        let mut arguments = json!({
            "type": "python",
            "request": "launch",
            "justMyCode": spec.just_my_code,
            // Output comes to us as output events, not through a terminal.
            "console": "internalConsole",
            "redirectOutput": true,
            "python": self.python,
        });
        let mut run = self.run();
        *run = RunFacts {
            program: Some(program),
            just_my_code: spec.just_my_code,
            ..RunFacts::default()
        };
        if spec.just_my_code {
            run.included = breakpoint_files(&spec.breakpoints);
            if !run.included.is_empty() {
                arguments["rules"] = include_rules(&run.included);
            }
        }
        with_presentation_options(launch_with(spec, arguments))
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        let mut arguments = json!({ "type": "python", "request": "attach", "justMyCode": true });
        if let Some(pid) = spec.pid {
            arguments["processId"] = json!(pid);
        }
        let included = breakpoint_files(&spec.breakpoints);
        if !included.is_empty() {
            arguments["rules"] = include_rules(&included);
        }
        *self.run() = RunFacts {
            program: None,
            just_my_code: true,
            included,
            ..RunFacts::default()
        };
        with_presentation_options(arguments)
    }

    fn prepare_breakpoint<'a>(
        &'a self,
        location: &'a Location,
        requests: &'a dyn Requests,
    ) -> BoxFuture<'a, Option<Location>> {
        Box::pin(async move {
            match location {
                Location::Function { name } => self.function_as_line(name, requests).await,
                Location::Line { file, .. } => {
                    self.include_file(file, requests).await;
                    None
                }
                Location::Data { .. } => None,
            }
        })
    }

    fn review_breakpoints(&self, command: &str, arguments: &Value, answer: &mut [DapBreakpoint]) {
        let run = self.run();
        let names = arguments["breakpoints"].as_array().into_iter().flatten();
        for (sent, bp) in names.zip(answer.iter_mut()) {
            let unfound = sent["name"].as_str().and_then(|n| run.unfound.get(n));
            if let Some(message) = unfound.filter(|_| command == "setFunctionBreakpoints") {
                bp.verified = false;
                bp.message = Some(message.clone());
            } else if bp
                .message
                .as_deref()
                .is_some_and(|m| m.contains("excluded by filters"))
            {
                bp.message = Some(EXCLUDED_FILE.to_string());
            }
        }
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
            listing_command: Some(LOADED_MODULE_FILES),
            listing_grows: true,
            adapter_matches_names: false,
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

/// The absolute files of the line breakpoints among `breakpoints`, each also as its canonical path
/// when that differs (pydevd compares paths as the code objects name them, which may go through
/// a symbolic link or not).
fn breakpoint_files(breakpoints: &[BreakpointSpec]) -> HashSet<PathBuf> {
    breakpoints
        .iter()
        .filter_map(|bp| match &bp.location {
            Location::Line { file, .. } if file.is_absolute() => Some(file),
            _ => None,
        })
        .flat_map(|file| [Some(file.clone()), std::fs::canonicalize(file).ok()])
        .flatten()
        .collect()
}

/// debugpy's launch `rules` that make `files` the user's code under justMyCode.
fn include_rules(files: &HashSet<PathBuf>) -> Value {
    let mut files: Vec<&PathBuf> = files.iter().collect();
    files.sort();
    files
        .into_iter()
        .map(|file| json!({ "path": file, "include": true }))
        .collect()
}

/// The message for a breakpoint in a file debugpy leaves out as library code (justMyCode) when
/// it could not be told otherwise (a debugpy whose internals differ, or a configured rule).
const EXCLUDED_FILE: &str = "debugpy leaves this file out as library code (justMyCode) and could not be told otherwise; start with --no-just-my-code to stop here";

/// The message for a function breakpoint on `name`, which is defined nowhere in `folder`.
fn unfound_message(name: &str, folder: &Path) -> String {
    format!(
        "no function '{name}' in {}; under justMyCode debugpy stops only in your own code: for a \
         library function give its module (json.loads) or FILE:LINE, or start with --no-just-my-code",
        folder.display()
    )
}

/// Python run in the debuggee (through a frameless `evaluate`) that adds pydevd's form of an
/// `{"include": true}` rule for the file `{path}` (a Python string literal) to the running
/// debugger, ahead of the rules it has, so that the file is traced from then on.
const INCLUDE_FILE: &str = "(lambda d, F: d.set_exclude_filters([F.ExcludeFilter({path}, False, True)] + \
     [f for f in d._files_filtering._exclude_filters if f.name != {path}]))\
     (__import__('pydevd').get_global_debugger(), \
     __import__('_pydevd_bundle.pydevd_filtering', fromlist=['ExcludeFilter']))";

/// How long the search for a function's definition may take, in the script and in all.
const FIND_BUDGET_SECS: u64 = 3;
const FIND_LIMIT: Duration = Duration::from_secs(10);

/// Python that finds the definitions of a function in a program's folder, with `ast`, so that
/// what a function is (a generator, a coroutine) is known exactly as Python will compile it.
///
/// Arguments: the folder, the program (searched first), the name (`func`, `Class.method`,
/// `module.func`: it matches the end of the module path and qualified name), and a time budget in
/// seconds. It skips hidden folders, `__pycache__`, virtual environments and installed packages,
/// and stops after 5,000 files or the budget. A name with a module that is not in the folder is
/// looked for in that module on the interpreter's `sys.path` (the library). It prints `{"found": [{"file", "line", "kind"}]}`:
/// `line` is the first line of the body (after a docstring), `kind` is `function`, `generator`
/// or `coroutine`.
const FIND_FUNCTION: &str = r#"
import ast, json, os, re, sys, time
root, program, name, budget = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
parts = name.split(".")
wanted = re.compile(rb"def\s+" + re.escape(parts[-1].encode()) + rb"\s*\(")
deadline = time.monotonic() + budget
SKIP = ("__pycache__", "node_modules", "site-packages", "dist-packages")
found = []

def own_yield(function):
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False

def first_line(function):
    body = function.body
    first = body[0]
    if len(body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        first = body[1]
    return min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])

def visit(node, path, module, qualname):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = qualname + [child.name]
            if (module + inner)[-len(parts):] == parts:
                kind = "coroutine" if isinstance(child, ast.AsyncFunctionDef) else "function"
                if own_yield(child):
                    kind = "generator"
                found.append({"file": path, "line": first_line(child), "kind": kind})
            visit(child, path, module, inner)
        elif isinstance(child, ast.ClassDef):
            visit(child, path, module, qualname + [child.name])
        else:
            visit(child, path, module, qualname)

def files():
    yield program
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP
                         and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg")))
        for n in sorted(names):
            path = os.path.join(folder, n)
            if n.endswith((".py", ".pyw")) and path != program:
                yield path

def search(path, module):
    if any(f["file"] == path for f in found):
        return
    try:
        with open(path, "rb") as f:
            source = f.read(4000000)
        if wanted.search(source):
            visit(ast.parse(source, path), path, module, [])
    except (OSError, SyntaxError, ValueError):
        pass

for count, path in enumerate(files()):
    if count >= 5000 or time.monotonic() > deadline:
        break
    module = os.path.splitext(os.path.relpath(path, root))[0].split(os.sep)
    search(path, module[:-1] if module[-1] == "__init__" else module)

# Not the program's own: a name with its module (json.loads, json.decoder.JSONDecoder.decode) is
# looked for in that module's file on sys.path, the library being too big to read it all.
if not found and len(parts) > 1:
    for folder in sys.path:
        if not folder or not os.path.isdir(folder) or os.path.abspath(folder) == os.path.abspath(root):
            continue
        for i in range(len(parts) - 1, 0, -1):
            base = os.path.join(folder, *parts[:i])
            for path in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(path):
                    search(path, parts[:i])
print(json.dumps({"found": found}))
"#;

/// What [`FIND_FUNCTION`] prints.
#[derive(Debug, Deserialize)]
struct Definitions {
    found: Vec<Definition>,
}

#[derive(Debug, Clone, Deserialize)]
struct Definition {
    file: PathBuf,
    /// The first line of the body.
    line: u32,
    /// `function`, `generator` or `coroutine`.
    kind: String,
}

/// Where a function breakpoint on `name` must go for debugpy to stop: the first body line of its
/// definition, when that is a generator or a coroutine (whose entry pydevd never checks), or when
/// the name is qualified (`Class.method`, which pydevd never matches). The definition is the
/// program's own when the program defines the name once (`main` is then the program's, not a
/// neighbouring script's), else the only one found. `None`: the function breakpoint works as it
/// is, or the definition is not known well enough to move it.
fn line_for_function(name: &str, program: &Path, definitions: &[Definition]) -> Option<Location> {
    let own: Vec<&Definition> = definitions.iter().filter(|d| d.file == program).collect();
    let definition = match (own.as_slice(), definitions) {
        ([one], _) => *one,
        (_, [one]) => one,
        _ => return None,
    };
    let needs_a_line = definition.kind != "function" || name.contains('.');
    needs_a_line.then(|| Location::Line {
        file: definition.file.clone(),
        line: definition.line,
    })
}

impl Debugpy {
    /// [`line_for_function`] for the definitions of `name` in the launched program's folder (or,
    /// for a name with its module, in the library). Library files defining it are made the
    /// user's code, or the breakpoint would never stop there under justMyCode.
    async fn function_as_line(&self, name: &str, requests: &dyn Requests) -> Option<Location> {
        let program = self.run().program.clone()?;
        let folder = program.parent()?;
        let mut command = tokio::process::Command::new(&self.python);
        command
            .arg("-c")
            .arg(FIND_FUNCTION)
            .arg(folder)
            .arg(&program)
            .arg(name)
            .arg(FIND_BUDGET_SECS.to_string())
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        let output = match tokio::time::timeout(FIND_LIMIT, command.output()).await {
            Ok(Ok(output)) if output.status.success() => output,
            other => {
                tracing::warn!(name, ?other, "could not look for the function's definition");
                return None;
            }
        };
        let definitions: Definitions = serde_json::from_slice(&output.stdout)
            .inspect_err(|e| tracing::warn!(name, "unreadable definitions: {e}"))
            .ok()?;
        {
            let mut run = self.run();
            if definitions.found.is_empty() && run.just_my_code {
                run.unfound
                    .insert(name.to_string(), unfound_message(name, folder));
            } else {
                run.unfound.remove(name);
            }
        }
        for definition in &definitions.found {
            if !definition.file.starts_with(folder) {
                self.include_file(&definition.file, requests).await;
            }
        }
        line_for_function(name, &program, &definitions.found)
    }

    /// Makes `file` the user's code in the running debugger, once, under justMyCode: pydevd
    /// would otherwise accept a breakpoint there and never trace the file.
    async fn include_file(&self, file: &Path, requests: &dyn Requests) {
        let new_files: Vec<PathBuf> = {
            let run = self.run();
            if !run.just_my_code || !file.is_absolute() {
                return;
            }
            [Some(file.to_path_buf()), std::fs::canonicalize(file).ok()]
                .into_iter()
                .flatten()
                .filter(|f| !run.included.contains(f))
                .collect()
        };
        for path in new_files {
            let literal = serde_json::to_string(&path.to_string_lossy()).unwrap_or_default();
            let expression = INCLUDE_FILE.replace("{path}", &literal);
            let arguments = json!({ "expression": expression, "context": "repl" });
            match requests.request("evaluate", arguments).await {
                Ok(_) => {
                    self.run().included.insert(path);
                }
                Err(e) => tracing::warn!(
                    file = %path.display(),
                    "could not make the file the user's code for its breakpoint: {e}"
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter() -> Debugpy {
        Debugpy::with(PathBuf::from("/usr/bin/python3"), Vec::new())
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

    fn line_spec(file: &str, line: u32) -> BreakpointSpec {
        BreakpointSpec {
            location: Location::Line {
                file: PathBuf::from(file),
                line,
            },
            requested: None,
            condition: None,
            hit_count: None,
            log_message: None,
        }
    }

    fn launch_spec(just_my_code: bool, breakpoints: Vec<BreakpointSpec>) -> LaunchSpec {
        LaunchSpec {
            program: PathBuf::from("/nonexistent/app.py"),
            args: Vec::new(),
            cwd: PathBuf::from("/nonexistent"),
            env: Vec::new(),
            adapter: None,
            stop_on_entry: false,
            breakpoints,
            connect: None,
            just_my_code,
        }
    }

    #[test]
    fn files_with_breakpoints_at_launch_are_the_users_code_under_just_my_code() {
        let breakpoints = vec![
            line_spec("/nonexistent/lib/json/decoder.py", 337),
            line_spec("/nonexistent/lib/json/decoder.py", 340),
            line_spec("relative.py", 3),
            BreakpointSpec {
                location: Location::Function {
                    name: "produce".into(),
                },
                ..line_spec("x.py", 1)
            },
        ];
        let debugpy = adapter();
        let arguments = debugpy.launch_arguments(&launch_spec(true, breakpoints.clone()));
        assert_eq!(
            arguments["rules"],
            json!([{ "path": "/nonexistent/lib/json/decoder.py", "include": true }])
        );
        assert_eq!(
            debugpy.run().program,
            Some(PathBuf::from("/nonexistent/app.py"))
        );

        // Without justMyCode nothing is filtered, so no rule is needed.
        let arguments = adapter().launch_arguments(&launch_spec(false, breakpoints));
        assert!(arguments.get("rules").is_none(), "{arguments}");
        let arguments = adapter().launch_arguments(&launch_spec(true, Vec::new()));
        assert!(arguments.get("rules").is_none(), "{arguments}");
    }

    fn answered(verified: bool, message: Option<&str>) -> DapBreakpoint {
        DapBreakpoint {
            id: Some(1),
            verified,
            message: message.map(str::to_string),
            line: None,
            source: None,
        }
    }

    #[test]
    fn answers_that_would_mislead_are_corrected() {
        let debugpy = adapter();
        debugpy.run().unfound.insert(
            "raw_decode".into(),
            unfound_message("raw_decode", Path::new("/p")),
        );
        let sent = json!({ "breakpoints": [{ "name": "square" }, { "name": "raw_decode" }] });
        let mut answer = [answered(true, None), answered(true, None)];
        debugpy.review_breakpoints("setFunctionBreakpoints", &sent, &mut answer);
        assert!(answer[0].verified && answer[0].message.is_none());
        assert!(!answer[1].verified);
        let message = answer[1].message.as_deref().unwrap_or("");
        assert!(message.contains("'raw_decode' in /p"), "{message}");
        assert!(message.contains("--no-just-my-code"), "{message}");

        // debugpy's own words name launch.json; ours name the flag.
        let sent =
            json!({ "source": { "path": "/lib/json/decoder.py" }, "breakpoints": [{ "line": 3 }] });
        let mut answer = [answered(
            false,
            Some(
                "Breakpoint in file excluded by filters.\nNote: may be excluded because of \"justMyCode\"",
            ),
        )];
        debugpy.review_breakpoints("setBreakpoints", &sent, &mut answer);
        assert!(!answer[0].verified);
        assert_eq!(answer[0].message.as_deref(), Some(EXCLUDED_FILE));
    }

    fn definition(file: &str, line: u32, kind: &str) -> Definition {
        Definition {
            file: PathBuf::from(file),
            line,
            kind: kind.into(),
        }
    }

    #[test]
    fn only_functions_debugpy_would_miss_become_lines() {
        let line = |file: &str, line: u32| {
            Some(Location::Line {
                file: PathBuf::from(file),
                line,
            })
        };
        let program = Path::new("/p/gen.py");
        let generator = definition("/p/gen.py", 5, "generator");
        let coroutine = definition("/p/gen.py", 12, "coroutine");
        let plain = definition("/p/app.py", 13, "function");
        let moved =
            |name: &str, definitions: &[Definition]| line_for_function(name, program, definitions);
        assert_eq!(
            moved("produce", std::slice::from_ref(&generator)),
            line("/p/gen.py", 5)
        );
        assert_eq!(
            moved("fetch", std::slice::from_ref(&coroutine)),
            line("/p/gen.py", 12)
        );
        // A plain function by its bare name stays a function breakpoint (it stops on `def`).
        assert_eq!(moved("deposit", std::slice::from_ref(&plain)), None);
        // pydevd matches bare names only.
        assert_eq!(
            moved("Account.deposit", std::slice::from_ref(&plain)),
            line("/p/app.py", 13)
        );
        // The program's own definition wins over its neighbours'.
        let elsewhere = definition("/p/other.py", 3, "coroutine");
        assert_eq!(
            moved("fetch", &[elsewhere, coroutine.clone()]),
            line("/p/gen.py", 12)
        );
        // Unknown or ambiguous: left as the user wrote it.
        assert_eq!(moved("produce", &[]), None);
        assert_eq!(moved("produce", &[generator.clone(), generator]), None);
        let twins = [plain.clone(), definition("/p/lib.py", 2, "generator")];
        assert_eq!(moved("produce", &twins), None);
    }

    /// Runs [`FIND_FUNCTION`] over `folder` (the program being `main.py` there).
    fn find(folder: &Path, name: &str) -> Vec<(String, u32, String)> {
        let output = std::process::Command::new("python3")
            .arg("-c")
            .arg(FIND_FUNCTION)
            .arg(folder)
            .arg(folder.join("main.py"))
            .arg(name)
            .arg("10")
            .output()
            .expect("python3 runs");
        assert!(output.status.success(), "{output:?}");
        let definitions: Definitions = serde_json::from_slice(&output.stdout).expect("json");
        definitions
            .found
            .into_iter()
            .map(|d| {
                let file = d.file.strip_prefix(folder).unwrap_or(&d.file);
                (file.display().to_string(), d.line, d.kind)
            })
            .collect()
    }

    #[test]
    fn definitions_are_found_and_told_apart_by_python_itself() {
        let dir = tempfile::tempdir().expect("tempdir");
        let main = "\
import asyncio

def produce(n):
    \"\"\"Yields.\"\"\"
    for i in range(n):
        yield i

async def fetch():
    await asyncio.sleep(0)

def outer():
    def produce():
        return [x for x in (yield)]
    return produce

class Account:
    @staticmethod
    def deposit(amount):
        def inner():
            yield amount
        return inner
";
        std::fs::write(dir.path().join("main.py"), main).expect("write");
        std::fs::create_dir_all(dir.path().join("pkg")).expect("mkdir");
        std::fs::write(
            dir.path().join("pkg/__init__.py"),
            "def deposit():\n    pass\n",
        )
        .expect("write");
        // Neither a virtual environment nor a hidden folder is the program's code.
        std::fs::create_dir_all(dir.path().join("venv")).expect("mkdir");
        std::fs::write(dir.path().join("venv/pyvenv.cfg"), "").expect("write");
        std::fs::write(dir.path().join("venv/m.py"), "def fetch():\n    pass\n").expect("write");
        std::fs::create_dir_all(dir.path().join(".hidden")).expect("mkdir");
        std::fs::write(dir.path().join(".hidden/m.py"), "def fetch():\n    pass\n").expect("write");

        let of = |file: &str, line: u32, kind: &str| (file.to_string(), line, kind.to_string());
        assert_eq!(
            find(dir.path(), "produce"),
            [
                of("main.py", 5, "generator"),
                of("main.py", 13, "generator")
            ]
        );
        assert_eq!(find(dir.path(), "fetch"), [of("main.py", 9, "coroutine")]);
        assert_eq!(
            find(dir.path(), "Account.deposit"),
            [of("main.py", 19, "function")]
        );
        assert_eq!(
            find(dir.path(), "pkg.deposit"),
            [of("pkg/__init__.py", 2, "function")]
        );
        assert_eq!(find(dir.path(), "deposit").len(), 2);
        assert_eq!(find(dir.path(), "nosuch"), []);
        // The library, for a name with its module.
        let library = find(dir.path(), "json.decoder.JSONDecoder.decode");
        assert_eq!(library.len(), 1, "{library:?}");
        assert!(library[0].0.ends_with("json/decoder.py"), "{library:?}");
    }
}
