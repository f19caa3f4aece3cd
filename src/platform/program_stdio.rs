//! The launched program's standard output and error, as the daemon hands them to an adapter:
//! two FIFOs (one per stream, so stdout and stderr stay apart and neither is a terminal), or one
//! pseudo-terminal for `start --tty`. The adapter is told the paths (LLDB's
//! `target.output-path`, a redirection in GDB's shell command line) and the program opens them
//! itself; the daemon holds the reading ends.
//!
//! On Unix the daemon also holds a writing end of each FIFO (and the terminal's secondary side),
//! so a read never sees end-of-file before the program has opened its end, and reads are made
//! without blocking so the daemon can drain what a dead program left before it reports the end.
//! Windows has neither FIFOs nor ptys in this form: [`ProgramStdio::create`] says so, and the
//! session falls back to the adapter's own output events.

use std::io;
use std::path::{Path, PathBuf};

/// One stream the daemon reads: its name (`stdout`, `stderr`) and its reading end.
pub struct StreamReader {
    pub stream: &'static str,
    source: imp::Source,
}

impl StreamReader {
    /// Waits until the stream may have bytes to read.
    pub async fn readable(&self) -> io::Result<()> {
        self.source.readable().await
    }

    /// Reads what is there now; `WouldBlock` when nothing is. A terminal whose program side is
    /// gone answers end-of-file (0) rather than an error.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.source.try_read(buf)
    }
}

/// The program's output channels: the paths the adapter opens for it, and the readers.
pub struct ProgramStdio {
    /// Where the program's stdout goes.
    pub stdout: PathBuf,
    /// Where the program's stderr goes (the same terminal as stdout with `--tty`).
    pub stderr: PathBuf,
    pub readers: Vec<StreamReader>,
    /// What must stay open while the program runs, and the folder to remove at the end.
    keep: imp::Keep,
}

impl ProgramStdio {
    /// Creates the channels in `dir` (a private folder of the daemon's, created here and removed
    /// when this is dropped): two FIFOs, or one pseudo-terminal when `tty`.
    pub fn create(dir: &Path, tty: bool) -> io::Result<ProgramStdio> {
        imp::create(dir, tty)
    }

    /// The folder the channels live in (removed when this is dropped).
    pub fn dir(&self) -> &Path {
        self.keep.dir()
    }
}

#[cfg(unix)]
mod imp {
    use std::ffi::CString;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    use tokio::io::Interest;
    use tokio::io::unix::AsyncFd;

    use super::{ProgramStdio, StreamReader};

    pub struct Source(AsyncFd<File>);

    impl Source {
        pub async fn readable(&self) -> io::Result<()> {
            let mut guard = self.0.readable().await?;
            guard.clear_ready();
            Ok(())
        }

        pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
            use std::io::Read;
            match self.0.get_ref().read(buf) {
                // A terminal's reading side answers EIO once no program holds the other side.
                Err(e) if e.raw_os_error() == Some(libc::EIO) => Ok(0),
                other => other,
            }
        }
    }

    pub struct Keep {
        dir: PathBuf,
        /// Our writing ends of the FIFOs, or the pty's secondary side: never read or written,
        /// only held (see the module comment).
        held: Vec<OwnedFd>,
    }

    impl Keep {
        pub fn dir(&self) -> &Path {
            &self.dir
        }
    }

    impl Drop for Keep {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn c_path(path: &Path) -> io::Result<CString> {
        CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
    }

    fn open(path: &Path, flags: libc::c_int) -> io::Result<OwnedFd> {
        let c = c_path(path)?;
        // SAFETY: `c` is a valid NUL-terminated string; open returns a new descriptor or -1.
        let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a descriptor we own and nothing else holds.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    fn reader(stream: &'static str, fd: OwnedFd) -> io::Result<StreamReader> {
        // SAFETY: the File owns its descriptor for the AsyncFd's whole life and is never
        // swapped for another (register's contract).
        let source = unsafe { AsyncFd::register_with_interest(File::from(fd), Interest::READABLE) }
            .map_err(io::Error::from)?;
        Ok(StreamReader {
            stream,
            source: Source(source),
        })
    }

    /// A FIFO at `path`, its reading end (non-blocking) and a writing end of our own.
    fn fifo(path: &Path) -> io::Result<(OwnedFd, OwnedFd)> {
        let c = c_path(path)?;
        // SAFETY: `c` is a valid NUL-terminated string.
        if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // The reading end first: a non-blocking open for reading never waits for a writer, and
        // once it is open, opening for writing does not wait either.
        let read = open(path, libc::O_RDONLY | libc::O_NONBLOCK)?;
        let write = open(path, libc::O_WRONLY | libc::O_NONBLOCK)?;
        Ok((read, write))
    }

    /// A pseudo-terminal: its primary side (non-blocking) and the secondary's path. Output
    /// post-processing is turned off, so the program's `\n` arrives as `\n`, not `\r\n`.
    fn pty() -> io::Result<(OwnedFd, OwnedFd, PathBuf)> {
        // SAFETY: posix_openpt returns a new descriptor or -1.
        let fd = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is ours alone.
        let primary = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: grantpt, unlockpt and ptsname take the primary descriptor we hold; ptsname's
        // static buffer is copied before any other call can reuse it (the daemon's one thread
        // that makes ptys is this one).
        let name = unsafe {
            if libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
                return Err(io::Error::last_os_error());
            }
            let name = libc::ptsname(fd);
            if name.is_null() {
                return Err(io::Error::last_os_error());
            }
            std::ffi::CStr::from_ptr(name).to_bytes().to_vec()
        };
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(&name));
        let secondary = open(&path, libc::O_RDWR | libc::O_NOCTTY)?;
        // SAFETY: termios is plain data; tcgetattr fills it from a descriptor we hold.
        unsafe {
            let mut modes: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(secondary.as_raw_fd(), &mut modes) == 0 {
                modes.c_oflag &= !libc::OPOST;
                libc::tcsetattr(secondary.as_raw_fd(), libc::TCSANOW, &modes);
            }
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Ok((primary, secondary, path))
    }

    pub fn create(dir: &Path, tty: bool) -> io::Result<ProgramStdio> {
        crate::platform::create_private_dir(dir)?;
        let mut keep = Keep {
            dir: dir.to_path_buf(),
            held: Vec::new(),
        };
        if tty {
            let (primary, secondary, path) = pty()?;
            return Ok(ProgramStdio {
                stdout: path.clone(),
                stderr: path,
                readers: vec![reader("stdout", primary)?],
                keep: {
                    keep.held.push(secondary);
                    keep
                },
            });
        }
        let stdout = dir.join("stdout");
        let stderr = dir.join("stderr");
        let (out_read, out_write) = fifo(&stdout)?;
        let (err_read, err_write) = fifo(&stderr)?;
        Ok(ProgramStdio {
            stdout,
            stderr,
            readers: vec![reader("stdout", out_read)?, reader("stderr", err_read)?],
            keep: {
                keep.held.extend([out_write, err_write]);
                keep
            },
        })
    }
}

#[cfg(windows)]
mod imp {
    use std::io;
    use std::path::Path;

    use super::ProgramStdio;

    /// Never made: see [`create`].
    pub enum Source {}

    impl Source {
        pub async fn readable(&self) -> io::Result<()> {
            match *self {}
        }

        pub fn try_read(&self, _buf: &mut [u8]) -> io::Result<usize> {
            match *self {}
        }
    }

    /// Never made: see [`create`].
    pub enum Keep {}

    impl Keep {
        pub fn dir(&self) -> &Path {
            match *self {}
        }
    }

    /// Windows has no FIFO an adapter could be told to open by path, nor a pty to hand it (a
    /// ConPTY is not a path): not supported yet, so the session keeps the adapter's own output.
    pub fn create(_dir: &Path, tty: bool) -> io::Result<ProgramStdio> {
        let what = if tty {
            "a terminal for the program (--tty) is not supported on Windows yet"
        } else {
            "separate pipes for the program's stdout and stderr are not supported on Windows yet"
        };
        Err(io::Error::new(io::ErrorKind::Unsupported, what))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    #[tokio::test]
    async fn fifos_carry_each_stream_apart() {
        let dir = std::env::temp_dir().join(format!("debugger-stdio-test-{}", std::process::id()));
        let stdio = ProgramStdio::create(&dir, false).expect("fifos");
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .open(&stdio.stdout)
            .expect("open stdout");
        let mut err = std::fs::OpenOptions::new()
            .write(true)
            .open(&stdio.stderr)
            .expect("open stderr");
        out.write_all(b"to out").expect("write");
        err.write_all(b"to err").expect("write");
        let mut buf = [0u8; 64];
        for (reader, want) in stdio.readers.iter().zip(["to out", "to err"]) {
            reader.readable().await.expect("readable");
            let n = reader.try_read(&mut buf).expect("read");
            assert_eq!(&buf[..n], want.as_bytes());
        }
        drop(stdio);
        assert!(!dir.exists());
    }
}
