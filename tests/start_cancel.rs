//! `stop` while a `start` is still launching cancels it: the start answers `interrupted`, the
//! stop says so, and neither the adapter nor the daemon is left running. Before, the stop was
//! told the session was still starting, and the start waited out the adapter's silence.

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::{Run, Session, alive, children_of, eventually};
use serde_json::json;

/// The children of `parent` whose command name is `name`.
fn children_named(parent: u32, name: &str) -> Vec<u32> {
    children_of(parent)
        .into_iter()
        .filter(|child| child.name == name)
        .map(|child| child.pid)
        .collect()
}

#[test]
fn stop_cancels_a_start_still_launching() {
    // The adapter never answers `launch`: the start would wait out launch_secs (60 s).
    let s = Session::with_mock(&json!({ "on": { "launch": { "action": "hang" } } }), "");
    let start = s
        .command()
        .args([
            "--json",
            "start",
            "--no-wait",
            "--adapter",
            "mock",
            "/bin/true",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run start");
    assert!(
        eventually(Duration::from_secs(20), || s
            .log()
            .contains("mock adapter: holding launch")),
        "the adapter never got the launch: {}",
        s.log()
    );
    let lock = s.runtime_dir().join(format!("{}.lock", s.name));
    let daemon: u32 = std::fs::read_to_string(&lock)
        .expect("the daemon's lock file")
        .trim()
        .parse()
        .expect("the daemon's pid");
    let adapters = children_named(daemon, "mock_adapter");
    assert_eq!(adapters.len(), 1, "{adapters:?}");

    let stopped = s.data(&["stop"]);
    let message = stopped["message"].as_str().unwrap_or("");
    assert!(message.contains("cancelled"), "{stopped}");

    // The start answers at once, not when the adapter's silence runs out.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(start.wait_with_output());
    });
    let output = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the start still waits after the stop")
        .expect("the start's output");
    let run = Run::from(output);
    assert_eq!(run.code, 130, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "interrupted", "{error}");

    assert!(
        eventually(Duration::from_secs(10), || !alive(adapters[0])
            && !alive(daemon)),
        "left running: adapter {}, daemon {}",
        alive(adapters[0]),
        alive(daemon)
    );
    let status = s.json(&["status"]);
    assert_eq!(status["error"]["code"], "no_session", "{status}");
}
