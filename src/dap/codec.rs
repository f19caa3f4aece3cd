//! DAP's wire format: `Content-Length: N\r\n\r\n` followed by N bytes of JSON.
//!
//! The decoder is a pure, incremental state machine over a byte buffer: feed it whatever a read
//! returned, take out every whole message, keep the rest. That makes split messages and several
//! messages per read ordinary cases, and lets the tests drive it without any I/O. The header block
//! and the body are both bounded, so a hostile or broken adapter cannot make us allocate without
//! limit; any malformed header is an error (the session ends) rather than a resynchronisation
//! guess.

/// The largest message body accepted from an adapter: 64 MiB.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// The largest header block accepted (headers are a line or two in practice).
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("a DAP message header has no Content-Length")]
    MissingContentLength,
    #[error("a DAP message has an invalid Content-Length '{0}'")]
    InvalidContentLength(String),
    #[error("a DAP message of {0} bytes exceeds the {MAX_BODY_BYTES}-byte limit")]
    TooLarge(usize),
    #[error("a DAP message header is longer than {MAX_HEADER_BYTES} bytes (not a DAP stream?)")]
    HeaderTooLong,
    #[error("a DAP message header is not text")]
    HeaderNotText,
}

/// Incremental decoder of Content-Length framed messages.
///
/// Consumed bytes are skipped with a cursor and compacted away on the next `extend`, so a read
/// holding many messages costs one pass, not one copy of the remainder per message.
#[derive(Debug, Default)]
pub struct Decoder {
    buf: Vec<u8>,
    /// Where the unconsumed bytes of `buf` begin.
    pos: usize,
    /// The body length of the message whose header has been consumed, if any.
    pending_body: Option<usize>,
}

impl Decoder {
    pub fn new() -> Self {
        Decoder::default()
    }

    /// Appends bytes read from the adapter.
    pub fn extend(&mut self, bytes: &[u8]) {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Takes the next whole message body out of the buffer, if one is there.
    pub fn next_message(&mut self) -> Result<Option<Vec<u8>>, CodecError> {
        let body_len = match self.pending_body {
            Some(len) => len,
            None => {
                let unread = &self.buf[self.pos..];
                let Some(header_end) = find_header_end(unread) else {
                    if unread.len() > MAX_HEADER_BYTES {
                        return Err(CodecError::HeaderTooLong);
                    }
                    return Ok(None);
                };
                if header_end > MAX_HEADER_BYTES {
                    return Err(CodecError::HeaderTooLong);
                }
                let len = parse_content_length(&unread[..header_end])?;
                self.pos += header_end + 4;
                self.pending_body = Some(len);
                len
            }
        };
        let available = self.buf.len() - self.pos;
        if available < body_len {
            // Reserve once for the whole body so a large message is not regrown read by read.
            self.buf.reserve(body_len - available);
            return Ok(None);
        }
        self.pending_body = None;
        let body = self.buf[self.pos..self.pos + body_len].to_vec();
        self.pos += body_len;
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        }
        Ok(Some(body))
    }
}

fn find_header_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n")
}

fn parse_content_length(header: &[u8]) -> Result<usize, CodecError> {
    let text = std::str::from_utf8(header).map_err(|_| CodecError::HeaderNotText)?;
    let mut length = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let parsed: usize = value
                .parse()
                .map_err(|_| CodecError::InvalidContentLength(value.to_string()))?;
            if parsed > MAX_BODY_BYTES {
                return Err(CodecError::TooLarge(parsed));
            }
            length = Some(parsed);
        }
    }
    length.ok_or(CodecError::MissingContentLength)
}

/// Frames one message body for the wire.
pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(decoder: &mut Decoder) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while let Some(msg) = decoder.next_message().expect("decode") {
            out.push(msg);
        }
        out
    }

    #[test]
    fn one_message() {
        let mut d = Decoder::new();
        d.extend(&encode(b"{\"seq\":1}"));
        assert_eq!(all(&mut d), vec![b"{\"seq\":1}".to_vec()]);
    }

    #[test]
    fn split_across_reads_at_every_byte() {
        let wire = encode(b"{\"a\":\"hello\"}");
        for cut in 0..wire.len() {
            let mut d = Decoder::new();
            d.extend(&wire[..cut]);
            let mut got = all(&mut d);
            d.extend(&wire[cut..]);
            got.extend(all(&mut d));
            assert_eq!(got, vec![b"{\"a\":\"hello\"}".to_vec()], "cut at {cut}");
        }
    }

    #[test]
    fn several_messages_in_one_read() {
        let mut wire = encode(b"1");
        wire.extend(encode(b"22"));
        wire.extend(encode(b"333"));
        let mut d = Decoder::new();
        d.extend(&wire);
        assert_eq!(
            all(&mut d),
            vec![b"1".to_vec(), b"22".to_vec(), b"333".to_vec()]
        );
    }

    #[test]
    fn other_headers_and_case_are_accepted() {
        let mut d = Decoder::new();
        d.extend(b"Content-Type: application/json\r\ncontent-length: 2\r\n\r\n{}");
        assert_eq!(all(&mut d), vec![b"{}".to_vec()]);
    }

    #[test]
    fn missing_content_length() {
        let mut d = Decoder::new();
        d.extend(b"Content-Type: x\r\n\r\n{}");
        assert_eq!(d.next_message(), Err(CodecError::MissingContentLength));
    }

    #[test]
    fn non_numeric_content_length() {
        let mut d = Decoder::new();
        d.extend(b"Content-Length: twelve\r\n\r\n");
        assert_eq!(
            d.next_message(),
            Err(CodecError::InvalidContentLength("twelve".into()))
        );
        let mut d = Decoder::new();
        d.extend(b"Content-Length: -1\r\n\r\n");
        assert!(matches!(
            d.next_message(),
            Err(CodecError::InvalidContentLength(_))
        ));
    }

    #[test]
    fn oversized_message_is_refused_before_allocation() {
        let mut d = Decoder::new();
        d.extend(b"Content-Length: 4294967296\r\n\r\n");
        assert_eq!(d.next_message(), Err(CodecError::TooLarge(4_294_967_296)));
    }

    #[test]
    fn endless_header_is_refused() {
        let mut d = Decoder::new();
        d.extend(&vec![b'x'; MAX_HEADER_BYTES + 1]);
        assert_eq!(d.next_message(), Err(CodecError::HeaderTooLong));
    }
}
