//! `@FRAME:EXPR`: an expression evaluated in another frame of the stopped thread, written the same
//! way on every adapter (`print`, `eval`, `probe --print`).
//!
//! FRAME is a frame's number as `backtrace` counts them (0 the innermost: a probe's hit, so `@1`
//! is its caller), or a function's name, matched against the frames' function names nearest
//! first: the whole name, or its last parts (`main` for Go's `main.main`, `bump` or
//! `Counter::bump` for Rust's `counter::Counter::bump`, `add` for JavaScript's `Cart.add`,
//! `area` for C++'s `Rectangle::area() const`).
//!
//! Why `@`: no expression begins with it in C, C++, Rust, Go, Python or JavaScript (GDB's `a@n`
//! and Python's `a @ b` put it between operands; a decorator is a statement), so text that
//! begins with it is always this form there. Ruby's do (`@name`, `@@count`): for Ruby,
//! [`parse_with_at_names`] takes the form only where FRAME is a frame number or a plain function
//! name, which no Ruby expression is, and leaves the rest to Ruby. FRAME ends at the first `:` that is not
//! half of a `::`, so a function's path keeps its separators (`@Counter::bump:self.count`) and
//! the expression may hold colons of its own (`@main:d[1:2]`).

/// Which frame an `@FRAME:` prefix names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameRef<'a> {
    /// A frame number, as `backtrace` counts them.
    Index(u32),
    /// The nearest frame running this function.
    Function(&'a str),
}

/// An expression with the frame it is to be evaluated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtFrame<'a> {
    pub frame: FrameRef<'a>,
    pub expression: &'a str,
}

/// What `@FRAME:EXPR` is, for the errors that say how to write it.
pub const FORM: &str = "'@FRAME:EXPR' (FRAME a frame number, as `backtrace` counts them, or a \
                        function's name)";

/// `text` read as `@FRAME:EXPR`: `None` for an expression without the prefix (text that does not
/// begin with `@`), an error saying what is wrong for one that begins with `@` but is not of the
/// form.
pub fn parse(text: &str) -> Result<Option<AtFrame<'_>>, String> {
    let Some(rest) = text.trim_start().strip_prefix('@') else {
        return Ok(None);
    };
    let bytes = rest.as_bytes();
    let mut at = 0;
    let colon = loop {
        match bytes.get(at) {
            None => {
                return Err(format!(
                    "'{text}' names no expression: write {FORM}, e.g. '@1:i' or '@main:i'"
                ));
            }
            Some(b':') if bytes.get(at + 1) == Some(&b':') => at += 2,
            Some(b':') => break at,
            Some(_) => at += 1,
        }
    };
    let frame = rest[..colon].trim();
    let expression = rest[colon + 1..].trim();
    if frame.is_empty() {
        return Err(format!(
            "'{text}' names no frame: write {FORM}, e.g. '@1:i' or '@main:i'"
        ));
    }
    if expression.is_empty() {
        return Err(format!(
            "'{text}' has no expression after '@{frame}:': write {FORM}"
        ));
    }
    let frame = if frame.bytes().all(|b| b.is_ascii_digit()) {
        let index = frame
            .parse()
            .map_err(|_| format!("frame {frame} is not a frame number"))?;
        FrameRef::Index(index)
    } else {
        FrameRef::Function(frame)
    };
    Ok(Some(AtFrame { frame, expression }))
}

/// [`parse`] for a language whose own expressions may begin with `@` (Ruby's `@name`, `@@count`,
/// `@items[0]`): `@FRAME:EXPR` only where FRAME is a frame number or a plain function name
/// (`greet`, `Greeter#greet`, `Shop::Cart.add`), which no such expression is; any other text is
/// the language's own expression.
pub fn parse_with_at_names(text: &str) -> Option<AtFrame<'_>> {
    let at = parse(text).ok().flatten()?;
    let plain = match at.frame {
        FrameRef::Index(_) => true,
        FrameRef::Function(name) => name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '#' | '?' | '!')),
    };
    plain.then_some(at)
}

/// Whether a frame running `function` (its name as the stack shows it) is one `wanted` names:
/// the whole name, or its last parts after a `::` or a `.`, with C++'s parameter list and
/// qualifiers (`area() const`) and a generic function's arguments (`total<u8>`) left aside.
pub fn names_function(function: &str, wanted: &str) -> bool {
    let wanted = wanted.trim();
    if wanted.is_empty() {
        return false;
    }
    let name = without_signature(function);
    let bare = without_generic_arguments(name);
    [function.trim(), name, bare].iter().any(|candidate| {
        candidate == &wanted
            || candidate.strip_suffix(wanted).is_some_and(|before| {
                before.ends_with("::") || before.ends_with('.') && !wanted.starts_with('.')
            })
    })
}

/// The last part of `function`'s name (`main` of `main.main`, `bump` of
/// `counter::Counter::bump`, `area` of `Rectangle::area() const`), when it is a plain name an
/// `@FRAME:` prefix can give (not `{{closure}}`, `<module>`, `(anonymous)`).
pub fn short_name(function: &str) -> Option<&str> {
    let name = without_generic_arguments(without_signature(function));
    let last = [
        name.rfind("::").map(|at| at + 2),
        name.rfind('.').map(|at| at + 1),
    ]
    .into_iter()
    .flatten()
    .max()
    .map_or(name, |at| &name[at..]);
    let plain = last
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && last
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    plain.then_some(last)
}

/// `name` without a C++ parameter list and what follows it (`Rectangle::area() const` →
/// `Rectangle::area`); as it is when it has none (Go's `main.(*Ledger).apply` ends in a name, and
/// JavaScript's `(anonymous)` is all parentheses).
fn without_signature(name: &str) -> &str {
    let name = name.trim();
    let Some(close) = name.rfind(')') else {
        return name;
    };
    let after = name[close + 1..].trim();
    let qualifiers = after
        .split_whitespace()
        .all(|w| matches!(w, "const" | "volatile" | "&" | "&&" | "noexcept"));
    if !qualifiers {
        return name;
    }
    let mut depth = 0i32;
    for (at, c) in name[..=close].char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return if at == 0 { name } else { name[..at].trim_end() };
                }
            }
            _ => {}
        }
    }
    name
}

/// `name` without the generic arguments at its end (`total<u8>` → `total`).
fn without_generic_arguments(name: &str) -> &str {
    if !name.ends_with('>') {
        return name;
    }
    let mut depth = 0i32;
    for (at, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return if at == 0 { name } else { &name[..at] };
                }
            }
            _ => {}
        }
    }
    name
}

/// `text` as one shell word: in single quotes, or double ones when it holds a single quote and
/// nothing a shell reads inside double quotes.
pub fn shell_word(text: &str) -> String {
    if !text.contains('\'') {
        return format!("'{text}'");
    }
    if !text.contains(['"', '$', '`', '\\', '!']) {
        return format!("\"{text}\"");
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(frame: FrameRef<'static>, expression: &'static str) -> Option<AtFrame<'static>> {
        Some(AtFrame { frame, expression })
    }

    #[test]
    fn the_frame_ends_at_the_first_single_colon() {
        assert_eq!(parse("i"), Ok(None));
        assert_eq!(parse("a::b"), Ok(None));
        assert_eq!(parse("@1:i"), Ok(at(FrameRef::Index(1), "i")));
        assert_eq!(
            parse(" @main: acct->balance "),
            Ok(at(FrameRef::Function("main"), "acct->balance"))
        );
        assert_eq!(
            parse("@Counter::bump:self.count"),
            Ok(at(FrameRef::Function("Counter::bump"), "self.count"))
        );
        assert_eq!(
            parse("@main:d[1:2]"),
            Ok(at(FrameRef::Function("main"), "d[1:2]"))
        );
        assert_eq!(
            parse("@main.(*Ledger).apply:l.accounts"),
            Ok(at(FrameRef::Function("main.(*Ledger).apply"), "l.accounts"))
        );
        assert_eq!(
            parse("@run:std::mem::size_of::<u8>()"),
            Ok(at(FrameRef::Function("run"), "std::mem::size_of::<u8>()"))
        );
        for wrong in ["@main", "@:i", "@main:", "@a::b", "@99999999999:i"] {
            assert!(parse(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn where_names_begin_with_at_only_a_plain_frame_makes_a_prefix() {
        for expression in ["@name", "@@count", "@items[0]", "@h[:key]", "@a ? 1 : 2"] {
            assert_eq!(parse_with_at_names(expression), None, "{expression}");
        }
        assert_eq!(
            parse_with_at_names("@1:@name"),
            at(FrameRef::Index(1), "@name")
        );
        assert_eq!(
            parse_with_at_names("@Greeter#greet:text"),
            at(FrameRef::Function("Greeter#greet"), "text")
        );
        // Elsewhere, an `@` with no frame is still a mistake to point out.
        assert!(parse("@name").is_err());
    }

    #[test]
    fn a_function_is_named_whole_or_by_its_last_parts() {
        for (function, wanted) in [
            ("apply", "apply"),
            ("main.main", "main"),
            ("main.main", "main.main"),
            ("main.(*Ledger).apply", "apply"),
            ("main.(*Ledger).apply", "(*Ledger).apply"),
            ("counter::Counter::bump", "bump"),
            ("counter::Counter::bump", "Counter::bump"),
            ("Rectangle::area() const", "area"),
            ("Rectangle::area() const", "Rectangle::area"),
            ("geo::scale(Rectangle&, int)", "scale"),
            ("shapes_generic::total<u8>", "total"),
            ("Account.deposit", "deposit"),
            ("<module>", "<module>"),
            ("(anonymous)", "(anonymous)"),
        ] {
            assert!(names_function(function, wanted), "{function} {wanted}");
        }
        for (function, wanted) in [
            ("main.(*Ledger).apply", "main"),
            ("counter::main", "ain"),
            ("apply_all", "apply"),
            ("main", ""),
        ] {
            assert!(!names_function(function, wanted), "{function} {wanted}");
        }
    }

    #[test]
    fn the_short_name_is_the_last_plain_part() {
        assert_eq!(short_name("main.main"), Some("main"));
        assert_eq!(short_name("main.(*Ledger).apply"), Some("apply"));
        assert_eq!(short_name("counter::Counter::bump"), Some("bump"));
        assert_eq!(short_name("Rectangle::area() const"), Some("area"));
        assert_eq!(short_name("shapes_generic::total<u8>"), Some("total"));
        assert_eq!(short_name("Account.deposit"), Some("deposit"));
        assert_eq!(short_name("counter::main::{{closure}}"), None);
        assert_eq!(short_name("<module>"), None);
        assert_eq!(short_name("(anonymous)"), None);
    }

    #[test]
    fn a_shell_word_survives_the_shell() {
        assert_eq!(shell_word("@main:key"), "'@main:key'");
        assert_eq!(shell_word("@main:d['k']"), "\"@main:d['k']\"");
        assert_eq!(shell_word("@main:f('$x')"), r"'@main:f('\''$x'\'')'");
    }
}
