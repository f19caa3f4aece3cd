//! What an exit report quotes of a failing program's stderr: its last lines, less the stack
//! frames a runtime prints after the message (JavaScript's `    at f (file:1:2)`, Go's goroutine
//! dumps), which would otherwise fill the quote and leave out the message itself (`TypeError:
//! …`, `panic: …`). Python prints its message last, and keeps its frames.

/// The last `count` lines of `text` worth quoting, or `None` when there are none.
pub fn last_words(text: &str, count: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept: Vec<&str> = Vec::new();
    for (i, line) in lines.iter().enumerate().rev() {
        if kept.len() == count {
            break;
        }
        let next = lines.get(i + 1).copied().unwrap_or("");
        if line.trim().is_empty() || is_frame(line, next) {
            continue;
        }
        kept.push(line);
    }
    kept.reverse();
    (!kept.is_empty()).then(|| kept.join("\n"))
}

/// Whether `line` (followed by `next`) is a stack frame of a runtime's dump.
fn is_frame(line: &str, next: &str) -> bool {
    let trimmed = line.trim_start();
    // JavaScript (and the JVM's): `    at shout (/app/raises.js:14:22)`.
    let javascript = line.starts_with(char::is_whitespace) && trimmed.starts_with("at ");
    // Go: `goroutine 1 [running]:`, then per frame `main.f(...)` and `\t/app/main.go:3 +0x55`.
    let go_header = line.starts_with("goroutine ") && line.trim_end().ends_with("]:");
    let go_place = line.starts_with('\t');
    let go_call = line.trim_end().ends_with(')') && next.starts_with('\t');
    javascript || go_header || go_place || go_call
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nodes_message_is_kept_and_its_frames_left_out() {
        let stderr = "/app/raises.js:14\n  return record.name.toUpperCase();\n                     ^\n\n\
                      TypeError: Cannot read properties of undefined (reading 'toUpperCase')\n    \
                      at shout (/app/raises.js:14:22)\n    at main (/app/raises.js:20:3)\n\nNode.js v20.20.2\n";
        let quoted = last_words(stderr, 6).expect("words");
        assert!(quoted.contains("TypeError: Cannot read"), "{quoted}");
        assert!(!quoted.contains(" at "), "{quoted}");
    }

    #[test]
    fn a_go_panics_message_is_kept_and_its_goroutines_left_out() {
        let stderr = "panic: runtime error: index out of range [5] with length 1\n\n\
                      goroutine 1 [running]:\nmain.f({0xc000038748, 0x1, 0x1})\n\
                      \t/app/main.go:3 +0x55\nmain.main()\n\t/app/main.go:5 +0x5a\nexit status 2\n";
        let quoted = last_words(stderr, 6).expect("words");
        assert_eq!(
            quoted,
            "panic: runtime error: index out of range [5] with length 1\nexit status 2"
        );
    }

    #[test]
    fn a_pythons_traceback_ends_with_its_message() {
        let stderr = "Traceback (most recent call last):\n  File \"/app/a.py\", line 3, in <module>\n    \
                      f()\n  File \"/app/a.py\", line 2, in f\n    return 1 / 0\nZeroDivisionError: division by zero\n";
        let quoted = last_words(stderr, 3).expect("words");
        assert_eq!(
            quoted,
            "  File \"/app/a.py\", line 2, in f\n    return 1 / 0\nZeroDivisionError: division by zero"
        );
        assert_eq!(last_words("\n\n", 3), None);
    }
}
