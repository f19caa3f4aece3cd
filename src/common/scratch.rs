//! A process's private scratch folder, `<runtime dir>/scratch-<pid>`: every file a daemon or a
//! `probe` makes while it runs (the program's channels, an adapter's build product, data an
//! adapter hands over through the file system, as lldb writes the memory it reads to a file we
//! name), so that one folder holds all it may leave behind.
//!
//! Each file goes when its session is done with it; the folder goes when the process ends: by
//! itself on a clean exit, by its reaper when it was killed outright (`daemon/reaper.rs`), and, were
//! the reaper killed too, by the next daemon to start, which removes the folders of processes
//! that are gone ([`sweep_dead`]).
//!
//! A scratch file is created by us, new (never an existing file or a planted symlink), mode 0600,
//! in the private runtime directory, and removed when dropped, so what the program held in memory
//! is neither readable by other users nor left behind.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;

/// How a scratch folder's name begins; the owner's pid follows.
const DIR_PREFIX: &str = "scratch-";

/// The scratch folder of process `pid` in `runtime` (the runtime dir).
pub fn dir_of(runtime: &Path, pid: u32) -> PathBuf {
    runtime.join(format!("{DIR_PREFIX}{pid}"))
}

/// This process's scratch folder, not created: what it makes goes below it, created with it
/// (`platform::create_private_dir` makes the parents too).
pub fn own_dir() -> PathBuf {
    dir_of(&paths::runtime_dir_path(), std::process::id())
}

/// This process's scratch folder, created private if missing (in a runtime dir checked private).
pub fn ensure_own_dir() -> Result<PathBuf, ErrorBody> {
    let dir = dir_of(&paths::ensure_runtime_dir()?, std::process::id());
    crate::platform::create_private_dir(&dir).map_err(|e| {
        ErrorBody::new(
            ErrorCode::Internal,
            format!("cannot create the scratch folder {}: {e}", dir.display()),
            "check that the runtime directory is writable ('debugger doctor' shows it)",
        )
    })?;
    Ok(dir)
}

/// Removes a scratch folder (or file) and all it holds; one that is not there is no error.
pub fn remove(path: &Path) {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    if let Err(e) = removed
        && e.kind() != io::ErrorKind::NotFound
    {
        tracing::warn!("cannot remove {}: {e}", path.display());
    }
}

/// Removes the scratch folders in `runtime` whose process is gone: what a process left when it
/// was killed outright along with its reaper. One whose pid is alive again (reused) is left.
pub fn sweep_dead(runtime: &Path) {
    let Ok(entries) = std::fs::read_dir(runtime) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(DIR_PREFIX))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !crate::platform::process_exists(pid) {
            tracing::info!(pid, "removing the scratch folder of a process that is gone");
            remove(&entry.path());
        }
    }
}

/// Attempts at a fresh name before giving up (a clash needs another process guessing ours).
const NAME_ATTEMPTS: u32 = 8;

/// An empty file of ours, removed on drop.
#[derive(Debug)]
pub struct ScratchFile {
    path: PathBuf,
}

impl ScratchFile {
    /// A new empty file named `<purpose>-<pid>-<n>-<nanos>` in this process's scratch folder.
    pub fn create(purpose: &str) -> Result<ScratchFile, ErrorBody> {
        let dir = ensure_own_dir()?;
        ScratchFile::create_in(&dir, purpose).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot create a scratch file in {}: {e}", dir.display()),
                "check that the runtime directory is writable ('debugger doctor' shows it)",
            )
        })
    }

    /// [`ScratchFile::create`] in `dir` (which the caller has checked is private).
    pub fn create_in(dir: &Path, purpose: &str) -> io::Result<ScratchFile> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut last_error = None;
        for _ in 0..NAME_ATTEMPTS {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let name = format!(
                "{purpose}-{}-{}-{nanos}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let path = dir.join(name);
            match new_private_file(&path) {
                Ok(_) => return Ok(ScratchFile { path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_error = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no free name")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

/// Creates `path`, failing if anything (a file, a symlink) is already there.
fn new_private_file(path: &Path) -> io::Result<File> {
    crate::platform::private_file(OpenOptions::new().write(true).create_new(true)).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_new_private_and_removed_on_drop() {
        let dir = tempfile::tempdir().expect("tempdir");
        let scratch = ScratchFile::create_in(dir.path(), "test").expect("create");
        let path = scratch.path().to_path_buf();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path)
                .expect("metadata")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let other = ScratchFile::create_in(dir.path(), "test").expect("create");
        assert_ne!(other.path(), path);
        drop(scratch);
        assert!(!path.exists());
    }

    /// Unix: a process that is gone is made with `true`, which Windows has not.
    #[cfg(unix)]
    #[test]
    fn the_sweep_removes_only_the_folders_of_processes_that_are_gone() {
        let runtime = tempfile::tempdir().expect("tempdir");
        let mine = dir_of(runtime.path(), std::process::id());
        std::fs::create_dir_all(mine.join("io-0")).expect("mkdir");
        let mut ended = std::process::Command::new("true")
            .spawn()
            .expect("run true");
        let gone = dir_of(runtime.path(), ended.id());
        ended.wait().expect("wait for true");
        std::fs::create_dir_all(gone.join("io-3")).expect("mkdir");
        let other = runtime.path().join("scratch-notes");
        std::fs::create_dir(&other).expect("mkdir");
        sweep_dead(runtime.path());
        assert!(mine.join("io-0").is_dir());
        assert!(!gone.exists());
        assert!(other.is_dir());
    }

    #[test]
    fn an_existing_path_is_never_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let planted = dir.path().join("planted");
        std::fs::write(&planted, "x").expect("write");
        let err = new_private_file(&planted).expect_err("must not open an existing file");
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    }
}
