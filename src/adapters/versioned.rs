//! Adapters installed under a versioned name (`lldb-dap-19`, `lldb-vscode-14`), as Debian and
//! Ubuntu install LLVM's tools: the highest version on PATH is the one to use.

use std::path::{Path, PathBuf};

/// Finds the highest-versioned `<stem>-NN` executable on PATH (e.g. `lldb-dap-19`).
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

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| crate::platform::is_executable(&m))
}

#[cfg(test)]
mod tests {
    /// Unix execute bits mark the candidates.
    #[cfg(unix)]
    #[test]
    fn highest_version_wins() {
        use super::highest_versioned_in;
        use std::os::unix::fs::PermissionsExt;
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        for (dir, name) in [
            (&a, "tool-9"),
            (&a, "tool-18"),
            (&b, "tool-19"),
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
            Some(b.path().join("tool-19"))
        );
        assert_eq!(highest_versioned_in("nothing", &path), None);
    }
}
