//! The warm adapter (`[daemon] warm_adapter_secs`): after a session ends, the daemon keeps a
//! fresh adapter of its kind, spawned and initialised, for the next `start`; nothing of the
//! previous program reaches the next one; `sessions` lists it; it ends when its time is up or
//! on `stop`; 0 keeps none; a start on another adapter spawns its own. Against lldb-dap, GDB
//! and debugpy, observed through `sessions --json` and the daemon's answers.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{
    Session, alive, at, build, eventually, fixture_path, line_of, require_debugpy, require_gdb,
    require_lldb_dap, require_python,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

fn pid(value: &Value, field: &str) -> u64 {
    value[field]
        .as_u64()
        .unwrap_or_else(|| panic!("no {field} in {value}"))
}

/// A session whose daemons keep a warm adapter for `secs` seconds.
fn warm_session(secs: &str) -> Session {
    let mut s = Session::new();
    s.warm_secs = secs.to_string();
    s
}

fn warm_gdb_session(secs: &str) -> Session {
    let mut s = Session::with_gdb();
    s.warm_secs = secs.to_string();
    s
}

/// This session's entry in `sessions --json`, if its daemon answers.
fn listed(s: &Session) -> Option<Value> {
    let data = s.data(&["sessions"]);
    data["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|entry| entry["session"] == s.name.as_str())
        .cloned()
}

/// Waits until `sessions` lists a warm adapter with its process; returns the entry.
#[track_caller]
fn warm_entry(s: &Session) -> Value {
    let mut entry = Value::Null;
    let ready = eventually(LIMIT, || {
        entry = listed(s).unwrap_or(Value::Null);
        entry["warm"]["adapter_pid"].is_u64()
    });
    assert!(ready, "no warm adapter listed: {entry}\n{}", s.log());
    entry
}

/// Starts ledger with a breakpoint on `apply`, runs to it, and stops the session.
fn run_to_apply_and_stop(s: &Session, adapter: &str) -> Value {
    run_to_and_stop(s, adapter, &build("c/ledger.c"), "apply")
}

/// Starts `program` with a breakpoint on `function`, runs to it, and stops the session.
fn run_to_and_stop(s: &Session, adapter: &str, program: &Path, function: &str) -> Value {
    let started = s.start(program, &["--adapter", adapter, "--break", function]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], function, "{stop}");
    let stopped = s.data(&["stop"]);
    let message = stopped["message"].as_str().expect("message");
    assert!(
        message.contains(&format!("; a warm {adapter} adapter is kept for "))
            && message
                .ends_with(" s to make the next start faster ('debugger stop' again ends it)"),
        "{stopped}"
    );
    started
}

/// The next start takes the warm adapter, and runs a program with nothing of the last one: no
/// breakpoint (it runs to its end), a fresh target and process.
fn the_next_start_takes_it(s: &Session, adapter: &str) {
    the_next_start_of_takes_it(s, adapter, &build("c/ledger.c"), "apply");
}

/// [`the_next_start_takes_it`] for `program`, first stopped in `function`; it exits with 3.
fn the_next_start_of_takes_it(s: &Session, adapter: &str, program: &Path, function: &str) {
    let first = run_to_and_stop(s, adapter, program, function);
    let entry = warm_entry(s);
    assert_eq!(entry["state"], "warm", "{entry}");
    assert_eq!(entry["adapter"], adapter, "{entry}");
    let warm_pid = pid(&entry["warm"], "adapter_pid");
    assert_ne!(warm_pid, pid(&first, "adapter_pid"), "a fresh adapter");
    let first_adapter = pid(&first, "adapter_pid");
    assert!(
        eventually(LIMIT, || !alive(first_adapter)),
        "the old adapter lives on"
    );
    assert!(entry["warm"]["secs_left"].as_f64().expect("secs_left") > 0.0);

    let second = s.start(program, &["--adapter", adapter]);
    assert_eq!(second["warm"], true, "{second}");
    assert_eq!(pid(&second, "adapter_pid"), warm_pid, "{second}");
    assert_eq!(second["daemon_pid"], first["daemon_pid"], "{second}");
    assert_eq!(second["breakpoints"], Value::Array(vec![]), "{second}");
    if first["debuggee_pid"].is_u64() {
        // (GDB names the process only once it is known, after `start` answers.)
        assert_ne!(second["debuggee_pid"], first["debuggee_pid"]);
    }
    let report = s.data(&["await", "--timeout", "60"]);
    assert_eq!(report["reason"], "exited", "{report}");
    assert_eq!(report["exit_code"], 3, "{report}");
    let breakpoints = s.data(&["breakpoint", "list"]);
    assert_eq!(breakpoints["breakpoints"], Value::Array(vec![]));
    // The program ran to its end by itself: the session now lists it, with a new warm adapter
    // (a third process) ready behind it.
    let entry = warm_entry(s);
    assert_eq!(entry["state"], "exited", "{entry}");
    assert_ne!(pid(&entry["warm"], "adapter_pid"), warm_pid, "{entry}");
}

#[test]
fn lldb_the_next_start_takes_the_warm_adapter_with_nothing_of_the_last_program() {
    require_lldb_dap();
    the_next_start_takes_it(&warm_session("60"), "lldb");
}

/// Runs ledger to `apply` on `adapter` and stops; once the warm adapter that follows has logged
/// reading the C library, starts ledger on it with a breakpoint on `apply` and `extra`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn start_after_the_c_library_was_read(s: &Session, adapter: &str, extra: &[&str]) {
    run_to_apply_and_stop(s, adapter);
    warm_entry(s);
    let log = s.log();
    assert!(
        log.contains("a warm-up command") && log.contains("libc.so.6"),
        "{log}"
    );
    let mut args = vec!["--adapter", adapter, "--break", "apply"];
    args.extend_from_slice(extra);
    let started = s.start(&build("c/ledger.c"), &args);
    assert_eq!(started["warm"], true, "{started}");
}

/// A warm lldb-dap reads the C library ahead of the program (the bulk of LLDB's time to the first
/// stop where its debug file is installed), and keeps nothing of the target it read it with: the
/// session on it has the one target, its program's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn lldb_a_warm_adapter_has_read_the_c_library_and_holds_no_target_of_its_own() {
    require_lldb_dap();
    let s = warm_session("60");
    start_after_the_c_library_was_read(&s, "lldb", &[]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
    let targets = s.data(&["raw", "target", "list"]);
    let text = targets.to_string();
    assert!(
        text.contains("target #0") && text.contains("ledger"),
        "{targets}"
    );
    assert!(
        !text.contains("target #1") && !text.contains("libc"),
        "{targets}"
    );
}

/// A warm GDB reads the C library ahead too, into an inferior of its own that never runs
/// (inferior 2); the session's program is inferior 1, and a breakpoint on a C library function
/// stops in it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn gdb_a_warm_adapter_has_read_the_c_library_in_an_inferior_of_its_own() {
    require_gdb();
    let s = warm_gdb_session("60");
    start_after_the_c_library_was_read(&s, "gdb", &["--break", "fflush"]);
    // `fflush` is called before `apply`; GDB names it by the C library's own name for it.
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    let function = stop["stop"]["frame"]["function"].as_str().unwrap_or("");
    assert!(function.contains("fflush"), "{stop}");
    assert_eq!(stop["stop"]["thread_name"], "ledger", "{stop}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
    let inferiors = s.data(&["raw", "info", "inferiors"]).to_string();
    assert!(
        inferiors.contains("* 1") && inferiors.contains("ledger"),
        "{inferiors}"
    );
    assert!(inferiors.contains("libc.so.6"), "{inferiors}");
}

#[test]
fn gdb_the_next_start_takes_the_warm_adapter_with_nothing_of_the_last_program() {
    require_gdb();
    the_next_start_takes_it(&warm_gdb_session("60"), "gdb");
}

/// debugpy's start-up (`python -m debugpy.adapter`, `initialize`) takes nothing of the program
/// either: the launch brings the program, its interpreter, folder and environment, and debugpy
/// starts a new launcher and a new Python for it.
#[test]
fn debugpy_the_next_start_takes_the_warm_adapter_with_nothing_of_the_last_program() {
    require_debugpy();
    let app = fixture_path("python/app.py");
    the_next_start_of_takes_it(&warm_session("60"), "debugpy", &app, "square");
}

#[test]
fn debugpy_a_probe_leaves_a_warm_adapter_and_the_next_probe_borrows_it() {
    require_debugpy();
    let s = warm_session("60");
    let app = fixture_path("python/app.py");
    let app = app.to_str().expect("utf-8 path");
    // debugpy named: without it, a probe of a Python program runs on pdb.
    let first = s.data(&[
        "probe",
        app,
        "--adapter",
        "debugpy",
        "--break",
        "square",
        "--print",
        "n",
    ]);
    assert_eq!(first["warm"], false, "{first}");
    assert_eq!(first["hits"][0]["prints"][0]["value"], "3", "{first}");
    let entry = warm_entry(&s);
    assert_eq!(entry["adapter"], "debugpy", "{entry}");
    let warm_pid = pid(&entry["warm"], "adapter_pid");

    // The next probe runs on it with only its own breakpoint: `deposit` stops, `square` (the
    // last probe's) does not.
    let second = s.data(&[
        "probe",
        app,
        "--adapter",
        "debugpy",
        "--break",
        "Account.deposit",
        "--print",
        "amount",
    ]);
    assert_eq!(second["warm"], true, "{second}");
    let hits = second["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{second}");
    assert_eq!(hits[0]["stop"]["frame"]["function"], "deposit", "{second}");
    assert_eq!(hits[0]["prints"][0]["value"], "0", "{second}");
    assert_eq!(second["breakpoints"].as_array().map(Vec::len), Some(1));
    assert!(
        eventually(LIMIT, || !alive(warm_pid)),
        "the lent adapter lives on"
    );
}

#[test]
fn stop_on_a_warm_daemon_ends_it() {
    require_lldb_dap();
    let s = warm_session("60");
    let first = run_to_apply_and_stop(&s, "lldb");
    let daemon = pid(&first, "daemon_pid");
    let warm_pid = pid(&warm_entry(&s)["warm"], "adapter_pid");

    // No session: `status` says so, and names the warm adapter.
    let status = s.run(&["status"]);
    assert_eq!(status.code, 4, "{status:?}");
    assert!(status.stderr.contains("kept warm"), "{status:?}");

    let ended = s.data(&["stop"]);
    assert_eq!(
        ended["message"], "the warm lldb adapter was ended",
        "{ended}"
    );
    assert!(
        eventually(LIMIT, || !alive(daemon) && !alive(warm_pid)),
        "daemon {} adapter {}",
        alive(daemon),
        alive(warm_pid)
    );
    assert!(listed(&s).is_none());
    assert_eq!(s.run(&["stop"]).code, 4);
}

#[test]
fn the_warm_adapter_ends_with_its_time() {
    require_lldb_dap();
    let s = warm_session("1");
    let first = run_to_apply_and_stop(&s, "lldb");
    let daemon = pid(&first, "daemon_pid");
    // Its process may be listed before the time runs out, or the time may run out first on a
    // loaded machine: either way the daemon and any warm adapter end.
    let warm_pid = listed(&s).and_then(|entry| entry["warm"]["adapter_pid"].as_u64());
    assert!(
        eventually(LIMIT, || !alive(daemon)
            && warm_pid.is_none_or(|p| !alive(p))),
        "the warm daemon outlived its time\n{}",
        s.log()
    );
    assert!(listed(&s).is_none());
    assert!(
        s.log().contains("the warm adapter's time is up"),
        "{}",
        s.log()
    );
}

#[test]
fn zero_keeps_no_warm_adapter() {
    require_lldb_dap();
    let s = warm_session("0");
    let first = s.start(&build("c/ledger.c"), &["--break", "apply"]);
    let daemon = pid(&first, "daemon_pid");
    let stopped = s.data(&["stop"]);
    assert!(
        !stopped["message"]
            .as_str()
            .expect("message")
            .contains("warm"),
        "{stopped}"
    );
    assert!(eventually(LIMIT, || !alive(daemon)), "the daemon stayed");
    assert!(listed(&s).is_none());
    let second = s.start(&build("c/ledger.c"), &[]);
    assert_eq!(second["warm"], false, "{second}");
}

#[test]
fn a_start_on_another_adapter_spawns_its_own_and_ends_the_warm_one() {
    require_lldb_dap();
    let gdb = require_gdb();
    let mut s = Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.gdb]\npath = {:?}\n",
        gdb.display().to_string()
    ));
    s.warm_secs = "60".into();
    run_to_apply_and_stop(&s, "lldb");
    let warm_pid = pid(&warm_entry(&s)["warm"], "adapter_pid");

    let second = s.start(&build("c/ledger.c"), &["--adapter", "gdb"]);
    assert_eq!(second["warm"], false, "{second}");
    assert_eq!(second["adapter"], "gdb", "{second}");
    assert_ne!(pid(&second, "adapter_pid"), warm_pid);
    assert!(
        eventually(LIMIT, || !alive(warm_pid)),
        "the unfit warm adapter was left running"
    );
    let entry = listed(&s).expect("listed");
    assert_eq!(entry["state"], "running", "{entry}");
    assert!(entry.get("warm").is_none(), "{entry}");
}

#[test]
fn sessions_lists_the_warm_adapter_in_text() {
    require_lldb_dap();
    let s = warm_session("60");
    run_to_apply_and_stop(&s, "lldb");
    warm_entry(&s);
    let out = s.run(&["sessions"]);
    let line = out
        .ok()
        .lines()
        .find(|l| l.starts_with(&s.name))
        .unwrap_or_else(|| panic!("{out:?}"))
        .to_string();
    assert!(
        line.contains("warm") && line.contains("lldb adapter"),
        "{line}"
    );
    assert!(line.contains("s left"), "{line}");

    // A warm adapter is no session to name to a command for another session.
    let other = format!("{}-other", s.name);
    let missing = s.run(&["--session", &other, "status"]);
    assert_eq!(missing.code, 4, "{missing:?}");
    assert_eq!(
        missing.stderr.lines().next(),
        Some(
            format!(
                "error: no session '{other}' is running; holding no session, only a warm \
                 adapter: {} (a warm lldb adapter)",
                s.name
            )
            .as_str()
        ),
        "{missing:?}"
    );
    assert!(!missing.stderr.contains("--session"), "{missing:?}");
}

/// `probe --json` on ledger, recording `apply` and printing `amount`.
fn probe(s: &Session, extra: &[&str]) -> Value {
    let ledger = build("c/ledger.c");
    let mut args = vec!["probe", ledger.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    s.data(&args)
}

#[test]
fn a_probe_leaves_a_warm_adapter_and_the_next_probe_borrows_it() {
    require_lldb_dap();
    let s = warm_session("60");
    let first = probe(&s, &["--break", "apply", "--print", "amount"]);
    assert_eq!(first["warm"], false, "{first}");
    // The probe asked its session's daemon (started for it) to keep one for the next time.
    let entry = warm_entry(&s);
    assert_eq!(entry["state"], "warm", "{entry}");
    assert_eq!(entry["adapter"], "lldb", "{entry}");
    let warm_pid = pid(&entry["warm"], "adapter_pid");

    // The next probe runs on it, with only its own breakpoints: `square` stops, `apply` (the
    // last probe's) does not.
    let second = probe(&s, &["--break", "square", "--print", "x"]);
    assert_eq!(second["warm"], true, "{second}");
    let hits = second["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{second}");
    assert_eq!(hits[0]["stop"]["frame"]["function"], "square", "{second}");
    assert_eq!(hits[0]["prints"][0]["value"], "3", "{second}");
    assert_eq!(second["breakpoints"].as_array().map(Vec::len), Some(1));
    // The lent adapter ends with the probe, and the daemon warms another.
    assert!(
        eventually(LIMIT, || !alive(warm_pid)),
        "the lent adapter lives on"
    );
    let entry = warm_entry(&s);
    assert_ne!(pid(&entry["warm"], "adapter_pid"), warm_pid, "{entry}");
}

#[test]
fn a_probe_with_zero_keeps_no_warm_adapter() {
    require_lldb_dap();
    let s = warm_session("0");
    let report = probe(&s, &["--break", "apply"]);
    assert_eq!(report["warm"], false, "{report}");
    assert!(listed(&s).is_none(), "a daemon was started");
}

#[test]
fn gdb_a_probe_borrows_the_warm_adapter_a_session_left() {
    require_gdb();
    let s = warm_gdb_session("60");
    run_to_apply_and_stop(&s, "gdb");
    warm_entry(&s);
    let report = probe(
        &s,
        &["--adapter", "gdb", "--break", "apply", "--print", "amount"],
    );
    assert_eq!(report["warm"], true, "{report}");
    assert_eq!(report["hits"][0]["prints"][0]["value"], "0", "{report}");
}

#[test]
fn restart_runs_on_a_warm_adapter() {
    require_lldb_dap();
    let s = warm_session("60");
    let first = s.start(&build("c/ledger.c"), &["--break", "apply"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
    let restarted = s.data(&["restart"]);
    assert_eq!(restarted["warm"], true, "{restarted}");
    assert_ne!(
        restarted["adapter_pid"], first["adapter_pid"],
        "{restarted}"
    );
    // The restart keeps its breakpoints (same ids): the new run stops at `apply` again.
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "apply", "{stop}");
    assert_eq!(
        stop["stop"]["breakpoint_ids"],
        serde_json::json!([1]),
        "{stop}"
    );
}

/// pdb's warm adapter is the next program's own Python, started in the last launch's folder and
/// environment; a start in them takes it, and runs nothing of the last program.
#[test]
fn pdb_the_next_start_takes_a_warm_python_with_nothing_of_the_last_program() {
    require_python();
    let s = warm_session("60");
    let app = fixture_path("python/app.py");
    the_next_start_of_takes_it(&s, "pdb", &app, "square");
    // A terminal is a program's from its first instruction: a `--tty` start takes no warm
    // Python, and runs as it would without one.
    s.data(&["stop"]);
    warm_entry(&s);
    let started = s.start(&app, &["--adapter", "pdb", "--tty"]);
    assert_eq!(started["warm"], false, "{started}");
    let report = s.data(&["await", "--timeout", "60"]);
    assert_eq!(report["exit_code"], 3, "{report}");
}

/// `probe` of fixtures/python/context.py on pdb, from `cwd`, with `var` in its environment and
/// `extra` for it: stops once at its last line, and runs to its end.
fn context_probe(s: &Session, cwd: &Path, var: &str, extra: &[(&str, &str)]) -> Value {
    let program = fixture_path("python/context.py");
    let stdin = s.dir.path().join("stdin.txt");
    std::fs::write(&stdin, "a line\n").expect("write stdin");
    let end = format!(
        "context.py:{}",
        line_of("python/context.py", "@context_end")
    );
    let mut command = s.command();
    command.current_dir(cwd).env("DEBUGGER_FIXTURE_VAR", var);
    command.envs(extra.iter().copied());
    command.args(["--json", "probe", "--break", &end, "--hits", "2", "--stdin"]);
    command.arg(&stdin).arg(&program).args(["--", "one", "two"]);
    let run = common::Run::from(command.output().expect("run debugger"));
    let value = run.json();
    assert_eq!(value["ok"], true, "{value}");
    let data = value["data"].clone();
    assert_eq!(data["adapter"], "pdb", "{data}");
    assert_eq!(data["ended"]["exit_code"], 3, "{data}");
    data
}

/// A program run in a warm Python sees what one started cold does: its name, arguments,
/// `sys.path[0]`, working folder, stdin, streams and environment (as the Python's start, a
/// version manager's shim included, made it), and writes to the same channels.
#[test]
fn pdb_a_program_in_a_warm_python_sees_what_a_cold_one_does() {
    require_python();
    let s = warm_session("60");
    let cold = context_probe(&s, &s.cwd, "one", &[]);
    assert_eq!(cold["warm"], false, "{cold}");
    warm_entry(&s);
    let warm = context_probe(&s, &s.cwd, "one", &[]);
    assert_eq!(warm["warm"], true, "{warm}");
    let tail = |data: &Value| data["output"]["tail"].as_str().expect("tail").to_string();
    assert_eq!(tail(&warm), tail(&cold));
    let output = tail(&warm);
    for line in [
        "name: __main__",
        "argv: [",
        "'one', 'two']",
        "stdin: 'a line\\n'",
        "var: one",
        "context: done",
    ] {
        assert!(output.contains(line), "{line} not in {output}");
    }
    let cwd = format!("cwd: {}", s.cwd.display());
    assert!(output.contains(&cwd), "{output}");
    // The file-creation mask is the caller's, not the daemon's own (077), in the warm Python
    // (the daemon's child) as in the cold one (the probe's).
    let umask = format!("umask: {:03o}", callers_umask());
    assert!(output.contains(&umask), "{umask} not in {output}");
}

/// This process's file-creation mask, as `sh -c umask` prints it.
fn callers_umask() -> u32 {
    let out = std::process::Command::new("sh")
        .args(["-c", "umask"])
        .output()
        .expect("run sh -c umask");
    let text = String::from_utf8_lossy(&out.stdout);
    u32::from_str_radix(text.trim(), 8).expect("an octal umask")
}

/// A warm Python serves only a launch that starts as its own did: not one in another folder or
/// environment, nor one after a package was installed where its start looked for them.
#[test]
fn pdb_a_warm_python_serves_only_a_launch_that_starts_as_it_did() {
    require_python();
    let s = warm_session("60");
    let packages = s.dir.path().join("packages");
    std::fs::create_dir(&packages).expect("packages dir");
    let packages_path = packages.to_str().expect("utf-8 path");
    let with_packages = [("PYTHONPATH", packages_path)];
    let probe_warm = |var: &str| {
        warm_entry(&s);
        context_probe(&s, &s.cwd, var, &with_packages)["warm"].clone()
    };
    assert_eq!(
        context_probe(&s, &s.cwd, "one", &with_packages)["warm"],
        false
    );
    assert_eq!(probe_warm("one"), true, "the same start takes it");
    assert_eq!(probe_warm("two"), false, "another environment");
    assert_eq!(
        probe_warm("two"),
        true,
        "the warm one follows the last launch"
    );
    warm_entry(&s);
    std::fs::write(packages.join("installed.py"), "").expect("install a package");
    let after = context_probe(&s, &s.cwd, "two", &with_packages);
    assert_eq!(
        after["warm"], false,
        "a package installed since: {}",
        after["output"]
    );
    warm_entry(&s);
    let elsewhere = s.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("another folder");
    let moved = context_probe(&s, &elsewhere, "two", &with_packages);
    assert_eq!(moved["warm"], false, "another folder: {}", moved["output"]);
    // A version manager's file, which picks the Python a shim runs (asdf's here: pyenv, which
    // may run the tests' Python, reads only its own).
    warm_entry(&s);
    std::fs::write(elsewhere.join(".tool-versions"), "python system\n").expect("write");
    let picked = context_probe(&s, &elsewhere, "two", &with_packages);
    assert_eq!(
        picked["warm"], false,
        "another Python picked: {}",
        picked["output"]
    );
}

/// A probe in an activated virtual environment, whose daemon was started outside it (and lives
/// on, holding a session), leaves a warm Python of that environment (the probe's, not the one
/// the daemon would find), which the next probe there takes.
#[test]
fn pdb_a_probe_in_a_virtual_environment_leaves_a_warm_python_of_it() {
    require_python();
    let s = warm_session("60");
    let venv = s.dir.path().join("venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .expect("run python3 -m venv");
    assert!(made.status.success(), "{made:?}");
    let app = fixture_path("python/app.py");
    s.start(&app, &["--adapter", "pdb", "--break", "square"]);
    let venv_path = venv.to_str().expect("utf-8 path");
    let in_venv = [("VIRTUAL_ENV", venv_path)];
    assert_eq!(context_probe(&s, &s.cwd, "one", &in_venv)["warm"], false);
    let entry = warm_entry(&s);
    assert_eq!(entry["warm"]["adapter"], "pdb", "{entry}");
    let warm = context_probe(&s, &s.cwd, "one", &in_venv);
    assert_eq!(warm["warm"], true, "{}", warm["output"]);
}

#[test]
fn lldb_the_next_warm_adapter_is_made_while_one_is_lent_to_a_probe() {
    require_lldb_dap();
    let s = warm_session("60");
    let spin = build("c/spin.c");
    let spin = spin.to_str().expect("utf-8 path");
    let first = s.data(&["probe", spin, "--break", "tick", "--hits", "1"]);
    assert_eq!(first["warm"], false, "{first}");
    let lent = pid(&warm_entry(&s)["warm"], "adapter_pid");

    // A probe that stays on its borrowed adapter (its breakpoint comes only after 120 s): the
    // next warm adapter is there before it gives this one back, so a probe right after it
    // does not wait for one to be made.
    let end = at("c/spin.c", "@spin_end");
    let mut second = s
        .command()
        .args(["probe", spin, "--break", &end, "--timeout", "60"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn probe");
    let mut next = Value::Null;
    let made = eventually(LIMIT, || {
        next = listed(&s).unwrap_or(Value::Null);
        next["warm"]["adapter_pid"]
            .as_u64()
            .is_some_and(|pid| pid != lent && alive(pid))
    });
    let still_lent = second.try_wait().expect("poll probe").is_none();
    let _ = second.kill();
    let _ = second.wait();
    assert!(made, "no next warm adapter while one was lent: {next}");
    assert!(
        still_lent,
        "the probe had ended: its adapter was given back"
    );
    assert!(
        eventually(LIMIT, || !alive(lent)),
        "the lent adapter lives on"
    );
}
