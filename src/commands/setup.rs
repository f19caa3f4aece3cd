//! `debugger setup ADAPTER` / `setup --all`: makes adapters ready, each by the recipe the adapter
//! table gives it (see `adapters::install`: the platform's package manager, pip into a private
//! environment, `go install`); for an adapter without one it says what to do instead.
//!
//! This file is the command: which adapters, and the result as text and JSON. The installers
//! and the package managers they run write their progress to the process's stderr, which every
//! front door keeps for logs, so the result (or the one `--json` object) stays apart.

use clap::Args;
use serde_json::json;

use super::{Outcome, data};
use crate::adapters::install::{SetupResult, SetupStatus};
use crate::adapters::{self, AdapterRow};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};

// `setup`'s arguments: an adapter, or --all. (Plain comments on the flag sets: a doc comment
// would replace the command's help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["adapter", "all"]))]
pub struct SetupArgs {
    #[arg(value_name = "ADAPTER", help = adapter_help())]
    pub adapter: Option<String>,
    #[arg(long, help = all_help())]
    pub all: bool,
}

/// The ADAPTER argument's help, naming every built-in adapter from the adapter table.
fn adapter_help() -> String {
    format!("The adapter: {}", adapters::adapter_names_hint())
}

/// `--all`'s help, naming the adapters it installs.
fn all_help() -> String {
    let names: Vec<&str> = installable().map(|row| row.name()).collect();
    format!(
        "Install every adapter setup can install ({})",
        names.join(", ")
    )
}

/// The adapters `setup --all` installs: those with a recipe, in table order.
pub fn installable() -> impl Iterator<Item = &'static AdapterRow> {
    adapters::ADAPTERS.iter().filter(|k| k.install.is_some())
}

/// The line `setup` prints for one ready adapter.
fn line(result: &SetupResult) -> String {
    let version = result
        .version
        .as_deref()
        .map(|v| format!(" (version {v})"))
        .unwrap_or_default();
    match result.status {
        SetupStatus::Installed => format!("Installed {}: {}{version}", result.name, result.path),
        SetupStatus::AlreadyInstalled => format!(
            "{} is already installed: {}{version}",
            result.name, result.path
        ),
    }
}

/// Runs `setup ADAPTER` or `setup --all`.
pub fn run(args: SetupArgs) -> Result<Outcome, ErrorBody> {
    let config = Config::load().unwrap_or_default();
    let kinds: Vec<&'static AdapterRow> = if args.all {
        installable().collect()
    } else {
        let wanted = args.adapter.as_deref().unwrap_or_default();
        vec![adapters::kind(wanted).ok_or_else(|| unknown_adapter(wanted))?]
    };
    let mut done = Vec::new();
    let mut failed: Vec<(&str, ErrorBody)> = Vec::new();
    for kind in kinds {
        match kind.setup(&config) {
            Ok(result) => done.push(result),
            Err(err) => failed.push((kind.name(), err)),
        }
    }
    if failed.len() == 1
        && done.is_empty()
        && let Some((_, err)) = failed.pop()
    {
        return Err(err);
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
    let text: String = done.iter().map(|r| line(r) + "\n").collect();
    Ok(Outcome::new(json!({ "adapters": data(&done) }), text))
}

fn unknown_adapter(name: &str) -> ErrorBody {
    let list: Vec<String> = adapters::ADAPTERS
        .iter()
        .map(|k| format!("{} ({})", k.name(), k.languages.join(", ")))
        .collect();
    ErrorBody::usage(
        format!("unknown adapter '{name}'"),
        format!(
            "the adapters are: {}; 'debugger setup --all' installs {}",
            list.join(", "),
            installable()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_adapters_list_the_known_ones() {
        let err = unknown_adapter("nosuch");
        assert_eq!(err.code, ErrorCode::Usage);
        assert!(err.hint.contains("debugpy (Python)"), "{err:?}");
        assert!(err.hint.contains("--all"), "{err:?}");
    }
}
