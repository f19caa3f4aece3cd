//! The way back from [`schema`](super::schema): a JSON object of arguments, as a front door that
//! speaks JSON receives them (an MCP `tools/call`), turned into the [`CommandLine`] the CLI would
//! have parsed.
//!
//! The object is written out as the words of a command line and parsed by the same clap
//! definitions the CLI uses, so every check clap makes (types, ranges, required and conflicting
//! flags, choices) holds here too, and its message is the one a CLI user would read. Each
//! property names an argument by its id, as the schema lists it: a flag becomes `--long=VALUE`
//! (repeated for an array), a `true` boolean becomes `--long`, positional values come after the
//! flags in their order, and the program's own arguments (`args`) come after `--`.

use std::sync::OnceLock;

use clap::{ArgAction, FromArgMatches};
use serde_json::{Map, Value};

use super::CommandLine;
use super::schema;
use crate::common::error::ErrorBody;

/// The command one call names: `members` is the one command a front-door tool stands for, or the
/// several it chooses among with `action` (see [`schema::family`](super::schema::family)).
/// Unknown properties and values clap refuses are usage errors that say which.
pub fn command_line(
    members: &[&str],
    arguments: &Map<String, Value>,
) -> Result<CommandLine, ErrorBody> {
    let mut arguments = arguments.clone();
    let name = match members {
        [one] => (*one).to_string(),
        _ => match arguments.remove("action") {
            Some(Value::String(action)) if members.contains(&action.as_str()) => action,
            Some(other) => {
                return Err(usage(format!(
                    "'action' is {other}, not one of {}",
                    members.join(", ")
                )));
            }
            None => {
                return Err(usage(format!(
                    "'action' is required: one of {}",
                    members.join(", ")
                )));
            }
        },
    };
    let command = built(&name).ok_or_else(|| usage(format!("'{name}' is not a command")))?;
    let command = &command;
    let mut words = vec!["debugger".to_string(), name.clone()];
    let action = match arguments.remove("action") {
        None => None,
        Some(Value::String(action)) => Some(
            command
                .find_subcommand(&action)
                .ok_or_else(|| usage(format!("'{action}' is not an action of {name}")))?,
        ),
        Some(other) => return Err(usage(format!("'action' must be a string, not {other}"))),
    };
    let after_action = match action {
        Some(sub) => {
            let mut sub_words = vec![sub.get_name().to_string()];
            sub_words.extend(words_of(sub, &mut arguments)?);
            sub_words
        }
        None => Vec::new(),
    };
    words.extend(words_of(command, &mut arguments)?);
    words.extend(after_action);
    if let Some(unknown) = arguments.keys().next() {
        return Err(usage(format!("'{name}' takes no argument '{unknown}'")));
    }
    // A tree of the one command called, already built: building every command's flags for
    // each call cost milliseconds.
    let mut root = clap::Command::new("debugger")
        .disable_help_subcommand(true)
        .subcommand(command.clone());
    let parsed = root
        .try_get_matches_from_mut(&words)
        .and_then(|mut matches| CommandLine::from_arg_matches_mut(&mut matches));
    parsed.map_err(|e| {
        let message = clap_message(&e);
        usage(property_names(&message, command))
    })
}

/// clap's message with each flag written as the property it is here: `'--limit <N>'` becomes
/// `'limit'`, `<LOC>` becomes `'locations'`, so the message names what the caller sent.
fn property_names(message: &str, command: &clap::Command) -> String {
    let mut message = message.to_string();
    let commands: Vec<&clap::Command> = std::iter::once(command)
        .chain(command.get_subcommands())
        .collect();
    let arguments = || commands.iter().flat_map(|c| c.get_arguments());
    let names_of = |arg: &clap::Arg| -> Vec<String> {
        arg.get_value_names()
            .map(|names| names.iter().map(|n| n.to_string()).collect())
            .unwrap_or_else(|| vec![arg.get_id().as_str().to_uppercase()])
    };
    // Flags first, with their values as clap writes them; then positionals (`<LOC>...`,
    // `[PROGRAM]`), quoted or not.
    for arg in arguments() {
        if let Some(long) = arg.get_long() {
            let id = format!("'{}'", arg.get_id());
            let values: Vec<String> = names_of(arg).iter().map(|n| format!("<{n}>")).collect();
            let written = format!("--{long} {}", values.join(" "));
            message = message.replace(&format!("'{written}'"), &id);
            message = message.replace(&format!("'--{long}'"), &id);
            message = replace_word(&message, &format!("--{long}"), &id);
        }
    }
    for arg in arguments().filter(|a| a.is_positional()) {
        let id = format!("'{}'", arg.get_id());
        for name in names_of(arg) {
            for form in [format!("<{name}>"), format!("[{name}]")] {
                for written in [format!("'{form}...'"), format!("'{form}'")] {
                    message = message.replace(&written, &id);
                }
                message = message.replace(&format!("{form}..."), &id);
                message = message.replace(&form, &id);
            }
        }
    }
    message
}

/// `text` with each whole word `word` (not `--waits` for `--wait`) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let end = at + word.len();
        let before_ok = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '-');
        let after_ok = rest[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_');
        out.push_str(&rest[..at]);
        out.push_str(if before_ok && after_ok { with } else { word });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The command `name` with its flags built, from a tree built once per process.
fn built(name: &str) -> Option<clap::Command> {
    static ROOT: OnceLock<clap::Command> = OnceLock::new();
    ROOT.get_or_init(schema::root)
        .find_subcommand(name)
        .cloned()
}

/// The words for the arguments of `command` found in `arguments`, which are taken out of it.
fn words_of(
    command: &clap::Command,
    arguments: &mut Map<String, Value>,
) -> Result<Vec<String>, ErrorBody> {
    let mut flags = Vec::new();
    let mut positionals: Vec<(usize, Vec<String>)> = Vec::new();
    let mut last = Vec::new();
    for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
        let id = arg.get_id().as_str();
        let Some(value) = arguments.remove(id) else {
            continue;
        };
        if matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse) {
            match value {
                Value::Bool(true) => flags.push(flag_name(arg)),
                Value::Bool(false) | Value::Null => {}
                other => return Err(usage(format!("'{id}' must be true or false, not {other}"))),
            }
            continue;
        }
        let values = values(id, value)?;
        if arg.is_last_set() {
            last.extend(values);
        } else if arg.is_positional() {
            positionals.push((arg.get_index().unwrap_or(usize::MAX), values));
        } else {
            let name = flag_name(arg);
            flags.extend(values.into_iter().map(|v| format!("{name}={v}")));
        }
    }
    positionals.sort_by_key(|(index, _)| *index);
    let positionals: Vec<String> = positionals.into_iter().flat_map(|(_, v)| v).collect();
    // Text that starts with '-' would read as a flag: after `--` it is text, when no `--` is
    // needed for the program's own arguments.
    let dashed = positionals
        .iter()
        .any(|p| p.starts_with('-') && p.parse::<f64>().is_err());
    let mut words = flags;
    if dashed && last.is_empty() {
        words.push("--".to_string());
    }
    words.extend(positionals);
    if !last.is_empty() {
        words.push("--".to_string());
        words.extend(last);
    }
    Ok(words)
}

/// How the flag is written on a command line.
fn flag_name(arg: &clap::Arg) -> String {
    match (arg.get_long(), arg.get_short()) {
        (Some(long), _) => format!("--{long}"),
        (None, Some(short)) => format!("-{short}"),
        (None, None) => format!("--{}", arg.get_id()),
    }
}

/// A property's values as command-line words: one for a scalar, one each for an array's items.
fn values(id: &str, value: Value) -> Result<Vec<String>, ErrorBody> {
    let word = |value: Value| match value {
        Value::String(text) => Ok(text),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(usage(format!(
            "'{id}' takes text, numbers or a list of them, not {other}"
        ))),
    };
    match value {
        Value::Array(items) => items.into_iter().map(word).collect(),
        Value::Null => Ok(Vec::new()),
        scalar => Ok(vec![word(scalar)?]),
    }
}

/// clap's refusal on one line, without its usage block.
pub fn clap_message(e: &clap::Error) -> String {
    e.to_string()
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
}

fn usage(message: String) -> ErrorBody {
    ErrorBody::usage(
        message,
        "the tool's input schema lists its arguments, their types and defaults",
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parsed(members: &[&str], arguments: Value) -> Result<String, String> {
        let Value::Object(map) = arguments else {
            panic!("not an object");
        };
        command_line(members, &map)
            .map(|c| format!("{c:?}"))
            .map_err(|e| e.message)
    }

    #[test]
    fn properties_become_the_command_line_the_cli_parses() {
        let start = parsed(
            &["start"],
            json!({"program": "./app", "breakpoints": ["a.c:3", "main"], "stop_on_entry": true,
                   "env": "K=V", "args": ["--verbose", "-x"]}),
        );
        let start = start.unwrap_or_else(|e| panic!("{e}"));
        for part in [
            r#"program: Some("./app")"#,
            r#"breakpoints: ["a.c:3", "main"]"#,
            "stop_on_entry: true",
            r#"env: ["K=V"]"#,
            r#"args: ["--verbose", "-x"]"#,
        ] {
            assert!(start.contains(part), "{part} in {start}");
        }
        let backtrace = parsed(&["backtrace"], json!({"limit": 3})).unwrap_or_default();
        assert!(backtrace.contains("limit: 3"), "{backtrace}");
        let print = parsed(&["print"], json!({"expression": "-x"})).unwrap_or_default();
        assert!(print.contains(r#"["-x"]"#), "{print}");
    }

    #[test]
    fn a_family_takes_its_command_from_action() {
        let next = parsed(
            &["continue", "next", "pause"],
            json!({"action": "next", "wait": true, "timeout": 5, "locals": "changed",
                   "print": ["x", "y + 1"]}),
        );
        assert_eq!(
            next,
            Ok(r#"Next(WaitArgs { wait: true, timeout: 5.0, locals: Some(Changed), print: ["x", "y + 1"] })"#.to_string())
        );
        let missing = parsed(&["continue", "next"], json!({"wait": true}));
        assert!(missing.is_err_and(|e| e.contains("'action' is required")));
        let wrong = parsed(&["continue", "next"], json!({"action": "stop"}));
        assert!(wrong.is_err_and(|e| e.contains("not one of continue, next")));
    }

    #[test]
    fn subcommands_are_actions_and_their_flags_follow_them() {
        let add = parsed(
            &["breakpoint"],
            json!({"action": "add", "locations": "app.c:7", "condition": "i > 2"}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            add.contains("app.c:7") && add.contains(r#"Some("i > 2")"#),
            "{add}"
        );
        let remove = parsed(&["breakpoint"], json!({"action": "remove", "ids": [1, 2]}));
        assert!(remove.is_ok_and(|r| r.contains("ids: [1, 2]")));
        let modify = parsed(
            &["breakpoint"],
            json!({"action": "modify", "ids": [3], "condition": "n > 1", "no_hit_count": true}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            modify.contains("Modify")
                && modify.contains(r#"condition: Some("n > 1")"#)
                && modify.contains("no_hit_count: true"),
            "{modify}"
        );
        let both = parsed(
            &["breakpoint"],
            json!({"action": "modify", "ids": [3], "condition": "n", "no_condition": true}),
        );
        assert!(
            both.as_ref()
                .is_err_and(|e| e.contains("'condition'") && e.contains("'no_condition'")),
            "{both:?}"
        );
    }

    #[test]
    fn what_clap_refuses_is_a_usage_error_naming_it() {
        let unknown = parsed(&["status"], json!({"bogus": 1}));
        assert_eq!(
            unknown,
            Err("'status' takes no argument 'bogus'".to_string())
        );
        let bad = parsed(&["backtrace"], json!({"limit": "many"}));
        assert!(
            bad.as_ref()
                .is_err_and(|e| e.starts_with("invalid value 'many' for 'limit':")),
            "clap's own message, naming the property: {bad:?}"
        );
        let missing = parsed(&["breakpoint"], json!({"action": "enable"}));
        assert!(
            missing.as_ref().is_err_and(|e| e.contains("'ids'")),
            "{missing:?}"
        );
        let flag = parsed(&["start"], json!({"program": "a", "stop_on_entry": "yes"}));
        assert!(flag.is_err_and(|e| e.contains("true or false")));
        let needs = parsed(&["continue"], json!({"timeout": 3}));
        assert_eq!(
            needs,
            Err("the following required arguments were not provided: 'wait'".to_string()),
            "requires holds"
        );
        let both = parsed(&["start"], json!({"program": "x", "module": "y"}));
        assert_eq!(
            both,
            Err("the argument 'module' cannot be used with 'program'".to_string())
        );
        assert_eq!(
            replace_word("--wait, --waits", "--wait", "'w'"),
            "'w', --waits"
        );
    }
}
