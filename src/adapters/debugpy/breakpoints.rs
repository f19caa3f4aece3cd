//! Breakpoints debugpy would accept and never stop at, readied so they stop (see the module
//! comment of `mod.rs`): generator and coroutine functions found in the program's sources and set
//! on their first line, library files made the user's code under justMyCode, and the words for
//! what still cannot stop.
//!
//! Apart from `mod.rs`, which starts and configures the adapter, because this is its own concern:
//! reading the program's Python (through a short script the adapter's Python runs) and talking to
//! pydevd's internals.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::Debugpy;
use crate::adapters::{Requests, console_answer};
use crate::common::location::Location;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::ipc::protocol::BreakpointSpec;

/// The absolute files of the line breakpoints among `breakpoints`, each also as its canonical path
/// when that differs (pydevd compares paths as the code objects name them, which may go through
/// a symbolic link or not).
pub(super) fn breakpoint_files(breakpoints: &[BreakpointSpec]) -> HashSet<PathBuf> {
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
pub(super) fn include_rules(files: &HashSet<PathBuf>) -> Value {
    let mut files: Vec<&PathBuf> = files.iter().collect();
    files.sort();
    files
        .into_iter()
        .map(|file| json!({ "path": file, "include": true }))
        .collect()
}

/// The message for a breakpoint in a file debugpy leaves out as library code (justMyCode) when
/// it could not be told otherwise (a debugpy whose internals differ, or a configured rule).
pub(super) const EXCLUDED_FILE: &str = "debugpy leaves this file out as library code (justMyCode) and could not be told otherwise; start with --no-just-my-code to stop here";

/// The message for a function breakpoint on `name`, which is defined nowhere in `folder`.
pub(super) fn unfound_message(name: &str, folder: &Path) -> String {
    format!(
        "no function '{name}' in {}; under justMyCode debugpy stops only in your own code: for a \
         library function give its module (json.loads) or FILE:LINE, or start with --no-just-my-code",
        folder.display()
    )
}

/// Python run in the debuggee (through a frameless `evaluate`) that adds pydevd's form of an
/// `{"include": true}` rule for the file `{path}` (a Python string literal) to the running
/// debugger, ahead of the rules it has, so that the file is traced from then on.
pub(super) const INCLUDE_FILE: &str = "(lambda d, F: d.set_exclude_filters([F.ExcludeFilter({path}, False, True)] + \
     [f for f in d._files_filtering._exclude_filters if f.name != {path}]))\
     (__import__('pydevd').get_global_debugger(), \
     __import__('_pydevd_bundle.pydevd_filtering', fromlist=['ExcludeFilter']))";

/// How long the search for a function's definition may take, in the script and in all.
pub(super) const FIND_BUDGET_SECS: u64 = 3;
pub(super) const FIND_LIMIT: Duration = Duration::from_secs(10);

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
pub(super) const FIND_FUNCTION: &str = r#"
import ast, json, os, re, sys, time

def find_definitions(root, program, name, budget):
    parts = name.split(".")
    wanted = re.compile(rb"def\s+" + re.escape(parts[-1].encode()) + rb"\s*\(")
    deadline = time.monotonic() + budget
    skip = ("__pycache__", "node_modules", "site-packages", "dist-packages")
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
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip
                             and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg")))
            for n in sorted(names):
                path = os.path.join(folder, n)
                if n.endswith((".py", ".pyw")) and path != program:
                    yield path

    def search(path, module):
        # A FIFO or a device named like a module would block the open for good.
        if any(f["file"] == path for f in found) or not os.path.isfile(path):
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

    # Not the program's own: a name with its module (json.loads, json.decoder.JSONDecoder.decode)
    # is looked for in that module's file on sys.path, the library being too big to read it all.
    if not found and len(parts) > 1:
        for folder in sys.path:
            if not folder or not os.path.isdir(folder) or os.path.abspath(folder) == os.path.abspath(root):
                continue
            for i in range(len(parts) - 1, 0, -1):
                base = os.path.join(folder, *parts[:i])
                for path in (base + ".py", os.path.join(base, "__init__.py")):
                    if os.path.isfile(path):
                        search(path, parts[:i])
    return {"found": found}

if __name__ == "__main__":
    print(json.dumps(find_definitions(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]))))
"#;

/// What [`FIND_FUNCTION`] prints.
#[derive(Debug, Deserialize)]
pub(super) struct Definitions {
    found: Vec<Definition>,
}

#[derive(Debug, Clone, Deserialize)]
pub(super) struct Definition {
    file: PathBuf,
    /// The first line of the body.
    line: u32,
    /// `function`, `generator` or `coroutine`.
    kind: String,
}

/// Where a function breakpoint on `name` must go for debugpy to stop.
#[derive(Debug, PartialEq)]
pub(super) enum Placement {
    /// The first body line of its definition: a generator or a coroutine (whose entry pydevd
    /// never checks), or a qualified name (`Class.method`, which pydevd never matches).
    Line(Location),
    /// The function breakpoint works as it is, or the definition is not known at all.
    AsIs,
    /// It needs a line, and it has several definitions, not one of them in the program alone:
    /// the message says where and how to choose.
    Ambiguous(String),
}

/// The [`Placement`] of a function breakpoint on `name`, defined at `definitions`. The definition
/// is the program's own when the program defines the name once (`main` is then the program's,
/// not a neighbouring script's), else the only one found.
pub(super) fn line_for_function(
    name: &str,
    program: &Path,
    definitions: &[Definition],
) -> Placement {
    let needs_a_line = |d: &Definition| d.kind != "function" || name.contains('.');
    let own: Vec<&Definition> = definitions.iter().filter(|d| d.file == program).collect();
    let definition = match (own.as_slice(), definitions) {
        ([one], _) => *one,
        (_, [one]) => one,
        (_, [_, _, ..]) if definitions.iter().all(needs_a_line) => {
            return Placement::Ambiguous(ambiguous_message(name, definitions));
        }
        _ => return Placement::AsIs,
    };
    if needs_a_line(definition) {
        Placement::Line(Location::Line {
            file: definition.file.clone(),
            line: definition.line,
        })
    } else {
        Placement::AsIs
    }
}

/// The message for a function breakpoint on `name` that debugpy cannot match by name and that is
/// defined in all of `definitions`.
fn ambiguous_message(name: &str, definitions: &[Definition]) -> String {
    let places: Vec<String> = definitions
        .iter()
        .map(|d| format!("{}:{}", d.file.display(), d.line))
        .collect();
    format!(
        "'{name}' is defined {} times ({}) and debugpy stops at a function by its bare name \
         only; give one of them as FILE:LINE, or the name with its module (module.{name})",
        definitions.len(),
        places.join(", ")
    )
}

/// What a look-up started in a Python of its own ([`Debugpy::start_lookup`]) printed.
async fn read_lookup(name: &str, child: tokio::process::Child) -> Option<Definitions> {
    let output = match tokio::time::timeout(FIND_LIMIT, child.wait_with_output()).await {
        Ok(Ok(output)) if output.status.success() => output,
        other => {
            tracing::warn!(name, ?other, "could not look for the function's definition");
            return None;
        }
    };
    serde_json::from_slice(&output.stdout)
        .inspect_err(|e| tracing::warn!(name, "unreadable definitions: {e}"))
        .ok()
}

/// Python that is true while debugpy holds the program before its first line: `__main__` is
/// still debugpy's own runner (`runpy` makes the program's module `__main__` as it runs it).
const PROGRAM_HELD: &str = "(lambda m, d, p: bool(m and d and getattr(m, '__file__', None)) and \
    p.dirname(p.abspath(m.__file__)) == p.dirname(p.abspath(d.__file__)))\
    (__import__('sys').modules.get('__main__'), __import__('sys').modules.get('debugpy'), \
    __import__('os').path)";

/// [`FIND_FUNCTION`] for `name` run in the program's own process (a frameless `evaluate`), for
/// a breakpoint on a launch kept ahead (`kept_launch.rs`), whose look-up was not started with
/// the launch. It costs no interpreter's start (150-300 ms through a version manager's shim),
/// and it searches the program's own `sys.path`. Only while the program is held before its
/// first line ([`PROGRAM_HELD`]): a running program's code would compete with the search for
/// the interpreter, and may have replaced what it reads the files with. `None` otherwise, or
/// when the program could not run it: the look-up then runs apart.
async fn find_in_program(
    name: &str,
    program: &Path,
    requests: &dyn Requests,
) -> Option<Definitions> {
    let literal = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let folder = program.parent()?;
    let expression = format!(
        "(lambda ns: (exec({source}, ns), __import__('json').dumps(ns['find_definitions']\
         ({folder}, {program}, {name}, {FIND_BUDGET_SECS})).encode().hex())[1] \
         if {PROGRAM_HELD} else '')({{'__name__': 'debugger_find_definitions'}})",
        source = literal(FIND_FUNCTION),
        folder = literal(&folder.to_string_lossy()),
        program = literal(&program.to_string_lossy()),
        name = literal(name),
    );
    let arguments = EvaluateArguments::repl(expression, None);
    let answer = console_answer(requests.request::<Evaluate>(&arguments).await)
        .inspect_err(|e| tracing::debug!(name, "the program could not look for it: {e}"))
        .ok()?;
    let definitions = crate::adapters::hex_json(&answer)?;
    serde_json::from_value(definitions).ok()
}

impl Debugpy {
    /// [`line_for_function`] for the definitions of `name` in the launched program's folder (or,
    /// for a name with its module, in the library). Library files defining it are made the
    /// user's code, or the breakpoint would never stop there under justMyCode. One that cannot
    /// stop is kept in `unplaced`, with the reason its review gives.
    pub(super) async fn function_as_line(
        &self,
        name: &str,
        requests: &dyn Requests,
    ) -> Option<Location> {
        let (program, started) = {
            let mut run = self.run();
            let program = run.program.clone()?;
            let started = run.lookups.remove(name);
            (program, started)
        };
        let folder = program.parent()?;
        let in_program = match started {
            Some(_) => None,
            None => find_in_program(name, &program, requests).await,
        };
        let definitions = match (in_program, started) {
            (Some(definitions), _) => definitions,
            (None, Some(child)) => read_lookup(name, child).await?,
            (None, None) => read_lookup(name, self.start_lookup(name, &program)?).await?,
        };
        let placement = line_for_function(name, &program, &definitions.found);
        {
            let mut run = self.run();
            match &placement {
                Placement::Ambiguous(message) => {
                    run.unplaced.insert(name.to_string(), message.clone());
                }
                _ if definitions.found.is_empty() && run.just_my_code => {
                    run.unplaced
                        .insert(name.to_string(), unfound_message(name, folder));
                }
                _ => {
                    run.unplaced.remove(name);
                }
            }
        }
        for definition in &definitions.found {
            if !definition.file.starts_with(folder) {
                self.include_file(&definition.file, requests).await;
            }
        }
        match placement {
            Placement::Line(location) => Some(location),
            Placement::AsIs | Placement::Ambiguous(_) => None,
        }
    }

    /// Starts [`FIND_FUNCTION`] for `name` over `program`'s folder in a Python of its own; `None` when the Python cannot
    /// be started (the breakpoint then stays as the user wrote it).
    fn start_lookup(&self, name: &str, program: &Path) -> Option<tokio::process::Child> {
        let folder = program.parent()?;
        let mut command = tokio::process::Command::new(&self.python);
        command
            .arg("-c")
            .arg(FIND_FUNCTION)
            .arg(folder)
            .arg(program)
            .arg(name)
            .arg(FIND_BUDGET_SECS.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        command
            .spawn()
            .inspect_err(|e| tracing::warn!(name, "cannot look for the function's definition: {e}"))
            .ok()
    }

    /// Starts the look-ups of the function breakpoints a launch brings, as it is sent: they run
    /// beside debugpy's start of the program (its launcher and the program's Python, which take
    /// far longer) instead of after `initialized`, where [`Debugpy::function_as_line`] takes
    /// their answers. Without a Tokio runtime (unit tests) nothing is started ahead.
    pub(super) fn start_lookups(&self, breakpoints: &[BreakpointSpec]) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let Some(program) = self.run().program.clone() else {
            return;
        };
        for bp in breakpoints {
            if let Location::Function { name } = &bp.location
                && !self.run().lookups.contains_key(name)
                && let Some(child) = self.start_lookup(name, &program)
            {
                self.run().lookups.insert(name.clone(), child);
            }
        }
    }

    /// Makes `file` the user's code in the running debugger, once, under justMyCode: pydevd
    /// would otherwise accept a breakpoint there and never trace the file.
    pub(super) async fn include_file(&self, file: &Path, requests: &dyn Requests) {
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
            let arguments = EvaluateArguments::repl(expression, None);
            match console_answer(requests.request::<Evaluate>(&arguments).await) {
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
            Placement::Line(Location::Line {
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
        assert_eq!(
            moved("deposit", std::slice::from_ref(&plain)),
            Placement::AsIs
        );
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
        // Unknown, or among definitions of which a plain one stops by its bare name: left as
        // the user wrote it.
        assert_eq!(moved("produce", &[]), Placement::AsIs);
        let twins = [plain.clone(), definition("/p/lib.py", 2, "generator")];
        assert_eq!(moved("produce", &twins), Placement::AsIs);
        // In several files, none of which could stop as it is: it says where.
        let other = definition("/p/sub/app.py", 4, "function");
        let Placement::Ambiguous(message) = moved("Account.deposit", &[plain, other]) else {
            panic!("a qualified name in two files is ambiguous");
        };
        assert!(
            message.contains("/p/app.py:13, /p/sub/app.py:4"),
            "{message}"
        );
        assert!(matches!(
            moved("produce", &[generator.clone(), generator]),
            Placement::Ambiguous(_)
        ));
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
