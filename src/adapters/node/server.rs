//! The node adapter's loop inside the daemon (see `dap_server`): the session's requests, the
//! inspector's events, child processes attaching, and the launched process's end, one at a
//! time.

use tokio::sync::{mpsc, oneshot};

use super::cdp::{CdpEvent, Events};
use super::debuggee::{Debuggee, Flow, MAIN_THREAD, Settings};
use crate::adapters::dap_server::{self, Connection, ProcessEnd};
use crate::adapters::process::SpawnedAdapter;

/// Starts the adapter task and returns the session's end of the connection.
pub fn start(settings: Settings) -> SpawnedAdapter {
    dap_server::start("node", |connection| run(connection, settings))
}

async fn run(connection: Connection, settings: Settings) {
    let Connection {
        mut requests,
        outbox,
        mut kill,
        ending,
    } = connection;
    let (children_tx, mut children) = mpsc::unbounded_channel();
    let mut debuggee = Debuggee::new(outbox, settings, children_tx);
    let mut events: Option<Events> = None;
    let mut process_exit: Option<oneshot::Receiver<Option<ProcessEnd>>> = None;
    let reason = loop {
        tokio::select! {
            _ = &mut kill => {
                debuggee.kill();
                break "it was stopped";
            }
            request = requests.recv() => {
                let Some(request) = request else {
                    break "the session closed its connection";
                };
                // A request that never ends (an evaluation stuck in an endless loop) must not
                // keep the adapter from being stopped.
                let flow = tokio::select! {
                    flow = debuggee.handle(&request) => flow,
                    _ = &mut kill => {
                        debuggee.kill();
                        break "it was stopped";
                    }
                };
                match flow {
                    Flow::Continue => {}
                    Flow::Connected { events: new_events, exit } => {
                        events = Some(new_events);
                        process_exit = exit;
                    }
                    Flow::Finish => break "the session disconnected",
                }
            }
            Some(child) = children.recv() => debuggee.on_child(child).await,
            event = next_event(&mut events) => match event {
                Some(event) => debuggee.on_event_of(MAIN_THREAD, event).await,
                None => {
                    events = None;
                    debuggee.inspector_closed().await;
                }
            },
            code = dap_server::wait_exit(&mut process_exit) => {
                process_exit = None;
                debuggee.process_exited(code).await;
            }
        }
    };
    debuggee.kill();
    if let Some(process_exit) = process_exit {
        // The launched process is being killed: wait so it does not outlive the adapter.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), process_exit).await;
    }
    drop(debuggee);
    ending.report(reason).await;
}

async fn next_event(events: &mut Option<Events>) -> Option<CdpEvent> {
    match events {
        Some(events) => events.recv().await,
        None => std::future::pending().await,
    }
}
