//! The state of a session as the daemon answers it (`state` in `start`, `status`, the execution
//! commands, `context` and `sessions`): one enum from the daemon's run state to the CLI, the MCP
//! tools and their watchers, written as the names docs/json.md gives.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// Launching or attaching; not yet configured.
    Starting,
    Running,
    /// A pause was sent and its stop not waited for: the program may still be running.
    Pausing,
    Stopped,
    /// Stopped, but running an evaluation that would not return in time.
    Evaluating,
    /// The program ended with a code, or was killed by a signal.
    Exited,
    /// The program ended, how unknown.
    Terminated,
    AdapterDied,
    /// In `sessions`: the daemon holds no session, only a warm adapter.
    Warm,
}

impl SessionState {
    /// The name users and `--json` see.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionState::Starting => "starting",
            SessionState::Running => "running",
            SessionState::Pausing => "pausing",
            SessionState::Stopped => "stopped",
            SessionState::Evaluating => "evaluating",
            SessionState::Exited => "exited",
            SessionState::Terminated => "terminated",
            SessionState::AdapterDied => "adapter_died",
            SessionState::Warm => "warm",
        }
    }

    /// The program is running (or starting) with no stop to report yet.
    pub fn is_running(self) -> bool {
        matches!(self, SessionState::Running | SessionState::Starting)
    }

    /// The program has ended (its adapter's death aside).
    pub fn is_program_end(self) -> bool {
        matches!(self, SessionState::Exited | SessionState::Terminated)
    }
}

impl fmt::Display for SessionState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so a width in the format (`sessions`' columns) applies.
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [SessionState; 9] = [
        SessionState::Starting,
        SessionState::Running,
        SessionState::Pausing,
        SessionState::Stopped,
        SessionState::Evaluating,
        SessionState::Exited,
        SessionState::Terminated,
        SessionState::AdapterDied,
        SessionState::Warm,
    ];

    #[test]
    fn states_are_written_as_docs_json_names_them() {
        let written: Vec<String> = ALL
            .iter()
            .map(|state| serde_json::to_string(state).unwrap_or_default())
            .collect();
        assert_eq!(
            written,
            [
                "\"starting\"",
                "\"running\"",
                "\"pausing\"",
                "\"stopped\"",
                "\"evaluating\"",
                "\"exited\"",
                "\"terminated\"",
                "\"adapter_died\"",
                "\"warm\"",
            ]
        );
    }

    #[test]
    fn names_read_back_and_display_as_written() {
        for state in ALL {
            let json = format!("\"{}\"", state.as_str());
            assert_eq!(
                serde_json::from_str::<SessionState>(&json).ok(),
                Some(state)
            );
            assert_eq!(state.to_string(), state.as_str());
        }
        assert_eq!(format!("{:<9}|", SessionState::Running), "running  |");
    }
}
