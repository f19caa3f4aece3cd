//! `breakpoint add/remove/list/enable/disable` (aliases `break`, `b`), and `watch`, which adds a
//! watchpoint to the same list.

use clap::{Args, Subcommand, ValueEnum};

use super::session::breakpoint_spec;
use super::{Outcome, data, numbers, render};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::resolve::LineCounts;
use crate::common::location::{DataAccess, Location};
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{
    BreakpointInfo, BreakpointList, BreakpointSpec, Command, RemovedBreakpoints,
};

// `breakpoint`'s subcommands and flags. (Plain comments on the flag sets: a doc comment would
// replace the command's help text, which the command list in `commands/mod.rs` gives.)
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
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = numbers::whole::<1, { u32::MAX }>)]
    pub hit_count: Option<u32>,
    /// A logpoint: log this message instead of stopping; `{expr}` parts are evaluated at each
    /// hit, e.g. --log "i={i} total={total}". The lines go to 'debugger output'.
    #[arg(long, value_name = "MESSAGE")]
    pub log: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum BreakpointAction {
    /// Add breakpoints at FILE:LINE or a function, with gdb's 'LOC if COND' for a condition
    /// (several in one call are sent together).
    Add {
        #[arg(value_name = "LOC", required = true, num_args = 1..)]
        locations: Vec<String>,
        #[command(flatten)]
        options: BreakpointOptions,
    },
    /// Remove breakpoints by id.
    #[command(visible_aliases = ["delete", "rm"])]
    Remove {
        /// The breakpoint ids, as 'debugger break list' shows them.
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
        /// The breakpoint ids, as 'debugger break list' shows them.
        #[arg(required = true)]
        ids: Vec<u32>,
    },
    /// Disable breakpoints by id (kept, but not stopping).
    Disable {
        /// The breakpoint ids, as 'debugger break list' shows them.
        #[arg(required = true)]
        ids: Vec<u32>,
    },
}

// `watch`'s arguments.
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
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = numbers::whole::<1, { u32::MAX }>)]
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

pub fn run(session: &str, args: BreakpointArgs) -> Result<Outcome, ErrorBody> {
    match (args.action, args.locations) {
        (Some(BreakpointAction::Add { locations, options }), _) => {
            add(session, &locations, options)
        }
        (None, locations) if !locations.is_empty() => add(session, &locations, args.options),
        (Some(BreakpointAction::Remove { ids, all }), _) => remove(session, ids, all),
        (Some(BreakpointAction::List), _) | (None, _) => list(session),
        (Some(BreakpointAction::Enable { ids }), _) => enable(session, ids, true),
        (Some(BreakpointAction::Disable { ids }), _) => enable(session, ids, false),
    }
}

/// Adds one breakpoint per location, all with the same options: one request, so the daemon
/// sends each file's list to the adapter once.
fn add(
    session: &str,
    locations: &[String],
    options: BreakpointOptions,
) -> Result<Outcome, ErrorBody> {
    let cwd = std::env::current_dir().map_err(|e| {
        ErrorBody::new(
            ErrorCode::Usage,
            format!("cannot read the current directory: {e}"),
            "",
        )
    })?;
    if options.log.as_deref().is_some_and(|m| m.trim().is_empty()) {
        return Err(ErrorBody::usage(
            "--log needs a message",
            "e.g. --log \"i={i} total={total}\": {expr} parts are evaluated at each hit",
        ));
    }
    let mut counts = LineCounts::default();
    let mut specs = locations
        .iter()
        .map(|location| {
            Ok(BreakpointSpec {
                log_message: options.log.clone(),
                ..breakpoint_spec(location, &cwd, &mut counts)?
            })
        })
        .collect::<Result<Vec<_>, ErrorBody>>()?;
    give_flags(&mut specs, options.condition.as_deref(), options.hit_count)?;
    let mut client = DaemonClient::connect(session)?;
    if specs.len() == 1
        && let Some(spec) = specs.pop()
    {
        let info: BreakpointInfo = client.request_as(Command::BreakpointAdd(spec))?;
        let text = format!("Breakpoint {}\n", render::breakpoint_line(&info));
        return Ok(Outcome::new(data(&info), text));
    }
    let result: BreakpointList = client.request_as(Command::BreakpointAddMany { specs })?;
    let text: String = result
        .breakpoints
        .iter()
        .map(|bp| format!("Breakpoint {}\n", render::breakpoint_line(bp)))
        .collect();
    Ok(Outcome::new(data(&result), text))
}

/// Gives every spec the `--condition` and `--hit-count` of the command that sets them. A
/// location with a condition of its own (`LOC if COND`) and `--condition` too is a usage error:
/// which of the two was meant cannot be told.
pub fn give_flags(
    specs: &mut [BreakpointSpec],
    condition: Option<&str>,
    hit_count: Option<u32>,
) -> Result<(), ErrorBody> {
    check_hit_count(hit_count)?;
    let condition = condition.map(str::trim).filter(|c| !c.is_empty());
    for spec in specs {
        if let (Some(flag), Some(own)) = (condition, &spec.condition) {
            return Err(ErrorBody::usage(
                format!(
                    "two conditions for '{}': 'if {own}' and --condition '{flag}'",
                    spec.requested.as_deref().unwrap_or_default()
                ),
                "give one: either 'LOC if COND' or --condition COND",
            ));
        }
        if let Some(flag) = condition {
            spec.condition = Some(flag.to_string());
        }
        if hit_count.is_some() {
            spec.hit_count = hit_count;
        }
    }
    Ok(())
}

fn check_hit_count(hit_count: Option<u32>) -> Result<(), ErrorBody> {
    if hit_count == Some(0) {
        return Err(ErrorBody::usage(
            "--hit-count must be at least 1",
            "--hit-count N stops from the Nth hit on",
        ));
    }
    Ok(())
}

pub fn watch(session: &str, args: WatchArgs) -> Result<Outcome, ErrorBody> {
    check_hit_count(args.hit_count)?;
    let expression = args.expression.trim();
    if expression.is_empty() {
        return Err(ErrorBody::usage(
            "nothing to watch",
            "name a variable or lvalue, e.g. 'debugger watch g_counter'",
        ));
    }
    let spec = BreakpointSpec {
        location: Location::Data {
            expression: expression.to_string(),
            access: args.access.into(),
        },
        requested: None,
        condition: args.condition.filter(|c| !c.trim().is_empty()),
        hit_count: args.hit_count,
        log_message: None,
    };
    let info: BreakpointInfo =
        DaemonClient::connect(session)?.request_as(Command::BreakpointAdd(spec))?;
    let text = format!("Watchpoint {}\n", render::breakpoint_line(&info));
    Ok(Outcome::new(data(&info), text))
}

fn remove(session: &str, ids: Vec<u32>, all: bool) -> Result<Outcome, ErrorBody> {
    let result: RemovedBreakpoints =
        DaemonClient::connect(session)?.request_as(Command::BreakpointRemove { ids, all })?;
    let text = match result.removed.as_slice() {
        [] => "No breakpoints to remove\n".to_string(),
        ids => format!(
            "Removed breakpoint{} {}\n",
            if ids.len() == 1 { "" } else { "s" },
            ids.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Ok(Outcome::new(data(&result), text))
}

fn list(session: &str) -> Result<Outcome, ErrorBody> {
    let result: BreakpointList =
        DaemonClient::connect(session)?.request_as(Command::BreakpointList)?;
    Ok(Outcome::new(data(&result), list_text(&result)))
}

fn list_text(result: &BreakpointList) -> String {
    if result.breakpoints.is_empty() {
        return "No breakpoints\n".to_string();
    }
    result
        .breakpoints
        .iter()
        .map(|bp| render::breakpoint_line(bp) + "\n")
        .collect()
}

fn enable(session: &str, ids: Vec<u32>, enabled: bool) -> Result<Outcome, ErrorBody> {
    let result: BreakpointList =
        DaemonClient::connect(session)?.request_as(Command::BreakpointEnable { ids, enabled })?;
    Ok(Outcome::new(data(&result), list_text(&result)))
}
