//! Where a JavaScript function named by the user begins, found in its source.
//!
//! V8 has no "break on the function called NAME" (its `setBreakpointOnFunctionCall` needs the
//! function object, which a module-local function never exposes), so a function breakpoint is
//! placed at the start of the body of each definition of that name: declarations
//! (`function f(`), functions and arrows bound to a name (`const f = (`, `f = function`, class
//! fields `f = (a) =>`), properties (`f: function(`, `f: a =>`), assignments to a member
//! (`obj.f = async (`, `X.prototype.f = function`), and methods (`f(a) {` in a class or object
//! literal). `Owner.f` narrows the search to definitions owned by that name: assignments to
//! `Owner.f` or `Owner.prototype.f`, and methods, properties and fields inside `class Owner`,
//! `Owner = class` or `Owner = {`.
//!
//! Bundled and minified files hold many definitions on one line (`}blockTokens(e){`), so a
//! definition is recognised by what may come before it, not by where its line starts, and each
//! place found is a line and a column.
//!
//! TypeScript sources (the originals a source map names, searched when the code V8 runs is a
//! bundle whose names a minifier changed) are read with their types: type parameters
//! (`f<T>(`), return types (`): number {`, `): T =>`), and a signature without a body
//! (`f(a: string): void;`, an overload) is no definition.

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

/// The shapes of definition looked for; each says how its owner is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `function f(`: owned by nothing.
    Declaration,
    /// `const f = ...`: owned by nothing.
    Variable,
    /// `f = ...`, an assignment or a class field: owned by the class around it.
    Field,
    /// `f: ...` in an object literal: owned by the object.
    Property,
    /// `X.f = ...`: owned by `X` (or by `C` for `C.prototype.f`).
    Member,
    /// `f(a) {` in a class or object literal: owned by it.
    Method,
}

/// Every body start of a function named `name` (`f` or `Owner.f`) in `source`.
pub fn find(source: &str, name: &str) -> Vec<BodyStart> {
    // Most scripts a program loads do not hold the name: they cost no compiled pattern.
    let method = name.rsplit('.').next().unwrap_or(name);
    if !source.contains(method) {
        return Vec::new();
    }
    Finder::new(name).map_or_else(Vec::new, |finder| finder.find(source))
}

/// The definitions of one name, its patterns compiled once to search many files.
pub struct Finder {
    method: String,
    qualifier: Option<String>,
    patterns: Vec<(Shape, Regex)>,
    /// For `Owner.f`: what introduces a class and an object literal (see [`enclosing_owners`]).
    owners: Option<(Regex, Regex)>,
    /// The source is TypeScript: its type parameters and return types are skipped.
    typed: bool,
}

impl Finder {
    /// `None` when `name` cannot name a function (`if`, `a b`).
    pub fn new(name: &str) -> Option<Finder> {
        Finder::with_types(name, false)
    }

    /// A finder for TypeScript sources (`typed`), or JavaScript ones.
    pub fn with_types(name: &str, typed: bool) -> Option<Finder> {
        let (qualifier, method) = match name.rsplit_once('.') {
            Some((qualifier, method)) => (Some(qualifier), method),
            None => (None, name),
        };
        if !is_identifier(method) || qualifier.is_some_and(|q| !is_identifier(q)) {
            return None;
        }
        let patterns = patterns(&regex::escape(method), typed)
            .into_iter()
            .filter_map(|(shape, pattern)| Some((shape, Regex::new(&pattern).ok()?)))
            .collect();
        let owners = match qualifier {
            Some(_) => Some(owner_patterns()?),
            None => None,
        };
        Some(Finder {
            method: method.to_string(),
            qualifier: qualifier.map(str::to_string),
            patterns,
            owners,
            typed,
        })
    }

    /// Every body start of the function in `source`.
    pub fn find(&self, source: &str) -> Vec<BodyStart> {
        // A file that does not hold the name at all (most of a `node_modules`) costs one scan.
        if !source.contains(&self.method) {
            return Vec::new();
        }
        let mut found = Vec::new();
        for (shape, regex) in &self.patterns {
            for captures in regex.captures_iter(source) {
                // The name is the last group of every pattern.
                let Some(named) = captures.iter().flatten().last() else {
                    continue;
                };
                // `const f =` is a variable, `function f(` a declaration: each has its own shape.
                let word = word_before(source, named.start());
                match shape {
                    Shape::Field if matches!(word, "const" | "let" | "var") => continue,
                    Shape::Method if word == "function" => continue,
                    _ => {}
                }
                if let (Some(qualifier), Some(owners)) = (&self.qualifier, &self.owners) {
                    let owned = match shape {
                        Shape::Declaration | Shape::Variable => false,
                        Shape::Member => {
                            let target = captures.get(1).map_or("", |m| m.as_str());
                            owner_of_member(target) == Some(qualifier.as_str())
                        }
                        Shape::Field | Shape::Property | Shape::Method => {
                            enclosing_owners(owners, &source[..named.start()])
                                .contains(&Some(qualifier.as_str()))
                        }
                    };
                    if !owned {
                        continue;
                    }
                }
                if let Some(offset) =
                    body_start(source, named.end(), *shape != Shape::Method, self.typed)
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
}

/// The pattern of each shape for the name `escaped`, whose last group is the name. ASCII classes
/// are spelled out: the regex crate is built without its Unicode tables, whose relocations every
/// CLI start would pay for (see Cargo.toml). `typed`: TypeScript's type parameters and an arrow's
/// return type may come between the name and the parameters, and the parameters and `=>`.
fn patterns(escaped: &str, typed: bool) -> [(Shape, String); 6] {
    let (generics, returns) = if typed {
        ("(?:<[^()]*>)?", "(?::[^=;{}]*)?")
    } else {
        ("", "")
    };
    // What may follow `=` or `:` for a function to be bound: `function`, `async function`,
    // `(a, b) =>`, `async (a) =>`, `a =>`, `async a =>`.
    let value = format!(
        r"(?:async{SPACE}*)?(?:function(?:[^{WORD}]|$)|{generics}\([^)]*\){SPACE}*{returns}=>|[A-Za-z_$][{WORD}]*{SPACE}*=>)"
    );
    [
        // function f(, async function f(, function* f(
        (
            Shape::Declaration,
            format!(r"(?:^|[^{WORD}.])function{SPACE}*\*?{SPACE}*({escaped}){SPACE}*{generics}\("),
        ),
        // const f = function, let f = async (a) =>, var f=a=>
        (
            Shape::Variable,
            format!(
                r"(?:^|[^{WORD}.])(?:const|let|var){SPACE}+({escaped}){SPACE}*={SPACE}*{value}"
            ),
        ),
        // f = function, static f = (a) => (not after a `.`: that is a member)
        (
            Shape::Field,
            format!(r"(?:^|[^{WORD}.])({escaped}){SPACE}*={SPACE}*{value}"),
        ),
        // f: function, f: (a) =>, f: a =>
        (
            Shape::Property,
            format!(r"(?:^|[{{,]|{SPACE})({escaped}){SPACE}*:{SPACE}*{value}"),
        ),
        // X.f = function, X.prototype.f = (a) =>
        (
            Shape::Member,
            format!(r"([{WORD}.]*)\.({escaped}){SPACE}*={SPACE}*{value}"),
        ),
        // `static async *f(a) {` at the start of a line or after a brace, `;` or `,`: in a
        // minified class a method follows the one before directly (`}f(a){`). That a body
        // opens after the parameters (so this is no call) is checked by `body_start`.
        (
            Shape::Method,
            format!(
                r"(?m)(?:^|[{{}};,]|{SPACE})(?:(?:static|async|get|set){SPACE}+)*\*?{SPACE}*({escaped}){SPACE}*{generics}\("
            ),
        ),
    ]
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
        && chars.all(is_word_char)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier just before `offset`, past whitespace and a generator's `*`.
fn word_before(source: &str, offset: usize) -> &str {
    let text = source
        .get(..offset)
        .unwrap_or_default()
        .trim_end_matches(|c: char| c.is_ascii_whitespace() || c == '*');
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| !is_word_char(*c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    &text[start..]
}

/// The owner a member assignment's target names: `Lexer` for `Lexer.f =`, `Lexer.prototype.f =`
/// and `exports.Lexer.prototype.f =`.
fn owner_of_member(target: &str) -> Option<&str> {
    let target = target.strip_suffix(".prototype").unwrap_or(target);
    target.rsplit('.').next().filter(|owner| !owner.is_empty())
}

/// What introduces a class (`class Name`, `Name = class`) and an object literal bound to a name
/// (`Name = {`, `Name: {`), each capturing the name.
fn owner_patterns() -> Option<(Regex, Regex)> {
    let class = Regex::new(&format!(
        r"(?:^|[^{WORD}])class{SPACE}+([A-Za-z_$][{WORD}]*)|([A-Za-z_$][{WORD}]*){SPACE}*={SPACE}*class(?:[^{WORD}]|$)"
    ))
    .ok()?;
    let object = Regex::new(&format!(r"([A-Za-z_$][{WORD}]*){SPACE}*[=:]{SPACE}*\{{")).ok()?;
    Some((class, object))
}

/// The names that may own a definition at the end of `before`: the nearest class above it, and
/// the nearest object literal bound to a name. A guess from the text, not a parse (an object
/// literal in one method comes between its class and the next method), so both are offered.
fn enclosing_owners<'a>((class, object): &(Regex, Regex), before: &'a str) -> [Option<&'a str>; 2] {
    let last = |regex: &Regex| {
        let captures = regex.captures_iter(before).last()?;
        captures
            .get(1)
            .or_else(|| captures.get(2))
            .map(|m| m.as_str())
    };
    [last(class), last(object)]
}

/// From just after a definition's name: past its parameter list (and, when `typed`, its return
/// type), to just inside the body's `{` (or, when `arrows`, just after the `=>` of an arrow
/// without braces). `None` when no body opens there: `f(a);` is a call, not a method, and
/// `f(a: string): void;` a signature.
fn body_start(source: &str, from: usize, arrows: bool, typed: bool) -> Option<usize> {
    let bytes = source.as_bytes();
    let at_arrow = |i: usize| bytes.get(i..).is_some_and(|rest| rest.starts_with(b"=>"));
    let skip_space = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = from;
    // The parameter list: the first `(`, or a lone arrow parameter.
    while i < bytes.len() && bytes[i] != b'(' && !at_arrow(i) {
        i += 1;
    }
    if bytes.get(i) == Some(&b'(') {
        let mut depth = 0usize;
        while let Some(&byte) = bytes.get(i) {
            i += 1;
            match byte {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    i = skip_space(i);
    if typed && bytes.get(i) == Some(&b':') {
        // A return type: what comes before the body's `{` or the arrow (an object type's own
        // braces, `): { a: number } {`, are taken for the body: a guess, not a parse).
        while i < bytes.len() && bytes[i] != b'{' && bytes[i] != b';' && !at_arrow(i) {
            i += 1;
        }
    }
    if at_arrow(i) {
        if !arrows {
            return None;
        }
        i = skip_space(i + 2);
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

    /// A minified bundle: a class, an object literal and a prototype assignment on one line.
    const BUNDLE: &str = "/*! lib */\n\
\"use strict\";var Lexer=class{constructor(e){this.s=e}blockTokens(e,t=[]){return t}static lex(e){return new Lexer(e)}};\
const o={inlineTokens(e){return e},count:e=>e.length,size:async(e)=>{return 1},\"é\":1};\
Lexer.prototype.walk=function(e){return this.blockTokens(e)};class T{handler=e=>{e()};*gen(){yield 1}}\
o.blockTokens(1);function run(){o.inlineTokens(2)}";

    /// Just after the first `needle` on `BUNDLE`'s second line, its column in UTF-16 units (the
    /// `"é"` before some definitions is one unit and two bytes).
    fn after(needle: &str) -> BodyStart {
        let line = BUNDLE.lines().nth(1).unwrap_or_default();
        let end = line.find(needle).map_or(0, |at| at + needle.len());
        let column = line[..end].encode_utf16().count();
        at(1, u32::try_from(column).unwrap_or(u32::MAX))
    }

    #[test]
    fn methods_in_a_minified_bundle_are_found_by_line_and_column() {
        assert_eq!(
            find(BUNDLE, "blockTokens"),
            vec![after("blockTokens(e,t=[]){")]
        );
        assert_eq!(
            find(BUNDLE, "Lexer.blockTokens"),
            find(BUNDLE, "blockTokens")
        );
        assert_eq!(find(BUNDLE, "lex"), vec![after("lex(e){")]);
        assert_eq!(
            find(BUNDLE, "inlineTokens"),
            vec![after("inlineTokens(e){")]
        );
        assert_eq!(find(BUNDLE, "o.inlineTokens"), find(BUNDLE, "inlineTokens"));
        assert_eq!(find(BUNDLE, "count"), vec![after("count:e=>")]);
        assert_eq!(find(BUNDLE, "size"), vec![after("size:async(e)=>{")]);
        assert_eq!(find(BUNDLE, "walk"), vec![after("walk=function(e){")]);
        assert_eq!(find(BUNDLE, "Lexer.walk"), find(BUNDLE, "walk"));
        assert_eq!(find(BUNDLE, "handler"), vec![after("handler=e=>{")]);
        assert_eq!(find(BUNDLE, "T.handler"), find(BUNDLE, "handler"));
        assert_eq!(find(BUNDLE, "gen"), vec![after("*gen(){")]);
        assert_eq!(find(BUNDLE, "run"), vec![after("function run(){")]);
        // Calls are not definitions, nor a method of another owner.
        assert!(find(BUNDLE, "T.blockTokens").is_empty());
        assert_eq!(find(BUNDLE, "constructor").len(), 1);
    }

    #[test]
    fn calls_and_unknown_names_are_not_definitions() {
        assert!(find(SOURCE, "nothing").is_empty());
        assert!(find(SOURCE, "if").is_empty());
        assert!(find(SOURCE, "a b").is_empty());
    }
}
