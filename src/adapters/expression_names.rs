//! The names an expression reads at its root, where a variable of the frame would be: `acct` and
//! `i` of `acct->balance + i`, not `balance`, a member. When an expression fails for a name the
//! frame lacks, these are the names looked for in the callers' frames.
//!
//! One reading serves every language the adapters evaluate (C, C++, Rust, Go, Python,
//! JavaScript): a member follows `.`, `->` or `::` in all of them, and literals are skipped.

/// The names `expression` reads at its root, each once, in order.
pub fn root_names(expression: &str) -> Vec<&str> {
    let bytes = expression.as_bytes();
    let mut names: Vec<&str> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c == b'"' || c == b'\'' || c == b'`' {
            at = after_literal(bytes, at);
        } else if c.is_ascii_digit() {
            // A number, with its suffix or base (`10u32`, `0x1f`, `1e5`).
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
        } else if starts_name(c) {
            let start = at;
            while at < bytes.len() && continues_name(bytes[at]) {
                at += 1;
            }
            let name = &expression[start..at];
            if !is_member(&expression[..start]) && !names.contains(&name) {
                names.push(name);
            }
        } else {
            at += 1;
        }
    }
    names
}

fn starts_name(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || !c.is_ascii()
}

fn continues_name(c: u8) -> bool {
    starts_name(c) || c.is_ascii_digit()
}

/// Whether a name after `before` is a member of what precedes it.
fn is_member(before: &str) -> bool {
    let before = before.trim_end();
    before.ends_with('.') || before.ends_with("->") || before.ends_with("::")
}

/// The index just past the literal that opens at `open`, its escapes skipped.
fn after_literal(bytes: &[u8], open: usize) -> usize {
    let quote = bytes[open];
    let mut at = open + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            c if c == quote => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_at_the_root_are_read() {
        assert_eq!(root_names("key"), ["key"]);
        assert_eq!(root_names("acct->balance + i"), ["acct", "i"]);
        assert_eq!(root_names("self.keys[slot].len()"), ["self", "slot"]);
        assert_eq!(root_names("std::mem::size_of::<u8>()"), ["std", "u8"]);
        assert_eq!(root_names("l.accounts[\"erin\"].Owner"), ["l"]);
        assert_eq!(root_names("d['k'] + len(d)"), ["d", "len"]);
        assert_eq!(root_names("this.total * 2 + 0x1f + 10u32"), ["this"]);
        assert_eq!(root_names("`${a}` + b"), ["b"]);
        assert_eq!(root_names("x . y"), ["x"]);
        assert!(root_names("1 + 2").is_empty());
    }
}
