//! `debugger doctor`: which adapters work here (path, version, languages, and the fix for each
//! one that does not), whether this user may attach to processes, whether the runtime dir is
//! private, whether a crash writes a core (`cores.rs`). It succeeds when one adapter works.
mod cores;
mod ptrace;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::data;
use super::setup;
use super::{Call, Outcome};
use crate::adapters::custom::CustomAdapter;
use crate::adapters::{self, AdapterRow};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;

/// One adapter's state.
#[derive(Debug, Serialize)]
struct AdapterReport {
    name: String,
    /// True when the adapter can be used: `debugger start --adapter NAME` would find it.
    found: bool,
    /// The executable (for debugpy, the Python that runs it); also set when something was found
    /// that does not work (a GDB without DAP).
    path: Option<String>,
    version: Option<String>,
    languages: Vec<String>,
    /// What to do when it does not work.
    fix: Option<String>,
    /// Why it does not work.
    problem: Option<String>,
    /// `built-in`, or `config` for an adapter defined in the config file.
    source: &'static str,
    /// What the adapter needs beside itself (Delve: the Go here), when the adapter was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    toolchain: Option<adapters::ToolchainCheck>,
}

#[derive(Debug, Serialize)]
struct RuntimeDirReport {
    path: String,
    exists: bool,
    /// Owned by this user and closed to group and others, or not there yet (it is created 0700).
    private: bool,
    /// The permission bits in octal ("700"), when it exists.
    mode: Option<String>,
    owner_uid: Option<u32>,
    detail: String,
    fix: Option<String>,
}

/// Whether Rust programs get the value formatters of a Rust toolchain (see
/// `adapters::rust_formatters`): without them their values read as the layouts inside.
#[derive(Debug, Serialize)]
struct RustReport {
    /// The formatters were found (or are turned off in the config, `enabled` false).
    found: bool,
    enabled: bool,
    /// The toolchain whose formatters are loaded.
    sysroot: Option<String>,
    detail: String,
    fix: Option<String>,
}

#[derive(Debug, Serialize)]
struct ConfigReport {
    path: Option<String>,
    exists: bool,
    /// False when the file cannot be read or parsed (doctor then checks with the defaults).
    ok: bool,
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct Report {
    adapters: Vec<AdapterReport>,
    ptrace: ptrace::PtraceReport,
    runtime_dir: RuntimeDirReport,
    rust: RustReport,
    /// The JDK the JVM's tools would use, and whether it has what debugging needs.
    java: adapters::java::jdk::JdkReport,
    config: ConfigReport,
    cores: cores::CoreReport,
}

pub fn run(call: &mut Call<'_>) -> Result<Outcome, ErrorBody> {
    let (config, config_report) = load_config();
    // Each check runs a process or two (`--version`, a Python import); run them side by side.
    let (mut adapters, rust, java) = std::thread::scope(|scope| {
        let rust = scope.spawn(|| check_rust(&config.rust));
        let java = scope.spawn(adapters::java::jdk::check);
        let checks: Vec<_> = adapters::ADAPTERS
            .iter()
            .map(|kind| (kind, scope.spawn(|| check_builtin(kind, &config))))
            .collect();
        let adapters: Vec<AdapterReport> = checks
            .into_iter()
            .map(|(kind, check)| {
                check
                    .join()
                    .unwrap_or_else(|_| panicked_check(kind.name(), kind.languages))
            })
            .collect();
        let rust = rust.join().unwrap_or_else(|_| RustReport {
            found: false,
            enabled: true,
            sysroot: None,
            detail: "the check failed".into(),
            fix: None,
        });
        let java = java
            .join()
            .unwrap_or_else(|_| adapters::java::jdk::JdkReport::failed_check());
        (adapters, rust, java)
    });
    adapters.extend(
        config
            .adapters
            .iter()
            .filter(|(name, _)| adapters::kind(name).is_none())
            .map(|(name, adapter_config)| check_custom(name, adapter_config)),
    );
    let report = Report {
        adapters,
        ptrace: ptrace::check(),
        runtime_dir: check_runtime_dir(&paths::runtime_dir_path()),
        rust,
        java,
        config: config_report,
        cores: cores::check(),
    };
    let text = render_text(&report);
    if report.adapters.iter().any(|a| a.found) {
        return Ok(Outcome::new(data(&report), text));
    }
    if !call.data_only {
        // The error alone would hide the per-adapter fixes; show the whole report first.
        call.sink.text(&text);
    }
    let fixes: Vec<String> = setup::installable()
        .map(|kind| {
            format!(
                "'debugger setup {}' ({})",
                kind.name(),
                kind.languages.join(", ")
            )
        })
        .collect();
    Err(ErrorBody::new(
        ErrorCode::AdapterNotFound,
        "no debug adapter works on this machine",
        format!(
            "install one: {}, or all of them with 'debugger setup --all'",
            fixes.join(", ")
        ),
    ))
}

fn load_config() -> (Config, ConfigReport) {
    let path = paths::config_path();
    let exists = path.as_deref().is_some_and(Path::exists);
    let path_text = path.map(|p| p.display().to_string());
    match Config::load() {
        Ok(config) => (
            config,
            ConfigReport {
                path: path_text,
                exists,
                ok: true,
                error: None,
            },
        ),
        Err(err) => (
            Config::default(),
            ConfigReport {
                path: path_text,
                exists,
                ok: false,
                error: Some(err.message),
            },
        ),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn check_builtin(kind: &AdapterRow, config: &Config) -> AdapterReport {
    let mut report = AdapterReport {
        name: kind.name().to_string(),
        found: false,
        path: None,
        version: None,
        languages: strings(kind.languages),
        fix: None,
        problem: None,
        source: "built-in",
        toolchain: None,
    };
    match kind
        .locate(config, crate::adapters::CallerEnv::this_process())
        .and_then(|adapter| adapter.check_usable().map(|()| adapter))
    {
        Ok(adapter) => {
            let path = adapter.executable();
            report.found = true;
            report.path = Some(path.display().to_string());
            report.version = (kind.version)(path);
            report.toolchain = kind.toolchain.map(|check| check(path));
        }
        Err(err) => {
            // Something may be there that does not work: a GDB without DAP.
            if let Some(path) = kind.unusable_at(config) {
                report.version = (kind.version)(&path);
                report.path = Some(path.display().to_string());
            }
            report.fix = Some(kind.fix(&err, config));
            report.problem = Some(err.message);
        }
    }
    report
}

/// The report for a check that panicked (a bug): the adapter is reported missing, not lost.
fn panicked_check(name: &str, languages: &[&str]) -> AdapterReport {
    AdapterReport {
        name: name.to_string(),
        found: false,
        path: None,
        version: None,
        languages: strings(languages),
        fix: Some(
            "this is a bug in debugger; 'debugger start --adapter NAME' shows the error".into(),
        ),
        problem: Some("the check failed".into()),
        source: "built-in",
        toolchain: None,
    }
}

fn check_custom(name: &str, config: &crate::common::config::AdapterConfig) -> AdapterReport {
    let mut report = AdapterReport {
        name: name.to_string(),
        found: false,
        path: None,
        version: None,
        languages: Vec::new(),
        fix: None,
        problem: None,
        source: "config",
        toolchain: None,
    };
    match CustomAdapter::from_config(name, config) {
        Ok(adapter) => {
            use crate::adapters::DebugAdapter;
            report.found = true;
            report.path = Some(adapter.executable().display().to_string());
        }
        Err(err) => {
            report.fix = Some(err.hint);
            report.problem = Some(err.message);
        }
    }
    report
}

fn check_rust(config: &crate::common::config::RustConfig) -> RustReport {
    if !config.formatters {
        return RustReport {
            found: false,
            enabled: false,
            sysroot: None,
            detail: "Rust formatters turned off (rust.formatters = false in the config)".into(),
            fix: None,
        };
    }
    match adapters::rust_formatters::locate(config) {
        Ok(found) => RustReport {
            found: true,
            enabled: true,
            sysroot: Some(found.sysroot.display().to_string()),
            detail: format!(
                "Rust formatters found in {} (loaded for Rust programs)",
                found.sysroot.display()
            ),
            fix: None,
        },
        Err(adapters::rust_formatters::NotFound(why)) => RustReport {
            found: false,
            enabled: true,
            sysroot: None,
            detail: format!("no Rust formatters: {why}"),
            fix: Some(
                "install Rust (https://rustup.rs), or set rust.sysroot in the config to a toolchain; \
                 meanwhile Rust values show their raw layout"
                    .into(),
            ),
        },
    }
}

fn check_runtime_dir(dir: &Path) -> RuntimeDirReport {
    let mut report = RuntimeDirReport {
        path: dir.display().to_string(),
        exists: false,
        private: false,
        mode: None,
        owner_uid: None,
        detail: String::new(),
        fix: None,
    };
    let meta = match std::fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            report.private = true;
            report.detail = not_created_yet(crate::platform::Os::CURRENT).into();
            return report;
        }
        Err(e) => {
            report.detail = format!("cannot read it: {e}");
            report.fix = Some(format!(
                "set {} to a directory you own",
                paths::RUNTIME_DIR_ENV
            ));
            return report;
        }
    };
    report.exists = true;
    (report.mode, report.owner_uid) = crate::platform::mode_and_owner(&meta);
    if !meta.is_dir() {
        report.detail = "it is not a directory".into();
        report.fix = Some(format!(
            "remove it, or set {} to a private directory",
            paths::RUNTIME_DIR_ENV
        ));
        return report;
    }
    match paths::check_private(dir) {
        Ok(()) => {
            report.private = true;
            // Windows has no mode: its check is of the owner and the access list.
            report.detail = match report.mode.as_deref() {
                Some(mode) => format!("private (mode {mode}, owned by you)"),
                None => "private (owned by you; its access list admits no one else)".to_string(),
            };
        }
        Err(err) => {
            report.detail = format!("not private: {}", err.message);
            report.fix = Some(err.hint);
        }
    }
    report
}

/// What doctor says of a runtime dir that is not there yet: how it will be made private.
fn not_created_yet(os: crate::platform::Os) -> &'static str {
    match os {
        crate::platform::Os::Windows => {
            "not created yet; it is created private (owned by you, with an access list of you alone) on first use"
        }
        _ => "not created yet; it is created private (mode 700) on first use",
    }
}

const OK: &str = "ok";
const MISSING: &str = "missing";
const PROBLEM: &str = "problem";

fn render_text(report: &Report) -> String {
    let mut out = String::new();
    let working: Vec<&str> = report
        .adapters
        .iter()
        .filter(|a| a.found)
        .map(|a| a.name.as_str())
        .collect();
    let _ = writeln!(
        out,
        "{} of {} adapters work{}",
        working.len(),
        report.adapters.len(),
        if working.is_empty() {
            String::new()
        } else {
            format!(": {}", working.join(", "))
        }
    );
    let width = report
        .adapters
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(0)
        .max("runtime".len());
    for adapter in &report.adapters {
        let what = match (adapter.found, &adapter.path, &adapter.problem) {
            (true, Some(path), _) => match &adapter.version {
                Some(version) => format!("{version} at {path}"),
                None => path.clone(),
            },
            (false, _, Some(problem)) => problem.clone(),
            _ => String::new(),
        };
        let languages = if adapter.source == "config" {
            "what the config says".to_string()
        } else {
            adapter.languages.join(", ")
        };
        let marker = if adapter.found { OK } else { MISSING };
        let _ = writeln!(
            out,
            "{marker:<8} {:<width$}  {what}  (for {languages})",
            adapter.name
        );
        if let Some(fix) = &adapter.fix {
            let _ = writeln!(out, "{:<8} {:<width$}  fix: {fix}", "", "");
        }
        if let Some(toolchain) = &adapter.toolchain {
            let marker = if toolchain.ok { OK } else { PROBLEM };
            let _ = writeln!(
                out,
                "{marker:<8} {:<width$}  {}",
                toolchain.name, toolchain.detail
            );
            if let Some(fix) = &toolchain.fix {
                let _ = writeln!(out, "{:<8} {:<width$}  fix: {fix}", "", "");
            }
        }
    }
    let check = |out: &mut String, ok: bool, name: &str, detail: &str, fix: &Option<String>| {
        let marker = if ok { OK } else { PROBLEM };
        let _ = writeln!(out, "{marker:<8} {name:<width$}  {detail}");
        if let Some(fix) = fix {
            let _ = writeln!(out, "{:<8} {:<width$}  fix: {fix}", "", "");
        }
    };
    check(
        &mut out,
        report.ptrace.may_attach != Some(false),
        "attach",
        &report.ptrace.detail,
        &report.ptrace.fix,
    );
    let runtime_detail = format!("{}: {}", report.runtime_dir.path, report.runtime_dir.detail);
    check(
        &mut out,
        report.runtime_dir.private,
        "runtime",
        &runtime_detail,
        &report.runtime_dir.fix,
    );
    check(
        &mut out,
        report.rust.found || !report.rust.enabled,
        "rust",
        &report.rust.detail,
        &report.rust.fix,
    );
    // No JDK at all is no fault (a JDK is for Java programs alone); a broken one is.
    let java_marker = match (&report.java, report.java.found) {
        (_, true) => OK,
        (java, false) if java.home.is_none() && java.java_home.is_none() => MISSING,
        _ => PROBLEM,
    };
    let _ = writeln!(
        out,
        "{java_marker:<8} {:<width$}  {}",
        "jdk", report.java.detail
    );
    if let Some(fix) = &report.java.fix {
        let _ = writeln!(out, "{:<8} {:<width$}  fix: {fix}", "", "");
    }
    out.push_str(&cores::text(&report.cores, width));
    if !report.config.ok {
        check(
            &mut out,
            false,
            "config",
            report.config.error.as_deref().unwrap_or("unreadable"),
            &Some(
                "fix the file (config.example.toml lists every key); doctor used the defaults"
                    .into(),
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_runtime_dir_to_come_is_told_how_it_will_be_private() {
        use crate::platform::Os;
        assert!(super::not_created_yet(Os::Linux).contains("mode 700"));
        assert!(super::not_created_yet(Os::MacOs).contains("mode 700"));
        assert!(super::not_created_yet(Os::Windows).contains("access list of you alone"));
    }

    /// Unix modes; Windows reports none.
    #[cfg(unix)]
    #[test]
    fn open_runtime_dirs_are_not_private() {
        use super::*;
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("rt");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let report = check_runtime_dir(&dir);
        assert!(report.exists && !report.private, "{report:?}");
        assert_eq!(report.mode.as_deref(), Some("755"));
        assert!(report.fix.is_some());
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        assert!(check_runtime_dir(&dir).private);
        let missing = check_runtime_dir(&tmp.path().join("nope"));
        assert!(!missing.exists && missing.private, "{missing:?}");
    }

    /// Windows reports no mode: the owner and the access list are what is checked.
    #[cfg(windows)]
    #[test]
    fn a_private_runtime_dir_is_told_by_its_access_list() {
        use super::*;
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("rt");
        crate::platform::create_private_dir(&dir).expect("mkdir");
        let report = check_runtime_dir(&dir);
        assert!(report.private, "{report:?}");
        assert_eq!(
            report.detail,
            "private (owned by you; its access list admits no one else)"
        );
    }
}
