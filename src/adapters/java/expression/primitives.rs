//! Java's eight primitive types: their names and boxes, which widen to which, the conversions a
//! cast or an assignment makes, and their text as `String.valueOf` writes it.

use crate::adapters::java::heap::JavaValue;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
}

const ALL: [Primitive; 8] = [
    Primitive::Boolean,
    Primitive::Byte,
    Primitive::Char,
    Primitive::Short,
    Primitive::Int,
    Primitive::Long,
    Primitive::Float,
    Primitive::Double,
];

impl Primitive {
    /// The primitive type of a value, `None` for a reference, `null` or `void`.
    pub fn of(value: &JavaValue) -> Option<Primitive> {
        Some(match value {
            JavaValue::Boolean(_) => Primitive::Boolean,
            JavaValue::Byte(_) => Primitive::Byte,
            JavaValue::Char(_) => Primitive::Char,
            JavaValue::Short(_) => Primitive::Short,
            JavaValue::Int(_) => Primitive::Int,
            JavaValue::Long(_) => Primitive::Long,
            JavaValue::Float(_) => Primitive::Float,
            JavaValue::Double(_) => Primitive::Double,
            JavaValue::Void | JavaValue::Null | JavaValue::Object(_) => return None,
        })
    }

    pub fn from_name(name: &str) -> Option<Primitive> {
        ALL.into_iter().find(|p| p.name() == name)
    }

    /// The primitive a box holds: `java.lang.Integer` → `int`.
    pub fn from_box(name: &str) -> Option<Primitive> {
        ALL.into_iter().find(|p| p.box_name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Primitive::Boolean => "boolean",
            Primitive::Byte => "byte",
            Primitive::Char => "char",
            Primitive::Short => "short",
            Primitive::Int => "int",
            Primitive::Long => "long",
            Primitive::Float => "float",
            Primitive::Double => "double",
        }
    }

    pub fn box_name(self) -> &'static str {
        match self {
            Primitive::Boolean => "java.lang.Boolean",
            Primitive::Byte => "java.lang.Byte",
            Primitive::Char => "java.lang.Character",
            Primitive::Short => "java.lang.Short",
            Primitive::Int => "java.lang.Integer",
            Primitive::Long => "java.lang.Long",
            Primitive::Float => "java.lang.Float",
            Primitive::Double => "java.lang.Double",
        }
    }

    /// The reference types a boxed value of this type is also an instance of.
    pub fn box_supertypes(self) -> &'static [&'static str] {
        match self {
            Primitive::Boolean | Primitive::Char => &[
                "java.lang.Object",
                "java.io.Serializable",
                "java.lang.Comparable",
            ],
            _ => &[
                "java.lang.Number",
                "java.lang.Object",
                "java.io.Serializable",
                "java.lang.Comparable",
            ],
        }
    }

    pub fn is_numeric(self) -> bool {
        self != Primitive::Boolean
    }

    pub fn is_integral(self) -> bool {
        matches!(
            self,
            Primitive::Byte | Primitive::Char | Primitive::Short | Primitive::Int | Primitive::Long
        )
    }

    /// Identity or a widening primitive conversion (JLS 5.1.2): `int` → `long`, `char` → `int`.
    pub fn widens_to(self, to: Primitive) -> bool {
        use Primitive::*;
        self == to
            || match self {
                Byte => matches!(to, Short | Int | Long | Float | Double),
                Short | Char => matches!(to, Int | Long | Float | Double),
                Int => matches!(to, Long | Float | Double),
                Long => matches!(to, Float | Double),
                Float => to == Double,
                Boolean | Double => false,
            }
    }
}

/// A numeric value after promotion (JLS 5.6): what arithmetic works on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
}

impl Number {
    /// Unary numeric promotion: `byte`, `short` and `char` become `int`. `None` for a
    /// non-numeric value.
    pub fn promote(value: &JavaValue) -> Option<Number> {
        Some(match *value {
            JavaValue::Byte(v) => Number::Int(v.into()),
            JavaValue::Short(v) => Number::Int(v.into()),
            JavaValue::Char(v) => Number::Int(v.into()),
            JavaValue::Int(v) => Number::Int(v),
            JavaValue::Long(v) => Number::Long(v),
            JavaValue::Float(v) => Number::Float(v),
            JavaValue::Double(v) => Number::Double(v),
            _ => return None,
        })
    }

    fn rank(self) -> u8 {
        match self {
            Number::Int(_) => 0,
            Number::Long(_) => 1,
            Number::Float(_) => 2,
            Number::Double(_) => 3,
        }
    }

    /// This number widened to `other`'s kind when that is wider.
    fn widen_to_rank(self, rank: u8) -> Number {
        match (self, rank) {
            (Number::Int(v), 1) => Number::Long(v.into()),
            (Number::Int(v), 2) => Number::Float(v as f32),
            (Number::Int(v), 3) => Number::Double(v.into()),
            (Number::Long(v), 2) => Number::Float(v as f32),
            (Number::Long(v), 3) => Number::Double(v as f64),
            (Number::Float(v), 3) => Number::Double(v.into()),
            (same, _) => same,
        }
    }

    /// Binary numeric promotion: both to the wider of the two kinds.
    pub fn promote_pair(left: Number, right: Number) -> (Number, Number) {
        let rank = left.rank().max(right.rank());
        (left.widen_to_rank(rank), right.widen_to_rank(rank))
    }

    pub fn value(self) -> JavaValue {
        match self {
            Number::Int(v) => JavaValue::Int(v),
            Number::Long(v) => JavaValue::Long(v),
            Number::Float(v) => JavaValue::Float(v),
            Number::Double(v) => JavaValue::Double(v),
        }
    }

    /// As a long, for integral numbers only.
    pub fn integral(self) -> Option<i64> {
        match self {
            Number::Int(v) => Some(v.into()),
            Number::Long(v) => Some(v),
            Number::Float(_) | Number::Double(_) => None,
        }
    }
}

/// A primitive value converted to another primitive type as a cast does (JLS 5.1.3: floating
/// values saturate into `int`/`long`, NaN becomes 0, then narrower integers keep their low
/// bits). `None` between `boolean` and the numeric types.
pub fn cast(value: &JavaValue, to: Primitive) -> Option<JavaValue> {
    if let JavaValue::Boolean(b) = value {
        return (to == Primitive::Boolean).then_some(JavaValue::Boolean(*b));
    }
    let number = Number::promote(value)?;
    // Floating to a type narrower than int goes through int first, as Java does.
    let as_long = |n: Number| -> i64 {
        match n {
            Number::Int(v) => v.into(),
            Number::Long(v) => v,
            Number::Float(v) if to == Primitive::Long => v as i64,
            Number::Double(v) if to == Primitive::Long => v as i64,
            Number::Float(v) => (v as i32).into(),
            Number::Double(v) => (v as i32).into(),
        }
    };
    Some(match to {
        Primitive::Boolean => return None,
        Primitive::Byte => JavaValue::Byte(as_long(number) as i8),
        Primitive::Char => JavaValue::Char(as_long(number) as u16),
        Primitive::Short => JavaValue::Short(as_long(number) as i16),
        Primitive::Int => JavaValue::Int(as_long(number) as i32),
        Primitive::Long => JavaValue::Long(as_long(number)),
        Primitive::Float => JavaValue::Float(match number {
            Number::Int(v) => v as f32,
            Number::Long(v) => v as f32,
            Number::Float(v) => v,
            Number::Double(v) => v as f32,
        }),
        Primitive::Double => JavaValue::Double(match number {
            Number::Int(v) => v.into(),
            Number::Long(v) => v as f64,
            Number::Float(v) => v.into(),
            Number::Double(v) => v,
        }),
    })
}

/// A primitive value converted to `to` as an assignment would take it: a widening, or an
/// integral value that fits the narrower integral type (Java takes such constants; a debugger's
/// `set b 5` on a `byte` means the same). `None` when it would lose the value.
pub fn assign(value: &JavaValue, to: Primitive) -> Option<JavaValue> {
    let from = Primitive::of(value)?;
    if from.widens_to(to) {
        return cast(value, to);
    }
    if from.is_integral() && to.is_integral() {
        let converted = cast(value, to)?;
        let original = Number::promote(value)?.integral()?;
        let back = Number::promote(&converted)?.integral()?;
        return (original == back).then_some(converted);
    }
    None
}

/// A primitive's text as Java's `String.valueOf` writes it: `1.0`, `1.0E10`, `NaN`, `x`.
pub fn java_text(value: &JavaValue) -> Option<String> {
    Some(match *value {
        JavaValue::Boolean(v) => v.to_string(),
        JavaValue::Byte(v) => v.to_string(),
        JavaValue::Short(v) => v.to_string(),
        JavaValue::Int(v) => v.to_string(),
        JavaValue::Long(v) => v.to_string(),
        JavaValue::Char(v) => String::from_utf16_lossy(&[v]),
        JavaValue::Float(v) => floating_text(v.into(), v.to_string(), format!("{v:e}")),
        JavaValue::Double(v) => floating_text(v, v.to_string(), format!("{v:e}")),
        JavaValue::Void | JavaValue::Null | JavaValue::Object(_) => return None,
    })
}

/// Java's `Double.toString` from Rust's shortest round-trip digits: plain between 10^-3 and
/// 10^7 with at least one decimal, else `d.dddE±n`.
fn floating_text(value: f64, plain: String, scientific: String) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 || (1e-3..1e7).contains(&magnitude) {
        return if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        };
    }
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}E{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floating_text_is_javas() {
        let double = |v: f64| java_text(&JavaValue::Double(v)).unwrap_or_default();
        assert_eq!(double(1.0), "1.0");
        assert_eq!(double(0.1), "0.1");
        assert_eq!(double(-0.0), "-0.0");
        assert_eq!(double(1234567.0), "1234567.0");
        assert_eq!(double(1e7), "1.0E7");
        assert_eq!(double(1.5e-5), "1.5E-5");
        assert_eq!(double(f64::NAN), "NaN");
        assert_eq!(double(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(java_text(&JavaValue::Float(0.1)).as_deref(), Some("0.1"));
        assert_eq!(java_text(&JavaValue::Char(65)).as_deref(), Some("A"));
    }

    #[test]
    fn casts_narrow_as_java_does() {
        assert_eq!(
            cast(&JavaValue::Double(3.9), Primitive::Int),
            Some(JavaValue::Int(3))
        );
        assert_eq!(
            cast(&JavaValue::Double(f64::NAN), Primitive::Long),
            Some(JavaValue::Long(0))
        );
        assert_eq!(
            cast(&JavaValue::Double(1e10), Primitive::Int),
            Some(JavaValue::Int(i32::MAX))
        );
        // Through int: 1e10 saturates to 0x7fffffff, whose low 16 bits are -1.
        assert_eq!(
            cast(&JavaValue::Double(1e10), Primitive::Short),
            Some(JavaValue::Short(-1))
        );
        assert_eq!(
            cast(&JavaValue::Int(300), Primitive::Byte),
            Some(JavaValue::Byte(44))
        );
        assert_eq!(
            cast(&JavaValue::Int(65), Primitive::Char),
            Some(JavaValue::Char(65))
        );
        assert_eq!(cast(&JavaValue::Boolean(true), Primitive::Int), None);
    }

    #[test]
    fn assignment_widens_or_keeps_a_fitting_constant() {
        assert_eq!(
            assign(&JavaValue::Int(5), Primitive::Long),
            Some(JavaValue::Long(5))
        );
        assert_eq!(
            assign(&JavaValue::Int(5), Primitive::Byte),
            Some(JavaValue::Byte(5))
        );
        assert_eq!(assign(&JavaValue::Int(300), Primitive::Byte), None);
        assert_eq!(assign(&JavaValue::Double(1.5), Primitive::Int), None);
        assert_eq!(assign(&JavaValue::Boolean(true), Primitive::Int), None);
    }
}
