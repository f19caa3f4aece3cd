//! The breakpoints a command line asks for (`-b/--break LOC`, `break LOC`), as the daemon is
//! sent them: gdb's `LOC if COND` split, a file that exists here made absolute and its line
//! checked, a FIFO or directory refused before anything opens it.

use std::path::Path;

use crate::common::error::ErrorBody;
use crate::common::location::resolve::{LineCounts, absolute};
use crate::common::location::{ConditionalLocation, Location};
use crate::common::user_files::{self, Role};
use crate::ipc::protocol::BreakpointSpec;

/// Parses `-b/--break` locations (see [`breakpoint_spec`]).
pub fn breakpoint_specs(
    locations: &[String],
    cwd: &Path,
) -> Result<Vec<BreakpointSpec>, ErrorBody> {
    let mut counts = LineCounts::default();
    locations
        .iter()
        .map(|text| breakpoint_spec(text, cwd, &mut counts))
        .collect()
}

/// The breakpoint `text` asks for, with the condition of gdb's `LOC if COND` when it has one. A
/// source file that exists relative to `cwd` is made absolute (the daemon, whose directory
/// differs, then names the same file) and its line checked against its length; any other name is
/// placed by the daemon, which knows the program (see `common::location::resolve`). `counts`
/// keeps each file's length for the next.
pub fn breakpoint_spec(
    text: &str,
    cwd: &Path,
    counts: &mut LineCounts,
) -> Result<BreakpointSpec, ErrorBody> {
    let ConditionalLocation {
        location,
        text,
        condition,
    } = ConditionalLocation::parse(text).map_err(|message| {
        ErrorBody::usage(
            format!("invalid breakpoint location: {message}"),
            "use FILE:LINE (e.g. main.c:42) or a function name (e.g. main), and for a \
             condition 'LOC if COND' as one argument (e.g. 'main.c:42 if i == 3')",
        )
    })?;
    if let Location::Line { file, .. } = &location {
        user_files::refuse_other_kinds(&absolute(cwd, file), Role::SourceFile)?;
    }
    let location = match location {
        Location::Line { file, line } if cwd.join(&file).is_file() => {
            let file = absolute(cwd, &file);
            counts
                .check(&file, line)
                .map_err(|message| ErrorBody::usage(message, "pick a line within the file"))?;
            Location::Line { file, line }
        }
        other => other,
    };
    Ok(BreakpointSpec {
        location,
        requested: Some(text),
        condition,
        hit_count: None,
        log_message: None,
    })
}
