//! The daemon's log: a file in the state directory, at `info` unless `DEBUGGER_LOG` says
//! otherwise, and bounded in size however long the daemon runs.
//!
//! When the file passes [`MAX_LOG_BYTES`] it is renamed to `<name>.1` (replacing the previous
//! one) and a new file is started, so at most twice the bound is ever on disk.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::log_privacy;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// The size at which the log file is rotated.
pub const MAX_LOG_BYTES: u64 = 4 * 1024 * 1024;
/// The environment variable holding the log filter (tracing's `EnvFilter` syntax).
pub const LOG_FILTER_ENV: &str = "DEBUGGER_LOG";

struct Rotating {
    path: PathBuf,
    file: File,
    written: u64,
    limit: u64,
}

impl Rotating {
    fn open(path: &Path, limit: u64) -> io::Result<Rotating> {
        let file = crate::platform::open_private_append(path)?;
        let written = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(Rotating {
            path: path.to_path_buf(),
            file,
            written,
            limit,
        })
    }

    /// Moves the full file aside and starts a new one. Whatever fails (no descriptor for the new
    /// file, a rename refused), the bound holds: the file we still write to is emptied instead,
    /// and the next rotation tries again to get back to the named file.
    fn rotate(&mut self) {
        let writing_to_path = self.is_at_path();
        if writing_to_path {
            let mut aside = self.path.clone().into_os_string();
            aside.push(".1");
            if std::fs::rename(&self.path, &aside).is_err() {
                let _ = self.file.set_len(0);
                self.written = 0;
                return;
            }
        }
        // The full file is aside now (or our handle already is the aside file, from a rotation
        // that could not open a new one).
        match crate::platform::open_private_append(&self.path) {
            Ok(file) => self.file = file,
            Err(_) => {
                let _ = self.file.set_len(0);
            }
        }
        self.written = 0;
    }

    /// Whether our handle is the file at `path` (not one renamed away).
    fn is_at_path(&self) -> bool {
        match (self.file.metadata(), std::fs::metadata(&self.path)) {
            (Ok(ours), Ok(named)) => crate::platform::same_file(&ours, &named),
            _ => false,
        }
    }
}

/// A cloneable handle the subscriber writes through.
#[derive(Clone)]
pub struct RotatingLog(Arc<Mutex<Rotating>>);

impl RotatingLog {
    pub fn open(path: &Path, limit: u64) -> io::Result<RotatingLog> {
        Ok(RotatingLog(Arc::new(Mutex::new(Rotating::open(
            path, limit,
        )?))))
    }
}

impl Write for RotatingLog {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // One event's line at a time: a value is never split between two writes.
        let text = std::str::from_utf8(buf).map(log_privacy::redact);
        let bytes = match &text {
            Ok(text) => text.as_bytes(),
            Err(_) => buf,
        };
        let mut inner = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if inner.written + bytes.len() as u64 > inner.limit && inner.written > 0 {
            inner.rotate();
        }
        inner.file.write_all(bytes)?;
        inner.written += bytes.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .file
            .flush()
    }
}

impl<'a> MakeWriter<'a> for RotatingLog {
    type Writer = RotatingLog;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// Installs the global subscriber writing to `path`, in the state directory the caller made
/// sure is private. Failing to open the log is not fatal: the daemon runs without one rather
/// than not at all.
pub fn init(path: &Path) {
    log_privacy::hide_own_environment();
    let Ok(writer) = RotatingLog::open(path, MAX_LOG_BYTES) else {
        return;
    };
    let filter = EnvFilter::try_from_env(LOG_FILTER_ENV).unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotates_at_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.log");
        let mut log = RotatingLog::open(&path, 100).expect("open");
        for _ in 0..50 {
            log.write_all(&[b'x'; 10]).expect("write");
        }
        let current = std::fs::metadata(&path).expect("meta").len();
        let rotated = std::fs::metadata(dir.path().join("d.log.1"))
            .expect("meta")
            .len();
        assert!(current <= 100, "{current}");
        assert!(rotated <= 100, "{rotated}");
    }
}
