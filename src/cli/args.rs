//! The top of the command line: the global flags, and the two hidden process roles (the daemon
//! and its reaper) that are not commands. Each command's flags are defined beside the command,
//! in `src/commands/`; `docs/cli.md` documents the same set, so keep them in step.

use clap::{Parser, Subcommand};

use crate::commands::CommandLine;

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
        default_value = crate::common::paths::DEFAULT_SESSION
    )]
    pub session: String,

    /// Print exactly one JSON object: {"ok": true, "data": ...} or {"ok": false, "error": ...}.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub role: Role,
}

/// What this process is: a command for the user, or one of the hidden helpers a command starts.
/// Built only when used (`defer`), as each command is.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Role {
    #[command(flatten)]
    Command(Box<CommandLine>),

    /// Serve the Model Context Protocol on stdin and stdout, for agents that speak MCP: one tool
    /// per command family, on the same sessions as the CLI.
    Mcp {
        /// Print the lines that add this server to common agent clients' MCP configuration, and
        /// exit.
        #[arg(long)]
        print_config: bool,
    },

    /// Run the session daemon (started by 'start' and 'attach').
    #[command(hide = true)]
    Daemon,

    /// Run the daemon's reaper (started by the daemon).
    #[command(hide = true)]
    Reaper {
        /// The daemon's process group, killed if the daemon dies uncleanly.
        #[arg(long)]
        group: Option<i32>,
        /// The tag of the daemon's process tree: processes carrying it are killed too.
        #[arg(long)]
        tree_tag: Option<String>,
        /// The daemon's start time: no process of its tree started earlier.
        #[arg(long)]
        since: Option<u64>,
        /// The daemon's scratch folder, removed once the daemon is gone.
        #[arg(long)]
        scratch: Option<std::path::PathBuf>,
    },
}
