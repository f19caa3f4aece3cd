//! A breakpoint whose file the program never loaded, named at the end of a run (`StopReport`'s
//! `unloaded_breakpoints`): the breakpoint looked set, nothing stopped, and only this says that
//! the program ran another copy of the file, or none.

use serde::{Deserialize, Serialize};

/// A line breakpoint never hit in a run whose runtime told the files it loaded, none of them
/// the breakpoint's.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct UnloadedBreakpoint {
    /// Our id (`breakpoint list`).
    pub id: u32,
    /// Where it is: `FILE:LINE`, the file absolute.
    pub location: String,
    /// A file the program loaded with the same name, its real path: the copy it ran instead
    /// (the installed package rather than the checkout). Absent when none has that name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_namesake: Option<String>,
}
