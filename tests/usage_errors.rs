//! What the command line says before anything runs: `help`, numbers out of range, a runtime dir
//! too long for a socket, and a session that is not running. None of these needs an adapter.

mod common;

use common::Session;

#[test]
fn help_with_a_command_prints_that_commands_help() {
    let s = Session::new();
    let words = s.run(&["help", "break", "add"]);
    let flag = s.run(&["break", "add", "--help"]);
    assert_eq!(words.code, 0, "{words:?}");
    assert_eq!(words.stdout, flag.stdout);
    assert!(
        words.stdout.contains("Usage: debugger breakpoint add"),
        "{words:?}"
    );
    let top = s.run(&["help"]);
    assert_eq!(top.code, 0, "{top:?}");
    assert_eq!(top.stdout, s.run(&["--help"]).stdout);
}

#[test]
fn the_adapter_flags_help_names_every_built_in_adapter() {
    let s = Session::new();
    for command in [
        &["start", "--help"][..],
        &["attach", "--help"],
        &["setup", "--help"],
    ] {
        let help = s.run(command);
        assert_eq!(help.code, 0, "{help:?}");
        let words: Vec<&str> = help
            .stdout
            .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
            .collect();
        for row in debugger::adapters::ADAPTERS {
            let names = std::iter::once(row.name())
                .chain(row.shorthands.iter().copied())
                .chain(row.aliases.iter().copied());
            for name in names {
                assert!(words.contains(&name), "{command:?} omits {name}: {help:?}");
            }
        }
    }
}

#[test]
fn a_bad_number_is_a_usage_error_naming_the_flag_and_its_range() {
    let s = Session::new();
    for (args, flag, accepted) in [
        (
            &["output", "--tail", "-1"][..],
            "'--tail <N>'",
            "expected a whole number from 1 to 1000000",
        ),
        (
            &["await", "--timeout", "inf"],
            "'--timeout <S>'",
            "expected a number of seconds from 0 to 2592000",
        ),
        (
            &["continue", "--wait", "--timeout", "-5"],
            "'--timeout <S>'",
            "expected a number of seconds from 0 to 2592000",
        ),
        (
            &["backtrace", "--limit", "0"],
            "'--limit <N>'",
            "expected a whole number from 1 to 100000",
        ),
        (
            &["up", "-1"],
            "'[COUNT]'",
            "expected a whole number from 1 to 100000",
        ),
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains(flag) && run.stderr.contains(accepted),
            "{args:?}: {}",
            run.stderr
        );
        let mut json = vec!["--json"];
        json.extend_from_slice(args);
        let error = s.run(&json).failure();
        assert_eq!(error["code"], "usage", "{args:?}: {error}");
    }
}

#[test]
fn a_runtime_dir_too_long_for_a_socket_names_the_limit_and_the_way_out() {
    let s = Session::new();
    let long = s.dir.path().join("r".repeat(120));
    debugger::platform::create_private_dir(&long).expect("long runtime dir");
    for args in [&["start", "/bin/true"][..], &["status"]] {
        let run = s
            .command()
            .env("DEBUGGER_RUNTIME_DIR", &long)
            .arg("--json")
            .args(args)
            .output()
            .expect("run debugger");
        let error = common::Run::from(run).failure();
        assert_eq!(error["code"], "usage", "{args:?}: {error}");
        let message = error["message"].as_str().unwrap_or_default();
        let limit = debugger::platform::SOCKET_PATH_LIMIT.to_string();
        assert!(
            message.contains("bytes long, over this system's limit of") && message.contains(&limit),
            "{message}"
        );
        assert!(
            error["hint"]
                .as_str()
                .is_some_and(|h| h.contains("DEBUGGER_RUNTIME_DIR")),
            "{error}"
        );
    }
}

#[test]
fn a_missing_session_is_named() {
    let s = Session::new();
    let error = s.run(&["--json", "--session", "x2", "status"]).failure();
    assert_eq!(error["code"], "no_session");
    assert_eq!(error["message"], "no session 'x2' is running");
}

#[test]
fn a_breakpoint_subcommand_alone_is_answered_with_its_whole_command() {
    let s = Session::new();
    let run = s.run(&["rm", "1"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("tip: did you mean 'debugger breakpoint remove 1'?"),
        "{run:?}"
    );
    let error = s.run(&["--json", "delete", "2"]).failure();
    assert_eq!(error["message"], "unrecognized subcommand 'delete'");
    assert_eq!(
        error["hint"],
        "did you mean 'debugger --json breakpoint remove 2'?"
    );
}

#[test]
fn a_directory_is_said_to_be_one() {
    let s = Session::new();
    let folder = s.cwd.join("notes");
    std::fs::create_dir(&folder).expect("mkdir");
    let run = s.run(&["--json", "start", "notes"]);
    assert_eq!(run.code, 2, "{run:?}");
    let error = run.failure();
    assert_eq!(error["code"], "usage");
    assert_eq!(
        error["message"],
        format!("{} is a directory, not a program", folder.display())
    );
    assert!(
        error["hint"].as_str().unwrap_or("").contains("Go package"),
        "{error}"
    );
}
