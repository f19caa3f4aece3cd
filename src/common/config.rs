//! The user's configuration file (`config.toml`), every key optional.
//!
//! Only the daemon and the commands that need it read the file, so the CLI's start-up path stays
//! free of file I/O and TOML parsing for everyday commands. `config.example.toml` documents each
//! key; keep the two in step.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::error::{ErrorBody, ErrorCode};
use super::paths;
use super::user_files;
use crate::ipc::protocol::StopLocals;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub defaults: Defaults,
    pub timeouts: Timeouts,
    pub output: OutputConfig,
    pub daemon: DaemonConfig,
    /// How Rust programs are shown: whose value formatters are loaded.
    pub rust: RustConfig,
    /// Per-adapter settings, keyed by adapter name (`lldb`, ...).
    pub adapters: BTreeMap<String, AdapterConfig>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Defaults {
    /// The adapter used when `start` gets no `--adapter`.
    pub adapter: Option<String>,
    /// Which locals a stop report carries when the command gives no `--locals`.
    pub stop_locals: StopLocals,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timeouts {
    /// How long one request to the adapter may take before it fails.
    pub request_secs: f64,
    /// How long launching or attaching may take (the adapter loads the program's debug info).
    pub launch_secs: f64,
    /// How long one evaluation (`print`, `eval`, `raw`, a display) may run in the program
    /// before it is interrupted, where the adapter can interrupt it; `--timeout` overrides it.
    pub evaluate_secs: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            request_secs: 30.0,
            launch_secs: 60.0,
            evaluate_secs: 10.0,
        }
    }
}

impl Timeouts {
    pub fn request(&self) -> Duration {
        secs(self.request_secs)
    }
    pub fn launch(&self) -> Duration {
        secs(self.launch_secs)
    }
    pub fn evaluate(&self) -> Duration {
        secs(self.evaluate_secs)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutputConfig {
    /// The most bytes of program output the daemon keeps; older output is dropped, and counted.
    pub buffer_bytes: usize,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            buffer_bytes: 8 * 1024 * 1024,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DaemonConfig {
    /// How long the daemon stays after the debuggee ends, so output and exit status can be read.
    pub grace_period_secs: f64,
    /// How long the daemon keeps a fresh adapter of the last session's kind, spawned and
    /// initialised, once that session ends, so the next `start` skips the adapter's own start-up;
    /// 0 keeps none. `DEBUGGER_WARM_ADAPTER_SECS` overrides it.
    pub warm_adapter_secs: f64,
}

/// The variable that overrides `[daemon] warm_adapter_secs` (one run, a test, a bench).
pub const WARM_ADAPTER_VARIABLE: &str = "DEBUGGER_WARM_ADAPTER_SECS";

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            grace_period_secs: 600.0,
            warm_adapter_secs: 60.0,
        }
    }
}

impl DaemonConfig {
    pub fn grace_period(&self) -> Duration {
        secs(self.grace_period_secs)
    }

    /// How long a warm adapter is kept; zero: none is.
    pub fn warm_adapter(&self) -> Duration {
        if self.warm_adapter_secs > 0.0 {
            secs(self.warm_adapter_secs)
        } else {
            Duration::ZERO
        }
    }

    /// Lays `DEBUGGER_WARM_ADAPTER_SECS` (`value`) over the file's setting.
    fn override_warm_adapter(
        &mut self,
        value: Option<std::ffi::OsString>,
    ) -> Result<(), ErrorBody> {
        let Some(value) = value else {
            return Ok(());
        };
        match value.to_str().and_then(|v| v.trim().parse::<f64>().ok()) {
            Some(secs) if secs >= 0.0 && secs.is_finite() => {
                self.warm_adapter_secs = secs;
                Ok(())
            }
            _ => Err(ErrorBody::new(
                ErrorCode::Usage,
                format!(
                    "invalid {WARM_ADAPTER_VARIABLE} {:?}: not a number of seconds",
                    value.to_string_lossy()
                ),
                format!(
                    "give a number of seconds, e.g. {WARM_ADAPTER_VARIABLE}=60 (0 keeps no warm adapter)"
                ),
            )),
        }
    }
}

/// `[rust]`: a Rust program's values are shown through the formatters of a Rust toolchain (its
/// `lib/rustlib/etc`), which know how `String`, `Vec` or `Option` are laid out in that release.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RustConfig {
    /// The toolchain whose formatters are loaded; unset, the one `rustc --print sysroot` names.
    pub sysroot: Option<PathBuf>,
    /// Whether the formatters are loaded at all (off: values as the debugger's own Rust support
    /// shows them).
    pub formatters: bool,
}

impl Default for RustConfig {
    fn default() -> Self {
        RustConfig {
            sysroot: None,
            formatters: true,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdapterConfig {
    /// A built-in adapter's executable; when unset, the adapter is searched for.
    pub path: Option<PathBuf>,
    /// The executable of an adapter defined by the config alone (any name not built in).
    pub command: Option<PathBuf>,
    /// Extra arguments for the adapter executable.
    pub args: Vec<String>,
    /// How to talk to a config-defined adapter: "stdio" (the default).
    pub transport: Option<String>,
    /// Extra fields laid over the `launch` request's arguments (any adapter).
    pub launch: Option<toml::Table>,
    /// Extra fields laid over the `attach` request's arguments (any adapter).
    pub attach: Option<toml::Table>,
}

/// The longest time a config key takes: a day. Longer is a typo, not a wish.
const MAX_SECS: f64 = 86_400.0;
/// The smallest output buffer: a screenful of lines, below which the latest output is lost.
const MIN_BUFFER_BYTES: usize = 4096;

fn secs(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX)
}

impl Config {
    /// Reads the config file; a missing file is the default configuration.
    pub fn load() -> Result<Config, ErrorBody> {
        let mut config = Config::load_file()?;
        config
            .daemon
            .override_warm_adapter(std::env::var_os(WARM_ADAPTER_VARIABLE))?;
        Ok(config)
    }

    /// The config file's settings (defaults where it is absent).
    fn load_file() -> Result<Config, ErrorBody> {
        let Some(path) = paths::config_path() else {
            return Ok(Config::default());
        };
        let text = match user_files::read_regular_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(ErrorBody::new(
                    ErrorCode::Usage,
                    format!(
                        "cannot read the config file {}: it is not UTF-8 text",
                        path.display()
                    ),
                    "save it as UTF-8 (TOML files must be), or point DEBUGGER_CONFIG at another file",
                ));
            }
            Err(e) => {
                let hint = if e.kind() == std::io::ErrorKind::PermissionDenied {
                    "fix its permissions, or point DEBUGGER_CONFIG at another file"
                } else {
                    "point DEBUGGER_CONFIG at a regular file (config.example.toml shows one)"
                };
                return Err(ErrorBody::new(
                    ErrorCode::Usage,
                    format!("cannot read the config file {}: {e}", path.display()),
                    hint,
                ));
            }
        };
        Config::parse(&text).map_err(|message| {
            ErrorBody::new(
                ErrorCode::Usage,
                format!("invalid config file {}: {message}", path.display()),
                "config.example.toml lists every key and its meaning",
            )
        })
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| e.to_string().trim().to_string())?;
        config.check_ranges()?;
        Ok(config)
    }

    /// Refuses numbers TOML accepts but the daemon cannot use: a negative or zero timeout would
    /// turn every wait off or make every request fail at once.
    fn check_ranges(&self) -> Result<(), String> {
        let positive = [
            ("timeouts", "request_secs", self.timeouts.request_secs, 30.0),
            ("timeouts", "launch_secs", self.timeouts.launch_secs, 60.0),
            (
                "timeouts",
                "evaluate_secs",
                self.timeouts.evaluate_secs,
                10.0,
            ),
        ];
        for (table, key, value, example) in positive {
            if !(value.is_finite() && value > 0.0 && value <= MAX_SECS) {
                return Err(format!(
                    "[{table}] {key} = {value} is out of range: give seconds above 0 and at most \
                     {MAX_SECS} (the default is {example})"
                ));
            }
        }
        let not_negative = [
            (
                "daemon",
                "grace_period_secs",
                self.daemon.grace_period_secs,
                600.0,
            ),
            (
                "daemon",
                "warm_adapter_secs",
                self.daemon.warm_adapter_secs,
                60.0,
            ),
        ];
        for (table, key, value, example) in not_negative {
            if !(0.0..=MAX_SECS).contains(&value) {
                return Err(format!(
                    "[{table}] {key} = {value} is out of range: give seconds from 0 to \
                     {MAX_SECS} (the default is {example})"
                ));
            }
        }
        if self.output.buffer_bytes < MIN_BUFFER_BYTES {
            return Err(format!(
                "[output] buffer_bytes = {} is out of range: give at least {MIN_BUFFER_BYTES} \
                 (the default is 8388608)",
                self.output.buffer_bytes
            ));
        }
        Ok(())
    }

    pub fn adapter(&self, name: &str) -> AdapterConfig {
        self.adapters.get(name).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_config_is_default() {
        let config = Config::parse("").expect("parse");
        assert_eq!(config.timeouts.request(), Duration::from_secs(30));
        assert_eq!(config.timeouts.evaluate(), Duration::from_secs(10));
        assert_eq!(config.output.buffer_bytes, 8 * 1024 * 1024);
        assert_eq!(config.daemon.grace_period(), Duration::from_secs(600));
        assert_eq!(config.daemon.warm_adapter(), Duration::from_secs(60));
    }

    #[test]
    fn the_warm_adapter_time_is_read_and_overridden() {
        let mut config = Config::parse("[daemon]\nwarm_adapter_secs = 2.5\n").expect("parse");
        assert_eq!(config.daemon.warm_adapter(), Duration::from_millis(2500));
        config
            .daemon
            .override_warm_adapter(Some("0".into()))
            .expect("zero");
        assert_eq!(config.daemon.warm_adapter(), Duration::ZERO);
        let err = config
            .daemon
            .override_warm_adapter(Some("soon".into()))
            .expect_err("not a number");
        assert!(
            err.message.contains(WARM_ADAPTER_VARIABLE),
            "{}",
            err.message
        );
        assert!(
            config
                .daemon
                .override_warm_adapter(Some("-1".into()))
                .is_err()
        );
    }

    #[test]
    fn keys_are_read() {
        let config = Config::parse(
            "[defaults]\nadapter = \"lldb\"\n[timeouts]\nrequest_secs = 5\n[daemon]\ngrace_period_secs = 1.5\n\
             [adapters.lldb]\npath = \"/opt/lldb-dap\"\nargs = [\"--x\"]\n",
        )
        .expect("parse");
        assert_eq!(config.defaults.adapter.as_deref(), Some("lldb"));
        assert_eq!(config.timeouts.request(), Duration::from_secs(5));
        assert_eq!(config.daemon.grace_period(), Duration::from_millis(1500));
        assert_eq!(
            config.adapter("lldb").path,
            Some(PathBuf::from("/opt/lldb-dap"))
        );
    }

    #[test]
    fn numbers_out_of_range_are_refused_with_their_key() {
        for (text, key) in [
            (
                "[timeouts]\nrequest_secs = -5\n",
                "[timeouts] request_secs = -5",
            ),
            (
                "[timeouts]\nrequest_secs = 0\n",
                "[timeouts] request_secs = 0",
            ),
            (
                "[timeouts]\nlaunch_secs = nan\n",
                "[timeouts] launch_secs = NaN",
            ),
            (
                "[timeouts]\nevaluate_secs = 0\n",
                "[timeouts] evaluate_secs = 0",
            ),
            (
                "[daemon]\ngrace_period_secs = -1\n",
                "[daemon] grace_period_secs = -1",
            ),
            (
                "[daemon]\nwarm_adapter_secs = 1e9\n",
                "[daemon] warm_adapter_secs",
            ),
            ("[output]\nbuffer_bytes = 0\n", "[output] buffer_bytes = 0"),
        ] {
            let err = Config::parse(text).expect_err(text);
            assert!(err.contains(key), "{text}: {err}");
            assert!(err.contains("out of range"), "{text}: {err}");
        }
        assert!(Config::parse("[daemon]\nwarm_adapter_secs = 0\n").is_ok());
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = Config::parse("[timeouts]\nrequest = 5\n").expect_err("typo must fail");
        assert!(err.contains("request"), "{err}");
    }
}
