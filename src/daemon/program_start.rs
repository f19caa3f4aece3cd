//! The program started by the daemon itself, when its adapter asks with DAP's `runInTerminal`
//! reverse request (debugpy does for `--tty` and `--stdin`: its own launch takes neither). We
//! have no terminal window to run it in; "the terminal" is the session's channels: stdin from the
//! `--stdin` file or nothing, stdout and stderr the FIFOs (or the pty of `--tty`) the daemon
//! reads, exactly as an adapter that is told the paths would give them.
//!
//! Apart from `program_io` because it starts a process: it answers the adapter with the pid and
//! reaps the process when it ends (the daemon is its parent, and a zombie would sit in the tree
//! until the daemon exits).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::adapters::process::open_program_streams;
use crate::dap::client::TerminalRunner;
use crate::ipc::protocol::StdioPaths;

/// `runInTerminal`'s arguments, the parts that matter here (`kind` and `title` name a terminal
/// we do not have).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunInTerminal {
    /// The command line: the program and its arguments.
    args: Vec<String>,
    #[serde(default)]
    cwd: Option<String>,
    /// Variables to set (a string) or to remove (null), on top of the program's environment.
    #[serde(default)]
    env: BTreeMap<String, Option<String>>,
}

/// Serves `runInTerminal` for a session whose program's channels are `paths` and whose program
/// gets the environment `env` (the caller's, with the session's tree tag) before the adapter's
/// additions.
pub fn runner(paths: StdioPaths, env: Vec<(String, String)>) -> TerminalRunner {
    Arc::new(move |arguments: &Value| start(arguments, &paths, &env))
}

/// Starts the command `arguments` describe on the channels and answers its pid.
fn start(arguments: &Value, paths: &StdioPaths, env: &[(String, String)]) -> Result<u32, String> {
    let request: RunInTerminal = serde_json::from_value(arguments.clone())
        .map_err(|e| format!("runInTerminal arguments not understood: {e}"))?;
    let (program, args) = request
        .args
        .split_first()
        .ok_or("runInTerminal asked to run an empty command line")?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)));
    for (key, value) in &request.env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    if let Some(cwd) = request.cwd.as_deref().filter(|cwd| !cwd.is_empty()) {
        command.current_dir(cwd);
    }
    let [stdin, stdout, stderr] = open_program_streams(paths)
        .map_err(|e| format!("the program's channels cannot be opened: {e}"))?;
    command.stdin(stdin).stdout(stdout).stderr(stderr);
    crate::platform::give_users_file_mask(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let pid = child
        .id()
        .ok_or("the started program ended before its pid was known")?;
    tracing::info!(pid, program, "started the program for the adapter");
    tokio::spawn(async move {
        match child.wait().await {
            Ok(status) => tracing::info!(pid, %status, "the program the daemon started ended"),
            Err(e) => tracing::warn!(
                pid,
                "the program the daemon started cannot be waited for: {e}"
            ),
        }
    });
    Ok(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adapters_environment_is_laid_over_the_programs() {
        let request: RunInTerminal = serde_json::from_value(serde_json::json!({
            "kind": "integrated",
            "args": ["python", "-m", "x"],
            "env": {"A": "1", "B": null},
        }))
        .expect("parse");
        assert_eq!(request.args, ["python", "-m", "x"]);
        assert_eq!(request.env.get("A"), Some(&Some("1".to_string())));
        assert_eq!(request.env.get("B"), Some(&None));
        assert_eq!(request.cwd, None);
    }
}
