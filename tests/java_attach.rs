//! Attaching the built-in `java` adapter to a JVM that runs already, whose JDWP agent listens
//! (`-agentlib:jdwp=transport=dt_socket,server=y,…`): by address (`attach --connect`), and by
//! process id, where the agent's address is read from the JVM's command line, or its listener
//! is started with `jcmd VM.start_java_debugging` (`onjcmd=y`). Detaching leaves the JVM
//! running; a JVM without an agent gets the flag to restart it with.
//!
//! Every test fails (never skips) when no JDK is found: `.ci/run` installs them.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::java::{TEMURIN_25, step_with};
use common::{Session, at, fixture_path, free_port, line_of, require_jdk};

const BEAT: &str = "java/Beat.java";

/// A JVM running the Beat fixture, killed when dropped.
struct Jvm {
    child: Child,
    /// Its stdout's lines after `pid: N`, as a thread reads them.
    lines: Receiver<String>,
}

impl Jvm {
    /// Runs `JAVA_HOME/bin/java AGENT Beat.java` (no agent when `agent` is empty) and waits
    /// until its `main` runs (it prints its pid), so its class is loaded and its agent listens.
    fn start(java_home: &Path, agent: &str) -> Jvm {
        let jvm = Jvm::spawn(java_home, agent);
        jvm.wait_for(|line| line.starts_with("pid: "));
        jvm
    }

    /// Runs `JAVA_HOME/bin/java AGENT Beat.java`, its output read in the background.
    fn spawn(java_home: &Path, agent: &str) -> Jvm {
        Jvm::spawn_with_stderr(java_home, agent, Stdio::null())
    }

    /// [`Jvm::spawn`] with the JVM's stderr (where its JDWP agent logs) on `stderr`.
    fn spawn_with_stderr(java_home: &Path, agent: &str, stderr: Stdio) -> Jvm {
        let mut command = Command::new(java_home.join("bin/java"));
        if !agent.is_empty() {
            command.arg(agent);
        }
        let mut child = command
            .arg(fixture_path(BEAT))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn java");
        let stdout = child.stdout.take().expect("java's stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                // The test has ended when no one receives: the pipe may fill, java is killed.
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Jvm { child, lines }
    }

    /// Waits for a line of the program's output that `wanted` accepts, passing over the others.
    #[track_caller]
    fn wait_for(&self, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if wanted(&line) => return line,
                Ok(_) => {}
                Err(e) => panic!("java did not print the line waited for within 60 s: {e}"),
            }
        }
    }

    /// Waits until the program has beaten `count` times: it runs.
    #[track_caller]
    fn wait_for_beat(&self, count: u64) {
        self.wait_for(|line| {
            line.strip_prefix("beat ")
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|n| n >= count)
        });
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Jvm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent(options: &str) -> String {
    format!("-agentlib:jdwp=transport=dt_socket,server=y,{options}")
}

/// Continues to the breakpoint in `beat` and returns the program's `count` there.
#[track_caller]
fn continue_to_beat(s: &Session) -> u64 {
    let stop = step_with(s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "Beat.beat", "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(BEAT, "@beat_body"), "{stop}");
    s.value_of("count").parse().expect("count is a number")
}

#[test]
fn attach_connect_without_naming_the_adapter_breaks_and_detach_leaves_the_jvm_running() {
    let jdk = require_jdk();
    let port = free_port();
    let mut jvm = Jvm::start(
        &jdk.home.expect("the JDK's folder"),
        &agent(&format!("suspend=n,address=127.0.0.1:{port}")),
    );
    let s = Session::new();
    let address = format!("127.0.0.1:{port}");
    // No --adapter: the address answers JDWP's handshake.
    let attached = s.data(&[
        "attach",
        "--connect",
        &address,
        "-b",
        &at(BEAT, "@beat_body"),
    ]);
    assert_eq!(attached["adapter"], "java", "{attached}");
    // The class is loaded: the breakpoint binds at once.
    assert_eq!(attached["breakpoints"][0]["verified"], true, "{attached}");

    let count = continue_to_beat(&s);
    assert_eq!(s.value_of("label"), "\"beat\"");
    assert_eq!(s.value_of("count * 2"), (count * 2).to_string());
    // Another beat: the program went on and came back.
    assert_eq!(continue_to_beat(&s), count + 1);

    s.run(&["detach"]).ok();
    // Released, the program beats on past the one held at the breakpoint.
    jvm.wait_for_beat(count + 3);
    assert!(jvm.running(), "the JVM ended after detach");
    let gone = s.run(&["--json", "status"]).failure();
    assert_eq!(gone["code"], "no_session", "{gone}");
}

/// By pid, on Temurin 25: the agent's address is in the JVM's command line. A method
/// breakpoint binds in the loaded class; `stop` leaves the JVM running.
#[test]
fn attach_by_pid_finds_the_agent_in_the_command_line_and_stop_leaves_the_jvm_running() {
    require_jdk();
    let port = free_port();
    let mut jvm = Jvm::start(
        Path::new(TEMURIN_25),
        &agent(&format!("suspend=n,address={port}")),
    );
    let s = Session::new();
    let pid = jvm.pid().to_string();
    let attached = s.data(&["attach", &pid, "-b", "Beat.beat"]);
    assert_eq!(attached["adapter"], "java", "{attached}");
    assert_eq!(attached["debuggee_pid"], jvm.pid(), "{attached}");
    let count = continue_to_beat(&s);
    s.run(&["stop"]).ok();
    jvm.wait_for_beat(count + 2);
    assert!(jvm.running(), "the JVM ended after stop");
}

/// A JVM started with `onjcmd=y` listens only once `jcmd VM.start_java_debugging` asks it to,
/// on a port of the system's choosing: attaching by pid does both.
#[test]
fn attach_by_pid_starts_an_onjcmd_agent_listening() {
    let jdk = require_jdk();
    let jvm = Jvm::start(
        &jdk.home.expect("the JDK's folder"),
        &agent("suspend=n,onjcmd=y,address=127.0.0.1:0"),
    );
    let s = Session::new();
    let pid = jvm.pid().to_string();
    s.data(&["attach", &pid, "--adapter", "java", "-b", "Beat.beat"]);
    let count = continue_to_beat(&s);
    s.run(&["detach"]).ok();
    jvm.wait_for_beat(count + 2);
}

#[test]
fn attach_by_pid_to_a_jvm_without_an_agent_names_the_flag_to_restart_it_with() {
    let jdk = require_jdk();
    let mut jvm = Jvm::start(&jdk.home.expect("the JDK's folder"), "");
    let s = Session::new();
    let pid = jvm.pid().to_string();
    let failed = s.run(&["--json", "attach", &pid]).failure();
    let message = failed["message"].as_str().unwrap_or("");
    assert!(
        message.contains(
            "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:5005"
        ),
        "{failed}"
    );
    assert!(jvm.running(), "the JVM ended");
}

/// A JVM started with `suspend=y` waits for its debugger before `main`: attaching without
/// naming the adapter lets it run to a breakpoint set on the way in. The probe that finds its
/// JDWP agent asks it first, and keeps its connection for the session: any other probe would be
/// a failed handshake in the JVM's log, and a probe's leaving would let the JVM go before the
/// breakpoint is set.
#[test]
fn attach_connect_without_naming_the_adapter_to_a_jvm_waiting_at_its_start_lets_it_run_to_a_breakpoint()
 {
    let jdk = require_jdk();
    let port = free_port();
    let log = tempfile::NamedTempFile::new().expect("a file for the JVM's stderr");
    let jvm = Jvm::spawn_with_stderr(
        &jdk.home.expect("the JDK's folder"),
        &agent(&format!("suspend=y,address=127.0.0.1:{port}")),
        Stdio::from(log.reopen().expect("reopen the log")),
    );
    // The agent says where it listens before it waits.
    jvm.wait_for(|line| line.contains("Listening for transport"));
    let s = Session::new();
    let address = format!("127.0.0.1:{port}");
    let attached = s.data(&["attach", "--connect", &address, "-b", "Beat.beat"]);
    assert_eq!(attached["adapter"], "java", "{attached}");
    assert_eq!(attached["breakpoints"][0]["verified"], false, "{attached}");
    // The first beat: nothing ran before the debugger came.
    assert_eq!(continue_to_beat(&s), 0);
    s.run(&["stop"]).ok();
    let said = std::fs::read_to_string(log.path()).expect("read the JVM's stderr");
    assert!(
        !said.contains("handshake failed"),
        "the JVM logged a failed handshake: {said}"
    );
}
