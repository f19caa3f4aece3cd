//! `breakpoint add/modify/remove/list/enable/disable` (aliases `break`, `b`), and `watch`, which
//! adds a watchpoint to the same list.

use clap::{Args, Subcommand, ValueEnum};

use super::session::breakpoint_spec;
use super::{Outcome, data, numbers, render};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::resolve::LineCounts;
use crate::common::location::{DataAccess, Location};
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{
    BreakpointChange, BreakpointInfo, BreakpointList, BreakpointSpec, Change, Command,
    RemovedBreakpoints,
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
    /// Change breakpoints in place, keeping their ids: the condition, the hit count, the log
    /// message (a logpoint's, or one that makes a breakpoint a logpoint).
    Modify {
        /// The breakpoint ids, as 'debugger break list' shows them.
        #[arg(required = true)]
        ids: Vec<u32>,
        #[command(flatten)]
        change: ModifyOptions,
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

// `breakpoint modify`'s changes: each is set, cleared, or (given neither) left as it is.
#[derive(Debug, Args)]
pub struct ModifyOptions {
    /// The new condition: stop only when this expression is true.
    #[arg(long, conflicts_with = "no_condition")]
    pub condition: Option<String>,
    /// Remove the condition.
    #[arg(long)]
    pub no_condition: bool,
    /// The new hit count: stop only from the Nth hit on.
    #[arg(long, value_name = "N", allow_negative_numbers = true, conflicts_with = "no_hit_count",
          value_parser = numbers::whole::<1, { u32::MAX }>)]
    pub hit_count: Option<u32>,
    /// Remove the hit count.
    #[arg(long)]
    pub no_hit_count: bool,
    /// The new log message (`{expr}` parts evaluated at each hit): the breakpoint logs instead
    /// of stopping.
    #[arg(long, value_name = "MESSAGE", conflicts_with = "no_log")]
    pub log: Option<String>,
    /// Remove the log message: a logpoint becomes a breakpoint that stops.
    #[arg(long)]
    pub no_log: bool,
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
        (Some(BreakpointAction::Modify { ids, change }), _) => modify(session, ids, change),
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

/// Changes breakpoints in place; answers as `add` does: one breakpoint, or the list of them.
fn modify(session: &str, ids: Vec<u32>, options: ModifyOptions) -> Result<Outcome, ErrorBody> {
    let change = change_of(options)?;
    let single = ids.len() == 1;
    let mut result: BreakpointList =
        DaemonClient::connect(session)?.request_as(Command::BreakpointModify { ids, change })?;
    let text: String = result
        .breakpoints
        .iter()
        .map(|bp| format!("Breakpoint {}\n", render::breakpoint_line(bp)))
        .collect();
    if single && let Some(info) = result.breakpoints.pop() {
        return Ok(Outcome::new(data(&info), text));
    }
    Ok(Outcome::new(data(&result), text))
}

/// The change `modify`'s flags ask for. An empty condition or message would be read as none by
/// some adapters and as an error by others, so it is refused, pointing at the flag that clears.
fn change_of(options: ModifyOptions) -> Result<BreakpointChange, ErrorBody> {
    let text = |value: Option<String>, clear: bool, flag: &str| match (value, clear) {
        (Some(value), _) if value.trim().is_empty() => Err(ErrorBody::usage(
            format!("--{flag} needs a value"),
            format!("--no-{flag} removes it"),
        )),
        (Some(value), _) => Ok(Change::Set(value.trim().to_string())),
        (None, true) => Ok(Change::Clear),
        (None, false) => Ok(Change::Keep),
    };
    let change = BreakpointChange {
        condition: text(options.condition, options.no_condition, "condition")?,
        hit_count: match (options.hit_count, options.no_hit_count) {
            (Some(hits), _) => Change::Set(hits),
            (None, true) => Change::Clear,
            (None, false) => Change::Keep,
        },
        log_message: text(options.log, options.no_log, "log")?,
    };
    if change == BreakpointChange::default() {
        return Err(ErrorBody::usage(
            "nothing to change",
            "give --condition E, --hit-count N or --log M (or --no-condition, --no-hit-count, \
             --no-log)",
        ));
    }
    Ok(change)
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
