//! The options of a launch that only one language's adapters read. The CLI fills them from its
//! flags before any adapter is chosen (the daemon picks one when `--adapter` is absent), so a
//! launch carries every language's, and each adapter reads its own language's and no other.

use serde::{Deserialize, Serialize};

/// Each language's options of one launch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageOptions {
    #[serde(default)]
    pub python: PythonOptions,
    #[serde(default)]
    pub node: NodeOptions,
    #[serde(default)]
    pub go: GoOptions,
    #[serde(default)]
    pub jvm: JvmOptions,
}

/// What Python's adapters (debugpy, pdb) read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonOptions {
    /// Step and stop only in the user's own code (`justMyCode`; `--no-just-my-code` clears it).
    #[serde(default = "yes")]
    pub just_my_code: bool,
    /// A module to run (`-m MODULE`) instead of the launch's `program`, which then only says
    /// where the program's own code is (the module's file, or the run directory).
    #[serde(default)]
    pub module: Option<String>,
}

impl Default for PythonOptions {
    fn default() -> PythonOptions {
        PythonOptions {
            just_my_code: true,
            module: None,
        }
    }
}

/// What the Node.js adapter reads. A TypeScript program's runner (the project's tsx or ts-node,
/// else Node's own type stripping) is no option: the adapter picks it from the program's project
/// and the Node it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeOptions {
    /// Options for Node before the program, after the config's: a test run's
    /// `--test-name-pattern`, which Node's test runner takes there rather than from the
    /// program's arguments.
    #[serde(default)]
    pub runtime_args: Vec<String>,
}

/// What Go's adapter (Delve) reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoOptions {
    /// The launch's `program` is a package whose tests the adapter builds and runs (`go test`'s
    /// binary, in a test run), not a program to run as it is.
    #[serde(default)]
    pub test_package: bool,
}

/// What the JVM's adapter reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JvmOptions {
    /// The class path of a program given as its main class's name (`start MainKt --classpath
    /// DIR:JAR`), its entries absolute; the launch's `program` is then that name, not a path.
    #[serde(default)]
    pub classpath: Option<String>,
}

fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_naming_no_options_gets_each_languages_defaults() {
        let spec: crate::ipc::protocol::LaunchSpec = serde_json::from_value(serde_json::json!({
            "program": "/p/app.py", "args": [], "cwd": "/p", "env": [], "adapter": null,
            "stop_on_entry": false, "breakpoints": [],
        }))
        .expect("launch spec");
        assert_eq!(spec.options, LanguageOptions::default());
        assert!(spec.options.python.just_my_code);
        let partial: LanguageOptions =
            serde_json::from_value(serde_json::json!({"python": {"module": "http.server"}}))
                .expect("options");
        assert!(partial.python.just_my_code);
        assert_eq!(partial.python.module.as_deref(), Some("http.server"));
    }
}
