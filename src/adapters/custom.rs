//! A DAP adapter defined by the config alone: `[adapters.NAME]` with `command`, `args`,
//! `transport`, and extra fields for `launch` and `attach`. It lets a user plug in any adapter
//! (and lets the tests plug in a scripted one) without a code change.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::DebugAdapter;
use super::process::{BoxFuture, SpawnedAdapter, spawn_stdio};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec};

pub struct CustomAdapter {
    name: &'static str,
    command: PathBuf,
    args: Vec<String>,
    launch_extra: Map<String, Value>,
    attach_extra: Map<String, Value>,
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
        match config.transport.as_deref() {
            None | Some("stdio") => {}
            Some(other) => {
                return Err(ErrorBody::new(
                    ErrorCode::Unsupported,
                    format!("adapter '{name}': transport '{other}' is not supported"),
                    "use transport = \"stdio\"",
                ));
            }
        }
        let command = resolve_command(command).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("adapter '{name}': command {} not found", command.display()),
                "fix the command in the config: an absolute path, or a name on PATH",
            )
        })?;
        Ok(CustomAdapter {
            // Adapter names are few and live for the process; leaking one keeps the trait simple.
            name: Box::leak(name.to_string().into_boxed_str()),
            command,
            args: config.args.clone(),
            launch_extra: to_json_map(config.launch.as_ref()),
            attach_extra: to_json_map(config.attach.as_ref()),
        })
    }
}

fn resolve_command(command: &Path) -> Option<PathBuf> {
    if command.components().count() > 1 {
        return command.is_file().then(|| command.to_path_buf());
    }
    which::which(command).ok()
}

fn to_json_map(table: Option<&toml::Table>) -> Map<String, Value> {
    table
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| match v {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default()
}

fn merged(mut base: Value, extra: &Map<String, Value>) -> Value {
    if let Value::Object(map) = &mut base {
        for (key, value) in extra {
            map.insert(key.clone(), value.clone());
        }
    }
    base
}

impl DebugAdapter for CustomAdapter {
    fn name(&self) -> &'static str {
        self.name
    }

    fn executable(&self) -> &Path {
        &self.command
    }

    fn spawn(&self) -> BoxFuture<'_, Result<SpawnedAdapter, ErrorBody>> {
        let args: Vec<OsString> = self.args.iter().map(OsString::from).collect();
        Box::pin(async move { spawn_stdio(self.name, &self.command, &args) })
    }

    fn adapter_id(&self) -> &'static str {
        self.name
    }

    fn launch_arguments(&self, spec: &LaunchSpec) -> Value {
        let env: Map<String, Value> = spec
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        merged(
            json!({
                "program": spec.program,
                "args": spec.args,
                "cwd": spec.cwd,
                "env": env,
                "stopOnEntry": spec.stop_on_entry,
            }),
            &self.launch_extra,
        )
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        merged(json!({ "pid": spec.pid }), &self.attach_extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::config::Config;

    #[test]
    fn launch_fields_from_the_config_are_merged() {
        let config = Config::parse(
            "[adapters.mine]\ncommand = \"/bin/sh\"\n[adapters.mine.launch]\njustMyCode = false\nconsole = \"internalConsole\"\n",
        )
        .expect("parse");
        let adapter = CustomAdapter::from_config("mine", &config.adapter("mine")).expect("adapter");
        let spec = LaunchSpec {
            program: "/p".into(),
            args: vec!["a".into()],
            cwd: "/".into(),
            env: vec![("K".into(), "V".into())],
            adapter: None,
            stop_on_entry: false,
            breakpoints: vec![],
            connect: None,
            just_my_code: true,
        };
        let args = adapter.launch_arguments(&spec);
        assert_eq!(args["program"], "/p");
        assert_eq!(args["env"]["K"], "V");
        assert_eq!(args["justMyCode"], false);
        assert_eq!(args["console"], "internalConsole");
    }

    #[test]
    fn a_missing_command_is_explained() {
        let err = CustomAdapter::from_config("ghost", &AdapterConfig::default())
            .err()
            .expect("must fail");
        assert!(err.hint.contains("[adapters.ghost]"), "{err:?}");
    }
}
