//! The session scenario, on one session per adapter: breakpoints of every kind, run control,
//! inspection, a logpoint, the exit code, both output streams, `restart` and `stop`.

use serde_json::{Value, json};

use super::adapters::{Row, require};
use super::programs::is_source;
use super::{Feature, Report};
use crate::common::{selected_threads, variable};

/// Asserts `stop` is in a function whose name holds `function`, in the program's source.
#[track_caller]
fn assert_in(row: &Row, stop: &Value, function: &str) {
    let name = stop["frame"]["function"].as_str().unwrap_or("");
    assert!(name.contains(function), "not in {function}: {stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(is_source(row.language, file), "not in the source: {stop}");
}

/// Runs the scenario and returns its report.
pub fn scenario(row: &'static Row) -> Report {
    require(row);
    let language = row.language;
    let program = language.program();
    let s = (row.session)();
    let mut report = Report::new(row);
    let mut stop = Value::Null;

    report.check(Feature::StartElsewhere, || {
        assert!(!program.starts_with(&s.cwd), "{}", program.display());
        let started = s.start_on(
            row.adapter,
            &program,
            &["-b", &language.at("@square_call"), "-b", row.apply],
        );
        let breakpoints = started["breakpoints"].as_array().expect("breakpoints");
        assert_eq!(breakpoints.len(), 2, "{started}");
        // Verified, or (node, whose script loads after `start --no-wait` answers) waiting for
        // the code to load: the stops below say they bound.
        for bp in breakpoints {
            let loading = bp["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("not loaded yet"));
            assert!(bp["verified"] == true || loading, "{started}\n{}", s.log());
        }
    });
    report.check(Feature::BreakLine, || {
        stop = s.stop_after("continue");
        assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
        assert_eq!(stop["breakpoint_ids"], json!([1]), "{stop}");
        assert_eq!(
            stop["frame"]["line"],
            language.line("@square_call"),
            "{stop}"
        );
        assert_in(row, &stop, "main");
    });
    report.check(Feature::Step, || {
        stop = s.stop_after("step");
        assert_eq!(stop["reason"], "step", "{stop}");
        assert_in(row, &stop, "square");
    });
    report.check(Feature::Locals, || {
        let locals = s.data(&["locals"]);
        assert_eq!(
            variable(&locals["variables"], &language.var("x"))["value"],
            "3",
            "{locals}"
        );
    });
    report.check(Feature::Print, || {
        assert_eq!(s.value_of(&format!("{} * 2", language.var("x"))), "6");
        let missing = s.json(&["print", "nosuch"]);
        assert_eq!(missing["ok"], false, "{missing}");
    });
    report.check(Feature::Backtrace, || {
        let bt = s.data(&["backtrace"]);
        let frames = bt["frames"].as_array().expect("frames");
        assert_in(row, &json!({"frame": frames[0]}), "square");
        assert_in(row, &json!({"frame": frames[1]}), "main");
        assert_eq!(frames[1]["line"], language.line("@square_call"), "{bt}");
    });
    report.check(Feature::UpDown, || {
        let up = s.data(&["up"]);
        assert_in(row, &up, "main");
        assert_eq!(up["frame"]["line"], language.line("@square_call"), "{up}");
        let down = s.data(&["down"]);
        assert_in(row, &down, "square");
        assert_eq!(s.value_of(&language.var("x")), "3");
    });
    report.check(Feature::Threads, || {
        let threads = s.data(&["threads"]);
        let selected = selected_threads(&threads);
        assert_eq!(selected.len(), 1, "{threads}");
        assert_eq!(selected[0]["id"], stop["thread_id"], "{threads}\n{stop}");
    });
    report.check(Feature::Finish, || {
        stop = s.stop_after("finish");
        assert_eq!(stop["reason"], "step", "{stop}");
        assert_in(row, &stop, "main");
    });
    report.check(Feature::Continue, || {
        stop = s.stop_after("continue");
        assert_eq!(stop["reason"], "breakpoint", "{stop}");
    });
    report.check(Feature::BreakFunction, || {
        assert_eq!(stop["breakpoint_ids"], json!([2]), "{stop}");
        assert_in(row, &stop, "apply");
        assert_eq!(s.value_of(&language.var("amount")), "0");
    });
    report.check(Feature::HitCount, || {
        s.data(&["breakpoint", "remove", "--all"]);
        let added = s.data(&[
            "breakpoint",
            "add",
            &language.at("@log_line"),
            "--hit-count",
            "2",
        ]);
        assert_eq!(added["verified"], true, "{added}");
        stop = s.stop_after("continue");
        assert_eq!(stop["reason"], "breakpoint", "{stop}");
        assert_eq!(stop["frame"]["line"], language.line("@log_line"), "{stop}");
        assert_eq!(s.value_of(&language.var("i")), "1");
    });
    report.check(Feature::Condition, || {
        s.data(&["breakpoint", "remove", "--all"]);
        let added = s.data(&[
            "breakpoint",
            "add",
            &language.at("@apply_body"),
            "--condition",
            &format!("{} == 3", language.var("amount")),
        ]);
        assert_eq!(added["verified"], true, "{added}");
        stop = s.stop_after("continue");
        assert_eq!(stop["reason"], "breakpoint", "{stop}");
        assert_eq!(
            stop["frame"]["line"],
            language.line("@apply_body"),
            "{stop}"
        );
        assert_eq!(s.value_of(&language.var("amount")), "3");
    });
    report.check(Feature::Set, || {
        s.data(&["set", &language.var("amount"), "10"]);
        assert_eq!(s.value_of(&language.var("amount")), "10");
    });
    report.check(Feature::Next, || {
        stop = s.stop_after("next");
        assert_eq!(stop["reason"], "step", "{stop}");
        assert_eq!(
            stop["frame"]["line"],
            language.line("@apply_update"),
            "{stop}"
        );
        assert_in(row, &stop, "apply");
    });
    report.check(Feature::Logpoint, || {
        s.data(&["breakpoint", "remove", "--all"]);
        let added = s.data(&[
            "breakpoint",
            "add",
            &language.at("@log_line"),
            "--log",
            &format!(
                "i={{{}}} total={{{}}}",
                language.var("i"),
                language.var("total")
            ),
        ]);
        assert_eq!(added["verified"], true, "{added}");
    });
    report.check(Feature::ExitCode, || {
        stop = s.stop_after("continue");
        assert_eq!(stop["reason"], "exited", "{stop}\n{}", s.log());
        assert_eq!(stop["exit_code"], 3, "{stop}");
    });
    s.output_containing(
        &["conformance: done", "conformance: warning"],
        std::time::Duration::from_secs(30),
    );
    let output = s.data(&["output"]);
    let stream = |name: &str| -> String {
        output["segments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|segment| segment["stream"] == name)
            .filter_map(|segment| segment["text"].as_str())
            .collect()
    };
    report.check(Feature::Logpoint, || {
        let logged: Vec<String> = stream("log")
            .lines()
            .map(|line| line.split_once("] ").map_or(line, |(_, message)| message))
            .map(|message| message.split(" total=").next().unwrap_or("").to_string())
            .collect();
        assert_eq!(logged, ["i=3", "i=4"], "{output}");
    });
    report.check(Feature::Stdout, || {
        let stdout = stream("stdout");
        assert!(stdout.starts_with("square: 9\n"), "{output}");
        assert!(stdout.ends_with("conformance: done\n"), "{output}");
    });
    // What `set` changed is what the program went on with: step 3's total is 113, not 106.
    report.check(Feature::Set, || {
        assert!(stream("stdout").contains("step 3: total=113\n"), "{output}");
        assert!(stream("log").contains("i=4 total=117"), "{output}");
    });
    report.check(Feature::Stderr, || {
        assert_eq!(stream("stderr"), "conformance: warning\n", "{output}");
    });
    report.check(Feature::Restart, || {
        let restarted = s.data(&["restart", "--wait", crate::common::WAIT_SECS]);
        assert_eq!(restarted["adapter"], row.adapter, "{restarted}");
        // The new run's output follows the old run's, after a line of its own.
        let mut text = String::new();
        let ran_again = crate::common::eventually(std::time::Duration::from_secs(30), || {
            text = s.data(&["output"])["text"]
                .as_str()
                .unwrap_or("")
                .to_string();
            text.split_once("--- debugger: the program was restarted ---")
                .is_some_and(|(_, again)| again.contains("conformance: done"))
        });
        assert!(ran_again, "{text}");
    });
    report.check(Feature::Stop, || {
        let stopped = s.data(&["stop"]);
        assert!(
            stopped["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("session ended")),
            "{stopped}"
        );
        let status = s.json(&["status"]);
        assert_eq!(status["ok"], false, "{status}");
    });
    report
}
