//! How LLDB tells a program's end: its `exited` event gives a death by a signal as an exit with
//! the signal's number, and -1 for a death while stopped; lldb-server's exit packet, in LLDB's
//! gdb-remote log (which lldb-dap forwards to the console), says which it was.

use crate::adapters::LoggedEnd;

/// LLDB reports a death by a signal as an exit with the signal's number, and a death while
/// the program was stopped as -1. A death by a signal it stopped on is told from that stop, one
/// it never saw coming (SIGKILL) from lldb-server's exit packet in the gdb-remote log, and a -1
/// while stopped is SIGKILL's on Linux (see `SignalReporting::death_while_stopped_code`); a -1
/// read any other way (macOS, Windows) is explained by this note.
pub(super) fn exit_code_note(code: i64) -> Option<String> {
    match code {
        -1 => Some(
            "lldb-dap reports -1 when the program died while stopped (killed, e.g. by SIGKILL); it does not say how".into(),
        ),
        _ => None,
    }
}

/// An exit packet of lldb-server in LLDB's gdb-remote log: "... got packet: X09;process:6b90" is
/// a death by signal 9 (hex), "... got packet: W09" an exit with code 9.
pub(super) fn end_in_gdb_remote_log(line: &str) -> Option<LoggedEnd> {
    let (_, packet) = line.split_once("got packet: ")?;
    let hex = |rest: &str| -> Option<i32> {
        let digits: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
        i32::from_str_radix(&digits, 16).ok()
    };
    match packet.chars().next()? {
        'X' => hex(&packet[1..]).map(LoggedEnd::Signal),
        'W' => hex(&packet[1..]).map(|_| LoggedEnd::Exited),
        _ => None,
    }
}

/// A line of LLDB's log, as lldb-dap forwards it to the console: "1795497639.966 intern-state
/// ProcessGDBRemote::Resume()", a timestamp first.
pub(super) fn is_lldb_log_line(line: &str) -> bool {
    line.split_whitespace().next().is_some_and(|first| {
        first.split_once('.').is_some_and(|(s, f)| {
            !s.is_empty() && s.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_packet_in_the_gdb_remote_log_tells_a_signal_from_a_code() {
        let line = "1795497639.97 b-remote.async>  GDBRemoteClientBase::SendContinuePacketAndWaitForResponse () got packet: X09;process:6b90";
        assert_eq!(end_in_gdb_remote_log(line), Some(LoggedEnd::Signal(9)));
        assert_eq!(
            end_in_gdb_remote_log("got packet: X0b"),
            Some(LoggedEnd::Signal(11))
        );
        assert_eq!(
            end_in_gdb_remote_log("got packet: W09;process:1"),
            Some(LoggedEnd::Exited)
        );
        assert_eq!(end_in_gdb_remote_log("got packet: T05thread:1;"), None);
        assert_eq!(
            end_in_gdb_remote_log("Process 5 exited with status = 9"),
            None
        );
        assert!(is_lldb_log_line(line));
        assert!(!is_lldb_log_line(
            "Process 27536 exited with status = 9 (0x00000009)"
        ));
        assert!(!is_lldb_log_line(""));
    }
}
