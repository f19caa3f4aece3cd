//! A JSON Schema for each command's arguments, derived from its clap definition: the same flags,
//! help text, defaults and choices the CLI parses, for a front door that takes arguments as a
//! JSON object (an MCP tool's `inputSchema`). Nothing is written twice, so a flag added to a
//! command appears in its schema with no other change.
//!
//! The schema is what JSON Schema can say of a flag: its name (the field's name, `hit_count`),
//! its type (boolean, integer, number, string, or an array of them when it repeats or takes many
//! values), its help as the description, its default, its choices, and whether it is required.
//! Rules between flags (`--none` conflicts with filters, `--timeout` needs `--wait`) stay in the
//! help text and in clap, which checks them when the arguments are parsed.

use std::any::TypeId;

use clap::ArgAction;
use serde_json::{Map, Value, json};

use super::CommandLine;

/// The schema of `name`'s arguments (a command or one of its aliases), or `None` for a name that
/// is not a command. A command with subcommands (`breakpoint add`, `memory read`) has an `action`
/// property naming one, and the properties of all of them, each described with the actions it
/// belongs to (the command's own arguments hold for every action).
pub fn arguments(name: &str) -> Option<Value> {
    let root = root();
    let command = root.find_subcommand(name)?;
    Some(described(command))
}

/// The schema of one front-door tool that stands for several commands (`execute` for
/// `continue`, `next`, `step`, `finish` and `pause`): an `action` property names the command,
/// and the properties of all of them are described with the commands that take them, as a
/// command's subcommands are. `None` when one of `members` is not a command.
pub fn family(name: &'static str, members: &[&str]) -> Option<Value> {
    let root = root();
    let mut family = clap::Command::new(name)
        .disable_help_subcommand(true)
        .subcommand_required(true);
    for member in members {
        family = family.subcommand(root.find_subcommand(member)?.clone());
    }
    family.build();
    Some(described(&family))
}

/// The command tree as the CLI builds it: no generated `help` subcommand at any level, every
/// command's flags built.
pub(super) fn root() -> clap::Command {
    let mut root = clap::Command::new("debugger").disable_help_subcommand(true);
    root = <CommandLine as clap::Subcommand>::augment_subcommands(root);
    root.build();
    root
}

/// The schema of a built command: its own arguments, and its subcommands as an `action`.
fn described(command: &clap::Command) -> Value {
    let mut schema = Schema::default();
    schema.add_arguments(command, None);
    let actions: Vec<&clap::Command> = command.get_subcommands().collect();
    if !actions.is_empty() {
        let names: Vec<&str> = actions.iter().map(|a| a.get_name()).collect();
        let mut action = json!({ "type": "string", "enum": names });
        let descriptions: Vec<String> = actions
            .iter()
            .map(|a| format!("{}: {}", a.get_name(), help_text(a.get_about())))
            .collect();
        action["description"] = Value::String(descriptions.join("\n"));
        schema.properties.insert("action".into(), action);
        if command.is_subcommand_required_set() {
            schema.required.push("action".into());
        }
        for sub in actions {
            schema.add_arguments(sub, Some(sub.get_name()));
        }
    }
    schema.into_value()
}

/// The names of every command that has a schema, as the CLI lists them (aliases left out).
pub fn command_names() -> Vec<String> {
    let root = <CommandLine as clap::Subcommand>::augment_subcommands(clap::Command::new("x"));
    root.get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

#[derive(Default)]
struct Schema {
    properties: Map<String, Value>,
    required: Vec<String>,
    /// The command's own arguments, which hold for every action (`breakpoint LOC --condition C`
    /// is `breakpoint add`'s shorthand): an action's argument of the same name adds nothing.
    own: Vec<String>,
    /// For an argument of the actions only, which actions take it.
    actions_of: Map<String, Value>,
}

impl Schema {
    /// Adds `command`'s own arguments; `action` is the subcommand they belong to, if any.
    fn add_arguments(&mut self, command: &clap::Command, action: Option<&str>) {
        let arguments = command
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !a.is_global_set())
            .filter(|a| !matches!(a.get_action(), ArgAction::Help | ArgAction::Version));
        for arg in arguments {
            let name = arg.get_id().as_str().to_string();
            let own = action.is_none();
            if own {
                self.own.push(name.clone());
                if arg.is_required_set() {
                    self.required.push(name.clone());
                }
            } else if let Some(action) = action.filter(|_| !self.own.contains(&name)) {
                let actions = self
                    .actions_of
                    .entry(name.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = actions {
                    list.push(Value::String(action.to_string()));
                }
            }
            self.properties.entry(name).or_insert_with(|| property(arg));
        }
    }

    fn into_value(mut self) -> Value {
        for (name, actions) in &self.actions_of {
            let Some(property) = self.properties.get_mut(name) else {
                continue;
            };
            let list: Vec<&str> = actions
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let described = property["description"].as_str().unwrap_or_default();
            property["description"] = Value::String(format!("({}) {described}", list.join(", ")));
        }
        let mut schema = json!({
            "type": "object",
            "properties": self.properties,
            "additionalProperties": false,
        });
        if !self.required.is_empty() {
            schema["required"] = json!(self.required);
        }
        schema
    }
}

/// One argument's schema.
fn property(arg: &clap::Arg) -> Value {
    let many = matches!(arg.get_action(), ArgAction::Append)
        || arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let mut item = match arg.get_action() {
        ArgAction::SetTrue | ArgAction::SetFalse => json!({ "type": "boolean" }),
        _ => value_type(arg),
    };
    let choices: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if !choices.is_empty() {
        item["enum"] = json!(choices);
    }
    let mut schema = if many {
        json!({ "type": "array", "items": item })
    } else {
        item
    };
    schema["description"] = Value::String(help_text(arg.get_help()));
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if let [default] = defaults.as_slice()
        && !matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse)
    {
        schema["default"] = typed_default(&schema, default);
    }
    schema
}

/// The JSON type of the values clap parses the argument into.
fn value_type(arg: &clap::Arg) -> Value {
    let parsed = arg.get_value_parser().type_id();
    let integers = [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
    ];
    let signed = [
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<isize>(),
    ];
    if integers.iter().any(|t| parsed == *t) {
        json!({ "type": "integer", "minimum": 0 })
    } else if signed.iter().any(|t| parsed == *t) {
        json!({ "type": "integer" })
    } else if parsed == TypeId::of::<f64>() || parsed == TypeId::of::<f32>() {
        json!({ "type": "number" })
    } else {
        json!({ "type": "string" })
    }
}

/// A default as a value of the property's type (clap keeps defaults as text).
fn typed_default(schema: &Value, text: &str) -> Value {
    match schema["type"].as_str() {
        Some("integer") => text.parse::<i64>().map_or(json!(text), |n| json!(n)),
        Some("number") => text.parse::<f64>().map_or(json!(text), |n| json!(n)),
        _ => json!(text),
    }
}

fn help_text(help: Option<&clap::builder::StyledStr>) -> String {
    help.map(|h| {
        h.to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(name: &str) -> Value {
        arguments(name).unwrap_or_else(|| panic!("no schema for {name}"))
    }

    #[test]
    fn every_command_has_an_object_schema() {
        let names = command_names();
        assert!(names.len() > 30, "{names:?}");
        for name in names {
            let schema = schema(&name);
            assert_eq!(schema["type"], "object", "{name}: {schema}");
        }
        assert!(arguments("no-such-command").is_none());
    }

    #[test]
    fn flags_become_typed_properties_with_their_help_and_defaults() {
        let start = schema("start");
        let properties = &start["properties"];
        assert_eq!(properties["program"]["type"], "string");
        assert_eq!(properties["stop_on_entry"]["type"], "boolean");
        assert_eq!(properties["breakpoints"]["type"], "array");
        assert_eq!(properties["breakpoints"]["items"]["type"], "string");
        assert_eq!(properties["args"]["type"], "array");
        assert!(
            properties["env"]["description"]
                .as_str()
                .is_some_and(|d| d.contains("environment variable")),
            "{start}"
        );
        // A program or a module: neither alone is required.
        assert!(start.get("required").is_none(), "{start}");
        assert_eq!(properties["module"]["type"], "string");
        let probe = schema("probe");
        // Breakpoints, or a test (`--test`) whose failure stands for them, or --on-crash:
        // none alone is required.
        assert!(probe.get("required").is_none(), "{probe}");
        assert_eq!(probe["properties"]["test"]["type"], "string");
        assert_eq!(probe["properties"]["on_crash"]["type"], "boolean");
        assert!(
            properties.get("session").is_none(),
            "globals are the caller's: {start}"
        );
        assert!(properties.get("help").is_none(), "{start}");

        let backtrace = schema("bt");
        assert_eq!(backtrace["properties"]["limit"]["type"], "integer");
        assert_eq!(backtrace["properties"]["limit"]["default"], 20);
        assert_eq!(backtrace["properties"]["thread"]["type"], "integer");
        assert!(backtrace["properties"]["thread"].get("minimum").is_none());

        let wait = schema("continue");
        assert_eq!(wait["properties"]["timeout"]["type"], "number");
        assert_eq!(wait["properties"]["timeout"]["default"], 300.0);

        let watch = schema("watch");
        assert_eq!(
            watch["properties"]["access"]["enum"],
            json!(["write", "read", "readWrite"])
        );
        assert_eq!(watch["properties"]["access"]["default"], "write");
    }

    #[test]
    fn a_family_of_commands_is_one_schema_with_an_action() {
        let evaluate = family("evaluate", &["print", "eval", "set"]).expect("evaluate");
        assert_eq!(evaluate["required"], json!(["action"]));
        assert_eq!(
            evaluate["properties"]["action"]["enum"],
            json!(["print", "eval", "set"])
        );
        let action = evaluate["properties"]["action"]["description"]
            .as_str()
            .unwrap_or_default();
        assert!(
            action.starts_with("print: Evaluate an expression"),
            "{action}"
        );
        let expression = &evaluate["properties"]["expression"];
        assert_eq!(expression["type"], "array");
        assert!(
            expression["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("(print, eval) ")),
            "{expression}"
        );
        assert!(
            evaluate["properties"]["value"]["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("(set) "))
        );
        let execute = family("execute", &["continue", "pause"]).expect("execute");
        assert_eq!(execute["properties"]["timeout"]["default"], 300.0);
        assert!(family("x", &["continue", "no-such"]).is_none());
    }

    #[test]
    fn subcommands_become_an_action_with_each_ones_properties() {
        let breakpoint = schema("breakpoint");
        assert_eq!(
            breakpoint["properties"]["action"]["enum"],
            json!(["add", "modify", "remove", "list", "enable", "disable"])
        );
        let ids = &breakpoint["properties"]["ids"];
        assert_eq!(ids["type"], "array");
        assert_eq!(ids["items"]["type"], "integer");
        assert!(
            ids["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("(modify, remove, enable, disable) The breakpoint")),
            "{ids}"
        );
        let condition = &breakpoint["properties"]["condition"]["description"];
        assert_eq!(condition, "Stop only when this expression is true");
        let clear = &breakpoint["properties"]["no_condition"]["description"];
        assert_eq!(clear, "(modify) Remove the condition");
        let memory = schema("memory");
        assert_eq!(memory["required"], json!(["action"]));
        assert_eq!(memory["properties"]["count"]["default"], 64);
    }
}
