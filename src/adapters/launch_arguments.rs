//! What a `launch` or `attach` request carries besides an adapter's own fields: the arguments
//! every adapter takes in one shape, and the fields the user's config lays over them.

use serde_json::Value;

/// Extra fields from the config (`[adapters.NAME.launch]`, `[adapters.NAME.attach]`) merged into
/// the `launch` and `attach` requests of any adapter, built in or not: a user can pass a setting
/// we never heard of without a code change.
#[derive(Debug, Clone, Default)]
pub struct RequestExtras {
    launch: serde_json::Map<String, Value>,
    attach: serde_json::Map<String, Value>,
}

impl RequestExtras {
    pub fn from_config(config: &crate::common::config::AdapterConfig) -> RequestExtras {
        RequestExtras {
            launch: to_json_map(config.launch.as_ref()),
            attach: to_json_map(config.attach.as_ref()),
        }
    }

    /// `arguments` of a `launch` or `attach` request with the configured fields laid over them.
    pub fn apply(&self, command: &str, mut arguments: Value) -> Value {
        let extra = if command == "attach" {
            &self.attach
        } else {
            &self.launch
        };
        if let Value::Object(map) = &mut arguments {
            for (key, value) in extra {
                map.insert(key.clone(), value.clone());
            }
        }
        arguments
    }
}

fn to_json_map(table: Option<&toml::Table>) -> serde_json::Map<String, Value> {
    table
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| match v {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default()
}

/// The `launch` arguments every adapter takes in the same shape (program, args, cwd, env as an
/// object, stopOnEntry), with `extra`'s fields added or put in their place.
pub(crate) fn launch_with(spec: &crate::ipc::protocol::LaunchSpec, extra: Value) -> Value {
    let mut arguments = serde_json::json!({
        "program": spec.program,
        "args": spec.args,
        "cwd": spec.cwd,
        "env": env_object(&spec.env),
        "stopOnEntry": spec.stop_on_entry,
    });
    if let (Some(fields), Value::Object(extra)) = (arguments.as_object_mut(), extra) {
        fields.extend(extra);
    }
    arguments
}

/// The debuggee's environment as the JSON object most adapters take in `launch`.
fn env_object(env: &[(String, String)]) -> serde_json::Map<String, Value> {
    env.iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::config::Config;

    #[test]
    fn configured_request_fields_are_laid_over_any_adapters() {
        let config = Config::parse(
            "[adapters.debugpy.launch]\nbreakOnSystemExit = [0]\njustMyCode = false\n[adapters.debugpy.attach]\nlogToFile = true\n",
        )
        .expect("parse");
        let extras = RequestExtras::from_config(&config.adapter("debugpy"));
        let launch = extras.apply(
            "launch",
            serde_json::json!({"program": "/a.py", "justMyCode": true}),
        );
        assert_eq!(launch["program"], "/a.py");
        assert_eq!(launch["justMyCode"], false);
        assert_eq!(launch["breakOnSystemExit"], serde_json::json!([0]));
        let attach = extras.apply("attach", serde_json::json!({"pid": 1}));
        assert_eq!(attach["logToFile"], true);
        assert!(attach.get("justMyCode").is_none());
    }
}
