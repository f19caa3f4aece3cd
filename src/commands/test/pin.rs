//! A build's test executable, pinned: a second name for the file a runner just built, beside it,
//! which later builds leave alone.
//!
//! Linkers replace an executable with a new file rather than write into the old one, so a second
//! name (a hard link, else a copy) keeps the build this command made while the runner's own path
//! moves on to the next build. Without it, a build by another cargo sharing the target folder,
//! between ours and the adapter's launch, made the debugger load one file and run another, or
//! find none: the panic breakpoint was set in a build that never ran, and the test ran to its end.
//!
//! A pin is named after its build (the file's modification time), so the same build is pinned
//! once, and pins of builds older than [`KEPT_FOR`] before the newest are removed as new ones
//! come: a session still running an older build keeps its open file on Unix, and on Windows the
//! removal of a running executable fails and is let be.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What separates a pin's build from the executable's name.
const MARK: &str = ".debugger-";

/// How long a pin outlives a newer build of its executable: the seconds between a pin and its
/// launch, with a margin wide enough that only a session launched long ago loses its name.
const KEPT_FOR: Duration = Duration::from_secs(600);

/// Pins `executable` (see the module comment) and returns the pin's path.
pub(super) fn pin(executable: &Path) -> io::Result<PathBuf> {
    let built = std::fs::metadata(executable)?.modified()?;
    let pinned = pinned_path(executable, built)?;
    if same_build(&pinned, executable) {
        return Ok(pinned);
    }
    let _ = std::fs::remove_file(&pinned);
    if std::fs::hard_link(executable, &pinned).is_err() {
        // A file system without hard links: a copy, made under a passing name and renamed, so
        // the pin is never seen half written.
        let partial = pinned.with_file_name(format!(
            ".{}.partial-{}",
            file_name(&pinned),
            std::process::id()
        ));
        std::fs::copy(executable, &partial)?;
        std::fs::rename(&partial, &pinned)?;
    }
    remove_old_pins(executable, built);
    Ok(pinned)
}

/// `DIR/NAME.debugger-KEY[.EXT]` for `DIR/NAME[.EXT]`, KEY the build's time in hex nanoseconds.
fn pinned_path(executable: &Path, built: SystemTime) -> io::Result<PathBuf> {
    let key = built
        .duration_since(UNIX_EPOCH)
        .map_err(io::Error::other)?
        .as_nanos();
    let stem = executable
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    let name = match executable.extension() {
        Some(ext) => format!("{stem}{MARK}{key:x}.{}", ext.to_string_lossy()),
        None => format!("{stem}{MARK}{key:x}"),
    };
    Ok(executable.with_file_name(name))
}

/// Whether `pinned` is already the file `executable` names (its second name, or a copy made
/// after it).
fn same_build(pinned: &Path, executable: &Path) -> bool {
    match (std::fs::metadata(pinned), std::fs::metadata(executable)) {
        (Ok(pin), Ok(exe)) => pin.len() == exe.len() && pin.modified().ok() >= exe.modified().ok(),
        _ => false,
    }
}

/// Removes the pins of `executable`'s builds made more than [`KEPT_FOR`] before `built`.
fn remove_old_pins(executable: &Path, built: SystemTime) {
    let (Some(dir), Some(stem)) = (executable.parent(), executable.file_stem()) else {
        return;
    };
    let prefix = format!("{}{MARK}", stem.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_pin = entry.file_name().to_string_lossy().starts_with(&prefix);
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t + KEPT_FOR < built);
        if is_pin && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_modified(path: &Path, time: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(time))
            .expect("set the file's time");
    }

    #[test]
    fn a_pin_keeps_its_build_when_the_executable_is_rebuilt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let exe = dir.path().join("cart-1");
        std::fs::write(&exe, "first build").expect("write");
        let pinned = pin(&exe).expect("pin");
        assert_ne!(pinned, exe);
        assert_eq!(pin(&exe).expect("pin again"), pinned, "one pin per build");
        // A linker's rebuild: a new file under the old name.
        std::fs::remove_file(&exe).expect("remove");
        std::fs::write(&exe, "second build!").expect("write");
        set_modified(&exe, SystemTime::now() + Duration::from_secs(1));
        assert_eq!(
            std::fs::read_to_string(&pinned).expect("read pin"),
            "first build"
        );
        let second = pin(&exe).expect("pin the rebuild");
        assert_ne!(second, pinned);
        assert_eq!(
            std::fs::read_to_string(&second).expect("read"),
            "second build!"
        );
        assert!(pinned.exists(), "a recent build's pin is kept");
    }

    #[test]
    fn pins_of_builds_long_superseded_are_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let exe = dir.path().join("cart-1.exe");
        std::fs::write(&exe, "old").expect("write");
        set_modified(&exe, SystemTime::now() - KEPT_FOR * 2);
        let old = pin(&exe).expect("pin");
        assert!(file_name(&old).starts_with("cart-1.debugger-"));
        assert!(file_name(&old).ends_with(".exe"));
        std::fs::remove_file(&exe).expect("remove");
        std::fs::write(&exe, "new").expect("write");
        let other = dir.path().join("cart-2.debugger-1");
        std::fs::write(&other, "another executable's pin").expect("write");
        set_modified(&other, UNIX_EPOCH);
        let new = pin(&exe).expect("pin");
        assert!(new.exists());
        assert!(!old.exists(), "the old build's pin is gone");
        assert!(other.exists(), "another executable's pins are its own");
    }
}
