//! `print` of a Rust expression in a Rust frame (`adapters::rust_expressions`): its root read by
//! the adapter, then each step walked over the variables the adapter gives, as `locals` shows
//! them: a field is a child, an element `[i]` a child, a map's entry the child named by its key,
//! `.len()` the number of children, `.unwrap()` an `Option`'s one child. Nothing runs in the
//! program.
//!
//! Apart from inspection because it is the one reading of an expression done by the session
//! rather than the adapter's evaluator; what a step means for each type is the adapters' (the
//! `shapes` module), the requests are here.

use std::future::Future;
use std::pin::Pin;

use super::Session;
use crate::adapters::rust_expressions::shapes::{self, Shape};
use crate::adapters::rust_expressions::{
    self, Chain, FORMS, Prefix, Root, RustReading, Step, Unsupported,
};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::variables::child_count;
use crate::dap::DapError;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::dap::types::{EvaluateBody, StackFrame, Variable};

/// References followed in a row before giving up (`&&&Box<Rc<T>>` is five).
const DEREFS: usize = 8;

/// A map's entries read to find a key, and a struct's members to find a field.
const ENTRIES_READ: u64 = 4096;

/// Why a Rust expression gave no value.
pub(super) enum RustFailure {
    /// The adapter could not read a name the expression starts from: its words, to explain as
    /// any evaluation's (a name that is not here may be a caller's).
    Root(DapError),
    /// A step failed, said in Rust's words.
    Told(ErrorBody),
}

impl From<DapError> for RustFailure {
    fn from(error: DapError) -> RustFailure {
        RustFailure::Told(error.reading("a value's members"))
    }
}

fn told(message: String, hint: impl Into<String>) -> RustFailure {
    RustFailure::Told(ErrorBody::new(ErrorCode::Adapter, message, hint.into()))
}

/// A value met on the walk.
#[derive(Debug, Clone)]
struct Value {
    value: String,
    type_name: String,
    reference: i64,
    count: Option<u64>,
    /// An expression the adapter reads for it (`(*req).name`), while the walk has not left
    /// what its evaluator can name (an element of a `Vec`, an `Option`'s payload).
    path: Option<String>,
    /// The expression up to here, as written.
    written: String,
    /// What a `Some(..)` the walk made holds (a `.get()`'s answer), for its `.unwrap()`.
    held: Option<Box<Value>>,
}

impl Value {
    fn of_variable(v: Variable, path: Option<String>) -> Value {
        Value {
            count: child_count(v.named_variables, v.indexed_variables),
            value: v.value,
            type_name: v.type_name.unwrap_or_default(),
            reference: v.variables_reference,
            path,
            written: String::new(),
            held: None,
        }
    }

    fn of_body(b: EvaluateBody, path: Option<String>) -> Value {
        Value {
            count: child_count(b.named_variables, b.indexed_variables),
            value: b.result,
            type_name: b.type_name.unwrap_or_default(),
            reference: b.variables_reference,
            path,
            written: String::new(),
            held: None,
        }
    }

    fn scalar(value: String, type_name: &str) -> Value {
        Value {
            value,
            type_name: type_name.to_string(),
            reference: 0,
            count: None,
            path: None,
            written: String::new(),
            held: None,
        }
    }

    fn shape(&self) -> Shape {
        Shape::of(&self.type_name)
    }

    /// `req (&semver::VersionReq)`, as an error names it.
    fn described(&self) -> String {
        format!(
            "`{}` is {} ({})",
            self.written,
            self.shape().noun(),
            shapes::rust_type(&self.type_name)
        )
    }

    fn into_body(self) -> EvaluateBody {
        EvaluateBody {
            result: self.value,
            type_name: Some(self.type_name).filter(|t| !t.is_empty()),
            variables_reference: self.reference,
            named_variables: None,
            indexed_variables: None,
            memory_reference: None,
        }
    }
}

/// `Some(x)`, a `.get()`'s answer: its members are `x`'s.
fn some(inner: Value) -> Value {
    Value {
        value: format!("Some({})", inner.value),
        type_name: format!(
            "core::option::Option<&{}>",
            shapes::rust_type(&inner.type_name)
        ),
        held: Some(Box::new(inner.clone())),
        ..inner
    }
}

fn none(of: Option<&String>) -> Value {
    let inner = of.map_or("_", String::as_str);
    Value::scalar("None".into(), &format!("core::option::Option<&{inner}>"))
}

fn boolean(b: bool) -> Value {
    Value::scalar(b.to_string(), "bool")
}

mod methods;

type Walk<'a> = Pin<Box<dyn Future<Output = Result<Value, RustFailure>> + Send + 'a>>;

/// Whether `frame` runs Rust code.
pub(super) fn is_rust_frame(frame: &StackFrame) -> bool {
    frame
        .source
        .as_ref()
        .and_then(|s| s.path.as_deref())
        .is_some_and(|p| p.ends_with(".rs"))
}

/// How an expression in a Rust frame is read: walked, or left to the adapter with the reason a
/// walk cannot read it.
pub(super) enum RustForm {
    Walk(Chain, RustReading),
    /// A method only the program runs: the adapter may call it (GDB calls a function the
    /// program has), and when it cannot, this says why.
    Refused(Unsupported),
    /// Anything else (arithmetic, a comparison): the adapter's; its C++ advice is not shown.
    Other,
}

impl Session {
    /// How `expression` is read in a frame that is Rust's (`rust_frame`); `None` where the
    /// adapter reads it as before (a frame of another language, an adapter without a Rust
    /// reading, a bare name).
    pub(super) fn rust_form(&self, expression: &str, rust_frame: bool) -> Option<RustForm> {
        let reading = self.adapter().profile().rust_reading?;
        if !rust_frame {
            return None;
        }
        Some(match rust_expressions::parse(expression) {
            Some(Ok(chain)) if chain.is_bare_name() => return None,
            Some(Ok(chain)) => RustForm::Walk(chain, reading),
            Some(Err(unsupported)) => RustForm::Refused(unsupported),
            None => RustForm::Other,
        })
    }

    /// The error for an expression of `form` that the adapter refused: in Rust's words where the
    /// adapter's are C++'s or a method's lookup.
    pub(super) fn rust_error(
        &self,
        expression: &str,
        form: &RustForm,
        error: ErrorBody,
    ) -> ErrorBody {
        if error.code != ErrorCode::Adapter {
            return error;
        }
        match form {
            RustForm::Refused(unsupported) => {
                let (message, hint) = unsupported.explain();
                ErrorBody::new(ErrorCode::Adapter, message, hint)
            }
            RustForm::Other | RustForm::Walk(..) if shapes::misleads_in_rust(&error.message) => {
                ErrorBody::new(
                    ErrorCode::Adapter,
                    format!(
                        "`{}` is more than print reads in Rust by itself, and the adapter's \
                         own evaluator cannot read it",
                        expression.trim()
                    ),
                    format!("print reads {FORMS}; print each part on its own"),
                )
            }
            _ => error,
        }
    }

    /// `chain`'s value in frame `frame_id`, as an evaluation's answer.
    pub(super) async fn rust_evaluate(
        &self,
        chain: &Chain,
        frame_id: i64,
        reading: RustReading,
    ) -> Result<EvaluateBody, RustFailure> {
        let walker = Walker {
            session: self,
            frame_id,
            reading,
        };
        Ok(walker.walk(chain).await?.into_body())
    }
}

/// One walk: the frame its names are read in, and how the adapter shows what it reads.
struct Walker<'s> {
    session: &'s Session,
    frame_id: i64,
    reading: RustReading,
}

impl Walker<'_> {
    fn walk<'a>(&'a self, chain: &'a Chain) -> Walk<'a> {
        Box::pin(async move {
            let mut value = match &chain.root {
                Root::Name(name) => {
                    let arguments = EvaluateArguments::watch(name, Some(self.frame_id));
                    let body = self
                        .session
                        .dap()
                        .request_typed::<Evaluate>(&arguments)
                        .await
                        .map_err(RustFailure::Root)?;
                    Value::of_body(body, Some(name.clone()))
                }
                Root::Group(inner) => self.walk(inner).await?,
            };
            value.written = match &chain.root {
                Root::Name(name) => name.clone(),
                Root::Group(inner) => format!("({inner})"),
            };
            for step in &chain.steps {
                let written = format!("{}{step}", value.written);
                value = self.step(value, step).await?;
                value.written = written;
            }
            for prefix in chain.prefix.iter().rev() {
                let written = match prefix {
                    Prefix::Borrow => format!("&{}", value.written),
                    Prefix::Deref => format!("*{}", value.written),
                };
                if *prefix == Prefix::Deref {
                    value = self.deref(value).await?;
                }
                value.written = written;
            }
            Ok(value)
        })
    }

    async fn step(&self, value: Value, step: &Step) -> Result<Value, RustFailure> {
        match step {
            Step::Field(name) => self.field(value, name).await,
            Step::Index(arg) => {
                let key = self.key(arg).await?;
                let receiver = self.auto_deref(value).await?;
                match receiver.shape() {
                    Shape::Sequence => {
                        let index = self.index_of(&receiver, &key)?;
                        match self.element(&receiver, index).await? {
                            Some(element) => Ok(element),
                            None => {
                                let len = self.count(&receiver).await?;
                                Err(told(
                                    format!(
                                        "index out of bounds: the len is {len} but the index is \
                                         {index} (`{}`)",
                                        receiver.written
                                    ),
                                    format!(
                                        "`{}.get({index})` answers None there",
                                        receiver.written
                                    ),
                                ))
                            }
                        }
                    }
                    Shape::Map => match self.entry(&receiver, &key).await? {
                        Some(entry) => Ok(entry),
                        None => Err(told(
                            format!("`{}` has no entry for the key {key}", receiver.written),
                            format!(
                                "`debugger print {}` shows its keys; `.get(&key)` answers None for a missing one",
                                receiver.written
                            ),
                        )),
                    },
                    Shape::String | Shape::Str => Err(told(
                        format!(
                            "{}: Rust does not index a string by position",
                            receiver.described()
                        ),
                        format!("print reads {FORMS}"),
                    )),
                    _ => Err(told(
                        format!("{}, which cannot be indexed", receiver.described()),
                        "`[i]` reads a Vec, slice or array; `[key]` a HashMap or BTreeMap",
                    )),
                }
            }
            Step::Method(method) => self.method(value, method).await,
        }
    }

    /// `.name`: a member of the value, or of what it points at.
    async fn field(&self, value: Value, name: &str) -> Result<Value, RustFailure> {
        let mut current = value;
        for _ in 0..DEREFS {
            let children = self.children(&current).await?;
            if let Some(child) = children.iter().find(|c| shapes::names_field(name, &c.name)) {
                let plain = !name.starts_with(|c: char| c.is_ascii_digit());
                let path = match current.shape() {
                    Shape::Pointer => current.path.as_ref().map(|p| format!("(*{p}).{name}")),
                    Shape::Other => current.path.as_ref().map(|p| format!("{p}.{name}")),
                    _ => None,
                };
                return Ok(Value::of_variable(child.clone(), path.filter(|_| plain)));
            }
            if !matches!(current.shape(), Shape::Pointer | Shape::Counted) {
                let names: Vec<&str> = children.iter().map(|c| c.name.as_str()).collect();
                let has = if names.is_empty() {
                    "it has no fields".to_string()
                } else {
                    format!("its fields: {}", names.join(", "))
                };
                return Err(told(
                    format!(
                        "`{}` ({}) has no field `{name}`; {has}",
                        current.written,
                        shapes::rust_type(&current.type_name)
                    ),
                    format!("`debugger print {}` shows its members", current.written),
                ));
            }
            let written = current.written.clone();
            current = self.deref(current).await?;
            current.written = written;
        }
        Err(told(
            format!("`{}`: too many references to follow", current.written),
            "",
        ))
    }

    /// What a reference, pointer, `Box`, `Rc` or `Arc` holds; a `Vec`, `String` or map is its
    /// own slice, `str` or map.
    async fn deref(&self, value: Value) -> Result<Value, RustFailure> {
        match value.shape() {
            Shape::Counted => {
                let children = self.children(&value).await?;
                match children
                    .into_iter()
                    .find(|c| shapes::is_pointee_child(&c.name))
                {
                    Some(inner) => Ok(Value {
                        written: value.written,
                        ..Value::of_variable(inner, None)
                    }),
                    None => Err(told(
                        format!(
                            "{}, whose value the adapter does not show",
                            value.described()
                        ),
                        "",
                    )),
                }
            }
            Shape::Pointer => {
                let pointee = shapes::pointee_type(&value.type_name);
                let children = self.children(&value).await?;
                let shown = match children.as_slice() {
                    [only]
                        if only.name.starts_with('*')
                            || (only.name == "value"
                                && only.type_name.as_deref().map(shapes::pointee_type)
                                    == Some(pointee.clone())) =>
                    {
                        Some(only.clone())
                    }
                    _ => None,
                };
                let path = value.path.as_ref().map(|p| format!("(*{p})"));
                if let Some(inner) = shown {
                    return Ok(Value {
                        written: value.written,
                        ..Value::of_variable(inner, path)
                    });
                }
                // LLDB shows a reference's target as its members, without the formatters of
                // the target's type (a `&Vec`'s are `buf` and `len`): the adapter reads it
                // whole where it can name it.
                if let Some(path) = &path {
                    let arguments = EvaluateArguments::watch(path, Some(self.frame_id));
                    if let Ok(body) = self
                        .session
                        .dap()
                        .request_typed::<Evaluate>(&arguments)
                        .await
                    {
                        return Ok(Value {
                            written: value.written,
                            ..Value::of_body(body, Some(path.clone()))
                        });
                    }
                }
                Ok(Value {
                    value: shapes::without_address(&value.value).to_string(),
                    type_name: pointee,
                    count: None,
                    path: None,
                    ..value
                })
            }
            Shape::Sequence | Shape::String | Shape::Str | Shape::Map | Shape::Set => Ok(value),
            _ => Err(told(
                format!("{}, which `*` cannot dereference", value.described()),
                "",
            )),
        }
    }

    /// Follows references, pointers, `Box`, `Rc` and `Arc` to the value they hold.
    async fn auto_deref(&self, value: Value) -> Result<Value, RustFailure> {
        let mut current = value;
        for _ in 0..DEREFS {
            if !matches!(current.shape(), Shape::Pointer | Shape::Counted) {
                break;
            }
            current = self.deref(current).await?;
        }
        Ok(current)
    }
}
