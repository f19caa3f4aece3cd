//! Property tests for the two decoders that read bytes from someone else: the IPC frame reader
//! (any local process that reaches the socket) and the DAP codec (any adapter).
//!
//! For both: any byte stream, split into reads of any sizes, yields messages or an error, never a
//! panic, a hang or an allocation past the documented caps; and every valid encoding round-trips.

use std::io::{self, Read};

use debugger::dap::codec::{self, CodecError, Decoder, MAX_BODY_BYTES, MAX_HEADER_BYTES};
use debugger::ipc::framing::{
    FrameError, MAX_FRAME_BYTES, read_frame, read_frame_bytes_async, write_frame,
};
use proptest::prelude::*;
use serde_json::Value;

// ---- helpers ----------------------------------------------------------------------------------

/// A reader that hands out its bytes in the given read sizes (cycled), like a socket would.
struct Chunked {
    bytes: Vec<u8>,
    pos: usize,
    sizes: Vec<usize>,
    next_size: usize,
}

impl Chunked {
    fn new(bytes: Vec<u8>, sizes: Vec<usize>) -> Chunked {
        let sizes = if sizes.is_empty() { vec![1] } else { sizes };
        Chunked {
            bytes,
            pos: 0,
            sizes,
            next_size: 0,
        }
    }

    fn consumed(&self) -> usize {
        self.pos
    }
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.next_size % self.sizes.len()].max(1);
        self.next_size += 1;
        let n = size.min(buf.len()).min(self.bytes.len() - self.pos);
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl tokio::io::AsyncRead for Chunked {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let this = self.get_mut();
        let mut scratch = vec![0u8; buf.remaining()];
        let n = Read::read(this, &mut scratch)?;
        buf.put_slice(&scratch[..n]);
        std::task::Poll::Ready(Ok(()))
    }
}

/// `cases` cases, and no regression files written into the source tree.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
}

/// Read sizes for a chunked reader: mostly tiny, sometimes large.
fn read_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![1usize..8, 1usize..4096], 1..16)
}

/// Arbitrary JSON values, nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Short binary fractions: serde_json (without its float_roundtrip feature) parses long
        // decimals to a neighbouring float, which is not the framing's concern.
        (any::<i16>(), 0u32..8).prop_map(|(m, e)| Value::from(f64::from(m) / f64::from(1u32 << e))),
        ".*".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(".*", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Bytes that look like a DAP stream often enough to reach every branch of the header parser:
/// pieces of real headers, odd lengths, separators and noise, glued together.
fn dap_like_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"Content-Length: ".to_vec()),
        Just(b"content-length:".to_vec()),
        Just(b"Content-Type: application/json".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r\n\r\n".to_vec()),
        Just(b":".to_vec()),
        Just(b"{}".to_vec()),
        (0u64..64).prop_map(|n| n.to_string().into_bytes()),
        any::<u64>().prop_map(|n| n.to_string().into_bytes()),
        Just(b"99999999999999999999999999".to_vec()),
        Just(b"-1".to_vec()),
        Just(b"67108865".to_vec()),
        prop::collection::vec(any::<u8>(), 0..32),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// Feeds `bytes` to a fresh decoder in pieces cut at `cuts`, draining after every piece. Returns
/// the messages taken and the first error, checking on the way that the loop cannot spin: every
/// message consumes at least the four bytes of its header terminator.
fn decode_split(bytes: &[u8], cuts: &[usize]) -> (Vec<Vec<u8>>, Option<CodecError>) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    points.dedup();
    let mut decoder = Decoder::new();
    let mut messages = Vec::new();
    let limit = bytes.len() / 4 + 1;
    for window in points.windows(2) {
        decoder.extend(&bytes[window[0]..window[1]]);
        loop {
            match decoder.next_message() {
                Ok(Some(message)) => {
                    messages.push(message);
                    assert!(
                        messages.len() <= limit,
                        "{} messages out of {} bytes: the decoder is spinning",
                        messages.len(),
                        bytes.len()
                    );
                }
                Ok(None) => break,
                Err(e) => return (messages, Some(e)),
            }
        }
    }
    (messages, None)
}

/// Reads frames until the first error, checking that every frame consumed at least its prefix.
fn read_all_frames(bytes: Vec<u8>, sizes: Vec<usize>) -> (Vec<Value>, FrameError, usize) {
    let total = bytes.len();
    let mut reader = Chunked::new(bytes, sizes);
    let mut frames = Vec::new();
    loop {
        let before = reader.consumed();
        match read_frame::<Value>(&mut reader) {
            Ok(value) => {
                assert!(reader.consumed() >= before + 4, "a frame consumed nothing");
                frames.push(value);
            }
            Err(e) => {
                assert!(reader.consumed() <= total);
                return (frames, e, reader.consumed());
            }
        }
    }
}

// ---- IPC frames -------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    /// Any bytes: frames or an error, never a panic or a hang.
    #[test]
    fn ipc_any_bytes_yield_frames_or_an_error(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        sizes in read_sizes(),
    ) {
        let (_, error, _) = read_all_frames(bytes, sizes);
        // Every stream ends: in a clean close, a truncated frame, a bad body or an oversize prefix.
        prop_assert!(matches!(
            error,
            FrameError::Closed | FrameError::Json(_) | FrameError::TooLarge(_)
        ), "{error:?}");
    }

    /// Small length prefixes with random bodies, the shape a confused client sends.
    #[test]
    fn ipc_small_prefixes_with_random_bodies(
        frames in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..8),
        slack in -3i64..3,
        sizes in read_sizes(),
    ) {
        let mut bytes = Vec::new();
        for body in &frames {
            let len = (body.len() as i64 + slack).max(0) as u32;
            bytes.extend_from_slice(&len.to_le_bytes());
            bytes.extend_from_slice(body);
        }
        let (values, _, _) = read_all_frames(bytes, sizes);
        prop_assert!(values.len() <= frames.len());
    }

    /// A prefix above the cap is refused after reading the four prefix bytes: nothing of the
    /// announced body is read or allocated.
    #[test]
    fn ipc_oversized_prefix_is_refused_before_the_body(
        len in (MAX_FRAME_BYTES + 1)..=u32::MAX,
        tail in prop::collection::vec(any::<u8>(), 0..64),
        sizes in read_sizes(),
    ) {
        let mut bytes = len.to_le_bytes().to_vec();
        bytes.extend_from_slice(&tail);
        let mut reader = Chunked::new(bytes, sizes);
        let result = read_frame::<Value>(&mut reader);
        prop_assert!(matches!(result, Err(FrameError::TooLarge(n)) if n == len), "{result:?}");
        prop_assert_eq!(reader.consumed(), 4);
    }

    /// Valid frames round-trip, however the stream is split into reads.
    #[test]
    fn ipc_valid_frames_round_trip(
        values in prop::collection::vec(json_value(), 0..8),
        sizes in read_sizes(),
    ) {
        let mut bytes = Vec::new();
        for value in &values {
            write_frame(&mut bytes, value).expect("encode");
        }
        let (decoded, error, consumed) = read_all_frames(bytes.clone(), sizes);
        prop_assert_eq!(&decoded, &values);
        prop_assert!(matches!(error, FrameError::Closed), "{error:?}");
        prop_assert_eq!(consumed, bytes.len());
    }

    /// The daemon's async reader: any bytes, split any way, give frames or an error.
    #[test]
    fn ipc_async_reader_never_panics_or_hangs(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        sizes in read_sizes(),
    ) {
        let total = bytes.len();
        let mut reader = Chunked::new(bytes, sizes);
        runtime().block_on(async {
            loop {
                let before = reader.consumed();
                match read_frame_bytes_async(&mut reader).await {
                    Ok(body) => {
                        assert!(body.len() <= MAX_FRAME_BYTES as usize);
                        assert_eq!(reader.consumed(), before + 4 + body.len());
                    }
                    Err(FrameError::TooLarge(n)) => {
                        assert!(n > MAX_FRAME_BYTES);
                        assert_eq!(reader.consumed(), before + 4);
                        break;
                    }
                    Err(FrameError::Closed) => break,
                    Err(other) => panic!("unexpected error {other:?}"),
                }
            }
        });
        prop_assert!(reader.consumed() <= total);
    }

    /// The async reader returns exactly the bodies the blocking writer framed.
    #[test]
    fn ipc_async_reader_round_trips(
        values in prop::collection::vec(json_value(), 0..8),
        sizes in read_sizes(),
    ) {
        let mut bytes = Vec::new();
        for value in &values {
            write_frame(&mut bytes, value).expect("encode");
        }
        let mut reader = Chunked::new(bytes, sizes);
        let decoded = runtime().block_on(async {
            let mut out = Vec::new();
            loop {
                match read_frame_bytes_async(&mut reader).await {
                    Ok(body) => out.push(serde_json::from_slice::<Value>(&body).expect("json")),
                    Err(FrameError::Closed) => return out,
                    Err(other) => panic!("unexpected error {other:?}"),
                }
            }
        });
        prop_assert_eq!(decoded, values);
    }
}

// ---- DAP codec --------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    /// Random bytes, split anywhere: messages or an error, never a panic or a spin.
    #[test]
    fn dap_any_bytes_yield_messages_or_an_error(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let (messages, _) = decode_split(&bytes, &cuts);
        for message in &messages {
            prop_assert!(message.len() <= MAX_BODY_BYTES);
        }
    }

    /// Header-shaped noise reaches the parser's branches; same guarantees.
    #[test]
    fn dap_header_like_bytes_yield_messages_or_an_error(
        bytes in dap_like_bytes(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let (messages, error) = decode_split(&bytes, &cuts);
        prop_assert!(messages.iter().map(Vec::len).sum::<usize>() <= bytes.len());
        if let Some(CodecError::TooLarge(n)) = error {
            prop_assert!(n > MAX_BODY_BYTES);
        }
    }

    /// The result does not depend on how the stream was split into reads.
    #[test]
    fn dap_decoding_is_independent_of_splitting(
        bytes in dap_like_bytes(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let whole = decode_split(&bytes, &[]);
        let split = decode_split(&bytes, &cuts);
        prop_assert_eq!(whole, split);
    }

    /// Valid messages round-trip, split anywhere, with or without extra headers.
    #[test]
    fn dap_valid_messages_round_trip(
        bodies in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..512), 0..12),
        extra_header in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let mut wire = Vec::new();
        for body in &bodies {
            if extra_header {
                wire.extend_from_slice(b"Content-Type: application/vscode-jsonrpc\r\n");
                wire.extend_from_slice(format!("content-length:{}\r\n\r\n", body.len()).as_bytes());
                wire.extend_from_slice(body);
            } else {
                wire.extend_from_slice(&codec::encode(body));
            }
        }
        let (messages, error) = decode_split(&wire, &cuts);
        prop_assert_eq!(error, None);
        prop_assert_eq!(messages, bodies);
    }

    /// An announced body over the cap is refused as soon as its header is complete.
    #[test]
    fn dap_oversized_length_is_refused(
        len in (MAX_BODY_BYTES as u64 + 1)..=u64::MAX,
        cuts in prop::collection::vec(any::<usize>(), 0..4),
    ) {
        let wire = format!("Content-Length: {len}\r\n\r\n{{").into_bytes();
        let (messages, error) = decode_split(&wire, &cuts);
        prop_assert!(messages.is_empty());
        prop_assert!(
            matches!(error, Some(CodecError::TooLarge(_)) | Some(CodecError::InvalidContentLength(_))),
            "{error:?}"
        );
    }

    /// A header that never ends is refused once it passes the header cap, whatever arrives.
    #[test]
    fn dap_endless_header_is_refused(
        filler in prop::collection::vec(any::<u8>().prop_filter("no CR", |b| *b != b'\r'), 1..64),
        chunk in 1usize..2048,
    ) {
        let mut decoder = Decoder::new();
        let mut fed = 0usize;
        let piece: Vec<u8> = filler.iter().copied().cycle().take(chunk).collect();
        let refused = loop {
            decoder.extend(&piece);
            fed += piece.len();
            match decoder.next_message() {
                Ok(None) => prop_assert!(fed <= MAX_HEADER_BYTES, "{fed} header bytes held"),
                Ok(Some(_)) => prop_assert!(false, "a message out of a header without an end"),
                Err(e) => break e,
            }
        };
        prop_assert_eq!(refused, CodecError::HeaderTooLong);
    }
}
