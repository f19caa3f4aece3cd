//! Where the adapters look for programs beyond the plain PATH search (`which`, which also
//! tries Windows' PATHEXT suffixes): the highest-versioned `name-NN` on PATH, an environment
//! variable that names a folder, and the first of the places an install puts a program.

use std::path::{Path, PathBuf};

/// Finds the highest-versioned `<stem>-NN` executable on PATH (e.g. `lldb-dap-19`, or
/// `lldb-dap-19.exe` on Windows).
pub fn highest_versioned_on_path(stem: &str) -> Option<PathBuf> {
    highest_versioned_in(stem, &std::env::var_os("PATH")?)
}

/// [`highest_versioned_on_path`] over an explicit PATH-style list.
pub fn highest_versioned_in(stem: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    let prefix = format!("{stem}-");
    let mut best: Option<(u32, PathBuf)> = None;
    for dir in std::env::split_paths(path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(version) = name
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix))
                .map(|v| v.strip_suffix(".exe").unwrap_or(v))
                .and_then(|v| v.parse::<u32>().ok())
            else {
                continue;
            };
            if best.as_ref().is_none_or(|(v, _)| version > *v) && is_executable(&entry.path()) {
                best = Some((version, entry.path()));
            }
        }
    }
    best.map(|(_, path)| path)
}

/// An environment variable, when it is set and not empty.
pub fn env_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// The first of `paths` that is a file: where an install puts a program off PATH.
pub fn first_file(paths: Vec<PathBuf>) -> Option<PathBuf> {
    paths.into_iter().find(|path| path.is_file())
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| crate::platform::is_executable(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_place_that_holds_the_file_wins() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::write(&b, "").expect("write");
        assert_eq!(first_file(vec![a.clone(), b.clone()]), Some(b));
        assert_eq!(first_file(vec![a]), None);
        assert_eq!(env_var("DEBUGGER_TEST_NO_SUCH_VARIABLE"), None);
    }

    /// Unix execute bits mark the candidates.
    #[cfg(unix)]
    #[test]
    fn highest_version_wins() {
        use std::os::unix::fs::PermissionsExt;
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        for (dir, name) in [
            (&a, "tool-9"),
            (&a, "tool-18"),
            (&b, "tool-19"),
            (&b, "tool-20.exe"),
            (&b, "tool-x"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, "").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        // Not executable: never chosen, however high.
        std::fs::write(b.path().join("tool-99"), "").expect("write");
        let path = std::env::join_paths([a.path(), b.path()]).expect("join");
        assert_eq!(
            highest_versioned_in("tool", &path),
            Some(b.path().join("tool-20.exe"))
        );
        assert_eq!(highest_versioned_in("nothing", &path), None);
    }
}
