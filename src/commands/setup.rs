//! `debugger setup ADAPTER` / `setup --all`: installs an adapter with the platform's own tools.
//!
//! - lldb: apt (`lldb-19`, else `lldb`), dnf (`lldb`), brew (`llvm`).
//! - delve: apt, dnf or brew (`delve`), else `go install` when Go is there.
//! - debugpy: pip into a private virtual environment under the data directory (never the system
//!   Python), which the debugpy adapter looks in.
//! - node: apt or dnf (`nodejs`), brew (`node`); the adapter itself is built in.
//! - gdb, codelldb: nothing to install from here; it says what to do instead.
//!
//! Package managers run as root, or through passwordless sudo. Without either, nothing is run and
//! the error's hint is the exact command for the user to run. What the installers print goes to
//! stderr, so stdout keeps only the result (or the one `--json` object).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;
use serde_json::json;

use super::data;
use crate::adapters::{self, DebugAdapter, debugpy, delve, gdb, lldb, node};
use crate::cli::Outcome;
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};

/// The adapters `setup` can install, in the order `--all` installs them.
pub const INSTALLABLE: &[&str] = &["lldb", "debugpy", "delve", "node"];

/// What to do for GDB, which `setup` cannot fix: DAP needs GDB 14, and a distribution ships the
/// GDB it ships.
pub const GDB_ADVICE: &str = "install GDB 14 or newer from your distribution ('apt-get install gdb' \
on Debian 13 or Ubuntu 24.04 and later, 'dnf install gdb' on Fedora, 'brew install gdb' on macOS); \
meanwhile 'debugger setup lldb' covers C, C++ and Rust";

const DELVE_MODULE: &str = "github.com/go-delve/delve/cmd/dlv@latest";

/// One adapter that is ready after `setup`.
#[derive(Debug, Serialize)]
struct SetupResult {
    name: &'static str,
    /// `already_installed` or `installed`.
    status: &'static str,
    /// The adapter's executable (for debugpy, the Python that runs it).
    path: String,
    version: Option<String>,
}

impl SetupResult {
    fn line(&self) -> String {
        let version = self
            .version
            .as_deref()
            .map(|v| format!(" (version {v})"))
            .unwrap_or_default();
        match self.status {
            "installed" => format!("Installed {}: {}{version}", self.name, self.path),
            _ => format!("{} is already installed: {}{version}", self.name, self.path),
        }
    }
}

/// Runs `setup ADAPTER` or `setup --all`.
pub fn run(adapter: Option<&str>, all: bool) -> Result<Outcome, ErrorBody> {
    let config = Config::load().unwrap_or_default();
    let names: Vec<&'static str> = if all {
        INSTALLABLE.to_vec()
    } else {
        let wanted = adapter.unwrap_or_default();
        let kind = adapters::kind(wanted).ok_or_else(|| unknown_adapter(wanted))?;
        vec![kind.name]
    };
    let mut done = Vec::new();
    let mut failed: Vec<(&str, ErrorBody)> = Vec::new();
    for name in names {
        match setup_one(name, &config) {
            Ok(result) => done.push(result),
            Err(err) => failed.push((name, err)),
        }
    }
    if failed.len() == 1 && done.is_empty() {
        if let Some((_, err)) = failed.pop() {
            return Err(err);
        }
    }
    if !failed.is_empty() {
        let ready: Vec<&str> = done.iter().map(|r| r.name).collect();
        let mut message = failed
            .iter()
            .map(|(name, err)| format!("{name}: {}", err.message))
            .collect::<Vec<_>>()
            .join("; ");
        if !ready.is_empty() {
            message.push_str(&format!(" ({} ready)", ready.join(", ")));
        }
        let hint = failed
            .iter()
            .map(|(name, err)| format!("{name}: {}", err.hint))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("setup failed for {message}"),
            hint,
        ));
    }
    let text: String = done.iter().map(|r| r.line() + "\n").collect();
    Ok(Outcome::new(json!({ "adapters": data(&done) }), text))
}

fn unknown_adapter(name: &str) -> ErrorBody {
    let list: Vec<String> = adapters::ADAPTERS
        .iter()
        .map(|k| format!("{} ({})", k.name, k.languages.join(", ")))
        .collect();
    ErrorBody::usage(
        format!("unknown adapter '{name}'"),
        format!(
            "the adapters are: {}; 'debugger setup --all' installs {}",
            list.join(", "),
            INSTALLABLE.join(", ")
        ),
    )
}

fn setup_one(name: &'static str, config: &Config) -> Result<SetupResult, ErrorBody> {
    match name {
        "lldb" => setup_lldb(config),
        "debugpy" => setup_debugpy(config),
        "delve" => setup_delve(config),
        "node" => setup_node(config),
        "gdb" => match gdb::Gdb::locate(&config.adapter("gdb")) {
            Ok(_) => {
                let path = gdb::find(&config.adapter("gdb")).unwrap_or_default();
                let version = gdb::version(&path).and_then(|(line, _)| last_word(&line));
                Ok(already(name, &path, version))
            }
            Err(err) => Err(ErrorBody::new(err.code, err.message, GDB_ADVICE)),
        },
        // CodeLLDB comes from the config: make() says what to do.
        _ => match adapters::kind(name).map(|k| (k.make)(config)) {
            Some(Ok(adapter)) => Ok(already(name, adapter.executable(), None)),
            Some(Err(err)) => Err(err),
            None => Err(unknown_adapter(name)),
        },
    }
}

fn already(name: &'static str, path: &Path, version: Option<String>) -> SetupResult {
    SetupResult {
        name,
        status: "already_installed",
        path: path.display().to_string(),
        version,
    }
}

fn installed(name: &'static str, path: &Path, version: Option<String>) -> SetupResult {
    SetupResult {
        name,
        status: "installed",
        ..already(name, path, version)
    }
}

fn last_word(line: &str) -> Option<String> {
    line.split_whitespace().last().map(str::to_string)
}

/// A configured path wins over anything `setup` installs, so a broken one must be fixed first.
fn configured_path_error(name: &str, err: ErrorBody) -> ErrorBody {
    ErrorBody::new(
        err.code,
        err.message,
        format!(
            "the config's adapters.{name}.path is used instead of anything setup installs: \
fix it or remove it, then run 'debugger setup {name}' again"
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// lldb

/// Makes sure lldb-dap is there for `debugger demo`: the one already found (or configured), else
/// installed as `debugger setup lldb` would.
pub fn ensure_lldb() -> Result<PathBuf, ErrorBody> {
    let config = Config::load().unwrap_or_default();
    if let Ok(adapter) = lldb::LldbDap::locate(&config.adapter("lldb")) {
        return Ok(adapter.executable().to_path_buf());
    }
    eprintln!("lldb-dap is missing: installing it as 'debugger setup lldb' does");
    setup_lldb(&config).map(|result| PathBuf::from(result.path))
}

fn setup_lldb(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter("lldb");
    match lldb::LldbDap::locate(&adapter_config) {
        Ok(adapter) => {
            let path = adapter.executable().to_path_buf();
            let version = lldb::version(&path);
            return Ok(already("lldb", &path, version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("lldb", err));
        }
        Err(_) => {}
    }
    let Some(manager) = PackageManager::detect() else {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "lldb-dap is not installed, and no package manager this knows (apt-get, dnf, brew) is here",
            lldb::INSTALL_HINT,
        ));
    };
    let packages: &[&str] = match manager {
        PackageManager::Apt => &["lldb-19", "lldb"],
        PackageManager::Dnf => &["lldb"],
        PackageManager::Brew => &["llvm"],
    };
    let package = manager.install("lldb-dap", packages)?;
    if let Some(path) = lldb::find_on_system() {
        let version = lldb::version(&path);
        return Ok(installed("lldb", &path, version));
    }
    // Homebrew's LLVM is keg-only: its lldb-dap is not put on PATH.
    if let Some(path) = manager.keg_binary("llvm", "lldb-dap") {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "installed {package}, but its lldb-dap ({}) is not on PATH",
                path.display()
            ),
            format!(
                "set it in the config: [adapters.lldb] path = \"{}\"",
                path.display()
            ),
        ));
    }
    Err(ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!("installed {package}, but lldb-dap is still not found on PATH"),
        "find where the package put lldb-dap (or lldb-vscode) and set adapters.lldb.path to it in the config",
    ))
}

// ---------------------------------------------------------------------------------------------
// node

/// Node.js from the package manager: the node adapter runs inside the daemon and needs only the
/// `node` executable.
fn setup_node(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter("node");
    match node::Node::locate(&adapter_config) {
        Ok(adapter) => {
            let version = node::version(adapter.executable());
            return Ok(already("node", adapter.executable(), version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("node", err));
        }
        Err(_) => {}
    }
    let Some(manager) = PackageManager::detect() else {
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "Node.js is not installed, and no package manager this knows (apt-get, dnf, brew) is here",
            node::INSTALL_HINT,
        ));
    };
    let packages: &[&str] = match manager {
        PackageManager::Apt | PackageManager::Dnf => &["nodejs"],
        PackageManager::Brew => &["node"],
    };
    let package = manager.install("Node.js", packages)?;
    match node::find(&adapter_config) {
        Some(path) => {
            let version = node::version(&path);
            Ok(installed("node", &path, version))
        }
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("installed {package}, but node is still not found on PATH"),
            "find where the package put node and set adapters.node.path to it in the config",
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// delve

fn setup_delve(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter("delve");
    match delve::Delve::locate(&adapter_config) {
        Ok(_) => {
            let path = delve::find(&adapter_config).unwrap_or_default();
            let version = delve::version(&path);
            return Ok(already("delve", &path, version));
        }
        Err(err) if adapter_config.path.is_some() => {
            return Err(configured_path_error("delve", err));
        }
        Err(_) => {}
    }
    let go = which::which("go").ok();
    let manager = PackageManager::detect();
    // The package manager when it can run (brew needs no root); else `go install`, which needs no
    // rights; else the command for the user.
    let package_error = match manager {
        Some(manager) if go.is_none() || manager.may_run() => {
            match manager.install("Delve", &["delve"]) {
                Ok(_) => match delve::find(&adapter_config) {
                    Some(path) => {
                        let version = delve::version(&path);
                        return Ok(installed("delve", &path, version));
                    }
                    None => {
                        return Err(ErrorBody::new(
                            ErrorCode::AdapterNotFound,
                            "installed delve, but dlv is still not found on PATH",
                            "find where the package put dlv and set adapters.delve.path to it in the config",
                        ));
                    }
                },
                Err(err) => Some(err),
            }
        }
        _ => None,
    };
    let Some(go) = go else {
        return Err(package_error.unwrap_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "Delve is not installed, and neither a package manager this knows (apt-get, dnf, brew) nor Go is here",
                delve::INSTALL_HINT,
            )
        }));
    };
    let command = vec![
        go.display().to_string(),
        "install".to_string(),
        DELVE_MODULE.to_string(),
    ];
    if !run_logged(&command, &[]) {
        let otherwise = match manager {
            Some(manager) => format!("or run: {}", manager.user_command("delve", false)),
            None => delve::INSTALL_HINT
                .trim_end_matches("; or run 'debugger setup delve'")
                .to_string(),
        };
        return Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("'go install {DELVE_MODULE}' failed (its output is above)"),
            format!(
                "check the network and the Go version, then run 'debugger setup delve' again; {otherwise}"
            ),
        ));
    }
    if let Some(path) = delve::find(&adapter_config) {
        let version = delve::version(&path);
        return Ok(installed("delve", &path, version));
    }
    match go_installed_binary(&go, "dlv") {
        Some(path) => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "installed Delve at {}, which is not on PATH",
                path.display()
            ),
            format!(
                "add {} to PATH, or set it in the config: [adapters.delve] path = \"{}\"",
                path.parent().unwrap_or(Path::new("/")).display(),
                path.display()
            ),
        )),
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "'go install' finished, but dlv is not found",
            delve::INSTALL_HINT,
        )),
    }
}

/// Where `go install` put `binary`: `$(go env GOBIN)`, else `$(go env GOPATH)/bin`.
fn go_installed_binary(go: &Path, binary: &str) -> Option<PathBuf> {
    let env = |key: &str| {
        Command::new(go)
            .args(["env", key])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let dir = env("GOBIN").map(PathBuf::from).or_else(|| {
        // GOPATH may list several directories; `go install` uses the first.
        let gopath = env("GOPATH")?;
        let first = std::env::split_paths(&gopath).next()?;
        Some(first.join("bin"))
    })?;
    let path = dir.join(binary);
    path.is_file().then_some(path)
}

// ---------------------------------------------------------------------------------------------
// debugpy

fn setup_debugpy(config: &Config) -> Result<SetupResult, ErrorBody> {
    let adapter_config = config.adapter("debugpy");
    match debugpy::Debugpy::locate(&adapter_config) {
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
    let python = venv.join("bin").join("python");
    let base = which::which("python3")
        .or_else(|_| which::which("python"))
        .ok();
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
    let base = base.ok_or_else(|| {
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "debugpy needs Python 3, and neither python3 nor python is on PATH",
            "install Python 3 ('apt-get install python3 python3-venv' on Debian/Ubuntu, \
'dnf install python3', 'brew install python'), then run 'debugger setup debugpy' again",
        )
    })?;
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
    let made =
        |command: &[String]| run_logged(command, &[]) && venv.join("bin").join("python").is_file();
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

// ---------------------------------------------------------------------------------------------
// Package managers and rights

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PackageManager {
    Apt,
    Dnf,
    Brew,
}

/// How a system package manager may be run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rights {
    Root,
    PasswordlessSudo,
    None,
}

impl Rights {
    fn detect() -> Rights {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            return Rights::Root;
        }
        let sudo_works = which::which("sudo").is_ok()
            && Command::new("sudo")
                .args(["-n", "true"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        if sudo_works {
            Rights::PasswordlessSudo
        } else {
            Rights::None
        }
    }
}

impl PackageManager {
    fn detect() -> Option<PackageManager> {
        let has = |tool: &str| which::which(tool).is_ok();
        if cfg!(target_os = "macos") {
            return has("brew").then_some(PackageManager::Brew);
        }
        if has("apt-get") {
            Some(PackageManager::Apt)
        } else if has("dnf") {
            Some(PackageManager::Dnf)
        } else if has("brew") {
            Some(PackageManager::Brew)
        } else {
            None
        }
    }

    fn tool(self) -> &'static str {
        match self {
            PackageManager::Apt => "apt-get",
            PackageManager::Dnf => "dnf",
            PackageManager::Brew => "brew",
        }
    }

    /// Homebrew runs as the user; apt and dnf need root.
    fn needs_root(self) -> bool {
        self != PackageManager::Brew
    }

    fn may_run(self) -> bool {
        !self.needs_root() || Rights::detect() != Rights::None
    }

    fn install_args(self, package: &str) -> Vec<String> {
        let args: &[&str] = match self {
            PackageManager::Apt => &["install", "-y"],
            PackageManager::Dnf => &["install", "-y"],
            PackageManager::Brew => &["install"],
        };
        let mut command = vec![self.tool().to_string()];
        command.extend(args.iter().map(|a| a.to_string()));
        command.push(package.to_string());
        command
    }

    /// Whether the package manager knows `package` (apt only; the others are asked by installing).
    fn knows(self, package: &str) -> bool {
        match self {
            PackageManager::Apt => Command::new("apt-cache")
                .args(["show", package])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success()),
            _ => true,
        }
    }

    /// Installs the first of `packages` that installs, and returns its name. `what` names the
    /// software in messages.
    fn install(self, what: &str, packages: &[&str]) -> Result<String, ErrorBody> {
        let known: Vec<&str> = packages.iter().copied().filter(|p| self.knows(p)).collect();
        // No package known: apt's lists are missing or stale, and need an update first.
        let needs_update = self == PackageManager::Apt && known.is_empty();
        let first = known
            .first()
            .or(packages.first())
            .copied()
            .unwrap_or_default();
        let rights = if self.needs_root() {
            Rights::detect()
        } else {
            Rights::None
        };
        if self.needs_root() && rights == Rights::None {
            return Err(needs_rights(what, &self.user_command(first, needs_update)));
        }
        let run = |command: Vec<String>| {
            let (command, env) = with_rights(command, rights);
            run_logged(&command, &env)
        };
        let update = || run(vec!["apt-get".into(), "update".into(), "-q".into()]);
        let mut updated = false;
        if needs_update {
            update();
            updated = true;
        }
        let mut candidates: Vec<&str> = if updated {
            packages.iter().copied().filter(|p| self.knows(p)).collect()
        } else {
            known.clone()
        };
        if candidates.is_empty() {
            candidates = packages.to_vec();
        }
        for package in &candidates {
            if run(self.install_args(package)) {
                return Ok(package.to_string());
            }
        }
        // The lists may be stale (a package that moved): update once and try again.
        if self == PackageManager::Apt && !updated && update() {
            for package in packages.iter().filter(|p| self.knows(p)) {
                if run(self.install_args(package)) {
                    return Ok(package.to_string());
                }
            }
        }
        Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "installing {what} with {} failed (its output is above)",
                self.tool()
            ),
            format!(
                "run it yourself and read what it says: {}",
                self.user_command(first, self == PackageManager::Apt)
            ),
        ))
    }

    /// The command a user without the rights should run.
    fn user_command(self, package: &str, with_update: bool) -> String {
        let install = self.install_args(package).join(" ");
        if !self.needs_root() {
            return install;
        }
        let (sudo, suffix) = if which::which("sudo").is_ok() {
            ("sudo ", "")
        } else {
            ("", " (as root)")
        };
        if with_update && self == PackageManager::Apt {
            format!("{sudo}apt-get update && {sudo}{install}{suffix}")
        } else {
            format!("{sudo}{install}{suffix}")
        }
    }

    /// An executable inside a keg-only Homebrew formula (`$(brew --prefix llvm)/bin/lldb-dap`).
    fn keg_binary(self, formula: &str, binary: &str) -> Option<PathBuf> {
        if self != PackageManager::Brew {
            return None;
        }
        let output = Command::new("brew")
            .args(["--prefix", formula])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let prefix = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let path = PathBuf::from(prefix).join("bin").join(binary);
        (output.status.success() && path.is_file()).then_some(path)
    }
}

fn needs_rights(what: &str, command: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!(
            "{what} is not installed, and installing it needs root (this user is not root and has no passwordless sudo)"
        ),
        format!("run: {command}"),
    )
}

/// The command as root runs it, or through `sudo -n` (through `env`, as sudo drops the caller's
/// environment), and the environment to add.
fn with_rights(command: Vec<String>, rights: Rights) -> (Vec<String>, Vec<(String, String)>) {
    let apt_env = ("DEBIAN_FRONTEND".to_string(), "noninteractive".to_string());
    let is_apt = command.first().is_some_and(|c| c == "apt-get");
    match rights {
        Rights::PasswordlessSudo => {
            let mut full = vec!["sudo".to_string(), "-n".to_string()];
            if is_apt {
                full.push("env".into());
                full.push(format!("{}={}", apt_env.0, apt_env.1));
            }
            full.extend(command);
            (full, Vec::new())
        }
        _ => {
            let env = if is_apt { vec![apt_env] } else { Vec::new() };
            (command, env)
        }
    }
}

/// Runs an installer step with its stdout sent to our stderr (stdout is for the result), saying
/// first what runs. True when it succeeded.
fn run_logged(command: &[String], env: &[(String, String)]) -> bool {
    let Some((program, args)) = command.split_first() else {
        return false;
    };
    eprintln!("running: {}", command.join(" "));
    let stdout = {
        use std::os::fd::AsFd;
        std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null())
    };
    match Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .status()
    {
        Ok(status) => status.success(),
        Err(e) => {
            eprintln!("cannot run {program}: {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sudo_keeps_apt_noninteractive() {
        let (command, env) = with_rights(
            vec!["apt-get".into(), "install".into(), "x".into()],
            Rights::PasswordlessSudo,
        );
        assert_eq!(
            command.join(" "),
            "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install x"
        );
        assert!(env.is_empty());
        let (command, env) = with_rights(vec!["apt-get".into()], Rights::Root);
        assert_eq!(command, vec!["apt-get".to_string()]);
        assert_eq!(env.len(), 1);
    }

    #[test]
    fn brew_needs_no_root() {
        assert_eq!(
            PackageManager::Brew.user_command("llvm", true),
            "brew install llvm"
        );
        assert!(
            PackageManager::Dnf
                .user_command("lldb", false)
                .contains("dnf install -y lldb")
        );
    }

    #[test]
    fn unknown_adapters_list_the_known_ones() {
        let err = unknown_adapter("nosuch");
        assert_eq!(err.code, ErrorCode::Usage);
        assert!(err.hint.contains("debugpy (Python)"), "{err:?}");
        assert!(err.hint.contains("--all"), "{err:?}");
    }
}
