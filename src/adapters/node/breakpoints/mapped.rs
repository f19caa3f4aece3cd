//! Line breakpoints in the code the user wrote when V8 runs something else (`app.ts:12` for a
//! `tsc` output, an esbuild bundle, what `tsx` compiled): placed through the source maps of the
//! generated scripts whose maps name the file, at every generated position the line became (one
//! V8 breakpoint each: a line inlined twice stops in both). Until one such script is known the
//! breakpoint is pending.
//!
//! A script's breakpoints must be in place before its code runs, and V8 runs a `require`d
//! module's code the moment it parses it, before we could place anything from its
//! `scriptParsed`. So the program's folder is searched for generated files with maps
//! (`source_maps::on_disk`), and those not loaded yet get their breakpoints by URL, which V8
//! binds as it parses them; a script that loads from elsewhere with a map naming the file (a
//! bundle in `node_modules`, what `tsx` compiles in memory) is placed by id as it is parsed.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::super::cdp::Cdp;
use super::super::scripts::Scripts;
use super::super::source_maps::{MapTarget, MappedScript};
use super::super::urls::url_regex;
use super::conditions;
use super::entry::Entry;
use super::placing::{ambiguity_of, placement_failure, remove};

/// A file of a language Node runs only compiled (TypeScript, JSX, Vue, CoffeeScript, ...): its
/// lines are never a script's, only a source map's.
pub(super) fn is_compiled_source(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| !matches!(e, "js" | "mjs" | "cjs" | "json" | "node"))
}

/// Whether a line breakpoint in `path` goes through source maps: a compiled language's file, or
/// a file some known map names that no loaded script is (a `.js` source of a bundle).
pub(super) fn is_original(path: &Path, scripts: &Scripts, on_disk: &[MappedScript]) -> bool {
    is_compiled_source(path)
        || ((!scripts.mapping(path).is_empty() || !on_disk.is_empty())
            && scripts
                .files()
                .filter_map(|s| s.path.as_deref())
                .all(|p| p != path && !(path.is_relative() && p.ends_with(path))))
}

/// Places `entry` (1-based `line` of the original `file`) in each of the `mapping` scripts it is
/// not placed in yet. Sets why not, when it is placed nowhere.
pub(super) async fn place_mapped(
    cdp: &Cdp,
    mapping: &[MappedScript],
    file: &Path,
    line: u32,
    entry: &mut Entry,
) {
    if line == 0 {
        entry.message = Some("line numbers start at 1".into());
        return;
    }
    if file.is_relative() {
        // Every original file the name has named so far, in any script's map or on disk: as
        // soon as there are two it binds in neither, whichever loaded first.
        entry.candidates.extend(
            mapping
                .iter()
                .filter_map(|m| m.map.sources[m.source].path.clone()),
        );
        if entry.candidates.len() > 1 {
            remove(cdp, entry).await;
            entry.v8_ids.clear();
            entry.resolved = None;
            let candidates: Vec<PathBuf> = entry.candidates.iter().cloned().collect();
            entry.message = Some(ambiguity_of("source files", file, &candidates));
            return;
        }
    }
    // Generated files not loaded yet whose code the line became: V8 binds it as they load.
    let mut waiting = Vec::new();
    for script in mapping {
        if !entry.mapped_in.insert(script.key.clone()) {
            continue;
        }
        let Some(generated) = script.map.generated(script.source, line) else {
            continue;
        };
        let mut bound = false;
        for position in &generated.positions {
            bound |= set_generated(cdp, &script.target, *position, entry).await;
        }
        if bound {
            entry.resolved = Some((original_path(script, file), generated.line));
            entry.message = None;
        } else if let MapTarget::File(path) = &script.target {
            waiting.push(path.clone());
        }
    }
    if entry.resolved.is_none() && entry.message.is_none() {
        entry.message = Some(match waiting.as_slice() {
            _ if mapping.is_empty() => format!(
                "not loaded yet: it binds when a script whose source map names {} loads",
                file.display()
            ),
            [] if entry.v8_ids.is_empty() => {
                "no code on this line or the lines after it in the source map".to_string()
            }
            [one] => format!("not loaded yet: it binds when {} loads", one.display()),
            [] => "not loaded yet: it binds when its generated script loads".to_string(),
            many => format!(
                "not loaded yet: it binds when one of its {} generated scripts loads",
                many.len()
            ),
        });
    }
}

/// Sets one V8 breakpoint of `entry` at the generated 0-based (line, column) `position` of
/// `target`. Whether it is bound: by id it is; by URL once V8 has the script (`locations`), else
/// when it parses it (`Debugger.breakpointResolved`).
pub(super) async fn set_generated(
    cdp: &Cdp,
    target: &MapTarget,
    (line, column): (u32, u32),
    entry: &mut Entry,
) -> bool {
    let (method, mut params) = match target {
        MapTarget::Loaded(id) => (
            "Debugger.setBreakpoint",
            json!({ "location": { "scriptId": id, "lineNumber": line, "columnNumber": column } }),
        ),
        MapTarget::File(path) => (
            "Debugger.setBreakpointByUrl",
            json!({ "urlRegex": url_regex(path), "lineNumber": line, "columnNumber": column }),
        ),
    };
    if let Some(condition) = &entry.wish.condition {
        params["condition"] = json!(conditions::v8_condition(condition));
    }
    match cdp.call(method, params).await {
        Ok(answer) => {
            if let Some(id) = answer["breakpointId"].as_str() {
                entry.v8_ids.push(id.to_string());
            }
            matches!(target, MapTarget::Loaded(_))
                || answer["locations"]
                    .as_array()
                    .is_some_and(|l| !l.is_empty())
        }
        Err(e) => {
            entry.message = Some(placement_failure(&e));
            false
        }
    }
}

/// The original file `script`'s map names for `file`: its path, else the name asked for.
pub(super) fn original_path(script: &MappedScript, file: &Path) -> PathBuf {
    script.map.sources[script.source]
        .path
        .clone()
        .unwrap_or_else(|| file.to_path_buf())
}
