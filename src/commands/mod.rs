//! The command set, for every front door: each command's flags (its clap definition, beside the
//! command in its family's file), the request it sends, and the [`Outcome`] it renders.
//!
//! Nothing here prints or reads the process's arguments: a command takes its arguments as
//! values and a [`Call`] (the session, whether only data is wanted, a [`Sink`] for text shown on
//! the way), so a long-lived process can run any command many times. The CLI is one such caller
//! (`src/cli/`); the layering is `cli → commands → ipc`, held by `tests/layers.rs`.

pub mod adapter_console;
pub mod breakpoint;
mod breakpoint_specs;
pub mod core_dump;
pub mod demo;
pub mod disassemble;
pub mod display;
pub mod doctor;
pub mod execution;
pub mod guide;
pub mod inspect;
pub mod json_args;
pub mod memory;
mod numbers;
mod outcome;
pub mod output;
pub mod probe;
pub mod render;
pub mod schema;
pub mod session;
pub mod sessions;
pub mod setup;
mod sink;
pub mod test;

use clap::Subcommand;

use crate::common::error::ErrorBody;
use crate::ipc::protocol::ResumeAction;
pub use outcome::{Outcome, data};
pub use sink::{Kept, Sink};

/// One call of a command: which session it is for, how its answer is wanted, and where text
/// shown on the way goes.
pub struct Call<'a> {
    pub session: &'a str,
    /// The caller shows only the data (the CLI's `--json`): text meant for people, such as
    /// `output --follow`'s pages as they come, is not streamed.
    pub data_only: bool,
    pub sink: &'a mut dyn Sink,
}

/// Every command. Each command's flags and help are defined beside it; a variant here names it,
/// and [`run`] gives it its call. Each command's flags are built only when that command runs
/// (`defer`): building clap's tree of every flag of every command was the larger part of a CLI
/// call's own start-up.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum CommandLine {
    /// Launch a program under the debugger and report its first stop (within --wait).
    Start(session::StartArgs),
    /// Run a program without a session, record each breakpoint hit (location, stack, locals,
    /// --print values, a caller's too: -p '@main:i'), and print one report.
    Probe(probe::ProbeArgs),
    /// Debug one test of the project here, found through its own runner (cargo, pytest or
    /// unittest, go test, node --test, ctest, a test executable); --break-on-failure stops
    /// where it fails.
    Test(test::TestArgs),
    /// Attach to a running process.
    Attach(session::AttachArgs),
    /// Open a core dump: why the program died, its threads, stacks, locals and memory, read
    /// with the usual commands (nothing can run it).
    Core(core_dump::CoreArgs),
    /// Show the session's state.
    Status,
    /// End the session (a launched program is terminated, an attached one detached).
    Stop,
    /// Detach from the program and leave it running.
    Detach,
    /// Run the program again from the start with the same arguments and breakpoints, and
    /// report its first stop.
    Restart(session::FirstStopArgs),
    /// List the sessions that are running.
    Sessions,

    /// Add, modify, remove, list, enable or disable breakpoints ('debugger break FILE:LINE' adds
    /// one, 'debugger break "FILE:LINE if COND"' one with a condition; 'debugger break add', a
    /// subcommand's name alone, breaks on the function of that name).
    #[command(visible_aliases = ["break", "b"])]
    Breakpoint(breakpoint::BreakpointArgs),
    /// Stop when a variable (or any lvalue) is written, or read: a watchpoint. Set it where the
    /// program is stopped; list and remove it with the breakpoints.
    Watch(breakpoint::WatchArgs),

    /// Resume until the next breakpoint (or exit).
    #[command(visible_alias = "c")]
    Continue(execution::WaitArgs),
    /// Step over one line.
    #[command(visible_alias = "n")]
    Next(execution::WaitArgs),
    /// Step into the call on this line.
    #[command(visible_alias = "s")]
    Step(execution::WaitArgs),
    /// Run until the current function returns.
    #[command(visible_alias = "out")]
    Finish(execution::WaitArgs),
    /// Interrupt the running program.
    Pause(execution::WaitArgs),
    /// Wait for the next stop or exit (returns at once when already stopped or gone).
    Await(execution::AwaitArgs),

    /// Where the program is stopped: location, source and locals.
    #[command(visible_alias = "where")]
    Context,
    /// The call stack.
    #[command(visible_alias = "bt")]
    Backtrace(inspect::BacktraceArgs),
    /// List the threads.
    Threads,
    /// Select a thread (and its innermost frame).
    Thread(inspect::ThreadArgs),
    /// Select a frame of the selected thread (0 is the innermost).
    Frame(inspect::FrameArgs),
    /// Select the caller's frame.
    Up(inspect::MoveArgs),
    /// Select the callee's frame.
    Down(inspect::MoveArgs),
    /// The local variables of the selected frame.
    Locals(inspect::LocalsArgs),
    /// Evaluate an expression in the selected frame and show its value, type and children.
    #[command(visible_alias = "p")]
    Print(inspect::PrintArgs),
    /// Evaluate an expression and print only its value (for scripts).
    Eval(inspect::EvalArgs),
    /// Show an expression in every stop report of the session: 'display EXPR' adds one (with
    /// its value now, when stopped), 'display' lists them, 'display --remove N' removes one.
    /// The waiting commands' -p EXPR shows one in a single report.
    Display(display::DisplayArgs),
    /// Give a variable (or an assignable expression) a new value in the selected frame.
    Set(adapter_console::SetArgs),
    /// Send text to the adapter's own console: lldb commands through lldb-dap, Python through
    /// debugpy.
    Raw(adapter_console::RawArgs),
    /// List the adapter's exception filters, or stop on exactly the ones named; under the JVM a
    /// name that is no filter is an exception class's (IllegalStateException), stopping for it
    /// and its subclasses.
    Catch(adapter_console::CatchArgs),
    /// Read the program's memory: a hexdump of the bytes at an address or where a pointer points.
    Memory(memory::MemoryArgs),
    /// Disassemble around the selected frame's pc (marked '->'), or from an address or function.
    #[command(visible_alias = "disas")]
    Disassemble(disassemble::DisassembleArgs),
    /// The program's output (stdout and stderr).
    Output(output::OutputArgs),

    /// Check which debug adapters work here, whether attaching is allowed, and the runtime dir.
    Doctor,
    /// Install a debug adapter with the platform's own tools (debugpy: a private virtualenv).
    Setup(setup::SetupArgs),
    /// Run a scripted session on a bundled C program (installs lldb-dap when missing).
    Demo,
    /// The guide for coding agents: when to reach for the debugger, the commands that answer
    /// most questions, how to read their answers (docs/agents.md).
    Guide,
}

/// Runs one command.
pub fn run(command: CommandLine, call: &mut Call<'_>) -> Result<Outcome, ErrorBody> {
    let session = call.session;
    match command {
        CommandLine::Start(args) => session::start(session, args),
        CommandLine::Probe(args) => probe::run(session, args),
        CommandLine::Test(args) => test::run(session, args),
        CommandLine::Attach(args) => session::attach(session, args),
        CommandLine::Core(args) => core_dump::run(session, args),
        CommandLine::Status => session::status(session),
        CommandLine::Stop => session::stop(session, false),
        CommandLine::Detach => session::stop(session, true),
        CommandLine::Restart(args) => session::restart(session, args),
        CommandLine::Sessions => sessions::sessions(),
        CommandLine::Breakpoint(args) => breakpoint::run(session, args),
        CommandLine::Watch(args) => breakpoint::watch(session, args),
        CommandLine::Continue(wait) => execution::resume(session, ResumeAction::Continue, wait),
        CommandLine::Next(wait) => execution::resume(session, ResumeAction::Next, wait),
        CommandLine::Step(wait) => execution::resume(session, ResumeAction::Step, wait),
        CommandLine::Finish(wait) => execution::resume(session, ResumeAction::Finish, wait),
        CommandLine::Pause(wait) => execution::pause(session, wait),
        CommandLine::Await(args) => execution::await_stop(session, args),
        CommandLine::Context => inspect::context(session),
        CommandLine::Backtrace(args) => inspect::backtrace(session, args),
        CommandLine::Threads => inspect::threads(session),
        CommandLine::Thread(args) => inspect::select_thread(session, args),
        CommandLine::Frame(args) => inspect::select_frame(session, args.into()),
        CommandLine::Up(args) => inspect::select_frame(session, args.up()),
        CommandLine::Down(args) => inspect::select_frame(session, args.down()),
        CommandLine::Locals(args) => inspect::locals(session, args),
        CommandLine::Print(args) => inspect::print(session, args),
        CommandLine::Eval(args) => inspect::eval(session, args),
        CommandLine::Display(args) => display::run(session, args),
        CommandLine::Set(args) => adapter_console::set(session, args),
        CommandLine::Raw(args) => adapter_console::raw(session, args),
        CommandLine::Catch(args) => adapter_console::catch(session, args),
        CommandLine::Memory(args) => memory::run(session, args),
        CommandLine::Disassemble(args) => disassemble::run(session, args),
        CommandLine::Output(args) => output::run(args, call),
        CommandLine::Doctor => doctor::run(call),
        CommandLine::Setup(args) => setup::run(args),
        CommandLine::Demo => demo::run(call),
        CommandLine::Guide => Ok(guide::outcome()),
    }
}
