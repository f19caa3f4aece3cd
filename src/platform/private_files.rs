//! Files the daemon appends to in its private directories (its log), opened so that nothing
//! planted there can redirect or expose what it writes.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Whether the state directory (logs) is held to the runtime directory's privacy check. On
/// Windows it is the user's own `AppData\Local`, closed to others by the profile's access list,
/// whose inherited entries (Wine's `Everyone`) the check would refuse for no gain.
pub const STATE_DIR_CHECKED: bool = cfg!(unix);

/// Opens `path` for appending, created readable by this user alone. On Unix a symbolic link
/// there is refused rather than followed, and a file that is not a regular file of this user's
/// is refused; one of ours that others can read is closed to them before anything is written.
#[cfg(unix)]
pub fn open_private_append(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    if meta.uid() != uid {
        return Err(io::Error::other(format!(
            "{} is owned by uid {}, not by this user (uid {uid})",
            path.display(),
            meta.uid()
        )));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// Opens `path` for appending; the directory's access list (made private) covers the file.
#[cfg(windows)]
pub fn open_private_append(path: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_symbolic_link_is_refused_and_an_open_file_is_closed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "theirs").expect("write");
        let link = dir.path().join("daemon.log");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        assert!(open_private_append(&link).is_err());
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "theirs");

        let open = dir.path().join("open.log");
        std::fs::write(&open, "").expect("write");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        open_private_append(&open).expect("ours");
        let mode = std::fs::metadata(&open).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");

        let fifo = dir.path().join("fifo.log");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        assert!(open_private_append(&fifo).is_err());
    }
}
