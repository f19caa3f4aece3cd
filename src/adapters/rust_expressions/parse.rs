//! Reading text as a [`Chain`]: prefix `*`/`&`, a root name or a parenthesised chain, then
//! `.field`, `[index]` and `.method(args)` steps. Text that is anything more (arithmetic, a
//! comparison, a cast, a path with `::`) is no chain: the adapter's evaluator gets it unchanged.

use super::{Arg, Chain, Literal, Method, Prefix, Root, SAME, Step, Unsupported};

/// `text` read as a chain: `None` when it is no chain, an error when it is one that calls a
/// method read nowhere but in the program.
pub fn parse(text: &str) -> Option<Result<Chain, Unsupported>> {
    let mut reader = Reader {
        chars: text.chars().collect(),
        at: 0,
    };
    let chain = reader.chain()?;
    reader.blanks();
    if reader.at != reader.chars.len() {
        return None;
    }
    Some(chain)
}

/// The first method of the standard library (`len`, `unwrap`, …) called in `text`, outside its
/// string literals.
pub fn first_method_call(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let mut quote = None;
    while at < chars.len() {
        let c = chars[at];
        match quote {
            Some(_) if c == '\\' => at += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' => quote = Some(c),
            None if c == '.' => {
                let name: String = chars[at + 1..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || **c == '_')
                    .collect();
                let after = chars[at + 1 + name.chars().count()..]
                    .iter()
                    .find(|c| !c.is_whitespace());
                if after == Some(&'(') && is_std_method(&name) {
                    return Some(name);
                }
            }
            None => {}
        }
        at += 1;
    }
    None
}

fn is_std_method(name: &str) -> bool {
    SAME.contains(&name)
        || method(name, Vec::new()).is_some_and(|m| m.is_ok())
        || matches!(name, "get" | "contains_key" | "expect")
}

/// The method `name` called with `args`: `None` for one not read here, an error for one read
/// here with arguments it does not take.
fn method(name: &str, mut args: Vec<Arg>) -> Option<Result<Method, Unsupported>> {
    let wrong = || Some(Err(Unsupported::Arguments(name.to_string())));
    let plain = |m: Method| Some(Ok(m));
    if let Some(same) = SAME.iter().find(|s| **s == name) {
        return if args.is_empty() {
            plain(Method::Same(same))
        } else {
            wrong()
        };
    }
    let one = match args.len() {
        0 => None,
        1 => args.pop(),
        _ => return wrong(),
    };
    match (name, one) {
        ("len", None) => plain(Method::Len),
        ("is_empty", None) => plain(Method::IsEmpty),
        ("first", None) => plain(Method::First),
        ("last", None) => plain(Method::Last),
        ("unwrap", None) => plain(Method::Unwrap),
        ("unwrap_err", None) => plain(Method::UnwrapErr),
        ("is_some", None) => plain(Method::IsSome),
        ("is_none", None) => plain(Method::IsNone),
        ("is_ok", None) => plain(Method::IsOk),
        ("is_err", None) => plain(Method::IsErr),
        ("get", Some(arg)) => plain(Method::Get(arg)),
        ("contains_key", Some(arg)) => plain(Method::ContainsKey(arg)),
        ("expect", Some(Arg::Literal(Literal::Str(message)))) => plain(Method::Expect(message)),
        ("len" | "is_empty" | "first" | "last" | "unwrap" | "unwrap_err", Some(_))
        | ("is_some" | "is_none" | "is_ok" | "is_err", Some(_))
        | ("get" | "contains_key" | "expect", _) => wrong(),
        _ => None,
    }
}

struct Reader {
    chars: Vec<char>,
    at: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn blanks(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.blanks();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> Option<String> {
        self.blanks();
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        (self.at > start).then(|| self.chars[start..self.at].iter().collect())
    }

    fn chain(&mut self) -> Option<Result<Chain, Unsupported>> {
        let mut prefix = Vec::new();
        loop {
            if self.eat('*') {
                prefix.push(Prefix::Deref);
            } else if self.eat('&') {
                let before = self.at;
                if self.word().as_deref() != Some("mut") {
                    self.at = before;
                }
                prefix.push(Prefix::Borrow);
            } else {
                break;
            }
        }
        let root = if self.eat('(') {
            let inner = match self.chain()? {
                Ok(inner) => inner,
                Err(e) => return Some(Err(e)),
            };
            if !self.eat(')') {
                return None;
            }
            Root::Group(Box::new(inner))
        } else {
            let name = self.word()?;
            if name.starts_with(|c: char| c.is_ascii_digit()) || is_keyword(&name) {
                return None;
            }
            Root::Name(name)
        };
        let mut steps = Vec::new();
        loop {
            let before = self.at;
            // `->` is C's, which a reader used to LLDB or told so by clang writes; in a Rust
            // frame it can only mean the field.
            let arrow = self.eat('-') && self.peek() == Some('>') && {
                self.at += 1;
                true
            };
            if !arrow {
                self.at = before;
            }
            if arrow || self.eat('.') {
                let name = self.word()?;
                if self.eat('(') {
                    let args = match self.args()? {
                        Ok(args) => args,
                        Err(e) => return Some(Err(e)),
                    };
                    match method(&name, args) {
                        Some(Ok(m)) => steps.push(Step::Method(m)),
                        Some(Err(e)) => return Some(Err(e)),
                        None => return Some(Err(Unsupported::Method(name))),
                    }
                } else {
                    steps.push(Step::Field(name));
                }
            } else if self.eat('[') {
                let arg = match self.arg()? {
                    Ok(arg) => arg,
                    Err(e) => return Some(Err(e)),
                };
                if !self.eat(']') {
                    return None;
                }
                steps.push(Step::Index(arg));
            } else {
                self.at = before;
                break;
            }
        }
        Some(Ok(Chain {
            prefix,
            root,
            steps,
        }))
    }

    /// A call's arguments, after its `(`, through its `)`.
    fn args(&mut self) -> Option<Result<Vec<Arg>, Unsupported>> {
        let mut args = Vec::new();
        if self.eat(')') {
            return Some(Ok(args));
        }
        loop {
            match self.arg()? {
                Ok(arg) => args.push(arg),
                Err(e) => return Some(Err(e)),
            }
            if self.eat(')') {
                return Some(Ok(args));
            }
            if !self.eat(',') {
                return None;
            }
        }
    }

    /// A literal (a borrow of one too: `&"k"`, `&1`) or a chain.
    fn arg(&mut self) -> Option<Result<Arg, Unsupported>> {
        self.blanks();
        let before = self.at;
        while self.eat('&') {}
        if let Some(literal) = self.literal() {
            return Some(Ok(Arg::Literal(literal)));
        }
        self.at = before;
        Some(self.chain()?.map(|c| Arg::Path(Box::new(c))))
    }

    fn literal(&mut self) -> Option<Literal> {
        self.blanks();
        let c = self.peek()?;
        if c == '"' {
            self.at += 1;
            let mut text = String::new();
            loop {
                let c = self.peek()?;
                self.at += 1;
                match c {
                    '"' => return Some(Literal::Str(text)),
                    '\\' => text.push(self.escape()?),
                    c => text.push(c),
                }
            }
        }
        if c == '\'' {
            self.at += 1;
            let c = match self.peek()? {
                '\\' => {
                    self.at += 1;
                    self.escape()?
                }
                c => {
                    self.at += 1;
                    c
                }
            };
            return (self.peek() == Some('\'')).then(|| {
                self.at += 1;
                Literal::Char(c)
            });
        }
        if c.is_ascii_digit() {
            let start = self.at;
            let word = self.word()?;
            let number = integer(&without_suffix(&word));
            if number.is_none() {
                self.at = start;
            }
            return number.map(Literal::Integer);
        }
        let before = self.at;
        match self.word().as_deref() {
            Some("true") => Some(Literal::Bool(true)),
            Some("false") => Some(Literal::Bool(false)),
            _ => {
                self.at = before;
                None
            }
        }
    }

    /// The character an escape stands for, after its `\`.
    fn escape(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            'u' => {
                if !self.eat('{') {
                    return None;
                }
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    self.at += 1;
                }
                let hex: String = self.chars[start..self.at].iter().collect();
                if !self.eat('}') {
                    return None;
                }
                char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
            }
            other => other,
        })
    }
}

/// `10`, `0x1f`, `0b101`, `0o7`, without `_` or a suffix.
fn integer(text: &str) -> Option<u128> {
    let text: String = text.chars().filter(|c| *c != '_').collect();
    let (digits, radix) = match text.get(..2) {
        Some("0x") => (&text[2..], 16),
        Some("0b") => (&text[2..], 2),
        Some("0o") => (&text[2..], 8),
        _ => (text.as_str(), 10),
    };
    u128::from_str_radix(digits, radix).ok()
}

/// `10u32` → `10`: an integer's type suffix dropped.
fn without_suffix(word: &str) -> String {
    for suffix in [
        "usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8",
    ] {
        if let Some(number) = word.strip_suffix(suffix) {
            return number.to_string();
        }
    }
    word.to_string()
}

fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "true" | "false" | "as" | "mut" | "if" | "match" | "let" | "fn" | "return"
    )
}

#[cfg(test)]
mod tests;
