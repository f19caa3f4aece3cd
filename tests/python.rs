//! Python under debugpy: the shared per-language scenario (break by line and by function,
//! conditions, continue, next, step, finish, locals, print, backtrace, threads, output, exit code)
//! with the adapter picked from the `.py` extension alone, plus what is particular to debugpy:
//! uncaught exceptions, `--stop-on-entry` followed at once by `continue`, `--no-just-my-code`, the
//! same adapter defined by the config alone, and `--connect` to a debugpy that is already listening.
//! And breakpoints debugpy would accept and never stop at: a function breakpoint on a generator, a
//! coroutine or a `Class.method`, and a line in the standard library under justMyCode.
//!
//! Every test fails (never skips) when debugpy is missing: `.ci/run` installs it with pip.

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    Session, at, eventually, fixture_path, frame_lines, json_decoder_line, line_of,
    require_debugpy, variable,
};
use serde_json::Value;

const APP: &str = "python/app.py";
const RAISES: &str = "python/raises.py";
const THREADS: &str = "python/threads.py";
const GENERATORS: &str = "python/generators.py";

/// How long a `--wait` may take: generous, debugpy starts in about a second.
const WAIT: &str = "60";

/// The stdout the app prints, in order.
const APP_STDOUT: &str = "square: 9\n\
step 0: balance=100 total=0\n\
step 1: balance=101 total=1\n\
step 2: balance=103 total=3\n\
step 3: balance=106 total=6\n\
step 4: balance=110 total=10\n\
summary: {\"total\": 10}\n";

/// `continue --wait` and the stop it reports.
#[track_caller]
fn continue_to_stop(s: &Session) -> Value {
    s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone()
}

/// Runs an execution command (`next`, `step`, `finish`) with `--wait` and returns the stop.
#[track_caller]
fn step_with(s: &Session, command: &str) -> Value {
    s.data(&[command, "--wait", "--timeout", WAIT])["stop"].clone()
}

/// Asserts the stop is in `function` at the line of `marker` in `fixture`.
#[track_caller]
fn assert_at(stop: &Value, fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with(fixture), "expected {fixture}: {stop}");
}

/// Polls `output` until its text contains `needle` (output events may trail a stop a little), and
/// returns the text.
#[track_caller]
fn output_containing(s: &Session, needle: &str) -> String {
    s.output_containing(&[needle], Duration::from_secs(30))
}

#[test]
fn python_scenario_breaks_steps_inspects_and_exits() {
    require_debugpy();
    let s = Session::new();
    let square_call = at(APP, "@square_call");
    // No --adapter: the .py extension picks debugpy.
    let started = s.start(&fixture_path(APP), &["-b", &square_call, "-b", "deposit"]);
    assert_eq!(started["adapter"], "debugpy", "{started}");
    for bp in started["breakpoints"].as_array().expect("breakpoints") {
        assert_eq!(bp["verified"], true, "{started}");
    }

    // Break by line.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_eq!(stop["thread_name"], "MainThread", "{stop}");
    assert_at(&stop, APP, "main", "@square_call");

    // Step into a function, and out again.
    let stop = step_with(&s, "step");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "square", "@square_body");
    let n = variable(&s.data(&["locals"])["variables"], "n").clone();
    assert_eq!(
        (n["value"].as_str(), n["type"].as_str()),
        (Some("3"), Some("int"))
    );
    let stop = step_with(&s, "finish");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "main", "@square_call");

    // Break by function: debugpy stops on the `def` line, as the function is entered.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_def");
    assert_eq!(s.value_of("amount"), "0");

    // A condition: only the fourth deposit stops.
    s.data(&["breakpoint", "remove", "2"]);
    let added = s.data(&[
        "breakpoint",
        "add",
        &at(APP, "@deposit_body"),
        "--condition",
        "amount == 3",
    ]);
    assert_eq!(added["id"], 3, "{added}");
    assert_eq!(added["verified"], true, "{added}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([3]), "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_body");

    // locals: values and types, without debugpy's "special variables" groups.
    let locals = s.data(&["locals"]);
    let variables = &locals["variables"];
    let amount = variable(variables, "amount");
    assert_eq!(amount["value"], "3", "{locals}");
    assert_eq!(amount["type"], "int", "{locals}");
    let this = variable(variables, "self");
    assert_eq!(this["type"], "Account", "{locals}");
    let text = s.run(&["locals"]);
    let text = text.ok();
    assert!(text.contains("amount (int) = 3"), "{text}");
    assert!(text.contains("balance = 103"), "{text}");
    assert!(text.contains("owner = 'ada'"), "{text}");
    assert!(!text.contains("special variables"), "{text}");
    assert!(!text.contains("function variables"), "{text}");

    // print: a name, an attribute, an expression.
    let printed = s.data(&["print", "self.balance"]);
    assert_eq!(printed["value"], "103", "{printed}");
    assert_eq!(printed["type"], "int", "{printed}");
    assert_eq!(s.value_of("self.owner"), "'ada'");
    assert_eq!(s.value_of("amount * 10 + self.balance"), "133");
    let missing = s.run(&["--json", "print", "nosuch"]).failure();
    assert!(
        missing["message"].as_str().unwrap_or("").contains("nosuch"),
        "{missing}"
    );

    // backtrace: function names and lines, innermost first.
    let bt = s.data(&["backtrace"]);
    let seen = frame_lines(&bt);
    assert_eq!(
        seen,
        vec![
            ("deposit", u64::from(line_of(APP, "@deposit_body"))),
            ("main", u64::from(line_of(APP, "@loop_call"))),
            ("<module>", u64::from(line_of(APP, "@exit_call"))),
        ],
        "{bt}"
    );

    // threads: the main thread, selected.
    let threads = s.data(&["threads"]);
    let main = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .find(|t| t["name"] == "MainThread")
        .unwrap_or_else(|| panic!("no MainThread: {threads}"));
    assert_eq!(main["selected"], true, "{threads}");
    assert_eq!(main["frame"]["function"], "deposit", "{threads}");

    // next: over one line.
    let stop = step_with(&s, "next");
    assert_eq!(stop["reason"], "step", "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_update");
    assert_eq!(s.value_of("before"), "103");

    // Output: stdout so far, then stderr after it, in order.
    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["breakpoint", "add", &at(APP, "@stderr_print")]);
    let stop = continue_to_stop(&s);
    assert_at(&stop, APP, "main", "@stderr_print");
    let text = output_containing(&s, "summary: {\"total\": 10}\n");
    assert_eq!(text, APP_STDOUT, "stdout before the stderr line");

    // sys.exit(3) is an exit, not an exception stop.
    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    let text = output_containing(&s, "app: done\n");
    assert_eq!(text, format!("{APP_STDOUT}app: done\n"));
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], 3, "{status}");
}

#[test]
fn an_exit_nobody_was_shown_answers_the_next_continue_once() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(APP), &[]);
    // `status` shows the state without showing the exit's report.
    let exited = eventually(Duration::from_secs(60), || {
        s.data(&["status"])["state"] == "exited"
    });
    assert!(exited, "app.py did not exit: {}", s.data(&["status"]));

    let data = s.data(&["continue", "--wait", "--timeout", WAIT]);
    assert_eq!(data["state"], "exited", "{data}");
    assert_eq!(data["stop"]["reason"], "exited", "{data}");
    assert_eq!(data["stop"]["exit_code"], 3, "{data}");
    let again = s.run(&["--json", "step"]);
    assert_eq!(again.code, 1, "{again:?}");
    assert_eq!(again.failure()["code"], "not_running");
}

#[test]
fn uncaught_exception_stops_with_its_type_and_message() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(RAISES), &[]);
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_at(&stop, RAISES, "ratio", "@divide");
    assert_eq!(stop["exception"]["type"], "ZeroDivisionError", "{stop}");
    assert_eq!(stop["exception"]["message"], "division by zero", "{stop}");

    let context = s.data(&["context"]);
    assert_eq!(context["reason"], "exception", "{context}");
    assert_eq!(
        context["exception"]["type"], "ZeroDivisionError",
        "{context}"
    );
    assert_eq!(context["exception"]["message"], "division by zero");
    let b = variable(&context["variables"], "b");
    assert_eq!(b["value"], "0", "{context}");
    let text = s.run(&["context"]);
    assert!(
        text.ok().contains("ZeroDivisionError: division by zero"),
        "{}",
        text.stdout
    );
    let stop_text = s.run(&["await"]);
    assert!(
        stop_text
            .ok()
            .contains("ZeroDivisionError: division by zero"),
        "{}",
        stop_text.stdout
    );

    // The frames of the raise are all there.
    let bt = s.data(&["backtrace"]);
    let names: Vec<&str> = bt["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["function"].as_str())
        .collect();
    assert_eq!(names, ["ratio", "check", "main", "<module>"], "{bt}");

    // Going on lets the exception end the program, as Python does.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 1, "{end}");
    output_containing(&s, "ZeroDivisionError: division by zero");
}

#[test]
fn uncaught_custom_exception_message_is_reported() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(RAISES), &["--", "negative"]);
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_at(&stop, RAISES, "check", "@raise_value");
    assert_eq!(stop["exception"]["type"], "ValueError", "{stop}");
    assert_eq!(stop["exception"]["message"], "negative value: -5", "{stop}");
    let text = s.run(&["context"]);
    assert!(
        text.ok().contains("ValueError: negative value: -5"),
        "{}",
        text.stdout
    );
}

#[test]
fn continue_right_after_stop_on_entry_is_not_lost() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["--stop-on-entry", "-b", "square"]);
    assert_eq!(started["adapter"], "debugpy", "{started}");
    // At once, with no look at the entry stop first.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "square", "@square_def");
}

#[test]
fn continue_without_wait_after_stop_on_entry_then_await() {
    require_debugpy();
    let s = Session::new();
    s.start(
        &fixture_path(APP),
        &["--stop-on-entry", "-b", &at(APP, "@square_body")],
    );
    let resumed = s.data(&["continue"]);
    assert_eq!(resumed["action"], "continue", "{resumed}");
    let stop = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "square", "@square_body");

    // The module's frame: its globals, without debugpy's synthetic groups; functions are listed
    // like any value, and so is a class.
    let frame = s.data(&["frame", "2"]);
    assert_eq!(frame["frame"]["function"], "<module>", "{frame}");
    let locals = s.data(&["locals"]);
    let names: Vec<&str> = locals["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["Account", "json", "main", "square", "sys"],
        "{locals}"
    );
    assert_eq!(variable(&locals["variables"], "Account")["type"], "type");
}

#[test]
fn no_just_my_code_steps_into_the_standard_library() {
    require_debugpy();
    let library_call = at(APP, "@library_call");

    // Default: justMyCode, so `step` over json.dumps stays in the program.
    let mine = Session::new();
    mine.start(&fixture_path(APP), &["-b", &library_call]);
    let stop = continue_to_stop(&mine);
    assert_at(&stop, APP, "main", "@library_call");
    let stop = step_with(&mine, "step");
    assert_eq!(stop["frame"]["function"], "main", "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(APP, "@library_call") + 1);

    // --no-just-my-code: the same step enters json/__init__.py.
    let all = Session::new();
    all.start(
        &fixture_path(APP),
        &["--no-just-my-code", "-b", &library_call],
    );
    let stop = continue_to_stop(&all);
    assert_at(&stop, APP, "main", "@library_call");
    let stop = step_with(&all, "step");
    assert_eq!(stop["frame"]["function"], "dumps", "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with("json/__init__.py"), "{stop}");
}

#[test]
fn threads_are_listed_by_name() {
    require_debugpy();
    let s = Session::new();
    s.start(
        &fixture_path(THREADS),
        &["-b", &at(THREADS, "@worker_body")],
    );
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, THREADS, "worker", "@worker_body");
    let stopped_in = stop["thread_name"].as_str().unwrap_or("").to_string();
    assert!(stopped_in.starts_with("worker-"), "{stop}");

    let threads = s.data(&["threads"]);
    let names: Vec<&str> = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in ["MainThread", "worker-1", "worker-2"] {
        assert!(names.contains(&name), "no {name}: {threads}");
    }

    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    let text = output_containing(&s, "threads: done\n");
    assert_eq!(
        text,
        "worker-1 result=10\nworker-2 result=20\nthreads: done\n"
    );
}

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
        let deadline = Instant::now() + Duration::from_secs(30);
        let wanted = format!("0100007F:{:04X}", self.port);
        loop {
            let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
            let listening = table.lines().skip(1).any(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                fields.get(1) == Some(&wanted.as_str()) && fields.get(3) == Some(&"0A")
            });
            if listening {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("python3 -m debugpy --listen ended before it listened: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "debugpy did not listen on 127.0.0.1:{} within 30 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the process to end by itself; its exit code.
    fn wait_for_exit(&mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nobody listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
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

#[test]
fn function_breakpoint_on_a_generator_stops_on_its_first_line_when_first_iterated() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(GENERATORS), &["-b", "produce"]);
    let bp = &started["breakpoints"][0];
    assert_eq!(bp["verified"], true, "{started}");
    assert_eq!(
        bp["line"],
        line_of(GENERATORS, "@produce_body"),
        "{started}"
    );

    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_at(&stop, GENERATORS, "produce", "@produce_body");
    assert_eq!(s.value_of("count"), "4");
    let bt = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&bt)[..2],
        [
            ("produce", u64::from(line_of(GENERATORS, "@produce_body"))),
            ("main", u64::from(line_of(GENERATORS, "@produce_call"))),
        ],
        "{bt}"
    );

    // A coroutine's breakpoint added while stopped stops too; the generator's later resumptions
    // on the way there do not.
    let added = s.data(&["breakpoint", "add", "fetch"]);
    assert_eq!(added["verified"], true, "{added}");
    assert_eq!(added["line"], line_of(GENERATORS, "@fetch_body"), "{added}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_at(&stop, GENERATORS, "fetch", "@fetch_body");
    let text = output_containing(&s, "totals: [0, 1, 3, 6]\n");
    assert_eq!(text, "totals: [0, 1, 3, 6]\n");
}

#[test]
fn function_breakpoint_on_a_coroutine_stops_on_its_first_line_once() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(GENERATORS), &["-b", "fetch"]);
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, GENERATORS, "fetch", "@fetch_body");
    assert_eq!(s.value_of("key"), "21");

    // Resuming after the `await` is not a new call: the program runs to its end.
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    output_containing(&s, "fetched: 42\n");
}

#[test]
fn function_breakpoint_on_a_class_method_by_its_qualified_name_stops() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(&fixture_path(APP), &["-b", "Account.deposit"]);
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, APP, "deposit", "@deposit_body");
    assert_eq!(s.value_of("amount"), "0");
}

/// Asserts the stop is at `line` of the standard library's json/decoder.py, called from the
/// fixture's `main`.
#[track_caller]
fn assert_in_json_decoder(s: &Session, stop: &Value, line: u32) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "decode", "{stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with("json/decoder.py"), "{stop}");
    assert_eq!(stop["thread_name"], "MainThread", "{stop}");
    let bt = s.data(&["backtrace"]);
    let main = ("main", u64::from(line_of(GENERATORS, "@library_call")));
    assert!(frame_lines(&bt).contains(&main), "{bt}");
}

#[test]
fn breakpoint_in_the_standard_library_stops_under_just_my_code() {
    require_debugpy();
    let (decoder, line) = json_decoder_line();
    let location = format!("{}:{line}", decoder.display());
    let s = Session::new();
    // No --no-just-my-code: the default, under which debugpy skips library code.
    let started = s.start(&fixture_path(GENERATORS), &["-b", &location]);
    let bp = &started["breakpoints"][0];
    assert_eq!(bp["verified"], true, "{started}");
    assert!(bp["message"].is_null(), "{started}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_in_json_decoder(&s, &stop, line);
}

#[test]
fn breakpoint_added_in_the_standard_library_while_stopped_stops_under_just_my_code() {
    require_debugpy();
    let (decoder, line) = json_decoder_line();
    let s = Session::new();
    s.start(
        &fixture_path(GENERATORS),
        &["-b", &at(GENERATORS, "@fetch_call")],
    );
    let stop = continue_to_stop(&s);
    assert_at(&stop, GENERATORS, "main", "@fetch_call");

    let added = s.data(&[
        "breakpoint",
        "add",
        &format!("{}:{line}", decoder.display()),
    ]);
    assert_eq!(added["verified"], true, "{added}");
    assert!(added["message"].is_null(), "{added}");
    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_in_json_decoder(&s, &stop, line);
}

#[test]
fn library_function_breakpoints_under_just_my_code_stop_or_say_why_not() {
    require_debugpy();
    let (_, line) = json_decoder_line();
    let s = Session::new();
    let started = s.start(
        &fixture_path(GENERATORS),
        &["-b", "raw_decode", "-b", "json.decoder.JSONDecoder.decode"],
    );
    // A bare name defined only in the library: debugpy would call it verified and never stop.
    let bare = &started["breakpoints"][0];
    assert_eq!(bare["verified"], false, "{started}");
    let message = bare["message"].as_str().unwrap_or("");
    assert!(message.contains("--no-just-my-code"), "{started}");
    assert!(message.contains("json.loads"), "{started}");
    // With its module it is found, and stops on the first line of its body.
    let qualified = &started["breakpoints"][1];
    assert_eq!(qualified["verified"], true, "{started}");

    let stop = continue_to_stop(&s);
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_in_json_decoder(&s, &stop, line);
}

/// A Python that cannot import debugpy is told as debugpy missing, though a lone Python is no
/// longer run to import it before every start: a stand-in refuses `-m debugpy.adapter` as such a
/// Python does (a shell script, hence Unix only).
#[cfg(unix)]
#[test]
fn a_python_without_debugpy_is_named_when_the_start_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let python = dir.path().join("python3");
    std::fs::write(
        &python,
        "#!/bin/sh\necho \"No module named debugpy\" >&2\nexit 1\n",
    )
    .expect("write the stand-in");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the stand-in");
    }
    let s = Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.debugpy]\npath = {:?}\n",
        python.display().to_string()
    ));
    let app = common::fixture_path("python/app.py");
    let out = s.run(&["--json", "start", app.to_str().expect("utf-8")]);
    let error = out.failure();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("debugpy not found (tried: ") && message.contains("python3"),
        "{error}"
    );
    assert_eq!(error["code"], "adapter_not_found", "{error}");
}
