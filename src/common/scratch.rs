//! Private scratch files: for data an adapter hands over through the file system (lldb writes the
//! memory it reads to a file we name).
//!
//! The file is created by us, new (never an existing file or a planted symlink), mode 0600, in the
//! private runtime directory, and removed when dropped, so what the program held in memory is
//! neither readable by other users nor left behind.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;

/// Attempts at a fresh name before giving up (a clash needs another process guessing ours).
const NAME_ATTEMPTS: u32 = 8;

/// An empty file of ours, removed on drop.
#[derive(Debug)]
pub struct ScratchFile {
    path: PathBuf,
}

impl ScratchFile {
    /// A new empty file named `<purpose>-<pid>-<n>-<nanos>` in the runtime directory.
    pub fn create(purpose: &str) -> Result<ScratchFile, ErrorBody> {
        let dir = paths::ensure_runtime_dir()?;
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
        if let Err(e) = std::fs::remove_file(&self.path)
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!("cannot remove {}: {e}", self.path.display());
        }
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

    #[test]
    fn an_existing_path_is_never_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let planted = dir.path().join("planted");
        std::fs::write(&planted, "x").expect("write");
        let err = new_private_file(&planted).expect_err("must not open an existing file");
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    }
}
