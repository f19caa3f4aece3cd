//! `test`: each language's test (its file beside the program, `@test_body` marking the line),
//! found and run through the language's own runner (a C test executable, cargo, pytest or
//! unittest, go test, node:test), stopped at a breakpoint on that line of the test.

use super::adapters::{Row, require};
use super::{Feature, Report};
use crate::common::line_in;
use crate::common::test_project::json;

pub fn test(row: &'static Row, report: &mut Report) {
    require(row);
    let language = row.language;
    let s = (row.session)();
    report.check(Feature::Test, || {
        let selector = language.test_project(&s.cwd);
        let file = language.test_file();
        let line = line_in(&file, "@test_body");
        let name = file.file_name().expect("a file name").to_string_lossy();
        let at = format!("{name}:{line}");
        let answer = json(
            &s,
            &["test", &selector, "--adapter", row.adapter, "-b", &at],
        );
        assert_eq!(answer["ok"], true, "{answer}\n{}", s.log());
        let data = &answer["data"];
        assert_eq!(data["outcome"], "stopped", "{data}");
        assert_eq!(data["stop"]["reason"], "breakpoint", "{data}");
        assert_eq!(data["stop"]["frame"]["line"], line, "{data}");
    });
}
