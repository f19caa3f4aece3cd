//! Where sockets, logs and configuration live.
//!
//! The socket of a session lets whoever reaches it run code as the user, so the runtime
//! directory that holds it must be private: created 0700, owned by the user, closed to group and
//! others. We check that on every use and refuse (never silently chmod) when it is not.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::error::{ErrorBody, ErrorCode};
use crate::platform;

/// The environment variable that overrides the runtime directory (tests use a temp dir each).
pub const RUNTIME_DIR_ENV: &str = "DEBUGGER_RUNTIME_DIR";
/// The environment variable that names the config file to read instead of the default one.
pub const CONFIG_ENV: &str = "DEBUGGER_CONFIG";
/// The environment variable that overrides the data directory (what `setup` installs).
pub const DATA_DIR_ENV: &str = "DEBUGGER_DATA_DIR";
/// The environment variable that overrides the state directory (daemon logs).
pub const STATE_DIR_ENV: &str = "DEBUGGER_STATE_DIR";
/// The environment variable that overrides the cache directory (what can be rebuilt at will).
pub const CACHE_DIR_ENV: &str = "DEBUGGER_CACHE_DIR";

/// The path an environment variable names, absolute: a relative one is taken from the
/// directory this process started in, so it still means the same place after the daemon moves
/// to `/` (and to the daemon as to the client that spawned it there).
fn path_from_env(variable: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(variable).filter(|d| !d.is_empty())?);
    if dir.is_absolute() {
        return Some(dir);
    }
    Some(match start_dir() {
        Some(start) => start.join(dir),
        None => dir,
    })
}

/// The working directory at the first question about it. The daemon asks before it leaves for
/// `/` (see [`pin_start_dir`]).
fn start_dir() -> Option<&'static Path> {
    static START: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    START
        .get_or_init(|| std::env::current_dir().ok())
        .as_deref()
}

/// Remembers the working directory now, for the relative directories of the environment; the
/// daemon calls it before it changes to `/`.
pub fn pin_start_dir() {
    let _ = start_dir();
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "debugger")
}

/// The session a command talks to when none is named.
pub const DEFAULT_SESSION: &str = "default";

/// The runtime directory without creating or checking it.
pub fn runtime_dir_path() -> PathBuf {
    if let Some(dir) = path_from_env(RUNTIME_DIR_ENV) {
        return dir;
    }
    if let Some(xdg) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(xdg).join("debugger");
    }
    std::env::temp_dir().join(format!("debugger-{}", platform::user_tag()))
}

/// One of the directories only this user may enter: the runtime directory (sockets that run
/// code as the user) and the state directory (logs of program output and expressions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivateDir {
    Runtime,
    State,
}

impl PrivateDir {
    fn noun(self) -> &'static str {
        match self {
            PrivateDir::Runtime => "runtime directory",
            PrivateDir::State => "state directory",
        }
    }

    fn variable(self) -> &'static str {
        match self {
            PrivateDir::Runtime => RUNTIME_DIR_ENV,
            PrivateDir::State => STATE_DIR_ENV,
        }
    }

    fn path(self) -> PathBuf {
        match self {
            PrivateDir::Runtime => runtime_dir_path(),
            PrivateDir::State => state_dir(),
        }
    }

    /// The directory, created 0700 if missing, and checked to be private.
    pub fn ensure(self) -> Result<PathBuf, ErrorBody> {
        let dir = self.path();
        match platform::create_private_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(ErrorBody::new(
                    ErrorCode::Ipc,
                    format!("cannot create the {} {}: {e}", self.noun(), dir.display()),
                    format!("set {} to a directory you own", self.variable()),
                ));
            }
        }
        if self == PrivateDir::State && !platform::STATE_DIR_CHECKED {
            return Ok(dir);
        }
        self.check(&dir)?;
        Ok(dir)
    }

    /// Refuses a directory that is not owned by this user or that group or others can enter.
    pub fn check(self, dir: &Path) -> Result<(), ErrorBody> {
        let (noun, variable) = (self.noun(), self.variable());
        // Not through a symlink: one planted by another user could be pointed elsewhere later.
        let meta = fs::symlink_metadata(dir).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Ipc,
                format!("cannot read the {noun} {}: {e}", dir.display()),
                format!("set {variable} to a directory you own"),
            )
        })?;
        if meta.file_type().is_symlink() {
            return Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!("the {noun} {} is a symbolic link", dir.display()),
                format!("remove it, or set {variable} to a private directory of yours"),
            ));
        }
        if !meta.is_dir() {
            // Judged before its mode, which would ask for a chmod that cannot help.
            let kind = platform::FileKind::of(meta.file_type());
            return Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!(
                    "the {noun} {} is {}, not a directory",
                    dir.display(),
                    kind.noun()
                ),
                format!("remove it, or set {variable} to a private directory of yours"),
            ));
        }
        match platform::privacy_problem(dir, &meta) {
            None => Ok(()),
            Some((what, fix)) => Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!("the {noun} {} {what}", dir.display()),
                format!("{fix}, or set {variable} to a private directory of yours"),
            )),
        }
    }
}

/// The runtime directory, created 0700 if missing, and checked to be private.
pub fn ensure_runtime_dir() -> Result<PathBuf, ErrorBody> {
    PrivateDir::Runtime.ensure()
}

/// Refuses a runtime directory that is not owned by this user or that others can enter.
pub fn check_private(dir: &Path) -> Result<(), ErrorBody> {
    PrivateDir::Runtime.check(dir)
}

/// The socket a session's daemon listens on.
pub fn socket_path(runtime_dir: &Path, session: &str) -> PathBuf {
    runtime_dir.join(format!("{session}.sock"))
}

/// The lock file a session's daemon holds for its whole life: held means alive.
pub fn lock_path(runtime_dir: &Path, session: &str) -> PathBuf {
    runtime_dir.join(format!("{session}.lock"))
}

/// Checks a session name: it becomes a file name, so no separators or dots at the front.
pub fn validate_session_name(name: &str) -> Result<(), ErrorBody> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(ErrorBody::usage(
            format!("invalid session name '{}'", super::escape::one_line(name)),
            "use up to 64 letters, digits, '-', '_' or '.', not starting with '.'",
        ))
    }
}

/// Where the daemon writes its logs.
pub fn state_dir() -> PathBuf {
    if let Some(dir) = path_from_env(STATE_DIR_ENV) {
        return dir;
    }
    project_dirs()
        .map(|d| {
            d.state_dir()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| d.data_local_dir().to_path_buf())
        })
        .unwrap_or_else(|| runtime_dir_path().join("state"))
}

/// Where `debugger setup` keeps what it installs (e.g. debugpy's private virtual environment).
pub fn data_dir() -> PathBuf {
    if let Some(dir) = path_from_env(DATA_DIR_ENV) {
        return dir;
    }
    project_dirs()
        .map(|d| d.data_local_dir().to_path_buf())
        .unwrap_or_else(|| std::env::temp_dir().join("debugger-data"))
}

/// Where what can be rebuilt at will is kept (GDB's compiled Python, LLDB's index); `None` when
/// the user has no cache directory: not the temp dir, whose files another user could plant.
fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = path_from_env(CACHE_DIR_ENV) {
        return Some(dir);
    }
    project_dirs().map(|d| d.cache_dir().to_path_buf())
}

/// The private (0700) directory `name` in the cache directory, made if missing, for what an
/// adapter keeps between starts; `None` when there is no cache directory or it cannot be made
/// (the adapter then does without: a cache only saves time).
pub fn private_cache_dir(name: &str) -> Option<PathBuf> {
    private_dir_in(&cache_dir()?, name)
}

/// `base/name`, made 0700 if missing. One already there is taken only if it is private too (not
/// a symbolic link, owned by this user, closed to others): what the adapters keep there is run
/// (GDB's compiled Python) or trusted (LLDB's index), and a directory another user can write
/// would let them plant it.
fn private_dir_in(base: &Path, name: &str) -> Option<PathBuf> {
    let dir = base.join(name);
    let problem = match platform::create_private_dir(&dir) {
        Ok(()) => fs::symlink_metadata(&dir)
            .map_err(|e| e.to_string())
            .and_then(|meta| match platform::privacy_problem(&dir, &meta) {
                _ if meta.file_type().is_symlink() => Err("is a symbolic link".to_string()),
                Some((what, _)) => Err(what),
                None => Ok(()),
            }),
        Err(e) => Err(e.to_string()),
    };
    match problem {
        Ok(()) => Some(dir),
        Err(why) => {
            tracing::warn!("the cache directory {} is not used: {why}", dir.display());
            None
        }
    }
}

/// The daemon log file of a session.
pub fn log_path(session: &str) -> PathBuf {
    state_dir().join(format!("daemon-{session}.log"))
}

/// The configuration file: `$DEBUGGER_CONFIG`, else `config.toml` in the user's config dir.
pub fn config_path() -> Option<PathBuf> {
    if let Some(path) = path_from_env(CONFIG_ENV) {
        return Some(path);
    }
    project_dirs().map(|d| d.config_dir().join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names() {
        assert!(validate_session_name("default").is_ok());
        assert!(validate_session_name("test-1_a.b").is_ok());
        assert!(validate_session_name("").is_err());
        assert!(validate_session_name("../x").is_err());
        assert!(validate_session_name(".hidden").is_err());
        assert!(validate_session_name("a/b").is_err());
    }

    /// Unix modes and symlinks; Windows has neither to check this way.
    #[cfg(unix)]
    #[test]
    fn private_dir_checks() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("rt");
        crate::platform::create_private_dir(&dir).expect("mkdir");
        assert!(check_private(&dir).is_ok());
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        let err = check_private(&dir).expect_err("open dir must be refused");
        assert!(err.message.contains("open to other users"), "{err:?}");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).expect("symlink");
        let err = check_private(&link).expect_err("a symlink must be refused");
        assert!(err.message.contains("symbolic link"), "{err:?}");
    }

    /// An adapter's cache directory is made private, and one that is not is left unused.
    #[cfg(unix)]
    #[test]
    fn a_cache_dir_is_made_private_and_an_open_one_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let made = private_dir_in(tmp.path(), "made").expect("a new directory");
        let mode = fs::metadata(&made).expect("made").permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        assert_eq!(private_dir_in(tmp.path(), "made"), Some(made.clone()));
        fs::set_permissions(&made, fs::Permissions::from_mode(0o777)).expect("chmod");
        assert_eq!(private_dir_in(tmp.path(), "made"), None);
        std::os::unix::fs::symlink(tmp.path(), tmp.path().join("link")).expect("symlink");
        assert_eq!(private_dir_in(tmp.path(), "link"), None);
    }
}
