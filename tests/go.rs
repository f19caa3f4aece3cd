//! Go under Delve, with no `--adapter` flag, beyond the conformance suite's scenario
//! (tests/conformance.rs, which runs a prebuilt binary): a `.go` file and a package directory
//! (`debug` mode, Delve builds them), logpoints, and goroutines shown as threads.
//!
//! Every test fails, never skips, when `dlv` or `go` is missing: `.ci/run` installs both.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::delve::{
    LEDGER, assert_ledger_output, assert_stop, child_names, locals, output_with, run_start,
    run_to_exit, start,
};
use common::{
    Session, at, build_go, fixture_path, line_of, require_delve, selected_threads, with_go_env,
};
use serde_json::Value;

const GOROUTINES: &str = "go/goroutines/main.go";
/// A `parse` in package main and in package words, and a `total` in main only.
const AMBIGUOUS: &str = "go/ambiguous/main.go";

#[test]
fn go_source_file_is_built_and_debugged_with_function_breakpoints() {
    require_delve();
    let s = Session::new();
    let add = line_of(LEDGER, "@add_body");
    let started = start(
        &s,
        &fixture_path(LEDGER),
        &["--break", "main.add", "--stop-on-entry"],
    );
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");
    assert_eq!(
        started["breakpoints"][0]["function"], "main.add",
        "{started}"
    );
    assert_eq!(started["stop"]["reason"], "entry", "{started}");

    // A condition on a function breakpoint, by its arguments.
    s.data(&["breakpoint", "remove", "--all"]);
    let added = s.data(&["breakpoint", "add", "main.add", "--condition", "b == 2"]);
    assert_eq!(added["verified"], true, "{added}");
    let stop = s.stop_after("continue");
    assert_stop(&stop, "breakpoint", "main.add", add - 1);
    assert_eq!(s.value_of("b"), "2");
    assert_eq!(s.value_of("a"), "1");
    assert_eq!(s.value_of("a + b*10"), "21");

    let frames = s.data(&["backtrace"])["frames"].clone();
    assert_eq!(frames[0]["function"], "main.add", "{frames}");
    assert_eq!(frames[1]["function"], "main.main", "{frames}");
    assert_eq!(frames[1]["line"], line_of(LEDGER, "@loop_call"), "{frames}");

    let stop = s.stop_after("finish");
    assert_eq!(stop["frame"]["function"], "main.main", "{stop}");
    output_with(&s, &["step 1: total=1 balance=101"]);

    run_to_exit(&s, 3);
    assert_ledger_output(&s);
}

#[test]
fn logpoint_logs_through_delve_without_stopping() {
    require_delve();
    let s = Session::new();
    start(&s, &build_go(LEDGER), &["--stop-on-entry"]);
    let added = s.data(&["break", &at(LEDGER, "@add_body"), "--log", "a={a} b={b}"]);
    let id = added["id"].as_u64().expect("id");
    let end = s.stop_after("continue");
    assert_eq!(end["reason"], "exited", "{end}\nlog:\n{}", s.log());
    // Delve prints its own "> [Go 1]: " in front of the message; the line has ours only.
    let text = output_with(&s, &["total: 10"]);
    let logged: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("[logpoint"))
        .collect();
    let expected: Vec<String> = [(0, 0), (0, 1), (1, 2), (3, 3), (6, 4)]
        .iter()
        .map(|(a, b)| format!("[logpoint {id}] a={a} b={b}"))
        .collect();
    assert_eq!(logged, expected, "{text}");
}

#[test]
fn package_directory_is_built_and_debugged() {
    require_delve();
    let s = Session::new();
    let package = fixture_path("go/ledger");
    let deposit = line_of(LEDGER, "@deposit_body");
    start(&s, &package, &["--break", &at(LEDGER, "@deposit_body")]);

    let stop = s.stop_after("continue");
    assert_stop(&stop, "breakpoint", "main.(*Account).Deposit", deposit);
    let vars = locals(&s, "3");
    let mut fields = Vec::new();
    child_names(&vars["a"], &mut fields);
    assert!(fields.iter().any(|f| f == "Balance"), "{:?}", vars["a"]);
    assert_eq!(s.value_of("a.Balance + amount"), "100");

    let stop = s.stop_after("next");
    assert_stop(&stop, "step", "main.(*Account).Deposit", deposit + 1);

    run_to_exit(&s, 3);
    assert_ledger_output(&s);
}

#[test]
fn goroutines_are_threads_a_breakpoint_in_one_stops_there_and_thread_switches() {
    require_delve();
    let program = build_go(GOROUTINES);
    let s = Session::new();
    let body = line_of(GOROUTINES, "@worker_body");
    start(&s, &program, &["--break", &at(GOROUTINES, "@worker_body")]);

    let stop = s.stop_after("continue");
    assert_stop(&stop, "breakpoint", "main.worker", body);
    let first = stop["thread_id"].as_i64().expect("thread id");
    assert_ne!(first, 1, "a worker is not the main goroutine: {stop}");

    // Every goroutine is a thread: main's and the three workers', at least.
    let threads = s.data(&["threads"])["threads"].clone();
    let list = threads.as_array().expect("threads");
    assert!(list.len() >= 4, "{threads}");
    assert!(list.iter().any(|t| t["id"] == 1), "{threads}");
    let workers: Vec<i64> = list
        .iter()
        .filter(|t| {
            t["name"]
                .as_str()
                .is_some_and(|n| n.contains("main.worker"))
        })
        .filter_map(|t| t["id"].as_i64())
        .collect();
    assert_eq!(workers.len(), 3, "{threads}");
    assert!(workers.contains(&first), "{threads}");
    let this_id = s.value_of("id");

    // Switch to another worker: its stack is a worker's, its `id` another.
    let other = *workers
        .iter()
        .find(|&&w| w != first)
        .expect("another worker");
    let other_text = other.to_string();
    s.data(&["thread", &other_text]);
    let threads = s.data(&["threads"]);
    let selected = selected_threads(&threads);
    assert_eq!(selected.len(), 1, "{threads}");
    assert_eq!(selected[0]["id"], other, "{threads}");
    let trace = s.data(&["backtrace"]);
    let frames = trace["frames"].as_array().expect("frames");
    let worker_frame = frames
        .iter()
        .position(|f| f["function"] == "main.worker")
        .unwrap_or_else(|| panic!("no main.worker frame in thread {other}: {trace}"));
    s.data(&["frame", &worker_frame.to_string()]);
    assert_ne!(s.value_of("id"), this_id, "thread {other}");

    // The next stop is another worker at the same line.
    let stop = s.stop_after("continue");
    assert_stop(&stop, "breakpoint", "main.worker", body);
    assert_ne!(stop["thread_id"], first, "{stop}");

    run_to_exit(&s, 0);
    output_with(
        &s,
        &[
            "worker-0 result=0",
            "worker-1 result=10",
            "worker-2 result=20",
            "goroutines: done",
        ],
    );
}

#[test]
fn a_go_file_that_does_not_build_fails_start_with_the_compilers_words() {
    require_delve();
    let s = Session::new();
    let dir = s.dir.path().join("broken");
    std::fs::create_dir(&dir).expect("mkdir");
    let source = dir.join("main.go");
    std::fs::write(&source, "package main\n\nfunc main() {\n\tunused := 1\n}\n").expect("write");
    let run = run_start(&s, &source, &[]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    let message = error["message"].as_str().unwrap_or("");
    assert!(
        message.contains("main.go:4") && message.contains("unused"),
        "{error}"
    );
}

#[test]
fn a_package_folder_without_go_mod_fails_start_with_a_hint_about_the_module() {
    require_delve();
    let s = Session::new();
    let dir = s.dir.path().join("quick");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(
        dir.join("main.go"),
        "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(3) }\n",
    )
    .expect("write");
    let run = run_start(&s, &dir, &[]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("go.mod file not found")),
        "{error}"
    );
    let hint = error["hint"].as_str().unwrap_or("");
    assert!(hint.contains("go mod init"), "{error}");
    assert!(!hint.contains("executable"), "{error}");
}

#[test]
fn a_library_package_folder_fails_start_saying_it_is_not_a_main_package() {
    require_delve();
    let s = Session::new();
    let dir = s.dir.path().join("shelf");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("go.mod"), "module shelf\n\ngo 1.21\n").expect("write");
    std::fs::write(
        dir.join("shelf.go"),
        "package shelf\n\nfunc Count() int { return 3 }\n",
    )
    .expect("write");
    let run = run_start(&s, &dir, &[]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    let hint = error["hint"].as_str().unwrap_or("");
    assert!(hint.contains("not a main package"), "{error}");
    assert!(hint.contains("'debugger test'"), "{error}");
}

#[test]
fn an_ambiguous_function_name_leaves_only_itself_pending() {
    require_delve();
    let s = Session::new();
    let body = line_of(AMBIGUOUS, "@total_entry");
    // `parse` is main's and package words' too: Delve refuses that name alone, and answers
    // for main.total beside it.
    let started = start(
        &s,
        &fixture_path("go/ambiguous"),
        &[
            "--break",
            "parse",
            "--break",
            "main.total",
            "--stop-on-entry",
        ],
    );
    let breakpoints = &started["breakpoints"];
    assert_eq!(breakpoints[0]["verified"], false, "{started}");
    assert!(
        breakpoints[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("ambiguous")),
        "{started}"
    );
    assert_eq!(breakpoints[1]["verified"], true, "{started}");
    // One added while the ambiguous one is still there binds too.
    let added = s.data(&["break", "main.parse"]);
    assert_eq!(added["verified"], true, "{added}");
    let stop = s.stop_after("continue");
    assert_stop(
        &stop,
        "breakpoint",
        "main.parse",
        line_of(AMBIGUOUS, "@parse_entry"),
    );
    let stop = s.stop_after("continue");
    assert_stop(&stop, "breakpoint", "main.total", body);
}

/// Kills the listening Delve when the test ends, whatever happens.
struct Listening(std::process::Child);

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn start_connect_talks_to_a_delve_that_is_already_listening() {
    require_delve();
    let binary = build_go(LEDGER);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let address = format!("127.0.0.1:{port}");
    let dlv = debugger::adapters::delve::find(&Default::default()).expect("dlv");
    let _delve = Listening(
        with_go_env(&mut Command::new(dlv))
            .args(["dap", &format!("--listen={address}")])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start dlv dap --listen"),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    // Wait for the port without connecting (Delve serves one client per `dlv dap`):
    // /proc/net/tcp lists it in LISTEN state (0A).
    let hex_port = format!(":{port:04X} ");
    while !std::fs::read_to_string("/proc/net/tcp")
        .unwrap_or_default()
        .lines()
        .any(|l| l.contains(&hex_port) && l.split_whitespace().nth(3) == Some("0A"))
    {
        assert!(Instant::now() < deadline, "dlv never listened on {address}");
        std::thread::sleep(Duration::from_millis(50));
    }

    let s = Session::new();
    // No --adapter: the program (a Go binary) names Delve even though Delve is remote. And
    // nothing is started here, so no dlv need be found here: PATH is empty.
    let no_tools = s.dir.path().join("empty-path");
    std::fs::create_dir_all(&no_tools).expect("empty PATH dir");
    let output = s
        .command()
        .env("PATH", &no_tools)
        .args(["--json", "start", "--no-wait"])
        .arg(&binary)
        .args(["--connect", &address, "--break", &at(LEDGER, "@add_body")])
        .output()
        .expect("run debugger");
    let value: Value = serde_json::from_slice(&output.stdout).expect("start JSON");
    assert_eq!(value["ok"], true, "{value}");
    let data = &value["data"];
    assert_eq!(data["adapter"], "delve", "{data}");
    assert_eq!(data["adapter_pid"], Value::Null, "{data}");
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "main.add", "{stop}");
    let ended = s.run(&["stop"]);
    assert_eq!(ended.code, 0, "{ended:?}");
}

#[test]
fn after_up_the_header_names_the_goroutine_not_delves_current_function() {
    require_delve();
    let s = Session::new();
    start(&s, &build_go(LEDGER), &["-b", &at(LEDGER, "@deposit_body")]);
    let stop = s.data(&["continue", "--wait", "--timeout", common::WAIT_SECS]);
    assert_eq!(stop["stop"]["thread_name"], "goroutine 1", "{stop}");
    let text = s.run(&["up"]).ok().to_string();
    let header = text.lines().next().unwrap_or_default();
    assert!(
        header.starts_with("Stopped (breakpoint) in main.main (main.go:")
            && header.contains("thread 1 (goroutine 1), frame 1"),
        "{text}"
    );
    assert!(!header.contains("Deposit"), "{text}");
    // `threads` keeps Delve's own name, which says where each goroutine is.
    let threads = s.run(&["threads"]).ok().to_string();
    assert!(
        threads.contains("[Go 1] main.(*Account).Deposit"),
        "{threads}"
    );
    s.run(&["stop"]);
}
