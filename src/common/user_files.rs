//! Files the user names (the program, a breakpoint's source file, a core dump, the program's
//! stdin) are looked at before anything opens them, and read only when they are regular files.
//!
//! A FIFO opened for reading blocks until something writes to it, a device may never stop
//! giving bytes, and a directory cannot be read at all. The daemon serves all its clients on one
//! thread, and an adapter handed such a path blocks in the same way (pdb and debugpy open a
//! breakpoint's file to check its lines), so a path of another kind is refused, naming its kind,
//! before it reaches either. The reads below check again on the opened file, since the path may
//! be replaced between the look and the open.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::common::error::ErrorBody;
use crate::platform::{FileKind, open_for_reading_at_once};

/// What a named file is for, which decides the words of a refusal and whether a directory will
/// do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The program of `start`, `probe` or `core`: a directory is a Go package, which the adapter
    /// choice judges.
    Program,
    /// The file of a `FILE:LINE` breakpoint.
    SourceFile,
    /// A core dump.
    CoreFile,
    /// `--stdin FILE`.
    Stdin,
}

impl Role {
    fn noun(self) -> &'static str {
        match self {
            Role::Program => "a program",
            Role::SourceFile => "a source file",
            Role::CoreFile => "a core file",
            Role::Stdin => "a file to read as the program's stdin",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Role::Program => {
                "name the program's file (an executable or a script), or a Go package's directory"
            }
            Role::SourceFile => "name the source file the line is in, e.g. main.c:42",
            Role::CoreFile => {
                "give the core dump's file; 'debugger doctor' tells where this machine writes them"
            }
            Role::Stdin => "give a regular file for the program to read as its standard input",
        }
    }

    fn takes_directories(self) -> bool {
        self == Role::Program
    }
}

/// Refuses `path` (a usage error naming its kind: "/tmp/x is a FIFO, not a program") when it
/// exists and is not of a kind `role` takes. A path that does not exist, or cannot be looked at,
/// passes: the caller says what is missing in its own words.
pub fn refuse_other_kinds(path: &Path, role: Role) -> Result<(), ErrorBody> {
    let Ok(kind) = FileKind::at(path) else {
        return Ok(());
    };
    match kind {
        FileKind::Regular => Ok(()),
        FileKind::Directory if role.takes_directories() => Ok(()),
        other => Err(refusal(path, other, role)),
    }
}

/// The refusal of `path`, of `kind`, as `role`.
pub fn refusal(path: &Path, kind: FileKind, role: Role) -> ErrorBody {
    let label = if role == Role::Stdin { "--stdin " } else { "" };
    let kind = match kind {
        FileKind::Other => "not a regular file, so".to_string(),
        other => format!("{},", other.noun()),
    };
    ErrorBody::usage(
        format!("{label}{} is {kind} not {}", path.display(), role.noun()),
        role.hint(),
    )
}

/// Opens `path` for reading if it is a regular file; any other kind is an `InvalidInput` error
/// naming it ("is a FIFO"), given without waiting.
pub fn open_regular(path: &Path) -> io::Result<File> {
    not_regular(FileKind::at(path)?)?;
    let file = open_for_reading_at_once(path)?;
    not_regular(FileKind::of(file.metadata()?.file_type()))?;
    Ok(file)
}

fn not_regular(kind: FileKind) -> io::Result<()> {
    match kind {
        FileKind::Regular => Ok(()),
        other => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {}", other.noun()),
        )),
    }
}

/// The whole of `path`, if it is a regular file (see [`open_regular`]).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_regular(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The whole of `path` as UTF-8 text, if it is a regular file (see [`open_regular`]).
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    open_regular(path)?.read_to_string(&mut text)?;
    Ok(text)
}

/// At most `limit` bytes from the start of `path`; nothing when it is no regular file.
pub fn read_head(path: &Path, limit: u64) -> Vec<u8> {
    let mut head = Vec::new();
    if let Ok(file) = open_regular(path) {
        let _ = file.take(limit).read_to_end(&mut head);
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::error::ErrorCode;

    #[test]
    fn a_directory_is_a_program_but_not_a_source_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(refuse_other_kinds(dir.path(), Role::Program).is_ok());
        let error = refuse_other_kinds(dir.path(), Role::SourceFile).expect_err("a directory");
        assert_eq!(error.code, ErrorCode::Usage);
        assert_eq!(
            error.message,
            format!("{} is a directory, not a source file", dir.path().display())
        );
        assert!(read_regular(dir.path()).is_err());
        assert!(refuse_other_kinds(&dir.path().join("missing"), Role::Stdin).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_and_never_waited_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("p");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let error = refuse_other_kinds(&fifo, Role::Stdin).expect_err("a FIFO");
        assert_eq!(
            error.message,
            format!(
                "--stdin {} is a FIFO, not a file to read as the program's stdin",
                fifo.display()
            )
        );
        let error = read_regular(&fifo).expect_err("not read");
        assert_eq!(error.to_string(), "it is a FIFO");
        assert!(read_head(&fifo, 16).is_empty());
    }
}
