//! The session socket: its name, connecting (blocking, for the CLI), listening (async, for the
//! daemon), and the lock file that tells a live daemon from a stale socket.
//!
//! A daemon holds an exclusive lock on `<session>.lock` for its whole life (`File::try_lock`:
//! `flock` on Unix, `LockFileEx` on Windows). The OS drops the lock when the process dies however
//! it dies, so "the lock can be taken" means "no daemon
//! is alive" with no pid files and no guessing; a socket file found then is stale and is removed.
//! The lock file holds the daemon's pid as text, trusted only while the lock is held, so a
//! daemon that stops answering can still be ended (`stop`).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use interprocess::local_socket::{ListenerOptions, prelude::*, tokio::Listener};

use crate::common::user_files;
use crate::platform;

/// The blocking stream the CLI uses.
pub type BlockingStream = interprocess::local_socket::Stream;
/// The async stream the daemon uses.
pub type AsyncStream = interprocess::local_socket::tokio::Stream;

/// Connects to a daemon's socket.
pub fn connect_blocking(path: &Path) -> io::Result<BlockingStream> {
    BlockingStream::connect(platform::local_socket_name(path)?)
}

/// Bounds each read and write on `stream` by `timeout` (`None`: no bound): a read past it fails
/// with `WouldBlock` or `TimedOut`, as the OS says.
pub fn set_deadlines(stream: &BlockingStream, timeout: Option<Duration>) -> io::Result<()> {
    stream.set_recv_timeout(timeout)?;
    stream.set_send_timeout(timeout)
}

/// Whether `error` is a read or write that ran out its time (see [`set_deadlines`]).
pub fn timed_out(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// The local socket a `--connect` address names (`/tmp/ruby-debug-sock-0/ruby-debug-me-42`):
/// one with a path separator, which no HOST:PORT has.
pub fn socket_path(address: &str) -> Option<&Path> {
    address.contains(['/', '\\']).then(|| Path::new(address))
}

/// Connects to a daemon's socket from async code (a `probe` borrowing the daemon's warm adapter).
pub async fn connect_async(path: &Path) -> io::Result<AsyncStream> {
    use interprocess::local_socket::traits::tokio::Stream as _;
    AsyncStream::connect(platform::local_socket_name(path)?).await
}

/// Listens on a daemon's socket. The caller holds the session lock, so any file already at the
/// path is stale and is replaced.
///
/// The listener does not remove its file when dropped: the daemon removes it (while it still
/// holds the lock) as it gives up the name, so it can never delete a successor's socket.
pub fn listen(path: &Path) -> io::Result<Listener> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    platform::private_listener(
        ListenerOptions::new()
            .name(platform::local_socket_name(path)?)
            .reclaim_name(false),
    )?
    .create_tokio()
}

/// A session name held by a daemon: its lock and its socket file.
///
/// Both are files in the runtime dir, which someone may delete (a `rm -rf` of the temp dir, a
/// cleaner): the daemon would still run, but nobody could reach it, and a new daemon could take
/// the name beside it. [`NameGuard::intact`] tells whether the files at the paths are still this
/// daemon's, so the daemon can notice the loss and end (see `daemon/server.rs`).
#[derive(Debug)]
pub struct NameGuard {
    lock: SessionLock,
    socket: PathBuf,
    /// The socket file as bound; `None` where the socket is no file (a Windows named pipe).
    socket_file: Option<std::fs::Metadata>,
}

impl NameGuard {
    /// Holds `lock` and the socket just bound at `socket`.
    pub fn new(lock: SessionLock, socket: PathBuf) -> NameGuard {
        let socket_file = std::fs::symlink_metadata(&socket).ok();
        NameGuard {
            lock,
            socket,
            socket_file,
        }
    }

    /// Whether the lock file and the socket file at their paths are still the ones this daemon
    /// holds: false once either was deleted or replaced.
    pub fn intact(&self) -> bool {
        let lock_held = self
            .lock
            .file
            .metadata()
            .is_ok_and(|held| still_at(&held, &self.lock.path));
        let socket_held = self
            .socket_file
            .as_ref()
            .is_none_or(|held| still_at(held, &self.socket));
        lock_held && socket_held
    }

    /// Removes the socket, then releases the lock: from here on a new daemon may take the name.
    /// A socket that is no longer ours (the runtime dir was deleted, and another daemon bound
    /// the path since) is left alone.
    pub fn release(self) {
        let ours = self
            .socket_file
            .as_ref()
            .is_none_or(|held| still_at(held, &self.socket));
        if ours {
            let _ = std::fs::remove_file(&self.socket);
        }
        drop(self.lock);
    }
}

/// Whether the file at `path` is the one `held` describes. The modification time is compared
/// too: a file system may give a new file the number of one just deleted, and the new file's
/// time tells them apart.
fn still_at(held: &std::fs::Metadata, path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|now| {
        platform::same_file(held, &now) && held.modified().ok() == now.modified().ok()
    })
}

/// The session lock, held by a live daemon for as long as it runs.
#[derive(Debug)]
pub struct SessionLock {
    file: File,
    path: PathBuf,
}

impl SessionLock {
    /// Takes the lock if no live process holds it. `Ok(None)` means another daemon is alive.
    pub fn try_acquire(path: &Path) -> io::Result<Option<SessionLock>> {
        let file =
            platform::private_file(OpenOptions::new().create(true).truncate(false).write(true))
                .open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(SessionLock {
                file,
                path: path.to_path_buf(),
            })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

impl SessionLock {
    /// Writes this process's pid into the lock file, for [`daemon_pid`].
    pub fn record_pid(&mut self) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file
            .write_all(std::process::id().to_string().as_bytes())?;
        self.file.flush()
    }
}

/// The pid of the daemon that holds the lock at `lock_path`: `None` when no daemon holds it,
/// or its pid cannot be read (a daemon from before pids were recorded; Windows, where the held
/// lock keeps others from reading the file).
pub fn daemon_pid(lock_path: &Path) -> Option<u32> {
    if !daemon_alive(lock_path) {
        return None;
    }
    let text = user_files::read_regular_to_string(lock_path).ok()?;
    text.trim().parse().ok()
}

/// True when a daemon holds the session's lock.
pub fn daemon_alive(lock_path: &Path) -> bool {
    !matches!(SessionLock::try_acquire(lock_path), Ok(Some(_)))
}

/// Removes a socket whose daemon is gone. Returns true when one was removed.
pub fn remove_stale_socket(socket_path: &Path, lock_path: &Path) -> bool {
    match SessionLock::try_acquire(lock_path) {
        Ok(Some(_lock)) => std::fs::remove_file(socket_path).is_ok(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_is_exclusive_and_released_on_drop() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("s.lock");
        let first = SessionLock::try_acquire(&path).expect("lock");
        assert!(first.is_some());
        assert!(daemon_alive(&path));
        drop(first);
        assert!(!daemon_alive(&path));
    }

    #[test]
    fn a_name_whose_files_are_deleted_or_replaced_is_no_longer_intact() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (sock, lock) = (tmp.path().join("s.sock"), tmp.path().join("s.lock"));
        std::fs::write(&sock, b"").expect("write");
        // Bound a while ago, as a daemon's socket is by the time it is replaced.
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&sock)
            .and_then(|f| f.set_modified(an_hour_ago))
            .expect("set the time");
        let held = SessionLock::try_acquire(&lock)
            .expect("lock")
            .expect("free");
        let guard = NameGuard::new(held, sock.clone());
        assert!(guard.intact());
        std::fs::remove_file(&sock).expect("remove");
        std::fs::write(&sock, b"another daemon's").expect("write");
        assert!(!guard.intact());
        guard.release();
        assert!(sock.exists(), "a successor's socket is left alone");

        // On Windows a deleted file that is open stays until its last handle closes (Wine
        // keeps it at its path meanwhile): a live daemon's lock file cannot go.
        #[cfg(unix)]
        {
            let held = SessionLock::try_acquire(&lock)
                .expect("lock")
                .expect("free");
            let guard = NameGuard::new(held, sock.clone());
            assert!(guard.intact());
            std::fs::remove_file(&lock).expect("remove");
            assert!(!guard.intact());
        }
    }

    #[test]
    fn stale_socket_is_removed_only_without_a_daemon() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let sock = tmp.path().join("s.sock");
        let lock = tmp.path().join("s.lock");
        std::fs::write(&sock, b"").expect("write");
        let held = SessionLock::try_acquire(&lock).expect("lock");
        assert!(!remove_stale_socket(&sock, &lock));
        assert!(sock.exists());
        drop(held);
        assert!(remove_stale_socket(&sock, &lock));
        assert!(!sock.exists());
    }
}
