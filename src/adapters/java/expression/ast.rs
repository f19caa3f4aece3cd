//! A parsed Java expression. Every node keeps the column that names it (a name's first
//! character, an operator's, a call's method name), for errors that say where.

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// A simple name: a local, a field, a static, or the first part of a type's name.
    Name(String),
    This,
    /// `target.name`: a field, an array's `length`, a static of a type, or a nested type.
    Field {
        target: Box<Expr>,
        name: String,
    },
    Index {
        array: Box<Expr>,
        index: Box<Expr>,
    },
    /// `name(args)` (on `this` or the frame's class) or `target.name(args)`.
    Call {
        target: Option<Box<Expr>>,
        name: String,
        arguments: Vec<Expr>,
    },
    Unary {
        operator: UnaryOperator,
        operand: Box<Expr>,
    },
    Binary {
        operator: BinaryOperator,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Conditional {
        condition: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Cast {
        to: TypeName,
        operand: Box<Expr>,
    },
    InstanceOf {
        operand: Box<Expr>,
        of: TypeName,
    },
}

/// Java source for the expression, for errors that name a part of it (`items is null`).
impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ExprKind::Literal(Literal::String(s)) => write!(f, "{s:?}"),
            ExprKind::Literal(Literal::Char(c)) => {
                write!(f, "'{}'", String::from_utf16_lossy(&[*c]))
            }
            ExprKind::Literal(Literal::Int(v)) => write!(f, "{v}"),
            ExprKind::Literal(Literal::Long(v)) => write!(f, "{v}L"),
            ExprKind::Literal(Literal::Float(v)) => write!(f, "{v}f"),
            ExprKind::Literal(Literal::Double(v)) => write!(f, "{v:?}"),
            ExprKind::Literal(Literal::Boolean(v)) => write!(f, "{v}"),
            ExprKind::Literal(Literal::Null) => f.write_str("null"),
            ExprKind::Name(name) => f.write_str(name),
            ExprKind::This => f.write_str("this"),
            ExprKind::Field { target, name } => write!(f, "{target}.{name}"),
            ExprKind::Index { array, index } => write!(f, "{array}[{index}]"),
            ExprKind::Call {
                target,
                name,
                arguments,
            } => {
                if let Some(target) = target {
                    write!(f, "{target}.")?;
                }
                write!(f, "{name}(")?;
                for (i, argument) in arguments.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{argument}")?;
                }
                f.write_str(")")
            }
            ExprKind::Unary { operator, operand } => write!(f, "{}{operand}", operator.text()),
            ExprKind::Binary {
                operator,
                left,
                right,
            } => write!(f, "({left} {} {right})", operator.text()),
            ExprKind::Conditional {
                condition,
                then,
                otherwise,
            } => write!(f, "({condition} ? {then} : {otherwise})"),
            ExprKind::Cast { to, operand } => write!(f, "(({to}) {operand})"),
            ExprKind::InstanceOf { operand, of } => write!(f, "({operand} instanceof {of})"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Char(u16),
    String(String),
    Boolean(bool),
    Null,
}

/// A type as written in a cast or `instanceof`: `int`, `String`, `com.shop.Cart`, `int[][]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeName {
    /// The element type's name, dotted as written.
    pub name: String,
    pub dimensions: usize,
}

impl std::fmt::Display for TypeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.name, "[]".repeat(self.dimensions))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOperator {
    Negate,
    Plus,
    Not,
    Complement,
}

impl UnaryOperator {
    pub fn text(self) -> &'static str {
        match self {
            UnaryOperator::Negate => "-",
            UnaryOperator::Plus => "+",
            UnaryOperator::Not => "!",
            UnaryOperator::Complement => "~",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOperator {
    Multiply,
    Divide,
    Remainder,
    Add,
    Subtract,
    ShiftLeft,
    ShiftRight,
    UnsignedShiftRight,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    Equal,
    NotEqual,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinaryOperator {
    pub fn text(self) -> &'static str {
        match self {
            BinaryOperator::Multiply => "*",
            BinaryOperator::Divide => "/",
            BinaryOperator::Remainder => "%",
            BinaryOperator::Add => "+",
            BinaryOperator::Subtract => "-",
            BinaryOperator::ShiftLeft => "<<",
            BinaryOperator::ShiftRight => ">>",
            BinaryOperator::UnsignedShiftRight => ">>>",
            BinaryOperator::Less => "<",
            BinaryOperator::Greater => ">",
            BinaryOperator::LessEqual => "<=",
            BinaryOperator::GreaterEqual => ">=",
            BinaryOperator::Equal => "==",
            BinaryOperator::NotEqual => "!=",
            BinaryOperator::BitAnd => "&",
            BinaryOperator::BitXor => "^",
            BinaryOperator::BitOr => "|",
            BinaryOperator::And => "&&",
            BinaryOperator::Or => "||",
        }
    }
}
