//! The MCP tools: one per command family, each standing for one command or choosing among a few
//! with `action`. A tool's input schema is its commands' clap definitions as JSON Schema
//! (`commands::schema`), plus the properties every tool takes here (`session`, `max_bytes`,
//! `offset`); nothing about a command's flags is written twice.

use serde_json::{Value, json};

use super::budget::{DEFAULT_MAX_BYTES, MIN_MAX_BYTES};
use crate::commands::schema;

/// The longest a waiting tool waits when the call names no `timeout`: below the 30 s many
/// clients allow a call, so the answer (`state: running`) arrives before the client gives up.
pub const DEFAULT_WAIT_SECS: f64 = 25.0;

/// Whether a tool may block until the program stops.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    No,
    Always,
    /// Only when called with `wait: true` (the execution commands).
    WithWait,
}

pub struct Tool {
    pub name: &'static str,
    /// The command it runs, or the commands its `action` chooses among.
    pub members: &'static [&'static str],
    pub description: &'static str,
    pub waits: Waits,
    /// Reads state and changes nothing (MCP's `readOnlyHint`): its continuations (`offset`) may
    /// run it again.
    pub read_only: bool,
    /// Talks to a session (all but `probe`, `sessions` and `doctor`).
    pub sessioned: bool,
}

const fn tool(
    name: &'static str,
    members: &'static [&'static str],
    waits: Waits,
    read_only: bool,
    description: &'static str,
) -> Tool {
    Tool {
        name,
        members,
        description,
        waits,
        read_only,
        sessioned: !matches!(name.as_bytes(), b"probe" | b"sessions" | b"doctor"),
    }
}

/// Every tool, in the order a model meets them in `tools/list`.
pub const TOOLS: &[Tool] = &[
    tool(
        "probe",
        &["probe"],
        Waits::Always,
        false,
        "One question, one call: run a program with no session, record every hit of the breakpoints (location, stack, locals, each `prints` expression, '@FRAME:EXPR' for one in a caller's frame: '@1:i', '@main:i'; a breakpoint 'LOC if COND' records only the hits where COND holds), end the program and report. Use this first; start a session only when one probe is not enough. Waits at most `timeout` (default 25 s).",
    ),
    tool(
        "start",
        &["start"],
        Waits::No,
        false,
        "Launch a program under the debugger in a session (C, C++, Rust, Go, Python, JavaScript; the adapter is picked from the program). `breakpoints` are set before it runs, and the answer is the first stop (a breakpoint, an exception, or the end) within `wait` seconds (default 5), the same report `execute` gives (with each `print` expression evaluated there, and `locals`: all, changed or none); a program still running then is said to be (`no_wait`: answer at once). Do not continue to reach that first stop: it has been shown. The session outlives this connection unless `end_with_client` is true.",
    ),
    tool(
        "attach",
        &["attach"],
        Waits::No,
        false,
        "Attach a session to a running process (by pid), or to an adapter or Node inspector listening at `connect`.",
    ),
    tool(
        "test",
        &["test"],
        Waits::Always,
        false,
        "Debug one test of the project in the working directory through its own runner (cargo, pytest or unittest, go test, JavaScript test files, JUnit 5 in a Maven or Gradle project, PHPUnit, CTest, a C or C++ test executable, Ruby's minitest and RSpec): the session stops at the test's first stop. With break_on_failure it stops at the failure itself (a panic, a failed assertion, t.Error) with the test's frame selected, the failing line and its locals. `list` lists the tests a selector matches as the runner finds them, with `warnings` for what it could not list (a file pytest could not collect). Waits at most `timeout` (default 25 s).",
    ),
    tool(
        "core",
        &["core"],
        Waits::No,
        false,
        "Open a core dump of a program as a stopped session: the report says why it died (signal, faulting address, a failed assert's message) and where. Read it with backtrace (all threads), locals, evaluate, memory; nothing can run it.",
    ),
    tool(
        "status",
        &["status"],
        Waits::No,
        true,
        "The session's state: running, stopped (where) or exited, and the process ids.",
    ),
    tool(
        "sessions",
        &["sessions"],
        Waits::No,
        true,
        "The sessions that are running.",
    ),
    tool(
        "stop",
        &["stop"],
        Waits::No,
        false,
        "End the session: a launched program is terminated, an attached one detached.",
    ),
    tool(
        "detach",
        &["detach"],
        Waits::No,
        false,
        "Detach from the program and leave it running; the session ends.",
    ),
    tool(
        "restart",
        &["restart"],
        Waits::No,
        false,
        "Run the program again from the start with the same arguments and breakpoints, and answer with its first stop within `wait` seconds (with `print` and `locals` as for `start`), as `start` does.",
    ),
    tool(
        "breakpoint",
        &["breakpoint"],
        Waits::No,
        false,
        "Add (FILE:LINE or a function name, and 'LOC if COND' for a condition; `condition`, `hit_count`, `log` for a logpoint that records instead of stopping), modify `ids` in place keeping their ids (`condition`, `hit_count`, `log`, or `no_condition`, `no_hit_count`, `no_log` to remove one), remove, list, enable or disable breakpoints.",
    ),
    tool(
        "watch",
        &["watch"],
        Waits::No,
        false,
        "A watchpoint: stop when a variable or lvalue is written (or read). Set it while stopped; native code, where the adapter supports data breakpoints.",
    ),
    tool(
        "execute",
        &["continue", "next", "step", "finish", "pause"],
        Waits::WithWait,
        false,
        "Resume or interrupt the program: continue (to the next breakpoint), next (step over a line), step (into a call), finish (out of the function), pause. With wait=true, blocks until it stops and returns the stop report (where, why, source lines, and the frame's locals: at most 12 in `locals`, `locals_omitted` counting the rest, `changed` marking those that changed, each with its `old_value`; `locals`: all, changed or none; the session's `displays`, and each `print` expression evaluated at that stop this once; a finish's `return_value` and `return_type`, or `return_value_unknown`); after `timeout` (default 25 s) it returns state=running instead, which is not a failure: call `await`.",
    ),
    tool(
        "await",
        &["await"],
        Waits::Always,
        false,
        "Wait for the next stop or exit and report it, with the frame's locals, the displays and each `print` expression as `execute` gives them (returns at once when already stopped). After `timeout` (default 25 s) it returns state=running: call it again, or `execute` with action=pause.",
    ),
    tool(
        "context",
        &["context"],
        Waits::No,
        true,
        "Where the program is stopped: location, source lines and locals, in one answer.",
    ),
    tool(
        "backtrace",
        &["backtrace"],
        Waits::No,
        true,
        "The call stack of the selected (or given) thread.",
    ),
    tool(
        "threads",
        &["threads"],
        Waits::No,
        true,
        "The program's threads.",
    ),
    tool(
        "select",
        &["thread", "frame", "up", "down"],
        Waits::No,
        false,
        "Select a thread (by id) or a frame (frame N, 0 innermost; up/down N) for the inspection tools.",
    ),
    tool(
        "locals",
        &["locals"],
        Waits::No,
        true,
        "The local variables of the selected frame, with values (cut at 200 characters unless `full`).",
    ),
    tool(
        "evaluate",
        &["print", "eval", "set"],
        Waits::No,
        false,
        "Evaluate in the selected frame, or in another with '@FRAME:EXPR' (a frame number or a function's name: '@main:i'): print (value, type and children of an expression), eval (the value only), set (give a variable a new value). An evaluation that runs past `timeout` (default 10 s) is interrupted, the program left where it was; one the adapter cannot interrupt (Delve's call) leaves the session `evaluating` until it returns.",
    ),
    tool(
        "display",
        &["display"],
        Waits::No,
        false,
        "Show expressions at every stop of the session (a debugger's `display`): `expression` adds one (with its value now when stopped), no arguments lists them (id, expression, last value), `remove` N removes one. Every stop report then carries `displays` [{id, expression, value, old_value, changed, error}]: `changed` when the value differs from the last stop's, `error` (a name not in scope here) inline without failing the report. For one report only, give `print` to execute, await, start or restart.",
    ),
    tool(
        "output",
        &["output"],
        Waits::No,
        true,
        "What the program printed (stdout and stderr); `tail` for the last lines.",
    ),
    tool(
        "memory",
        &["memory"],
        Waits::No,
        true,
        "A hexdump of the program's memory at an address or where a pointer points (native code).",
    ),
    tool(
        "disassemble",
        &["disassemble"],
        Waits::No,
        true,
        "Instructions around the pc of the selected frame, or from an address or function.",
    ),
    tool(
        "catch",
        &["catch"],
        Waits::No,
        false,
        "List the adapter's exception filters, or stop on exactly the ones named; under the JVM a name that is no filter is an exception class's (IllegalStateException), stopping for it and its subclasses.",
    ),
    tool(
        "raw",
        &["raw"],
        Waits::No,
        false,
        "Send text to the debug adapter's own console: its debugger's commands for native code, statements of the language for Python and JavaScript.",
    ),
    tool(
        "doctor",
        &["doctor"],
        Waits::No,
        true,
        "Which debug adapters work on this machine (with the fix for a missing one), whether attaching is allowed.",
    ),
];

pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Properties a tool's schema loses here: `output --follow` streams until the program ends, past
/// any client's call limit.
const DROPPED: &[(&str, &str)] = &[("output", "follow")];

/// The `tools/list` entry of a tool.
pub fn listing(tool: &Tool) -> Value {
    let mut input = match tool.members {
        [one] => schema::arguments(one),
        members => schema::family(tool.name, members),
    }
    .unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
    let properties = &mut input["properties"];
    for (name, property) in DROPPED {
        if *name == tool.name
            && let Some(map) = properties.as_object_mut()
        {
            map.remove(*property);
        }
    }
    if tool.waits != Waits::No && properties.get("timeout").is_some() {
        properties["timeout"]["default"] = json!(DEFAULT_WAIT_SECS);
    }
    if tool.sessioned {
        properties["session"] = json!({
            "type": "string",
            "description": "The session to use (default: this connection's own, named after the client)."
        });
    }
    properties["max_bytes"] = json!({
        "type": "integer", "minimum": MIN_MAX_BYTES, "default": DEFAULT_MAX_BYTES,
        "description": "The most bytes of text to return; what is left is said, with the offset that shows it."
    });
    properties["offset"] = json!({
        "type": "integer", "minimum": 0, "default": 0,
        "description": "The line to show the text from, as a cut answer names it (same tool, same arguments)."
    });
    if matches!(tool.name, "start" | "attach") {
        properties["end_with_client"] = json!({
            "type": "boolean", "default": false,
            "description": "End this session (stop, or detach an attached process) when this MCP connection ends, or the server dies, by any signal."
        });
    }
    json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": input,
        "outputSchema": {
            "type": "object",
            "description": "The `data` object `debugger --json` prints for the command; `more` when the text was cut; `state: running` when a wait timed out.",
        },
        "annotations": { "readOnlyHint": tool.read_only },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_schema_from_its_commands() {
        for tool in TOOLS {
            let listing = listing(tool);
            let input = &listing["inputSchema"];
            assert_eq!(input["type"], "object", "{}", tool.name);
            assert_eq!(
                input["properties"]["session"].is_object(),
                tool.sessioned,
                "{}",
                tool.name
            );
            if tool.members.len() > 1 {
                assert_eq!(input["required"], json!(["action"]), "{}", tool.name);
                assert_eq!(
                    input["properties"]["action"]["enum"],
                    json!(tool.members),
                    "{}",
                    tool.name
                );
            }
        }
        let execute = listing(find("execute").expect("execute"));
        assert_eq!(
            execute["inputSchema"]["properties"]["timeout"]["default"],
            25.0
        );
        assert_eq!(
            execute["inputSchema"]["properties"]["wait"]["type"],
            "boolean"
        );
        let output = listing(find("output").expect("output"));
        assert!(output["inputSchema"]["properties"].get("follow").is_none());
        let evaluate = listing(find("evaluate").expect("evaluate"));
        assert!(evaluate["inputSchema"]["properties"]["expression"].is_object());
    }

    #[test]
    fn every_command_but_the_local_ones_is_reachable() {
        let reachable: Vec<&str> = TOOLS
            .iter()
            .flat_map(|t| t.members.iter().copied())
            .collect();
        let local = ["setup", "demo", "guide"];
        for name in schema::command_names() {
            assert!(
                reachable.contains(&name.as_str()) || local.contains(&name.as_str()),
                "no tool runs '{name}'"
            );
        }
    }
}
