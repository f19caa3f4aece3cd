//! Attaching to a Ruby program that opened its debugger itself (`rdbg --open`, `ruby -r
//! debug/open_nonstop`): by the UNIX socket it prints, by its pid (the socket found in the debug
//! gem's folder), and by the TCP port it was told; the program runs on after the attach and after
//! `stop`. A Ruby process without a debugger open is refused with how to open one.
//!
//! Every test fails (never skips) when Ruby is missing: `scripts/install-test-deps.sh`
//! installs it with apt.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::Duration;

use common::node::step_with;
use common::{Session, at, eventually, fixture_path, free_port, line_of, require_ruby, variable};

const PROGRAM: &str = "ruby/attach.rb";

/// A Ruby program with its debugger open, killed when dropped.
struct Debuggee {
    child: Child,
    /// Where it said its debugger listens: a socket's path, or HOST:PORT.
    address: String,
}

impl Debuggee {
    /// `ruby -r debug/open_nonstop PROGRAM` (a UNIX socket), or on `port` when given.
    fn open(port: Option<u16>) -> Debuggee {
        let mut command = Command::new("ruby");
        command
            .args(["-r", "debug/open_nonstop"])
            .arg(fixture_path(PROGRAM))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(port) = port {
            command
                .env("RUBY_DEBUG_HOST", "127.0.0.1")
                .env("RUBY_DEBUG_PORT", port.to_string());
        }
        let mut child = command.spawn().expect("spawn ruby -r debug/open_nonstop");
        let stderr = child.stderr.take().expect("ruby's stderr");
        let address = listening_at(stderr);
        Debuggee { child, address }
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    /// How it ended, once it has.
    fn ended(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Debuggee {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address in the debug gem's "DEBUGGER: Debugger can attach via ... (ADDRESS)" line, read
/// as Ruby writes it; the rest of its stderr is drained so that it never blocks on the pipe.
fn listening_at(stderr: ChildStderr) -> String {
    let mut lines = BufReader::new(stderr).lines();
    let address = loop {
        let line = match lines.next() {
            Some(Ok(line)) => line,
            other => panic!("ruby ended before its debugger listened: {other:?}"),
        };
        if let Some(rest) = line.split_once("Debugger can attach via ").map(|(_, r)| r) {
            let address = rest.split_once('(').map(|(_, a)| a.trim_end_matches(')'));
            break address.expect("an address in parentheses").to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    address
}

/// The program runs after the attach, stops at a breakpoint with its values, and runs on once the
/// session is stopped.
fn debug_attached(s: &Session, debuggee: &mut Debuggee) {
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "running", "{status}");
    s.data(&["break", &at(PROGRAM, "@tally_body")]);
    let stop = step_with(s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "Object#tally", "{stop}");
    assert_eq!(
        stop["frame"]["line"],
        line_of(PROGRAM, "@tally_body"),
        "{stop}"
    );
    let locals = s.data(&["locals"])["variables"].clone();
    assert_eq!(variable(&locals, "items")["value"], "[1, 2, 3]", "{locals}");
    assert_eq!(s.value_of("items.map { _1 * 2 }"), "[2, 4, 6]");
    assert_eq!(debuggee.ended(), None, "the program ended while attached");
    s.run(&["stop"]).ok();
    let mut ended = None;
    eventually(Duration::from_millis(500), || {
        ended = debuggee.ended();
        ended.is_some()
    });
    assert_eq!(
        ended, None,
        "the program should run on once the session has left it"
    );
}

#[test]
fn attach_connects_to_the_socket_a_ruby_program_opened_and_knows_it_is_rdbg() {
    require_ruby();
    let mut debuggee = Debuggee::open(None);
    assert!(debuggee.address.starts_with('/'), "{}", debuggee.address);
    let s = Session::new();
    let attached = s.data(&["attach", "--connect", &debuggee.address.clone()]);
    assert_eq!(attached["adapter"], "rdbg", "{attached}");
    debug_attached(&s, &mut debuggee);
}

#[test]
fn attach_by_pid_finds_the_ruby_programs_socket() {
    require_ruby();
    let mut debuggee = Debuggee::open(None);
    let s = Session::new();
    let attached = s.data(&["attach", &debuggee.pid()]);
    assert_eq!(attached["adapter"], "rdbg", "{attached}");
    // Paused in `sleep`, a frame of C code, which debug 1.4.0 cannot evaluate in: that is an
    // error, not a value reading "Error: …".
    let paused = step_with(&s, "pause");
    assert_eq!(paused["frame"]["function"], "[C] Kernel#sleep", "{paused}");
    let refused = s.json(&["print", "1 + 1"]);
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(s.value_of("@1:[1, 2].sum"), "3");
    s.run(&["continue"]).ok();
    debug_attached(&s, &mut debuggee);
}

#[test]
fn attach_connects_to_a_ruby_programs_debugger_on_a_port() {
    require_ruby();
    let mut debuggee = Debuggee::open(Some(free_port()));
    let s = Session::new();
    let attached = s.data(&[
        "attach",
        "--connect",
        &debuggee.address.clone(),
        "--adapter",
        "rdbg",
    ]);
    assert_eq!(attached["adapter"], "rdbg", "{attached}");
    debug_attached(&s, &mut debuggee);
}

#[test]
fn a_ruby_program_without_its_debugger_open_is_refused_with_how_to_open_it() {
    require_ruby();
    let mut child = Command::new("ruby")
        .arg(fixture_path(PROGRAM))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ruby");
    let s = Session::new();
    let refused = s
        .run(&["--json", "attach", &child.id().to_string()])
        .failure();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("has no debugger open")),
        "{refused}"
    );
    assert!(
        refused["hint"]
            .as_str()
            .is_some_and(|h| h.contains("rdbg --open")),
        "{refused}"
    );
}

/// Leaving a program that runs takes its breakpoints too: one whose condition comes to hold only
/// after the session has gone would otherwise stop a program no debugger listens to, which debug
/// 1.4.0 ends.
#[test]
fn leaving_a_running_ruby_program_takes_its_breakpoints_with_it() {
    require_ruby();
    let mut debuggee = Debuggee::open(None);
    let s = Session::new();
    let flag = s.dir.path().join("go");
    s.data(&["attach", &debuggee.pid()]);
    let location = format!(
        "{} if File.exist?('{}')",
        at(PROGRAM, "@tally_body"),
        flag.display()
    );
    s.data(&["break", &location]);
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "running", "{status}");
    s.run(&["stop"]).ok();
    std::fs::write(&flag, "").expect("write the flag file");
    let mut ended = None;
    eventually(Duration::from_millis(1000), || {
        ended = debuggee.ended();
        ended.is_some()
    });
    assert_eq!(
        ended, None,
        "the program should run on past the breakpoint's line"
    );
}
