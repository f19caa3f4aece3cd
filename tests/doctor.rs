//! `debugger doctor` and `debugger setup`, run as the real binary against what is installed here
//! (`.ci/run` installs lldb-dap, debugpy and Delve), and against a PATH with nothing on it.

//! Unix only: the runtime dir's mode and the wrappers it puts on PATH are Unix files.
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, Session, require_lldb_dap};
use serde_json::Value;

/// Runs `debugger ARGS...` for session `s` with its own data directory, no active virtual
/// environment, and, when given, `path` as the whole PATH.
fn run(s: &Session, data_dir: &Path, args: &[&str], path: Option<&Path>) -> Run {
    run_with_home(s, data_dir, args, path, None)
}

fn run_with_home(
    s: &Session,
    data_dir: &Path,
    args: &[&str],
    path: Option<&Path>,
    home: Option<&Path>,
) -> Run {
    let mut command = s.command();
    command
        .env("DEBUGGER_DATA_DIR", data_dir)
        .env_remove("VIRTUAL_ENV")
        .args(args);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    if let Some(home) = home {
        command.env("HOME", home);
    }
    let output = command.output().expect("run debugger");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn adapter<'a>(data: &'a Value, name: &str) -> &'a Value {
    data["adapters"]
        .as_array()
        .expect("adapters")
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("{name} missing from {data}"))
}

/// The installed GDB's major version, as the test sees it.
fn gdb_major() -> Option<u32> {
    let gdb = which_on_path("gdb")?;
    let output = Command::new(gdb).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.lines()
        .next()?
        .split_whitespace()
        .last()?
        .split('.')
        .next()?
        .parse()
        .ok()
}

fn which_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

#[test]
fn doctor_reports_each_adapter_with_path_version_and_fix() {
    require_lldb_dap();
    let s = Session::new();
    let data_dir = tempfile::tempdir().expect("tempdir");
    let out = run(&s, data_dir.path(), &["--json", "doctor"], None);
    assert_eq!(out.code, 0, "{out:?}");
    let value = out.json();
    assert_eq!(value["ok"], true, "{value}");
    let data = &value["data"];
    for a in data["adapters"].as_array().expect("adapters") {
        for key in ["name", "found", "path", "version", "languages", "fix"] {
            assert!(a.get(key).is_some(), "adapter without {key}: {a}");
        }
        assert_eq!(a["found"].as_bool(), Some(a["fix"].is_null()), "{a}");
    }
    for (name, language) in [("lldb", "C"), ("debugpy", "Python"), ("delve", "Go")] {
        let a = adapter(data, name);
        assert_eq!(
            a["found"], true,
            "{name} is installed here (.ci/run installs it): {a}"
        );
        let path = a["path"].as_str().expect("path");
        assert!(Path::new(path).is_file(), "{name} path {path} is no file");
        let version = a["version"].as_str().unwrap_or("");
        assert!(
            version.starts_with(|c: char| c.is_ascii_digit()),
            "{name} version: {a}"
        );
        assert!(
            a["languages"]
                .as_array()
                .expect("languages")
                .contains(&Value::from(language)),
            "{a}"
        );
    }

    let gdb = adapter(data, "gdb");
    match gdb_major() {
        Some(major) if major >= 14 => assert_eq!(gdb["found"], true, "{gdb}"),
        Some(major) => {
            // Installed, but too old for DAP: reported as such, with its path and version.
            assert_eq!(gdb["found"], false, "{gdb}");
            assert!(
                gdb["version"]
                    .as_str()
                    .is_some_and(|v| v.starts_with(&major.to_string())),
                "{gdb}"
            );
            assert!(gdb["path"].is_string(), "{gdb}");
            let problem = gdb["problem"].as_str().expect("problem");
            assert!(problem.contains("no DAP"), "{gdb}");
            assert!(
                gdb["fix"].as_str().expect("fix").contains("GDB 14"),
                "{gdb}"
            );
        }
        None => assert_eq!(gdb["found"], false, "{gdb}"),
    }
    // Our Python adapter needs only Python: found, with Python's version.
    let pdb = adapter(data, "pdb");
    assert_eq!(pdb["found"], true, "{pdb}");
    assert!(
        pdb["version"].as_str().is_some_and(|v| v.starts_with("3.")),
        "{pdb}"
    );
    // Node.js is installed by .ci/run; the adapter is built in and needs only `node`.
    let node = adapter(data, "node");
    assert_eq!(node["found"], true, "{node}");
    assert!(
        node["version"]
            .as_str()
            .is_some_and(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit())),
        "{node}"
    );
    assert_eq!(adapter(data, "codelldb")["found"], false);

    let ptrace = &data["ptrace"];
    for key in ["scope", "may_attach", "detail", "fix"] {
        assert!(ptrace.get(key).is_some(), "ptrace without {key}: {ptrace}");
    }
    let runtime = &data["runtime_dir"];
    assert_eq!(runtime["path"], s.runtime_dir().display().to_string());
    assert_eq!(runtime["exists"], true, "{runtime}");
    assert_eq!(runtime["private"], true, "{runtime}");
    assert_eq!(runtime["mode"], "700", "{runtime}");

    // Text: the answer first, then one line per adapter, then the checks.
    let text = run(&s, data_dir.path(), &["doctor"], None);
    let stdout = text.ok();
    let first = stdout.lines().next().unwrap_or("");
    assert!(
        first.contains("adapters work: lldb, debugpy, pdb, delve, node, java"),
        "{stdout}"
    );
    for prefix in [
        "ok       lldb ",
        "ok       debugpy ",
        "ok       pdb ",
        "ok       delve ",
        "ok       node ",
        "ok       java ",
        "ok       xdebug ",
        "ok       runtime ",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(prefix)),
            "no line starting {prefix:?}:\n{stdout}"
        );
    }
    assert!(stdout.lines().any(|l| l.contains(" attach ")), "{stdout}");
    if gdb_major().is_some_and(|m| m < 14) {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("missing  gdb ") && l.contains("no DAP")),
            "{stdout}"
        );
    }
}

#[test]
fn doctor_with_nothing_on_path_fails_and_names_each_fix() {
    let s = Session::new();
    let empty = tempfile::tempdir().expect("tempdir");
    let bin = empty.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let data_dir = empty.path().join("data");
    std::fs::create_dir(&data_dir).expect("mkdir");
    // A runtime directory others can enter is reported as not private.
    std::fs::set_permissions(s.runtime_dir(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");

    // Nothing found through HOME either (Delve looks in ~/go/bin).
    let home = Some(empty.path());
    let out = run_with_home(&s, &data_dir, &["doctor"], Some(&bin), home);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.starts_with("0 of 10 adapters work"), "{out:?}");
    for (name, fix) in [
        ("lldb", "fix: run 'debugger setup lldb'"),
        ("debugpy", "fix: run 'debugger setup debugpy'"),
        ("pdb", "fix: install Python 3"),
        ("delve", "fix: run 'debugger setup delve'"),
        ("gdb", "fix: install GDB 14 or newer"),
        ("codelldb", "adapters.codelldb.path"),
        ("node", "fix: run 'debugger setup node'"),
        ("java", "fix: install a JDK 17 or newer"),
        ("xdebug", "fix: run 'debugger setup xdebug', or install PHP"),
        ("rdbg", "fix: run 'debugger setup rdbg'"),
    ] {
        let at = out
            .stdout
            .lines()
            .position(|l| l.starts_with(&format!("missing  {name} ")))
            .unwrap_or_else(|| panic!("no missing line for {name}:\n{}", out.stdout));
        let next = out.stdout.lines().nth(at + 1).unwrap_or("");
        assert!(next.contains(fix), "{name}'s fix is {next:?}");
    }
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("problem  runtime ") && l.contains("mode 755")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("chmod 700"), "{}", out.stdout);
    assert!(
        out.stderr
            .starts_with("error: no debug adapter works on this machine"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("debugger setup --all"),
        "{}",
        out.stderr
    );

    let out = run_with_home(&s, &data_dir, &["--json", "doctor"], Some(&bin), home);
    assert_eq!(out.code, 1, "{out:?}");
    let error = out.failure();
    assert_eq!(error["code"], "adapter_not_found", "{error}");
    let hint = error["hint"].as_str().unwrap_or("");
    for name in ["lldb", "debugpy", "delve"] {
        assert!(hint.contains(&format!("debugger setup {name}")), "{hint}");
    }
}

#[test]
fn doctor_checks_the_runtime_dir_without_creating_it() {
    let s = Session::new();
    let data_dir = tempfile::tempdir().expect("tempdir");
    let missing = s.dir.path().join("not-yet");
    let mut command = s.command();
    let output = command
        .env("DEBUGGER_RUNTIME_DIR", &missing)
        .env("DEBUGGER_DATA_DIR", data_dir.path())
        .args(["--json", "doctor"])
        .output()
        .expect("run debugger");
    let value: Value = serde_json::from_slice(&output.stdout).expect("json");
    let runtime = &value["data"]["runtime_dir"];
    assert_eq!(runtime["exists"], false, "{value}");
    assert_eq!(
        runtime["private"], true,
        "a missing dir is created 0700: {value}"
    );
    assert!(!missing.exists(), "doctor must not create the runtime dir");

    std::fs::set_permissions(s.runtime_dir(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let data = s.data(&["doctor"]);
    let runtime = &data["runtime_dir"];
    assert_eq!(runtime["private"], false, "{runtime}");
    assert_eq!(runtime["mode"], "755", "{runtime}");
    assert!(
        runtime["fix"]
            .as_str()
            .is_some_and(|f| f.contains("chmod 700")),
        "{runtime}"
    );
}

#[test]
fn doctor_lists_adapters_defined_in_the_config() {
    let s = Session::with_config(
        "[adapters.mine]\ncommand = \"/bin/sh\"\n[adapters.ghost]\ncommand = \"/nonexistent/ghost-adapter\"\n",
    );
    let data = s.data(&["doctor"]);
    let mine = adapter(&data, "mine");
    assert_eq!(mine["found"], true, "{mine}");
    assert_eq!(mine["path"], "/bin/sh");
    assert_eq!(mine["source"], "config");
    let ghost = adapter(&data, "ghost");
    assert_eq!(ghost["found"], false, "{ghost}");
    assert!(ghost["fix"].is_string(), "{ghost}");
    assert_eq!(data["config"]["ok"], true);
}

/// A `python3` that cannot import debugpy (the real one with `-S`, so no site-packages), alone on
/// PATH: `setup debugpy` then has to make its private environment.
fn python_without_debugpy(bin: &Path) {
    let python = which_on_path("python3").expect("python3 is needed on PATH (.ci/run installs it)");
    let output = Command::new(&python)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("run python3");
    let real = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let wrapper = bin.join("python3");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{real}' -S \"$@\"\n")).expect("write");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let status = Command::new(&wrapper)
        .args(["-c", "import debugpy"])
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run the wrapper");
    assert!(!status.success(), "the wrapper must not import debugpy");
}

#[test]
fn setup_debugpy_makes_a_private_venv_that_the_adapter_uses() {
    let s = Session::new();
    let tmp = tempfile::tempdir().expect("tempdir");
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    python_without_debugpy(&bin);
    let data_dir = tmp.path().join("data");

    // pip fetches debugpy from PyPI.
    let out = run(&s, &data_dir, &["setup", "debugpy"], Some(&bin));
    assert_eq!(out.code, 0, "{out:?}");
    let venv_python = data_dir
        .join("venvs")
        .join("debugpy")
        .join("bin")
        .join("python");
    assert!(out.stdout.starts_with("Installed debugpy: "), "{out:?}");
    assert!(
        out.stdout.contains(&venv_python.display().to_string()),
        "{out:?}"
    );
    let status = Command::new(&venv_python)
        .args(["-c", "import debugpy"])
        .status()
        .expect("run the venv's python");
    assert!(status.success(), "the private venv cannot import debugpy");

    // The adapter now finds debugpy there, though the python3 on PATH has none.
    let out = run(&s, &data_dir, &["--json", "doctor"], Some(&bin));
    let value = out.json();
    let debugpy = adapter(&value["data"], "debugpy");
    assert_eq!(debugpy["found"], true, "{debugpy}");
    assert_eq!(debugpy["path"], venv_python.display().to_string());

    // A second run has nothing to do.
    let out = run(&s, &data_dir, &["--json", "setup", "python"], Some(&bin));
    let value = out.json();
    assert_eq!(value["ok"], true, "{value}");
    assert_eq!(value["data"]["adapters"][0]["status"], "already_installed");
}

#[test]
fn setup_says_when_lldb_is_already_installed() {
    require_lldb_dap();
    let s = Session::new();
    let out = s.run(&["setup", "lldb"]);
    let stdout = out.ok();
    assert!(
        stdout.starts_with("lldb is already installed: "),
        "{stdout}"
    );
    let data = s.data(&["setup", "lldb-dap"]);
    let lldb = &data["adapters"][0];
    assert_eq!(lldb["name"], "lldb");
    assert_eq!(lldb["status"], "already_installed");
    assert!(
        Path::new(lldb["path"].as_str().unwrap_or("")).is_file(),
        "{lldb}"
    );
}

#[test]
fn setup_refuses_unknown_adapters_and_explains_the_rest() {
    let s = Session::new();
    let out = s.run(&["setup", "nosuch"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("unknown adapter 'nosuch'"), "{out:?}");
    for name in [
        "lldb", "debugpy", "delve", "gdb", "codelldb", "node", "java",
    ] {
        assert!(out.stderr.contains(name), "{name} not listed: {out:?}");
    }
    let error = s.run(&["--json", "setup", "nosuch"]).failure();
    assert_eq!(error["code"], "usage");

    assert_eq!(s.run(&["setup"]).code, 2, "setup needs an adapter or --all");
    assert_eq!(s.run(&["setup", "lldb", "--all"]).code, 2);

    // Node.js is on this machine (.ci/run installs it): nothing to do, and it says so.
    let out = s.run(&["setup", "node"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with("node is already installed: "),
        "{out:?}"
    );

    let out = s.run(&["setup", "codelldb"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("adapters.codelldb.path"), "{out:?}");

    if gdb_major().is_some_and(|m| m < 14) {
        let out = s.run(&["setup", "gdb"]);
        assert_eq!(out.code, 1, "{out:?}");
        assert!(out.stderr.contains("GDB 14 or newer"), "{out:?}");
    }
}
