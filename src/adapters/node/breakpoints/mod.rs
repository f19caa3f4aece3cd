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

use serde_json::json;

use std::sync::Arc;

use super::cdp::Cdp;
use super::scripts::{Script, Scripts};
use super::source_maps::{self, MapTarget, MappedScript, ScriptMap};
use super::sources;
use super::urls::{suffix_of, url_regex, url_suffix_regex};
use crate::dap::requests::{BreakpointOptions, FunctionBreakpoint, SourceBreakpoint};
use crate::dap::types::Breakpoint;

pub(crate) mod conditions;
mod entry;
mod mapped;
mod mapped_functions;
mod placing;

use crate::common::location::resolve;
use entry::{Entry, HitRule, Place, Wish};
use placing::{FileTarget, pin, place_function, place_line, remove_all, set_at_starts};

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
    ) -> Vec<Breakpoint> {
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
    ) -> Vec<Breakpoint> {
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
    pub async fn script_loaded(&mut self, cdp: &Cdp, id: &str, script: &Script) -> Vec<Breakpoint> {
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
    ) -> Option<Breakpoint> {
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

impl Breakpoints {
    /// The generated files on disk, not loaded yet, whose maps name the original `file` (only
    /// for a compiled language's file: a `.js` file is its own script).
    async fn mapped_on_disk(&mut self, scripts: &Scripts, file: &Path) -> Vec<MappedScript> {
        if !mapped::is_compiled_source(file) {
            return Vec::new();
        }
        let on_disk = self.maps_on_disk().await;
        let loaded: HashSet<&Path> = scripts.files().filter_map(|s| s.path.as_deref()).collect();
        on_disk
            .iter()
            .filter(|(path, _)| !loaded.contains(path.as_path()))
            .flat_map(|(path, map)| {
                map.sources_named(file)
                    .into_iter()
                    .map(move |source| MappedScript {
                        key: path.display().to_string(),
                        target: MapTarget::File(path.clone()),
                        map: map.clone(),
                        source,
                    })
            })
            .collect()
    }

    /// The generated files with source maps in the program's folder (searched the first time
    /// they are wanted); none when the folder is not known.
    async fn maps_on_disk(&mut self) -> Arc<MapsOnDisk> {
        if let Some(found) = &self.maps_on_disk {
            return found.clone();
        }
        let Some(root) = self.source_root.clone() else {
            return Arc::default();
        };
        let found = tokio::task::spawn_blocking(move || source_maps::on_disk(&root))
            .await
            .unwrap_or_default();
        let found = Arc::new(
            found
                .into_iter()
                .map(|(path, map)| (path, Arc::new(map)))
                .collect::<Vec<_>>(),
        );
        self.maps_on_disk = Some(found.clone());
        found
    }

    /// The files under the program's folder (not `node_modules`) that the relative name of a
    /// compiled language's `file` names: what `tsx` will compile from them is not loaded yet.
    async fn originals_named(&self, file: &Path) -> Vec<PathBuf> {
        let (Some(root), Some(suffix)) = (&self.source_root, suffix_of(file)) else {
            return Vec::new();
        };
        if file.is_absolute() || !mapped::is_compiled_source(file) {
            return Vec::new();
        }
        let Some(extension) = file.extension().map(|e| e.to_string_lossy().to_string()) else {
            return Vec::new();
        };
        let root = root.clone();
        tokio::task::spawn_blocking(move || {
            resolve::source_tree(&root, &[extension.as_str()])
                .into_iter()
                .filter(|path| path.ends_with(&suffix))
                .collect()
        })
        .await
        .unwrap_or_default()
    }

    /// A newly parsed script with a source map: places the pending lines of the original files
    /// it names, and returns the DAP `breakpoint` events of those that became verified.
    async fn place_in_mapped_script(
        &mut self,
        cdp: &Cdp,
        id: &str,
        path: &Path,
        script: &Script,
    ) -> Vec<Breakpoint> {
        let mut changed = Vec::new();
        let Some(map) = &script.map else {
            return changed;
        };
        {
            // Lines of the files its map names, written in a language V8 does not run.
            for (file, entries) in &mut self.by_file {
                let sources = map.sources_named(file);
                if sources.is_empty() || !mapped::is_compiled_source(file) {
                    continue;
                }
                let mapping: Vec<MappedScript> = sources
                    .into_iter()
                    .map(|source| MappedScript {
                        key: path.display().to_string(),
                        target: MapTarget::Loaded(id.to_string()),
                        map: map.clone(),
                        source,
                    })
                    .collect();
                for entry in entries.iter_mut() {
                    let Place::Line(line) = entry.wish.place else {
                        continue;
                    };
                    let was_verified = entry.resolved.is_some();
                    mapped::place_mapped(cdp, &mapping, file, line, entry).await;
                    // Verified now, or no longer: a second file of its name made it ambiguous.
                    if was_verified != entry.resolved.is_some() {
                        changed.push(entry.to_dap(Some(file)));
                    }
                }
            }
        }
        changed
    }

    /// Sets the entry guard of the original `file` (once): a breakpoint at the start of a
    /// script of that URL, for a loader that runs the file itself compiled in memory (`tsx`,
    /// `ts-node`), whose map is known only once it is parsed, the moment before it runs.
    async fn guard_entry(&mut self, cdp: &Cdp, file: &Path) {
        if self.entry_guards.contains_key(file) {
            return;
        }
        // A relative name guards every script whose URL ends with it, as a suffix binds.
        let pattern = if file.is_absolute() {
            url_regex(file)
        } else {
            match suffix_of(file) {
                Some(suffix) => url_suffix_regex(&suffix),
                None => return,
            }
        };
        let params = json!({ "urlRegex": pattern, "lineNumber": 0, "columnNumber": 0 });
        if let Ok(answer) = cdp.call("Debugger.setBreakpointByUrl", params).await
            && let Some(id) = answer["breakpointId"].as_str()
        {
            self.entry_guards.insert(file.to_path_buf(), id.to_string());
        }
    }

    /// Places function breakpoint `entry` through the maps of the loaded scripts and of the
    /// generated files in the program's folder (by URL, bound as they load).
    async fn place_function_in_maps(&mut self, cdp: &Cdp, scripts: &Scripts, entry: &mut Entry) {
        for (id, script) in scripts.files_by_id() {
            if let (Some(path), Some(map)) = (&script.path, &script.map) {
                let target = MapTarget::Loaded(id.to_string());
                let key = path.display().to_string();
                mapped_functions::place_function_mapped(cdp, &key, &target, map, path, entry).await;
            }
        }
        let loaded: HashSet<&Path> = scripts.files().filter_map(|s| s.path.as_deref()).collect();
        for (path, map) in self.maps_on_disk().await.iter() {
            if !loaded.contains(path.as_path()) {
                let target = MapTarget::File(path.clone());
                let key = path.display().to_string();
                mapped_functions::place_function_mapped(cdp, &key, &target, map, path, entry).await;
            }
        }
    }
}

#[cfg(test)]
mod tests;
