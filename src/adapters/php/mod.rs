//! PHP through Xdebug 3: an adapter that runs inside the daemon, speaks DAP to the session and
//! DBGp to Xdebug, which the PHP process dials in to us with. A machine with `php` and its
//! Xdebug extension needs nothing else to debug PHP.
//!
//! - `dbgp`: our DBGp client (the wire, its XML, a script's connection).
//! - `launch`: PHP started with `-d` flags that make Xdebug dial in to us.
//! - `server`: the DAP side (the in-memory stream the session talks over), reading each
//!   request into its typed arguments (`requests`) and answering through the `outbox`,
//!   failures as a typed `error`; PHP's own streams come through `output`.
//! - `debuggee`: the translation, request by request, and PHP's values as DAP variables.

mod dbgp;
mod debuggee;
mod error;
mod launch;
mod requests;
mod server;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::install::{self, Software};
use super::process::BoxFuture;
use super::{
    Attaching, CallerEnv, DebugAdapter, Profile, SourceLookup, SourceRoots, Start, launch_with,
    source_roots,
};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{AttachSpec, LaunchSpec, StdioPaths};
use crate::platform::Os;

/// How long PHP may take to connect to us after it is started.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to get PHP with Xdebug on `os` when none is found.
pub fn install_hint(os: Os) -> String {
    format!(
        "install PHP ({}) and Xdebug ({}), or set adapters.xdebug.path to a php",
        install::install_hint(Software::Php, os),
        install::install_hint(Software::Xdebug, os)
    )
}

/// The `php` the config names, else the one on the caller's PATH.
pub fn find(config: &AdapterConfig, caller: &CallerEnv<'_>) -> Option<PathBuf> {
    if let Some(path) = &config.path {
        return Some(path.clone());
    }
    caller.which(Os::CURRENT.executable("php").as_ref())
}

/// Whether `program` is the `php` executable itself (`php`, `php8.2`): `start -- php -d… x.php`
/// runs PHP with its own command line.
pub fn is_php_runtime(program: &Path) -> bool {
    program
        .file_stem()
        .and_then(|n| n.to_str())
        .is_some_and(|name| {
            name.strip_prefix("php")
                .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
        })
        && program.extension().is_none_or(|e| {
            e == "exe"
                || e.to_str()
                    .is_some_and(|e| e.chars().all(|c| c.is_ascii_digit()))
        })
}

/// The version of the `php` at `path` (`8.2.29`), with Xdebug's when it is loaded
/// (`8.2.29, Xdebug 3.2.0`), from `php -v`.
pub fn version(path: &Path) -> Option<String> {
    let output = Command::new(path).arg("-v").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let php = text.lines().next()?.split_whitespace().nth(1)?.to_string();
    let xdebug = text
        .lines()
        .find_map(|line| line.split("with Xdebug v").nth(1))
        .and_then(|rest| rest.split([',', ' ']).next());
    Some(match xdebug {
        Some(xdebug) => format!("{php}, Xdebug {xdebug}"),
        None => format!("{php}, without Xdebug"),
    })
}

pub struct Php {
    php: PathBuf,
}

impl Php {
    pub fn locate(config: &AdapterConfig, caller: CallerEnv<'_>) -> Result<Php, ErrorBody> {
        let php = find(config, &caller).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                "php not found on PATH",
                install_hint(Os::CURRENT),
            )
        })?;
        if !php.is_file() {
            return Err(ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("php not found at {} (the config names it)", php.display()),
                install_hint(Os::CURRENT),
            ));
        }
        Ok(Php { php })
    }
}

/// The PHP adapter's profile (see [`Profile`]).
pub const PROFILE: Profile = Profile {
    name: "xdebug",
    adapter_id: "php",
    // An exception nothing catches stops where it was thrown, as a PHP user expects.
    exception_filters: &["uncaught"],
    // PHPUnit catches a failed assertion, so it is no uncaught exception: a test stops at its
    // failure by the class every assertion failure is (`ExpectationFailedException` is one).
    failure_exception_filters: &["uncaught", "PHPUnit\\Framework\\AssertionFailedError"],
    exception_stops: Some("all/uncaught"),
    // `catch CLASS` stops on exceptions of that class or a subclass (DBGp's exception
    // breakpoints by name).
    exception_classes: Some("PHP Exceptions"),
    attaching: Attaching::Unsupported(
        "Xdebug connects to a debugger only from a PHP started with \
         xdebug.start_with_request, as 'debugger start' starts it",
    ),
    // A script program is the PHP files of its folder tree; Composer's `vendor` holds its
    // dependencies. Xdebug takes only absolute paths, so every name is placed here.
    source_lookup: SourceLookup {
        tree_extensions: &["php"],
        listing_command: None,
        listing_grows: false,
        adapter_matches_names: false,
        // A library the program includes from PHP's `include_path` (Debian's /usr/share/php)
        // is found there (`source_roots`).
        roots_are_trees: true,
        dependency_folders: &["vendor"],
    },
    ..Profile::PLAIN
};

impl DebugAdapter for Php {
    fn profile(&self) -> &Profile {
        &PROFILE
    }

    fn executable(&self) -> &Path {
        &self.php
    }

    fn spawn<'a>(
        &'a self,
        start: Start<'a>,
    ) -> BoxFuture<'a, Result<super::process::SpawnedAdapter, ErrorBody>> {
        let settings = debuggee::Settings {
            php: self.php.clone(),
            launch_timeout: CONNECT_TIMEOUT,
        };
        Box::pin(async move {
            start.one_way()?;
            Ok(server::start(settings))
        })
    }

    fn launch_arguments(&self, spec: &LaunchSpec, _stdio: Option<&StdioPaths>) -> Value {
        launch_with(
            spec,
            json!({
                "type": "php",
                "request": "launch",
                "php": self.php,
                "connect": spec.connect,
            }),
        )
    }

    /// PHP's `include_path` as the program's PHP says with its environment and folder (Debian's
    /// `.:/usr/share/php`), each folder made absolute; PHP has no library of its own in PHP.
    fn source_roots(&self, spec: &LaunchSpec) -> SourceRoots {
        const SCRIPT: &str = "echo \"\\n\\n\"; foreach (explode(PATH_SEPARATOR, get_include_path()) as $p) \
            { $r = realpath($p); if ($r !== false) echo $r, \"\\n\"; }";
        let php = match is_php_runtime(&spec.program) {
            true => &spec.program,
            false => &self.php,
        };
        source_roots::printed_by(php, &["-r", SCRIPT], spec)
    }

    fn attach_arguments(&self, _spec: &AttachSpec) -> Value {
        json!({ "type": "php", "request": "attach" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_php_executable_is_told_from_a_script() {
        assert!(is_php_runtime(Path::new("/usr/bin/php")));
        assert!(is_php_runtime(Path::new("php8.2")));
        assert!(is_php_runtime(Path::new("C:/php/php.exe")));
        assert!(!is_php_runtime(Path::new("index.php")));
        assert!(!is_php_runtime(Path::new("phpunit")));
    }
}
