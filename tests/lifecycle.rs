//! Session lifecycle against real lldb-dap: the daemon's life (start, status, stop, stale
//! sockets, races, grace period), attach/detach, restart, program output, and how the debuggee
//! is launched (cwd, environment, arguments, stdin).

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Session, alive, at, build, eventually, line_of, require_lldb_dap};
use serde_json::Value;

fn pid(value: &Value, field: &str) -> u64 {
    value[field]
        .as_u64()
        .unwrap_or_else(|| panic!("no {field} in {value}"))
}

/// Waits for the program to end and returns the exit report.
#[track_caller]
fn await_exit(s: &Session) -> Value {
    let report = s.data(&["await", "--timeout", "60"]);
    assert_eq!(report["reason"], "exited", "{report}");
    report
}

fn output_text(s: &Session, extra: &[&str]) -> String {
    let mut args = vec!["output"];
    args.extend_from_slice(extra);
    s.data(&args)["text"]
        .as_str()
        .expect("output text")
        .to_string()
}

/// Waits for a child to exit, killing it if it takes longer than `limit`.
fn wait_with_limit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The run of `child`, killed (exit code -1) if it takes longer than `limit`.
fn collect(mut child: Child, limit: Duration) -> Run {
    wait_with_limit(&mut child, limit);
    Run::from(child.wait_with_output().expect("collect output"))
}

#[test]
fn status_reports_running_and_stopped_with_all_pids() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/spin.c"), &[]);

    let running = s.data(&["status"]);
    assert_eq!(running["state"], "running", "{running}");
    assert_eq!(running["session"], s.name.as_str());
    for field in ["daemon_pid", "adapter_pid", "debuggee_pid"] {
        assert!(
            alive(pid(&running, field)),
            "{field} is not alive: {running}"
        );
    }

    // Pause once the program is in its loop (not while the loader is still at work).
    assert!(
        eventually(Duration::from_secs(10), || output_text(&s, &[])
            .contains("tick: 1")),
        "spin never ticked"
    );
    let paused = s.data(&["pause", "--wait", "--timeout", "30"]);
    assert_eq!(paused["stop"]["reason"], "pause", "{paused}");
    let stopped = s.data(&["status"]);
    assert_eq!(stopped["state"], "stopped", "{stopped}");
    assert_eq!(stopped["debuggee_pid"], running["debuggee_pid"]);
    assert_eq!(stopped["stop"]["reason"], "pause", "{stopped}");

    let text = s.run(&["status"]);
    let out = text.ok();
    assert!(out.contains("stopped"), "{out}");
    assert!(
        out.contains(&format!("daemon {}", pid(&running, "daemon_pid"))),
        "{out}"
    );
    assert!(
        out.contains(&format!("program {}", pid(&running, "debuggee_pid"))),
        "{out}"
    );
}

#[test]
fn status_after_exit_reports_the_exit_code() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &[]);
    let report = await_exit(&s);
    assert_eq!(report["exit_code"], 3, "{report}");

    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], 3, "{status}");
    assert!(alive(pid(&status, "daemon_pid")), "{status}");
    let text = s.run(&["status"]);
    assert!(text.ok().contains("Exit code: 3"), "{text:?}");
}

#[test]
fn stop_ends_the_daemon_and_kills_the_launched_program() {
    require_lldb_dap();
    let s = Session::new();
    let started = s.start(&build("c/spin.c"), &[]);
    let debuggee = pid(&started, "debuggee_pid");
    let daemon = pid(&started, "daemon_pid");
    let adapter = pid(&started, "adapter_pid");
    assert!(alive(debuggee));

    let stopped = s.run(&["stop"]);
    assert!(stopped.ok().contains("terminated"), "{stopped:?}");

    let after = s.run(&["status"]);
    assert_eq!(after.code, 4, "{after:?}");
    assert!(
        after
            .stderr
            .contains(&format!("no session '{}' is running", s.name)),
        "{after:?}"
    );
    assert!(
        eventually(Duration::from_secs(10), || !alive(debuggee)),
        "the launched program {debuggee} outlived stop"
    );
    assert!(
        eventually(Duration::from_secs(10), || !alive(adapter)),
        "the adapter {adapter} outlived stop"
    );
    assert!(
        eventually(Duration::from_secs(10), || !alive(daemon)),
        "the daemon {daemon} outlived stop"
    );
    let again = s.run(&["stop"]);
    assert_eq!(again.code, 4, "{again:?}");
}

fn stale_socket_is_replaced(make_stale: impl FnOnce(&Path)) {
    let s = Session::new();
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    make_stale(&socket);
    assert!(socket.exists());

    let status = s.run(&["status"]);
    assert_eq!(status.code, 4, "{status:?}");
    assert!(
        status
            .stderr
            .contains(&format!("no session '{}' is running", s.name)),
        "{status:?}"
    );

    let started = s.start(&build("c/ledger.c"), &["--break", "apply"]);
    assert_eq!(started["session"], s.name.as_str());
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
}

#[test]
fn a_stale_regular_file_socket_is_cleaned_up() {
    require_lldb_dap();
    stale_socket_is_replaced(|socket| {
        std::fs::write(socket, b"not a socket").expect("write stale socket");
    });
}

#[test]
#[cfg(unix)]
fn a_dead_socket_is_cleaned_up() {
    require_lldb_dap();
    stale_socket_is_replaced(|socket| {
        // Bound and dropped: the file stays, nobody listens.
        let listener = std::os::unix::net::UnixListener::bind(socket).expect("bind");
        drop(listener);
    });
}

#[test]
fn a_second_start_fails_and_leaves_the_first_session_intact() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/ledger.c");
    let first = s.start(&program, &["--break", "apply"]);
    let program_arg = program.to_str().expect("utf-8");

    let second = s.run(&["start", program_arg]);
    assert_eq!(second.code, 1, "{second:?}");
    assert!(second.stderr.contains("already running"), "{second:?}");
    assert!(second.stderr.contains("hint: "), "{second:?}");
    let json = s.json(&["start", program_arg]);
    assert_eq!(json["ok"], false);
    assert_eq!(json["error"]["code"], "session_exists", "{json}");

    let status = s.data(&["status"]);
    assert_eq!(status["daemon_pid"], first["daemon_pid"], "{status}");
    assert_eq!(status["debuggee_pid"], first["debuggee_pid"], "{status}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
}

#[test]
fn two_racing_starts_on_one_session_exactly_one_wins() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/ledger.c");
    let spawn = || {
        s.command()
            .args([
                "start",
                program.to_str().expect("utf-8"),
                "--break",
                "apply",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn start")
    };
    let (a, b) = (spawn(), spawn());
    let runs = [
        collect(a, Duration::from_secs(60)),
        collect(b, Duration::from_secs(60)),
    ];
    let winners = runs.iter().filter(|r| r.code == 0).count();
    assert_eq!(winners, 1, "{runs:?}");
    let loser = runs.iter().find(|r| r.code != 0).expect("a loser");
    assert_eq!(loser.code, 1, "{loser:?}");
    assert!(loser.stderr.contains("already running"), "{loser:?}");

    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
    let sessions = s.data(&["sessions"]);
    assert_eq!(
        sessions["sessions"].as_array().map(Vec::len),
        Some(1),
        "{sessions}"
    );
}

/// A spin.c process of our own, killed when dropped.
struct Spinner {
    child: Child,
    out: PathBuf,
}

impl Spinner {
    fn spawn(dir: &Path) -> Spinner {
        let out = dir.join("spin.out");
        let file = File::create(&out).expect("spin output file");
        let child = Command::new(build("c/spin.c"))
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn spin");
        let spinner = Spinner { child, out };
        assert!(
            eventually(Duration::from_secs(10), || spinner
                .lines()
                .iter()
                .any(|l| l == "ready")),
            "spin never printed ready"
        );
        spinner
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn ticks(&self) -> usize {
        self.lines()
            .iter()
            .filter(|l| l.starts_with("tick:"))
            .count()
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn attach_break_and_detach_leaves_the_process_running() {
    require_lldb_dap();
    let s = Session::new();
    let mut spin = Spinner::spawn(s.dir.path());
    let spin_pid = spin.child.id();

    let attached = s.data(&["attach", &spin_pid.to_string()]);
    assert_eq!(attached["debuggee_pid"], spin_pid, "{attached}");
    let bp = s.data(&["breakpoint", "add", &at("c/spin.c", "@tick_body")]);
    assert_eq!(bp["verified"], true, "{bp}");

    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["stop"]["frame"]["function"], "tick", "{stop}");
    assert_eq!(
        stop["stop"]["frame"]["line"],
        line_of("c/spin.c", "@tick_body")
    );
    let ticks = s.data(&["print", "n"])["value"].clone();
    assert!(
        ticks.as_str().is_some_and(|n| n.parse::<u32>().is_ok()),
        "{ticks}"
    );

    let detached = s.run(&["detach"]);
    assert!(detached.ok().contains("keeps running"), "{detached:?}");
    assert_eq!(s.run(&["status"]).code, 4);

    // Still alive, not stopped, and still ticking.
    assert!(matches!(spin.child.try_wait(), Ok(None)), "spin exited");
    assert!(alive(u64::from(spin_pid)));
    let before = spin.ticks();
    assert!(
        eventually(Duration::from_secs(10), || spin.ticks() >= before + 3),
        "spin stopped printing after detach: {:?}",
        spin.lines()
    );
}

#[test]
fn restart_runs_again_from_the_start_with_the_same_breakpoints_and_args() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/stdin_probe.c");
    let exit_line = at("c/stdin_probe.c", "@probe_exit");
    let started = s.start(
        &program,
        &[
            "--break",
            "main",
            "--break",
            &exit_line,
            "--",
            "one",
            "two words",
        ],
    );
    let first_pid = pid(&started, "debuggee_pid");

    let at_main = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(at_main["stop"]["breakpoint_ids"], serde_json::json!([1]));
    let at_exit = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(at_exit["stop"]["breakpoint_ids"], serde_json::json!([2]));

    let restarted = s.data(&["restart"]);
    let ids: Vec<u64> = restarted["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .filter_map(|b| b["id"].as_u64())
        .collect();
    assert_eq!(ids, [1, 2], "{restarted}");
    let second_pid = pid(&restarted, "debuggee_pid");
    assert_ne!(first_pid, second_pid);
    assert!(
        eventually(Duration::from_secs(10), || !alive(first_pid)),
        "the first run's process {first_pid} outlived the restart"
    );

    // From the start: main's breakpoint comes first again, and the restart answers with it.
    let again = restarted.clone();
    assert_eq!(
        again["stop"]["breakpoint_ids"],
        serde_json::json!([1]),
        "{again}"
    );
    assert_eq!(again["stop"]["frame"]["function"], "main");
    assert_eq!(s.data(&["eval", "argc"])["value"], "3");
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(
        end["stop"]["breakpoint_ids"],
        serde_json::json!([2]),
        "{end}"
    );
    // The second run's output follows a separator line, so the runs never read as one.
    let output = output_text(&s, &[]);
    let separator = "--- debugger: the program was restarted ---\n";
    let (_, second_run) = output
        .split_once(separator)
        .unwrap_or_else(|| panic!("no restart separator: {output}"));
    assert!(
        second_run.contains("arg: one\narg: two words\n"),
        "{output}"
    );
    assert_eq!(
        s.data(&["breakpoint", "list"])["breakpoints"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn sessions_lists_this_session() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/ledger.c");
    s.start(&program, &["--break", "apply"]);

    let sessions = s.data(&["sessions"]);
    let list = sessions["sessions"].as_array().expect("sessions");
    let mine = list
        .iter()
        .find(|entry| entry["session"] == s.name.as_str())
        .unwrap_or_else(|| panic!("{} not in {sessions}", s.name));
    assert_eq!(mine["program"], program.to_str().expect("utf-8"), "{mine}");

    let text = s.run(&["sessions"]);
    assert!(text.ok().contains(&s.name), "{text:?}");
    s.data(&["stop"]);
    let none = s.run(&["sessions"]);
    assert!(none.ok().contains("No sessions"), "{none:?}");
}

#[test]
fn output_shows_stdout_and_stderr_with_tail_and_clear() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &[]);
    await_exit(&s);

    let all = output_text(&s, &[]);
    assert!(all.starts_with("square: 9\n"), "{all}");
    assert!(
        all.contains("step 4: amount=4 balance=110 total=10\n"),
        "{all}"
    );
    assert!(all.contains("total: 10 counter: 5\n"), "{all}");
    assert!(all.contains("ledger: done\n"), "stderr is captured: {all}");
    // In text, the stderr line beside stdout carries its stream's mark.
    let text = s.run(&["output"]);
    assert_eq!(
        text.ok(),
        all.replace("ledger: done\n", "[stderr] ledger: done\n")
    );

    assert_eq!(output_text(&s, &["--tail", "1"]), "ledger: done\n");
    let two = s.run(&["output", "--tail", "2"]);
    assert_eq!(two.ok(), "total: 10 counter: 5\n[stderr] ledger: done\n");

    let cleared = output_text(&s, &["--clear"]);
    assert_eq!(cleared, all);
    assert_eq!(output_text(&s, &[]), "");
    assert_eq!(s.run(&["output"]).ok(), "");
}

#[test]
fn output_follow_prints_until_the_program_exits() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");

    let waits = s.waits_seen();
    let mut follow = s
        .command()
        .args(["output", "--follow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn output --follow");
    // Its first read answers at once; the next waits for more output.
    s.wait_for_waits(waits + 1);
    assert!(
        matches!(follow.try_wait(), Ok(None)),
        "output --follow returned while the program was still stopped"
    );

    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["continue"]);
    let run = collect(follow, Duration::from_secs(60));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("square: 9\n"), "{run:?}");
    assert!(run.stdout.contains("total: 10 counter: 5\n"), "{run:?}");
    assert!(run.stdout.ends_with("ledger: done\n"), "{run:?}");
}

#[test]
fn the_program_gets_the_callers_cwd_environment_args_and_a_closed_stdin() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/stdin_probe.c");
    let run = s
        .command()
        .env("DEBUGGER_FIXTURE_VAR", "from the caller")
        .args([
            "--json",
            "start",
            program.to_str().expect("utf-8"),
            "--",
            "first",
            "with space",
            "--dashed",
        ])
        .output()
        .expect("run start");
    let started: Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(started["ok"], true, "{started}");

    // stdin is closed, so the program's read returns at once and it exits.
    let report = await_exit(&s);
    assert_eq!(report["exit_code"], 0, "{report}");
    let output = output_text(&s, &[]);
    let cwd = s.cwd.canonicalize().expect("canonical cwd");
    assert!(
        output.contains(&format!("cwd: {}\n", cwd.display())),
        "{output}"
    );
    assert!(output.contains("env: from the caller\n"), "{output}");
    assert!(
        output.contains("arg: first\narg: with space\narg: --dashed\n"),
        "{output}"
    );
    assert!(output.contains("stdin: eof\n"), "{output}");
}

/// The daemon keeps its own files private (umask 077), not the program's: a program under
/// `start` makes its files with the mask of the shell that ran `debugger`, whichever way its
/// adapter starts it (pdb: the adapter's own process; debugpy: by its launcher, which the
/// adapter starts, or, with `--stdin`, the daemon on the adapter's request).
#[test]
fn the_program_makes_its_files_with_the_callers_file_mask() {
    common::require_debugpy();
    let program = common::fixture_path("python/context.py");
    let files = tempfile::tempdir().expect("tempdir");
    let stdin = files.path().join("stdin.txt");
    std::fs::write(&stdin, "a line\n").expect("write stdin");
    let stdin = stdin.to_str().expect("utf-8 path");
    let ways: [(&str, &[&str]); 3] = [
        ("pdb", &[]),
        ("debugpy", &[]),
        ("debugpy", &["--stdin", stdin]),
    ];
    for (adapter, extra) in ways {
        let s = Session::new();
        let run = s
            .command_running(Path::new("sh"))
            .args(["-c", "umask 027 && exec \"$0\" \"$@\""])
            .arg(common::bin())
            .args(["--json", "start", "--adapter", adapter])
            .args(extra)
            .arg(&program)
            .output()
            .expect("run start");
        let started: Value = serde_json::from_slice(&run.stdout).expect("json");
        assert_eq!(started["ok"], true, "{started}");
        let report = await_exit(&s);
        assert_eq!(report["exit_code"], 3, "{adapter}: {report}");
        let output = output_text(&s, &[]);
        assert!(
            output.contains("umask: 027\n"),
            "{adapter} {extra:?}: {output}"
        );
    }
}

#[test]
fn env_flag_adds_and_overrides_variables() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/stdin_probe.c");
    let run = s
        .command()
        .env("DEBUGGER_FIXTURE_VAR", "from the caller")
        .args([
            "start",
            program.to_str().expect("utf-8"),
            "--env",
            "DEBUGGER_FIXTURE_VAR=from --env",
        ])
        .output()
        .expect("run start");
    assert!(run.status.success(), "{run:?}");
    await_exit(&s);
    let output = output_text(&s, &[]);
    assert!(output.contains("env: from --env\n"), "{output}");

    let bad = s.run(&[
        "start",
        program.to_str().expect("utf-8"),
        "--env",
        "NOEQUALS",
    ]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("KEY=VALUE"), "{bad:?}");
}

#[test]
fn a_relative_program_path_is_resolved_against_the_callers_cwd() {
    require_lldb_dap();
    let s = Session::new();
    let bin_dir = s.cwd.join("bin");
    std::fs::create_dir(&bin_dir).expect("mkdir bin");
    std::fs::copy(build("c/stdin_probe.c"), bin_dir.join("probe")).expect("copy program");

    let started = s.data(&["start", "bin/probe", "--", "rel"]);
    let program = started["program"].as_str().expect("program");
    assert!(Path::new(program).is_absolute(), "{started}");
    assert!(program.ends_with("bin/probe"), "{started}");
    await_exit(&s);
    let output = output_text(&s, &[]);
    assert!(output.contains("arg: rel\n"), "{output}");
    let cwd = s.cwd.canonicalize().expect("canonical cwd");
    assert!(
        output.contains(&format!("cwd: {}\n", cwd.display())),
        "{output}"
    );

    // Once the program has exited, the same session can start it again, spelled `./`.
    let again = s.data(&["start", "./bin/probe", "--", "again"]);
    assert_eq!(again["program"], started["program"]);
    await_exit(&s);
    assert!(output_text(&s, &[]).contains("arg: again\n"));
}

#[test]
fn a_bare_program_name_is_looked_for_on_path_when_no_such_file_is_here() {
    require_lldb_dap();
    let s = Session::new();
    let tools = s.dir.path().join("tools");
    std::fs::create_dir(&tools).expect("tools dir");
    let on_path = tools.join("ledger-tool");
    std::fs::copy(build("c/ledger.c"), &on_path).expect("copy program");
    let path = std::env::join_paths(std::iter::once(tools.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let run = Run::from(
        s.command()
            .env("PATH", &path)
            .args(["--json", "start", "ledger-tool", "--break", "apply"])
            .output()
            .expect("start"),
    );
    let started = run.json();
    assert_eq!(started["ok"], true, "{started}");
    assert_eq!(
        started["data"]["program"],
        on_path.to_str().expect("utf-8"),
        "{started}"
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
}

#[test]
fn a_missing_program_fails_at_once() {
    require_lldb_dap();
    let s = Session::new();
    let began = Instant::now();
    let run = s.run(&["start", "./nosuch"]);
    let took = began.elapsed();
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("nosuch"), "{run:?}");
    assert!(run.stderr.contains("not found"), "{run:?}");
    assert!(run.stderr.contains("hint: "), "{run:?}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(s.run(&["status"]).code, 4);
}

#[test]
#[cfg(unix)]
fn a_non_executable_program_fails_at_once_with_the_adapters_message() {
    require_lldb_dap();
    let s = Session::new();
    let copy = s.cwd.join("ledger-noexec");
    std::fs::copy(build("c/ledger.c"), &copy).expect("copy program");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o644)).expect("chmod");

    let began = Instant::now();
    let run = s.run(&["start", "./ledger-noexec"]);
    let took = began.elapsed();
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("ledger-noexec"), "{run:?}");
    assert!(run.stderr.contains("Permission denied"), "{run:?}");
    assert!(run.stderr.contains("hint: "), "{run:?}");
    assert!(took < Duration::from_secs(10), "took {took:?}");

    // A file that is not a program at all.
    std::fs::write(s.cwd.join("notes.txt"), "hello").expect("write");
    std::fs::set_permissions(
        s.cwd.join("notes.txt"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    // Without --adapter, no adapter fits it: the error lists the adapters.
    let json = s.json(&["start", "./notes.txt"]);
    assert_eq!(json["ok"], false, "{json}");
    assert_eq!(json["error"]["code"], "usage", "{json}");
    let message = json["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("no adapter fits") && message.contains("notes.txt"),
        "{json}"
    );
    assert!(
        json["error"]["hint"]
            .as_str()
            .unwrap_or("")
            .contains("--adapter"),
        "{json}"
    );
    // Forced onto lldb, the adapter's own message comes back at once.
    let json = s.json(&["start", "--adapter", "lldb", "./notes.txt"]);
    assert_eq!(json["ok"], false, "{json}");
    assert_eq!(json["error"]["code"], "adapter", "{json}");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("notes.txt"),
        "{json}"
    );
}

#[test]
fn after_the_grace_period_the_daemon_exits() {
    require_lldb_dap();
    let s = Session::with_config("[daemon]\ngrace_period_secs = 1\n");
    let started = s.start(&build("c/ledger.c"), &[]);
    let daemon = pid(&started, "daemon_pid");
    await_exit(&s);

    // Within the grace period the exit status can still be read.
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], 3, "{status}");
    assert!(output_text(&s, &[]).contains("ledger: done"));

    assert!(
        eventually(Duration::from_secs(10), || s.run(&["status"]).code == 4),
        "the session outlived its grace period"
    );
    assert!(
        eventually(Duration::from_secs(10), || !alive(daemon)),
        "the daemon process {daemon} outlived its grace period"
    );
}

#[test]
fn the_daemon_logs_to_a_file_in_the_state_dir() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    let log = s.state_dir().join(format!("daemon-{}.log", s.name));
    assert!(log.is_file(), "{} is missing", log.display());
    let status = s.data(&["status"]);
    assert_eq!(status["log_file"], log.to_str().expect("utf-8"), "{status}");
    assert!(
        eventually(Duration::from_secs(5), || s
            .log()
            .contains("session started")),
        "log: {}",
        s.log()
    );
}

#[test]
fn session_flag_and_env_select_independent_sessions() {
    require_lldb_dap();
    let s = Session::new();
    let ledger = build("c/ledger.c");
    let spin = build("c/spin.c");
    let other = format!("{}-other", s.name);

    // DEBUGGER_SESSION (set by the harness) picks the first; --session the second.
    s.start(&ledger, &["--break", "apply"]);
    let second = s.data(&["--session", &other, "start", spin.to_str().expect("utf-8")]);
    assert_eq!(second["session"], other.as_str());

    let mine = s.data(&["status"]);
    assert_eq!(mine["session"], s.name.as_str());
    assert_eq!(mine["program"], ledger.to_str().expect("utf-8"));
    let theirs = s.data(&["--session", &other, "status"]);
    assert_eq!(theirs["program"], spin.to_str().expect("utf-8"));
    assert_ne!(mine["daemon_pid"], theirs["daemon_pid"]);

    // The flag wins over the environment.
    let via_flag = s
        .command()
        .env("DEBUGGER_SESSION", &other)
        .args(["--json", "--session", &s.name, "status"])
        .output()
        .expect("status");
    let via_flag: Value = serde_json::from_slice(&via_flag.stdout).expect("json");
    assert_eq!(via_flag["data"]["session"], s.name.as_str(), "{via_flag}");

    let sessions = s.data(&["sessions"]);
    assert_eq!(
        sessions["sessions"].as_array().map(Vec::len),
        Some(2),
        "{sessions}"
    );

    // Flags after free text are flags: `raw` runs in the session named after its text.
    let theirs = s.data(&["raw", "target list", "--session", &other]);
    let targets = theirs["output"].as_str().unwrap_or_default();
    assert!(
        targets.contains("spin") && !targets.contains("ledger"),
        "{theirs}"
    );

    // Stopping one leaves the other alone, and asking for it names it and the one running.
    s.data(&["--session", &other, "stop"]);
    let gone = s.run(&["--session", &other, "status"]);
    assert_eq!(gone.code, 4);
    assert_eq!(
        gone.stderr,
        format!(
            "error: no session '{other}' is running; running: {mine}\n\
             hint: name a running one with --session {mine}, or start one with \
             'debugger start --session {other} <program>'\n",
            mine = s.name
        )
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
}

#[test]
#[cfg(unix)]
fn a_runtime_dir_open_to_other_users_is_refused() {
    require_lldb_dap();
    let s = Session::new();
    let open = s.dir.path().join("open-run");
    std::fs::create_dir(&open).expect("mkdir");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let program = build("c/ledger.c");

    for args in [
        vec!["start", program.to_str().expect("utf-8")],
        vec!["status"],
    ] {
        let output = s
            .command()
            .env("DEBUGGER_RUNTIME_DIR", &open)
            .args(&args)
            .output()
            .expect("run");
        let run = Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        assert_ne!(run.code, 0, "{args:?}: {run:?}");
        assert!(run.stderr.contains("open to other users"), "{run:?}");
        assert!(run.stderr.contains("hint: "), "{run:?}");
    }
    // Refused, not fixed behind the user's back, and no socket made there.
    let mode = std::fs::metadata(&open).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
    assert_eq!(std::fs::read_dir(&open).expect("read dir").count(), 0);
}

#[test]
fn an_unknown_adapter_is_an_error_that_lists_the_adapters() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/ledger.c");
    let run = s.run(&[
        "start",
        program.to_str().expect("utf-8"),
        "--adapter",
        "nosuch",
    ]);
    // A name the CLI does not know is a usage error.
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("unknown adapter 'nosuch'"), "{run:?}");
    let hint = run
        .stderr
        .lines()
        .find(|l| l.starts_with("hint: "))
        .unwrap_or_else(|| panic!("no hint: {run:?}"));
    assert!(hint.contains("lldb"), "{run:?}");
    assert_eq!(s.run(&["status"]).code, 4);
}

fn signal(pid: u64, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

#[test]
fn sigkill_to_the_daemon_leaves_no_adapter_or_launched_program_behind() {
    require_lldb_dap();
    let s = Session::new();
    // A running program (not stopped under the tracer) is the case that used to outlive us.
    s.start(&build("c/spin.c"), &[]);
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "running", "{status}");
    let (daemon, adapter, program) = (
        pid(&status, "daemon_pid"),
        pid(&status, "adapter_pid"),
        pid(&status, "debuggee_pid"),
    );

    signal(daemon, "KILL");
    assert!(
        eventually(Duration::from_secs(5), || !alive(adapter)
            && !alive(program)),
        "after SIGKILL to the daemon: adapter alive {}, program alive {}",
        alive(adapter),
        alive(program)
    );
    // The next command finds no session and clears the stale socket.
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    let run = s.run(&["--json", "status"]);
    assert_eq!(run.code, 4, "{run:?}");
    assert_eq!(run.failure()["code"], "no_session");
    assert!(!socket.exists(), "the stale socket was not removed");
    // And a new session starts on the same name.
    s.start(&build("c/ledger.c"), &["--stop-on-entry"]);
}

#[test]
fn sigterm_to_the_daemon_terminates_a_launched_program_and_removes_the_socket() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let status = s.data(&["status"]);
    let (daemon, adapter, program) = (
        pid(&status, "daemon_pid"),
        pid(&status, "adapter_pid"),
        pid(&status, "debuggee_pid"),
    );
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    assert!(socket.exists());

    signal(daemon, "TERM");
    assert!(
        eventually(Duration::from_secs(10), || !alive(daemon)
            && !alive(adapter)
            && !alive(program)),
        "after SIGTERM: daemon {}, adapter {}, program {}",
        alive(daemon),
        alive(adapter),
        alive(program)
    );
    assert!(!socket.exists(), "the socket outlived the daemon");
    assert_eq!(s.run(&["status"]).code, 4);
}

#[test]
fn sigterm_to_the_daemon_detaches_an_attached_program() {
    require_lldb_dap();
    let s = Session::new();
    let spin = Spinner::spawn(s.dir.path());
    let spin_pid = spin.child.id();
    let attached = s.data(&["attach", &spin_pid.to_string()]);
    let daemon = pid(&attached, "daemon_pid");

    signal(daemon, "TERM");
    assert!(
        eventually(Duration::from_secs(10), || !alive(daemon)),
        "the daemon outlived SIGTERM"
    );
    assert!(
        alive(u64::from(spin_pid)),
        "the attached program was killed"
    );
    let before = spin.ticks();
    assert!(
        eventually(Duration::from_secs(10), || spin.ticks() >= before + 3),
        "the attached program stopped running after the daemon left"
    );
}

#[test]
fn sigkill_to_the_daemon_reaps_a_debuggee_its_adapter_would_orphan() {
    // The mock adapter's debuggee (`sleep 600`) does not die with its adapter, unlike lldb's,
    // whose lldb-server kills its inferior: only the daemon's reaper can end it.
    let s = Session::with_mock(&serde_json::json!({ "debuggee": true }), "");
    let started = s.start_mock().json();
    assert_eq!(started["ok"], true, "{started}");
    let status = s.data(&["status"]);
    let (daemon, adapter, program) = (
        pid(&status, "daemon_pid"),
        pid(&status, "adapter_pid"),
        pid(&status, "debuggee_pid"),
    );
    assert!(alive(program));

    signal(daemon, "KILL");
    assert!(
        eventually(Duration::from_secs(5), || !alive(adapter)
            && !alive(program)),
        "after SIGKILL to the daemon: adapter alive {}, program alive {}",
        alive(adapter),
        alive(program)
    );
}

#[test]
fn attach_connect_without_an_adapter_asks_for_one() {
    let s = Session::new();
    let run = s.run(&["--json", "attach", "--connect", "127.0.0.1:9"]);
    assert_eq!(run.code, 2, "{run:?}");
    let error = run.failure();
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("--adapter"),
        "{error}"
    );
}

#[test]
fn a_failed_restart_keeps_the_session_and_its_breakpoints() {
    require_lldb_dap();
    let s = Session::new();
    let copy = s.cwd.join("ledger-copy");
    std::fs::copy(build("c/ledger.c"), &copy).expect("copy program");
    s.start(&copy, &["--break", "apply"]);
    s.data(&["breakpoint", "add", &at("c/ledger.c", "@apply_update")]);
    std::fs::remove_file(&copy).expect("remove program");
    let restarted = s.run(&["--json", "restart"]);
    assert_ne!(restarted.code, 0, "{restarted:?}");
    restarted.failure();
    // The session is still there, ended, with both breakpoints.
    let status = s.data(&["status"]);
    assert_ne!(status["state"], "running", "{status}");
    let list = s.data(&["breakpoint", "list"]);
    assert_eq!(
        list["breakpoints"].as_array().map(Vec::len),
        Some(2),
        "{list}"
    );
}

#[test]
fn no_command_at_all_is_a_usage_error() {
    let s = Session::new();
    let run = s.run(&[]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn no_session_reads_the_same_whether_or_not_a_warm_adapter_is_kept() {
    require_lldb_dap();
    let mut s = Session::new();
    s.warm_secs = "60".to_string();
    let expected = format!("no session '{}' is running", s.name);
    // No daemon at all.
    let none = s.run(&["--json", "locals"]);
    assert_eq!(none.code, 4, "{none:?}");
    assert_eq!(none.failure()["message"], expected.as_str());

    // A daemon that holds only a warm adapter answers in the same words.
    s.start(&build("c/ledger.c"), &["--stop-on-entry"]);
    s.data(&["stop"]);
    let warm = eventually(Duration::from_secs(60), || {
        s.data(&["sessions"])["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|entry| entry["session"] == s.name.as_str() && entry["warm"].is_object())
    });
    assert!(warm, "no warm adapter kept\n{}", s.log());
    let kept = s.run(&["--json", "locals"]);
    assert_eq!(kept.code, 4, "{kept:?}");
    let error = kept.failure();
    assert_eq!(error["message"], expected.as_str(), "{error}");
    assert!(
        error["hint"].as_str().unwrap_or("").contains("kept warm"),
        "{error}"
    );
}
