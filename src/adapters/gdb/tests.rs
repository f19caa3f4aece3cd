//! GDB's adapter: its advice, its line tables, its messages among the program's output and
//! the program's command line.

use super::*;

#[test]
fn the_advice_names_where_each_os_gets_a_gdb_with_dap() {
    assert!(
        advice(Os::Linux)
            .starts_with("install GDB 14 or newer from your distribution ('apt-get install gdb'")
    );
    assert!(advice(Os::MacOs).contains("'brew install gdb' (Intel Macs only"));
    let windows = advice(Os::Windows);
    assert!(
        windows.contains("'pacman -S mingw-w64-ucrt-x86_64-gdb'"),
        "{windows}"
    );
    assert!(windows.contains(r"ucrt64\bin"), "{windows}");
    assert!(
        Os::ALL
            .iter()
            .all(|os| advice(*os).ends_with("'debugger setup lldb' covers C, C++ and Rust"))
    );
}

#[test]
fn gdbs_line_tables_are_read_per_file() {
    let query = (PROFILE.console.line_tables)(Path::new("src/a.b.c"));
    assert_eq!(
        query.map(|q| q.command).as_deref(),
        Some(r"maint info line-table a\.b\.c$")
    );
    let answer = "objfile: /tmp/ledger ((struct objfile *) 0x55557818cdf0)\n\
        compunit_symtab: ledger.c ((struct compunit_symtab *) 0x55557821d470)\n\
        symtab: /src/ledger.c ((struct symtab *) 0x55557821d4f0)\n\
        linetable: ((struct linetable *) 0x555578246910):\n\
        INDEX  LINE   REL-ADDRESS        UNREL-ADDRESS      IS-STMT PROLOGUE-END\n\
        0      25     0x0000555555555159 0x0000000000001159 Y\n\
        1      26     0x0000555555555160 0x0000000000001160 Y\n\
        2      END    0x0000555555555332 0x0000000000001332 Y\n";
    let tables = read_line_tables(answer);
    assert_eq!(tables.len(), 1, "{tables:?}");
    assert_eq!(tables[0].file, PathBuf::from("/src/ledger.c"));
    assert_eq!(
        tables[0].lines.iter().copied().collect::<Vec<_>>(),
        [25, 26]
    );
}

#[test]
fn gdbs_breakpoint_messages_are_told_from_program_output() {
    for message in [
        "Breakpoint 2 at 0x55555555524f: file /src/ledger.c, line 50.",
        "Breakpoint 12 at 0x1149",
        "Temporary breakpoint 1 at 0x1149: file f.c, line 3.",
        "Breakpoint 1 (-function apply) pending.",
        "Breakpoint 3 (-source f.c -line 9) pending.",
        "Catchpoint 4 (throw)",
        "No symbol table is loaded.  Use the \"file\" command.",
        "No source file named /src/ledger.c.",
        "Function \"nosuch\" not defined.",
    ] {
        assert!(is_gdb_message(message), "{message}");
    }
    for line in [
        "Breakpoint reached",
        "Breakpoint 2 hit",
        "step 0: amount=0 balance=100 total=0",
        "Breakpoint at 0x10",
        "",
    ] {
        assert!(!is_gdb_message(line), "{line}");
    }
}

#[test]
fn arguments_are_quoted_for_the_shell_and_the_streams_redirected() {
    let stdio = crate::ipc::protocol::StdioPaths {
        stdin: PathBuf::from("/dev/null"),
        stdout: PathBuf::from("/run/d io/stdout"),
        stderr: PathBuf::from("/run/d io/stderr"),
    };
    let args = vec!["it's".to_string(), "$HOME > x".to_string()];
    assert_eq!(
        shell_arguments(&args, &stdio),
        "'it'\\''s' '$HOME > x' <'/dev/null' >'/run/d io/stdout' 2>'/run/d io/stderr'"
    );
}

#[test]
fn only_gdbs_lines_are_taken_out_of_an_output_event() {
    let clean = PROFILE.clean_program_output;
    let text = "square: 9\nBreakpoint 2 at 0x1149: file f.c, line 9.\nstep 0\n";
    assert_eq!(clean(text), "square: 9\nstep 0\n");
    assert!(matches!(clean("step 1\n"), Cow::Borrowed("step 1\n")));
}
