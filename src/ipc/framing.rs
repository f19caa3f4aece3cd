//! Frames on the CLI–daemon socket: a u32 little-endian byte length, then that many bytes of JSON.
//!
//! The length is checked against [`MAX_FRAME_BYTES`] before anything is allocated, so a garbled or
//! hostile prefix costs nothing. Both a blocking flavour (the CLI, which has no async runtime) and
//! an async one (the daemon) are here, sharing the same checks.

use std::io::{self, Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest frame either side accepts: 16 MiB. Program output larger than a frame is paged.
pub const MAX_FRAME_BYTES: u32 = 16 * 1024 * 1024;

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the peer closed the connection")]
    Closed,
    #[error("the peer sent a frame of {0} bytes, more than the {MAX_FRAME_BYTES}-byte limit")]
    TooLarge(u32),
    /// A message of ours too large to send: said as its own size, not as the peer's fault.
    #[error("a message of {0} bytes is more than the {MAX_FRAME_BYTES} bytes a frame carries")]
    Unsendable(usize),
    #[error("malformed message: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Io(#[from] io::Error),
}

fn check_len(len: u32) -> Result<usize, FrameError> {
    if len > MAX_FRAME_BYTES {
        Err(FrameError::TooLarge(len))
    } else {
        Ok(len as usize)
    }
}

fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, FrameError> {
    let mut buf = vec![0u8; 4];
    serde_json::to_writer(&mut buf, message)?;
    let body = buf.len() - 4;
    let len = u32::try_from(body)
        .ok()
        .filter(|len| *len <= MAX_FRAME_BYTES)
        .ok_or(FrameError::Unsendable(body))?;
    buf[..4].copy_from_slice(&len.to_le_bytes());
    Ok(buf)
}

fn closed_on_eof(e: io::Error) -> FrameError {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        FrameError::Closed
    } else {
        FrameError::Io(e)
    }
}

/// Writes one frame (blocking).
pub fn write_frame<T: Serialize>(writer: &mut impl Write, message: &T) -> Result<(), FrameError> {
    writer.write_all(&encode(message)?)?;
    writer.flush()?;
    Ok(())
}

/// Reads one frame (blocking).
pub fn read_frame<T: DeserializeOwned>(reader: &mut impl Read) -> Result<T, FrameError> {
    let mut prefix = [0u8; 4];
    reader.read_exact(&mut prefix).map_err(closed_on_eof)?;
    let len = check_len(u32::from_le_bytes(prefix))?;
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).map_err(closed_on_eof)?;
    Ok(serde_json::from_slice(&body)?)
}

/// Writes one frame.
pub async fn write_frame_async<T: Serialize>(
    writer: &mut (impl AsyncWrite + Unpin),
    message: &T,
) -> Result<(), FrameError> {
    writer.write_all(&encode(message)?).await?;
    writer.flush().await?;
    Ok(())
}

/// Reads one frame's bytes; the caller decodes them, so a bad body can still be answered.
pub async fn read_frame_bytes_async(
    reader: &mut (impl AsyncRead + Unpin),
) -> Result<Vec<u8>, FrameError> {
    let mut prefix = [0u8; 4];
    reader
        .read_exact(&mut prefix)
        .await
        .map_err(closed_on_eof)?;
    let len = check_len(u32::from_le_bytes(prefix))?;
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).await.map_err(closed_on_eof)?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn round_trip() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &json!({"a": 1})).expect("write");
        write_frame(&mut buf, &json!("two")).expect("write");
        assert_eq!(&buf[..4], &7u32.to_le_bytes());
        let mut reader = io::Cursor::new(buf);
        assert_eq!(
            read_frame::<Value>(&mut reader).expect("first"),
            json!({"a": 1})
        );
        assert_eq!(
            read_frame::<Value>(&mut reader).expect("second"),
            json!("two")
        );
        assert!(matches!(
            read_frame::<Value>(&mut reader),
            Err(FrameError::Closed)
        ));
    }

    #[test]
    fn oversized_prefix_is_refused_without_allocating() {
        let mut reader = io::Cursor::new(u32::MAX.to_le_bytes().to_vec());
        assert!(matches!(
            read_frame::<Value>(&mut reader),
            Err(FrameError::TooLarge(u32::MAX))
        ));
    }

    #[test]
    fn truncated_body_is_closed() {
        let mut bytes = 10u32.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"{\"a\"");
        let mut reader = io::Cursor::new(bytes);
        assert!(matches!(
            read_frame::<Value>(&mut reader),
            Err(FrameError::Closed)
        ));
    }

    #[test]
    fn invalid_json_is_an_error() {
        let mut bytes = 3u32.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"{{{");
        let mut reader = io::Cursor::new(bytes);
        assert!(matches!(
            read_frame::<Value>(&mut reader),
            Err(FrameError::Json(_))
        ));
    }

    #[tokio::test]
    async fn async_read_split_across_writes() {
        let (mut client, mut server) = tokio::io::duplex(4);
        let writer = tokio::spawn(async move {
            write_frame_async(&mut client, &json!({"hello": "world"}))
                .await
                .expect("write");
        });
        let bytes = read_frame_bytes_async(&mut server).await.expect("read");
        writer.await.expect("join");
        assert_eq!(
            serde_json::from_slice::<Value>(&bytes).expect("json"),
            json!({"hello": "world"})
        );
    }
}
