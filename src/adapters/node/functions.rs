//! Where a JavaScript function named by the user begins, found in its source.
//!
//! V8 has no "break on the function called NAME" (its `setBreakpointOnFunctionCall` needs the
//! function object, which a module-local function never exposes), so a function breakpoint is
//! placed at the start of the body of each definition of that name: declarations
//! (`function f(`), functions and arrows bound to a name (`const f = (`, `f: function(`,
//! `obj.f = async (`), and methods (`  f(a) {` in a class or object literal). `Class.method`
//! narrows the search to methods of that class (or `Class.method =` assignments).

use regex::Regex;

/// The characters of a JavaScript identifier (ASCII), as a class body.
const WORD: &str = "A-Za-z0-9_$";
/// Whitespace, as a class.
const SPACE: &str = r"[ \t\r\n]";

/// A place to set a breakpoint: 0-based line and column (in UTF-16 units, as V8 counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyStart {
    pub line: u32,
    pub column: u32,
}

/// Every body start of a function named `name` (`f` or `Class.f`) in `source`.
pub fn find(source: &str, name: &str) -> Vec<BodyStart> {
    let (qualifier, method) = match name.rsplit_once('.') {
        Some((qualifier, method)) => (Some(qualifier), method),
        None => (None, name),
    };
    if !is_identifier(method) || qualifier.is_some_and(|q| !is_identifier(q)) {
        return Vec::new();
    }
    let escaped = regex::escape(method);
    // ASCII classes spelled out: the regex crate is built without its Unicode tables, whose
    // relocations every CLI start would pay for (see Cargo.toml).
    let patterns = [
        // function f(, async function f(, function* f(
        format!(r"(?:^|[^{WORD}])function{SPACE}*\*?{SPACE}*({escaped}){SPACE}*\("),
        // const f = function / async (a) => / a =>
        format!(
            r"(?:^|[^{WORD}])(?:const|let|var){SPACE}+({escaped}){SPACE}*={SPACE}*(?:async{SPACE}+)?(?:function(?:[^{WORD}]|$)|\([^)]*\){SPACE}*=>|[A-Za-z_$][{WORD}]*{SPACE}*=>)"
        ),
        // f: function / f: (a) =>
        format!(
            r"(?:^|[ \t\r\n,{{])({escaped}){SPACE}*:{SPACE}*(?:async{SPACE}+)?(?:function(?:[^{WORD}]|$)|\([^)]*\){SPACE}*=>)"
        ),
        // X.f = function / X.prototype.f = (a) =>
        format!(
            r"([{WORD}.]*)\.({escaped}){SPACE}*={SPACE}*(?:async{SPACE}+)?(?:function(?:[^{WORD}]|$)|\([^)]*\){SPACE}*=>)"
        ),
        // methods: `  static async *f(a) {`
        format!(
            r"(?m)^[ \t]*(?:static{SPACE}+)?(?:async{SPACE}+)?(?:get{SPACE}+|set{SPACE}+)?\*?{SPACE}*({escaped}){SPACE}*\([^)]*\){SPACE}*\{{"
        ),
    ];
    let mut found = Vec::new();
    for (index, pattern) in patterns.iter().enumerate() {
        let Ok(regex) = Regex::new(pattern) else {
            continue;
        };
        for captures in regex.captures_iter(source) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let assigned_to = (index == 3).then(|| captures.get(1).map_or("", |m| m.as_str()));
            if let Some(qualifier) = qualifier {
                let owner_matches = match assigned_to {
                    Some(target) => {
                        target == qualifier || target == format!("{qualifier}.prototype")
                    }
                    None => index == 4 && enclosing_class(source, whole.start()) == Some(qualifier),
                };
                if !owner_matches {
                    continue;
                }
            }
            if let Some(offset) = body_start(source, whole.start())
                && let Some(position) = position_of(source, offset)
                && !found.contains(&position)
            {
                found.push(position);
            }
        }
    }
    found.sort_by_key(|p| (p.line, p.column));
    found
}

/// Words that are never a function's name (`if (x) {` is not a method called `if`).
const KEYWORDS: &[&str] = &[
    "if", "for", "while", "switch", "catch", "function", "return", "with", "do", "else", "new",
    "typeof", "class",
];

fn is_identifier(text: &str) -> bool {
    if KEYWORDS.contains(&text) {
        return false;
    }
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The class whose body holds `offset`: the nearest `class Name` above it.
fn enclosing_class(source: &str, offset: usize) -> Option<&str> {
    let class = Regex::new(&format!(
        r"(?:^|[^{WORD}])class{SPACE}+([A-Za-z_$][{WORD}]*)"
    ))
    .ok()?;
    class
        .captures_iter(&source[..offset])
        .last()
        .and_then(|c| c.get(1))
        .map(|m| m.as_str())
}

/// From the start of a definition: past its parameter list, to just inside the body's `{` (or
/// just after `=>` for an arrow without braces).
fn body_start(source: &str, from: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut i = from;
    // The parameter list: the first `(`, or a lone arrow parameter.
    while i < bytes.len() && bytes[i] != b'(' && !source[i..].starts_with("=>") {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'(' {
        let mut depth = 0usize;
        while i < bytes.len() {
            match bytes[i] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    if source[i..].starts_with("=>") {
        i += 2;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        return Some(if bytes.get(i) == Some(&b'{') {
            i + 1
        } else {
            i
        });
    }
    (bytes.get(i) == Some(&b'{')).then_some(i + 1)
}

fn position_of(source: &str, offset: usize) -> Option<BodyStart> {
    let before = source.get(..offset)?;
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = before[line_start..].encode_utf16().count();
    Some(BodyStart {
        line: u32::try_from(line).ok()?,
        column: u32::try_from(column).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
function add(a, b) {
  return a + b;
}
const mul = (a, b) => a * b;
const ops = { sub: function (a, b) { return a - b; } };
class Point {
  constructor(x) { this.x = x; }
  norm() {
    return this.x;
  }
  static origin() { return new Point(0); }
}
Point.prototype.shift = function (d) { return this.x + d; };
async function tick(ms) {
  await null;
}
if (add(1, 2)) { add(3, 4); }
";

    fn at(line: u32, column: u32) -> BodyStart {
        BodyStart { line, column }
    }

    #[test]
    fn declarations_arrows_and_properties_are_found() {
        assert_eq!(find(SOURCE, "add"), vec![at(0, 20)]);
        assert_eq!(find(SOURCE, "mul"), vec![at(3, 22)]);
        assert_eq!(find(SOURCE, "sub"), vec![at(4, 36)]);
        assert_eq!(find(SOURCE, "tick"), vec![at(13, 25)]);
    }

    #[test]
    fn methods_are_found_plain_or_qualified() {
        assert_eq!(find(SOURCE, "norm"), vec![at(7, 10)]);
        assert_eq!(find(SOURCE, "Point.norm"), vec![at(7, 10)]);
        assert_eq!(find(SOURCE, "Point.origin"), vec![at(10, 19)]);
        assert_eq!(find(SOURCE, "Point.shift"), vec![at(12, 38)]);
        assert!(find(SOURCE, "Other.norm").is_empty());
    }

    #[test]
    fn calls_and_unknown_names_are_not_definitions() {
        assert!(find(SOURCE, "nothing").is_empty());
        assert!(find(SOURCE, "if").is_empty());
        assert!(find(SOURCE, "a b").is_empty());
    }
}
