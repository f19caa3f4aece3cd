//! What a test's failure said, and where to read it: the adapter's exception, a Go panic's
//! value, or a line the toolchain wrote to the program's output. Decided here once; `test`
//! (over the socket) and `probe --test` (in process) each do the reading their own way.

use std::time::Duration;

use super::failure::{go_failure_message, native_failure_message, panic_message};
use super::{MessageSource, TestPlan};
use crate::ipc::protocol::{ExceptionInfo, FrameInfo, StopReport};

/// How long a message may trail the stop in the program's output (a panic hook writes it just
/// before the stop, and the program's output is read on its own time).
pub const MESSAGE_LAG: Duration = Duration::from_secs(1);

/// The expression that holds a Go panic's value in `runtime.gopanic`'s frame.
pub const GO_PANIC_VALUE: &str = "e";

/// Evaluated just before [`GO_PANIC_VALUE`], its answer unused. Delve (1.27.2, with Go 1.26)
/// resolves an interface's dynamic type through the runtime's module data, which it loads once,
/// through the memory of the first interface it reads; when that first one is `e`, held in
/// registers in `gopanic`'s frame, the load fails ("error loading module data: read out of
/// bounds") and `e` reads as unreadable. An interface in memory loads it: `io.EOF`, which every
/// test binary has (the testing package uses io).
pub const GO_PANIC_WARM_UP: &str = "io.EOF";

/// Where a failure's message is read.
pub enum MessageSite {
    /// Already known from the stop (an exception's type and message).
    Known(String),
    /// In the program's output, found by this.
    Output(OutputFinder),
    /// Nowhere: the failure says nothing more than where it stopped.
    Nowhere,
}

/// How a message is found in the program's output.
pub enum OutputFinder {
    /// The panic hook's message.
    RustPanic,
    /// The line the test logged from its own frame (`file:line`).
    GoLog {
        file: Option<String>,
        line: Option<u32>,
    },
    /// Google Test's failure or the C library's failed `assert`.
    Native,
}

impl OutputFinder {
    /// The message in `output`, if it is there yet.
    pub fn find(&self, output: &str) -> Option<String> {
        match self {
            OutputFinder::RustPanic => panic_message(output),
            OutputFinder::GoLog { file, line } => {
                go_failure_message(output, file.as_deref(), *line)
            }
            OutputFinder::Native => native_failure_message(output),
        }
    }
}

/// Where the message of the failure `stop` is, with the test's frame `frame` selected;
/// `go_panic_value` is what [`GO_PANIC_VALUE`] read in `runtime.gopanic`'s frame, when the test
/// failed by a panic (see `failure_stop.rs`).
pub fn message_site(
    plan: &TestPlan,
    stop: &StopReport,
    frame: Option<&FrameInfo>,
    go_panic_value: Option<&str>,
) -> MessageSite {
    if let Some(exception) = &stop.exception {
        return MessageSite::Known(exception_message(exception));
    }
    match plan.message_source() {
        MessageSource::RustPanic => MessageSite::Output(OutputFinder::RustPanic),
        MessageSource::GoLog => match go_panic_value {
            Some(value) => MessageSite::Known(super::failure::go_panic_message(value)),
            None => MessageSite::Output(OutputFinder::GoLog {
                file: frame.and_then(|f| f.file.clone()),
                line: frame.and_then(|f| f.line),
            }),
        },
        MessageSource::None => {
            let signal = stop.signal.as_ref().and_then(|s| s.name.as_deref());
            if matches!(signal, Some("SIGABRT" | "SIGTRAP")) {
                MessageSite::Output(OutputFinder::Native)
            } else {
                MessageSite::Nowhere
            }
        }
    }
}

/// An exception's type and message, without the remark an adapter may add to its type
/// (debugpy: `(note: full exception trace is shown but execution is paused at: …)`).
fn exception_message(exception: &ExceptionInfo) -> String {
    let type_name = exception
        .type_name
        .split("(note:")
        .next()
        .unwrap_or(&exception.type_name)
        .trim();
    match &exception.message {
        Some(message) => format!("{type_name}: {message}"),
        None => type_name.to_string(),
    }
}
