//! `display`: expressions shown in every stop report of the session, as gdb's `display` does.

use std::fmt::Write as _;

use clap::Args;

use super::{Outcome, data, numbers, render};
use crate::common::error::ErrorBody;
use crate::ipc::client::DaemonClient;
use crate::ipc::protocol::{Command, DisplayList, DisplayValue, RemovedDisplay};

// `display`'s arguments. (A plain comment: a doc comment would replace the command's help text,
// which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct DisplayArgs {
    /// The expression to show at every stop (several words are joined with spaces); none: list
    /// the displays.
    #[arg(num_args = 1.., allow_negative_numbers = true, conflicts_with = "remove")]
    pub expression: Vec<String>,
    /// Remove the display of this id (as `debugger display` lists them).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = numbers::whole::<1, { u32::MAX }>)]
    pub remove: Option<u32>,
}

pub fn run(session: &str, args: DisplayArgs) -> Result<Outcome, ErrorBody> {
    let mut client = DaemonClient::connect(session)?;
    if let Some(id) = args.remove {
        let removed: RemovedDisplay = client.request_as(Command::DisplayRemove { id })?;
        let mut text = format!("Removed display {id}\n");
        text.push_str(&list_text(&removed.displays));
        return Ok(Outcome::new(data(&removed), text));
    }
    if args.expression.is_empty() {
        let list: DisplayList = client.request_as(Command::DisplayList)?;
        let text = list_text(&list.displays);
        return Ok(Outcome::new(data(&list), text));
    }
    let expression = args.expression.join(" ");
    let added: DisplayValue = client.request_as(Command::DisplayAdd { expression })?;
    let text = format!("{}\n", render::display_line(&added));
    Ok(Outcome::new(data(&added), text))
}

/// The displays, one line each with the value each showed last.
fn list_text(displays: &[DisplayValue]) -> String {
    if displays.is_empty() {
        return "No displays: 'debugger display EXPR' shows EXPR at every stop\n".to_string();
    }
    let mut out = String::from("Displays (values as last shown):\n");
    for display in displays {
        let _ = writeln!(out, "  {}", render::display_line(display));
    }
    out
}
