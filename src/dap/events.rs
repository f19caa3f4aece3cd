//! The adapter's events, read into typed bodies as they arrive, so the session matches on a
//! variant rather than on an event's name and a `Value`. An event the session does not act on,
//! or one whose body does not read as its kind, stays as it came (`Other`): an adapter's odd
//! event never costs the stream.

use serde::Deserialize;
use serde_json::Value;

use super::types::{
    BreakpointEventBody, ExitedEventBody, OutputEventBody, ProcessEventBody, StoppedEventBody,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(from = "RawEvent")]
pub enum Event {
    Initialized,
    Stopped(StoppedEventBody),
    Continued,
    /// `None`: a body without a readable exit code; the end is news all the same.
    Exited(Option<ExitedEventBody>),
    Terminated,
    Output(OutputEvent),
    Breakpoint(BreakpointEventBody),
    LoadedSource(LoadedSourceEventBody),
    /// `None`: a body without a readable process id; the process was told all the same.
    Process(Option<ProcessEventBody>),
    Other {
        event: String,
        body: Value,
    },
}

/// An `output` event.
#[derive(Debug, Clone)]
pub struct OutputEvent {
    pub body: OutputEventBody,
    /// For text that held bytes that are not UTF-8 (debugpy's surrogate escapes): the bytes the
    /// text stands for, which `body.output` only shows as `\xNN`.
    pub bytes: Option<Vec<u8>>,
}

/// A `loadedSource` event: the adapter loaded, changed or dropped a source.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct LoadedSourceEventBody {
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub source: Option<LoadedSource>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct LoadedSource {
    #[serde(default)]
    pub path: Option<String>,
}

/// An event as it comes: its name and its body, before the body is read as its kind.
#[derive(Debug, Clone, Deserialize)]
struct RawEvent {
    event: String,
    #[serde(default)]
    body: Value,
}

impl Event {
    /// The event's name, as the adapter sent it.
    pub fn name(&self) -> &str {
        match self {
            Event::Initialized => "initialized",
            Event::Stopped(_) => "stopped",
            Event::Continued => "continued",
            Event::Exited(_) => "exited",
            Event::Terminated => "terminated",
            Event::Output(_) => "output",
            Event::Breakpoint(_) => "breakpoint",
            Event::LoadedSource(_) => "loadedSource",
            Event::Process(_) => "process",
            Event::Other { event, .. } => event,
        }
    }
}

impl From<RawEvent> for Event {
    fn from(raw: RawEvent) -> Event {
        let RawEvent { event, body } = raw;
        let read = match event.as_str() {
            "initialized" => Some(Event::Initialized),
            "continued" => Some(Event::Continued),
            "terminated" => Some(Event::Terminated),
            "exited" => Some(Event::Exited(body_of(&event, &body))),
            "process" => Some(Event::Process(body_of(&event, &body))),
            "stopped" => body_of(&event, &body).map(Event::Stopped),
            "output" => {
                body_of(&event, &body).map(|body| Event::Output(OutputEvent { body, bytes: None }))
            }
            "breakpoint" => body_of(&event, &body).map(Event::Breakpoint),
            "loadedSource" => body_of(&event, &body).map(Event::LoadedSource),
            _ => None,
        };
        read.unwrap_or(Event::Other { event, body })
    }
}

/// The body of `event` read as its kind; `None`, logged, when it does not read.
fn body_of<T: serde::de::DeserializeOwned>(event: &str, body: &Value) -> Option<T> {
    match T::deserialize(body) {
        Ok(read) => Some(read),
        Err(e) => {
            tracing::warn!("unreadable {event} event: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(message: Value) -> Event {
        match serde_json::from_value(message) {
            Ok(event) => event,
            Err(e) => panic!("no event: {e}"),
        }
    }

    #[test]
    fn events_the_session_acts_on_are_read_into_their_bodies() {
        let stopped = read(json!({"type": "event", "event": "stopped",
            "body": {"reason": "breakpoint", "threadId": 3, "hitBreakpointIds": [1]}}));
        match stopped {
            Event::Stopped(body) => {
                assert_eq!(body.reason, "breakpoint");
                assert_eq!(body.thread_id, Some(3));
                assert_eq!(body.hit_breakpoint_ids, [1]);
            }
            other => panic!("not a stop: {other:?}"),
        }
        match read(json!({"event": "exited", "body": {"exitCode": 3}})) {
            Event::Exited(Some(body)) => assert_eq!(body.exit_code, 3),
            other => panic!("not an exit: {other:?}"),
        }
        match read(json!({"event": "loadedSource",
            "body": {"reason": "new", "source": {"path": "/p/a.py"}}}))
        {
            Event::LoadedSource(body) => {
                assert_eq!(body.reason.as_deref(), Some("new"));
                assert_eq!(body.source.and_then(|s| s.path).as_deref(), Some("/p/a.py"));
            }
            other => panic!("not a loaded source: {other:?}"),
        }
        assert!(matches!(
            read(json!({"event": "initialized"})),
            Event::Initialized
        ));
        assert!(matches!(
            read(json!({"event": "process", "body": {"systemProcessId": 7}})),
            Event::Process(Some(ProcessEventBody {
                system_process_id: Some(7)
            }))
        ));
    }

    #[test]
    fn other_and_unreadable_events_are_kept_as_they_came() {
        match read(json!({"event": "memory", "body": {"offset": 0}})) {
            Event::Other { event, body } => {
                assert_eq!(event, "memory");
                assert_eq!(body["offset"], 0);
            }
            other => panic!("not kept: {other:?}"),
        }
        let unreadable = read(json!({"event": "stopped", "body": {"threadId": 1}}));
        assert!(matches!(&unreadable, Event::Other { event, .. } if event == "stopped"));
        assert_eq!(unreadable.name(), "stopped");
        // An end without its code, a process without its id: still told.
        assert!(matches!(
            read(json!({"event": "exited", "body": {}})),
            Event::Exited(None)
        ));
        assert!(matches!(
            read(json!({"event": "process", "body": {"systemProcessId": "x"}})),
            Event::Process(None)
        ));
    }
}
