//! `breakpoint add/remove/list/enable/disable` (aliases `break`, `b`), and `watch`, which adds a
//! watchpoint to the same list.

use super::data;
use super::session::breakpoint_spec;
use crate::cli::Outcome;
use crate::cli::args::{BreakpointAction, BreakpointArgs, BreakpointOptions, WatchArgs};
use crate::cli::client::DaemonClient;
use crate::cli::render;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::Location;
use crate::common::location::resolve::LineCounts;
use crate::ipc::protocol::{
    BreakpointInfo, BreakpointList, BreakpointSpec, Command, RemovedBreakpoints,
};

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
    check_hit_count(options.hit_count)?;
    if options.log.as_deref().is_some_and(|m| m.trim().is_empty()) {
        return Err(ErrorBody::usage(
            "--log needs a message",
            "e.g. --log \"i={i} total={total}\": {expr} parts are evaluated at each hit",
        ));
    }
    let condition = options.condition.filter(|c| !c.trim().is_empty());
    let mut counts = LineCounts::default();
    let mut specs = locations
        .iter()
        .map(|location| {
            Ok(BreakpointSpec {
                condition: condition.clone(),
                hit_count: options.hit_count,
                log_message: options.log.clone(),
                ..breakpoint_spec(location, &cwd, &mut counts)?
            })
        })
        .collect::<Result<Vec<_>, ErrorBody>>()?;
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
