//! Every command line flag, in one place. `docs/cli.md` documents the same set; keep them in step.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::common::location::DataAccess;

use crate::ipc::protocol::{
    DISASSEMBLE_DEFAULT, DISASSEMBLE_MAX, MEMORY_READ_DEFAULT, MEMORY_READ_MAX,
};

#[derive(Debug, Parser)]
#[command(
    name = "debugger",
    version,
    about = "A debugger for agents, terminals and CI: each call is a short command; a background daemon keeps the session",
    propagate_version = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// The session to talk to (one daemon per name).
    #[arg(
        long,
        global = true,
        env = "DEBUGGER_SESSION",
        default_value = "default"
    )]
    pub session: String,

    /// Print exactly one JSON object: {"ok": true, "data": ...} or {"ok": false, "error": ...}.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: CommandLine,
}

/// Each command's flags are defined only when that command runs (`defer`): building clap's
/// tree of every flag of every command was the larger part of a CLI call's own start-up.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum CommandLine {
    /// Launch a program under the debugger.
    Start(StartArgs),
    /// Run a program without a session, record each breakpoint hit (location, stack, locals,
    /// --print values), and print one report.
    Probe(ProbeArgs),
    /// Attach to a running process.
    Attach(AttachArgs),
    /// Show the session's state.
    Status,
    /// End the session (a launched program is terminated, an attached one detached).
    Stop,
    /// Detach from the program and leave it running.
    Detach,
    /// Run the program again from the start with the same arguments and breakpoints.
    Restart,
    /// List the sessions that are running.
    Sessions,

    /// Add, remove, list, enable or disable breakpoints ('debugger break FILE:LINE' adds one;
    /// 'debugger break add', a subcommand's name alone, breaks on the function of that name).
    #[command(visible_aliases = ["break", "b"])]
    Breakpoint(BreakpointArgs),
    /// Stop when a variable (or any lvalue) is written, or read: a watchpoint. Set it where the
    /// program is stopped; list and remove it with the breakpoints.
    Watch(WatchArgs),

    /// Resume until the next breakpoint (or exit).
    #[command(visible_alias = "c")]
    Continue(WaitArgs),
    /// Step over one line.
    #[command(visible_alias = "n")]
    Next(WaitArgs),
    /// Step into the call on this line.
    #[command(visible_alias = "s")]
    Step(WaitArgs),
    /// Run until the current function returns.
    #[command(visible_alias = "out")]
    Finish(WaitArgs),
    /// Interrupt the running program.
    Pause(WaitArgs),
    /// Wait for the next stop or exit (returns at once when already stopped or gone).
    Await {
        /// Seconds to wait before giving up (exit code 3).
        #[arg(long, default_value_t = 300.0)]
        timeout: f64,
    },

    /// Where the program is stopped: location, source and locals.
    #[command(visible_alias = "where")]
    Context,
    /// The call stack.
    #[command(visible_alias = "bt")]
    Backtrace {
        /// The most frames to show.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// A thread other than the selected one.
        #[arg(long)]
        thread: Option<i64>,
    },
    /// List the threads.
    Threads,
    /// Select a thread (and its innermost frame).
    Thread {
        /// The thread id, as 'debugger threads' shows it.
        id: i64,
    },
    /// Select a frame of the selected thread (0 is the innermost).
    Frame {
        /// The frame number, as 'debugger backtrace' shows it.
        index: u32,
    },
    /// Select the caller's frame.
    Up {
        /// How many frames to move.
        #[arg(default_value_t = 1)]
        count: u32,
    },
    /// Select the callee's frame.
    Down {
        /// How many frames to move.
        #[arg(default_value_t = 1)]
        count: u32,
    },
    /// The local variables of the selected frame.
    Locals {
        /// How many levels of children to expand.
        #[arg(long, default_value_t = 1)]
        depth: u32,
    },
    /// Evaluate an expression in the selected frame and show its value, type and children.
    #[command(visible_alias = "p")]
    Print {
        /// The expression (several words are joined with spaces; put `--` before one that
        /// starts with '-').
        #[arg(required = true, num_args = 1..)]
        expression: Vec<String>,
        /// How many levels of children to expand.
        #[arg(long, default_value_t = 1)]
        depth: u32,
    },
    /// Evaluate an expression and print only its value (for scripts).
    Eval {
        /// The expression (several words are joined with spaces; put `--` before one that
        /// starts with '-').
        #[arg(required = true, num_args = 1..)]
        expression: Vec<String>,
    },
    /// Give a variable (or an assignable expression) a new value in the selected frame.
    Set {
        /// The variable, e.g. `amount` or `acct->balance`.
        name: String,
        /// The new value, in the program's language (several words are joined with spaces).
        #[arg(required = true, num_args = 1..)]
        value: Vec<String>,
    },
    /// Send text to the adapter's own console: lldb commands through lldb-dap, Python through
    /// debugpy.
    Raw {
        /// The text (several words are joined with spaces).
        #[arg(required = true, num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true)]
        text: Vec<String>,
    },
    /// List the adapter's exception filters, or stop on exactly the ones named.
    Catch {
        /// Filters to turn on (e.g. `raised`, `uncaught`, `cpp_throw`); the others go off.
        filters: Vec<String>,
        /// Turn every exception filter off.
        #[arg(long, conflicts_with = "filters")]
        none: bool,
    },
    /// Read the program's memory: a hexdump of the bytes at an address or where a pointer points.
    Memory {
        #[command(subcommand)]
        action: MemoryAction,
    },
    /// Disassemble around the selected frame's pc (marked '->'), or from an address or function.
    #[command(visible_alias = "disas")]
    Disassemble {
        /// Where to start: an address (0x…, or decimal) or an expression such as a function name
        /// (several words are joined with spaces); default: around the selected frame's pc.
        target: Vec<String>,
        /// How many instructions to show (1 to 1000).
        #[arg(long, value_name = "N", default_value_t = DISASSEMBLE_DEFAULT,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(DISASSEMBLE_MAX)))]
        count: u32,
    },
    /// The program's output (stdout and stderr).
    Output {
        /// Only the last N lines.
        #[arg(long)]
        tail: Option<u32>,
        /// Discard what is shown from the buffer.
        #[arg(long)]
        clear: bool,
        /// Keep printing new output until the program ends.
        #[arg(long)]
        follow: bool,
    },

    /// Check which debug adapters work here, whether attaching is allowed, and the runtime dir.
    Doctor,
    /// Install a debug adapter with the platform's own tools (debugpy: a private virtualenv).
    #[command(group = clap::ArgGroup::new("what").required(true).args(["adapter", "all"]))]
    Setup {
        /// The adapter: lldb, debugpy (python), delve (go, dlv), gdb, codelldb or node (js).
        #[arg(value_name = "ADAPTER")]
        adapter: Option<String>,
        /// Install every adapter setup can install (lldb, debugpy, delve, node).
        #[arg(long)]
        all: bool,
    },
    /// Run a scripted session on a bundled C program (installs lldb-dap when missing).
    Demo,

    /// Run the session daemon (started by 'start' and 'attach').
    #[command(hide = true)]
    Daemon,

    /// Run the daemon's reaper (started by the daemon).
    #[command(hide = true)]
    Reaper {
        /// The daemon's process group, killed if the daemon dies uncleanly.
        #[arg(long)]
        group: Option<i32>,
    },
}

#[derive(Debug, Subcommand)]
pub enum MemoryAction {
    /// Show bytes at an address (0x…, or decimal), or where an expression's value points (a
    /// pointer such as `acct->owner`, or `&g_counter`).
    Read {
        /// The address or expression (several words are joined with spaces; put `--` before one
        /// that starts with '-').
        #[arg(required = true, num_args = 1..)]
        target: Vec<String>,
        /// How many bytes to read (1 to 65536).
        #[arg(long, value_name = "N", default_value_t = MEMORY_READ_DEFAULT,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(MEMORY_READ_MAX)))]
        count: u32,
    },
}

// What a launched program is and how it runs: shared by `start` and `probe`, which build the
// same launch from them. (A plain comment: a doc comment would become the help text of the
// commands that flatten it.)
#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// The program to debug.
    pub program: PathBuf,
    /// The debug adapter: lldb, debugpy (python), delve (go, dlv), gdb, codelldb, node (js), or
    /// one defined in the config (default: the config's, else chosen by the program).
    #[arg(long)]
    pub adapter: Option<String>,
    /// The program's working directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An environment variable for the program, on top of the current environment; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Step into and stop in library code too (debugpy's justMyCode off).
    #[arg(long)]
    pub no_just_my_code: bool,
    /// The program's arguments, after '--'.
    #[arg(last = true)]
    pub args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Stop at the program's first instruction.
    #[arg(long)]
    pub stop_on_entry: bool,
    /// A breakpoint to set before the program runs (FILE:LINE or FUNCTION); repeatable.
    #[arg(short = 'b', long = "break", value_name = "LOC")]
    pub breakpoints: Vec<String>,
    /// Talk to an adapter already listening at HOST:PORT (e.g. `dlv dap --listen`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// A breakpoint to record at each hit (FILE:LINE or FUNCTION); repeatable, at least one.
    #[arg(short = 'b', long = "break", value_name = "LOC", required = true)]
    pub breakpoints: Vec<String>,
    /// An expression to evaluate at each hit; repeatable. One that fails records its error.
    #[arg(short = 'p', long = "print", value_name = "EXPR")]
    pub prints: Vec<String>,
    /// End the probe after this many hits.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub hits: u32,
    /// Seconds the program may run before the probe ends it (exit code 3 if nothing was hit).
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    pub timeout: f64,
}

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The process id (optional with --connect).
    #[arg(required_unless_present = "connect")]
    pub pid: Option<u32>,
    /// Talk to an adapter already listening at HOST:PORT (e.g. `python -m debugpy --listen`), or
    /// to a Node inspector (`node --inspect=HOST:PORT`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// The debug adapter to use (default: from the config, else chosen by the process: node,
    /// python and Go programs are recognised, a Node inspector at --connect too, else lldb).
    #[arg(long)]
    pub adapter: Option<String>,
    /// A breakpoint to set as the session starts; repeatable.
    #[arg(short = 'b', long = "break", value_name = "LOC")]
    pub breakpoints: Vec<String>,
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// Block until the program stops again, and report where.
    #[arg(long, short = 'w')]
    pub wait: bool,
    /// Seconds to wait with --wait before giving up (exit code 3).
    #[arg(long, default_value_t = 300.0, requires = "wait")]
    pub timeout: f64,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BreakpointArgs {
    #[command(subcommand)]
    pub action: Option<BreakpointAction>,
    /// Shorthand for 'breakpoint add LOC...'.
    #[arg(value_name = "LOC")]
    pub locations: Vec<String>,
    #[command(flatten)]
    pub options: BreakpointOptions,
}

#[derive(Debug, Args)]
pub struct BreakpointOptions {
    /// Stop only when this expression is true.
    #[arg(long)]
    pub condition: Option<String>,
    /// Stop only from the Nth hit on.
    #[arg(long, value_name = "N")]
    pub hit_count: Option<u32>,
    /// A logpoint: log this message instead of stopping; `{expr}` parts are evaluated at each
    /// hit, e.g. --log "i={i} total={total}". The lines go to 'debugger output'.
    #[arg(long, value_name = "MESSAGE")]
    pub log: Option<String>,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The variable or lvalue to watch, e.g. `g_counter`, `acct->balance`, `history[2]`.
    pub expression: String,
    /// Which access stops the program.
    #[arg(long, value_enum, default_value_t = AccessArg::Write)]
    pub access: AccessArg,
    /// Stop only when this expression is true.
    #[arg(long)]
    pub condition: Option<String>,
    /// Stop only from the Nth hit on.
    #[arg(long, value_name = "N")]
    pub hit_count: Option<u32>,
}

/// `--access` as typed; DAP's names.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AccessArg {
    Write,
    Read,
    #[value(name = "readWrite", alias = "read-write")]
    ReadWrite,
}

impl From<AccessArg> for DataAccess {
    fn from(access: AccessArg) -> DataAccess {
        match access {
            AccessArg::Write => DataAccess::Write,
            AccessArg::Read => DataAccess::Read,
            AccessArg::ReadWrite => DataAccess::ReadWrite,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum BreakpointAction {
    /// Add breakpoints at FILE:LINE or a function (several in one call are sent together).
    Add {
        #[arg(value_name = "LOC", required = true, num_args = 1..)]
        locations: Vec<String>,
        #[command(flatten)]
        options: BreakpointOptions,
    },
    /// Remove breakpoints by id.
    #[command(visible_aliases = ["delete", "rm"])]
    Remove {
        #[arg(required_unless_present = "all")]
        ids: Vec<u32>,
        /// Remove every breakpoint.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
    /// List the breakpoints.
    #[command(visible_alias = "ls")]
    List,
    /// Enable breakpoints by id.
    Enable {
        #[arg(required = true)]
        ids: Vec<u32>,
    },
    /// Disable breakpoints by id (kept, but not stopping).
    Disable {
        #[arg(required = true)]
        ids: Vec<u32>,
    },
}
