//! The program's captured stdout and stderr: a byte-bounded buffer addressed by stream offsets.
//! Each run of bytes keeps the name of the stream it came on (`stdout`, `stderr`, `log`), so a
//! reader can tell them apart.
//!
//! The buffer holds the bytes as the program wrote them, UTF-8 or not: a reader gets them as
//! text (a byte that is no UTF-8 written `\xNN`) and, where that text is not the bytes, the
//! bytes themselves (`OutputSegment::bytes_b64`). A cut (a page's end, a dropped front) never
//! splits a character.
//!
//! Every byte the program prints gets an offset (bytes since the session started), so readers can
//! page through output larger than one IPC frame and `--follow` can resume exactly where it left
//! off. When the bound is reached the oldest bytes are dropped and counted, and a reader that asked
//! for dropped bytes is told how many it missed: output is never lost silently.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::watch;

use crate::common::escape::escaped_text;
use crate::ipc::protocol::{OutputChunk, OutputQuery, OutputSegment};

/// Writes are appended to the newest chunk while it stays under this size.
const COALESCE_BYTES: usize = 64 * 1024;

#[derive(Debug)]
struct Chunk {
    /// Offset of the chunk's first byte.
    start: u64,
    /// The stream it came on.
    stream: String,
    bytes: Vec<u8>,
}

#[derive(Debug, Default)]
struct Held {
    chunks: VecDeque<Chunk>,
    /// Offset of the oldest byte still held.
    start: u64,
    /// Offset one past the newest byte.
    end: u64,
    dropped: u64,
    finished: bool,
}

/// What the buffer reports to waiters: (end offset, finished).
type Progress = (u64, bool);

#[derive(Debug)]
pub struct OutputBuffer {
    held: Mutex<Held>,
    capacity: usize,
    progress: watch::Sender<Progress>,
    /// Each stream's unfinished last line, held back until its newline arrives (or a stop, the
    /// end, or its size flushes it), so a stdout line and a stderr line never splice.
    partial: Mutex<Vec<(String, Vec<u8>)>>,
}

/// The line `restart` writes between one run's output and the next's.
pub const RESTART_SEPARATOR: &str = "--- debugger: the program was restarted ---\n";

/// An unfinished line longer than this is let through as it is.
const PARTIAL_LINE_LIMIT: usize = 4096;

impl OutputBuffer {
    pub fn new(capacity: usize) -> Self {
        OutputBuffer {
            held: Mutex::new(Held::default()),
            capacity: capacity.max(1),
            progress: watch::channel((0, false)).0,
            partial: Mutex::new(Vec::new()),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends output of `stream` as it is, dropping the oldest bytes beyond the capacity.
    fn push(&self, stream: &str, text: impl AsRef<[u8]>) {
        let text = text.as_ref();
        if text.is_empty() {
            return;
        }
        let mut held = self.held();
        let mut text = text;
        if text.len() > self.capacity {
            // Keep only the newest `capacity` bytes of an oversized write.
            let cut = char_start_from(text, text.len() - self.capacity);
            held.dropped += (held.end - held.start) + cut as u64;
            held.chunks.clear();
            held.end += cut as u64;
            held.start = held.end;
            text = &text[cut..];
        }
        let start = held.end;
        held.end += text.len() as u64;
        // Coalesce small writes (a line per event is typical) so the per-chunk overhead stays a
        // small fraction of the bound, however the program prints.
        match held.chunks.back_mut() {
            Some(last)
                if last.stream == stream && last.bytes.len() + text.len() <= COALESCE_BYTES =>
            {
                last.bytes.extend_from_slice(text)
            }
            _ => held.chunks.push_back(Chunk {
                start,
                stream: stream.to_string(),
                bytes: text.to_vec(),
            }),
        }
        while held.end - held.start > self.capacity as u64 {
            let Some(front) = held.chunks.pop_front() else {
                break;
            };
            let chunk_end = front.start + front.bytes.len() as u64;
            let excess = (held.end - held.start) - self.capacity as u64;
            let chunk_len = chunk_end - held.start;
            if chunk_len <= excess {
                held.dropped += chunk_len;
                held.start = chunk_end;
            } else {
                // Drop only the front part of this chunk, on a character boundary.
                let held_from = (held.start - front.start) as usize;
                let cut = char_start_from(&front.bytes, held_from + excess as usize);
                let new_start = front.start + cut as u64;
                held.dropped += new_start - held.start;
                held.start = new_start;
                held.chunks.push_front(front);
            }
        }
        let end = held.end;
        drop(held);
        self.progress.send_modify(|p| p.0 = end);
    }

    /// What is held of `stream` alone from about its last `lines` lines on (each cut at a line's
    /// worth), or `None` when it has written nothing still held.
    pub fn last_lines_of(&self, stream: &str, lines: usize) -> Option<String> {
        const LINE_LIMIT: usize = 300;
        let held = self.held();
        let mut bytes = Vec::new();
        for chunk in held.chunks.iter().rev().filter(|c| c.stream == stream) {
            bytes.splice(0..0, chunk.bytes.iter().copied());
            if bytes.iter().filter(|b| **b == b'\n').count() > lines {
                break;
            }
        }
        drop(held);
        let text = escaped_text(&bytes);
        let all: Vec<&str> = text.lines().collect();
        let kept: Vec<String> = all[all.len().saturating_sub(lines)..]
            .iter()
            .map(|line| crate::daemon::variables::cap_value(line, LINE_LIMIT))
            .collect();
        (!kept.is_empty()).then(|| kept.join("\n"))
    }

    /// Appends output of one stream (`stdout`, `stderr`), whole lines at a time.
    pub fn push_stream(&self, stream: &str, text: impl AsRef<[u8]>) {
        let text = text.as_ref();
        let complete = {
            let mut partial = self.partial.lock().unwrap_or_else(|p| p.into_inner());
            let index = match partial.iter().position(|(name, _)| name == stream) {
                Some(index) => index,
                None => {
                    partial.push((stream.to_string(), Vec::new()));
                    partial.len() - 1
                }
            };
            let pending = &mut partial[index].1;
            pending.extend_from_slice(text);
            match pending.iter().rposition(|b| *b == b'\n') {
                Some(end) => {
                    let rest = pending.split_off(end + 1);
                    Some(std::mem::replace(pending, rest))
                }
                None if pending.len() > PARTIAL_LINE_LIMIT => Some(std::mem::take(pending)),
                None => None,
            }
        };
        if let Some(lines) = complete {
            self.push(stream, &lines);
        }
    }

    /// Lets every stream's unfinished line through (the program stopped or ended: it will not
    /// finish the line soon, and the user should see the prompt it printed).
    pub fn flush_partial(&self) {
        let pending: Vec<(String, Vec<u8>)> = {
            let mut partial = self.partial.lock().unwrap_or_else(|p| p.into_inner());
            partial
                .iter_mut()
                .map(|(stream, text)| (stream.clone(), std::mem::take(text)))
                .filter(|(_, text)| !text.is_empty())
                .collect()
        };
        for (stream, text) in pending {
            self.push(&stream, &text);
        }
    }

    /// Marks the output complete (the program has ended); followers stop waiting.
    pub fn finish(&self) {
        self.flush_partial();
        self.held().finished = true;
        self.progress.send_modify(|p| p.1 = true);
    }

    /// Opens the buffer again after a restart: the new run's output follows the old run's,
    /// after [`RESTART_SEPARATOR`] on a line of its own, so the two runs never read as one.
    pub fn reopen(&self) {
        self.flush_partial();
        let unfinished = self
            .held()
            .chunks
            .back()
            .filter(|last| !last.bytes.ends_with(b"\n"))
            .map(|last| last.stream.clone());
        if let Some(stream) = unfinished {
            self.push(&stream, b"\n");
        }
        self.push("stdout", RESTART_SEPARATOR.as_bytes());
        self.held().finished = false;
        self.progress.send_modify(|p| p.1 = false);
    }

    /// Offset just past the last byte written so far.
    pub fn end(&self) -> u64 {
        self.held().end
    }

    /// Answers one query, waiting first when it asks to and nothing is there yet.
    pub async fn read(&self, query: &OutputQuery) -> OutputChunk {
        if query.wait
            && let Some(from) = query.from
        {
            let mut progress = self.progress.subscribe();
            let _ = progress
                .wait_for(|(end, finished)| *end > from || *finished)
                .await;
        }
        self.read_now(query)
    }

    fn read_now(&self, query: &OutputQuery) -> OutputChunk {
        let mut held = self.held();
        let requested = match (query.from, query.tail_lines) {
            (Some(from), _) => from,
            (None, Some(lines)) => tail_offset(&held, lines),
            (None, None) => held.start,
        };
        let from = requested.max(held.start).min(held.end);
        let skipped = from.saturating_sub(requested);
        let max = (query.max_bytes.max(1)) as u64;
        let mut runs: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut taken = 0u64;
        for chunk in &held.chunks {
            let chunk_end = chunk.start + chunk.bytes.len() as u64;
            if chunk_end <= from {
                continue;
            }
            let wanted = max - taken;
            if wanted == 0 {
                break;
            }
            let begin = from.saturating_sub(chunk.start) as usize;
            let len = chunk.bytes.len();
            let stop = (begin as u64 + wanted).min(len as u64) as usize;
            let stop = if stop < len {
                char_start_before(&chunk.bytes, stop)
            } else {
                stop
            };
            if stop <= begin {
                break;
            }
            let piece = &chunk.bytes[begin..stop];
            taken += piece.len() as u64;
            match runs.last_mut() {
                Some((stream, bytes)) if *stream == chunk.stream => bytes.extend_from_slice(piece),
                _ => runs.push((&chunk.stream, piece.to_vec())),
            }
            if stop < len {
                break;
            }
        }
        let segments = runs
            .into_iter()
            .map(|(stream, bytes)| segment(stream, &bytes))
            .collect();
        let next = from + taken;
        if query.clear {
            discard_before(&mut held, next);
        }
        OutputChunk {
            more: next < held.end,
            finished: held.finished && next >= held.end,
            segments,
            start: from,
            next,
            skipped,
            dropped_total: held.dropped,
        }
    }
}

/// The offset where the last `lines` lines held begin (a final newline ends the last line).
fn tail_offset(held: &Held, lines: u32) -> u64 {
    if lines == 0 {
        return held.end;
    }
    let mut newlines_to_pass = lines;
    let mut first = true;
    for chunk in held.chunks.iter().rev() {
        let bytes = &chunk.bytes;
        let lower = held.start.saturating_sub(chunk.start) as usize;
        for i in (lower..bytes.len()).rev() {
            if bytes[i] != b'\n' {
                first = false;
                continue;
            }
            if first {
                // The newline that ends the output terminates the last line; it starts nothing.
                first = false;
                continue;
            }
            newlines_to_pass -= 1;
            if newlines_to_pass == 0 {
                return chunk.start + i as u64 + 1;
            }
        }
    }
    held.start
}

/// A run of `stream`'s bytes as a reader gets it: as text, and as the bytes themselves when the
/// text is not them.
fn segment(stream: &str, bytes: &[u8]) -> OutputSegment {
    let text = escaped_text(bytes);
    let bytes_b64 = matches!(text, std::borrow::Cow::Owned(_))
        .then(|| base64_simd::STANDARD.encode_to_string(bytes));
    OutputSegment {
        stream: stream.to_string(),
        text: text.into_owned(),
        bytes_b64,
    }
}

/// A UTF-8 continuation byte: a cut before it would split a character.
fn continues(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

/// `at`, or the start of the character that `bytes[at]` is inside (a character is at most 4
/// bytes; a run of stray continuation bytes is no character, and is cut anywhere).
fn char_start_before(bytes: &[u8], at: usize) -> usize {
    let mut cut = at;
    while cut > 0 && at - cut < 3 && bytes.get(cut).copied().is_some_and(continues) {
        cut -= 1;
    }
    if bytes.get(cut).copied().is_some_and(continues) {
        at
    } else {
        cut
    }
}

/// `at`, or the end of the character that `bytes[at]` is inside.
fn char_start_from(bytes: &[u8], at: usize) -> usize {
    let mut cut = at;
    while cut < bytes.len() && cut - at < 3 && continues(bytes[cut]) {
        cut += 1;
    }
    cut
}

fn discard_before(held: &mut Held, offset: u64) {
    while let Some(front) = held.chunks.front() {
        let chunk_end = front.start + front.bytes.len() as u64;
        if chunk_end <= offset {
            held.chunks.pop_front();
        } else {
            break;
        }
    }
    held.start = held.start.max(offset);
    if let Some(front) = held.chunks.front_mut()
        && front.start < held.start
    {
        let cut = char_start_from(&front.bytes, (held.start - front.start) as usize);
        front.bytes.drain(..cut);
        front.start += cut as u64;
        held.start = front.start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restart_separates_the_runs_on_a_line_of_its_own() {
        let buffer = OutputBuffer::new(1024);
        buffer.push_stream("stdout", "first run, no newline");
        buffer.finish();
        buffer.reopen();
        buffer.push_stream("stdout", "second run\n");
        let text = buffer.read_now(&query(None, None, 1024, false)).text();
        assert_eq!(
            text,
            format!("first run, no newline\n{RESTART_SEPARATOR}second run\n")
        );
    }

    fn query(from: Option<u64>, tail: Option<u32>, max: u32, clear: bool) -> OutputQuery {
        OutputQuery {
            from,
            tail_lines: tail,
            max_bytes: max,
            clear,
            wait: false,
        }
    }

    fn all(buffer: &OutputBuffer) -> OutputChunk {
        buffer.read_now(&query(None, None, u32::MAX, false))
    }

    #[test]
    fn keeps_order_across_chunks() {
        let b = OutputBuffer::new(1024);
        b.push("stdout", "one\n");
        b.push("stdout", "two\nthr");
        b.push("stdout", "ee\n");
        let got = all(&b);
        assert_eq!(got.text(), "one\ntwo\nthree\n");
        assert_eq!(got.dropped_total, 0);
        assert!(!got.more);
    }

    #[test]
    fn tail_counts_lines_not_chunks() {
        let b = OutputBuffer::new(1024);
        b.push("stdout", "a\nb\n");
        b.push("stdout", "c");
        b.push("stdout", "\nd\n");
        assert_eq!(b.read_now(&query(None, Some(1), 100, false)).text(), "d\n");
        assert_eq!(
            b.read_now(&query(None, Some(2), 100, false)).text(),
            "c\nd\n"
        );
        assert_eq!(
            b.read_now(&query(None, Some(10), 100, false)).text(),
            "a\nb\nc\nd\n"
        );
        b.push("stdout", "partial");
        assert_eq!(
            b.read_now(&query(None, Some(1), 100, false)).text(),
            "partial"
        );
        assert_eq!(b.read_now(&query(None, Some(0), 100, false)).text(), "");
    }

    #[test]
    fn overflow_drops_oldest_and_says_how_much() {
        let b = OutputBuffer::new(10);
        b.push("stdout", "0123456789");
        b.push("stdout", "abcd");
        let got = all(&b);
        assert_eq!(got.text(), "456789abcd");
        assert_eq!(got.dropped_total, 4);
        let from_start = b.read_now(&query(Some(0), None, 100, false));
        assert_eq!(from_start.skipped, 4);
        assert_eq!(from_start.start, 4);
        b.push("stdout", "z".repeat(25));
        let got = all(&b);
        assert_eq!(got.text(), "z".repeat(10));
        assert_eq!(got.dropped_total, 29);
    }

    #[test]
    fn pages_through_output_larger_than_a_page() {
        let b = OutputBuffer::new(1 << 20);
        let line = "x".repeat(99) + "\n";
        for _ in 0..100 {
            b.push("stdout", &line);
        }
        let mut text = String::new();
        let mut from = None;
        loop {
            let page = b.read_now(&query(from, None, 333, false));
            text.push_str(&page.text());
            from = Some(page.next);
            if !page.more {
                break;
            }
        }
        assert_eq!(text, line.repeat(100));
    }

    #[test]
    fn clear_discards_only_what_was_read() {
        let b = OutputBuffer::new(1024);
        b.push("stdout", "hello world");
        let first = b.read_now(&query(None, None, 5, true));
        assert_eq!(first.text(), "hello");
        assert_eq!(all(&b).text(), " world");
        b.read_now(&query(None, None, 100, true));
        assert_eq!(all(&b).text(), "");
        b.push("stdout", "again");
        assert_eq!(all(&b).text(), "again");
    }

    #[test]
    fn multibyte_text_is_never_split() {
        let b = OutputBuffer::new(5);
        b.push("stdout", "héllo→");
        let got = all(&b);
        assert!(got.text().len() <= 5 || got.text().is_char_boundary(0));
        assert!(std::str::from_utf8(got.text().as_bytes()).is_ok());
        let page = b.read_now(&query(None, None, 2, false));
        assert!(page.text().len() <= 2);
    }

    #[test]
    fn lines_of_two_streams_never_splice() {
        let b = OutputBuffer::new(1024);
        b.push_stream("stdout", "total: ");
        b.push_stream("stderr", "app: done\n");
        b.push_stream("stdout", "10\n");
        assert_eq!(all(&b).text(), "app: done\ntotal: 10\n");
        b.push_stream("stdout", "Enter a number: ");
        assert_eq!(all(&b).text(), "app: done\ntotal: 10\n");
        b.flush_partial();
        assert_eq!(all(&b).text(), "app: done\ntotal: 10\nEnter a number: ");
    }

    #[test]
    fn each_run_of_bytes_keeps_its_stream() {
        let b = OutputBuffer::new(1024);
        b.push_stream("stdout", "partial");
        b.flush_partial();
        b.push_stream("stderr", "ERR\n");
        b.push_stream("stdout", " rest\n");
        let streams: Vec<(String, String)> = all(&b)
            .segments
            .into_iter()
            .map(|s| (s.stream, s.text))
            .collect();
        let want = [
            ("stdout", "partial"),
            ("stderr", "ERR\n"),
            ("stdout", " rest\n"),
        ];
        assert_eq!(
            streams,
            want.map(|(s, t)| (s.to_string(), t.to_string())).to_vec()
        );
    }

    #[tokio::test]
    async fn follow_waits_for_new_output_and_for_the_end() {
        let b = std::sync::Arc::new(OutputBuffer::new(1024));
        let reader = b.clone();
        let task = tokio::spawn(async move {
            let q = OutputQuery {
                from: Some(0),
                tail_lines: None,
                max_bytes: 100,
                clear: false,
                wait: true,
            };
            reader.read(&q).await
        });
        tokio::task::yield_now().await;
        b.push("stdout", "late\n");
        let got = task.await.expect("join");
        assert_eq!(got.text(), "late\n");
        b.finish();
        let q = OutputQuery {
            from: Some(got.next),
            tail_lines: None,
            max_bytes: 100,
            clear: false,
            wait: true,
        };
        let end = b.read(&q).await;
        assert!(end.finished);
        assert_eq!(end.text(), "");
    }
}
