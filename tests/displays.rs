//! `display EXPR`, as in gdb: expressions every stop report of the session evaluates in the
//! stopped frame, shown `old -> new` where they changed, with an error inline (never failing the
//! report) where they cannot be evaluated; `display` lists them, `display --remove N` removes
//! one; and the waiting commands' one-off `-p EXPR`. On every adapter.
//!
//! Each test runs from the session's own folder, not the program's.

mod common;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_gdb,
    require_lldb_dap, require_node, require_python,
};
use serde_json::{Value, json};

const WAIT: &str = "60";
const LEDGER: &str = "c/ledger.c";
const APP_PY: &str = "python/app.py";
const LEDGER_GO: &str = "go/ledger/main.go";
const APP_JS: &str = "javascript/app.js";

/// A waiting command with `extra` flags, as JSON: its stop.
#[track_caller]
fn stop_of(s: &Session, command: &str, extra: &[&str]) -> Value {
    let mut args = vec![command, "--wait", "--timeout", WAIT];
    args.extend_from_slice(extra);
    s.data(&args)["stop"].clone()
}

/// The report's lines under `header`.
fn section<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != header)
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect()
}

fn ids(displays: &Value) -> Vec<Value> {
    displays
        .as_array()
        .map(|list| list.iter().map(|d| d["id"].clone()).collect())
        .unwrap_or_default()
}

/// The scenario every adapter runs, at a stop in the function whose `amount` is 0 on the first
/// call, 1 on the second and 2 on the third (every ledger fixture's deposit or apply), where
/// `total` is a local of its caller only.
#[track_caller]
fn displays_across_stops(s: &Session) {
    let first = stop_of(s, "continue", &[]);
    assert_eq!(first["reason"], "breakpoint", "{first}");
    assert_eq!(first["displays"], json!([]), "{first}");

    // Added while stopped: the value now.
    let amount = s.data(&["display", "amount"]);
    assert_eq!(amount["id"], 1, "{amount}");
    assert_eq!(amount["value"], "0", "{amount}");
    let total = s.data(&["display", "total"]);
    assert_eq!(total["id"], 2, "{total}");
    assert!(total["value"].is_null(), "{total}");
    assert!(
        total["error"].as_str().is_some_and(|e| e.contains("total")),
        "{total}"
    );

    // The next stop: old -> new, the error inline, and a one-off after the displays.
    let stop = stop_of(s, "continue", &["-p", "amount + 10"]);
    let displays = &stop["displays"];
    assert_eq!(ids(displays), [json!(1), json!(2), Value::Null], "{stop}");
    assert_eq!(displays[0]["value"], "1", "{stop}");
    assert_eq!(displays[0]["old_value"], "0", "{stop}");
    assert_eq!(displays[0]["changed"], true, "{stop}");
    assert!(displays[0]["error"].is_null(), "{stop}");
    assert!(displays[1]["value"].is_null(), "{stop}");
    assert!(displays[1]["error"].is_string(), "{stop}");
    assert_eq!(displays[1]["changed"], false, "{stop}");
    assert_eq!(displays[2]["expression"], "amount + 10", "{stop}");
    assert_eq!(displays[2]["value"], "11", "{stop}");

    // As text; the one-off is gone.
    let text = s
        .run(&["continue", "--wait", "--timeout", WAIT])
        .ok()
        .to_string();
    let shown = section(&text, "Displays:");
    assert_eq!(
        shown.first().copied(),
        Some("  1: amount = 1 -> 2"),
        "{text}"
    );
    assert!(
        shown
            .get(1)
            .is_some_and(|l| l.starts_with("  2: total = <error: ") && l.ends_with('>')),
        "{text}"
    );
    assert!(!text.contains("Printed:"), "{text}");

    // The list, with the values last shown.
    let list = s.data(&["display"]);
    assert_eq!(ids(&list["displays"]), [json!(1), json!(2)], "{list}");
    assert_eq!(list["displays"][0]["value"], "2", "{list}");
    let listed = s.run(&["display"]).ok().to_string();
    assert!(listed.contains("  1: amount = 1 -> 2\n"), "{listed}");

    // An unknown id is a usage error naming the ids there are.
    let unknown = s.run(&["--json", "display", "--remove", "7"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stdout);
    let error = unknown.failure();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("no display 7") && m.contains("1, 2")),
        "{error}"
    );
    let removed = s.data(&["display", "--remove", "2"]);
    assert_eq!(removed["removed"], 2, "{removed}");
    assert_eq!(ids(&removed["displays"]), [json!(1)], "{removed}");

    // The last stop shows what is left, unchanged by the step.
    let stop = stop_of(s, "next", &[]);
    assert_eq!(ids(&stop["displays"]), [json!(1)], "{stop}");
    assert_eq!(stop["displays"][0]["value"], "2", "{stop}");
    assert_eq!(stop["displays"][0]["changed"], false, "{stop}");
}

#[test]
fn lldb_displays_show_what_changed_at_every_stop() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["-b", &at(LEDGER, "@apply_body")]);
    displays_across_stops(&s);
}

#[test]
fn gdb_displays_show_what_changed_at_every_stop() {
    require_gdb();
    let s = Session::with_gdb();
    s.start(
        &build(LEDGER),
        &["--adapter", "gdb", "-b", &at(LEDGER, "@apply_body")],
    );
    displays_across_stops(&s);
}

#[test]
fn debugpy_displays_show_what_changed_at_every_stop() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(APP_PY), &["-b", &at(APP_PY, "@deposit_body")]);
    displays_across_stops(&s);
}

#[test]
fn pdb_displays_show_what_changed_at_every_stop() {
    require_python();
    let s = Session::new();
    s.start(
        &fixture_path(APP_PY),
        &["--adapter", "pdb", "-b", &at(APP_PY, "@deposit_body")],
    );
    displays_across_stops(&s);
}

#[test]
fn delve_displays_show_what_changed_at_every_stop() {
    require_delve();
    let s = Session::new();
    s.start(
        &build_go(LEDGER_GO),
        &["-b", &at(LEDGER_GO, "@deposit_body")],
    );
    displays_across_stops(&s);
}

#[test]
fn node_displays_show_what_changed_at_every_stop() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP_JS), &["-b", &at(APP_JS, "@deposit_body")]);
    displays_across_stops(&s);
}

/// `start -p` shows the expression in the first stop's report; the displays survive `restart`,
/// whose first stop shows them, compared with the last run's values, and its own `-p`.
#[test]
fn start_and_restart_show_prints_and_the_displays_survive_a_restart() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(LEDGER);
    let location = at(LEDGER, "@apply_body");
    let started = s.data(&[
        "start",
        program.to_str().expect("utf-8"),
        "--break",
        &location,
        "--wait",
        WAIT,
        "-p",
        "acct->balance",
    ]);
    let shown = &started["stop"]["displays"];
    assert_eq!(shown[0]["id"], Value::Null, "{started}");
    assert_eq!(shown[0]["value"], "100", "{started}");
    s.data(&["display", "amount"]);
    stop_of(&s, "continue", &[]);

    let restarted = s.data(&["restart", "--wait", WAIT, "-p", "amount * 3"]);
    let shown = &restarted["stop"]["displays"];
    assert_eq!(ids(shown), [json!(1), Value::Null], "{restarted}");
    assert_eq!(shown[0]["value"], "0", "{restarted}");
    assert_eq!(shown[0]["old_value"], "1", "{restarted}");
    assert_eq!(shown[0]["changed"], true, "{restarted}");
    assert_eq!(shown[1]["value"], "0", "{restarted}");

    // `finish` returns to main, where `amount` is not in scope: the report still comes, with
    // the error inline.
    let text = s
        .run(&["finish", "--wait", "--timeout", WAIT, "-p", "total"])
        .ok()
        .to_string();
    assert!(text.contains("  1: amount = <error: "), "{text}");
    assert_eq!(section(&text, "Printed:"), ["  total = 0"], "{text}");
}

/// A display added while the program runs is evaluated from the next stop on; `pause --wait`
/// and `await` show it, and `await -p` a one-off.
#[test]
fn a_display_added_while_running_shows_from_the_next_stop() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/spin.c"), &[]);
    let added = s.data(&["display", "g_ticks"]);
    assert_eq!(added["id"], 1, "{added}");
    assert!(
        added["value"].is_null() && added["error"].is_null(),
        "{added}"
    );
    let text = s.run(&["display", "n"]).ok().to_string();
    assert_eq!(
        text,
        "2: n (not evaluated yet: shown from the next stop on)\n"
    );

    let paused = stop_of(&s, "pause", &[]);
    let shown = &paused["displays"];
    assert_eq!(ids(shown), [json!(1), json!(2)], "{paused}");
    assert!(
        shown[0]["value"]
            .as_str()
            .is_some_and(|v| v.parse::<i64>().is_ok()),
        "{paused}"
    );
    // The same stop again: the same values, nothing changed.
    let again = s.data(&["await", "-p", "g_ticks + 1"]);
    assert_eq!(again["displays"][0], shown[0], "{again}");
    assert_eq!(again["displays"][2]["expression"], "g_ticks + 1", "{again}");
}

#[test]
fn displays_and_one_off_prints_take_a_callers_frame() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["-b", &at(LEDGER, "@apply_body")]);
    s.data(&["display", "@main:i"]);
    let first = stop_of(&s, "continue", &[]);
    assert_eq!(first["displays"][0]["value"], "0", "{first}");
    let stop = stop_of(&s, "continue", &["-p", "@1:total", "-p", "@nosuch:i"]);
    let shown = &stop["displays"];
    assert_eq!(shown[0]["expression"], "@main:i", "{stop}");
    assert_eq!(shown[0]["value"], "1", "{stop}");
    assert_eq!(shown[0]["old_value"], "0", "{stop}");
    assert_eq!(shown[1]["value"], "0", "{stop}");
    let missing = shown[2]["error"].as_str().unwrap_or_default();
    assert!(missing.contains("nosuch"), "{stop}");
}
