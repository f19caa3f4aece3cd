//! The values a Go function returned, for `finish`. Delve's DAP shows none: its step out
//! collects them (for its own terminal's `stepout`), but its DAP server never asks for them.
//! Right after the return, though, Go's register-based calling convention (ABIInternal, Go 1.17
//! and later) holds them in registers, in the order of the results, and Delve evaluates a
//! register by its name (`RAX`). The results' names (`~r0`, `~r1`: Go's unnamed results) and
//! types come from the function's locals, read before it returns.
//!
//! Only results whose register shapes are known are read: Go's integers, bools, floats,
//! strings and pointers, and whether an interface is nil. The names are amd64's: elsewhere the
//! first evaluation fails and the value is unknown.

use crate::adapters::return_value::{ReadingStep, ResultReading, ReturnedValue};

/// amd64's registers for integer-shaped results, in the order the convention takes them.
const INTEGER_REGISTERS: [&str; 9] = ["RAX", "RBX", "RCX", "RDI", "RSI", "R8", "R9", "R10", "R11"];
/// amd64's registers for floating-point results.
const FLOAT_REGISTERS: usize = 15;

/// Go's integer types, which Delve converts a register to by name (`int8(RAX)`).
const INTEGERS: [&str; 13] = [
    "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
    "uintptr", "byte", "rune",
];

/// The longest string read whole (Delve cuts a long one's text itself).
const STRING_READ_MAX: u64 = 4096;

/// How one result is read, and from which registers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Read {
    Integer {
        type_name: String,
        register: String,
    },
    Bool {
        register: String,
    },
    Float {
        bits: u32,
        register: String,
    },
    String {
        pointer: String,
        length: String,
    },
    Pointer {
        type_name: String,
        register: String,
    },
    /// Only whether it is nil, from its type word: the value's type is not known to Delve by
    /// an expression.
    Interface {
        type_name: String,
        type_word: String,
    },
}

/// A result read so far: the expression to evaluate next, its text, or why it cannot be read.
enum Progress {
    Needs(String),
    Read(String),
    Failed(String),
}

impl Read {
    /// Consumes this result's answers; says what it still needs or what it reads as.
    fn progress<'a>(&self, answers: &mut impl Iterator<Item = &'a String>) -> Progress {
        match self {
            Read::Integer {
                type_name,
                register,
            } => match answers.next() {
                None => Progress::Needs(format!("{type_name}({register})")),
                Some(answer) => Progress::Read(number_text(answer).to_string()),
            },
            Read::Bool { register } => match answers.next() {
                None => Progress::Needs(format!("uint8({register})")),
                Some(answer) => Progress::Read((number_text(answer) != "0").to_string()),
            },
            Read::Float { bits, register } => match answers.next() {
                None => Progress::Needs(register.clone()),
                Some(answer) => match float_text(answer, *bits) {
                    Some(text) => Progress::Read(text),
                    None => Progress::Failed(format!("{register} read as {answer}")),
                },
            },
            Read::String { pointer, length } => {
                let Some(answer) = answers.next() else {
                    return Progress::Needs(format!("int({length})"));
                };
                let Ok(length) = number_text(answer).parse::<u64>() else {
                    return Progress::Failed(format!("a string's length read as {answer}"));
                };
                if length == 0 {
                    return Progress::Read("\"\"".into());
                }
                let read = length.min(STRING_READ_MAX);
                match answers.next() {
                    None => Progress::Needs(format!("string(*(*[{read}]uint8)({pointer}))")),
                    Some(text) if read < length => {
                        Progress::Read(format!("{text}...+{} more", length - read))
                    }
                    Some(text) => Progress::Read(text.clone()),
                }
            }
            Read::Pointer {
                type_name,
                register,
            } => match answers.next() {
                None => Progress::Needs(format!("({type_name})({register})")),
                Some(answer) => Progress::Read(answer.clone()),
            },
            Read::Interface {
                type_name,
                type_word,
            } => match answers.next() {
                None => Progress::Needs(format!("uint64({type_word})")),
                Some(answer) if number_text(answer) == "0" => Progress::Read("nil".into()),
                Some(_) => Progress::Read(format!("<non-nil {type_name}>")),
            },
        }
    }
}

/// A number's own text in Delve's answer (`1 = 0x1` for an unsigned one).
fn number_text(answer: &str) -> &str {
    answer.split(" = ").next().unwrap_or(answer).trim()
}

/// A float from Delve's text of an XMM register: its bytes in hex, lowest first, quoted.
fn float_text(answer: &str, bits: u32) -> Option<String> {
    let hex = answer.trim().trim_matches('"');
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(i * 2..i * 2 + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    match bits {
        32 => Some(f32::from_le_bytes(bytes.get(..4)?.try_into().ok()?).to_string()),
        _ => Some(f64::from_le_bytes(bytes.get(..8)?.try_into().ok()?).to_string()),
    }
}

/// The reading of one call's results.
struct GoResults {
    reads: Vec<Read>,
    type_name: String,
}

impl ResultReading for GoResults {
    fn next(&self, answers: &[String]) -> ReadingStep {
        let mut answers = answers.iter();
        let mut parts = Vec::new();
        for read in &self.reads {
            match read.progress(&mut answers) {
                Progress::Needs(expression) => return ReadingStep::Evaluate(expression),
                Progress::Read(text) => parts.push(text),
                Progress::Failed(why) => return ReadingStep::Done(Err(why)),
            }
        }
        ReadingStep::Done(Ok(ReturnedValue {
            value: parts.join(", "),
            type_name: Some(self.type_name.clone()),
        }))
    }
}

/// How to read the results of the function whose locals are `locals` (names and types), or
/// why they cannot be read.
pub(super) fn plan(locals: &[(String, Option<String>)]) -> Result<Box<dyn ResultReading>, String> {
    let mut results: Vec<(u32, &str)> = Vec::new();
    for (name, type_name) in locals {
        if let Some(index) = name.strip_prefix("~r").and_then(|n| n.parse().ok()) {
            let type_name = type_name
                .as_deref()
                .ok_or_else(|| format!("Delve gave no type for {name}"))?;
            results.push((index, type_name));
        }
    }
    if results.is_empty() {
        return Err(
            "the function returns nothing, or names its results, which Delve does not \
                    tell from its other locals"
                .into(),
        );
    }
    results.sort_by_key(|(index, _)| *index);
    let (mut integers, mut floats) = (INTEGER_REGISTERS.iter(), 0);
    let mut reads = Vec::new();
    let in_memory = || "results passed in memory are not read".to_string();
    for (_, type_name) in &results {
        let mut integer = || integers.next().map(|r| r.to_string()).ok_or_else(in_memory);
        let read = match *type_name {
            t if INTEGERS.contains(&t) => Read::Integer {
                type_name: t.to_string(),
                register: integer()?,
            },
            "bool" => Read::Bool {
                register: integer()?,
            },
            "float32" | "float64" => {
                if floats >= FLOAT_REGISTERS {
                    return Err(in_memory());
                }
                floats += 1;
                Read::Float {
                    bits: if *type_name == "float32" { 32 } else { 64 },
                    register: format!("XMM{}", floats - 1),
                }
            }
            "string" => Read::String {
                pointer: integer()?,
                length: integer()?,
            },
            t if t.starts_with('*') => Read::Pointer {
                type_name: t.to_string(),
                register: integer()?,
            },
            t if t == "error" || t == "any" || t.starts_with("interface {") => {
                let type_word = integer()?;
                integer()?;
                Read::Interface {
                    type_name: t.to_string(),
                    type_word,
                }
            }
            t => return Err(format!("a result of type {t} is not read from registers")),
        };
        reads.push(read);
    }
    let type_name = match results.as_slice() {
        [(_, one)] => one.to_string(),
        many => format!(
            "({})",
            many.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(", ")
        ),
    };
    Ok(Box::new(GoResults { reads, type_name }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locals(pairs: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
        pairs
            .iter()
            .map(|(n, t)| (n.to_string(), Some(t.to_string())))
            .collect()
    }

    /// Runs a reading against answers given by expression.
    fn read(plan: &dyn ResultReading, answer: impl Fn(&str) -> &'static str) -> ReadingStep {
        let mut answers = Vec::new();
        loop {
            match plan.next(&answers) {
                ReadingStep::Evaluate(expression) => answers.push(answer(&expression).to_string()),
                done => return done,
            }
        }
    }

    #[test]
    fn results_are_read_from_the_registers_the_convention_gives_them() {
        let reading =
            plan(&locals(&[("a", "int"), ("~r1", "error"), ("~r0", "int")])).expect("a plan");
        let step = read(reading.as_ref(), |e| match e {
            "int(RAX)" => "3",
            "uint64(RBX)" => "0 = 0x0",
            other => panic!("asked {other}"),
        });
        assert_eq!(
            step,
            ReadingStep::Done(Ok(ReturnedValue {
                value: "3, nil".into(),
                type_name: Some("(int, error)".into()),
            }))
        );
        let reading = plan(&locals(&[
            ("~r0", "string"),
            ("~r1", "float64"),
            ("~r2", "bool"),
        ]))
        .expect("a plan");
        let step = read(reading.as_ref(), |e| match e {
            "int(RBX)" => "3",
            "string(*(*[3]uint8)(RAX))" => "\"n42\"",
            "XMM0" => "\"000000000000fc3f0000000000000000\"",
            "uint8(RCX)" => "1 = 0x1",
            other => panic!("asked {other}"),
        });
        let ReadingStep::Done(Ok(value)) = step else {
            panic!("{step:?}");
        };
        assert_eq!(value.value, "\"n42\", 1.75, true");
    }

    #[test]
    fn results_it_cannot_read_say_why() {
        assert!(plan(&locals(&[("a", "int")])).is_err());
        let Err(why) = plan(&locals(&[("~r0", "main.Point")])) else {
            panic!("a struct is not read");
        };
        assert!(why.contains("main.Point"), "{why}");
        let many: Vec<(String, Option<String>)> = (0..10)
            .map(|i| (format!("~r{i}"), Some("int".to_string())))
            .collect();
        assert!(plan(&many).is_err(), "a tenth integer goes to memory");
    }
}
