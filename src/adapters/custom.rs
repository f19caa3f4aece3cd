//! A DAP adapter defined by the config alone: `[adapters.NAME]` with `command`, `args` and
//! `transport` (extra `launch`/`attach` fields are merged for every adapter, see `RequestExtras`). It lets a user plug in any adapter
//! (and lets the tests plug in a scripted one) without a code change.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::process::{BoxFuture, SpawnedAdapter, spawn_on_port, spawn_stdio};
use super::{DebugAdapter, Profile, Start};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};

pub struct CustomAdapter {
    /// Its name (its `adapterID` too), and nothing else known of it.
    profile: Profile,
    command: PathBuf,
    args: Vec<String>,
    /// Listen on a port we pick (`{port}` in `args`) instead of speaking on stdio.
    tcp: bool,
}

impl CustomAdapter {
    /// Builds the adapter named `name` from its config section.
    pub fn from_config(name: &str, config: &AdapterConfig) -> Result<CustomAdapter, ErrorBody> {
        let hint = format!(
            "define it in the config: [adapters.{name}] command = \"/path/to/adapter\" (see config.example.toml)"
        );
        let Some(command) = &config.command else {
            return Err(ErrorBody::new(
                ErrorCode::Usage,
                format!("adapter '{name}' has no command in the config"),
                hint,
            ));
        };
        let tcp = match config.transport.as_deref() {
            None | Some("stdio") => false,
            Some("tcp") => true,
            Some(other) => {
                return Err(ErrorBody::new(
                    ErrorCode::Usage,
                    format!("adapter '{name}': unknown transport '{other}'"),
                    "use transport = \"stdio\" or \"tcp\"",
                ));
            }
        };
        if tcp && !config.args.iter().any(|a| a.contains("{port}")) {
            return Err(ErrorBody::new(
                ErrorCode::Usage,
                format!("adapter '{name}': a tcp adapter needs {{port}} in its args"),
                "e.g. args = [\"--listen\", \"127.0.0.1:{port}\"]: {port} becomes a free port",
            ));
        }
        let command = resolve_command(command).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("adapter '{name}': command {} not found", command.display()),
                "fix the command in the config: an absolute path, or a name on PATH",
            )
        })?;
        Ok(CustomAdapter {
            profile: Profile::plain(interned(name)),
            command,
            args: config.args.clone(),
            tcp,
        })
    }
}

/// The name as a `&'static str`, as a profile holds names. Each distinct name is leaked
/// once for the process's life: config names are few, and a process that lives on (a daemon
/// across restarts, a server running `doctor` again and again) makes the same ones each time.
fn interned(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = names.iter().find(|known| **known == name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(leaked);
    leaked
}

fn resolve_command(command: &Path) -> Option<PathBuf> {
    if command.components().count() > 1 {
        return command.is_file().then(|| command.to_path_buf());
    }
    which::which(command).ok()
}

impl DebugAdapter for CustomAdapter {
    fn profile(&self) -> &Profile {
        &self.profile
    }

    fn executable(&self) -> &Path {
        &self.command
    }

    fn spawn<'a>(&'a self, start: Start<'a>) -> BoxFuture<'a, Result<SpawnedAdapter, ErrorBody>> {
        Box::pin(async move {
            start.one_way()?;
            if self.tcp {
                spawn_on_port(
                    self.profile.name,
                    &self.command,
                    &self.args,
                    Duration::from_secs(20),
                )
                .await
            } else {
                let args: Vec<OsString> = self.args.iter().map(OsString::from).collect();
                spawn_stdio(self.profile.name, &self.command, &args, &[])
            }
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, _stdio: Option<&StdioPaths>) -> Value {
        super::launch_with(spec, json!({}))
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "pid": spec.pid })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_leaked_once_however_often_an_adapter_is_made() {
        let first = interned("my-adapter");
        let again = interned(&String::from("my-adapter"));
        assert!(std::ptr::eq(first, again));
        assert_eq!(interned("other"), "other");
    }

    #[test]
    fn a_tcp_adapter_needs_a_port_placeholder() {
        let config = crate::common::config::Config::parse(
            "[adapters.t]\ncommand = \"/bin/sh\"\ntransport = \"tcp\"\nargs = [\"--listen\"]\n",
        )
        .expect("parse");
        let err = CustomAdapter::from_config("t", &config.adapter("t"))
            .err()
            .expect("must fail");
        assert!(err.message.contains("{port}"), "{err:?}");
    }

    #[test]
    fn a_missing_command_is_explained() {
        let err = CustomAdapter::from_config("ghost", &AdapterConfig::default())
            .err()
            .expect("must fail");
        assert!(err.hint.contains("[adapters.ghost]"), "{err:?}");
    }
}
