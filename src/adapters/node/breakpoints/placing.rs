//! Where a breakpoint goes in V8: the scripts a line breakpoint's file names (one loaded, none yet,
//! or several and then none), a line placed by URL and pinned to each loaded script, the
//! bodies of a function, and removing what was placed. The table that decides what to place
//! is `mod.rs`.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::super::cdp::Cdp;
use super::super::functions;
use super::super::scripts::Scripts;
use super::super::urls::{suffix_of, url_regex, url_suffix_regex};
use super::conditions;
use super::entry::{Entry, Place};

/// The scripts a line breakpoint's file names.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum FileTarget {
    /// One file: the absolute path asked for, or the one loaded script a relative path names.
    File(PathBuf),
    /// A relative path no loaded script ends with: the first script that does, once it loads.
    Suffix(PathBuf),
    /// A relative path several loaded scripts end with: the answer lists them.
    Ambiguous {
        suffix: PathBuf,
        candidates: Vec<PathBuf>,
    },
    /// A relative path with no file name left in it (`..`).
    Nothing,
}

/// Most candidates named when a file name is ambiguous.
const MAX_CANDIDATES: usize = 10;

impl FileTarget {
    pub(super) fn of(path: &Path, scripts: &Scripts) -> FileTarget {
        if path.is_absolute() {
            return FileTarget::File(path.to_path_buf());
        }
        let Some(suffix) = suffix_of(path) else {
            return FileTarget::Nothing;
        };
        let mut candidates = scripts.named(&suffix);
        match candidates.len() {
            0 => FileTarget::Suffix(suffix),
            1 => FileTarget::File(candidates.remove(0)),
            _ => FileTarget::Ambiguous { suffix, candidates },
        }
    }
}

/// Why a file name names no one script: the candidates (at most [`MAX_CANDIDATES`]) and a
/// longer name that picks the first.
pub(super) fn ambiguity(suffix: &Path, candidates: &[PathBuf]) -> String {
    ambiguity_of("loaded scripts", suffix, candidates)
}

/// [`ambiguity`] among `kind` ("loaded scripts", "source files").
pub(super) fn ambiguity_of(kind: &str, suffix: &Path, candidates: &[PathBuf]) -> String {
    let mut listed: Vec<String> = candidates
        .iter()
        .take(MAX_CANDIDATES)
        .map(|c| c.display().to_string())
        .collect();
    if candidates.len() > MAX_CANDIDATES {
        listed.push(format!("and {} more", candidates.len() - MAX_CANDIDATES));
    }
    let example = candidates
        .first()
        .and_then(|first| distinguishing_suffix(first, candidates))
        .map(|s| format!(", e.g. {}", s.display()))
        .unwrap_or_default();
    format!(
        "{} {kind} are named {}: {}; give more of the path{example}",
        candidates.len(),
        suffix.display(),
        listed.join(", "),
    )
}

/// The shortest tail of `path` that no other of `candidates` ends with.
fn distinguishing_suffix(path: &Path, candidates: &[PathBuf]) -> Option<PathBuf> {
    let parts: Vec<_> = path.components().collect();
    (1..=parts.len()).find_map(|take| {
        let tail: PathBuf = parts[parts.len() - take..].iter().collect();
        let unique = candidates
            .iter()
            .all(|other| other == path || !other.ends_with(&tail));
        unique.then_some(tail)
    })
}

/// Why a line breakpoint in a loaded script did not bind: V8 moves one forward to the next
/// place it can stop at (a script's end is one), and found none (code that has run may be gone:
/// V8 may let go of a script's top level once it ran).
const NO_CODE_AFTER: &str = "the loaded script has no code to stop at on this line or after it";

/// Places `entry` at `line` of `target`; `loaded` says whether the one file it names is loaded
/// (V8 binds a breakpoint by URL in a loaded script at once, moved to the next line with code).
pub(super) async fn place_line(
    cdp: &Cdp,
    target: &FileTarget,
    loaded: bool,
    line: u32,
    entry: &mut Entry,
) {
    if line == 0 {
        entry.message = Some("line numbers start at 1".into());
        return;
    }
    // The pattern, why nothing bound yet, and the file named: the one file, or the suffix.
    let (url_pattern, pending, named, exact) = match target {
        FileTarget::File(path) => (
            url_regex(path),
            match loaded {
                true => NO_CODE_AFTER.to_string(),
                false => format!("not loaded yet: it binds when {} loads", path.display()),
            },
            path,
            true,
        ),
        FileTarget::Suffix(suffix) => (
            url_suffix_regex(suffix),
            format!(
                "no script named {} has loaded yet; it binds when one does",
                suffix.display()
            ),
            suffix,
            false,
        ),
        FileTarget::Ambiguous { suffix, candidates } => {
            entry.message = Some(ambiguity(suffix, candidates));
            return;
        }
        FileTarget::Nothing => {
            entry.message = Some("no file name in this path".into());
            return;
        }
    };
    let mut params = json!({
        "urlRegex": url_pattern,
        "lineNumber": line - 1,
        "columnNumber": 0,
    });
    if let Some(condition) = &entry.wish.condition {
        params["condition"] = json!(conditions::v8_condition(condition));
    }
    match cdp.call("Debugger.setBreakpointByUrl", params).await {
        Ok(answer) => {
            if let Some(id) = answer["breakpointId"].as_str() {
                entry.v8_ids.push(id.to_string());
            }
            match answer["locations"].as_array().and_then(|l| l.first()) {
                Some(location) => {
                    let line = location["lineNumber"].as_u64().unwrap_or(0) + 1;
                    // A file is its path. A suffix that binds at once bound in a script whose
                    // `scriptParsed` has yet to be read (`FileTarget::of` matched every other):
                    // the name asked for stands in for its path, and the pattern stays.
                    entry.resolved = Some((named.clone(), line as u32));
                }
                None => {
                    entry.message = Some(pending);
                    entry.by_suffix = !exact;
                }
            }
        }
        Err(e) => entry.message = Some(placement_failure(&e)),
    }
}

/// Sets `entry`'s line breakpoint in the script at `url` alone, and takes its suffix pattern's
/// V8 breakpoint out (V8 would bind it in every script of that name that loads). Should V8
/// refuse, the pattern stays: a breakpoint too many is better than none.
pub(super) async fn pin(cdp: &Cdp, entry: &mut Entry, url: &str) {
    entry.by_suffix = false;
    let Place::Line(line) = entry.wish.place else {
        return;
    };
    let mut params = json!({
        "url": url,
        "lineNumber": line.saturating_sub(1),
        "columnNumber": 0,
    });
    if let Some(condition) = &entry.wish.condition {
        params["condition"] = json!(conditions::v8_condition(condition));
    }
    let Ok(answer) = cdp.call("Debugger.setBreakpointByUrl", params).await else {
        return;
    };
    let Some(pinned) = answer["breakpointId"].as_str() else {
        return;
    };
    for id in &entry.v8_ids {
        let _ = cdp
            .call("Debugger.removeBreakpoint", json!({ "breakpointId": id }))
            .await;
    }
    entry.v8_ids.push(pinned.to_string());
}

/// V8's refusal in the user's terms.
pub(super) fn placement_failure(error: &str) -> String {
    if error.contains("already exists") {
        "another breakpoint is already set at this place (V8 holds one per place; that one stops here)"
            .into()
    } else {
        error.to_string()
    }
}

/// Searches `path` (once per breakpoint) for definitions of the entry's function and sets it
/// on each: by the script's exact `url` when it is loaded, else by a URL pattern.
pub(super) async fn place_function(cdp: &Cdp, path: &Path, url: Option<&str>, entry: &mut Entry) {
    let Place::Function(name) = &entry.wish.place else {
        return;
    };
    if !entry.searched.insert(path.to_path_buf()) {
        return;
    }
    let Ok(source) = tokio::fs::read_to_string(path).await else {
        return;
    };
    let starts = functions::find(&source, name);
    set_at_starts(cdp, path, url, &starts, entry).await;
}

pub(super) async fn set_at_starts(
    cdp: &Cdp,
    path: &Path,
    url: Option<&str>,
    starts: &[functions::BodyStart],
    entry: &mut Entry,
) {
    for start in starts {
        let mut params = json!({
            "lineNumber": start.line,
            "columnNumber": start.column,
        });
        match url {
            Some(url) => params["url"] = json!(url),
            None => params["urlRegex"] = json!(url_regex(path)),
        }
        if let Some(condition) = &entry.wish.condition {
            params["condition"] = json!(conditions::v8_condition(condition));
        }
        let answer = match cdp.call("Debugger.setBreakpointByUrl", params).await {
            Ok(answer) => answer,
            Err(e) => {
                entry.message = Some(placement_failure(&e));
                continue;
            }
        };
        if let Some(id) = answer["breakpointId"].as_str() {
            entry.v8_ids.push(id.to_string());
        }
        let landed = answer["locations"]
            .as_array()
            .and_then(|l| l.first())
            .and_then(|l| l["lineNumber"].as_u64());
        if let (None, Some(line)) = (&entry.resolved, landed) {
            entry.resolved = Some((path.to_path_buf(), line as u32 + 1));
        }
    }
}

/// Removes the entries no longer asked for, before the new ones are placed: V8 holds one
/// breakpoint per place, so one whose condition changed binds only once its old self is gone.
pub(super) async fn remove_all(cdp: &Cdp, gone: Vec<Entry>) {
    for entry in &gone {
        remove(cdp, entry).await;
    }
}

pub(super) async fn remove(cdp: &Cdp, entry: &Entry) {
    for id in &entry.v8_ids {
        let _ = cdp
            .call("Debugger.removeBreakpoint", json!({ "breakpointId": id }))
            .await;
    }
}
