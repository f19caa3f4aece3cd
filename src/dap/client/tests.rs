//! The DAP client against a scripted adapter on an in-memory pipe: matching by seq, errors,
//! events and reverse requests, the adapter's death, garbage, timeouts.

use super::*;
use crate::common::error::{ErrorBody, ErrorCode};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader, DuplexStream};

#[test]
fn not_stopped_refusals_say_the_program_is_running() {
    let refused: ErrorBody = DapError::Adapter {
        command: "threads".into(),
        message: "notStopped".into(),
    }
    .into();
    assert_eq!(refused.code, ErrorCode::Running);
    assert!(refused.message.contains("'threads'"), "{}", refused.message);
    assert!(refused.hint.contains("debugger pause"), "{}", refused.hint);
}

/// A scripted adapter on the other end of an in-memory pipe.
struct FakeAdapter {
    reader: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
}

impl FakeAdapter {
    async fn read_request(&mut self) -> Value {
        let mut len = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).await.expect("header");
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.trim().parse().expect("len");
            }
        }
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body).await.expect("body");
        serde_json::from_slice(&body).expect("json")
    }

    async fn send(&mut self, message: Value) {
        self.writer
            .write_all(&codec::encode(message.to_string().as_bytes()))
            .await
            .expect("write");
    }
}

/// A client on an in-memory pipe; the adapter "exits" when the returned sender is used.
fn connect() -> (
    DapClient,
    mpsc::Receiver<Event>,
    FakeAdapter,
    oneshot::Sender<String>,
) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (our_read, our_write) = tokio::io::split(ours);
    let (their_read, their_write) = tokio::io::split(theirs);
    let (exit_tx, exit_rx) = oneshot::channel::<String>();
    let (client, events) =
        DapClient::start(our_read, our_write, Duration::from_secs(5), async move {
            match exit_rx.await {
                Ok(detail) => detail,
                Err(_) => std::future::pending().await,
            }
        });
    (
        client,
        events,
        FakeAdapter {
            reader: BufReader::new(their_read),
            writer: their_write,
        },
        exit_tx,
    )
}

#[tokio::test]
async fn responses_are_matched_by_seq_out_of_order() {
    let (client, _events, mut adapter, _exit) = connect();
    let first = client.send("threads", json!({}));
    let second = client.send("stackTrace", json!({"threadId": 1}));
    let r1 = adapter.read_request().await;
    let r2 = adapter.read_request().await;
    assert_eq!(r1["command"], "threads");
    assert_eq!(r2["command"], "stackTrace");
    adapter
        .send(json!({"seq": 1, "type": "response", "request_seq": r2["seq"], "success": true, "command": "stackTrace", "body": {"n": 2}}))
        .await;
    adapter
        .send(json!({"seq": 2, "type": "response", "request_seq": r1["seq"], "success": true, "command": "threads", "body": {"n": 1}}))
        .await;
    assert_eq!(first.response().await, Ok(json!({"n": 1})));
    assert_eq!(second.response().await, Ok(json!({"n": 2})));
}

/// A request sent before the client read the stream (a kept launch's) is answered through the
/// client once adopted, and the client's own requests are numbered after it.
#[tokio::test]
async fn an_adopted_request_gets_its_answer_and_later_seqs_pass_it() {
    let (client, _events, mut adapter, _exit) = connect();
    let launch = client.adopt(7, "launch");
    let threads = client.send("threads", json!({}));
    let request = adapter.read_request().await;
    assert_eq!(request["seq"], 8, "{request}");
    adapter
        .send(json!({"seq": 1, "type": "response", "request_seq": 7, "success": true, "command": "launch"}))
        .await;
    adapter
        .send(json!({"seq": 2, "type": "response", "request_seq": 8, "success": true, "command": "threads", "body": {"threads": []}}))
        .await;
    assert_eq!(launch.response().await, Ok(Value::Null));
    assert_eq!(threads.response().await, Ok(json!({"threads": []})));
}

#[tokio::test]
async fn adapter_errors_keep_the_adapters_message() {
    let (client, _events, mut adapter, _exit) = connect();
    let pending = client.send("evaluate", json!({"expression": "nosuch"}));
    let req = adapter.read_request().await;
    adapter
        .send(json!({"seq": 1, "type": "response", "request_seq": req["seq"], "success": false, "command": "evaluate", "message": "use of undeclared identifier 'nosuch'"}))
        .await;
    assert_eq!(
        pending.response().await,
        Err(DapError::Adapter {
            command: "evaluate".into(),
            message: "use of undeclared identifier 'nosuch'".into()
        })
    );
}

#[tokio::test]
async fn a_failure_without_words_says_which_request_failed() {
    let (client, _events, mut adapter, _exit) = connect();
    let set = client.send("setVariable", json!({"name": "x", "value": "1"}));
    let req = adapter.read_request().await;
    // lldb-dap's way: the reason in `body.message`.
    adapter
        .send(json!({"seq": 1, "type": "response", "request_seq": req["seq"], "success": false, "command": "setVariable", "body": {"message": "Invalid encoding."}}))
        .await;
    assert_eq!(
        set.response().await.map_err(|e| e.to_string()),
        Err("Invalid encoding.".to_string())
    );
    let set = client.send("setVariable", json!({"name": "x", "value": "1"}));
    let req = adapter.read_request().await;
    adapter
        .send(json!({"seq": 2, "type": "response", "request_seq": req["seq"], "success": false, "command": "setVariable", "body": {}}))
        .await;
    let error = set.response().await.expect_err("a failure");
    assert!(
        matches!(&error, DapError::Adapter { message, .. } if message.is_empty()),
        "{error:?}"
    );
    let body = ErrorBody::from(error);
    assert_eq!(
        body.message,
        "the debug adapter refused the 'setVariable' request without saying why"
    );
}

#[tokio::test]
async fn events_arrive_and_reverse_requests_are_answered() {
    let (_client, mut events, mut adapter, _exit) = connect();
    adapter
        .send(json!({"seq": 1, "type": "event", "event": "stopped", "body": {"reason": "step"}}))
        .await;
    adapter
        .send(json!({"seq": 2, "type": "request", "command": "runInTerminal", "arguments": {"args": ["x"]}}))
        .await;
    let event = events.recv().await.expect("event");
    assert_eq!(event.name(), "stopped");
    let answer = adapter.read_request().await;
    assert_eq!(answer["type"], "response");
    assert_eq!(answer["request_seq"], 2);
    assert_eq!(answer["success"], false);
}

#[tokio::test]
async fn adapter_exit_fails_pending_requests_at_once() {
    let (client, mut events, adapter, exit) = connect();
    let pending = client.send("continue", json!({}));
    drop(adapter);
    let _ = exit.send("fake adapter exited with status 7".into());
    let err = pending.response().await.expect_err("must fail");
    assert_eq!(
        err,
        DapError::Closed("fake adapter exited with status 7".into())
    );
    assert!(events.recv().await.is_none(), "event channel ends");
    let later = client.request("threads", json!({})).await;
    assert!(matches!(later, Err(DapError::Closed(_))));
}

#[tokio::test]
async fn an_exit_is_reported_even_while_a_child_holds_the_pipe_open() {
    // The adapter process exits, but its stdout stays open (a debuggee inherited it).
    let (client, _events, _adapter_pipe_still_open, exit) = connect();
    let pending = client.send("evaluate", json!({}));
    let _ = exit.send("mock exited with status 9".into());
    let err = tokio::time::timeout(Duration::from_secs(2), pending.response())
        .await
        .expect("the request must fail at once, not at its timeout");
    assert_eq!(
        err,
        Err(DapError::Closed("mock exited with status 9".into()))
    );
}

#[tokio::test]
async fn garbage_ends_the_session_with_a_protocol_error() {
    let (client, _events, mut adapter, _exit) = connect();
    let pending = client.send("threads", json!({}));
    adapter
        .writer
        .write_all(b"Content-Length: 5\r\n\r\nnope!")
        .await
        .expect("write");
    let err = pending.response().await.expect_err("must fail");
    assert!(err.to_string().contains("malformed"), "{err}");
}

impl FakeAdapter {
    /// Writes one framed body as it is, whatever its bytes.
    async fn send_raw(&mut self, body: &[u8]) {
        self.writer
            .write_all(&codec::encode(body))
            .await
            .expect("write");
    }

    /// Answers the next request with an empty success, and says which command it was.
    async fn answer_next(&mut self) -> Value {
        let request = self.read_request().await;
        self.send(json!({"seq": 99, "type": "response", "request_seq": request["seq"], "success": true, "command": request["command"]}))
            .await;
        request["command"].clone()
    }
}

/// debugpy writes `sys.stdout.buffer.write(b"caf\xe9\n")` as a lone surrogate escape; the
/// output arrives, with the byte written `\xe9`, and the conversation goes on.
#[tokio::test]
async fn output_with_lone_surrogates_or_bad_bytes_arrives_and_the_session_goes_on() {
    let (client, mut events, mut adapter, _exit) = connect();
    adapter
        .send_raw(br#"{"seq": 5, "type": "event", "event": "output", "body": {"category": "stdout", "output": "caf\udce9\n"}}"#)
        .await;
    adapter
        .send_raw(b"{\"seq\": 6, \"type\": \"event\", \"event\": \"output\", \"body\": {\"output\": \"na\xefve\\x\"}}")
        .await;
    let text = |event: Option<Event>| match event {
        Some(Event::Output(output)) => output.body.output,
        other => panic!("not an output event: {other:?}"),
    };
    assert_eq!(text(events.recv().await), "caf\\xe9\n");
    assert_eq!(text(events.recv().await), "na\\xefve\\x");
    let threads = client.send("threads", json!({}));
    assert_eq!(adapter.answer_next().await, "threads");
    assert_eq!(threads.response().await, Ok(Value::Null));
}

#[tokio::test]
async fn an_unreadable_answer_fails_its_request_alone_and_at_once() {
    let (client, _events, mut adapter, _exit) = connect();
    let evaluate = client.send("evaluate", json!({"expression": "s"}));
    let request = adapter.read_request().await;
    let broken = format!(
        r#"{{"seq": 7, "type": "response", "request_seq": {}, "success": true, "body": {{"result": tru"#,
        request["seq"]
    );
    adapter.send_raw(broken.as_bytes()).await;
    // Well before the client's 5 s request timeout.
    let failed = tokio::time::timeout(Duration::from_secs(2), evaluate.response())
        .await
        .expect("the request must fail at once, not at its timeout");
    assert!(
        matches!(&failed, Err(DapError::Unreadable { command, .. }) if command == "evaluate"),
        "{failed:?}"
    );
    let threads = client.send("threads", json!({}));
    assert_eq!(adapter.answer_next().await, "threads");
    assert_eq!(threads.response().await, Ok(Value::Null));
}

#[tokio::test]
async fn a_broken_object_tied_to_nothing_is_skipped() {
    let (client, mut events, mut adapter, _exit) = connect();
    adapter
        .send_raw(br#"{"seq": 5, "type": "event", "event": "output", "body": {"#)
        .await;
    adapter
        .send(json!({"seq": 6, "type": "event", "event": "stopped", "body": {}}))
        .await;
    assert_eq!(
        events.recv().await.map(|e| e.name().to_string()),
        Some("stopped".into())
    );
    let threads = client.send("threads", json!({}));
    assert_eq!(adapter.answer_next().await, "threads");
    assert_eq!(threads.response().await, Ok(Value::Null));
    assert_eq!(client.closed_reason(), None);
}

#[tokio::test]
async fn an_unreadable_reverse_request_is_refused() {
    let (_client, _events, mut adapter, _exit) = connect();
    adapter
        .send_raw(br#"{"seq": 8, "type": "request", "command": "runInTerminal", "arguments": {"#)
        .await;
    let answer = adapter.read_request().await;
    assert_eq!(answer["type"], "response");
    assert_eq!(answer["request_seq"], 8);
    assert_eq!(answer["command"], "runInTerminal");
    assert_eq!(answer["success"], false);
}

#[tokio::test]
async fn abandoned_requests_leave_no_pending_entry() {
    let (client, _events, mut adapter, _exit) = connect();
    let pending = client.send("threads", json!({}));
    let _ = adapter.read_request().await;
    drop(pending);
    let open = match &*client.inner.pending() {
        Pending::Open(map) => map.len(),
        Pending::Closed(_) => usize::MAX,
    };
    assert_eq!(open, 0);
    // A late answer to it is ignored.
    adapter
        .send(json!({"seq": 1, "type": "response", "request_seq": 1, "success": true, "command": "threads"}))
        .await;
    let answered = client.send("threads", json!({})).response();
    let req = adapter.read_request().await;
    adapter
        .send(json!({"seq": 2, "type": "response", "request_seq": req["seq"], "success": true, "command": "threads", "body": {"threads": []}}))
        .await;
    assert_eq!(answered.await, Ok(json!({"threads": []})));
}

#[tokio::test]
async fn unanswered_request_times_out() {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(ours);
    let (client, _events) =
        DapClient::start(r, w, Duration::from_millis(50), async { String::new() });
    let err = client
        .request("threads", json!({}))
        .await
        .expect_err("timeout");
    assert!(matches!(err, DapError::Timeout { .. }), "{err}");
    drop(theirs);
}
