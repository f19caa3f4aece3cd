//! The PHP adapter's loop inside the daemon (see `dap_server`): the session's requests, Xdebug's
//! answer to the command that let the script run, Xdebug's connection closing, and PHP's end,
//! one at a time.

use tokio::sync::{mpsc, oneshot};

use super::dbgp::Element;
use super::debuggee::{Debuggee, Flow, Settings};
use crate::adapters::dap_server::{self, Connection, ProcessEnd};
use crate::adapters::process::SpawnedAdapter;

/// Starts the adapter task and returns the session's end of the connection.
pub fn start(settings: Settings) -> SpawnedAdapter {
    dap_server::start("php", |connection| run(connection, settings))
}

async fn run(connection: Connection, settings: Settings) {
    let Connection {
        mut requests,
        outbox,
        mut kill,
        ending,
    } = connection;
    let mut debuggee = Debuggee::new(outbox, settings);
    let mut events: Option<mpsc::Receiver<Element>> = None;
    let mut running: Option<oneshot::Receiver<Element>> = None;
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
                // A request that never ends must not keep the adapter from being stopped.
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
                        process_exit = Some(exit);
                    }
                    Flow::Running(answer) => running = Some(answer),
                    Flow::Finish => break "the session disconnected",
                }
            }
            answer = next(&mut running) => {
                running = None;
                if let Some(answer) = answer {
                    running = debuggee.run_answered(answer).await;
                }
            }
            packet = next_event(&mut events) => if packet.is_none() {
                events = None;
                debuggee.connection_closed().await;
            },
            end = dap_server::wait_exit(&mut process_exit) => {
                process_exit = None;
                debuggee.process_exited(end).await;
            }
        }
    };
    debuggee.kill();
    if let Some(process_exit) = process_exit {
        // PHP is being killed: wait so it does not outlive the adapter.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), process_exit).await;
    }
    drop(debuggee);
    ending.report(reason).await;
}

/// The answer to the command that let the script run; `None` when the connection closed first.
async fn next(running: &mut Option<oneshot::Receiver<Element>>) -> Option<Element> {
    match running {
        Some(answer) => answer.await.ok(),
        None => std::future::pending().await,
    }
}

async fn next_event(events: &mut Option<mpsc::Receiver<Element>>) -> Option<Element> {
    match events {
        Some(events) => events.recv().await,
        None => std::future::pending().await,
    }
}
