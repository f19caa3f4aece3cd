//! The methods a walk reads (`.len()`, `.get(..)`, `.unwrap()`, …) and the requests that read a
//! value's children: an element by its index, an entry by its key, a count.

use super::{ENTRIES_READ, RustFailure, Value, Walker, boolean, none, some, told};
use crate::adapters::rust_expressions::shapes::{self, Key, Shape, Variant};
use crate::adapters::rust_expressions::{Arg, FORMS, Literal, Method};
use crate::daemon::variables::fetch_children;
use crate::dap::DapError;
use crate::dap::requests::{Evaluate, EvaluateArguments, Variables, VariablesArguments};
use crate::dap::types::Variable;

impl Walker<'_> {
    pub(super) async fn method(&self, value: Value, method: &Method) -> Result<Value, RustFailure> {
        if let Method::Same("clone" | "to_owned" | "borrow" | "borrow_mut" | "as_ref" | "as_mut") =
            method
        {
            return Ok(value);
        }
        let receiver = self.auto_deref(value).await?;
        let shape = receiver.shape();
        if shape == Shape::Other {
            // A type of the program's (semver's `Prerelease`) may have a method of that name
            // of its own, which only the program runs.
            let type_name = shapes::rust_type(&receiver.type_name);
            return Err(told(
                format!(
                    "`{}` ({type_name}) is no type of the standard library whose `{method}` the \
                     debugger reads; its own would run the program's code",
                    receiver.written
                ),
                format!("`debugger print {}` shows its fields", receiver.written),
            ));
        }
        if let Method::Same(_) = method {
            // What the value holds: `Arc<String>`'s `.as_str()` is the `String`'s text.
            return Ok(receiver);
        }
        let wrong = |what: &str| {
            Err(told(
                format!("`{method}` reads {what}; {}", receiver.described()),
                format!("print reads {FORMS}"),
            ))
        };
        match method {
            Method::Len | Method::IsEmpty => {
                let len = self.length(&receiver, method).await?;
                Ok(match method {
                    Method::Len => Value::scalar(len.to_string(), "usize"),
                    _ => boolean(len == 0),
                })
            }
            Method::Get(arg) | Method::ContainsKey(arg) => {
                let key = self.key(arg).await?;
                let found = match (shape, method) {
                    (Shape::Sequence, Method::Get(_)) => {
                        let index = self.index_of(&receiver, &key)?;
                        self.element(&receiver, index).await?
                    }
                    (Shape::Map, _) => self.entry(&receiver, &key).await?,
                    (_, Method::Get(_)) => {
                        return wrong("a Vec, slice, array, HashMap or BTreeMap");
                    }
                    _ => return wrong("a HashMap or BTreeMap"),
                };
                if let Method::ContainsKey(_) = method {
                    return Ok(boolean(found.is_some()));
                }
                let arguments = shapes::type_arguments(&receiver.type_name);
                let of = if shape == Shape::Map {
                    arguments.get(1)
                } else {
                    arguments.first()
                };
                Ok(found.map_or_else(|| none(of), some))
            }
            Method::First | Method::Last => {
                if shape != Shape::Sequence {
                    return wrong("a Vec, slice or array");
                }
                let len = self.count(&receiver).await?;
                let index = match method {
                    Method::First => 0,
                    _ => u128::from(len.saturating_sub(1)),
                };
                let found = match len {
                    0 => None,
                    _ => self.element(&receiver, index).await?,
                };
                let arguments = shapes::type_arguments(&receiver.type_name);
                Ok(found.map_or_else(|| none(arguments.first()), some))
            }
            Method::IsSome | Method::IsNone | Method::IsOk | Method::IsErr => {
                let asked = match method {
                    Method::IsSome => Variant::Some,
                    Method::IsNone => Variant::None,
                    Method::IsOk => Variant::Ok,
                    _ => Variant::Err,
                };
                let expected = match asked {
                    Variant::Some | Variant::None => Shape::Option,
                    _ => Shape::Result,
                };
                match shapes::variant(&receiver.value) {
                    Some(v) if shape == expected => Ok(boolean(v == asked)),
                    _ if expected == Shape::Option => wrong("an Option"),
                    _ => wrong("a Result"),
                }
            }
            Method::Unwrap | Method::Expect(_) | Method::UnwrapErr => {
                self.unwrapped(receiver, method).await
            }
            Method::Same(_) => Ok(receiver),
        }
    }

    /// `.unwrap()`, `.expect(..)`, `.unwrap_err()`: the payload, or the panic Rust would raise.
    async fn unwrapped(&self, receiver: Value, method: &Method) -> Result<Value, RustFailure> {
        if let (Some(held), Method::Unwrap | Method::Expect(_)) = (&receiver.held, method) {
            return Ok(Value::clone(held));
        }
        let shape = receiver.shape();
        let variant = shapes::variant(&receiver.value);
        let wanted = match (shape, method, variant) {
            (Shape::Option, Method::UnwrapErr, _) | (_, _, None) => None,
            (Shape::Option, _, Some(v)) => Some(v == Variant::Some),
            (Shape::Result, Method::UnwrapErr, Some(v)) => Some(v == Variant::Err),
            (Shape::Result, _, Some(v)) => Some(v == Variant::Ok),
            _ => None,
        };
        let payload = shapes::payload_text(&receiver.value);
        let panic = match (wanted, shape, method) {
            (Some(true), _, _) => {
                let children = self.children(&receiver).await?;
                let inner = children
                    .iter()
                    .find(|c| shapes::is_payload_child(&c.name))
                    .or(children.first());
                return match inner {
                    Some(inner) => Ok(Value::of_variable(inner.clone(), None)),
                    None => Err(told(
                        format!(
                            "`{}`: the adapter shows no value inside {}",
                            receiver.written, receiver.value
                        ),
                        "",
                    )),
                };
            }
            (Some(false), Shape::Option, Method::Expect(message)) => message.clone(),
            (Some(false), Shape::Option, _) => "called `Option::unwrap()` on a `None` value".into(),
            (Some(false), _, Method::Expect(message)) => format!("{message}: {payload}"),
            (Some(false), _, Method::UnwrapErr) => {
                format!("called `Result::unwrap_err()` on an `Ok` value: {payload}")
            }
            (Some(false), _, _) => {
                format!("called `Result::unwrap()` on an `Err` value: {payload}")
            }
            (None, Shape::Option, Method::UnwrapErr) => {
                return Err(told(
                    format!("`.unwrap_err()` reads a Result; {}", receiver.described()),
                    "",
                ));
            }
            (None, _, _) => {
                return Err(told(
                    format!(
                        "`{method}` reads an Option or a Result; {}",
                        receiver.described()
                    ),
                    format!("print reads {FORMS}"),
                ));
            }
        };
        Err(told(
            format!("`{}` is {}: {panic}", receiver.written, receiver.value),
            "the program would panic here; `.is_some()`, `.is_ok()` or the value itself tell which it is",
        ))
    }

    /// `.len()` of a sequence or map (its children), a `String` or `&str` (its bytes).
    async fn length(&self, receiver: &Value, method: &Method) -> Result<u64, RustFailure> {
        let shape = receiver.shape();
        if shape.counts_children() {
            return self.count(receiver).await;
        }
        if !matches!(shape, Shape::String | Shape::Str) {
            return Err(told(
                format!(
                    "`{method}` reads a Vec, slice, array, String, &str, HashMap, BTreeMap or set; {}",
                    receiver.described()
                ),
                format!("print reads {FORMS}"),
            ));
        }
        if let Some(len) = shapes::string_length(&receiver.value, self.reading.escaped_strings) {
            return Ok(len);
        }
        // A text cut short: a `String`'s own length field, where the adapter can name it.
        if let (Shape::String, Some(path)) = (shape, &receiver.path) {
            let arguments =
                EvaluateArguments::watch(format!("{path}.vec.len"), Some(self.frame_id));
            if let Ok(body) = self
                .session
                .dap()
                .request_typed::<Evaluate>(&arguments)
                .await
                && let Some(len) = shapes::integer(&body.result)
            {
                return Ok(u64::try_from(len).unwrap_or(u64::MAX));
            }
        }
        Err(told(
            format!(
                "`{}`: the adapter shows only part of the string ({})",
                receiver.written, receiver.value
            ),
            "",
        ))
    }

    /// The index `key` names in a sequence.
    pub(super) fn index_of(&self, receiver: &Value, key: &Key) -> Result<u128, RustFailure> {
        match key {
            Key::Number(n) if *n >= 0 => Ok(n.unsigned_abs()),
            _ => Err(told(
                format!(
                    "{}, indexed by a position (`[0]`), not by {key}",
                    receiver.described()
                ),
                "",
            )),
        }
    }

    /// An index or a key: a literal, or a variable read in the same frame.
    pub(super) async fn key(&self, arg: &Arg) -> Result<Key, RustFailure> {
        Ok(match arg {
            Arg::Literal(Literal::Integer(n)) => {
                Key::Number(i128::try_from(*n).unwrap_or(i128::MAX))
            }
            Arg::Literal(Literal::Str(s)) => Key::Text(s.clone()),
            Arg::Literal(Literal::Char(c)) => Key::Char(*c),
            Arg::Literal(Literal::Bool(b)) => Key::Other(b.to_string()),
            Arg::Path(chain) => {
                let value = self.auto_deref(self.walk(chain).await?).await?;
                Key::from_shown(&value.value)
            }
        })
    }

    /// Element `index` of a sequence: one child asked for.
    pub(super) async fn element(
        &self,
        receiver: &Value,
        index: u128,
    ) -> Result<Option<Value>, RustFailure> {
        if receiver.reference <= 0 {
            return Ok(None);
        }
        let Ok(start) = u64::try_from(index) else {
            return Ok(None);
        };
        let arguments = VariablesArguments {
            variables_reference: receiver.reference,
            start: Some(start),
            count: Some(1),
        };
        // GDB refuses a page past the end where LLDB answers none.
        let page = match self
            .session
            .dap()
            .request_typed::<Variables>(&arguments)
            .await
        {
            Ok(page) => page,
            Err(DapError::Adapter { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(page
            .variables
            .into_iter()
            .find(|c| shapes::names_element(index, &c.name))
            .map(|c| Value::of_variable(c, None)))
    }

    /// The entry of a map under `key`.
    pub(super) async fn entry(
        &self,
        receiver: &Value,
        key: &Key,
    ) -> Result<Option<Value>, RustFailure> {
        if receiver.reference <= 0 {
            return Ok(None);
        }
        let (entries, total) = fetch_children(
            self.session.dap(),
            receiver.reference,
            receiver.count,
            ENTRIES_READ,
        )
        .await?;
        let read = entries.len() as u64;
        match entries.into_iter().find(|c| key.names(&c.name)) {
            Some(found) => Ok(Some(Value::of_variable(found, None))),
            None if total > read => Err(told(
                format!(
                    "the key {key} is not among the first {read} of the {total} entries of `{}`",
                    receiver.written
                ),
                "",
            )),
            None => Ok(None),
        }
    }

    /// How many children a value has: the adapter's count, else counted.
    pub(super) async fn count(&self, value: &Value) -> Result<u64, RustFailure> {
        if value.reference <= 0 {
            return Ok(0);
        }
        let (_, total) =
            fetch_children(self.session.dap(), value.reference, value.count, 32).await?;
        Ok(total)
    }

    /// A value's members (a struct's fields, a pointer's target).
    pub(super) async fn children(&self, value: &Value) -> Result<Vec<Variable>, RustFailure> {
        if value.reference <= 0 {
            return Ok(Vec::new());
        }
        let (children, _) = fetch_children(
            self.session.dap(),
            value.reference,
            value.count,
            ENTRIES_READ,
        )
        .await?;
        Ok(children)
    }
}
