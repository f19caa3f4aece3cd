//! Rust expressions as a Rust programmer writes them: `req.comparators.len()`, `v[2]`,
//! `map.get(&"k")`, `opt.unwrap().name`, `s.as_str()`, fields through `&`, `Box`, `Rc` and `Arc`.
//!
//! Neither LLDB (whose evaluator is clang's, a C++ one) nor GDB (whose Rust parser calls a
//! method, and finds no `Vec::len` in a program that inlined it) evaluates these. But the values
//! they name are in the variables the adapter already gives, through Rust's formatters: a `Vec`'s
//! elements are its children, a map's entries its children named by their keys, an `Option`'s
//! payload its one child. So such an expression is read here as a root name and a chain of
//! postfix steps, and the session walks the chain over the adapter's variables
//! (`daemon/session/rust_evaluation.rs`), never calling into the program. This module holds the
//! forms (`parse`) and what each means for a value of each standard type (`shapes`).

mod parse;
pub mod shapes;

pub use parse::parse;

/// A Rust place expression: prefix operators, a root, then postfix steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// `*` and `&` before the root, outermost first; they apply after the steps (`*a.b` is
    /// `*(a.b)`).
    pub prefix: Vec<Prefix>,
    pub root: Root,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// `&` or `&mut`: the value itself, as the debugger shows a reference.
    Borrow,
    /// `*`: what a reference, pointer, `Box`, `Rc` or `Arc` holds.
    Deref,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Root {
    /// A variable (or `self`).
    Name(String),
    /// `( … )`.
    Group(Box<Chain>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `.name`, or `.0` of a tuple or tuple struct.
    Field(String),
    /// `[i]` of a sequence, `[k]` of a map.
    Index(Arg),
    Method(Method),
}

/// An index, a key, or a method's argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Literal(Literal),
    /// A path read in the same frame (`v[i]`, `map.get(&key)`).
    Path(Box<Chain>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    Integer(u128),
    Str(String),
    Char(char),
    Bool(bool),
}

/// The methods read without calling the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    Len,
    IsEmpty,
    /// `.get(i)` of a sequence, `.get(&k)` of a map: `Some(…)` or `None`.
    Get(Arg),
    First,
    Last,
    ContainsKey(Arg),
    Unwrap,
    /// `.expect("msg")`: `unwrap` whose failure says `msg`.
    Expect(String),
    UnwrapErr,
    IsSome,
    IsNone,
    IsOk,
    IsErr,
    /// A method that gives the same value as the debugger shows it (`.as_str()`, `.clone()`).
    Same(&'static str),
}

/// The methods that give the value itself, as the debugger shows it.
const SAME: &[&str] = &[
    "as_str",
    "as_ref",
    "as_mut",
    "as_slice",
    "as_deref",
    "as_deref_mut",
    "as_path",
    "borrow",
    "borrow_mut",
    "clone",
    "deref",
    "deref_mut",
    "to_owned",
];

/// The forms `print` reads in a Rust frame, for the errors and the docs.
pub const FORMS: &str = "fields (`a.b`, `t.0`, through `&`, `Box`, `Rc`, `Arc`), `[i]`, \
                         `[key]`, `*`, `&`, `.len()`, `.is_empty()`, `.get(i)`, `.get(&key)`, \
                         `.first()`, `.last()`, `.contains_key(&key)`, `.unwrap()`, \
                         `.expect(..)`, `.unwrap_err()`, `.is_some()`, `.is_none()`, `.is_ok()`, \
                         `.is_err()`, `.as_str()`, `.as_ref()`, `.clone()`";

/// Why a chain cannot be read without calling the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsupported {
    /// A method this module does not read (`.iter()`, `.to_uppercase()`).
    Method(String),
    /// A known method with arguments it does not take (`.get(1..3)`).
    Arguments(String),
}

impl Unsupported {
    /// The message and hint `print` answers with.
    pub fn explain(&self) -> (String, String) {
        let message = match self {
            Unsupported::Method(name) => format!(
                "`.{name}()` would run the program's code, which the debugger does not do to \
                 read a value"
            ),
            Unsupported::Arguments(name) => {
                format!(
                    "`.{name}(..)` is read only with an index or a key (`.{name}(2)`, `.{name}(&\"k\")`)"
                )
            }
        };
        (message, format!("print reads {FORMS}"))
    }
}

impl Chain {
    /// Whether the chain asks more than the adapter's own evaluator reads in every language
    /// (a method, a map's key): it is read over the variables wherever the frame's language is
    /// not known.
    pub fn needs_rust(&self) -> bool {
        let root = match &self.root {
            Root::Group(inner) => inner.needs_rust(),
            Root::Name(_) => false,
        };
        root || self.steps.iter().any(|s| match s {
            Step::Method(_) => true,
            Step::Index(Arg::Literal(Literal::Integer(_))) => false,
            Step::Index(_) => true,
            Step::Field(_) => false,
        })
    }

    /// Whether it is a bare name (`x`), which the adapter reads as well as anything.
    pub fn is_bare_name(&self) -> bool {
        self.prefix.is_empty() && self.steps.is_empty() && matches!(self.root, Root::Name(_))
    }
}

impl std::fmt::Display for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.prefix {
            f.write_str(match p {
                Prefix::Borrow => "&",
                Prefix::Deref => "*",
            })?;
        }
        match &self.root {
            Root::Name(name) => f.write_str(name)?,
            Root::Group(inner) => write!(f, "({inner})")?,
        }
        for step in &self.steps {
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Field(name) => write!(f, ".{name}"),
            Step::Index(arg) => write!(f, "[{arg}]"),
            Step::Method(method) => write!(f, "{method}"),
        }
    }
}

impl std::fmt::Display for Arg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arg::Literal(Literal::Integer(n)) => write!(f, "{n}"),
            Arg::Literal(Literal::Str(s)) => write!(f, "{s:?}"),
            Arg::Literal(Literal::Char(c)) => write!(f, "{c:?}"),
            Arg::Literal(Literal::Bool(b)) => write!(f, "{b}"),
            Arg::Path(chain) => write!(f, "{chain}"),
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::Len => f.write_str(".len()"),
            Method::IsEmpty => f.write_str(".is_empty()"),
            Method::Get(arg) => write!(f, ".get({arg})"),
            Method::First => f.write_str(".first()"),
            Method::Last => f.write_str(".last()"),
            Method::ContainsKey(arg) => write!(f, ".contains_key({arg})"),
            Method::Unwrap => f.write_str(".unwrap()"),
            Method::Expect(message) => write!(f, ".expect({message:?})"),
            Method::UnwrapErr => f.write_str(".unwrap_err()"),
            Method::IsSome => f.write_str(".is_some()"),
            Method::IsNone => f.write_str(".is_none()"),
            Method::IsOk => f.write_str(".is_ok()"),
            Method::IsErr => f.write_str(".is_err()"),
            Method::Same(name) => write!(f, ".{name}()"),
        }
    }
}

/// The refusal of a breakpoint condition that calls a method: the adapter evaluates conditions
/// itself, in the program, where such a method is not there to call. `None` for a condition
/// without one.
pub fn condition_refusal(condition: &str) -> Option<(String, String)> {
    let method = parse::first_method_call(condition)?;
    Some((
        format!(
            "the condition calls `.{method}()`, which the adapter cannot: it evaluates a condition \
             itself, in the program, where the standard library's methods are compiled inline"
        ),
        "compare a field instead: a Vec's length is its `len` field (`v.len > 3`; through a \
         reference in LLDB, `v->len > 3`), a String's is `s.vec.len`; or show the value at each \
         hit with `debugger probe … -p 'v.len()'`"
            .to_string(),
    ))
}

/// How an adapter that reads Rust programs shows what the chains read.
#[derive(Debug, Clone, Copy)]
pub struct RustReading {
    /// Whether a string's text carries Rust's escapes (GDB's `"a\"b"`) rather than its bytes
    /// as they are (LLDB's).
    pub escaped_strings: bool,
    /// Whether the adapter names a Rust program's pointer types as C's (LLDB's `m::V *` for
    /// `&m::V`): the session then gives them rustc's names, read from the program's DWARF
    /// (see [`super::rust_dwarf`]).
    pub c_pointer_names: bool,
}
