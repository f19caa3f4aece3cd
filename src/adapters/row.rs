//! An adapter's row: the data that describes a built-in adapter (its names, how its programs
//! are detected, how it is made, installed and checked), and what is read from a row. The rows
//! themselves are the table (`table.rs`); the types live apart so that an adapter's folder can
//! describe itself without depending on the table that lists it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::install::{self, Recipe, SetupResult};
use super::process::BoxFuture;
use super::{CallerEnv, DebugAdapter, Profile};
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
    pub server: Option<ServerProbe>,
    /// Whether it runs a main class by its name from a class path (`start MainKt --classpath
    /// DIR`): a launch with a class path is its.
    pub main_classes: bool,
}

/// How an adapter asks whether the server at a `--connect` address is its kind (see
/// [`super::detect_attach_target`]).
#[derive(Clone, Copy)]
pub enum ServerProbe {
    /// Over a connection of its own, closed once answered (a V8 inspector's `/json/version`).
    Asks(fn(&str) -> BoxFuture<'_, bool>),
    /// By a handshake whose connection the adapter keeps for the session that follows. Its
    /// server takes one debugger and logs any other greeting as a failed handshake, and a
    /// program waiting for its debugger runs on once that debugger's connection closes (a JDWP
    /// agent's `suspend=y`). Asked before every [`ServerProbe::Asks`], whose servers refuse the
    /// handshake at once.
    Keeps(fn(&str) -> BoxFuture<'_, bool>),
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
        main_classes: false,
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

    /// Makes the adapter ready (`debugger setup NAME`): its recipe when it has one; else the
    /// adapter already found, or the error of the one missing with the row's advice as its hint
    /// (setup cannot fix it).
    pub fn setup(&self, config: &Config) -> Result<SetupResult, ErrorBody> {
        if let Some(install) = self.install {
            return install(config);
        }
        match self
            .locate(config, CallerEnv::this_process())
            .and_then(|adapter| adapter.check_usable().map(|()| adapter))
        {
            Ok(adapter) => {
                let path = adapter.executable();
                Ok(install::already(self.name(), path, (self.version)(path)))
            }
            Err(err) => match self.advice {
                Advice::Text(advice) => {
                    Err(ErrorBody::new(err.code, err.message, advice(Os::CURRENT)))
                }
                _ => Err(err),
            },
        }
    }
}
