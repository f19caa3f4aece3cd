//! The main path end to end: start with a breakpoint, stop there, inspect, step, run to exit.

mod common;

use common::{Session, build, line_of, require_lldb_dap};

#[test]
fn start_break_continue_inspect_step_and_exit() {
    require_lldb_dap();
    let program = build("c/ledger.c");
    let s = Session::new();
    let started = s.start(&program, &["--break", "apply"]);
    assert_eq!(started["adapter"], "lldb");
    assert_eq!(started["breakpoints"][0]["verified"], true, "{started}");

    let stop = s.data(&["continue", "--wait"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["stop"]["frame"]["function"], "apply");
    assert_eq!(
        stop["stop"]["frame"]["line"],
        line_of("c/ledger.c", "@apply_body"),
        "{stop}"
    );
    assert_eq!(stop["stop"]["breakpoint_ids"][0], 1);

    let locals = s.data(&["locals"]);
    let names: Vec<&str> = locals["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert!(
        names.contains(&"acct") && names.contains(&"amount"),
        "{locals}"
    );

    let printed = s.data(&["print", "acct->balance"]);
    assert_eq!(printed["value"], "100");

    let step = s.data(&["next", "--wait"]);
    assert_eq!(step["stop"]["reason"], "step");
    assert_eq!(
        step["stop"]["frame"]["line"],
        line_of("c/ledger.c", "@apply_body") + 1
    );

    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.data(&["continue", "--wait"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
    assert_eq!(end["stop"]["exit_code"], 3);

    let output = s.data(&["output"]);
    assert!(
        output["text"].as_str().unwrap_or("").contains("total: 10"),
        "{output}"
    );
}
