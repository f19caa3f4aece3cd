//! What an odd or hostile set-up does to the daemon's own files: a state directory others can
//! write, a log planted as a link, secrets in the environment of a debug-level log, relative
//! directories, and config values out of range. Each is refused with a message that names it, or
//! made safe, and never lets the daemon write where it should not.

#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{Session, build, require_lldb_dap};
use serde_json::json;

fn mock() -> Session {
    Session::with_mock(&json!({"debuggee": true}), "")
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn a_state_directory_others_can_write_is_refused() {
    let s = mock();
    std::fs::create_dir(s.state_dir()).expect("mkdir");
    chmod(&s.state_dir(), 0o777);
    let error = s.start_mock().failure();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("state directory") && message.contains("open to other users"),
        "{error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("DEBUGGER_STATE_DIR"),
        "{error}"
    );
    let planted = std::fs::read_dir(s.state_dir()).expect("state dir").count();
    assert_eq!(planted, 0, "the daemon wrote in an open state directory");
}

#[test]
fn a_log_planted_as_a_link_is_not_followed_and_an_open_log_is_closed() {
    let s = mock();
    std::fs::create_dir(s.state_dir()).expect("mkdir");
    chmod(&s.state_dir(), 0o700);
    let target = s.dir.path().join("someone-elses-file");
    std::fs::write(&target, "theirs\n").expect("write");
    let log = s.state_dir().join(format!("daemon-{}.log", s.name));
    std::os::unix::fs::symlink(&target, &log).expect("symlink");
    let started = s.start_mock().json();
    assert_eq!(
        started["ok"], true,
        "a planted log must not stop the daemon: {started}"
    );
    s.run(&["stop"]).ok();
    assert_eq!(
        std::fs::read_to_string(&target).expect("read"),
        "theirs\n",
        "the daemon appended to the file a planted link pointed at"
    );

    let s = mock();
    std::fs::create_dir(s.state_dir()).expect("mkdir");
    chmod(&s.state_dir(), 0o700);
    let log = s.state_dir().join(format!("daemon-{}.log", s.name));
    std::fs::write(&log, "").expect("write");
    chmod(&log, 0o666);
    assert_eq!(s.start_mock().json()["ok"], true);
    let mode = std::fs::metadata(&log).expect("log").permissions().mode();
    assert_eq!(
        mode & 0o077,
        0,
        "the log stays readable by others: {mode:o}"
    );
}

#[test]
fn a_debug_log_names_the_environment_but_never_holds_its_values() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/values.c");
    let secret = "sk-live-4f9a0c2e7d1b";
    let started = s
        .command()
        .env("MY_API_KEY", secret)
        .args(["--json", "start", "--no-wait", "-b", "main"])
        .arg(&program)
        .output()
        .expect("start");
    assert!(started.status.success(), "{started:?}");
    s.run(&["await", "--timeout", "60"]).ok();
    s.run(&["stop"]).ok();
    let log = s.log();
    assert!(
        log.contains("MY_API_KEY"),
        "the debug log should name the environment (lldb echoes it): {}",
        &log[..log.len().min(2000)]
    );
    assert!(
        !log.contains(secret),
        "the debug log holds a secret's value"
    );
}

#[test]
fn a_relative_runtime_directory_means_the_callers_folder() {
    let s = mock();
    let relative = |args: &[&str]| {
        common::Run::from(
            s.command()
                .env("DEBUGGER_RUNTIME_DIR", "../run")
                .args(args)
                .output()
                .expect("run"),
        )
    };
    let started = relative(&[
        "--json",
        "start",
        "--no-wait",
        "--adapter",
        "mock",
        "/bin/true",
    ]);
    assert_eq!(started.json()["ok"], true, "{started:?}");
    assert!(
        s.runtime_dir().join(format!("{}.sock", s.name)).exists(),
        "the socket is not in the caller's ../run"
    );
    let status = relative(&["--json", "status"]);
    assert_eq!(status.json()["ok"], true, "{status:?}");
    relative(&["stop"]).ok();
}

#[test]
fn a_runtime_directory_that_is_a_file_is_called_a_file() {
    let s = mock();
    let file = s.cwd.join("not-a-dir");
    std::fs::write(&file, "").expect("write file");
    chmod(&file, 0o644);
    for args in [
        &["start", "--adapter", "mock", "/bin/true"][..],
        &["sessions"],
    ] {
        let run = common::Run::from(
            s.command()
                .env("DEBUGGER_RUNTIME_DIR", &file)
                .arg("--json")
                .args(args)
                .output()
                .expect("run"),
        );
        let error = run.failure();
        assert_eq!(
            error["message"],
            format!(
                "the runtime directory {} is a regular file, not a directory",
                file.display()
            ),
            "{args:?}: {error}"
        );
        assert!(
            !error["message"].as_str().unwrap_or("").contains("chmod"),
            "{args:?}: {error}"
        );
    }
}

#[test]
fn config_numbers_out_of_range_and_bad_encodings_are_named() {
    let s = Session::with_config("[timeouts]\nrequest_secs = -5\n");
    let error = s.start_mock().failure();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("[timeouts] request_secs = -5 is out of range"),
        "{error}"
    );

    let s = Session::new();
    std::fs::write(
        s.dir.path().join("config.toml"),
        b"[defaults]\nadapter = \"caf\xe9\"\n",
    )
    .expect("write");
    let error = s.start_mock().failure();
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("not UTF-8 text"),
        "{error}"
    );
    assert!(
        !error["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("permissions"),
        "{error}"
    );

    // A config file that is a FIFO is refused unopened, and named for what it is.
    let s = Session::new();
    let config = s.dir.path().join("config.toml");
    let _ = std::fs::remove_file(&config);
    let made = std::process::Command::new("mkfifo")
        .arg(&config)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let error = s.start_mock().failure();
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .ends_with("it is a FIFO"),
        "{error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or_default()
            .starts_with("point DEBUGGER_CONFIG at a regular file"),
        "{error}"
    );
}

#[test]
fn a_newline_in_the_programs_path_cannot_fake_a_report_line() {
    require_lldb_dap();
    let s = Session::new();
    let folder = s.dir.path().join("a\nStopped at breakpoint 9 in fake");
    std::fs::create_dir(&folder).expect("mkdir");
    let program = folder.join("prog");
    std::fs::copy(build("c/values.c"), &program).expect("copy");
    let started = s
        .command()
        .args(["start", "-b", "main"])
        .args(["-b", "x\nStopped at breakpoint 9 in fake:4"])
        .arg(&program)
        .output()
        .expect("start");
    let status = s.run(&["status"]);
    let listed = s.run(&["sessions"]);
    let breakpoints = s.run(&["breakpoint", "list"]);
    let named = s
        .command()
        .args(["--session", "a\nStopped at breakpoint 9 in fake", "status"])
        .output()
        .expect("status");
    for text in [
        String::from_utf8_lossy(&started.stdout).into_owned(),
        status.ok().to_string(),
        listed.ok().to_string(),
        breakpoints.ok().to_string(),
        String::from_utf8_lossy(&named.stderr).into_owned(),
    ] {
        assert!(
            !text
                .lines()
                .any(|line| line.starts_with("Stopped at breakpoint 9")),
            "a path's newline started a line of its own:\n{text}"
        );
        assert!(
            text.contains("\\nStopped at breakpoint 9 in fake"),
            "{text}"
        );
    }
}
