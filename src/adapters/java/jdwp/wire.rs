//! JDWP's bytes: the 11-byte packet header, and the typed readers and writers of a packet's
//! data (big-endian integers, IDs sized by the JVM's `IDSizes`, UTF-8 strings, tagged values,
//! locations). Nothing here does I/O.

use std::fmt;

/// What every JDWP connection starts with, both ways.
pub const HANDSHAKE: &[u8; 14] = b"JDWP-Handshake";

/// The bytes of a packet's header: length (4), id (4), flags (1), then command set and command
/// (2) or an error code (2).
pub const HEADER_LEN: usize = 11;

/// The flag of a reply packet.
const REPLY_FLAG: u8 = 0x80;

/// The sizes of the JVM's IDs, as `VirtualMachine.IDSizes` tells them (8 on HotSpot, but the
/// protocol lets each JVM choose).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdSizes {
    pub field: usize,
    pub method: usize,
    pub object: usize,
    pub reference_type: usize,
    pub frame: usize,
}

impl IdSizes {
    /// Before `IDSizes` is answered: only its own reply (five ints) is read with these.
    pub const HOTSPOT: IdSizes = IdSizes {
        field: 8,
        method: 8,
        object: 8,
        reference_type: 8,
        frame: 8,
    };
}

/// A packet as it came off the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    /// A command from the JVM (an event, command set 64).
    Command {
        id: u32,
        command_set: u8,
        command: u8,
        data: Vec<u8>,
    },
    /// The reply to our command `id`: `error` 0 is success.
    Reply { id: u32, error: u16, data: Vec<u8> },
}

impl Packet {
    /// The length a header announces (header included), or an error for one shorter than a
    /// header.
    pub fn announced_length(header: &[u8; HEADER_LEN]) -> Result<usize, WireError> {
        let length = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        if length < HEADER_LEN {
            return Err(WireError::BadLength(length));
        }
        Ok(length)
    }

    /// Reads a packet from its header and the data that followed it.
    pub fn parse(header: &[u8; HEADER_LEN], data: Vec<u8>) -> Packet {
        let id = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
        if header[8] & REPLY_FLAG != 0 {
            Packet::Reply {
                id,
                error: u16::from_be_bytes([header[9], header[10]]),
                data,
            }
        } else {
            Packet::Command {
                id,
                command_set: header[9],
                command: header[10],
                data,
            }
        }
    }
}

/// The bytes of command `(set, command)` numbered `id`, carrying `data`.
pub fn command_packet(id: u32, set: u8, command: u8, data: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + data.len());
    bytes.extend_from_slice(&((HEADER_LEN + data.len()) as u32).to_be_bytes());
    bytes.extend_from_slice(&id.to_be_bytes());
    bytes.push(0);
    bytes.push(set);
    bytes.push(command);
    bytes.extend_from_slice(data);
    bytes
}

/// Why a packet's bytes could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// The data ended before what it announced.
    Truncated { wanted: usize, left: usize },
    /// A header announcing less than a header.
    BadLength(usize),
    /// A value tag JDWP does not define.
    UnknownTag(u8),
    /// An ID size JDWP does not allow.
    BadIdSize(i32),
    /// A string that is not UTF-8.
    NotUtf8,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated { wanted, left } => {
                write!(
                    f,
                    "a JDWP packet ended early ({wanted} bytes wanted, {left} left)"
                )
            }
            WireError::BadLength(length) => write!(f, "a JDWP packet of length {length}"),
            WireError::UnknownTag(tag) => write!(f, "an unknown JDWP value tag {tag}"),
            WireError::BadIdSize(size) => write!(f, "a JDWP ID size of {size}"),
            WireError::NotUtf8 => f.write_str("a JDWP string that is not UTF-8"),
        }
    }
}

/// JDWP's value tags: a value's type, as one byte before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tag {
    Array,
    Byte,
    Char,
    Object,
    Float,
    Double,
    Int,
    Long,
    Short,
    Void,
    Boolean,
    String,
    Thread,
    ThreadGroup,
    ClassLoader,
    ClassObject,
}

impl Tag {
    pub fn from_byte(byte: u8) -> Result<Tag, WireError> {
        Ok(match byte {
            b'[' => Tag::Array,
            b'B' => Tag::Byte,
            b'C' => Tag::Char,
            b'L' => Tag::Object,
            b'F' => Tag::Float,
            b'D' => Tag::Double,
            b'I' => Tag::Int,
            b'J' => Tag::Long,
            b'S' => Tag::Short,
            b'V' => Tag::Void,
            b'Z' => Tag::Boolean,
            b's' => Tag::String,
            b't' => Tag::Thread,
            b'g' => Tag::ThreadGroup,
            b'l' => Tag::ClassLoader,
            b'c' => Tag::ClassObject,
            other => return Err(WireError::UnknownTag(other)),
        })
    }

    pub fn byte(self) -> u8 {
        match self {
            Tag::Array => b'[',
            Tag::Byte => b'B',
            Tag::Char => b'C',
            Tag::Object => b'L',
            Tag::Float => b'F',
            Tag::Double => b'D',
            Tag::Int => b'I',
            Tag::Long => b'J',
            Tag::Short => b'S',
            Tag::Void => b'V',
            Tag::Boolean => b'Z',
            Tag::String => b's',
            Tag::Thread => b't',
            Tag::ThreadGroup => b'g',
            Tag::ClassLoader => b'l',
            Tag::ClassObject => b'c',
        }
    }

    /// The tag of a value of the type a JNI signature names (`I`, `Ljava/lang/String;`, `[I`):
    /// what `StackFrame.GetValues` is asked with. A class type is `Object` (the JVM answers
    /// with the precise tag).
    pub fn of_signature(signature: &str) -> Tag {
        match signature.as_bytes().first() {
            Some(b'[') => Tag::Array,
            Some(&byte) => match Tag::from_byte(byte) {
                Ok(tag) if tag != Tag::Void || signature == "V" => tag,
                _ => Tag::Object,
            },
            None => Tag::Object,
        }
    }

    /// Whether a value of this tag is an object ID rather than a primitive.
    pub fn is_object(self) -> bool {
        matches!(
            self,
            Tag::Array
                | Tag::Object
                | Tag::String
                | Tag::Thread
                | Tag::ThreadGroup
                | Tag::ClassLoader
                | Tag::ClassObject
        )
    }
}

/// A value as JDWP carries it: a primitive, or an object ID with its tag (ID 0 is `null`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Void,
    Boolean(bool),
    Byte(i8),
    Char(u16),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Object { tag: Tag, id: u64 },
}

impl Value {
    pub fn tag(&self) -> Tag {
        match self {
            Value::Void => Tag::Void,
            Value::Boolean(_) => Tag::Boolean,
            Value::Byte(_) => Tag::Byte,
            Value::Char(_) => Tag::Char,
            Value::Short(_) => Tag::Short,
            Value::Int(_) => Tag::Int,
            Value::Long(_) => Tag::Long,
            Value::Float(_) => Tag::Float,
            Value::Double(_) => Tag::Double,
            Value::Object { tag, .. } => *tag,
        }
    }
}

/// Type tags of a reference type (`ReferenceType` answers, locations, class-prepare events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeTag {
    Class,
    Interface,
    Array,
}

impl TypeTag {
    pub fn from_byte(byte: u8) -> TypeTag {
        match byte {
            2 => TypeTag::Interface,
            3 => TypeTag::Array,
            _ => TypeTag::Class,
        }
    }

    pub fn byte(self) -> u8 {
        match self {
            TypeTag::Class => 1,
            TypeTag::Interface => 2,
            TypeTag::Array => 3,
        }
    }
}

/// A place in the code: a method of a type, and a bytecode index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    pub type_tag: TypeTag,
    pub class: u64,
    pub method: u64,
    pub index: u64,
}

/// Reads a packet's data in order.
pub struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    sizes: IdSizes,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], sizes: IdSizes) -> Reader<'a> {
        Reader { data, at: 0, sizes }
    }

    fn take(&mut self, count: usize) -> Result<&'a [u8], WireError> {
        let left = self.data.len() - self.at;
        if count > left {
            return Err(WireError::Truncated {
                wanted: count,
                left,
            });
        }
        let bytes = &self.data[self.at..self.at + count];
        self.at += count;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    pub fn bool(&mut self) -> Result<bool, WireError> {
        Ok(self.u8()? != 0)
    }

    pub fn i16(&mut self) -> Result<i16, WireError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub fn u16(&mut self) -> Result<u16, WireError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub fn i32(&mut self) -> Result<i32, WireError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// A count: an int that is never negative (a negative one reads as none).
    pub fn count(&mut self) -> Result<usize, WireError> {
        Ok(usize::try_from(self.i32()?).unwrap_or(0))
    }

    pub fn i64(&mut self) -> Result<i64, WireError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// An ID of `size` bytes.
    fn id(&mut self, size: usize) -> Result<u64, WireError> {
        let bytes = self.take(size)?;
        Ok(bytes.iter().fold(0u64, |id, &b| (id << 8) | u64::from(b)))
    }

    pub fn object_id(&mut self) -> Result<u64, WireError> {
        self.id(self.sizes.object)
    }

    pub fn type_id(&mut self) -> Result<u64, WireError> {
        self.id(self.sizes.reference_type)
    }

    pub fn method_id(&mut self) -> Result<u64, WireError> {
        self.id(self.sizes.method)
    }

    pub fn field_id(&mut self) -> Result<u64, WireError> {
        self.id(self.sizes.field)
    }

    pub fn frame_id(&mut self) -> Result<u64, WireError> {
        self.id(self.sizes.frame)
    }

    pub fn string(&mut self) -> Result<String, WireError> {
        let length = self.count()?;
        let bytes = self.take(length)?;
        // The JVM sends modified UTF-8; it differs from UTF-8 only in NUL and characters
        // outside the BMP, which are read as replacement characters rather than failing.
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text.to_string()),
            Err(_) => Ok(String::from_utf8_lossy(bytes).into_owned()),
        }
    }

    pub fn location(&mut self) -> Result<Location, WireError> {
        Ok(Location {
            type_tag: TypeTag::from_byte(self.u8()?),
            class: self.type_id()?,
            method: self.method_id()?,
            index: self.u64()?,
        })
    }

    /// A value whose tag comes before it.
    pub fn tagged_value(&mut self) -> Result<Value, WireError> {
        let tag = Tag::from_byte(self.u8()?)?;
        self.value_of(tag)
    }

    /// A value of a known tag (an array region's primitives carry none).
    pub fn value_of(&mut self, tag: Tag) -> Result<Value, WireError> {
        Ok(match tag {
            Tag::Void => Value::Void,
            Tag::Boolean => Value::Boolean(self.bool()?),
            Tag::Byte => Value::Byte(self.u8()? as i8),
            Tag::Char => Value::Char(self.u16()?),
            Tag::Short => Value::Short(self.i16()?),
            Tag::Int => Value::Int(self.i32()?),
            Tag::Long => Value::Long(self.i64()?),
            Tag::Float => Value::Float(f32::from_bits(self.i32()? as u32)),
            Tag::Double => Value::Double(f64::from_bits(self.u64()?)),
            tag => Value::Object {
                tag,
                id: self.object_id()?,
            },
        })
    }

    /// A tagged object ID (an exception, `this`).
    pub fn tagged_object(&mut self) -> Result<(Tag, u64), WireError> {
        let tag = Tag::from_byte(self.u8()?)?;
        Ok((tag, self.object_id()?))
    }
}

/// Writes a command's data.
pub struct Writer {
    bytes: Vec<u8>,
    sizes: IdSizes,
}

impl Writer {
    pub fn new(sizes: IdSizes) -> Writer {
        Writer {
            bytes: Vec::new(),
            sizes,
        }
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    pub fn u8(&mut self, value: u8) -> &mut Writer {
        self.bytes.push(value);
        self
    }

    pub fn bool(&mut self, value: bool) -> &mut Writer {
        self.u8(u8::from(value))
    }

    pub fn i32(&mut self, value: i32) -> &mut Writer {
        self.bytes.extend_from_slice(&value.to_be_bytes());
        self
    }

    /// A count or index as JDWP's int (a larger one is capped: no list here is that long).
    pub fn count(&mut self, value: usize) -> &mut Writer {
        self.i32(i32::try_from(value).unwrap_or(i32::MAX))
    }

    pub fn u64(&mut self, value: u64) -> &mut Writer {
        self.bytes.extend_from_slice(&value.to_be_bytes());
        self
    }

    fn id(&mut self, id: u64, size: usize) -> &mut Writer {
        let bytes = id.to_be_bytes();
        self.bytes.extend_from_slice(&bytes[8 - size.min(8)..]);
        self
    }

    pub fn object_id(&mut self, id: u64) -> &mut Writer {
        self.id(id, self.sizes.object)
    }

    pub fn type_id(&mut self, id: u64) -> &mut Writer {
        self.id(id, self.sizes.reference_type)
    }

    pub fn method_id(&mut self, id: u64) -> &mut Writer {
        self.id(id, self.sizes.method)
    }

    pub fn field_id(&mut self, id: u64) -> &mut Writer {
        self.id(id, self.sizes.field)
    }

    pub fn frame_id(&mut self, id: u64) -> &mut Writer {
        self.id(id, self.sizes.frame)
    }

    pub fn string(&mut self, text: &str) -> &mut Writer {
        self.count(text.len());
        self.bytes.extend_from_slice(text.as_bytes());
        self
    }

    pub fn location(&mut self, location: &Location) -> &mut Writer {
        self.u8(location.type_tag.byte())
            .type_id(location.class)
            .method_id(location.method)
            .u64(location.index)
    }

    /// A value without its tag (`SetValues` of a field or slot whose type is known).
    pub fn untagged_value(&mut self, value: &Value) -> &mut Writer {
        match *value {
            Value::Void => self,
            Value::Boolean(b) => self.bool(b),
            Value::Byte(b) => self.u8(b as u8),
            Value::Char(c) => {
                self.bytes.extend_from_slice(&c.to_be_bytes());
                self
            }
            Value::Short(s) => {
                self.bytes.extend_from_slice(&s.to_be_bytes());
                self
            }
            Value::Int(i) => self.i32(i),
            Value::Long(l) => self.u64(l as u64),
            Value::Float(f) => self.i32(f.to_bits() as i32),
            Value::Double(d) => self.u64(d.to_bits()),
            Value::Object { id, .. } => self.object_id(id),
        }
    }

    pub fn tagged_value(&mut self, value: &Value) -> &mut Writer {
        self.u8(value.tag().byte()).untagged_value(value)
    }
}

/// Reads `IDSizes`' reply: five ints.
pub fn read_id_sizes(data: &[u8]) -> Result<IdSizes, WireError> {
    let mut reader = Reader::new(data, IdSizes::HOTSPOT);
    let mut size = || -> Result<usize, WireError> {
        let size = reader.i32()?;
        match size {
            1..=8 => Ok(size as usize),
            other => Err(WireError::BadIdSize(other)),
        }
    };
    Ok(IdSizes {
        field: size()?,
        method: size()?,
        object: size()?,
        reference_type: size()?,
        frame: size()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_packet_has_its_header_then_its_data() {
        let bytes = command_packet(7, 1, 7, &[0xAA, 0xBB]);
        assert_eq!(bytes, [0, 0, 0, 13, 0, 0, 0, 7, 0, 1, 7, 0xAA, 0xBB]);
    }

    #[test]
    fn replies_and_events_are_told_apart_by_the_flag() {
        let header = [0, 0, 0, 12, 0, 0, 0, 9, 0x80, 0, 101];
        assert_eq!(Packet::announced_length(&header), Ok(12));
        assert_eq!(
            Packet::parse(&header, vec![1]),
            Packet::Reply {
                id: 9,
                error: 101,
                data: vec![1]
            }
        );
        let event = [0, 0, 0, 11, 0, 0, 0, 3, 0, 64, 100];
        assert_eq!(
            Packet::parse(&event, Vec::new()),
            Packet::Command {
                id: 3,
                command_set: 64,
                command: 100,
                data: Vec::new()
            }
        );
        let short = [0, 0, 0, 4, 0, 0, 0, 3, 0, 64, 100];
        assert_eq!(
            Packet::announced_length(&short),
            Err(WireError::BadLength(4))
        );
    }

    #[test]
    fn ids_take_the_sizes_the_jvm_told() {
        let sizes = IdSizes {
            field: 4,
            method: 4,
            object: 2,
            reference_type: 8,
            frame: 8,
        };
        let mut writer = Writer::new(sizes);
        writer.object_id(0x0102).type_id(5).string("é");
        let bytes = writer.into_bytes();
        assert_eq!(
            bytes,
            [1, 2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2, 0xC3, 0xA9]
        );
        let mut reader = Reader::new(&bytes, sizes);
        assert_eq!(reader.object_id(), Ok(0x0102));
        assert_eq!(reader.type_id(), Ok(5));
        assert_eq!(reader.string().as_deref(), Ok("é"));
        assert!(matches!(reader.u8(), Err(WireError::Truncated { .. })));
    }

    #[test]
    fn tagged_values_round_trip() {
        let values = [
            Value::Int(-3),
            Value::Long(1 << 40),
            Value::Boolean(true),
            Value::Char(u16::from(b'x')),
            Value::Double(2.5),
            Value::Float(-0.5),
            Value::Short(-2),
            Value::Byte(-1),
            Value::Object {
                tag: Tag::String,
                id: 77,
            },
        ];
        let mut writer = Writer::new(IdSizes::HOTSPOT);
        for value in &values {
            writer.tagged_value(value);
        }
        let bytes = writer.into_bytes();
        let mut reader = Reader::new(&bytes, IdSizes::HOTSPOT);
        for value in values {
            assert_eq!(reader.tagged_value(), Ok(value));
        }
        assert_eq!(
            Reader::new(b"?", IdSizes::HOTSPOT).tagged_value(),
            Err(WireError::UnknownTag(b'?'))
        );
    }

    #[test]
    fn a_signature_gives_the_tag_a_slot_is_read_with() {
        assert_eq!(Tag::of_signature("I"), Tag::Int);
        assert_eq!(Tag::of_signature("[Ljava/lang/String;"), Tag::Array);
        assert_eq!(Tag::of_signature("Ljava/lang/String;"), Tag::Object);
        assert_eq!(Tag::of_signature("Z"), Tag::Boolean);
    }

    #[test]
    fn id_sizes_are_read_and_checked() {
        let mut data = Vec::new();
        for size in [8i32; 5] {
            data.extend_from_slice(&size.to_be_bytes());
        }
        assert_eq!(read_id_sizes(&data), Ok(IdSizes::HOTSPOT));
        data[3] = 9;
        assert_eq!(read_id_sizes(&data), Err(WireError::BadIdSize(9)));
    }
}
