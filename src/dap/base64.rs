//! Base64 as DAP uses it: the `data` of a `readMemory` answer (RFC 4648, standard alphabet, with
//! or without `=` padding). Decoding only; a few lines here spare every CLI start a crate.

/// The bytes `text` encodes, or `None` when it is not base64.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        buffer = (buffer << 6) | u32::from(sextet(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_padded_and_unpadded_text() {
        assert_eq!(decode("").as_deref(), Some(&b""[..]));
        assert_eq!(decode("YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(decode("YWI=").as_deref(), Some(&b"ab"[..]));
        assert_eq!(decode("YWJj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(decode("YWxpY2UA").as_deref(), Some(&b"alice\0"[..]));
        assert_eq!(decode("YQ").as_deref(), Some(&b"a"[..]));
        assert_eq!(decode("AP8Q/w==").as_deref(), Some(&[0, 255, 16, 255][..]));
    }

    #[test]
    fn rejects_what_is_not_base64() {
        assert_eq!(decode("a"), None);
        assert_eq!(decode("YW*j"), None);
        assert_eq!(decode("YW J"), None);
    }
}
