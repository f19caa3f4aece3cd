//! A kept launch (debugpy): when a session ends, the daemon launches the same program again and
//! holds it at `initialized`; the next session whose launch is the same takes it, with its own
//! breakpoints, and sees what a fresh launch would (the program's file as it is now, its output,
//! its exit code). Any other launch, or a change to what the kept Python's start read, gets a
//! fresh one. Observed through `sessions --json` (the kept program's pid) and the sessions' own
//! answers, against debugpy.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{
    Session, alive, eventually, fixture_path, json_decoder_line, line_of, require_debugpy,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

/// A session whose daemons keep a warm adapter for a minute.
fn warm_session() -> Session {
    let mut s = Session::new();
    s.warm_secs = "60".to_string();
    s
}

/// Waits until `sessions` lists a kept launch of `program` with its process; returns that pid.
#[track_caller]
fn kept_pid(s: &Session, program: &Path) -> u64 {
    let mut entry = Value::Null;
    let kept = eventually(LIMIT, || {
        let data = s.data(&["sessions"]);
        entry = data["sessions"]
            .as_array()
            .and_then(|list| list.iter().find(|e| e["session"] == s.name.as_str()))
            .cloned()
            .unwrap_or(Value::Null);
        entry["warm"]["debuggee_pid"].is_u64()
    });
    assert!(kept, "no kept launch listed: {entry}\n{}", s.log());
    assert_eq!(entry["state"], "warm", "{entry}");
    assert_eq!(
        entry["debuggee_pid"], entry["warm"]["debuggee_pid"],
        "{entry}"
    );
    assert_eq!(
        entry["warm"]["program"],
        program.to_str().expect("utf-8 path"),
        "{entry}"
    );
    entry["warm"]["debuggee_pid"].as_u64().unwrap_or_default()
}

/// A copy of fixtures/python/app.py in the session's folder, which a test may edit.
fn own_app(s: &Session) -> PathBuf {
    let app = s.dir.path().join("app.py");
    std::fs::copy(fixture_path("python/app.py"), &app).expect("copy app.py");
    app
}

/// Starts `program` on debugpy with `extra`, runs to the breakpoint in `function`, stops.
fn run_to_and_stop(s: &Session, program: &Path, function: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--adapter", "debugpy", "--break", function];
    args.extend_from_slice(extra);
    let started = s.start(program, &args);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], function, "{stop}");
    s.data(&["stop"]);
    started
}

#[test]
fn debugpy_the_same_start_again_runs_on_the_kept_program_with_its_own_breakpoints() {
    require_debugpy();
    let s = warm_session();
    let app = own_app(&s);
    let first = run_to_and_stop(&s, &app, "square", &[]);
    let kept = kept_pid(&s, &app);
    assert_ne!(Some(kept), first["debuggee_pid"].as_u64(), "a new program");
    let listed = s.run(&["sessions"]);
    let line = listed
        .ok()
        .lines()
        .find(|l| l.starts_with(&s.name))
        .unwrap_or_else(|| panic!("{listed:?}"))
        .to_string();
    let expected = format!(
        "{}, launched ahead (pid {kept}) on a warm debugpy adapter",
        app.display()
    );
    assert!(line.contains(&expected), "{line}");

    // The program's file is read as the kept program runs, not as it was kept.
    let mut source = std::fs::read_to_string(&app).expect("read app.py");
    source = source.replace(
        "print(\"app: done\"",
        "print(\"edited after it was kept\", flush=True)\n    print(\"app: done\"",
    );
    std::fs::write(&app, source).expect("edit app.py");

    // Another breakpoint than the last session's: only it stops, in the kept process.
    let second = s.start(
        &app,
        &["--adapter", "debugpy", "--break", "Account.deposit"],
    );
    assert_eq!(second["warm"], true, "{second}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "deposit", "{stop}");
    assert_eq!(s.value_of("amount"), "0");
    let status = s.data(&["status"]);
    assert_eq!(status["debuggee_pid"].as_u64(), Some(kept), "{status}");

    s.data(&["breakpoint", "remove", "1"]);
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
    assert_eq!(end["stop"]["exit_code"], 3, "{end}");
    let output = s.data(&["output"]);
    let text = output.to_string();
    for line in [
        "square: 9",
        "summary: {",
        "edited after it was kept",
        "app: done",
    ] {
        assert!(text.contains(line), "{line} not in {output}");
    }

    // `stop` ends the next kept program with its adapter.
    s.data(&["stop"]);
    let next = kept_pid(&s, &app);
    s.data(&["stop"]);
    assert!(
        eventually(LIMIT, || !alive(next)),
        "the kept program lives on"
    );
}

#[test]
fn debugpy_generator_and_library_breakpoints_on_a_kept_launch_stop_as_on_a_fresh_one() {
    require_debugpy();
    let s = warm_session();
    let program = fixture_path("python/generators.py");
    run_to_and_stop(&s, &program, "main", &[]);
    let kept = kept_pid(&s, &program);
    // `produce` is a generator: found in the kept program's own process, it becomes a line
    // breakpoint on its body, which stops as on a fresh launch.
    let started = s.start(&program, &["--adapter", "debugpy", "--break", "produce"]);
    assert_eq!(started["warm"], true, "{started}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "produce", "{stop}");
    let body = line_of("python/generators.py", "@produce_body");
    assert_eq!(stop["stop"]["frame"]["line"], body, "{stop}");
    let status = s.data(&["status"]);
    assert_eq!(status["debuggee_pid"].as_u64(), Some(kept), "{status}");
    s.data(&["stop"]);

    // A line in the standard library, which debugpy leaves out as library code under
    // justMyCode unless told the file is the user's: told so in the kept program, it stops.
    kept_pid(&s, &program);
    let (decoder, line) = json_decoder_line();
    let location = format!("{}:{line}", decoder.display());
    let started = s.start(&program, &["--adapter", "debugpy", "--break", &location]);
    assert_eq!(started["warm"], true, "{started}");
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "decode", "{stop}");
    assert_eq!(stop["stop"]["frame"]["line"], line, "{stop}");
}

#[test]
fn debugpy_a_kept_launch_serves_only_the_same_launch_of_the_same_python() {
    require_debugpy();
    let s = warm_session();
    let app = own_app(&s);
    let app_path = app.to_str().expect("utf-8 path");
    run_to_and_stop(&s, &app, "square", &[]);

    // What the kept Python's start read has changed (a version manager's file in the folder
    // it runs in): a fresh launch, whose Python reads it.
    let kept = kept_pid(&s, &app);
    let version = std::process::Command::new("python3")
        .args(["-c", "import platform; print(platform.python_version())"])
        .current_dir(&s.cwd)
        .output()
        .expect("python3 runs");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    std::fs::write(s.cwd.join(".python-version"), format!("{version}\n")).expect("write");
    let changed = s.start(&app, &["--adapter", "debugpy"]);
    assert_eq!(changed["warm"], false, "{changed}");
    assert!(
        eventually(LIMIT, || !alive(kept)),
        "the unfit kept program lives on"
    );
    let report = s.data(&["await", "--timeout", "60"]);
    assert_eq!(report["exit_code"], 3, "{report}");
    s.data(&["stop"]);

    // Unchanged since: the kept one serves.
    let kept = kept_pid(&s, &app);
    let same = s.start(&app, &["--adapter", "debugpy"]);
    assert_eq!(same["warm"], true, "{same}");
    let status = s.data(&["status"]);
    assert_eq!(status["debuggee_pid"].as_u64(), Some(kept), "{status}");
    s.data(&["await", "--timeout", "60"]);
    s.data(&["stop"]);

    // Other arguments: a fresh launch. The kept program ends, and leaves no zombie behind in
    // the daemon (which adopts what its adapters leave).
    let kept = kept_pid(&s, &app);
    let other = s.start(&app, &["--adapter", "debugpy", "--", "an-argument"]);
    assert_eq!(other["warm"], false, "{other}");
    let entry = PathBuf::from(format!("/proc/{kept}"));
    assert!(
        eventually(LIMIT, || !entry.exists()),
        "the unfit kept program is still in the process table"
    );
    let report = s.data(&["await", "--timeout", "60"]);
    assert_eq!(report["exit_code"], 3, "{report}");
    s.data(&["stop"]);

    // The same arguments (kept as the last launch had them) in another environment: the same.
    let kept = kept_pid(&s, &app);
    let mut command = s.command();
    command.env("DEBUGGER_FIXTURE_VAR", "changed");
    command.args([
        "--json",
        "start",
        app_path,
        "--adapter",
        "debugpy",
        "--",
        "an-argument",
    ]);
    let run = common::Run::from(command.output().expect("run debugger"));
    assert_eq!(run.json()["data"]["warm"], false, "{}", run.json());
    assert!(
        eventually(LIMIT, || !alive(kept)),
        "the unfit kept program lives on"
    );
}

#[test]
fn debugpy_a_probe_runs_on_the_launch_the_last_probe_left() {
    require_debugpy();
    let s = warm_session();
    let app = fixture_path("python/app.py");
    let app_path = app.to_str().expect("utf-8 path");
    let probe = |function: &str, print: &str| {
        s.data(&[
            "probe",
            app_path,
            "--adapter",
            "debugpy",
            "--break",
            function,
            "--print",
            print,
        ])
    };
    let first = probe("square", "n");
    assert_eq!(first["warm"], false, "{first}");
    let kept = kept_pid(&s, &app);
    let second = probe("Account.deposit", "amount");
    assert_eq!(second["warm"], true, "{second}");
    let hits = second["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{second}");
    assert_eq!(hits[0]["stop"]["frame"]["function"], "deposit", "{second}");
    assert_eq!(hits[0]["prints"][0]["value"], "0", "{second}");
    assert_eq!(second["ended"]["reason"], "hits_reached", "{second}");
    // It ran in the kept process, which is gone with the probe.
    assert!(
        eventually(LIMIT, || !alive(kept)),
        "the kept program lives on"
    );
}

#[test]
fn debugpy_restart_runs_on_a_kept_launch_of_the_same_program() {
    require_debugpy();
    let s = warm_session();
    let app = own_app(&s);
    let first = s.start(&app, &["--adapter", "debugpy", "--break", "square"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "square", "{stop}");
    // The restart keeps the launch (and so takes it, kept as the old run ends) and its
    // breakpoints (same ids): the new run, a new process, stops at `square` again.
    // `restart` answers with the new run's first stop.
    let restarted = s.data(&["restart", "--wait", "60"]);
    assert_eq!(restarted["warm"], true, "{restarted}");
    let stop = restarted.clone();
    assert_eq!(stop["stop"]["frame"]["function"], "square", "{stop}");
    assert_eq!(
        stop["stop"]["breakpoint_ids"],
        serde_json::json!([1]),
        "{stop}"
    );
    let status = s.data(&["status"]);
    assert_ne!(status["debuggee_pid"], first["debuggee_pid"], "{status}");
    assert!(status["debuggee_pid"].is_u64(), "{status}");
}

#[test]
fn debugpy_a_kept_launch_ends_with_its_time_and_before_a_start_on_the_daemons_channels() {
    require_debugpy();
    let mut s = warm_session();
    s.warm_secs = "5".to_string();
    let app = own_app(&s);
    run_to_and_stop(&s, &app, "square", &[]);
    // A program reading the daemon's channel for its stdin cannot run on a kept launch (its
    // launcher started it on debugpy's own): a fresh one, and the kept program ends.
    let kept = kept_pid(&s, &app);
    let input = s.dir.path().join("input.txt");
    std::fs::write(&input, "").expect("write input");
    let input = input.to_str().expect("utf-8 path");
    let started = s.start(&app, &["--adapter", "debugpy", "--stdin", input]);
    assert_eq!(started["warm"], false, "{started}");
    assert!(
        eventually(LIMIT, || !alive(kept)),
        "the kept program lives on"
    );
    s.data(&["await", "--timeout", "60"]);
    s.data(&["stop"]);
    // After it, the warm adapter is a plain one (a launch on the daemon's channels is not
    // kept); the next start runs on it, and leaves a kept launch that ends, with its program,
    // when its time is up.
    s.start(&app, &["--adapter", "debugpy"]);
    s.data(&["await", "--timeout", "60"]);
    s.data(&["stop"]);
    let kept = kept_pid(&s, &app);
    let entry = PathBuf::from(format!("/proc/{kept}"));
    assert!(
        eventually(LIMIT, || !entry.exists()),
        "the kept program outlives its time"
    );
}

#[test]
fn a_start_in_a_virtual_environment_activated_since_is_not_served_by_the_warm_adapter() {
    require_debugpy();
    let s = warm_session();
    let app = own_app(&s);
    s.start(&app, &["-b", "square"]);
    s.data(&["stop"]);
    kept_pid(&s, &app);

    // A virtual environment without debugpy, activated after the daemon started: the start is
    // looked for there, as a fresh daemon would, not served by the warm one's Python.
    let venv = s.dir.path().join("venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv");
    assert!(made.success());
    let path = format!(
        "{}:{}",
        venv.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = common::Run::from(
        s.command()
            .env("VIRTUAL_ENV", &venv)
            .env("PATH", path)
            .args(["--json", "start", "--no-wait", app.to_str().expect("utf-8")])
            .output()
            .expect("run debugger"),
    );
    let failure = run.failure();
    assert_eq!(failure["code"], "adapter_not_found", "{run:?}");
    let message = failure["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&venv.join("bin").join("python").display().to_string()),
        "{message}"
    );
}
