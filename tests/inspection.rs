//! Inspection commands against real lldb-dap: `locals`, `print`/`p`, `eval`, `backtrace`/`bt`,
//! `threads`, `thread`, `frame`/`up`/`down` and `context`/`where`, on the C, C++ and Rust
//! fixtures.

mod common;

use std::time::{Duration, Instant};

use common::{Session, at, build, line_of, require_lldb_dap, selected_threads};
use serde_json::Value;

/// How long a bounded answer about a huge value may take: lldb-dap itself needs well under a
/// second; fetching every element of big.c's array takes several.
const FEW_SECONDS: Duration = Duration::from_secs(3);

/// Starts `fixture` with a breakpoint on `marker`, runs to it and returns the stop report.
fn stopped_at(s: &Session, fixture: &str, marker: &str) -> Value {
    let program = build(fixture);
    s.start(&program, &["--break", &at(fixture, marker)]);
    let result = s.data(&["continue", "--wait", "--timeout", "60"]);
    let stop = result["stop"].clone();
    assert_eq!(stop["reason"], "breakpoint", "{result}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{result}");
    stop
}

/// The variable called `name` in a list of variable nodes.
fn var<'a>(vars: &'a Value, name: &str) -> &'a Value {
    vars.as_array()
        .expect("a variable list")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variable {name} in {vars}"))
}

fn names(vars: &Value) -> Vec<String> {
    vars.as_array()
        .expect("a variable list")
        .iter()
        .filter_map(|v| v["name"].as_str().map(str::to_string))
        .collect()
}

fn local_names(s: &Session) -> Vec<String> {
    names(&s.data(&["locals"])["variables"])
}

#[test]
fn locals_show_names_values_types_and_struct_children() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");

    let locals = s.data(&["locals"]);
    let vars = &locals["variables"];
    let amount = var(vars, "amount");
    assert_eq!(amount["value"], "0", "{locals}");
    assert_eq!(amount["type"], "long", "{locals}");
    let acct = var(vars, "acct");
    assert!(
        acct["type"].as_str().unwrap_or("").contains("account *"),
        "{acct}"
    );
    // The default depth (1) expands the struct behind the pointer.
    let children = &acct["children"];
    assert_eq!(names(children), ["id", "balance", "owner"], "{acct}");
    assert_eq!(var(children, "id")["value"], "7");
    assert_eq!(var(children, "balance")["value"], "100");
    assert!(
        var(children, "owner")["value"]
            .as_str()
            .unwrap_or("")
            .contains("\"alice\""),
        "{acct}"
    );
    assert!(names(vars).contains(&"before".to_string()), "{locals}");

    // --depth 0: the same variables, nothing expanded, but marked as expandable.
    let shallow = s.data(&["locals", "--depth", "0"]);
    let acct = var(&shallow["variables"], "acct");
    assert_eq!(acct["children"], Value::Array(vec![]), "{shallow}");
    assert_eq!(acct["expandable"], true, "{shallow}");

    // Text: one `name (type) = value` line per variable, short structs inline.
    let text = s.run(&["locals"]);
    let out = text.ok();
    assert!(out.contains("amount (long) = 0"), "{out}");
    let acct_line = out
        .lines()
        .find(|l| l.starts_with("acct"))
        .unwrap_or_else(|| panic!("no acct line in {out}"));
    assert!(
        acct_line.contains("id = 7") && acct_line.contains("balance = 100"),
        "{out}"
    );
    let shallow_text = s.run(&["locals", "--depth", "0"]);
    assert!(
        !shallow_text.ok().contains("balance = 100"),
        "{shallow_text:?}"
    );
}

#[test]
fn locals_cap_a_huge_array_and_a_huge_string() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/big.c", "@big_ready");

    let began = Instant::now();
    let locals = s.data(&["locals"]);
    let took = began.elapsed();
    let big = var(&locals["variables"], "big");
    let shown = big["children"].as_array().expect("children").len() as u64;
    let omitted = big["omitted_children"].as_u64().expect("omitted_children");
    assert!(shown > 0 && shown <= 100, "{shown} children shown");
    assert_eq!(
        shown + omitted,
        100_000,
        "every element is shown or counted"
    );
    // The first elements, in order: big[i] == i.
    for (i, child) in big["children"]
        .as_array()
        .expect("children")
        .iter()
        .enumerate()
    {
        assert_eq!(child["name"], format!("[{i}]"), "{child}");
        assert_eq!(child["value"], i.to_string(), "{child}");
    }

    // The 10 MiB string is cut to a readable size.
    let huge = var(&locals["variables"], "huge");
    let value = huge["value"].as_str().expect("value");
    assert!(value.contains("xxxx"), "{value}");
    assert!(
        value.len() < 64 * 1024,
        "huge value is {} bytes",
        value.len()
    );
    assert!(took < FEW_SECONDS, "locals took {took:?} on big.c");

    let text = s.run(&["locals"]);
    let out = text.ok();
    assert!(
        out.contains(&format!("{omitted} more not shown")),
        "{out:.2000}"
    );
    assert!(out.len() < 64 * 1024, "locals printed {} bytes", out.len());
}

#[test]
fn print_of_a_huge_array_is_capped_and_quick() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/big.c", "@big_ready");

    let began = Instant::now();
    let printed = s.data(&["print", "big"]);
    let took = began.elapsed();
    let shown = printed["children"].as_array().expect("children").len() as u64;
    assert!(shown > 0 && shown <= 100, "{shown} children shown");
    assert_eq!(
        shown + printed["omitted_children"].as_u64().unwrap_or(0),
        100_000,
        "every element is shown or counted"
    );
    assert!(took < FEW_SECONDS, "print big took {took:?}");

    let huge = s.data(&["print", "huge"]);
    let value = huge["value"].as_str().expect("value");
    assert!(
        value.contains("xxxx") && value.len() < 64 * 1024,
        "{value:.200}"
    );
}

#[test]
fn print_and_eval_show_values_types_and_children() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");

    let sum = s.data(&["print", "acct->balance + 1"]);
    assert_eq!(sum["value"], "101", "{sum}");
    assert_eq!(sum["type"], "long", "{sum}");
    assert_eq!(sum["expression"], "acct->balance + 1");

    // Words after `print` are one expression; `p` is the alias.
    let joined = s.data(&["p", "acct->balance", "*", "2"]);
    assert_eq!(joined["value"], "200", "{joined}");

    let deref = s.data(&["p", "*acct"]);
    assert_eq!(
        names(&deref["children"]),
        ["id", "balance", "owner"],
        "{deref}"
    );
    assert_eq!(var(&deref["children"], "balance")["value"], "100");

    let text = s.run(&["print", "acct->balance + 1"]);
    assert_eq!(text.ok().trim(), "acct->balance + 1 (long) = 101");

    // eval prints the value and nothing else, for scripts.
    let eval = s.run(&["eval", "acct->balance"]);
    assert_eq!(eval.ok(), "100\n");
    assert_eq!(s.data(&["eval", "acct->id"])["value"], "7");
}

#[test]
fn print_of_an_unknown_name_fails_with_the_compiler_message_and_a_hint() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");

    let run = s.run(&["print", "nosuch"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .contains("error: use of undeclared identifier 'nosuch'"),
        "{run:?}"
    );
    assert!(run.stderr.contains("hint: "), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");

    let json = s.run(&["--json", "p", "nosuch"]);
    assert_eq!(json.code, 1);
    let value = json.json();
    assert_eq!(value["ok"], false);
    let message = value["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("undeclared identifier 'nosuch'"),
        "{value}"
    );
    assert!(
        !value["error"]["hint"].as_str().unwrap_or("").is_empty(),
        "{value}"
    );

    // The session is still usable afterwards.
    assert_eq!(s.data(&["eval", "amount"])["value"], "0");
}

#[test]
fn backtrace_lists_frames_innermost_first_with_a_limit() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");

    let bt = s.data(&["backtrace"]);
    let frames = bt["frames"].as_array().expect("frames");
    assert!(frames.len() >= 2, "{bt}");
    assert_eq!(frames[0]["function"], "apply");
    assert_eq!(frames[0]["line"], line_of("c/ledger.c", "@apply_body"));
    assert!(
        frames[0]["file"]
            .as_str()
            .unwrap_or("")
            .ends_with("ledger.c"),
        "{bt}"
    );
    assert_eq!(frames[1]["function"], "main");
    assert_eq!(frames[1]["line"], line_of("c/ledger.c", "@loop_call"));
    assert_eq!(bt["selected_frame"], 0);

    let one = s.data(&["bt", "--limit", "1"]);
    assert_eq!(one["frames"].as_array().map(Vec::len), Some(1), "{one}");
    assert_eq!(one["frames"][0]["function"], "apply");

    let text = s.run(&["bt"]);
    let out = text.ok();
    let apply_line = line_of("c/ledger.c", "@apply_body");
    let main_line = line_of("c/ledger.c", "@loop_call");
    assert!(
        out.contains(&format!("apply (ledger.c:{apply_line})")),
        "{out}"
    );
    assert!(
        out.contains(&format!("main (ledger.c:{main_line})")),
        "{out}"
    );
    let limited = s.run(&["bt", "--limit", "1"]);
    assert!(!limited.ok().contains("main (ledger.c"), "{limited:?}");
    assert!(limited.ok().contains("more frames"), "{limited:?}");
}

/// Stops threads.c in a worker and returns (the stop, the thread list).
fn threads_stopped(s: &Session) -> (Value, Vec<Value>) {
    let stop = stopped_at(s, "c/threads.c", "@worker_body");
    let threads = s.data(&["threads"])["threads"]
        .as_array()
        .expect("threads")
        .clone();
    (stop, threads)
}

/// The id of the program's main thread (the one whose stack holds `main`).
fn main_thread(s: &Session, threads: &[Value]) -> i64 {
    threads
        .iter()
        .filter_map(|t| t["id"].as_i64())
        .find(|id| {
            let bt = s.data(&["bt", "--thread", &id.to_string()]);
            bt["frames"]
                .as_array()
                .is_some_and(|f| f.iter().any(|f| f["function"] == "main"))
        })
        .expect("a thread running main")
}

#[test]
fn threads_lists_named_workers_and_marks_the_selected_one() {
    require_lldb_dap();
    let s = Session::new();
    let (stop, threads) = threads_stopped(&s);
    assert!(threads.len() >= 4, "{threads:?}");
    let names: Vec<&str> = threads.iter().filter_map(|t| t["name"].as_str()).collect();
    for worker in ["worker-0", "worker-1", "worker-2"] {
        assert!(names.contains(&worker), "{names:?}");
    }
    let selected: Vec<&Value> = threads.iter().filter(|t| t["selected"] == true).collect();
    assert_eq!(selected.len(), 1, "{threads:?}");
    assert_eq!(selected[0]["id"], stop["thread_id"]);
    assert_eq!(selected[0]["frame"]["function"], "worker");
    assert!(
        selected[0]["name"]
            .as_str()
            .unwrap_or("")
            .starts_with("worker-"),
        "{threads:?}"
    );

    let text = s.run(&["threads"]);
    let out = text.ok();
    let marked: Vec<&str> = out.lines().filter(|l| l.starts_with('*')).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(
        marked[0].contains("worker-") && marked[0].contains("worker (threads.c:"),
        "{out}"
    );
    assert!(out.lines().count() >= 4, "{out}");
}

#[test]
fn thread_switches_the_selection_that_locals_and_backtrace_use() {
    require_lldb_dap();
    let s = Session::new();
    let (stop, threads) = threads_stopped(&s);
    let worker = stop["thread_id"].as_i64().expect("thread id");
    assert!(local_names(&s).contains(&"acc".to_string()));

    // --thread looks at another thread without moving the selection.
    let main = main_thread(&s, &threads);
    assert_ne!(main, worker);
    let other = s.data(&["bt", "--thread", &main.to_string()]);
    assert_eq!(other["thread_id"], main);
    assert_eq!(s.data(&["bt"])["thread_id"], worker);

    let switched = s.data(&["thread", &main.to_string()]);
    assert_eq!(switched["thread_id"], main, "{switched}");
    assert_eq!(switched["frame"]["index"], 0, "{switched}");

    let bt = s.data(&["bt"]);
    assert_eq!(bt["thread_id"], main, "{bt}");
    assert!(
        bt["frames"]
            .as_array()
            .expect("frames")
            .iter()
            .any(|f| f["function"] == "main"),
        "{bt}"
    );
    assert!(!local_names(&s).contains(&"acc".to_string()));
    let listed = s.data(&["threads"]);
    let selected = selected_threads(&listed);
    assert_eq!(selected.len(), 1);
    assert_eq!(selected[0]["id"], main);

    // Walk up to main's own frame: its locals are main's.
    let index = bt["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .position(|f| f["function"] == "main")
        .expect("main frame");
    s.data(&["frame", &index.to_string()]);
    let locals = local_names(&s);
    assert!(
        locals.contains(&"tids".to_string()) && locals.contains(&"jobs".to_string()),
        "{locals:?}"
    );

    // Back to the worker.
    s.data(&["thread", &worker.to_string()]);
    assert!(local_names(&s).contains(&"acc".to_string()));
}

#[test]
fn thread_and_backtrace_reject_an_unknown_thread() {
    require_lldb_dap();
    let s = Session::new();
    threads_stopped(&s);

    let select = s.run(&["thread", "999999"]);
    assert_eq!(select.code, 1, "{select:?}");
    assert!(select.stderr.contains("no thread 999999"), "{select:?}");

    let bt = s.run(&["bt", "--thread", "999999"]);
    assert_eq!(bt.code, 1, "bt --thread 999999 should fail: {bt:?}");
    assert!(bt.stderr.contains("no thread 999999"), "{bt:?}");
}

#[test]
fn frame_up_and_down_change_what_locals_print_and_context_use() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");
    assert!(local_names(&s).contains(&"amount".to_string()));

    let up = s.data(&["up"]);
    assert_eq!(up["frame"]["index"], 1, "{up}");
    assert_eq!(up["frame"]["function"], "main", "{up}");
    let locals = local_names(&s);
    for name in ["total", "history", "acct"] {
        assert!(locals.contains(&name.to_string()), "{locals:?}");
    }
    assert!(!locals.contains(&"amount".to_string()), "{locals:?}");
    // `acct` in main is the struct itself; in apply it was the pointer.
    assert_eq!(s.data(&["print", "total"])["value"], "0");
    assert_eq!(s.data(&["print", "acct.balance"])["value"], "100");
    let context = s.data(&["context"]);
    assert_eq!(context["frame"]["function"], "main");
    assert_eq!(
        context["frame"]["line"],
        line_of("c/ledger.c", "@loop_call")
    );
    assert_eq!(
        context["source"]["current_line"],
        line_of("c/ledger.c", "@loop_call")
    );

    let down = s.data(&["down"]);
    assert_eq!(down["frame"]["index"], 0, "{down}");
    assert_eq!(down["frame"]["function"], "apply", "{down}");
    assert!(local_names(&s).contains(&"amount".to_string()));
    assert_eq!(s.data(&["print", "amount"])["value"], "0");

    let frame1 = s.data(&["frame", "1"]);
    assert_eq!(frame1["frame"]["function"], "main");
    assert_eq!(s.data(&["bt"])["selected_frame"], 1);
    let frame0 = s.data(&["frame", "0"]);
    assert_eq!(frame0["frame"]["function"], "apply");

    // Text: `up` says where the selection is now.
    let text = s.run(&["up"]);
    assert!(text.ok().contains("main (ledger.c:"), "{text:?}");
    assert!(text.ok().contains("frame 1"), "{text:?}");
}

#[test]
fn up_past_the_outermost_and_down_at_the_innermost_frame_are_errors() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");

    let down = s.run(&["down"]);
    assert_eq!(down.code, 1, "{down:?}");
    assert!(down.stderr.contains("innermost frame"), "{down:?}");
    assert!(down.stderr.contains("hint: "), "{down:?}");

    let total = s.data(&["bt", "--limit", "100"])["frames"]
        .as_array()
        .expect("frames")
        .len();
    let outermost = (total - 1).to_string();
    s.data(&["frame", &outermost]);
    let up = s.run(&["up"]);
    assert_eq!(up.code, 1, "{up:?}");
    assert!(up.stderr.contains("outermost frame"), "{up:?}");
    assert!(up.stderr.contains("hint: "), "{up:?}");
    // A failed move leaves the selection where it was.
    assert_eq!(s.data(&["context"])["frame"]["index"], total as u64 - 1);

    let beyond = s.run(&["frame", "999"]);
    assert_eq!(beyond.code, 1, "{beyond:?}");
    assert!(beyond.stderr.contains("no frame 999"), "{beyond:?}");
}

#[test]
fn context_shows_location_source_with_an_arrow_and_locals() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");
    let line = line_of("c/ledger.c", "@apply_body");

    let context = s.data(&["context"]);
    assert_eq!(context["state"], "stopped");
    assert_eq!(context["reason"], "breakpoint");
    assert_eq!(context["frame"]["function"], "apply");
    assert_eq!(context["frame"]["line"], line);
    assert_eq!(context["source"]["current_line"], line);
    let source_lines = context["source"]["lines"].as_array().expect("lines");
    assert!(
        source_lines
            .iter()
            .any(|l| l.as_str().unwrap_or("").contains("@apply_body")),
        "{context}"
    );
    assert!(
        names(&context["variables"]).contains(&"amount".to_string()),
        "{context}"
    );

    for alias in ["context", "where"] {
        let run = s.run(&[alias]);
        let out = run.ok();
        assert!(out.contains(&format!("apply (ledger.c:{line})")), "{out}");
        let arrow = out
            .lines()
            .find(|l| l.starts_with("->"))
            .unwrap_or_else(|| panic!("no arrow in {out}"));
        assert!(
            arrow.contains(&line.to_string()) && arrow.contains("@apply_body"),
            "{out}"
        );
        assert!(out.contains("Locals:"), "{out}");
        assert!(out.contains("amount (long) = 0"), "{out}");
    }
}

#[test]
fn cpp_members_vectors_and_strings() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "cpp/shapes.cpp", "@main_print");

    let width = s.data(&["print", "rect.width"]);
    assert_eq!(width["value"], "3", "{width}");
    assert_eq!(width["type"], "int", "{width}");
    assert_eq!(s.data(&["eval", "rect.height"])["value"], "4");

    let values = s.data(&["print", "values"]);
    assert!(
        values["value"].as_str().unwrap_or("").contains("size=10"),
        "{values}"
    );
    let children = values["children"].as_array().expect("children");
    assert_eq!(children.len(), 10, "{values}");
    assert_eq!(children[0]["value"], "1");
    assert_eq!(children[9]["value"], "10");

    let name = s.data(&["print", "name"]);
    assert_eq!(name["value"], "\"unit\"", "{name}");
    assert!(
        name["type"].as_str().unwrap_or("").contains("string"),
        "{name}"
    );

    let locals = s.data(&["locals"]);
    let rect = var(&locals["variables"], "rect");
    assert_eq!(var(&rect["children"], "width")["value"], "3");
    assert_eq!(var(&locals["variables"], "sum")["value"], "55");
}

#[test]
fn rust_method_locals_show_self_and_arguments() {
    require_lldb_dap();
    let s = Session::new();
    let stop = stopped_at(&s, "rust/counter.rs", "@bump_body");
    assert!(
        stop["frame"]["function"]
            .as_str()
            .unwrap_or("")
            .contains("bump"),
        "{stop}"
    );

    let locals = s.data(&["locals"]);
    let vars = &locals["variables"];
    assert_eq!(var(vars, "by")["value"], "1", "{locals}");
    let this = var(vars, "self");
    assert_eq!(var(&this["children"], "count")["value"], "0", "{locals}");
    assert!(
        names(&this["children"]).contains(&"label".to_string()),
        "{locals}"
    );
    assert_eq!(s.data(&["print", "self.count + by"])["value"], "1");
}

#[test]
fn a_new_stop_resets_the_selection_to_the_stopped_thread_and_frame_0() {
    require_lldb_dap();
    let s = Session::new();
    stopped_at(&s, "c/ledger.c", "@apply_body");
    s.data(&["up"]);
    assert_eq!(s.data(&["context"])["frame"]["function"], "main");

    let again = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(again["stop"]["reason"], "breakpoint", "{again}");
    let context = s.data(&["context"]);
    assert_eq!(context["frame"]["index"], 0, "{context}");
    assert_eq!(context["frame"]["function"], "apply", "{context}");
    assert_eq!(s.data(&["print", "amount"])["value"], "1");
    assert_eq!(s.data(&["bt"])["selected_frame"], 0);
}

#[test]
fn a_new_stop_selects_the_thread_that_stopped() {
    require_lldb_dap();
    let s = Session::new();
    let (_, threads) = threads_stopped(&s);
    let main = main_thread(&s, &threads);
    s.data(&["thread", &main.to_string()]);
    s.data(&["up"]);

    // main never reaches the worker breakpoint, so the next stop is on a worker.
    let next = s.data(&["continue", "--wait", "--timeout", "60"]);
    let stopped = next["stop"]["thread_id"].clone();
    assert_eq!(next["stop"]["reason"], "breakpoint", "{next}");
    assert_ne!(stopped, main);
    let context = s.data(&["context"]);
    assert_eq!(context["thread_id"], stopped, "{context}");
    assert_eq!(context["frame"]["index"], 0, "{context}");
    assert_eq!(context["frame"]["function"], "worker", "{context}");
    let listed = s.data(&["threads"]);
    let selected = selected_threads(&listed);
    assert_eq!(selected.len(), 1, "{listed}");
    assert_eq!(selected[0]["id"], stopped);

    // Every later stop too: the selection is the thread the stop report names, even when several
    // workers reach the breakpoint at once.
    for _ in 0..14 {
        let next = s.data(&["continue", "--wait", "--timeout", "60"]);
        if next["stop"]["reason"] != "breakpoint" {
            break;
        }
        let context = s.data(&["context"]);
        assert_eq!(
            context["thread_id"], next["stop"]["thread_id"],
            "stop: {next}\ncontext: {context}"
        );
    }
}

#[test]
fn absurd_frame_numbers_are_clear_errors() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "apply"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    // Past the accepted range: a usage error that says the range.
    let run = s.run(&["--json", "frame", "4294967295"]);
    assert_eq!(run.code, 2, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "usage");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("from 0 to 100000")),
        "{error}"
    );
    // In range, past the stack: not found.
    let run = s.run(&["--json", "frame", "100000"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.failure()["code"], "not_found");
    // `up` past the end stops at the outermost frame.
    let up = s.data(&["up", "100000"]);
    assert_eq!(up["frame"]["function"], "_start", "{up}");
    // The daemon is unharmed.
    assert_eq!(s.data(&["status"])["state"], "stopped");
}
