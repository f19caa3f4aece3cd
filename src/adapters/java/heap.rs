//! What reading and evaluating Java needs of a JVM stopped in a frame, apart from how it is
//! asked. The expression evaluator (`print`, conditions, `set`) and the value presenter (lists
//! by their elements, records by their components, `toString()` where a class overrides it) are
//! written against [`Heap`]; the JDWP connection implements it for one suspended thread and
//! one of its frames. Keeping the seam here lets both be read, and unit-tested, without a wire.
//!
//! Names are Java's as a user writes them (`java.util.ArrayList`, `com.shop.Cart$Line`,
//! `int[]`), never JNI signatures; the implementation converts at the wire.

/// A JDWP object ID: the JVM's handle on one object while the session holds it.
pub type ObjectId = u64;
/// A JDWP reference type ID: a loaded class, interface or array type.
pub type TypeId = u64;
/// A JDWP method ID, unique within its declaring type.
pub type MethodId = u64;
/// A JDWP field ID, unique within its declaring type.
pub type FieldId = u64;

/// A Java value: one of the eight primitives, `null`, a reference, or `void` (what a `void`
/// method returns).
#[derive(Debug, Clone, PartialEq)]
pub enum JavaValue {
    Void,
    Null,
    Boolean(bool),
    Byte(i8),
    Char(u16),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Object(ObjectRef),
}

/// A reference to a live object, with what kind of object it is (JDWP's value tag), so that a
/// string or an array is known without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    pub id: ObjectId,
    pub kind: ObjectKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    Plain,
    String,
    Array,
    /// A `java.lang.Class` instance.
    ClassObject,
    Thread,
    ThreadGroup,
    ClassLoader,
}

/// A loaded reference type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeRef {
    pub id: TypeId,
    /// Its binary name as Java writes it: `java.util.HashMap`, `com.shop.Cart$Line`, `int[]`.
    pub name: String,
    pub kind: TypeKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Class,
    Interface,
    Array,
}

/// A field of a type, as the evaluator and presenter see it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInfo {
    pub id: FieldId,
    /// The type that declares it.
    pub declaring: TypeId,
    pub name: String,
    /// Its declared type's name (`int`, `java.lang.String`, `java.util.List`).
    pub type_name: String,
    pub is_static: bool,
    /// Made by the compiler (`this$0`, `val$x`), not written by the user.
    pub is_synthetic: bool,
}

/// A method of a type, as overload resolution needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodInfo {
    pub id: MethodId,
    /// The type that declares it.
    pub declaring: TypeId,
    /// `total`, or `<init>` for a constructor.
    pub name: String,
    /// Its parameters' type names in order (`int`, `java.lang.Object`, `java.lang.String[]`).
    pub parameters: Vec<String>,
    /// Its return type's name, `void` for none.
    pub returns: String,
    pub is_static: bool,
    pub is_varargs: bool,
    pub is_abstract: bool,
    pub is_synthetic: bool,
}

/// What a call invokes a method on.
#[derive(Debug, Clone, PartialEq)]
pub enum Receiver {
    Instance(ObjectRef),
    Static(TypeId),
}

/// Why a question to the JVM failed.
#[derive(Debug, Clone, PartialEq)]
pub enum HeapError {
    /// The invoked method threw: the exception object and its type's name, for the evaluator to
    /// report (`java.lang.IndexOutOfBoundsException: Index 3 out of bounds for length 2`).
    Threw {
        exception: ObjectRef,
        type_name: String,
    },
    /// An invocation ran past its time and was given up (the thread is left as it stands).
    TimedOut,
    /// The object was collected, or the frame or thread is gone since the stop.
    Gone(String),
    /// The JVM refused the request: JDWP's error, named (`INVALID_SLOT`, `TYPE_MISMATCH`).
    Refused(String),
    /// The connection to the JVM failed.
    Connection(String),
}

impl std::fmt::Display for HeapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeapError::Threw { type_name, .. } => write!(f, "{type_name} was thrown"),
            HeapError::TimedOut => f.write_str("the call ran past its time limit"),
            HeapError::Gone(what) => write!(f, "gone since the stop: {what}"),
            HeapError::Refused(why) => write!(f, "the JVM refused: {why}"),
            HeapError::Connection(why) => write!(f, "the connection to the JVM failed: {why}"),
        }
    }
}

/// A local variable visible at the frame's current location.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalInfo {
    pub name: String,
    pub type_name: String,
    pub value: JavaValue,
    /// A method parameter rather than a local declared in its body.
    pub is_argument: bool,
}

/// One suspended thread's frame and the heap it reaches. Every call may cross the wire.
#[allow(async_fn_in_trait)]
pub trait Heap {
    /// The frame's local variables in scope at its location, in slot order; `None` when the
    /// method's class was compiled without a local variable table (`javac` without `-g`).
    async fn locals(&self) -> Result<Option<Vec<LocalInfo>>, HeapError>;
    /// `this`, or `None` in a static method.
    async fn this(&self) -> Result<Option<ObjectRef>, HeapError>;
    /// The class that declares the frame's method (for its static fields and methods).
    async fn frame_type(&self) -> Result<TypeRef, HeapError>;
    /// A loaded type by the name a user writes: a binary name (`com.shop.Cart`,
    /// `com.shop.Cart$Line`), a canonical one (`com.shop.Cart.Line`), or a simple one
    /// (`Cart`, `String`) resolved as Java would from the frame's class: its own nested types,
    /// its package, then `java.lang`. `None` when nothing loaded matches.
    async fn find_type(&self, name: &str) -> Result<Option<TypeRef>, HeapError>;
    /// The runtime type of an object.
    async fn type_of(&self, object: ObjectRef) -> Result<TypeRef, HeapError>;
    /// The runtime types of several objects (a page of elements), in the order asked. The
    /// wire's implementation sends the questions together; this one asks one by one.
    async fn types_of(&self, objects: &[ObjectRef]) -> Result<Vec<TypeRef>, HeapError> {
        let mut types = Vec::with_capacity(objects.len());
        for object in objects {
            types.push(self.type_of(*object).await?);
        }
        Ok(types)
    }
    /// The superclass, `None` for `java.lang.Object` and interfaces.
    async fn superclass(&self, ty: &TypeRef) -> Result<Option<TypeRef>, HeapError>;
    /// The interfaces a type implements directly.
    async fn interfaces(&self, ty: &TypeRef) -> Result<Vec<TypeRef>, HeapError>;
    /// The fields a type declares (not inherited ones), in declaration order.
    async fn fields(&self, ty: &TypeRef) -> Result<Vec<FieldInfo>, HeapError>;
    /// The methods a type declares (not inherited ones).
    async fn methods(&self, ty: &TypeRef) -> Result<Vec<MethodInfo>, HeapError>;
    /// Instance fields' values of one object, in the order asked.
    async fn get_fields(
        &self,
        object: ObjectRef,
        fields: &[FieldInfo],
    ) -> Result<Vec<JavaValue>, HeapError>;
    /// The same instance fields' values of several objects (the entries of a map, the boxes
    /// of a list), object by object, in the order asked; sent together over the wire.
    async fn get_fields_of(
        &self,
        objects: &[ObjectRef],
        fields: &[FieldInfo],
    ) -> Result<Vec<Vec<JavaValue>>, HeapError> {
        let mut values = Vec::with_capacity(objects.len());
        for object in objects {
            values.push(self.get_fields(*object, fields).await?);
        }
        Ok(values)
    }
    /// Static fields' values of a type, in the order asked.
    async fn get_statics(
        &self,
        ty: &TypeRef,
        fields: &[FieldInfo],
    ) -> Result<Vec<JavaValue>, HeapError>;
    async fn set_field(
        &self,
        object: ObjectRef,
        field: &FieldInfo,
        value: JavaValue,
    ) -> Result<(), HeapError>;
    async fn set_static(
        &self,
        ty: &TypeRef,
        field: &FieldInfo,
        value: JavaValue,
    ) -> Result<(), HeapError>;
    async fn set_local(&self, name: &str, value: JavaValue) -> Result<(), HeapError>;
    async fn array_length(&self, array: ObjectRef) -> Result<usize, HeapError>;
    /// Elements `first..first + count` of an array.
    async fn array_elements(
        &self,
        array: ObjectRef,
        first: usize,
        count: usize,
    ) -> Result<Vec<JavaValue>, HeapError>;
    /// Writes elements `first..first + values.len()` of an array (`set a[i] v`). JDWP's
    /// `ArrayReference.SetValues`; the default refuses, as a JVM without it would.
    async fn set_array_elements(
        &self,
        _array: ObjectRef,
        _first: usize,
        _values: &[JavaValue],
    ) -> Result<(), HeapError> {
        Err(HeapError::Refused("NOT_IMPLEMENTED".into()))
    }
    /// A new array of an array type, its elements zero or null (the arguments a varargs call
    /// packs). JDWP's `ArrayType.NewInstance`; the default refuses.
    async fn new_array(&self, _ty: &TypeRef, _length: usize) -> Result<ObjectRef, HeapError> {
        Err(HeapError::Refused("NOT_IMPLEMENTED".into()))
    }
    /// A string's characters.
    async fn string_text(&self, string: ObjectRef) -> Result<String, HeapError>;
    /// Several strings' characters, in the order asked; sent together over the wire.
    async fn string_texts(&self, strings: &[ObjectRef]) -> Result<Vec<String>, HeapError> {
        let mut texts = Vec::with_capacity(strings.len());
        for string in strings {
            texts.push(self.string_text(*string).await?);
        }
        Ok(texts)
    }
    /// A new string in the JVM (for a literal in an expression).
    async fn new_string(&self, text: &str) -> Result<ObjectRef, HeapError>;
    /// Runs a method in the stopped thread, alone (other threads stay suspended), within the
    /// implementation's time limit. `method` was picked from [`Heap::methods`] by the caller.
    async fn invoke(
        &self,
        receiver: &Receiver,
        method: &MethodInfo,
        arguments: &[JavaValue],
    ) -> Result<JavaValue, HeapError>;
}
