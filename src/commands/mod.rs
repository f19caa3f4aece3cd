//! The CLI side of each command family: build the request, send it, render the answer.

pub mod adapter_console;
pub mod breakpoint;
pub mod demo;
pub mod disassemble;
pub mod doctor;
pub mod execution;
pub mod inspect;
pub mod memory;
pub mod output;
pub mod probe;
pub mod session;
pub mod setup;

use serde::Serialize;
use serde_json::Value;

use crate::cli::Outcome;
use crate::cli::args::{Cli, CommandLine, MemoryAction};
use crate::common::error::ErrorBody;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<Outcome, ErrorBody> {
    let session = cli.session.as_str();
    match cli.command {
        CommandLine::Start(args) => session::start(session, args),
        CommandLine::Probe(args) => probe::run(args),
        CommandLine::Attach(args) => session::attach(session, args),
        CommandLine::Status => session::status(session),
        CommandLine::Stop => session::stop(session, false),
        CommandLine::Detach => session::stop(session, true),
        CommandLine::Restart => session::restart(session),
        CommandLine::Sessions => session::sessions(),
        CommandLine::Breakpoint(args) => breakpoint::run(session, args),
        CommandLine::Watch(args) => breakpoint::watch(session, args),
        CommandLine::Continue(wait) => {
            execution::resume(session, crate::ipc::protocol::ResumeAction::Continue, wait)
        }
        CommandLine::Next(wait) => {
            execution::resume(session, crate::ipc::protocol::ResumeAction::Next, wait)
        }
        CommandLine::Step(wait) => {
            execution::resume(session, crate::ipc::protocol::ResumeAction::Step, wait)
        }
        CommandLine::Finish(wait) => {
            execution::resume(session, crate::ipc::protocol::ResumeAction::Finish, wait)
        }
        CommandLine::Pause(wait) => execution::pause(session, wait),
        CommandLine::Await { timeout } => execution::await_stop(session, timeout),
        CommandLine::Context => inspect::context(session),
        CommandLine::Backtrace { limit, thread } => inspect::backtrace(session, limit, thread),
        CommandLine::Threads => inspect::threads(session),
        CommandLine::Thread { id } => inspect::select_thread(session, id),
        CommandLine::Frame { index } => inspect::select_frame(
            session,
            crate::ipc::protocol::FrameSelection::Index { index },
        ),
        CommandLine::Up { count } => {
            inspect::select_frame(session, crate::ipc::protocol::FrameSelection::Up { count })
        }
        CommandLine::Down { count } => inspect::select_frame(
            session,
            crate::ipc::protocol::FrameSelection::Down { count },
        ),
        CommandLine::Locals { depth } => inspect::locals(session, depth),
        CommandLine::Print { expression, depth } => {
            inspect::print(session, &expression.join(" "), depth)
        }
        CommandLine::Eval { expression } => inspect::eval(session, &expression.join(" ")),
        CommandLine::Set { name, value } => adapter_console::set(session, &name, &value.join(" ")),
        CommandLine::Raw { text } => adapter_console::raw(session, &text.join(" ")),
        CommandLine::Catch { filters, none } => adapter_console::catch(session, filters, none),
        CommandLine::Memory {
            action: MemoryAction::Read { target, count },
        } => memory::read(session, &target.join(" "), count),
        CommandLine::Disassemble { target, count } => {
            let target = Some(target.join(" ")).filter(|t| !t.is_empty());
            disassemble::run(session, target, count)
        }
        CommandLine::Output {
            tail,
            clear,
            follow,
        } => output::run(session, tail, clear, follow, cli.json),
        CommandLine::Doctor => doctor::run(cli.json),
        CommandLine::Setup { adapter, all } => setup::run(adapter.as_deref(), all),
        CommandLine::Demo => demo::run(cli.json),
        CommandLine::Daemon | CommandLine::Reaper { .. } => Err(ErrorBody::internal(
            "the daemon and its reaper are not commands to dispatch",
        )),
    }
}

/// Serialises a result for `--json`.
pub fn data<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
