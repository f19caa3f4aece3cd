//! `sessions`: every session of this user, its daemon asked with a deadline, so one that does not
//! answer is listed as such instead of hanging the list.

use serde_json::json;

use super::Outcome;
use crate::common::error::ErrorBody;
use crate::common::escape::one_line;
use crate::common::paths;
use crate::ipc::listing::{self, Listed};
use crate::ipc::protocol::{SessionState, StatusResult, UnansweringDaemon};

/// Lists the sessions whose daemons answer, and those that hold their name but did not answer
/// within [`crate::ipc::client::ANSWER_TIMEOUT`], removing the sockets of dead ones.
pub fn sessions() -> Result<Outcome, ErrorBody> {
    let dir = paths::ensure_runtime_dir()?;
    let mut found = Vec::new();
    let mut silent = Vec::new();
    let mut text = String::new();
    for listed in listing::list(&dir)? {
        match listed {
            Listed::Answered(status) => {
                text.push_str(&session_line(&status));
                found.push(*status);
            }
            Listed::NotAnswering(daemon) => {
                text.push_str(&unanswering_line(&daemon));
                silent.push(daemon);
            }
        }
    }
    if text.is_empty() {
        text.push_str("No sessions are running\n");
    }
    let mut data = json!({ "sessions": found });
    if !silent.is_empty() {
        data["not_answering"] = json!(silent);
    }
    Ok(Outcome::new(data, text))
}

fn session_line(s: &StatusResult) -> String {
    let mut line = format!("{:<16} {:<12}", s.session, s.state);
    if let Some(program) = &s.program {
        line.push_str(&format!(" {}", one_line(program)));
    }
    if let Some(warm) = &s.warm {
        // A daemon with only a warm adapter says so in its state; one that also holds an
        // ended session says it after the program.
        let what = if s.state == SessionState::Warm && s.program.is_some() {
            // A kept launch: the program is launched and held before its first line.
            let pid = s
                .debuggee_pid
                .map(|pid| format!(" (pid {pid})"))
                .unwrap_or_default();
            format!(", launched ahead{pid} on a warm {} adapter", warm.adapter)
        } else if s.state == SessionState::Warm {
            format!(" {} adapter", warm.adapter)
        } else {
            format!(" (warm {} adapter)", warm.adapter)
        };
        line.push_str(&format!("{what}, {:.0} s left", warm.secs_left));
    }
    format!("{}\n", line.trim_end())
}

fn unanswering_line(daemon: &UnansweringDaemon) -> String {
    let pid = daemon
        .daemon_pid
        .map(|pid| format!(", daemon pid {pid}"))
        .unwrap_or_default();
    format!(
        "{:<16} not answering (nothing within {:.0} s{pid}; 'debugger --session {} stop' ends it)\n",
        daemon.session, daemon.waited_secs, daemon.session
    )
}
