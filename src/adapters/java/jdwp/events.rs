//! The JVM's events: a Composite command (set 64, command 100) carries one or more, each read
//! here into [`Event`]. The kinds the adapter never asks for are read as far as their kind and
//! request, which ends the packet's reading (their layouts differ and nothing follows that is
//! needed).

use super::wire::{Location, Reader, TypeTag, Value, WireError};

/// JDWP's event kinds, as `EventRequest.Set` takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    SingleStep,
    Breakpoint,
    Exception,
    ThreadStart,
    ThreadDeath,
    ClassPrepare,
    FieldAccess,
    FieldModification,
    MethodExitWithReturnValue,
    VmDeath,
}

impl EventKind {
    pub fn byte(self) -> u8 {
        match self {
            EventKind::SingleStep => 1,
            EventKind::Breakpoint => 2,
            EventKind::Exception => 4,
            EventKind::ThreadStart => 6,
            EventKind::ThreadDeath => 7,
            EventKind::ClassPrepare => 8,
            EventKind::FieldAccess => 20,
            EventKind::FieldModification => 21,
            EventKind::MethodExitWithReturnValue => 42,
            EventKind::VmDeath => 99,
        }
    }
}

/// Which threads an event suspends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuspendPolicy {
    None,
    EventThread,
    All,
}

impl SuspendPolicy {
    pub fn byte(self) -> u8 {
        match self {
            SuspendPolicy::None => 0,
            SuspendPolicy::EventThread => 1,
            SuspendPolicy::All => 2,
        }
    }

    fn from_byte(byte: u8) -> SuspendPolicy {
        match byte {
            0 => SuspendPolicy::None,
            1 => SuspendPolicy::EventThread,
            _ => SuspendPolicy::All,
        }
    }
}

/// One event, with the request that asked for it (0: one the JVM sends unasked, VM start and
/// death).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    VmStart {
        thread: u64,
    },
    VmDeath,
    SingleStep {
        request: i32,
        thread: u64,
        location: Location,
    },
    Breakpoint {
        request: i32,
        thread: u64,
        location: Location,
    },
    Exception {
        request: i32,
        thread: u64,
        location: Location,
        exception: u64,
        /// Where it will be caught; `None` for uncaught.
        catch: Option<Location>,
    },
    /// A watched field read (`FieldAccess`) or about to be written (`FieldModification`),
    /// the write not made yet.
    Field {
        request: i32,
        thread: u64,
        location: Location,
    },
    MethodExitWithReturnValue {
        request: i32,
        thread: u64,
        location: Location,
        value: Value,
    },
    ThreadStart {
        thread: u64,
    },
    ThreadDeath {
        thread: u64,
    },
    ClassPrepare {
        request: i32,
        thread: u64,
        type_tag: TypeTag,
        type_id: u64,
        signature: String,
    },
    /// A kind the adapter does not ask for.
    Other {
        kind: u8,
    },
}

/// The events of one Composite packet, and what they suspended.
#[derive(Debug, Clone, PartialEq)]
pub struct Composite {
    pub suspend: SuspendPolicy,
    pub events: Vec<Event>,
}

/// Reads a Composite packet's data.
pub fn read_composite(reader: &mut Reader<'_>) -> Result<Composite, WireError> {
    let suspend = SuspendPolicy::from_byte(reader.u8()?);
    let count = reader.count()?;
    let mut events = Vec::with_capacity(count.min(64));
    for _ in 0..count {
        let event = read_event(reader)?;
        let unknown = matches!(event, Event::Other { .. });
        events.push(event);
        if unknown {
            break;
        }
    }
    Ok(Composite { suspend, events })
}

fn read_event(reader: &mut Reader<'_>) -> Result<Event, WireError> {
    let kind = reader.u8()?;
    let request = reader.i32()?;
    Ok(match kind {
        90 => Event::VmStart {
            thread: reader.object_id()?,
        },
        99 => Event::VmDeath,
        1 => Event::SingleStep {
            request,
            thread: reader.object_id()?,
            location: reader.location()?,
        },
        2 => Event::Breakpoint {
            request,
            thread: reader.object_id()?,
            location: reader.location()?,
        },
        4 => {
            let thread = reader.object_id()?;
            let location = reader.location()?;
            let (_, exception) = reader.tagged_object()?;
            let catch = reader.location()?;
            Event::Exception {
                request,
                thread,
                location,
                exception,
                catch: (catch.class != 0).then_some(catch),
            }
        }
        20 | 21 => {
            let thread = reader.object_id()?;
            let location = reader.location()?;
            let _tag = reader.u8()?;
            let _class = reader.type_id()?;
            let _field = reader.field_id()?;
            let _object = reader.tagged_object()?;
            if kind == 21 {
                let _to_be = reader.tagged_value()?;
            }
            Event::Field {
                request,
                thread,
                location,
            }
        }
        42 => Event::MethodExitWithReturnValue {
            request,
            thread: reader.object_id()?,
            location: reader.location()?,
            value: reader.tagged_value()?,
        },
        6 => Event::ThreadStart {
            thread: reader.object_id()?,
        },
        7 => Event::ThreadDeath {
            thread: reader.object_id()?,
        },
        8 => {
            let thread = reader.object_id()?;
            let type_tag = TypeTag::from_byte(reader.u8()?);
            let type_id = reader.type_id()?;
            let signature = reader.string()?;
            let _status = reader.i32()?;
            Event::ClassPrepare {
                request,
                thread,
                type_tag,
                type_id,
                signature,
            }
        }
        kind => Event::Other { kind },
    })
}

#[cfg(test)]
mod tests {
    use super::super::wire::{IdSizes, Writer};
    use super::*;

    fn location(method: u64, index: u64) -> Location {
        Location {
            type_tag: TypeTag::Class,
            class: 5,
            method,
            index,
        }
    }

    #[test]
    fn a_composite_of_a_breakpoint_and_a_class_prepare_is_read() {
        let mut w = Writer::new(IdSizes::HOTSPOT);
        w.u8(2).i32(2);
        w.u8(2).i32(11).object_id(1).location(&location(9, 4));
        w.u8(8)
            .i32(12)
            .object_id(1)
            .u8(1)
            .type_id(33)
            .string("Lcom/shop/Cart;")
            .i32(7);
        let bytes = w.into_bytes();
        let composite = read_composite(&mut Reader::new(&bytes, IdSizes::HOTSPOT));
        assert_eq!(
            composite,
            Ok(Composite {
                suspend: SuspendPolicy::All,
                events: vec![
                    Event::Breakpoint {
                        request: 11,
                        thread: 1,
                        location: location(9, 4)
                    },
                    Event::ClassPrepare {
                        request: 12,
                        thread: 1,
                        type_tag: TypeTag::Class,
                        type_id: 33,
                        signature: "Lcom/shop/Cart;".into()
                    }
                ]
            })
        );
    }

    #[test]
    fn start_death_exceptions_and_returns_are_read() {
        let mut w = Writer::new(IdSizes::HOTSPOT);
        w.u8(1).i32(4);
        w.u8(90).i32(0).object_id(3);
        w.u8(4)
            .i32(5)
            .object_id(3)
            .location(&location(1, 2))
            .u8(b'L')
            .object_id(99)
            .u8(1)
            .type_id(0)
            .method_id(0)
            .u64(0);
        w.u8(42)
            .i32(6)
            .object_id(3)
            .location(&location(1, 9))
            .tagged_value(&Value::Int(42));
        w.u8(99).i32(0);
        let bytes = w.into_bytes();
        let composite =
            read_composite(&mut Reader::new(&bytes, IdSizes::HOTSPOT)).expect("composite");
        assert_eq!(composite.suspend, SuspendPolicy::EventThread);
        assert_eq!(
            composite.events,
            vec![
                Event::VmStart { thread: 3 },
                Event::Exception {
                    request: 5,
                    thread: 3,
                    location: location(1, 2),
                    exception: 99,
                    catch: None
                },
                Event::MethodExitWithReturnValue {
                    request: 6,
                    thread: 3,
                    location: location(1, 9),
                    value: Value::Int(42)
                },
                Event::VmDeath,
            ]
        );
    }

    #[test]
    fn field_access_and_modification_are_read_past_their_values() {
        let mut w = Writer::new(IdSizes::HOTSPOT);
        w.u8(2).i32(3);
        w.u8(20)
            .i32(7)
            .object_id(1)
            .location(&location(2, 3))
            .u8(1)
            .type_id(5)
            .field_id(8)
            .u8(b'L')
            .object_id(40);
        w.u8(21)
            .i32(9)
            .object_id(1)
            .location(&location(2, 6))
            .u8(1)
            .type_id(5)
            .field_id(8)
            .u8(b'L')
            .object_id(40)
            .tagged_value(&Value::Int(150));
        w.u8(99).i32(0);
        let bytes = w.into_bytes();
        let composite =
            read_composite(&mut Reader::new(&bytes, IdSizes::HOTSPOT)).expect("composite");
        assert_eq!(
            composite.events,
            vec![
                Event::Field {
                    request: 7,
                    thread: 1,
                    location: location(2, 3)
                },
                Event::Field {
                    request: 9,
                    thread: 1,
                    location: location(2, 6)
                },
                Event::VmDeath,
            ]
        );
    }

    #[test]
    fn an_unknown_kind_ends_the_reading() {
        let mut w = Writer::new(IdSizes::HOTSPOT);
        w.u8(0).i32(2).u8(43).i32(1).u64(0).u8(99).i32(0);
        let bytes = w.into_bytes();
        let composite =
            read_composite(&mut Reader::new(&bytes, IdSizes::HOTSPOT)).expect("composite");
        assert_eq!(composite.events, vec![Event::Other { kind: 43 }]);
    }
}
