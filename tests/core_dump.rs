//! `debugger core`: a session on a core dump, on lldb-dap, GDB 16 and Delve. The cores are real:
//! written by GDB's `gcore` at the crash (a GDB with DAP is required, so it is there), and by the
//! kernel itself where this machine's `kernel.core_pattern` lets a test find the file. Each test
//! asserts what a CI job that crashed needs: the stop report's signal and place, every thread's
//! stack, the crashing frame's locals and prints, memory, run commands refused, and a core that
//! is not the program's (or is cut short) refused without a hang.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Session, build, build_go, line_of, require_delve, require_lldb_dap};
use serde_json::Value;

const NULL: &str = "c/crash_null.c";
const ASSERT: &str = "c/crash_assert.c";
const THREAD: &str = "c/crash_thread.c";
const PANICS: &str = "rust/panics.rs";
const GO_PANICS: &str = "go/panics/main.go";

/// A session whose GDB is one with DAP.
fn session() -> Session {
    Session::with_gdb()
}

/// Runs `program` (with `env`) under GDB until it dies of a signal and writes its core with
/// `gcore` into `dir`, named after it.
fn gcore(program: &Path, env: &[(&str, &str)], dir: &Path) -> PathBuf {
    let name = program
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("core");
    let mut run = Command::new(program);
    run.envs(env.iter().copied());
    common::gcore(&run, dir, &format!("{name}.gcore"))
}

/// Builds the Rust fixture so that its panic aborts (SIGABRT, a core) instead of unwinding.
fn build_aborting_rust(dir: &Path) -> PathBuf {
    let out = dir.join("panics");
    let status = Command::new("rustc")
        .args(["-g", "-C", "opt-level=0", "-C", "panic=abort", "-o"])
        .arg(&out)
        .arg(common::fixture_path(PANICS))
        .status()
        .expect("run rustc");
    assert!(status.success(), "building {PANICS} failed");
    out
}

/// Opens `core` of `program` with `adapter` and returns the core's stop report.
#[track_caller]
fn open(s: &Session, program: &Path, core: &Path, adapter: &str) -> Value {
    let data = s.data(&[
        "core",
        program.to_str().expect("utf-8"),
        core.to_str().expect("utf-8"),
        "--adapter",
        adapter,
    ]);
    assert_eq!(data["adapter"], adapter, "{data}");
    assert_eq!(data["state"], "stopped", "{data}");
    data["stop"].clone()
}

#[track_caller]
fn assert_stop(stop: &Value, signal: &str, function: &str, fixture: &str, marker: &str) {
    assert_eq!(stop["reason"], "core", "{stop}");
    assert_eq!(stop["signal"]["name"], signal, "{stop}");
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
    assert!(
        stop["source"]["lines"]
            .as_array()
            .is_some_and(|l| !l.is_empty()),
        "no source around the crash: {stop}"
    );
}

/// Every command that would run the program answers the same error, exit 1.
#[track_caller]
fn assert_cannot_run(s: &Session, program: &Path) {
    let location = format!("{}:20", common::fixture_path(NULL).display());
    for command in [
        vec!["continue"],
        vec!["next"],
        vec!["step"],
        vec!["finish"],
        vec!["pause"],
        vec!["restart"],
        vec!["set", "x", "1"],
        vec!["break", location.as_str()],
    ] {
        let mut args = vec!["--json"];
        args.extend(&command);
        let run = s.run(&args);
        assert_eq!(run.code, 1, "{command:?}: {run:?}");
        let error = run.failure();
        assert_eq!(error["message"], "a core dump cannot run", "{command:?}");
        let hint = error["hint"].as_str().unwrap_or("");
        assert!(
            hint.contains(&format!("debugger start {}", program.display())),
            "{hint}"
        );
    }
    // Still there, still stopped at the crash.
    assert_eq!(s.data(&["status"])["state"], "stopped");
}

/// The functions of a thread's stack in `bt --all`'s data.
fn functions(stack: &Value) -> Vec<String> {
    stack["frames"]
        .as_array()
        .map(|frames| {
            frames
                .iter()
                .map(|f| f["function"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_null_dereference_is_explained_from_its_core_on_lldb_and_gdb() {
    require_lldb_dap();
    let program = build(NULL);
    let s = session();
    let core = gcore(&program, &[], &s.cwd);
    for adapter in ["lldb", "gdb"] {
        let stop = open(&s, &program, &core, adapter);
        assert_stop(&stop, "SIGSEGV", "post", NULL, "@null_write");
        assert_eq!(stop["signal"]["number"], 11, "{stop}");
        assert_eq!(stop["fault_address"], "0x0", "{stop}");
        // GDB names no thread of a core: none, rather than an empty name.
        assert_ne!(stop["thread_name"], "", "{stop}");
        let text = s.run(&["context"]);
        assert!(text.ok().contains("*o->ledger = total"), "{text:?}");

        let all = s.data(&["bt", "--all"]);
        let stacks = all["threads"].as_array().expect("threads");
        let crashed = functions(&stacks[0]);
        assert_eq!(
            &crashed[..3],
            ["post", "settle", "main"],
            "{adapter}: {all}"
        );

        let locals = s.data(&["locals"]);
        let extra = common::variable(&locals["variables"], "extra");
        assert_eq!(extra["value"], "5", "{adapter}: {locals}");
        assert_eq!(s.value_of("o->amount"), "1000", "{adapter}");
        assert_eq!(s.value_of("o->id"), "42", "{adapter}");
        s.data(&["up"]);
        assert_eq!(s.value_of("fee"), "5", "{adapter}: settle's local");

        let memory = s.data(&["memory", "read", "&g_marker", "--count", "16"]);
        assert_eq!(
            memory["bytes"], "11000000000000002200000000000000",
            "{adapter}: {memory}"
        );

        assert_cannot_run(&s, &program);
        s.run(&["stop"]).ok();
    }
}

#[test]
fn a_failed_assert_shows_the_abort_message_and_the_asserting_frame() {
    require_lldb_dap();
    let program = build(ASSERT);
    let s = session();
    let core = gcore(&program, &[], &s.cwd);
    for adapter in ["lldb", "gdb"] {
        let stop = open(&s, &program, &core, adapter);
        assert_stop(&stop, "SIGABRT", "check_balance", ASSERT, "@assert_line");
        let message = stop["abort_message"].as_str().unwrap_or("");
        assert!(
            message.contains("Assertion `balance >= 0' failed"),
            "{adapter}: {stop}"
        );
        let locals = s.data(&["locals"]);
        assert_eq!(
            common::variable(&locals["variables"], "balance")["value"],
            "-7",
            "{adapter}"
        );
        // The frames that raised the signal are the C library's, below the selected one.
        let bt = s.data(&["bt"]);
        assert!(bt["selected_frame"].as_u64().unwrap_or(0) > 0, "{bt}");
        s.run(&["stop"]).ok();
    }
}

#[test]
fn a_worker_threads_crash_selects_that_thread_and_shows_every_stack() {
    require_lldb_dap();
    let program = build(THREAD);
    let s = session();
    let core = gcore(&program, &[], &s.cwd);
    for adapter in ["lldb", "gdb"] {
        let stop = open(&s, &program, &core, adapter);
        assert_stop(&stop, "SIGSEGV", "worker", THREAD, "@worker_crash");
        assert_eq!(s.value_of("id"), "2", "{adapter}");
        let all = s.data(&["bt", "--all"]);
        let stacks = all["threads"].as_array().expect("threads");
        assert_eq!(stacks.len(), 4, "{adapter}: {all}");
        assert_eq!(
            stacks[0]["thread_id"], stop["thread_id"],
            "{adapter}: {all}"
        );
        let in_main = stacks
            .iter()
            .filter(|t| functions(t).iter().any(|f| f == "main"))
            .count();
        let waiting_workers = stacks[1..]
            .iter()
            .filter(|t| functions(t).iter().any(|f| f == "worker"))
            .count();
        assert_eq!((in_main, waiting_workers), (1, 2), "{adapter}: {all}");
        let threads = s.data(&["threads"]);
        assert_eq!(threads["threads"].as_array().map(Vec::len), Some(4));
        s.run(&["stop"]).ok();
    }
}

#[test]
fn a_rust_panic_is_shown_in_the_panicking_function() {
    require_lldb_dap();
    let s = session();
    let program = build_aborting_rust(&s.cwd);
    let core = gcore(&program, &[], &s.cwd);
    for adapter in ["lldb", "gdb"] {
        let stop = open(&s, &program, &core, adapter);
        assert_stop(&stop, "SIGABRT", "panics::divide", PANICS, "@panic_line");
        assert_eq!(s.value_of("total"), "10", "{adapter}");
        s.data(&["up"]);
        assert_eq!(s.value_of("parts"), "0", "{adapter}: plan's argument");
        assert_cannot_run(&s, &program);
        s.run(&["stop"]).ok();
    }
}

#[test]
fn a_go_panic_is_explained_from_its_core_on_delve() {
    require_delve();
    let program = build_go(GO_PANICS);
    let s = session();
    // GOTRACEBACK=crash makes the runtime abort after the panic, as a crash worth a core.
    let core = gcore(&program, &[("GOTRACEBACK", "crash")], &s.cwd);
    let stop = open(&s, &program, &core, "delve");
    assert_stop(&stop, "SIGABRT", "main.withdraw", GO_PANICS, "@panic_line");
    let locals = s.data(&["locals"]);
    assert_eq!(
        common::variable(&locals["variables"], "amount")["value"],
        "50"
    );
    assert_eq!(s.value_of("a.Balance"), "30");
    let all = s.data(&["bt", "--all"]);
    let crashed = functions(&all["threads"][0]);
    assert!(crashed.iter().any(|f| f == "main.main"), "{all}");
    assert!(
        all["threads"].as_array().is_some_and(|t| t.len() > 1),
        "{all}"
    );
    // The core's memory, where an expression points: Balance, 30, little-endian.
    let memory = s.data(&["memory", "read", "&a.Balance", "--count", "8"]);
    assert_eq!(memory["bytes"], "1e00000000000000", "{memory}");
    assert_cannot_run(&s, &program);
}

#[test]
fn the_adapter_is_chosen_by_the_program_as_for_start() {
    require_lldb_dap();
    require_delve();
    let s = session();
    let c = build(NULL);
    let c_core = gcore(&c, &[], &s.cwd);
    let data = s.data(&[
        "core",
        c.to_str().expect("utf-8"),
        c_core.to_str().expect("utf-8"),
    ]);
    assert_eq!(data["adapter"], "lldb", "{data}");
    s.run(&["stop"]).ok();
    let go = build_go(GO_PANICS);
    let go_core = gcore(&go, &[("GOTRACEBACK", "crash")], &s.cwd);
    let data = s.data(&[
        "core",
        go.to_str().expect("utf-8"),
        go_core.to_str().expect("utf-8"),
    ]);
    assert_eq!(data["adapter"], "delve", "{data}");
}

#[test]
fn a_core_of_another_program_is_refused_with_both_build_ids() {
    require_lldb_dap();
    require_delve();
    let s = session();
    let null = build(NULL);
    let core = gcore(&null, &[], &s.cwd);
    let other = build(ASSERT);
    let go = build_go(GO_PANICS);
    let go_core = gcore(&go, &[("GOTRACEBACK", "crash")], &s.cwd);
    let go_other = build_go("go/ledger/main.go");
    for (program, core, adapter) in [
        (&other, &core, "lldb"),
        (&other, &core, "gdb"),
        (&go_other, &go_core, "delve"),
    ] {
        let run = s.run(&[
            "--json",
            "core",
            program.to_str().expect("utf-8"),
            core.to_str().expect("utf-8"),
            "--adapter",
            adapter,
        ]);
        let error = run.failure();
        let message = error["message"].as_str().unwrap_or("");
        assert!(message.contains("does not match the program"), "{message}");
        assert_eq!(message.matches("build id").count(), 2, "{message}");
        assert_eq!(run.code, 2, "{adapter}: {run:?}");
        // Nothing was left open.
        assert_eq!(s.run(&["status"]).code, 4, "{adapter}");
    }
}

#[test]
fn a_truncated_core_or_a_file_that_is_no_core_is_refused_at_once() {
    let s = session();
    let program = build(NULL);
    let core = gcore(&program, &[], &s.cwd);
    let bytes = std::fs::read(&core).expect("read core");
    let cut = s.cwd.join("cut.core");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).expect("write cut core");
    for (file, words) in [
        (&cut, "is truncated"),
        (&program, "not a core dump"),
        (&s.cwd.join("missing.core"), "no core file"),
    ] {
        for adapter in ["lldb", "gdb"] {
            let run = s.run(&[
                "--json",
                "core",
                program.to_str().expect("utf-8"),
                file.to_str().expect("utf-8"),
                "--adapter",
                adapter,
            ]);
            let error = run.failure();
            assert!(
                error["message"].as_str().unwrap_or("").contains(words),
                "{adapter}: {error}"
            );
            // A core file that cannot be used is a bad argument, as a missing program is.
            assert_eq!(run.code, 2, "{adapter}: {error}");
        }
    }
}

#[test]
fn without_a_core_file_the_newest_is_asked_of_systemd_coredump_or_the_lack_is_told() {
    let s = session();
    let program = build(NULL);
    let run = s.run(&["--json", "core", program.to_str().expect("utf-8")]);
    let error = run.failure();
    let message = error["message"].as_str().unwrap_or("");
    if which::which("coredumpctl").is_ok() {
        // No crash of this fresh build is in its store.
        assert!(message.contains("holds no core"), "{message}");
    } else {
        assert!(message.contains("no systemd-coredump"), "{message}");
        assert!(
            error["hint"].as_str().unwrap_or("").contains("COREFILE"),
            "{error}"
        );
    }
}

/// The core the kernel writes for a real crash, when `kernel.core_pattern` names a file this test
/// can find (a plain name or path, `core.PID` with core_uses_pid); `None` when cores go to a
/// handler (systemd-coredump, apport) or the pattern has fields this test does not expand.
fn kernel_core(program: &Path, dir: &Path) -> Option<PathBuf> {
    let pattern = debugger::platform::core_pattern()?;
    if pattern.starts_with('|') || pattern.contains('%') {
        return None;
    }
    let child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -c unlimited && exec \"$0\"")
        .arg(program)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let pid = child.id();
    let _ = child.wait_with_output();
    let base = if pattern.starts_with('/') {
        PathBuf::from(&pattern)
    } else {
        dir.join(&pattern)
    };
    [
        base.clone(),
        PathBuf::from(format!("{}.{pid}", base.display())),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

#[test]
fn a_core_the_kernel_wrote_opens_too_and_some_way_of_writing_cores_works() {
    require_lldb_dap();
    let s = session();
    let program = build(NULL);
    let from_kernel = kernel_core(&program, &s.cwd);
    let from_gdb = gcore(&program, &[], &s.cwd);
    for core in from_kernel.iter().chain([&from_gdb]) {
        for adapter in ["lldb", "gdb"] {
            let stop = open(&s, &program, core, adapter);
            assert_stop(&stop, "SIGSEGV", "post", NULL, "@null_write");
            s.run(&["stop"]).ok();
        }
    }
}

/// `doctor --json` run under the core size limit `ulimit` sets.
fn doctor_under(s: &Session, ulimit: &str) -> Value {
    let output = s
        .command_running(Path::new("sh"))
        .arg("-c")
        .arg(format!("{ulimit} && exec \"$0\" --json doctor"))
        .arg(common::bin())
        .output()
        .expect("run doctor");
    common::Run::from(output).json()["data"]["cores"].clone()
}

#[test]
fn doctor_tells_whether_a_crash_writes_a_core_and_how_to_make_it() {
    let s = Session::new();
    let none = doctor_under(&s, "ulimit -S -c 0");
    assert_eq!(none["writes_cores"], false, "{none}");
    assert_eq!(none["limit"], "0", "{none}");
    let fix = none["fix"].as_str().unwrap_or("");
    assert!(
        fix.contains("ulimit -c unlimited") || fix.contains("limits.conf"),
        "{none}"
    );
    if let Some(pattern) = debugger::platform::core_pattern() {
        assert_eq!(none["pattern"], pattern.as_str(), "{none}");
    }
    let raised = doctor_under(&s, "ulimit -S -c \"$(ulimit -H -c)\"");
    if raised["hard_limit"] != "0" {
        assert_eq!(raised["writes_cores"], true, "{raised}");
        assert!(
            raised["fix"].is_null() || raised["systemd_coredump"] == false,
            "{raised}"
        );
    }
    let text = s.run(&["doctor"]);
    assert!(text.stdout.lines().any(|l| l.contains("cores")), "{text:?}");
}
