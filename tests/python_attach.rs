//! Python under debugpy, reached other ways than by `start`'s own adapter: the same adapter
//! defined by the config alone (over stdio and over TCP), `attach --connect` to a debugpy that is
//! already listening, and `stop` on such a session, which leaves the program running to its end.
//!
//! Every test fails (never skips) when debugpy is missing: `.ci/run` installs it with pip.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::python::*;
use common::{Session, at, eventually, fixture_path, free_port, require_debugpy, variable};

#[test]
fn config_only_adapter_runs_debugpy() {
    require_debugpy();
    let s = Session::with_config(
        r#"
[daemon]
grace_period_secs = 60

[adapters.mypy]
command = "python3"
args = ["-m", "debugpy.adapter"]

[adapters.mypy.launch]
type = "python"
justMyCode = false
console = "internalConsole"
breakOnSystemExit = []
"#,
    );
    let started = s.start(&fixture_path(APP), &["--adapter", "mypy", "-b", "square"]);
    assert_eq!(started["adapter"], "mypy", "{started}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "square", "@square_def");
    let stop = step_with(&s, "next");
    assert_at(&stop, APP, "square", "@square_body");
    let n = variable(&s.data(&["locals"])["variables"], "n").clone();
    assert_eq!(n["value"], "3");
    assert_eq!(n["type"], "int");

    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    output_containing(&s, "summary: {\"total\": 10}\n");
}

#[test]
fn config_only_adapter_over_tcp_runs_debugpy() {
    require_debugpy();
    // `{port}` becomes a free loopback port; the daemon connects once the adapter listens.
    let s = Session::with_config(
        r#"
[daemon]
grace_period_secs = 60

[adapters.pytcp]
command = "python3"
args = ["-m", "debugpy.adapter", "--host", "127.0.0.1", "--port", "{port}"]
transport = "tcp"

[adapters.pytcp.launch]
breakOnSystemExit = []
"#,
    );
    let started = s.start(&fixture_path(APP), &["--adapter", "pytcp", "-b", "square"]);
    assert_eq!(started["adapter"], "pytcp", "{started}");
    assert!(started["adapter_pid"].as_u64().is_some(), "{started}");
    let stop = continue_to_stop(&s);
    assert_at(&stop, APP, "square", "@square_def");
    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["exit_code"], 3, "{end}");
}

/// A `python3 -m debugpy --listen` process, killed when dropped.
struct Listening {
    child: Child,
    port: u16,
}

impl Listening {
    /// Starts `python3 -m debugpy --listen 127.0.0.1:PORT --wait-for-client FIXTURE` on a free
    /// port and waits until it accepts connections.
    fn debugpy(fixture: &str) -> Listening {
        let port = free_port();
        let child = Command::new("python3")
            .args(["-m", "debugpy", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--wait-for-client")
            .arg(fixture_path(fixture))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn python3 -m debugpy");
        let mut listening = Listening { child, port };
        listening.wait_until_listening();
        listening
    }

    /// Waits for the port to be in LISTEN state (read from /proc/net/tcp, so that no probe
    /// connection is made that debugpy could take for its client).
    fn wait_until_listening(&mut self) {
        let wanted = format!("0100007F:{:04X}", self.port);
        let listening = eventually(Duration::from_secs(30), || {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("python3 -m debugpy --listen ended before it listened: {status}");
            }
            let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
            table.lines().skip(1).any(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                fields.get(1) == Some(&wanted.as_str()) && fields.get(3) == Some(&"0A")
            })
        });
        assert!(
            listening,
            "debugpy did not listen on 127.0.0.1:{} within 30 s",
            self.port
        );
    }

    /// Waits for the process to end by itself; its exit code.
    fn wait_for_exit(&mut self, within: Duration) -> Option<i32> {
        let mut code = None;
        let ended = eventually(within, || match self.child.try_wait() {
            Ok(Some(status)) => {
                code = status.code();
                true
            }
            _ => false,
        });
        ended.then_some(code).flatten()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn attach_connect_to_a_listening_debugpy() {
    require_debugpy();
    let mut debuggee = Listening::debugpy(APP);
    let address = format!("127.0.0.1:{}", debuggee.port);
    let s = Session::new();
    let attached = s.data(&[
        "attach",
        "--connect",
        &address,
        "--adapter",
        "debugpy",
        "-b",
        &at(APP, "@deposit_body"),
    ]);
    assert_eq!(attached["adapter"], "debugpy", "{attached}");
    assert_eq!(attached["breakpoints"][0]["verified"], true, "{attached}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_body");
    let locals = s.data(&["locals"]);
    let amount = variable(&locals["variables"], "amount");
    assert_eq!(amount["value"], "0", "{locals}");
    assert_eq!(amount["type"], "int", "{locals}");
    assert_eq!(s.value_of("self.balance"), "100");

    // Detaching lets the program run on to its end.
    let detached = s.run(&["detach"]);
    detached.ok();
    let code = debuggee.wait_for_exit(Duration::from_secs(30));
    assert_eq!(
        code,
        Some(3),
        "the program should run to sys.exit(3) once detached"
    );
    let gone = s.run(&["--json", "status"]).failure();
    assert_eq!(gone["code"], "no_session", "{gone}");
}

#[test]
fn stop_on_a_connected_debugpy_releases_the_program() {
    require_debugpy();
    let mut debuggee = Listening::debugpy(APP);
    let address = format!("127.0.0.1:{}", debuggee.port);
    let s = Session::new();
    s.data(&[
        "attach",
        "--connect",
        &address,
        "--adapter",
        "debugpy",
        "-b",
        "square",
    ]);
    let stop = continue_to_stop(&s);
    assert_at(&stop, APP, "square", "@square_def");
    // An attached program is released by `stop`, not killed: it runs on to sys.exit(3).
    s.run(&["stop"]).ok();
    let code = debuggee.wait_for_exit(Duration::from_secs(30));
    assert_eq!(
        code,
        Some(3),
        "the program should run to its end after stop"
    );
}
