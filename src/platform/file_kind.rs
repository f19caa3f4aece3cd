//! What kind of file a path names, and opening one for reading without waiting on it.
//!
//! A FIFO's `open` for reading blocks until a writer comes, and a device's read may never end:
//! the daemon serves every client on one thread, so one such open of a path the user named
//! (a program, a breakpoint's file, a core) would stop it answering anyone. The kinds are told
//! apart from the metadata, before any open; Windows has no FIFOs, sockets or devices in its
//! file system, so anything there that is neither a file nor a directory is `Other`.

use std::fs::{File, FileType, OpenOptions};
use std::io;
use std::path::Path;

/// The kind of a file system entry, symbolic links followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Directory,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    /// Anything else this OS has (never a regular file or a directory).
    Other,
}

impl FileKind {
    pub fn of(file_type: FileType) -> FileKind {
        if file_type.is_file() {
            FileKind::Regular
        } else if file_type.is_dir() {
            FileKind::Directory
        } else {
            special(file_type)
        }
    }

    /// The kind of what `path` names (a symbolic link's target).
    pub fn at(path: &Path) -> io::Result<FileKind> {
        std::fs::metadata(path).map(|meta| FileKind::of(meta.file_type()))
    }

    /// The kind with its article, as a sentence names it: "a FIFO".
    pub fn noun(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Fifo => "a FIFO",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Other => "not a regular file",
        }
    }
}

#[cfg(unix)]
fn special(file_type: FileType) -> FileKind {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        FileKind::Fifo
    } else if file_type.is_socket() {
        FileKind::Socket
    } else if file_type.is_char_device() {
        FileKind::CharDevice
    } else if file_type.is_block_device() {
        FileKind::BlockDevice
    } else {
        FileKind::Other
    }
}

#[cfg(windows)]
fn special(_file_type: FileType) -> FileKind {
    FileKind::Other
}

/// Opens `path` for reading in a way that never waits for a writer: `O_NONBLOCK` on Unix (which
/// changes nothing for a regular file's reads), a plain open on Windows, whose file system holds
/// no FIFOs. The caller checks what it opened (`File::metadata`), as the path may have been
/// replaced since it was looked at.
pub fn open_for_reading_at_once(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_directories_are_told_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f");
        std::fs::write(&file, "x").expect("write");
        assert_eq!(FileKind::at(&file).expect("kind"), FileKind::Regular);
        assert_eq!(FileKind::at(dir.path()).expect("kind"), FileKind::Directory);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_named_and_opened_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("p");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        assert_eq!(FileKind::at(&fifo).expect("kind"), FileKind::Fifo);
        let opened = open_for_reading_at_once(&fifo).expect("opened at once");
        assert_eq!(
            FileKind::of(opened.metadata().expect("fstat").file_type()),
            FileKind::Fifo
        );
        assert_eq!(
            FileKind::at(Path::new("/dev/null")).expect("kind"),
            FileKind::CharDevice
        );
    }
}
