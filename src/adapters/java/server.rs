//! The JVM adapter's loop inside the daemon (see `dap_server`): the session's requests, the
//! JVM's JDWP event packets and the launched JVM's end, one at a time.

use tokio::sync::oneshot;

use super::debuggee::{Debuggee, Flow, Settings};
use super::jdwp::{EventPacket, EventPackets};
use crate::adapters::dap_server::{self, Connection, ProcessEnd};
use crate::adapters::process::SpawnedAdapter;

/// Starts the adapter task and returns the session's end of the connection.
pub fn start(settings: Settings) -> SpawnedAdapter {
    dap_server::start("java", |connection| run(connection, settings))
}

async fn run(connection: Connection, settings: Settings) {
    let Connection {
        mut requests,
        outbox,
        mut kill,
        ending,
    } = connection;
    let mut debuggee = Debuggee::new(outbox, settings);
    let mut events: Option<EventPackets> = None;
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
                        process_exit = exit;
                    }
                    Flow::Finish => break "the session disconnected",
                }
            }
            packet = next_packet(&mut events) => match packet {
                Some(packet) => debuggee.on_events(packet).await,
                None => {
                    events = None;
                    debuggee.connection_closed().await;
                }
            },
            end = dap_server::wait_exit(&mut process_exit) => {
                process_exit = None;
                debuggee.process_exited(end).await;
            }
        }
    };
    debuggee.kill();
    if let Some(process_exit) = process_exit {
        // The JVM is being killed: wait so it does not outlive the adapter.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), process_exit).await;
    }
    drop(debuggee);
    ending.report(reason).await;
}

async fn next_packet(events: &mut Option<EventPackets>) -> Option<EventPacket> {
    match events {
        Some(events) => events.next().await,
        None => std::future::pending().await,
    }
}
