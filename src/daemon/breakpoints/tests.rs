//! The breakpoint registry's rules, without an adapter: stable ids across resends, answers
//! paired by id before order, one entry sent for a location asked twice, logpoints for adapters
//! with and without them, held-back placements, watchpoints numbered apart.

use super::*;
use crate::common::location::DataAccess;
use serde_json::{Value, json};

impl SyncRequest {
    /// The request's arguments as they go on the wire.
    fn wire(&self) -> Value {
        let encoded = match &self.list {
            BreakpointList::Source(a) => serde_json::to_value(a),
            BreakpointList::Functions(a) => serde_json::to_value(a),
            BreakpointList::Data(a) => serde_json::to_value(a),
        };
        encoded.unwrap_or_else(|e| panic!("unencodable: {e}"))
    }
}

fn line_spec(file: &str, line: u32) -> BreakpointSpec {
    BreakpointSpec {
        requested: None,
        location: Location::Line {
            file: PathBuf::from(file),
            line,
        },
        condition: None,
        hit_count: None,
        log_message: None,
    }
}

fn answer(ids: &[i64]) -> Vec<DapBreakpoint> {
    ids.iter()
        .map(|id| DapBreakpoint {
            id: Some(*id),
            verified: true,
            ..Default::default()
        })
        .collect()
}

#[test]
fn ids_are_stable_across_resends() {
    let mut r = Registry::default();
    let a = r.add(line_spec("/x.c", 1));
    let b = r.add(line_spec("/x.c", 2));
    let c = r.add(line_spec("/x.c", 3));
    let req = r.sync_request(&Target::File("/x.c".into()));
    assert_eq!(req.ids, vec![a, b, c]);
    r.apply_answer(&req.ids, &answer(&[10, 11, 12]), |_| None);
    let targets = r.remove(&[b]);
    assert_eq!(targets, vec![Target::File("/x.c".into())]);
    let req = r.sync_request(&targets[0]);
    assert_eq!(req.ids, vec![a, c]);
    assert_eq!(req.wire()["breakpoints"].as_array().map(Vec::len), Some(2));
    r.apply_answer(&req.ids, &answer(&[20, 21]), |_| None);
    assert_eq!(r.get(c).and_then(|e| e.adapter_id), Some(21));
    assert_eq!(r.ids_for_adapter_ids(&[21], false), vec![c]);
    assert_eq!(r.add(line_spec("/y.c", 1)), 4, "ids are never reused");
}

#[test]
fn answers_are_paired_by_adapter_id_before_order() {
    let mut r = Registry::default();

    let a = r.add(function_spec("a"));
    let b = r.add(function_spec("b"));
    // One unmapped entry at a time.
    let first = r.sync_request_limited(&Target::Functions, 1);
    assert_eq!(first.ids, vec![a]);
    r.apply_answer(&first.ids, &answer(&[7]), |_| None);
    assert_eq!(r.unanswered_count(&Target::Functions), 1);
    let second = r.sync_request_limited(&Target::Functions, 1);
    assert_eq!(second.ids, vec![a, b]);
    // The adapter answers out of order: the new id is the one not already known.
    r.apply_answer(&second.ids, &answer(&[8, 7]), |_| None);
    assert_eq!(r.get(a).and_then(|e| e.adapter_id), Some(7));
    assert_eq!(r.get(b).and_then(|e| e.adapter_id), Some(8));
}

#[test]
fn a_name_answered_without_an_id_does_not_hold_back_the_next() {
    let mut r = Registry::default();
    let bad = r.add(function_spec("parse"));
    let good = r.add(function_spec("main.total"));
    let first = r.sync_request_limited(&Target::Functions, 1);
    assert_eq!(first.ids, vec![bad]);
    // Delve's answer to a name it could not set: unverified, no id.
    let refused = DapBreakpoint {
        verified: false,
        message: Some("Location \"parse\" ambiguous".into()),
        ..Default::default()
    };
    r.apply_answer(&first.ids, std::slice::from_ref(&refused), |_| None);
    assert_eq!(r.unanswered_count(&Target::Functions), 1);
    let second = r.sync_request_limited(&Target::Functions, 1);
    assert_eq!(second.ids, vec![bad, good]);
    r.apply_answer(&second.ids, &[refused, answer(&[1])[0].clone()], |_| None);
    assert_eq!(r.unanswered_count(&Target::Functions), 0);
    assert!(r.get(good).is_some_and(|e| e.verified));
    assert!(
        r.get(bad)
            .is_some_and(|e| !e.verified && e.message.is_some())
    );
}

#[test]
fn a_function_named_twice_is_sent_once_and_both_share_its_state() {
    let mut r = Registry::default();

    let a = r.add(function_spec("apply"));
    let b = r.add(function_spec("apply"));
    let c = r.add(function_spec("main"));
    let req = r.sync_request(&Target::Functions);
    assert_eq!(req.ids, vec![a, c]);
    r.apply_answer(&req.ids, &answer(&[1, 2]), |_| None);
    r.mirror_duplicates(&req.ids);
    assert_eq!(r.get(b).and_then(|e| e.adapter_id), Some(1));
    assert!(r.get(b).is_some_and(|e| e.verified));
    assert_eq!(r.unanswered_count(&Target::Functions), 0);
}

#[test]
fn the_same_line_twice_is_sent_once_unless_the_conditions_differ() {
    let mut r = Registry::default();
    let target = Target::File(PathBuf::from("/src/a.c"));
    let a = r.add(line_spec("/src/a.c", 9));
    let b = r.add(line_spec("/src/a.c", 9));
    let c = r.add(BreakpointSpec {
        requested: None,
        condition: Some("i == 3".into()),
        ..line_spec("/src/a.c", 9)
    });
    let req = r.sync_request(&target);
    assert_eq!(req.ids, vec![a, c]);
    r.apply_answer(&req.ids, &answer(&[1, 2]), |_| None);
    r.mirror_duplicates(&req.ids);
    assert_eq!(r.get(b).and_then(|e| e.adapter_id), Some(1));
    assert!(r.get(b).is_some_and(|e| e.verified));
    assert_eq!(r.unanswered_count(&target), 0);
}

#[test]
fn conditions_hit_counts_and_functions() {
    let mut r = Registry::default();
    r.add(BreakpointSpec {
        requested: None,
        location: Location::Function {
            name: "ns::f".into(),
        },
        condition: Some("x > 1".into()),
        hit_count: Some(3),
        log_message: None,
    });
    let req = r.sync_request(&Target::Functions);
    assert_eq!(req.command, "setFunctionBreakpoints");
    assert_eq!(
        req.wire()["breakpoints"][0],
        json!({"name": "ns::f", "condition": "x > 1", "hitCondition": "3"})
    );
}

#[test]
fn disabled_entries_are_left_out_and_events_update_state() {
    let mut r = Registry::default();
    let a = r.add(line_spec("/x.c", 1));
    let req = r.sync_request(&Target::File("/x.c".into()));
    r.apply_answer(
        &req.ids,
        &[DapBreakpoint {
            id: Some(5),
            verified: false,
            message: Some("no locations".into()),
            ..Default::default()
        }],
        |_| None,
    );
    assert_eq!(
        r.get(a).and_then(|e| e.message.clone()).as_deref(),
        Some("no locations")
    );
    r.apply_event(
        "changed",
        &DapBreakpoint {
            id: Some(5),
            verified: true,
            line: Some(2),
            ..Default::default()
        },
    );
    let info = r.get(a).map(Entry::info).expect("entry");
    assert!(info.verified);
    assert_eq!(info.resolved_line, Some(2));
    let disable = |e: &mut Entry| std::mem::replace(&mut e.enabled, false);
    assert_eq!(r.update(&[a], disable).len(), 1);
    assert!(r.update(&[a], disable).is_empty(), "disabled already");
    assert!(r.sync_request(&Target::File("/x.c".into())).ids.is_empty());
    assert!(!r.get(a).map(Entry::info).expect("entry").verified);
}

/// An absolute path on the OS the test runs on, as an adapter there reports it: `/src/x` here,
/// `C:/src/x` on Windows (where a path without a drive is not absolute).
fn abs(path: &str) -> String {
    if cfg!(windows) {
        format!("C:{path}")
    } else {
        path.to_string()
    }
}

#[test]
fn a_name_the_adapter_placed_shows_the_file_it_bound_and_a_held_back_one_is_never_sent() {
    let mut r = Registry::default();
    let a = r.add(line_spec("util.js", 3));
    let note = |held_back| PlacementNote {
        message: "our word".into(),
        adapter_first: true,
        held_back,
    };
    r.place(
        a,
        Location::Line {
            file: "util.js".into(),
            line: 3,
        },
        Some(note(false)),
    );
    let req = r.sync_request(&Target::File("util.js".into()));
    assert_eq!(req.ids, vec![a]);
    r.apply_answer(&req.ids, &answer(&[4]), |_| None);
    r.apply_event(
        "changed",
        &DapBreakpoint {
            id: Some(4),
            verified: true,
            source: Some(crate::dap::types::Source {
                name: None,
                path: Some(abs("/src/lib/util.js")),
                source_reference: None,
            }),
            ..Default::default()
        },
    );
    let info = r.get(a).map(Entry::info).expect("entry");
    assert_eq!(info.file, Some(abs("/src/lib/util.js")));
    assert_eq!(info.message, None);

    let b = r.add(line_spec("twin.js", 3));
    r.place(
        b,
        Location::Line {
            file: "twin.js".into(),
            line: 3,
        },
        Some(note(true)),
    );
    assert!(
        r.sync_request(&Target::File("twin.js".into()))
            .ids
            .is_empty()
    );
    let info = r.get(b).map(Entry::info).expect("entry");
    assert_eq!(info.message.as_deref(), Some("our word"));
}

fn function_spec(name: &str) -> BreakpointSpec {
    BreakpointSpec {
        requested: None,
        location: Location::Function { name: name.into() },
        condition: None,
        hit_count: None,
        log_message: None,
    }
}

fn logpoint(file: &str, line: u32, message: &str) -> BreakpointSpec {
    BreakpointSpec {
        requested: None,
        log_message: Some(message.into()),
        ..line_spec(file, line)
    }
}

#[test]
fn logpoints_go_marked_to_adapters_that_have_them() {
    let mut r = Registry::default();
    r.reset_adapter_state(true, |hits| hits.to_string());
    let id = r.add(logpoint("/a.c", 3, "i={i}"));
    let req = r.sync_request(&Target::File(PathBuf::from("/a.c")));
    let sent = req.wire()["breakpoints"][0]["logMessage"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // What the adapter prints back (Delve puts a prefix of its own first) names our id.
    let printed = format!("> [Go 1]: {}\n", sent.replace("{i}", "3"));
    assert_eq!(logpoint_line(&printed), Some((id, "i=3")));
    assert_eq!(r.emulated_logpoints(&[id]), None);
    // DAP's function breakpoints have no logMessage: those the session emulates.
    let function = r.add(BreakpointSpec {
        requested: None,
        log_message: Some("n={n}".into()),
        ..function_spec("f")
    });
    let req = r.sync_request(&Target::Functions);
    assert!(req.wire()["breakpoints"][0].get("logMessage").is_none());
    assert_eq!(
        r.emulated_logpoints(&[function]),
        Some(vec![(function, "n={n}".to_string())])
    );
}

#[test]
fn logpoints_are_plain_breakpoints_to_adapters_without_them() {
    let mut r = Registry::default();
    r.reset_adapter_state(false, |hits| hits.to_string());
    let log = r.add(logpoint("/a.c", 3, "i={i}"));
    let stop = r.add(line_spec("/a.c", 4));
    let req = r.sync_request(&Target::File(PathBuf::from("/a.c")));
    assert!(req.wire()["breakpoints"][0].get("logMessage").is_none());
    assert_eq!(
        r.emulated_logpoints(&[log]),
        Some(vec![(log, "i={i}".to_string())])
    );
    // A real breakpoint among the hits makes it a stop.
    assert_eq!(r.emulated_logpoints(&[log, stop]), None);
    assert_eq!(r.emulated_logpoints(&[]), None);
}

#[test]
fn program_output_is_no_logpoint() {
    assert_eq!(logpoint_line("step 1: total=1\n"), None);
    assert_eq!(logpoint_line("debugger-logpoint:x;y"), None);
    // The marker must be on the output's first line.
    assert_eq!(logpoint_line("a\ndebugger-logpoint:1;y"), None);
}

#[test]
fn watchpoints_are_sent_together_and_numbered_apart_from_breakpoints() {
    let mut r = Registry::default();
    let line = r.add(line_spec("/a.c", 3));
    let watch = |expression: &str| BreakpointSpec {
        requested: None,
        location: Location::Data {
            expression: expression.into(),
            access: DataAccess::Write,
        },
        condition: None,
        hit_count: None,
        log_message: None,
    };
    let handle = |id: &str| DataHandle {
        data_id: id.into(),
        description: "4 bytes".into(),
        last_value: Some("0".into()),
        function: "main".into(),
    };
    let w = r.add_with_data(watch("g"), Some(handle("0x10/4")));
    // A watchpoint the adapter never described is not sent.
    r.add_with_data(watch("h"), None);
    let req = r.sync_request(&Target::Data);
    assert_eq!(req.command, "setDataBreakpoints");
    assert_eq!(req.ids, vec![w]);
    assert_eq!(
        req.wire()["breakpoints"],
        json!([{ "dataId": "0x10/4", "accessType": "write" }])
    );
    let answer = |id| DapBreakpoint {
        id: Some(id),
        verified: true,
        ..Default::default()
    };
    r.apply_answer(&[line], &[answer(1)], |_| None);
    r.apply_answer(&[w], &[answer(1)], |_| None);
    assert_eq!(r.ids_for_adapter_ids(&[1], false), vec![line]);
    assert_eq!(r.ids_for_adapter_ids(&[1], true), vec![w]);
    assert_eq!(r.get(w).map(|e| e.info().kind), Some(BreakpointKind::Watch));
    // A new run forgets the value seen, not the handle.
    r.reset_adapter_state(true, |hits| hits.to_string());
    let data = r.get(w).and_then(|e| e.data.clone());
    assert_eq!(data.as_ref().map(|d| d.data_id.as_str()), Some("0x10/4"));
    assert_eq!(data.and_then(|d| d.last_value), None);
}

#[test]
fn a_modified_breakpoint_keeps_its_id_and_its_list_carries_the_change() {
    use crate::ipc::protocol::{BreakpointChange, Change};
    let mut r = Registry::default();
    r.reset_adapter_state(true, |hits| hits.to_string());
    let a = r.add(line_spec("/x.c", 1));
    // A twin of `a` until it gets a condition of its own: then both go to the adapter.
    let b = r.add(line_spec("/x.c", 1));
    let file = Target::File("/x.c".into());
    let req = r.sync_request(&file);
    assert_eq!(req.ids, vec![a]);
    r.apply_answer(&req.ids, &answer(&[10]), |_| None);
    r.mirror_duplicates(&req.ids);
    let change = BreakpointChange {
        condition: Change::Set("i == 3".into()),
        hit_count: Change::Set(2),
        log_message: Change::Keep,
    };
    assert_eq!(
        r.update(&[b], |e| change.apply(&mut e.spec)),
        vec![file.clone()]
    );
    assert!(
        r.update(&[b], |e| change.apply(&mut e.spec)).is_empty(),
        "the same change again changes nothing"
    );
    let req = r.sync_request(&file);
    assert_eq!(req.ids, vec![a, b]);
    let wire = req.wire();
    assert_eq!(wire["breakpoints"][1]["condition"], "i == 3", "{wire}");
    assert_eq!(wire["breakpoints"][1]["hitCondition"], "2", "{wire}");
    r.apply_answer(&req.ids, &answer(&[10, 11]), |_| None);
    assert_eq!(r.get(b).and_then(|e| e.adapter_id), Some(11));

    // A breakpoint made a logpoint, its message changed, then made a breakpoint again.
    let log = |message: Change<String>| BreakpointChange {
        log_message: message,
        condition: Change::Clear,
        ..Default::default()
    };
    r.update(&[a], |e| {
        log(Change::Set("i={i}".into())).apply(&mut e.spec)
    });
    r.update(&[a], |e| {
        log(Change::Set("n={n}".into())).apply(&mut e.spec)
    });
    let wire = r.sync_request(&file).wire();
    assert_eq!(
        wire["breakpoints"][0]["logMessage"],
        format!("{LOG_MARKER}{a};n={{n}}"),
        "{wire}"
    );
    r.update(&[a], |e| log(Change::Clear).apply(&mut e.spec));
    let info = r.get(a).map(Entry::info).expect("entry");
    assert_eq!((info.id, info.log_message, info.condition), (a, None, None));
    assert!(r.sync_request(&file).wire()["breakpoints"][0]["logMessage"].is_null());
}

#[test]
fn a_hit_makes_a_breakpoint_verified_until_the_adapter_removes_it() {
    let mut r = Registry::default();
    let f = r.add(BreakpointSpec {
        location: Location::Function {
            name: "_parse".into(),
        },
        ..line_spec("/x.py", 1)
    });
    let req = r.sync_request(&Target::Functions);
    let pending = DapBreakpoint {
        id: Some(3),
        verified: false,
        message: Some("no function '_parse' in /app".into()),
        ..Default::default()
    };
    r.apply_answer(&req.ids, std::slice::from_ref(&pending), |_| None);
    assert!(!r.get(f).map(Entry::info).expect("entry").verified);
    r.mark_hit(&[f]);
    // The same guess on a later send of the list does not make it pending again.
    r.apply_answer(&req.ids, std::slice::from_ref(&pending), |_| None);
    let info = r.get(f).map(Entry::info).expect("entry");
    assert!(info.verified && info.message.is_none(), "{info:?}");
    r.apply_event("removed", &pending);
    assert!(!r.get(f).map(Entry::info).expect("entry").verified);
    r.mark_hit(&[f]);
    r.reset_adapter_state(false, |hits| hits.to_string());
    assert!(!r.get(f).expect("entry").hit, "a new run starts unproven");
}

#[test]
fn a_refused_condition_is_recorded_for_its_entry_and_its_twin() {
    let mut r = Registry::default();
    let conditional = |line| BreakpointSpec {
        condition: Some("x ==".into()),
        ..line_spec("/x.c", line)
    };
    let a = r.add(conditional(3));
    let twin = r.add(conditional(3));
    let plain = r.add(line_spec("/x.c", 4));
    let req = r.sync_request(&Target::File("/x.c".into()));
    assert_eq!(req.ids, vec![a, plain]);
    let failed = DapBreakpoint {
        verified: false,
        message: Some("A syntax error in expression".into()),
        ..Default::default()
    };
    let refusal = |bp: &DapBreakpoint| bp.message.clone();
    r.apply_answer(&req.ids, &[failed.clone(), failed], refusal);
    r.mirror_duplicates(&req.ids);
    let refused = r.refused_conditions(&[a, twin, plain]);
    let ids: Vec<u32> = refused.iter().map(|c| c.id).collect();
    assert_eq!(
        ids,
        vec![a, twin],
        "a breakpoint without a condition has none to refuse"
    );
    assert_eq!(
        refused[0].sentence(true),
        "the condition 'x ==' of breakpoint 1 (/x.c:3) does not compile: A syntax error in expression"
    );
    assert_eq!(
        r.get(a).map(Entry::info).and_then(|i| i.message).as_deref(),
        Some("the condition does not compile: A syntax error in expression")
    );
}

#[test]
fn a_stop_that_names_no_breakpoint_is_matched_to_the_conditional_one_at_its_line() {
    let mut r = Registry::default();
    let conditional = r.add(BreakpointSpec {
        condition: Some("nosuch == 1".into()),
        ..line_spec("/src/main.go", 6)
    });
    r.add(line_spec("/src/main.go", 6));
    r.add(BreakpointSpec {
        condition: Some("i > 1".into()),
        ..line_spec("/src/main.go", 9)
    });
    assert_eq!(r.conditional_at("/src/main.go", 6), vec![conditional]);
    assert!(r.conditional_at("/src/other.go", 6).is_empty());
}
