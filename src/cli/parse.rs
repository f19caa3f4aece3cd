//! Parsing the command line with clap, at the least cost to a process that runs one command.

use std::ffi::OsString;

use super::args::Cli;

/// Parses the command line. clap builds a tree of every command and flag for each parse; the
/// process ends soon after, so the tree is left undropped: tearing it down was an eighth of what
/// a `debugger --version` executed.
pub(super) fn parse_arguments() -> Result<Cli, clap::Error> {
    parse_from(std::env::args_os().collect())
}

/// [`parse_arguments`] on the arguments given.
fn parse_from(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let command = globals_where_used(Cli::command(), &args);
    let command: &'static mut clap::Command = Box::leak(Box::new(command));
    let mut matches = command.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(command))
}

/// The global flags (`--session`, `--json`) go only to the command that runs.
///
/// clap copies each `global` flag into every subcommand when it builds the top-level command:
/// 74 copies for our 37 commands, about 75k instructions, a sixth of what `debugger --version`
/// executed. Only the command on the command line needs them. So when that command can be told
/// from the arguments (the first one after the top-level flags), the flags become the top
/// level's own and are copied into that command alone, where they stay global for its
/// subcommands (`breakpoint add`); with no command at all (`debugger --version`), into none.
/// clap collects a global flag's value from every level of the path that ran, so `Cli` still
/// gets `--json` and `--session` wherever they were written, and each command's help lists them
/// as before. When the command cannot be told (an unknown flag or command, which clap then
/// reports), the tree stays as clap builds it. The tests compare this parse with clap's own for
/// every command and flag position.
fn globals_where_used(mut command: clap::Command, args: &[OsString]) -> clap::Command {
    const GLOBALS: [&str; 2] = ["session", "json"];
    let invoked = match invoked_command(args) {
        Invoked::Command(name) => match command.find_subcommand(name) {
            Some(found) => Some(found.get_name().to_string()),
            None => return command,
        },
        Invoked::Nothing => None,
        Invoked::Unknown => return command,
    };
    let globals: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|arg| GLOBALS.contains(&arg.get_id().as_str()))
        .cloned()
        .collect();
    for id in GLOBALS {
        command = command.mut_arg(id, |arg| arg.global(false));
    }
    if let Some(invoked) = invoked.and_then(|name| command.find_subcommand_mut(name)) {
        // `arg` numbers each flag for the help listing; the copies keep the top level's numbers,
        // and the command's own flags, added when it is built, start again from 0 as they did.
        *invoked = std::mem::take(invoked).args(globals).next_display_order(0);
    }
    command
}

/// What the command line names, as far as [`globals_where_used`] needs to know.
enum Invoked<'a> {
    /// The first argument after the top-level flags.
    Command(&'a str),
    /// Only top-level flags (`debugger --version`).
    Nothing,
    /// A flag other than `--session`, `--json`, help or version comes first.
    Unknown,
}

fn invoked_command(args: &[OsString]) -> Invoked<'_> {
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        let Some(arg) = arg.to_str() else {
            return Invoked::Unknown;
        };
        match arg {
            "--session" => {
                if rest.next().is_none() {
                    return Invoked::Unknown;
                }
            }
            "--json" | "-h" | "--help" | "-V" | "--version" => {}
            flag if flag.starts_with("--session=") => {}
            flag if flag.starts_with('-') => return Invoked::Unknown,
            command => return Invoked::Command(command),
        }
    }
    Invoked::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// What a parse gives, to compare: the values, or the error's kind and its whole text (help
    /// and version output are errors to clap).
    fn outcome(parsed: Result<Cli, clap::Error>) -> String {
        match parsed {
            Ok(cli) => format!("{cli:?}"),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    /// Every command path (`status`, `breakpoint add`, ...) with values for its required
    /// arguments.
    fn command_lines() -> Vec<(Vec<String>, Vec<String>)> {
        fn required(command: &clap::Command) -> Vec<String> {
            let mut values = Vec::new();
            for arg in command.get_arguments().filter(|a| a.is_required_set()) {
                let value = arg
                    .get_possible_values()
                    .first()
                    .map_or("1".to_string(), |v| v.get_name().to_string());
                if let Some(long) = arg.get_long() {
                    values.push(format!("--{long}"));
                }
                values.push(value);
            }
            values
        }
        let mut root = Cli::command();
        root.build();
        let mut lines = Vec::new();
        for command in root.get_subcommands() {
            let name = command.get_name().to_string();
            lines.push((vec![name.clone()], required(command)));
            for alias in command.get_visible_aliases() {
                lines.push((vec![alias.to_string()], required(command)));
            }
            for sub in command.get_subcommands() {
                let path = vec![name.clone(), sub.get_name().to_string()];
                lines.push((path, required(sub)));
            }
        }
        lines
    }

    #[test]
    fn global_flags_parse_as_clap_builds_them_in_every_position() {
        let strings = |parts: &[&[String]]| -> Vec<String> { parts.concat() };
        let s = |v: &[&str]| -> Vec<String> { v.iter().map(|x| x.to_string()).collect() };
        let mut cases: Vec<Vec<String>> = vec![
            vec![],
            s(&["--version"]),
            s(&["--help"]),
            s(&["-h"]),
            s(&["--json"]),
            s(&["--json", "--version"]),
            s(&["--session", "a"]),
            s(&["--session=a", "--help"]),
            s(&["--session"]),
            s(&["--session", "--json", "status"]),
            s(&["--bogus", "status"]),
            s(&["nosuch", "--json"]),
            s(&["--json", "--", "status"]),
            s(&["start", "prog", "--", "--json", "--session", "x"]),
            s(&["b", "main.c:3", "--json", "--session", "x"]),
            s(&["breakpoint", "--json", "add", "f", "--session=x"]),
        ];
        let mut successes = 0;
        for (path, required) in command_lines() {
            let (head, tail) = path.split_at(1);
            let json = s(&["--json"]);
            let session = s(&["--session", "s1"]);
            let session_eq = s(&["--session=s2"]);
            cases.extend([
                strings(&[&json, &path, &required]),
                strings(&[&path, &required, &json]),
                strings(&[&path, &json, &required]),
                strings(&[head, &json, tail, &required]),
                strings(&[&session, &path, &required]),
                strings(&[&path, &required, &session]),
                strings(&[head, &session_eq, tail, &required, &json]),
                strings(&[&session_eq, &path, &required, &session, &json]),
                strings(&[&path, &required, &s(&["--help"])]),
                strings(&[&json, &path, &s(&["--bogus"])]),
                strings(&[&path, &required, &s(&["--jsn"])]),
            ]);
        }
        for case in &cases {
            let argv: Vec<String> = std::iter::once("debugger".to_string())
                .chain(case.iter().cloned())
                .collect();
            let expected = outcome(Cli::try_parse_from(&argv));
            let got = outcome(parse_from(argv.iter().map(OsString::from).collect()));
            assert_eq!(got, expected, "debugger {}", case.join(" "));
            successes += usize::from(expected.starts_with("Cli {"));
        }
        // The cases are mostly valid command lines, not only errors.
        assert!(
            successes > cases.len() / 2,
            "{successes} of {}",
            cases.len()
        );
    }
}
