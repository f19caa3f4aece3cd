//! `debugger mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI), which
//! `scripts/install-test-deps.sh` installs into its own virtualenv (/opt/debugger-test/mcp-venv,
//! or `DEBUGGER_TEST_MCP_VENV`). Each scenario is a script in tests/mcp/ that starts the server
//! through the SDK's stdio transport, checks what it sees with asserts, and prints one JSON
//! object for the checks made here, from the CLI's side of the same sessions.
//!
//! Every test fails (never skips) when the SDK, or the adapter it debugs with, is missing.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::{Session, at, bin, build, eventually, fixture_path, line_of, repo_root};
use serde_json::{Value, json};

/// The virtualenv's Python, with the SDK importable, or a failure that says how to get it.
fn python() -> PathBuf {
    let venv = std::env::var_os("DEBUGGER_TEST_MCP_VENV").map_or_else(
        || PathBuf::from("/opt/debugger-test/mcp-venv"),
        PathBuf::from,
    );
    let python = venv.join("bin").join("python");
    let works = Command::new(&python)
        .args(["-c", "import mcp, jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        works,
        "the MCP Python SDK is required in {} and was not found; scripts/install-test-deps.sh installs it (.ci/run does)",
        venv.display()
    );
    python
}

/// Runs the scenario script `name` with `args`, in the session's private environment, and
/// returns the JSON object it printed last.
#[track_caller]
fn scenario(s: &Session, name: &str, args: &Value) -> Value {
    let script = repo_root()
        .join("tests")
        .join("mcp")
        .join(format!("{name}.py"));
    let output = Command::new(python())
        .arg(&script)
        .arg(args.to_string())
        .current_dir(&s.cwd)
        .env("DEBUGGER_BIN", bin())
        .env("DEBUGGER_RUNTIME_DIR", s.runtime_dir())
        .env("DEBUGGER_STATE_DIR", s.state_dir())
        .env("DEBUGGER_CONFIG", s.dir.path().join("config.toml"))
        .env("DEBUGGER_LOG", "debug")
        .env_remove("DEBUGGER_SESSION")
        .output()
        .expect("run the scenario's python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "scenario {name} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{name} printed {stdout:?}: {e}"))
}

/// The C program with a breakpoint in `apply`, and what a stop there shows.
fn ledger() -> (PathBuf, String) {
    common::require_lldb_dap();
    (build("c/ledger.c"), at("c/ledger.c", "@apply_body"))
}

#[test]
fn tools_are_listed_with_valid_schemas_and_the_guide_as_instructions() {
    let s = Session::new();
    let guide = s.run(&["guide"]);
    let written = std::fs::read_to_string(repo_root().join("docs").join("agents.md"));
    assert_eq!(
        guide.ok(),
        written.expect("docs/agents.md"),
        "`guide` is the file"
    );
    let json = s.data(&["guide"]);
    assert_eq!(json["guide"].as_str(), Some(guide.ok()));
    let listed = scenario(&s, "tools", &json!({ "guide": guide.ok() }));
    assert!(
        listed["tools"].as_array().is_some_and(|t| t.len() > 20),
        "{listed}"
    );
}

#[test]
fn a_c_session_over_mcp() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    scenario(
        &s,
        "session",
        &json!({
            "program": program, "breakpoint": breakpoint, "function": "apply",
            "line": line_of("c/ledger.c", "@apply_body"), "variable": "acct",
            "expression": "acct->balance", "value": "100", "output": "square: 9",
        }),
    );
}

/// `breakpoint` with action=modify changes a breakpoint set as `start`'s 'LOC if COND' in place,
/// and the next stop honours the new condition; a condition and its removal at once is refused.
#[test]
fn a_breakpoint_is_modified_in_place_over_mcp() {
    let s = Session::new();
    let (program, _) = ledger();
    let answer = scenario(
        &s,
        "modify",
        &json!({
            "program": program, "location": "apply", "variable": "amount",
            "first": 1, "second": 3,
        }),
    );
    assert_eq!(answer["value"], "3", "{answer}");
    let message = answer["refused"].as_str().unwrap_or_default();
    assert!(
        message.contains("'condition'") && message.contains("'no_condition'"),
        "{answer}"
    );
}

/// The `display` tool adds, lists and removes displays; every waiting tool's stop report carries
/// them, with `print` for a one-off, in the CLI's JSON fields.
#[test]
fn displays_and_one_off_prints_over_mcp() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let seen = scenario(
        &s,
        "display",
        &json!({
            "program": program, "breakpoint": breakpoint, "variable": "amount",
            "missing": "total",
        }),
    );
    let unknown = seen["unknown"].as_str().unwrap_or_default();
    assert!(
        unknown.contains("no display 9: the displays are 1, 2"),
        "{seen}"
    );
}

#[test]
fn python_displays_over_mcp() {
    common::require_debugpy();
    let s = Session::new();
    scenario(
        &s,
        "display",
        &json!({
            "program": fixture_path("python/app.py"),
            "breakpoint": at("python/app.py", "@deposit_body"), "variable": "amount",
            "missing": "total",
        }),
    );
}

/// The 2026-07-28 revision (no `initialize`, the version in every request's `_meta`) through the
/// SDK's default client, which probes `server/discover` first; and its errors, written raw.
#[test]
fn the_stateless_revision_is_discovered_and_served() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let seen = scenario(
        &s,
        "stateless",
        &json!({
            "guide": s.run(&["guide"]).ok(), "program": program, "breakpoint": breakpoint,
            "line": line_of("c/ledger.c", "@apply_body"),
        }),
    );
    assert!(
        seen["session"]
            .as_str()
            .is_some_and(|n| n.starts_with("stateless-agent-")),
        "{seen}"
    );
    assert_eq!(seen["raw_answers"], 9, "{seen}");
}

#[test]
fn a_python_session_over_mcp() {
    common::require_debugpy();
    let s = Session::new();
    scenario(
        &s,
        "session",
        &json!({
            "program": fixture_path("python/app.py"), "breakpoint": at("python/app.py", "@deposit_body"),
            "function": "deposit", "line": line_of("python/app.py", "@deposit_body"),
            "variable": "amount", "expression": "amount", "value": "0", "output": "square: 9",
        }),
    );
}

#[test]
fn a_node_session_over_mcp() {
    common::require_node();
    let s = Session::new();
    let app = "javascript/app.js";
    scenario(
        &s,
        "session",
        &json!({
            "program": fixture_path(app), "breakpoint": at(app, "@deposit_body"),
            "function": "deposit", "line": line_of(app, "@deposit_body"),
            "variable": "amount", "expression": "amount", "value": "0",
        }),
    );
}

#[test]
fn a_wait_that_times_out_answers_running_with_progress_and_the_next_stop_is_pushed() {
    common::require_lldb_dap();
    let s = Session::new();
    let seen = scenario(
        &s,
        "timeout",
        &json!({ "program": build("c/spin.c"), "breakpoint": at("c/spin.c", "@tick_body") }),
    );
    assert!(seen["progress"].as_u64().is_some_and(|n| n >= 1), "{seen}");
}

#[test]
fn errors_are_results_with_our_code_and_bad_calls_are_protocol_errors() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let seen = scenario(
        &s,
        "errors",
        &json!({ "program": program, "breakpoint": breakpoint }),
    );
    assert!(
        seen["wrong"].as_str().is_some_and(|m| m.contains("many")),
        "{seen}"
    );
}

#[test]
fn sessions_outlive_the_connection_unless_they_end_with_it() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let owned = format!("{}-owned", s.name);
    let seen = scenario(
        &s,
        "outlive",
        &json!({ "program": program, "breakpoint": breakpoint, "owned": owned }),
    );
    let kept = seen["kept"].as_str().expect("kept session");
    assert_eq!(kept, "outlive-test-1");
    // Read from the CLI: the same session, stopped where the MCP client left it.
    let status = s.data(&["status", "--session", kept]);
    assert_eq!(status["state"], "stopped", "{status}");
    assert_eq!(status["stop"]["frame"]["function"], "apply", "{status}");
    let ended = eventually(Duration::from_secs(30), || {
        s.json(&["status", "--session", &owned])["error"]["code"] == "no_session"
    });
    assert!(
        ended,
        "the end_with_client session ended with its connection"
    );
    s.data(&["stop", "--session", kept]);
    // The connection's claim on its name is gone with it: the next client of that name gets
    // the first number no session holds.
    let claims: Vec<_> = std::fs::read_dir(s.runtime_dir())
        .expect("runtime dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".mcp"))
        .collect();
    assert!(claims.is_empty(), "{claims:?}");
}

/// `end_with_client` holds when the server dies by SIGKILL, which runs none of its own clean-up:
/// the daemon watches a connection the server held, and ends the session (the program with it)
/// when the kernel closes it.
#[test]
fn an_end_with_client_session_ends_when_its_server_is_killed() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let owned = format!("{}-killed", s.name);
    let seen = scenario(
        &s,
        "killed",
        &json!({ "program": program, "breakpoint": breakpoint, "owned": owned }),
    );
    let program_pid = seen["program_pid"].as_u64().expect("the program's pid");
    let ended = eventually(Duration::from_secs(30), || {
        s.json(&["status", "--session", &owned])["error"]["code"] == "no_session"
    });
    assert!(ended, "the session outlived its killed server: {seen}");
    assert!(
        eventually(Duration::from_secs(10), || !common::alive(program_pid)),
        "the program (pid {program_pid}) outlived the session"
    );
}

#[test]
fn two_clients_at_once_get_separate_sessions() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let seen = scenario(
        &s,
        "two_clients",
        &json!({ "program": program, "breakpoint": breakpoint }),
    );
    let listed = seen["listed"]["sessions"].as_array().expect("sessions");
    let names: Vec<&str> = listed
        .iter()
        .filter_map(|s| s["session"].as_str())
        .collect();
    for name in seen["sessions"].as_array().expect("names") {
        assert!(names.contains(&name.as_str().unwrap_or_default()), "{seen}");
    }
}

#[test]
fn a_long_answer_is_cut_to_max_bytes_and_continued_by_offset() {
    let s = Session::new();
    let (program, _) = ledger();
    let seen = scenario(
        &s,
        "budget",
        &json!({ "program": program, "last": "ledger: done" }),
    );
    assert!(seen["parts"].as_u64().is_some_and(|n| n >= 2), "{seen}");
}

#[test]
fn malformed_input_gets_json_rpc_errors_and_the_server_keeps_serving() {
    let s = Session::new();
    scenario(&s, "malformed", &json!({}));
}

#[test]
fn print_config_names_this_binary() {
    let s = Session::new();
    let run = s.run(&["mcp", "--print-config"]);
    let text = run.ok();
    let path = bin().display().to_string();
    assert!(
        text.contains(&format!("claude mcp add debugger -- {path} mcp")),
        "{text}"
    );
    assert!(text.contains(&format!("\"command\": \"{path}\"")), "{text}");
}

/// A daemon stopped with SIGSTOP: MCP's `sessions` lists it as not answering beside one that
/// answers, and MCP's `stop` ends it (both waited on it for good before).
#[cfg(unix)]
#[test]
fn sessions_and_stop_over_mcp_do_not_wait_on_a_daemon_that_does_not_answer() {
    common::require_python();
    let s = Session::new();
    let program = fixture_path("python/app.py");
    let program = program.to_str().expect("utf-8 path");
    let silent = format!("{}-silent", s.name);
    let start = |name: &str| {
        let started = s
            .command()
            .env("DEBUGGER_SESSION", name)
            .args([
                "--json",
                "start",
                program,
                "--adapter",
                "pdb",
                "--stop-on-entry",
            ])
            .output()
            .expect("start");
        assert!(started.status.success(), "{started:?}");
        let status = s
            .command()
            .env("DEBUGGER_SESSION", name)
            .args(["--json", "status"])
            .output()
            .expect("status");
        let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
        status["data"]["daemon_pid"].as_u64().expect("daemon pid")
    };
    let daemon = start(&silent);
    start(&s.name);
    let signal = |which: &str| {
        Command::new("kill")
            .args([which, &daemon.to_string()])
            .status()
            .is_ok_and(|status| status.success())
    };
    assert!(signal("-STOP"), "kill -STOP {daemon}");
    let seen = std::panic::catch_unwind(|| {
        scenario(
            &s,
            "silent_daemon",
            &json!({ "silent": silent, "silent_pid": daemon, "other": s.name }),
        )
    });
    if seen.is_err() {
        // Resumed, so the session's clean-up can end it.
        signal("-CONT");
    }
    let seen = seen.unwrap_or_else(|e| std::panic::resume_unwind(e));
    assert!(
        seen["stopped"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("(pid {daemon})"))),
        "{seen}"
    );
}

/// The probe tool's `prints` and `evaluate` take '@FRAME:EXPR' as the CLI does, and a name the
/// frame lacks is found in its caller, with the form each front door takes.
#[test]
fn a_callers_frame_is_read_over_mcp_as_on_the_command_line() {
    let s = Session::new();
    let (program, breakpoint) = ledger();
    let seen = scenario(
        &s,
        "caller_frames",
        &json!({ "program": program, "breakpoint": breakpoint }),
    );
    assert_eq!(seen["caller"], json!([["0", "0"], ["1", "1"]]), "{seen}");
    assert_eq!(
        seen["missing"],
        "i is not a variable of apply (frame 0); main (frame 1) has one: --print '@main:i'",
        "{seen}"
    );
    assert_eq!(seen["printed"], "0", "{seen}");
    assert_eq!(
        seen["print_error"],
        "i is not a variable of apply (frame 0); main (frame 1) has one: debugger print '@main:i'",
        "{seen}"
    );
}
