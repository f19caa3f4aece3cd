//! The rule of the platform layer (`src/platform/`, docs/architecture.md): no other file under
//! `src/` makes an OS-specific call. It fails, naming the line, on `libc::`, an `std::os::unix`
//! or `std::os::windows` extension, a `/proc/` path, a Unix or Windows signal API, or a
//! `cfg(unix)`/`cfg(windows)`/`cfg(target_os …)` outside that folder. Comments and unit tests
//! (a trailing `#[cfg(test)]` module) are not read: a test may exercise the OS it runs on.
//! [`ALLOWED`] holds what stays, each with why; an entry that no longer matches fails too.

mod common;

/// What marks an OS-specific call.
const MARKS: &[&str] = &[
    "libc::",
    "std::os::unix",
    "std::os::windows",
    "std::os::fd",
    "\"/proc/",
    "signal::unix",
    "signal::windows",
    "cfg(unix",
    "cfg(windows",
    "cfg(target_os",
    "cfg!(target_os",
];

/// (file, the text on the line, why it stays).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/commands/doctor/ptrace.rs",
        "cfg!(target_os = \"linux\")",
        "Linux's ptrace policy is reported only on Linux; the check compiles everywhere",
    ),
    (
        "src/commands/doctor/ptrace.rs",
        "\"/proc/sys/kernel/yama/ptrace_scope\"",
        "the Yama ptrace policy doctor reports, read only on Linux (above)",
    ),
    (
        "src/commands/doctor/ptrace.rs",
        "\"/proc/self/status\"",
        "the capabilities doctor reports (CAP_SYS_PTRACE), read only on Linux (above)",
    ),
];

/// The lines of a source file that are code: before its test module, comments left out.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    common::code_lines(code)
}

#[test]
fn only_the_platform_layer_makes_os_specific_calls() {
    let mut wrong = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for (name, path) in common::source_files() {
        if name.starts_with("src/platform/") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (number, code) in code_lines(&text) {
            if !MARKS.iter().any(|mark| code.contains(mark)) {
                continue;
            }
            match ALLOWED
                .iter()
                .position(|(file, line, _)| *file == name && code.contains(line))
            {
                Some(index) => used[index] = true,
                None => wrong.push(format!("{name}:{number}: {}", code.trim())),
            }
        }
    }
    let stale: Vec<String> = ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|((file, line, _), _)| format!("{file}: {line}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "OS-specific calls outside src/platform/ (move them behind its interface):\n{}",
        wrong.join("\n")
    );
    assert!(
        stale.is_empty(),
        "allow-list entries that no longer match: {stale:?}"
    );
}

#[test]
fn the_scan_reads_code_and_skips_comments_and_tests() {
    let source = "use libc::kill; // libc::x\n// std::os::unix\n#[cfg(test)]\nmod tests {\n    use libc::y;\n}\n";
    let lines: Vec<_> = code_lines(source).collect();
    assert_eq!(lines, vec![(1, "use libc::kill; ")]);
}
