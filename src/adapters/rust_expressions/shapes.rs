//! What a value of each standard type is, as the adapter shows it through Rust's formatters, and
//! how a step reads it: which child is a field, an element or a map's entry, what a pointer
//! points at, whether an `Option` is `Some`, how long a string is.
//!
//! The same value reads differently in each debugger: LLDB writes a reference as a C pointer
//! (`semver::VersionReq *`, its children the pointee's members), GDB in Rust's words (`&T`,
//! `*mut T`, one child `value`); an `Option`'s payload is `0` in LLDB and `__0` in GDB; an `Arc`'s
//! value is `data` in LLDB and `value` in GDB. Both are read here.

/// What kind of value a step meets, by its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A reference, raw pointer or `Box` (which both debuggers show as a pointer).
    Pointer,
    /// `Rc`, `Arc`: the value is their `value` (or LLDB's `data`) child.
    Counted,
    /// `Vec`, `VecDeque`, a slice or an array: elements `[0]`, `[1]`, ….
    Sequence,
    String,
    Str,
    /// `HashMap`, `BTreeMap`: entries named by their keys.
    Map,
    /// `HashSet`, `BTreeSet`.
    Set,
    Option,
    Result,
    Other,
}

impl Shape {
    pub fn of(type_name: &str) -> Shape {
        let t = type_name.trim();
        let generic = t.split('<').next().unwrap_or(t);
        let last = generic.rsplit("::").next().unwrap_or(generic);
        if t.starts_with("&[") || t.starts_with("&mut [") || is_array(t) {
            return Shape::Sequence;
        }
        if matches!(t, "&str" | "&mut str") {
            return Shape::Str;
        }
        if t.ends_with('*')
            || t.starts_with('&')
            || t.starts_with("*mut ")
            || t.starts_with("*const ")
        {
            return Shape::Pointer;
        }
        match last {
            "Box" => Shape::Pointer,
            "Rc" | "Arc" => Shape::Counted,
            "Vec" | "VecDeque" => Shape::Sequence,
            "String" | "OsString" | "PathBuf" => Shape::String,
            "HashMap" | "BTreeMap" => Shape::Map,
            "HashSet" | "BTreeSet" => Shape::Set,
            "Option" => Shape::Option,
            "Result" => Shape::Result,
            _ => Shape::Other,
        }
    }

    /// How an error names a value of this shape.
    pub fn noun(self) -> &'static str {
        match self {
            Shape::Pointer => "a reference",
            Shape::Counted => "an Rc or Arc",
            Shape::Sequence => "a sequence",
            Shape::String => "a String",
            Shape::Str => "a &str",
            Shape::Map => "a map",
            Shape::Set => "a set",
            Shape::Option => "an Option",
            Shape::Result => "a Result",
            Shape::Other => "a value",
        }
    }

    /// Whether `.len()` counts its children.
    pub fn counts_children(self) -> bool {
        matches!(self, Shape::Sequence | Shape::Map | Shape::Set)
    }
}

/// `u32[4]` (LLDB), `[u32; 4]` (GDB).
fn is_array(t: &str) -> bool {
    (t.starts_with('[') && t.ends_with(']') && t.contains(';'))
        || (t.ends_with(']') && !t.starts_with('[') && !t.starts_with('&') && {
            let open = t.rfind('[').unwrap_or(0);
            t[open + 1..t.len() - 1].bytes().all(|b| b.is_ascii_digit())
        })
}

/// The type a pointer of type `type_name` points at: `T` of `T *`, `&T`, `&mut T`, `*mut T`.
pub fn pointee_type(type_name: &str) -> String {
    let t = type_name.trim();
    let t = t.strip_suffix('*').map(str::trim_end).unwrap_or(t);
    let t = t
        .strip_prefix("&mut ")
        .or_else(|| t.strip_prefix('&'))
        .or_else(|| t.strip_prefix("*mut "))
        .or_else(|| t.strip_prefix("*const "))
        .unwrap_or(t);
    t.trim().to_string()
}

/// The child of a pointer or `Rc`/`Arc` that is what it points at: GDB's `value`, LLDB's `data`
/// (an `Arc`) or `*p` (a pointer to a scalar).
pub fn is_pointee_child(name: &str) -> bool {
    matches!(name, "value" | "data") || name.starts_with('*')
}

/// Whether `child` is the field `field`: `.0` is LLDB's `0` and GDB's `__0`.
pub fn names_field(field: &str, child: &str) -> bool {
    child == field
        || (field.bytes().all(|b| b.is_ascii_digit()) && child.strip_prefix("__") == Some(field))
}

/// Whether `child` is element `index`.
pub fn names_element(index: u128, child: &str) -> bool {
    child
        .strip_prefix('[')
        .and_then(|c| c.strip_suffix(']'))
        .and_then(|c| c.parse::<u128>().ok())
        == Some(index)
}

/// A map's key as the debugger names an entry: `"k"` for a string, `1` for a number, `'c'`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Text(String),
    Number(i128),
    Char(char),
    Other(String),
}

impl Key {
    /// A key from a value's text as the debugger writes it.
    pub fn from_shown(text: &str) -> Key {
        let text = without_address(text.trim());
        if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            return Key::Text(inner.to_string());
        }
        if let Ok(n) = text.parse::<i128>() {
            return Key::Number(n);
        }
        // A char: LLDB's `U+0x00000061 U'a'`, GDB's `97 'a'`.
        if let Some(quoted) = text.rsplit(' ').next().or(Some(text))
            && let Some(inner) = quoted
                .trim_start_matches('U')
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
            && inner.chars().count() == 1
            && let Some(c) = inner.chars().next()
        {
            return Key::Char(c);
        }
        Key::Other(text.to_string())
    }

    /// Whether an entry named `child` is this key's.
    pub fn names(&self, child: &str) -> bool {
        match (self, Key::from_shown(child)) {
            (Key::Text(a), Key::Text(b)) => *a == b || unescaped(&b).as_deref() == Some(a),
            (a, b) => *a == b,
        }
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Text(t) => write!(f, "{t:?}"),
            Key::Number(n) => write!(f, "{n}"),
            Key::Char(c) => write!(f, "{c:?}"),
            Key::Other(o) => f.write_str(o),
        }
    }
}

/// A pointer's text without its address: `"ada"` of `0x00005555555c1ef0 "ada"`.
pub fn without_address(text: &str) -> &str {
    match text.split_once(' ') {
        Some((address, rest)) if address.starts_with("0x") => rest.trim_start(),
        _ => text,
    }
}

/// Which variant an `Option` or `Result` is, from its text (`Some(3)`, `None`, `Err("x")`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Some,
    None,
    Ok,
    Err,
}

pub fn variant(text: &str) -> Option<Variant> {
    let text = text.trim();
    let name = text.split(['(', ' ', '{']).next().unwrap_or(text);
    let name = name.rsplit("::").next().unwrap_or(name);
    match name {
        "Some" => Some(Variant::Some),
        "None" => Some(Variant::None),
        "Ok" => Some(Variant::Ok),
        "Err" => Some(Variant::Err),
        _ => None,
    }
}

/// Whether `child` is a variant's payload: LLDB's `0`, GDB's `__0`.
pub fn is_payload_child(name: &str) -> bool {
    matches!(name, "0" | "__0")
}

/// The text inside a variant's parentheses: `"bad"` of `Err("bad")`.
pub fn payload_text(text: &str) -> &str {
    let text = text.trim();
    match (text.find('('), text.ends_with(')')) {
        (Some(open), true) => &text[open + 1..text.len() - 1],
        _ => text,
    }
}

/// A string's length in bytes, from its text: `"semver"` (LLDB writes the bytes as they are;
/// `escaped`: GDB writes Rust's escapes). `None` when the text is not the whole string (cut, or
/// GDB's `'a' <repeats 30 times>`).
pub fn string_length(text: &str, escaped: bool) -> Option<u64> {
    let text = without_address(text.trim());
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if escaped {
        if inner.contains("<repeats ") {
            return None;
        }
        return unescaped(inner).map(|s| s.len() as u64);
    }
    Some(inner.len() as u64)
}

/// Text with Rust's and C's escapes (`\"`, `\n`, `\u{e9}`, `\x41`, `\0`) read; `None` when an
/// escape is not one of them.
fn unescaped(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from(u8::from_str_radix(&hex, 16).ok()?));
            }
            'u' => {
                let rest: String = chars.by_ref().take_while(|c| *c != '}').collect();
                let hex = rest.strip_prefix('{')?;
                out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
            }
            other @ ('\\' | '"' | '\'') => out.push(other),
            _ => return None,
        }
    }
    Some(out)
}

/// An integer from a value's text (`4`, LLDB's `'\x04'` aside), for an index read from a
/// variable.
pub fn integer(text: &str) -> Option<u128> {
    text.trim().parse().ok()
}

/// Whether the adapter's words for a Rust expression mislead a reader who writes Rust: clang's
/// C++ (advice to use `->`, to call a function pointer, about templates and overloads), GDB's
/// search for a method the program compiled inline (`Could not find function named
/// 'alloc::vec::Vec<…>::len'`). Such a message is not shown.
pub fn misleads_in_rust(message: &str) -> bool {
    [
        "Could not find function named",
        "did you mean to use '->'",
        "is not a function or function pointer",
        "no matching function",
        "no matching member function",
        "non-static member function",
        "template",
        "overload",
        "C++",
        "cannot initialize",
        "no viable",
        "is a pointer",
    ]
    .iter()
    .any(|words| message.contains(words))
}

/// The type arguments of a generic type: `u32` and `&str` of `BTreeMap<u32, &str, Global>`; the
/// element of `&[u32]`, `u32[4]` and `[u32; 4]`.
pub fn type_arguments(type_name: &str) -> Vec<String> {
    let t = pointee_type(type_name);
    if let Some(inner) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return vec![inner.split(';').next().unwrap_or(inner).trim().to_string()];
    }
    if t.ends_with(']') && !t.contains('<') {
        return vec![t[..t.rfind('[').unwrap_or(t.len())].trim().to_string()];
    }
    let (Some(open), Some(close)) = (t.find('<'), t.rfind('>')) else {
        return Vec::new();
    };
    let mut arguments = Vec::new();
    let mut depth = 0;
    let mut start = open + 1;
    for (at, c) in t.char_indices().take(close).skip(open + 1) {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                arguments.push(t[start..at].trim().to_string());
                start = at + 1;
            }
            _ => {}
        }
    }
    arguments.push(t[start..close].trim().to_string());
    arguments
}

/// A type as Rust writes it where LLDB writes a reference as a C pointer: `&semver::Version` for
/// `semver::Version *`.
pub fn rust_type(type_name: &str) -> String {
    match type_name.trim().strip_suffix('*') {
        Some(pointee) => format!("&{}", pointee.trim_end()),
        None => type_name.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_told_from_both_debuggers_type_names() {
        for (t, shape) in [
            ("semver::VersionReq *", Shape::Pointer),
            ("&semver::VersionReq", Shape::Pointer),
            (
                "*mut alloc::vec::Vec<u32, alloc::alloc::Global>",
                Shape::Pointer,
            ),
            (
                "alloc::vec::Vec<u32, alloc::alloc::Global>",
                Shape::Sequence,
            ),
            ("&[u32]", Shape::Sequence),
            ("unsigned int[4]", Shape::Sequence),
            ("[u32; 4]", Shape::Sequence),
            ("&str", Shape::Str),
            ("alloc::string::String", Shape::String),
            (
                "std::collections::hash::map::HashMap<alloc::string::String, u32, std::hash::random::RandomState>",
                Shape::Map,
            ),
            (
                "alloc::collections::btree::map::BTreeMap<u32, &str, alloc::alloc::Global>",
                Shape::Map,
            ),
            (
                "core::option::Option<alloc::boxed::Box<alloc::string::String>>",
                Shape::Option,
            ),
            (
                "core::result::Result<u32, alloc::string::String>",
                Shape::Result,
            ),
            (
                "alloc::rc::Rc<expressions::Request, alloc::alloc::Global>",
                Shape::Counted,
            ),
            (
                "alloc::sync::Arc<alloc::string::String, alloc::alloc::Global>",
                Shape::Counted,
            ),
            ("expressions::Request", Shape::Other),
            ("unsigned long", Shape::Other),
        ] {
            assert_eq!(Shape::of(t), shape, "{t}");
        }
        assert_eq!(
            pointee_type("alloc::string::String *"),
            "alloc::string::String"
        );
        assert_eq!(pointee_type("&mut semver::Version"), "semver::Version");
        assert_eq!(pointee_type("*mut u8"), "u8");
        assert_eq!(
            type_arguments(
                "alloc::collections::btree::map::BTreeMap<u32, &str, alloc::alloc::Global>"
            ),
            ["u32", "&str", "alloc::alloc::Global"]
        );
        assert_eq!(type_arguments("&[u32]"), ["u32"]);
        assert_eq!(type_arguments("unsigned int[4]"), ["unsigned int"]);
        assert_eq!(type_arguments("[u32; 4]"), ["u32"]);
        assert_eq!(type_arguments("Vec<(u8, Vec<u8>)>"), ["(u8, Vec<u8>)"]);
        assert_eq!(rust_type("semver::Version *"), "&semver::Version");
    }

    #[test]
    fn children_are_named_as_each_debugger_names_them() {
        assert!(names_field("0", "0") && names_field("0", "__0") && names_field("op", "op"));
        assert!(!names_field("op", "__op"));
        assert!(names_element(3, "[3]") && !names_element(3, "[30]"));
        assert!(Key::Text("beta".into()).names("\"beta\""));
        assert!(Key::Number(2).names("2") && !Key::Number(2).names("\"2\""));
        assert!(Key::Char('>').names("U+0x0000003e U'>'") && Key::Char('>').names("62 '>'"));
        assert!(Key::Text("a\"b".into()).names(r#""a\"b""#));
        assert_eq!(Key::from_shown("\"beta\""), Key::Text("beta".into()));
    }

    #[test]
    fn variants_and_strings_are_read_from_their_text() {
        assert_eq!(variant("Some(\"ada\")"), Some(Variant::Some));
        assert_eq!(variant("None"), Some(Variant::None));
        assert_eq!(variant("Err(\"bad digit\")"), Some(Variant::Err));
        assert_eq!(
            variant("core::option::Option<u32>::None"),
            Some(Variant::None)
        );
        assert_eq!(variant("[1, 2]"), None);
        assert_eq!(payload_text("Err(\"bad digit\")"), "\"bad digit\"");
        assert_eq!(string_length("\"semver\"", false), Some(6));
        assert_eq!(string_length("0x00005555555c1ef0 \"ada\"", false), Some(3));
        assert_eq!(string_length("\"é\"", false), Some(2));
        assert_eq!(string_length(r#""a\"b\n""#, true), Some(4));
        assert_eq!(string_length("\"ab\"…", false), None);
        assert_eq!(
            string_length("\"x\", 'a' <repeats 30 times>, \"\"", true),
            None
        );
    }

    #[test]
    fn misleading_words_are_told_apart() {
        assert!(misleads_in_rust(
            "member reference type 'semver::VersionReq *' is a pointer; did you mean to use '->'?"
        ));
        assert!(misleads_in_rust(
            "called object type 'unsigned long' is not a function or function pointer"
        ));
        assert!(!misleads_in_rust("use of undeclared identifier 'nosuch'"));
    }
}
