//! The lines that say what a listing of values left out, and which command shows it: a value's
//! children past the cap (`--children N` shows them) and its methods (which no flag lists;
//! `print VALUE.NAME` reads one).

use crate::ipc::protocol::CHILDREN_SHOWN;

/// The command that showed a listing, whose `--children N` shows what it left out:
/// `debugger print EXPR` or `debugger locals`, with the flags it was given. `None` where no
/// command can be named (a report of a session that has ended).
#[derive(Debug, Clone, Copy, Default)]
pub struct Reveal<'a>(pub Option<&'a str>);

impl Reveal<'_> {
    /// `` `debugger print arr --children 100` ``, which shows all `total`.
    fn command(self, total: u64) -> Option<String> {
        self.0
            .map(|command| format!("`{command} --children {total}`"))
    }
}

/// `… 68 more not shown: `debugger print arr --children 100`` for a value that showed `shown`
/// of its children and left out `omitted`.
pub fn more_children(omitted: u64, shown: usize, reveal: Reveal) -> String {
    let total = omitted + shown as u64;
    match reveal.command(total) {
        Some(command) => format!("… {omitted} more not shown: {command}"),
        None => format!("… {omitted} more not shown"),
    }
}

/// An object's methods, left out of its members: `print VALUE.NAME` reads one, and no
/// `--children` lists them, so they are not counted with what it would show.
pub const METHODS: &str = "… methods not listed";

/// The line under a frame's locals when some were left out: the `--children` that lists them
/// all, and `print NAME`, which reads any one.
pub fn more_locals(omitted: u64, shown: usize, reveal: Reveal) -> String {
    let total = omitted + shown as u64;
    match reveal.command(total) {
        Some(command) => {
            format!("… {omitted} more not shown: {command} ('debugger print NAME' shows any one)")
        }
        None => format!("… {omitted} more not shown ('debugger print NAME' shows any one)"),
    }
}

/// A stop report's count of the locals it left out, and the `locals` that lists them: with
/// `--children` when there are more than `locals` shows by default.
pub fn stop_report_more(omitted: u64, shown: usize) -> String {
    let total = omitted + shown as u64;
    if total > CHILDREN_SHOWN {
        format!("{omitted} more: `debugger locals --children {total}`")
    } else {
        format!("{omitted} more: `debugger locals`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cut_names_the_command_that_shows_the_rest() {
        let print = Reveal(Some("debugger print arr"));
        assert_eq!(
            more_children(68, 32, print),
            "… 68 more not shown: `debugger print arr --children 100`"
        );
        assert_eq!(more_children(68, 32, Reveal(None)), "… 68 more not shown");
        assert_eq!(
            more_locals(3, 32, Reveal(Some("debugger locals"))),
            "… 3 more not shown: `debugger locals --children 35` ('debugger print NAME' shows any one)"
        );
        assert_eq!(stop_report_more(18, 12), "18 more: `debugger locals`");
        assert_eq!(
            stop_report_more(30, 12),
            "30 more: `debugger locals --children 42`"
        );
    }
}
