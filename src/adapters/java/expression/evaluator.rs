//! An expression's value in the stopped frame, as Java would compute it there: names looked up
//! as Java scopes them (locals, then the frame class's fields and statics, then the enclosing
//! instance's, then types), calls resolved among overloads and run in the stopped thread,
//! operators with Java's promotions, and boxes opened where Java opens them.

use crate::adapters::java::heap::{
    Heap, HeapError, JavaValue, LocalInfo, MethodInfo, ObjectKind, ObjectRef, Receiver, TypeRef,
};

use super::ast::{BinaryOperator, Expr, ExprKind, Literal, TypeName};
use super::conversion::{arguments_for, box_primitive, type_name_of};
use super::error::ExpressionError;
use super::hierarchy::{field_named, is_instance, methods_named, unbox};
use super::operators::{self, OperatorError};
use super::overload::{ArgumentType, Resolution, resolve};
use super::primitives::{self, Number, Primitive, java_text};

/// The javac names of an inner class's enclosing instance and of a captured local.
const OUTER_INSTANCE: &str = "this$0";
const CAPTURED_PREFIX: &str = "val$";
/// How many enclosing instances a name is looked for through (`this$0.this$0...`).
const OUTER_DEPTH: usize = 8;

/// What a name, or a dotted chain of them, denotes.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Value(JavaValue),
    Type(TypeRef),
    /// A prefix of a qualified type name (`com.shop` of `com.shop.Cart`); its first name and
    /// column, for the error when no type follows.
    Package {
        path: String,
        first: String,
        column: usize,
    },
}

/// Where a simple name lives in the frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Variable {
    Local(LocalInfo),
    /// A field of an object: `this`'s, or an enclosing instance's.
    Field {
        object: ObjectRef,
        field: crate::adapters::java::heap::FieldInfo,
    },
    Static {
        ty: TypeRef,
        field: crate::adapters::java::heap::FieldInfo,
    },
}

pub struct Evaluator<'h, H> {
    pub heap: &'h H,
}

impl<'h, H: Heap> Evaluator<'h, H> {
    pub fn new(heap: &'h H) -> Self {
        Evaluator { heap }
    }

    pub async fn eval(&self, expr: &Expr) -> Result<JavaValue, ExpressionError> {
        let column = expr.column;
        match &expr.kind {
            ExprKind::Literal(literal) => self.literal(literal).await,
            ExprKind::Name(_) | ExprKind::Field { .. } => {
                let resolved = Box::pin(self.resolve(expr)).await?;
                self.value_of(resolved, column).await
            }
            ExprKind::This => match self.heap.this().await? {
                Some(this) => Ok(JavaValue::Object(this)),
                None => Err(ExpressionError::StaticContext {
                    what: "'this'".into(),
                    column,
                }),
            },
            ExprKind::Index { array, index } => {
                let array_value = Box::pin(self.eval(array)).await?;
                let index_value = Box::pin(self.eval(index)).await?;
                let (array_ref, at) = self.element(array, array_value, index_value).await?;
                Ok(self
                    .heap
                    .array_elements(array_ref, at, 1)
                    .await?
                    .into_iter()
                    .next()
                    .unwrap_or(JavaValue::Null))
            }
            ExprKind::Call {
                target,
                name,
                arguments,
            } => self.call(target.as_deref(), name, arguments, column).await,
            ExprKind::Unary { operator, operand } => {
                let value = Box::pin(self.eval(operand)).await?;
                let value = unbox(self.heap, value).await?;
                match operators::unary(*operator, &value) {
                    Some(result) => Ok(result),
                    None => Err(ExpressionError::BadOperands {
                        operator: operator.text().into(),
                        operands: vec![type_name_of(self.heap, &value).await?],
                        column,
                    }),
                }
            }
            ExprKind::Binary {
                operator,
                left,
                right,
            } => self.binary(*operator, left, right, column).await,
            ExprKind::Conditional {
                condition,
                then,
                otherwise,
            } => {
                let condition = Box::pin(self.eval(condition)).await?;
                let (chosen, other) = if self.truth(condition, condition_column(expr)).await? {
                    (then, otherwise)
                } else {
                    (otherwise, then)
                };
                let value = Box::pin(self.eval(chosen)).await?;
                Box::pin(self.conditional_type(value, other)).await
            }
            ExprKind::Cast { to, operand } => {
                let value = Box::pin(self.eval(operand)).await?;
                self.cast(value, to, column).await
            }
            ExprKind::InstanceOf { operand, of } => {
                let value = Box::pin(self.eval(operand)).await?;
                match value {
                    JavaValue::Null => Ok(JavaValue::Boolean(false)),
                    JavaValue::Object(object) => {
                        let target = self.type_named(of, column).await?;
                        let ty = self.heap.type_of(object).await?;
                        Ok(JavaValue::Boolean(
                            is_instance(self.heap, &ty, &target.name).await?,
                        ))
                    }
                    other => Err(ExpressionError::BadOperands {
                        operator: "instanceof".into(),
                        operands: vec![type_name_of(self.heap, &other).await?],
                        column,
                    }),
                }
            }
        }
    }

    /// A conditional's value in its type (JLS 15.25): branches of two numeric types make the
    /// type of their binary numeric promotion (`c ? 1 : 2.5` is a `double`), a box and its
    /// primitive the primitive. The branch not taken is read for its type only where that
    /// runs no code of the program (no call), and keeps the value as it is where it cannot
    /// be read.
    async fn conditional_type(
        &self,
        value: JavaValue,
        other: &Expr,
    ) -> Result<JavaValue, ExpressionError> {
        if !runs_no_code(other) {
            return Ok(value);
        }
        let Ok(other) = Box::pin(self.eval(other)).await else {
            return Ok(value);
        };
        if type_name_of(self.heap, &value).await? == type_name_of(self.heap, &other).await? {
            return Ok(value);
        }
        let (Ok(unboxed), Ok(other)) = (
            unbox(self.heap, value.clone()).await,
            unbox(self.heap, other).await,
        ) else {
            return Ok(value);
        };
        match (Number::promote(&unboxed), Number::promote(&other)) {
            (Some(number), Some(other)) => Ok(Number::promote_pair(number, other).0.value()),
            _ => Ok(value),
        }
    }

    /// A condition's truth: a `boolean` or a `Boolean`.
    pub async fn truth(&self, value: JavaValue, column: usize) -> Result<bool, ExpressionError> {
        match unbox(self.heap, value).await? {
            JavaValue::Boolean(b) => Ok(b),
            other => Err(ExpressionError::CannotConvert {
                from: type_name_of(self.heap, &other).await?,
                to: "boolean".into(),
                column,
            }),
        }
    }

    async fn value_of(
        &self,
        resolved: Resolved,
        column: usize,
    ) -> Result<JavaValue, ExpressionError> {
        match resolved {
            Resolved::Value(value) => Ok(value),
            Resolved::Type(ty) => Err(ExpressionError::NotAValue {
                type_name: ty.name,
                column,
            }),
            Resolved::Package { first, column, .. } => Err(self.unknown_name(&first, column).await),
        }
    }

    async fn literal(&self, literal: &Literal) -> Result<JavaValue, ExpressionError> {
        Ok(match literal {
            Literal::Int(v) => JavaValue::Int(*v),
            Literal::Long(v) => JavaValue::Long(*v),
            Literal::Float(v) => JavaValue::Float(*v),
            Literal::Double(v) => JavaValue::Double(*v),
            Literal::Char(v) => JavaValue::Char(*v),
            Literal::Boolean(v) => JavaValue::Boolean(*v),
            Literal::Null => JavaValue::Null,
            Literal::String(text) => {
                JavaValue::Object(self.interned(self.heap.new_string(text).await?).await?)
            }
        })
    }

    /// The string of the VM's pool with `string`'s text (`String.intern`): a string literal
    /// is the pool's in Java, so `"a" == "a"` holds, and so does `name == "Bob"` where `name`
    /// was set from a literal.
    async fn interned(&self, string: ObjectRef) -> Result<ObjectRef, ExpressionError> {
        let ty = self.heap.type_of(string).await?;
        let methods = self.heap.methods(&ty).await?;
        let Some(intern) = methods
            .iter()
            .find(|m| m.name == "intern" && m.parameters.is_empty() && !m.is_static)
        else {
            return Ok(string);
        };
        match self
            .heap
            .invoke(&Receiver::Instance(string), intern, &[])
            .await?
        {
            JavaValue::Object(pooled) => Ok(pooled),
            _ => Ok(string),
        }
    }

    /// What a name or a dotted chain denotes, Java's way: the leftmost name is a variable if
    /// one is in scope, else a type, else a package; what follows a type is its static or a
    /// nested type.
    pub async fn resolve(&self, expr: &Expr) -> Result<Resolved, ExpressionError> {
        match &expr.kind {
            ExprKind::Name(name) => {
                if let Some(variable) = self.variable(name).await? {
                    return Ok(Resolved::Value(self.read(&variable).await?));
                }
                if let Some(ty) = self.heap.find_type(name).await? {
                    return Ok(Resolved::Type(ty));
                }
                Ok(Resolved::Package {
                    path: name.clone(),
                    first: name.clone(),
                    column: expr.column,
                })
            }
            ExprKind::Field { target, name } => {
                let resolved = Box::pin(self.resolve(target)).await?;
                self.member(resolved, target, name, expr.column).await
            }
            _ => Ok(Resolved::Value(Box::pin(self.eval(expr)).await?)),
        }
    }

    /// `name` of what `target` (written as `target_expr`) resolved to.
    async fn member(
        &self,
        target: Resolved,
        target_expr: &Expr,
        name: &str,
        column: usize,
    ) -> Result<Resolved, ExpressionError> {
        match target {
            Resolved::Value(JavaValue::Object(object)) => {
                if object.kind == ObjectKind::Array && name == "length" {
                    let length = self.heap.array_length(object).await?;
                    return Ok(Resolved::Value(JavaValue::Int(
                        i32::try_from(length).unwrap_or(i32::MAX),
                    )));
                }
                let ty = self.heap.type_of(object).await?;
                match field_named(self.heap, &ty, name).await? {
                    Some((declaring, field)) => {
                        let variable = if field.is_static {
                            Variable::Static {
                                ty: declaring,
                                field,
                            }
                        } else {
                            Variable::Field { object, field }
                        };
                        Ok(Resolved::Value(self.read(&variable).await?))
                    }
                    None => Err(ExpressionError::NoField {
                        type_name: ty.name,
                        field: name.into(),
                        column,
                    }),
                }
            }
            Resolved::Value(JavaValue::Null) => Err(ExpressionError::NullPointer {
                what: target_expr.to_string(),
                column: target_expr.column,
            }),
            Resolved::Value(other) => Err(ExpressionError::NoField {
                type_name: type_name_of(self.heap, &other).await?,
                field: name.into(),
                column,
            }),
            Resolved::Type(ty) => {
                if let Some((declaring, field)) = field_named(self.heap, &ty, name).await?
                    && field.is_static
                {
                    let variable = Variable::Static {
                        ty: declaring,
                        field,
                    };
                    return Ok(Resolved::Value(self.read(&variable).await?));
                }
                match self.heap.find_type(&format!("{}${name}", ty.name)).await? {
                    Some(nested) => Ok(Resolved::Type(nested)),
                    None => Err(ExpressionError::NoField {
                        type_name: ty.name,
                        field: name.into(),
                        column,
                    }),
                }
            }
            Resolved::Package {
                path,
                first,
                column: first_column,
            } => {
                let path = format!("{path}.{name}");
                match self.heap.find_type(&path).await? {
                    Some(ty) => Ok(Resolved::Type(ty)),
                    None => Ok(Resolved::Package {
                        path,
                        first,
                        column: first_column,
                    }),
                }
            }
        }
    }

    /// The variable a simple name is, if any: a local; a field (own or inherited) or static of
    /// the frame's class; a local an anonymous class captured; a field of an enclosing instance.
    pub async fn variable(&self, name: &str) -> Result<Option<Variable>, ExpressionError> {
        if let Some(locals) = self.heap.locals().await?
            && let Some(local) = locals.into_iter().find(|l| l.name == name)
        {
            return Ok(Some(Variable::Local(local)));
        }
        let this = self.heap.this().await?;
        let frame_type = self.heap.frame_type().await?;
        if let Some((declaring, field)) = field_named(self.heap, &frame_type, name).await? {
            if field.is_static {
                return Ok(Some(Variable::Static {
                    ty: declaring,
                    field,
                }));
            }
            if let Some(object) = this {
                return Ok(Some(Variable::Field { object, field }));
            }
        }
        let mut enclosing = this;
        for _ in 0..OUTER_DEPTH {
            let Some(object) = enclosing else {
                break;
            };
            let ty = self.heap.type_of(object).await?;
            for candidate in [format!("{CAPTURED_PREFIX}{name}"), name.to_string()] {
                if let Some((declaring, field)) = field_named(self.heap, &ty, &candidate).await? {
                    return Ok(Some(if field.is_static {
                        Variable::Static {
                            ty: declaring,
                            field,
                        }
                    } else {
                        Variable::Field { object, field }
                    }));
                }
            }
            enclosing = self.enclosing(object, &ty).await?;
        }
        Ok(None)
    }

    /// The instance enclosing an inner class's `object` (javac's `this$0`), if it has one.
    async fn enclosing(
        &self,
        object: ObjectRef,
        ty: &TypeRef,
    ) -> Result<Option<ObjectRef>, HeapError> {
        let Some((_, outer)) = field_named(self.heap, ty, OUTER_INSTANCE).await? else {
            return Ok(None);
        };
        Ok(match self.heap.get_fields(object, &[outer]).await?.pop() {
            Some(JavaValue::Object(outer)) => Some(outer),
            _ => None,
        })
    }

    /// What a call without a target is on: `this` and the frame's class when it has a method
    /// of that name, else the nearest enclosing instance that has one.
    async fn implicit_receiver(
        &self,
        name: &str,
    ) -> Result<(TypeRef, Option<ObjectRef>), HeapError> {
        let frame = self.heap.frame_type().await?;
        let this = self.heap.this().await?;
        if !methods_named(self.heap, &frame, name).await?.is_empty() {
            return Ok((frame, this));
        }
        let mut enclosing = this;
        for _ in 0..OUTER_DEPTH {
            let Some(object) = enclosing else {
                break;
            };
            let ty = self.heap.type_of(object).await?;
            if !methods_named(self.heap, &ty, name).await?.is_empty() {
                return Ok((ty, Some(object)));
            }
            enclosing = self.enclosing(object, &ty).await?;
        }
        Ok((frame, this))
    }

    pub async fn read(&self, variable: &Variable) -> Result<JavaValue, HeapError> {
        let values = match variable {
            Variable::Local(local) => return Ok(local.value.clone()),
            Variable::Field { object, field } => {
                self.heap
                    .get_fields(*object, std::slice::from_ref(field))
                    .await?
            }
            Variable::Static { ty, field } => {
                self.heap
                    .get_statics(ty, std::slice::from_ref(field))
                    .await?
            }
        };
        Ok(values.into_iter().next().unwrap_or(JavaValue::Null))
    }

    /// The names an unknown name could have been, for its error.
    pub async fn unknown_name(&self, name: &str, column: usize) -> ExpressionError {
        let locals = match self.heap.locals().await {
            Ok(Some(locals)) => Some(locals.into_iter().map(|l| l.name).collect()),
            Ok(None) => None,
            Err(error) => return ExpressionError::Heap(error),
        };
        ExpressionError::UnknownName {
            name: name.into(),
            locals,
            column,
        }
    }

    /// The array and index an indexing names, checked as Java checks them.
    pub async fn element(
        &self,
        array_expr: &Expr,
        array: JavaValue,
        index: JavaValue,
    ) -> Result<(ObjectRef, usize), ExpressionError> {
        let column = array_expr.column;
        let array = match array {
            JavaValue::Object(object) if object.kind == ObjectKind::Array => object,
            JavaValue::Null => {
                return Err(ExpressionError::NullPointer {
                    what: array_expr.to_string(),
                    column,
                });
            }
            other => {
                return Err(ExpressionError::NotAnArray {
                    type_name: type_name_of(self.heap, &other).await?,
                    column,
                });
            }
        };
        let index = unbox(self.heap, index).await?;
        let at = match primitives::Number::promote(&index) {
            Some(primitives::Number::Int(at)) => at,
            _ => {
                return Err(ExpressionError::CannotConvert {
                    from: type_name_of(self.heap, &index).await?,
                    to: "int".into(),
                    column,
                });
            }
        };
        let length = self.heap.array_length(array).await?;
        match usize::try_from(at) {
            Ok(at) if at < length => Ok((array, at)),
            _ => Err(ExpressionError::IndexOutOfBounds {
                index: at.into(),
                length,
                column,
            }),
        }
    }

    async fn call(
        &self,
        target: Option<&Expr>,
        name: &str,
        arguments: &[Expr],
        column: usize,
    ) -> Result<JavaValue, ExpressionError> {
        // What the call is on: an object, or a type (statics only).
        let (ty, object) = match target {
            None => self.implicit_receiver(name).await?,
            Some(target) => match Box::pin(self.resolve(target)).await? {
                Resolved::Value(JavaValue::Object(object)) => {
                    (self.heap.type_of(object).await?, Some(object))
                }
                Resolved::Value(JavaValue::Null) => {
                    return Err(ExpressionError::NullPointer {
                        what: target.to_string(),
                        column: target.column,
                    });
                }
                Resolved::Value(other) => {
                    return Err(ExpressionError::NoMethod {
                        type_name: type_name_of(self.heap, &other).await?,
                        name: name.into(),
                        arguments: Vec::new(),
                        column,
                    });
                }
                Resolved::Type(ty) => (ty, None),
                Resolved::Package { first, column, .. } => {
                    return Err(self.unknown_name(&first, column).await);
                }
            },
        };
        let mut values = Vec::with_capacity(arguments.len());
        for argument in arguments {
            values.push(Box::pin(self.eval(argument)).await?);
        }
        let mut types = Vec::with_capacity(values.len());
        for value in &values {
            types.push(ArgumentType::of(self.heap, value).await?);
        }
        let candidates = methods_named(self.heap, &ty, name).await?;
        let (method, phase) = match resolve(self.heap, &candidates, &types).await? {
            Resolution::Found(method, phase) => (method, phase),
            Resolution::NotFound => {
                return Err(ExpressionError::NoMethod {
                    type_name: ty.name,
                    name: name.into(),
                    arguments: types.iter().map(|t| t.name().to_string()).collect(),
                    column,
                });
            }
            Resolution::Ambiguous(methods) => {
                return Err(ExpressionError::AmbiguousCall {
                    type_name: ty.name,
                    name: name.into(),
                    candidates: methods.iter().map(|m| m.parameters.join(", ")).collect(),
                    column,
                });
            }
        };
        let receiver = if method.is_static {
            Receiver::Static(method.declaring)
        } else {
            match object {
                Some(object) => Receiver::Instance(object),
                None => {
                    return Err(ExpressionError::StaticContext {
                        what: format!("the instance method {name}"),
                        column,
                    });
                }
            }
        };
        let arguments = arguments_for(self.heap, &method, phase, &values, column).await?;
        self.invoke(&receiver, &method, &arguments).await
    }

    /// Runs a method; an exception it throws becomes an error with its type and message.
    pub async fn invoke(
        &self,
        receiver: &Receiver,
        method: &MethodInfo,
        arguments: &[JavaValue],
    ) -> Result<JavaValue, ExpressionError> {
        match self.heap.invoke(receiver, method, arguments).await {
            Ok(value) => Ok(value),
            Err(HeapError::Threw {
                exception,
                type_name,
            }) => Err(ExpressionError::Threw {
                message: self.message_of(exception).await,
                type_name,
            }),
            Err(error) => Err(error.into()),
        }
    }

    /// An exception's `getMessage()`, if it has one and it can be read.
    async fn message_of(&self, exception: ObjectRef) -> Option<String> {
        let ty = self.heap.type_of(exception).await.ok()?;
        let method = methods_named(self.heap, &ty, "getMessage")
            .await
            .ok()?
            .into_iter()
            .find(|m| m.parameters.is_empty())?;
        match self
            .heap
            .invoke(&Receiver::Instance(exception), &method, &[])
            .await
            .ok()?
        {
            JavaValue::Object(text) if text.kind == ObjectKind::String => {
                self.heap.string_text(text).await.ok()
            }
            _ => None,
        }
    }

    /// A value's text as string concatenation writes it: `toString()` for objects.
    pub async fn text_of(&self, value: &JavaValue) -> Result<String, ExpressionError> {
        if let Some(text) = java_text(value) {
            return Ok(text);
        }
        let JavaValue::Object(object) = value else {
            return Ok("null".into());
        };
        if object.kind == ObjectKind::String {
            return Ok(self.heap.string_text(*object).await?);
        }
        let ty = self.heap.type_of(*object).await?;
        let Some(to_string) = methods_named(self.heap, &ty, "toString")
            .await?
            .into_iter()
            .find(|m| m.parameters.is_empty())
        else {
            return Ok(format!("{}@{:x}", ty.name, object.id));
        };
        match self
            .invoke(&Receiver::Instance(*object), &to_string, &[])
            .await?
        {
            JavaValue::Object(text) if text.kind == ObjectKind::String => {
                Ok(self.heap.string_text(text).await?)
            }
            _ => Ok("null".into()),
        }
    }

    async fn binary(
        &self,
        operator: BinaryOperator,
        left: &Expr,
        right: &Expr,
        column: usize,
    ) -> Result<JavaValue, ExpressionError> {
        if let BinaryOperator::And | BinaryOperator::Or = operator {
            let left = Box::pin(self.eval(left)).await?;
            let left = self.operand_truth(operator, left, column).await?;
            if left == (operator == BinaryOperator::Or) {
                return Ok(JavaValue::Boolean(left));
            }
            let right = Box::pin(self.eval(right)).await?;
            let right = self.operand_truth(operator, right, column).await?;
            return Ok(JavaValue::Boolean(right));
        }
        let left = Box::pin(self.eval(left)).await?;
        let right = Box::pin(self.eval(right)).await?;
        let is_string =
            |v: &JavaValue| matches!(v, JavaValue::Object(o) if o.kind == ObjectKind::String);
        if operator == BinaryOperator::Add && (is_string(&left) || is_string(&right)) {
            let text = self.text_of(&left).await? + &self.text_of(&right).await?;
            return Ok(JavaValue::Object(self.heap.new_string(&text).await?));
        }
        let is_reference = |v: &JavaValue| matches!(v, JavaValue::Object(_) | JavaValue::Null);
        if matches!(operator, BinaryOperator::Equal | BinaryOperator::NotEqual)
            && is_reference(&left)
            && is_reference(&right)
        {
            // Two references compare by identity, boxes and strings included, as in Java.
            return Ok(JavaValue::Boolean(
                (left == right) == (operator == BinaryOperator::Equal),
            ));
        }
        let left = unbox(self.heap, left).await?;
        let right = unbox(self.heap, right).await?;
        match operators::binary(operator, &left, &right) {
            Ok(value) => Ok(value),
            Err(OperatorError::DivisionByZero) => Err(ExpressionError::DivisionByZero { column }),
            Err(OperatorError::BadOperands) => Err(ExpressionError::BadOperands {
                operator: operator.text().into(),
                operands: vec![
                    type_name_of(self.heap, &left).await?,
                    type_name_of(self.heap, &right).await?,
                ],
                column,
            }),
        }
    }

    async fn operand_truth(
        &self,
        operator: BinaryOperator,
        value: JavaValue,
        column: usize,
    ) -> Result<bool, ExpressionError> {
        match unbox(self.heap, value).await? {
            JavaValue::Boolean(b) => Ok(b),
            other => Err(ExpressionError::BadOperands {
                operator: operator.text().into(),
                operands: vec![type_name_of(self.heap, &other).await?],
                column,
            }),
        }
    }

    async fn cast(
        &self,
        value: JavaValue,
        to: &TypeName,
        column: usize,
    ) -> Result<JavaValue, ExpressionError> {
        if to.dimensions == 0
            && let Some(primitive) = Primitive::from_name(&to.name)
        {
            let opened = unbox(self.heap, value).await?;
            return match primitives::cast(&opened, primitive) {
                Some(converted) => Ok(converted),
                None => Err(ExpressionError::CannotConvert {
                    from: type_name_of(self.heap, &opened).await?,
                    to: to.to_string(),
                    column,
                }),
            };
        }
        let value = box_primitive(self.heap, &value, column).await?;
        let JavaValue::Object(object) = value else {
            return Ok(value);
        };
        let target = self.type_named(to, column).await?;
        let ty = self.heap.type_of(object).await?;
        if is_instance(self.heap, &ty, &target.name).await? {
            Ok(value)
        } else {
            Err(ExpressionError::CannotConvert {
                from: ty.name,
                to: target.name,
                column,
            })
        }
    }

    /// The loaded type a cast or `instanceof` names.
    async fn type_named(&self, name: &TypeName, column: usize) -> Result<TypeRef, ExpressionError> {
        let written = name.to_string();
        self.heap
            .find_type(&written)
            .await?
            .ok_or(ExpressionError::UnknownType {
                name: written,
                column,
            })
    }
}

/// Where a conditional's condition begins, for its error.
/// Whether reading `expr` runs none of the program's code: it calls no method.
fn runs_no_code(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) | ExprKind::This => true,
        ExprKind::Call { .. } => false,
        ExprKind::Field { target, .. } => runs_no_code(target),
        ExprKind::Index { array, index } => runs_no_code(array) && runs_no_code(index),
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::InstanceOf { operand, .. } => runs_no_code(operand),
        ExprKind::Binary { left, right, .. } => runs_no_code(left) && runs_no_code(right),
        ExprKind::Conditional {
            condition,
            then,
            otherwise,
        } => runs_no_code(condition) && runs_no_code(then) && runs_no_code(otherwise),
    }
}

fn condition_column(expr: &Expr) -> usize {
    match &expr.kind {
        ExprKind::Conditional { condition, .. } => condition.column,
        _ => expr.column,
    }
}
