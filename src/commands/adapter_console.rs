//! `set`, `raw` and `catch`: changing the program's state and reaching the adapter's own
//! features (its console, its exception filters).

use std::fmt::Write as _;

use clap::Args;

use super::{Outcome, data};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{CatchResult, Command, RawResult, SetResult};

// `set`'s arguments. (Plain comments on the flag sets: a doc comment would replace the
// command's help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct SetArgs {
    /// The variable, e.g. `amount` or `acct->balance`.
    pub name: String,
    /// The new value, in the program's language (several words are joined with spaces; a
    /// negative number is a value, other text that starts with '-' needs `--` before it).
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub value: Vec<String>,
}

// `raw`'s argument.
#[derive(Debug, Args)]
pub struct RawArgs {
    /// The text (several words are joined with spaces; quote it, or put `--` before it, when a
    /// word starts with '-'). Flags after the text are the command's own, as `--session`.
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub text: Vec<String>,
    /// Seconds the text may run in the program before it is interrupted, as `print --timeout`
    /// (default: the config's `[timeouts] evaluate_secs`).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true,
          value_parser = super::numbers::evaluation_seconds)]
    pub timeout: Option<f64>,
}

// `catch`'s arguments.
#[derive(Debug, Args)]
pub struct CatchArgs {
    /// Filters to turn on (e.g. `raised`, `uncaught`, `cpp_throw`); the others go off. Under
    /// the JVM, any other name is an exception class's (`IllegalStateException`,
    /// `java.io.IOException`), caught or not, with its subclasses.
    pub filters: Vec<String>,
    /// Turn every exception filter off.
    #[arg(long, conflicts_with = "filters")]
    pub none: bool,
}

pub fn set(session: &str, args: SetArgs) -> Result<Outcome, ErrorBody> {
    let result: SetResult = DaemonClient::connect(session)?.request_as(Command::SetVariable {
        name: args.name,
        value: args.value.join(" "),
    })?;
    let text = match &result.type_name {
        Some(t) => format!("{} ({t}) = {}\n", result.name, result.value),
        None => format!("{} = {}\n", result.name, result.value),
    };
    Ok(Outcome::new(data(&result), text))
}

pub fn raw(session: &str, args: RawArgs) -> Result<Outcome, ErrorBody> {
    let result: RawResult = DaemonClient::connect(session)?.request_as(Command::Raw {
        text: args.text.join(" "),
        timeout_secs: args.timeout,
    })?;
    let text = result.output.clone();
    Ok(Outcome::new(data(&result), text))
}

pub fn catch(session: &str, args: CatchArgs) -> Result<Outcome, ErrorBody> {
    let filters = if args.none {
        Some(Vec::new())
    } else {
        Some(args.filters).filter(|f| !f.is_empty())
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
    for class in &result.classes {
        let _ = writeln!(text, "  on   {class}  (by class, with its subclasses)");
    }
    Ok(Outcome::new(data(&result), text))
}
