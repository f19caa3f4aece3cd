//! A second front door: every command can be run in a long-lived process, many times, with no
//! process per call. The commands run here in the test's own process, through
//! `commands::run` and a kept sink, against a session the CLI started (starting a daemon needs
//! the `debugger` binary, which this test process is not); what they answer must be what the CLI
//! answers, and the text they show on the way must land in the sink, not on this process's
//! stdout.

mod common;

use common::{Session, at, build, line_of, require_lldb_dap};
use debugger::commands::breakpoint::{BreakpointAction, BreakpointArgs, BreakpointOptions};
use debugger::commands::execution::WaitArgs;
use debugger::commands::inspect::{LocalsArgs, PrintArgs};
use debugger::commands::output::OutputArgs;
use debugger::commands::{self, Call, CommandLine, Kept, Outcome};
use debugger::common::error::{ErrorBody, ErrorCode};
use serde_json::Value;

/// Runs one command in this process for `s`'s session.
fn run(s: &Session, command: CommandLine, sink: &mut Kept) -> Result<Outcome, ErrorBody> {
    let mut call = Call {
        session: &s.name,
        data_only: false,
        sink,
    };
    commands::run(command, &mut call)
}

fn wait() -> WaitArgs {
    WaitArgs {
        wait: true,
        timeout: 60.0,
        locals: None,
        print: Vec::new(),
    }
}

fn print(expression: &str) -> CommandLine {
    CommandLine::Print(PrintArgs {
        expression: vec![expression.to_string()],
        depth: 1,
        children: None,
        timeout: None,
    })
}

#[test]
fn commands_run_in_process_again_and_again_through_a_kept_sink() {
    require_lldb_dap();
    let s = Session::new();
    // The in-process calls find the session as the CLI does: through the environment the
    // harness gives the CLI. Set before any other thread of this test binary reads it (this
    // file holds one test).
    // SAFETY: this test binary has one test, and nothing else runs while the variables are set.
    unsafe {
        std::env::set_var("DEBUGGER_RUNTIME_DIR", s.runtime_dir());
        std::env::set_var("DEBUGGER_STATE_DIR", s.state_dir());
        std::env::set_var("DEBUGGER_CONFIG", s.dir.path().join("config.toml"));
    }
    let mut sink = Kept::default();

    // No session yet: the in-process call fails as the CLI's does, and nothing is lost.
    let missing = run(&s, CommandLine::Status, &mut sink).err();
    assert_eq!(missing.map(|e| e.code), Some(ErrorCode::NoSession));

    let program = build("c/ledger.c");
    s.start(&program, &[]);
    let location = at("c/ledger.c", "@apply_body");
    let added = run(
        &s,
        CommandLine::Breakpoint(BreakpointArgs {
            action: Some(BreakpointAction::Add {
                locations: vec![location],
                options: BreakpointOptions {
                    condition: None,
                    hit_count: None,
                    log: None,
                },
            }),
            locations: Vec::new(),
            options: BreakpointOptions {
                condition: None,
                hit_count: None,
                log: None,
            },
        }),
        &mut sink,
    )
    .expect("break add in process");
    assert!(added.text.starts_with("Breakpoint 1 "), "{}", added.text);

    let line = line_of("c/ledger.c", "@apply_body");
    for round in 0..5 {
        let stopped = run(&s, CommandLine::Continue(wait()), &mut sink).expect("continue");
        assert_eq!(
            stopped.data["stop"]["frame"]["line"], line,
            "{}",
            stopped.data
        );
        let amount = run(&s, print("amount"), &mut sink).expect("print");
        assert_eq!(amount.data["value"], round.to_string(), "{}", amount.data);
        // The same question through the CLI gets the same answer.
        assert_eq!(s.data(&["print", "amount"]), amount.data);
        let locals = run(
            &s,
            CommandLine::Locals(LocalsArgs {
                depth: 1,
                full: false,
                changed: false,
                children: None,
            }),
            &mut sink,
        )
        .expect("locals");
        assert!(locals.text.contains("amount (long) ="), "{}", locals.text);
    }
    let ended = run(&s, CommandLine::Continue(wait()), &mut sink).expect("continue to the end");
    assert_eq!(ended.data["stop"]["reason"], "exited", "{}", ended.data);

    // `output` shows the program's output through the sink as it reads it.
    let output = run(
        &s,
        CommandLine::Output(OutputArgs {
            tail: None,
            clear: false,
            follow: false,
        }),
        &mut sink,
    )
    .expect("output");
    assert!(sink.text.contains("step 4: amount=4"), "{sink:?}");
    assert!(sink.text.contains("ledger: done"), "{sink:?}");
    assert_eq!(output.text, "", "the pages went to the sink");
    assert_eq!(output.data["text"], Value::String(String::new()));
}
