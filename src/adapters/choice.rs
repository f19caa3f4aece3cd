//! Which adapter serves a launch or an attach: the one asked for, else the one the program calls
//! for, judged from its name and its first bytes by walking the adapter table's detection
//! ([`Detection`]).

use std::path::Path;
use std::sync::Arc;

use super::row::{AdapterRow, Detection, NativeClaim, ServerProbe};
use super::{ADAPTERS, CallerEnv, DebugAdapter, custom, kind};
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
    let classpath = launch.and_then(|spec| spec.options.jvm.classpath.as_deref());
    let program = launch.map(|spec| spec.program.as_path());
    let requested = requested
        .or(module.map(|_| module_runner()))
        .or(classpath.map(|_| class_runner()));
    let wanted = match requested.or(config.defaults.adapter.as_deref()) {
        Some(name) => name,
        None => match program {
            Some(program) => detect(program, config)?,
            None => native_default().name(),
        },
    };
    if let Some(kind) = kind(wanted) {
        let adapter = match (connecting, kind.remote) {
            (true, Some(remote)) => remote(),
            _ => {
                // The caller's environment, which a launch carries: not the daemon's.
                let caller = launch.map_or(CallerEnv::this_process(), CallerEnv::of_launch);
                kind.locate(config, caller)?
            }
        };
        return match (module, classpath) {
            (Some(module), _) if !kind.runs_modules => Err(ErrorBody::usage(
                format!("-m {module} runs a Python module, which the {wanted} adapter cannot"),
                format!(
                    "leave out --adapter ({} runs modules), or name the program's file",
                    module_runner()
                ),
            )),
            (_, Some(_)) if !kind.detection.main_classes => Err(ErrorBody::usage(
                format!(
                    "--classpath runs a main class by its name, which the {wanted} adapter cannot"
                ),
                format!(
                    "leave out --adapter ({} runs main classes), or name the program's file",
                    class_runner()
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

/// The adapter that runs a module by name (`start -m MODULE`, Python's `-m`): the first row
/// whose adapter does.
fn module_runner() -> &'static str {
    ADAPTERS
        .iter()
        .find(|row| row.runs_modules)
        .map_or("", |row| row.name())
}

/// The adapter that runs a main class by its name from a class path (`start MainKt --classpath
/// DIR`): the first row whose adapter does.
fn class_runner() -> &'static str {
    ADAPTERS
        .iter()
        .find(|row| row.detection.main_classes)
        .map_or("", |row| row.name())
}

/// The adapter for a native executable none claims by its content, and for an attach that
/// nothing else tells: the first row that claims any native executable.
fn native_default() -> &'static AdapterRow {
    ADAPTERS
        .iter()
        .find(|row| matches!(row.detection.native, NativeClaim::Any(_)))
        .unwrap_or(&ADAPTERS[0])
}

/// The adapter a one-shot question (`probe`, `probe --on-crash`) runs a program on when none was
/// named (by `--adapter` or the config's default): the row marked [`AdapterRow::one_shot`] (our
/// in-process Python adapter, which starts the program as fast as `python -m pdb` does, where
/// debugpy's three Pythons take several times that), for a program its own detection claims by
/// extension or `#!` line, or a module. A test run keeps the adapter `start` picks (debugpy's
/// failure filter stops where a test runner catches the failure).
pub fn for_one_shot(spec: &LaunchSpec, config: &Config) -> Option<&'static str> {
    if spec.adapter.is_some()
        || config.defaults.adapter.is_some()
        || spec.connect.is_some()
        || spec.test.is_some()
    {
        return None;
    }
    let row = ADAPTERS.iter().find(|row| row.one_shot)?;
    // Only the row's own script test, not all of `detect`: for a native program that looks for
    // lldb-dap on PATH, which `resolve` does anyway, and every probe would pay it twice.
    let claims = (spec.options.python.module.is_some() && row.runs_modules)
        || claims_by_extension(&row.detection, &spec.program)
        || claims_by_interpreter(&row.detection, &user_files::read_head(&spec.program, 256));
    claims.then_some(row.name())
}

/// Whether the language of the adapter `spec` will run on writes names that begin with `@`
/// (Ruby's `@name`: the profile's `at_sign_names`), so that an expression beginning with `@` may
/// be its own and not an `@FRAME:EXPR`. Told as cheaply as [`for_one_shot`] tells its claim: the
/// named adapter (or the config's default), else a row of such a language that claims the
/// program by its extension, its `#!` line or its being that language's runtime.
pub fn writes_at_sign_names(spec: &LaunchSpec, config: &Config) -> bool {
    if let Some(name) = spec
        .adapter
        .as_deref()
        .or(config.defaults.adapter.as_deref())
    {
        return kind(name).is_some_and(|row| row.profile.at_sign_names);
    }
    let mut head = None;
    ADAPTERS
        .iter()
        .filter(|row| row.profile.at_sign_names)
        .any(|row| {
            claims_by_extension(&row.detection, &spec.program)
                || row.detection.runtime.is_some_and(|is| is(&spec.program))
                || claims_by_interpreter(
                    &row.detection,
                    head.get_or_insert_with(|| user_files::read_head(&spec.program, 256)),
                )
        })
}

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

/// The adapter for a process to attach to when none was named: at a `--connect` address, the
/// adapter whose kind of server answers there (a V8 inspector is Node's), those whose probe
/// keeps its connection asked first (see [`ServerProbe`]); a process whose
/// executable's name starts as a row's process names (`node`, `python`) is that row's; another
/// executable is judged like a program to launch (Go build info means Delve).
pub async fn detect_attach_target(spec: &AttachSpec, config: &Config) -> Option<&'static str> {
    if let Some(address) = &spec.connect {
        let keeps = ADAPTERS
            .iter()
            .filter_map(|row| match row.detection.server {
                Some(ServerProbe::Keeps(serves)) => Some((row, serves)),
                _ => None,
            });
        let asks = ADAPTERS
            .iter()
            .filter_map(|row| match row.detection.server {
                Some(ServerProbe::Asks(serves)) => Some((row, serves)),
                _ => None,
            });
        for (row, serves) in keeps.chain(asks) {
            if serves(address).await {
                return Some(row.name());
            }
        }
        return None;
    }
    let exe = crate::platform::executable_of(spec.pid?)?;
    let name = exe.file_name()?.to_string_lossy().to_string();
    if let Some(row) = ADAPTERS.iter().find(|row| {
        row.detection
            .process_names
            .iter()
            .any(|prefix| name.starts_with(prefix))
    }) {
        return Some(row.name());
    }
    detect(&exe, config).ok()
}

/// How [`detect_attach_target`] picks, for `attach`'s help: "Python, Go and JavaScript programs
/// are recognised, a node server at --connect too, else lldb". The languages are those of the
/// rows that claim a process by its name or its executable's content.
pub fn attach_detection_hint() -> String {
    let mut languages: Vec<&str> = Vec::new();
    let by_process = ADAPTERS.iter().filter(|row| {
        !row.detection.process_names.is_empty()
            || matches!(row.detection.native, NativeClaim::ByContent(_))
    });
    for language in by_process.filter_map(|row| row.languages.first()) {
        if !languages.contains(language) {
            languages.push(language);
        }
    }
    let servers: Vec<&str> = ADAPTERS
        .iter()
        .filter(|row| row.detection.server.is_some())
        .map(|row| row.name())
        .collect();
    let mut parts = Vec::new();
    if !languages.is_empty() {
        parts.push(format!("{} programs are recognised", in_words(&languages)));
    }
    if !servers.is_empty() {
        parts.push(format!(
            "a {} server at --connect too",
            joined(&servers, "or")
        ));
    }
    parts.push(format!("else {}", native_default().name()));
    parts.join(", ")
}

/// "a", "a and b", "a, b and c".
fn in_words(items: &[&str]) -> String {
    joined(items, "and")
}

/// "a", "a WORD b", "a, b WORD c".
fn joined(items: &[&str], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} {word} {last}", rest.join(", ")),
    }
}

/// "the adapters are: lldb (C, C++, Rust), debugpy (Python), ..." for hints.
fn adapter_list(config: &Config) -> String {
    let mut names: Vec<String> = ADAPTERS
        .iter()
        .map(|k| format!("{} ({})", k.name(), k.languages.join(", ")))
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

/// Chooses the adapter for a program by walking the rows' detection: a file extension (`.py` is
/// debugpy; `.go` Delve; `.js`, `.mjs`, `.cjs`, `.ts`, `.mts`, `.cts`, `.tsx` Node), the
/// runtime itself (`node`), a folder that is a program (a Go package), a `#!` line, a native
/// executable's content (Go build info), then any native executable: lldb, or gdb when lldb-dap
/// is missing and gdb speaks DAP.
pub fn detect(program: &Path, config: &Config) -> Result<&'static str, ErrorBody> {
    let found = |claims: &dyn Fn(&AdapterRow) -> bool| {
        ADAPTERS
            .iter()
            .find(|row| claims(row))
            .map(|row| row.name())
    };
    let claimed = found(&|row| claims_by_extension(&row.detection, program))
        .or_else(|| found(&|row| row.detection.runtime.is_some_and(|is| is(program))));
    if let Some(name) = claimed {
        return Ok(name);
    }
    if program.is_dir() {
        let folder = ADAPTERS
            .iter()
            .find_map(|row| row.detection.folder.map(|folder| (row.name(), folder)));
        if let Some((name, folder)) = folder
            && (folder.holds_one)(program)
        {
            return Ok(name);
        }
        let only = folder.map_or(String::new(), |(name, folder)| {
            format!(
                "; a directory is debugged only as {}, with {name}",
                folder.what
            )
        });
        return Err(ErrorBody::usage(
            format!("{} is a directory, not a program", program.display()),
            format!("give the program's file{only}"),
        ));
    }
    let head = user_files::read_head(program, 64 * 1024);
    if let Some(name) = found(&|row| claims_by_interpreter(&row.detection, &head)) {
        return Ok(name);
    }
    if is_native_executable(&head) {
        let by_content = found(
            &|row| matches!(row.detection.native, NativeClaim::ByContent(carries) if carries(program)),
        );
        let installed = || {
            found(&|row| {
                matches!(row.detection.native,
                    NativeClaim::Any(installed) if installed(&config.adapter(row.name())))
            })
        };
        return Ok(by_content
            .or_else(installed)
            .unwrap_or(native_default().name()));
    }
    Err(ErrorBody::new(
        ErrorCode::Usage,
        format!("no adapter fits {}", program.display()),
        format!("{}; pick one with --adapter NAME", adapter_list(config)),
    ))
}

/// Whether `program`'s extension is one of `detection`'s, in any case.
fn claims_by_extension(detection: &Detection, program: &Path) -> bool {
    let extension = program.extension().and_then(|e| e.to_str());
    extension.is_some_and(|e| {
        detection
            .extensions
            .iter()
            .any(|known| e.eq_ignore_ascii_case(known))
    })
}

/// Whether a file that begins with `head` is a script whose `#!` line names one of
/// `detection`'s interpreters.
fn claims_by_interpreter(detection: &Detection, head: &[u8]) -> bool {
    head.starts_with(b"#!")
        && head.split(|b| *b == b'\n').next().is_some_and(|line| {
            let line = String::from_utf8_lossy(line);
            detection
                .interpreters
                .iter()
                .any(|interpreter| line.contains(interpreter))
        })
}

fn is_native_executable(head: &[u8]) -> bool {
    head.starts_with(b"\x7fELF")
        || head.starts_with(&[0xcf, 0xfa, 0xed, 0xfe])
        || head.starts_with(&[0xfe, 0xed, 0xfa, 0xcf])
        || head.starts_with(&[0xca, 0xfe, 0xba, 0xbe])
        || head.starts_with(b"MZ")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::adapters::delve::go_programs::GO_BUILD_INFO_MAGIC;
    use crate::adapters::node::is_node_runtime;

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
        assert_eq!(kind("python").map(|k| k.name()), Some("debugpy"));
        assert_eq!(kind("dlv").map(|k| k.name()), Some("delve"));
        assert_eq!(kind("go").map(|k| k.name()), Some("delve"));
        assert_eq!(kind("js").map(|k| k.name()), Some("node"));
        assert_eq!(kind("lldb-dap").map(|k| k.name()), Some("lldb"));
        assert!(kind("nosuch").is_none());
    }

    #[test]
    fn the_attach_hint_names_what_detection_recognises() {
        assert_eq!(
            attach_detection_hint(),
            "Python, Go, JavaScript, Java and Ruby programs are recognised, a node, java or rdbg \
             server at --connect too, else lldb"
        );
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
