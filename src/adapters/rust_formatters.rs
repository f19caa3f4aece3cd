//! Rust's own value formatters, loaded into lldb-dap and GDB for a program built by rustc.
//!
//! Neither LLDB nor GDB knows how `String`, `Vec`, `Option` or `HashMap` are laid out: without
//! help a `String` is six levels of structs around a pointer, and a `Vec` shows no elements.
//! Every Rust toolchain ships formatters for its own layouts in `<sysroot>/lib/rustlib/etc`
//! (`lldb_lookup.py` + `lldb_commands` for LLDB, `gdb_load_rust_pretty_printers.py` for GDB),
//! which `rust-lldb` and `rust-gdb` load by hand. The session loads them the same way, as console
//! commands run after the adapter has read the program and before it runs — and only for a
//! program that holds Rust code, so a C session neither runs `rustc` nor imports any Python.

use std::path::{Path, PathBuf};

use crate::common::config::RustConfig;
use crate::common::user_files;

/// The formatter files of one toolchain, all of which exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formatters {
    /// The toolchain's root (`rustc --print sysroot`, or the config's `rust.sysroot`).
    pub sysroot: PathBuf,
    /// `lldb_lookup.py`, the module `lldb_commands` calls into.
    pub lldb_lookup: PathBuf,
    /// `lldb_commands`: the `type summary/synthetic add` lines that bind types to it.
    pub lldb_commands: PathBuf,
    /// `gdb_load_rust_pretty_printers.py`, which registers GDB's pretty printers.
    pub gdb_loader: PathBuf,
}

/// Where the formatters were looked for and why they were not found, for `doctor` and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound(pub String);

impl Formatters {
    /// The formatters of the toolchain at `sysroot`, if it has them all.
    pub fn in_sysroot(sysroot: &Path) -> Result<Formatters, NotFound> {
        let etc = sysroot.join("lib").join("rustlib").join("etc");
        let formatters = Formatters {
            sysroot: sysroot.to_path_buf(),
            lldb_lookup: etc.join("lldb_lookup.py"),
            lldb_commands: etc.join("lldb_commands"),
            gdb_loader: etc.join("gdb_load_rust_pretty_printers.py"),
        };
        for file in [
            &formatters.lldb_lookup,
            &formatters.lldb_commands,
            &formatters.gdb_loader,
        ] {
            if !file.is_file() {
                return Err(NotFound(format!("{} is missing", file.display())));
            }
        }
        Ok(formatters)
    }

    /// The LLDB commands that load them: the Python module, our summaries (see
    /// [`LLDB_SUMMARIES`]) with the catch-all one for structs, then Rust's type bindings (`-s 1`:
    /// without echoing each of the file's lines), then ours over theirs. LLDB takes the binding
    /// added last among those whose pattern matches, so the catch-all comes before every other.
    /// `None` for a path LLDB's quoting cannot carry.
    pub fn lldb_commands(&self) -> Option<Vec<String>> {
        let mut commands = vec![
            format!("command script import {}", lldb_quoted(&self.lldb_lookup)?),
            format!("script exec({})", one_line_python(LLDB_SUMMARIES)),
            lldb_binding(&LLDB_STRUCTS),
            format!("command source -s 1 {}", lldb_quoted(&self.lldb_commands)?),
        ];
        commands.extend(LLDB_BINDINGS.iter().map(lldb_binding));
        commands.push(LLDB_BYTES.to_string());
        Some(commands)
    }

    /// The GDB commands that load them (GDB's `source` takes the rest of the line as the name),
    /// then our printers over and beside theirs (see [`GDB_PRINTERS`]).
    pub fn gdb_commands(&self) -> Option<Vec<String>> {
        let path = self.gdb_loader.to_str()?;
        (!path.contains(['\n', '\r'])).then(|| {
            vec![
                format!("source {path}"),
                format!("python exec({})", one_line_python(GDB_PRINTERS)),
            ]
        })
    }
}

/// Our summaries (rust_summaries.py), which make a value read as Rust's `{:?}` writes it where
/// Rust's own formatters say `size=2`, `strong=1, weak=0` or nothing: collections (`["a", "b"]`,
/// `{"k": 1}`, a `BTreeMap`'s entries, which Rust's leave raw), `Rc("rc")`, `RefCell(4)`, structs,
/// what a pointer points to; strings and paths as leaves rather than lists of characters. They
/// also pick an enum's variant right where LLDB 19 truncates its discriminant values. The
/// elements stay children, for expansion.
const LLDB_SUMMARIES: &str = include_str!("rust_summaries.py");

/// Our GDB printers (rust_gdb_printers.py), put before Rust's: collections, `Rc`, `RefCell` and
/// paths as the LLDB summaries write them, and the values Rust's printers leave to GDB (enums,
/// structs, tuples, arrays, pointers), which GDB's DAP shows with an empty value, as `Some(3)`.
const GDB_PRINTERS: &str = include_str!("rust_gdb_printers.py");

/// A Python program as one string literal on one line, without its comments (whose backticks
/// LLDB's command line would run as expressions): a JSON string is a Python string literal.
fn one_line_python(program: &str) -> String {
    let code: Vec<&str> = program
        .lines()
        .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
        .collect();
    serde_json::Value::String(code.join("\n")).to_string()
}

/// Which summary (`-F`) or leaf provider (`-l`) each Rust type gets, by the type patterns of
/// Rust's own `lldb_commands` (as LLDB reads them in double quotes: `\\[` is a regex `\[`).
const LLDB_BINDINGS: &[(&str, &str)] = &[
    (
        "-F debugger_rust_sequence",
        r"^(alloc::([a-z_]+::)+)Vec<.+>$",
    ),
    (
        "-F debugger_rust_sequence",
        r"^(alloc::([a-z_]+::)+)VecDeque<.+>$",
    ),
    ("-F debugger_rust_sequence", r"^&(mut )?\\[.+\\]$"),
    ("-F debugger_rust_sequence", r"^.+\\[[0-9]+\\]$"),
    (
        "-F debugger_rust_keyed_map",
        r"^(std::collections::([a-z_]+::)+)HashMap<.+>$",
    ),
    (
        "-l debugger_rust_hash_map",
        r"^(std::collections::([a-z_]+::)+)HashMap<.+>$",
    ),
    (
        "-F debugger_rust_set",
        r"^(std::collections::([a-z_]+::)+)HashSet<.+>$",
    ),
    (
        "-F debugger_rust_keyed_map",
        r"^(alloc::([a-z_]+::)+)BTreeMap<.+>$",
    ),
    (
        "-l debugger_rust_btree",
        r"^(alloc::([a-z_]+::)+)BTreeMap<.+>$",
    ),
    (
        "-F debugger_rust_set",
        r"^(alloc::([a-z_]+::)+)BTreeSet<.+>$",
    ),
    (
        "-l debugger_rust_btree",
        r"^(alloc::([a-z_]+::)+)BTreeSet<.+>$",
    ),
    ("-F debugger_rust_counted", r"^(alloc::([a-z_]+::)+)Rc<.+>$"),
    (
        "-F debugger_rust_counted",
        r"^(alloc::([a-z_]+::)+)Arc<.+>$",
    ),
    (
        "-F debugger_rust_cell",
        r"^(core::([a-z_]+::)+)RefCell<.+>$",
    ),
    ("-F debugger_rust_pointee", r"^.+ \*$"),
    ("-l debugger_rust_leaf", r"^(alloc::([a-z_]+::)+)String$"),
    ("-l debugger_rust_leaf", r"^&(mut )?str$"),
    (
        "-l debugger_rust_leaf",
        r"^(std::ffi::([a-z_]+::)+)OsString$",
    ),
    ("-l debugger_rust_leaf", r"^(std::([a-z_]+::)+)PathBuf$"),
    (
        "-l debugger_rust_leaf",
        r"^&(mut )?(std::([a-z_]+::)+)Path$",
    ),
];

/// `u8` and `i8` as numbers, as Rust writes them (`Err(4)`, `[104, 105]`): LLDB reads rustc's
/// one-byte integers as C's `unsigned char` and `signed char`, and would show `'\x04'`.
const LLDB_BYTES: &str =
    "type format add --category Rust --format decimal \"unsigned char\" \"signed char\"";

/// Every struct's summary, `Point { x: 1, y: 2 }`, where LLDB has no other: the pattern matches
/// every type with a Rust path in its name, so a number, which has none, costs no call into
/// Python (LLDB 19 spends about a millisecond on each).
const LLDB_STRUCTS: (&str, &str) = ("-F debugger_rust_struct", "::");

/// The LLDB command that binds one of [`LLDB_SUMMARIES`]'s providers to a type pattern.
fn lldb_binding((provider, pattern): &(&str, &str)) -> String {
    let kind = if provider.starts_with("-F") {
        "summary add -e -h"
    } else {
        "synthetic add"
    };
    format!("type {kind} --category Rust {provider} -x \"{pattern}\"")
}

/// A path in LLDB's double quotes, unless it holds what LLDB interprets there. Windows paths take
/// `/` for their `\\` (which LLDB would read as an escape); Windows reads both alike.
fn lldb_quoted(path: &Path) -> Option<String> {
    let mut text = path.to_str()?.to_string();
    if std::path::MAIN_SEPARATOR == '\\' {
        text = text.replace('\\', "/");
    }
    (!text
        .chars()
        .any(|c| matches!(c, '"' | '\\' | '`') || c.is_control()))
    .then(|| format!("\"{text}\""))
}

/// The formatters the config asks for: its `rust.sysroot`, else the toolchain `rustc --print
/// sysroot` names (runs one short process).
pub fn locate(config: &RustConfig) -> Result<Formatters, NotFound> {
    let sysroot = match &config.sysroot {
        Some(sysroot) => sysroot.clone(),
        None => rustc_sysroot()?,
    };
    Formatters::in_sysroot(&sysroot)
}

/// `rustc --print sysroot`.
fn rustc_sysroot() -> Result<PathBuf, NotFound> {
    let output = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            NotFound(format!(
                "cannot run rustc ({e}); set rust.sysroot in the config"
            ))
        })?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || text.is_empty() {
        return Err(NotFound(
            "`rustc --print sysroot` failed; set rust.sysroot in the config".to_string(),
        ));
    }
    Ok(PathBuf::from(text))
}

/// [`setup_commands`] on a blocking thread, started at once: the session asks for it before
/// `initialize`, so the look-up (a file read, and for Rust a `rustc` run) overlaps the adapter's
/// own start.
pub fn setup_in_background(
    program: &Path,
    config: &RustConfig,
    commands: fn(&Formatters) -> Option<Vec<String>>,
) -> super::process::BoxFuture<'static, Vec<String>> {
    let program = program.to_path_buf();
    let config = config.clone();
    let task = tokio::task::spawn_blocking(move || setup_commands(&program, &config, commands));
    Box::pin(async move { task.await.unwrap_or_default() })
}

/// The console commands that load the Rust formatters for `program`, through `commands`
/// (the adapter's phrasing of them): none for a program without Rust code, with the formatters
/// turned off, or when none are found (said in the log; `doctor` says it to the user).
pub fn setup_commands(
    program: &Path,
    config: &RustConfig,
    commands: fn(&Formatters) -> Option<Vec<String>>,
) -> Vec<String> {
    if !config.formatters || !is_rust_program(program) {
        return Vec::new();
    }
    match locate(config) {
        Ok(formatters) => commands(&formatters).unwrap_or_else(|| {
            tracing::warn!(sysroot = %formatters.sysroot.display(), "the Rust formatters' path cannot be given to the adapter");
            Vec::new()
        }),
        Err(NotFound(why)) => {
            tracing::warn!("no Rust formatters for {}: {why}", program.display());
            Vec::new()
        }
    }
}

/// Whether `program` holds code built by rustc. For ELF, rustc names itself in the `.comment`
/// section ("rustc version 1.95.0 (...)"), found through the section table: a few small reads,
/// whatever the program's size. Other formats have no such section; there the paths of the
/// standard library's panic locations (`/rustc/<commit>/library/...`), which every program
/// linking Rust's std holds, are looked for in the file's first 64 MiB.
pub fn is_rust_program(program: &Path) -> bool {
    let Ok(mut file) = user_files::open_regular(program) else {
        return false;
    };
    let Some(ident) = read_at(&mut file, 0, 4) else {
        return false;
    };
    if ident == b"\x7fELF" {
        return elf_section(&mut file, b".comment")
            .is_some_and(|comment| contains(&comment, b"rustc version"));
    }
    use std::io::Read;
    let mut head = Vec::new();
    (&mut file)
        .take(64 * 1024 * 1024)
        .read_to_end(&mut head)
        .is_ok()
        && contains(&head, b"/rustc/")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// `len` bytes of `file` at `offset`, or `None` if it has fewer.
fn read_at(file: &mut std::fs::File, offset: u64, len: u64) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    // Section sizes come from the file: refuse a length no section of interest has.
    if len > 16 * 1024 * 1024 {
        return None;
    }
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut bytes = vec![0; usize::try_from(len).ok()?];
    file.read_exact(&mut bytes).ok()?;
    Some(bytes)
}

/// The contents of the ELF section named `name`, if `file` is an ELF file that has one.
fn elf_section(file: &mut std::fs::File, name: &[u8]) -> Option<Vec<u8>> {
    let ident = read_at(file, 0, 0x40)?;
    let wide = match ident.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let little = *ident.get(5)? == 1;
    let number = |bytes: &[u8], at: usize, size: usize| -> Option<u64> {
        let field = bytes.get(at..at.checked_add(size)?)?;
        let mut value = 0u64;
        for i in 0..size {
            let byte = if little {
                field[size - 1 - i]
            } else {
                field[i]
            };
            value = (value << 8) | u64::from(byte);
        }
        Some(value)
    };
    let word = if wide { 8 } else { 4 };
    let (shoff, shentsize, shnum, shstrndx) = if wide {
        (
            number(&ident, 0x28, 8)?,
            number(&ident, 0x3a, 2)?,
            number(&ident, 0x3c, 2)?,
            number(&ident, 0x3e, 2)?,
        )
    } else {
        (
            number(&ident, 0x20, 4)?,
            number(&ident, 0x2e, 2)?,
            number(&ident, 0x30, 2)?,
            number(&ident, 0x32, 2)?,
        )
    };
    let table = read_at(file, shoff, shentsize.checked_mul(shnum)?)?;
    // A section header: name (4), type (4), flags (word), addr (word), offset (word), size (word).
    let header = |index: u64| -> Option<(u64, u64, u64)> {
        let at = usize::try_from(index.checked_mul(shentsize)?).ok()?;
        Some((
            number(&table, at, 4)?,
            number(&table, at + 8 + 2 * word, word)?,
            number(&table, at + 8 + 3 * word, word)?,
        ))
    };
    let (_, names_at, names_size) = header(shstrndx)?;
    let names = read_at(file, names_at, names_size)?;
    let (_, offset, size) = (0..shnum).filter_map(header).find(|(name_at, _, _)| {
        let rest = usize::try_from(*name_at)
            .ok()
            .and_then(|at| names.get(at..))
            .unwrap_or_default();
        rest.split(|b| *b == 0).next() == Some(name)
    })?;
    read_at(file, offset, size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lldb_would_interpret_are_refused() {
        assert_eq!(
            lldb_quoted(Path::new("/a b/lldb_lookup.py")).as_deref(),
            Some("\"/a b/lldb_lookup.py\"")
        );
        for bad in ["/a\"b", "/a`b`", "/a\nb"] {
            assert_eq!(lldb_quoted(Path::new(bad)), None, "{bad}");
        }
        // A backslash is an escape to LLDB: refused in a Unix name, a separator on Windows.
        let backslashed = lldb_quoted(Path::new("C:\\a\\b"));
        if std::path::MAIN_SEPARATOR == '\\' {
            assert_eq!(backslashed.as_deref(), Some("\"C:/a/b\""));
        } else {
            assert_eq!(backslashed, None);
        }
    }

    /// LLDB runs what is between backticks on a command line as an expression.
    #[test]
    fn the_summaries_reach_lldb_on_one_line_without_backticks() {
        let script = format!("script exec({})", one_line_python(LLDB_SUMMARIES));
        assert!(script.starts_with("script exec(\"DEBUGGER_RUST_SHOWN = 16\\n"));
        let commands: Vec<String> = std::iter::once(script)
            .chain(
                LLDB_BINDINGS
                    .iter()
                    .chain([&LLDB_STRUCTS])
                    .map(lldb_binding),
            )
            .collect();
        for command in &commands {
            assert!(
                !command.contains('`') && !command.contains('\n'),
                "{command}"
            );
        }
    }

    #[test]
    fn a_sysroot_without_the_files_is_not_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = Formatters::in_sysroot(dir.path()).expect_err("empty sysroot");
        assert!(err.0.contains("lldb_lookup.py"), "{err:?}");
        let etc = dir.path().join("lib/rustlib/etc");
        std::fs::create_dir_all(&etc).expect("mkdir");
        for file in [
            "lldb_lookup.py",
            "lldb_commands",
            "gdb_load_rust_pretty_printers.py",
        ] {
            std::fs::write(etc.join(file), "").expect("write");
        }
        let found = Formatters::in_sysroot(dir.path()).expect("complete sysroot");
        let quoted = |file: &str| lldb_quoted(&etc.join(file)).expect("plain path");
        let commands = found.lldb_commands().expect("plain path");
        assert_eq!(
            [&commands[0], &commands[2], &commands[3]],
            [
                &format!("command script import {}", quoted("lldb_lookup.py")),
                // The catch-all before Rust's bindings, which LLDB then prefers to it.
                &lldb_binding(&LLDB_STRUCTS),
                &format!("command source -s 1 {}", quoted("lldb_commands")),
            ]
        );
    }

    #[test]
    fn the_comment_section_tells_rust_from_c() {
        // The test binary itself was built by rustc; a non-ELF file without Rust paths is not.
        let me = std::env::current_exe().expect("current exe");
        assert!(is_rust_program(&me));
        let dir = tempfile::tempdir().expect("tempdir");
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello").expect("write");
        assert!(!is_rust_program(&text));
    }
}
