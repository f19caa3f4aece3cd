//! The adapter table: every built-in adapter with its names, what it debugs, how to make it, and
//! what `doctor` and `setup` need to know of it (its version probe, its install recipe, the advice
//! for a missing one). The commands iterate this table; none of them names an adapter.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::install::{self, Recipe};
use super::{CallerEnv, DebugAdapter, codelldb, debugpy, delve, gdb, lldb, node, pdb};
use crate::common::config::Config;
use crate::common::error::ErrorBody;
use crate::platform::Os;

/// How a built-in adapter is made from the config, in the caller's environment.
pub type MakeAdapter = fn(&Config, CallerEnv<'_>) -> Result<Arc<dyn DebugAdapter>, ErrorBody>;

/// One built-in adapter: its names, what it debugs, and how to make it from the config.
pub struct AdapterKind {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub languages: &'static [&'static str],
    /// Locates the adapter in the caller's environment (a missing one is an
    /// `adapter_not_found` error with the fix).
    pub make: MakeAdapter,
    /// The adapter for `--connect`, which needs nothing installed here (`None`: not possible).
    pub remote: Option<fn() -> Arc<dyn DebugAdapter>>,
    /// The version of the adapter at this path (for debugpy, the Python that runs it), with one
    /// short process at most, as `doctor` and `setup` show it.
    pub version: fn(&Path) -> Option<String>,
    /// How `debugger setup NAME` installs the adapter. `None`: setup cannot (a distribution ships
    /// the GDB it ships; CodeLLDB comes from an editor), so it reports the one found or the
    /// advice. `setup --all` runs every recipe, in table order.
    pub install: Option<Recipe>,
    /// What `doctor` tells a user whose adapter is missing, and `setup` one it cannot install.
    pub advice: Advice,
    /// Where an executable may be that is there and yet does not work (a GDB without DAP), so
    /// `doctor` can show its path and version beside the problem.
    pub unusable: Option<fn(&Config) -> Option<PathBuf>>,
    /// What the adapter needs beside itself, for `doctor` to check once the adapter is found
    /// (Delve: the Go that builds the programs, and whether this Delve reads them).
    pub toolchain: Option<fn(&Path) -> ToolchainCheck>,
}

/// What `doctor` says of an adapter's toolchain: which one, where, and what is wrong with it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolchainCheck {
    /// The toolchain's name (`go`).
    pub name: &'static str,
    pub path: Option<PathBuf>,
    pub version: Option<String>,
    /// False when something stands in the way of some programs (no Go, a Delve too old for it).
    pub ok: bool,
    pub detail: String,
    pub fix: Option<String>,
}

/// What to do about a missing adapter (see [`AdapterKind::fix`]). The texts take the OS, as
/// each has its own package managers.
#[derive(Debug, Clone, Copy)]
pub enum Advice {
    /// This text, whatever the error said.
    Text(fn(Os) -> String),
    /// Run `setup`, or install it as this hint says (the hint's own mention of `setup` is left
    /// out, so it is not said twice).
    SetupOr(fn(Os) -> String),
    /// The error's hint, led by "run 'debugger setup NAME'" when setup can install the adapter
    /// and the hint does not say so already.
    FromError,
}

/// The adapter that runs a Python module by name (`start -m MODULE`).
pub const MODULE_RUNNER: &str = "debugpy";

/// Every built-in adapter, in the order `doctor` lists them.
pub const ADAPTERS: &[AdapterKind] = &[
    AdapterKind {
        name: "lldb",
        aliases: &["lldb-dap", "lldb-vscode"],
        languages: &["C", "C++", "Rust"],
        make: |config, _| {
            Ok(Arc::new(
                lldb::LldbDap::locate(&config.adapter("lldb"))?.with_rust(&config.rust),
            ))
        },
        remote: Some(|| Arc::new(lldb::LldbDap::remote())),
        version: lldb::version,
        install: Some(install::lldb::install),
        advice: Advice::SetupOr(lldb::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterKind {
        name: "debugpy",
        aliases: &["python", "py"],
        languages: &["Python"],
        make: |config, caller| {
            Ok(Arc::new(debugpy::Debugpy::for_session(
                &config.adapter("debugpy"),
                caller,
            )?))
        },
        remote: Some(|| Arc::new(debugpy::Debugpy::remote())),
        version: debugpy::debugpy_version,
        install: Some(install::debugpy::install),
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterKind {
        name: "pdb",
        aliases: &["bdb"],
        languages: &["Python"],
        make: |config, caller| Ok(Arc::new(pdb::Pdb::locate(&config.adapter("pdb"), caller)?)),
        remote: None,
        version: pdb::version,
        install: None,
        advice: Advice::Text(pdb::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterKind {
        name: "delve",
        aliases: &["go", "dlv"],
        languages: &["Go"],
        make: |config, _| Ok(Arc::new(delve::Delve::locate(&config.adapter("delve"))?)),
        remote: Some(|| Arc::new(delve::Delve::remote())),
        version: delve::version,
        install: Some(install::delve::install),
        advice: Advice::SetupOr(delve::install_hint),
        unusable: None,
        toolchain: Some(delve::toolchain::check),
    },
    AdapterKind {
        name: "gdb",
        aliases: &[],
        languages: &["C", "C++", "Rust", "Fortran", "Ada"],
        make: |config, _| {
            Ok(Arc::new(
                gdb::Gdb::locate(&config.adapter("gdb"))?.with_rust(&config.rust),
            ))
        },
        remote: Some(|| Arc::new(gdb::Gdb::remote())),
        version: |path| {
            gdb::version(path)
                .and_then(|(line, _)| line.split_whitespace().last().map(str::to_string))
        },
        install: None,
        advice: Advice::Text(gdb::advice),
        unusable: Some(|config| gdb::find(&config.adapter("gdb"))),
        toolchain: None,
    },
    AdapterKind {
        name: "codelldb",
        aliases: &[],
        languages: &["C", "C++", "Rust"],
        make: |config, _| {
            Ok(Arc::new(codelldb::CodeLldb::locate(
                &config.adapter("codelldb"),
            )?))
        },
        remote: Some(|| Arc::new(codelldb::CodeLldb::remote())),
        version: |_| None,
        install: None,
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterKind {
        name: "node",
        aliases: &["js", "js-debug", "javascript"],
        languages: &["JavaScript"],
        make: |config, _| Ok(Arc::new(node::Node::locate(&config.adapter("node"))?)),
        remote: Some(|| Arc::new(node::Node::remote())),
        version: node::version,
        install: Some(install::node::install),
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
];

/// The built-in adapter a name or alias means.
pub fn kind(name: &str) -> Option<&'static AdapterKind> {
    ADAPTERS
        .iter()
        .find(|k| k.name == name || k.aliases.contains(&name))
}

impl AdapterKind {
    /// The one thing to do to make this adapter work, given why it could not be made.
    pub fn fix(&self, err: &ErrorBody, config: &Config) -> String {
        if config.adapter(self.name).path.is_some() {
            // The config's path is used instead of any search; what it says about it is the fix.
            return err.hint.clone();
        }
        let name = self.name;
        match self.advice {
            Advice::Text(text) => text(Os::CURRENT),
            Advice::SetupOr(hint) => format!(
                "run 'debugger setup {name}', or {}",
                hint(Os::CURRENT).trim_end_matches(&format!("; or run 'debugger setup {name}'"))
            ),
            Advice::FromError if err.hint.contains("debugger setup") => err.hint.clone(),
            Advice::FromError if self.install.is_some() => {
                format!("run 'debugger setup {name}', or {}", err.hint)
            }
            Advice::FromError => err.hint.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::error::ErrorCode;

    #[test]
    fn the_lldb_fix_names_setup() {
        let fix_for = |name: &str, err: &ErrorBody, config: &Config| {
            kind(name).expect("built in").fix(err, config)
        };
        let err = ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "x",
            lldb::install_hint(Os::CURRENT),
        );
        let fix = fix_for("lldb", &err, &Config::default());
        assert!(fix.starts_with("run 'debugger setup lldb'"), "{fix}");
        let err = ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "x",
            debugpy::install_hint(Os::CURRENT),
        );
        assert_eq!(
            fix_for("debugpy", &err, &Config::default()),
            debugpy::install_hint(Os::CURRENT)
        );
        let fix = fix_for("delve", &err, &Config::default());
        assert!(
            fix.starts_with("run 'debugger setup delve', or install"),
            "{fix}"
        );
        assert!(
            !fix.ends_with("or run 'debugger setup delve'"),
            "said once: {fix}"
        );
    }
}
