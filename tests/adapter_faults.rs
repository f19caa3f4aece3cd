//! Faults only a scripted adapter can produce on demand: crashes, garbage, silence, slowness,
//! floods and reverse requests. The daemon must report each clearly and keep serving.

mod common;

use common::Session;
use serde_json::json;

#[test]
fn an_adapter_that_exits_mid_request_fails_it_with_the_exit_status_and_stderr() {
    let s = Session::with_mock(
        &json!({"on": {"threads": {"action": "exit", "code": 7, "stderr": "mock: fatal error in threads"}}}),
        "",
    );
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let run = s.run(&["--json", "threads"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let error = run.failure();
    assert_eq!(error["code"], "adapter_died", "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("exited with status 7"), "{message}");
    assert!(
        message.contains("mock: fatal error in threads"),
        "{message}"
    );
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "adapter_died", "{status}");
}
