//! `continue`, `next`, `step`, `finish`, `pause`, `await`, and how `start` and `restart` wait
//! for their first stop: the commands that answer with a stop report.

use clap::{Args, ValueEnum};

use super::{Outcome, data, numbers, render};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{
    Command, ExecutionResult, ResumeAction, SessionState, StopLocals, StopReport, WaitSpec,
};

// The flags of `continue`, `next`, `step`, `finish` and `pause`.
#[derive(Debug, Args)]
pub struct WaitArgs {
    /// Block until the program stops again, and report where.
    #[arg(long, short = 'w')]
    pub wait: bool,
    /// Seconds to wait with --wait before giving up (exit code 3).
    #[arg(long, value_name = "S", default_value_t = 300.0, requires = "wait",
          allow_negative_numbers = true, value_parser = numbers::seconds)]
    pub timeout: f64,
    /// Which of the stopped frame's locals the report shows (default: all, bounded; the config's
    /// `[defaults] stop_locals` changes it).
    #[arg(long, value_name = "WHICH", value_enum)]
    pub locals: Option<LocalsFlag>,
    /// An expression the report shows, evaluated in the stopped frame, this once (`debugger
    /// display EXPR` shows one at every stop); repeatable.
    #[arg(short = 'p', long = "print", value_name = "EXPR", requires = "wait")]
    pub print: Vec<String>,
}

/// `--locals`: which of the stopped frame's locals a stop report shows.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LocalsFlag {
    /// None: the report reads no values.
    None,
    /// Those that changed since the frame's previous stop.
    Changed,
    /// All of them, about a dozen lines at most, the changed ones marked `*`.
    All,
}

impl From<LocalsFlag> for StopLocals {
    fn from(flag: LocalsFlag) -> StopLocals {
        match flag {
            LocalsFlag::None => StopLocals::None,
            LocalsFlag::Changed => StopLocals::Changed,
            LocalsFlag::All => StopLocals::All,
        }
    }
}

/// How long `start` and `restart` wait for the first stop when not told.
pub const FIRST_STOP_WAIT_SECS: f64 = 5.0;

// How long `start` and `restart` wait for the program's first stop, which they answer with.
#[derive(Debug, Args)]
pub struct FirstStopArgs {
    /// Seconds to wait for the first stop (a breakpoint, an exception) or the end, which the
    /// answer then reports; a program still running then is said to be.
    #[arg(long, value_name = "SECS", default_value_t = FIRST_STOP_WAIT_SECS,
          allow_negative_numbers = true, value_parser = numbers::seconds)]
    pub wait: f64,
    /// Answer as soon as the program is launched, without looking for a stop ('debugger await'
    /// then reports the first one).
    #[arg(long, conflicts_with = "wait")]
    pub no_wait: bool,
    /// An expression the first stop's report shows, evaluated in the stopped frame, this once
    /// (`debugger display EXPR` shows one at every stop); repeatable.
    #[arg(
        short = 'p',
        long = "print",
        value_name = "EXPR",
        conflicts_with = "no_wait"
    )]
    pub print: Vec<String>,
    /// Which of the stopped frame's locals the first stop's report shows, as for `continue`.
    #[arg(long, value_name = "WHICH", value_enum, conflicts_with = "no_wait")]
    pub locals: Option<LocalsFlag>,
}

impl FirstStopArgs {
    pub(super) fn spec(&self) -> Result<Option<WaitSpec>, ErrorBody> {
        if self.no_wait {
            return Ok(None);
        }
        Ok(Some(WaitSpec {
            timeout_secs: numbers::checked_seconds("--wait", self.wait)?,
            locals: self.locals.map(StopLocals::from),
            prints: self.print.clone(),
        }))
    }
}

// `await`'s flags.
#[derive(Debug, Args)]
pub struct AwaitArgs {
    /// Seconds to wait before giving up (exit code 3).
    #[arg(long, value_name = "S", default_value_t = 300.0, allow_negative_numbers = true,
          value_parser = numbers::seconds)]
    pub timeout: f64,
    /// Which of the stopped frame's locals the report shows (default: all, bounded; the config's
    /// `[defaults] stop_locals` changes it).
    #[arg(long, value_name = "WHICH", value_enum)]
    pub locals: Option<LocalsFlag>,
    /// An expression the report shows, evaluated in the stopped frame, this once (`debugger
    /// display EXPR` shows one at every stop); repeatable.
    #[arg(short = 'p', long = "print", value_name = "EXPR")]
    pub print: Vec<String>,
}

fn wait_spec(args: &WaitArgs) -> Result<Option<WaitSpec>, ErrorBody> {
    if !args.wait {
        return Ok(None);
    }
    Ok(Some(WaitSpec {
        timeout_secs: numbers::checked_seconds("--timeout", args.timeout)?,
        locals: args.locals.map(StopLocals::from),
        prints: args.print.clone(),
    }))
}

pub fn resume(session: &str, action: ResumeAction, args: WaitArgs) -> Result<Outcome, ErrorBody> {
    let command = Command::Resume {
        action,
        wait: wait_spec(&args)?,
    };
    let result: ExecutionResult = DaemonClient::connect(session)?.request_as(command)?;
    Ok(execution_outcome(result))
}

pub fn pause(session: &str, args: WaitArgs) -> Result<Outcome, ErrorBody> {
    let command = Command::Pause {
        wait: wait_spec(&args)?,
    };
    let result: ExecutionResult = DaemonClient::connect(session)?.request_as(command)?;
    Ok(execution_outcome(result))
}

fn execution_outcome(result: ExecutionResult) -> Outcome {
    let text = match &result.stop {
        Some(stop) => render::stop_report(stop),
        None if result.state == SessionState::Pausing => {
            "Pausing: 'debugger await' reports where it stopped\n".to_string()
        }
        None => "Running: 'debugger await' waits for the next stop\n".to_string(),
    };
    Outcome::new(data(&result), text)
}

pub fn await_stop(session: &str, args: AwaitArgs) -> Result<Outcome, ErrorBody> {
    let report: StopReport =
        DaemonClient::connect(session)?.request_as(Command::Await(WaitSpec {
            timeout_secs: numbers::checked_seconds("--timeout", args.timeout)?,
            locals: args.locals.map(StopLocals::from),
            prints: args.print,
        }))?;
    let text = render::stop_report(&report);
    Ok(Outcome::new(data(&report), text))
}
