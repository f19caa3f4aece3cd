//! `breakpoint add/remove/list/enable/disable` (aliases `break`, `b`).

use super::data;
use super::session::resolve_location;
use crate::cli::Outcome;
use crate::cli::args::{BreakpointAction, BreakpointArgs, BreakpointOptions};
use crate::cli::client::DaemonClient;
use crate::cli::render;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{
    BreakpointInfo, BreakpointList, BreakpointSpec, Command, RemovedBreakpoints,
};

pub fn run(session: &str, args: BreakpointArgs) -> Result<Outcome, ErrorBody> {
    match (args.action, args.location) {
        (Some(BreakpointAction::Add { location, options }), _) => add(session, &location, options),
        (None, Some(location)) => add(session, &location, args.options),
        (Some(BreakpointAction::Remove { ids, all }), _) => remove(session, ids, all),
        (Some(BreakpointAction::List), _) | (None, None) => list(session),
        (Some(BreakpointAction::Enable { ids }), _) => enable(session, ids, true),
        (Some(BreakpointAction::Disable { ids }), _) => enable(session, ids, false),
    }
}

fn add(session: &str, location: &str, options: BreakpointOptions) -> Result<Outcome, ErrorBody> {
    let cwd = std::env::current_dir().map_err(|e| {
        ErrorBody::new(
            ErrorCode::Usage,
            format!("cannot read the current directory: {e}"),
            "",
        )
    })?;
    if options.hit_count == Some(0) {
        return Err(ErrorBody::usage(
            "--hit-count must be at least 1",
            "--hit-count N stops from the Nth hit on",
        ));
    }
    let spec = BreakpointSpec {
        location: resolve_location(location, &cwd)?,
        condition: options.condition.filter(|c| !c.trim().is_empty()),
        hit_count: options.hit_count,
    };
    let info: BreakpointInfo =
        DaemonClient::connect(session)?.request_as(Command::BreakpointAdd(spec))?;
    let text = format!("Breakpoint {}\n", render::breakpoint_line(&info));
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
