//! Java's operators on primitive values (boxes already opened by the evaluator): numeric
//! promotion, `int` overflow that wraps, `%` with the dividend's sign, shifts that mask their
//! distance, comparisons where NaN is unordered, and `&`, `|`, `^` on booleans as on bits.

use super::ast::{BinaryOperator, UnaryOperator};
use super::primitives::Number;
use crate::adapters::java::heap::JavaValue;

/// Why an operator could not apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorError {
    BadOperands,
    DivisionByZero,
}

pub fn unary(operator: UnaryOperator, value: &JavaValue) -> Option<JavaValue> {
    if let (UnaryOperator::Not, JavaValue::Boolean(b)) = (operator, value) {
        return Some(JavaValue::Boolean(!b));
    }
    let number = Number::promote(value)?;
    Some(match (operator, number) {
        (UnaryOperator::Plus, n) => n.value(),
        (UnaryOperator::Negate, Number::Int(v)) => JavaValue::Int(v.wrapping_neg()),
        (UnaryOperator::Negate, Number::Long(v)) => JavaValue::Long(v.wrapping_neg()),
        (UnaryOperator::Negate, Number::Float(v)) => JavaValue::Float(-v),
        (UnaryOperator::Negate, Number::Double(v)) => JavaValue::Double(-v),
        (UnaryOperator::Complement, Number::Int(v)) => JavaValue::Int(!v),
        (UnaryOperator::Complement, Number::Long(v)) => JavaValue::Long(!v),
        _ => return None,
    })
}

/// A binary operator other than `&&`, `||` and string `+`, on primitives.
pub fn binary(
    operator: BinaryOperator,
    left: &JavaValue,
    right: &JavaValue,
) -> Result<JavaValue, OperatorError> {
    use BinaryOperator::*;
    if let (JavaValue::Boolean(l), JavaValue::Boolean(r)) = (left, right) {
        return Ok(JavaValue::Boolean(match operator {
            Equal => l == r,
            NotEqual => l != r,
            BitAnd => l & r,
            BitOr => l | r,
            BitXor => l ^ r,
            _ => return Err(OperatorError::BadOperands),
        }));
    }
    let (Some(l), Some(r)) = (Number::promote(left), Number::promote(right)) else {
        return Err(OperatorError::BadOperands);
    };
    match operator {
        ShiftLeft | ShiftRight | UnsignedShiftRight => shift(operator, l, r),
        Less | Greater | LessEqual | GreaterEqual | Equal | NotEqual => {
            Ok(JavaValue::Boolean(compare(operator, l, r)))
        }
        _ => arithmetic(operator, l, r),
    }
}

fn compare(operator: BinaryOperator, left: Number, right: Number) -> bool {
    use std::cmp::Ordering;
    let ordering = match Number::promote_pair(left, right) {
        (Number::Int(l), Number::Int(r)) => Some(l.cmp(&r)),
        (Number::Long(l), Number::Long(r)) => Some(l.cmp(&r)),
        (Number::Float(l), Number::Float(r)) => l.partial_cmp(&r),
        (Number::Double(l), Number::Double(r)) => l.partial_cmp(&r),
        _ => None,
    };
    match operator {
        BinaryOperator::NotEqual => ordering != Some(Ordering::Equal),
        BinaryOperator::Equal => ordering == Some(Ordering::Equal),
        BinaryOperator::Less => ordering == Some(Ordering::Less),
        BinaryOperator::Greater => ordering == Some(Ordering::Greater),
        BinaryOperator::LessEqual => matches!(ordering, Some(Ordering::Less | Ordering::Equal)),
        _ => matches!(ordering, Some(Ordering::Greater | Ordering::Equal)),
    }
}

fn shift(
    operator: BinaryOperator,
    left: Number,
    right: Number,
) -> Result<JavaValue, OperatorError> {
    let distance = right.integral().ok_or(OperatorError::BadOperands)?;
    Ok(match left {
        Number::Int(v) => {
            let d = (distance & 0x1f) as u32;
            JavaValue::Int(match operator {
                BinaryOperator::ShiftLeft => v.wrapping_shl(d),
                BinaryOperator::ShiftRight => v.wrapping_shr(d),
                _ => ((v as u32) >> d) as i32,
            })
        }
        Number::Long(v) => {
            let d = (distance & 0x3f) as u32;
            JavaValue::Long(match operator {
                BinaryOperator::ShiftLeft => v.wrapping_shl(d),
                BinaryOperator::ShiftRight => v.wrapping_shr(d),
                _ => ((v as u64) >> d) as i64,
            })
        }
        Number::Float(_) | Number::Double(_) => return Err(OperatorError::BadOperands),
    })
}

fn arithmetic(
    operator: BinaryOperator,
    left: Number,
    right: Number,
) -> Result<JavaValue, OperatorError> {
    use BinaryOperator::*;
    macro_rules! integral {
        ($l:expr, $r:expr, $variant:ident) => {
            JavaValue::$variant(match operator {
                Add => $l.wrapping_add($r),
                Subtract => $l.wrapping_sub($r),
                Multiply => $l.wrapping_mul($r),
                Divide if $r == 0 => return Err(OperatorError::DivisionByZero),
                Divide => $l.wrapping_div($r),
                Remainder if $r == 0 => return Err(OperatorError::DivisionByZero),
                Remainder => $l.wrapping_rem($r),
                BitAnd => $l & $r,
                BitOr => $l | $r,
                BitXor => $l ^ $r,
                _ => return Err(OperatorError::BadOperands),
            })
        };
    }
    macro_rules! floating {
        ($l:expr, $r:expr, $variant:ident) => {
            JavaValue::$variant(match operator {
                Add => $l + $r,
                Subtract => $l - $r,
                Multiply => $l * $r,
                Divide => $l / $r,
                Remainder => $l % $r,
                _ => return Err(OperatorError::BadOperands),
            })
        };
    }
    Ok(match Number::promote_pair(left, right) {
        (Number::Int(l), Number::Int(r)) => integral!(l, r, Int),
        (Number::Long(l), Number::Long(r)) => integral!(l, r, Long),
        (Number::Float(l), Number::Float(r)) => floating!(l, r, Float),
        (Number::Double(l), Number::Double(r)) => floating!(l, r, Double),
        _ => return Err(OperatorError::BadOperands),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinaryOperator::*;

    fn apply(operator: BinaryOperator, l: JavaValue, r: JavaValue) -> JavaValue {
        binary(operator, &l, &r).unwrap_or_else(|e| panic!("{operator:?}: {e:?}"))
    }

    #[test]
    fn arithmetic_promotes_and_wraps_as_java() {
        assert_eq!(
            apply(Add, JavaValue::Int(i32::MAX), JavaValue::Int(1)),
            JavaValue::Int(i32::MIN)
        );
        assert_eq!(
            apply(Add, JavaValue::Int(1), JavaValue::Long(2)),
            JavaValue::Long(3)
        );
        assert_eq!(
            apply(Multiply, JavaValue::Byte(100), JavaValue::Byte(3)),
            JavaValue::Int(300)
        );
        assert_eq!(
            apply(Add, JavaValue::Char(65), JavaValue::Int(1)),
            JavaValue::Int(66)
        );
        assert_eq!(
            apply(Divide, JavaValue::Int(7), JavaValue::Int(2)),
            JavaValue::Int(3)
        );
        assert_eq!(
            apply(Divide, JavaValue::Int(7), JavaValue::Double(2.0)),
            JavaValue::Double(3.5)
        );
        assert_eq!(
            apply(Remainder, JavaValue::Int(-7), JavaValue::Int(2)),
            JavaValue::Int(-1)
        );
        assert_eq!(
            apply(Remainder, JavaValue::Int(7), JavaValue::Int(-2)),
            JavaValue::Int(1)
        );
        assert_eq!(
            apply(Divide, JavaValue::Int(i32::MIN), JavaValue::Int(-1)),
            JavaValue::Int(i32::MIN)
        );
        assert_eq!(
            apply(Remainder, JavaValue::Double(-7.5), JavaValue::Double(2.0)),
            JavaValue::Double(-1.5)
        );
        assert_eq!(
            apply(Divide, JavaValue::Double(1.0), JavaValue::Int(0)),
            JavaValue::Double(f64::INFINITY)
        );
        assert_eq!(
            binary(Divide, &JavaValue::Int(1), &JavaValue::Int(0)),
            Err(OperatorError::DivisionByZero)
        );
        assert_eq!(
            binary(Remainder, &JavaValue::Long(1), &JavaValue::Long(0)),
            Err(OperatorError::DivisionByZero)
        );
    }

    #[test]
    fn shifts_mask_their_distance() {
        assert_eq!(
            apply(ShiftLeft, JavaValue::Int(1), JavaValue::Int(33)),
            JavaValue::Int(2)
        );
        assert_eq!(
            apply(ShiftRight, JavaValue::Int(-8), JavaValue::Int(1)),
            JavaValue::Int(-4)
        );
        assert_eq!(
            apply(UnsignedShiftRight, JavaValue::Int(-1), JavaValue::Int(28)),
            JavaValue::Int(15)
        );
        assert_eq!(
            apply(ShiftLeft, JavaValue::Long(1), JavaValue::Int(40)),
            JavaValue::Long(1 << 40)
        );
        // The left operand alone decides the type.
        assert_eq!(
            apply(ShiftLeft, JavaValue::Int(1), JavaValue::Long(2)),
            JavaValue::Int(4)
        );
        assert!(binary(ShiftLeft, &JavaValue::Double(1.0), &JavaValue::Int(1)).is_err());
    }

    #[test]
    fn comparisons_bits_and_booleans() {
        assert_eq!(
            apply(Less, JavaValue::Int(1), JavaValue::Double(1.5)),
            JavaValue::Boolean(true)
        );
        assert_eq!(
            apply(Equal, JavaValue::Char(97), JavaValue::Int(97)),
            JavaValue::Boolean(true)
        );
        let nan = JavaValue::Double(f64::NAN);
        assert_eq!(
            apply(Equal, nan.clone(), nan.clone()),
            JavaValue::Boolean(false)
        );
        assert_eq!(apply(NotEqual, nan.clone(), nan), JavaValue::Boolean(true));
        assert_eq!(
            apply(BitAnd, JavaValue::Int(6), JavaValue::Int(3)),
            JavaValue::Int(2)
        );
        assert_eq!(
            apply(BitXor, JavaValue::Boolean(true), JavaValue::Boolean(true)),
            JavaValue::Boolean(false)
        );
        assert!(binary(Add, &JavaValue::Boolean(true), &JavaValue::Int(1)).is_err());
        assert!(binary(Less, &JavaValue::Boolean(true), &JavaValue::Boolean(false)).is_err());
        assert!(binary(BitAnd, &JavaValue::Double(1.0), &JavaValue::Int(1)).is_err());
    }

    #[test]
    fn unary_operators() {
        assert_eq!(
            unary(UnaryOperator::Negate, &JavaValue::Int(i32::MIN)),
            Some(JavaValue::Int(i32::MIN))
        );
        assert_eq!(
            unary(UnaryOperator::Plus, &JavaValue::Char(65)),
            Some(JavaValue::Int(65))
        );
        assert_eq!(
            unary(UnaryOperator::Complement, &JavaValue::Long(0)),
            Some(JavaValue::Long(-1))
        );
        assert_eq!(
            unary(UnaryOperator::Not, &JavaValue::Boolean(false)),
            Some(JavaValue::Boolean(true))
        );
        assert_eq!(unary(UnaryOperator::Not, &JavaValue::Int(1)), None);
        assert_eq!(
            unary(UnaryOperator::Complement, &JavaValue::Double(1.0)),
            None
        );
    }
}
