//! The JVM (Java and Kotlin) through its own debugging protocol: an adapter that runs inside
//! the daemon, speaks DAP to the session and JDWP to the JVM's agent, so a machine with a JDK
//! or a JRE needs nothing else to debug Java.
//!
//! - `jdwp`: our JDWP client (the wire, the connection, events, commands).
//! - `launch`: the program forms and the JVM started to dial in to us.
//! - `server`: the DAP side (the in-memory stream the session talks over), reading each
//!   request into its typed arguments (`requests`) and answering through the `outbox`,
//!   failures as a typed `error`.
//! - `debuggee`: the translation, request by request and event by event.
//! - `heap`: the seam the Java expression evaluator (`expression`) and value presenter
//!   (`presentation`) are written against, which `debuggee::heap` implements over JDWP;
//!   `jdk`: what `doctor` says of the JDK here.

mod attach;
mod debuggee;
mod error;
pub mod expression;
pub mod heap;
pub mod jdk;
pub mod jdwp;
mod launch;
pub mod presentation;
mod requests;
mod server;

pub use debuggee::heap::JdwpHeap;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::conditions::{ConditionHandling, refused_with_prefix};
use super::install::{self, Software};
use super::process::BoxFuture;
use super::return_value::ReturnValueSource;
use super::value_reading::ValueReading;
use super::{CallerEnv, DebugAdapter, Profile, Start, StdioRoute, StdioSupport, launch_with};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::requests::EvaluateContext;
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;

/// How long the JVM may take to connect to us after it is started.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to get a JDK on `os` when none is found.
pub fn install_hint(os: Os) -> String {
    format!(
        "install a JDK 17 or newer ({}), set JAVA_HOME to one, or set adapters.java.path to its java",
        install::install_hint(Software::Jdk, os)
    )
}

/// The `java` a program runs in, as the caller's shell, Maven and Gradle would pick it: the
/// config's, else `JAVA_HOME`'s (even where it has none, which is then the error), else the one
/// on the caller's PATH.
pub fn find(config: &AdapterConfig, caller: &CallerEnv<'_>) -> Option<PathBuf> {
    if let Some(path) = &config.path {
        return Some(path.clone());
    }
    if let Some(home) = caller.var("JAVA_HOME").filter(|home| !home.is_empty()) {
        return Some(
            PathBuf::from(home)
                .join("bin")
                .join(Os::CURRENT.executable("java")),
        );
    }
    caller.which(Os::CURRENT.executable("java").as_ref())
}

/// Whether `program` is the `java` executable itself: `start -- java -cp classes Main` runs
/// the JVM with its own command line.
pub fn is_java_runtime(program: &Path) -> bool {
    program.file_stem().is_some_and(|n| n == "java")
        && program.extension().is_none_or(|e| e == "exe")
}

/// Whether a JDWP agent listens at `address` (`attach --connect` without `--adapter`).
pub fn serves_jdwp(address: &str) -> BoxFuture<'_, bool> {
    Box::pin(attach::serves_jdwp(address))
}

/// The version of the `java` at `path` (`17.0.15`), from the first line of `java -version`.
pub fn version(path: &Path) -> Option<String> {
    let line = jdk::version_line(path)?;
    Some(match line.split('"').nth(1) {
        Some(version) => version.to_string(),
        None => line,
    })
}

pub struct Java {
    java: PathBuf,
}

impl Java {
    /// For `attach --connect`: the JVM is elsewhere, nothing is started here.
    pub fn remote() -> Java {
        Java {
            java: PathBuf::from(Os::CURRENT.executable("java")),
        }
    }

    pub fn locate(config: &AdapterConfig, caller: CallerEnv<'_>) -> Result<Java, ErrorBody> {
        let java = find(config, &caller).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "java not found: JAVA_HOME is not set and no java is on PATH",
                install_hint(Os::CURRENT),
            )
        })?;
        if !java.is_file() {
            return Err(ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!(
                    "java not found at {} (JAVA_HOME or the config names it)",
                    java.display()
                ),
                install_hint(Os::CURRENT),
            ));
        }
        Ok(Java { java })
    }
}

/// The JVM adapter's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "java",
    adapter_id: "java",
    // The JVM is started by this adapter, on the channels when they are given: stdin and
    // stdout (a terminal with `--tty`). Its stderr stays a pipe, which tells why a JVM that
    // ends before it connects ended.
    stdio: Some(StdioSupport {
        route: StdioRoute::Told,
        by_default: false,
        stderr: false,
    }),
    // An uncaught exception stops where it was thrown unless the user says otherwise.
    exception_filters: &["uncaught"],
    // A test's failure is uncaught as far as the program goes: JUnit calls the test through the
    // runtime's reflection, which catches it (see `debuggee::set_exception_stops`), and an
    // exception a test expects (`assertThrows`) is caught by JUnit's own code, which is no stop.
    failure_exception_filters: &["uncaught"],
    exception_stops: Some("caught/uncaught"),
    exception_classes: Some("Java Exceptions"),
    // A finish watches its method's returns (JDWP's method-exit-with-return-value) and shows
    // the value in the caller's frame as a scope of its own (`debuggee/returns.rs`).
    return_value: ReturnValueSource::Scope {
        missing: "the method did not return: an exception left it",
    },
    // `attach --connect` dials the JVM's JDWP agent from the adapter (`attach.rs`).
    connects_itself: true,
    runtime_frames: super::runtime_frames::jvm,
    // A logpoint's `{expression}` is text in a line: a string's own characters, as the
    // adapters that print logpoints themselves write them.
    // A condition that does not parse is refused when it is set (`debuggee/conditions.rs`).
    conditions: ConditionHandling {
        refusal: |answer| {
            refused_with_prefix(answer, debuggee::conditions::REFUSED).map(str::to_string)
        },
        ..ConditionHandling::DEFAULT
    },
    value_reading: ValueReading {
        logpoint_context: EvaluateContext::Log,
        ..ValueReading::DEFAULT
    },
    ..Profile::PLAIN
};

impl DebugAdapter for Java {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.java
    }

    fn spawn<'a>(
        &'a self,
        start: Start<'a>,
    ) -> BoxFuture<'a, Result<super::process::SpawnedAdapter, ErrorBody>> {
        let settings = debuggee::Settings {
            java: self.java.clone(),
            launch_timeout: CONNECT_TIMEOUT,
        };
        Box::pin(async move {
            start.one_way()?;
            Ok(server::start(settings))
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, stdio: Option<&StdioPaths>) -> Value {
        launch_with(
            spec,
            json!({
                "type": "java",
                "request": "launch",
                "java": self.java,
                "connect": spec.connect,
                // A program given as its main class's name runs from this class path.
                "classpath": spec.options.jvm.classpath,
                // The session's channels, given only for `--tty` and `--stdin`.
                "stdio": stdio,
            }),
        )
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({
            "type": "java",
            "request": "attach",
            "address": spec.connect,
            "processId": spec.pid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_java_executable_is_told_from_a_program() {
        assert!(is_java_runtime(Path::new("/usr/bin/java")));
        assert!(is_java_runtime(Path::new("java")));
        assert!(is_java_runtime(Path::new("/opt/jdk/bin/java.exe")));
        assert!(!is_java_runtime(Path::new("Main.java")));
        assert!(!is_java_runtime(Path::new("javac")));
    }
}
