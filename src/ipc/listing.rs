//! `sessions`, for every front door: each daemon in the runtime dir asked at once, each with a
//! deadline ([`ANSWER_TIMEOUT`]), so a daemon that is stopped (SIGSTOP) or stuck costs the
//! listing that long and is named as not answering, never waited on. Connecting to a session
//! by name is here too: when none answers to the name, its error names the ones that do.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;
use crate::ipc::client::{ANSWER_TIMEOUT, DaemonClient, Reply, SessionPaths, session_names};
use crate::ipc::protocol::{Command, SessionState, StatusResult, UnansweringDaemon};
use crate::ipc::socket;

/// A daemon as `sessions` finds it.
#[derive(Debug)]
pub enum Listed {
    Answered(Box<StatusResult>),
    NotAnswering(UnansweringDaemon),
}

/// Beyond each daemon's own deadline, for the threads to hand their findings over.
const HAND_OVER: Duration = Duration::from_millis(500);

/// The daemons in `dir`, sorted by session name. A name whose daemon is gone is left out (its
/// stale socket removed on the way).
pub fn list(dir: &Path) -> Result<Vec<Listed>, ErrorBody> {
    Ok(list_named(dir, session_names(dir)?))
}

/// [`list`] less the daemon of `except` (a daemon asking about the others, which would wait on
/// itself).
pub fn others(dir: &Path, except: &str) -> Vec<Listed> {
    let mut names = session_names(dir).unwrap_or_default();
    names.retain(|name| name != except);
    list_named(dir, names)
}

fn list_named(dir: &Path, names: Vec<String>) -> Vec<Listed> {
    let (found_tx, found_rx) = mpsc::channel();
    let mut heard: BTreeMap<String, Option<Listed>> = BTreeMap::new();
    for name in &names {
        let (owned_dir, owned_name, found_tx) = (dir.to_path_buf(), name.clone(), found_tx.clone());
        // A thread each: even a connect can block (a stopped daemon's full accept queue), and a
        // thread still blocked at the deadline is left behind, not waited for.
        let asked = std::thread::Builder::new()
            .name(format!("ask {name}"))
            .spawn(move || {
                let found = ask(&owned_dir, &owned_name);
                let _ = found_tx.send((owned_name, found));
            });
        if asked.is_err() {
            // No thread to spare: asked here, still within each request's own deadline.
            heard.insert(name.clone(), ask(dir, name));
        }
    }
    drop(found_tx);
    let deadline = Instant::now() + ANSWER_TIMEOUT + HAND_OVER;
    while heard.len() < names.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match found_rx.recv_timeout(left) {
            Ok((name, found)) => {
                heard.insert(name, found);
            }
            Err(_) => break,
        }
    }
    names
        .into_iter()
        .filter_map(|name| match heard.remove(&name) {
            Some(found) => found,
            None => Some(Listed::NotAnswering(unanswering(dir, name))),
        })
        .collect()
}

/// The other daemons than `except`, as a "no session" error names them: those that hold a
/// session (or did not answer, which only a daemon busy with one does), and those that hold
/// only a warm adapter, with its adapter's name, which take no command but `start`.
pub fn other_sessions(dir: &Path, except: &str) -> OtherSessions {
    let mut found = OtherSessions::default();
    for listed in others(dir, except) {
        match listed {
            Listed::Answered(status) if status.state == SessionState::Warm => {
                let adapter = status.warm.map(|w| w.adapter).unwrap_or_default();
                found.warm.push((status.session, adapter));
            }
            Listed::Answered(status) => found.running.push(status.session),
            Listed::NotAnswering(daemon) => found.running.push(daemon.session),
        }
    }
    found
}

/// What [`other_sessions`] finds.
#[derive(Debug, Default)]
pub struct OtherSessions {
    pub running: Vec<String>,
    /// Each daemon's session name and its warm adapter's name.
    pub warm: Vec<(String, String)>,
}

impl OtherSessions {
    /// "No session" for the session named `session`, naming the others that run, since a
    /// wrong or forgotten `--session` (or `DEBUGGER_SESSION`) is the usual cause. The same words
    /// whether no daemon answers for the name or one does that holds no session (only a warm
    /// adapter). The daemons that hold only a warm adapter are no sessions to name: they are
    /// told apart.
    pub fn no_session_named(&self, session: &str) -> ErrorBody {
        let warm_note = match self.warm.as_slice() {
            [] => String::new(),
            warm => {
                let held: Vec<String> = warm
                    .iter()
                    .map(|(name, adapter)| format!("{name} (a warm {adapter} adapter)"))
                    .collect();
                format!(
                    "; holding no session, only a warm adapter: {}",
                    held.join(", ")
                )
            }
        };
        let Some(first) = self.running.first() else {
            return ErrorBody::new(
                ErrorCode::NoSession,
                format!("no session '{session}' is running{warm_note}"),
                "start one with 'debugger start <program>'",
            );
        };
        let start = if session == paths::DEFAULT_SESSION {
            "'debugger start <program>'".to_string()
        } else {
            format!("'debugger start --session {session} <program>'")
        };
        ErrorBody::new(
            ErrorCode::NoSession,
            format!(
                "no session '{session}' is running; running: {}{warm_note}",
                self.running.join(", ")
            ),
            format!("name a running one with --session {first}, or start one with {start}"),
        )
    }
}

impl DaemonClient {
    /// Connects to the session's daemon; no daemon is [`ErrorCode::NoSession`] (a stale socket
    /// left by a dead daemon is removed on the way), whose error names the session and the
    /// running ones: connecting by name is where a wrong name is told, from the listing.
    pub fn connect(session: &str) -> Result<DaemonClient, ErrorBody> {
        let at = SessionPaths::for_session(session)?;
        DaemonClient::connect_at(&at).map_err(|e| {
            if e.code == ErrorCode::NoSession {
                other_sessions(&paths::runtime_dir_path(), session).no_session_named(session)
            } else {
                e
            }
        })
    }
}

/// What the daemon of `name` says of itself; `None` when there is none.
fn ask(dir: &Path, name: &str) -> Option<Listed> {
    let paths = SessionPaths::in_dir(dir, name).ok()?;
    let mut client = DaemonClient::connect_at(&paths).ok()?;
    match client.request_within(Command::Listing, ANSWER_TIMEOUT) {
        Reply::Answered(Ok(value)) => serde_json::from_value(value)
            .ok()
            .map(|status| Listed::Answered(Box::new(status))),
        Reply::Answered(Err(_)) => None,
        Reply::NotAnswering => Some(Listed::NotAnswering(unanswering(dir, name.to_string()))),
    }
}

fn unanswering(dir: &Path, session: String) -> UnansweringDaemon {
    let daemon_pid = SessionPaths::in_dir(dir, &session)
        .ok()
        .and_then(|paths| socket::daemon_pid(&paths.lock));
    UnansweringDaemon {
        session,
        daemon_pid,
        waited_secs: ANSWER_TIMEOUT.as_secs_f64(),
    }
}
