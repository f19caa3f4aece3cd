//! Debug adapters: one file each, knowing how to find the adapter, start it, and phrase its
//! `launch` and `attach` arguments. Nothing outside this folder knows an adapter's name.

pub mod custom;
pub mod lldb;
pub mod process;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec};
use process::{BoxFuture, SpawnedAdapter};

/// What the session needs from an adapter.
pub trait DebugAdapter: Send + Sync {
    /// The adapter's canonical name (`lldb`).
    fn name(&self) -> &'static str;
    /// The executable that will be run.
    fn executable(&self) -> &Path;
    /// Starts the adapter and connects to it.
    fn spawn(&self) -> BoxFuture<'_, Result<SpawnedAdapter, ErrorBody>>;
    /// The `adapterID` sent in `initialize`.
    fn adapter_id(&self) -> &'static str;
    /// The `launch` request's arguments.
    fn launch_arguments(&self, spec: &LaunchSpec) -> Value;
    /// The `attach` request's arguments.
    fn attach_arguments(&self, spec: &AttachSpec) -> Value;

    /// Whether an `output` event of this category is the program's own output (kept in the
    /// output buffer) rather than the adapter's (logged).
    fn is_program_output(&self, category: Option<&str>) -> bool {
        matches!(category, Some("stdout") | Some("stderr"))
    }

    /// Undoes what the adapter's transport did to program output (e.g. a pty's `\r\n`).
    fn clean_program_output<'a>(&self, text: &'a str) -> Cow<'a, str> {
        Cow::Borrowed(text)
    }

    /// Whether a stop is the adapter's way of reporting an interrupt (our `pause`, or the entry
    /// stop), so the session can name it `pause` or `entry`.
    fn is_interrupt_stop(&self, reason: &str, _description: Option<&str>) -> bool {
        reason == "pause" || reason == "entry"
    }
}

/// Every adapter this build knows, by canonical name, with the aliases users type.
const ADAPTERS: &[(&str, &[&str])] = &[("lldb", &["lldb-dap", "lldb-vscode"])];

/// Picks and locates the adapter: `--adapter` wins, then the config's default, then `lldb`.
/// A name that is not built in is looked up in the config's `[adapters.NAME]` sections.
pub fn resolve(
    requested: Option<&str>,
    config: &Config,
) -> Result<Arc<dyn DebugAdapter>, ErrorBody> {
    let wanted = requested
        .or(config.defaults.adapter.as_deref())
        .unwrap_or("lldb");
    let builtin = ADAPTERS
        .iter()
        .find(|(name, aliases)| *name == wanted || aliases.contains(&wanted))
        .map(|(name, _)| *name);
    let Some(canonical) = builtin else {
        if config.adapters.contains_key(wanted) {
            return Ok(Arc::new(custom::CustomAdapter::from_config(
                wanted,
                &config.adapter(wanted),
            )?));
        }
        let mut known: Vec<&str> = ADAPTERS.iter().map(|(name, _)| *name).collect();
        for name in config.adapters.keys() {
            if !known.contains(&name.as_str()) {
                known.push(name);
            }
        }
        return Err(ErrorBody::new(
            ErrorCode::Usage,
            format!("unknown adapter '{wanted}'"),
            format!(
                "the adapters are: {}; pick one with --adapter NAME, or define one under [adapters.NAME] in the config",
                known.join(", ")
            ),
        ));
    };
    match canonical {
        "lldb" => Ok(Arc::new(lldb::LldbDap::locate(&config.adapter("lldb"))?)),
        other => Err(ErrorBody::internal(format!(
            "adapter '{other}' is listed but not built"
        ))),
    }
}

/// Finds the highest-versioned `<stem>-NN` executable on PATH (e.g. `lldb-dap-19`).
pub fn highest_versioned_on_path(stem: &str) -> Option<PathBuf> {
    highest_versioned_in(stem, &std::env::var_os("PATH")?)
}

/// [`highest_versioned_on_path`] over an explicit PATH-style list.
pub fn highest_versioned_in(stem: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    let prefix = format!("{stem}-");
    let mut best: Option<(u32, PathBuf)> = None;
    for dir in std::env::split_paths(path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(version) = name
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix))
                .and_then(|v| v.parse::<u32>().ok())
            else {
                continue;
            };
            if best.as_ref().is_none_or(|(v, _)| version > *v) && is_executable(&entry.path()) {
                best = Some((version, entry.path()));
            }
        }
    }
    best.map(|(_, path)| path)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_version_wins() {
        use std::os::unix::fs::PermissionsExt;
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        for (dir, name) in [
            (&a, "tool-9"),
            (&a, "tool-18"),
            (&b, "tool-19"),
            (&b, "tool-x"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, "").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        // Not executable: never chosen, however high.
        std::fs::write(b.path().join("tool-99"), "").expect("write");
        let path = std::env::join_paths([a.path(), b.path()]).expect("join");
        assert_eq!(
            highest_versioned_in("tool", &path),
            Some(b.path().join("tool-19"))
        );
        assert_eq!(highest_versioned_in("nothing", &path), None);
    }

    #[test]
    fn unknown_adapter_lists_the_known_ones() {
        let err = resolve(Some("nosuch"), &Config::default())
            .err()
            .expect("must fail");
        assert_eq!(err.code, ErrorCode::Usage);
        assert!(err.hint.contains("lldb"), "{err:?}");
    }
}
