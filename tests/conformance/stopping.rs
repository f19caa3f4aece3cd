//! How a program stops without a breakpoint, and the one-shot commands: an uncaught exception
//! (a signal in C and Rust) and the exit it ends in, `probe`, and `core` on a dump of the program.

use serde_json::Value;

use super::adapters::{Row, require};
use super::programs::is_source;
use super::{Feature, Report};
use crate::common::{Session, gcore};

/// Whether a backtrace has a frame of the program's source at `line`.
fn has_frame_at(row: &Row, backtrace: &Value, line: u32) -> bool {
    backtrace["frames"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|frame| {
            frame["line"] == line && is_source(row.language, frame["file"].as_str().unwrap_or(""))
        })
}

/// Mode `raise`: the stop where it was raised, and the exit after it.
pub fn exception(row: &'static Row, report: &mut Report) {
    require(row);
    let language = row.language;
    let s = (row.session)();
    report.check(Feature::Exception, || {
        s.start_on(row.adapter, &language.program(), &["--", "raise"]);
        let stop = s.stop_after("continue");
        assert_eq!(stop["reason"], row.raise_reason, "{stop}\n{}", s.log());
        let bt = s.data(&["backtrace"]);
        assert!(has_frame_at(row, &bt, language.line("@raise")), "{bt}");
        let end = s.stop_after("continue");
        assert_eq!(end["reason"], "exited", "{end}");
        assert_eq!(end["exit_code"], serde_json::json!(row.raise_exit), "{end}");
    });
}

/// `probe`: the third call of `apply`, and an expression there.
pub fn probe(row: &'static Row, report: &mut Report) {
    require(row);
    let language = row.language;
    let s = (row.session)();
    report.check(Feature::Probe, || {
        let program = language.program();
        let run = s.run(&[
            "--json",
            "probe",
            "--adapter",
            row.adapter,
            "-b",
            &language.at("@apply_body"),
            "--condition",
            &format!("{} == 2", language.var("amount")),
            "-p",
            &format!("{} * 10", language.var("amount")),
            program.to_str().expect("utf-8 path"),
        ]);
        let probed = run.json();
        assert_eq!(probed["ok"], true, "{probed}\n{}", s.log());
        let hit = &probed["data"]["hits"][0];
        assert_eq!(
            hit["stop"]["frame"]["line"],
            language.line("@apply_body"),
            "{hit}"
        );
        assert_eq!(hit["prints"][0]["value"], "20", "{hit}");
    });
}

/// `core`: a dump of mode `crash`, opened at the crash; an adapter that cannot open cores says
/// so of any file.
pub fn core(row: &'static Row, report: &mut Report) {
    require(row);
    let language = row.language;
    let s: Session = (row.session)();
    let program = language.program();
    let program_arg = program.to_str().expect("utf-8 path");
    report.feature(
        Feature::Core,
        || {
            let core = gcore(&row.language.run("crash"), s.dir.path(), "conformance.core");
            let opened = s.data(&[
                "core",
                program_arg,
                core.to_str().expect("utf-8 path"),
                "--adapter",
                row.adapter,
            ]);
            assert_eq!(opened["state"], "stopped", "{opened}");
            let bt = s.data(&["backtrace"]);
            assert!(has_frame_at(row, &bt, language.line("@crash")), "{bt}");
            let refused = s.json(&["continue"]);
            assert_eq!(refused["ok"], false, "{refused}");
        },
        || {
            s.run(&[
                "--json",
                "core",
                program_arg,
                program_arg,
                "--adapter",
                row.adapter,
            ])
        },
    );
}
