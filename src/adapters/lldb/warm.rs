//! What a warm lldb-dap does before the program it will run is known: it loads the C library.
//!
//! LLDB keeps every module it has read in a list shared by all the targets of its process, and
//! a new target takes a module from there when its path is the same. The C library is in nearly
//! every program's module list, under the path the dynamic loader gives it, and reading it
//! (its symbol table, and its separate debug file where one is installed, which LLDB indexes
//! whole as it loads a module, `target.preload-symbols`) is most of LLDB's time from `launch`
//! to the first stop: with Debian's libc6-dbg, 1.3-1.8 s against 0.57-0.84 s with the library
//! read before (lldb-dap 19, `launch` to `stopped` in `apply` of fixtures/c/ledger.c, load 9 on
//! 2 cores). The target made to read it is deleted again at once: what stays is the module in
//! LLDB's cache, the library's file as read from disk, nothing of any program. (LLDB checks a
//! cached module's file against the one on disk before it reuses it.)

/// `target create` of the C library, then `target delete` of it (see the module's note); nothing
/// where there is no C library to name, or when its path would need quoting beyond `"…"`.
pub(super) fn commands() -> Vec<String> {
    let Some(library) = crate::platform::c_library_path() else {
        return Vec::new();
    };
    let Some(path) = library.to_str() else {
        return Vec::new();
    };
    if path.contains(['"', '\\', '`', '$']) {
        return Vec::new();
    }
    vec![
        format!("target create \"{path}\""),
        "target delete --all".to_string(),
    ]
}

#[cfg(test)]
mod tests {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_c_library_is_loaded_and_its_target_deleted() {
        let commands = super::commands();
        assert_eq!(commands.len(), 2, "{commands:?}");
        assert!(
            commands[0].starts_with("target create \"/") && commands[0].ends_with("libc.so.6\""),
            "{commands:?}"
        );
        assert_eq!(commands[1], "target delete --all");
    }
}
