//! Our own Python adapter (`pdb`: a DAP server inside the program's interpreter, on bdb) in a
//! session, beyond the conformance suite's scenario (tests/conformance.rs): a breakpoint in a
//! worker thread, an uncaught exception, `pause` in a busy loop, output the program had not flushed,
//! breakpoints on lines without code, a function breakpoint by a bare name (the program's own
//! definition, never the library's), and `attach`, which it cannot do.
//!
//! It needs only Python 3 (no debugpy): every test fails when `python3` is missing.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{Session, assert_stop_at, at, fixture_path, line_of, require_python};
use serde_json::{Value, json};

const RAISES: &str = "python/raises.py";
const THREADS: &str = "python/threads.py";

/// Writes a Python program into the session's own folder.
fn program(s: &Session, name: &str, source: &str) -> PathBuf {
    let path = s.cwd.join(name);
    std::fs::write(&path, source).expect("write the program");
    path
}

#[test]
fn a_breakpoint_in_a_worker_thread_stops_that_thread() {
    require_python();
    let s = Session::new();
    s.start_on(
        "pdb",
        &fixture_path(THREADS),
        &["-b", &at(THREADS, "@worker_body")],
    );
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let name = stop["thread_name"].as_str().unwrap_or("");
    assert!(name.starts_with("worker-"), "{stop}");
    assert_stop_at(&stop, THREADS, "worker", "@worker_body");
    let threads = s.data(&["threads"]);
    let names: Vec<&str> = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"MainThread") && names.contains(&name),
        "{threads}"
    );
    // The main thread runs on (waiting for the workers): its frame is its own, not the worker's.
    let main = threads["threads"]
        .as_array()
        .and_then(|all| all.iter().find(|t| t["name"] == "MainThread"))
        .expect("the main thread");
    assert_ne!(main["frame"]["function"], "worker", "{threads}");
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.stop_after("continue");
    assert_eq!(end["exit_code"], 0, "{end}");
    let output = s.output_containing(&["threads: done\n"], Duration::from_secs(30));
    assert!(output.contains("worker-2 result=20\n"), "{output}");
}

#[test]
fn an_uncaught_exception_stops_where_it_was_raised_and_prints_only_the_programs_traceback() {
    require_python();
    let s = Session::new();
    s.start_on("pdb", &fixture_path(RAISES), &[]);
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_eq!(stop["exception"]["type"], "ZeroDivisionError", "{stop}");
    assert_stop_at(&stop, RAISES, "ratio", "@divide");
    assert_eq!(s.value_of("b"), "0");
    let end = s.stop_after("continue");
    assert_eq!(end["exit_code"], 1, "{end}");
    let output = s.output_containing(&["ZeroDivisionError"], Duration::from_secs(30));
    assert!(
        output.contains("Traceback (most recent call last):"),
        "{output}"
    );
    assert!(output.contains("in ratio"), "{output}");
    assert!(
        !output.contains("debugger adapter") && !output.contains("bdb.py"),
        "the adapter's own frames are not the program's: {output}"
    );
}

#[test]
fn pause_stops_a_busy_loop_and_it_runs_on_after() {
    require_python();
    let s = Session::new();
    let spin = program(
        &s,
        "spin.py",
        "import sys\nn = 0\nwhile n >= 0:\n    n += 1  # @spin\n    if n > 10**12:\n        sys.exit(0)\n",
    );
    s.start_on("pdb", &spin, &[]);
    s.data(&["continue"]);
    let stop = s.stop_after("pause");
    assert_eq!(stop["reason"], "pause", "{stop}");
    let first: u64 = s.value_of("n").parse().expect("a count");
    s.data(&["continue"]);
    let stop = s.stop_after("pause");
    assert_eq!(stop["reason"], "pause", "{stop}");
    let second: u64 = s.value_of("n").parse().expect("a count");
    assert!(second > first, "the loop ran on: {first} then {second}");
    s.data(&["stop"]);
}

#[test]
fn output_the_program_had_not_flushed_is_there_at_a_stop_and_stdin_comes_from_the_file() {
    require_python();
    let s = Session::new();
    let reader = program(
        &s,
        "reader.py",
        "import sys\nprint('got', sys.stdin.read().strip())\nprint('to stderr', file=sys.stderr)\nx = 1  # @after\n",
    );
    let input = s.cwd.join("input.txt");
    std::fs::write(&input, "hello\n").expect("write stdin");
    let location = format!("{}:4", reader.display());
    s.start_on(
        "pdb",
        &reader,
        &["-b", &location, "--stdin", input.to_str().expect("utf-8")],
    );
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let output = s.output_containing(&["to stderr"], Duration::from_secs(10));
    assert!(output.contains("got hello\n"), "{output}");
}

#[test]
fn lines_without_code_move_to_the_next_line_with_some_and_after_the_last_are_refused() {
    require_python();
    let s = Session::new();
    let source = "\"\"\"A docstring.\"\"\"\n\nimport sys  # line 3\nx = 1\n# the end\n# really\n";
    let tail = program(&s, "tail.py", source);
    let line = |n: u32| format!("{}:{n}", tail.display());
    // Line 2 is blank: the breakpoint moves to line 3; line 6 is a comment after the last code.
    let started = s.start_on("pdb", &tail, &["-b", &line(2), "-b", &line(6)]);
    let breakpoints = started["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(breakpoints[0]["verified"], true, "{started}");
    assert_eq!(breakpoints[0]["resolved_line"], 3, "{started}");
    assert_eq!(breakpoints[1]["verified"], false, "{started}");
    assert!(
        breakpoints[1]["message"]
            .as_str()
            .is_some_and(|m| m.contains("line 6 of tail.py holds no code")),
        "{started}"
    );
    let stop = s.stop_after("continue");
    assert_eq!(stop["frame"]["line"], 3, "{stop}");
    // At module level the frame's locals are the module's names, less Python's own dunders.
    let locals = s.run(&["locals"]);
    let text = locals.ok();
    assert!(
        !text.contains("__name__") && !text.contains("__builtins__"),
        "{text}"
    );
}

#[test]
fn attach_is_refused_with_the_adapter_that_can() {
    require_python();
    let s = Session::new();
    let error = s
        .run(&["--json", "attach", "1", "--adapter", "pdb"])
        .failure();
    let message = format!("{} {}", error["message"], error["hint"]);
    assert!(message.contains("debugpy"), "{error}");
}

#[cfg(unix)]
#[test]
fn a_forked_child_runs_undebugged_and_the_parent_stops() {
    require_python();
    let s = Session::new();
    let source = "import os\n\ndef work(who):\n    return who\n\npid = os.fork()\nif pid == 0:\n    work('child')\n    os._exit(0)\nos.waitpid(pid, 0)\nwork('parent')\n";
    let forks = program(&s, "forks.py", source);
    s.start_on("pdb", &forks, &["-b", &format!("{}:4", forks.display())]);
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(s.value_of("who"), "'parent'");
    let end = s.stop_after("continue");
    assert_eq!(end["exit_code"], 0, "{end}");
}

#[test]
fn finish_and_next_return_through_frames_that_had_no_breakpoint() {
    require_python();
    let s = Session::new();
    let source = "def inner(x):\n    return x * 2\n\ndef render(v):\n    r = inner(v)\n    return r\n\ndef main():\n    for i in range(3):\n        out = render(i)\n        print(out)\n\nmain()\n";
    let nested = program(&s, "nested.py", source);
    s.start_on("pdb", &nested, &["-b", &format!("{}:2", nested.display())]);
    let stop = s.stop_after("continue");
    assert_eq!(stop["frame"]["function"], "inner", "{stop}");
    let stop = s.stop_after("finish");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("render"), &json!(5)),
        "{stop}"
    );
    // `render` was entered untraced (no breakpoint in it): its return still stops in `main`.
    let stop = s.stop_after("finish");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("main"), &json!(10)),
        "{stop}"
    );
    let stop = s.stop_after("next");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("main"), &json!(11)),
        "{stop}"
    );
}

#[test]
fn os_exit_is_the_programs_exit_and_a_threads_uncaught_exception_stops_it() {
    require_python();
    let s = Session::new();
    let quits = program(
        &s,
        "quits.py",
        "import os\nprint('bye', flush=True)\nos._exit(7)\n",
    );
    s.start_on("pdb", &quits, &[]);
    let end = s.stop_after("continue");
    assert_eq!(
        (&end["reason"], &end["exit_code"]),
        (&json!("exited"), &json!(7)),
        "{end}"
    );
    s.data(&["stop"]);

    let source = "import threading\ndef bad():\n    d = {}\n    return d['missing']\nt = threading.Thread(target=bad, name='crasher')\nt.start()\nt.join()\nprint('threads seen', threading.active_count())\n";
    let crashes = program(&s, "crashes.py", source);
    s.start_on("pdb", &crashes, &[]);
    let stop = s.stop_after("continue");
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_eq!(stop["thread_name"], "crasher", "{stop}");
    assert_eq!(stop["exception"]["type"], "KeyError", "{stop}");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("bad"), &json!(4)),
        "{stop}"
    );
    // A bad expression says what Python says of it.
    let error = s.run(&["--json", "print", "d["]).failure();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("SyntaxError: '[' was never closed")),
        "{error}"
    );
    let end = s.stop_after("continue");
    assert_eq!(end["exit_code"], 0, "{end}");
    // The adapter's own thread is not among the program's.
    let output = s.output_containing(&["threads seen"], Duration::from_secs(30));
    assert!(output.contains("threads seen 1\n"), "{output}");
}

#[test]
fn an_uncaught_exception_in_a_library_stops_in_the_users_frame_that_called_it() {
    require_python();
    let s = Session::new();
    let source = "import json\ndef load(text):\n    return json.loads(text)\nload('{nope')\n";
    let boom = program(&s, "boom.py", source);
    // probe --on-crash picks the pdb adapter for Python, as probe does.
    let report = s.data(&[
        "probe",
        boom.to_str().expect("utf-8"),
        "--on-crash",
        "-p",
        "text",
    ]);
    assert_eq!(report["adapter"], "pdb", "{report}");
    let text = serde_json::to_string(&report).unwrap_or_default();
    assert!(
        text.contains("'{nope'"),
        "the user's frame, where text is: {report}"
    );
    assert!(text.contains("\"function\":\"load\""), "{report}");
}

#[test]
fn a_function_breakpoint_on_a_generator_or_coroutine_stops_once_per_call_not_per_resumption() {
    require_python();
    let s = Session::new();
    let generators = fixture_path("python/generators.py");
    let report = s.data(&[
        "probe",
        generators.to_str().expect("utf-8"),
        "--break",
        "produce",
        "--break",
        "fetch",
        "--hits",
        "10",
    ]);
    assert_eq!(report["adapter"], "pdb", "{report}");
    let stops: Vec<(String, u64)> = report["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| {
            let frame = &hit["stop"]["frame"];
            (
                frame["function"].as_str().unwrap_or("").to_string(),
                frame["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let fixture = "python/generators.py";
    assert_eq!(
        stops,
        vec![
            (
                "produce".to_string(),
                u64::from(line_of(fixture, "@produce_body"))
            ),
            (
                "fetch".to_string(),
                u64::from(line_of(fixture, "@fetch_body"))
            ),
        ],
        "{report}"
    );
}

#[test]
fn next_at_a_return_stops_in_the_caller_even_mid_line_and_out_of_a_coroutine() {
    require_python();
    let s = Session::new();
    let source = "def b(x):\n    y = x + 1\n    return y\n\ndef a(x):\n    return b(x) * 2\n\ndef main():\n    v = a(3)\n    print(v)\n\nmain()\n";
    let tail = program(&s, "tail.py", source);
    s.start_on("pdb", &tail, &["-b", &format!("{}:3", tail.display())]);
    s.stop_after("continue");
    // `a` calls on its last line: bdb alone would pass it by and stop in `main`.
    let stop = s.stop_after("next");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("a"), &json!(6)),
        "{stop}"
    );
    let stop = s.stop_after("next");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("main"), &json!(9)),
        "{stop}"
    );
    s.data(&["stop"]);

    let source = "import asyncio\nasync def leaf(n):\n    v = n * 2\n    return v\nasync def main():\n    a = await leaf(1)\n    print(a)\nasyncio.run(main())\n";
    let coroutines = program(&s, "coroutines.py", source);
    s.start_on(
        "pdb",
        &coroutines,
        &["-b", &format!("{}:4", coroutines.display())],
    );
    s.stop_after("continue");
    let stop = s.stop_after("next");
    assert_eq!(
        (&stop["frame"]["function"], &stop["frame"]["line"]),
        (&json!("main"), &json!(6)),
        "{stop}"
    );
    let stop = s.stop_after("next");
    assert_eq!(stop["frame"]["line"], 7, "{stop}");
}

#[test]
fn set_reaches_outer_frames_and_elements_and_pause_stops_a_busy_worker() {
    require_python();
    let s = Session::new();
    let source = "def f(a):\n    b = a * 2\n    return b\n\ndef main():\n    x = 10\n    d = {'k': 1}\n    items = [1, 2]\n    r = f(x)\n    print('seen', x, d['k'], items[0], flush=True)\n\nmain()\n";
    let sets = program(&s, "sets.py", source);
    s.start_on("pdb", &sets, &["-b", &format!("{}:2", sets.display())]);
    s.stop_after("continue");
    s.data(&["up"]);
    s.data(&["set", "x", "50"]);
    s.data(&["set", "d[\"k\"]", "5"]);
    s.data(&["set", "items[0]", "7"]);
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.stop_after("continue");
    assert_eq!(end["exit_code"], 0, "{end}");
    let output = s.output_containing(&["seen"], Duration::from_secs(30));
    assert!(output.contains("seen 50 5 7\n"), "{output}");
    s.data(&["stop"]);

    let source = "import threading\nstop = False\ndef spin():\n    c = 0\n    while not stop:\n        c += 1\nt = threading.Thread(target=spin, name='spinner')\nt.start()\nt.join()\n";
    let busy = program(&s, "busy.py", source);
    s.start_on("pdb", &busy, &[]);
    s.data(&["continue"]);
    // The main thread waits in `join` (in C): the worker, running Python, takes the pause.
    let stop = s.stop_after("pause");
    assert_eq!(stop["reason"], "pause", "{stop}");
    assert_eq!(stop["thread_name"], "spinner", "{stop}");
    // The main thread's stack is its own, without the adapter's or bdb's frames.
    let main = s.data(&["backtrace", "--thread", "1"]);
    let text = main.to_string();
    assert!(
        !text.contains("bdb.py") && !text.contains("dispatch"),
        "{main}"
    );
    s.data(&["stop"]);
}

#[test]
fn modules_in_the_working_folder_do_not_stand_in_for_the_adapters_own() {
    require_python();
    let s = Session::new();
    // `python prog.py` never imports the working folder's queue.py; neither may the adapter.
    let folder = s.cwd.join("elsewhere");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(
        folder.join("queue.py"),
        "raise SystemExit('the wrong queue')\n",
    )
    .expect("write queue.py");
    let prog = program(
        &s,
        "uses_queue.py",
        "import queue\nq = queue.Queue()\nq.put(1)\nprint('got', q.get())\n",
    );
    let report = s.data(&[
        "probe",
        prog.to_str().expect("utf-8"),
        "--cwd",
        folder.to_str().expect("utf-8"),
        "--break",
        &format!("{}:4", prog.display()),
        "--print",
        "q.qsize()",
    ]);
    assert_eq!(report["hits"][0]["prints"][0]["value"], "1", "{report}");
}

/// The (function, line) of each hit of a `--json probe` report's data.
fn hit_frames(data: &Value) -> Vec<(String, u64)> {
    data["hits"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .map(|hit| {
                    let frame = &hit["stop"]["frame"];
                    (
                        frame["function"].as_str().unwrap_or("").to_string(),
                        frame["line"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A bare `parent` must not stop in importlib's `ModuleSpec.parent`, which every import runs
/// (it did: every hit went there), nor in a neighbour module's `parent` when the program
/// defines its own; a library function is named with its module, or found with
/// `--no-just-my-code`, as debugpy's are.
#[test]
fn a_function_breakpoint_by_a_bare_name_stops_in_the_programs_own_definitions_only() {
    require_python();
    let s = Session::new();
    program(
        &s,
        "kin.py",
        "def parent():\n    return 'kin'\n\ndef cousin():\n    return 'cousin'\n",
    );
    let family = program(
        &s,
        "family.py",
        "import json\n\
         import kin\n\
         \n\
         def parent():\n\
         \x20   return kin.parent() + kin.cousin() + json.loads('\"!\"')\n\
         \n\
         class Tree:\n\
         \x20   def parent(self):\n\
         \x20       import fractions\n\
         \x20       return parent()\n\
         \n\
         print(Tree().parent())\n",
    );
    let family = family.to_str().expect("utf-8");
    let probe = |args: &[&str]| {
        let mut all = vec!["--json", "probe", family];
        all.extend_from_slice(args);
        s.run(&all).json()
    };

    let report = probe(&["--break", "parent", "--hits", "10"]);
    let data = &report["data"];
    assert_eq!(data["adapter"], "pdb", "{report}");
    assert_eq!(
        hit_frames(data),
        vec![("Tree.parent".to_string(), 9), ("parent".to_string(), 5)],
        "{report}"
    );
    assert_eq!(data["breakpoints"][0]["resolved_line"], 5, "{report}");

    // Defined only in a neighbour module: the program's own code all the same.
    let report = probe(&["--break", "cousin"]);
    assert_eq!(
        hit_frames(&report["data"]),
        vec![("cousin".to_string(), 5)],
        "{report}"
    );

    // A library function: not by its bare name under justMyCode, which the answer says...
    let report = probe(&["--break", "loads"]);
    assert_eq!(hit_frames(&report["data"]), vec![], "{report}");
    let message = report["data"]["breakpoints"][0]["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        message.contains("json.loads") && message.contains("--no-just-my-code"),
        "{report}"
    );
    // ...but by its module, or with --no-just-my-code.
    for args in [
        &["--break", "json.loads"][..],
        &["--break", "loads", "--no-just-my-code"][..],
    ] {
        let report = probe(args);
        let hits = hit_frames(&report["data"]);
        assert_eq!(hits.len(), 1, "{args:?}: {report}");
        assert_eq!(hits[0].0, "loads", "{args:?}: {report}");
        let file = report["data"]["hits"][0]["stop"]["frame"]["file"]
            .as_str()
            .unwrap_or("");
        assert!(file.ends_with("json/__init__.py"), "{args:?}: {report}");
    }
}
