//! An in-memory [`Heap`] for unit tests: classes with fields and methods whose bodies are Rust
//! closures, objects, strings, arrays, statics and a frame's locals, plus a small standard
//! library (`Object`, the boxes, `Math`, `ArrayList`, `HashMap`, `Optional`, `Record`, `Enum`)
//! with the internals the real ones have, so a presenter that reads internals would show them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::adapters::java::heap::{
    FieldId, FieldInfo, Heap, HeapError, JavaValue, LocalInfo, MethodId, MethodInfo, ObjectId,
    ObjectKind, ObjectRef, Receiver, TypeId, TypeKind, TypeRef,
};

/// A method's body: the heap, `this` (none for a static), the arguments.
pub type Body = Arc<
    dyn Fn(&TestHeap, Option<ObjectRef>, &[JavaValue]) -> Result<JavaValue, HeapError>
        + Send
        + Sync,
>;

struct TestType {
    info: TypeRef,
    superclass: Option<TypeId>,
    interfaces: Vec<TypeId>,
    fields: Vec<FieldInfo>,
    methods: Vec<MethodInfo>,
}

enum Object {
    Plain {
        ty: TypeId,
        fields: HashMap<FieldId, JavaValue>,
    },
    Text(String),
    Array {
        ty: TypeId,
        elements: Vec<JavaValue>,
    },
}

#[derive(Default)]
struct State {
    objects: HashMap<ObjectId, Object>,
    statics: HashMap<FieldId, JavaValue>,
    locals: Option<Vec<LocalInfo>>,
    this: Option<ObjectRef>,
    frame: TypeId,
    next_object: ObjectId,
}

/// Flags of a method being declared.
#[derive(Clone, Copy, Default)]
pub struct Flags {
    pub is_static: bool,
    pub is_varargs: bool,
}

pub struct TestHeap {
    types: Vec<TestType>,
    bodies: HashMap<MethodId, Body>,
    state: Mutex<State>,
    next_member: u64,
    /// How many methods were invoked, to check what a presentation costs.
    pub invocations: AtomicUsize,
}

pub fn int(v: i32) -> JavaValue {
    JavaValue::Int(v)
}

/// The error of a method that threw `type_name` with `message`.
pub fn threw(heap: &TestHeap, type_name: &str, message: &str) -> HeapError {
    let message = heap.string(message);
    let exception = heap.object(type_name, &[("detailMessage", JavaValue::Object(message))]);
    HeapError::Threw {
        exception,
        type_name: type_name.into(),
    }
}

impl TestHeap {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn type_named(&self, name: &str) -> TypeRef {
        self.lookup(name)
            .unwrap_or_else(|| panic!("no test type {name}"))
    }

    fn lookup(&self, name: &str) -> Option<TypeRef> {
        self.types
            .iter()
            .find(|t| t.info.name == name)
            .map(|t| t.info.clone())
    }

    fn ty(&self, id: TypeId) -> &TestType {
        &self.types[(id - 1) as usize]
    }

    fn declare(
        &mut self,
        name: &str,
        kind: TypeKind,
        superclass: Option<&str>,
        interfaces: &[&str],
    ) -> TypeId {
        let id = self.types.len() as TypeId + 1;
        let superclass = superclass.map(|s| self.type_named(s).id);
        let interfaces = interfaces.iter().map(|i| self.type_named(i).id).collect();
        self.types.push(TestType {
            info: TypeRef {
                id,
                name: name.into(),
                kind,
            },
            superclass,
            interfaces,
            fields: Vec::new(),
            methods: Vec::new(),
        });
        id
    }

    pub fn class(&mut self, name: &str, superclass: &str, interfaces: &[&str]) -> TypeId {
        self.declare(name, TypeKind::Class, Some(superclass), interfaces)
    }

    pub fn interface(&mut self, name: &str, supers: &[&str]) -> TypeId {
        self.declare(name, TypeKind::Interface, None, supers)
    }

    pub fn array_type(&mut self, name: &str) -> TypeId {
        self.declare(name, TypeKind::Array, None, &[])
    }

    pub fn field(&mut self, ty: TypeId, name: &str, type_name: &str) -> FieldInfo {
        self.add_field(ty, name, type_name, false, false)
    }

    pub fn synthetic_field(&mut self, ty: TypeId, name: &str, type_name: &str) -> FieldInfo {
        self.add_field(ty, name, type_name, false, true)
    }

    pub fn static_field(&mut self, ty: TypeId, name: &str, type_name: &str, value: JavaValue) {
        let field = self.add_field(ty, name, type_name, true, false);
        self.state().statics.insert(field.id, value);
    }

    fn add_field(
        &mut self,
        ty: TypeId,
        name: &str,
        type_name: &str,
        is_static: bool,
        is_synthetic: bool,
    ) -> FieldInfo {
        self.next_member += 1;
        let field = FieldInfo {
            id: self.next_member,
            declaring: ty,
            name: name.into(),
            type_name: type_name.into(),
            is_static,
            is_synthetic,
        };
        self.types[(ty - 1) as usize].fields.push(field.clone());
        field
    }

    /// A method; `body` `None` makes it abstract.
    pub fn method(
        &mut self,
        ty: TypeId,
        name: &str,
        parameters: &[&str],
        returns: &str,
        flags: Flags,
        body: Option<Body>,
    ) -> MethodInfo {
        self.next_member += 1;
        let method = MethodInfo {
            id: self.next_member,
            declaring: ty,
            name: name.into(),
            parameters: parameters.iter().map(|p| p.to_string()).collect(),
            returns: returns.into(),
            is_static: flags.is_static,
            is_varargs: flags.is_varargs,
            is_abstract: body.is_none(),
            is_synthetic: false,
        };
        if let Some(body) = body {
            self.bodies.insert(method.id, body);
        }
        self.types[(ty - 1) as usize].methods.push(method.clone());
        method
    }

    /// An instance method with a body.
    pub fn def(
        &mut self,
        ty: TypeId,
        name: &str,
        parameters: &[&str],
        returns: &str,
        body: impl Fn(&TestHeap, ObjectRef, &[JavaValue]) -> Result<JavaValue, HeapError>
        + Send
        + Sync
        + 'static,
    ) -> MethodInfo {
        let body: Body = Arc::new(move |heap, this, arguments| match this {
            Some(this) => body(heap, this, arguments),
            None => Err(HeapError::Refused("INVALID_OBJECT".into())),
        });
        self.method(ty, name, parameters, returns, Flags::default(), Some(body))
    }

    /// A static method with a body.
    pub fn def_static(
        &mut self,
        ty: TypeId,
        name: &str,
        parameters: &[&str],
        returns: &str,
        body: impl Fn(&TestHeap, &[JavaValue]) -> Result<JavaValue, HeapError> + Send + Sync + 'static,
    ) -> MethodInfo {
        let body: Body = Arc::new(move |heap, _, arguments| body(heap, arguments));
        let flags = Flags {
            is_static: true,
            ..Flags::default()
        };
        self.method(ty, name, parameters, returns, flags, Some(body))
    }

    fn all_fields(&self, ty: TypeId) -> Vec<FieldInfo> {
        let mut fields = Vec::new();
        let mut current = Some(ty);
        while let Some(id) = current {
            fields.extend(self.ty(id).fields.iter().cloned());
            current = self.ty(id).superclass;
        }
        fields
    }

    /// A new object of the class `type_name`, its fields (own or inherited, by name) set.
    pub fn object(&self, type_name: &str, values: &[(&str, JavaValue)]) -> ObjectRef {
        let ty = self.type_named(type_name);
        let fields = self.all_fields(ty.id);
        let mut set = HashMap::new();
        for field in fields.iter().filter(|f| !f.is_static) {
            set.insert(field.id, default_of(&field.type_name));
        }
        for (name, value) in values {
            let field = fields
                .iter()
                .find(|f| f.name == *name)
                .unwrap_or_else(|| panic!("no field {name} in {type_name}"));
            set.insert(field.id, value.clone());
        }
        self.insert(
            Object::Plain {
                ty: ty.id,
                fields: set,
            },
            ObjectKind::Plain,
        )
    }

    pub fn string(&self, text: &str) -> ObjectRef {
        self.insert(Object::Text(text.into()), ObjectKind::String)
    }

    pub fn str_value(&self, text: &str) -> JavaValue {
        JavaValue::Object(self.string(text))
    }

    pub fn array(&self, type_name: &str, elements: Vec<JavaValue>) -> ObjectRef {
        let ty = self.type_named(type_name).id;
        self.insert(Object::Array { ty, elements }, ObjectKind::Array)
    }

    fn insert(&self, object: Object, kind: ObjectKind) -> ObjectRef {
        let mut state = self.state();
        state.next_object += 1;
        let id = 0x100 + state.next_object;
        state.objects.insert(id, object);
        ObjectRef { id, kind }
    }

    /// The class whose method the frame runs.
    pub fn set_frame(&self, type_name: &str) {
        self.state().frame = self.type_named(type_name).id;
    }

    pub fn set_this(&self, this: Option<ObjectRef>) {
        self.state().this = this;
    }

    /// The frame's locals: name, type, value; `None` as a class without `-g` has.
    pub fn set_locals(&self, locals: Option<Vec<(&str, &str, JavaValue)>>) {
        self.state().locals = locals.map(|locals| {
            locals
                .into_iter()
                .map(|(name, type_name, value)| LocalInfo {
                    name: name.into(),
                    type_name: type_name.into(),
                    value,
                    is_argument: false,
                })
                .collect()
        });
    }

    pub fn local(&self, name: &str) -> Option<JavaValue> {
        self.state()
            .locals
            .as_ref()?
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.value.clone())
    }

    /// A field of an object by name.
    pub fn get(&self, object: ObjectRef, name: &str) -> JavaValue {
        let state = self.state();
        match state.objects.get(&object.id) {
            Some(Object::Plain { ty, fields }) => self
                .all_fields(*ty)
                .iter()
                .find(|f| f.name == name)
                .and_then(|f| fields.get(&f.id).cloned())
                .unwrap_or(JavaValue::Void),
            _ => JavaValue::Void,
        }
    }

    pub fn static_value(&self, type_name: &str, name: &str) -> JavaValue {
        let ty = self.type_named(type_name);
        let field = self
            .ty(ty.id)
            .fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.id);
        field
            .and_then(|id| self.state().statics.get(&id).cloned())
            .unwrap_or(JavaValue::Void)
    }

    pub fn text(&self, value: &JavaValue) -> String {
        match value {
            JavaValue::Object(o) => match self.state().objects.get(&o.id) {
                Some(Object::Text(text)) => text.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }

    pub fn elements(&self, array: &JavaValue) -> Vec<JavaValue> {
        match array {
            JavaValue::Object(o) => match self.state().objects.get(&o.id) {
                Some(Object::Array { elements, .. }) => elements.clone(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn runtime_type(&self, object: ObjectRef) -> Result<TypeId, HeapError> {
        match self.state().objects.get(&object.id) {
            Some(Object::Plain { ty, .. } | Object::Array { ty, .. }) => Ok(*ty),
            Some(Object::Text(_)) => self
                .lookup("java.lang.String")
                .map(|t| t.id)
                .ok_or_else(|| HeapError::Gone("no String".into())),
            None => Err(HeapError::Gone(format!("object {}", object.id))),
        }
    }

    /// Calls the method `name` with no arguments on `object`, as Java dispatches it.
    pub fn call(&self, object: ObjectRef, name: &str) -> Result<JavaValue, HeapError> {
        let method = MethodInfo {
            id: 0,
            declaring: 0,
            name: name.into(),
            parameters: Vec::new(),
            returns: String::new(),
            is_static: false,
            is_varargs: false,
            is_abstract: true,
            is_synthetic: false,
        };
        self.dispatch(&Receiver::Instance(object), &method, &[])
    }

    /// A value's text as `String.valueOf` gives it.
    pub fn java_string(&self, value: &JavaValue) -> Result<String, HeapError> {
        match value {
            JavaValue::Object(o) if o.kind == ObjectKind::String => Ok(self.text(value)),
            JavaValue::Object(o) => self.call(*o, "toString").map(|t| self.text(&t)),
            JavaValue::Null => Ok("null".into()),
            other => Ok(super::primitives::java_text(other).unwrap_or_default()),
        }
    }

    fn dispatch(
        &self,
        receiver: &Receiver,
        method: &MethodInfo,
        arguments: &[JavaValue],
    ) -> Result<JavaValue, HeapError> {
        self.invocations.fetch_add(1, Ordering::Relaxed);
        let body = match receiver {
            Receiver::Static(_) => self.bodies.get(&method.id),
            Receiver::Instance(object) => {
                // Virtual dispatch: the most derived body with this name and parameters.
                let mut found = None;
                let mut current = Some(self.runtime_type(*object)?);
                while let Some(id) = current {
                    found = self.ty(id).methods.iter().find(|m| {
                        m.name == method.name
                            && m.parameters == method.parameters
                            && self.bodies.contains_key(&m.id)
                    });
                    if found.is_some() {
                        break;
                    }
                    current = self.ty(id).superclass;
                }
                found.and_then(|m| self.bodies.get(&m.id))
            }
        };
        let body = body
            .ok_or_else(|| HeapError::Refused("ABSTRACT_METHOD".into()))?
            .clone();
        let this = match receiver {
            Receiver::Instance(object) => Some(*object),
            Receiver::Static(_) => None,
        };
        body(self, this, arguments)
    }
}

fn default_of(type_name: &str) -> JavaValue {
    match type_name {
        "boolean" => JavaValue::Boolean(false),
        "byte" => JavaValue::Byte(0),
        "char" => JavaValue::Char(0),
        "short" => JavaValue::Short(0),
        "int" => JavaValue::Int(0),
        "long" => JavaValue::Long(0),
        "float" => JavaValue::Float(0.0),
        "double" => JavaValue::Double(0.0),
        _ => JavaValue::Null,
    }
}

impl Heap for TestHeap {
    async fn locals(&self) -> Result<Option<Vec<LocalInfo>>, HeapError> {
        Ok(self.state().locals.clone())
    }

    async fn this(&self) -> Result<Option<ObjectRef>, HeapError> {
        Ok(self.state().this)
    }

    async fn frame_type(&self) -> Result<TypeRef, HeapError> {
        Ok(self.ty(self.state().frame).info.clone())
    }

    async fn find_type(&self, name: &str) -> Result<Option<TypeRef>, HeapError> {
        let canonical = name.replace('$', ".");
        let found = self.types.iter().find(|t| {
            let binary = &t.info.name;
            binary == name
                || binary.replace('$', ".") == canonical
                || binary.rsplit(['.', '$']).next() == Some(name) && {
                    // A simple name: the frame's nested types, its package, then java.lang.
                    let frame = &self.ty(self.state().frame).info.name;
                    let package = frame.rsplit_once('.').map_or("", |(p, _)| p);
                    binary.starts_with(&format!("{frame}$"))
                        || binary == &format!("{package}.{name}")
                        || binary == &format!("java.lang.{name}")
                }
        });
        Ok(found.map(|t| t.info.clone()))
    }

    async fn type_of(&self, object: ObjectRef) -> Result<TypeRef, HeapError> {
        Ok(self.ty(self.runtime_type(object)?).info.clone())
    }

    async fn superclass(&self, ty: &TypeRef) -> Result<Option<TypeRef>, HeapError> {
        Ok(self.ty(ty.id).superclass.map(|s| self.ty(s).info.clone()))
    }

    async fn interfaces(&self, ty: &TypeRef) -> Result<Vec<TypeRef>, HeapError> {
        Ok(self
            .ty(ty.id)
            .interfaces
            .iter()
            .map(|i| self.ty(*i).info.clone())
            .collect())
    }

    async fn fields(&self, ty: &TypeRef) -> Result<Vec<FieldInfo>, HeapError> {
        Ok(self.ty(ty.id).fields.clone())
    }

    async fn methods(&self, ty: &TypeRef) -> Result<Vec<MethodInfo>, HeapError> {
        Ok(self.ty(ty.id).methods.clone())
    }

    async fn get_fields(
        &self,
        object: ObjectRef,
        fields: &[FieldInfo],
    ) -> Result<Vec<JavaValue>, HeapError> {
        let state = self.state();
        let Some(Object::Plain { fields: values, .. }) = state.objects.get(&object.id) else {
            return Err(HeapError::Refused("INVALID_OBJECT".into()));
        };
        fields
            .iter()
            .map(|f| {
                values
                    .get(&f.id)
                    .cloned()
                    .ok_or_else(|| HeapError::Refused("INVALID_FIELDID".into()))
            })
            .collect()
    }

    async fn get_statics(
        &self,
        _ty: &TypeRef,
        fields: &[FieldInfo],
    ) -> Result<Vec<JavaValue>, HeapError> {
        let state = self.state();
        fields
            .iter()
            .map(|f| {
                state
                    .statics
                    .get(&f.id)
                    .cloned()
                    .ok_or_else(|| HeapError::Refused("INVALID_FIELDID".into()))
            })
            .collect()
    }

    async fn set_field(
        &self,
        object: ObjectRef,
        field: &FieldInfo,
        value: JavaValue,
    ) -> Result<(), HeapError> {
        let mut state = self.state();
        match state.objects.get_mut(&object.id) {
            Some(Object::Plain { fields, .. }) => {
                fields.insert(field.id, value);
                Ok(())
            }
            _ => Err(HeapError::Refused("INVALID_OBJECT".into())),
        }
    }

    async fn set_static(
        &self,
        _ty: &TypeRef,
        field: &FieldInfo,
        value: JavaValue,
    ) -> Result<(), HeapError> {
        self.state().statics.insert(field.id, value);
        Ok(())
    }

    async fn set_local(&self, name: &str, value: JavaValue) -> Result<(), HeapError> {
        let mut state = self.state();
        let local = state
            .locals
            .as_mut()
            .and_then(|locals| locals.iter_mut().find(|l| l.name == name))
            .ok_or_else(|| HeapError::Refused("INVALID_SLOT".into()))?;
        local.value = value;
        Ok(())
    }

    async fn array_length(&self, array: ObjectRef) -> Result<usize, HeapError> {
        Ok(self.elements(&JavaValue::Object(array)).len())
    }

    async fn array_elements(
        &self,
        array: ObjectRef,
        first: usize,
        count: usize,
    ) -> Result<Vec<JavaValue>, HeapError> {
        let elements = self.elements(&JavaValue::Object(array));
        elements
            .get(first..first + count)
            .map(<[JavaValue]>::to_vec)
            .ok_or_else(|| HeapError::Refused("INVALID_LENGTH".into()))
    }

    async fn set_array_elements(
        &self,
        array: ObjectRef,
        first: usize,
        values: &[JavaValue],
    ) -> Result<(), HeapError> {
        let mut state = self.state();
        let Some(Object::Array { elements, .. }) = state.objects.get_mut(&array.id) else {
            return Err(HeapError::Refused("INVALID_ARRAY".into()));
        };
        let slots = elements
            .get_mut(first..first + values.len())
            .ok_or_else(|| HeapError::Refused("INVALID_INDEX".into()))?;
        slots.clone_from_slice(values);
        Ok(())
    }

    async fn new_array(&self, ty: &TypeRef, length: usize) -> Result<ObjectRef, HeapError> {
        let component = ty.name.strip_suffix("[]").unwrap_or(&ty.name);
        let elements = vec![default_of(component); length];
        Ok(self.insert(
            Object::Array {
                ty: ty.id,
                elements,
            },
            ObjectKind::Array,
        ))
    }

    async fn string_text(&self, string: ObjectRef) -> Result<String, HeapError> {
        Ok(self.text(&JavaValue::Object(string)))
    }

    async fn new_string(&self, text: &str) -> Result<ObjectRef, HeapError> {
        Ok(self.string(text))
    }

    async fn invoke(
        &self,
        receiver: &Receiver,
        method: &MethodInfo,
        arguments: &[JavaValue],
    ) -> Result<JavaValue, HeapError> {
        if method.parameters.len() != arguments.len() {
            return Err(HeapError::Refused("ILLEGAL_ARGUMENT".into()));
        }
        // The JVM checks each argument against its parameter, as JDWP's invoke does.
        for (parameter, argument) in method.parameters.iter().zip(arguments) {
            let fits = match super::primitives::Primitive::of(argument) {
                Some(p) => p.name() == parameter,
                None => super::primitives::Primitive::from_name(parameter).is_none(),
            };
            if !fits {
                return Err(HeapError::Refused("TYPE_MISMATCH".into()));
            }
        }
        self.dispatch(receiver, method, arguments)
    }
}

/// A heap with a small standard library and a shop: a frame in `com.shop.Cart.checkout`.
pub fn shop() -> TestHeap {
    let mut heap = TestHeap {
        types: Vec::new(),
        bodies: HashMap::new(),
        state: Mutex::new(State::default()),
        next_member: 0,
        invocations: AtomicUsize::new(0),
    };
    standard_library(&mut heap);
    shop_classes(&mut heap);
    heap.set_frame("com.shop.Cart");
    shop_frame(&heap);
    heap
}

fn standard_library(heap: &mut TestHeap) {
    let object = heap.declare("java.lang.Object", TypeKind::Class, None, &[]);
    heap.def(
        object,
        "toString",
        &[],
        "java.lang.String",
        |heap, this, _| {
            let name = heap.ty(heap.runtime_type(this)?).info.name.clone();
            Ok(heap.str_value(&format!("{name}@{:x}", this.id)))
        },
    );
    heap.def(
        object,
        "equals",
        &["java.lang.Object"],
        "boolean",
        |_, this, args| Ok(JavaValue::Boolean(args[0] == JavaValue::Object(this))),
    );
    heap.interface("java.io.Serializable", &[]);
    heap.interface("java.lang.Cloneable", &[]);
    let comparable = heap.interface("java.lang.Comparable", &[]);
    heap.method(
        comparable,
        "compareTo",
        &["java.lang.Object"],
        "int",
        Flags::default(),
        None,
    );
    heap.interface("java.lang.CharSequence", &[]);
    let string = heap.class(
        "java.lang.String",
        "java.lang.Object",
        &[
            "java.io.Serializable",
            "java.lang.Comparable",
            "java.lang.CharSequence",
        ],
    );
    heap.def(string, "length", &[], "int", |heap, this, _| {
        Ok(int(
            heap.text(&JavaValue::Object(this)).encode_utf16().count() as i32,
        ))
    });
    heap.def(string, "toString", &[], "java.lang.String", |_, this, _| {
        Ok(JavaValue::Object(this))
    });
    // The pool: the first string made of a text stands for it.
    heap.def(
        string,
        "intern",
        &[],
        "java.lang.String",
        |heap, this, _| {
            let text = heap.text(&JavaValue::Object(this));
            let state = heap.state();
            let first = state
                .objects
                .iter()
                .filter(|(_, o)| matches!(o, Object::Text(t) if *t == text))
                .map(|(id, _)| *id)
                .min()
                .unwrap_or(this.id);
            Ok(JavaValue::Object(ObjectRef {
                id: first,
                kind: ObjectKind::String,
            }))
        },
    );
    heap.def(
        string,
        "equals",
        &["java.lang.Object"],
        "boolean",
        |heap, this, args| {
            let same = matches!(&args[0], JavaValue::Object(o) if o.kind == ObjectKind::String)
                && heap.text(&args[0]) == heap.text(&JavaValue::Object(this));
            Ok(JavaValue::Boolean(same))
        },
    );
    heap.def(string, "charAt", &["int"], "char", |heap, this, args| {
        let units: Vec<u16> = heap.text(&JavaValue::Object(this)).encode_utf16().collect();
        let JavaValue::Int(at) = args[0] else {
            return Err(HeapError::Refused("TYPE_MISMATCH".into()));
        };
        usize::try_from(at)
            .ok()
            .and_then(|at| units.get(at))
            .map(|u| JavaValue::Char(*u))
            .ok_or_else(|| {
                threw(
                    heap,
                    "java.lang.StringIndexOutOfBoundsException",
                    &format!("index {at}, length {}", units.len()),
                )
            })
    });
    heap.def_static(
        string,
        "valueOf",
        &["int"],
        "java.lang.String",
        |heap, args| Ok(heap.str_value(&heap.java_string(&args[0])?)),
    );
    heap.def_static(
        string,
        "valueOf",
        &["java.lang.Object"],
        "java.lang.String",
        |heap, args| Ok(heap.str_value(&heap.java_string(&args[0])?)),
    );
    let format: Body = Arc::new(|heap, _, args| {
        let mut text = heap.text(&args[0]);
        for argument in heap.elements(&args[1]) {
            let shown = heap.java_string(&argument)?;
            text = text.replacen("%s", &shown, 1);
        }
        Ok(heap.str_value(&text))
    });
    heap.method(
        string,
        "format",
        &["java.lang.String", "java.lang.Object[]"],
        "java.lang.String",
        Flags {
            is_static: true,
            is_varargs: true,
        },
        Some(format),
    );
    heap.array_type("java.lang.Object[]");
    heap.array_type("int[]");
    heap.array_type("java.lang.String[]");
    heap.class(
        "java.lang.Number",
        "java.lang.Object",
        &["java.io.Serializable"],
    );
    for (primitive, box_name, superclass) in [
        ("int", "java.lang.Integer", "java.lang.Number"),
        ("long", "java.lang.Long", "java.lang.Number"),
        ("double", "java.lang.Double", "java.lang.Number"),
        ("char", "java.lang.Character", "java.lang.Object"),
        ("boolean", "java.lang.Boolean", "java.lang.Object"),
    ] {
        let ty = heap.class(box_name, superclass, &["java.lang.Comparable"]);
        heap.field(ty, "value", primitive);
        let name = box_name.to_string();
        heap.def_static(ty, "valueOf", &[primitive], box_name, move |heap, args| {
            Ok(JavaValue::Object(
                heap.object(&name, &[("value", args[0].clone())]),
            ))
        });
        heap.def(ty, "toString", &[], "java.lang.String", |heap, this, _| {
            let value = heap.get(this, "value");
            Ok(heap.str_value(&super::primitives::java_text(&value).unwrap_or_default()))
        });
        heap.def(ty, "compareTo", &[box_name], "int", |heap, this, args| {
            let JavaValue::Object(other) = args[0] else {
                return Err(threw(
                    heap,
                    "java.lang.NullPointerException",
                    "compareTo(null)",
                ));
            };
            let ordering = match (heap.get(this, "value"), heap.get(other, "value")) {
                (JavaValue::Int(a), JavaValue::Int(b)) => a.cmp(&b),
                (JavaValue::Long(a), JavaValue::Long(b)) => a.cmp(&b),
                (JavaValue::Double(a), JavaValue::Double(b)) => a.total_cmp(&b),
                _ => std::cmp::Ordering::Equal,
            };
            Ok(int(ordering as i32))
        });
    }
    let math = heap.class("java.lang.Math", "java.lang.Object", &[]);
    heap.def_static(math, "max", &["int", "int"], "int", |_, args| {
        match (&args[0], &args[1]) {
            (JavaValue::Int(a), JavaValue::Int(b)) => Ok(int(*a.max(b))),
            _ => Err(HeapError::Refused("TYPE_MISMATCH".into())),
        }
    });
    heap.def_static(math, "max", &["long", "long"], "long", |_, args| {
        match (&args[0], &args[1]) {
            (JavaValue::Long(a), JavaValue::Long(b)) => Ok(JavaValue::Long(*a.max(b))),
            _ => Err(HeapError::Refused("TYPE_MISMATCH".into())),
        }
    });
    heap.def_static(
        math,
        "max",
        &["double", "double"],
        "double",
        |_, args| match (&args[0], &args[1]) {
            (JavaValue::Double(a), JavaValue::Double(b)) => Ok(JavaValue::Double(a.max(*b))),
            _ => Err(HeapError::Refused("TYPE_MISMATCH".into())),
        },
    );
    let throwable = heap.class(
        "java.lang.Throwable",
        "java.lang.Object",
        &["java.io.Serializable"],
    );
    heap.field(throwable, "detailMessage", "java.lang.String");
    heap.def(
        throwable,
        "getMessage",
        &[],
        "java.lang.String",
        |heap, this, _| Ok(heap.get(this, "detailMessage")),
    );
    heap.class("java.lang.RuntimeException", "java.lang.Throwable", &[]);
    heap.class(
        "java.lang.IndexOutOfBoundsException",
        "java.lang.RuntimeException",
        &[],
    );
    heap.class(
        "java.lang.StringIndexOutOfBoundsException",
        "java.lang.IndexOutOfBoundsException",
        &[],
    );
    heap.class(
        "java.lang.NullPointerException",
        "java.lang.RuntimeException",
        &[],
    );
    heap.class(
        "java.lang.IllegalStateException",
        "java.lang.RuntimeException",
        &[],
    );
    heap.class("java.lang.Record", "java.lang.Object", &[]);
    let enumeration = heap.class(
        "java.lang.Enum",
        "java.lang.Object",
        &["java.lang.Comparable"],
    );
    heap.field(enumeration, "name", "java.lang.String");
    heap.field(enumeration, "ordinal", "int");
    heap.def(
        enumeration,
        "toString",
        &[],
        "java.lang.String",
        |heap, this, _| Ok(heap.get(this, "name")),
    );
    collections(heap);
}

/// `ArrayList` and `HashMap` keep their elements in internal arrays, as the real ones do.
fn collections(heap: &mut TestHeap) {
    heap.interface("java.lang.Iterable", &[]);
    let collection = heap.interface("java.util.Collection", &["java.lang.Iterable"]);
    heap.method(collection, "size", &[], "int", Flags::default(), None);
    heap.method(
        collection,
        "toArray",
        &[],
        "java.lang.Object[]",
        Flags::default(),
        None,
    );
    let list = heap.interface("java.util.List", &["java.util.Collection"]);
    heap.method(
        list,
        "get",
        &["int"],
        "java.lang.Object",
        Flags::default(),
        None,
    );
    heap.interface("java.util.Set", &["java.util.Collection"]);
    let map = heap.interface("java.util.Map", &[]);
    heap.method(map, "size", &[], "int", Flags::default(), None);
    heap.method(
        map,
        "get",
        &["java.lang.Object"],
        "java.lang.Object",
        Flags::default(),
        None,
    );
    heap.method(
        map,
        "entrySet",
        &[],
        "java.util.Set",
        Flags::default(),
        None,
    );
    let entry = heap.interface("java.util.Map$Entry", &[]);
    heap.method(
        entry,
        "getKey",
        &[],
        "java.lang.Object",
        Flags::default(),
        None,
    );
    heap.method(
        entry,
        "getValue",
        &[],
        "java.lang.Object",
        Flags::default(),
        None,
    );

    for (name, interface) in [
        ("java.util.ArrayList", "java.util.List"),
        ("java.util.HashSet", "java.util.Set"),
    ] {
        let ty = heap.class(
            name,
            "java.lang.Object",
            &[interface, "java.io.Serializable"],
        );
        heap.field(ty, "elementData", "java.lang.Object[]");
        heap.field(ty, "size", "int");
        heap.def(ty, "size", &[], "int", |heap, this, _| {
            Ok(heap.get(this, "size"))
        });
        heap.def(ty, "toArray", &[], "java.lang.Object[]", |heap, this, _| {
            let JavaValue::Int(size) = heap.get(this, "size") else {
                return Ok(JavaValue::Null);
            };
            let mut elements = heap.elements(&heap.get(this, "elementData"));
            elements.truncate(size as usize);
            Ok(JavaValue::Object(
                heap.array("java.lang.Object[]", elements),
            ))
        });
        heap.def(
            ty,
            "get",
            &["int"],
            "java.lang.Object",
            |heap, this, args| {
                let JavaValue::Int(size) = heap.get(this, "size") else {
                    return Ok(JavaValue::Null);
                };
                let JavaValue::Int(at) = args[0] else {
                    return Err(HeapError::Refused("TYPE_MISMATCH".into()));
                };
                if at < 0 || at >= size {
                    return Err(threw(
                        heap,
                        "java.lang.IndexOutOfBoundsException",
                        &format!("Index {at} out of bounds for length {size}"),
                    ));
                }
                Ok(heap.elements(&heap.get(this, "elementData"))[at as usize].clone())
            },
        );
        heap.def(ty, "toString", &[], "java.lang.String", |heap, this, _| {
            let JavaValue::Int(size) = heap.get(this, "size") else {
                return Ok(JavaValue::Null);
            };
            let mut parts = Vec::new();
            for element in heap
                .elements(&heap.get(this, "elementData"))
                .iter()
                .take(size as usize)
            {
                parts.push(heap.java_string(element)?);
            }
            Ok(heap.str_value(&format!("[{}]", parts.join(", "))))
        });
    }
    let node = heap.class(
        "java.util.HashMap$Node",
        "java.lang.Object",
        &["java.util.Map$Entry"],
    );
    heap.field(node, "key", "java.lang.Object");
    heap.field(node, "value", "java.lang.Object");
    heap.def(node, "getKey", &[], "java.lang.Object", |heap, this, _| {
        Ok(heap.get(this, "key"))
    });
    heap.def(
        node,
        "getValue",
        &[],
        "java.lang.Object",
        |heap, this, _| Ok(heap.get(this, "value")),
    );
    let hash_map = heap.class("java.util.HashMap", "java.lang.Object", &["java.util.Map"]);
    heap.field(hash_map, "table", "java.util.HashMap$Node[]");
    heap.field(hash_map, "size", "int");
    heap.def(hash_map, "size", &[], "int", |heap, this, _| {
        Ok(heap.get(this, "size"))
    });
    heap.def(
        hash_map,
        "get",
        &["java.lang.Object"],
        "java.lang.Object",
        |heap, this, args| {
            let key = heap.java_string(&args[0])?;
            for node in heap.elements(&heap.get(this, "table")) {
                if let JavaValue::Object(node) = node
                    && heap.java_string(&heap.get(node, "key"))? == key
                {
                    return Ok(heap.get(node, "value"));
                }
            }
            Ok(JavaValue::Null)
        },
    );
    let entry_set = heap.class(
        "java.util.HashMap$EntrySet",
        "java.lang.Object",
        &["java.util.Set"],
    );
    heap.field(entry_set, "this$0", "java.util.HashMap");
    heap.def(
        hash_map,
        "entrySet",
        &[],
        "java.util.Set",
        |heap, this, _| {
            Ok(JavaValue::Object(heap.object(
                "java.util.HashMap$EntrySet",
                &[("this$0", JavaValue::Object(this))],
            )))
        },
    );
    heap.def(entry_set, "size", &[], "int", |heap, this, _| {
        let JavaValue::Object(map) = heap.get(this, "this$0") else {
            return Ok(int(0));
        };
        Ok(heap.get(map, "size"))
    });
    heap.def(
        entry_set,
        "toArray",
        &[],
        "java.lang.Object[]",
        |heap, this, _| {
            let JavaValue::Object(map) = heap.get(this, "this$0") else {
                return Ok(JavaValue::Null);
            };
            let nodes = heap.elements(&heap.get(map, "table"));
            Ok(JavaValue::Object(heap.array("java.lang.Object[]", nodes)))
        },
    );
    let optional = heap.class("java.util.Optional", "java.lang.Object", &[]);
    heap.field(optional, "value", "java.lang.Object");
}

/// `com.shop`: a cart with a base class, a record, an enum, overloads and a class with its own
/// `toString()`.
fn shop_classes(heap: &mut TestHeap) {
    let base = heap.class("com.shop.Base", "java.lang.Object", &[]);
    heap.field(base, "id", "long");
    heap.def(
        base,
        "describe",
        &[],
        "java.lang.String",
        |heap, this, _| {
            Ok(heap.str_value(&format!("#{}", heap.java_string(&heap.get(this, "id"))?)))
        },
    );
    let config = heap.class("com.shop.Config", "java.lang.Object", &[]);
    heap.static_field(config, "LIMIT", "int", int(100));
    let cart = heap.class("com.shop.Cart", "com.shop.Base", &[]);
    heap.field(cart, "items", "java.util.List");
    heap.field(cart, "prices", "java.util.Map");
    heap.field(cart, "total", "int");
    heap.field(cart, "owner", "java.lang.String");
    heap.field(cart, "discount", "java.lang.Integer");
    heap.static_field(cart, "TAX", "double", JavaValue::Double(0.2));
    heap.def(cart, "total", &[], "int", |heap, this, _| {
        Ok(heap.get(this, "total"))
    });
    heap.def(cart, "fail", &[], "int", |heap, _, _| {
        Err(threw(
            heap,
            "java.lang.IllegalStateException",
            "cart is closed",
        ))
    });
    heap.def(cart, "slow", &[], "int", |_, _, _| Err(HeapError::TimedOut));
    heap.def_static(cart, "pick", &["int"], "java.lang.String", |heap, _| {
        Ok(heap.str_value("int"))
    });
    heap.def_static(cart, "pick", &["long"], "java.lang.String", |heap, _| {
        Ok(heap.str_value("long"))
    });
    heap.def_static(
        cart,
        "pick",
        &["java.lang.Object"],
        "java.lang.String",
        |heap, _| Ok(heap.str_value("Object")),
    );
    heap.def_static(
        cart,
        "pick",
        &["java.lang.String"],
        "java.lang.String",
        |heap, _| Ok(heap.str_value("String")),
    );
    heap.def_static(
        cart,
        "boxed",
        &["java.lang.Integer"],
        "java.lang.String",
        |heap, args| Ok(heap.str_value(&format!("Integer {}", heap.java_string(&args[0])?))),
    );
    heap.def_static(
        cart,
        "both",
        &["int", "java.lang.Object"],
        "java.lang.String",
        |heap, _| Ok(heap.str_value("int,Object")),
    );
    heap.def_static(
        cart,
        "both",
        &["java.lang.Object", "int"],
        "java.lang.String",
        |heap, _| Ok(heap.str_value("Object,int")),
    );
    let sum: Body = Arc::new(|heap, _, args| {
        let total = heap
            .elements(&args[0])
            .iter()
            .map(|v| if let JavaValue::Int(v) = v { *v } else { 0 })
            .sum();
        Ok(int(total))
    });
    heap.method(
        cart,
        "sum",
        &["int[]"],
        "int",
        Flags {
            is_static: true,
            is_varargs: true,
        },
        Some(sum),
    );
    let line = heap.class("com.shop.Cart$Line", "java.lang.Record", &[]);
    heap.field(line, "sku", "java.lang.String");
    heap.field(line, "qty", "int");
    heap.def(
        line,
        "toString",
        &[],
        "java.lang.String",
        |heap, this, _| {
            Ok(heap.str_value(&format!(
                "Line[sku={}, qty={}]",
                heap.java_string(&heap.get(this, "sku"))?,
                heap.java_string(&heap.get(this, "qty"))?
            )))
        },
    );
    heap.def(line, "qty", &[], "int", |heap, this, _| {
        Ok(heap.get(this, "qty"))
    });
    heap.class("com.shop.Color", "java.lang.Enum", &[]);
    heap.class("com.shop.Color$1", "com.shop.Color", &[]);
    let point = heap.class("com.shop.Point", "java.lang.Object", &[]);
    heap.field(point, "x", "int");
    heap.field(point, "y", "int");
    let named = heap.class("com.shop.Named", "java.lang.Object", &[]);
    heap.field(named, "name", "java.lang.String");
    heap.def(
        named,
        "toString",
        &[],
        "java.lang.String",
        |heap, this, _| {
            Ok(heap.str_value(&format!(
                "Named({})",
                heap.java_string(&heap.get(this, "name"))?
            )))
        },
    );
    let inner = heap.class("com.shop.Cart$Inner", "java.lang.Object", &[]);
    heap.synthetic_field(inner, "this$0", "com.shop.Cart");
    heap.synthetic_field(inner, "val$limit", "int");
}

/// An `ArrayList` of these values.
pub fn array_list(heap: &TestHeap, values: Vec<JavaValue>) -> JavaValue {
    let size = int(values.len() as i32);
    let mut data = values;
    // Spare capacity, as a real ArrayList has.
    data.extend([JavaValue::Null, JavaValue::Null]);
    let data = heap.array("java.lang.Object[]", data);
    JavaValue::Object(heap.object(
        "java.util.ArrayList",
        &[("elementData", JavaValue::Object(data)), ("size", size)],
    ))
}

/// A `HashMap` of these entries.
pub fn hash_map(heap: &TestHeap, entries: Vec<(JavaValue, JavaValue)>) -> JavaValue {
    let size = int(entries.len() as i32);
    let nodes = entries
        .into_iter()
        .map(|(key, value)| {
            JavaValue::Object(
                heap.object("java.util.HashMap$Node", &[("key", key), ("value", value)]),
            )
        })
        .collect();
    let table = heap.array("java.lang.Object[]", nodes);
    JavaValue::Object(heap.object(
        "java.util.HashMap",
        &[("table", JavaValue::Object(table)), ("size", size)],
    ))
}

pub fn boxed(heap: &TestHeap, box_name: &str, value: JavaValue) -> JavaValue {
    JavaValue::Object(heap.object(box_name, &[("value", value)]))
}

/// The frame: `this` is a cart of two items priced in a map; locals of each kind.
fn shop_frame(heap: &TestHeap) {
    let apple = heap.str_value("apple");
    let pear = heap.str_value("pear");
    let items = array_list(heap, vec![apple.clone(), pear.clone()]);
    let three = boxed(heap, "java.lang.Integer", int(3));
    let five = boxed(heap, "java.lang.Integer", int(5));
    let prices = hash_map(heap, vec![(apple, three), (pear, five)]);
    let owner = heap.str_value("ann");
    let cart = heap.object(
        "com.shop.Cart",
        &[
            ("id", JavaValue::Long(7)),
            ("items", items.clone()),
            ("prices", prices),
            ("total", int(42)),
            ("owner", owner),
        ],
    );
    heap.set_this(Some(cart));
    let numbers = heap.array("int[]", vec![int(1), int(2), int(3)]);
    let count = boxed(heap, "java.lang.Integer", int(5));
    let sku = heap.str_value("A1");
    let line = heap.object("com.shop.Cart$Line", &[("sku", sku), ("qty", int(2))]);
    let red_name = heap.str_value("RED");
    let red = heap.object(
        "com.shop.Color$1",
        &[("name", red_name), ("ordinal", int(0))],
    );
    let inner = heap.object(
        "com.shop.Cart$Inner",
        &[("this$0", JavaValue::Object(cart)), ("val$limit", int(9))],
    );
    heap.set_locals(Some(vec![
        ("count", "java.lang.Integer", count),
        ("limit", "int", int(10)),
        ("ratio", "double", JavaValue::Double(0.5)),
        ("big", "long", JavaValue::Long(1 << 40)),
        ("flag", "boolean", JavaValue::Boolean(true)),
        ("letter", "char", JavaValue::Char(u16::from(b'x'))),
        ("small", "byte", JavaValue::Byte(1)),
        ("numbers", "int[]", JavaValue::Object(numbers)),
        ("list", "java.util.List", items),
        ("nothing", "java.lang.Object", JavaValue::Null),
        ("line", "com.shop.Cart$Line", JavaValue::Object(line)),
        ("color", "com.shop.Color", JavaValue::Object(red)),
        ("inner", "com.shop.Cart$Inner", JavaValue::Object(inner)),
    ]));
}
