//! Whole DAP messages from a stream: the [`Decoder`] fed by reads, for every place that reads
//! framed messages (the session's client, the Delve relay, the node adapter's server).

use tokio::io::{AsyncRead, AsyncReadExt};

use super::codec::{CodecError, Decoder};

/// Why no more messages can be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(std::io::Error),
    #[error(transparent)]
    Codec(CodecError),
}

/// Reads framed message bodies one at a time.
pub struct MessageReader<R> {
    reader: R,
    decoder: Decoder,
    chunk: Vec<u8>,
}

impl<R: AsyncRead + Unpin> MessageReader<R> {
    pub fn new(reader: R) -> Self {
        MessageReader {
            reader,
            decoder: Decoder::new(),
            chunk: vec![0u8; 64 * 1024],
        }
    }

    /// The next message body, `Ok(None)` at the end of the stream.
    ///
    /// Cancel-safe: what was read stays in the decoder, so it can race a timeout.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, ReadError> {
        loop {
            if let Some(body) = self.decoder.next_message().map_err(ReadError::Codec)? {
                return Ok(Some(body));
            }
            let read = self
                .reader
                .read(&mut self.chunk)
                .await
                .map_err(ReadError::Io)?;
            if read == 0 {
                return Ok(None);
            }
            self.decoder.extend(&self.chunk[..read]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::codec::encode;

    #[tokio::test]
    async fn messages_come_whole_across_reads_and_the_end_is_none() {
        let mut bytes = encode(b"{\"a\":1}");
        bytes.extend(encode(b"{\"b\":2}"));
        let mut reader = MessageReader::new(&bytes[..]);
        assert_eq!(
            reader.next().await.ok().flatten(),
            Some(b"{\"a\":1}".to_vec())
        );
        assert_eq!(
            reader.next().await.ok().flatten(),
            Some(b"{\"b\":2}".to_vec())
        );
        assert!(matches!(reader.next().await, Ok(None)));
        let mut broken = MessageReader::new(&b"Content-Length: x\r\n\r\n"[..]);
        assert!(matches!(broken.next().await, Err(ReadError::Codec(_))));
    }
}
