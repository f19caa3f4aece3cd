//! LLDB's index cache, kept in our cache directory: what LLDB builds from a module's debug
//! information to look names up (its manual DWARF index and symbol table), written once and read
//! back by every later session while the module's file is unchanged.
//!
//! Apart from `mod.rs` because it is the one setting that makes LLDB write outside the session:
//! where, and why it is worth it. Without it, every launch indexes the C library's separate
//! debug file (Debian's libc6-dbg) and the program's own again: a probe of fixtures/c/ledger.c
//! took 475 ms without and 400 ms with it (lldb-dap 19, 7 alternated runs, load 0.6-1.0). LLDB
//! checks each entry against its module's file and drops entries unused for 7 days
//! (`symbols.lldb-index-cache-expiration-days`). `DEBUGGER_CACHE_DIR` moves it with the rest of
//! our cache.

/// Where LLDB's index cache lives, under our cache directory.
const INDEX_DIR: &str = "lldb-index";

/// The settings that turn LLDB's index cache on in a private directory of ours; none when no
/// such directory can be made (then LLDB indexes the program at every launch, which only costs
/// time).
pub(super) fn commands() -> Vec<String> {
    let Some(dir) = crate::common::paths::private_cache_dir(INDEX_DIR) else {
        return Vec::new();
    };
    vec![
        format!(
            "settings set symbols.lldb-index-cache-path {}",
            super::lldb_quoted(&dir.to_string_lossy())
        ),
        "settings set symbols.enable-lldb-index-cache true".to_string(),
    ]
}
