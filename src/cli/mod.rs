//! The command-line front door: parse the process's arguments, run one command, print its
//! outcome, exit. Everything a command does lives in `src/commands/`; this is only how a
//! terminal, a pipe or a script sees it.

pub mod args;
mod parse;
mod print;
pub mod startup;

use std::ffi::OsString;

use args::Role;

use crate::commands::{self, Call, Sink};

/// Runs the CLI on this process's arguments and returns its exit status.
pub fn main() -> i32 {
    run(&std::env::args_os().collect::<Vec<_>>())
}

/// Runs one command line (the program's name first, as in `argv`) and returns the exit status.
fn run(args: &[OsString]) -> i32 {
    let cli = match parse::parse_for_this_process(args) {
        Ok(cli) => cli,
        Err(e) => return print::usage_error(&e, wants_json(args)),
    };
    let command = match cli.role {
        Role::Daemon => return crate::daemon::run(&cli.session),
        Role::Reaper {
            group,
            tree_tag,
            since,
            scratch,
        } => {
            return crate::daemon::reaper::run(
                group,
                tree_tag.as_deref(),
                since,
                scratch.as_deref(),
            );
        }
        Role::Mcp { print_config } => return mcp(&cli.session, print_config),
        Role::Command(command) => *command,
    };
    crate::common::timeline::mark("cli started");
    let mut sink = print::Terminal;
    let mut call = Call {
        session: &cli.session,
        data_only: cli.json,
        sink: &mut sink,
    };
    match commands::run(command, &mut call) {
        Ok(outcome) => {
            let code = outcome.error.as_ref().map_or(0, |e| e.code.exit_code());
            print::outcome(cli.json, outcome);
            crate::common::timeline::mark("cli report printed");
            code
        }
        Err(err) => {
            print::error(cli.json, &err);
            crate::common::timeline::mark("cli report printed");
            err.code.exit_code()
        }
    }
}

/// `debugger mcp`: serve MCP on stdio, or print its client configuration. A session named on the
/// command line (or by `DEBUGGER_SESSION`) is every call's default; else each connection has
/// its own.
fn mcp(session: &str, print_config: bool) -> i32 {
    if print_config {
        return match crate::mcp::print_config() {
            Ok(text) => {
                print::Terminal.text(&text);
                0
            }
            Err(message) => {
                print::error(false, &crate::common::error::ErrorBody::internal(message));
                1
            }
        };
    }
    let named = (session != crate::common::paths::DEFAULT_SESSION).then(|| session.to_string());
    crate::mcp::run(named)
}

/// Whether a command line that clap refused asked for `--json`: its usage error is then the one
/// JSON object.
fn wants_json(args: &[OsString]) -> bool {
    args.iter().skip(1).any(|a| a == "--json")
}
