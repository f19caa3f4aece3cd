//! The JDWP commands the adapter sends, each a typed method over [`Connection`]: the command
//! set and number, the arguments written and the reply read as the specification lays them out
//! (docs.oracle.com/en/java/javase/17/docs/specs/jdwp/jdwp-protocol.html).

use super::connection::{Connection, JdwpError};
use super::events::{EventKind, SuspendPolicy};
use super::wire::{Location, Reader, Tag, TypeTag, Value, WireError};

/// A loaded reference type, as `AllClasses` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedType {
    pub tag: TypeTag,
    pub id: u64,
    pub signature: String,
}

/// A field of a type (`ReferenceType.Fields`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub id: u64,
    pub name: String,
    pub signature: String,
    pub modifiers: i32,
}

/// A method of a type (`ReferenceType.Methods`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    pub id: u64,
    pub name: String,
    pub signature: String,
    pub modifiers: i32,
}

/// Access flags as the class file writes them.
pub mod modifiers {
    pub const STATIC: i32 = 0x0008;
    pub const BRIDGE: i32 = 0x0040;
    pub const VARARGS: i32 = 0x0080;
    pub const ABSTRACT: i32 = 0x0400;
    /// JDWP's own bit for a member the compiler made.
    pub const SYNTHETIC: i32 = 0xf000_0000_u32 as i32;
    /// The class file's synthetic flag, which some JVMs pass on as it is.
    pub const SYNTHETIC_FLAG: i32 = 0x1000;

    pub fn is_synthetic(modifiers: i32) -> bool {
        modifiers & (SYNTHETIC | SYNTHETIC_FLAG) != 0
    }
}

/// One row of a method's line table: the first bytecode index of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineEntry {
    pub index: u64,
    pub line: u32,
}

/// A method's line table (`Method.LineTable`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineTable {
    pub start: i64,
    pub end: i64,
    pub lines: Vec<LineEntry>,
}

impl LineTable {
    /// The line the code at `index` belongs to: the last row at or before it.
    pub fn line_at(&self, index: u64) -> Option<u32> {
        self.lines
            .iter()
            .filter(|row| row.index <= index)
            .max_by_key(|row| row.index)
            .map(|row| row.line)
    }

    /// The first bytecode index of `line` in this method.
    pub fn first_index_of(&self, line: u32) -> Option<u64> {
        self.lines
            .iter()
            .filter(|row| row.line == line)
            .map(|row| row.index)
            .min()
    }
}

/// A local variable slot (`Method.VariableTable`), live from `start` for `length` indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub start: u64,
    pub name: String,
    pub signature: String,
    pub length: u32,
    pub slot: i32,
}

impl Variable {
    pub fn is_live_at(&self, index: u64) -> bool {
        index >= self.start && index < self.start + u64::from(self.length)
    }
}

/// A method's variables, and how many of its slots are its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableTable {
    pub argument_slots: i32,
    pub variables: Vec<Variable>,
}

/// A frame of a suspended thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub id: u64,
    pub location: Location,
}

/// What a method invocation gave: its value, or the exception it threw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Invoked {
    Returned(Value),
    Threw(u64),
}

/// How far a step goes (`StepSize` is always a line here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepDepth {
    Into,
    Over,
    Out,
}

/// A filter of an event request.
#[derive(Debug, Clone, PartialEq)]
pub enum Modifier {
    Count(i32),
    ThreadOnly(u64),
    ClassOnly(u64),
    ClassMatch(String),
    ClassExclude(String),
    LocationOnly(Location),
    ExceptionOnly {
        type_id: u64,
        caught: bool,
        uncaught: bool,
    },
    Step {
        thread: u64,
        depth: StepDepth,
    },
    /// A step of one bytecode instruction over calls: past a field's write, to where its new
    /// value can be read.
    InstructionStep {
        thread: u64,
    },
    /// Events of one field (a watchpoint's).
    FieldOnly {
        class: u64,
        field: u64,
    },
    /// Events whose `this` (a field's object) is this one.
    InstanceOnly(u64),
    SourceNameMatch(String),
}

/// Invocation options: only the invoking thread runs.
const INVOKE_SINGLE_THREADED: i32 = 1;

fn read_value_list(reader: &mut Reader<'_>) -> Result<Vec<Value>, WireError> {
    let count = reader.count()?;
    (0..count).map(|_| reader.tagged_value()).collect()
}

fn read_invoked(reader: &mut Reader<'_>) -> Result<Invoked, WireError> {
    let value = reader.tagged_value()?;
    let (_, exception) = reader.tagged_object()?;
    Ok(if exception != 0 {
        Invoked::Threw(exception)
    } else {
        Invoked::Returned(value)
    })
}

impl Connection {
    // VirtualMachine (1)

    pub async fn all_classes(&self) -> Result<Vec<LoadedType>, JdwpError> {
        self.command(1, 3, self.writer(), |r| {
            let count = r.count()?;
            (0..count)
                .map(|_| {
                    let tag = TypeTag::from_byte(r.u8()?);
                    let id = r.type_id()?;
                    let signature = r.string()?;
                    let _status = r.i32()?;
                    Ok(LoadedType { tag, id, signature })
                })
                .collect()
        })
        .await
    }

    pub async fn classes_by_signature(
        &self,
        signature: &str,
    ) -> Result<Vec<LoadedType>, JdwpError> {
        let mut w = self.writer();
        w.string(signature);
        self.command(1, 2, w, |r| {
            let count = r.count()?;
            (0..count)
                .map(|_| {
                    let tag = TypeTag::from_byte(r.u8()?);
                    let id = r.type_id()?;
                    let _status = r.i32()?;
                    Ok(LoadedType {
                        tag,
                        id,
                        signature: signature.to_string(),
                    })
                })
                .collect()
        })
        .await
    }

    pub async fn all_threads(&self) -> Result<Vec<u64>, JdwpError> {
        self.command(1, 4, self.writer(), |r| {
            let count = r.count()?;
            (0..count).map(|_| r.object_id()).collect()
        })
        .await
    }

    /// Leaves the JVM: its requests are cleared and its threads resumed.
    pub async fn dispose(&self) -> Result<(), JdwpError> {
        self.command(1, 6, self.writer(), |_| Ok(())).await
    }

    pub async fn suspend_all(&self) -> Result<(), JdwpError> {
        self.command(1, 8, self.writer(), |_| Ok(())).await
    }

    pub async fn resume_all(&self) -> Result<(), JdwpError> {
        self.command(1, 9, self.writer(), |_| Ok(())).await
    }

    pub async fn exit(&self, code: i32) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.i32(code);
        self.command(1, 10, w, |_| Ok(())).await
    }

    pub async fn create_string(&self, text: &str) -> Result<u64, JdwpError> {
        let mut w = self.writer();
        w.string(text);
        self.command(1, 11, w, |r| r.object_id()).await
    }

    // ReferenceType (2)

    pub async fn signature(&self, type_id: u64) -> Result<String, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id);
        self.command(2, 1, w, |r| r.string()).await
    }

    pub async fn fields(&self, type_id: u64) -> Result<Vec<Field>, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id);
        self.command(2, 4, w, |r| {
            let count = r.count()?;
            (0..count)
                .map(|_| {
                    Ok(Field {
                        id: r.field_id()?,
                        name: r.string()?,
                        signature: r.string()?,
                        modifiers: r.i32()?,
                    })
                })
                .collect()
        })
        .await
    }

    pub async fn methods(&self, type_id: u64) -> Result<Vec<Method>, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id);
        self.command(2, 5, w, |r| {
            let count = r.count()?;
            (0..count)
                .map(|_| {
                    Ok(Method {
                        id: r.method_id()?,
                        name: r.string()?,
                        signature: r.string()?,
                        modifiers: r.i32()?,
                    })
                })
                .collect()
        })
        .await
    }

    pub async fn static_values(
        &self,
        type_id: u64,
        fields: &[u64],
    ) -> Result<Vec<Value>, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id).count(fields.len());
        for field in fields {
            w.field_id(*field);
        }
        self.command(2, 6, w, read_value_list).await
    }

    pub async fn source_file(&self, type_id: u64) -> Result<String, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id);
        self.command(2, 7, w, |r| r.string()).await
    }

    /// The class's SourceDebugExtension (a JSR-45 source map: Kotlin's inlined lines).
    pub async fn source_debug_extension(&self, type_id: u64) -> Result<String, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id);
        self.command(2, 12, w, |r| r.string()).await
    }

    pub async fn interfaces(&self, type_id: u64) -> Result<Vec<u64>, JdwpError> {
        let mut w = self.writer();
        w.type_id(type_id);
        self.command(2, 10, w, |r| {
            let count = r.count()?;
            (0..count).map(|_| r.type_id()).collect()
        })
        .await
    }

    // ClassType (3)

    /// The superclass; 0 for `java.lang.Object`.
    pub async fn superclass(&self, class: u64) -> Result<u64, JdwpError> {
        let mut w = self.writer();
        w.type_id(class);
        self.command(3, 1, w, |r| r.type_id()).await
    }

    pub async fn set_static_value(
        &self,
        class: u64,
        field: u64,
        value: &Value,
    ) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.type_id(class)
            .i32(1)
            .field_id(field)
            .untagged_value(value);
        self.command(3, 2, w, |_| Ok(())).await
    }

    pub async fn invoke_static(
        &self,
        class: u64,
        thread: u64,
        method: u64,
        arguments: &[Value],
    ) -> Result<Invoked, JdwpError> {
        let mut w = self.writer();
        w.type_id(class)
            .object_id(thread)
            .method_id(method)
            .count(arguments.len());
        for argument in arguments {
            w.tagged_value(argument);
        }
        w.i32(INVOKE_SINGLE_THREADED);
        self.command(3, 3, w, read_invoked).await
    }

    // Method (6)

    pub async fn line_table(&self, class: u64, method: u64) -> Result<LineTable, JdwpError> {
        let mut w = self.writer();
        w.type_id(class).method_id(method);
        self.command(6, 1, w, |r| {
            let start = r.i64()?;
            let end = r.i64()?;
            let count = r.count()?;
            let lines = (0..count)
                .map(|_| {
                    Ok(LineEntry {
                        index: r.u64()?,
                        line: u32::try_from(r.i32()?).unwrap_or(0),
                    })
                })
                .collect::<Result<_, WireError>>()?;
            Ok(LineTable { start, end, lines })
        })
        .await
    }

    /// The method's local variables; `ABSENT_INFORMATION` for a class compiled without `-g`.
    pub async fn variable_table(
        &self,
        class: u64,
        method: u64,
    ) -> Result<VariableTable, JdwpError> {
        let mut w = self.writer();
        w.type_id(class).method_id(method);
        self.command(6, 2, w, |r| {
            let argument_slots = r.i32()?;
            let count = r.count()?;
            let variables = (0..count)
                .map(|_| {
                    Ok(Variable {
                        start: r.u64()?,
                        name: r.string()?,
                        signature: r.string()?,
                        length: u32::try_from(r.i32()?).unwrap_or(0),
                        slot: r.i32()?,
                    })
                })
                .collect::<Result<_, WireError>>()?;
            Ok(VariableTable {
                argument_slots,
                variables,
            })
        })
        .await
    }

    // ObjectReference (9)

    /// An object's runtime type.
    pub async fn reference_type(&self, object: u64) -> Result<(TypeTag, u64), JdwpError> {
        let mut w = self.writer();
        w.object_id(object);
        self.command(9, 1, w, |r| Ok((TypeTag::from_byte(r.u8()?), r.type_id()?)))
            .await
    }

    pub async fn field_values(&self, object: u64, fields: &[u64]) -> Result<Vec<Value>, JdwpError> {
        let mut w = self.writer();
        w.object_id(object).count(fields.len());
        for field in fields {
            w.field_id(*field);
        }
        self.command(9, 2, w, read_value_list).await
    }

    pub async fn set_field_value(
        &self,
        object: u64,
        field: u64,
        value: &Value,
    ) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.object_id(object)
            .i32(1)
            .field_id(field)
            .untagged_value(value);
        self.command(9, 3, w, |_| Ok(())).await
    }

    pub async fn invoke_method(
        &self,
        object: u64,
        thread: u64,
        class: u64,
        method: u64,
        arguments: &[Value],
    ) -> Result<Invoked, JdwpError> {
        let mut w = self.writer();
        w.object_id(object)
            .object_id(thread)
            .type_id(class)
            .method_id(method)
            .count(arguments.len());
        for argument in arguments {
            w.tagged_value(argument);
        }
        w.i32(INVOKE_SINGLE_THREADED);
        self.command(9, 6, w, read_invoked).await
    }

    /// Keeps `object` from being collected while the program runs, though nothing of the
    /// program's reaches it (a value a method returned, shown at the next stop).
    pub async fn disable_collection(&self, object: u64) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.object_id(object);
        self.command(9, 7, w, |_| Ok(())).await
    }

    pub async fn enable_collection(&self, object: u64) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.object_id(object);
        self.command(9, 8, w, |_| Ok(())).await
    }

    // StringReference (10)

    pub async fn string_value(&self, string: u64) -> Result<String, JdwpError> {
        let mut w = self.writer();
        w.object_id(string);
        self.command(10, 1, w, |r| r.string()).await
    }

    // ThreadReference (11)

    pub async fn thread_name(&self, thread: u64) -> Result<String, JdwpError> {
        let mut w = self.writer();
        w.object_id(thread);
        self.command(11, 1, w, |r| r.string()).await
    }

    /// How many frames a suspended thread has.
    pub async fn frame_count(&self, thread: u64) -> Result<usize, JdwpError> {
        let mut w = self.writer();
        w.object_id(thread);
        self.command(11, 7, w, |r| r.count()).await
    }

    /// Up to `count` frames from the top (-1: all).
    pub async fn frames(&self, thread: u64, count: i32) -> Result<Vec<Frame>, JdwpError> {
        let mut w = self.writer();
        w.object_id(thread).i32(0).i32(count);
        self.command(11, 6, w, |r| {
            let count = r.count()?;
            (0..count)
                .map(|_| {
                    Ok(Frame {
                        id: r.frame_id()?,
                        location: r.location()?,
                    })
                })
                .collect()
        })
        .await
    }

    // ArrayReference (13)

    pub async fn array_length(&self, array: u64) -> Result<usize, JdwpError> {
        let mut w = self.writer();
        w.object_id(array);
        self.command(13, 1, w, |r| r.count()).await
    }

    pub async fn array_values(
        &self,
        array: u64,
        first: usize,
        count: usize,
    ) -> Result<Vec<Value>, JdwpError> {
        let mut w = self.writer();
        w.object_id(array).count(first).count(count);
        self.command(13, 2, w, |r| {
            let tag = Tag::from_byte(r.u8()?)?;
            let count = r.count()?;
            (0..count)
                .map(|_| {
                    if tag.is_object() {
                        r.tagged_value()
                    } else {
                        r.value_of(tag)
                    }
                })
                .collect()
        })
        .await
    }

    /// Writes `values` into an array from `first` on (untagged: the array's type gives theirs).
    pub async fn set_array_values(
        &self,
        array: u64,
        first: usize,
        values: &[Value],
    ) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.object_id(array).count(first).count(values.len());
        for value in values {
            w.untagged_value(value);
        }
        self.command(13, 3, w, |_| Ok(())).await
    }

    // ArrayType (4)

    /// A new array of the array type `array_type`, its elements zero or null.
    pub async fn new_array(&self, array_type: u64, length: usize) -> Result<u64, JdwpError> {
        let mut w = self.writer();
        w.type_id(array_type).count(length);
        self.command(4, 1, w, |r| Ok(r.tagged_object()?.1)).await
    }

    // EventRequest (15)

    /// Asks for events of `kind`, filtered by `modifiers`; returns the request's id.
    pub async fn set_event(
        &self,
        kind: EventKind,
        suspend: SuspendPolicy,
        modifiers: &[Modifier],
    ) -> Result<i32, JdwpError> {
        let mut w = self.writer();
        w.u8(kind.byte()).u8(suspend.byte()).count(modifiers.len());
        for modifier in modifiers {
            match modifier {
                Modifier::Count(count) => w.u8(1).i32(*count),
                Modifier::ThreadOnly(thread) => w.u8(3).object_id(*thread),
                Modifier::ClassOnly(class) => w.u8(4).type_id(*class),
                Modifier::ClassMatch(pattern) => w.u8(5).string(pattern),
                Modifier::ClassExclude(pattern) => w.u8(6).string(pattern),
                Modifier::LocationOnly(location) => w.u8(7).location(location),
                Modifier::ExceptionOnly {
                    type_id,
                    caught,
                    uncaught,
                } => w.u8(8).type_id(*type_id).bool(*caught).bool(*uncaught),
                Modifier::Step { thread, depth } => {
                    let depth = match depth {
                        StepDepth::Into => 0,
                        StepDepth::Over => 1,
                        StepDepth::Out => 2,
                    };
                    // Size LINE (1).
                    w.u8(10).object_id(*thread).i32(1).i32(depth)
                }
                // Size MIN (0), depth OVER (1).
                Modifier::InstructionStep { thread } => w.u8(10).object_id(*thread).i32(0).i32(1),
                Modifier::FieldOnly { class, field } => w.u8(9).type_id(*class).field_id(*field),
                Modifier::InstanceOnly(object) => w.u8(11).object_id(*object),
                Modifier::SourceNameMatch(pattern) => w.u8(12).string(pattern),
            };
        }
        self.command(15, 1, w, |r| r.i32()).await
    }

    pub async fn clear_event(&self, kind: EventKind, request: i32) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.u8(kind.byte()).i32(request);
        self.command(15, 2, w, |_| Ok(())).await
    }

    // StackFrame (16)

    /// The values of `slots` (each with the tag its signature gives) in a frame.
    pub async fn frame_values(
        &self,
        thread: u64,
        frame: u64,
        slots: &[(i32, Tag)],
    ) -> Result<Vec<Value>, JdwpError> {
        let mut w = self.writer();
        w.object_id(thread).frame_id(frame).count(slots.len());
        for (slot, tag) in slots {
            w.i32(*slot).u8(tag.byte());
        }
        self.command(16, 1, w, read_value_list).await
    }

    pub async fn set_frame_value(
        &self,
        thread: u64,
        frame: u64,
        slot: i32,
        value: &Value,
    ) -> Result<(), JdwpError> {
        let mut w = self.writer();
        w.object_id(thread)
            .frame_id(frame)
            .i32(1)
            .i32(slot)
            .tagged_value(value);
        self.command(16, 2, w, |_| Ok(())).await
    }

    /// `this` of a frame: 0 in a static or native method.
    pub async fn this_object(&self, thread: u64, frame: u64) -> Result<u64, JdwpError> {
        let mut w = self.writer();
        w.object_id(thread).frame_id(frame);
        self.command(16, 3, w, |r| Ok(r.tagged_object()?.1)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_table_finds_lines_and_their_first_index() {
        let table = LineTable {
            start: 0,
            end: 20,
            lines: vec![
                LineEntry { index: 0, line: 10 },
                LineEntry { index: 4, line: 11 },
                LineEntry { index: 9, line: 10 },
                LineEntry {
                    index: 12,
                    line: 12,
                },
            ],
        };
        assert_eq!(table.line_at(5), Some(11));
        assert_eq!(table.line_at(12), Some(12));
        assert_eq!(table.first_index_of(10), Some(0));
        assert_eq!(table.first_index_of(13), None);
    }

    #[test]
    fn a_variable_lives_within_its_range() {
        let variable = Variable {
            start: 4,
            name: "total".into(),
            signature: "I".into(),
            length: 6,
            slot: 1,
        };
        assert!(!variable.is_live_at(3));
        assert!(variable.is_live_at(4) && variable.is_live_at(9));
        assert!(!variable.is_live_at(10));
    }

    #[test]
    fn synthetic_members_are_told_by_either_flag() {
        assert!(modifiers::is_synthetic(modifiers::SYNTHETIC));
        assert!(modifiers::is_synthetic(0x1000 | 0x0008));
        assert!(!modifiers::is_synthetic(modifiers::STATIC));
    }
}
