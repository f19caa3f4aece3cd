//! Java's expression grammar, from the conditional `?:` down to primaries, with Java's
//! precedence and associativity. What an agent types at a stop is an expression, not a
//! statement: no `new`, lambdas, `super` or assignment (`set` takes its target and value apart).

use super::ast::{BinaryOperator, Expr, ExprKind, Literal, TypeName, UnaryOperator};
use super::error::{ExpressionError, LiteralProblem};
use super::lexer::{Keyword, Punct, Token, TokenKind, tokenize};

/// The eight primitive types' names, which a cast may name.
pub const PRIMITIVE_TYPES: [&str; 8] = [
    "boolean", "byte", "char", "short", "int", "long", "float", "double",
];

/// `source` as one expression.
pub fn parse(source: &str) -> Result<Expr, ExpressionError> {
    let mut parser = Parser {
        tokens: tokenize(source)?,
        at: 0,
    };
    let expr = parser.expression()?;
    parser.expect_end()?;
    Ok(expr)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.at + ahead).min(last)]
    }

    fn advance(&mut self) -> Token {
        let token = self.peek().clone();
        if self.at < self.tokens.len() - 1 {
            self.at += 1;
        }
        token
    }

    fn is_punct(&self, punct: Punct) -> bool {
        self.peek().kind == TokenKind::Punct(punct)
    }

    fn eat(&mut self, punct: Punct) -> bool {
        let found = self.is_punct(punct);
        if found {
            self.advance();
        }
        found
    }

    fn expected(&self, expected: &str) -> ExpressionError {
        let token = self.peek();
        ExpressionError::Expected {
            expected: expected.to_string(),
            found: match token.kind {
                TokenKind::End => "end of input".to_string(),
                _ => format!("'{}'", token.text),
            },
            column: token.column,
        }
    }

    fn expect(&mut self, punct: Punct) -> Result<Token, ExpressionError> {
        if self.is_punct(punct) {
            Ok(self.advance())
        } else {
            Err(self.expected(&format!("'{}'", punct.text())))
        }
    }

    fn expect_end(&self) -> Result<(), ExpressionError> {
        match &self.peek().kind {
            TokenKind::End => Ok(()),
            TokenKind::Punct(Punct::Equal) => Err(ExpressionError::Unsupported {
                what: "assignment (use set)".into(),
                column: self.peek().column,
            }),
            TokenKind::Punct(Punct::Arrow) => Err(ExpressionError::Unsupported {
                what: "a lambda".into(),
                column: self.peek().column,
            }),
            _ => Err(self.expected("an operator or end of input")),
        }
    }

    fn identifier(&mut self, what: &str) -> Result<(String, usize), ExpressionError> {
        match &self.peek().kind {
            TokenKind::Identifier(name) => {
                let name = name.clone();
                let column = self.advance().column;
                Ok((name, column))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn expression(&mut self) -> Result<Expr, ExpressionError> {
        let condition = self.binary(1)?;
        if !self.is_punct(Punct::Question) {
            return Ok(condition);
        }
        let column = self.advance().column;
        let then = self.expression()?;
        self.expect(Punct::Colon)?;
        let otherwise = self.expression()?;
        Ok(Expr {
            kind: ExprKind::Conditional {
                condition: Box::new(condition),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            column,
        })
    }

    /// Binary operators binding at least as tightly as `min_level`, left-associative.
    fn binary(&mut self, min_level: u8) -> Result<Expr, ExpressionError> {
        let mut left = self.unary()?;
        loop {
            let token = self.peek().clone();
            if token.kind == TokenKind::Keyword(Keyword::InstanceOf) {
                if RELATIONAL_LEVEL < min_level {
                    break;
                }
                self.advance();
                let of = self.type_name()?;
                left = Expr {
                    kind: ExprKind::InstanceOf {
                        operand: Box::new(left),
                        of,
                    },
                    column: token.column,
                };
                continue;
            }
            let Some((operator, level)) = binary_operator(&token.kind) else {
                break;
            };
            if level < min_level {
                break;
            }
            self.advance();
            let right = self.binary(level + 1)?;
            left = Expr {
                kind: ExprKind::Binary {
                    operator,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                column: token.column,
            };
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, ExpressionError> {
        let token = self.peek().clone();
        let operator = match token.kind {
            TokenKind::Punct(Punct::Minus) => UnaryOperator::Negate,
            TokenKind::Punct(Punct::Plus) => UnaryOperator::Plus,
            TokenKind::Punct(Punct::Bang) => UnaryOperator::Not,
            TokenKind::Punct(Punct::Tilde) => UnaryOperator::Complement,
            TokenKind::Punct(Punct::LeftParen) if self.cast_ahead() => return self.cast(),
            _ => return self.postfix(),
        };
        self.advance();
        // -2147483648 is the one int literal that is written past Integer.MAX_VALUE.
        if operator == UnaryOperator::Negate
            && let TokenKind::Int {
                value: 2_147_483_648,
                decimal: true,
            } = self.peek().kind
        {
            self.advance();
            return Ok(Expr {
                kind: ExprKind::Literal(Literal::Int(i32::MIN)),
                column: token.column,
            });
        }
        let operand = self.unary()?;
        Ok(Expr {
            kind: ExprKind::Unary {
                operator,
                operand: Box::new(operand),
            },
            column: token.column,
        })
    }

    /// Whether the `(` here opens a cast: a primitive type, or a (qualified) type name followed
    /// by what can only begin an operand (`(Cart) o`, not `(a) - b`), as Java decides.
    fn cast_ahead(&self) -> bool {
        let mut ahead = 1;
        let TokenKind::Identifier(first) = &self.peek_at(ahead).kind else {
            return false;
        };
        let primitive = PRIMITIVE_TYPES.contains(&first.as_str());
        ahead += 1;
        while !primitive
            && self.peek_at(ahead).kind == TokenKind::Punct(Punct::Dot)
            && matches!(self.peek_at(ahead + 1).kind, TokenKind::Identifier(_))
        {
            ahead += 2;
        }
        while self.peek_at(ahead).kind == TokenKind::Punct(Punct::LeftBracket)
            && self.peek_at(ahead + 1).kind == TokenKind::Punct(Punct::RightBracket)
        {
            ahead += 2;
        }
        if self.peek_at(ahead).kind != TokenKind::Punct(Punct::RightParen) {
            return false;
        }
        primitive
            || matches!(
                self.peek_at(ahead + 1).kind,
                TokenKind::Identifier(_)
                    | TokenKind::Keyword(
                        Keyword::This | Keyword::True | Keyword::False | Keyword::Null
                    )
                    | TokenKind::Int { .. }
                    | TokenKind::Long(_)
                    | TokenKind::Float(_)
                    | TokenKind::Double(_)
                    | TokenKind::Char(_)
                    | TokenKind::String(_)
                    | TokenKind::Punct(Punct::LeftParen | Punct::Bang | Punct::Tilde)
            )
    }

    fn cast(&mut self) -> Result<Expr, ExpressionError> {
        let column = self.expect(Punct::LeftParen)?.column;
        let to = self.type_name()?;
        self.expect(Punct::RightParen)?;
        let operand = self.unary()?;
        Ok(Expr {
            kind: ExprKind::Cast {
                to,
                operand: Box::new(operand),
            },
            column,
        })
    }

    fn type_name(&mut self) -> Result<TypeName, ExpressionError> {
        let (mut name, _) = self.identifier("a type")?;
        while self.is_punct(Punct::Dot) {
            self.advance();
            let (part, _) = self.identifier("a type")?;
            name.push('.');
            name.push_str(&part);
        }
        let mut dimensions = 0;
        while self.eat(Punct::LeftBracket) {
            self.expect(Punct::RightBracket)?;
            dimensions += 1;
        }
        Ok(TypeName { name, dimensions })
    }

    fn postfix(&mut self) -> Result<Expr, ExpressionError> {
        let mut expr = self.primary()?;
        loop {
            if self.eat(Punct::Dot) {
                if let TokenKind::Keyword(_) = self.peek().kind {
                    return Err(ExpressionError::Unsupported {
                        what: format!("'.{}'", self.peek().text),
                        column: self.peek().column,
                    });
                }
                let (name, column) = self.identifier("a name after '.'")?;
                expr = if self.is_punct(Punct::LeftParen) {
                    Expr {
                        kind: ExprKind::Call {
                            target: Some(Box::new(expr)),
                            name,
                            arguments: self.arguments()?,
                        },
                        column,
                    }
                } else {
                    Expr {
                        kind: ExprKind::Field {
                            target: Box::new(expr),
                            name,
                        },
                        column,
                    }
                };
            } else if self.is_punct(Punct::LeftBracket) {
                let column = self.advance().column;
                let index = self.expression()?;
                self.expect(Punct::RightBracket)?;
                expr = Expr {
                    kind: ExprKind::Index {
                        array: Box::new(expr),
                        index: Box::new(index),
                    },
                    column,
                };
            } else {
                return Ok(expr);
            }
        }
    }

    fn arguments(&mut self) -> Result<Vec<Expr>, ExpressionError> {
        self.expect(Punct::LeftParen)?;
        let mut arguments = Vec::new();
        if self.eat(Punct::RightParen) {
            return Ok(arguments);
        }
        loop {
            arguments.push(self.expression()?);
            if self.eat(Punct::RightParen) {
                return Ok(arguments);
            }
            if !self.eat(Punct::Comma) {
                return Err(self.expected("',' or ')'"));
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, ExpressionError> {
        let token = self.peek().clone();
        let literal = |literal| {
            Ok(Expr {
                kind: ExprKind::Literal(literal),
                column: token.column,
            })
        };
        match token.kind {
            TokenKind::Identifier(name) => {
                self.advance();
                let kind = if self.is_punct(Punct::LeftParen) {
                    ExprKind::Call {
                        target: None,
                        name,
                        arguments: self.arguments()?,
                    }
                } else {
                    ExprKind::Name(name)
                };
                Ok(Expr {
                    kind,
                    column: token.column,
                })
            }
            TokenKind::Punct(Punct::LeftParen) => {
                self.advance();
                let inner = self.expression()?;
                self.expect(Punct::RightParen)?;
                Ok(inner)
            }
            TokenKind::Keyword(Keyword::This) => {
                self.advance();
                Ok(Expr {
                    kind: ExprKind::This,
                    column: token.column,
                })
            }
            TokenKind::Keyword(keyword @ (Keyword::New | Keyword::Super)) => {
                Err(ExpressionError::Unsupported {
                    what: format!(
                        "'{}'",
                        if keyword == Keyword::New {
                            "new"
                        } else {
                            "super"
                        }
                    ),
                    column: token.column,
                })
            }
            TokenKind::Int { value, decimal } => {
                self.advance();
                if decimal && value > i32::MAX as u64 {
                    return Err(ExpressionError::BadLiteral {
                        text: token.text,
                        problem: LiteralProblem::TooLarge,
                        column: token.column,
                    });
                }
                // Hexadecimal, octal and binary ints fill all 32 bits: 0xffffffff is -1.
                literal(Literal::Int(value as u32 as i32))
            }
            TokenKind::Long(value) => {
                self.advance();
                literal(Literal::Long(value))
            }
            TokenKind::Float(value) => {
                self.advance();
                literal(Literal::Float(value))
            }
            TokenKind::Double(value) => {
                self.advance();
                literal(Literal::Double(value))
            }
            TokenKind::Char(value) => {
                self.advance();
                literal(Literal::Char(value))
            }
            TokenKind::String(value) => {
                self.advance();
                literal(Literal::String(value))
            }
            TokenKind::Keyword(Keyword::True) => {
                self.advance();
                literal(Literal::Boolean(true))
            }
            TokenKind::Keyword(Keyword::False) => {
                self.advance();
                literal(Literal::Boolean(false))
            }
            TokenKind::Keyword(Keyword::Null) => {
                self.advance();
                literal(Literal::Null)
            }
            _ => Err(self.expected("an expression")),
        }
    }
}

const RELATIONAL_LEVEL: u8 = 7;

/// A binary operator and its level: higher binds tighter.
fn binary_operator(kind: &TokenKind) -> Option<(BinaryOperator, u8)> {
    let TokenKind::Punct(punct) = kind else {
        return None;
    };
    Some(match punct {
        Punct::OrOr => (BinaryOperator::Or, 1),
        Punct::AndAnd => (BinaryOperator::And, 2),
        Punct::Or => (BinaryOperator::BitOr, 3),
        Punct::Caret => (BinaryOperator::BitXor, 4),
        Punct::And => (BinaryOperator::BitAnd, 5),
        Punct::EqualEqual => (BinaryOperator::Equal, 6),
        Punct::BangEqual => (BinaryOperator::NotEqual, 6),
        Punct::Less => (BinaryOperator::Less, RELATIONAL_LEVEL),
        Punct::Greater => (BinaryOperator::Greater, RELATIONAL_LEVEL),
        Punct::LessEqual => (BinaryOperator::LessEqual, RELATIONAL_LEVEL),
        Punct::GreaterEqual => (BinaryOperator::GreaterEqual, RELATIONAL_LEVEL),
        Punct::ShiftLeft => (BinaryOperator::ShiftLeft, 8),
        Punct::ShiftRight => (BinaryOperator::ShiftRight, 8),
        Punct::UnsignedShiftRight => (BinaryOperator::UnsignedShiftRight, 8),
        Punct::Plus => (BinaryOperator::Add, 9),
        Punct::Minus => (BinaryOperator::Subtract, 9),
        Punct::Star => (BinaryOperator::Multiply, 10),
        Punct::Slash => (BinaryOperator::Divide, 10),
        Punct::Percent => (BinaryOperator::Remainder, 10),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree as a Lisp-like text, to compare shapes briefly.
    fn shape(expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Literal(Literal::String(s)) => format!("{s:?}"),
            ExprKind::Literal(Literal::Int(n)) => n.to_string(),
            ExprKind::Literal(Literal::Long(n)) => format!("{n}L"),
            ExprKind::Literal(Literal::Double(n)) => format!("{n}d"),
            ExprKind::Literal(Literal::Float(n)) => format!("{n}f"),
            ExprKind::Literal(Literal::Char(c)) => {
                format!("'{}'", char::from_u32(u32::from(*c)).unwrap_or('?'))
            }
            ExprKind::Literal(Literal::Boolean(b)) => b.to_string(),
            ExprKind::Literal(Literal::Null) => "null".into(),
            ExprKind::Name(name) => name.clone(),
            ExprKind::This => "this".into(),
            ExprKind::Field { target, name } => format!("{}.{name}", shape(target)),
            ExprKind::Index { array, index } => format!("{}[{}]", shape(array), shape(index)),
            ExprKind::Call {
                target,
                name,
                arguments,
            } => {
                let arguments: Vec<String> = arguments.iter().map(shape).collect();
                match target {
                    Some(target) => format!("{}.{name}({})", shape(target), arguments.join(", ")),
                    None => format!("{name}({})", arguments.join(", ")),
                }
            }
            ExprKind::Unary { operator, operand } => {
                format!("({}{})", operator.text(), shape(operand))
            }
            ExprKind::Binary {
                operator,
                left,
                right,
            } => format!("({} {} {})", shape(left), operator.text(), shape(right)),
            ExprKind::Conditional {
                condition,
                then,
                otherwise,
            } => format!(
                "({} ? {} : {})",
                shape(condition),
                shape(then),
                shape(otherwise)
            ),
            ExprKind::Cast { to, operand } => format!("(({to}) {})", shape(operand)),
            ExprKind::InstanceOf { operand, of } => {
                format!("({} instanceof {of})", shape(operand))
            }
        }
    }

    fn parsed(source: &str) -> String {
        shape(&parse(source).unwrap_or_else(|e| panic!("{source}: {e}")))
    }

    fn error(source: &str) -> ExpressionError {
        match parse(source) {
            Err(error) => error,
            Ok(expr) => panic!("{source} parsed as {}", shape(&expr)),
        }
    }

    #[test]
    fn names_fields_indexing_and_calls() {
        assert_eq!(parsed("a.b.c"), "a.b.c");
        assert_eq!(parsed("this.items"), "this.items");
        assert_eq!(parsed("a[i + 1].length"), "a[(i + 1)].length");
        assert_eq!(parsed("items.size()"), "items.size()");
        assert_eq!(parsed("prices.get(\"apple\")"), "prices.get(\"apple\")");
        assert_eq!(
            parsed("order.total().compareTo(limit)"),
            "order.total().compareTo(limit)"
        );
        assert_eq!(
            parsed("java.lang.Math.max(a, b)"),
            "java.lang.Math.max(a, b)"
        );
        assert_eq!(parsed("com.shop.Cart.TAX"), "com.shop.Cart.TAX");
        assert_eq!(parsed("total()"), "total()");
        assert_eq!(parsed("m[1][2]"), "m[1][2]");
    }

    #[test]
    fn literals() {
        assert_eq!(parsed("0x7fff_ffff"), "2147483647");
        assert_eq!(parsed("0xffffffff"), "-1");
        assert_eq!(parsed("-2147483648"), "-2147483648");
        assert_eq!(parsed("10L"), "10L");
        assert_eq!(parsed("1.5"), "1.5d");
        assert_eq!(parsed("1.5f"), "1.5f");
        assert_eq!(parsed("'c'"), "'c'");
        assert_eq!(parsed("\"a\\n\""), "\"a\\n\"");
        assert_eq!(parsed("true || false"), "(true || false)");
        assert_eq!(parsed("null"), "null");
        assert!(matches!(
            error("2147483648"),
            ExpressionError::BadLiteral {
                problem: LiteralProblem::TooLarge,
                column: 1,
                ..
            }
        ));
    }

    #[test]
    fn precedence_and_associativity_are_javas() {
        assert_eq!(parsed("1 + 2 * 3"), "(1 + (2 * 3))");
        assert_eq!(parsed("1 - 2 - 3"), "((1 - 2) - 3)");
        assert_eq!(parsed("a << 1 + 2"), "(a << (1 + 2))");
        assert_eq!(parsed("a < b == c > d"), "((a < b) == (c > d))");
        assert_eq!(parsed("a & b ^ c | d"), "(((a & b) ^ c) | d)");
        assert_eq!(parsed("a || b && c"), "(a || (b && c))");
        assert_eq!(parsed("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
        assert_eq!(parsed("!a && -b < ~c"), "((!a) && ((-b) < (~c)))");
        assert_eq!(parsed("- -1"), "(-(-1))");
        assert_eq!(
            parsed("x instanceof java.util.List && y"),
            "((x instanceof java.util.List) && y)"
        );
        assert_eq!(
            parsed("a + b instanceof String"),
            "((a + b) instanceof String)"
        );
        assert_eq!(parsed("a >>> 2 >> 1"), "((a >>> 2) >> 1)");
        assert_eq!(parsed("a % b / c"), "((a % b) / c)");
    }

    #[test]
    fn casts_are_told_from_parentheses() {
        assert_eq!(parsed("(int) x"), "((int) x)");
        assert_eq!(parsed("(long) -x"), "((long) (-x))");
        assert_eq!(parsed("(double) a / b"), "(((double) a) / b)");
        assert_eq!(parsed("(int[]) o"), "((int[]) o)");
        assert_eq!(parsed("(Cart) o"), "((Cart) o)");
        assert_eq!(
            parsed("((com.shop.Cart) o).total()"),
            "((com.shop.Cart) o).total()"
        );
        assert_eq!(parsed("(a) - b"), "(a - b)");
        assert_eq!(parsed("(a) + (b)"), "(a + b)");
        assert_eq!(parsed("(a)"), "a");
    }

    #[test]
    fn errors_say_what_was_expected_and_where() {
        let missing = error("max(a, b");
        assert_eq!(
            missing,
            ExpressionError::Expected {
                expected: "',' or ')'".into(),
                found: "end of input".into(),
                column: 9
            }
        );
        assert_eq!(
            error("(total + 1 * 2").to_string(),
            "expected ')' at column 15, found end of input"
        );
        assert_eq!(
            error("a + * b").to_string(),
            "expected an expression at column 5, found '*'"
        );
        assert_eq!(
            error("a b").to_string(),
            "expected an operator or end of input at column 3, found 'b'"
        );
        assert!(matches!(
            error("x = 5"),
            ExpressionError::Unsupported { column: 3, .. }
        ));
        assert!(matches!(
            error("new Cart()"),
            ExpressionError::Unsupported { column: 1, .. }
        ));
        assert!(matches!(
            error("a.this"),
            ExpressionError::Unsupported { column: 3, .. }
        ));
        assert!(matches!(
            error("a ? b"),
            ExpressionError::Expected { column: 6, .. }
        ));
        assert!(matches!(
            error("a.5"),
            ExpressionError::Expected { column: 2, .. }
        ));
        assert!(matches!(
            error(""),
            ExpressionError::Expected { column: 1, .. }
        ));
    }
}
