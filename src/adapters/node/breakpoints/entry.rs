//! One breakpoint as the user asked for it (`Wish`: a line or a function, and its condition) and
//! as it stands in V8 (`Entry`: its DAP id, V8's breakpoints, where it landed, its hit count).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

pub(super) use crate::adapters::hit_rule::HitRule;
use crate::dap::types::{Breakpoint, Source};

/// What the user asked for, which identifies a breakpoint across requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Wish {
    /// A 1-based line, or a function name.
    pub(super) place: Place,
    pub(super) condition: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    Line(u32),
    Function(String),
}

#[derive(Debug)]
pub(super) struct Entry {
    pub(super) dap_id: i64,
    pub(super) wish: Wish,
    pub(super) hit_rule: Option<HitRule>,
    pub(super) hits: u64,
    /// V8's breakpoints for this entry (one per definition, for a function).
    pub(super) v8_ids: Vec<String>,
    /// Files already searched for this function (each is searched once).
    pub(super) searched: HashSet<PathBuf>,
    /// Where it landed: file and 1-based line.
    pub(super) resolved: Option<(PathBuf, u32)>,
    /// Why it is not placed, when it is not.
    pub(super) message: Option<String>,
    /// Set by a file-name suffix that no script had loaded yet: once it binds, it is pinned to
    /// the script it bound in (see [`Breakpoints::resolved`]).
    pub(super) by_suffix: bool,
    /// The scripts it was placed in through their source maps (see `mapped`).
    pub(super) mapped_in: HashSet<String>,
    /// The original files a relative name has named so far: two or more, and it binds in none.
    pub(super) candidates: BTreeSet<PathBuf>,
    /// Its condition does not compile: it is answered so and kept nowhere (see `conditions`).
    pub(super) refused: bool,
}

impl Entry {
    pub(super) fn to_dap(&self, fallback: Option<&Path>) -> Breakpoint {
        let path = self
            .resolved
            .as_ref()
            .map(|(p, _)| p.as_path())
            .or(fallback);
        let line = match (&self.resolved, &self.wish.place) {
            (Some((_, line)), _) => Some(*line),
            (None, Place::Line(line)) => Some(*line),
            (None, Place::Function(_)) => None,
        };
        Breakpoint {
            id: Some(self.dap_id),
            verified: self.resolved.is_some(),
            message: self.message.clone(),
            line,
            source: path.map(|path| Source {
                path: Some(path.to_string_lossy().into_owned()),
                ..Source::default()
            }),
            reason: None,
        }
    }
}
