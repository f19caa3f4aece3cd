//! A message body from the adapter, read into an [`Incoming`] message, and what to do with one
//! that cannot be read.
//!
//! The text is read leniently (`common::peer_json`: lone surrogates, bytes that are not UTF-8
//! and odd escapes are repaired), so a program's odd output never costs a message. A body that
//! is still unreadable is tied to what waits for it where its bytes allow: an answer fails the
//! one request it answers, a reverse request is refused. Only a body that is not a JSON object
//! at all ends the session: the stream is then not DAP, and every later message would be a guess.

use serde::Deserialize;

use super::events::Event;
use super::types::{ResponseMessage, ReverseRequest};
use crate::common::peer_json;

/// A message from the adapter.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Incoming {
    Response(ResponseMessage),
    Event(Event),
    Request(ReverseRequest),
}

/// A body that could not be read as a DAP message, by what it can still be tied to.
#[derive(Debug, Clone, PartialEq)]
pub enum Unreadable {
    /// An answer to the request `request_seq`: that request fails with `detail`.
    Answer { request_seq: i64, detail: String },
    /// A request of the adapter's (`runInTerminal`, ...): it is refused, as the adapter waits.
    Request {
        seq: i64,
        command: String,
        detail: String,
    },
    /// A JSON object tied to no request (an event, or a message too broken to tell): skipped.
    Stray { detail: String },
    /// Not a JSON object at all: the stream is not DAP.
    NotJson { detail: String },
}

/// Reads one message body.
pub fn decode(body: &[u8]) -> Result<Incoming, Unreadable> {
    let error = match peer_json::parse::<Incoming>(body, peer_json::LoneSurrogates::AreBytes) {
        Ok(Incoming::Event(Event::Output(mut output))) => {
            if holds_bytes(body) {
                output.bytes = peer_json::string_bytes(body, &["body", "output"]);
            }
            return Ok(Incoming::Event(Event::Output(output)));
        }
        Ok(message) => return Ok(message),
        Err(error) => error,
    };
    let detail = error.to_string();
    let looks_like_object = body
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{');
    if !looks_like_object {
        return Err(Unreadable::NotJson { detail });
    }
    let kind = peer_json::top_level_string(body, "type");
    if kind.as_deref() == Some("request")
        && let Some(seq) = peer_json::top_level_integer(body, "seq")
    {
        let command = peer_json::top_level_string(body, "command").unwrap_or_default();
        return Err(Unreadable::Request {
            seq,
            command,
            detail,
        });
    }
    if kind.as_deref() != Some("event")
        && let Some(request_seq) = peer_json::top_level_integer(body, "request_seq")
    {
        return Err(Unreadable::Answer {
            request_seq,
            detail,
        });
    }
    Err(Unreadable::Stray { detail })
}

/// Whether a message may hold bytes that are not UTF-8: raw, or as Python's surrogate escapes.
fn holds_bytes(body: &[u8]) -> bool {
    std::str::from_utf8(body).is_err() || body.windows(4).any(|w| w.eq_ignore_ascii_case(b"\\udc"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(body: &[u8]) -> super::super::events::OutputEvent {
        match decode(body) {
            Ok(Incoming::Event(Event::Output(output))) => output,
            other => panic!("not an output event: {other:?}"),
        }
    }

    #[test]
    fn debugpys_surrogate_escaped_output_is_read_as_byte_escapes() {
        // As debugpy sends `sys.stdout.buffer.write(b"caf\xe9\n")`.
        let body = br#"{"seq": 12, "type": "event", "event": "output", "body": {"category": "stdout", "output": "caf\udce9\n"}}"#;
        let output = output(body);
        assert_eq!(output.body.output, "caf\\xe9\n");
        assert_eq!(output.bytes.as_deref(), Some(&b"caf\xe9\n"[..]));
    }

    #[test]
    fn raw_bytes_that_are_not_utf8_and_odd_escapes_are_read() {
        let body =
            b"{\"type\":\"event\",\"event\":\"output\",\"body\":{\"output\":\"na\xefve \\x41\"}}";
        let output = output(body);
        assert_eq!(output.body.output, "na\\xefve \\x41");
        assert_eq!(output.bytes.as_deref(), Some(&b"na\xefve \\x41"[..]));
    }

    #[test]
    fn a_lone_surrogate_in_an_answer_is_read() {
        let body = br#"{"seq":3,"type":"response","request_seq":2,"success":true,"command":"evaluate","body":{"result":"'\ud800'"}}"#;
        match decode(body) {
            Ok(Incoming::Response(response)) => {
                assert_eq!(response.request_seq, 2);
                assert_eq!(
                    response.body.map(|b| b["result"].clone()),
                    Some("'\u{fffd}'".into())
                );
            }
            other => panic!("not a response: {other:?}"),
        }
    }

    #[test]
    fn an_unreadable_answer_names_the_request_it_answers() {
        let body = br#"{"seq":3,"type":"response","request_seq":2,"success":true,"body":{"x": tru"#;
        assert!(
            matches!(decode(body), Err(Unreadable::Answer { request_seq: 2, .. })),
            "{:?}",
            decode(body)
        );
        // Valid JSON of the wrong shape (`success` missing) is tied the same way.
        let body = br#"{"seq":3,"type":"response","request_seq":5,"command":"threads"}"#;
        assert!(matches!(
            decode(body),
            Err(Unreadable::Answer { request_seq: 5, .. })
        ));
    }

    #[test]
    fn an_unreadable_reverse_request_is_named_for_its_refusal() {
        let body = br#"{"seq":40,"type":"request","command":"runInTerminal","arguments":{"#;
        match decode(body) {
            Err(Unreadable::Request { seq, command, .. }) => {
                assert_eq!((seq, command.as_str()), (40, "runInTerminal"));
            }
            other => panic!("not an unreadable request: {other:?}"),
        }
    }

    #[test]
    fn broken_objects_tied_to_nothing_are_stray_and_other_text_is_not_json() {
        assert!(matches!(
            decode(br#"{"type":"event","event":"output","request_seq":1,"body":{"#),
            Err(Unreadable::Stray { .. })
        ));
        assert!(matches!(
            decode(br#"{"type":"surprise"}"#),
            Err(Unreadable::Stray { .. })
        ));
        assert!(matches!(decode(b"nope!"), Err(Unreadable::NotJson { .. })));
        assert!(matches!(decode(b"[1, 2]"), Err(Unreadable::NotJson { .. })));
        assert!(matches!(decode(b""), Err(Unreadable::NotJson { .. })));
    }
}
