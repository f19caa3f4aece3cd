//! The rule of docs/architecture.md: no adapter names outside `src/adapters/`.
//!
//! What an adapter is called, how its version is read, how it is installed and what to do when it
//! is missing all live in the adapter table (`src/adapters/table.rs`) and the adapters' own
//! files, so adding an adapter touches that folder and no other. This reads every `.rs` file
//! under `src/` outside `src/adapters/` as text and fails, naming the file, the line and the
//! literal, on each string literal that names an adapter. Comments are not code, and unit tests
//! (`#[cfg(test)]` items, and the `tests.rs` files a `#[cfg(test)] mod tests;` brings in) may name
//! adapters as test data. [`ALLOWED`] holds the few literals
//! that stay, each with why; an entry that no longer matches fails too, so the list only shrinks.

mod common;

/// The names of the built-in adapters and their aliases (their executables, their former names),
/// from the adapter table. Its shorthands (`python`, `go`) are their languages' names, which
/// code outside the adapters may say.
fn names() -> Vec<&'static str> {
    debugger::adapters::ADAPTERS
        .iter()
        .flat_map(|row| std::iter::once(row.name()).chain(row.aliases.iter().copied()))
        .collect()
}

/// Literals that may name an adapter: (file relative to the crate root, the literal as written
/// between its quotes, why it cannot come from the table).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/commands/test/node.rs",
        "'node:test'",
        "the module of Node.js's test runner as a test file imports it (`require('node:test')`), \
         which picks that runner for the file: a module name, not the adapter",
    ),
    (
        "src/commands/test/node.rs",
        "\\\"node:test\\\"",
        "the same module name in double quotes (`import test from \"node:test\"`)",
    ),
    (
        "src/commands/test/node_list.rs",
        "node --test",
        "the name of Node.js's own test runner as users type it, a command and not the adapter: \
         `debugger test` reports which runner ran the test",
    ),
    (
        "src/daemon/dispatch.rs",
        "e.g. 'debugger attach --connect 127.0.0.1:5678 --adapter debugpy'",
        "an example command line for a user who gave no --adapter: it must name one real adapter, \
     and 5678 is the port debugpy's own documentation listens on, so the two go together",
    ),
    (
        "src/common/location.rs",
        "java",
        "the extension of a Java source file, among the extensions that mark `FILE:abc` as a bad \
         line: the language's word, which the java adapter is named after",
    ),
];

/// One string literal: the line it starts on and its text as written (escapes kept).
struct Literal {
    line: usize,
    text: String,
}

/// The string literals of Rust source outside comments and `#[cfg(test)]` items. A plain scan,
/// not a parser: enough for strings, raw strings, char literals, lifetimes and nested comments.
fn literals(source: &str) -> Vec<Literal> {
    let chars: Vec<char> = source.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    let mut line = 1;
    let mut depth = 0usize;
    // `#[cfg(test)]` seen at this depth: the next item (up to its closing brace) is a test.
    let mut test_attribute: Option<usize> = None;
    let mut in_test: Option<usize> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut nesting = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    nesting += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    nesting -= 1;
                    i += 2;
                    if nesting == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' || (c == 'r' && raw_string_start(&chars, i, is_ident)) {
            let start_line = line;
            let mut hashes = 0;
            let raw = c == 'r';
            if raw {
                i += 1;
                while chars[i] == '#' {
                    hashes += 1;
                    i += 1;
                }
            }
            i += 1; // the opening quote
            let mut text = String::new();
            while i < chars.len() {
                let ch = chars[i];
                if ch == '\\' && !raw {
                    text.push(ch);
                    if let Some(&escaped) = chars.get(i + 1) {
                        text.push(escaped);
                        line += usize::from(escaped == '\n');
                    }
                    i += 2;
                    continue;
                }
                if ch == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                line += usize::from(ch == '\n');
                text.push(ch);
                i += 1;
            }
            if in_test.is_none() {
                found.push(Literal {
                    line: start_line,
                    text,
                });
            }
        } else if c == '\'' {
            // A char literal ('x', '\n', '"') is skipped whole; a lifetime ('a) is one quote.
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else {
            let rest: String = chars[i..chars.len().min(i + 12)].iter().collect();
            if rest == "#[cfg(test)]" {
                test_attribute = Some(depth);
            }
            match c {
                '{' => {
                    if test_attribute == Some(depth) && in_test.is_none() {
                        in_test = Some(depth);
                        test_attribute = None;
                    }
                    depth += 1;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if in_test == Some(depth) {
                        in_test = None;
                    }
                }
                ';' if test_attribute == Some(depth) => test_attribute = None,
                _ => {}
            }
            i += 1;
        }
    }
    found
}

/// Whether `r` at `i` opens a raw string (`r"`, `r#"`, `br"`), not ends a name (`for"`).
fn raw_string_start(chars: &[char], i: usize, is_ident: impl Fn(char) -> bool) -> bool {
    let before = i.checked_sub(1).map(|b| chars[b]);
    let prefix_ok = match before {
        Some('b') => i < 2 || !is_ident(chars[i - 2]),
        Some(b) => !is_ident(b),
        None => true,
    };
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    prefix_ok && chars.get(j) == Some(&'"')
}

/// The adapter names `text` holds as whole words (`lldb-dap` holds `lldb`; `codelldb` does not).
fn names_in(text: &str) -> Vec<&'static str> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    names()
        .into_iter()
        .filter(|name| {
            text.match_indices(name).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + name.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            })
        })
        .collect()
}

#[test]
fn no_adapter_name_outside_the_adapters_folder() {
    let mut problems = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for (name, path) in &common::source_files() {
        if name.starts_with("src/adapters/") || name.ends_with("/tests.rs") {
            continue;
        }
        let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        for literal in literals(&source) {
            let named = names_in(&literal.text);
            if named.is_empty() {
                continue;
            }
            let allowed = ALLOWED
                .iter()
                .position(|(file, text, _)| *file == name && *text == literal.text);
            match allowed {
                Some(index) => used[index] = true,
                None => problems.push(format!(
                    "{name}:{}: \"{}\" names {}: take it from the adapter table (src/adapters/), or add it to ALLOWED with why",
                    literal.line,
                    literal.text,
                    named.join(", ")
                )),
            }
        }
    }
    for ((file, text, _), used) in ALLOWED.iter().zip(used) {
        if !used {
            problems.push(format!(
                "{file}: \"{text}\" is on ALLOWED but no such literal is there: take it off"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_sees_strings_and_skips_comments_chars_and_tests() {
    let source = r##"
// "lldb" in a comment
let a = "uses gdb";
let q = '"'; let b = "plain";
let c = r#"raw "node" here"#;
fn f<'a>(x: &'a str) -> &'a str { "codelldb" }
#[cfg(test)]
mod tests { fn t() { "debugpy"; } }
let d = "lldb-dap and dlv";
"##;
    let found: Vec<(usize, Vec<&str>)> = literals(source)
        .iter()
        .map(|l| (l.line, names_in(&l.text)))
        .filter(|(_, names)| !names.is_empty())
        .collect();
    assert_eq!(
        found,
        vec![
            (3, vec!["gdb"]),
            (5, vec!["node"]),
            (6, vec!["codelldb"]),
            (9, vec!["lldb", "lldb-dap", "dlv"]),
        ]
    );
}
