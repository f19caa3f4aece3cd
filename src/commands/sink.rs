//! Where a command's text goes while it runs, before its [`Outcome`](super::Outcome) is ready.
//!
//! Most commands only return an outcome. A few have something to show on the way: the pages of
//! `output --follow` as the program prints them, each step of `demo`, an installer's progress in
//! `setup`, `doctor`'s report ahead of its error. They write it here, never to the process's
//! stdout: the CLI's sink is its terminal (or pipe), and a server that answers on its own stdout
//! (an MCP server on stdio) gives a sink that keeps the text, so its protocol stream stays clean.

/// The two kinds of text a command shows while it runs.
pub trait Sink {
    /// Part of the result, shown as it comes (the CLI's stdout).
    fn text(&mut self, text: &str);
    /// A remark beside the result: progress, a dropped-bytes notice (the CLI's stderr).
    fn note(&mut self, text: &str);
}

/// A sink that keeps everything, in order, for a caller that shows it later (or never).
#[derive(Debug, Default)]
pub struct Kept {
    pub text: String,
    pub notes: String,
}

impl Sink for Kept {
    fn text(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn note(&mut self, text: &str) {
        self.notes.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_sink_keeps_text_and_notes_apart_in_order() {
        let mut kept = Kept::default();
        kept.text("one\n");
        kept.note("careful\n");
        kept.text("two\n");
        assert_eq!(kept.text, "one\ntwo\n");
        assert_eq!(kept.notes, "careful\n");
    }
}
