//! `set`, `raw` and `catch`: changing the program's state and reaching the adapter's own
//! features (its console, its exception filters).

use std::fmt::Write as _;

use super::data;
use crate::cli::Outcome;
use crate::cli::client::DaemonClient;
use crate::common::error::ErrorBody;
use crate::ipc::protocol::{CatchResult, Command, RawResult, SetResult};

pub fn set(session: &str, name: &str, value: &str) -> Result<Outcome, ErrorBody> {
    let result: SetResult = DaemonClient::connect(session)?.request_as(Command::SetVariable {
        name: name.to_string(),
        value: value.to_string(),
    })?;
    let text = match &result.type_name {
        Some(t) => format!("{} ({t}) = {}\n", result.name, result.value),
        None => format!("{} = {}\n", result.name, result.value),
    };
    Ok(Outcome::new(data(&result), text))
}

pub fn raw(session: &str, text: &str) -> Result<Outcome, ErrorBody> {
    let result: RawResult = DaemonClient::connect(session)?.request_as(Command::Raw {
        text: text.to_string(),
    })?;
    let text = result.output.clone();
    Ok(Outcome::new(data(&result), text))
}

pub fn catch(session: &str, filters: Vec<String>, none: bool) -> Result<Outcome, ErrorBody> {
    let filters = if none {
        Some(Vec::new())
    } else {
        Some(filters).filter(|f| !f.is_empty())
    };
    let result: CatchResult =
        DaemonClient::connect(session)?.request_as(Command::Catch { filters })?;
    let width = result
        .filters
        .iter()
        .map(|f| f.filter.len())
        .max()
        .unwrap_or(0);
    let mut text = format!("Exception filters of {}:\n", result.adapter);
    for f in &result.filters {
        let state = if f.enabled { "on " } else { "off" };
        let _ = writeln!(text, "  {state}  {:<width$}  {}", f.filter, f.label);
    }
    Ok(Outcome::new(data(&result), text))
}
