//! Displays (`display EXPR`, and the one-off `-p EXPR` of the waiting commands): expressions a
//! stop report evaluates in the stopped frame. Apart from the other results because a display
//! is both a command's answer and a part of every stop report.

use serde::{Deserialize, Serialize};

/// One expression's value at a stop: a display's (with its id), or a one-off `-p`'s (no id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisplayValue {
    /// The display's id; `None` for a one-off `-p`/`--print`, which shows in that one report.
    pub id: Option<u32>,
    pub expression: String,
    /// Its value, as the adapter renders it (cut as `locals` cuts a value); `None` when it could
    /// not be evaluated (`error` says why) or has not been yet.
    pub value: Option<String>,
    /// The value at the last stop where it could be evaluated before this one; `None` for the
    /// first, and for a one-off.
    pub old_value: Option<String>,
    /// `value` differs from `old_value`.
    pub changed: bool,
    /// Why it could not be evaluated here (a name not in scope in this frame, ...).
    pub error: Option<String>,
}

/// `display` alone: every display of the session, with the value it had when last evaluated.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DisplayList {
    pub displays: Vec<DisplayValue>,
}

/// `display --remove N`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RemovedDisplay {
    pub removed: u32,
    /// The displays left.
    pub displays: Vec<DisplayValue>,
}
