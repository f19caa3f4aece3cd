//! LLDB's index cache in our cache directory (`adapters/lldb/index_cache.rs`): a session on
//! lldb-dap leaves LLDB's index of the program's modules there for the next one to read, in a
//! directory only the user can enter, and the program still stops and reads as before with it.
//!
//! Fails (never skips) when lldb-dap is missing: `.ci/run` installs it.
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{Run, Session, build, require_lldb_dap};

/// `debugger --json probe ledger --break apply --print amount`, with the cache in `cache`.
fn probe(s: &Session, cache: &std::path::Path) -> serde_json::Value {
    let ledger = build("c/ledger.c");
    let run = Run::from(
        s.command()
            .env("DEBUGGER_CACHE_DIR", cache)
            .args(["--json", "probe"])
            .arg(&ledger)
            .args(["--break", "apply", "--print", "amount"])
            .output()
            .expect("run debugger"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    run.json()["data"].clone()
}

#[test]
fn a_session_leaves_lldbs_index_for_the_next_and_both_stop_alike() {
    require_lldb_dap();
    let s = Session::new();
    let cache = s.dir.path().join("cache");
    let first = probe(&s, &cache);
    let index = cache.join("lldb-index");
    let entries = std::fs::read_dir(&index)
        .map(|dir| dir.flatten().count())
        .unwrap_or(0);
    assert!(entries > 0, "nothing cached in {}", index.display());
    let mode = std::fs::metadata(&index)
        .expect("the index dir")
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "the index dir is open to others: {mode:o}");
    // The second reads the index the first wrote, and sees the same.
    let second = probe(&s, &cache);
    for report in [&first, &second] {
        assert_eq!(report["hits"][0]["prints"][0]["value"], "0", "{report}");
        assert_eq!(
            report["hits"][0]["stop"]["frame"]["function"], "apply",
            "{report}"
        );
    }
}
