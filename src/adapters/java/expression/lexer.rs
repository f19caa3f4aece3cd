//! Java's tokens as an expression holds them: names, keywords, literals (with Java's suffixes,
//! radixes, underscores and escapes) and operators, each with the column it starts at.

use super::error::{ExpressionError, LiteralProblem};

#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    Identifier(String),
    Keyword(Keyword),
    /// An `int` literal's digits as read, before its sign: `2147483648` is an int only after
    /// `-`. `decimal`: hexadecimal, octal and binary ones may fill all 32 bits.
    Int {
        value: u64,
        decimal: bool,
    },
    Long(i64),
    Float(f32),
    Double(f64),
    Char(u16),
    String(String),
    Punct(Punct),
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    True,
    False,
    Null,
    This,
    InstanceOf,
    /// Read to be refused by name.
    New,
    Super,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Punct {
    LeftParen,
    RightParen,
    LeftBracket,
    RightBracket,
    Dot,
    Comma,
    Question,
    Colon,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    Tilde,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    EqualEqual,
    BangEqual,
    AndAnd,
    OrOr,
    And,
    Or,
    Caret,
    ShiftLeft,
    ShiftRight,
    UnsignedShiftRight,
    Arrow,
    Equal,
}

impl Punct {
    pub fn text(self) -> &'static str {
        match self {
            Punct::LeftParen => "(",
            Punct::RightParen => ")",
            Punct::LeftBracket => "[",
            Punct::RightBracket => "]",
            Punct::Dot => ".",
            Punct::Comma => ",",
            Punct::Question => "?",
            Punct::Colon => ":",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Star => "*",
            Punct::Slash => "/",
            Punct::Percent => "%",
            Punct::Bang => "!",
            Punct::Tilde => "~",
            Punct::Less => "<",
            Punct::Greater => ">",
            Punct::LessEqual => "<=",
            Punct::GreaterEqual => ">=",
            Punct::EqualEqual => "==",
            Punct::BangEqual => "!=",
            Punct::AndAnd => "&&",
            Punct::OrOr => "||",
            Punct::And => "&",
            Punct::Or => "|",
            Punct::Caret => "^",
            Punct::ShiftLeft => "<<",
            Punct::ShiftRight => ">>",
            Punct::UnsignedShiftRight => ">>>",
            Punct::Arrow => "->",
            Punct::Equal => "=",
        }
    }
}

/// Longest first, so `>>>` is not read as `>` `>` `>`.
const PUNCTS: &[Punct] = &[
    Punct::UnsignedShiftRight,
    Punct::ShiftLeft,
    Punct::ShiftRight,
    Punct::LessEqual,
    Punct::GreaterEqual,
    Punct::EqualEqual,
    Punct::BangEqual,
    Punct::AndAnd,
    Punct::OrOr,
    Punct::Arrow,
    Punct::LeftParen,
    Punct::RightParen,
    Punct::LeftBracket,
    Punct::RightBracket,
    Punct::Dot,
    Punct::Comma,
    Punct::Question,
    Punct::Colon,
    Punct::Plus,
    Punct::Minus,
    Punct::Star,
    Punct::Slash,
    Punct::Percent,
    Punct::Bang,
    Punct::Tilde,
    Punct::Less,
    Punct::Greater,
    Punct::And,
    Punct::Or,
    Punct::Caret,
    Punct::Equal,
];

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    /// The column of its first character, from 1.
    pub column: usize,
    /// Its text as written, for errors.
    pub text: String,
}

/// The tokens of `source`, ending with [`TokenKind::End`].
pub fn tokenize(source: &str) -> Result<Vec<Token>, ExpressionError> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c.is_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        let kind = if c.is_alphabetic() || c == '_' || c == '$' {
            while at < chars.len()
                && (chars[at].is_alphanumeric() || chars[at] == '_' || chars[at] == '$')
            {
                at += 1;
            }
            word(chars[start..at].iter().collect())
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(at + 1).is_some_and(char::is_ascii_digit))
        {
            at = number_end(&chars, at);
            let text: String = chars[start..at].iter().collect();
            number(&text).map_err(|problem| ExpressionError::BadLiteral {
                text: text.clone(),
                problem,
                column: start + 1,
            })?
        } else if c == '"' || c == '\'' {
            let (kind, end) = quoted(&chars, at)?;
            at = end;
            kind
        } else {
            let rest: String = chars[at..chars.len().min(at + 3)].iter().collect();
            let Some(punct) = PUNCTS.iter().find(|p| rest.starts_with(p.text())) else {
                return Err(ExpressionError::Unsupported {
                    what: format!("'{c}'"),
                    column: at + 1,
                });
            };
            at += punct.text().chars().count();
            TokenKind::Punct(*punct)
        };
        tokens.push(Token {
            kind,
            column: start + 1,
            text: chars[start..at].iter().collect(),
        });
    }
    tokens.push(Token {
        kind: TokenKind::End,
        column: chars.len() + 1,
        text: String::new(),
    });
    Ok(tokens)
}

fn word(text: String) -> TokenKind {
    let keyword = match text.as_str() {
        "true" => Keyword::True,
        "false" => Keyword::False,
        "null" => Keyword::Null,
        "this" => Keyword::This,
        "instanceof" => Keyword::InstanceOf,
        "new" => Keyword::New,
        "super" => Keyword::Super,
        _ => return TokenKind::Identifier(text),
    };
    TokenKind::Keyword(keyword)
}

/// Where a number starting at `at` ends: digits, letters (radix prefixes, exponents, suffixes,
/// hex digits), underscores, a point, and a sign right after an exponent's `e`/`p`.
fn number_end(chars: &[char], mut at: usize) -> usize {
    let hex = chars.get(at) == Some(&'0') && matches!(chars.get(at + 1), Some('x' | 'X'));
    while let Some(&c) = chars.get(at) {
        let exponent_sign = (c == '+' || c == '-')
            && at > 0
            && if hex {
                matches!(chars[at - 1], 'p' | 'P')
            } else {
                matches!(chars[at - 1], 'e' | 'E')
            };
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' || exponent_sign {
            at += 1;
        } else {
            break;
        }
    }
    at
}

fn number(text: &str) -> Result<TokenKind, LiteralProblem> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    if text.starts_with('_') || text.ends_with('_') {
        return Err(LiteralProblem::Malformed);
    }
    let lower = clean.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let floating = if is_hex {
        lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e') || lower.ends_with('f') || lower.ends_with('d')
    };
    if floating {
        return floating_number(&lower);
    }
    let (digits, long) = match lower.strip_suffix('l') {
        Some(digits) => (digits, true),
        None => (lower.as_str(), false),
    };
    let (radix, digits) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex)
    } else if let Some(binary) = digits.strip_prefix("0b") {
        (2, binary)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if digits.is_empty() {
        return Err(LiteralProblem::Malformed);
    }
    let value = u64::from_str_radix(digits, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => LiteralProblem::TooLarge,
        _ => LiteralProblem::Malformed,
    })?;
    let decimal = radix == 10;
    if long {
        if decimal && value > i64::MAX as u64 + 1 {
            return Err(LiteralProblem::TooLarge);
        }
        // 9223372036854775808L is only valid after `-`, which wraps it to Long.MIN_VALUE.
        return Ok(TokenKind::Long(value as i64));
    }
    let limit = if decimal {
        i32::MAX as u64 + 1
    } else {
        u32::MAX as u64
    };
    if value > limit {
        return Err(LiteralProblem::TooLarge);
    }
    Ok(TokenKind::Int { value, decimal })
}

fn floating_number(lower: &str) -> Result<TokenKind, LiteralProblem> {
    let (body, float) = match lower.strip_suffix('f') {
        Some(body) if !lower.starts_with("0x") || lower.contains('p') => (body, true),
        _ => (lower.strip_suffix('d').unwrap_or(lower), false),
    };
    let value = if let Some(hex) = body.strip_prefix("0x") {
        hex_floating(hex).ok_or(LiteralProblem::Malformed)?
    } else {
        body.parse::<f64>().map_err(|_| LiteralProblem::Malformed)?
    };
    if !value.is_finite() {
        return Err(LiteralProblem::TooLarge);
    }
    if float {
        let narrow = body.parse::<f32>().unwrap_or(value as f32);
        if !narrow.is_finite() {
            return Err(LiteralProblem::TooLarge);
        }
        return Ok(TokenKind::Float(narrow));
    }
    Ok(TokenKind::Double(value))
}

/// `1.8p3` (after `0x`): hex digits with an optional point, times two to the exponent.
fn hex_floating(text: &str) -> Option<f64> {
    let (mantissa, exponent) = text.split_once('p')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in whole.chars() {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in fraction.chars() {
        value += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some(value * 2f64.powi(exponent))
}

/// A string or char literal starting at the quote at `at`: its token and where it ends.
fn quoted(chars: &[char], at: usize) -> Result<(TokenKind, usize), ExpressionError> {
    let quote = chars[at];
    let mut units: Vec<u16> = Vec::new();
    let mut i = at + 1;
    let error = |problem, end: usize| ExpressionError::BadLiteral {
        text: chars[at..end.min(chars.len())].iter().collect(),
        problem,
        column: at + 1,
    };
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(error(LiteralProblem::Unterminated, i));
        };
        i += 1;
        if c == quote {
            break;
        }
        if c == '\n' {
            return Err(error(LiteralProblem::Unterminated, i));
        }
        if c != '\\' {
            let mut buffer = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buffer));
            continue;
        }
        let Some(&escape) = chars.get(i) else {
            return Err(error(LiteralProblem::Unterminated, i));
        };
        i += 1;
        let unit = match escape {
            'b' => 0x08,
            't' => 0x09,
            'n' => 0x0a,
            'f' => 0x0c,
            'r' => 0x0d,
            's' => 0x20,
            '"' => 0x22,
            '\'' => 0x27,
            '\\' => 0x5c,
            'u' => {
                while chars.get(i) == Some(&'u') {
                    i += 1;
                }
                let hex: String = chars.get(i..i + 4).unwrap_or_default().iter().collect();
                let unit = (hex.len() == 4)
                    .then(|| u16::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or_else(|| error(LiteralProblem::BadEscape, i + 4))?;
                i += 4;
                unit
            }
            '0'..='7' => {
                // Up to three octal digits, at most \377.
                let max_digits = if escape <= '3' { 3 } else { 2 };
                let mut value = escape.to_digit(8).unwrap_or(0);
                let mut digits = 1;
                while digits < max_digits
                    && let Some(d) = chars.get(i).and_then(|c| c.to_digit(8))
                {
                    value = value * 8 + d;
                    i += 1;
                    digits += 1;
                }
                value as u16
            }
            _ => return Err(error(LiteralProblem::BadEscape, i)),
        };
        units.push(unit);
    }
    if quote == '"' {
        return Ok((TokenKind::String(String::from_utf16_lossy(&units)), i));
    }
    match units.as_slice() {
        [unit] => Ok((TokenKind::Char(*unit), i)),
        _ => Err(error(LiteralProblem::NotOneCharacter, i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        tokenize(source)
            .expect("tokens")
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    fn one(source: &str) -> TokenKind {
        kinds(source).remove(0)
    }

    fn problem(source: &str) -> LiteralProblem {
        match tokenize(source) {
            Err(ExpressionError::BadLiteral { problem, .. }) => problem,
            other => panic!("{source}: {other:?}"),
        }
    }

    #[test]
    fn integers_in_every_radix_with_underscores_and_suffixes() {
        assert_eq!(
            one("1_000"),
            TokenKind::Int {
                value: 1000,
                decimal: true
            }
        );
        assert_eq!(
            one("0xFF"),
            TokenKind::Int {
                value: 255,
                decimal: false
            }
        );
        assert_eq!(
            one("0b101"),
            TokenKind::Int {
                value: 5,
                decimal: false
            }
        );
        assert_eq!(
            one("017"),
            TokenKind::Int {
                value: 15,
                decimal: false
            }
        );
        assert_eq!(one("42L"), TokenKind::Long(42));
        assert_eq!(one("0xFFFFFFFFFFFFFFFFL"), TokenKind::Long(-1));
        assert_eq!(
            one("2147483648"),
            TokenKind::Int {
                value: 2_147_483_648,
                decimal: true
            }
        );
        assert_eq!(problem("2147483649"), LiteralProblem::TooLarge);
        assert_eq!(problem("0x1_0000_0000"), LiteralProblem::TooLarge);
        assert_eq!(problem("09"), LiteralProblem::Malformed);
        assert_eq!(problem("1_"), LiteralProblem::Malformed);
    }

    #[test]
    fn floating_literals() {
        assert_eq!(one("1.5"), TokenKind::Double(1.5));
        assert_eq!(one(".5"), TokenKind::Double(0.5));
        assert_eq!(one("1e3"), TokenKind::Double(1000.0));
        assert_eq!(one("2.5e-1"), TokenKind::Double(0.25));
        assert_eq!(one("1.5f"), TokenKind::Float(1.5));
        assert_eq!(one("2d"), TokenKind::Double(2.0));
        assert_eq!(one("0x1.8p1"), TokenKind::Double(3.0));
        assert_eq!(problem("1e"), LiteralProblem::Malformed);
        assert_eq!(problem("1e999"), LiteralProblem::TooLarge);
    }

    #[test]
    fn strings_and_chars_with_escapes() {
        assert_eq!(
            one(r#""a\tb\"c\\\u0041\101""#),
            TokenKind::String("a\tb\"c\\AA".into())
        );
        assert_eq!(one("'x'"), TokenKind::Char(u16::from(b'x')));
        assert_eq!(one(r"'\n'"), TokenKind::Char(10));
        assert_eq!(one(r"'\''"), TokenKind::Char(39));
        assert_eq!(one("'é'"), TokenKind::Char(0xe9));
        assert_eq!(problem("\"abc"), LiteralProblem::Unterminated);
        assert_eq!(problem(r#""\q""#), LiteralProblem::BadEscape);
        assert_eq!(problem("'ab'"), LiteralProblem::NotOneCharacter);
    }

    #[test]
    fn operators_are_read_longest_first_with_columns() {
        let tokens = tokenize("a >>> 2 >= b").expect("tokens");
        let columns: Vec<(usize, &str)> =
            tokens.iter().map(|t| (t.column, t.text.as_str())).collect();
        assert_eq!(
            columns,
            vec![
                (1, "a"),
                (3, ">>>"),
                (7, "2"),
                (9, ">="),
                (12, "b"),
                (13, "")
            ]
        );
        assert_eq!(
            kinds("x.y"),
            vec![
                TokenKind::Identifier("x".into()),
                TokenKind::Punct(Punct::Dot),
                TokenKind::Identifier("y".into()),
                TokenKind::End
            ]
        );
        assert_eq!(one("this"), TokenKind::Keyword(Keyword::This));
        assert!(matches!(
            tokenize("a # b"),
            Err(ExpressionError::Unsupported { column: 3, .. })
        ));
    }
}
