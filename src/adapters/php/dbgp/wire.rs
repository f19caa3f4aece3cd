//! DBGp's framing. Xdebug sends `LENGTH NUL XML NUL`; we send one command a line ended by NUL:
//! `name -i TID -x value ... -- BASE64DATA`. Files are named by `file://` URIs.

use std::path::{Path, PathBuf};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};

/// Xdebug's packets are small; one larger than this is no DBGp packet.
const LARGEST_PACKET: usize = 256 * 1024 * 1024;

/// Reads one packet's XML; `None` at the end of the stream.
pub async fn read_packet<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> std::io::Result<Option<String>> {
    let mut length = Vec::new();
    if reader.read_until(0, &mut length).await? == 0 {
        return Ok(None);
    }
    if length.pop() != Some(0) {
        return Ok(None);
    }
    let length: usize = std::str::from_utf8(&length)
        .ok()
        .and_then(|l| l.trim().parse().ok())
        .filter(|&l| l <= LARGEST_PACKET)
        .ok_or_else(|| std::io::Error::other("a DBGp packet without its length"))?;
    let mut body = vec![0u8; length + 1];
    reader.read_exact(&mut body).await?;
    body.pop();
    Ok(Some(String::from_utf8_lossy(&body).into_owned()))
}

/// One command's bytes: its name, transaction id, arguments (quoted where they need it) and
/// data, base64-encoded.
pub fn command(
    name: &str,
    transaction: u32,
    args: &[(&str, String)],
    data: Option<&str>,
) -> Vec<u8> {
    let mut line = format!("{name} -i {transaction}");
    for (flag, value) in args {
        line.push_str(&format!(" -{flag} {}", quoted(value)));
    }
    if let Some(data) = data {
        line.push_str(" -- ");
        line.push_str(&base64_simd::STANDARD.encode_to_string(data.as_bytes()));
    }
    let mut bytes = line.into_bytes();
    bytes.push(0);
    bytes
}

/// An argument as DBGp reads it: in double quotes, with `"` and `\` escaped, when it holds a
/// space, a quote or nothing.
fn quoted(value: &str) -> String {
    if !value.is_empty() && !value.contains([' ', '"', '\\', '\t']) {
        return value.to_string();
    }
    let mut quoted = String::from("\"");
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// A file's URI as Xdebug names it: `file://` and the absolute path, percent-encoded.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-_.~:+@,=".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The path a `file://` URI names; `None` for other URIs (`dbgp://` for code run by `eval`).
pub fn uri_path(uri: &str) -> Option<PathBuf> {
    let encoded = uri.strip_prefix("file://")?;
    let mut bytes = Vec::with_capacity(encoded.len());
    let mut rest = encoded.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%'
            && let Some(hex) = tail.get(..2)
            && let Some(decoded) = std::str::from_utf8(hex)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            bytes.push(decoded);
            rest = &tail[2..];
            continue;
        }
        bytes.push(byte);
        rest = tail;
    }
    Some(PathBuf::from(String::from_utf8_lossy(&bytes).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_quote_what_needs_it_and_encode_their_data() {
        let bytes = command("eval", 4, &[("n", "$a b".into())], Some("1+1"));
        assert_eq!(bytes, b"eval -i 4 -n \"$a b\" -- MSsx\0");
        assert_eq!(command("run", 1, &[], None), b"run -i 1\0".to_vec());
    }

    #[test]
    fn file_uris_go_both_ways() {
        let path = Path::new("/tmp/my app/ü.php");
        let uri = file_uri(path);
        assert_eq!(uri, "file:///tmp/my%20app/%C3%BC.php");
        assert_eq!(uri_path(&uri).as_deref(), Some(path));
        assert_eq!(uri_path("dbgp://1"), None);
    }

    #[tokio::test]
    async fn packets_are_read_by_their_length() {
        let mut reader = BufReader::new(&b"5\0<a/>x\08\0<b>1</b>\0"[..]);
        assert_eq!(
            read_packet(&mut reader).await.expect("read").as_deref(),
            Some("<a/>x")
        );
        assert_eq!(
            read_packet(&mut reader).await.expect("read").as_deref(),
            Some("<b>1</b>")
        );
        assert_eq!(read_packet(&mut reader).await.expect("read"), None);
    }
}
