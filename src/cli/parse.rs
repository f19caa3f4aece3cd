//! Parsing the command line with clap, at the least cost to a process that runs one command.

use std::ffi::OsString;

use super::args::Cli;

/// Parses a one-shot process's command line. clap builds a tree of every command and flag for
/// each parse; this process ends soon after, so the tree is left undropped: tearing it down was
/// an eighth of what a `debugger --version` executed. So this parse is for the CLI alone: a
/// front door that lives on builds its `CommandLine` values itself and calls `commands::run`.
///
/// A breakpoint subcommand word left alone (`debugger break add`) names a function: see
/// [`as_function_breakpoint`]. When the rewritten arguments fail too, clap's error is about what
/// the user wrote, so that is the one returned.
pub(super) fn parse_for_this_process(args: &[OsString]) -> Result<Cli, clap::Error> {
    if let Some(rewritten) = help_as_flag(args) {
        return parse_from(&rewritten);
    }
    parse_from(args)
        .or_else(|error| match as_function_breakpoint(args, &error) {
            Some(rewritten) => parse_from(&rewritten).map_err(|_| error),
            None => Err(error),
        })
        .map_err(|error| with_parent_command(args, error))
}

/// `debugger rm 1` answered with the command it is a word of: `debugger breakpoint remove 1`.
///
/// A word that is no command but a subcommand (or an alias of one) of a command, as `rm`,
/// `delete`, `ls`, `enable` are of `breakpoint` (gdb's `delete 1` is a habit), gets a tip with
/// the whole command line it would be; clap's own tip only knows names spelled alike.
fn with_parent_command(args: &[OsString], mut error: clap::Error) -> clap::Error {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::InvalidSubcommand {
        return error;
    }
    let Invoked::Command { index, name } = invoked_command(args) else {
        return error;
    };
    let mut root = Cli::command();
    root.build();
    let found = root.get_subcommands().find_map(|command| {
        let sub = command.find_subcommand(name)?;
        Some([command.get_name().to_string(), sub.get_name().to_string()])
    });
    let Some(words) = found else {
        return error;
    };
    let line: Vec<String> = std::iter::once("debugger".to_string())
        .chain(
            args[1..index]
                .iter()
                .map(|a| a.to_string_lossy().into_owned()),
        )
        .chain(words)
        .chain(
            args[index + 1..]
                .iter()
                .map(|a| a.to_string_lossy().into_owned()),
        )
        .collect();
    let tip = format!("did you mean '{}'?", line.join(" "));
    error.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
    error
}

/// clap's parse of the arguments given, with the global flags placed as
/// [`globals_where_used`] explains.
fn parse_from(args: &[OsString]) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut command = globals_where_used(Cli::command(), args);
    let parsed = command
        .try_get_matches_from_mut(args)
        .and_then(|mut matches| {
            Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command))
        });
    std::mem::forget(command);
    parsed
}

/// `debugger help [COMMAND...]` read as `debugger [COMMAND...] --help`, the same text.
///
/// clap's own `help` subcommand is off: it would be built into the tree of every parse, and it
/// would list itself among the commands. `None` when the command is not `help`.
fn help_as_flag(args: &[OsString]) -> Option<Vec<OsString>> {
    let Invoked::Command {
        index,
        name: "help",
    } = invoked_command(args)
    else {
        return None;
    };
    let mut rewritten = args.to_vec();
    rewritten.remove(index);
    rewritten.push(OsString::from("--help"));
    Some(rewritten)
}

/// `debugger break add` read as `debugger break add add`: a breakpoint on the function `add`.
///
/// Programs have functions named `add`, `remove`, `enable`, ... and `debugger break NAME` is how
/// people set a breakpoint on a function; but clap takes such a NAME as the subcommand, which
/// then lacks its argument. So when clap fails for exactly that reason (a subcommand of
/// `breakpoint` missing its required argument), the word is the location of an `add`: these
/// arguments with `add` put before it. Anything else the word is given (`break enable 2`,
/// `break remove --all`) keeps the subcommand, and so does `list`, which needs no argument;
/// `break add LOC` stays the explicit form. `None` when the rule does not apply.
fn as_function_breakpoint(args: &[OsString], error: &clap::Error) -> Option<Vec<OsString>> {
    use clap::CommandFactory;
    if error.kind() != clap::error::ErrorKind::MissingRequiredArgument {
        return None;
    }
    let Invoked::Command { index, name } = invoked_command(args) else {
        return None;
    };
    let mut root = Cli::command();
    root.build();
    let breakpoint = root
        .find_subcommand(name)
        .filter(|command| command.get_name() == "breakpoint")?;
    // The word right after the command: after a flag (`break --json add`) clap already takes
    // it as a location.
    let at = index + 1;
    breakpoint.find_subcommand(args.get(at)?.to_str()?)?;
    let mut rewritten = args.to_vec();
    rewritten.insert(at, OsString::from("add"));
    Some(rewritten)
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
/// among its own. When the command cannot be told (an unknown flag or command, which clap then
/// reports), the tree stays as clap builds it. The tests compare this parse with clap's own for
/// every command and flag position.
fn globals_where_used(mut command: clap::Command, args: &[OsString]) -> clap::Command {
    const GLOBALS: [&str; 2] = ["session", "json"];
    let invoked = match invoked_command(args) {
        Invoked::Command { name, .. } => match command.find_subcommand(name) {
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
    /// The first argument after the top-level flags, and its position in the arguments.
    Command { index: usize, name: &'a str },
    /// Only top-level flags (`debugger --version`).
    Nothing,
    /// A flag other than `--session`, `--json`, help or version comes first.
    Unknown,
}

fn invoked_command(args: &[OsString]) -> Invoked<'_> {
    let mut rest = args.iter().enumerate().skip(1);
    while let Some((index, arg)) = rest.next() {
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
            name => return Invoked::Command { index, name },
        }
    }
    Invoked::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[OsString]) -> Result<Cli, clap::Error> {
        parse_for_this_process(args)
    }
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

    /// What `debugger ARGS` does with breakpoints: `add LOC... if CONDITION` (written with or
    /// without the `add` word), another action, or clap's error kind.
    fn breakpoint_action(args: &[&str]) -> Result<String, clap::error::ErrorKind> {
        use crate::cli::args::Role;
        use crate::commands::CommandLine;
        use crate::commands::breakpoint::BreakpointAction;
        let argv: Vec<OsString> = std::iter::once("debugger")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        let cli = parse(&argv).map_err(|e| e.kind())?;
        let Role::Command(command) = cli.role else {
            panic!("not a command: {cli:?}");
        };
        let CommandLine::Breakpoint(breakpoint) = *command else {
            panic!("not a breakpoint command");
        };
        let (locations, options) = match breakpoint.action {
            Some(BreakpointAction::Add { locations, options }) => (locations, options),
            None => (breakpoint.locations, breakpoint.options),
            Some(other) => return Ok(format!("{other:?}")),
        };
        Ok(format!("add {locations:?} if {:?}", options.condition))
    }

    fn add(locations: &[&str]) -> Result<String, clap::error::ErrorKind> {
        Ok(format!("add {locations:?} if None"))
    }

    #[test]
    fn a_breakpoint_subcommand_word_alone_is_a_function_name() {
        for command in ["breakpoint", "break", "b"] {
            for word in ["add", "remove", "delete", "rm", "enable", "disable"] {
                assert_eq!(
                    breakpoint_action(&[command, word]),
                    add(&[word]),
                    "{command} {word}"
                );
            }
            for list in ["list", "ls"] {
                assert_eq!(breakpoint_action(&[command, list]), Ok("List".to_string()));
            }
        }
        // The explicit form, and the global flags anywhere around the word.
        assert_eq!(breakpoint_action(&["break", "add", "add"]), add(&["add"]));
        for args in [
            &["--json", "break", "add"][..],
            &["break", "--json", "add"],
            &["break", "add", "--session", "s", "--json"],
            &["--session=s", "b", "--session=t", "add"],
        ] {
            assert_eq!(breakpoint_action(args), add(&["add"]), "{args:?}");
        }
        assert_eq!(
            breakpoint_action(&["break", "add", "--condition", "x > 1"]),
            Ok(r#"add ["add"] if Some("x > 1")"#.to_string())
        );
        // A flag only `add` takes, after another word, is no such word alone: the explicit
        // form says it (`break add enable --condition ...`).
        assert_eq!(
            breakpoint_action(&["break", "enable", "--condition", "x > 1"]),
            Err(clap::error::ErrorKind::UnknownArgument)
        );
    }

    #[test]
    fn a_subcommand_alone_is_answered_with_its_command() {
        for (words, expected) in [
            (&["rm", "1"][..], "debugger breakpoint remove 1"),
            (
                &["--json", "delete", "2", "3"],
                "debugger --json breakpoint remove 2 3",
            ),
            (&["ls"], "debugger breakpoint list"),
        ] {
            let error = parse(&argv(words)).expect_err("no such command");
            let text = error.render().to_string();
            assert!(
                text.contains(&format!("tip: did you mean '{expected}'?")),
                "{words:?}: {text}"
            );
        }
        let other = parse(&argv(&["nosuch"])).expect_err("no such command");
        assert!(!other.render().to_string().contains("did you mean"));
    }

    #[test]
    fn a_subcommand_given_what_it_takes_keeps_its_meaning() {
        assert_eq!(
            breakpoint_action(&["break", "enable", "2"]),
            Ok("Enable { ids: [2] }".to_string())
        );
        assert_eq!(
            breakpoint_action(&["break", "remove", "--all"]),
            Ok("Remove { ids: [], all: true }".to_string())
        );
        assert_eq!(
            breakpoint_action(&["break", "main.c:3"]),
            add(&["main.c:3"])
        );
        // A bad id is still an error about the id, not a breakpoint on two functions.
        assert_eq!(
            breakpoint_action(&["break", "enable", "x"]),
            Err(clap::error::ErrorKind::ValueValidation)
        );
        assert_eq!(
            breakpoint_action(&["break", "disable", "--bogus"]),
            Err(clap::error::ErrorKind::UnknownArgument)
        );
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
            let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
            let got = outcome(parse_from(&argv));
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

    fn argv(args: &[&str]) -> Vec<OsString> {
        std::iter::once("debugger")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn help_names_a_command_as_the_help_flag_does() {
        for (words, flagged) in [
            (&["help"][..], &["--help"][..]),
            (&["help", "start"], &["start", "--help"]),
            (&["help", "break", "add"], &["break", "add", "--help"]),
            (
                &["--json", "help", "memory"],
                &["--json", "memory", "--help"],
            ),
        ] {
            let got = outcome(parse(&argv(words)));
            assert_eq!(got, outcome(parse(&argv(flagged))), "{words:?}");
            assert!(got.starts_with("DisplayHelp"), "{words:?}: {got}");
        }
        let unknown = outcome(parse(&argv(&["help", "nosuch"])));
        assert!(
            unknown.contains("unrecognized subcommand 'nosuch'"),
            "{unknown}"
        );
    }

    /// Free text (`raw`, `print`, `eval`, `set`, `memory read`) ends at a flag: the global flags
    /// written after it are flags, never words of the text; a negative number is text.
    #[test]
    fn free_text_stops_at_the_flags_after_it() {
        use crate::cli::args::Role;
        use crate::commands::CommandLine;
        use crate::commands::memory::MemoryAction;
        let cases: [(&[&str], &[&str]); 6] = [
            (&["raw", "p 1", "--session", "e3", "--json"], &["p 1"]),
            (
                &["raw", "process", "kill", "--session=e3", "--json"],
                &["process", "kill"],
            ),
            (
                &["print", "a", "+", "b", "--session", "e3", "--json"],
                &["a", "+", "b"],
            ),
            (&["eval", "x", "--json", "--session", "e3"], &["x"]),
            (
                &["set", "x", "-1", "--session", "e3", "--json"],
                &["x", "-1"],
            ),
            (
                &["memory", "read", "&g", "--session", "e3", "--json"],
                &["&g"],
            ),
        ];
        for (args, text) in cases {
            let cli = parse(&argv(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert_eq!((cli.session.as_str(), cli.json), ("e3", true), "{args:?}");
            let Role::Command(command) = cli.role else {
                panic!("{args:?}: not a command");
            };
            let words: Vec<String> = match *command {
                CommandLine::Raw(raw) => raw.text,
                CommandLine::Print(print) => print.expression,
                CommandLine::Eval(eval) => eval.expression,
                CommandLine::Set(set) => std::iter::once(set.name).chain(set.value).collect(),
                CommandLine::Memory(memory) => match memory.action {
                    MemoryAction::Read { target, .. } => target,
                },
                other => panic!("{args:?}: {other:?}"),
            };
            assert_eq!(words, text, "{args:?}");
        }
        // Text that starts with '-' (other than a number) comes after `--`.
        let dashed = parse(&argv(&["raw", "--", "-h", "x"])).map(|cli| format!("{:?}", cli.role));
        assert!(dashed.is_ok_and(|role| role.contains(r#"["-h", "x"]"#)));
        let plain = parse(&argv(&["raw", "-h", "x"])).map_err(|e| e.kind());
        assert!(plain.is_err(), "{plain:?}");
    }
}
