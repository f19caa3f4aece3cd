//! Watchpoints (`watch EXPR`): a write watchpoint on a C global stops on the line after the one
//! that changed it and shows the old and new value; watchpoints list, disable and remove with
//! the breakpoints; adapters without data breakpoints say so.

mod common;

use common::{Session, build, fixture_path, line_of, require_debugpy, require_lldb_dap};

/// Starts ledger stopped in main, where the global and `acct` are in scope.
fn ledger_in_main() -> Session {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "main"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    s
}

#[test]
fn a_write_watchpoint_on_a_global_catches_each_change() {
    let s = ledger_in_main();
    let added = s.data(&["watch", "g_counter"]);
    assert_eq!(added["kind"], "watch", "{added}");
    assert_eq!(added["access"], "write", "{added}");
    assert_eq!(added["verified"], true, "{added}");
    let id = added["id"].as_u64().expect("id");
    // `g_counter++` is the line before @apply_update: the stop is right after the write.
    let changed_after = line_of("c/ledger.c", "@apply_update");
    for before in 0..2 {
        let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
        let stop = &stop["stop"];
        assert_eq!(stop["reason"], "watchpoint", "{stop}");
        assert_eq!(stop["breakpoint_ids"], serde_json::json!([id]), "{stop}");
        assert_eq!(stop["frame"]["function"], "apply", "{stop}");
        assert_eq!(stop["frame"]["line"], changed_after, "{stop}");
        let change = &stop["watch"][0];
        assert_eq!(change["expression"], "g_counter", "{stop}");
        assert_eq!(change["old_value"], before.to_string(), "{stop}");
        assert_eq!(change["new_value"], (before + 1).to_string(), "{stop}");
    }
    let text = s.run(&["continue", "--wait", "--timeout", "30"]);
    let text = text.ok();
    assert!(
        text.contains(&format!("Stopped at watchpoint {id} in apply")),
        "{text}"
    );
    assert!(text.contains("g_counter: 2 -> 3"), "{text}");
}

#[test]
fn watchpoints_on_a_member_list_disable_and_remove_like_breakpoints() {
    let s = ledger_in_main();
    let counter = s.data(&["watch", "g_counter"])["id"].as_u64().expect("id");
    let balance = s.data(&["watch", "acct.balance"]);
    let balance_id = balance["id"].as_u64().expect("id");
    assert!(
        balance["watching"]
            .as_str()
            .unwrap_or("")
            .contains("8 bytes"),
        "{balance}"
    );
    let list = s.run(&["breakpoint", "list"]);
    let list = list.ok();
    assert!(list.contains("watch g_counter (write)"), "{list}");
    assert!(list.contains("watch acct.balance (write)"), "{list}");
    s.data(&["breakpoint", "disable", &counter.to_string()]);
    s.data(&["breakpoint", "remove", "1"]);
    // main's own initialisation of `acct` writes 100 first; then apply() changes it (lldb's
    // write watchpoints stop only when the value changes, so amount 0 passes).
    let mut seen = Vec::new();
    loop {
        let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
        let stop = &stop["stop"];
        assert_eq!(
            stop["reason"], "watchpoint",
            "g_counter is disabled: {stop}"
        );
        assert_eq!(
            stop["breakpoint_ids"],
            serde_json::json!([balance_id]),
            "{stop}"
        );
        let change = &stop["watch"][0];
        seen.push(change["new_value"].as_str().unwrap_or("").to_string());
        if change["new_value"] == "101" {
            assert_eq!(change["old_value"], "100", "{stop}");
            assert_eq!(stop["frame"]["function"], "apply", "{stop}");
            break;
        }
        assert!(seen.len() < 3, "no change to 101 seen: {seen:?}");
    }
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
}

#[test]
fn watch_needs_a_stopped_program_and_something_to_watch() {
    let s = ledger_in_main();
    let bad = s.run(&["--json", "watch", "nosuch"]);
    assert_eq!(bad.code, 1, "{bad:?}");
    let error = bad.failure();
    assert!(
        error["message"].as_str().unwrap_or("").contains("nosuch"),
        "{error}"
    );
    // The daemon still serves, and nothing was added.
    let list = s.data(&["breakpoint", "list"]);
    assert_eq!(
        list["breakpoints"].as_array().map(Vec::len),
        Some(1),
        "{list}"
    );
    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["continue"]);
    let running = s.run(&["--json", "watch", "g_counter"]);
    assert_eq!(running.code, 1, "{running:?}");
    running.failure();
}

#[test]
fn adapters_without_data_breakpoints_say_so() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path("python/app.py"), &["--stop-on-entry"]);
    let run = s.run(&["--json", "watch", "total"]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "unsupported", "{error}");
    assert!(
        error["message"].as_str().unwrap_or("").contains("debugpy"),
        "{error}"
    );
}
