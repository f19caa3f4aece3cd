//! DAP breakpoints on V8: line breakpoints by URL (so a file loaded later is covered, and
//! `Debugger.breakpointResolved` verifies them then), function breakpoints at the bodies found in
//! the source (see `functions`), conditions passed to V8, and hit counts counted here, since V8
//! has none.
//!
//! A function breakpoint must be in place before its file runs, and V8 does not wait for us when
//! it parses a script (its "before script execution" pause does not fire for CommonJS modules).
//! So the program's source files (its own, else its package's and its `node_modules`: see
//! `sources`) are searched when the breakpoint is set and each definition found is set by URL
//! ahead of loading, as line breakpoints are; scripts from elsewhere (a `require` outside those
//! folders) are searched as they are parsed, at best effort.
//!
//! A line breakpoint's file may be relative (`util.js`, `lib/util.js`): the session sends what
//! the user typed when it found no such file on disk. It names the scripts whose path ends with
//! it (see `scripts`): the one already loaded; none yet, and then the first script of that name
//! to load binds it (by a suffix `urlRegex`) and keeps it; or several, and then none is picked:
//! the answer names them and asks for more of the path.
//!
//! DAP sends the whole list for a file (or of function breakpoints) each time; an entry that is
//! asked for again keeps its id and its V8 breakpoint, so re-sending a list of 1,000 costs nothing.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use std::sync::Arc;

use super::cdp::Cdp;
use super::functions;
use super::scripts::{Script, Scripts};
use super::source_maps::{self, ScriptMap};
use super::sources;
use super::urls::{suffix_of, url_regex, url_suffix_regex};
use crate::dap::requests::{BreakpointOptions, FunctionBreakpoint, SourceBreakpoint};

pub(crate) mod conditions;
mod mapped;
mod mapped_functions;
mod placing;
use placing::*;

/// When a breakpoint with a hit count stops: DAP's `hitCondition`, "N" meaning from the Nth hit
/// on (as `--hit-count` documents); `>N`, `>=N`, `==N` and `%N` are understood too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitRule {
    AtLeast(u64),
    Exactly(u64),
    Every(u64),
}

impl HitRule {
    pub fn parse(text: &str) -> Option<HitRule> {
        let text = text.trim();
        let number = |s: &str| s.trim().parse::<u64>().ok();
        if let Some(rest) = text.strip_prefix(">=") {
            return number(rest).map(HitRule::AtLeast);
        }
        if let Some(rest) = text.strip_prefix('>') {
            return number(rest).map(|n| HitRule::AtLeast(n + 1));
        }
        if let Some(rest) = text.strip_prefix("==") {
            return number(rest).map(HitRule::Exactly);
        }
        if let Some(rest) = text.strip_prefix('%') {
            return number(rest).filter(|n| *n > 0).map(HitRule::Every);
        }
        number(text).map(HitRule::AtLeast)
    }

    fn allows(self, hits: u64) -> bool {
        match self {
            HitRule::AtLeast(n) => hits >= n,
            HitRule::Exactly(n) => hits == n,
            HitRule::Every(n) => hits.is_multiple_of(n),
        }
    }
}

/// What the user asked for, which identifies a breakpoint across requests.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Wish {
    /// A 1-based line, or a function name.
    place: Place,
    condition: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Line(u32),
    Function(String),
}

#[derive(Debug)]
struct Entry {
    dap_id: i64,
    wish: Wish,
    hit_rule: Option<HitRule>,
    hits: u64,
    /// V8's breakpoints for this entry (one per definition, for a function).
    v8_ids: Vec<String>,
    /// Files already searched for this function (each is searched once).
    searched: HashSet<PathBuf>,
    /// Where it landed: file and 1-based line.
    resolved: Option<(PathBuf, u32)>,
    /// Why it is not placed, when it is not.
    message: Option<String>,
    /// Set by a file-name suffix that no script had loaded yet: once it binds, it is pinned to
    /// the script it bound in (see [`Breakpoints::resolved`]).
    by_suffix: bool,
    /// The scripts it was placed in through their source maps (see `mapped`).
    mapped_in: HashSet<String>,
    /// The original files a relative name has named so far: two or more, and it binds in none.
    candidates: BTreeSet<PathBuf>,
    /// Its condition does not compile: it is answered so and kept nowhere (see `conditions`).
    refused: bool,
}

impl Entry {
    fn to_dap(&self, fallback: Option<&Path>) -> Value {
        let mut breakpoint = json!({ "id": self.dap_id, "verified": self.resolved.is_some() });
        let path = self
            .resolved
            .as_ref()
            .map(|(p, _)| p.as_path())
            .or(fallback);
        if let Some(path) = path {
            breakpoint["source"] = json!({ "path": path });
        }
        match (&self.resolved, &self.wish.place) {
            (Some((_, line)), _) => breakpoint["line"] = json!(line),
            (None, Place::Line(line)) => breakpoint["line"] = json!(line),
            (None, Place::Function(_)) => {}
        }
        if let Some(message) = &self.message {
            breakpoint["message"] = json!(message);
        }
        breakpoint
    }
}

#[derive(Debug, Default)]
pub struct Breakpoints {
    next_id: i64,
    by_file: HashMap<PathBuf, Vec<Entry>>,
    functions: Vec<Entry>,
    /// The launched program's folder, whose source files are searched for function definitions.
    source_root: Option<PathBuf>,
    /// The generated files with source maps in the program's folder, searched once, when a
    /// breakpoint is first set in an original file (see `mapped`).
    maps_on_disk: Option<Arc<MapsOnDisk>>,
    /// Per original file with breakpoints, V8's breakpoint at the start of the script of that
    /// very URL (what `tsx` runs): a pause there, before the module's first line runs, lets its
    /// breakpoints be placed from its source map (see `mapped`); it is no stop of the user's.
    entry_guards: HashMap<PathBuf, String>,
}

/// Generated files on disk with their source maps.
type MapsOnDisk = Vec<(PathBuf, Arc<ScriptMap>)>;

/// A requested breakpoint: one already placed, or a new one to place.
enum Kept {
    Old(Entry),
    New(Entry),
}

/// What a pause at breakpoints means once hit counts are applied.
pub struct Hit {
    /// Whether to stop (false: every breakpoint hit is still short of its count).
    pub stop: bool,
    pub dap_ids: Vec<i64>,
}

/// Marks a new entry whose condition V8 cannot compile as refused, with V8's error as its
/// message; returns whether it was.
async fn refuse_condition(cdp: &Cdp, entry: &mut Entry) -> bool {
    let Some(condition) = &entry.wish.condition else {
        return false;
    };
    entry.message = conditions::refusal(cdp, condition).await;
    entry.refused = entry.message.is_some();
    entry.refused
}

fn wish_of(request: &BreakpointOptions, place: Place) -> (Wish, Option<HitRule>) {
    let condition = request
        .condition
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    let hit_rule = request.hit_condition.as_deref().and_then(HitRule::parse);
    (Wish { place, condition }, hit_rule)
}

impl Breakpoints {
    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// The entry asked for again (same place and condition; its hit count may change), taken out
    /// of `old`; else a new, unplaced one.
    fn keep_or_create(
        &mut self,
        old: &mut Vec<Entry>,
        request: &BreakpointOptions,
        place: Place,
    ) -> Kept {
        let (wish, hit_rule) = wish_of(request, place);
        if let Some(at) = old.iter().position(|e| e.wish == wish) {
            let mut entry = old.swap_remove(at);
            entry.hit_rule = hit_rule;
            return Kept::Old(entry);
        }
        Kept::New(Entry {
            dap_id: self.new_id(),
            wish,
            hit_rule,
            hits: 0,
            v8_ids: Vec::new(),
            searched: HashSet::new(),
            resolved: None,
            message: None,
            by_suffix: false,
            mapped_in: HashSet::new(),
            candidates: BTreeSet::new(),
            refused: false,
        })
    }

    /// DAP `setBreakpoints` for one file (absolute, or a relative suffix matched against the
    /// scripts loaded so far): the answer, one breakpoint per requested one.
    pub async fn set_lines(
        &mut self,
        cdp: &Cdp,
        scripts: &Scripts,
        path: &Path,
        requested: &[SourceBreakpoint],
    ) -> Vec<Value> {
        let target = FileTarget::of(path, scripts);
        let loaded = matches!(&target, FileTarget::File(file)
            if scripts.files().any(|s| s.path.as_deref() == Some(file.as_path())));
        let on_disk = self.mapped_on_disk(scripts, path).await;
        if mapped::is_compiled_source(path) {
            self.guard_entry(cdp, path).await;
        }
        let mapping = mapped::is_original(path, scripts, &on_disk).then(|| {
            let mut mapping = scripts.mapping(path);
            mapping.extend(on_disk);
            mapping
        });
        let originals = self.originals_named(path).await;
        let mut old = self.by_file.remove(path).unwrap_or_default();
        let mut wanted = Vec::with_capacity(requested.len());
        for request in requested {
            let line = request.line;
            wanted.push((
                line,
                self.keep_or_create(&mut old, &request.options, Place::Line(line)),
            ));
        }
        remove_all(cdp, old).await;
        let mut kept = Vec::with_capacity(wanted.len());
        for (line, wish) in wanted {
            let mut entry = match wish {
                Kept::Old(entry) => {
                    kept.push(entry);
                    continue;
                }
                Kept::New(entry) => entry,
            };
            if refuse_condition(cdp, &mut entry).await {
                kept.push(entry);
                continue;
            }
            match &mapping {
                Some(mapping) => {
                    entry.candidates.extend(originals.iter().cloned());
                    mapped::place_mapped(cdp, mapping, path, line, &mut entry).await
                }
                None => place_line(cdp, &target, loaded, line, &mut entry).await,
            }
            kept.push(entry);
        }
        let answer = kept.iter().map(|e| e.to_dap(Some(path))).collect();
        kept.retain(|e| !e.refused);
        self.by_file.insert(path.to_path_buf(), kept);
        answer
    }

    /// DAP `setFunctionBreakpoints`: the answer, one breakpoint per requested one.
    pub async fn set_functions(
        &mut self,
        cdp: &Cdp,
        scripts: &Scripts,
        requested: &[FunctionBreakpoint],
    ) -> Vec<Value> {
        let mut old = std::mem::take(&mut self.functions);
        let wanted: Vec<Kept> = requested
            .iter()
            .map(|request| {
                let name = request.name.trim();
                self.keep_or_create(
                    &mut old,
                    &request.options,
                    Place::Function(name.to_string()),
                )
            })
            .collect();
        remove_all(cdp, old).await;
        let mut kept = Vec::with_capacity(wanted.len());
        for wish in wanted {
            let mut entry = match wish {
                Kept::Old(entry) => {
                    kept.push(entry);
                    continue;
                }
                Kept::New(entry) => entry,
            };
            if refuse_condition(cdp, &mut entry).await {
                kept.push(entry);
                continue;
            }
            self.place_function_in_maps(cdp, scripts, &mut entry).await;
            for script in scripts.files() {
                if let Some(path) = &script.path {
                    place_function(cdp, path, Some(&script.url), &mut entry).await;
                }
            }
            self.place_in_source_files(cdp, &mut entry).await;
            if entry.v8_ids.is_empty() && entry.message.is_none() {
                entry.message = Some(match self.source_root {
                    Some(_) => {
                        "no function of this name in the program's files, its package or its node_modules yet; it binds when a script that defines it loads"
                            .into()
                    }
                    None => "no function of this name in the scripts loaded so far".into(),
                });
            } else if entry.resolved.is_none() && entry.message.is_none() {
                entry.message = Some("not loaded yet".into());
            }
            kept.push(entry);
        }
        let answer = kept.iter().map(|e| e.to_dap(None)).collect();
        kept.retain(|e| !e.refused);
        self.functions = kept;
        answer
    }

    /// Whether a line breakpoint in `path` is placed through source maps (a compiled language's
    /// file), so the scripts that name it must be waited for before they run.
    pub fn goes_through_source_maps(path: &Path) -> bool {
        mapped::is_compiled_source(path)
    }

    /// Where the launched program lives: its files are searched for function definitions.
    pub fn set_source_root(&mut self, root: &Path) {
        self.source_root = Some(root.to_path_buf());
    }

    /// The folder of an attached program, learnt from its first file: pending function
    /// breakpoints are looked for there at once. Does nothing once a folder is known.
    pub async fn adopt_source_root(&mut self, cdp: &Cdp, root: &Path) {
        if self.source_root.is_some() {
            return;
        }
        self.source_root = Some(root.to_path_buf());
        let mut functions = std::mem::take(&mut self.functions);
        for entry in &mut functions {
            self.place_in_source_files(cdp, entry).await;
        }
        self.functions = functions;
    }

    /// Sets `entry` on every definition of its function in the program's files (or, when it
    /// defines none, in its package and `node_modules`: see `sources`).
    async fn place_in_source_files(&self, cdp: &Cdp, entry: &mut Entry) {
        let (Some(root), Place::Function(name)) = (&self.source_root, &entry.wish.place) else {
            return;
        };
        let (root, name) = (root.clone(), name.clone());
        let found = tokio::task::spawn_blocking(move || sources::definitions(&root, &name))
            .await
            .unwrap_or_default();
        for (path, starts) in found {
            if entry.searched.insert(path.clone()) {
                set_at_starts(cdp, &path, None, &starts, entry).await;
            }
        }
    }

    /// A newly parsed file may define functions that have breakpoints: places them, and returns
    /// the DAP `breakpoint` events for those that became verified.
    pub async fn script_loaded(&mut self, cdp: &Cdp, id: &str, script: &Script) -> Vec<Value> {
        let mut changed = Vec::new();
        let Some(path) = &script.path else {
            return changed;
        };
        changed.extend(self.place_in_mapped_script(cdp, id, path, script).await);
        let key = path.display().to_string();
        let target = source_maps::MapTarget::Loaded(id.to_string());
        for entry in &mut self.functions {
            let was_verified = entry.resolved.is_some();
            if let Some(map) = &script.map {
                mapped_functions::place_function_mapped(cdp, &key, &target, map, path, entry).await;
            }
            place_function(cdp, path, Some(&script.url), entry).await;
            if !was_verified && entry.resolved.is_some() {
                entry.message = None;
                changed.push(entry.to_dap(None));
            }
        }
        changed
    }

    /// `Debugger.breakpointResolved`: a line breakpoint landed in `script`, parsed after it was
    /// set. Returns the DAP breakpoint to announce, the first time it is verified.
    ///
    /// One set by a file-name suffix is then pinned to that script: `index.js:10` typed for the
    /// first `index.js` to load must not go on to stop in every `index.js` the program's libraries
    /// load after it. (The suffix's V8 id stays the entry's, for a pause already under way there.)
    pub async fn resolved(
        &mut self,
        cdp: &Cdp,
        v8_id: &str,
        script: Option<&Script>,
        (line, column): (u32, u32),
    ) -> Option<Value> {
        let entry = self
            .entries_mut()
            .find(|e| e.v8_ids.iter().any(|id| id == v8_id))?;
        if entry.resolved.is_some() {
            return None;
        }
        let script = script?;
        let path = script.path.clone()?;
        if entry.by_suffix {
            pin(cdp, entry, &script.url).await;
        }
        // Placed through a source map: where it landed is told in the original file.
        let original = (!entry.mapped_in.is_empty())
            .then_some(script.map.as_ref())
            .flatten()
            .and_then(|map| {
                let original = map.original(line.saturating_sub(1), column.saturating_sub(1))?;
                Some((original.source.path.clone()?, original.line))
            });
        entry.resolved = Some(original.unwrap_or((path, line)));
        entry.message = None;
        Some(entry.to_dap(None))
    }

    /// Whether a pause at the V8 breakpoints `v8_ids` is only at entry guards (see
    /// `entry_guards`): the program goes on.
    pub fn only_guards(&self, v8_ids: &[String]) -> bool {
        !v8_ids.is_empty()
            && v8_ids
                .iter()
                .all(|id| self.entry_guards.values().any(|guard| guard == id))
    }

    /// Counts a pause at the V8 breakpoints `v8_ids` and decides whether it is a stop.
    pub fn hit(&mut self, v8_ids: &[String]) -> Hit {
        let mut stop = false;
        let mut dap_ids = Vec::new();
        for entry in self.entries_mut() {
            if !entry.v8_ids.iter().any(|id| v8_ids.contains(id)) {
                continue;
            }
            entry.hits += 1;
            if entry.hit_rule.is_none_or(|rule| rule.allows(entry.hits)) {
                stop = true;
                dap_ids.push(entry.dap_id);
            }
        }
        if dap_ids.is_empty() && !stop {
            // Not one of ours (set by someone else on an attached process): a stop all the same,
            // unless one of ours was hit and held back by its count.
            stop = !self
                .entries_mut()
                .any(|e| e.v8_ids.iter().any(|id| v8_ids.contains(id)));
        }
        Hit { stop, dap_ids }
    }

    fn entries_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.by_file
            .values_mut()
            .flat_map(|entries| entries.iter_mut())
            .chain(self.functions.iter_mut())
    }
}

#[cfg(test)]
mod tests;
