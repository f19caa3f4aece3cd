//! `debugger setup ADAPTER` / `setup --all`: makes adapters ready, each by the recipe the adapter
//! table gives it (see `adapters::install`: the platform's package manager, pip into a private
//! environment, `go install`); for an adapter without one it says what to do instead.
//!
//! This file is the command: which adapters, and the result as text and JSON. Installers' output
//! goes to stderr, so stdout keeps only the result (or the one `--json` object).

use serde_json::json;

use super::data;
use crate::adapters::install::{self, SetupResult};
use crate::adapters::{self, AdapterKind};
use crate::cli::Outcome;
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};

/// The adapters `setup --all` installs: those with a recipe, in table order.
pub fn installable() -> impl Iterator<Item = &'static AdapterKind> {
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
        "installed" => format!("Installed {}: {}{version}", result.name, result.path),
        _ => format!(
            "{} is already installed: {}{version}",
            result.name, result.path
        ),
    }
}

/// Runs `setup ADAPTER` or `setup --all`.
pub fn run(adapter: Option<&str>, all: bool) -> Result<Outcome, ErrorBody> {
    let config = Config::load().unwrap_or_default();
    let kinds: Vec<&'static AdapterKind> = if all {
        installable().collect()
    } else {
        let wanted = adapter.unwrap_or_default();
        vec![adapters::kind(wanted).ok_or_else(|| unknown_adapter(wanted))?]
    };
    let mut done = Vec::new();
    let mut failed: Vec<(&str, ErrorBody)> = Vec::new();
    for kind in kinds {
        match install::setup(kind, &config) {
            Ok(result) => done.push(result),
            Err(err) => failed.push((kind.name, err)),
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
    let text: String = done.iter().map(|r| line(r) + "\n").collect();
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
            installable().map(|k| k.name).collect::<Vec<_>>().join(", ")
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
