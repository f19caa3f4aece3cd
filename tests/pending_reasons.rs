//! Why a line breakpoint is pending, when the adapter places the file itself (lldb, GDB): a line
//! without code in a file the program has is said to be one, with the nearest lines that have
//! code, never a file that cannot be found.

mod common;

use common::{Session, build, fixture_path, line_of, require_lldb_dap};
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
