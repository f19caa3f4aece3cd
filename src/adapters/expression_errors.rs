//! What an adapter's words for a failed expression mean, so that `print` (and `memory read`,
//! `set`, `raw`) can say what to do next.
//!
//! Each debugger words the same failure its own way (an unknown name is LLDB's "use of
//! undeclared identifier", GDB's `No symbol "x" in current context.`, Python's `NameError`,
//! Delve's "could not find symbol value for x", V8's `ReferenceError: x is not defined`), and only
//! some failures are about names: a hint that sends every error to `debugger locals` sends a
//! syntax error or a `ZeroDivisionError` there too. So the words are matched here, per language
//! of expressions (LLDB's is clang's, whatever the program's language), in a table of rules.

/// What went wrong with an expression, as far as what to do next goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A name the frame does not have.
    UnknownName,
    /// A member the value does not have.
    UnknownMember,
    /// The text does not parse as an expression of the language.
    Syntax,
    /// A statement where an expression goes (Python's `x = 5`, `import os`).
    Statement,
    /// The expression ran and raised an exception of the program's language.
    Raised,
    /// A function call the adapter makes only when asked to (Delve's `call`).
    CallNotAsked,
}

/// One rule: a message that starts with `starts` and contains `contains` (either empty: any) is
/// a `fault`.
struct Rule {
    starts: &'static str,
    contains: &'static str,
    fault: Fault,
}

const fn rule(starts: &'static str, contains: &'static str, fault: Fault) -> Rule {
    Rule {
        starts,
        contains,
        fault,
    }
}

/// The expression language of one or more adapters.
struct Language {
    /// Tried in order; the first that matches wins.
    rules: &'static [Rule],
    /// An exception's own `Type: message` line (Python's `KeyError: 'k'`, JavaScript's
    /// `Error: x`) is one the expression raised, when no rule said otherwise.
    exceptions: bool,
    /// Words that begin a statement and never an expression: a syntax error on text that begins
    /// with one, or that assigns (`x = 5`), is a statement's.
    statement_words: &'static [&'static str],
    /// What runs or does what a statement would, in this language's adapter.
    statement_hint: &'static str,
}

/// LLDB (lldb-dap, CodeLLDB): clang's diagnostics, for C, C++ and Rust programs alike.
const CLANG: Language = Language {
    rules: &[
        rule("", "undeclared identifier", Fault::UnknownName),
        // LLDB's own, for a variable path it looked up without the compiler.
        rule("no variable named", "", Fault::UnknownName),
        rule("no member named", "", Fault::UnknownMember),
        // A Rust name that is no variable here but a module somewhere in the program
        // (`std::sys::thread_local::key`): no variable of that name, all the same.
        rule("unexpected namespace name", "", Fault::UnknownName),
        rule("expected ", "", Fault::Syntax),
        rule("extraneous ", "", Fault::Syntax),
        rule("unexpected ", "", Fault::Syntax),
    ],
    exceptions: false,
    statement_words: &[],
    statement_hint: "",
};

const GDB: Language = Language {
    rules: &[
        // `No symbol "x" in current context.` in C, `No symbol 'x' in current context` in Rust.
        rule("No symbol ", "in current context", Fault::UnknownName),
        rule("There is no member named", "", Fault::UnknownMember),
        rule("A syntax error in expression", "", Fault::Syntax),
        rule("Invalid character", "", Fault::Syntax),
    ],
    exceptions: false,
    statement_words: &[],
    statement_hint: "",
};

/// debugpy and pdb: Python's own exceptions.
const PYTHON: Language = Language {
    rules: &[
        rule("NameError:", "", Fault::UnknownName),
        rule("AttributeError:", "has no attribute", Fault::UnknownMember),
        rule("SyntaxError:", "", Fault::Syntax),
        rule("IndentationError:", "", Fault::Syntax),
    ],
    exceptions: true,
    statement_words: &[
        "import", "from", "raise", "def", "class", "del", "pass", "return", "assert", "global",
        "nonlocal", "with", "try", "for", "while", "if", "async", "break", "continue",
    ],
    statement_hint: "`debugger raw` runs a statement, and `debugger set NAME VALUE` assigns a variable",
};

/// Delve: Go's parser, and its evaluator's own words.
const GO: Language = Language {
    rules: &[
        rule("", "could not find symbol value for", Fault::UnknownName),
        rule("", "has no member", Fault::UnknownMember),
        rule(
            "",
            "function calls not allowed without using 'call'",
            Fault::CallNotAsked,
        ),
        rule("", "expected '==', found '='", Fault::Statement),
        rule("", ": expected ", Fault::Syntax),
        rule("", ": illegal character", Fault::Syntax),
    ],
    exceptions: false,
    statement_words: &[],
    statement_hint: "`debugger set NAME VALUE` assigns a variable",
};

/// Our node adapter: V8's exceptions. (An evaluation it stopped at its limit is told by the
/// session: `adapters::evaluation_limits`.)
const JAVASCRIPT: Language = Language {
    rules: &[
        rule("ReferenceError:", " is not defined", Fault::UnknownName),
        rule("SyntaxError:", "", Fault::Syntax),
        rule("Uncaught ", "", Fault::Raised),
    ],
    exceptions: true,
    statement_words: &[],
    statement_hint: "",
};

/// The language of `adapter`'s expressions; `None` for an adapter we do not know (one defined
/// in the config), whose words are matched against every language's.
fn language(adapter: &str) -> Option<&'static Language> {
    match adapter {
        "lldb" | "codelldb" => Some(&CLANG),
        "gdb" => Some(&GDB),
        "debugpy" | "pdb" => Some(&PYTHON),
        "delve" => Some(&GO),
        "node" => Some(&JAVASCRIPT),
        _ => None,
    }
}

/// What the message `message` (the adapter's, cleaned to its first line) says of `expression`.
/// `statements`: whether a statement would be out of place (it is in `print`, not in `raw`).
pub fn classify(adapter: &str, expression: &str, message: &str, statements: bool) -> Option<Fault> {
    let languages: &[&Language] = match language(adapter) {
        Some(one) => &[one],
        None => &[&CLANG, &GDB, &PYTHON, &GO, &JAVASCRIPT],
    };
    let fault = languages.iter().find_map(|l| matched(l, message))?;
    let statement = statements
        && fault == Fault::Syntax
        && languages
            .iter()
            .any(|l| !l.statement_hint.is_empty() && is_statement(l, expression));
    Some(if statement { Fault::Statement } else { fault })
}

fn matched(language: &Language, message: &str) -> Option<Fault> {
    let by_rule = language
        .rules
        .iter()
        .find(|r| message.starts_with(r.starts) && message.contains(r.contains))
        .map(|r| r.fault);
    by_rule
        .or_else(|| (language.exceptions && names_an_exception(message)).then_some(Fault::Raised))
}

/// `KeyError: 'k'`, `json.decoder.JSONDecodeError: ...`, `Error: x`: a capitalised dotted name,
/// then a colon.
fn names_an_exception(message: &str) -> bool {
    let Some((name, _)) = message.split_once(':') else {
        return false;
    };
    let last = name.rsplit('.').next().unwrap_or(name);
    last.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// Whether `expression` reads as a statement of `language`: it begins with a statement word,
/// or assigns at its top level (`x = 5`, `x += 1`; not `x == 5`, nor `f(a=1)`).
fn is_statement(language: &Language, expression: &str) -> bool {
    let text = expression.trim();
    let first = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    if language.statement_words.contains(&first) {
        return true;
    }
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, '=') if depth == 0 => {
                let before = i.checked_sub(1).map(|j| chars[j]);
                let after = chars.get(i + 1).copied();
                let comparison =
                    matches!(before, Some('=' | '!' | '<' | '>' | ':')) || after == Some('=');
                if !comparison {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// As [`explain`], in a selected frame that is (`innermost`) or is not the innermost: Delve calls
/// a function only in the innermost frame ("call is only supported with topmost stack frame"),
/// so elsewhere (the test's frame at a test's failure, under the failure machinery's) asking
/// for the call is a dead end, and the hint says how to get there instead.
pub fn explain_in_frame(
    adapter: &str,
    expression: &str,
    message: &str,
    statements: bool,
    innermost: bool,
) -> (String, String) {
    let (message, hint) = explain(adapter, expression, message, statements);
    if !innermost
        && classify(adapter, expression, &message, statements) == Some(Fault::CallNotAsked)
    {
        let hint = "Delve calls a function only in the innermost frame (frame 0), and this frame \
                    is not: stop where this frame is innermost (a test's, with 'debugger test \
                    NAME -b FILE:LINE' inside the test) and `debugger print 'call EXPR'` there"
            .to_string();
        return (message, hint);
    }
    (message, hint)
}

/// The error `print EXPRESSION` (or `memory read`, `set`, `raw`) shows for the adapter's
/// `message`: the message, said as what it is where that is clearer, and the hint for what to
/// do next (empty when there is nothing better to do than read the message).
pub fn explain(
    adapter: &str,
    expression: &str,
    message: &str,
    statements: bool,
) -> (String, String) {
    let fault = classify(adapter, expression, message, statements);
    let hint = match fault {
        None | Some(Fault::Raised) => String::new(),
        Some(Fault::UnknownName) => "`debugger locals` lists the names in scope here".to_string(),
        Some(Fault::UnknownMember) => match parent_of(expression) {
            Some(parent) => format!("`debugger print {parent}` shows the members it has"),
            None => "print the value it belongs to, to see the members it has".to_string(),
        },
        Some(Fault::Syntax) => {
            "check the expression's syntax (it is the program's language)".to_string()
        }
        Some(Fault::Statement) => language(adapter)
            .map(|l| l.statement_hint)
            .filter(|h| !h.is_empty())
            .unwrap_or(PYTHON.statement_hint)
            .to_string(),
        Some(Fault::CallNotAsked) => format!(
            "the adapter calls a function in the program only when asked: `debugger print 'call {}'`",
            expression.trim()
        ),
    };
    let message = match fault {
        Some(Fault::Raised) => format!(
            "the expression raised {}",
            message.strip_prefix("Uncaught ").unwrap_or(message)
        ),
        _ => message.to_string(),
    };
    (message, hint)
}

/// `acct` of `acct->nosuch`, `a.b` of `a.b.c`: the value whose member the expression names, when
/// it ends in one.
fn parent_of(expression: &str) -> Option<&str> {
    let text = expression.trim();
    let at = [text.rfind("->"), text.rfind('.')]
        .into_iter()
        .flatten()
        .max()?;
    let parent = text[..at].trim();
    let member = text[at..].trim_start_matches(['-', '>', '.']);
    (!parent.is_empty() && member.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then_some(parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(adapter: &str, expression: &str, message: &str) -> Option<Fault> {
        classify(adapter, expression, message, true)
    }

    #[test]
    fn each_adapters_words_for_an_unknown_name_are_known() {
        for (adapter, message) in [
            ("lldb", "use of undeclared identifier 'nosuch'"),
            ("gdb", "No symbol \"nosuch\" in current context."),
            ("gdb", "No symbol 'nosuch' in current context"),
            (
                "lldb",
                "unexpected namespace name 'key': expected expression",
            ),
            ("debugpy", "NameError: name 'nosuch' is not defined"),
            ("pdb", "NameError: name 'nosuch' is not defined"),
            (
                "delve",
                "Unable to evaluate expression: could not find symbol value for nosuch",
            ),
            ("node", "ReferenceError: nosuch is not defined"),
            ("custom", "No symbol \"nosuch\" in current context."),
        ] {
            assert_eq!(
                fault(adapter, "nosuch", message),
                Some(Fault::UnknownName),
                "{adapter}: {message}"
            );
        }
    }

    #[test]
    fn other_failures_are_not_unknown_names() {
        for (adapter, expression, message, expected) in [
            (
                "lldb",
                "acct->",
                "expected unqualified-id",
                Some(Fault::Syntax),
            ),
            (
                "gdb",
                "acct->",
                "A syntax error in expression, near `'.",
                Some(Fault::Syntax),
            ),
            ("gdb", "1/0", "Division by zero", None),
            (
                "debugpy",
                "d[",
                "SyntaxError: '[' was never closed (<string>, line 1)",
                Some(Fault::Syntax),
            ),
            (
                "debugpy",
                "x = 5",
                "SyntaxError: invalid syntax (<string>, line 1)",
                Some(Fault::Statement),
            ),
            (
                "debugpy",
                "import os",
                "SyntaxError: invalid syntax (<string>, line 1)",
                Some(Fault::Statement),
            ),
            (
                "debugpy",
                "x == 5",
                "SyntaxError: invalid syntax",
                Some(Fault::Syntax),
            ),
            (
                "debugpy",
                "1/0",
                "ZeroDivisionError: division by zero",
                Some(Fault::Raised),
            ),
            ("debugpy", "{}['k']", "KeyError: 'k'", Some(Fault::Raised)),
            (
                "debugpy",
                "self.nosuch",
                "AttributeError: 'Account' object has no attribute 'nosuch'",
                Some(Fault::UnknownMember),
            ),
            (
                "delve",
                "1 +",
                "Unable to evaluate expression: 1:4: expected operand, found 'EOF'",
                Some(Fault::Syntax),
            ),
            (
                "delve",
                "x = 5",
                "Unable to evaluate expression: 1:3: expected '==', found '='",
                Some(Fault::Statement),
            ),
            (
                "delve",
                "add(1, 2)",
                "Unable to evaluate expression: function calls not allowed without using 'call'",
                Some(Fault::CallNotAsked),
            ),
            (
                "delve",
                "1/0",
                "Unable to evaluate expression: division by zero",
                None,
            ),
            (
                "node",
                "a[",
                "SyntaxError: Unexpected end of input",
                Some(Fault::Syntax),
            ),
            ("node", "f()", "Error: x", Some(Fault::Raised)),
            ("node", "f()", "Uncaught 5", Some(Fault::Raised)),
        ] {
            assert_eq!(
                fault(adapter, expression, message),
                expected,
                "{adapter}: {expression}: {message}"
            );
        }
        // In the console (`raw`), a statement is what belongs there.
        assert_eq!(
            classify("debugpy", "x = ", "SyntaxError: invalid syntax", false),
            Some(Fault::Syntax)
        );
    }

    #[test]
    fn the_explanation_says_what_to_do_next() {
        let (message, hint) = explain(
            "debugpy",
            "1/0",
            "ZeroDivisionError: division by zero",
            true,
        );
        assert_eq!(
            message,
            "the expression raised ZeroDivisionError: division by zero"
        );
        assert_eq!(hint, "");
        let (_, hint) = explain(
            "lldb",
            "acct->nosuch",
            "no member named 'nosuch' in 'account'",
            true,
        );
        assert_eq!(hint, "`debugger print acct` shows the members it has");
        let (_, hint) = explain(
            "delve",
            "add(1, 2)",
            "function calls not allowed without using 'call'",
            true,
        );
        assert!(hint.contains("`debugger print 'call add(1, 2)'`"), "{hint}");
        let (_, hint) = explain_in_frame(
            "delve",
            "add(1, 2)",
            "function calls not allowed without using 'call'",
            true,
            false,
        );
        assert!(hint.contains("only in the innermost frame"), "{hint}");
        assert!(hint.contains("-b FILE:LINE"), "{hint}");
        let (_, hint) = explain("delve", "x = 5", "1:3: expected '==', found '='", true);
        assert_eq!(hint, "`debugger set NAME VALUE` assigns a variable");
        let (message, hint) = explain("gdb", "1/0", "Division by zero", true);
        assert_eq!((message.as_str(), hint.as_str()), ("Division by zero", ""));
    }
}
