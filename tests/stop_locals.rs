//! A stop report carries the stopped frame's values: every waiting command answers with the
//! locals, bounded to a screenful and marked where they changed, on every adapter, so an agent
//! needs no `locals` call after it. `--locals none|changed|all` and `[defaults] stop_locals`
//! turn it down.
//!
//! Each test runs from the session's own folder, not the program's.

mod common;

use common::{
    Session, at, build, build_go, fixture_path, require_debugpy, require_delve, require_gdb,
    require_lldb_dap, require_node, require_python,
};
use serde_json::Value;

const WAIT: &str = "60";
const LEDGER: &str = "c/ledger.c";
const MANY_C: &str = "c/many_locals.c";
const MANY_PY: &str = "python/many_locals.py";
const APP_PY: &str = "python/app.py";
const LEDGER_GO: &str = "go/ledger/main.go";
const APP_JS: &str = "javascript/app.js";

/// `continue --wait` with `extra` flags, as JSON: its stop.
#[track_caller]
fn continue_json(s: &Session, extra: &[&str]) -> Value {
    let mut args = vec!["continue", "--wait", "--timeout", WAIT];
    args.extend_from_slice(extra);
    s.data(&args)["stop"].clone()
}

/// `continue --wait` with `extra` flags, as text.
#[track_caller]
fn continue_text(s: &Session, extra: &[&str]) -> String {
    let mut args = vec!["continue", "--wait", "--timeout", WAIT];
    args.extend_from_slice(extra);
    s.run(&args).ok().to_string()
}

/// The local `name` of a stop report's `locals`.
#[track_caller]
fn local<'a>(stop: &'a Value, name: &str) -> &'a Value {
    stop["locals"]
        .as_array()
        .and_then(|list| list.iter().find(|v| v["name"] == name))
        .unwrap_or_else(|| panic!("no local {name} in the report: {stop}"))
}

fn local_names(stop: &Value) -> Vec<String> {
    stop["locals"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|v| v["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The report's lines under `Locals:`.
fn locals_section(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("Locals"))
        .skip(1)
        .take_while(|l| l.starts_with("  ") || l.starts_with("* "))
        .collect()
}

/// At a stop in a function whose `amount` is 0 on the first call and 1 on the second (every
/// ledger fixture's deposit or apply): the first `continue --wait` shows `amount = 0` under
/// `Locals:`, the second carries it as 1 in JSON, marked changed.
#[track_caller]
fn reports_carry_amount(s: &Session) {
    let text = continue_text(s, &[]);
    let section = locals_section(&text);
    assert!(
        section
            .iter()
            .any(|l| l.trim_start_matches(['*', ' ']).starts_with("amount")
                && l.trim_end().ends_with("= 0")),
        "{text}"
    );
    let stop = continue_json(s, &[]);
    let amount = local(&stop, "amount");
    assert_eq!(amount["value"], "1", "{stop}");
    assert_eq!(amount["changed"], true, "{stop}");
    assert_eq!(stop["locals_omitted"], 0, "{stop}");
}

#[test]
fn lldb_reports_carry_the_locals_and_mark_what_changed() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["-b", &at(LEDGER, "@apply_body")]);
    reports_carry_amount(&s);

    // `--locals changed`: the third call changed `amount` (and `acct`'s balance), and only those
    // changed are listed.
    let stop = continue_json(&s, &["--locals", "changed"]);
    let names = local_names(&stop);
    assert!(names.contains(&"amount".to_string()), "{stop}");
    assert!(
        stop["locals"]
            .as_array()
            .is_some_and(|l| l.iter().all(|v| v["changed"] == true)),
        "{stop}"
    );
    let text = continue_text(&s, &["--locals", "changed"]);
    assert!(text.contains("Locals:\n* "), "{text}");
    assert!(!text.contains("\n  amount"), "{text}");

    // `--locals none`: no values read, none shown.
    let stop = continue_json(&s, &["--locals", "none"]);
    assert_eq!(stop["locals"], serde_json::json!([]), "{stop}");
    assert!(stop.get("changed").is_none(), "{stop}");
    let text = continue_text(&s, &["--locals", "none"]);
    assert!(!text.contains("Locals"), "{text}");
}

#[test]
fn a_step_report_marks_the_changes_once() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["-b", &at(LEDGER, "@apply_body")]);
    continue_json(&s, &[]);
    // `before = acct->balance` runs: `before` is marked in the locals, with no second list.
    let text = s
        .run(&["next", "--wait", "--timeout", WAIT])
        .ok()
        .to_string();
    assert!(
        locals_section(&text)
            .iter()
            .any(|l| l.starts_with("* before ")),
        "{text}"
    );
    assert!(!text.contains("Changed:"), "{text}");
}

#[test]
fn the_config_default_turns_the_locals_down() {
    require_lldb_dap();
    let s = Session::with_config(
        "[daemon]\ngrace_period_secs = 60\n[defaults]\nstop_locals = \"none\"\n",
    );
    s.start(&build(LEDGER), &["-b", &at(LEDGER, "@apply_body")]);
    let stop = continue_json(&s, &[]);
    assert_eq!(stop["locals"], serde_json::json!([]), "{stop}");
    // The command's flag wins over the config.
    let stop = continue_json(&s, &["--locals", "all"]);
    assert_eq!(local(&stop, "amount")["value"], "1", "{stop}");
}

#[test]
fn await_carries_the_locals_too() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(LEDGER), &["-b", &at(LEDGER, "@apply_body")]);
    s.data(&["continue"]);
    let stop = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(local(&stop, "amount")["value"], "0", "{stop}");
    let none = s.data(&["await", "--locals", "none"]);
    assert_eq!(none["locals"], serde_json::json!([]), "{none}");
}

/// On a frame of thirty locals, a report lists twelve, says how many more, and stays within
/// 2 KB of text.
#[track_caller]
fn bounded_on_many_locals(s: &Session) {
    let text = continue_text(s, &[]);
    assert!(text.len() <= 2048, "{} bytes:\n{text}", text.len());
    let section = locals_section(&text);
    assert!(section.len() <= 13, "{text}");
    let more = section.last().copied().unwrap_or_default();
    assert!(more.trim().ends_with("more: `debugger locals`"), "{text}");
    let stop = continue_json(s, &[]);
    let shown = stop["locals"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(shown, 12, "{stop}");
    let omitted = stop["locals_omitted"].as_u64().unwrap_or(0);
    assert!(omitted >= 18, "{stop}");
    assert_eq!(
        more,
        format!("  {omitted} more: `debugger locals`"),
        "{text}"
    );
    // Every local changed since the first call (seed 1 to 2), so all twelve shown are marked.
    assert!(
        stop["locals"].as_array().is_some_and(|l| l
            .iter()
            .filter(|v| v["changed"] == true)
            .count()
            >= 10),
        "{stop}"
    );
}

#[test]
fn a_frame_of_thirty_locals_is_bounded_on_lldb() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(MANY_C), &["-b", &at(MANY_C, "@tally_sum")]);
    bounded_on_many_locals(&s);
}

#[test]
fn a_frame_of_thirty_locals_is_bounded_on_debugpy() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(MANY_PY), &["-b", &at(MANY_PY, "@tally_sum")]);
    bounded_on_many_locals(&s);
}

#[test]
fn debugpy_reports_carry_the_locals() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path(APP_PY), &["-b", &at(APP_PY, "@deposit_body")]);
    reports_carry_amount(&s);
}

#[test]
fn pdb_reports_carry_the_locals() {
    require_python();
    let s = Session::new();
    s.start(
        &fixture_path(APP_PY),
        &["--adapter", "pdb", "-b", &at(APP_PY, "@deposit_body")],
    );
    reports_carry_amount(&s);
}

#[test]
fn delve_reports_carry_the_locals() {
    require_delve();
    let s = Session::new();
    s.start(
        &build_go(LEDGER_GO),
        &["-b", &at(LEDGER_GO, "@deposit_body")],
    );
    reports_carry_amount(&s);
}

#[test]
fn node_reports_carry_the_locals() {
    require_node();
    let s = Session::new();
    s.start(&fixture_path(APP_JS), &["-b", &at(APP_JS, "@deposit_body")]);
    reports_carry_amount(&s);
}

#[test]
fn gdb_reports_carry_the_locals() {
    require_gdb();
    let s = Session::with_gdb();
    s.start(
        &build(LEDGER),
        &["--adapter", "gdb", "-b", &at(LEDGER, "@apply_body")],
    );
    reports_carry_amount(&s);
}

/// `start` and `restart` answer with the first stop, and that report carries the values too (the
/// config's default, as for every waiting command).
#[test]
fn the_first_stop_that_start_and_restart_answer_with_carries_the_locals() {
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
    ]);
    let stop = &started["stop"];
    assert_eq!(stop["reason"], "breakpoint", "{started}");
    assert_eq!(local(stop, "amount")["value"], "0", "{stop}");
    let restarted = s.data(&["restart", "--wait", WAIT]);
    assert_eq!(
        local(&restarted["stop"], "amount")["value"],
        "0",
        "{restarted}"
    );
    let text = s.run(&["restart", "--wait", WAIT]).ok().to_string();
    assert!(
        locals_section(&text).iter().any(|l| l.contains("amount")),
        "{text}"
    );
}

#[test]
fn start_and_restart_take_locals_for_their_first_stop() {
    require_lldb_dap();
    let s = Session::new();
    let program = build(LEDGER);
    let program = program.to_str().expect("utf-8 path");
    let apply = at(LEDGER, "@apply_body");
    let started = s.data(&[
        "start", program, "-b", &apply, "--wait", WAIT, "--locals", "none",
    ]);
    assert_eq!(started["stop"]["frame"]["function"], "apply", "{started}");
    assert_eq!(
        started["stop"]["locals"],
        serde_json::json!([]),
        "{started}"
    );
    let text = s
        .run(&["restart", "--wait", WAIT, "--locals", "none"])
        .ok()
        .to_string();
    assert!(text.contains("apply"), "{text}");
    assert!(!text.contains("Locals"), "{text}");
    let text = s.run(&["restart", "--wait", WAIT]).ok().to_string();
    assert!(
        locals_section(&text).iter().any(|l| l.contains("amount")),
        "{text}"
    );
}
