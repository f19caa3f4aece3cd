//! Where a JavaScript source's `try` blocks that catch are, to tell whether an exception thrown
//! at a place in a call frame will be caught by that frame: V8 pauses on a caught exception
//! without saying who catches it.
//!
//! A scan of braces, not a parse: it skips strings, template literals (and reads the code in
//! their `${}`), comments and regular expression literals (told from a division by what comes
//! before the `/`), and knows a block by what opens it: `try`, a function's body (after `=>`,
//! or after the parameters of `function f(…)` or a method), or anything else. A place is caught
//! when the innermost `try … catch` block around it is inside the innermost function body
//! around it: a function written inside a `try` but called later is not protected by it. An
//! arrow function without braces is not seen as a function, so a throw in one written inside a
//! `try` counts as caught there.

/// Keywords after which `(…) {` opens a block, not a function's body.
const CONTROL: &[&str] = &["if", "for", "while", "switch", "catch", "with", "await"];

/// Keywords after which a `/` starts a regular expression, not a division.
const BEFORE_REGEX: &[&str] = &[
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "yield",
    "await",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A `try` block; `true` once a `catch` is seen after it.
    Try(bool),
    Function,
    Other,
    /// The code in a template literal's `${…}`, which goes back into the literal at its `}`.
    Substitution,
}

/// A block of the source: byte offsets of its braces.
#[derive(Debug, Clone, Copy)]
struct Block {
    open: usize,
    close: usize,
    kind: Kind,
}

/// The blocks of one script that matter for catching: `try` blocks with a `catch` and
/// function bodies.
#[derive(Debug, Default)]
pub struct TryBlocks {
    blocks: Vec<Block>,
    /// The byte offset at which each line starts.
    lines: Vec<usize>,
    source: String,
}

impl TryBlocks {
    pub fn scan(source: &str) -> TryBlocks {
        let mut lines = vec![0];
        lines.extend(
            source
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        TryBlocks {
            blocks: blocks(source),
            lines,
            source: source.to_string(),
        }
    }

    /// Whether an exception thrown at 0-based `line`:`column` (V8's: UTF-16 units) is caught by
    /// a `try … catch` of the same function.
    pub fn catches(&self, line: usize, column: usize) -> bool {
        let Some(at) = self.offset(line, column) else {
            return false;
        };
        let mut around: Vec<&Block> = self
            .blocks
            .iter()
            .filter(|b| b.open < at && at < b.close)
            .collect();
        around.sort_by_key(|b| std::cmp::Reverse(b.open));
        around
            .iter()
            .find(|b| matches!(b.kind, Kind::Try(true) | Kind::Function))
            .is_some_and(|b| b.kind == Kind::Try(true))
    }

    fn offset(&self, line: usize, column: usize) -> Option<usize> {
        let start = *self.lines.get(line)?;
        let end = self
            .lines
            .get(line + 1)
            .copied()
            .unwrap_or(self.source.len());
        let text = self.source.get(start..end)?;
        let mut units = 0;
        for (i, c) in text.char_indices() {
            if units >= column {
                return Some(start + i);
            }
            units += c.len_utf16();
        }
        Some(end)
    }
}

/// Every block of `source`, each with its closing brace (the end of the source for one never
/// closed).
fn blocks(source: &str) -> Vec<Block> {
    let bytes = source.as_bytes();
    let mut done = Vec::new();
    let mut open: Vec<Block> = Vec::new();
    // For each `(` not yet closed, its offset; for the last `)`, where its `(` was.
    let mut parens: Vec<usize> = Vec::new();
    let mut last_paren_open = None;
    // The last significant byte before the current one, and the offset of the word it ends.
    let mut previous: Option<(u8, usize)> = None;
    // A try block just closed, waiting to see whether `catch` follows.
    let mut closed_try: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            (b'/', Some(b'*')) => {
                i = source[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |n| i + 2 + n + 2);
                continue;
            }
            _ => {}
        }
        if let Some(index) = closed_try.take()
            && word_at(source, i) == "catch"
        {
            done[index] = Block {
                kind: Kind::Try(true),
                ..done[index]
            };
        }
        let start = i;
        match b {
            b'/' if regex_may_start(source, previous) => i = skip_regex(bytes, i),
            b'\'' | b'"' => i = skip_string(bytes, i, b),
            b'`' => i = enter_template(bytes, i + 1, &mut open),
            b'(' => {
                parens.push(i);
                i += 1;
            }
            b')' => {
                last_paren_open = parens.pop();
                i += 1;
            }
            b'{' => {
                open.push(Block {
                    open: i,
                    close: bytes.len(),
                    kind: block_kind(source, previous, last_paren_open),
                });
                i += 1;
            }
            b'}' => {
                match open.pop() {
                    Some(block) if block.kind == Kind::Substitution => {
                        // Back into the template literal.
                        i = enter_template(bytes, i + 1, &mut open);
                        previous = Some((b'`', start));
                        continue;
                    }
                    Some(block) => {
                        if block.kind == Kind::Try(false) {
                            closed_try = Some(done.len());
                        }
                        done.push(Block { close: i, ..block });
                    }
                    None => {}
                }
                i += 1;
            }
            _ if is_word_byte(Some(b)) => {
                while is_word_byte(bytes.get(i).copied()) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
        previous = Some((bytes[i.min(bytes.len()) - 1], start));
    }
    done.extend(open);
    done.retain(|b| matches!(b.kind, Kind::Try(true) | Kind::Function));
    done
}

fn is_word_byte(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80)
}

/// The word (identifier or keyword) that starts at `start`, if one does.
fn word_at(source: &str, start: usize) -> &str {
    let end = source[start..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .map_or(source.len(), |n| start + n);
    &source[start..end]
}

/// The word that ends right before `end` (spaces between skipped).
fn word_before(source: &str, end: usize) -> &str {
    let text = source[..end].trim_end();
    let start = text
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .map_or(0, |n| n + 1);
    &text[start..]
}

fn block_kind(source: &str, previous: Option<(u8, usize)>, paren: Option<usize>) -> Kind {
    match previous {
        Some((b'>', at)) if at > 0 && source.as_bytes()[at - 1] == b'=' => Kind::Function,
        Some((b')', _)) => match paren {
            Some(paren) if CONTROL.contains(&word_before(source, paren)) => Kind::Other,
            Some(_) => Kind::Function,
            None => Kind::Other,
        },
        Some((_, at)) if word_at(source, at) == "try" => Kind::Try(false),
        _ => Kind::Other,
    }
}

fn regex_may_start(source: &str, previous: Option<(u8, usize)>) -> bool {
    match previous {
        None => true,
        Some((b, at)) if is_word_byte(Some(b)) => BEFORE_REGEX.contains(&word_at(source, at)),
        Some((b')' | b']', _)) => false,
        Some(_) => true,
    }
}

/// Past a string literal that opened at `start` with `quote` (or the end of its line).
fn skip_string(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
        if bytes[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

/// Past a regular expression literal at `start` (a `/` inside `[…]` does not end it).
fn skip_regex(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    let mut in_class = false;
    while i < bytes.len() && bytes[i] != b'\n' {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Where a template literal's text, read from `from`, stops.
enum TemplateStop {
    /// At the `{` of a `${`.
    Substitution(usize),
    /// Just past its closing backtick (or at the end of the source).
    Closed(usize),
}

fn skip_template(bytes: &[u8], from: usize) -> TemplateStop {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'`' => return TemplateStop::Closed(i + 1),
            b'$' if bytes.get(i + 1) == Some(&b'{') => return TemplateStop::Substitution(i + 1),
            _ => {}
        }
        i += 1;
    }
    TemplateStop::Closed(bytes.len())
}

/// Reads a template literal's text from `from`; at a `${`, opens its code as a block. Returns
/// where the scan goes on.
fn enter_template(bytes: &[u8], from: usize, open: &mut Vec<Block>) -> usize {
    match skip_template(bytes, from) {
        TemplateStop::Substitution(brace) => {
            open.push(Block {
                open: brace,
                close: bytes.len(),
                kind: Kind::Substitution,
            });
            brace + 1
        }
        TemplateStop::Closed(end) => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the place of the first `@` in `marked` is caught (the `@` is read as a space).
    fn caught(marked: &str) -> bool {
        let at = marked.find('@').expect("a marked place");
        let line = marked[..at].matches('\n').count();
        let line_start = marked[..at].rfind('\n').map_or(0, |n| n + 1);
        let column = marked[line_start..at].encode_utf16().count();
        TryBlocks::scan(&marked.replace('@', " ")).catches(line, column)
    }

    #[test]
    fn a_throw_in_a_try_with_a_catch_is_caught() {
        assert!(caught("try {\n  @risky();\n} catch (e) {}\n"));
        assert!(caught("try { @a() } catch { }"));
        assert!(caught("try { @a() } /* why */ catch { }"));
        assert!(caught("try { @a() } catch (e) {} finally { }"));
        assert!(caught(
            "function f() { if (x) { try { for (;;) { @a() } } catch (e) {} } }"
        ));
    }

    #[test]
    fn a_try_without_a_catch_or_outside_it_catches_nothing() {
        assert!(!caught("try { @a() } finally { }"), "finally only");
        assert!(!caught("try { a() } catch (e) { @b() }"), "in the catch");
        assert!(!caught("try { a() } catch (e) { }\n@b();"), "after it");
        assert!(!caught("retry { @x }"), "a word ending in try");
        assert!(!caught("const tryit = { @x: 1 }; try { } catch {}"));
    }

    #[test]
    fn a_function_written_inside_a_try_is_not_protected_by_it() {
        assert!(!caught("try { cb = () => { @a() } } catch {}"));
        assert!(!caught("try { cb = function (x) { @a() } } catch {}"));
        assert!(!caught("try { o = { m(x) { @a() } } } catch {}"));
        assert!(caught("function f() { try { if (x) { @a() } } catch {} }"));
        assert!(caught("try { while (x) { @a() } } catch {}"));
        assert!(caught("try { for await (const x of y) { @a() } } catch {}"));
    }

    #[test]
    fn braces_in_strings_comments_templates_and_regexes_are_not_code() {
        assert!(caught("try { s = '}'; t = \"}\"; // }\n @a() } catch {}"));
        assert!(caught("try { s = `} ${ {a: 1}.a } }`; @a() } catch {}"));
        assert!(caught("try { s = `${ `${ '}' }` }`; @a() } catch {}"));
        assert!(caught("try { r = /}[/}]/g.test(s); @a() } catch {}"));
        assert!(caught("try { r = x / 2 / y; if (x) { } @a() } catch {}"));
        assert!(caught(
            "try { return /}/; } catch {} function g() { try { @a() } catch {} }"
        ));
        assert!(!caught("const s = '{ try {'; @a();"));
        assert!(!caught("/* try { */ @a();"));
    }

    #[test]
    fn columns_count_utf16_units_as_v8_does() {
        // "é" is one UTF-16 unit and two bytes; "😀" two units and four bytes.
        assert!(caught("try { s = '😀é'; @a() } catch {}"));
        assert!(!caught("try { s = '😀é' } catch {} @a()"));
    }
}
