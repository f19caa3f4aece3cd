//! One JDWP connection: the handshake, then a task that reads packets and hands each reply to
//! the command that waits for it (matched by id) and each event packet to the event stream.
//! Commands may be sent from any task; each waits for its own reply.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::events::{Composite, read_composite};
use super::wire::{
    HANDSHAKE, HEADER_LEN, IdSizes, Packet, Reader, WireError, Writer, command_packet,
    read_id_sizes,
};

/// An event composite's first byte when the event suspended every thread.
const SUSPEND_ALL: u8 = 2;

/// The command set and command of an event packet (`Event.Composite`).
const EVENT_SET: u8 = 64;
const COMPOSITE: u8 = 100;

/// Why a command got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JdwpError {
    /// The JVM answered with this error code.
    Jvm(u16),
    /// The answer could not be read.
    Wire(WireError),
    /// The connection is closed (the JVM ended, or was left).
    Closed,
}

impl JdwpError {
    /// JDWP's name for the JVM's error code (`INVALID_SLOT`).
    pub fn name(code: u16) -> &'static str {
        match code {
            10 => "INVALID_THREAD",
            13 => "THREAD_NOT_SUSPENDED",
            15 => "THREAD_NOT_ALIVE",
            20 => "INVALID_OBJECT",
            21 => "INVALID_CLASS",
            22 => "CLASS_NOT_PREPARED",
            23 => "INVALID_METHODID",
            24 => "INVALID_LOCATION",
            25 => "INVALID_FIELDID",
            30 => "INVALID_FRAMEID",
            31 => "NO_MORE_FRAMES",
            32 => "OPAQUE_FRAME",
            34 => "TYPE_MISMATCH",
            35 => "INVALID_SLOT",
            41 => "NOT_FOUND",
            99 => "NOT_IMPLEMENTED",
            100 => "NULL_POINTER",
            101 => "ABSENT_INFORMATION",
            102 => "INVALID_EVENT_TYPE",
            103 => "ILLEGAL_ARGUMENT",
            112 => "VM_DEAD",
            113 => "INTERNAL",
            502 => "ALREADY_INVOKING",
            503 => "INVALID_INDEX",
            504 => "INVALID_LENGTH",
            506 => "INVALID_STRING",
            511 => "NATIVE_METHOD",
            _ => "an error",
        }
    }

    /// Whether the JVM said it has no such information (a class compiled without `-g`).
    pub fn is_absent_information(&self) -> bool {
        matches!(self, JdwpError::Jvm(101))
    }
}

impl fmt::Display for JdwpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JdwpError::Jvm(code) => write!(f, "the JVM refused: {} ({code})", Self::name(*code)),
            JdwpError::Wire(e) => write!(f, "{e}"),
            JdwpError::Closed => f.write_str("the connection to the JVM is closed"),
        }
    }
}

impl From<WireError> for JdwpError {
    fn from(e: WireError) -> JdwpError {
        JdwpError::Wire(e)
    }
}

type Waiting = Arc<Mutex<Option<HashMap<u32, oneshot::Sender<(u16, Vec<u8>)>>>>>;

type BoxWrite = Box<dyn AsyncWrite + Send + Unpin>;

/// The sending side of a connection, cheap to clone.
#[derive(Clone)]
pub struct Connection {
    writer: Arc<tokio::sync::Mutex<BoxWrite>>,
    waiting: Waiting,
    next_id: Arc<AtomicU32>,
    sizes: Arc<OnceLock<IdSizes>>,
    /// Methods being invoked in the program (by `print`, a condition) now.
    invoking: Arc<AtomicUsize>,
}

/// An event packet as it came.
pub struct EventPacket {
    pub data: Vec<u8>,
    /// It came while a method was being invoked in the program, and it suspended every thread,
    /// which the connection resumed at once so the invocation could finish: the event is
    /// neither a stop nor the program's to resume again (JDI's invokeMethod leaves it the same).
    pub during_invocation: bool,
}

/// Marks a method invocation in flight, for as long as it lives (a timed-out one too).
pub struct Invoking(Arc<AtomicUsize>);

impl Drop for Invoking {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The event packets' data, in order, until the connection closes.
pub struct EventPackets {
    packets: mpsc::UnboundedReceiver<EventPacket>,
}

impl EventPackets {
    /// The next event packet; `None` once the connection is closed.
    pub async fn next(&mut self) -> Option<EventPacket> {
        self.packets.recv().await
    }
}

/// JDWP's handshake: we speak first, the JVM echoes.
pub async fn shake_hands<S>(stream: &mut S) -> Result<(), JdwpError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    stream
        .write_all(HANDSHAKE)
        .await
        .map_err(|_| JdwpError::Closed)?;
    let mut echo = [0u8; HANDSHAKE.len()];
    stream
        .read_exact(&mut echo)
        .await
        .map_err(|_| JdwpError::Closed)?;
    if &echo != HANDSHAKE {
        return Err(JdwpError::Wire(WireError::BadLength(0)));
    }
    Ok(())
}

impl Connection {
    /// Shakes hands over `stream` (we speak first, the JVM echoes), starts reading, and asks
    /// the JVM's ID sizes.
    pub async fn open<S>(mut stream: S) -> Result<(Connection, EventPackets), JdwpError>
    where
        S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        shake_hands(&mut stream).await?;
        Connection::shaken(stream).await
    }

    /// Starts reading over `stream`, whose handshake is done, and asks the JVM's ID sizes.
    pub async fn shaken<S>(stream: S) -> Result<(Connection, EventPackets), JdwpError>
    where
        S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let (reader, writer) = tokio::io::split(stream);
        let waiting: Waiting = Arc::new(Mutex::new(Some(HashMap::new())));
        let (events_tx, events) = mpsc::unbounded_channel();
        let connection = Connection {
            writer: Arc::new(tokio::sync::Mutex::new(Box::new(writer))),
            waiting,
            next_id: Arc::new(AtomicU32::new(1)),
            sizes: Arc::new(OnceLock::new()),
            invoking: Arc::new(AtomicUsize::new(0)),
        };
        tokio::spawn(read_packets(reader, connection.clone(), events_tx));
        let sizes = connection.command_raw(1, 7, Vec::new()).await?;
        let _ = connection.sizes.set(read_id_sizes(&sizes)?);
        Ok((connection, EventPackets { packets: events }))
    }

    /// The JVM's ID sizes.
    pub fn sizes(&self) -> IdSizes {
        self.sizes.get().copied().unwrap_or(IdSizes::HOTSPOT)
    }

    /// A writer for a command's data, with the JVM's ID sizes.
    pub fn writer(&self) -> Writer {
        Writer::new(self.sizes())
    }

    /// Reads an event packet's data.
    pub fn read_events(&self, data: &[u8]) -> Result<Composite, JdwpError> {
        Ok(read_composite(&mut Reader::new(data, self.sizes()))?)
    }

    /// Sends command `(set, command)` with `data` and returns the reply's data.
    pub async fn command_raw(
        &self,
        set: u8,
        command: u8,
        data: Vec<u8>,
    ) -> Result<Vec<u8>, JdwpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        match self.waiting.lock() {
            Ok(mut waiting) => match waiting.as_mut() {
                Some(waiting) => {
                    waiting.insert(id, tx);
                }
                None => return Err(JdwpError::Closed),
            },
            Err(_) => return Err(JdwpError::Closed),
        }
        let packet = command_packet(id, set, command, &data);
        {
            let mut writer = self.writer.lock().await;
            if writer.write_all(&packet).await.is_err() || writer.flush().await.is_err() {
                return Err(JdwpError::Closed);
            }
        }
        match rx.await {
            Ok((0, data)) => Ok(data),
            Ok((error, _)) => Err(JdwpError::Jvm(error)),
            Err(_) => Err(JdwpError::Closed),
        }
    }

    /// Sends a command and reads its reply with `read`.
    pub async fn command<T>(
        &self,
        set: u8,
        command: u8,
        data: Writer,
        read: impl FnOnce(&mut Reader<'_>) -> Result<T, WireError>,
    ) -> Result<T, JdwpError> {
        let reply = self.command_raw(set, command, data.into_bytes()).await?;
        Ok(read(&mut Reader::new(&reply, self.sizes()))?)
    }

    /// Marks a method invocation in flight until the mark is dropped: an event that suspends
    /// every thread meanwhile is resumed at once (see [`EventPacket::during_invocation`]).
    pub fn invoking(&self) -> Invoking {
        self.invoking.fetch_add(1, Ordering::SeqCst);
        Invoking(self.invoking.clone())
    }

    /// Sends `VirtualMachine.Resume` without waiting for its reply, from the reading task
    /// itself (which is what reads replies).
    async fn resume_unanswered(&self) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let packet = command_packet(id, 1, 9, &[]);
        let mut writer = self.writer.lock().await;
        if writer.write_all(&packet).await.is_err() || writer.flush().await.is_err() {
            tracing::warn!("JDWP: an event during an invocation could not be resumed");
        }
    }

    /// Closes the connection's sending side: the JVM takes it as the debugger leaving.
    pub async fn close(&self) {
        let _ = self.writer.lock().await.shutdown().await;
    }
}

async fn read_packets(
    mut reader: impl AsyncRead + Unpin,
    connection: Connection,
    events: mpsc::UnboundedSender<EventPacket>,
) {
    let waiting = connection.waiting.clone();
    loop {
        let mut header = [0u8; HEADER_LEN];
        if reader.read_exact(&mut header).await.is_err() {
            break;
        }
        let Ok(length) = Packet::announced_length(&header) else {
            tracing::warn!("JDWP: a packet with a bad length; the connection is dropped");
            break;
        };
        let mut data = vec![0u8; length - HEADER_LEN];
        if reader.read_exact(&mut data).await.is_err() {
            break;
        }
        match Packet::parse(&header, data) {
            Packet::Reply { id, error, data } => {
                let waiter = waiting
                    .lock()
                    .ok()
                    .and_then(|mut w| w.as_mut().and_then(|w| w.remove(&id)));
                if let Some(waiter) = waiter {
                    let _ = waiter.send((error, data));
                }
            }
            Packet::Command {
                command_set: EVENT_SET,
                command: COMPOSITE,
                data,
                ..
            } => {
                let during_invocation = connection.invoking.load(Ordering::SeqCst) > 0
                    && data.first() == Some(&SUSPEND_ALL);
                if during_invocation {
                    connection.resume_unanswered().await;
                }
                let _ = events.send(EventPacket {
                    data,
                    during_invocation,
                });
            }
            Packet::Command { .. } => {}
        }
    }
    // Every command still waiting, and every later one, learns the connection is gone.
    if let Ok(mut waiting) = waiting.lock() {
        *waiting = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JVM's side of the handshake and of `IDSizes`, then one event and a reply.
    #[tokio::test]
    async fn replies_find_their_command_and_events_come_in_order() {
        let (ours, mut jvm) = tokio::io::duplex(4096);
        let fake = tokio::spawn(async move {
            let mut hello = [0u8; 14];
            jvm.read_exact(&mut hello).await.expect("handshake");
            assert_eq!(&hello, HANDSHAKE);
            jvm.write_all(HANDSHAKE).await.expect("echo");
            let mut header = [0u8; HEADER_LEN];
            jvm.read_exact(&mut header).await.expect("IDSizes");
            assert_eq!(&header[9..], &[1, 7]);
            let mut reply = vec![0, 0, 0, 31];
            reply.extend_from_slice(&header[4..8]);
            reply.extend_from_slice(&[0x80, 0, 0]);
            for _ in 0..5 {
                reply.extend_from_slice(&4i32.to_be_bytes());
            }
            // An event first: VM start on thread 7 (IDs of 4 bytes).
            let event = [
                0, 0, 0, 25, 0, 0, 0, 1, 0, 64, 100, 2, 0, 0, 0, 1, 90, 0, 0, 0, 0,
            ];
            let mut event = event.to_vec();
            event.extend_from_slice(&7u32.to_be_bytes());
            event.push(0);
            jvm.write_all(&reply).await.expect("reply");
            jvm.write_all(&event[..25]).await.expect("event");
            // A command's reply with an error.
            jvm.read_exact(&mut header).await.expect("command");
            let mut refused = vec![0, 0, 0, 11];
            refused.extend_from_slice(&header[4..8]);
            refused.extend_from_slice(&[0x80, 0, 101]);
            jvm.write_all(&refused).await.expect("refusal");
            jvm
        });
        let (connection, mut events) = Connection::open(ours).await.expect("open");
        assert_eq!(connection.sizes().object, 4);
        let packet = events.next().await.expect("an event");
        let composite = connection.read_events(&packet.data).expect("read");
        assert_eq!(
            composite.events,
            vec![super::super::events::Event::VmStart { thread: 7 }]
        );
        let refused = connection.command_raw(6, 2, Vec::new()).await;
        assert_eq!(refused, Err(JdwpError::Jvm(101)));
        assert!(refused.is_err_and(|e| e.is_absent_information()));
        drop(fake.await.expect("fake JVM"));
        assert_eq!(
            connection.command_raw(1, 1, Vec::new()).await,
            Err(JdwpError::Closed)
        );
    }

    /// Commands sent together are all in flight at once, and each gets its own reply however
    /// the JVM orders them.
    #[tokio::test]
    async fn commands_in_flight_together_get_their_own_replies() {
        let (ours, mut jvm) = tokio::io::duplex(4096);
        let fake = tokio::spawn(async move {
            let mut hello = [0u8; 14];
            jvm.read_exact(&mut hello).await.expect("handshake");
            jvm.write_all(HANDSHAKE).await.expect("echo");
            let mut header = [0u8; HEADER_LEN];
            jvm.read_exact(&mut header).await.expect("IDSizes");
            let mut reply = vec![0, 0, 0, 31];
            reply.extend_from_slice(&header[4..8]);
            reply.extend_from_slice(&[0x80, 0, 0]);
            for _ in 0..5 {
                reply.extend_from_slice(&4i32.to_be_bytes());
            }
            jvm.write_all(&reply).await.expect("reply");
            // Three commands read before any is answered; answered last first, each reply
            // carrying its command's own command byte.
            let mut asked = Vec::new();
            for _ in 0..3 {
                jvm.read_exact(&mut header).await.expect("command");
                asked.push(header);
            }
            for header in asked.iter().rev() {
                let mut reply = vec![0, 0, 0, 12];
                reply.extend_from_slice(&header[4..8]);
                reply.extend_from_slice(&[0x80, 0, 0, header[10]]);
                jvm.write_all(&reply).await.expect("reply");
            }
            jvm
        });
        let (connection, _events) = Connection::open(ours).await.expect("open");
        let replies = futures_util::future::try_join_all(
            [1u8, 2, 3].map(|command| connection.command_raw(9, command, Vec::new())),
        )
        .await;
        assert_eq!(replies, Ok(vec![vec![1], vec![2], vec![3]]));
        drop(fake.await.expect("fake JVM"));
    }
}
