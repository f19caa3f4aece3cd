//! What the tests of `debugger test` share: a fixture project copied into a session's folder,
//! the command run there as a user runs it, and reading its report.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{Run, Session, line_of};

/// Copies `from` into `to`, writing only the files whose content differs: a file rewritten
/// under a build running in another test process would be read half written.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read fixture dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            let content = std::fs::read(entry.path()).expect("read fixture file");
            if std::fs::read(&target).ok().as_ref() != Some(&content) {
                std::fs::write(&target, content).expect("copy fixture file");
            }
        }
    }
}

/// One target dir for the cargo fixture across tests and runs: built once, reused after.
pub fn cargo_target() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-cart")
}

/// `debugger --json ARGS` in the session's folder, with the Go and cargo environments set.
pub fn json(s: &Session, args: &[&str]) -> Value {
    Run::from(command(s, args).output().expect("run debugger")).json()
}

pub fn command(s: &Session, args: &[&str]) -> Command {
    let mut command = s.command();
    super::with_go_env(&mut command);
    command
        .env("CARGO_TARGET_DIR", cargo_target())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .arg("--json")
        .args(args);
    command
}

/// The data of a `test` that stopped at the failure, checked to be at `marker` in `file`.
#[track_caller]
pub fn failed_at(answer: &Value, file: &str, marker: &str) -> Value {
    assert_eq!(answer["ok"], true, "{answer}");
    let data = answer["data"].clone();
    assert_eq!(data["outcome"], "failed", "{data}");
    let frame = &data["frame"]["frame"];
    assert_eq!(
        frame["line"].as_u64(),
        Some(u64::from(line_of(file, marker))),
        "{data}"
    );
    data
}

/// The value of the local `name` in a test report.
pub fn local<'a>(data: &'a Value, name: &str) -> &'a str {
    data["locals"]
        .as_array()
        .and_then(|l| l.iter().find(|v| v["name"] == name))
        .and_then(|v| v["value"].as_str())
        .unwrap_or_else(|| panic!("no local {name} in {data}"))
}
