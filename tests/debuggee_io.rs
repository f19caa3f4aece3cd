//! The program's standard streams, as a CI script would give them: stdout and stderr two pipes
//! (no terminal) unless `--tty` asks for one, each stream's bytes kept apart and tagged in
//! `output`, lines of the two never spliced, and stdin empty unless `--stdin FILE` feeds it. On
//! lldb-dap and GDB, whose program the daemon's own channels serve; debugpy, Node and Delve run
//! the program with pipes of their own, and their streams are tagged the same way.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{
    Session, build, build_go, fixture_path, require_debugpy, require_delve, require_lldb_dap,
    require_node,
};
use serde_json::Value;

const STREAMS: &str = "c/streams.c";
const WAIT: Duration = Duration::from_secs(60);

/// The adapters the daemon's own channels serve, each with the session to use it in.
fn native_sessions() -> Vec<(&'static str, Session)> {
    require_lldb_dap();
    let gdb_session = Session::with_gdb();
    vec![("lldb", Session::new()), ("gdb", gdb_session)]
}

/// Runs `streams MODE` under `adapter` with `extra` start flags to its end, and returns the
/// `output --json` data.
#[track_caller]
fn run_to_end(s: &Session, adapter: &str, mode: &str, extra: &[&str]) -> Value {
    let program = build(STREAMS);
    let mut args = vec!["--adapter", adapter];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", mode]);
    s.start(&program, &args);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["reason"], "exited", "{adapter}: {end}\n{}", s.log());
    s.data(&["output"])
}

/// The text of every segment of `stream` in an `output --json` answer, joined.
fn stream_text(output: &Value, stream: &str) -> String {
    output["segments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["stream"] == stream)
        .filter_map(|s| s["text"].as_str())
        .collect()
}

#[test]
fn stdout_and_stderr_are_pipes_unless_tty_is_asked() {
    for (adapter, s) in native_sessions() {
        let output = run_to_end(&s, adapter, "tty", &[]);
        assert_eq!(
            stream_text(&output, "stdout"),
            "isatty: in=0 out=0 err=0\n",
            "{adapter}: {output}"
        );
        s.run(&["stop"]);
        let output = run_to_end(&s, adapter, "tty", &["--tty"]);
        assert_eq!(
            stream_text(&output, "stdout"),
            "isatty: in=0 out=1 err=1\n",
            "{adapter}: {output}"
        );
        assert!(
            !output["text"].as_str().unwrap_or("").contains('\r'),
            "{adapter}: the terminal's \\r\\n reached the output: {output}"
        );
        s.run(&["stop"]);
    }
}

#[test]
fn partial_writes_on_both_streams_come_back_apart_and_tagged() {
    for (adapter, s) in native_sessions() {
        let output = run_to_end(&s, adapter, "interleave", &[]);
        assert_eq!(
            stream_text(&output, "stdout"),
            "partial rest\nout two\n",
            "{adapter}: {output}"
        );
        assert_eq!(
            stream_text(&output, "stderr"),
            "ERR one\nERR two",
            "{adapter}: {output}"
        );
        let text = s.run(&["output"]).ok().to_string();
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines {
            assert!(
                !(line.contains("ERR") && (line.contains("partial") || line.contains("out two"))),
                "{adapter}: a line of both streams: {line:?} in {text:?}"
            );
        }
        assert!(lines.contains(&"[stderr] ERR one"), "{adapter}: {text:?}");
        assert!(lines.contains(&"[stderr] ERR two"), "{adapter}: {text:?}");
        // The program left its last line unfinished: the text ends it, for the shell's sake
        // (the JSON above keeps the bytes as written).
        assert!(text.ends_with("ERR two\n"), "{adapter}: {text:?}");
        s.run(&["stop"]);
    }
}

#[test]
fn a_megabyte_line_without_a_newline_leaves_the_stderr_line_whole() {
    for (adapter, s) in native_sessions() {
        let output = run_to_end(&s, adapter, "bigline", &[]);
        let stdout = stream_text(&output, "stdout");
        assert_eq!(stdout.len(), 1 << 20, "{adapter}");
        assert!(stdout.bytes().all(|b| b == b'x'), "{adapter}");
        assert_eq!(
            stream_text(&output, "stderr"),
            "after the big line\n",
            "{adapter}"
        );
        let text = s.run(&["output"]).ok().to_string();
        assert!(
            text.lines().any(|l| l == "[stderr] after the big line"),
            "{adapter}: the stderr line is not on a line of its own"
        );
        s.run(&["stop"]);
    }
}

#[test]
fn stdin_is_empty_unless_a_file_is_given() {
    for (adapter, s) in native_sessions() {
        let output = run_to_end(&s, adapter, "stdin", &[]);
        assert_eq!(
            stream_text(&output, "stdout"),
            "stdin: (eof)\n",
            "{adapter}: {output}"
        );
        s.run(&["stop"]);
        let input = s.cwd.join("input.txt");
        std::fs::write(&input, "hello from a file\nsecond line\n").expect("write input");
        let output = run_to_end(&s, adapter, "stdin", &["--stdin", "input.txt"]);
        assert_eq!(
            stream_text(&output, "stdout"),
            "stdin: hello from a file\n",
            "{adapter}: {output}"
        );
        s.run(&["stop"]);
    }
}

#[test]
fn tty_and_stdin_are_refused_where_the_adapter_cannot_be_told() {
    // An adapter from the config is a DAP server we know nothing of: it cannot be told.
    require_lldb_dap();
    let lldb = debugger::adapters::lldb::find_on_system().expect("lldb-dap");
    let s = Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.mine]\ncommand = {:?}\n",
        lldb.display().to_string()
    ));
    let program = build(STREAMS);
    let failure = s
        .run(&[
            "--json",
            "start",
            program.to_str().expect("path"),
            "--adapter",
            "mine",
            "--tty",
        ])
        .failure();
    assert_eq!(failure["code"], "usage", "{failure}");
    assert!(
        failure["message"]
            .as_str()
            .is_some_and(|m| m.contains("--tty and --stdin are not supported with mine")),
        "{failure}"
    );
}

/// The programs debugpy, Node and Delve run, each the same `streams` fixture in its language.
fn other_adapters() -> Vec<(&'static str, std::path::PathBuf)> {
    require_debugpy();
    require_node();
    require_delve();
    vec![
        ("debugpy", fixture_path("python/streams.py")),
        ("node", fixture_path("javascript/streams.js")),
        ("delve", build_go("go/streams/main.go")),
    ]
}

/// Runs `program MODE` with `extra` start flags to its end and returns its stdout.
#[track_caller]
fn stdout_of(s: &Session, adapter: &str, program: &Path, mode: &str, extra: &[&str]) -> String {
    let mut args = extra.to_vec();
    args.extend_from_slice(&["--", mode]);
    s.start(program, &args);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["reason"], "exited", "{adapter}: {end}\n{}", s.log());
    let needle = if mode == "tty" { "isatty:" } else { "stdin:" };
    s.output_containing(&[needle], WAIT);
    let output = s.data(&["output"]);
    s.run(&["stop"]);
    stream_text(&output, "stdout")
}

#[test]
fn debugpy_node_and_delve_take_tty_and_stdin_too() {
    for (adapter, program) in other_adapters() {
        let s = Session::new();
        let input = s.cwd.join("input.txt");
        std::fs::write(&input, "hello from a file\nsecond line\n").expect("write input");
        assert_eq!(
            stdout_of(&s, adapter, &program, "stdin", &[]),
            "stdin: (eof)\n",
            "{adapter}"
        );
        assert_eq!(
            stdout_of(&s, adapter, &program, "stdin", &["--stdin", "input.txt"]),
            "stdin: hello from a file\n",
            "{adapter}"
        );
        assert_eq!(
            stdout_of(&s, adapter, &program, "tty", &[]),
            "isatty: in=0 out=0 err=0\n",
            "{adapter}"
        );
        // Node's stderr carries its inspector's greeting, so only stdout is the terminal.
        let with_tty = if adapter == "node" {
            "isatty: in=0 out=1 err=0\n"
        } else {
            "isatty: in=0 out=1 err=1\n"
        };
        assert_eq!(
            stdout_of(&s, adapter, &program, "tty", &["--tty"]),
            with_tty,
            "{adapter}"
        );
    }
}

/// Starts `program` (run by its own adapter), waits for its end, and returns the streams it
/// wrote on, in the order they came.
#[track_caller]
fn streams_of(s: &Session, program: &Path, needles: &[&str]) -> Value {
    s.start(program, &[]);
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["reason"], "exited", "{end}\n{}", s.log());
    s.output_containing(needles, WAIT);
    s.data(&["output"])
}

#[test]
fn debugpy_node_and_delve_tag_their_streams_too() {
    require_debugpy();
    let s = Session::new();
    let output = streams_of(&s, &fixture_path("python/app.py"), &["app: done"]);
    assert_eq!(stream_text(&output, "stderr"), "app: done\n", "{output}");
    assert!(!stream_text(&output, "stdout").contains("app: done"));
    drop(s);

    require_node();
    let s = Session::new();
    let script = s.cwd.join("streams.js");
    std::fs::write(
        &script,
        "process.stdout.write('to out\\n');\nprocess.stderr.write('to err\\n');\n",
    )
    .expect("write script");
    let output = streams_of(&s, &script, &["to out", "to err"]);
    assert_eq!(stream_text(&output, "stdout"), "to out\n", "{output}");
    assert_eq!(stream_text(&output, "stderr"), "to err\n", "{output}");
    drop(s);

    require_delve();
    let s = Session::new();
    let output = streams_of(&s, &build_go("go/ledger/main.go"), &["ledger: done"]);
    assert_eq!(stream_text(&output, "stderr"), "ledger: done\n", "{output}");
    assert!(
        stream_text(&output, "stdout").contains("total: 10"),
        "{output}"
    );
}
