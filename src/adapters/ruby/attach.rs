//! Finding the debugger a running Ruby program opened (`rdbg --open`, `ruby -r debug/open`): the
//! debug gem listens on a UNIX socket named `ruby-debug-USER-PID` in its socket folder, which
//! it prints as it opens and which `attach PID` finds by the pid.

use std::path::{Path, PathBuf};

use crate::common::error::{ErrorBody, ErrorCode};

/// What every socket of the debug gem's is named starting with.
const SOCKET_PREFIX: &str = "ruby-debug-";

/// Whether `address` is a socket the debug gem opened (`attach --connect PATH` without
/// `--adapter`): its name says so, nothing is sent to it.
pub fn is_rdbg_socket(address: &str) -> bool {
    crate::ipc::socket::socket_path(address)
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(SOCKET_PREFIX))
}

/// The socket the Ruby process `pid` listens on for its debugger.
pub fn server_of_process(pid: u32) -> Result<String, ErrorBody> {
    let folders = socket_folders();
    let suffix = format!("-{pid}");
    let found = folders.iter().find_map(|folder| {
        std::fs::read_dir(folder).ok()?.flatten().find_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            (name.starts_with(SOCKET_PREFIX) && name.ends_with(&suffix)).then(|| entry.path())
        })
    });
    match found {
        Some(path) => Ok(path.to_string_lossy().into_owned()),
        None => Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "the Ruby process {pid} has no debugger open (no socket {SOCKET_PREFIX}*{suffix} in {})",
                folders
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "start it with the debugger open: 'rdbg --open app.rb', or 'ruby -r debug/open app.rb'; \
             one opened on a port is attached to with 'debugger attach --connect HOST:PORT --adapter rdbg'",
        )),
    }
}

/// Where the debug gem puts its sockets, in its order: `RUBY_DEBUG_SOCK_DIR`,
/// `XDG_RUNTIME_DIR`, `ruby-debug-sock-UID` in the temporary folder, `~/.ruby-debug-sock`. The
/// program's own environment is not ours to read, so ours stands in for it, and every user's
/// folder in the temporary one is looked in.
fn socket_folders() -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = ["RUBY_DEBUG_SOCK_DIR", "XDG_RUNTIME_DIR"]
        .iter()
        .filter_map(|name| std::env::var_os(name).map(PathBuf::from))
        .collect();
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        folders.extend(entries.flatten().filter_map(|entry| {
            let name = entry.file_name();
            name.to_str()?
                .starts_with("ruby-debug-sock-")
                .then(|| entry.path())
        }));
    }
    if let Some(home) = std::env::var_os("HOME") {
        folders.push(PathBuf::from(home).join(".ruby-debug-sock"));
    }
    folders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_is_the_debug_gems_by_its_name() {
        assert!(is_rdbg_socket("/tmp/ruby-debug-sock-0/ruby-debug-me-42"));
        assert!(!is_rdbg_socket("/tmp/other.sock"));
        assert!(!is_rdbg_socket("127.0.0.1:12345"));
    }

    #[test]
    fn a_process_without_a_socket_is_told_how_to_open_one() {
        let error = server_of_process(u32::MAX).err();
        assert!(
            error
                .as_ref()
                .is_some_and(|e| e.hint.contains("rdbg --open")),
            "{error:?}"
        );
    }
}
