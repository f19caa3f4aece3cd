//! The adapter table: every built-in adapter as a row of data: its names, what it debugs, how
//! `start` and `attach` tell its programs, how to make it, and what `doctor` and `setup` need to
//! know of it (its version probe, its install recipe, the advice for a missing one). Detection,
//! the commands and every list or hint that names adapters walk this table; none of them names
//! an adapter.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::install::{self, Recipe};
use super::process::BoxFuture;
use super::{CallerEnv, DebugAdapter, Profile, codelldb, debugpy, delve, gdb, lldb, node, pdb};
use crate::common::config::{AdapterConfig, Config};
use crate::common::error::ErrorBody;
use crate::platform::Os;

/// How a built-in adapter is made from the config (the whole, and the adapter's own section), in
/// the caller's environment.
pub type MakeAdapter =
    fn(&Config, &AdapterConfig, CallerEnv<'_>) -> Result<Arc<dyn DebugAdapter>, ErrorBody>;

/// One built-in adapter: its names, what it debugs, how its programs are told, and how to make
/// it from the config.
pub struct AdapterRow {
    /// Its name, DAP identity, quirks and what it offers beyond DAP, the same in every session.
    pub profile: &'static Profile,
    /// Other names of the adapter itself (its executables, its former names), which `--adapter`
    /// takes as its name.
    pub aliases: &'static [&'static str],
    /// Names of its language that `--adapter` takes for it (`python`, `go`): words that are not
    /// the adapter's own, so code outside the adapters may well say them.
    pub shorthands: &'static [&'static str],
    pub languages: &'static [&'static str],
    /// How a program given without `--adapter` is told to be this adapter's.
    pub detection: Detection,
    /// The adapter a one-shot question (`probe`) runs a program on, among those its detection
    /// would give to an adapter listed before it: it starts a program faster than that one
    /// (see [`super::for_one_shot`]).
    pub one_shot: bool,
    /// Whether the adapter can launch a module by name (`start -m MODULE`, Python's `-m`).
    pub runs_modules: bool,
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
    /// Where an executable may be that is there and yet does not work (a GDB without DAP), given
    /// the adapter's config section, so `doctor` can show its path and version beside the
    /// problem.
    pub unusable: Option<fn(&AdapterConfig) -> Option<PathBuf>>,
    /// What the adapter needs beside itself, for `doctor` to check once the adapter is found
    /// (Delve: the Go that builds the programs, and whether this Delve reads them).
    pub toolchain: Option<fn(&Path) -> ToolchainCheck>,
}

/// How a program is told to be an adapter's when none is named. [`super::detect`] asks every row
/// in table order at each step (a file extension, the runtime itself, a folder, a `#!` line, a
/// native executable's content, then any native executable), and the first row that claims the
/// program at the earliest step serves it.
#[derive(Clone, Copy)]
pub struct Detection {
    /// Extensions of its programs' files, in lower case (`py`).
    pub extensions: &'static [&'static str],
    /// Whether the program is the language's runtime itself (`node`), run with a command line
    /// of its own.
    pub runtime: Option<fn(&Path) -> bool>,
    /// A folder that is a program of its own (a Go package).
    pub folder: Option<FolderProgram>,
    /// Interpreters that a script's `#!` line names (`python`).
    pub interpreters: &'static [&'static str],
    /// How it claims a native executable.
    pub native: NativeClaim,
    /// The start of the executable's name of a running process to attach to (`python`).
    pub process_names: &'static [&'static str],
    /// Whether the server at an address to attach to (`--connect`) is this adapter's kind (a V8
    /// inspector), asked only of the address itself.
    pub server: Option<fn(&str) -> BoxFuture<'_, bool>>,
}

impl Detection {
    /// Claims nothing: the adapter is used when named.
    pub const NONE: Detection = Detection {
        extensions: &[],
        runtime: None,
        folder: None,
        interpreters: &[],
        native: NativeClaim::No,
        process_names: &[],
        server: None,
    };
}

/// A folder that is one program (see [`Detection::folder`]).
#[derive(Clone, Copy)]
pub struct FolderProgram {
    /// Whether the folder is such a program.
    pub holds_one: fn(&Path) -> bool,
    /// What such a folder is, for the error on a folder that is none ("a Go package (a folder
    /// of .go files)").
    pub what: &'static str,
}

/// How an adapter claims a native executable.
#[derive(Clone, Copy)]
pub enum NativeClaim {
    No,
    /// One whose content is its language's (Go's build info), whichever else reads it.
    ByContent(fn(&Path) -> bool),
    /// Any, where the adapter is installed (given its config section); the first such row serves
    /// one when none is installed, so that its error says what to install.
    Any(fn(&AdapterConfig) -> bool),
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

/// What to do about a missing adapter (see [`AdapterRow::fix`]). The texts take the OS, as
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

/// Every built-in adapter, in the order `doctor` lists them and detection asks them.
pub const ADAPTERS: &[AdapterRow] = &[
    AdapterRow {
        profile: &lldb::PROFILE,
        aliases: &["lldb-dap", "lldb-vscode"],
        shorthands: &[],
        languages: &["C", "C++", "Rust"],
        detection: Detection {
            native: NativeClaim::Any(|section| {
                section.path.is_some() || lldb::find_on_system().is_some()
            }),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |config, section, _| {
            Ok(Arc::new(
                lldb::LldbDap::locate(section)?.with_rust(&config.rust),
            ))
        },
        remote: Some(|| Arc::new(lldb::LldbDap::remote())),
        version: lldb::version,
        install: Some(install::lldb::install),
        advice: Advice::SetupOr(lldb::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &debugpy::PROFILE,
        aliases: &[],
        shorthands: &["python", "py"],
        languages: &["Python"],
        detection: Detection {
            process_names: &["python"],
            ..debugpy::PYTHON_PROGRAMS
        },
        one_shot: false,
        runs_modules: true,
        make: |_, section, caller| Ok(Arc::new(debugpy::Debugpy::for_session(section, caller)?)),
        remote: Some(|| Arc::new(debugpy::Debugpy::remote())),
        version: debugpy::debugpy_version,
        install: Some(install::debugpy::install),
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &pdb::PROFILE,
        aliases: &["bdb"],
        shorthands: &[],
        languages: &["Python"],
        // The same programs as debugpy's, which is listed first: pdb serves them only as a
        // one-shot question's, or when named.
        detection: debugpy::PYTHON_PROGRAMS,
        one_shot: true,
        runs_modules: true,
        make: |_, section, caller| Ok(Arc::new(pdb::Pdb::locate(section, caller)?)),
        remote: None,
        version: pdb::version,
        install: None,
        advice: Advice::Text(pdb::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &delve::PROFILE,
        aliases: &["dlv"],
        shorthands: &["go"],
        languages: &["Go"],
        detection: Detection {
            extensions: &["go"],
            folder: Some(FolderProgram {
                holds_one: delve::go_programs::is_package_dir,
                what: "a Go package (a folder of .go files)",
            }),
            native: NativeClaim::ByContent(delve::go_programs::carries_go_build_info),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(delve::Delve::locate(section)?)),
        remote: Some(|| Arc::new(delve::Delve::remote())),
        version: delve::version,
        install: Some(install::delve::install),
        advice: Advice::SetupOr(delve::install_hint),
        unusable: None,
        toolchain: Some(delve::toolchain::check),
    },
    AdapterRow {
        profile: &gdb::PROFILE,
        aliases: &[],
        shorthands: &[],
        languages: &["C", "C++", "Rust", "Fortran", "Ada"],
        detection: Detection {
            native: NativeClaim::Any(gdb::has_dap),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |config, section, _| Ok(Arc::new(gdb::Gdb::locate(section)?.with_rust(&config.rust))),
        remote: Some(|| Arc::new(gdb::Gdb::remote())),
        version: |path| {
            gdb::version(path)
                .and_then(|(line, _)| line.split_whitespace().last().map(str::to_string))
        },
        install: None,
        advice: Advice::Text(gdb::advice),
        unusable: Some(gdb::find),
        toolchain: None,
    },
    AdapterRow {
        profile: &codelldb::PROFILE,
        aliases: &[],
        shorthands: &[],
        languages: &["C", "C++", "Rust"],
        detection: Detection::NONE,
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(codelldb::CodeLldb::locate(section)?)),
        remote: Some(|| Arc::new(codelldb::CodeLldb::remote())),
        version: |_| None,
        install: None,
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &node::PROFILE,
        aliases: &["js-debug"],
        shorthands: &["js", "javascript"],
        languages: &["JavaScript"],
        detection: Detection {
            extensions: &["js", "mjs", "cjs", "ts", "mts", "cts", "tsx"],
            runtime: Some(node::is_node_runtime),
            interpreters: &["node"],
            process_names: &["node"],
            server: Some(node::serves_inspector),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(node::Node::locate(section)?)),
        remote: Some(|| Arc::new(node::Node::remote())),
        version: node::version,
        install: Some(install::node::install),
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
];

/// The built-in adapter a name, alias or shorthand means.
pub fn kind(name: &str) -> Option<&'static AdapterRow> {
    ADAPTERS
        .iter()
        .find(|k| k.name() == name || k.aliases.contains(&name) || k.shorthands.contains(&name))
}

/// What the hint for an adapter that offers no exception stops says: which adapters offer
/// which ("lldb-dap offers C++ throw/catch, debugpy raised/uncaught"), as their profiles name
/// them.
pub fn exception_filters_hint() -> String {
    let offers: Vec<String> = ADAPTERS
        .iter()
        .filter_map(|row| Some((row.profile.adapter_id, row.profile.exception_stops?)))
        .enumerate()
        .map(|(at, (who, what))| match at {
            0 => format!("{who} offers {what}"),
            _ => format!("{who} {what}"),
        })
        .collect();
    format!(
        "stops on exceptions depend on the adapter: {}",
        offers.join(", ")
    )
}

impl AdapterRow {
    /// The adapter's canonical name (`lldb`).
    pub fn name(&self) -> &'static str {
        self.profile.name
    }

    /// Makes the adapter from the config, in the caller's environment (see [`MakeAdapter`]).
    pub fn locate(
        &self,
        config: &Config,
        caller: CallerEnv<'_>,
    ) -> Result<Arc<dyn DebugAdapter>, ErrorBody> {
        (self.make)(config, &config.adapter(self.name()), caller)
    }

    /// Where an executable is that is there and does not work (see [`AdapterRow::unusable`]).
    pub fn unusable_at(&self, config: &Config) -> Option<PathBuf> {
        self.unusable
            .and_then(|find| find(&config.adapter(self.name())))
    }

    /// The one thing to do to make this adapter work, given why it could not be made.
    pub fn fix(&self, err: &ErrorBody, config: &Config) -> String {
        if config.adapter(self.name()).path.is_some() {
            // The config's path is used instead of any search; what it says about it is the fix.
            return err.hint.clone();
        }
        let name = self.name();
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
    fn the_exception_hint_names_what_adapters_offer() {
        assert_eq!(
            exception_filters_hint(),
            "stops on exceptions depend on the adapter: lldb-dap offers C++ throw/catch, debugpy raised/uncaught"
        );
    }

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
