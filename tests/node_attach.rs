//! Attaching the built-in `node` adapter: to a running Node by pid (its inspector opened with
//! SIGUSR1), with `attach --connect` to an inspector that is already listening, and to a program
//! waiting at `--inspect-brk`.
//!
//! Every test fails (never skips) when `node` is missing: `.ci/run` installs it with apt.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::node::*;
use common::{Session, fixture_path, free_port, line_of, require_node, variable};

/// A `node` process the test started, killed when dropped.
struct NodeProcess {
    child: Child,
    /// Its stdout's lines after the first, as a thread reads them (`None`: not piped).
    lines: Option<Receiver<String>>,
}

impl NodeProcess {
    /// Starts `node ARGS... FIXTURE` and waits for its first stdout line (server.js prints its
    /// pid once it runs, so its SIGUSR1 handler is in place by then); the rest of stdout is
    /// read in the background, for [`NodeProcess::wait_for_line`].
    fn start(args: &[&str], fixture: &str) -> NodeProcess {
        let mut child = Command::new(node())
            .args(args)
            .arg(fixture_path(fixture))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn node");
        let stdout = child.stdout.take().expect("node's stdout");
        let mut process = NodeProcess { child, lines: None };
        let mut reader = BufReader::new(stdout);
        let mut first = String::new();
        let read = reader.read_line(&mut first);
        assert!(
            matches!(read, Ok(n) if n > 0) && first.starts_with("pid: "),
            "node {fixture} did not start: {read:?} {first:?} (exit: {:?})",
            process.child.try_wait()
        );
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                // The test has ended when no one receives: the pipe may fill, node is killed.
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        process.lines = Some(lines);
        process
    }

    /// Waits until the program prints the line `wanted`, passing over the lines before it.
    #[track_caller]
    fn wait_for_line(&self, wanted: &str) {
        let lines = self.lines.as_ref().expect("node's stdout is read");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) if line == wanted => return,
                Ok(_) => {}
                Err(e) => panic!("node did not print {wanted:?} within 30 s: {e}"),
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until 127.0.0.1:`port` is in LISTEN state (read from /proc/net/tcp, so no probe
/// connection is made).
fn wait_until_listening(process: &mut NodeProcess, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let wanted = format!("0100007F:{port:04X}");
    loop {
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
        let listening = table.lines().skip(1).any(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.get(1) == Some(&wanted.as_str()) && fields.get(3) == Some(&"0A")
        });
        if listening {
            return;
        }
        assert!(
            process.running(),
            "node ended before its inspector listened"
        );
        assert!(
            Instant::now() < deadline,
            "node's inspector did not listen on 127.0.0.1:{port} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn attach_by_pid_breaks_in_a_running_program_and_detach_leaves_it_running() {
    require_node();
    // `--inspect-port=0`: the inspector SIGUSR1 opens takes a free port rather than 9229, which
    // something else on the machine may hold; it is found in /proc all the same.
    let mut server = NodeProcess::start(&["--inspect-port=0"], SERVER);
    let pid = server.pid().to_string();
    let s = Session::new();
    // No --adapter: /proc says the process is node.
    let attached = s.data(&["attach", &pid, "-b", "beat"]);
    assert_eq!(attached["adapter"], "node", "{attached}");
    assert_eq!(attached["debuggee_pid"], server.pid(), "{attached}");
    assert_eq!(attached["breakpoints"][0]["verified"], true, "{attached}");
    assert_eq!(
        attached["breakpoints"][0]["resolved_line"],
        line_of(SERVER, "@beat_body"),
        "{attached}"
    );

    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], SERVER, "beat", "@beat_body");
    // Only the program's frame: the timer machinery below it is Node's.
    assert_eq!(backtrace(&s), vec![frame("beat", SERVER, "@beat_body")]);
    let count: u64 = s.value_of("count").parse().expect("count is a number");
    // 0 when the stop is the first beat since node started.
    assert_eq!(s.value_of("count + 1000"), (count + 1000).to_string());
    let this = variable(&locals(&s), "this").clone();
    assert_eq!(this["type"], "Timeout", "{this}");

    // One step: count has gone up by one.
    let stop = step_with(&s, "next");
    assert_at(&stop, SERVER, "beat", "@beat_print");
    assert_eq!(s.value_of("count"), (count + 1).to_string());
    // The next beat: what this one logged while attached is in `output` (an attached
    // program's console calls are its output).
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], SERVER, "beat", "@beat_body");
    assert_eq!(s.value_of("count"), (count + 1).to_string());
    output_containing(&s, &format!("beat {}\n", count + 1));

    let detached = s.run(&["detach"]);
    detached.ok();
    // The beat after the one held at the breakpoint: the program went on once released.
    server.wait_for_line(&format!("beat {}", count + 3));
    assert!(server.running(), "node ended after detach");
    let gone = s.run(&["--json", "status"]).failure();
    assert_eq!(gone["code"], "no_session", "{gone}");
}

#[test]
fn attach_connect_to_an_inspector_without_naming_the_adapter() {
    require_node();
    let port = free_port();
    let mut server = NodeProcess::start(&[&format!("--inspect=127.0.0.1:{port}")], SERVER);
    wait_until_listening(&mut server, port);
    let s = Session::new();
    let address = format!("127.0.0.1:{port}");
    // No --adapter: the address answers as a Node inspector.
    let attached = s.data(&["attach", "--connect", &address, "-b", "beat"]);
    assert_eq!(attached["adapter"], "node", "{attached}");
    assert_eq!(attached["breakpoints"][0]["verified"], true, "{attached}");

    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], SERVER, "beat", "@beat_body");
    let count: u64 = s.value_of("count").parse().expect("count is a number");
    assert_eq!(s.value_of("count * 2"), (count * 2).to_string());

    // `stop` on an attached program releases it: the beat after the one held at the
    // breakpoint comes.
    s.run(&["stop"]).ok();
    server.wait_for_line(&format!("beat {}", count + 2));
    assert!(server.running(), "node ended after stop");
}

/// A program started with `--inspect-brk` waits for its debugger: attaching lets it run, it does
/// not stop at its first line unasked, and a function breakpoint in a file it loads later (found
/// in the folder of its first file) stops it.
#[test]
fn attach_to_a_program_waiting_at_inspect_brk_lets_it_run_to_a_breakpoint() {
    require_node();
    let port = free_port();
    let child = Command::new(node())
        .arg(format!("--inspect-brk=127.0.0.1:{port}"))
        .arg(fixture_path(APP))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn node");
    let mut waiting = NodeProcess { child, lines: None };
    wait_until_listening(&mut waiting, port);
    let s = Session::new();
    let address = format!("127.0.0.1:{port}");
    s.data(&["attach", "--connect", &address, "-b", "formatStep"]);
    let stop = continue_to_stop(&s);
    assert_breakpoint(&stop, &[1], FORMAT, "formatStep", "@format_body");
    s.run(&["stop"]).ok();
}
