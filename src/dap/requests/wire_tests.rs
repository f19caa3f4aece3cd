//! The JSON each typed request puts on the wire, compared with the JSON the adapters are known
//! to take, written out with `json!`: a renamed field, or an optional one sent as `null` instead
//! of left out, fails here before it reaches an adapter.

use serde_json::{Value, json};

use super::*;
use crate::dap::types::{Capabilities, ScopesBody, VariablesBody};

/// The `arguments` that go on the wire for `R` (a `Value`, as the client sends it).
fn wire<R: Request>(arguments: &R::Arguments) -> Value {
    match Encoded::new::<R>(arguments) {
        Ok(encoded) => {
            assert_eq!(encoded.command(), R::COMMAND);
            encoded.arguments().clone()
        }
        Err(e) => panic!("{} did not encode: {e}", R::COMMAND),
    }
}

/// The bytes on the wire, which must be the ones the `json!` value gave.
fn same_bytes(typed: Value, old: Value) {
    assert_eq!(typed.to_string(), old.to_string());
}

#[test]
fn initialize_says_who_we_are() {
    same_bytes(
        wire::<Initialize>(&InitializeArguments::new("an-adapter")),
        json!({
            "clientID": "debugger",
            "clientName": "debugger",
            "adapterID": "an-adapter",
            "pathFormat": "path",
            "linesStartAt1": true,
            "columnsStartAt1": true,
            "supportsVariableType": true,
            "supportsVariablePaging": true,
            "supportsRunInTerminalRequest": false,
            "supportsMemoryReferences": true,
            "supportsProgressReporting": false,
            "supportsInvalidatedEvent": false,
            "supportsStartDebuggingRequest": false,
            "locale": "en",
        }),
    );
}

#[test]
fn session_requests() {
    same_bytes(wire::<ConfigurationDone>(&NoArguments {}), json!({}));
    same_bytes(wire::<Threads>(&NoArguments {}), json!({}));
    same_bytes(
        wire::<SetExceptionBreakpoints>(&SetExceptionBreakpointsArguments {
            filters: vec!["uncaught".into()],
            exception_options: Vec::new(),
        }),
        json!({ "filters": ["uncaught"] }),
    );
    same_bytes(
        wire::<SetExceptionBreakpoints>(&SetExceptionBreakpointsArguments {
            filters: Vec::new(),
            exception_options: vec![ExceptionOptions {
                path: vec![
                    ExceptionPathSegment {
                        negate: false,
                        names: vec!["Java Exceptions".into()],
                    },
                    ExceptionPathSegment {
                        negate: false,
                        names: vec!["IllegalStateException".into()],
                    },
                ],
                break_mode: ExceptionBreakMode::Always,
            }],
        }),
        json!({ "filters": [], "exceptionOptions": [{
            "path": [{ "names": ["Java Exceptions"] }, { "names": ["IllegalStateException"] }],
            "breakMode": "always",
        }] }),
    );
    same_bytes(
        wire::<Disconnect>(&DisconnectArguments {
            terminate_debuggee: true,
            restart: false,
        }),
        json!({ "terminateDebuggee": true, "restart": false }),
    );
}

#[test]
fn run_control_names_the_thread() {
    let thread = ThreadArguments { thread_id: 7 };
    let old = json!({ "threadId": 7 });
    same_bytes(wire::<Continue>(&thread), old.clone());
    same_bytes(wire::<Next>(&thread), old.clone());
    same_bytes(wire::<StepIn>(&thread), old.clone());
    same_bytes(wire::<StepOut>(&thread), old.clone());
    same_bytes(wire::<Pause>(&thread), old.clone());
    same_bytes(wire::<ExceptionInfo>(&thread), old);
    let commands = [
        Continue::COMMAND,
        Next::COMMAND,
        StepIn::COMMAND,
        StepOut::COMMAND,
    ];
    assert_eq!(commands, ["continue", "next", "stepIn", "stepOut"]);
}

#[test]
fn frames_scopes_and_variables() {
    same_bytes(
        wire::<StackTrace>(&StackTraceArguments {
            thread_id: 1,
            start_frame: 0,
            levels: 20,
        }),
        json!({ "threadId": 1, "startFrame": 0, "levels": 20 }),
    );
    same_bytes(
        wire::<Scopes>(&ScopesArguments { frame_id: 3 }),
        json!({ "frameId": 3 }),
    );
    same_bytes(
        wire::<Variables>(&VariablesArguments {
            variables_reference: 9,
            start: None,
            count: None,
        }),
        json!({ "variablesReference": 9 }),
    );
    same_bytes(
        wire::<Variables>(&VariablesArguments {
            variables_reference: 9,
            start: Some(0),
            count: Some(33),
        }),
        json!({ "variablesReference": 9, "start": 0, "count": 33 }),
    );
}

#[test]
fn evaluate_leaves_out_a_missing_frame() {
    same_bytes(
        wire::<Evaluate>(&EvaluateArguments::watch("a->b", Some(4))),
        json!({ "expression": "a->b", "frameId": 4, "context": "watch" }),
    );
    same_bytes(
        wire::<Evaluate>(&EvaluateArguments::watch("x", None)),
        json!({ "expression": "x", "context": "watch" }),
    );
    same_bytes(
        wire::<Evaluate>(&EvaluateArguments::repl("bt", None)),
        json!({ "expression": "bt", "context": "repl" }),
    );
    same_bytes(
        wire::<Evaluate>(&EvaluateArguments::repl("bt", Some(2))),
        json!({ "expression": "bt", "context": "repl", "frameId": 2 }),
    );
}

#[test]
fn setting_values() {
    same_bytes(
        wire::<SetExpression>(&SetExpressionArguments {
            expression: "acct->balance".into(),
            value: "5".into(),
            frame_id: 1,
        }),
        json!({ "expression": "acct->balance", "value": "5", "frameId": 1 }),
    );
    same_bytes(
        wire::<SetVariable>(&SetVariableArguments {
            variables_reference: 8,
            name: "n".into(),
            value: "5".into(),
        }),
        json!({ "variablesReference": 8, "name": "n", "value": "5" }),
    );
}

#[test]
fn memory_and_disassembly() {
    same_bytes(
        wire::<ReadMemory>(&ReadMemoryArguments {
            memory_reference: "0x10".into(),
            offset: 0,
            count: 16,
        }),
        json!({ "memoryReference": "0x10", "offset": 0, "count": 16 }),
    );
    same_bytes(
        wire::<Disassemble>(&DisassembleArguments {
            memory_reference: "0x10".into(),
            offset: None,
            instruction_offset: -4,
            instruction_count: 16,
            resolve_symbols: true,
        }),
        json!({
            "memoryReference": "0x10",
            "instructionCount": 16,
            "resolveSymbols": true,
            "instructionOffset": -4,
        }),
    );
    same_bytes(
        wire::<Disassemble>(&DisassembleArguments {
            memory_reference: "0x10".into(),
            offset: Some(-64),
            instruction_offset: 0,
            instruction_count: 16,
            resolve_symbols: true,
        }),
        json!({
            "memoryReference": "0x10",
            "instructionCount": 16,
            "resolveSymbols": true,
            "offset": -64,
            "instructionOffset": 0,
        }),
    );
}

#[test]
fn breakpoint_lists() {
    let options = BreakpointOptions {
        condition: Some("x > 1".into()),
        hit_condition: Some("3".into()),
        log_message: None,
    };
    same_bytes(
        wire::<SetBreakpoints>(&SetBreakpointsArguments {
            source: BreakpointSource {
                path: "/src/a.c".into(),
                name: Some("a.c".into()),
            },
            breakpoints: vec![
                SourceBreakpoint {
                    line: 10,
                    options: BreakpointOptions::default(),
                },
                SourceBreakpoint {
                    line: 12,
                    options: options.clone(),
                },
            ],
        }),
        json!({
            "source": { "path": "/src/a.c", "name": "a.c" },
            "breakpoints": [
                { "line": 10 },
                { "line": 12, "condition": "x > 1", "hitCondition": "3" },
            ],
        }),
    );
    // A path without a file name sends its name as null, not without one.
    same_bytes(
        wire::<SetBreakpoints>(&SetBreakpointsArguments {
            source: BreakpointSource {
                path: "/".into(),
                name: None,
            },
            breakpoints: Vec::new(),
        }),
        json!({ "source": { "path": "/", "name": null }, "breakpoints": [] }),
    );
    same_bytes(
        wire::<SetFunctionBreakpoints>(&SetFunctionBreakpointsArguments {
            breakpoints: vec![FunctionBreakpoint {
                name: "ns::f".into(),
                options: BreakpointOptions {
                    log_message: Some("hit".into()),
                    ..options
                },
            }],
        }),
        json!({ "breakpoints": [
            { "name": "ns::f", "condition": "x > 1", "hitCondition": "3", "logMessage": "hit" },
        ] }),
    );
    same_bytes(
        wire::<SetDataBreakpoints>(&SetDataBreakpointsArguments {
            breakpoints: vec![DataBreakpoint {
                data_id: Some("0x10/4".into()),
                access_type: "write".into(),
                options: BreakpointOptions::default(),
            }],
        }),
        json!({ "breakpoints": [{ "dataId": "0x10/4", "accessType": "write" }] }),
    );
}

#[test]
fn data_breakpoint_info_names_a_container_only_when_there_is_one() {
    same_bytes(
        wire::<DataBreakpointInfo>(&DataBreakpointInfoArguments {
            variables_reference: Some(5),
            name: "n".into(),
            frame_id: 1,
        }),
        json!({ "variablesReference": 5, "name": "n", "frameId": 1 }),
    );
    same_bytes(
        wire::<DataBreakpointInfo>(&DataBreakpointInfoArguments {
            variables_reference: None,
            name: "a[1]".into(),
            frame_id: 1,
        }),
        json!({ "name": "a[1]", "frameId": 1 }),
    );
}

#[test]
fn odd_or_missing_answer_fields_read_as_their_defaults() {
    // No body, or a list that is not one: empty, not an error.
    let scopes = decode::<Scopes>(Value::Null).map(|b: ScopesBody| b.scopes.len());
    assert_eq!(scopes, Ok(0));
    let variables = decode::<Variables>(json!({ "variables": "odd" }));
    assert_eq!(variables.map(|b: VariablesBody| b.variables.len()), Ok(0));
    // Unknown fields are ignored.
    let answer = decode::<SetBreakpoints>(json!({ "breakpoints": [{ "verified": true, "x": 1 }] }));
    assert_eq!(answer.map(|b| b.breakpoints.len()), Ok(1));
    // An odd value counts as missing where the fallback was used.
    let set = decode::<SetVariable>(json!({ "value": 5, "type": "int" }));
    assert_eq!(
        set.map(|b| (b.value, b.type_name)),
        Ok((None, Some("int".to_string())))
    );
    let ids =
        decode::<SetExceptionBreakpoints>(json!({ "breakpoints": [{ "id": 2 }, { "id": "x" }] }));
    let ids: Vec<Option<i64>> = ids
        .map(|b| b.breakpoints.iter().map(|bp| bp.id).collect())
        .unwrap_or_default();
    assert_eq!(ids, [Some(2), None]);
    // One entry we cannot read costs that entry, not the list; in a positional list it keeps
    // its place as an unverified breakpoint.
    let variables = decode::<Variables>(json!({ "variables": [
        { "name": "a", "value": "1", "variablesReference": 0 },
        "odd",
        { "name": "b", "value": "2", "variablesReference": 0 },
    ] }));
    let names: Vec<String> = variables
        .map(|b| b.variables.into_iter().map(|v| v.name).collect())
        .unwrap_or_default();
    assert_eq!(names, ["a", "b"]);
    let placed = decode::<SetBreakpoints>(json!({ "breakpoints": [
        "odd",
        { "verified": true, "line": 7 },
    ] }));
    let placed: Vec<(bool, Option<u32>)> = placed
        .map(|b| {
            b.breakpoints
                .iter()
                .map(|bp| (bp.verified, bp.line))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(placed, [(false, None), (true, Some(7))]);
    // Bodies nobody reads accept anything.
    assert!(decode::<Continue>(json!({ "allThreadsContinued": true })).is_ok());
    assert!(decode::<ConfigurationDone>(Value::Null).is_ok());
    // Capabilities: a flag is on only when it is `true`; the filters' list counts as named
    // even when nothing in it reads.
    let caps = decode::<Initialize>(json!({
        "supportsLogPoints": true, "supportsSetVariable": "yes", "supportsDataBreakpoints": null,
        "exceptionBreakpointFilters": [
            {"filter": "raised", "label": "Raised"}, {"label": "no filter"}, {"filter": "uncaught"},
        ],
    }));
    assert!(
        caps.as_ref()
            .is_ok_and(|c: &Capabilities| c.supports_log_points
                && !c.supports_set_variable
                && !c.supports_data_breakpoints)
    );
    let filters = caps.map(|c| c.exception_breakpoint_filters.unwrap_or_default());
    let filters: Vec<(String, Option<String>)> = filters
        .unwrap_or_default()
        .into_iter()
        .map(|f| (f.filter, f.label))
        .collect();
    assert_eq!(
        filters,
        [
            ("raised".into(), Some("Raised".into())),
            ("uncaught".into(), None)
        ]
    );
    let named = |body: Value| {
        decode::<Initialize>(body).map(|c: Capabilities| c.exception_breakpoint_filters.is_some())
    };
    assert_eq!(
        named(json!({ "exceptionBreakpointFilters": null })).ok(),
        Some(true)
    );
    assert_eq!(named(json!({})).ok(), Some(false));
    // What the daemon lends a probe reads back the same.
    let caps = decode::<Initialize>(json!({
        "supportsConfigurationDoneRequest": true,
        "exceptionBreakpointFilters": [{"filter": "raised", "label": "Raised"}],
        "debuggerWatchedPaths": [["/usr/lib/python3", 1]],
    }))
    .unwrap_or_default();
    let lent = serde_json::to_value(&caps).unwrap_or_default();
    assert_eq!(decode::<Initialize>(lent).ok(), Some(caps));
    // An evaluation without its result cannot be read.
    let err = decode::<Evaluate>(json!({ "type": "int" }));
    assert!(matches!(err, Err(DapError::Unreadable { .. })), "{err:?}");
}
