//! The session a connection uses when a call names none: one per connection, named after the
//! client and a counter (`claude-code-1`, `claude-code-2`), so two agents never share a session
//! by accident, and the name still says whose it is in `debugger sessions`.
//!
//! Two servers may start at the same moment for clients of the same name, so a number is
//! claimed, not just picked: a claim is a file `NAME.mcp` created exclusively in the runtime dir
//! (the directory the sockets live in, private to the user), holding the server's pid. A number
//! is free when no daemon runs under the name and no live server holds its claim; a claim whose
//! server has died is taken over. The claim is removed when the connection ends; the session
//! itself may outlive it (see `end_with_client`), and then keeps its number taken.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::paths;
use crate::ipc::client::session_names;

/// A claimed session name, released when dropped.
pub struct Claim {
    pub name: String,
    file: Option<PathBuf>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(file) = &self.file {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// The session name for a connection from `client` (the `clientInfo.name` of `initialize`).
/// When the runtime dir cannot be used, the name still carries the server's pid, so it stays
/// unique; the daemon's own start reports the runtime dir's problem.
pub fn claim(client: &str) -> Claim {
    let stem = stem(client);
    match paths::ensure_runtime_dir() {
        Ok(dir) => claim_in(&dir, &stem),
        Err(_) => Claim {
            name: format!("{stem}-{}", std::process::id()),
            file: None,
        },
    }
}

fn claim_in(dir: &Path, stem: &str) -> Claim {
    let running = session_names(dir).unwrap_or_default();
    for n in 1..10_000u32 {
        let name = format!("{stem}-{n}");
        if running.contains(&name) {
            continue;
        }
        let file = dir.join(format!("{name}.mcp"));
        if take(&file) {
            return Claim {
                name,
                file: Some(file),
            };
        }
    }
    Claim {
        name: format!("{stem}-{}", std::process::id()),
        file: None,
    }
}

/// Creates the claim file, or takes it over from a server that has died.
fn take(file: &Path) -> bool {
    let create = || {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(file)
            .and_then(|mut f| write!(f, "{}", std::process::id()))
    };
    if create().is_ok() {
        return true;
    }
    let holder = std::fs::read_to_string(file)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok());
    match holder {
        Some(pid) if crate::platform::process_exists(pid) => false,
        // A dead holder's claim, or one being written right now by a live one (no pid yet):
        // only the first of two racing takers removes and re-creates it.
        Some(_) => std::fs::remove_file(file).is_ok() && create().is_ok(),
        None => false,
    }
}

/// A client name as the start of a session name: lower case letters, digits and '-', at most
/// 40 of them, `mcp` when nothing is left.
fn stem(client: &str) -> String {
    let mut stem = String::new();
    for c in client.chars() {
        if c.is_ascii_alphanumeric() {
            stem.push(c.to_ascii_lowercase());
        } else if !stem.ends_with('-') && !stem.is_empty() {
            stem.push('-');
        }
        if stem.len() >= 40 {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    if stem.is_empty() {
        "mcp".to_string()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_become_session_name_stems() {
        assert_eq!(stem("Claude Code"), "claude-code");
        assert_eq!(stem("  mcp/python client!"), "mcp-python-client");
        assert_eq!(stem("…"), "mcp");
        assert!(paths::validate_session_name(&format!("{}-9999", stem(&"x".repeat(99)))).is_ok());
    }

    #[test]
    fn each_claim_gets_its_own_number_and_frees_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = claim_in(dir.path(), "agent");
        let second = claim_in(dir.path(), "agent");
        assert_eq!(
            (first.name.as_str(), second.name.as_str()),
            ("agent-1", "agent-2")
        );
        drop(first);
        let again = claim_in(dir.path(), "agent");
        assert_eq!(again.name, "agent-1");
        // A running session keeps its number; a dead server's claim is taken over.
        std::fs::write(dir.path().join("agent-3.lock"), "").expect("lock");
        std::fs::write(dir.path().join("agent-4.mcp"), "4294967").expect("claim");
        assert_eq!(claim_in(dir.path(), "agent").name, "agent-4");
        drop((second, again));
    }
}
