//! Which adapter serves a launch or an attach: the one asked for, else the one the program calls
//! for, judged from its name and its first bytes (a Python or Node script, Go build info, a
//! native executable).

use std::path::Path;
use std::sync::Arc;

use super::{ADAPTERS, CallerEnv, DebugAdapter, MODULE_RUNNER, custom, gdb, kind, lldb, node};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::user_files;
use crate::ipc::protocol::{AttachSpec, LaunchSpec};

/// Picks and locates the adapter: `--adapter` wins, then, for a module (`-m`), the adapter that
/// runs modules, then the config's default, then the program itself (see [`detect`]). A name
/// that is not built in is looked up in the config's `[adapters.NAME]` sections.
pub fn resolve(
    requested: Option<&str>,
    config: &Config,
    launch: Option<&LaunchSpec>,
    connecting: bool,
) -> Result<Arc<dyn DebugAdapter>, ErrorBody> {
    let module = launch.and_then(|spec| spec.options.python.module.as_deref());
    let program = launch.map(|spec| spec.program.as_path());
    let requested = requested.or(module.map(|_| MODULE_RUNNER));
    let wanted = match requested.or(config.defaults.adapter.as_deref()) {
        Some(name) => name,
        None => match program {
            Some(program) => detect(program, config)?,
            None => "lldb",
        },
    };
    if let Some(kind) = kind(wanted) {
        let adapter = match (connecting, kind.remote) {
            (true, Some(remote)) => remote(),
            _ => {
                // The caller's environment, which a launch carries: not the daemon's.
                let caller = launch.map_or(CallerEnv::this_process(), CallerEnv::of_launch);
                (kind.make)(config, caller)?
            }
        };
        return match module {
            Some(module) if !adapter.runs_modules() => Err(ErrorBody::usage(
                format!("-m {module} runs a Python module, which the {wanted} adapter cannot"),
                format!(
                    "leave out --adapter ({MODULE_RUNNER} runs modules), or name the program's file"
                ),
            )),
            _ => Ok(adapter),
        };
    }
    if config.adapters.contains_key(wanted) {
        return Ok(Arc::new(custom::CustomAdapter::from_config(
            wanted,
            &config.adapter(wanted),
        )?));
    }
    Err(ErrorBody::new(
        ErrorCode::Usage,
        format!("unknown adapter '{wanted}'"),
        format!(
            "{}; pick one with --adapter NAME, or define one under [adapters.NAME] in the config",
            adapter_list(config)
        ),
    ))
}

/// The adapter a one-shot question (`probe`, `probe --on-crash`) runs a Python program on when none was named
/// (by `--adapter` or the config's default): our in-process one, which starts the program as
/// fast as `python -m pdb` does, where debugpy's three Pythons take several times that. A test
/// run keeps debugpy (its failure filter stops where a test runner catches the failure).
pub fn for_one_shot(spec: &LaunchSpec, config: &Config) -> Option<&'static str> {
    if spec.adapter.is_some()
        || config.defaults.adapter.is_some()
        || spec.connect.is_some()
        || spec.test.is_some()
    {
        return None;
    }
    // Only Python's own test, not all of `detect`: for a native program that looks for lldb-dap
    // on PATH, which `resolve` does anyway, and every probe would pay it twice.
    (spec.options.python.module.is_some() || is_python_script(&spec.program))
        .then_some(ONE_SHOT_PYTHON)
}

/// See [`for_one_shot`].
const ONE_SHOT_PYTHON: &str = "pdb";

/// The adapter for a core dump of `program`: `--adapter`, else the config's default, else the one
/// `start` would pick for the program (a Go binary is Delve's; another native one lldb's, or
/// GDB's where lldb-dap is missing).
pub fn resolve_for_core(
    requested: Option<&str>,
    config: &Config,
    program: &Path,
) -> Result<Arc<dyn DebugAdapter>, ErrorBody> {
    let wanted = match requested.or(config.defaults.adapter.as_deref()) {
        Some(name) => name,
        None => detect(program, config)?,
    };
    resolve(Some(wanted), config, None, false)
}

/// The adapter for a process to attach to when none was named: a V8 inspector at the
/// `--connect` address is Node; a process running `node` or `python` is Node or debugpy; another
/// executable is judged like a program to launch (Go build info means Delve).
pub async fn detect_attach_target(spec: &AttachSpec, config: &Config) -> Option<&'static str> {
    if let Some(address) = &spec.connect {
        return node::inspector::is_inspector(address)
            .await
            .then_some("node");
    }
    let exe = crate::platform::executable_of(spec.pid?)?;
    let name = exe.file_name()?.to_string_lossy().to_string();
    if name.starts_with("node") {
        return Some("node");
    }
    if name.starts_with("python") {
        return Some("debugpy");
    }
    detect(&exe, config).ok()
}

/// "the adapters are: lldb (C, C++, Rust), debugpy (Python), ..." for hints.
fn adapter_list(config: &Config) -> String {
    let mut names: Vec<String> = ADAPTERS
        .iter()
        .map(|k| format!("{} ({})", k.name, k.languages.join(", ")))
        .collect();
    names.extend(
        config
            .adapters
            .keys()
            .filter(|n| kind(n).is_none())
            .cloned(),
    );
    format!("the adapters are: {}", names.join(", "))
}

/// Chooses the adapter for a program: `.py` is debugpy; a `.go` file, a directory of Go sources,
/// or a binary carrying Go build info is Delve; JavaScript and TypeScript (`.js`, `.mjs`, `.cjs`,
/// `.ts`, `.mts`, `.cts`, `.tsx`) is Node; another native
/// executable is lldb, or gdb when lldb-dap is missing and gdb speaks DAP.
pub fn detect(program: &Path, config: &Config) -> Result<&'static str, ErrorBody> {
    let extension = program
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("py" | "pyw") => return Ok("debugpy"),
        Some("go") => return Ok("delve"),
        Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "tsx") => return Ok("node"),
        _ => {}
    }
    if is_node_runtime(program) {
        // `start -- node --test x.test.js`: Node itself, with its own command line.
        return Ok("node");
    }
    if program.is_dir() {
        let has_go = std::fs::read_dir(program).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "go"))
        });
        if has_go {
            return Ok("delve");
        }
        return Err(ErrorBody::usage(
            format!("{} is a directory, not a program", program.display()),
            "give the program's file; a directory is debugged only as a Go package (a folder of \
             .go files), with delve",
        ));
    }
    let head = user_files::read_head(program, 64 * 1024);
    if shebang_names(&head, "python") {
        return Ok("debugpy");
    }
    if shebang_names(&head, "node") {
        return Ok("node");
    }
    if is_native_executable(&head) {
        if carries_go_build_info(program) {
            return Ok("delve");
        }
        if lldb::find_on_system().is_some() || config.adapter("lldb").path.is_some() {
            return Ok("lldb");
        }
        if gdb::has_dap(&config.adapter("gdb")) {
            return Ok("gdb");
        }
        return Ok("lldb");
    }
    Err(ErrorBody::new(
        ErrorCode::Usage,
        format!("no adapter fits {}", program.display()),
        format!("{}; pick one with --adapter NAME", adapter_list(config)),
    ))
}

/// Whether `program` is a Python script, as [`detect`] tells one: `.py` or `.pyw`, or a `#!`
/// line naming python.
fn is_python_script(program: &Path) -> bool {
    let extension = program.extension().and_then(|e| e.to_str());
    extension.is_some_and(|e| e.eq_ignore_ascii_case("py") || e.eq_ignore_ascii_case("pyw"))
        || shebang_names(&user_files::read_head(program, 256), "python")
}

/// Whether a file that begins with `head` is a script whose `#!` line names `interpreter`.
fn shebang_names(head: &[u8], interpreter: &str) -> bool {
    head.starts_with(b"#!")
        && head
            .split(|b| *b == b'\n')
            .next()
            .is_some_and(|line| String::from_utf8_lossy(line).contains(interpreter))
}

/// Whether `program` is the `node` executable itself (`node`, `nodejs`, `node.exe`).
pub fn is_node_runtime(program: &Path) -> bool {
    program
        .file_stem()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n, "node" | "nodejs"))
        && program.extension().is_none_or(|e| e == "exe")
}

fn is_native_executable(head: &[u8]) -> bool {
    head.starts_with(b"\x7fELF")
        || head.starts_with(&[0xcf, 0xfa, 0xed, 0xfe])
        || head.starts_with(&[0xfe, 0xed, 0xfa, 0xcf])
        || head.starts_with(&[0xca, 0xfe, 0xba, 0xbe])
        || head.starts_with(b"MZ")
}

/// Go binaries carry a build-info blob that starts with this magic (`go version -m` reads it).
const GO_BUILD_INFO_MAGIC: &[u8] = b"\xff Go buildinf:";

/// Whether `path` is a Go binary: its build-info header is the magic at a 16-byte boundary (the
/// Go linker aligns it so), followed by the pointer size (4 or 8) and a flags byte with only its
/// two low bits in use. Any program that looks for Go binaries holds the magic as a constant,
/// ours included; the header around it is what tells the real one.
fn carries_go_build_info(path: &Path) -> bool {
    // The blob sits in its own section near the start of the data; scan a bounded prefix.
    let bytes = user_files::read_head(path, 64 * 1024 * 1024);
    let header = GO_BUILD_INFO_MAGIC.len() + 2;
    (0..bytes.len().saturating_sub(header))
        .step_by(16)
        .any(|at| {
            bytes[at..].starts_with(GO_BUILD_INFO_MAGIC)
                && matches!(bytes[at + GO_BUILD_INFO_MAGIC.len()], 4 | 8)
                && bytes[at + GO_BUILD_INFO_MAGIC.len() + 1] & !0b11 == 0
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_itself_is_told_from_a_script_named_node() {
        assert!(is_node_runtime(Path::new("/usr/bin/node")));
        assert!(is_node_runtime(Path::new("/usr/bin/nodejs")));
        assert!(is_node_runtime(Path::new("nodejs/node.exe")));
        assert!(!is_node_runtime(Path::new("/p/node.js")));
        assert!(!is_node_runtime(Path::new("/usr/bin/npx")));
    }

    #[test]
    fn programs_pick_their_adapter() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config::default();
        let py = dir.path().join("app.py");
        std::fs::write(&py, "print(1)\n").expect("write");
        assert_eq!(detect(&py, &config).ok(), Some("debugpy"));
        assert_eq!(
            detect(&dir.path().join("main.go"), &config).ok(),
            Some("delve")
        );
        assert_eq!(
            detect(&dir.path().join("app.mjs"), &config).ok(),
            Some("node")
        );
        let script = dir.path().join("tool");
        std::fs::write(&script, "#!/usr/bin/env python3\nprint(1)\n").expect("write");
        assert_eq!(detect(&script, &config).ok(), Some("debugpy"));
        let pkg = dir.path().join("pkg");
        std::fs::create_dir(&pkg).expect("mkdir");
        std::fs::write(pkg.join("main.go"), "package main\n").expect("write");
        assert_eq!(detect(&pkg, &config).ok(), Some("delve"));
        let go_binary = dir.path().join("gobin");
        let mut bytes = b"\x7fELF".to_vec();
        bytes.extend_from_slice(&[0; 108]);
        bytes.extend_from_slice(GO_BUILD_INFO_MAGIC);
        bytes.extend_from_slice(&[8, 2]);
        bytes.extend_from_slice(&[0; 32]);
        std::fs::write(&go_binary, &bytes).expect("write");
        assert_eq!(detect(&go_binary, &config).ok(), Some("delve"));
        // A program that merely holds the magic as a constant (a debugger does) is no Go binary.
        let holder = dir.path().join("holder");
        let at = 112 + GO_BUILD_INFO_MAGIC.len();
        bytes[at..at + 2].copy_from_slice(b"go");
        std::fs::write(&holder, &bytes).expect("write");
        assert_ne!(detect(&holder, &config).ok(), Some("delve"));
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).expect("mkdir");
        let err = detect(&empty, &config).expect_err("a folder with no Go package");
        assert!(
            err.message.ends_with("empty is a directory, not a program"),
            "{err:?}"
        );
        assert!(err.hint.contains("Go package"), "{err:?}");
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello").expect("write");
        let err = detect(&text, &config).expect_err("no adapter fits text");
        assert!(err.hint.contains("debugpy (Python)"), "{err:?}");
    }

    #[test]
    fn aliases_name_their_adapter() {
        assert_eq!(kind("python").map(|k| k.name), Some("debugpy"));
        assert_eq!(kind("dlv").map(|k| k.name), Some("delve"));
        assert_eq!(kind("go").map(|k| k.name), Some("delve"));
        assert_eq!(kind("js").map(|k| k.name), Some("node"));
        assert_eq!(kind("lldb-dap").map(|k| k.name), Some("lldb"));
        assert!(kind("nosuch").is_none());
    }

    #[test]
    fn unknown_adapter_lists_the_known_ones() {
        let err = resolve(Some("nosuch"), &Config::default(), None, false)
            .err()
            .expect("must fail");
        assert_eq!(err.code, ErrorCode::Usage);
        assert!(err.hint.contains("lldb"), "{err:?}");
    }
}
