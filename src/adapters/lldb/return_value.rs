//! The value a `finish` returned, as lldb tells it: lldb-dap 19 puts it in no variable, but the
//! thread keeps it after a step out, and `thread info` prints it.

use crate::adapters::return_value::ReturnedValue;

/// The console command whose answer holds it.
pub const COMMAND: &str = "thread info";

/// Reads `Return value: (long) $0 = 9` from `thread info`'s answer; `None` when there is no
/// such line (a function returning void, or a stop that was not a step out).
pub fn read(answer: &str) -> Option<ReturnedValue> {
    let line = answer
        .lines()
        .find_map(|line| line.trim().strip_prefix("Return value:"))?
        .trim();
    let (type_name, rest) = match line.strip_prefix('(') {
        Some(rest) => {
            let close = rest.find(") ")?;
            (Some(rest[..close].to_string()), &rest[close + 2..])
        }
        None => (None, line),
    };
    // `$0 = 9`: the history name lldb gave it is not the value.
    let value = match rest.split_once(" = ") {
        Some((name, value)) if name.starts_with('$') => value,
        _ => rest,
    };
    Some(ReturnedValue {
        value: value.trim().to_string(),
        type_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_and_its_type_are_read_from_thread_info() {
        let answer = "thread #1: tid = 1, 0x1 ledger`main at ledger.c:48:22, stop reason = step out\nReturn value: (long) $0 = 9\n";
        assert_eq!(
            read(answer),
            Some(ReturnedValue {
                value: "9".into(),
                type_name: Some("long".into())
            })
        );
        let text = "Return value: (const char *) $3 = 0x0000555555556008 \"alice\"";
        assert_eq!(
            read(text).map(|r| r.value),
            Some("0x0000555555556008 \"alice\"".into())
        );
        assert_eq!(read("thread #1: tid = 1, stop reason = step out\n"), None);
    }
}
