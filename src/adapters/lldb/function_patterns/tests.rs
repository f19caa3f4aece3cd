//! Rust paths read without their generic arguments, the LLDB patterns that cover both manglings,
//! conditions and hit counts as LLDB takes them, and LLDB's answers and errors read back.

use super::*;
use crate::dap::requests::BreakpointOptions;

fn path(segments: &[&str]) -> Vec<String> {
    segments.iter().map(|s| s.to_string()).collect()
}

#[test]
fn rust_paths_are_read_without_their_generic_arguments() {
    let plain = |segments: &[&str]| {
        Some(RustPath {
            qualified: None,
            segments: path(segments),
        })
    };
    assert_eq!(
        RustPath::parse("rg::search::search_path"),
        plain(&["rg", "search", "search_path"])
    );
    assert_eq!(RustPath::parse("total"), plain(&["total"]));
    assert_eq!(
        RustPath::parse("crate::m::total::<u8>"),
        plain(&["m", "total"])
    );
    assert_eq!(
        RustPath::parse("::m::Wrapper<T>::get"),
        plain(&["m", "Wrapper", "get"])
    );
    assert_eq!(
        RustPath::parse("Map<K, Vec<V>>::r#try"),
        plain(&["Map", "try"])
    );
    assert_eq!(
        RustPath::parse("<m::Rect as fmt::Display<'a>>::fmt"),
        Some(RustPath {
            qualified: Some((path(&["m", "Rect"]), path(&["fmt", "Display"]))),
            segments: path(&["fmt"]),
        })
    );
    for not_a_path in [
        "",
        "ns::f(int)",
        "operator<",
        "Wrapper<T::get",
        "Wrapper>::get",
        "self::f",
        "<Rect>::area",
        "<Rect as Describe>::describe::more",
        "a b",
        "f::",
        "f.c:12",
    ] {
        assert_eq!(RustPath::parse(not_a_path), None, "{not_a_path}");
    }
}

#[test]
fn patterns_cover_both_manglings_one_at_a_time() {
    let patterns = |text: &str| {
        RustPath::parse(text)
            .map(|p| p.lldb_patterns())
            .unwrap_or_default()
    };
    assert_eq!(
        patterns("total"),
        [
            "(^|::)total::h[0-9a-f]{16}$",
            "(^|::)total(::<([^<>]|<([^<>]|<[^<>]*>)*>)*>)?$"
        ]
    );
    let method = patterns("Wrapper::get");
    assert_eq!(
        method[0],
        "(^|::|\\.\\.|\\$LT\\$)Wrapper(\\$LT\\$[^:]*\\$GT\\$)?(::|\\$u20\\$as\\$u20\\$.*\\$GT\\$::)get::h[0-9a-f]{16}$"
    );
    assert!(
        method[1].starts_with("(^|::)Wrapper::get(::<"),
        "{method:?}"
    );
    assert!(method[2].starts_with("(^<|::)Wrapper(<"), "{method:?}");
    assert!(method[2].contains(")?( as .*)?>::get(::<"), "{method:?}");
    let qualified = patterns("<Rect as Describe>::describe");
    assert!(
        qualified[0].contains("\\$u20\\$as\\$u20\\$([A-Za-z0-9_]+\\.\\.)*Describe("),
        "{qualified:?}"
    );
    assert!(qualified[1].starts_with("(^<|::)Rect(<"), "{qualified:?}");
    assert!(
        qualified[1].contains(" as (.*::)?Describe(<"),
        "{qualified:?}"
    );
    // LLDB's regex engine is slow with alternatives at the top: none has any.
    for pattern in method.iter().chain(&qualified) {
        let mut depth = 0i32;
        for c in pattern.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '|' => assert!(depth > 0, "{pattern}"),
                _ => {}
            }
        }
        // Nothing a user typed reaches a pattern but identifiers: no quote can end it.
        assert!(!pattern.contains('\''), "{pattern}");
    }
}

/// A function breakpoint on `f`, as the session sends it.
fn breakpoint(condition: Option<&str>, hit_condition: Option<&str>) -> FunctionBreakpoint {
    FunctionBreakpoint {
        name: "f".into(),
        options: BreakpointOptions {
            condition: condition.map(str::to_string),
            hit_condition: hit_condition.map(str::to_string),
            log_message: None,
        },
    }
}

#[test]
fn conditions_reach_lldb_quoted_and_hit_counts_as_ignore_counts() {
    let spec = breakpoint(Some("s == \"a\\\"b\""), Some("3"));
    assert_eq!(
        FunctionSpec::of(&spec).lldb_options(false),
        Ok(" --condition \"s == \\\"a\\\\\\\"b\\\"\" --ignore-count 2".to_string())
    );
    let bare = breakpoint(None, None);
    assert_eq!(
        FunctionSpec::of(&bare).lldb_options(false),
        Ok(String::new())
    );
    assert_eq!(
        FunctionSpec::of(&bare).lldb_options(true),
        Ok(" --condition \"\" --ignore-count 0".to_string())
    );
    let backtick = breakpoint(Some("`rm`"), None);
    assert!(FunctionSpec::of(&backtick).lldb_options(false).is_err());
}

#[test]
fn lldbs_breakpoint_answers_are_read() {
    assert_eq!(
        created_breakpoint("(lldb) breakpoint set --func-regex 'x'\nBreakpoint 7: 2 locations.\n"),
        Some((7, 2))
    );
    assert_eq!(
        created_breakpoint("Breakpoint 8: where = a`f + 4 at a.rs:3:5, address = 0x10\n"),
        Some((8, 1))
    );
    assert_eq!(
        created_breakpoint(
            "Breakpoint 9: no locations (pending).\nWARNING:  Unable to resolve breakpoint to any actual locations.\n"
        ),
        Some((9, 0))
    );
    assert_eq!(created_breakpoint("error: invalid regex\n"), None);
    let listing =
        "(lldb) breakpoint list --brief 5\n5: name = 'm::total', locations = 0 (pending)\n";
    assert!(lists_name(listing, 5, "m::total"));
    assert!(!lists_name(listing, 5, "m::tot"));
    assert!(!lists_name(listing, 15, "m::total"));
}

#[test]
fn lldb_errors_are_found_in_its_answer() {
    assert_eq!(
        console_error("(lldb) memory read ...\nerror: memory read failed for 0x0\n"),
        Some("memory read failed for 0x0".to_string())
    );
    assert_eq!(
        console_error(
            "(lldb) memory read ...\n16 bytes written to '/x'\nwarning: Not all bytes (16/32) were able to be read from 0x10.\n"
        ),
        None
    );
}
