//! A stack overflow's stop: the report names the frame it happened in, never "an unknown
//! location", and `context` shows that frame's place and source even where its locals cannot be
//! read (GDB cannot read them in the frame of an overflowed stack, and once failed the whole
//! `context`). On lldb-dap and GDB, with the `overflow` fixture, run from the test's own folder.
//! Every test fails (never skips) when its adapter is missing.

mod common;

use common::{Session, build, line_of, require_lldb_dap};
use serde_json::Value;

const OVERFLOW: &str = "c/overflow.c";

/// Whether `frame` is one of `depth`'s, in the fixture, at a line of the function.
#[track_caller]
fn assert_in_depth(frame: &Value, context: &str) {
    assert_eq!(frame["function"], "depth", "{context}: {frame}");
    let file = frame["file"].as_str().unwrap_or("");
    assert!(file.ends_with("overflow.c"), "{context}: {frame}");
    let line = frame["line"].as_u64().unwrap_or(0);
    let call = u64::from(line_of(OVERFLOW, "@overflow_call"));
    assert!((call - 7..=call).contains(&line), "{context}: {frame}");
}

#[test]
fn a_stack_overflow_stops_in_its_frame_and_context_shows_it() {
    require_lldb_dap();
    for (adapter, s) in [("lldb", Session::new()), ("gdb", Session::with_gdb())] {
        s.start(&build(OVERFLOW), &["--adapter", adapter]);
        let stop = s.data(&["await", "--timeout", "120"]);
        assert_eq!(stop["reason"], "signal", "{adapter}: {stop}");
        assert_eq!(stop["signal"]["name"], "SIGSEGV", "{adapter}: {stop}");
        assert_in_depth(&stop["frame"], adapter);

        let text = s.run(&["status"]).ok().to_string();
        assert!(
            text.contains("Stopped on signal SIGSEGV") && !text.contains("unknown location"),
            "{adapter}: {text}"
        );
        assert!(text.contains(" in depth (overflow.c:"), "{adapter}: {text}");

        let context = s.json(&["context"]);
        assert_eq!(context["ok"], true, "{adapter}: {context}");
        let data = &context["data"];
        assert_in_depth(&data["frame"], adapter);
        assert!(data["source"]["lines"].is_array(), "{adapter}: {context}");
        // The locals are there, or why they are not.
        assert!(
            data["variables"].is_array() || data["locals_error"].is_string(),
            "{adapter}: {context}"
        );
        let text = s.run(&["context"]).ok().to_string();
        assert!(
            text.starts_with("Stopped (signal) in depth (overflow.c:"),
            "{adapter}: {text}"
        );
        s.run(&["stop"]);
    }
}
