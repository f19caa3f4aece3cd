//! Why the program stopped or how it ended (a stop report's `reason`): the reasons the daemon
//! gives or acts on, and any other an adapter invents kept as it wrote it, so each is written
//! exactly as the adapter or the daemon named it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::SessionState;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StopReason {
    Breakpoint,
    Step,
    Exception,
    /// A signal, named in the report's `signal`.
    Signal,
    Pause,
    /// The program's first line, or the entry it was asked to stop at.
    Entry,
    /// A watchpoint's data changed or was read.
    Watchpoint,
    /// A panic, where the adapter tells it apart from an exception.
    Panic,
    /// A test's failure function was called (the session's own breakpoint on it).
    Failure,
    /// The process now runs another program.
    Exec,
    /// A core dump's stop: where the process died.
    Core,
    /// Ends: the program exited, ended in a way unknown, or its adapter died.
    Exited,
    Terminated,
    AdapterDied,
    /// A reason the adapter gave that the daemon has no meaning for (`goto`,
    /// `instruction breakpoint`, ...), or another state's name.
    Other(String),
}

impl StopReason {
    /// The name users and `--json` see.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::Breakpoint => "breakpoint",
            StopReason::Step => "step",
            StopReason::Exception => "exception",
            StopReason::Signal => "signal",
            StopReason::Pause => "pause",
            StopReason::Entry => "entry",
            StopReason::Watchpoint => "watchpoint",
            StopReason::Panic => "panic",
            StopReason::Failure => "failure",
            StopReason::Exec => "exec",
            StopReason::Core => "core",
            StopReason::Exited => "exited",
            StopReason::Terminated => "terminated",
            StopReason::AdapterDied => "adapter_died",
            StopReason::Other(reason) => reason,
        }
    }

    /// The reason a report of a session in `state` starts from (a stop's own reason replaces
    /// it).
    pub fn of_state(state: SessionState) -> StopReason {
        match state {
            SessionState::Exited => StopReason::Exited,
            SessionState::Terminated => StopReason::Terminated,
            SessionState::AdapterDied => StopReason::AdapterDied,
            other => StopReason::Other(other.as_str().to_string()),
        }
    }

    /// The program has ended, or its adapter has died.
    pub fn is_end(&self) -> bool {
        matches!(
            self,
            StopReason::Exited | StopReason::Terminated | StopReason::AdapterDied
        )
    }
}

impl From<&str> for StopReason {
    fn from(reason: &str) -> StopReason {
        match reason {
            "breakpoint" => StopReason::Breakpoint,
            "step" => StopReason::Step,
            "exception" => StopReason::Exception,
            "signal" => StopReason::Signal,
            "pause" => StopReason::Pause,
            "entry" => StopReason::Entry,
            "watchpoint" => StopReason::Watchpoint,
            "panic" => StopReason::Panic,
            "failure" => StopReason::Failure,
            "exec" => StopReason::Exec,
            "core" => StopReason::Core,
            "exited" => StopReason::Exited,
            "terminated" => StopReason::Terminated,
            "adapter_died" => StopReason::AdapterDied,
            other => StopReason::Other(other.to_string()),
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<StopReason, D::Error> {
        let reason = String::deserialize(deserializer)?;
        Ok(StopReason::from(reason.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_written_by_their_names() {
        let reasons = [
            (StopReason::Breakpoint, "breakpoint"),
            (StopReason::Step, "step"),
            (StopReason::Exception, "exception"),
            (StopReason::Signal, "signal"),
            (StopReason::Pause, "pause"),
            (StopReason::Entry, "entry"),
            (StopReason::Watchpoint, "watchpoint"),
            (StopReason::Panic, "panic"),
            (StopReason::Failure, "failure"),
            (StopReason::Exec, "exec"),
            (StopReason::Core, "core"),
            (StopReason::Exited, "exited"),
            (StopReason::Terminated, "terminated"),
            (StopReason::AdapterDied, "adapter_died"),
            (StopReason::Other("goto".into()), "goto"),
            (
                StopReason::Other("instruction breakpoint".into()),
                "instruction breakpoint",
            ),
        ];
        for (reason, name) in reasons {
            let json = serde_json::to_string(&reason).unwrap_or_default();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<StopReason>(&json).ok(),
                Some(reason.clone())
            );
            assert_eq!(StopReason::from(name), reason);
            assert_eq!(reason.to_string(), name);
        }
    }

    #[test]
    fn a_report_of_a_state_starts_from_its_name() {
        assert_eq!(
            StopReason::of_state(SessionState::Terminated),
            StopReason::Terminated
        );
        assert_eq!(
            StopReason::of_state(SessionState::Running).as_str(),
            "running"
        );
    }
}
