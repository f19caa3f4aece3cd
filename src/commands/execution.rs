//! `continue`, `next`, `step`, `finish`, `pause`, `await`.

use super::data;
use crate::cli::Outcome;
use crate::cli::args::WaitArgs;
use crate::cli::client::DaemonClient;
use crate::cli::render;
use crate::common::error::ErrorBody;
use crate::ipc::protocol::{Command, ExecutionResult, ResumeAction, StopReport, WaitSpec};

fn wait_spec(args: &WaitArgs) -> Option<WaitSpec> {
    args.wait.then_some(WaitSpec {
        timeout_secs: args.timeout,
    })
}

pub fn resume(session: &str, action: ResumeAction, args: WaitArgs) -> Result<Outcome, ErrorBody> {
    let command = Command::Resume {
        action,
        wait: wait_spec(&args),
    };
    let result: ExecutionResult = DaemonClient::connect(session)?.request_as(command)?;
    Ok(execution_outcome(result))
}

pub fn pause(session: &str, args: WaitArgs) -> Result<Outcome, ErrorBody> {
    let command = Command::Pause {
        wait: wait_spec(&args),
    };
    let result: ExecutionResult = DaemonClient::connect(session)?.request_as(command)?;
    Ok(execution_outcome(result))
}

fn execution_outcome(result: ExecutionResult) -> Outcome {
    let text = match &result.stop {
        Some(stop) => render::stop_report(stop),
        None if result.state == "pausing" => {
            "Pausing: 'debugger await' reports where it stopped\n".to_string()
        }
        None => "Running: 'debugger await' waits for the next stop\n".to_string(),
    };
    Outcome::new(data(&result), text)
}

pub fn await_stop(session: &str, timeout: f64) -> Result<Outcome, ErrorBody> {
    let report: StopReport =
        DaemonClient::connect(session)?.request_as(Command::Await(WaitSpec {
            timeout_secs: timeout,
        }))?;
    let text = render::stop_report(&report);
    Ok(Outcome::new(data(&report), text))
}
