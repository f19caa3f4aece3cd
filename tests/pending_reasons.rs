//! Why a line breakpoint is pending, when the adapter places the file itself (lldb, GDB): a line
//! without code in a file the program has is said to be one, with the nearest lines that have
//! code, never a file that cannot be found. And on the node adapter, a line of a script not
//! loaded yet (JavaScript, or TypeScript through the source map of a `tsc` output) says so and
//! names the script it waits for, never that the line may have no code: it binds when it loads.

mod common;

use std::path::Path;

use common::{Session, at, build, fixture_path, line_of, require_lldb_dap, require_node};
use serde_json::Value;

const LEDGER: &str = "c/ledger.c";

/// The pending reason `breakpoint list` gives for breakpoint `id`.
#[track_caller]
fn reason(s: &Session, id: u64) -> String {
    let list = s.data(&["breakpoint", "list"]);
    let bp = list["breakpoints"]
        .as_array()
        .and_then(|all| all.iter().find(|b| b["id"] == id))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(bp["verified"], false, "{list}");
    bp["message"].as_str().unwrap_or("").to_string()
}

/// Starts ledger with breakpoints on its first line (a comment), by name and by path, from a
/// folder that is not the program's, and checks both are said to be on a line without code.
fn comment_line_is_said_to_have_no_code(s: &Session, adapter: &[&str]) {
    let source = fixture_path(LEDGER);
    let by_path = format!("{}:1", source.display());
    let mut args = adapter.to_vec();
    args.extend(["-b", "ledger.c:1", "-b", &by_path, "-b", "nosuch.c:3"]);
    let started = s.start(&build(LEDGER), &args);
    let first_code = line_of(LEDGER, "int square(int x)") + 1;
    let expected = format!(
        "line 1 of {} has no code; the nearest line with code is {first_code}",
        source.display()
    );
    assert_eq!(reason(s, 1), expected, "{started}");
    assert_eq!(reason(s, 2), expected, "{started}");
    // A file the program does not have is still told as one.
    assert!(reason(s, 3).contains("no such file"), "{started}");
    let text = s.run(&["breakpoint", "list"]);
    assert!(
        text.ok()
            .contains(&format!("ledger.c:1  pending: {expected}")),
        "{text:?}"
    );
}

#[test]
fn lldb_says_a_comment_line_has_no_code() {
    require_lldb_dap();
    comment_line_is_said_to_have_no_code(&Session::new(), &[]);
}

#[test]
fn gdb_says_a_comment_line_has_no_code() {
    comment_line_is_said_to_have_no_code(&Session::with_gdb(), &["--adapter", "gdb"]);
}

/// Starts `program` stopped at its entry with a breakpoint at `location`, which must be pending
/// with `expected`; then the program runs into it, verified.
fn pending_until_loaded(program: &Path, location: &str, expected: &str) {
    let s = Session::new();
    let started = s.start(program, &["--stop-on-entry", "--break", location]);
    let breakpoint = &started["breakpoints"][0];
    assert_eq!(breakpoint["verified"], false, "{started}");
    assert_eq!(breakpoint["message"], expected, "{started}");
    let text = s.run(&["breakpoint", "list"]).ok().to_string();
    assert!(text.contains(&format!("pending: {expected}")), "{text}");
    s.data(&["await", "--timeout", "30"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    assert_eq!(reason_of_verified(&s), "", "{stop}");
    s.run(&["stop"]);
}

/// Breakpoint 1's message once it is verified (none).
#[track_caller]
fn reason_of_verified(s: &Session) -> String {
    let list = s.data(&["breakpoint", "list"]);
    let bp = &list["breakpoints"][0];
    assert_eq!(bp["verified"], true, "{list}");
    bp["message"].as_str().unwrap_or("").to_string()
}

#[test]
fn node_a_script_required_later_is_said_not_loaded_yet() {
    require_node();
    let format = fixture_path("javascript/lib/format.js");
    pending_until_loaded(
        &fixture_path("javascript/app.js"),
        &at("javascript/lib/format.js", "@format_body"),
        &format!("not loaded yet: it binds when {} loads", format.display()),
    );
}

#[test]
fn node_a_typescript_line_whose_script_loads_later_is_said_not_loaded_yet() {
    require_node();
    let program = common::typescript_build::compile("pending-reasons", "dynamic.js");
    let late = program.parent().expect("dist").join("lib/late.js");
    pending_until_loaded(
        &program,
        &at("typescript/src/lib/late.ts", "@score"),
        &format!("not loaded yet: it binds when {} loads", late.display()),
    );
}
